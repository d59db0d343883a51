"""One clustered model's mean of scores in [0, 1] that are not 0/1 (partial credit, a mean of K runs): the 0/1
rule on quasi-binomial counts.

=================================  ===================================================================
:func:`within_dispersion`          ``phi``: the within-cluster variance as a share of the largest a score in
                                   [0, 1] with those cluster means can have (1 for 0/1 scores)
:func:`whole_question_counts`      the cluster sums with under one question's worth of lost credit read as
                                   none (clusters of at least :data:`WHOLE_MIN_SIZE` questions)
:func:`bounded_mean_interval`      the rule: ``(low, high, kind)``, or None when CR2's t is right
=================================  ===================================================================

Why. Near the ceiling the cluster means of a bounded score are J-shaped (most clusters near 100%, a few
far below), as 0/1 accuracies are, and CR2's t misses on the same side: by simulation (partial credit
``Beta(2 r, 2 (1 - r))`` per question, cluster rates ``r`` Beta with the ICC) it covered 87% at 80% and
58% at 95% with two equal clusters (ICC 0.3), 58-82% at 95% with three or five. Scores in [0, 1] are
binomial-like: a score with mean ``m`` has variance at most ``m (1 - m)`` (Bhatia & Davis 2000), reached by
0/1 scores, so a cluster's sum ``S_g = n_g m_g`` is read as successes out of ``n_g`` trials (the Bernoulli
quasi-likelihood of fractional responses: Papke & Wooldridge 1996; Williams 1982) and the one-model 0/1
rule (:func:`~evalstats_core.proportions.binary_mean_interval`) is applied to those counts:

- the rule switches from t by the expected number of failures on the quasi-binomial effective number of
  questions ``min(n / phi, p (1 - p) / se^2)``; ``phi`` (:func:`within_dispersion`) says how far the
  scores vary less than 0/1 answers would (``1 / phi`` trials per question: ``K`` for a mean of ``K`` runs),
  so scores that vary little keep t until few effective failures remain;
- Korn & Graubard's interval on that effective n, at least the logit-scale CR2 interval and the
  beta-binomial profile-likelihood interval of the fractional counts ``(S_g, n_g)`` (each question one
  trial: the worst case a bounded score allows, so the likelihood keeps the lower means that a few weak
  clusters the file does not contain would make; with ``n_g / phi`` trials it covered less near the
  ceiling: a small observed spread is what such files show), and the same profile interval of the sums
  read in whole questions (:func:`whole_question_counts`: a cluster of at least 20 questions that lost
  under one question's worth of credit reads as perfect, as a 0/1 record of it would most often show;
  near 0, under one question's worth of credit as none). Without it 3-5 equal clusters at 90-95% with
  ICC 0.2-0.3 covered 87-92% (a fractional lost credit of a third of a question is read by the
  likelihood as a failure, and excludes the lower means of a J-shaped law that a 0/1 record keeps);
- with under two clusters' worth of information at least the cluster means' interval on the raw and the
  empirical-logit scale, and CR2's t clipped to [0, 1] (:mod:`~evalstats_core.cluster_means`).

Applied only when every score of the model lies in [0, 1] (the scale's bounds known from the data), with
clusters, ``method="cr2"`` and ``interval="auto"``; unbounded scores keep CR2's t (and the cluster means'
interval with few clusters' worth). Measured (``bench/bench_edge_designs.py --scores``, 1,000 draws a
design): see :func:`bounded_mean_interval`.

References
----------
Bhatia & Davis 2000, "A better bound on the variance", American Mathematical Monthly 107(4), 353-357.
Papke & Wooldridge 1996, "Econometric methods for fractional response variables with an application to
401(k) plan participation rates", J. Applied Econometrics 11(6), 619-632.
Williams 1982, "Extra-binomial variation in logistic linear models", Applied Statistics 31(2), 144-148.
Williams 1975 (the beta-binomial likelihood; see :func:`~evalstats_core.betabinomial.betabinomial_profile_ci`).
Korn & Graubard 1998 (see :func:`~evalstats_core.proportions.effective_proportion_ci`).
"""

from __future__ import annotations

import math

import numpy as np

from .betabinomial import betabinomial_profile_ci
from .proportions import binary_mean_interval, use_proportion_interval

__all__ = ["WHOLE_MIN_SIZE", "bounded_mean_interval", "whole_question_counts", "within_dispersion"]

#: ``phi`` below this counts as this (scores that do not vary within clusters: the effective number of
#: questions is then ``p (1 - p) / se^2``, never the cap ``n / phi``)
_PHI_FLOOR = 1e-12

#: Clusters of at least this many questions that lost under one question's worth of credit read as perfect
#: in the whole-question member of the rule (:func:`whole_question_counts`): one question is then at most 5%
#: of the cluster's mean. Smaller clusters keep their sums (a singleton's 0.3 is not a 0 or a 1).
WHOLE_MIN_SIZE = 20

#: Sums within this of a whole number are that number (the rounding of ``S_g = s_g + n_g p``)
_WHOLE_TOL = 1e-8


