"""Coverage at the edges: how often the default intervals for 0/1 scores contain the truth.

===============================  ======================================================================
:func:`exact_binary_coverage`    exact coverage of one model's interval (independent 0/1 answers), by
                                 summing the binomial probabilities of the outcomes it covers
:func:`clustered_binary_coverage`  simulated coverage for one clustered model (cluster random effect)
:func:`paired_binary_coverage`   simulated coverage of a paired difference of 0/1 scores
:func:`gate_pass_rate`           how often the gate's "pass" (interval above ``-margin``) happens when
                                 the candidate is truly worse than the margin allows
``clustered_binary_intervals``  the same intervals for one clustered model, vectorised over many
                                 simulated files (``draw_cluster_counts``), for coverage tables
``clustered_mean_intervals``    the t and default intervals of scores that are not 0/1, from the cluster
                                 means (``draw_cluster_means``: partial credit or K > 1 answers)
===============================  ======================================================================

Every function but the vectorised one runs the library's own :func:`~evalstats_core.clustering.summarize` or
:func:`~evalstats_core.comparison.compare` on each simulated file, with ``interval="auto"`` (the
default) or ``"normal"`` (the raw t interval), so the numbers describe what users get. Randomness
comes only from ``rng``. ``tests/test_edges.py`` runs them with modest replication counts;
``bench/bench_edges.py`` with more, and prints the before (t) / after (auto) table.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.special import bdtr, betaincinv, expit, logit, ndtri, stdtrit

from ._clusters import cr2_factors, cr2_se, cr2_weights, t_crit
from .betabinomial import betabinomial_profile_ci
from .bounded_means import _PHI_FLOOR, whole_question_counts
from .cluster_means import cluster_means_ci, few_clusters_worth, logit_cluster_means_ci
from .clustering import summarize
from .comparison import compare
from .errors import EvalStatsWarning
from .proportions import FAILURES_FOR_T
from .simulate import _cluster_rates

__all__ = ["BBH_SIZES", "COVERAGE_CLAIMS", "MMLU_SIZES", "SWE_SIZES", "claim", "clustered_binary_coverage", "clustered_binary_intervals", "clustered_mean_intervals",
           "draw_cluster_counts", "draw_cluster_means", "draw_cluster_scores", "exact_binary_coverage",
           "gate_pass_rate", "paired_binary_coverage"]


#: Cluster sizes of real benchmarks, for coverage designs: SWE-bench Verified's 12 repositories (500
#: questions), MMLU's 57 subjects (test split, 14,042 questions) and BIG-Bench Hard's 27 tasks (6,511).
SWE_SIZES = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
MMLU_SIZES = (100, 135, 152, 100, 265, 144, 100, 100, 100, 173, 102, 100, 235, 114, 145, 378, 126, 100, 310, 203,
              100, 165, 198, 193, 390, 270, 238, 151, 545, 216, 204, 237, 223, 131, 121, 108, 163, 112, 103, 234,
              100, 783, 346, 895, 306, 311, 324, 282, 1534, 272, 612, 110, 245, 201, 100, 166, 171)
BBH_SIZES = (250,) * 24 + (187, 146, 178)


#: The coverage ranges the few-clusters and extremes guardrails quote, each measured by simulation of
#: one clustered model's 95% interval (cluster accuracies Beta with the ICC, the model of
#: :func:`draw_cluster_counts`); ``tests/test_edges.py`` re-simulates every
#: design behind each range and checks that the range is what it finds. Keys: who / where.
COVERAGE_CLAIMS: dict[str, tuple[float, float]] = {
    # CR2 t, 12 (SWE-bench-like), 27 (equal), 57 (sizes 5-59) clusters, ICC 0.05-0.2, accuracy 30-70%
    "t_many_mid": (0.92, 0.96),
    # CR2 t, 12 SWE-bench-like clusters, ICC 0.1, accuracy 95%
    "t_swe_95": (0.84, 0.86),
    # the default 0/1 interval, same many-cluster designs, ICC 0.05-0.2, accuracy 95%
    "default_many_95": (0.95, 0.98),
    # the default 0/1 interval, 12 SWE-like, 27 equal, 57 (5-59), MMLU's 57 subjects, BBH-like 27 tasks,
    # ICC 0.05-0.3, accuracy 99%
    "default_many_99": (0.94, 1.00),
    # CR2 t, 3 / 5 equal and 8 unequal clusters, ICC 0.05-0.2, accuracy 30-70%
    "t_few_mid": (0.92, 0.96),
    # CR2 t, one cluster holding 90-99%: 900 + 100, 990 + 10, 900 + 50 + 50, 970 + 10 x 3; ICC 0.05-0.2, accuracy 30-70%
    "t_one_big_mid": (0.73, 0.93),
    # the default 0/1 interval, 3 / 5 / 8 clusters, ICC 0.05-0.2, accuracy 95%
    "default_few_95": (0.95, 0.99),
    # the default 0/1 interval (at least the cluster means' one), the same four designs
    "default_one_big_mid": (0.95, 0.99),
}


def claim(key: str) -> str:
    """A range of :data:`COVERAGE_CLAIMS` as the guardrails print it: ``"92-96%"``."""
    lo, hi = COVERAGE_CLAIMS[key]
    return f"{100 * lo:.0f}%" if round(100 * lo) == round(100 * hi) else f"{100 * lo:.0f}-{100 * hi:.0f}%"


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        return fn(*args, **kwargs)


def exact_binary_coverage(p: float, n: int, *, interval: str = "auto", confidence: float = 0.95) -> float:
    """Exact coverage of ``summarize``'s interval for ``n`` independent 0/1 answers at accuracy ``p``.

    Sums ``P(K = k)``, ``K ~ Bin(n, p)``, over the outcomes ``k`` whose interval contains ``p``.

    Examples
    --------
    >>> round(exact_binary_coverage(0.99, 300, interval="normal"), 3), round(exact_binary_coverage(0.99, 300), 3)
    (0.799, 0.989)
    """

    covered = np.zeros(n + 1, dtype=bool)
    for k in range(n + 1):
        scores = np.zeros(n)
        scores[:k] = 1.0
        s = summarize(scores, interval=interval, confidence=confidence)
        covered[k] = s.ci_low <= p <= s.ci_high
    ks = np.arange(n + 1, dtype=np.float64)
    pmf = np.diff(np.concatenate([[0.0], bdtr(ks, n, p)]))  # P(K = k) from the binomial CDF
    return float(pmf[covered].sum())


def clustered_binary_coverage(sizes: Any, mean: float, icc: float, *, reps: int = 2000, interval: str = "auto",
                              confidence: float = 0.95, rng: Any = None) -> float:
    """Simulated coverage of one clustered model's interval (``summarize`` with the cluster labels).

    Cluster ``g`` has a latent accuracy ``r_g ~ Beta`` with mean ``mean`` and ``Var = icc mean (1 - mean)``
    and ``sizes[g]`` questions answered correctly with probability ``r_g`` (the model of
    :func:`~evalstats_core.simulate.clustered_binary_eval`).
    """

    gen = np.random.default_rng(rng)
    sizes = np.asarray(sizes, dtype=np.int64)
    labels = np.repeat(np.arange(sizes.size), sizes)
    hits = 0
    for _ in range(reps):
        r = _cluster_rates(gen, sizes.size, mean, icc)
        scores = (gen.random(labels.size) < r[labels]).astype(np.float64)
        s = _quiet(summarize, scores, labels, interval=interval, confidence=confidence)
        hits += bool(s.ci_low <= mean <= s.ci_high)
    return hits / reps


def _paired_draw(gen: np.random.Generator, n: int, only_a: float, only_b: float,
                 sizes: np.ndarray | None, icc: float) -> tuple[np.ndarray, np.ndarray]:
    """0/1 scores of A and B: each question is right only for A, only for B, or for both.

    The two disagree on a question with probability ``only_a + only_b`` (with clusters: a cluster rate
    with that mean and ICC ``icc``); a disagreement goes A's way with probability
    ``only_a / (only_a + only_b)``.
    """
    disagree = only_a + only_b
    if sizes is None or disagree == 0.0:
        rate = np.full(n, disagree)
    else:
        rate = np.repeat(_cluster_rates(gen, sizes.size, disagree, icc), sizes)
    split = gen.random(n) < rate  # (n,) the two models disagree here
    a_way = gen.random(n) * disagree < only_a  # (n,) the disagreement favours A
    a = np.where(split, a_way, True).astype(np.float64)
    b = np.where(split, ~a_way, True).astype(np.float64)
    return a, b


def paired_binary_coverage(n: int, only_a: float, only_b: float, *, sizes: Any = None, icc: float = 0.0,
                           reps: int = 2000, interval: str = "auto", confidence: float = 0.95,
                           rng: Any = None) -> float:
    """Simulated coverage of ``compare(a, b)``'s interval for a paired difference of 0/1 scores.

    Each question is right only for A with probability ``only_a``, only for B with ``only_b``, else both
    models agree; the true difference is ``only_a - only_b``. With ``sizes`` (summing to ``n``) the
    questions are clustered and the disagreement rate varies between clusters (ICC ``icc``).
    """

    gen = np.random.default_rng(rng)
    sz = None if sizes is None else np.asarray(sizes, dtype=np.int64)
    labels = None if sz is None else np.repeat(np.arange(sz.size), sz)
    truth = only_a - only_b
    hits = 0
    for _ in range(reps):
        a, b = _paired_draw(gen, n, only_a, only_b, sz, icc)
        c = _quiet(compare, a, b, labels, interval=interval, confidence=confidence)
        hits += bool(c.ci_low <= truth <= c.ci_high)
    return hits / reps


def gate_pass_rate(n: int, drop: float, margin: float, *, sizes: Any = None, icc: float = 0.0,
                   reps: int = 2000, interval: str = "auto", confidence: float = 0.95, rng: Any = None) -> float:
    """How often the gate would pass a candidate truly ``drop`` worse than the baseline.

    The candidate is wrong on a share ``drop`` of the questions the baseline gets right and never the
    other way (the hardest case: few discordant answers, all in one direction). The gate passes when
    the interval's lower end lies above ``-margin`` (:func:`~evalstats_core.gating.gate`). With
    ``drop > margin`` a correct gate passes at most ``(1 - confidence) / 2`` of the time.
    """

    gen = np.random.default_rng(rng)
    sz = None if sizes is None else np.asarray(sizes, dtype=np.int64)
    labels = None if sz is None else np.repeat(np.arange(sz.size), sz)
    passes = 0
    for _ in range(reps):
        cand, base = _paired_draw(gen, n, 0.0, drop, sz, icc)
        c = _quiet(compare, cand, base, labels, interval=interval, confidence=confidence)
        passes += bool(c.ci_low > -margin)  # nan (no interval) never passes
    return passes / reps


def draw_cluster_counts(sizes: np.ndarray, mean: float, icc: float, reps: int,
                        gen: np.random.Generator) -> np.ndarray:
    """Per-cluster numbers of correct answers, shape ``(reps, G)``: cluster ``g`` has a latent accuracy
    ``r_g ~ Beta`` with mean ``mean`` and ICC ``icc`` (as :func:`clustered_binary_coverage`) and ``sizes[g]``
    questions."""
    rates = _cluster_rates(gen, (reps, sizes.size), mean, icc)
    return gen.binomial(sizes.astype(np.int64), rates).astype(np.float64)


def clustered_binary_intervals(x: np.ndarray, sizes: np.ndarray, conf: float = 0.95, *, profile: bool = True,
                               trials: np.ndarray | None = None, whole: np.ndarray | None = None
                               ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Intervals for one clustered model from per-cluster counts ``x`` (shape ``(reps, G)``), vectorised.

    Returns ``{"t", "Korn-Graubard", "logit CR2", "cluster means", "beta-binomial", "union of KG and logit",
    "default"}``, each ``(low, high)`` arrays: the CR2 t interval (Bell-McCaffrey df of the mean,
    :func:`~evalstats_core._clusters.cr2_se_df`); Korn & Graubard's, the logit and the beta-binomial
    profile interval where the rule picks a proportion interval (t elsewhere); the cluster means' interval
    on the raw and logit scales with t clipped (:mod:`~evalstats_core.cluster_means`; t unless the sizes hold
    under two clusters' worth of information); the union of KG and
    logit (the default before issue 20's audit); and the default, the union of all
    (:func:`~evalstats_core.proportions.binary_mean_interval`). ``profile=False`` skips the profile
    likelihood (the slowest part) and leaves out the two keys that need it. ``trials`` (shape ``(reps,)``)
    caps the effective number of questions instead of ``n``: the quasi-binomial ``n / phi`` of scores in
    [0, 1] (:func:`clustered_mean_intervals`); ``whole`` (shape of ``x``) the sums read in whole questions
    (:func:`~evalstats_core.bounded_means.whole_question_counts`), whose profile interval joins the
    beta-binomial one where they differ from ``x``. The same
    arithmetic as :func:`~evalstats_core.clustering.summarize` (``tests/test_edges.py`` checks equality
    to 1e-9), thousands of times faster for coverage tables.
    """


    n = sizes.sum()
    p = x.sum(1) / n
    resid = x - sizes * p[:, None]
    a, df = cr2_weights(sizes, n)  # every cluster non-empty
    se = cr2_se(resid, a, n)
    z, t = ndtri(0.5 + conf / 2), stdtrit(df, 0.5 + conf / 2)
    pq, tail = p * (1.0 - p), (1.0 - conf) / 2
    se = np.where(se <= 1e-12 * np.maximum(p, np.sqrt(pq / (n - 1))), 0.0, se)
    kish = n * n / (sizes @ sizes)
    cap = n if trials is None else trials
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(se > 0, n * (pq / n) / (se * se), kish)
        n_star = np.where((se > 0) & (pq > 0), np.minimum(cap, pq / (se * se)), np.minimum(cap, kish)) * (z / t) ** 2
        k = p * n_star
        kg = (np.where(k <= 0, 0.0, betaincinv(k, n_star - k + 1, tail)),
              np.where(k >= n_star, 1.0, betaincinv(k + 1, n_star - k, 1 - tail)))
        half = t * se / pq
        ok = (se > 0) & (pq > 0)
        lg = (np.where(ok, expit(logit(p) - half), kg[0]), np.where(ok, expit(logit(p) + half), kg[1]))
    few = few_clusters_worth(sizes)  # under two clusters' worth: at least t (clipped) and the cluster means'
    use = ~((se > 0) & (np.minimum(n_eff, cap) * np.minimum(p, 1 - p) >= FAILURES_FOR_T))
    tt = (p - t * se, p + t * se)
    if few:
        raw = cluster_means_ci(p, x / sizes, sizes, confidence=conf, bounds=(0.0, 1.0))
        lgt = logit_cluster_means_ci(x, sizes, confidence=conf)
        cm = (np.fmin(np.fmin(np.maximum(tt[0], 0.0), raw[0]), lgt[0]),
              np.fmax(np.fmax(np.minimum(tt[1], 1.0), raw[1]), lgt[1]))
    else:
        cm = (np.full_like(p, np.nan),) * 2  # fmin skips nan
    kl = (np.where(use, np.fmin(kg[0], lg[0]), tt[0]), np.where(use, np.fmax(kg[1], lg[1]), tt[1]))
    out = {"t": tt, "Korn-Graubard": (np.where(use, kg[0], tt[0]), np.where(use, kg[1], tt[1])),
           "logit CR2": (np.where(use, lg[0], tt[0]), np.where(use, lg[1], tt[1])),
           "cluster means": cm if few else tt, "union of KG and logit": kl}
    if not profile:
        return out
    bb = (tt[0].copy(), tt[1].copy())
    if use.any():  # the profile likelihood only where the rule reads it (it costs the most)
        bb[0][use], bb[1][use] = betabinomial_profile_ci(x[use], sizes, confidence=conf)
        moved = use & np.any(whole != x, axis=1) if whole is not None else np.zeros_like(use)
        if moved.any():  # the whole-question member of the bounded rule
            w_low, w_high = betabinomial_profile_ci(whole[moved], sizes, confidence=conf)
            bb[0][moved], bb[1][moved] = np.fmin(bb[0][moved], w_low), np.fmax(bb[1][moved], w_high)
    out["beta-binomial"] = bb
    rest = out["cluster means"]  # where the rule reads no proportion interval: t, or the cluster means'
    out["default"] = (np.where(use, np.fmin(np.fmin(kl[0], bb[0]), cm[0]), rest[0]),
                      np.where(use, np.fmax(np.fmax(kl[1], bb[1]), cm[1]), rest[1]))
    return out


