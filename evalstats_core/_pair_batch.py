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
pairs) is :func:`cell_mover_ps`, which takes its first steps ahead with
:func:`_ahead_path` as Tango's ends do.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy.special import stdtr

from ._ksection import _POINTS
from ._tango_band import band_steps, z_error_bound, z_of
from ._tango_fast import float_root as _float_root
from ._tango_fast import threshold_path
from ._tango_fast import wald_guess as _wald
from ._validate import check_confidence, z_for
from .cluster_means import kish_n
from .errors import EvalStatsError
from .pair_mover import _cell_weights, _cells, _ends, disagreement_df, row_dots
from .pair_proportions import (
    _BISECT_STEPS,
    CONTINUITY_RAMP,
    _tango_z,
    continuity_correction,
    discordant_cells,
    pair_t,
    paired_proportion_p,
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
    if d.size <= _AHEAD // 2:  # the edges' statistic in floats (the same doubles) for a few pairs
        ccs = np.zeros(b.shape) if cc is None else cc
        at_edge = np.array([[_z_float(float(x), float(y), float(m), e, float(k)) * -e <= z
                             for x, y, m, k in zip(b.flat, c.flat, size.flat, ccs.flat, strict=True)]
                            for e in (-1.0, 1.0)]).reshape(lo.shape)
    else:
        at_edge = _tango_z(b, c, size, np.broadcast_to(edge, lo.shape), 0.0 if cc is None else cc) * -edge <= z
    low, high = np.where(at_edge, edge, 0.5 * (lo + hi))
    return low, high


def _tango_rule(b: float, c: float, n: float, level: float) -> tuple[float, float, float, str] | None:
    """The rule without clusters for one pair, as :func:`binary_pair_intervals` gives it, in plain floats (no
    array): the continuity correction, Tango's two ends (:func:`_tango_ends`) and the corrected p; None for
    counts the arrays' path checks."""
    cc = min(1.0, (b + c) / CONTINUITY_RAMP)  # continuity_correction, in the same double
    ends = _tango_ends(b, c, n, level, cc)
    return None if ends is None else (*ends, paired_proportion_p(b, c, correction=cc), "tango")


def _tango_ends(b: float, c: float, n: float, level: float, cc: float) -> tuple[float, float] | None:
    """:func:`tango_intervals` of one pair in plain floats: every k-section step from the statistic's threshold
    (:func:`~evalstats_core._tango_fast.threshold_path`), or where it cannot tell by :func:`_ahead_path`, then
    :func:`~evalstats_core._tango_band.band_steps` (the steps they leave, few trial points wide, in numpy by
    :func:`_tango_steps`); None for counts the arrays' path checks (it raises)."""
    if not (math.isfinite(b + c + n + cc) and n > 0.0 and b >= 0.0 and c >= 0.0 and b + c <= n * (1 + 1e-12)
            and cc >= 0.0):
        return None
    z, d = z_for(level), (b - c) / n
    low, high = ((z, -1.0), (-z, 1.0))  # the low end solves Z = z left of d, the high end Z = -z right of it
    ends = []
    for aim, edge in (low, high):
        path = (threshold_path(b, c, n, cc, aim, min(d, edge), max(d, edge))  # from the threshold, when it can tell
                or _tango_path(b, c, n, cc, aim, min(d, edge), max(d, edge)))
        lo, hi = path[-1]
        if len(path) <= _STEPS:
            one = np.ones(1)
            lo, hi = (float(v[0]) for v in _tango_steps(b * one, c * one, n * one, aim * one, lo * one, hi * one,
                                                        cc * one if cc else None, _STEPS + 1 - len(path)))
        ends.append(edge if _z_float(b, c, n, edge, cc) * -edge <= z else 0.5 * (lo + hi))
    return ends[0], ends[1]


def _tango_ksection(b: np.ndarray, c: np.ndarray, n: np.ndarray, target: np.ndarray, lo: np.ndarray,
                    hi: np.ndarray, cc: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``ksection(lambda x: _tango_z(b, c, n, x) > target, lo, hi)`` with 64 trial points per step, bit for bit, faster:
    the same trial points and the same operations of :func:`~evalstats_core.pair_proportions._tango_z` in the
    same order, with what does not depend on the trial point computed once and every operand spread to the
    trial points' shape first (numpy's broadcasting costs more than the arithmetic on a few hundred values).
    ``cc``: the continuity correction of every pair (None: none), applied to the numerator as ``_tango_z`` does."""
    points = _POINTS
    total = math.ceil(_BISECT_STEPS / math.log2(points))
    done = 0
    if lo.size <= _AHEAD:  # the first steps from a root found in plain floats, where no trial point is near it
        done, lo, hi = _steps_ahead(b, c, n, target, lo, hi, total, cc)
        if done == total:  # every step taken in floats (the last ones by _tango_band): no arrays to spread
            return lo, hi
    return _tango_steps(b, c, n, target, lo, hi, cc, total - done)


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


_AHEAD = 8  # brackets (both ends of up to 4 pairs) for which the first k-section steps are taken ahead in floats
#: a trial point this close to the float root is left to the k-section, times ``1 + 1 / (1 - |root|)``: the float
#: statistic's sign is noisy over ~1e-15 near a root inside (-1, 1), and over ~0.2 (1 - |root|) near the edges
#: (a root at -1 + 6e-11 moved by 1.3e-11; tests/test_pair_batch.py fails with 1e-14 here)
_NEAR = 1e-12
_STEPS = math.ceil(_BISECT_STEPS / math.log2(_POINTS))  # k-section steps of 64 points for 64 bits: 11
_NARROW = 1e-7  # a bracket this narrow (times 1 + |root|) is finished by the error-bounded band (_tango_band)
_EXACT = 24  # at most this many trial points near the root are decided in floats; more: the k-section's step


def _z_float(b: float, c: float, n: float, x: float, cc: float = 0.0) -> float:
    """Tango's statistic at one ``delta`` in plain floats: the operations of
    :func:`~evalstats_core.pair_proportions._tango_z` in its order, so the same double (IEEE arithmetic and a
    correctly rounded square root either way; ``tests/test_float_twins.py`` checks it)."""
    w = -b - c + (2.0 * n - b + c) * x
    q = (math.sqrt(max(w * w + 8.0 * n * c * x * (1.0 - x), 0.0)) - w) / (4.0 * n)
    var = n * (2.0 * q + x * (1.0 - x))
    num = b - c - n * x
    if cc:  # np.sign(num) * np.maximum(np.abs(num) - cc, 0.0), as _tango_z
        num = (0.0 if num == 0.0 else math.copysign(1.0, num)) * max(abs(num) - cc, 0.0) if num == num else num
    return num / math.sqrt(var) if var > 0.0 else math.copysign(math.inf, num) if num else math.nan


def _steps_ahead(b: np.ndarray, c: np.ndarray, n: np.ndarray, target: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 total: int, cc: np.ndarray | None = None) -> tuple[int, np.ndarray, np.ndarray]:
    """Tango's first k-section steps (:func:`_ahead_path` for each bracket, the statistic in floats deciding the
    trial points near the root): the steps taken (the same for every bracket, the fewest any allows) and the
    brackets after them."""
    goal = np.broadcast_to(target, lo.shape)
    bb, c_, nn, kk = (np.broadcast_to(v, lo.shape) for v in (b, c, n, 0.0 if cc is None else cc))
    paths = []
    for i in np.ndindex(lo.shape):
        args = (float(bb[i]), float(c_[i]), float(nn[i]), float(kk[i]), float(goal[i]), float(lo[i]), float(hi[i]))
        paths.append((threshold_path(*args) if total == _STEPS else None)  # from the threshold, when it can tell
                     or _tango_path(*args, total))
    return _after(paths, lo, hi)


def _tango_path(b: float, c: float, n: float, cc: float, aim: float, lo: float, hi: float,
                total: int = _STEPS) -> list[tuple[float, float]]:
    """:func:`_ahead_path` of Tango's bracket ``[lo, hi]`` of the root of ``Z = aim`` (correction ``cc``)."""
    z = z_of(b, c, n, cc)  # _z_float's doubles, its constants made once
    return _ahead_path(lambda x: z(x) - aim, lo, hi, total, guess=_wald(b, c, n, -aim), at_d=-aim,
                       near=lambda r: _NEAR * (1.0 + 1.0 / max(1.0 - abs(r), 1e-300)),  # noisier near +-1
                       exact=lambda x: z(x) > aim,
                       # once the bracket is narrow: the last steps by a running error bound (_tango_band)
                       finish=functools.partial(band_steps, z, aim, points=_POINTS,
                                                bound=functools.partial(z_error_bound, b, c, n, cc=cc)))


