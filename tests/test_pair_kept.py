"""The clustered 0/1 pair rule's confidence-free part (issue 25): the discordant cells per cluster, the
disagreements' df and the MOVER's p-value at 0 are found once per :class:`~evalstats_core.sums.FileSums` and read
back by every later ``analyze_sums`` on the same sums (a new confidence level, adjustment or interval choice),
with the numbers of a fresh computation to the last bit."""

from __future__ import annotations

import numpy as np
import pytest
from test_sums import _fields_equal as same_analysis  # every field to the last bit, and the warnings

import evalstats_core.pair_proportions as pair_proportions
from evalstats_core.analysis import analyze_sums
from evalstats_core.data import QuestionTable
from evalstats_core.sums import file_sums


def bursty_table(n_q: int = 600, n_m: int = 4, n_c: int = 40, seed: int = 7) -> QuestionTable:
    """0/1 answers of ``n_m`` models in ``n_c`` clusters whose levels differ (so the two discordant cells of every
    pair are non-empty and spread: the MOVER is defined)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_c, n_q)
    level = rng.random(n_c)[codes]
    scores = (level[:, None] + 0.6 * rng.random((n_q, n_m)) > np.linspace(0.5, 0.8, n_m)).astype(float)
    return QuestionTable(
        name="t.csv", models=tuple(f"m{j}" for j in range(n_m)), questions=np.arange(n_q).astype(str),
        scores=scores, k=np.ones((n_q, n_m), np.int64), answered=np.ones((n_q, n_m), bool), cluster_codes=codes,
        clusters=np.array([f"c{i}" for i in range(n_c)], dtype=object), n_clusters=n_c, cluster_col="cluster",
        score_kind="binary")


@pytest.fixture
def calls(monkeypatch):
    """Counts of the calls of the per-cluster work that does not depend on the confidence level."""
    counts = {"discordant_cells": 0, "disagreement_df": 0, "cell_mover_ps": 0}

    def counted(module, name):
        inner = getattr(module, name)

        def wrapper(*args, **kwargs):
            counts[name] += 1
            return inner(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counted(pair_proportions, "discordant_cells")
    counted(pair_proportions, "disagreement_df")
    counted(pair_proportions, "cell_mover_ps")  # _mover_batch, _pair_batch and pair_mover merged here (issue 38)
    return counts


@pytest.mark.parametrize("n_m", [2, 4])
def test_a_new_confidence_reads_the_kept_cells_and_equals_a_fresh_analysis(calls, n_m):
    t = bursty_table(n_m=n_m)
    kept = file_sums(t)
    first = analyze_sums(kept)
    # one batch of pairs: each once; the cells per cluster read exact from the sums, not rebuilt (test_pair_cells.py)
    assert calls == {"discordant_cells": 0, "disagreement_df": 1, "cell_mover_ps": 1}, calls
    assert any("Tango" in c.interval for c in first.comparisons)  # the 0/1 pair rule ran
    for kw in (dict(confidence=0.9), dict(confidence=0.8, adjust="bh"), dict(confidence=0.99, adjust="none")):
        before = dict(calls)
        again = analyze_sums(kept, **kw)
        assert calls == before, kw  # nothing per cluster recomputed
        fresh = analyze_sums(file_sums(t), **kw)
        same_analysis(again, fresh)
        assert calls["cell_mover_ps"] == before["cell_mover_ps"] + 1  # the fresh sums computed theirs
        calls.update(before)
        assert again.confidence == kw["confidence"] and again.comparisons[0].ci_low != first.comparisons[0].ci_low


def test_each_baseline_keeps_its_own_batch_and_the_memo_is_bounded(calls, monkeypatch):
    t = bursty_table(n_m=4)
    kept = file_sums(t)
    for baseline in (None, "m0", "m1", "m2", "m3"):
        same_analysis(analyze_sums(kept, baseline=baseline, confidence=0.9),
                      analyze_sums(file_sums(t), baseline=baseline, confidence=0.9))
    made = calls["cell_mover_ps"]
    for baseline in (None, "m0", "m1", "m2", "m3"):
        analyze_sums(kept, baseline=baseline, confidence=0.8)
    assert calls["cell_mover_ps"] == made  # every batch kept
    assert len(kept.memo["pair-clusters"]) == 5
    monkeypatch.setattr(pair_proportions, "_KEPT_BATCHES", 2)
    other = file_sums(t)
    for baseline in (None, "m0", "m1", "m2", "m3"):
        analyze_sums(other, baseline=baseline, confidence=0.7)
        assert len(other.memo["pair-clusters"]) <= 2  # the oldest batches went
    same_analysis(analyze_sums(other, baseline="m0", confidence=0.7),
                  analyze_sums(file_sums(t), baseline="m0", confidence=0.7))