def draw_cluster_scores(sizes: np.ndarray, mean: float, icc: float, reps: int, gen: np.random.Generator, *,
                        kind: str = "partial") -> tuple[np.ndarray, np.ndarray]:
    """Cluster means and within-cluster centred sums of squares of scores in [0, 1] that are not 0/1, each
    ``(reps, G)``: cluster ``g``'s latent accuracy ``r_g`` as in :func:`draw_cluster_counts`; each question
    scores ``Beta(2 r_g, 2 (1 - r_g))`` (``kind="partial"``: partial credit), ``Beta(20 r_g, 20 (1 - r_g))``
    (``"narrow"``: scores close to their cluster's rate), the mean of K answers right with probability
    ``r_g`` (``"k3"``, ``"k4"``, ``"k5"``: K samples per question), or of 5 answers right with a question's
    own probability ``Beta(2 r_g, 2 (1 - r_g))`` (``"q5"``)."""
    rates = np.clip(_cluster_rates(gen, (reps, sizes.size), mean, icc), 1e-9, 1.0 - 1e-9)
    means, m2 = np.empty_like(rates), np.empty_like(rates)
    for g, size in enumerate(sizes.astype(np.int64)):
        r = rates[:, g:g + 1]
        if kind in ("partial", "narrow"):
            c = 2.0 if kind == "partial" else 20.0
            x = gen.beta(c * r, c * (1.0 - r), size=(reps, size))
            x = np.where(x > 1.0 - 1e-9, 1.0, np.where(x < 1e-9, 0.0, x))  # a score within 1e-9 of an end is it
        elif kind == "q5":
            x = gen.binomial(5, gen.beta(2.0 * r, 2.0 * (1.0 - r), size=(reps, size))) / 5.0
        else:
            k = int(kind[1:])
            x = gen.binomial(k, np.broadcast_to(r, (reps, size))) / float(k)
        means[:, g] = x.mean(axis=1)
        d = x - means[:, g:g + 1]
        m2[:, g] = np.einsum("ij,ij->i", d, d)
    return means, m2


