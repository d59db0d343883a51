"""The interval of the wild cluster bootstrap (private to :mod:`evalstats_core.wild`): the hull of the nulls
the test does not reject, found by test inversion on one set of draws.

Each draw stops counting beyond a known ``|d|`` (:func:`_reach`); past the point where too few draws can
still count every null is rejected, so a grid of ``|t|`` from the estimate to there and a bisection
between its outermost accepted point and the next locate each end (the Notes of
:func:`evalstats_core.wild.wild_cluster_bootstrap` give the derivation).
"""

from __future__ import annotations

import math

import numpy as np

from ._wild_draws import _Draws, _exceed, _take

_GRID_LINEAR = 8.0  # interval search: |t| grid steps of _GRID_STEP up to 8 standard errors,
_GRID_STEP = 0.05  # then geometric steps of _GRID_RATIO out to where no draw can still count
_GRID_RATIO = 1.05
_BISECT_TOL = 1e-12  # interval ends are located to 1e-12 standard errors (relative beyond 1 SE)


def _interval(draws: _Draws, se: float, alpha: float) -> tuple[float, float]:
    """Distances from the estimate to the lower and upper ends of the accepted nulls (hull)."""
    need = math.floor(alpha * draws.total) + 1  # fewest exceedances with count / total > alpha
    while need > 1 and (need - 1) / draws.total > alpha:
        need -= 1
    while need / draws.total <= alpha:
        need += 1
    if need > draws.a.size:  # even the most favourable null is rejected
        return math.nan, math.nan
    reach = _reach(draws, se)  # (m,) beyond |d| = reach a draw never counts
    order = np.argsort(-reach, kind="stable")
    draws, reach = _take(draws, order), reach[order]  # largest reach first
    t_max = float(reach[need - 1]) / se  # beyond it fewer than `need` draws can count: rejected
    grid = _grid(t_max)  # (K,) |t| from 0 to t_max
    counts = _exceed(draws, se, np.concatenate([grid, -grid]) * se, reach).reshape(2, -1)
    ends = []
    for side, sign in zip(counts, (1.0, -1.0), strict=True):
        accepted = np.flatnonzero(side >= need)
        if accepted.size == 0:
            return math.nan, math.nan
        j = accepted[-1]
        if j + 1 == grid.size:  # only if t_max were infinite: no bound, no end
            ends.append(math.inf)
            continue
        ends.append(se * _bisect(draws, reach, se, sign, grid[j], grid[j + 1], need))
    return ends[0], ends[1]  # d = estimate - null > 0 lies below the estimate


def _reach(draws: _Draws, se: float) -> np.ndarray:
    """For each draw, a ``|d|`` beyond which it cannot have ``|t*| > |t|``; the smaller of two bounds.

    (1) ``t*^2 <= u' D^-1 u / k`` (Cauchy-Schwarz), so ``|d| >= se * sqrt(u' D^-1 u / k)`` is out;
    used only where ``D`` is well conditioned. (2) ``|t*| > |t|`` means the quartic
    ``se^2 (a + b d)^2 - k d^2 (p2 + 2 pq d + q2 d^2)`` is positive; its leading coefficient is
    negative, so beyond Fujiwara's bound on its roots it is not. A 1e-6 margin covers rounding.
    """
    a, b, p2, pq, q2, k = draws.a, draws.b, draws.p2, draws.pq, draws.q2, draws.k
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        det = p2 * q2 - pq * pq
        quad = (a * a * q2 - 2.0 * a * b * pq + b * b * p2) / det  # u' D^-1 u
        rayleigh = np.where(det > 1e-8 * p2 * q2, se * np.sqrt(np.abs(quad) / k), np.inf)
        c4 = k * q2  # |leading coefficient|; the others follow Fujiwara 1916
        fujiwara = 2.0 * np.maximum.reduce([
            np.abs(2.0 * k * pq / c4),
            np.sqrt(np.abs(se * se * b * b - k * p2) / c4),
            np.cbrt(np.abs(2.0 * se * se * a * b) / c4),
            np.sqrt(np.sqrt(se * se * a * a / (2.0 * c4))),
        ])
    return (1.0 + 1e-6) * np.fmin(rayleigh, np.where(c4 > 0.0, fujiwara, np.inf))

def _grid(t_max: float) -> np.ndarray:
    """``|t|`` values to scan: 0 to 8 in steps of at most 0.05, then 5% steps to ``t_max`` (included)."""
    top = min(t_max, _GRID_LINEAR)
    linear = np.linspace(0.0, top, max(2, math.ceil(top / _GRID_STEP) + 1))
    if t_max <= _GRID_LINEAR or not math.isfinite(t_max):
        return linear
    steps = math.ceil(math.log(t_max / _GRID_LINEAR) / math.log(_GRID_RATIO))
    return np.concatenate([linear, np.geomspace(_GRID_LINEAR, t_max, steps + 1)[1:]])


def _bisect(
    draws: _Draws, reach: np.ndarray, se: float, sign: float, lo: float, hi: float, need: int
) -> float:
    """The boundary between accepted ``lo`` and rejected ``hi`` (in ``|t|`` units) to 1e-12 SE."""
    while hi - lo > _BISECT_TOL * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _exceed(draws, se, np.array([sign * se * mid]), reach)[0] >= need:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