def within_dispersion(n: float, mean: float, sums: np.ndarray, sizes: np.ndarray, ss: float) -> float:
    """``phi = W / sum_g n_g m_g (1 - m_g)``: the within-cluster sum of squares over its largest possible value.

    Parameters
    ----------
    n : float
        Questions.
    mean : float
        The mean ``p`` of scores in [0, 1].
    sums, sizes : ndarray, shape (G,)
        Per cluster the residual sum ``S_g - n_g p`` and the questions ``n_g`` (non-empty clusters).
    ss : float
        The total centred sum of squares.

    Returns
    -------
    float
        In (0, 1]: 1 for 0/1 scores (and when undefined: every cluster mean 0 or 1), ``1 / K`` for means of
        ``K`` runs of the cluster's rate, near 0 for scores that hardly vary within a cluster; 0 when no
        score differs from its cluster's mean.

    Notes
    -----
    With ``B = sum_g (S_g - n_g p)^2 / n_g`` the between-cluster sum of squares, ``W = ss - B`` and
    ``sum_g n_g m_g (1 - m_g) = n p (1 - p) - B``; each cluster's sum of squares is at most
    ``n_g m_g (1 - m_g)`` for scores in [0, 1] (Bhatia & Davis 2000), with equality for 0/1 scores.

    Examples
    --------
    >>> import numpy as np
    >>> x, g = np.array([1, 0, 1, 1, 0, 1.0]), np.array([0, 0, 0, 1, 1, 1])
    >>> s, sz = np.bincount(g, weights=x - x.mean()), np.bincount(g).astype(float)
    >>> within_dispersion(6, x.mean(), s, sz, float(((x - x.mean()) ** 2).sum()))  # 0/1 scores
    1.0
    >>> round(within_dispersion(6, (x / 2 + 0.25).mean(), s / 2, sz, float(((x - x.mean()) ** 2).sum()) / 4), 3)
    0.229
    """
    between = float(sums @ (sums / sizes))
    room = n * mean * (1.0 - mean) - between
    within = max(0.0, ss - between)
    if not room > 0.0 or not math.isfinite(room):
        return 1.0
    return float(min(1.0, within / room))


def whole_question_counts(successes: np.ndarray, sizes: np.ndarray, mean: float | np.ndarray) -> np.ndarray:
    """The cluster sums with under one question's worth of lost credit read as none: ``S_g = n_g`` when
    ``n_g - S_g < 1`` and the mean is at least 1/2 (``S_g = 0`` when ``S_g < 1`` below it), in clusters of at
    least :data:`WHOLE_MIN_SIZE` questions; every other sum unchanged.

    Parameters
    ----------
    successes : ndarray, shape (G,) or (R, G)
        The cluster sums ``S_g`` of scores in [0, 1] (one file, or one file per row).
    sizes : ndarray, shape (G,)
        Questions ``n_g`` per cluster.
    mean : float or ndarray, shape (R,)
        The file's mean ``p``: which end (1 at or above 1/2, 0 below) a nearly perfect cluster is read at.

    Returns
    -------
    ndarray
        The same shape as ``successes``; 0/1 scores (whole sums) unchanged. A cluster of 300 questions that
        lost 0.7 questions' worth of credit (a mean of 99.77%) reads as perfect; one that lost 2.4 keeps 297.6.

    Notes
    -----
    The beta-binomial likelihood reads a cluster with ``f`` failures as ``Gamma(f + b) / Gamma(b)`` of the
    cluster rates' ``Beta(a, b)``: about ``b Gamma(f)`` for a J-shaped law (``b`` small) and any ``f`` not
    much below ``b``, fractional or not. Near the ceiling a 0/1 record of a cluster at 99.9% shows no failure
    most of the time, so its likelihood keeps the lower means that a J-shaped law with a few weak clusters
    allows; the same cluster's partial credit or mean of runs almost always shows some lost credit (a third
    of a question), and the likelihood of those fractional counts excludes those means. Reading under one
    question's worth of lost credit as none gives the likelihood the record a 0/1 eval of those questions
    would most often show. Chosen by simulation (the module docstring's numbers), not derived: a heuristic
    that only widens the interval (it joins a union).

    Examples
    --------
    >>> import numpy as np
    >>> whole_question_counts(np.array([299.3, 297.6, 9.5]), np.array([300.0, 300.0, 10.0]), 0.99)
    array([300. , 297.6,   9.5])
    >>> whole_question_counts(np.array([0.4, 2.5]), np.array([100.0, 100.0]), 0.01)
    array([0. , 2.5])
    """
    x = np.asarray(successes, dtype=np.float64)
    sz = np.asarray(sizes, dtype=np.float64)
    high = np.asarray(mean, dtype=np.float64)[..., None] >= 0.5 if np.ndim(mean) else mean >= 0.5
    read = np.where(high, np.where(sz - x < 1.0 - _WHOLE_TOL, sz, x), np.where(x < 1.0 - _WHOLE_TOL, 0.0, x))
    return np.where(sz >= WHOLE_MIN_SIZE, read, x)


