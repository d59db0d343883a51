"""When the scores come from an LLM judge: prediction-powered (PPI++) estimates with a few human labels.

=========================  ==========================================================================
:func:`ppi_mean`           a model's score corrected by human labels on a random subset (PPI++)
:func:`ppi_compare`        the paired difference A - B, corrected the same way (PPI on the difference)
:func:`judge_agreement`    how well the judge agrees with the humans (``judge_agree`` module)
:func:`labels_needed`      how many human labels reach a target half-width (``judge_budget`` module)
=========================  ==========================================================================

A judge is a measuring instrument with errors: its mean is biased by its false passes and false
fails, and an interval around a biased mean covers the truth *less* the more questions there are.
Prediction-powered inference (Angelopoulos et al. 2023) takes the judge's score on every question and
a human label on a random subset, and corrects the judge's mean by the judge's average error on the
labelled questions. PPI++ (Angelopoulos, Duchi & Zrnic 2023) weighs the judge by a data-estimated
``lam`` in [0, 1]: ``lam = 1`` is classic PPI, ``lam = 0`` the human labels alone.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ._clusters import check_n_clusters, cluster_codes, few_clusters_notes, hat_complement, t_crit
from ._results import Interval, Summary
from ._validate import check_confidence
from .errors import EvalStatsError, EvalStatsWarning
from .judge_interval import pair_count_terms, ppi_interval
from .judge_rows import _narrower, human_only, pair_human_only

__all__ = ["JudgeEstimate", "ppi_mean", "ppi_compare", "ppi_fit", "ppi_interval", "ppi_lambda"]

_NAN_INTERVAL = Interval(math.nan, math.nan)


@dataclass(frozen=True, slots=True)
class JudgeEstimate:
    """A judge-corrected mean (or paired difference) with its uncertainty.

    Attributes
    ----------
    estimate : float
        The PPI++ estimate ``lam * mean_U(judge) + mean_L(human - lam * judge)``.
    se : float
        Its standard error (CR2 on the estimator's influence values; see :func:`ppi_mean`).
    ci_low, ci_high : float
        The interval at ``confidence``: ``estimate -/+ t(df) * se`` for graded scores; for 0/1 judge and
        human scores, the same arms with a small-count (MOVER) correction, so it can be asymmetric
        (see :func:`~evalstats_core.judge_interval.ppi_interval`).
    df : float
        Satterthwaite (Bell-McCaffrey) degrees of freedom of the t reference.
    lam : float
        The judge's weight in [0, 1] (1: classic PPI; 0: human labels alone). With ``lam="auto"`` it is 0 exactly,
        and the estimate, SE, df and interval are the human labels' own (``human_only``), when their interval is
        the narrower one (:data:`~evalstats_core.judge_rows.HUMAN_ONLY`).
    n_labeled, n_total : int
        Questions with a human label; all questions.
    judge_only : Interval
        The interval ``summarize`` gives for the judge's scores on every question (biased).
    human_only : Interval
        The interval ``summarize`` gives for the human labels alone (``nan`` ends when they cannot
        give one, e.g. all labels in one cluster).
    judge_mean, human_mean : float
        The judge's mean on every question; the humans' mean on the labelled ones.
    n_clusters : int
        Number of clusters (``n_total`` without clusters).
    clustered : bool
        True when cluster labels were given.
    confidence : float
        Confidence level of the intervals.
    warnings : tuple of str
        Cautions (few labels, few clusters), also issued as ``EvalStatsWarning``.
    stratified : bool
        True when the estimate is stratified by the judge's verdict because the labels look chosen by it
        (:func:`~evalstats_core.judge_strata.ppi_stratified`; ``lam`` is then nan).
    """

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    df: float
    lam: float
    n_labeled: int
    n_total: int
    judge_only: Interval = _NAN_INTERVAL
    human_only: Interval = _NAN_INTERVAL
    judge_mean: float = math.nan
    human_mean: float = math.nan
    n_clusters: int = 0
    clustered: bool = False
    confidence: float = 0.95
    warnings: tuple[str, ...] = ()
    stratified: bool = False

    @property
    def ci(self) -> Interval:
        """The corrected interval as ``Interval(low, high)``."""
        return Interval(self.ci_low, self.ci_high)

    @property
    def half_width(self) -> float:
        """Half the corrected interval's width."""
        return (self.ci_high - self.ci_low) / 2.0

    @property
    def judge_bias(self) -> float:
        """How far the judge's mean sits from the corrected estimate (judge minus corrected)."""
        return self.judge_mean - self.estimate


#: Fewer human labels than this and the estimate comes with a caution (the t reference and lam are
#: then estimated from little data).
MIN_LABELS = 30


def _as_pair(judge: Any, human: Any, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Judge scores (finite) and human labels (NaN = unlabelled) as float64 arrays of one length."""
    arrays = []
    for values, name in zip((judge, human), names, strict=True):
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise EvalStatsError(f"{name} must be numbers, one per question (NaN = no label): {exc}") from None
        if arr.ndim != 1:
            raise EvalStatsError(f"{name} must be one-dimensional (got shape {arr.shape}); one score per question")
        arrays.append(arr)
    j, h = arrays
    if j.size != h.size:
        raise EvalStatsError(
            f"{names[0]} has {j.size} scores but {names[1]} has {h.size}: give one human label (or NaN) "
            "per judged question"
        )
    bad = ~np.isfinite(j)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise EvalStatsError(f"{names[0]}[{i}] is {j[i]!r}: the judge must score every question")
    if np.isinf(h).any():
        i = int(np.flatnonzero(np.isinf(h))[0])
        raise EvalStatsError(f"{names[1]}[{i}] is {h[i]!r}: a human label must be a finite number or NaN")
    return j, h


def ppi_lambda(y: np.ndarray, f_lab: np.ndarray, f_unl: np.ndarray) -> float:
    """The variance-optimal PPI++ weight for a mean, clipped to [0, 1] (0 when the judge is constant).

    ``lam = cov_n(Y, f_L) / ((1 + n/N) var(f_all))`` with the covariance over the ``n`` labelled
    questions (divisor ``n``) and the judge's variance over all ``n + N`` questions (divisor
    ``n + N - 1``), exactly as ``ppi_py``'s ``_calc_lam_glm`` (Angelopoulos, Duchi & Zrnic 2023, Eq. 7).
    """
    n, big_n = y.size, f_unl.size
    if big_n == 0:
        return 0.0
    f_all = np.concatenate([f_lab, f_unl])
    var_f = float(np.var(f_all - f_all[0], ddof=1))
    if var_f == 0.0:
        return 0.0
    cov = float(np.mean((y - y.mean()) * (f_lab - f_lab.mean())))
    return float(np.clip(cov / ((1.0 + n / big_n) * var_f), 0.0, 1.0))


def ppi_mean(
    judge: Any, human: Any, *, clusters: Any = None, confidence: float = 0.95, lam: float | str = "auto"
) -> JudgeEstimate:
    """A mean score corrected by human labels on a random subset: prediction-powered inference (PPI++).

    Parameters
    ----------
    judge : array_like, shape (n_total,)
        The judge's score for every question (0/1 or graded).
    human : array_like, shape (n_total,)
        The human label for the same questions, NaN where there is none. The labelled questions must be
        a random subset (humans re-grade a random sample of what the judge graded); at least 2.
    clusters : array_like, shape (n_total,), optional
        A cluster label per question, as for :func:`~evalstats_core.clustering.summarize`.
    confidence : float, default 0.95
        Confidence level.
    lam : "auto" or float in [0, 1], default "auto"
        The judge's weight: ``"auto"`` estimates the variance-optimal one (PPI++), ``1`` is classic PPI,
        ``0`` ignores the judge (the human labels alone).

    Returns
    -------
    JudgeEstimate

    Notes
    -----
    With ``L`` the ``n`` labelled questions and ``U`` the ``N`` others, the estimate is::

        theta = lam * mean_U(f) + mean_L(Y - lam * f)

    which is exactly ``ppi_py.ppi_mean_ci(Y=human[L], Yhat=judge[L], Yhat_unlabeled=judge[U])`` (the
    unlabelled mean is over the questions *without* a label), with ``lam`` the same clipped
    variance-optimal weight (:func:`ppi_lambda`). The standard error differs from ``ppi_py``'s in one
    declared way: each part's variance uses the divisor ``k - 1`` (the unbiased variance, as ``summarize``
    does), where ``ppi_py`` divides by ``k``::

        se^2 = lam^2 var_U(f) / N + var_L(Y - lam f) / n        (ppi_py: the same with ddof=0)

    The interval is ``theta -/+ t(df) se`` (``ppi_py`` uses z) for graded scores. When the judge's and the
    humans' scores are both 0/1, its arms carry a small-count correction (Jeffreys limits of the judge's
    false-pass and false-fail shares among the labelled questions, combined by MOVER;
    :func:`~evalstats_core.judge_interval.ppi_interval`), so it can be asymmetric about theta: with 40
    labels and a lenient judge, often no labelled question is a false pass, and the plain interval then
    covers the truth 89% of the time (this one 95%). ``se`` and ``df`` come from one computation: theta is
    the contrast ``b1 + b2`` of a regression of ``z = lam f`` on ``U`` and ``z = Y - lam f`` on ``L``
    with one intercept each, and ``se`` and ``df`` are its CR2 standard error and Bell-McCaffrey
    (Satterthwaite) degrees of freedom, with every question its own cluster when ``clusters`` is None
    (this gives the formula above and a Welch-type df) and the given clusters otherwise (a cluster's
    labelled and unlabelled questions count together). See :func:`_cr2_two_means`.

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023, "Prediction-powered inference", Science 382.
    Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient prediction-powered inference", arXiv:2311.01453.
    Bell & McCaffrey 2002, Survey Methodology 28(2); Pustejovsky & Tipton 2018, JBES 36(4).
    Imbens & Kolesar 2016, "Robust standard errors in small samples: some practical advice", Review of
    Economics and Statistics 98(4).
    Zou & Donner 2008, "Construction of confidence limits about effect measures: a general approach",
    Statistics in Medicine 27(10). Newcombe 2011, "Propagating imprecision: combining confidence intervals
    from independent sources", Communications in Statistics - Theory and Methods 40(17).

    Examples
    --------
    >>> judge = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1]
    >>> human = [1, 0, 1, 0, float("nan"), float("nan"), float("nan"), float("nan"), 1, 0, 0, 1]
    >>> est = ppi_mean(judge, human, lam=1.0)
    >>> round(est.estimate, 4), est.n_labeled, est.n_total
    (0.5, 8, 12)
    """
    return _estimate(*_as_pair(judge, human, ("judge", "human")), clusters, confidence, lam, small_counts=True)


def _estimate(f: np.ndarray, h: np.ndarray, clusters: Any, confidence: float, lam: Any, *,
              small_counts: bool) -> JudgeEstimate:
    """:func:`ppi_mean` on checked arrays (``small_counts``: the 0/1 correction of the interval)."""
    level = check_confidence(confidence)
    lab = ~np.isnan(h)
    n, n_total = int(lab.sum()), f.size
    if n < 2:
        raise EvalStatsError(
            f"{n} question(s) have a human label: the corrected estimate needs at least 2 (30 or more is "
            "better); label a random subset of the judged questions"
        )
    codes, n_clusters = _codes(clusters, n_total)
    est, se, df, weight = ppi_fit(f, h, lab, codes, lam)
    low, high = ppi_interval(f, h, lab, est, se, df, level, small_counts=small_counts, clustered=clusters is not None)
    y = h[lab]
    judge_only, humans = _side_intervals(f, h, lab, clusters, level)
    human_only = _NAN_INTERVAL if humans is None else humans.ci
    if small_counts and isinstance(lam, str) and _narrower(humans, low, high):  # HUMAN_ONLY: lam = 0 exactly
        est, se, df, weight, low, high = humans.mean, humans.se, humans.df, 0.0, humans.ci_low, humans.ci_high
    notes = _notes(n, n_clusters, clusters is not None, df)
    return JudgeEstimate(
        estimate=est, se=se, ci_low=low, ci_high=high, df=df, lam=weight, n_labeled=n,
        n_total=n_total, judge_only=judge_only, human_only=human_only, judge_mean=float(f.mean()),
        human_mean=float(y.mean()), n_clusters=n_clusters, clustered=clusters is not None,
        confidence=level, warnings=notes,
    )


def ppi_fit(f: np.ndarray, h: np.ndarray, lab: np.ndarray, codes: np.ndarray, lam: Any = "auto") -> tuple[float, float, float, float]:
    """``(estimate, se, df, lam)`` of :func:`ppi_mean` from checked arrays (simulations call this directly).

    ``f`` judge scores, ``h`` human labels (read only where ``lab``), ``codes`` cluster codes 0..K-1
    (``np.arange(n)`` for independent questions).
    """
    y, f_lab, f_unl = h[lab], f[lab], f[~lab]
    weight = _check_lam(lam, y, f_lab, f_unl)
    z = np.where(lab, h - weight * f, weight * f)  # the regression's response; h is NaN only off L
    est = weight * float(f_unl.mean()) + float(z[lab].mean()) if f_unl.size else float(z[lab].mean())
    se, df = _cr2_two_means(z, lab, codes)
    return est, se, df, weight


def _check_lam(lam: Any, y: np.ndarray, f_lab: np.ndarray, f_unl: np.ndarray) -> float:
    if isinstance(lam, str):
        if lam != "auto":
            raise EvalStatsError(f"lam ({lam!r}) must be 'auto' or a number in [0, 1]")
        return ppi_lambda(y, f_lab, f_unl)
    try:
        value = float(lam)
    except (TypeError, ValueError):
        raise EvalStatsError(f"lam ({lam!r}) must be 'auto' or a number in [0, 1]") from None
    if not 0.0 <= value <= 1.0:
        raise EvalStatsError(f"lam ({value!r}) must be in [0, 1]: 1 is classic PPI, 0 the human labels alone")
    return value


def _codes(clusters: Any, n_total: int) -> tuple[np.ndarray, int]:
    if clusters is None:
        return np.arange(n_total), n_total
    codes, k = cluster_codes(clusters, n_total)
    check_n_clusters(k)
    return np.unique(codes, return_inverse=True)[1], k


def _cr2_two_means(z: np.ndarray, lab: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """CR2 SE and Bell-McCaffrey df of ``mean_U(z) + mean_L(z)`` (two intercepts, clusters ``codes``).

    With ``a_g``, ``b_g`` cluster g's unlabelled and labelled counts, ``e`` the residuals from each
    part's mean, ``c_g = 1/(N sqrt(1 - a_g/N))`` and ``d_g = 1/(n sqrt(1 - b_g/n))`` (the CR2 factors
    ``(I - H_gg)^(-1/2)`` of the block-diagonal hat matrix on each part's constant direction)::

        se^2 = sum_g (c_g sum_{U,g} e + d_g sum_{L,g} e)^2

    The df is ``(tr B)^2 / tr(B^2)`` with ``B = D - p p' - q q'``, ``D = s_U^2 c^2 a + s_L^2 d^2 b``,
    ``p = s_U a c / sqrt(N)``, ``q = s_L b d / sqrt(n)`` under the working model of independent
    questions with each part's own variance (Bell & McCaffrey 2002, Sec. 4). With clusters, the working
    model adds a cluster effect, as Imbens & Kolesar (2016) recommend: ``Omega_ij = s_i s_j (rho + (1 -
    rho) [i = j])`` within a cluster, ``rho`` the residuals' intra-cluster correlation
    (:func:`_working_icc`), so ``B = (1 - rho) (D - p p' - q q') + rho A'A`` with ``A = diag(alpha) - a u'
    - b v'``, ``alpha = s_U c a + s_L d b``, ``u = s_U c a / N``, ``v = s_L d b / n``. A strong cluster
    effect lowers the df (a wider t), which 12 unequal clusters need to hold 95%.
    """
    n, big_n = int(lab.sum()), int((~lab).sum())
    k = int(codes.max()) + 1
    e = np.empty_like(z)
    e[lab] = z[lab] - z[lab].mean()
    s_l2 = float(e[lab] @ e[lab]) / (n - 1)
    a = np.bincount(codes[~lab], minlength=k).astype(float)
    b = np.bincount(codes[lab], minlength=k).astype(float)
    sum_l = np.bincount(codes[lab], weights=e[lab], minlength=k)
    d = _cr2_factor(b, n)
    total = d * sum_l
    diag = (s_l2 * d * d) * b
    q = math.sqrt(s_l2 / n) * b * d
    p = np.zeros(k)
    if big_n:
        e[~lab] = z[~lab] - z[~lab].mean()
        s_u2 = float(e[~lab] @ e[~lab]) / (big_n - 1) if big_n > 1 else 0.0
        c = _cr2_factor(a, big_n)
        total = total + c * np.bincount(codes[~lab], weights=e[~lab], minlength=k)
        diag = diag + (s_u2 * c * c) * a
        p = math.sqrt(s_u2 / big_n) * a * c
    se = math.sqrt(float(total @ total))
    rho = _working_icc(e, lab, codes, k, s_l2, s_u2 if big_n else 0.0) if k <= MAX_DENSE_CLUSTERS else 0.0
    if rho > 0:  # Bell-McCaffrey df under a working random-effect model (Imbens & Kolesar 2016)
        s_u, s_l = math.sqrt(s_u2), math.sqrt(s_l2)
        cu = c if big_n else np.zeros(k)
        alpha = s_u * cu * a + s_l * d * b
        big_a = np.diag(alpha) - np.outer(a, s_u * cu * a / max(big_n, 1)) - np.outer(b, s_l * d * b / n)
        bmat = (1 - rho) * (np.diag(diag) - np.outer(p, p) - np.outer(q, q)) + rho * (big_a.T @ big_a)
        tr_b, tr_b2 = float(np.trace(bmat)), float(np.sum(bmat * bmat))
    else:
        pp, qq, pq = float(p @ p), float(q @ q), float(p @ q)
        tr_b = float(diag.sum()) - pp - qq
        tr_b2 = (float(diag @ diag) - 2.0 * float(diag @ (p * p)) - 2.0 * float(diag @ (q * q)) + pp**2 + qq**2
                 + 2 * pq**2)
    df = tr_b * tr_b / tr_b2 if tr_b2 > 0 else float(n - 1)
    return se, df


#: Above this many clusters the df's working model drops the cluster effect (a dense K x K matrix; the
#: t reference is then close to normal anyway).
MAX_DENSE_CLUSTERS = 1500


def _working_icc(e: np.ndarray, lab: np.ndarray, codes: np.ndarray, k: int, s_l2: float, s_u2: float) -> float:
    """The residuals' intra-cluster correlation, each part's residual divided by its SD (pairwise moments,
    clipped to [0, 0.99]); 0 when no cluster holds two questions."""
    scale = np.where(lab, math.sqrt(s_l2), math.sqrt(s_u2))
    use = scale > 0
    if not use.any():
        return 0.0
    r = e[use] / scale[use]
    g = codes[use]
    sums = np.bincount(g, weights=r, minlength=k)
    squares = np.bincount(g, weights=r * r, minlength=k)
    sizes = np.bincount(g, minlength=k).astype(float)
    pairs = float(sizes @ sizes - sizes.sum())
    if pairs <= 0:
        return 0.0
    return float(np.clip((float(sums @ sums) - float(squares.sum())) / pairs, 0.0, 0.99))


def _cr2_factor(sizes: np.ndarray, n: int) -> np.ndarray:
    """``1 / (n sqrt(1 - sizes/n))`` per cluster (CR2's ``(I - H_gg)^(-1/2)`` scaled by ``1/n``); 0 where a cluster
    holds the whole part (its residual sum is 0)."""
    share = hat_complement(sizes, n)
    out = np.zeros_like(sizes)
    ok = share > 0
    out[ok] = 1.0 / (n * np.sqrt(share[ok]))
    return out


def _notes(n: int, n_clusters: int, clustered: bool, df: float) -> tuple[str, ...]:
    notes = []
    if n < MIN_LABELS:
        note = (
            f"only {n} human labels: the corrected interval holds its level only roughly below about "
            f"{MIN_LABELS}; label more questions"
        )
        warnings.warn(note, EvalStatsWarning, stacklevel=4)  # the caller of ppi_mean / ppi_compare
        notes.append(note)
    if clustered:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvalStatsWarning)
            notes.extend(few_clusters_notes(n_clusters, "cr2", df))
    return tuple(notes)


def _side_intervals(f: np.ndarray, h: np.ndarray, lab: np.ndarray, clusters: Any, level: float) -> tuple[Interval, Summary | None]:
    """The judge-only interval and the human labels' own summary (None: no interval of their own, e.g. every
    label in one cluster), each as ``summarize`` computes it."""
    lab_clusters = None if clusters is None else np.asarray(clusters, dtype=object)[lab]
    judge = human_only(f, clusters, level)
    return (_NAN_INTERVAL if judge is None else judge.ci), human_only(h[lab], lab_clusters, level)


def ppi_compare(
    judge_a: Any, human_a: Any, judge_b: Any, human_b: Any, *, clusters: Any = None, confidence: float = 0.95,
    lam: float | str = "auto",
) -> JudgeEstimate:
    """The paired difference A - B on the same questions, corrected by human labels (PPI on the difference).

    Parameters
    ----------
    judge_a, judge_b : array_like, shape (n_total,)
        The judge's scores of models A and B on the same questions, in the same order.
    human_a, human_b : array_like, shape (n_total,)
        Human labels of A's and B's answers (NaN where unlabelled). A question counts as labelled
        when both answers carry a label; a question with only one is used through its judge scores.
    clusters, confidence, lam
        As for :func:`ppi_mean`.

    Returns
    -------
    JudgeEstimate
        Of ``mean(A) - mean(B)``; ``judge_only`` and ``human_only`` are the paired intervals of the
        judge's differences and of the labelled differences.

    Notes
    -----
    The per-question difference ``d = A - B`` is a mean like any other, so :func:`ppi_mean` of
    ``judge_a - judge_b`` against ``human_a - human_b`` is the PPI++ estimate of the difference. It
    corrects a judge whose bias differs between the two models (e.g. one that prefers longer answers
    and one model writes longer ones), which no amount of judged questions can. Its interval is
    ``estimate -/+ t(df) se`` (the differences are not 0/1 proportions), as the comparison's t test; for 0/1
    scores each arm is widened (never narrowed) by the two
    models' small-count terms on the questions labelled for both
    (:func:`~evalstats_core.judge_interval.pair_count_terms`), so labels that all agree with the judge leave an
    interval as wide as their Jeffreys limits allow, never one of zero width. ``human_only`` is the labelled rows'
    own paired interval (:func:`~evalstats_core.comparison.compare` of ``human_a`` and ``human_b`` on the questions
    labelled for both: the paired rule the analysis uses, e.g. Tango's for 0/1). With ``lam="auto"`` the corrected
    interval is never wider than it: where it is narrower the estimate is theirs, ``lam = 0``
    (:data:`~evalstats_core.judge_rows.HUMAN_ONLY`, as for a model).

    Examples
    --------
    >>> nan = float("nan")
    >>> est = ppi_compare([1, 1, 1, 0], [1, 0, nan, nan], [0, 1, 0, 0], [0, 1, nan, nan], lam=1.0)
    >>> est.estimate, est.n_labeled
    (0.0, 2)
    """
    ja, ha = _as_pair(judge_a, human_a, ("judge_a", "human_a"))
    jb, hb = _as_pair(judge_b, human_b, ("judge_b", "human_b"))
    if ja.size != jb.size:
        raise EvalStatsError(
            f"judge_a has {ja.size} scores but judge_b has {jb.size}: a paired comparison needs both models "
            "scored on the same questions"
        )
    est = _estimate(ja - jb, ha - hb, clusters, confidence, lam, small_counts=False)
    lab = ~np.isnan(ha - hb)
    if all(_zero_one(x) for x in (ja, jb, ha[lab], hb[lab])):
        d_lo, d_hi = pair_count_terms(*(x[None, :] for x in (ha, ja, hb, jb, lab)), est.confidence)
        arm = t_crit(est.confidence, est.df) * est.se if est.se > 0 else 0.0
        est = replace(est, ci_low=est.estimate - math.sqrt(arm * arm + float(d_lo[0])),
                      ci_high=est.estimate + math.sqrt(arm * arm + float(d_hi[0])))
    groups = None if clusters is None else np.asarray(clusters, dtype=object)[lab]
    own = pair_human_only(ha[lab], hb[lab], groups, est.confidence)  # the labelled rows' own paired interval
    est = replace(est, human_only=_NAN_INTERVAL if own is None else Interval(own.ci_low, own.ci_high))
    if isinstance(lam, str) and _narrower(own, est.ci_low, est.ci_high):  # HUMAN_ONLY for the pair
        est = replace(est, estimate=own.diff, se=own.se, df=own.df, lam=0.0, ci_low=own.ci_low, ci_high=own.ci_high)
    return est


def _zero_one(x: np.ndarray) -> bool:
    return bool(np.all((x == 0.0) | (x == 1.0)))
