"""The 0/1 pair rule for many pairs at once (private): every pair of one analysis in one root search.

:func:`~evalstats_core.pair_proportions.binary_pair_interval` solves one pair: Tango's two ends in one
k-section (about 11 calls of numpy on 126 trial points) and, with clusters, the MOVER's p-value in another.
A call of numpy on a few hundred values costs about what it costs on a few, so the ends of every pair of an
analysis (the pairs that share the cluster sizes) are solved together here, each bracket with the same 64
trial points per step as alone (:func:`~evalstats_core._ksection.ksection` with ``points=64``): every
result is the scalar function's, to the last bit (``tests/test_pair_batch.py`` checks it on random counts).
The scalar functions stay the reference; the statistics are theirs (:mod:`evalstats_core.pair_proportions`,
:mod:`evalstats_core.pair_mover`).

=============================  ==========================================================================
:func:`tango_intervals`        :func:`~evalstats_core.pair_proportions.paired_proportion_ci` of ``(P,)``
                               counts in one k-section
:func:`cell_mover_ps`          :func:`~evalstats_core.pair_mover.cell_mover_p` of ``P`` pairs in one
:func:`binary_pair_intervals`  :func:`~evalstats_core.pair_proportions.binary_pair_interval` of ``P``
                               pairs on the same cluster sizes (or none)
=============================  ==========================================================================
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._ksection import _POINTS, ksection
from ._validate import check_confidence, z_for
from .errors import EvalStatsError
from .pair_mover import _cells, _ends, disagreement_df
from .pair_proportions import _BISECT_STEPS, _tango_z, discordant_cells, paired_proportion_p, pair_t

__all__ = ["binary_pair_intervals", "cell_mover_ps", "tango_intervals"]


def tango_intervals(only_a: Any, only_b: Any, n: Any, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~evalstats_core.pair_proportions.paired_proportion_ci` of arrays ``(P,)`` of counts, bit for bit:
    both ends of every pair in one k-section of 64 trial points per bracket and step, as one pair alone."""
    b, c, size = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (only_a, only_b, n)))
    if not (np.all(np.isfinite(b) & np.isfinite(c) & np.isfinite(size)) and np.all(size > 0)
            and np.all(b >= 0) and np.all(c >= 0) and np.all(b + c <= size * (1 + 1e-12))):
        raise EvalStatsError("paired_proportion_ci needs counts 0 <= only_a, only_b with only_a + only_b <= n, n > 0")
    z = z_for(check_confidence(confidence))
    d = (b - c) / size
    shape = (2,) + (1,) * d.ndim
    target, edge = np.reshape([z, -z], shape), np.reshape([-1.0, 1.0], shape)
    lo, hi = ksection(lambda x: _tango_z(b, c, size, x) > target,
                      *np.broadcast_arrays(np.minimum(d, edge), np.maximum(d, edge)), bits=_BISECT_STEPS,
                      points=_POINTS)
    at_edge = _tango_z(b, c, size, np.broadcast_to(edge, lo.shape)) * -edge <= z
    low, high = np.where(at_edge, edge, 0.5 * (lo + hi))
    return low, high


def cell_mover_ps(cells: list[tuple[np.ndarray, ...]], dfs: np.ndarray) -> np.ndarray:
    """:func:`~evalstats_core.pair_mover.cell_mover_p` of ``P`` pairs, bit for bit, from each pair's
    :func:`~evalstats_core.pair_mover._cells` (``pa, pb, la, lb, corr, ok``) and df: the doubling search and
    the k-section of every pair at once."""
    from ._quantiles import t_sf

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
    lo, hi = ksection(left_of_root, np.zeros(pa.shape), hi, points=_POINTS)
    mid = 0.5 * (lo + hi)
    out[solve] = [min(1.0, 2.0 * t_sf(float(t), float(v))) for t, v in zip(mid, df, strict=True)]
    return out


def binary_pair_intervals(only_a: Any, only_b: Any, n: Any, se: Any, se_naive: Any, df: Any,
                          sizes: np.ndarray | None, *, confidence: float = 0.95, resid_sums: Any = None,
                          discordant: Any = None) -> list[tuple[float, float, float, str]]:
    """:func:`~evalstats_core.pair_proportions.binary_pair_interval` of ``P`` pairs on the same cluster
    ``sizes`` (or none), bit for bit: ``only_a``, ``only_b``, ``n``, ``se``, ``se_naive``, ``df`` of shape
    ``(P,)``; ``resid_sums`` and ``discordant`` sequences of ``P`` arrays ``(G,)`` (with clusters). Each
    pair's df and t quantile are found once (the scalar rule finds them twice), Tango's ends of every pair
    in one k-section, and the MOVER's p of every pair in another."""
    from .proportions import kish_n

    level = check_confidence(confidence)
    only_a, only_b = np.asarray(only_a, dtype=np.float64), np.asarray(only_b, dtype=np.float64)
    b, c, size = only_a, only_b, np.asarray(n, dtype=np.float64)
    n_pairs = b.size
    mover = None
    if sizes is not None:
        sz = np.asarray(sizes, dtype=np.float64)
        se, se_naive = np.asarray(se, dtype=np.float64), np.asarray(se_naive, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where((se > 0.0) & (se_naive > 0.0), np.minimum(1.0, (se_naive / se) ** 2),  # 1 / deff
                             kish_n(sz) / float(sz.sum()))
        nus = [float(disagreement_df(float(df[p]), sz, resid_sums[p], discordant[p])) for p in range(n_pairs)]
        crit = [pair_t(nu, level) for nu in nus]
        if all(math.isfinite(nu) for nu in nus):
            scale = scale * (z_for(level) / np.array(crit)) ** 2
        else:  # never with clusters (the df is finite); kept as the scalar rule has it
            scale = np.array([s * (z_for(level) / t) ** 2 if math.isfinite(nu) else s
                              for s, t, nu in zip(scale, crit, nus, strict=True)])
        b, c, size = b * scale, c * scale, size * scale
        if resid_sums is not None and discordant is not None:
            mover = [_cells(*discordant_cells(float(only_a[p]), float(only_b[p]), sz, resid_sums[p], discordant[p]),
                            sz) for p in range(n_pairs)]
    low, high = tango_intervals(b, c, size, confidence=level)
    out = []
    ps = [paired_proportion_p(float(x), float(y)) for x, y in zip(b, c, strict=True)]
    if mover is not None:
        mover_ps = cell_mover_ps(mover, np.array(nus))
        for p, (cells, t) in enumerate(zip(mover, crit, strict=True)):
            pa, pb, la, lb, corr, ok = cells
            m_low, m_high = _ends(pa, pb, la, lb, corr, np.asarray(t, dtype=np.float64))
            if ok:
                low[p], high[p] = min(low[p], float(m_low)), max(high[p], float(m_high))
                ps[p] = max(ps[p], float(mover_ps[p])) if math.isfinite(ps[p]) else ps[p]
    kind = "tango" if sizes is None else "tango-effective"
    for p in range(n_pairs):
        out.append((float(low[p]), float(high[p]), ps[p], kind))
    return out
