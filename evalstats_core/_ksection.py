"""Root brackets by k-section: a monotone condition evaluated at many points of each bracket at once.

Bisection halves a bracket per call of the condition; with numpy, a call on a handful of values costs
about as much as a call on dozens, so for one interval (the CLI's and the workbench's case) cutting each
bracket into ``points`` parts per call needs ``64 / log2(points)`` calls instead of 64. Arrays of many
files (the coverage simulations) keep plain bisection: there each call's cost grows with its size.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["ksection"]

_SMALL = 16  # brackets up to this many are cut into _POINTS parts per call, larger arrays are bisected
_POINTS = 64


def ksection(left_of_root: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray, *,
             bits: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Shrink the brackets ``[lo, hi]`` (arrays of one shape) of the roots of a monotone condition.

    ``left_of_root(x)`` is True left of each root and False right of it; ``x`` has a leading axis of
    trial points before the brackets' shape. Returns the brackets after they have shrunk by ``2**-bits``
    (at least), the root between them.

    Examples
    --------
    >>> lo, hi = ksection(lambda x: x * x < 2.0, np.array([1.0]), np.array([2.0]))
    >>> abs(float(hi[0]) - 2.0 ** 0.5) < 1e-15
    True
    """
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    points = _POINTS if lo.size <= _SMALL else 2
    steps = np.arange(1, points, dtype=np.float64).reshape((-1,) + (1,) * lo.ndim) / points
    for _ in range(math.ceil(bits / math.log2(points))):
        width = hi - lo
        below = np.count_nonzero(left_of_root(lo + width * steps), axis=0)  # trial points left of the root
        lo, hi = lo + width * (below / points), lo + width * ((below + 1) / points)
    return lo, hi
