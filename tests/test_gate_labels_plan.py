"""The corrected gate's "would tell" sentence (issue 39, item j): on a judge-scored file decided on the judge's
scores corrected by human labels, an inconclusive gate plans human labels (questions labelled for both models), never
"No number of questions would tell", and the sentence's numbers are the plan's."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from statistics import NormalDist

import numpy as np

from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.gating import gate
from evalstats_core.judge_io import section_for

JUDGED = Path(__file__).resolve().parents[1] / "examples" / "judged_3_models.csv"
Z, Z80 = NormalDist().inv_cdf(0.975), NormalDist().inv_cdf(0.8)


def _gate(baseline, candidate, margin):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        data = load(JUDGED)
        plan = section_for(data, analyze(data, baseline=baseline)).pair_budgets[(candidate, baseline)]
        return gate(data, baseline=baseline, candidate=candidate, margin=margin), plan


def _power(plan, n, gap):
    """Normal-approximation power of the corrected interval at ``n`` labels to tell a true difference ``gap`` from
    the nearer decision (the plan's half-width over z is its SE)."""
    return NormalDist().cdf(gap / (float(plan.half_width_at(n)) / Z) - Z)


def test_an_inconclusive_corrected_gate_names_the_labels_that_would_tell():
    g, plan = _gate("Breeze", "Atlas", 0.02)
    text = g.headline()
    assert g.verdict == "inconclusive" and g.needed_unit == "labels"
    assert "No number of questions" not in text and "would tell" in text
    need = int(re.search(r"About ([\d,]+) questions labelled for both models \(of ([\d,]+)\)", text)[1].replace(",", ""))
    have = int(re.search(r"against ([\d,]+) here", text)[1].replace(",", ""))
    assert have == g.n_labeled == 300 and need == g.n_needed and have < need <= g.n
    gap = max(g.diff + g.margin, -g.diff)  # to the nearer decision: a pass (above -2 points) here
    assert f"observed {100 * g.diff:+.1f} points" in text
    assert _power(plan, need, gap) >= 0.8 > _power(plan, need - 1, gap)  # the fewest labels with 80% power
    assert _power(plan, have, gap) < 0.8


def test_when_labelling_every_question_would_not_tell_the_sentence_says_so():
    g, plan = _gate("Atlas", "Breeze", 0.0)
    text = g.headline()
    assert g.verdict == "inconclusive" and g.n_needed is None
    assert f"Labelling all {g.n:,} questions for both models would not tell" in text
    assert _power(plan, g.n, max(g.diff + g.margin, -g.diff)) < 0.8  # true of its numbers
    assert "No number of questions" not in text


def test_too_few_labels_to_plan_says_so():
    rng = np.random.default_rng(5)
    rows = ["question,model,score,human"]
    labels = {("old", 0): 1, ("new", 0): 0, ("old", 1): 0, ("new", 1): 0}  # two questions labelled for both
    for i in range(60):
        for m, p in (("old", 0.6), ("new", 0.58)):
            s = int(rng.random() < p)
            rows.append(f"q{i},{m},{s},{labels.get((m, i), '')}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        g = gate(load(("\n".join(rows) + "\n").encode(), name="j.csv"), baseline="old", candidate="new")
    text = g.headline()
    assert g.verdict == "inconclusive" and g.uncorrected is None and g.needed_unit == "labels", text
    assert g.n_labeled == 2 and g.n_needed is None
    assert "Only 2 questions are labelled for both models: too few to plan how many would tell" in text
    assert "No number of questions" not in text and "no variance to plan a number of questions" not in text
