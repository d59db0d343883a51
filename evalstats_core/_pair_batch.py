"""The 0/1 pair rule for many pairs at once (private): every pair of one analysis in one root search.

:func:`~evalstats_core.pair_proportions.binary_pair_interval` solves one pair: Tango's two ends in one
k-section (about 11 calls of numpy on 126 trial points) and, with clusters, the MOVER's p-value in another.
A call of numpy on a few hundred values costs about what it costs on a few, so the ends of every pair of an
analysis (the pairs that share the cluster sizes) are solved together here, each bracket with the same 64
trial points per step as alone (the steps of :func:`~evalstats_core._ksection.ksection` with 64 points however many brackets): every
result is the scalar function's, to the last bit (``tests/test_pair_batch.py`` checks it on random counts).
The scalar functions stay the reference; the statistics are theirs (:mod:`evalstats_core.pair_proportions`,
:mod:`evalstats_core.pair_mover`).

=============================  ==========================================================================
:func:`tango_intervals`        :func:`~evalstats_core.pair_proportions.paired_proportion_ci` of ``(P,)``
                               counts in one k-section
:func:`binary_pair_intervals`  :func:`~evalstats_core.pair_proportions.binary_pair_interval` of ``P``
                               pairs on the same cluster sizes (or none)
=============================  ==========================================================================

The MOVER's p-value of every pair in one k-section (:func:`~evalstats_core.pair_mover.cell_mover_p` of ``P``
pairs) is :func:`cell_mover_ps`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy.special import stdtr

from ._ksection import _POINTS
from ._validate import check_confidence, z_for
from .cluster_means import kish_n
from .errors import EvalStatsError
from .pair_mover import _cell_weights, _cells, _ends, disagreement_df, row_dots
from .pair_proportions import (
    _BISECT_STEPS,
    T_SKEW_ROOM,
    _tango_z,
    continuity_correction,
    discordance_spread,
    discordant_cells,
    pair_t,
    paired_proportion_p,
    t_or_score_ends,
    t_skew_error,
    t_within_worst_case,
)

__all__ = ["binary_pair_intervals", "cell_mover_ps", "tango_intervals"]


def tango_intervals(only_a: Any, only_b: Any, n: Any, *, confidence: float = 0.95,
                    correction: Any = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~evalstats_core.pair_proportions.paired_proportion_ci` of arrays ``(P,)`` of counts (and continuity
    ``correction``, one per pair or one for all), bit for bit: both ends of every pair in one k-section of 64
    trial points per bracket and step, as one pair alone."""
    b, c, size, cc = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (only_a, only_b, n, correction)))
    if not ((np.isfinite(b) & np.isfinite(c) & np.isfinite(size) & (size > 0) & (b >= 0) & (c >= 0)).all()
            and (b + c <= size * (1 + 1e-12)).all()):
        raise EvalStatsError("paired_proportion_ci needs counts 0 <= only_a, only_b with only_a + only_b <= n, n > 0")
    if not (np.isfinite(cc) & (cc >= 0.0)).all():
        raise EvalStatsError(f"paired_proportion_ci needs a continuity correction >= 0, not {correction!r}")
    cc = cc if cc.any() else None  # as the scalar function: no correction, no step for it
    z = z_for(check_confidence(confidence))
    d = (b - c) / size
    shape = (2,) + (1,) * d.ndim
    target, edge = np.reshape([z, -z], shape), np.reshape([-1.0, 1.0], shape)
    lo, hi = _tango_ksection(b, c, size, target, *np.broadcast_arrays(np.minimum(d, edge), np.maximum(d, edge)), cc)
    at_edge = _tango_z(b, c, size, np.broadcast_to(edge, lo.shape), 0.0 if cc is None else cc) * -edge <= z
    low, high = np.where(at_edge, edge, 0.5 * (lo + hi))
    return low, high


