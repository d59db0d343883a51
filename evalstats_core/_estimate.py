"""The estimators from per-group sums (private): one model's :class:`~evalstats_core.clustering.Summary`
and one pair's :class:`~evalstats_core.comparison.Comparison` from counts, means and centred sums of
squares per cluster.

:func:`~evalstats_core.clustering.summarize`, :func:`~evalstats_core.comparison.compare` and
:func:`~evalstats_core.analysis.analyze_sums` all end here, so an analysis built from a file's
:class:`~evalstats_core.sums.FileSums` (in memory or from SQL) and the array functions give one answer.
For an intercept-only model the CR2 standard error and its Satterthwaite degrees of freedom need only the
per-cluster residual sums ``S_g = n_g (mean_g - mean)`` and the sizes ``n_g`` (see
:func:`~evalstats_core._clusters.cr2_se_df`); the plain (CLT) one needs the total centred sum of squares
``sum_g m2_g + sum_g n_g (mean_g - mean)^2``.

===============================  ========================================================================
:func:`summary_from`             one model's Summary from its per-group sums
:func:`summary_from_moments`     the Summary from the moments: CLT, CR1 or CR2 SE and the interval rules
:func:`comparison_from`          one pair's Comparison from its per-group sums on the shared questions
:func:`comparison_from_moments`  the Comparison from the moments: paired or not, and the interval rules
:func:`pair_rules`               the 0/1 pair rule of many pairs at once
:func:`binary_model`             one model's moments from 0/1 scores, by counting (summarize's array path)
:func:`pair_counts`              per cluster, the ones of two 0/1 arrays and the questions both got right
:func:`binary_comparison`        the Comparison of two 0/1 arrays from counts (compare's array path)
:func:`scaled`                   a result back in the scores' own units after rescaling
===============================  ========================================================================

What does not depend on the confidence level, adjustment or interval (a model's moments and CR2 standard
error, a pair's, the 0/1 pair rule's per-cluster counts) is kept in the :attr:`FileSums.memo
<evalstats_core.sums.FileSums.memo>` under the identity of the sums it reads (``_kept``), so a new setting of
the workbench reads it again instead of passing over the clusters.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from ._clusters import (
    check_n_clusters,
    clt_se,
    cr1_se,
    cr2_se_df,
    cr2_weights,
    few_clusters_notes,
    sign_flip_p,
    t_crit,
    t_p_value,
)
from ._in_unit import NOT_IN_UNIT, InUnit
from ._results import _SCORE_UNITS, Comparison, Summary
from ._sums_groups import _kept, binary_moments, binary_pair_moments, centre
from .bounded_unclustered import bounded_mean_t_interval, bounded_pair_interval
from .cluster_means import cluster_means_ci, few_clusters_worth
from .errors import EvalStatsError
from .pair_proportions import binary_pair_intervals
from .proportions import binary_mean_interval

#: fields of Summary in score units (scaled back when huge or tiny scores were rescaled)
_SUMMARY_UNITS = ("mean", "se", "ci_low", "ci_high", "se_naive")

__all__ = ["scaled", "summary_from", "summary_from_moments", "comparison_from", "comparison_from_moments",
           "binary_model", "binary_comparison", "pair_rules"]


def _used(count: np.ndarray) -> tuple[Any, np.ndarray]:
    """``(index of the groups with count > 0, their sizes as float64)``; the index is ``...`` (every element, as
    a view: no copy) when no group is empty, the usual file."""
    used = count > 0
    index = ... if used.all() else used
    return index, count[index].astype(np.float64)


def _moments(count: np.ndarray, mean: np.ndarray, m2: np.ndarray,
             used: tuple[Any, np.ndarray] | None = None) -> tuple[int, float, np.ndarray, float]:
    """``(n, mean, S_g of the used groups, total centred sum of squares)`` of one model's per-group sums
    (``used``: :func:`_used` of ``count``, when made already)."""
    n, overall, dev = centre(count, mean)
    index, sizes = _used(count) if used is None else used
    s = sizes * dev[index]  # (C,) residual sums S_g = n_g (mean_g - mean); float sizes: the doubles of the cast
    ss = max(0.0, float(np.sum(m2[index])) + float(s @ dev[index]))
    return n, overall, s, ss


def _used_of(memo: dict | None, count: np.ndarray) -> tuple[Any, np.ndarray]:
    """:func:`_used`, once per count vector in ``memo``: the pairs over the same questions then share one sizes
    array, by which :func:`pair_rules` batches them."""
    return _kept(memo, (count,), lambda: _used(count), "used")


def _weights_of(memo: dict | None, count: np.ndarray, sizes: np.ndarray, n: int) -> tuple[np.ndarray, float] | None:
    """The CR2 weights and Satterthwaite df of ``sizes`` (the non-empty groups of ``count``), once per count vector
    in ``memo`` (every model and pair of a full table reads one); None without a memo or with one group."""
    if memo is None or sizes.size < 2:  # one cluster: never clustered (and 1 / (1 - n/n) is no weight)
        return None
    return _kept(memo, (count,), lambda: cr2_weights(sizes, n), "weights")


def summary_from(count: np.ndarray, mean: np.ndarray, m2: np.ndarray, *, binary: bool, clustered: bool,
                 confidence: float, method: str, interval: str, memo: dict | None = None,
                 in_unit: InUnit = NOT_IN_UNIT) -> Any:
    """One model's :class:`~evalstats_core.clustering.Summary` from its per-group sums (shape ``(G,)``).

    ``clustered=False`` with several groups treats every question as independent (the groups are merged).
    ``in_unit``: whether every score lies in [0, 1] (as for :func:`summary_from_moments`).
    ``confidence`` must be checked already. ``memo`` keeps what does not depend on the confidence level,
    adjustment or interval (the moments, the CR2 standard error and degrees of freedom) for the next call.
    """
    def make() -> tuple:
        used = _used_of(memo, count)
        n, mu, s, ss = _moments(count, mean, m2, used)
        w = _weights_of(memo, count, used[1], n)
        return n, mu, s, used[1], ss, None if w is None else cr2_se_df(s, used[1], n, w)

    n, mu, s, sizes, ss, cr2 = _kept(memo, (count, mean, m2), make)
    return summary_from_moments(n, mu, s, sizes, ss, binary=binary, clustered=clustered, confidence=confidence,
                                method=method, interval=interval, kept=cr2, in_unit=in_unit)


def summary_from_moments(n: int, mu: float, s: np.ndarray, sizes: np.ndarray, ss: float, *, binary: bool,
                         clustered: bool, confidence: float, method: str, interval: str,
                         kept: tuple[float, float] | None = None, in_unit: InUnit = NOT_IN_UNIT) -> Any:
    """The :class:`~evalstats_core.clustering.Summary` of ``n`` scores with mean ``mu``, residual sums ``s``
    of the non-empty clusters of ``sizes`` (ignored unclustered) and centred sum of squares ``ss``
    (``kept``: its CR2 standard error and degrees of freedom, when kept; ``in_unit``: whether every score lies in [0, 1] (:class:`~evalstats_core._in_unit.InUnit`): if known to,
    clustered scores that are not 0/1 take the quasi-binomial rule of
    :func:`~evalstats_core.bounded_means.bounded_mean_interval`; if known to or to be checked, unclustered ones near
    0% or 100% that of :func:`~evalstats_core.bounded_unclustered.bounded_mean_t_interval`, which checks only
    near a bound)."""

    if n < 2:
        raise EvalStatsError(
            f"scores has {n} value(s): a standard error needs at least 2 questions; add more questions"
        )
    se_naive = clt_se(ss, n)
    notes: tuple[str, ...] = ()
    if not clustered:
        sizes = None
        se, n_clusters = se_naive, n
        df = float(n - 1) if method == "cr2" else math.inf  # one-sample t; CLT: normal (Miller Eq. 3)
    else:
        n_clusters = int(sizes.size)
        check_n_clusters(n_clusters)
        if method == "cr2":
            se, df = kept or cr2_se_df(s, sizes, n)  # Bell & McCaffrey 2002
        else:
            se, df = cr1_se(s, n, n_clusters), math.inf  # Miller Eq. 4 (CR1), normal reference
        notes = few_clusters_notes(n_clusters, method, df, stacklevel=4)  # attributed to summarize's caller
    if se <= 1e-12 * max(abs(mu), se_naive):  # rounding-level SE: every cluster has the same mean
        se = 0.0
    deff, n_eff = _deff(se, se_naive, n, clustered=clustered)
    crit = t_crit(confidence, df)
    low, high, kind = mu - crit * se, mu + crit * se, "normal"  # Miller Eq. 3 (z), or t(df)
    if interval == "auto" and method == "cr2" and binary:
        # correct answers per cluster: made only where the rule reads them
        wins = None if sizes is None else lambda: np.rint(s + sizes * mu)
        chosen = binary_mean_interval(mu, se, n, df, sizes, confidence=confidence, successes=wins)
        if chosen is not None:
            low, high, kind = chosen
    elif interval == "auto" and method == "cr2" and not clustered and in_unit.possible and se > 0.0:
        chosen = bounded_mean_t_interval(mu, se, n, ss, (low, high), confidence=confidence,
                                         in_unit=in_unit)
        if chosen is not None:
            low, high, kind = chosen
    elif interval == "auto" and method == "cr2" and clustered and in_unit.known:  # a zero SE too, as for 0/1 scores
        # only for clustered scores near 0% or 100%: kept off start-up
        from .bounded_means import bounded_mean_interval

        chosen = bounded_mean_interval(mu, se, n, df, sizes, s, ss, confidence=confidence)
        if chosen is not None:
            low, high, kind = chosen
    elif interval == "auto" and method == "cr2" and clustered and se > 0.0:

        if few_clusters_worth(sizes):  # under two clusters' worth: at least the cluster means' interval
            c_low, c_high = cluster_means_ci(mu, mu + s / sizes, sizes, confidence=confidence)
            low, high, kind = min(low, c_low), max(high, c_high), "cluster-means"
    if interval == "auto" and method == "cr2" and se == 0.0 and kind == "normal":  # zero SE: no interval
        low, high, kind = math.nan, math.nan, "none"
    return Summary(n=n, n_clusters=n_clusters, mean=mu, se=se, ci_low=low, ci_high=high, se_naive=se_naive,
                   deff=deff, n_eff=n_eff, clustered=clustered, confidence=confidence, warnings=notes, df=df,
                   method=method, interval=kind)


def comparison_from(count: np.ndarray, mean_a: np.ndarray, mean_b: np.ndarray, m2_a: np.ndarray,
                    m2_b: np.ndarray, m2_d: np.ndarray, comoment: np.ndarray, only: tuple[int, int] | None, *,
                    paired: bool, clustered: bool, confidence: float, method: str, interval: str,
                    memo: dict | None = None, pending: list | None = None,
                    in_unit: InUnit = NOT_IN_UNIT, cells: tuple[np.ndarray, np.ndarray] | None = None,
                    m3_diff: np.ndarray | None = None) -> Any:
    """One pair's :class:`~evalstats_core.comparison.Comparison` from per-group sums on the shared questions
    (shape ``(G,)``); ``only`` is ``(only A right, only B right)`` for 0/1 scores, else None.
    ``confidence`` must be checked already; ``memo`` as for :func:`summary_from`; ``pending`` as for
    :func:`comparison_from_moments` (and ``in_unit``). ``cells``: per group, the questions only A and only B got
    right (exact counts of 0/1 scores, as :class:`~evalstats_core.sums.PairSums` holds them), which the clustered
    pair rule then reads instead of rebuilding them from the sums of squares. ``m3_diff``: per group the centred
    sum of cubes of the difference (unclustered, the bounded pair rule reads their sum)."""
    def make() -> tuple:
        used, sizes = index = _used_of(memo, count)
        n, ma, sa, ssa = _moments(count, mean_a, m2_a, index)
        _, mb, sb, ssb = _moments(count, mean_b, m2_b, index)
        sd = sa - sb  # residual sums of d are linear: S_g(d) = S_g(a) - S_g(b)
        ssd = max(0.0, float(np.sum(m2_d[used])) + float(sd @ (sd / sizes))) if n else math.nan
        cov = float(np.sum(comoment[used])) + float(sa @ (sb / sizes)) if n else math.nan
        w = _weights_of(memo, count, sizes, n)
        cr2 = None if w is None else (cr2_se_df(sa, sizes, n, w), cr2_se_df(sb, sizes, n, w), cr2_se_df(sd, sizes, n, w))
        return n, (ma, mb), (sa, sb), sizes, (ssa, ssb, ssd, cov), cr2, sd

    arrays = (count, mean_a, mean_b, m2_a, m2_b, m2_d, comoment)
    n, means, resid, sizes, squares, cr2, sd = _kept(memo, arrays, make)

    def discordant() -> np.ndarray:  # 0/1: sum of d^2 per cluster = its disagreements (when the rule asks)
        def make() -> np.ndarray:
            totals = resid[0] - resid[1] + sizes * (means[0] - means[1])
            return m2_d[_used_of(memo, count)[0]] + totals * totals / sizes

        return _kept(memo, arrays, make, "discordant")  # kept: the pair rule keeps its clusters' part by identity

    def exact() -> tuple[np.ndarray, np.ndarray]:  # the two cells of the non-empty groups, as floats (kept alike)
        return _kept(memo, (count, *cells), lambda: tuple(  # type: ignore[misc]
            np.asarray(x[_used_of(memo, count)[0]], dtype=np.float64) for x in cells), "cells")  # type: ignore[union-attr]

    rule_reads = only is not None and clustered and paired
    return comparison_from_moments((n, n), means, resid, sizes, squares, only, paired=paired, clustered=clustered,
                                   confidence=confidence, method=method, interval=interval, kept=cr2,
                                   discordant=discordant if rule_reads and cells is None else None,
                                   cells=exact if rule_reads and cells is not None else None,
                                   pending=pending, in_unit=in_unit, diff_sums=sd,
                                   m3_diff=None if m3_diff is None or clustered else float(np.sum(m3_diff[count > 0])))


def comparison_from_moments(ns: tuple[int, int], means: tuple[float, float], sums: tuple[np.ndarray, np.ndarray],
                            sizes: np.ndarray, squares: tuple[float, float, float, float],
                            only: tuple[int, int] | None, *, paired: bool, clustered: bool, confidence: float,
                            method: str, interval: str, kept: tuple[tuple[float, float], ...] | None = None,
                            discordant: Any = None, pending: list | None = None,
                            in_unit: InUnit = NOT_IN_UNIT, diff_sums: np.ndarray | None = None,
                            cells: Any = None, m3_diff: float | None = None) -> Any:
    """The :class:`~evalstats_core.comparison.Comparison` of ``a - b`` from ``(n_a, n_b)``, the two means,
    their residual sums per non-empty cluster (of ``sizes``; ignored unclustered), and ``(ss_a, ss_b, ss_d,
    co-moment)`` (``ss_d`` may be nan when clustered and ``only`` is None; ``ss_d`` and the co-moment are
    unused unpaired; ``kept``: the CR2 ``(se, df)`` of ``a``, ``b`` and ``a - b`` when kept; ``discordant``: per
    cluster, the questions two 0/1 models disagree on, or a function that makes them, called only when the
    interval rule reads them; ``pending``: a list to which the arguments of
    the 0/1 pair rule are appended instead of solving it, ``ci_low``, ``ci_high`` and ``p_value`` left nan for
    :func:`pair_rules` to give, many pairs at once; ``in_unit``: whether every score of both lies in [0, 1]
    (:class:`~evalstats_core._in_unit.InUnit`; a check is run only near a bound), for the rule of
    :func:`~evalstats_core.bounded_unclustered.bounded_pair_interval` when they are not all 0/1, unclustered;
    ``diff_sums``: ``sa - sb`` when kept, so that the pair rule finds its kept part by the array's identity;
    ``cells``: a function giving, per non-empty cluster, the questions only ``a`` and only ``b`` got right, exact
    (then ``discordant`` is None: the rule reads these instead))."""

    (n, n_b), (ma, mb), (sa, sb) = ns, means, sums
    ssa, ssb, ssd, cov = squares
    for name, size in (("a", n), ("b", n_b)):
        if size < 2:
            raise EvalStatsError(
                f"{name} has {size} score(s): a standard error needs at least 2 questions; add questions"
            )
    cr2 = method == "cr2"
    if not clustered:
        n_clusters = n
        se_a, se_b = clt_se(ssa, n), clt_se(ssb, n_b)  # Miller Eq. 1 for each model
        df_a, df_b = float(n - 1), float(n_b - 1)
        if paired:
            se_d, df_d = clt_se(ssd, n), float(n - 1)  # Miller Eq. 7; the paired t-test
    else:
        n_clusters = int(sizes.size)
        check_n_clusters(n_clusters)
        if cr2:
            (se_a, df_a), (se_b, df_b), (se_d, df_d) = kept or _cr2_three(sa, sb, sizes, n, paired)  # CR2 of a, b, d
        else:
            se_a, se_b = cr1_se(sa, n, n_clusters), cr1_se(sb, n, n_clusters)
            df_a = df_b = df_d = math.inf
            if paired:
                se_d = cr1_se(sa - sb, n, n_clusters)  # Miller Eq. 8 (CR1)
    se_unpaired = math.hypot(se_a, se_b)  # Miller Eq. 5
    if paired:
        denom = math.sqrt(ssa * ssb)
        correlation = min(1.0, max(-1.0, cov / denom)) if denom > 0.0 else math.nan
        se = se_d
        removed = 1.0 - (se_d / se_unpaired) ** 2 if se_unpaired > 0.0 else math.nan
    else:
        se, se_d, correlation, removed = se_unpaired, math.nan, math.nan, math.nan
        if not clustered:
            df_d = _welch_df(se_a, se_b, df_a, df_b)  # Welch-Satterthwaite: Welch's t-test
        else:  # clubSandwich's Satterthwaite df of the two-group model: model-based variances 1/n each
            df_d = _welch_df(1.0 / math.sqrt(n), 1.0 / math.sqrt(n_b), df_a, df_b)
    df = df_d if cr2 else math.inf
    scale = max(abs(ma), abs(mb), math.sqrt(ssa / n), math.sqrt(ssb / n_b))
    if se <= 1e-12 * scale:  # rounding-level SE: every question (or cluster) moved by the same amount
        se = 0.0
    notes = few_clusters_notes(n_clusters, method, df, stacklevel=4) if clustered else ()  # compare's caller
    diff = ma - mb
    if se == 0.0 and abs(diff) <= 1e-12 * scale:  # equal means up to rounding: no difference, not a p of 2/2^G
        diff = 0.0
    if not paired:
        only = None
    by_rule = only is not None and interval == "auto" and cr2  # the 0/1 pair rule gives the interval and the p
    z, p = _z_and_p(diff, se, df, p_value=not by_rule)
    if se == 0.0 and diff != 0.0:  # no t statistic: the exact randomisation test, never p = 0
        p = sign_flip_p(n_clusters) if paired else _permutation_p(n, n_b)
    elif se == 0.0 and not by_rule:  # the same differences everywhere, and 0: every relabelling of the exact test
        p = 1.0  # gives the same 0, so p = 1 (issue 46: it was nan; the 0/1 rule gives 1 too)
    crit = t_crit(confidence, df)
    low, high, kind = diff - crit * se, diff + crit * se, "normal"  # Miller Eq. 6 (z), or t(df)
    if by_rule:  # the 0/1 pair rule (binary_pair_interval)
        if callable(discordant):
            discordant = discordant() if clustered else None
        rule = (only[0], only[1], n, se, clt_se(ssd, n), df, sizes if clustered else None,
                (sa - sb if diff_sums is None else diff_sums) if clustered else None, discordant if clustered else None,
                cells() if clustered and cells is not None else None)
        if pending is None:
            low, high, p, kind = pair_rules([rule], confidence)[0]
        else:  # solved with the other pairs of the analysis (pair_rules), which fills in low, high and p
            pending.append(rule)
            low = high = p = math.nan
            kind = "tango-effective" if clustered else "tango"
    elif in_unit.possible and paired and not clustered and interval == "auto" and cr2 and se > 0.0:  # [0, 1]
        low, high, p, kind = bounded_pair_interval(ma, mb, squares, n, (low, high, p), confidence=confidence,
                                                   in_unit=in_unit, m3=m3_diff)
    if interval == "auto" and cr2 and se == 0.0 and kind == "normal":  # zero SE: no interval
        low, high, kind = math.nan, math.nan, "none"
    return Comparison(
        n=n, n_b=n_b, n_clusters=n_clusters, mean_a=ma, mean_b=mb, diff=diff, se=se, ci_low=low, ci_high=high,
        z=z, p_value=p, se_unpaired=se_unpaired, se_paired=se_d, correlation=correlation,
        variance_removed=removed, paired=bool(paired), clustered=clustered, confidence=confidence,
        warnings=notes, df=df, method=method, interval=kind,
        only_a=None if only is None else int(only[0]), only_b=None if only is None else int(only[1]))


def _cr2_three(sa: np.ndarray, sb: np.ndarray, sizes: np.ndarray, n: int, paired: bool) -> tuple:
    """:func:`~evalstats_core._clusters.cr2_se_df` of ``sa``, ``sb`` and (paired) ``sa - sb`` on ``sizes``, the CR2
    factors of the sizes made once for the three (as each call would make them: the same doubles)."""
    weights, keep = cr2_weights(sizes, n), sizes > 0.0
    sa, sb = sa[keep], sb[keep]
    return (cr2_se_df(sa, sizes, n, weights), cr2_se_df(sb, sizes, n, weights),
            cr2_se_df(sa - sb, sizes, n, weights) if paired else (0, 0))


def pair_rules(rules: list[tuple], confidence: float, memo: dict | None = None) -> list[tuple[float, float, float, str]]:
    """``(low, high, p, kind)`` of :func:`~evalstats_core.pair_proportions.binary_pair_interval` for each of
    ``rules`` (its arguments ``(only_a, only_b, n, se, se_naive, df, sizes, resid_sums, discordant[, cells])``, as
    :func:`comparison_from_moments` collects them): the pairs on the same cluster sizes (or none) solved together
    by :func:`~evalstats_core.pair_proportions.binary_pair_intervals`, bit for bit the scalar rule's (``memo``: where
    it keeps what the clusters give before the confidence level). Pairs are batched by the identity of their
    ``sizes`` array (the pairs of one analysis share it): a batch gives each pair what it alone gives."""

    rules = [r if len(r) > 9 else (*r, None) for r in rules]
    batches: dict[Any, list[int]] = {}
    for i, r in enumerate(rules):
        sizes = r[6]
        key = None if sizes is None else (id(sizes), r[7] is None, r[8] is None, r[9] is None)  # held by rules
        batches.setdefault(key, []).append(i)
    out: list[Any] = [None] * len(rules)
    for index in batches.values():
        cols = list(zip(*(rules[i] for i in index), strict=True))
        sizes = cols[6][0]
        got = binary_pair_intervals(*cols[:6], sizes,  # tuples of floats (it reads them as arrays where it needs)
                                    confidence=confidence, resid_sums=None if cols[7][0] is None else cols[7],
                                    discordant=None if cols[8][0] is None else cols[8],
                                    cells=None if cols[9][0] is None else cols[9], memo=memo)
        for i, g in zip(index, got, strict=True):
            out[i] = g
    return out


def binary_model(x: np.ndarray, ones: int, codes: np.ndarray | None, sizes: np.ndarray | None,
                 per_cluster: np.ndarray | None = None) -> tuple[int, float, np.ndarray, np.ndarray, float]:
    """``(n, mean, S_g, sizes of the non-empty clusters, centred sum of squares)`` of the 0/1 scores ``x`` with
    ``ones`` ones, as :func:`~evalstats_core.sums.file_sums` and :func:`_moments` make them: without ``codes``
    ``k / n`` and ``k (n - k) / n`` (no arrays), else from the ones per code bin of ``sizes`` (``per_cluster``
    when counted already, else one weighted ``bincount``: integer sums, exact)."""
    if codes is None:
        n, k = float(x.size), float(ones)
        return x.size, k / n, np.zeros(1), np.ones(1), k * (n - k) / n
    count = sizes
    if per_cluster is None:
        per_cluster = np.bincount(codes, weights=x, minlength=sizes.size)
    mean, m2 = binary_moments(per_cluster, count)
    n, mu, s, ss = _moments(count, mean, m2)
    return n, mu, s, count[count > 0.0], ss


_PACK = 2.0**17  # a cluster's counts below this pack three to a float64 exactly (2^17 * 2^34 < 2^53)
_SMALL = 2.0**13  # below this, as the product (K + a)(K^2 + b), K = 2^13, with K^3 n_g taken off (n_g 2^39 < 2^53)
_CHUNK = 1 << 15  # rows packed at a time (two 256 kB buffers)


def pair_counts(xa: np.ndarray, xb: np.ndarray, codes: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per code bin of ``sizes``: the ones of the 0/1 scores ``xa``, of ``xb``, and the questions both got
    right. One weighted ``bincount`` of packed weights, unpacked exactly: when every cluster has fewer than
    ``2^13`` questions ``(K + xa)(K^2 + xb) = K^3 + K^2 xa + K xb + xa xb`` (``K = 2^13``; three operations a
    row, ``K^3 n_g`` taken off the sums), else when fewer than ``2^17`` ``xa + K xb + K^2 xa xb`` (``K = 2^17``;
    five); each weight and sum is then an integer below ``2^53``, exact in any order of addition. Else three
    ``bincount``. The packed weights are made and counted in chunks of rows (about half the time of
    whole-column temporaries at 1e7 rows).

    Examples
    --------
    >>> [c.tolist() for c in pair_counts(np.array([1., 0, 1, 1]), np.array([1., 1, 0, 1]), np.array([0, 0, 1, 1]),
    ...                                  np.array([2., 2.]))]
    [[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]]
    """
    biggest = float(sizes.max()) if sizes.size else 0.0
    if biggest >= _PACK:
        return tuple(np.bincount(codes, weights=w, minlength=sizes.size) for w in (xa, xb, xa * xb))
    small = biggest < _SMALL
    k = _SMALL if small else _PACK
    total = np.zeros(sizes.size)
    step = max(1, min(_CHUNK, xa.size))
    packed, part = np.empty(step), np.empty(step)
    for start in range(0, xa.size, step):  # in chunks that stay in cache: no n-sized temporaries
        end = min(start + step, xa.size)
        p, t, a, b = packed[: end - start], part[: end - start], xa[start:end], xb[start:end]
        if small:
            np.add(a, k, out=t)
            np.add(b, k * k, out=p)
            p *= t  # K^3 + K^2 xa + K xb + xa xb
        else:
            np.multiply(b, k * k, out=p)
            p += 1.0
            p *= a  # xa (1 + K^2 xb)
            np.multiply(b, k, out=t)
            p += t
        total += np.bincount(codes[start:end], weights=p, minlength=sizes.size)  # integers below 2^53: exact
    if small:
        total -= (k * k * k) * sizes  # K^2 ones_a + K ones_b + both
        ones_a = np.floor(total / (k * k))
        rest = total - ones_a * (k * k)
        ones_b = np.floor(rest / k)
        return ones_a, ones_b, rest - ones_b * k
    both = np.floor(total / (k * k))
    rest = total - both * (k * k)
    ones_b = np.floor(rest / k)
    return rest - ones_b * k, ones_b, both


