"""Human labels chosen by the judge's verdict: the check that finds it, and the estimate that stays unbiased.

==============================  =====================================================================
:func:`selection_check`         does the labelled share differ between the judge's pass and fail answers
                                (and between clusters)? Pearson's chi-square on the labelled-by-group table
:func:`ppi_stratified`          a model's mean from the labels within each verdict, weighted by the verdict's
                                share of every question (PPI within strata of the judge's verdict)
:func:`ppi_compare_stratified`  the same for a paired difference A - B, strata the two verdicts
==============================  =====================================================================

PPI assumes the labelled questions are a simple random sample. When humans label the judge's fails first (an
audit of what the judge rejected), the labelled answers over-represent one verdict and the rectifier
``mean_L(Y - lam f)`` is biased: a simulation with humans labelling judge fails first put the PPI estimate 36 points
off. If the choice depended only on the judge's verdict, the labels *within* each verdict are still a random sample
of that verdict's answers, so the stratified estimate ``sum_s (N_s / N) mean_{L,s}(Y)`` (``N_s`` answers with
verdict ``s``; within a stratum the judge's score is constant, so PPI there is the labels' mean) is unbiased
(Cochran 1977, *Sampling Techniques*, Sec. 5.3, post-stratification). The one-sentence assumption: *within each of
the judge's verdicts, the answers a human labelled are like those they did not.*

Its interval for 0/1 labels combines each stratum's Jeffreys limits by MOVER (Zou & Donner 2008), as the 0/1
small-count terms of :mod:`evalstats_core.judge_interval` do, so it never has zero width; for graded labels it is
``estimate -/+ t(df) se`` with Satterthwaite's df.

With clusters (:func:`_clustered`) the estimate is the same and its variance is cluster-robust: the estimate is a
weighted sum of means (each verdict's labels, weight ``N_s / N``, and the strata's shares, whose linearised
contribution is the mean of ``mean_{L,s(i)} - estimate`` over every question), so each cluster's contribution is
``sum_s w_s c_gs sum_{L,s,g} e + c_g sum_g (mean_{L,s(i)} - estimate)``, every part's residual sum scaled by CR2's
``(I - H_gg)^(-1/2)`` on that part's constant direction (:func:`~evalstats_core._clusters.hat_complement`, the one
CR2 adjustment; for the labelled parts this is exactly clubSandwich's CR2 of ``lm(y ~ 0 + stratum)`` contrasted by
the weights). Its df is Bell-McCaffrey's under the working model of ``judge._cr2_two_means`` (independent parts,
each with its own variance, and a working intra-cluster correlation), of which the PPI++ two-part model is the
case of two parts. The interval is ``estimate -/+ t(df) se``; for 0/1 labels each arm is widened by the strata's
Jeffreys-minus-Wald terms (never narrowed), and a model's by the effective-count floor of the clustered 0/1 rule
(:func:`~evalstats_core.judge_interval.effective_floor`), as the clustered PPI++ interval is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import chdtrc, ndtri, stdtrit

from ._clusters import check_n_clusters, cluster_codes, hat_complement, t_crit
from ._validate import check_confidence
from .errors import EvalStatsError
from .judge_interval import effective_floor, jeffreys_limits

__all__ = ["Selection", "Stratified", "SELECTION_ALPHA", "selection_check", "ppi_stratified",
           "ppi_compare_stratified"]

#: The check's level: a labelled share that differs between the verdicts at p below this is flagged.
SELECTION_ALPHA = 0.01


@dataclass(frozen=True, slots=True)
class Selection:
    """Whether the labels look chosen by the judge's verdict (or by cluster).

    ``share_pass``, ``share_fail``: labelled share among the judge's pass and fail answers; ``p_verdict``: Pearson
    chi-square p of labelled x verdict (nan when a verdict is absent); ``p_cluster``: the same across clusters (nan
    without clusters); ``flagged``: ``p_verdict < SELECTION_ALPHA``; ``by_cluster``: ``p_cluster < SELECTION_ALPHA``.
    """

    share_pass: float
    share_fail: float
    p_verdict: float
    p_cluster: float = math.nan

    @property
    def flagged(self) -> bool:
        return bool(self.p_verdict < SELECTION_ALPHA)

    @property
    def by_cluster(self) -> bool:
        return bool(self.p_cluster < SELECTION_ALPHA)

    def sentence(self, what: str, *, clustered: bool = False) -> str:
        """What the check found, in words (for a warning); ``clustered``: the stratified estimate's variance is
        the cluster-robust one, and the sentence says so."""
        out = []
        found = (f"{what}: the labels look chosen by the judge's verdict ({100 * self.share_pass:.1f}% of the "
                 f"judge's passes are labelled, {100 * self.share_fail:.1f}% of its fails; chi-square p "
                 f"{self.p_verdict:.2g})")
        if self.flagged:
            robust = ", with a cluster-robust (CR2) variance over the clusters" if clustered else ""
            out.append(f"{found}, so the estimate is stratified by the verdict (the labels' mean within "
                       f"the judge's passes and within its fails, weighted by their counts{robust}), which assumes "
                       "that within each verdict the labelled answers are like the others")
        if self.by_cluster:
            out.append(f"{what}: the labelled share differs between clusters (chi-square p {self.p_cluster:.2g}); "
                       "label a random subset of every cluster, or the corrected estimate may be biased")
        return "; ".join(out)


@dataclass(frozen=True, slots=True)
class Stratified:
    """The stratified estimate: ``estimate``, ``se``, ``df`` (inf for the 0/1 MOVER-Jeffreys interval),
    ``ci_low``, ``ci_high`` and the labels it rests on, ``n_labeled``."""

    estimate: float
    se: float
    df: float
    ci_low: float
    ci_high: float
    n_labeled: int


def _chi2_p(table: np.ndarray) -> float:
    """Pearson chi-square p of a (groups x 2) table of counts (groups with no questions dropped)."""
    table = table[table.sum(1) > 0]
    if table.shape[0] < 2 or (table.sum(0) == 0).any():
        return math.nan
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    return float(chdtrc(table.shape[0] - 1, stat))


def selection_check(judge: Any, human: Any, *, clusters: Any = None) -> Selection:
    """Test whether the labelled share differs between the judge's pass and fail answers (0/1 verdicts; a graded
    judge is split at 0.5) and, with ``clusters``, between clusters (Pearson's chi-square)."""
    f, h = _checked(judge, human)
    lab = ~np.isnan(h)
    passed = f >= 0.5
    table = np.array([[np.sum(lab & passed), np.sum(~lab & passed)], [np.sum(lab & ~passed), np.sum(~lab & ~passed)]],
                     dtype=float)
    share = [t[0] / t.sum() if t.sum() else math.nan for t in table]
    p_cluster = math.nan
    if clusters is not None:
        _, codes = np.unique(np.asarray(clusters, dtype=object).astype(str), return_inverse=True)
        by = np.column_stack([np.bincount(codes, weights=lab.astype(float)), np.bincount(codes, weights=(~lab).astype(float))])
        p_cluster = _chi2_p(by)
    return Selection(float(share[0]), float(share[1]), _chi2_p(table), p_cluster)


def _strata(keys: np.ndarray) -> np.ndarray:
    return np.unique(keys, return_inverse=True)[1]


def _post_stratified(y: np.ndarray, lab: np.ndarray, strata: np.ndarray
                     ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, float] | None:
    """``(strata count, labels per stratum, shares, labelled means, estimate)`` of the post-stratified mean
    ``sum_s w_s mean_{L,s}(y)`` (Cochran 1977, Eq. 5.1), the one estimate of :func:`_combine` and
    :func:`_clustered`; None when a stratum has no label."""
    k = int(strata.max()) + 1
    sizes = np.bincount(strata, minlength=k).astype(float)
    n = np.bincount(strata[lab], minlength=k).astype(float)
    if np.any((sizes > 0) & (n == 0)):
        return None
    w = sizes / sizes.sum()
    means = np.bincount(strata[lab], weights=y[lab], minlength=k) / np.maximum(n, 1)
    return k, n, w, means, float(w @ means)


def _combine(f: np.ndarray, y: np.ndarray, lab: np.ndarray, strata: np.ndarray, level: float,
             values: tuple[float, ...]) -> tuple[float, float, float, float, float] | None:
    """``(estimate, se, df, low, high)`` of ``sum_s w_s mean_{L,s}(y)``; None when a stratum has no label.

    ``values``: the 0/1 (or -1/0/1) values ``y`` takes, for the MOVER-Jeffreys arms; empty for graded labels."""
    got = _post_stratified(y, lab, strata)
    if got is None:
        return None
    k, n, w, means, est = got
    dev = y[lab] - means[strata[lab]]
    var_s = np.bincount(strata[lab], weights=dev * dev, minlength=k) / np.maximum(n - 1, 1)
    v = w * w * var_s / np.maximum(n, 1)
    # the strata's shares are a sample too (of the questions the eval could have had): sum_s w_s (mean_s - est)^2 / N
    between = float(w @ (means - est) ** 2) / strata.size
    se = math.sqrt(float(v.sum()) + between)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = float(v.sum() ** 2 / np.sum(np.where(n > 1, v * v / np.maximum(n - 1, 1), 0.0))) if v.sum() > 0 else math.inf
    df = df if math.isfinite(df) else math.inf
    if values:  # MOVER over each stratum's Jeffreys limits of P(y = +1) and P(y = -1)
        z2 = float(ndtri(0.5 + level / 2.0)) ** 2
        lo2 = hi2 = 0.0
        for sign in (1.0, -1.0):
            if sign not in values:
                continue
            k_s = np.bincount(strata[lab], weights=(y[lab] == sign).astype(float), minlength=k)
            low, high = jeffreys_limits(k_s, np.maximum(n, 1), z2)
            p = k_s / np.maximum(n, 1)
            down, up = w * w * (p - low) ** 2, w * w * (high - p) ** 2
            lo2 += float((down if sign > 0 else up).sum())
            hi2 += float((up if sign > 0 else down).sum())
        lo2, hi2 = lo2 + z2 * between, hi2 + z2 * between
        return est, se, math.inf, est - math.sqrt(lo2), est + math.sqrt(hi2)
    t = float(stdtrit(df, 0.5 + level / 2.0)) if math.isfinite(df) else float(ndtri(0.5 + level / 2.0))
    return est, se, df, est - t * se, est + t * se


def _checked(*arrays: Any) -> list[np.ndarray]:
    out = [np.asarray(a, dtype=np.float64) for a in arrays]
    if any(a.ndim != 1 or a.size != out[0].size for a in out):
        raise EvalStatsError("judge scores and human labels must be one-dimensional, one per question")
    return out


def _codes(clusters: Any, n: int) -> np.ndarray | None:
    """Cluster codes 0..K-1 of ``clusters`` (None: questions independent); fewer than 2 clusters refused."""
    if clusters is None:
        return None
    codes, k = cluster_codes(clusters, n)
    check_n_clusters(k)
    return np.unique(codes, return_inverse=True)[1]


def cr2_parts(codes: np.ndarray, parts: list[tuple[np.ndarray, float, np.ndarray]],
              rho_parts: int | None = None) -> tuple[float, float]:
    """CR2 SE and Bell-McCaffrey df of ``sum_p w_p mean_{P_p}(x)``: ``parts`` a list of ``(rows, w_p, e_p)``, each a
    boolean mask of its questions, its weight and its residuals ``x - mean_{P_p}(x)`` on those rows (in row order);
    ``codes`` cluster codes 0..K-1 of every question.

    Cluster g's contribution is ``sum_p c_pg S_pg``, ``S_pg`` the part's residual sum in g and ``c_pg = w_p / (n_p
    sqrt(1 - b_pg / n_p))`` (CR2's adjustment on the part's constant direction, :func:`hat_complement`), and
    ``se^2 = sum_g (sum_p c_pg S_pg)^2``. The df is ``(tr B)^2 / tr(B^2)`` with ``B = (1 - rho) (D - sum_p q_p q_p')
    + rho A'A`` (``D = sum_p s_p^2 c_p^2 b_p``, ``q_p = s_p b_p c_p / sqrt(n_p)``, ``A = diag(sum_p s_p c_p b_p) -
    sum_p b_p (s_p c_p b_p / n_p)'``, ``rho`` the working intra-cluster correlation of the residuals of the first
    ``rho_parts`` parts, each divided by its part's SD): ``judge._cr2_two_means`` for any number of parts (with the
    parts L and U of weight 1 it gives the same numbers)."""
    k = int(codes.max()) + 1
    total, diag, alpha = np.zeros(k), np.zeros(k), np.zeros(k)
    outers, columns = [], []
    r_sums, r_squares, r_sizes = np.zeros(k), np.zeros(k), np.zeros(k)
    for i, (rows, weight, e) in enumerate(parts):
        n_p = int(rows.sum())
        if n_p == 0:
            continue
        g = codes[rows]
        b = np.bincount(g, minlength=k).astype(float)
        share = hat_complement(b, n_p)  # CR2's I - H_gg on the part's constant direction
        c = np.zeros(k)
        c[share > 0] = weight / (n_p * np.sqrt(share[share > 0]))
        total += c * np.bincount(g, weights=e, minlength=k)
        s2 = float(e @ e) / (n_p - 1) if n_p > 1 else 0.0
        sd = math.sqrt(s2)
        diag += s2 * c * c * b
        outers.append(sd * b * c / math.sqrt(n_p))
        alpha += sd * c * b
        columns.append((b, sd * c * b / n_p))
        if (rho_parts is None or i < rho_parts) and sd > 0:
            r = e / sd
            r_sums += np.bincount(g, weights=r, minlength=k)
            r_squares += np.bincount(g, weights=r * r, minlength=k)
            r_sizes += b
    se = math.sqrt(float(total @ total))
    pairs = float(r_sizes @ r_sizes - r_sizes.sum())
    rho = float(np.clip((float(r_sums @ r_sums) - float(r_squares.sum())) / pairs, 0.0, 0.99)) if pairs > 0 else 0.0
    bmat = np.diag(diag) - sum(np.outer(q, q) for q in outers)
    if rho > 0:  # a working random cluster effect (Imbens & Kolesar 2016), as judge._cr2_two_means
        big_a = np.diag(alpha) - sum(np.outer(b, u) for b, u in columns)
        bmat = (1 - rho) * bmat + rho * (big_a.T @ big_a)
    tr_b, tr_b2 = float(np.trace(bmat)), float(np.sum(bmat * bmat))
    n_first = int(parts[0][0].sum())
    return se, (tr_b * tr_b / tr_b2 if tr_b2 > 0 else float(max(n_first - 1, 1)))


def _clustered(y: np.ndarray, lab: np.ndarray, strata: np.ndarray, codes: np.ndarray, level: float,
               values: tuple[float, ...], *, floor: bool) -> tuple[float, float, float, float, float] | None:
    """:func:`_combine` with clusters ``codes``: the same estimate, the cluster-robust SE and df of
    :func:`cr2_parts` over the verdicts' labels and the strata's shares (see the module's docstring); None when a
    stratum has no label. ``floor``: apply the clustered 0/1 effective-count floor (a model's mean, not a pair)."""
    got = _post_stratified(y, lab, strata)
    if got is None:
        return None
    k, n, w, means, est = got
    parts = []
    for s in np.flatnonzero(n > 0):
        rows = lab & (strata == s)
        parts.append((rows, float(w[s]), y[rows] - means[s]))
    # the strata's shares: the mean over every question of mean_{L,s(i)} - estimate (its linearisation)
    parts.append((np.ones(strata.size, dtype=bool), 1.0, means[strata] - est))
    se, df = cr2_parts(codes, parts, rho_parts=len(parts) - 1)
    t = t_crit(level, df)
    lo2 = hi2 = (t * se) ** 2
    if values:  # 0/1: each verdict's Jeffreys limits in place of its Wald arm, never narrowing (as pair_count_terms)
        z2 = t_crit(level, math.inf) ** 2
        d_lo = d_hi = 0.0
        for sign in values:
            k_s = np.bincount(strata[lab], weights=(y[lab] == sign).astype(float), minlength=k)
            m = np.maximum(n, 1)
            low, high = jeffreys_limits(k_s, m, z2)
            p = k_s / m
            wald2 = z2 * p * (1 - p) / m
            down, up = w * w * ((p - low) ** 2 - wald2), w * w * ((high - p) ** 2 - wald2)
            d_lo += float((down if sign > 0 else up).sum())
            d_hi += float((up if sign > 0 else down).sum())
        lo2, hi2 = lo2 + max(d_lo, 0.0), hi2 + max(d_hi, 0.0)
    low, high = est - math.sqrt(lo2), est + math.sqrt(hi2)
    if values and floor:  # clustered 0/1 near 0% or 100%: at least the effective-count limits (ppi_rows)
        f_low, f_high = effective_floor(est, se, df, level, low, high)
        low, high = float(f_low), float(f_high)
    return est, se, df, low, high


def ppi_stratified(judge: Any, human: Any, *, confidence: float = 0.95, clusters: Any = None) -> Stratified | None:
    """A model's mean from labels chosen by the judge's verdict: the labels' mean within each verdict, weighted by
    the verdict's share of every question; None when a verdict has no labelled answer (nothing to stratify on).

    ``judge``: a score per question; ``human``: a label or NaN per question; ``clusters``: a cluster label per
    question (the cluster-robust variance of :func:`_clustered`), or None for independent questions.

    Examples
    --------
    >>> nan = float("nan")
    >>> est = ppi_stratified([1, 1, 1, 1, 0, 0, 0, 0], [1, 0, nan, nan, 0, 0, 0, nan])
    >>> round(est.estimate, 3), est.n_labeled
    (0.25, 5)
    """
    f, h = _checked(judge, human)
    level = check_confidence(confidence)
    codes = _codes(clusters, f.size)
    lab = ~np.isnan(h)
    y = np.where(lab, h, 0.0)
    zero_one = bool(np.all((y[lab] == 0) | (y[lab] == 1)))
    values = (1.0,) if zero_one else ()
    if codes is None:
        got = _combine(f, y, lab, _strata(f), level, values)
    else:
        got = _clustered(y, lab, _strata(f), codes, level, values, floor=True)
    return None if got is None else Stratified(*got, int(lab.sum()))


def ppi_compare_stratified(judge_a: Any, human_a: Any, judge_b: Any, human_b: Any, *, confidence: float = 0.95,
                           clusters: Any = None) -> Stratified | None:
    """The paired difference A - B with strata the pair of verdicts (labels on both answers of a question);
    None when a stratum has no labelled question. ``clusters``: as for :func:`ppi_stratified`."""
    fa, ha, fb, hb = _checked(judge_a, human_a, judge_b, human_b)
    level = check_confidence(confidence)
    codes = _codes(clusters, fa.size)
    d = ha - hb
    lab = ~np.isnan(d)
    y = np.where(lab, d, 0.0)
    zero_one = all(bool(np.all((x[lab] == 0) | (x[lab] == 1))) for x in (ha, hb))
    values = (1.0, -1.0) if zero_one else ()
    strata = _strata(fa * 1000.0 + fb)
    if codes is None:
        got = _combine(fa - fb, y, lab, strata, level, values)
    else:
        got = _clustered(y, lab, strata, codes, level, values, floor=False)
    return None if got is None else Stratified(*got, int(lab.sum()))
