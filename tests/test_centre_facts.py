"""``centre`` with the count facts kept per count vector (perf13): the same doubles as without them, and each
count vector of one memo keeps its own facts."""

import numpy as np

from evalstats_core.sums import centre, centre_kept, count_facts  # _sums_merge merged into sums


def _same(a, b):
    return a[0] == b[0] and (a[1] == b[1] or (np.isnan(a[1]) and np.isnan(b[1]))) and np.array_equal(a[2], b[2])


def test_kept_facts_give_the_doubles_of_integer_counts_cast_by_numpy():
    rng = np.random.default_rng(7)
    for size in (2, 3, 17, 1000, 10001):
        for empty in (False, True):
            count = rng.integers(1, 300, size)
            if empty:
                count[rng.random(size) < 0.3] = 0
            mean = rng.random(size) * rng.choice([1e-3, 1.0, 7.5])
            old_style = float(count @ (mean - float(mean[0])))  # int64 @ float64: numpy's cast, then the dot
            assert old_style == float(count.astype(np.float64) @ (mean - float(mean[0])))
            assert _same(centre(count, mean), centre(count, mean, count_facts(count)))
            assert _same(centre(count, mean), centre_kept({}, count, mean))


def test_each_count_vector_keeps_its_own_facts():
    memo: dict = {}
    mean = np.array([0.2, 0.4, 0.9])
    a, b = np.array([5, 5, 5]), np.array([1, 0, 9])  # b has an empty group and another total
    got_a, got_b = centre_kept(memo, a, mean), centre_kept(memo, b, mean)
    assert _same(got_a, centre(a, mean)) and _same(got_b, centre(b, mean))
    assert got_a[0] == 15 and got_b[0] == 10 and got_b[2][1] == 0.0
    assert centre_kept(memo, a, mean) is got_a  # kept


def test_no_answer_and_float_counts():
    assert centre(np.zeros(3, np.int64), np.full(3, np.nan))[0] == 0
    count = np.array([2.0, 3.0, 0.0])
    facts = count_facts(count)
    assert facts[3] is count  # float counts are read as they are
    assert _same(centre(count, np.array([0.5, 1.0, 0.0])), centre(count, np.array([0.5, 1.0, 0.0]), facts))
