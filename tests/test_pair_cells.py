"""The clustered 0/1 pair rule of ``analyze_sums`` reads each pair's exact counts per cluster of the questions only
one model got right (``PairSums.only_model`` / ``only_baseline``) instead of rebuilding them from the residual sums
and the sums of squares (:func:`~evalstats_core.pair_proportions.discordant_cells`, made whole): the same
analysis to the last bit, on tables with every question answered and with some left out, any baseline."""

from __future__ import annotations

import numpy as np
import pytest
from test_pair_kept import bursty_table
from test_sums import _fields_equal as same_analysis  # every field to the last bit, and the warnings

import evalstats_core._estimate as estimate
import evalstats_core.analysis as analysis
import evalstats_core.pair_proportions as pair_proportions
from evalstats_core.analysis import analyze_sums
from evalstats_core.sums import file_sums


def rebuilt(monkeypatch) -> list[int]:
    """Make ``comparison_from`` drop the exact cells (the rule then rebuilds them); count the rebuilds."""
    inner, made = estimate.comparison_from, [0]
    rebuild = pair_proportions.discordant_cells

    def without_cells(*args, **kwargs):
        kwargs.pop("cells", None)
        return inner(*args, **kwargs)

    def counted(*args, **kwargs):
        made[0] += 1
        return rebuild(*args, **kwargs)

    monkeypatch.setattr(estimate, "comparison_from", without_cells)
    monkeypatch.setattr(analysis, "comparison_from", without_cells)  # analysis imports it at its top (issue 38)
    monkeypatch.setattr(pair_proportions, "discordant_cells", counted)
    return made


@pytest.mark.parametrize(("n_m", "seed", "left_out"), [(2, 1, False), (4, 2, False), (3, 3, True), (4, 4, True)])
def test_exact_cells_give_the_rebuilt_cells_numbers(monkeypatch, n_m, seed, left_out):
    t = bursty_table(n_q=900, n_m=n_m, n_c=30, seed=seed)
    if left_out:  # some questions left out by some models: each pair on its own shared questions
        rng = np.random.default_rng(seed)
        t.answered[:] = rng.random(t.answered.shape) > 0.1
        t.k[~t.answered] = 0
    settings = [dict(), dict(confidence=0.9, adjust="bh"), dict(baseline="m1", confidence=0.8)]
    exact = [analyze_sums(file_sums(t), **kw) for kw in settings]
    assert any("Tango" in c.interval for c in exact[0].comparisons)  # the clustered 0/1 pair rule ran
    made = rebuilt(monkeypatch)
    for kw, want in zip(settings, exact, strict=True):
        same_analysis(analyze_sums(file_sums(t), **kw), want)
    assert made[0] >= len(settings)  # the other path ran: the cells were rebuilt (once per batch of pairs)
