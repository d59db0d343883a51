"""``ones_if_binary`` (the check every ``summarize``/``compare`` makes for 0/1 scores) against a plain reference:
the count of ones when every score is exactly 0 or 1, else None, wherever the odd score sits (in the first
scores it reads first, or past them)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core._clusters import _HEAD, ones_if_binary


def reference(x: np.ndarray) -> int | None:
    return int(x.sum()) if x.size and bool(np.all((x == 0.0) | (x == 1.0))) else None


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 3 * _HEAD), st.integers(0, 10**6), st.sampled_from([None, 0.5, -0.0, 2.0, np.nan, 1e-300]),
       st.floats(0.0, 1.0))
def test_ones_if_binary_equals_the_reference(n: int, seed: int, odd: float | None, where: float) -> None:
    x = (np.random.default_rng(seed).random(n) < 0.5).astype(np.float64)
    if odd is not None and n:
        x[min(int(where * n), n - 1)] = odd
    assert ones_if_binary(x) == reference(x)


def test_an_odd_score_just_past_the_first_ones_read_is_still_seen() -> None:
    x = np.ones(2 * _HEAD)
    x[_HEAD] = 0.75
    assert ones_if_binary(x) is None
    x[_HEAD] = 0.0
    assert ones_if_binary(x) == 2 * _HEAD - 1