def _ahead_path(f: Any, lo: float, hi: float, total: int, *, guess: float | None, at_d: float | None, near: Any,
                exact: Any = None, finish: Any = None) -> list[tuple[float, float]]:
    """The brackets of one k-section's first steps (64 trial points a step, ``lo + width * (k / 64)``, the new
    bracket ``lo + width * (below / 64)``: the same floats as the k-section's) without evaluating its condition
    at every trial point: with the root ``r`` of the decreasing ``f`` found in floats, a step's count of trial
    points left of the root is the count of those below ``r``, as long as none lies within ``near(r)`` of it
    (where the condition's float noise could put it on the other side); up to :data:`_EXACT` such points are
    decided by ``exact(x)`` when given (the condition itself, in the same doubles), else the path stops. Once the
    bracket is narrow, ``finish(lo, hi, root=r, steps=...)`` is asked once for the remaining brackets
    (:func:`~evalstats_core._tango_band.band_steps`: those it could take; none: go on as before)."""
    points = _POINTS
    r = _float_root(f, lo, hi, guess, at_d)
    path = [(lo, hi)]
    if r is None:
        return path
    window, most = near(r), _EXACT if exact is not None else 0
    while len(path) <= total:
        low, high = path[-1]
        width = high - low
        if finish is not None and width <= _NARROW * (1.0 + abs(r)):
            rest = finish(low, high, root=r, steps=total + 1 - len(path))
            if rest:
                return path + rest  # the steps it did not take: the k-section's
            finish = None  # asked once
        below = min(max(int((r - low) / width * points), 0), points - 1)  # about the count; made exact:
        while below > 0 and low + width * (below / points) >= r:
            below -= 1
        while below < points - 1 and low + width * ((below + 1) / points) < r:
            below += 1
        first = last = below + 1  # the trial points near r: k in [first, last), of k = 1 .. 63
        while first > 1 and r - (low + width * ((first - 1) / points)) <= window:
            first -= 1
        while last < points and (low + width * (last / points)) - r <= window:
            last += 1
        if last - first > most:
            break
        # below r and away from it: left of the root; near it: the condition itself, in the k-section's floats
        below = first - 1 + sum(bool(exact(low + width * (k / points))) for k in range(first, last))
        path.append((low + width * (below / points), low + width * ((below + 1) / points)))
    return path


