"""Small shared result types. Module-specific result dataclasses live beside their functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # numpy is not imported at run time: ``import evalstats_core`` stays fast
    import numpy as np

__all__ = ["Interval", "excludes_zero", "scalar_or_array"]


class Interval(NamedTuple):
    """A two-sided interval ``(low, high)`` in the units of the estimate (plain floats)."""

    low: float
    high: float


def excludes_zero(low: float, high: float) -> bool:
    """Whether the interval ``(low, high)`` lies wholly on one side of 0: the one test of "significant" (a two-sided
    test at the interval's level rejects no difference exactly then); False when either end is nan.

    >>> excludes_zero(0.01, 0.05), excludes_zero(-0.05, -0.01), excludes_zero(-0.01, 0.05), excludes_zero(float("nan"), 1.0)
    (True, True, False, False)
    """
    return bool(low > 0 or high < 0)


def scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    """A plain ``float`` for a 0-d result, else the array unchanged (vectorised functions' return)."""
    return float(arr) if arr.ndim == 0 else arr
