"""The float copies of formulas kept beside their numpy versions for speed give the same doubles, over a sweep.

One formula is written twice on purpose (a change to one must be made in its twin):

- a 0/1 pair's co-moment and sum of squares of the difference:
  :func:`evalstats_core._sums_groups.binary_pair_moments` (numpy) and its one-group copy in floats in
  :func:`evalstats_core._estimate.binary_comparison`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core import _estimate
from evalstats_core._sums_groups import binary_pair_moments
from evalstats_core.comparison import compare


@st.composite
def _pair_counts(draw):
    """Two 0/1 columns on ``n`` questions from their counts: A's ones, B's ones and the questions both got right."""
    n = draw(st.sampled_from([2, 3, 10, 1000, 100_000]) | st.integers(2, 5000))
    ones_a = draw(st.integers(0, n))
    both = draw(st.integers(0, ones_a))
    ones_b = both + draw(st.integers(0, n - ones_a))
    clusters = draw(st.sampled_from([None, 2, 7]))
    return n, ones_a, ones_b, both, clusters


@settings(max_examples=300, deadline=None)
@given(_pair_counts())
def test_binary_comparison_moments_are_binary_pair_moments(counts):
    """binary_comparison's co-moment and sum of squares of a - b (plain floats, one group) are
    binary_pair_moments' doubles for the same counts (one group, as file_sums passes them)."""
    n, ones_a, ones_b, both, clusters = counts
    xa = np.zeros(n)
    xa[:ones_a] = 1.0
    xb = np.zeros(n)
    xb[:both] = 1.0
    xb[ones_a:ones_a + ones_b - both] = 1.0  # B's other ones where A has none
    labels = None if clusters is None else np.arange(n) % clusters
    seen = []
    real = _estimate.comparison_from_moments

    def spy(*args, **kwargs):
        seen.append((args[4], args[5]))  # (ssa, ssb, ssd, cov) and (only A right, only B right)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few clusters
        mp.setattr(_estimate, "comparison_from_moments", spy)
        compare(xa, xb, labels)
    (_, _, ssd, cov), only = seen[-1]
    only_a, only_b, co, m2d = binary_pair_moments(np.array([float(both)]), np.array([float(ones_a)]),
                                                  np.array([float(ones_b)]), np.array([n], dtype=np.int64))
    assert only == (int(only_a[0]), int(only_b[0])) == (ones_a - both, ones_b - both)
    assert (repr(cov), repr(ssd)) == (repr(float(co[0])), repr(float(m2d[0]))), counts