def draw_cluster_means(sizes: np.ndarray, mean: float, icc: float, reps: int, gen: np.random.Generator, *,
                       kind: str = "partial") -> np.ndarray:
    """The cluster means of :func:`draw_cluster_scores`, shape ``(reps, G)``."""
    return draw_cluster_scores(sizes, mean, icc, reps, gen, kind=kind)[0]


def clustered_mean_intervals(means: np.ndarray, sizes: np.ndarray, conf: float = 0.95, *,
                             m2: np.ndarray | None = None, whole: bool = True
                             ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """CR2's t interval and the default one (``summarize``'s for scores that are not 0/1) from cluster
    means ``means`` (``(reps, G)``), vectorised: ``{"t", "cluster means", "default"}``.

    Without ``m2`` (scores not known to lie in [0, 1]) the default is t, and with under two clusters' worth of
    information (:func:`~evalstats_core.cluster_means.few_clusters_worth`) at least the cluster means'
    interval (:func:`~evalstats_core.cluster_means.cluster_means_ci`). With ``m2``, the within-cluster centred
    sums of squares of scores in [0, 1], the default is the quasi-binomial rule
    (:func:`~evalstats_core.bounded_means.bounded_mean_interval`): :func:`clustered_binary_intervals` on the
    cluster sums with the effective number of questions capped at ``n / phi``, and the profile interval of the
    sums read in whole questions (:func:`~evalstats_core.bounded_means.whole_question_counts`; ``whole=False``
    leaves it out: the rule before it, for the coverage tables). ``tests/test_cluster_means.py``
    and ``tests/test_bounded_means.py`` check both equal ``summarize``'s to 1e-9."""

    n = sizes.sum()
    m = means @ (sizes / n)
    _, df = cr2_weights(sizes, int(n))  # df of these sizes
    se = cr2_se(sizes * (means - m[:, None]), cr2_factors(sizes, n), n)  # Bell & McCaffrey 2002
    half = t_crit(conf, df) * se
    tt = (m - half, m + half)
    if m2 is not None:
        between = (sizes * (means - m[:, None]) ** 2).sum(axis=1)
        room = n * m * (1.0 - m) - between
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = np.where(room > 0, np.minimum(1.0, m2.sum(axis=1) / room), 1.0)
        x = np.clip(means * sizes, 0.0, sizes)
        # a file of 0/1 scores (every cluster's sum of squares the largest: phi 1, whole counts) is a 0/1 file
        binary = (phi >= 1.0 - 1e-9) & np.all(np.abs(x - np.rint(x)) <= 1e-9 * sizes, axis=1)
        x = np.where(binary[:, None], np.rint(x), x)
        iv = clustered_binary_intervals(x, sizes, conf, trials=n / np.maximum(phi, _PHI_FLOOR),
                                        whole=whole_question_counts(x, sizes, m) if whole else None)
        return {"t": tt, "cluster means": iv["cluster means"], "default": iv["default"]}
    if not few_clusters_worth(sizes):
        return {"t": tt, "cluster means": tt, "default": tt}
    cm = cluster_means_ci(m, means, sizes, confidence=conf)
    return {"t": tt, "cluster means": cm, "default": (np.minimum(tt[0], cm[0]), np.maximum(tt[1], cm[1]))}