def _tango_ksection(b: np.ndarray, c: np.ndarray, n: np.ndarray, target: np.ndarray, lo: np.ndarray,
                    hi: np.ndarray, cc: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``ksection(lambda x: _tango_z(b, c, n, x) > target, lo, hi)`` with 64 trial points per step, bit for bit, faster:
    the same trial points and the same operations of :func:`~evalstats_core.pair_proportions._tango_z` in the
    same order, with what does not depend on the trial point computed once and every operand spread to the
    trial points' shape first (numpy's broadcasting costs more than the arithmetic on a few hundred values).
    ``cc``: the continuity correction of every pair (None: none), applied to the numerator as ``_tango_z`` does."""
    return _tango_steps(b, c, n, target, lo, hi, cc, _STEPS)


def spread_to(v: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``v`` broadcast to ``shape`` as a new contiguous array, filled by assignment (a quarter of
    ``ascontiguousarray(broadcast_to(...))``'s cost, the same doubles)."""
    out = np.empty(shape)
    out[...] = v
    return out


def _tango_steps(b: np.ndarray, c: np.ndarray, n: np.ndarray, target: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 cc: np.ndarray | None, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` steps of :func:`_tango_ksection`'s k-section in numpy, from the brackets ``[lo, hi]``."""
    points = _POINTS
    full = (points - 1,) + lo.shape
    steps = np.arange(1, points, dtype=np.float64).reshape((-1,) + (1,) * lo.ndim) / points

    spread = functools.partial(spread_to, shape=full)

    b_c, n_f = spread(b - c), spread(n)  # (b - c) - n x: num
    minus_bc, slope = spread(-b - c), spread(2.0 * n - b + c)  # w = (-b - c) + (2n - b + c) x
    eight, four = spread(8.0 * n * c), spread(4.0 * n)  # ((8 n c) x)(1 - x); / (4 n)
    goal = spread(target)
    corr = None if cc is None else spread(cc)
    w, t, u = (np.empty(full) for _ in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(count):
            width = hi - lo
            x = lo + width * steps
            np.multiply(slope, x, out=w)
            np.add(minus_bc, w, out=w)  # w
            one_minus = 1.0 - x
            np.multiply(eight, x, out=t)
            np.multiply(t, one_minus, out=t)
            np.multiply(w, w, out=u)
            np.add(u, t, out=u)
            np.maximum(u, 0.0, out=u)
            np.sqrt(u, out=u)
            np.subtract(u, w, out=u)
            np.divide(u, four, out=u)  # q
            np.multiply(2.0, u, out=u)
            np.multiply(x, one_minus, out=t)
            np.add(u, t, out=u)
            np.multiply(n_f, u, out=u)  # var
            np.multiply(n_f, x, out=t)
            np.subtract(b_c, t, out=t)  # num
            if corr is not None:  # moved towards 0 by the correction, not past it (as _tango_z)
                t = np.sign(t) * np.maximum(np.abs(t) - corr, 0.0)
            np.maximum(u, 0.0, out=u)
            np.sqrt(u, out=u)
            # Z > target; where var <= 0, Z = sign(num) inf, and num / 0 compares with a finite target alike
            np.divide(t, u, out=t)
            below = np.add.reduce(np.greater(t, goal), axis=0, dtype=np.intp)
            lo, hi = lo + width * (below / points), lo + width * ((below + 1) / points)
    return lo, hi


_STEPS = math.ceil(_BISECT_STEPS / math.log2(_POINTS))  # k-section steps of 64 points for 64 bits: 11


def binary_pair_intervals(only_a: Any, only_b: Any, n: Any, se: Any, se_naive: Any, df: Any,
                          sizes: np.ndarray | None, *, confidence: float = 0.95, resid_sums: Any = None,
                          discordant: Any = None, cells: Any = None,
                          memo: dict | None = None) -> list[tuple[float, float, float, str]]:
    """:func:`~evalstats_core.pair_proportions.binary_pair_interval` of ``P`` pairs on the same cluster
    ``sizes`` (or none), bit for bit: ``only_a``, ``only_b``, ``n``, ``se``, ``se_naive``, ``df`` of shape
    ``(P,)``; ``resid_sums`` and ``discordant`` sequences of ``P`` arrays ``(G,)`` (with clusters). Each
    pair's df and t quantile are found once (the scalar rule finds them twice), Tango's ends of every pair
    in one k-section, and the MOVER's p of every pair in another. ``cells``: instead of ``discordant``, a sequence
    of ``P`` pairs of arrays ``(G,)``, the questions only A and only B got right per cluster, exact (the rule then
    reads them rather than rebuilding them from ``resid_sums`` and ``discordant``). ``memo`` (a
    :attr:`FileSums.memo <evalstats_core.sums.FileSums.memo>`, whose arrays keep their identity): where what
    the clusters give before the confidence level (:func:`_clustered_part`) is kept for the next call."""
    level = check_confidence(confidence)
    only_a, only_b = np.asarray(only_a, dtype=np.float64), np.asarray(only_b, dtype=np.float64)
    b, c, size = only_a, only_b, np.asarray(n, dtype=np.float64)
    n_pairs = b.size
    n_given = size
    mover = mover_ps = spreads = None
    if sizes is not None:
        args = (only_a, only_b, se, se_naive, df, sizes, resid_sums, discordant, cells)
        scale, nus, mover, mover_ps, spreads = _clustered_kept(memo, args)
        crit = [pair_t(nu, level) for nu in nus]
        # pair by pair, as the scalar rule (numpy's scalar power and an array's square may differ in the last bit)
        scale = np.array([s * (z_for(level) / t) ** 2 if math.isfinite(nu) else s
                          for s, t, nu in zip(scale, crit, nus, strict=True)])
        b, c, size = b * scale, c * scale, size * scale
    cc = continuity_correction(b, c) if sizes is None else np.zeros(b.shape)  # without clusters (the scalar rule)
    low, high = tango_intervals(b, c, size, confidence=level, correction=cc)
    out = []
    ps = [paired_proportion_p(float(x), float(y), correction=float(k)) for x, y, k in zip(b, c, cc, strict=True)]
    if mover is not None:  # every pair's MOVER ends in one call (element by element: each pair's own doubles)
        m_low, m_high = _ends(*(np.array([float(cells[i]) for cells in mover]) for i in range(5)),
                              np.array(crit, dtype=np.float64))
        for p, cells in enumerate(mover):
            if cells[5]:  # ok
                low[p], high[p] = min(low[p], float(m_low[p])), max(high[p], float(m_high[p]))
                ps[p] = max(ps[p], float(mover_ps[p])) if math.isfinite(ps[p]) else ps[p]
    if sizes is not None:  # never wider than the design's worst case (as the scalar rule)
        w_low, w_high, w_ps = _worst_cases(only_a, only_b, sizes, level)
        low, high = np.maximum(low, w_low), np.minimum(high, w_high)
        ps = [min(x, float(y)) if math.isfinite(x) and math.isfinite(y) else x for x, y in zip(ps, w_ps, strict=True)]
    kind = "tango" if sizes is None else "tango-effective"
    kinds = [kind] * n_pairs
    if spreads is not None:  # where the rule reads the CR2 t interval (as the scalar rule, pair by pair)
        ses, dfs = np.broadcast_to(np.asarray(se, dtype=np.float64), (n_pairs,)), np.broadcast_to(
            np.asarray(df, dtype=np.float64), (n_pairs,))
        room = T_SKEW_ROOM * (1.0 - level) / 2.0
        for p in range(n_pairs):
            se_p, df_p = float(ses[p]), float(dfs[p])
            if se_p > 0.0 and math.isfinite(df_p) and t_skew_error(*spreads[p], float(n_given[p]), float(low[p]),
                                                                   float(high[p]), level) <= room:
                low[p], high[p], ps[p] = t_within_worst_case(float(only_a[p]), float(only_b[p]), float(n_given[p]),
                                                             se_p, df_p, level,
                                                             (float(w_low[p]), float(w_high[p]), w_ps[p]))
                kinds[p] = "normal"
            elif se_p > 0.0 and math.isfinite(df_p):  # end by end (as the scalar rule)
                low[p], high[p], ps[p], kinds[p] = t_or_score_ends(
                    float(only_a[p]), float(only_b[p]), float(n_given[p]), se_p, df_p, *spreads[p], level,
                    (float(w_low[p]), float(w_high[p]), w_ps[p]), (float(low[p]), float(high[p]), ps[p]))
    for p in range(n_pairs):
        out.append((float(low[p]), float(high[p]), ps[p], kinds[p]))
    return out


def _worst_cases(only_a: np.ndarray, only_b: np.ndarray, sizes: Any, level: float) -> tuple[np.ndarray, ...]:
    """:func:`~evalstats_core.pair_proportions.worst_case_interval` of every pair, bit for bit: the same scaled
    counts, Tango's ends of every pair in one k-section (:func:`tango_intervals`), the test of each."""
    sz = np.asarray(sizes, dtype=np.float64)
    k = kish_n(sz)
    scale = k / float(sz[sz > 0].sum())
    b, c = only_a * scale, only_b * scale  # elementwise: the scalar function's doubles
    cc = continuity_correction(b, c)
    low, high = tango_intervals(b, c, np.full(b.shape, k), confidence=level, correction=cc)
    ps = [paired_proportion_p(float(x), float(y), correction=float(z)) for x, y, z in zip(b, c, cc, strict=True)]
    return low, high, ps


_KEPT_BATCHES = 16  # batches of pairs whose clusters' part is kept per FileSums (one per baseline, or all pairs)


def _clustered_kept(memo: dict | None, args: tuple) -> tuple[np.ndarray, list[float], list | None, Any, Any]:
    """:func:`_clustered_part` of ``args``, kept in ``memo`` under the identity of the arrays ``args`` holds (kept
    in the entry, so an identity is never reused while kept) and the bytes of its counts, SEs and df; at most
    :data:`_KEPT_BATCHES` entries (then the oldest goes). Nothing in it depends on the confidence level."""
    if memo is None:
        return _clustered_part(*args)
    only_a, only_b, se, se_naive, df, sizes, resid_sums, discordant, cells = args
    arrays = (sizes, *(resid_sums or ()), *(discordant or ()), *(x for pair in cells or () for x in pair))
    numbers = np.array([only_a, only_b, se, se_naive, df], dtype=np.float64).tobytes()
    key = (resid_sums is None, discordant is None, cells is None, numbers, *map(id, arrays))
    kept = memo.setdefault("pair-clusters", {})
    hit = kept.get(key)
    if hit is None:
        while len(kept) >= _KEPT_BATCHES:  # the oldest goes (another session may be doing the same)
            try:
                kept.pop(next(iter(kept)), None)
            except (StopIteration, RuntimeError):
                break
        hit = kept[key] = (arrays, _clustered_part(*args))
    return hit[1]


def _clustered_part(only_a: Any, only_b: Any, se: Any, se_naive: Any, df: Any, sizes: np.ndarray, resid_sums: Any,
                    discordant: Any, cells: Any = None) -> tuple[np.ndarray, list[float], list | None, Any, Any]:
    """What :func:`binary_pair_intervals` derives from the clusters before the confidence level: every pair's
    ``1 / deff`` (before the ``(z / t)^2`` shrinkage), its df (:func:`~evalstats_core.pair_mover.disagreement_df`),
    the MOVER's two cells (:func:`~evalstats_core.pair_mover._cells`; None without the clusters' sums) and its
    p-value at 0 (:func:`cell_mover_ps`), and each pair's disagreements and their spread
    (:func:`~evalstats_core.pair_proportions.discordance_spread`; None without the clusters' sums). ``cells``: each pair's exact counts per
    cluster of questions only A and only B got right, read instead of
    :func:`~evalstats_core.pair_proportions.discordant_cells` of ``resid_sums`` and ``discordant`` (which gives
    them to rounding, then made whole by :func:`~evalstats_core.pair_mover.whole_counts`: the same numbers)."""

    only_a, only_b = np.asarray(only_a, dtype=np.float64), np.asarray(only_b, dtype=np.float64)
    n_pairs = only_a.size
    sz = np.asarray(sizes, dtype=np.float64)
    se, se_naive = np.asarray(se, dtype=np.float64), np.asarray(se_naive, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        good = (se > 0.0) & (se_naive > 0.0)
        scale = np.minimum(1.0, (se_naive / se) ** 2)  # 1 / deff; Kish's n (a pass over the sizes) where no SE
        if not good.all():
            scale = np.where(good, scale, kish_n(sz) / float(sz.sum()))
    resid = None if resid_sums is None else np.stack([np.asarray(r, dtype=np.float64) for r in resid_sums])
    disc = None if discordant is None else np.stack([np.asarray(m, dtype=np.float64) for m in discordant])
    if cells is not None:  # exact: the disagreements are their sum
        only_a_g, only_b_g = (np.stack([np.asarray(pair[i], dtype=np.float64) for pair in cells]) for i in (0, 1))
        disc = only_a_g + only_b_g
    # disagreement_df(df, ...) of each pair: the clusters' counts of every pair at once (row sums as one
    # row's), then each pair's own df, clip(min(df, nu), 1, df), as disagreement_df takes them
    fewest = disagreement_df(math.inf, sz, resid, disc, whole=cells is not None)  # exact cells: whole already
    design = np.asarray(df, dtype=np.float64)  # every pair's at once: the same elementwise min and clip
    nus = np.broadcast_to(np.clip(np.minimum(design, fewest), 1.0, design), (n_pairs,)).tolist()
    mover = mover_ps = spreads = None
    if resid is not None and disc is not None:
        if cells is None:
            only_a_g, only_b_g = discordant_cells(only_a, only_b, sz, resid, disc)  # (P, G) each
        spreads = [discordance_spread(only_a_g[p], only_b_g[p], sz) for p in range(n_pairs)]  # one file's each
        weights = _cell_weights(sz)  # one cluster-size vector for every pair of the batch
        stacked = _cells(only_a_g, only_b_g, sz, weights, dot=row_dots)  # every pair's cells at once, row by row
        mover = [tuple(v[p] for v in stacked) for p in range(n_pairs)]
        mover_ps = cell_mover_ps(mover, np.array(nus))
        mover_ps.setflags(write=False)
    scale.setflags(write=False)  # shared by later calls (and sessions): read, never written
    return scale, nus, mover, mover_ps, spreads


def _mover_ksection(pa: np.ndarray, pb: np.ndarray, la: np.ndarray, lb: np.ndarray, corr: np.ndarray,
                    low_side: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ksection(left_of_root, lo, hi)`` of :func:`cell_mover_ps` with 64 trial points per step, bit for bit, faster: the
    operations of :func:`~evalstats_core.pair_mover._ends` for the end that moves (the low one where
    ``low_side``), in the same order, with what does not depend on the critical value computed once and
    spread to the trial points' shape (as :func:`_tango_ksection`)."""
    points = _POINTS
    full = (points - 1,) + lo.shape
    steps = np.arange(1, points, dtype=np.float64).reshape((-1,) + (1,) * lo.ndim) / points
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        centre_a, centre_b = np.log(pa / (1.0 - pa)), np.log(pb / (1.0 - pb))

        spread = functools.partial(spread_to, shape=full)

        sides = [s for s in (True, False) if (low_side == s).any()]
        kept = {name: spread(v) for name, v in (("pa", pa), ("pb", pb), ("la", la), ("lb", lb), ("ca", centre_a),
                                                 ("cb", centre_b), ("-ca", -centre_a), ("-cb", -centre_b),
                                                 ("2r", 2.0 * corr), ("d", pa - pb))}
        x, y, t, u = (np.empty(full) for _ in range(4))
        for _ in range(_STEPS):
            width = hi - lo
            crit = lo + width * steps
            left = None
            for low in sides:
                # low end: (pa - 1/(1 + e^(crit la - ca))), (1/(1 + e^(-cb - crit lb)) - pb), d - sqrt(...) > 0;
                # high end: (1/(1 + e^(-ca - crit la)) - pa), (pb - 1/(1 + e^(crit lb - cb))), d + sqrt(...) <= 0
                np.multiply(crit, kept["la"], out=x)
                np.subtract(x, kept["ca"], out=x) if low else np.subtract(kept["-ca"], x, out=x)
                np.exp(x, out=x)
                np.add(1.0, x, out=x)
                np.divide(1.0, x, out=x)
                np.subtract(kept["pa"], x, out=x) if low else np.subtract(x, kept["pa"], out=x)
                np.multiply(crit, kept["lb"], out=y)
                np.subtract(kept["-cb"], y, out=y) if low else np.subtract(y, kept["cb"], out=y)
                np.exp(y, out=y)
                np.add(1.0, y, out=y)
                np.divide(1.0, y, out=y)
                np.subtract(y, kept["pb"], out=y) if low else np.subtract(kept["pb"], y, out=y)
                np.multiply(x, x, out=t)
                np.multiply(y, y, out=u)
                np.add(t, u, out=t)
                np.multiply(kept["2r"], x, out=u)
                np.multiply(u, y, out=u)
                np.subtract(t, u, out=t)
                np.maximum(t, 0.0, out=t)
                np.sqrt(t, out=t)
                if low:
                    this = np.subtract(kept["d"], t, out=t) > 0.0
                else:
                    this = ~(np.add(kept["d"], t, out=t) > 0.0)
                left = this if left is None else np.where(low_side, left, this)
            below = np.add.reduce(left, axis=0, dtype=np.intp)
            lo, hi = lo + width * (below / points), lo + width * ((below + 1) / points)
    return lo, hi


def cell_mover_ps(cells: list[tuple[np.ndarray, ...]], dfs: np.ndarray) -> np.ndarray:
    """:func:`~evalstats_core.pair_mover.cell_mover_p` of ``P`` pairs, bit for bit, from each pair's
    :func:`~evalstats_core.pair_mover._cells` (``pa, pb, la, lb, corr, ok``) and df: the doubling search and
    the k-section of every pair at once."""
    pa, pb, la, lb, corr, ok = (np.array([float(c[i]) for c in cells]) for i in range(6))
    ok = ok.astype(bool)
    out = np.full(pa.shape, math.nan)
    out[ok & (pa == pb)] = 1.0
    solve = ok & (pa != pb)
    if not solve.any():
        return out
    pa, pb, la, lb, corr, df = pa[solve], pb[solve], la[solve], lb[solve], corr[solve], dfs[solve]
    low_side = pa > pb  # the end that moves towards 0 as crit grows: the low one when A is ahead

    def left_of_root(c: np.ndarray) -> np.ndarray:  # the end has not reached 0 at this critical value
        low, high = _ends(pa, pb, la, lb, corr, c)
        return np.where(low_side, low > 0.0, ~(high > 0.0))

    doublings = 2.0 ** np.arange(21)  # the first power of two (up to 2^20) at which the end has reached 0
    reached = ~left_of_root(doublings[:, None])
    hi = np.where(reached.any(axis=0), doublings[np.argmax(reached, axis=0)], doublings[-1])
    lo, hi = _mover_ksection(pa, pb, la, lb, corr, low_side, np.zeros(pa.shape), hi)
    mid = 0.5 * (lo + hi)
    out[solve] = [min(1.0, 2.0 * float(stdtr(float(v), -float(t)))) for t, v in zip(mid, df, strict=True)]
    return out
