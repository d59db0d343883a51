"""``centre``: the overall mean and each group's deviation, from integer or float counts, empty groups and no
answer included (its float counts are the doubles numpy casts integer counts to)."""

import numpy as np

from evalstats_core.sums import centre


def _same(a, b):
    return a[0] == b[0] and (a[1] == b[1] or (np.isnan(a[1]) and np.isnan(b[1]))) and np.array_equal(a[2], b[2])


def test_integer_and_float_counts_give_the_same_doubles():
    rng = np.random.default_rng(7)
    for size in (2, 3, 17, 1000, 10001):
        for empty in (False, True):
            count = rng.integers(1, 300, size)
            if empty:
                count[rng.random(size) < 0.3] = 0
            mean = rng.random(size) * rng.choice([1e-3, 1.0, 7.5])
            old_style = float(count @ (mean - float(mean[0])))  # int64 @ float64: numpy's cast, then the dot
            assert old_style == float(count.astype(np.float64) @ (mean - float(mean[0])))
            assert _same(centre(count, mean), centre(count.astype(np.float64), mean))


def test_empty_groups_and_other_totals():
    mean = np.array([0.2, 0.4, 0.9])
    a, b = np.array([5, 5, 5]), np.array([1, 0, 9])  # b has an empty group and another total
    got_a, got_b = centre(a, mean), centre(b, mean)
    assert got_a[0] == 15 and got_b[0] == 10 and got_b[2][1] == 0.0


def test_no_answer():
    assert centre(np.zeros(3, np.int64), np.full(3, np.nan))[0] == 0
