"""The last k-section steps of Tango's interval in plain floats, each trial point decided by a running error bound
(private; :func:`~evalstats_core._pair_batch._tango_path` hands it the narrow brackets).

The k-section of :func:`~evalstats_core._pair_batch._tango_ksection` counts, at each step, the trial points where
Tango's statistic, computed in doubles, exceeds the target. Its first steps are taken ahead in floats from a root
found in floats (:func:`~evalstats_core._pair_batch._ahead_path`); once the bracket is a few trial points wide
around that root, every point lies in that path's noise window, and the remaining steps were numpy's.
Here they are taken in floats too: over the (narrow) bracket, a running error analysis bounds how far the computed
statistic can lie from its exact value, ``E``. The exact statistic decreases in ``delta`` (the k-section's own
premise), so a trial point whose computed statistic exceeds the target by more than ``2 E`` has every trial point
left of it above the target when computed too, and one below the target by ``2 E`` every point right of it
below. Only the few points between (a few ulps of ``delta``) are computed, with the same operations in the same
order as the k-section (:func:`~evalstats_core._pair_batch._z_float`): the same counts, so the same brackets, to
the last bit. The steps where more than :data:`_MOST` trial points would be computed (few questions: a flat
statistic), or where no bound is found (a vanishing variance), are left to the numpy k-section.

References
----------
Higham 2002, "Accuracy and Stability of Numerical Algorithms", 2nd ed., SIAM, ch. 2-3 (the model
``fl(x op y) = (x op y)(1 + d), |d| <= u``, and running error bounds).
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["band_steps", "z_error_bound", "z_of"]

_U = 2.0**-53  # unit roundoff of float64
_SAFETY = 2.0  # the bound doubled: room for its own rounding and the second-order terms it leaves out
_MOST = 24  # distinct trial points computed per step at most; more: the step is left to the numpy k-section


def z_of(b: float, c: float, n: float, cc: float = 0.0) -> Callable[[float], float]:
    """``x -> _z_float(b, c, n, x, cc)`` (:func:`~evalstats_core._pair_batch._z_float`), the same doubles: the
    sub-expressions that do not hold ``x`` (``-b - c``, ``2 n - b + c``, ``8 n c``, ``4 n``, ``b - c``) are
    evaluated once, in the order ``_z_float`` evaluates them, and the rest as there."""
    bc, t3, q2, n4, d = -b - c, 2.0 * n - b + c, 8.0 * n * c, 4.0 * n, b - c

    def z(x: float) -> float:
        w = bc + t3 * x
        q = (math.sqrt(max(w * w + q2 * x * (1.0 - x), 0.0)) - w) / n4
        var = n * (2.0 * q + x * (1.0 - x))
        num = d - n * x
        if cc:  # np.sign(num) * np.maximum(np.abs(num) - cc, 0.0), as _tango_z
            num = (0.0 if num == 0.0 else math.copysign(1.0, num)) * max(abs(num) - cc, 0.0) if num == num else num
        return num / math.sqrt(var) if var > 0.0 else math.copysign(math.inf, num) if num else math.nan

    return z


def _sqrt_error(value: float, err: float) -> float:
    """A bound on ``|sqrt(max(s, 0)) - sqrt(max(t, 0))|`` for ``|s - t| <= err`` and ``max(s, t) >= value``
    (``|s - t| / (sqrt(s) + sqrt(t))``, and never above ``sqrt(err)``), before the square root's rounding."""
    return math.sqrt(err) if value <= 0.0 else min(math.sqrt(err), err / math.sqrt(value))


def _rounding(x: float, y: float) -> float:
    """The rounding error of ``x + y`` in floats, exactly (Knuth's TwoSum): 0 for whole counts below 2^53."""
    s = x + y
    t = s - x
    return (x - (s - t)) + (y - t)


def _product_error(x: float, y: float) -> float:
    """A bound on the rounding error of ``x * y`` in floats: 0 when the product of two whole numbers is a whole
    number below 2^53 (exact), else half an ulp of it."""
    p = x * y
    if abs(p) < 2.0**53 and x.is_integer() and y.is_integer():
        return 0.0 if int(x) * int(y) == int(p) else _U * abs(p)
    return _U * abs(p)


def _parts(b: float, c: float, n: float, x: float) -> tuple[float, ...]:
    """The intermediates of Tango's statistic at ``x`` in the order :func:`~evalstats_core._pair_batch._z_float`
    makes them: ``t4, w, p1, q3, om, q4, s, r1, r2, q, v2, v3, var, nx, num`` (no correction)."""
    t4 = (2.0 * n - b + c) * x
    w = -b - c + t4
    p1 = w * w
    q3 = 8.0 * n * c * x
    om = 1.0 - x
    q4 = q3 * om
    s = p1 + q4
    r1 = math.sqrt(max(s, 0.0))
    r2 = r1 - w
    q = r2 / (4.0 * n)
    v2 = x * om
    v3 = 2.0 * q + v2
    var = n * v3
    nx = n * x
    return t4, w, p1, q3, om, q4, s, r1, r2, q, v2, v3, var, nx, b - c - nx


