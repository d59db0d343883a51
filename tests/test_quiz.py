"""Quizzes that test understanding: shuffled per reader, right answers spread over the positions, the
right option not given away by its length, progress kept across reloads (issue 24, item 10)."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest

from evalstats_app import quiz as qz
from evalstats_app.content import Quiz

READERS = [f"{i:08x}" for i in range(0, 40_000, 97)]  # 413 reader ids


def test_every_quiz_is_loaded_and_has_an_explanation():
    quizzes = qz.all_quizzes()
    assert len(quizzes) >= 18
    for key, q in quizzes.items():
        assert 0 <= q.answer < len(q.options), key
        assert len(set(q.options)) == len(q.options), key
        assert len(q.explanation.split()) >= 12, key  # the reasoning lives in the explanation


@pytest.mark.parametrize("reader", READERS[:60])
def test_right_answer_positions_are_balanced_for_every_reader(reader):
    """Over all quizzes with k options, each position holds the right answer equally often (within one)."""
    positions = qz.answer_positions(reader)
    by_size: dict[int, Counter] = {}
    for key, q in qz.all_quizzes().items():
        order = qz.option_order(q, key, reader)
        shown_at = order.index(q.answer)
        assert shown_at == positions[key]
        by_size.setdefault(len(q.options), Counter())[shown_at] += 1
    for k, counts in by_size.items():
        full = [counts.get(i, 0) for i in range(k)]
        assert max(full) - min(full) <= 1, (reader, k, full)


def test_each_quiz_puts_its_answer_everywhere_across_readers():
    """No quiz has a favourite position: over 413 readers each position gets 15% to 35% of them (4 options)."""
    for key, q in qz.all_quizzes().items():
        counts = Counter(qz.option_order(q, key, r).index(q.answer) for r in READERS)
        k = len(q.options)
        for i in range(k):
            share = counts.get(i, 0) / len(READERS)
            assert abs(share - 1 / k) < 0.1, (key, dict(counts))


def test_order_is_a_stable_permutation_and_differs_between_readers():
    for key, q in qz.all_quizzes().items():
        orders = {qz.option_order(q, key, r) for r in READERS[:50]}
        for order in orders:
            assert sorted(order) == list(range(len(q.options)))
        assert len(orders) >= 6, key  # shuffled, not rotated
        assert qz.option_order(q, key, "0a1b2c3d") == qz.option_order(q, key, "0a1b2c3d")


def test_the_right_option_is_not_given_away_by_its_length():
    """The right option is the single longest in at most a quarter of the quizzes, and never much longer
    than the wrong ones (at most 1.3 times their mean length)."""
    quizzes = qz.all_quizzes()
    longest = []
    for key, q in quizzes.items():
        lengths = [len(o) for o in q.options]
        wrong = [n for i, n in enumerate(lengths) if i != q.answer]
        if lengths[q.answer] > max(wrong):
            longest.append(key)
        assert lengths[q.answer] <= 1.3 * statistics.mean(wrong), (key, lengths)
    assert len(longest) <= len(quizzes) // 4, longest


def test_right_answers_in_the_content_files_are_spread_too():
    """Even unshuffled (a printout of a content file), no index holds more than half the answers."""
    counts = Counter(q.answer for q in qz.all_quizzes().values())
    assert max(counts.values()) <= len(qz.all_quizzes()) // 2, counts


def test_cookie_round_trip_recomputes_correctness():
    quizzes = qz.all_quizzes()
    key, q = next(iter(quizzes.items()))
    wrong = (q.answer + 1) % len(q.options)
    text = qz.encode("deadbeef", {key: (wrong, True)})  # a forged "correct" flag is not stored
    reader, answers = qz.decode(text)
    assert reader == "deadbeef"
    assert answers == {key: (wrong, False)}
    right = qz.decode(qz.encode("deadbeef", {key: (q.answer, False)}))[1]
    assert right == {key: (q.answer, True)}


@pytest.mark.parametrize("text", [
    None, 123, b"deadbeef", "", "x" * 5000, "not-a-reader", "DEADBEEF-problem_quiz0.1", "deadbeef-problem_quiz0.99",
    "deadbeef-nosuch_quiz0.1", "deadbeef-problem_quiz0.1;x=1", "deadbeef-<script>.1", "deadbeef--..-",
])
def test_a_bad_cookie_is_ignored_not_trusted(text):
    reader, answers = qz.decode(text)
    assert reader in (None, "deadbeef")
    for key, (index, correct) in answers.items():
        q = qz.all_quizzes()[key]
        assert index < len(q.options) and correct == (index == q.answer)
    assert "problem_quiz0" not in answers


def test_an_unknown_quiz_key_gets_a_seeded_position():
    q = Quiz("?", ("a", "b", "c"), 2, "because")
    order = qz.option_order(q, "elsewhere_quiz0", "01234567")
    assert sorted(order) == [0, 1, 2] and order == qz.option_order(q, "elsewhere_quiz0", "01234567")


def test_the_small_n_quiz_explanation_agrees_with_chapters_one_and_two_on_reruns():
    """2b's quiz 2: a rerun on fresh questions lands in this interval P(|Z| < 1.96/√2) of the time, about 83%
    (both scores vary around the truth), and a rerun on the same questions moves less (chapter 1), never
    "wider than the interval"."""
    from scipy.stats import norm

    text = qz.all_quizzes()["small_n_quiz1"].explanation
    share = 2 * norm.cdf(1.959964 / 2 ** 0.5) - 1
    assert f"about {share:.0%} of the time" in text
    assert "wider than the interval" not in text and "far less than the interval" in text
