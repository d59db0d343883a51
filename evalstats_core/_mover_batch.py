"""The MOVER's p-value of many clustered 0/1 pairs at once (private; split from :mod:`evalstats_core._pair_batch`).

:func:`cell_mover_ps` is :func:`~evalstats_core.pair_mover.cell_mover_p` of every pair of an analysis on the
same cluster sizes, bit for bit (``tests/test_pair_batch.py`` checks it): the doubling search and the
k-section of every pair at once, the first steps taken ahead in plain floats as for Tango's ends
(:func:`~evalstats_core._pair_batch._ahead_path`). :func:`~evalstats_core._pair_batch.binary_pair_intervals`
calls it; the statistics are :mod:`evalstats_core.pair_mover`'s.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ._ksection import _POINTS
from ._pair_batch import _AHEAD, _STEPS, _after, _ahead_path, spread_to
from ._tango_fast import float_root as _float_root
from .pair_mover import _ends

__all__ = ["cell_mover_ps"]


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


_TOP = 2.0**20  # the doubling search's last power of two
#: below this critical value t's tail is above 1e-316 on any df (the normal's, the lightest, is 2.7e-316 at 38), so a
#: MOVER end that reaches 0 before it has a p above 0: :func:`_underflows` need not look for the root
_LIVE = 38.0


def _underflows(pa: float, pb: float, la: float, lb: float, corr: float, df: float) -> bool:
    """Whether :func:`~evalstats_core.pair_mover.cell_mover_p` of these cells is exactly 0.0 without its k-section: the
    end's float root ``r`` (in ``(38, 2^20)``, where the doubling search would bracket it) less twice its noise window
    (:func:`_mover_near`, the window :func:`~evalstats_core._pair_batch._ahead_path` trusts) is a critical value at
    and beyond which t's tail on ``df`` is 0.0 (:func:`~evalstats_core._quantiles.t_sf_zero_beyond`); the k-section's
    root lies beyond it, so ``2 t_sf`` there is 0.0. Two models far apart on a large file (``tests/test_mover_zero.py``)."""
    from ._quantiles import t_sf_zero_beyond

    if not (math.isfinite(df) and df > 1.0):
        return False
    f = functools.partial(_mover_end_float, pa, pb, la, lb, corr, pa > pb)
    if not f(_LIVE) > 0.0:  # the root lies below _LIVE: no p of 0 there (one evaluation instead of a root search)
        return False
    sa, sb = la * pa * (1.0 - pa), lb * pb * (1.0 - pb)  # the cells' SEs on the proportion scale: a Wald-like guess
    spread = math.sqrt(max(sa * sa + sb * sb - 2.0 * corr * sa * sb, 0.0))
    r = _float_root(f, _LIVE, _TOP, abs(pa - pb) / spread if spread > 0.0 else None, None)
    return r is not None and t_sf_zero_beyond(r - 2.0 * _mover_near(f, r), df)


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
    if solve.sum() <= _AHEAD:  # p = 0 to the last bit where the end reaches 0 only where t's tail is 0 (no k-section)
        for i in np.flatnonzero(solve):
            if _underflows(float(pa[i]), float(pb[i]), float(la[i]), float(lb[i]), float(corr[i]), float(dfs[i])):
                out[i], solve[i] = 0.0, False
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
    out[solve] = [min(1.0, 2.0 * t_sf(float(t), float(v))) for t, v in zip(mid, df, strict=True)]
    return out
