"""Ranking with uncertainty: compact letter display (Piepho 2004) and possible ranks."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core.errors import EvalStatsError
from evalstats_core.ranking import letter_display, rank_models


def _sig_matrix(m: int, flags: list[bool]) -> list[list[bool]]:
    sig = [[False] * m for _ in range(m)]
    for (i, j), f in zip(itertools.combinations(range(m), 2), flags, strict=False):
        sig[i][j] = sig[j][i] = f
    return sig


@st.composite
def significance(draw):
    m = draw(st.integers(1, 7))
    flags = draw(st.lists(st.booleans(), min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2))
    return m, _sig_matrix(m, flags)


@settings(max_examples=100, deadline=None)
@given(significance())
def test_letters_shared_exactly_when_not_significant(case):
    """The defining property of a letter display: two models share a letter iff they do not differ."""
    m, sig = case
    letters = letter_display(sig)
    assert len(letters) == m and all(letters)
    for i, j in itertools.combinations(range(m), 2):
        share = bool(set(letters[i]) & set(letters[j]))
        assert share == (not sig[i][j])


def test_letter_display_worked_example():
    """Four models: 1-2 and 2-3 tied, 3-4 tied, 1 differs from 3 and 4, 2 differs from 4 (Piepho's shape)."""
    sig = _sig_matrix(4, [False, True, True, False, True, False])  # pairs 01 02 03 12 13 23
    assert letter_display(sig) == ["a", "ab", "bc", "c"]


def test_no_differences_gives_one_group():
    r = rank_models({"A": 0.5, "B": 0.6, "C": 0.55}, [("A", "B", 0.2), ("A", "C", 0.9), ("B", "C", 0.4)])
    assert r.models == ("B", "C", "A")
    assert r.letters == ("a", "a", "a") and len(r.groups) == 1
    assert r.best_rank == (1, 1, 1) and r.worst_rank == (3, 3, 3)
    assert "None of the models can be told apart" in r.sentence()


def test_untested_and_nan_pairs_count_as_not_different():
    """Against a baseline only some pairs are tested; an untested pair never separates two models."""
    r = rank_models({"base": 0.5, "x": 0.7, "y": 0.69}, [("x", "base", 0.001), ("y", "base", float("nan"))])
    assert r.n_significant == 1
    letters = dict(zip(r.models, r.letters, strict=False))
    assert set(letters["x"]) & set(letters["y"])  # x vs y untested: tied
    assert set(letters["y"]) & set(letters["base"])  # NaN p: tied


def _brute_force_ranks(models, means, sig):
    """Smallest and largest position of each model over all orders that respect every significant pair."""
    lo = {m: len(models) for m in models}
    hi = {m: 1 for m in models}
    for order in itertools.permutations(models):
        pos = {m: k + 1 for k, m in enumerate(order)}
        ok = all(not sig[(a, b)] or (pos[a] < pos[b]) == (means[a] > means[b])
                 for a, b in itertools.combinations(models, 2))
        if ok:
            for m in models:
                lo[m], hi[m] = min(lo[m], pos[m]), max(hi[m], pos[m])
    return lo, hi


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=6, unique=True), st.data())
def test_possible_ranks_equal_brute_force_over_orders(means_list, data):
    """best/worst rank = min/max position over every order consistent with the significant pairs."""
    models = [f"m{i}" for i in range(len(means_list))]
    means = dict(zip(models, means_list, strict=False))
    pairs = list(itertools.combinations(models, 2))
    ps = data.draw(st.lists(st.sampled_from([0.001, 0.5]), min_size=len(pairs), max_size=len(pairs)))
    r = rank_models(means, [(a, b, p) for (a, b), p in zip(pairs, ps, strict=False)], alpha=0.05)
    sig = {}
    for (a, b), p in zip(pairs, ps, strict=False):
        sig[(a, b)] = sig[(b, a)] = p < 0.05
    lo, hi = _brute_force_ranks(models, means, sig)
    for m, b, w in zip(r.models, r.best_rank, r.worst_rank, strict=False):
        assert (b, w) == (lo[m], hi[m])


def test_chain_of_differences_is_transitive():
    """A > B and B > C significantly but A-C not tested: C still cannot be better than third."""
    r = rank_models({"A": 0.9, "B": 0.6, "C": 0.3}, [("A", "B", 0.01), ("B", "C", 0.01)])
    assert r.best_rank == (1, 2, 3) and r.worst_rank == (1, 2, 3)


def test_frame_and_sentence():
    r = rank_models({"A": 0.70, "B": 0.66, "C": 0.60}, [("A", "B", 0.30), ("A", "C", 0.01), ("B", "C", 0.20)])
    frame = r.to_frame()
    assert list(frame["group"]) == ["a", "ab", "b"]
    assert list(frame["possible_ranks"]) == ["1-2", "1-3", "2-3"]
    assert "group a: A, B (cannot be told apart)" in r.sentence()
    separated = rank_models({"A": 0.9, "B": 0.5}, [("A", "B", 0.001)])
    assert separated.sentence() == "Every pair can be told apart: A > B."


@pytest.mark.parametrize("means, pairs, message", [
    ({"A": 0.5, "A ": 0.4}, [], None),
    ({"A": float("nan"), "B": 0.4}, [], "finite"),
    ({"A": 0.5, "B": 0.4}, [("A", "Z", 0.01)], "'Z'"),
])
def test_bad_input(means, pairs, message):
    if message is None:  # names are distinct as given: allowed
        assert len(rank_models(means, pairs).models) == 2
        return
    with pytest.raises(EvalStatsError, match=message):
        rank_models(means, pairs)


def test_letter_display_rejects_bad_matrices():
    with pytest.raises(EvalStatsError, match="symmetric"):
        letter_display([[False, True], [False, False]])
    with pytest.raises(EvalStatsError, match="itself"):
        letter_display([[True]])
    with pytest.raises(EvalStatsError, match="square"):
        letter_display([[False, False], [False]])


def test_ranking_follows_the_tested_difference_on_shared_questions():
    """B skipped the 200 hard questions, so its overall mean (80%) beats A's (50%); on the 200 questions
    both answered A is right 95% of the time and B 80%, a significant difference. The ranking places A
    first, as the verdict does, never B on its mean over a different question set."""
    from evalstats_core.analysis import analyze
    from evalstats_core.data import load

    rows = ["question,model,score"]
    for i in range(200):  # easy questions, answered by both
        rows += [f"q{i},A,{int(i % 20 != 0)}", f"q{i},B,{int(i % 5 != 0)}"]
    for i in range(200, 400):  # hard questions, answered by A only
        rows.append(f"q{i},A,{int(i % 20 == 0)}")
    res = analyze(load("\n".join(rows).encode()))
    (c,) = res.comparisons
    assert res.model("B").mean > res.model("A").mean  # 0.80 > 0.50 over different question sets
    assert c.model == "B" and c.diff < 0 and c.p_adjusted < 0.05  # but B - A = -15 points on shared ones
    ranking = rank_models({m.model: m.mean for m in res.models},
                          [(c.model, c.baseline, c.p_adjusted, c.diff) for c in res.comparisons])
    assert ranking.models == ("A", "B") and ranking.best_rank == (1, 2) and ranking.worst_rank == (1, 2)
    # without the tested difference the means would decide, and contradict the verdict
    naive = rank_models({m.model: m.mean for m in res.models}, [(c.model, c.baseline, c.p_adjusted)])
    assert naive.models == ("B", "A")
