"""Tango's k-section bracket in plain floats from the statistic's threshold (private): every step of the k-section
of :func:`~evalstats_core.pair_proportions.paired_proportion_ci` counted from a few values of the statistic near
its root, to the last bit.

The k-section cuts the bracket ``[lo, hi]`` at the 63 trial points ``lo + width * (k / 64)`` and counts those where
Tango's statistic, computed in doubles, exceeds the target; the new bracket is the count's cell. The computed
statistic decreases in ``delta`` except within its rounding of the root. So, with the root ``r`` found in floats and
the running error bound ``E`` of :func:`~evalstats_core._tango_band.z_error_bound` over a narrow bracket around it,
a double ``x_l <= r`` whose computed statistic exceeds the target by more than ``2 E`` is a point above which (to its
left) every point counts, and a double ``x_r >= r`` below the target by ``2 E`` one right of which none does
(the argument of :func:`~evalstats_core._tango_band.band_steps`). The few doubles strictly between (usually none or
one at 1e6 questions) are computed once, with :func:`~evalstats_core._pair_batch._z_float`'s operations. Every step's
count then follows from where its trial points fall against those doubles (the trial points grow with ``k``), with
no other evaluation of the statistic: 11 steps for the price of a few evaluations. Points farther from ``r`` than
the bound's bracket are counted by their side of ``r``, as :func:`~evalstats_core._pair_batch._ahead_path` counts
those beyond its noise window (the bracket is at least four windows wide). When the root, the bound or the sure
points are not found, or too many doubles lie between, :func:`threshold_path` gives None and the caller takes the
slower path (:func:`~evalstats_core._pair_batch._tango_path`).

======================  ================================================================================
:func:`threshold_path`  the brackets of the k-section's 11 steps of 64 points, or None
:func:`float_root`      the root of a decreasing function in floats (Illinois), with a first guess
:func:`wald_guess`      the Wald limit: a first guess of Tango's
======================  ================================================================================

References
----------
Tango 1998, Statistics in Medicine 17(8), 891-908 (the statistic). Higham 2002, "Accuracy and Stability of
Numerical Algorithms", 2nd ed., SIAM, ch. 3 (the running error bound).
"""

from __future__ import annotations

import math
from typing import Any

from ._tango_band import z_error_bound, z_of

__all__ = ["float_root", "threshold_path", "wald_guess"]

_U = 2.0**-53  # unit roundoff of float64
_POINTS = 64  # trial points per step (as _ksection._POINTS and the Tango k-section)
_STEPS = 11  # steps of 64 points for 64 bits (as _pair_batch._STEPS)
_NEAR = 1e-12  # _pair_batch._NEAR: the noise window of the float root, times 1 + 1 / (1 - |r|)
_MOST = 64  # doubles between the sure points computed at most; more: None (the slower path)
_TRIES = 60  # doublings of the distance from the root while looking for a sure point


def wald_guess(b: float, c: float, n: float, z: float) -> float:
    """The Wald limit ``d + z sqrt((b + c)/n - d^2) / sqrt(n)``: a first guess of Tango's."""
    d = (b - c) / n
    return d + z * math.sqrt(max((b + c) / n - d * d, 1.0 / n) / n)


def float_root(f: Any, lo: float, hi: float, guess: float | None, at_d: float | None = None) -> float | None:
    """The root of the decreasing ``f`` in ``[lo, hi]`` to about 1e-15 (Illinois regula falsi, the bracket first
    cut at ``guess``), or None when ``f`` does not change sign there from positive to negative (halving where
    ``f`` is infinite; ``at_d``: the value at an end where ``f`` is 0/0, the estimate d)."""
    f_lo, f_hi = f(lo), f(hi)
    if math.isnan(f_lo) and at_d is not None:  # 0/0 at d (no discordant answer): Z(d) = 0 there
        f_lo = at_d
    if math.isnan(f_hi) and at_d is not None:
        f_hi = at_d
    if not f_lo > 0.0 > f_hi:  # nan too
        return None
    if guess is not None and lo < guess < hi:
        f_guess = f(guess)
        if math.isnan(f_guess):
            return None
        if f_guess > 0.0:
            lo, f_lo = guess, f_guess
        else:
            hi, f_hi = guess, f_guess
    side = 0
    for _ in range(200):
        tol = 1e-15 * max(1.0, abs(lo))
        if hi - lo <= tol:
            break
        x = hi - f_hi * (hi - lo) / (f_hi - f_lo) if math.isfinite(f_lo - f_hi) else 0.5 * (lo + hi)
        if not lo < x < hi:  # halving; near the root (the secant within rounding of an end), just inside that end
            x = (0.5 * (lo + hi) if hi - lo > 1e9 * tol or x != x else hi - 0.5 * tol if x >= hi else lo + 0.5 * tol)
        fx = f(x)
        if math.isnan(fx):
            return None
        if fx > 0.0:
            lo, f_lo = x, fx
            if side == -1:
                f_hi *= 0.5
            side = -1
        elif fx < 0.0:
            hi, f_hi = x, fx
            if side == 1:
                f_lo *= 0.5
            side = 1
        else:
            return x
    return 0.5 * (lo + hi)