def z_error_bound(b: float, c: float, n: float, lo: float, hi: float, cc: float = 0.0) -> float | None:
    """A bound on ``|Z_computed(x) - Z(x)|`` for every ``x`` in ``[lo, hi]``: Tango's statistic as
    :func:`~evalstats_core._pair_batch._z_float` computes it against its exact value; None when the variance or
    the square root's argument is not clearly positive over the bracket.

    A running error analysis (Higham 2002, ch. 3): each operation adds ``u`` times a bound of its result's
    magnitude over the bracket (the larger of its computed values at the two ends plus a bound of its derivative
    times the width; its own error is second order, in the safety factor) and propagates its operands' errors; the
    square roots' arguments are bounded below the same way (the smaller end, less the error and the derivative
    times the width). Derivatives are bounded by sums of magnitudes.
    """
    if not (n > 0.0 and b >= 0.0 and c >= 0.0 and cc >= 0.0 and math.isfinite(b + c + n + lo + hi + cc)
            and lo <= hi):
        return None
    u, width = _U, hi - lo
    p_lo, p_hi = _parts(b, c, n, lo), _parts(b, c, n, hi)
    # |intermediate i| over the bracket: max(|its value at lo|, |at hi|) + |its slope| * width, written out below
    # for each (a closure called 13 times was a third of this function's time)
    ax = max(abs(lo), abs(hi))
    t3 = 2.0 * n - b + c
    e_t3 = abs(_rounding(2.0 * n, -b)) + abs(_rounding(2.0 * n - b, c))  # constants: their exact rounding
    q2 = 8.0 * n * c
    m_w = max(abs(p_lo[1]), abs(p_hi[1])) + abs(t3) * width
    e_t4 = e_t3 * ax + u * (max(abs(p_lo[0]), abs(p_hi[0])) + abs(t3) * width)
    e_w = abs(_rounding(-b, -c)) + e_t4 + u * m_w  # w = (-b - c) + t4
    d_p1 = 2.0 * m_w * abs(t3)
    e_p1 = 2.0 * m_w * e_w + e_w * e_w + u * (max(abs(p_lo[2]), abs(p_hi[2])) + d_p1 * width)  # p1 = w w
    m_om = max(abs(p_lo[4]), abs(p_hi[4])) + 1.0 * width
    e_om = u * m_om  # om = 1 - x
    m_q3 = max(abs(p_lo[3]), abs(p_hi[3])) + q2 * width
    e_q3 = _product_error(8.0 * n, c) * ax + u * m_q3  # q3 = (8 n c) x
    d_q4 = q2 * (m_om + ax)
    e_q4 = e_q3 * m_om + m_q3 * e_om + e_q3 * e_om + u * (max(abs(p_lo[5]), abs(p_hi[5])) + d_q4 * width)  # q4
    d_s = d_p1 + d_q4
    e_s = e_p1 + e_q4 + u * (max(abs(p_lo[6]), abs(p_hi[6])) + d_s * width)  # s = p1 + q4
    s_min = min(p_lo[6], p_hi[6]) - d_s * width - e_s
    if not s_min > 0.0:
        return None
    d_r1 = d_s / (2.0 * math.sqrt(s_min))
    e_r1 = _sqrt_error(s_min, e_s) + u * (max(abs(p_lo[7]), abs(p_hi[7])) + d_r1 * width)  # r1 = sqrt(s)
    d_r2 = d_r1 + abs(t3)
    e_r2 = e_r1 + e_w + u * (max(abs(p_lo[8]), abs(p_hi[8])) + d_r2 * width)  # r2 = r1 - w
    d_q = d_r2 / (4.0 * n)
    e_q = e_r2 / (4.0 * n) + u * (max(abs(p_lo[9]), abs(p_hi[9])) + d_q * width)  # q = r2 / (4 n)
    d_v2 = m_om + ax
    e_v2 = ax * e_om + u * (max(abs(p_lo[10]), abs(p_hi[10])) + d_v2 * width)  # v2 = x om
    d_v3 = 2.0 * d_q + d_v2
    e_v3 = 2.0 * e_q + e_v2 + u * (max(abs(p_lo[11]), abs(p_hi[11])) + d_v3 * width)  # v3 = 2 q + v2
    d_var = n * d_v3
    m_var = max(abs(p_lo[12]), abs(p_hi[12])) + d_var * width
    e_var = n * e_v3 + u * m_var  # var = n v3
    var_min = min(p_lo[12], p_hi[12]) - d_var * width - e_var
    if not var_min > 0.0:
        return None
    m_num = max(abs(p_lo[14]), abs(p_hi[14])) + n * width
    e_num = abs(_rounding(b, -c)) + u * (max(abs(p_lo[13]), abs(p_hi[13])) + n * width) + u * m_num  # (b - c) - n x
    if cc:  # moved towards 0 by cc and not past it (1-Lipschitz): num's error and one more rounding
        e_num += u * (m_num + cc)
    sv = math.sqrt(var_min)
    e_sv = _sqrt_error(var_min, e_var) + u * math.sqrt(m_var + e_var)  # sqrt(var)
    if not sv > 2.0 * e_sv:
        return None
    # both square roots (computed and exact) are at least low_sv: |num_c / sv_c - num / sv| <= e_num / low_sv +
    # |num| e_sv / low_sv^2, and the division's rounding
    low_sv = sv - e_sv
    m_num += e_num
    return _SAFETY * (e_num / low_sv + m_num * e_sv / (low_sv * low_sv) + u * m_num / low_sv)