def _after(paths: list[list[tuple[float, float]]], lo: np.ndarray,
           hi: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """``(steps, lo, hi)``: the most steps every path took, and the brackets ``lo``, ``hi`` after them."""
    done = min(len(p) for p in paths) - 1
    if done <= 0:
        return 0, lo, hi
    ends = np.array([p[done] for p in paths]).T.reshape((2,) + lo.shape)
    return done, ends[0], ends[1]


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
    if sizes is None and len(only_a) <= _AHEAD // 2:  # a few pairs without clusters: in plain floats
        done = [_tango_rule(float(x), float(y), float(m), level) for x, y, m in zip(only_a, only_b, n, strict=True)]
        if None not in done:
            return done  # type: ignore[return-value]
    only_a, only_b = np.asarray(only_a, dtype=np.float64), np.asarray(only_b, dtype=np.float64)
    b, c, size = only_a, only_b, np.asarray(n, dtype=np.float64)
    n_pairs = b.size
    mover = mover_ps = None
    if sizes is not None:
        args = (only_a, only_b, se, se_naive, df, sizes, resid_sums, discordant, cells)
        scale, nus, mover, mover_ps = _clustered_kept(memo, args)
        crit = [pair_t(nu, level) for nu in nus]
        if all(math.isfinite(nu) for nu in nus):
            scale = scale * (z_for(level) / np.array(crit)) ** 2
        else:  # never with clusters (the df is finite); kept as the scalar rule has it
            scale = np.array([s * (z_for(level) / t) ** 2 if math.isfinite(nu) else s
                              for s, t, nu in zip(scale, crit, nus, strict=True)])
        b, c, size = b * scale, c * scale, size * scale
    cc = continuity_correction(b, c) if sizes is None else np.zeros(b.shape)  # without clusters (the scalar rule)
    few = [_tango_ends(float(x), float(y), float(m), level, 0.0) for x, y, m in zip(b, c, size, strict=True)] \
        if sizes is not None and n_pairs <= _AHEAD // 2 else [None]  # a few clustered pairs: in plain floats
    if None in few:
        low, high = tango_intervals(b, c, size, confidence=level, correction=cc)
    else:
        low, high = (np.array(v) for v in zip(*few, strict=True))
    out = []
    ps = [paired_proportion_p(float(x), float(y), correction=float(k)) for x, y, k in zip(b, c, cc, strict=True)]
    if mover is not None:  # every pair's MOVER ends in one call (element by element: each pair's own doubles)
        m_low, m_high = _ends(*(np.array([float(cells[i]) for cells in mover]) for i in range(5)),
                              np.array(crit, dtype=np.float64))
        for p, cells in enumerate(mover):
            if cells[5]:  # ok
                low[p], high[p] = min(low[p], float(m_low[p])), max(high[p], float(m_high[p]))
                ps[p] = max(ps[p], float(mover_ps[p])) if math.isfinite(ps[p]) else ps[p]
    kind = "tango" if sizes is None else "tango-effective"
    for p in range(n_pairs):
        out.append((float(low[p]), float(high[p]), ps[p], kind))
    return out


_KEPT_BATCHES = 16  # batches of pairs whose clusters' part is kept per FileSums (one per baseline, or all pairs)


def _clustered_kept(memo: dict | None, args: tuple) -> tuple[np.ndarray, list[float], list | None, Any]:
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
                    discordant: Any, cells: Any = None) -> tuple[np.ndarray, list[float], list | None, Any]:
    """What :func:`binary_pair_intervals` derives from the clusters before the confidence level: every pair's
    ``1 / deff`` (before the ``(z / t)^2`` shrinkage), its df (:func:`~evalstats_core.pair_mover.disagreement_df`),
    the MOVER's two cells (:func:`~evalstats_core.pair_mover._cells`; None without the clusters' sums) and its
    p-value at 0 (:func:`cell_mover_ps`). ``cells``: each pair's exact counts per
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
    mover = mover_ps = None
    if resid is not None and disc is not None:
        if cells is None:
            only_a_g, only_b_g = discordant_cells(only_a, only_b, sz, resid, disc)  # (P, G) each
        weights = _cell_weights(sz)  # one cluster-size vector for every pair of the batch
        stacked = _cells(only_a_g, only_b_g, sz, weights, dot=row_dots)  # every pair's cells at once, row by row
        mover = [tuple(v[p] for v in stacked) for p in range(n_pairs)]
        mover_ps = cell_mover_ps(mover, np.array(nus))
        mover_ps.setflags(write=False)
    scale.setflags(write=False)  # shared by later calls (and sessions): read, never written
    return scale, nus, mover, mover_ps


def _mover_end_float(pa: float, pb: float, la: float, lb: float, corr: float, low: bool, crit: float) -> float:
    """The end of :func:`~evalstats_core.pair_mover._ends` that moves towards 0 (the low one, or minus the high
    one: decreasing in ``crit`` either way), in plain floats (for the float root; not the same doubles)."""
    def expit_neg(v: float) -> float:  # 1 / (1 + e^v)
        return 1.0 / (1.0 + math.exp(min(v, 700.0)))

    ca, cb = math.log(pa / (1.0 - pa)), math.log(pb / (1.0 - pb))
    if low:
        x, y = pa - expit_neg(crit * la - ca), expit_neg(-cb - crit * lb) - pb
    else:
        x, y = expit_neg(-ca - crit * la) - pa, pb - expit_neg(crit * lb - cb)
    spread = math.sqrt(max(x * x + y * y - 2.0 * corr * x * y, 0.0))
    return pa - pb - spread if low else -(pa - pb + spread)


def _mover_near(f: Any, r: float) -> float:
    """How close to the float root ``r`` of the MOVER's end ``f`` a trial point is left to the k-section: the
    end's float noise (~1e-16) over its slope at ``r``, with a margin of 1,000, and 1e-12 of ``r``."""
    h = 1e-7 * max(1.0, r)
    slope = abs(f(r + h) - f(max(r - h, 0.0))) / (r + h - max(r - h, 0.0))
    return 1e-12 * max(1.0, r) + (1e-13 / slope if slope > 0.0 else math.inf)