def _sure(z: Any, aim: float, r: float, side: float, start: float, margin: float, limit: float) -> float | None:
    """A double on ``side`` (-1: left, 1: right) of ``r``, ``start`` from it or farther, inside ``limit``, where the
    computed statistic is surely above ``aim`` (left) or surely not (right) by ``margin`` (and the comparison's
    rounding, as :func:`~evalstats_core._tango_band._count`); None when there is none within :data:`_TRIES`
    doublings of the distance."""
    step = max(start, math.ulp(r))
    for _ in range(_TRIES):
        x = r + side * step
        if (x < limit) if side < 0 else (x > limit):
            return None
        v = z(x)
        if not math.isfinite(v):
            return None
        gap = (v - aim) if side < 0 else (aim - v)
        edge = margin + 4.0 * _U * abs(v)
        if gap > edge or (side > 0 and gap == edge):
            return x
        step *= 2.0
    return None


def _secant_root(z: Any, aim: float, lo: float, hi: float, guess: float) -> float | None:
    """The root of ``z(x) = aim`` by the secant method from ``guess`` (no bracket kept: a few evaluations fewer
    than :func:`float_root`), to about 1e-12 of it; None when a step leaves ``(lo, hi)``, a value is not finite or
    it has not settled in 12 steps (then :func:`float_root`). Where the root lies is checked afterwards, by the
    sure points on each side of it."""
    if not lo < guess < hi:
        return None
    x0, f0 = guess, z(guess) - aim
    x1 = min(max(guess + (1e-6 if f0 > 0.0 else -1e-6) * (hi - lo), lo), hi)  # towards the root (z decreases)
    f1 = z(x1) - aim
    for _ in range(12):
        if not (math.isfinite(f0) and math.isfinite(f1)) or f1 == f0:
            return None
        x0, f0, x1 = x1, f1, x1 - f1 * (x1 - x0) / (f1 - f0)
        if not lo < x1 < hi:
            return None
        if abs(x1 - x0) <= 1e-12 * (1.0 + abs(x1)):
            return x1
        f1 = z(x1) - aim
    return None


def threshold_path(b: float, c: float, n: float, cc: float, aim: float, lo: float,
                   hi: float) -> list[tuple[float, float]] | None:
    """The brackets ``(lo, hi)`` of the k-section of ``Z(x) > aim`` from ``[lo, hi]`` (Tango's statistic of the
    counts ``b``, ``c`` of ``n``, correction ``cc``), the first and one after each of its 11 steps of 64 trial
    points, each step's count of trial points as the k-section counts them; None when this path cannot tell (see
    the module)."""
    z = z_of(b, c, n, cc)
    r = _secant_root(z, aim, lo, hi, wald_guess(b, c, n, -aim))
    if r is None:
        r = float_root(lambda x: z(x) - aim, lo, hi, wald_guess(b, c, n, -aim), -aim)
        if r is None:
            return None
    window = _NEAR * (1.0 + 1.0 / max(1.0 - abs(r), 1e-300))
    half = 4.0 * window  # the bound's bracket: every point the float root's noise window could hold, and more
    b_lo, b_hi = max(lo, r - half), min(hi, r + half)  # at an end of the k-section's bracket: no point beyond
    err = z_error_bound(b, c, n, b_lo, b_hi, cc)
    if err is None or not math.isfinite(err):
        return None
    margin = 2.0 * err + 4.0 * _U * abs(aim)
    slope = (z(b_lo) - z(b_hi)) / (b_hi - b_lo)  # |dZ/dx| near the root, to place the band
    if not (slope > 0.0 and math.isfinite(slope)):
        return None
    at = r + (z(r) - aim) / slope  # one secant step: the root to about an ulp
    if not b_lo < at < b_hi:
        return None
    left = _sure(z, aim, at, -1.0, margin / slope, margin, b_lo)
    right = None if left is None else _sure(z, aim, at, 1.0, margin / slope, margin, b_hi)
    if right is None:
        return None
    seen: dict[float, bool] = {}  # the doubles strictly between the sure points that a trial point fell on
    last = _POINTS - 1
    path = [(lo, hi)]
    for _ in range(_STEPS):
        width = hi - lo
        count = _at_most(left, lo, width)  # every trial point up to the sure left point counts
        k = count + 1
        while k <= last:  # the trial points between the sure ones, one run of equal doubles at a time
            x = lo + width * (k / _POINTS)
            if x >= right:
                break
            counts = seen.get(x)
            if counts is None:
                if len(seen) >= _MOST:
                    return None
                v = z(x)
                if not math.isfinite(v):
                    return None
                counts = seen[x] = v > aim
            upto = k if k == last or lo + width * ((k + 1) / _POINTS) > x else _at_most(x, lo, width)  # last equal to x
            if counts:
                count += upto - k + 1
            k = upto + 1
        lo, hi = lo + width * (count / _POINTS), lo + width * ((count + 1) / _POINTS)
        path.append((lo, hi))
    return path


def _at_most(t: float, lo: float, width: float) -> int:
    """How many of the trial points ``lo + width * (k / 64)``, ``k = 1 .. 63``, are at most ``t`` (they grow with
    ``k``: a first count from the division, made exact by comparing the trial points themselves)."""
    last = _POINTS - 1
    if not width > 0.0:
        return last if lo <= t else 0
    k = (t - lo) / width * _POINTS
    k = 0 if not k > 0.0 else last if k >= last else int(k)
    while k < last and lo + width * ((k + 1) / _POINTS) <= t:
        k += 1
    while k > 0 and lo + width * (k / _POINTS) > t:
        k -= 1
    return k
