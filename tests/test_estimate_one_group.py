"""One group's moments in Python floats (:func:`evalstats_core._estimate._moments` and
:func:`~evalstats_core._estimate.comparison_from` without clusters) are numpy's doubles to the last bit, zeros'
signs included: numpy's ``np.sum`` and dot of one element add it to 0.0."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core._estimate import _moments, _one_sum, comparison_from
from evalstats_core.sums import centre

values = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.0, -0.0, 1.0, 5e-324, 0.25]))


def bits(x: float) -> tuple[bool, float]:
    """A float with the sign of its zero."""
    return math.copysign(1.0, x) > 0, x


def numpy_moments(count: np.ndarray, mean: np.ndarray, m2: np.ndarray) -> tuple:
    """The array path of ``_moments`` (before one group took floats), for the reference."""
    n, overall, dev = centre(count, mean)
    used = count > 0
    s = count[used] * dev[used]
    return n, overall, s, max(0.0, float(np.sum(m2[used])) + float(s @ dev[used]))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**9), values, values)
def test_one_group_moments_are_numpys(n: int, mean: float, m2: float) -> None:
    count, mu, sq = np.array([n], np.int64), np.array([mean]), np.array([m2])
    got, want = _moments(count, mu, sq), numpy_moments(count, mu, sq)
    assert got[0] == want[0] and bits(got[1]) == bits(want[1]) and bits(got[3]) == bits(want[3])
    assert got[2].shape == want[2].shape == (1,) and bits(float(got[2][0])) == bits(float(want[2][0]))


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_one_sum_is_numpys_sum_and_dot(x: float, y: float) -> None:
    assert bits(_one_sum(x)) == bits(float(np.sum(np.array([x]))))
    assert bits(_one_sum(x * y)) == bits(float(np.array([x]) @ np.array([y])))


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10**7), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_one_group_pair_is_the_two_group_arithmetic(n: int, fa: float, fb: float, fboth: float) -> None:
    """A pair of 0/1 models on one group equals the same pair split into a group and an empty group (the array
    path, empty groups are skipped): every field of the comparison."""
    ka, kb = math.floor(fa * n), math.floor(fb * n)
    both = min(ka, kb, math.floor(fboth * min(ka, kb)))
    mean_a, mean_b = ka / n, kb / n
    m2a, m2b = ka * (n - ka) / n, kb * (n - kb) / n
    only_a, only_b = ka - both, kb - both
    disc, net = only_a + only_b, only_a - only_b
    co, m2d = (both * n - ka * kb) / n, (disc * n - net * net) / n

    def run(groups: int):
        pad = [0.0] * (groups - 1)
        arr = lambda v: np.array([v] + pad)  # noqa: E731 - the sums of one group, then empty ones
        return comparison_from(np.array([n] + [0] * (groups - 1), np.int64), arr(mean_a), arr(mean_b), arr(m2a),
                               arr(m2b), arr(m2d), arr(co), (only_a, only_b), paired=True, clustered=False,
                               confidence=0.95, method="cr2", interval="normal")

    one, two = run(1), run(2)
    assert repr(one) == repr(two)
