"""Validation helpers shared by the public functions (private: not part of the API).

Each helper either returns a clean value or raises :class:`~evalstats_core.errors.EvalStatsError`
with a message that repeats the bad value and names the fix.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import ndtri

from .errors import EvalStatsError

__all__ = [
    "as_number",
    "as_pair",
    "as_scores",
    "check_confidence",
    "check_finite",
    "check_open_unit",
    "check_positive_int",
    "check_probability",
    "check_unit",
    "z_for",
]


def as_scores(values: Any, name: str = "scores", *, min_n: int = 1) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array, rejecting NaN/inf, non-numeric and too-short input."""
    if np.iscomplexobj(values):  # float64 would drop the imaginary part without a word (issue 46)
        raise EvalStatsError(f"{name} are complex numbers; scores must be real numbers: pass their real part "
                             "(or their magnitude) yourself")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EvalStatsError(f"{name} must be numbers (got {type(values).__name__}): {exc}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise EvalStatsError(f"{name} must be one-dimensional (got shape {arr.shape}); pass one score per question")
    if arr.size < min_n:
        raise EvalStatsError(
            f"{name} has {arr.size} value(s) but at least {min_n} are needed; add more questions"
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise EvalStatsError(
            f"{name}[{i}] is {arr[i]!r}: every score must be a finite number; drop or fix that question"
        )
    return arr


def check_finite(value: Any, name: str) -> float:
    """Return ``value`` as a float; reject non-numbers, NaN and infinities."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise EvalStatsError(f"{name} ({value!r}) must be a number") from None
    if not math.isfinite(v):
        raise EvalStatsError(f"{name} ({value!r}) must be a finite number")
    return v


def check_confidence(confidence: float) -> float:
    """Check that ``confidence`` is strictly between 0 and 1."""
    try:
        c = float(confidence)
    except (TypeError, ValueError):
        raise EvalStatsError(f"confidence ({confidence!r}) must be a number such as 0.95") from None
    if not (0.0 < c < 1.0) or math.isnan(c):
        raise EvalStatsError(f"confidence ({confidence!r}) must be between 0 and 1 (exclusive); use e.g. 0.95")
    return c


def check_probability(value: float, name: str) -> float:
    """Check that ``value`` is strictly between 0 and 1 (alpha, power, ...)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise EvalStatsError(f"{name} ({value!r}) must be a number between 0 and 1") from None
    if not (0.0 < v < 1.0) or math.isnan(v):
        raise EvalStatsError(f"{name} ({value!r}) must be between 0 and 1 (exclusive)")
    return v


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Check that ``value`` is an integer >= ``minimum``."""
    try:
        iv = int(value)
    except (TypeError, ValueError):
        raise EvalStatsError(f"{name} ({value!r}) must be a whole number >= {minimum}") from None
    if iv != value or iv < minimum:
        raise EvalStatsError(f"{name} ({value!r}) must be a whole number >= {minimum}")
    return iv


def z_for(confidence: float) -> float:
    """Two-sided normal critical value: ``z_{1-(1-confidence)/2}`` (1.959964 for 0.95)."""
    c = check_confidence(confidence)
    return float(ndtri(0.5 + c / 2.0))


def as_number(value: Any, name: str) -> float:
    """Return ``value`` as a float; reject non-numbers and NaN (infinities pass: range checks follow)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise EvalStatsError(f"{name} ({value!r}) must be a number") from None
    if math.isnan(v):
        raise EvalStatsError(f"{name} ({value!r}) must be a number, not NaN")
    return v


def as_pair(value: Any, name: str) -> tuple[float, float]:
    """Return ``value`` as two floats, e.g. Beta parameters ``(a, b)`` or two means."""
    try:
        first, second = (float(v) for v in value)
    except (TypeError, ValueError):
        raise EvalStatsError(f"{name} ({value!r}) must be a pair of numbers") from None
    return first, second


def check_unit(value: Any, name: str) -> float:
    """Check that ``value`` lies in the closed interval [0, 1] (an ICC, a fixed accuracy)."""
    v = as_number(value, name)
    if not 0.0 <= v <= 1.0:
        raise EvalStatsError(f"{name} ({value!r}) must be between 0 and 1")
    return v


def check_open_unit(value: Any, name: str) -> float:
    """Check that ``value`` lies strictly between 0 and 1 (a mean accuracy that is not 0% or 100%)."""
    v = as_number(value, name)
    if not 0.0 < v < 1.0:
        raise EvalStatsError(f"{name} ({value!r}) must be strictly between 0 and 1")
    return v
