"""Issue 45: clustered paired 0/1 comparisons that are valid and not wasteful.

Item 3: a handful of disagreements in two or three clusters never gives a +-99-point interval; the rule is
bounded by the design's worst case (:func:`~evalstats_core.pair_proportions.worst_case_interval`).
"""

from __future__ import annotations

import numpy as np
import pytest

from evalstats_core import compare
from evalstats_core.cluster_means import kish_n
from evalstats_core.pair_proportions import binary_pair_interval, paired_proportion_ci, worst_case_interval

LABELS = np.repeat(np.arange(30), 20)  # 600 questions in 30 clusters of 20


def three_disagreements(where: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Two models right on all 600 questions but 6 both miss, and 3 disagreements at ``where``."""
    a, b = np.ones(600), np.ones(600)
    a[100:106] = b[100:106] = 0.0
    for i, who in where:
        (b if who == "a" else a)[i] = 0.0
    return a, b


@pytest.mark.parametrize("where", [[(5, "a"), (6, "a"), (45, "b")], [(5, "a"), (25, "a"), (26, "b")],
                                   [(5, "a"), (6, "b"), (45, "b")], [(5, "a"), (25, "b"), (45, "b")]])
def test_three_disagreements_in_two_or_three_clusters_give_a_bounded_interval(where):
    """The rule gave [-99.5, +99.8] points (t on 1 df, the MOVER's logit limits); now at most the worst case."""
    a, b = three_disagreements(where)
    c = compare(a, b, LABELS)
    only_a, only_b = int(c.only_a), int(c.only_b)
    w_low, w_high, _ = worst_case_interval(only_a, only_b, [20] * 30)
    assert c.ci_low >= w_low - 1e-12 and c.ci_high <= w_high + 1e-12
    assert c.ci_high - c.ci_low < 0.25  # was 1.99 (from -99.5 to +99.8 points)
    assert c.ci_low <= c.diff <= c.ci_high
    assert (c.p_value < 0.05) == (c.ci_low > 0 or c.ci_high < 0)
    # the bound is the rule without clusters on the counts scaled to the sizes' effective n (30 here)
    k = kish_n([20] * 30)
    assert k == pytest.approx(30.0)
    want = paired_proportion_ci(only_a * k / 600, only_b * k / 600, k, correction=(only_a + only_b) * k / 600 / 10)
    assert (w_low, w_high) == pytest.approx(tuple(want), abs=1e-12)


def test_worst_case_is_the_unclustered_rule_when_every_cluster_is_one_question():
    """Clusters of one question: the effective n is n and the bound is the rule without clusters."""
    low, high, p = worst_case_interval(12, 3, [1] * 200)
    got = binary_pair_interval(12, 3, 200, 0.02, 0.02, 199.0, None)
    assert (low, high, p) == pytest.approx(got[:3], abs=1e-12)


def test_the_bound_leaves_an_interval_inside_it_untouched():
    """Many disagreements spread over many clusters: the rule's interval lies inside the bound, unchanged."""
    rng = np.random.default_rng(45)
    labels = np.repeat(np.arange(40), 25)
    a = (rng.random(1000) < 0.7).astype(float)
    b = np.where(rng.random(1000) < 0.8, a, 1.0 - a)
    c = compare(a, b, labels)
    w_low, w_high, _ = worst_case_interval(c.only_a, c.only_b, [25] * 40)
    assert w_low < c.ci_low and c.ci_high < w_high
