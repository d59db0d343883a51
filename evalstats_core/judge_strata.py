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
``estimate -/+ t(df) se`` with Satterthwaite's df. Clusters are not modelled here: with clusters the check still
says when the labelled share differs between verdicts and between clusters, but the stratified estimate is refused
(``clusters=`` raises :class:`~evalstats_core.errors.EvalStatsError`; the judge section keeps the PPI++ estimate and
says that it may be biased), since its variance treats questions as independent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import chdtrc, ndtri, stdtrit

from ._validate import check_confidence
from .errors import EvalStatsError
from .judge_interval import jeffreys_limits

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
        """What the check found, in words (for a warning); ``clustered``: the estimate could not be stratified
        (clusters), and the sentence says so."""
        out = []
        found = (f"{what}: the labels look chosen by the judge's verdict ({100 * self.share_pass:.1f}% of the "
                 f"judge's passes are labelled, {100 * self.share_fail:.1f}% of its fails; chi-square p "
                 f"{self.p_verdict:.2g})")
        if self.flagged and clustered:
            out.append(f"{found}; the estimate stratified by the verdict does not allow for clusters, so with "
                       "clusters the estimate stays the PPI++ one and may be biased: label a random subset of the "
                       "judged answers, or read the file without clusters (use_clusters=False) for the stratified "
                       "estimate")
        elif self.flagged:
            out.append(f"{found}, so the estimate is stratified by the verdict (the labels' mean within "
                       "the judge's passes and within its fails, weighted by their counts), which assumes that within "
                       "each verdict the labelled answers are like the others")
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


def _combine(f: np.ndarray, y: np.ndarray, lab: np.ndarray, strata: np.ndarray, level: float,
             values: tuple[float, ...]) -> tuple[float, float, float, float, float] | None:
    """``(estimate, se, df, low, high)`` of ``sum_s w_s mean_{L,s}(y)``; None when a stratum has no label.

    ``values``: the 0/1 (or -1/0/1) values ``y`` takes, for the MOVER-Jeffreys arms; empty for graded labels."""
    k = int(strata.max()) + 1
    sizes = np.bincount(strata, minlength=k).astype(float)
    n = np.bincount(strata[lab], minlength=k).astype(float)
    if np.any((sizes > 0) & (n == 0)):
        return None
    w = sizes / sizes.sum()
    means = np.bincount(strata[lab], weights=y[lab], minlength=k) / np.maximum(n, 1)
    est = float(w @ means)  # post-stratified mean (Cochran 1977, Eq. 5.1)
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


def _no_clusters(clusters: Any) -> None:
    if clusters is not None:
        raise EvalStatsError(
            "the estimate stratified by the judge's verdict treats questions as independent and does not allow for "
            "clusters (its interval would be too narrow); label a random subset of the judged answers and use "
            "ppi_mean(..., clusters=), or pass clusters=None to stratify questions read as independent")


def ppi_stratified(judge: Any, human: Any, *, confidence: float = 0.95, clusters: Any = None) -> Stratified | None:
    """A model's mean from labels chosen by the judge's verdict: the labels' mean within each verdict, weighted by
    the verdict's share of every question; None when a verdict has no labelled answer (nothing to stratify on).

    ``judge``: a score per question; ``human``: a label or NaN per question. ``clusters``: refused (an
    :class:`~evalstats_core.errors.EvalStatsError` naming what to do): the estimate does not model clusters.

    Examples
    --------
    >>> nan = float("nan")
    >>> est = ppi_stratified([1, 1, 1, 1, 0, 0, 0, 0], [1, 0, nan, nan, 0, 0, 0, nan])
    >>> round(est.estimate, 3), est.n_labeled
    (0.25, 5)
    """
    _no_clusters(clusters)
    f, h = _checked(judge, human)
    level = check_confidence(confidence)
    lab = ~np.isnan(h)
    y = np.where(lab, h, 0.0)
    zero_one = bool(np.all((y[lab] == 0) | (y[lab] == 1)))
    got = _combine(f, y, lab, _strata(f), level, (1.0,) if zero_one else ())
    return None if got is None else Stratified(*got, int(lab.sum()))


def ppi_compare_stratified(judge_a: Any, human_a: Any, judge_b: Any, human_b: Any, *, confidence: float = 0.95,
                           clusters: Any = None) -> Stratified | None:
    """The paired difference A - B with strata the pair of verdicts (labels on both answers of a question);
    None when a stratum has no labelled question. ``clusters``: refused, as for :func:`ppi_stratified`."""
    _no_clusters(clusters)
    fa, ha, fb, hb = _checked(judge_a, human_a, judge_b, human_b)
    level = check_confidence(confidence)
    d = ha - hb
    lab = ~np.isnan(d)
    y = np.where(lab, d, 0.0)
    zero_one = all(bool(np.all((x[lab] == 0) | (x[lab] == 1))) for x in (ha, hb))
    got = _combine(fa - fb, y, lab, _strata(fa * 1000.0 + fb), level, (1.0, -1.0) if zero_one else ())
    return None if got is None else Stratified(*got, int(lab.sum()))