def binary_comparison(xa: np.ndarray, xb: np.ndarray, ones: tuple[int, int], codes: np.ndarray | None,
                      sizes: np.ndarray | None, *, paired: bool, confidence: float, method: str,
                      interval: str) -> Any:
    """:func:`~evalstats_core.comparison.compare` of two 0/1 score arrays from counts, as
    :func:`~evalstats_core.sums.file_sums` makes them: ones per cluster, and when paired the questions both
    got right (one dot, exact); no residuals. ``codes`` and ``sizes`` as from
    :func:`~evalstats_core._clusters.codes_and_sizes`, or None. With clusters each model's ones per cluster
    come from one weighted ``bincount`` (two columns: cheaper than counting answer patterns), and the
    questions both got right per cluster (:func:`pair_counts`: one packed ``bincount``) when paired, from which the
    questions the two disagree on per cluster follow (``ones_a + ones_b - 2 both``; the interval rule reads
    them)."""
    per = [None, None]
    both_g = None
    if paired and codes is not None:
        *per, both_g = pair_counts(xa, xb, codes, sizes)
    n, ma, sa, used, ssa = binary_model(xa, ones[0], codes, sizes, per[0])
    n_b, mb, sb, _, ssb = binary_model(xb, ones[1], codes, sizes, per[1])
    ssd = cov = math.nan
    only = None
    if paired:  # the totals need no clusters: cov = both - n_a n_b / n, ss_d = disc - net^2 / n
        both = float(xa @ xb) if both_g is None else float(both_g.sum())  # exact integers
        only_a, only_b, co, m2d = binary_pair_moments(np.array([both]), np.array([float(ones[0])]),
                                                      np.array([float(ones[1])]), np.array([n], dtype=np.int64))
        cov, ssd, only = float(co[0]), float(m2d[0]), (int(only_a[0]), int(only_b[0]))  # file_sums' one group

    def discordant() -> np.ndarray:  # the questions the two disagree on, per non-empty cluster
        return (per[0] + per[1] - 2.0 * both_g)[sizes > 0.0]

    return comparison_from_moments((n, n_b), (ma, mb), (sa, sb), used, (ssa, ssb, ssd, cov), only, paired=paired,
                                   clustered=codes is not None, confidence=confidence, method=method,
                                   interval=interval, discordant=discordant if paired and codes is not None else None)