def band_steps(z: Callable[[float], float], target: float, lo: float, hi: float, *, root: float, steps: int,
               bound: Callable[[float, float], float | None], points: int) -> list[tuple[float, float]]:
    """The brackets of up to ``steps`` more k-section steps from ``[lo, hi]`` (``points`` trial points a step, the
    count of those where ``z(x) > target`` the new bracket's index, as the k-section): every step while the band
    holds at most :data:`_MOST` distinct trial points (the numpy k-section takes the rest).

    ``z`` is the statistic in the k-section's doubles, decreasing where exact; ``root`` its float root (where to
    look first); ``bound(lo, hi)`` the error bound over the bracket (:func:`z_error_bound`), found once: every
    later bracket lies inside this one. In the last steps many trial points are the same double: each is computed
    once (the trial points grow with their index, so equal ones are a run of indices). A step whose band would
    hold too many (its width in ``delta`` from the statistic's slope over the last step, against the step's
    spacing of trial points) is not begun.
    """
    err = bound(lo, hi)
    if err is None or not math.isfinite(err):
        return []
    margin = 2.0 * err + 4.0 * _U * abs(target)
    path: list[tuple[float, float]] = []
    slope = math.inf  # |dz/dx| near the root, from the last step's sure points
    for _ in range(steps):
        width = hi - lo
        spacing = max(width / points, math.ulp(root))
        if not width > 0.0 or min(2.0 * margin / slope, width) > _MOST * spacing:
            break
        got = _count(z, target, lo, width, points, min(max(int((root - lo) / width * points), 0), points - 1),
                     margin)
        if got is None:
            break
        count, slope = got
        lo, hi = lo + width * (count / points), lo + width * ((count + 1) / points)
        path.append((lo, hi))
    return path


def _count(z: Callable[[float], float], target: float, lo: float, width: float, points: int, below: int,
           margin: float) -> tuple[int, float] | None:
    """The count of trial points ``lo + width k / points`` (``k = 1 .. points - 1``) where ``z > target``: from
    ``below`` (the guess) left to a point surely above the target and right to one surely not, each point between
    computed (once per distinct double); None past :data:`_MOST` of them or at a value that is not finite. With the
    count, the slope of ``z`` between the two sure points (inf when there is none)."""
    seen: dict[float, float] = {}
    above = 0  # uncertain points (between the sure ones) above the target
    sure = []  # (x, z) of the sure point on each side
    for start, step, stop in ((below, -1, 0), (below + 1, 1, points)):
        k = start
        while k != stop:
            x = lo + width * (k / points)
            v = seen.get(x)
            if v is None:
                if len(seen) >= _MOST:
                    return None
                v = seen[x] = z(x)
                if not math.isfinite(v):
                    return None
            gap = v - target if step < 0 else target - v
            if gap > margin + 4.0 * _U * abs(v) or (step > 0 and gap == margin + 4.0 * _U * abs(v)):
                sure.append((x, v))  # surely above (left) / surely not above (right): so is every point beyond
                break
            end = k  # the run of indices with the same trial point (x grows with k): found by halving
            if k + step != stop and lo + width * ((k + step) / points) == x:
                far = stop - step
                while end != far:
                    mid = (end + far + (step > 0)) // 2
                    if lo + width * (mid / points) == x:
                        end = mid
                    else:
                        far = mid - step
            above += (abs(end - k) + 1) * (v > target)
            k = end + step
        if step < 0:
            left = k
    slope = math.inf
    if len(sure) == 2 and sure[1][0] > sure[0][0]:
        slope = (sure[0][1] - sure[1][1]) / (sure[1][0] - sure[0][0])
    return max(left, 0) + above, slope
