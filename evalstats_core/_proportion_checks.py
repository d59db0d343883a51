"""Checks of the arguments of :func:`evalstats_core.intervals.proportion_ci` and its array form (private).

Moved out of :mod:`evalstats_core.intervals` (which re-exports ``_check_method``): the interval's name, the
Beta prior, and the success / trial counts, each refused with one message naming the bad value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import EvalStatsError

#: The proportion interval methods (re-exported by :mod:`evalstats_core.intervals`).
PROPORTION_METHODS: tuple[str, ...] = ("wald", "wilson", "clopper_pearson", "bayes")

# names people reach for that we spell differently; the error message points to ours
_METHOD_HINTS = {
    "normal": "'wald' (the normal / CLT interval)",
    "clt": "'wald' (the normal / CLT interval)",
    "exact": "'clopper_pearson' (the exact interval)",
    "beta": "'clopper_pearson' (statsmodels calls it 'beta'); for the Beta posterior use 'bayes'",
    "jeffreys": "'bayes' with prior=(0.5, 0.5)",
    "wilsoncc": "'wilson' (no continuity correction is offered)",
}

def _check_method(interval: Any) -> str:
    if isinstance(interval, str) and interval in PROPORTION_METHODS:
        return interval
    valid = ", ".join(repr(m) for m in PROPORTION_METHODS)
    msg = f"interval ({interval!r}) must be one of {valid}"
    if isinstance(interval, str):
        key = interval.strip().lower().replace("-", "_")
        if key in PROPORTION_METHODS:
            msg += f"; interval names are lowercase, use {key!r}"
        elif key in _METHOD_HINTS:
            msg += f"; use {_METHOD_HINTS[key]}"
    raise EvalStatsError(msg)


def _check_prior(prior: Any) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise EvalStatsError(f"prior ({prior!r}) must be two numbers (a, b), e.g. (1.0, 1.0)") from None
    if not (a > 0.0 and b > 0.0 and math.isfinite(a) and math.isfinite(b)):
        raise EvalStatsError(
            f"prior ({prior!r}) must be two positive finite numbers (a, b); (1, 1) is uniform"
        )
    return a, b


def _as_counts(successes: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast ``successes`` and ``n`` to float64 arrays of whole numbers with 0 <= k <= n, n >= 1."""
    arrays = []
    for value, name in ((successes, "successes"), (n, "n")):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise EvalStatsError(f"{name} ({value!r}) must be whole numbers") from None
        bad = ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            i = _first(bad)
            raise EvalStatsError(f"{_label(name, arr, i)} ({float(arr[i])!r}) must be a whole number")
        arrays.append(arr)
    try:
        k, size = np.broadcast_arrays(*arrays)
    except ValueError:
        raise EvalStatsError(
            f"successes (shape {arrays[0].shape}) and n (shape {arrays[1].shape}) do not broadcast"
        ) from None

    def show(name: str, i: tuple[int, ...]) -> str:
        arr = k if name == "successes" else size
        return f"{_label(name, arrays[name == 'n'], i)} ({int(arr[i])})"

    if (size < 1).any():
        i = _first(size < 1)
        raise EvalStatsError(f"{show('n', i)} must be at least 1")
    if (k < 0).any():
        i = _first(k < 0)
        raise EvalStatsError(f"{show('successes', i)} must not be negative")
    if (k > size).any():
        i = _first(k > size)
        raise EvalStatsError(f"{show('successes', i)} must not be greater than {show('n', i)}")
    return k, size


def _first(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (``()`` for a 0-d mask)."""
    return tuple(int(j) for j in np.argwhere(mask)[0])


def _label(name: str, original: np.ndarray, index: tuple[int, ...]) -> str:
    """``name`` for a scalar input, ``name[i, j]`` (index in the broadcast shape) for an array."""
    return name if original.ndim == 0 else f"{name}[{', '.join(map(str, index))}]"