def scaled(result: Any, exponent: int) -> Any:
    """A Summary or Comparison computed on ``scores * 2**-exponent``, in the scores' own units (exact)."""
    if not exponent:
        return result


    names = _SCORE_UNITS if isinstance(result, Comparison) else _SUMMARY_UNITS
    return replace(result, **{f: math.ldexp(getattr(result, f), exponent) for f in names})


def _deff(se: float, se_naive: float, n: int, *, clustered: bool) -> tuple[float, float]:
    """Design effect ``(se/se_naive)^2`` and effective n ``n/deff``; nan where undefined."""
    if not clustered:
        return 1.0, float(n)
    if se_naive == 0.0:
        return math.nan, math.nan
    deff = (se / se_naive) ** 2  # design effect, Kish 1965, Sec. 8.2
    return deff, (n / deff if deff > 0.0 else math.nan)


def _welch_df(se_a: float, se_b: float, df_a: float, df_b: float) -> float:
    """Welch-Satterthwaite df of ``sqrt(se_a^2 + se_b^2)`` (Welch 1947); inf when both SEs are 0."""
    va, vb = se_a * se_a, se_b * se_b
    denom = va * va / df_a + vb * vb / df_b
    return (va + vb) ** 2 / denom if denom > 0.0 else math.inf


def _permutation_p(n_a: int, n_b: int) -> float:
    """Exact permutation p-value when both models are constant at different values (SE 0).

    Of the ``binom(n_a + n_b, n_a)`` ways to split the pooled scores, only the observed one (and its
    mirror image when ``n_a == n_b``) reaches the observed ``|diff|``.
    """
    return min(1.0, (1 + (n_a == n_b)) / math.comb(n_a + n_b, n_a))


def _z_and_p(diff: float, se: float, df: float = math.inf, *, p_value: bool = True) -> tuple[float, float]:
    """``z = diff / se`` and its two-sided p-value under t(df); inf/nan (not 0) where se is 0 (``p_value=False``:
    nan, for a caller whose rule gives the p-value)."""
    if se > 0.0:
        z = diff / se
    elif diff != 0.0:
        return math.copysign(math.inf, diff), math.nan  # the caller supplies the exact p-value
    else:
        return math.nan, math.nan
    return z, t_p_value(z, df) if p_value else math.nan  # two-sided t(df), or normal (Miller Eq. 6)


