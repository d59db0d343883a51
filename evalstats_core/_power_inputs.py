"""Checked inputs of the power formulas (:mod:`evalstats_core.power`, :mod:`evalstats_core.power_t`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtri

from ._validate import check_finite as _finite
from ._validate import check_probability
from .errors import EvalStatsError


def _plan_variance(omega2: Any, sigma2_a: Any, sigma2_b: Any, k_a: Any, k_b: Any) -> float:
    """``omega2 + sigma2_a/k_a + sigma2_b/k_b`` after checking each input (Eq. 9's numerator)."""
    values = {}
    for name, v in (("omega2", omega2), ("sigma2_a", sigma2_a), ("sigma2_b", sigma2_b)):
        x = _finite(v, name)
        if x < 0.0:
            raise EvalStatsError(f"{name} ({x!r}) must be >= 0: it is a variance")
        values[name] = x
    for name, v in (("k_a", k_a), ("k_b", k_b)):
        x = _finite(v, name)
        if x < 1.0:
            raise EvalStatsError(f"{name} ({x!r}) must be >= 1 answer per question")
        values[name] = x
    var = values["omega2"] + values["sigma2_a"] / values["k_a"] + values["sigma2_b"] / values["k_b"]
    if var == 0.0:
        raise EvalStatsError(
            "omega2 + sigma2_a/k_a + sigma2_b/k_b is 0: without noise any n detects any effect; "
            "give a positive omega2 (e.g. 1/9) or conditional variances"
        )
    return var


def _z_sum(alpha: Any, power: Any) -> float:
    a = check_probability(alpha, "alpha")
    p = check_probability(power, "power")
    return float(ndtri(1.0 - a / 2.0)) + float(ndtri(p))  # z_{alpha/2} + z_beta


def _positive(value: Any, name: str, hint: str) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    bad = ~(np.isfinite(arr) & (arr > 0.0))
    if bad.any():
        raise EvalStatsError(f"{name} ({float(arr[bad].ravel()[0])!r}) must be a finite number > 0; {hint}")
    return arr