def _mover_ksection(pa: np.ndarray, pb: np.ndarray, la: np.ndarray, lb: np.ndarray, corr: np.ndarray,
                    low_side: np.ndarray, lo: np.ndarray, hi: np.ndarray, done: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``ksection(left_of_root, lo, hi)`` of :func:`cell_mover_ps` with 64 trial points per step, bit for bit, faster: the
    operations of :func:`~evalstats_core.pair_mover._ends` for the end that moves (the low one where
    ``low_side``), in the same order, with what does not depend on the critical value computed once and
    spread to the trial points' shape (as :func:`_tango_ksection`), after ``done`` steps taken ahead."""
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
        for _ in range(_STEPS - done):  # the first ``done`` steps taken ahead (cell_mover_ps)
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
    lo, done = np.zeros(pa.shape), 0
    if pa.size <= _AHEAD:
        paths = []
        for i in range(pa.size):
            args = (float(pa[i]), float(pb[i]), float(la[i]), float(lb[i]), float(corr[i]), bool(low_side[i]))
            f = functools.partial(_mover_end_float, *args)
            paths.append(_ahead_path(f, 0.0, float(hi[i]), _STEPS, guess=None, at_d=None,
                                     near=functools.partial(_mover_near, f)))
        done, lo, hi = _after(paths, lo, hi)
    lo, hi = _mover_ksection(pa, pb, la, lb, corr, low_side, lo, hi, done)
    mid = 0.5 * (lo + hi)
    out[solve] = [min(1.0, 2.0 * float(stdtr(float(v), -float(t)))) for t, v in zip(mid, df, strict=True)]
    return out