def bounded_mean_interval(mean: float, se: float, n: int, df: float, sizes: np.ndarray, sums: np.ndarray,
                          ss: float, *, confidence: float = 0.95) -> tuple[float, float, str] | None:
    """The rule for one clustered model's mean of scores in [0, 1]: ``(low, high, kind)``, or None when t is right.

    :func:`~evalstats_core.proportions.binary_mean_interval` on the quasi-binomial counts ``S_g = n_g m_g``
    of ``n_g`` trials (module docstring), its effective number of questions capped at ``n / phi``
    (:func:`within_dispersion`) instead of ``n``. ``kind`` is ``"quasi-binomial"`` (Korn & Graubard's
    interval on the quasi-binomial effective n, at least the logit CR2 and the beta-binomial profile
    intervals) or ``"cluster-means"`` (under two clusters' worth of information).

    Parameters
    ----------
    mean, se, n, df : float
        The mean, its CR2 standard error, the questions and the Satterthwaite df. A zero SE (every cluster
        has the same mean) is read as for 0/1 scores: the effective n is then Kish's number of clusters.
    sizes, sums : ndarray, shape (G,)
        Questions and residual sums ``S_g - n_g p`` of the non-empty clusters.
    ss : float
        The total centred sum of squares.
    confidence : float, default 0.95

    Notes
    -----
    By simulation (``bench/bench_edge_designs.py --scores k3`` / ``partial``, 1,000 draws a design, the same
    draws for old and new; ``bench/results/edge_bounded_1000.txt``): the mean of 3 runs of the cluster's
    rate on 2 (500 + 500, 900 + 100), 3 (300 x 3, 900 + 50 + 50) and 5 (200 x 5, 900 + 25 x 4) clusters,
    ICC 0.05-0.3, mean 0.5-0.99 (120 designs): the old default (CR2's t, or at least the cluster means')
    covered 19-99%, below 93% in 79; this rule 88-100%, below 93% in 5, all with 3 or 5 equal clusters at
    90-95% and ICC 0.2-0.3 (88-92%: few clusters that happen to hold no weak one, which no interval built
    from them sees); width over the old one's: median 1.19x over the designs, 90th percentile 11x (near
    99%, where the old one covered 19-70%). Partial credit
    (``Beta(2 r, 2 (1 - r))`` per question) on 2, 3, 5 equal, 900 + 50 + 50 and 970 + 10 x 3 clusters (100
    designs): old 23-98%, below 93% in 68; this rule 87-100%, below 93% in 6 (3 and 5 equal clusters at
    90-95%, one at 99% with ICC 0.05); width over the old one's median 1.29x (0.89x at 50%, clipped to
    [0, 1]; 1.06x at 80%; 2.2x at 95%).
    The price is width where the scores vary little within small clusters: 30 singleton clusters at 50%
    get 1.4-1.8x t's width (each question read as one Bernoulli trial).
    Those numbers are before the whole-question member (:func:`whole_question_counts`); with it
    (``bench/results/edge_bounded_whole_1000.txt``, 1,000 draws a design, the same draws with and without):
    the mean of 3 runs, the 120 designs above: worst 94.3%, none below 93% (without it: worst 87.6%, 5
    below: 3 and 5 equal clusters at 90-95%, ICC 0.2-0.3), width over the rule without it median 1.00x,
    90th percentile 1.01x, at most 2.1x (5 equal clusters at 99%, ICC 0.05, where it covered 93.7%);
    partial credit, the 100 designs above: worst 93.7%, none below 93% (without: 87.2%, 6 below), width
    median 1.00x, 90th percentile 1.03x, at most 2.5x (the same design, 91.6% without); one cluster holding
    60% (600 + 100 x 4, 600 + 200 x 2, 120 + 20 x 4; 60 designs each for partial credit and 3 runs): worst
    94.2%, width median 1.00x, at most 1.8x (600 + 100 x 4 at 99% and ICC 0.05, which covered 95.6%
    without). It widens where the old rule already held at 99% with a small ICC (1.3-1.8x); it never
    narrows (a union).

    References
    ----------
    See :mod:`evalstats_core.bounded_means` and
    :func:`~evalstats_core.proportions.binary_mean_interval`.
    """

    trials = n / max(within_dispersion(float(n), mean, sums, sizes, ss), _PHI_FLOOR)
    successes = np.clip(sums + sizes * mean, 0.0, sizes)  # the cluster sums, rounding kept inside [0, n_g]
    chosen = binary_mean_interval(mean, se, trials, df, sizes, confidence=confidence,  # type: ignore[arg-type]
                                  successes=successes)
    if chosen is None:
        return None
    low, high, kind = chosen
    n_eff = mean * (1.0 - mean) / (se * se) if se > 0.0 else 0.0
    whole = whole_question_counts(successes, sizes, mean)
    if (se == 0.0 or use_proportion_interval(mean, min(n_eff, trials))) and np.any(whole != successes):

        bb_low, bb_high = betabinomial_profile_ci(whole, sizes, confidence=confidence)
        low, high = min(low, bb_low), max(high, bb_high)
    return low, high, "quasi-binomial" if kind == "korn-graubard" else kind
