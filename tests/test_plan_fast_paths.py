"""The shortcuts that keep the workbench's why and plan sections fast on big files give the slow forms' numbers:
integer cluster codes made dense by counting (``decomposition._codes``), cluster sizes grouped once
(``plan_spread.SizeMix``) for the Imhof inversion and the two-moment sums of ``SSB``, and a pair's columns taken as they
are when the pair shares every question (``breakdown``)."""

import numpy as np
import pandas as pd
import pytest

from evalstats_core.breakdown import cluster_breakdown, disagreements
from evalstats_core.data import load, question_scores
from evalstats_core.decomposition import _codes
from evalstats_core.plan_spread import (  # moved from pilot (issue 38)
    GROUPED_FROM,
    _between_sum_cdf,
    _ssb_moments,
    size_mix,
)


@pytest.mark.parametrize("labels", [np.array([7, 3, 3, 9, 0, 7]), np.array([2, 2, 5]), np.arange(4)[::-1].copy()])
def test_integer_codes_by_counting_are_np_unique_inverse(labels):
    """Integer labels with gaps get np.unique's codes 0..G-1 (sorted order) and G, as strings of them do."""
    uniq, inv = np.unique(labels, return_inverse=True)
    codes, g = _codes(labels, "clusters", labels.size)
    assert g == uniq.size and codes.dtype == np.intp
    np.testing.assert_array_equal(codes, inv)
    assert _codes(labels.astype(str), "clusters", labels.size)[1] == g


def test_grouped_sizes_give_the_same_distribution_and_moments():
    """The Imhof inversion reads the grouped sizes bit for bit as before; the two-moment sums summed per distinct size
    (from GROUPED_FROM clusters on) agree with the per-cluster sums to rounding."""
    rng = np.random.default_rng(3)
    few = np.array([40.0, 10.0, 10.0, 25.0])
    assert _between_sum_cdf(2.0, few, 0.02, 0.16) == _between_sum_cdf(2.0, size_mix(few), 0.02, 0.16)
    many = rng.choice([2.0, 5.0, 20.0, 21.0], GROUPED_FROM + 500)
    mix = size_mix(many)
    assert mix.size.tolist() == [2.0, 5.0, 20.0, 21.0] and int(mix.count.sum()) == many.size
    n = float(many.sum())
    for var_c in (0.0, 0.003, 0.05):
        v = var_c + 0.2 / many
        d, b2 = many * v, many * many * v / n  # per cluster, the formula as written
        b = float(b2.sum())
        assert _ssb_moments(mix, 0.2, var_c) == pytest.approx((float(d.sum() - b), float(d @ d - 2.0 * d @ b2 + b * b)),
                                                              rel=1e-12)


def _slow_breakdown(table, model, baseline):
    """Per-cluster means of each model and the pair's difference over the pair's shared questions, with pandas."""
    i, j = table.models.index(model), table.models.index(baseline)
    rows = table.answered[:, i] & table.answered[:, j]
    frame = pd.DataFrame(table.scores[rows], columns=list(table.models))
    frame["cluster"], frame["diff"] = np.asarray(table.clusters)[table.cluster_codes[rows]], frame[model] - frame[baseline]
    return frame.groupby("cluster").mean()


@pytest.mark.parametrize("pair", [("A", "B"), ("A", "C")])
def test_breakdown_and_disagreements_with_and_without_every_question_shared(pair):
    """A and B share every question (the columns as they are), A and C share some (gathered): both give pandas'
    per-cluster means over the shared questions and the disagreements counted by hand."""
    rng = np.random.default_rng(5)
    lines = ["question,model,score,cluster"]
    for q in range(60):
        for m in "ABC":
            if m == "C" and q % 7 == 3:
                continue  # C leaves some questions out
            lines.append(f"q{q},{m},{int(rng.random() < 0.6)},g{q % 6}")
    table = question_scores(load(("\n".join(lines) + "\n").encode()))
    got = cluster_breakdown(table, *pair).set_index("cluster").sort_index()
    slow = _slow_breakdown(table, *pair)
    np.testing.assert_allclose(got[list(table.models)].to_numpy(), slow[list(table.models)].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(got["diff"].to_numpy(), slow["diff"].to_numpy(), rtol=1e-12, atol=1e-15)
    i, j = table.models.index(pair[0]), table.models.index(pair[1])
    shared = table.answered[:, i] & table.answered[:, j]
    differ = int((table.scores[shared, i] != table.scores[shared, j]).sum())
    assert disagreements(table, *pair).attrs["total"] == differ == len(disagreements(table, *pair))
