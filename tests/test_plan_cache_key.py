"""The workbench's cached plan follows the analysis's standard errors and interval rule (commit cbb5dac).

Clustered 0/1 pairs under CR2 and ``interval="auto"`` are planned for Tango/MOVER's degrees of freedom, others
for a CR2 t-test (:func:`evalstats_core.planning.plan_pair`): the questions needed differ, so a plan cached on
(clustered, unit) alone would keep the first one after the interval or the standard errors change."""

from __future__ import annotations

import math

import pytest
from conftest import ROOT, no_exceptions, run_page

from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core.data import prepare
from evalstats_core.planning import plan_pair

PAGE = "pages/analyze.py"
FILE = ROOT / "examples" / "coding_12_repos.csv"  # 12 repositories, 0/1 scores: Tango/MOVER under CR2 + auto


def _needed(at) -> str:
    """The page's "Questions for ..." metric (the plan's questions needed, rounded up)."""
    return [m.value for m in at.metric if m.label.startswith("Questions for")][0]


def _expected(at) -> str:
    """The questions needed that :func:`plan_pair` gives for the analysis the page shows now."""
    analysis = at.session_state[LAST_KEY]
    pair = analysis.comparisons[0]
    prepared = prepare(str(FILE))
    scale = 100.0 if analysis.unit == "percent" else 1.0
    plan = plan_pair(prepared.dataset, prepared.table, analysis, pair.model, pair.baseline,
                     delta=float(at.number_input(key="analyze_delta").value) / scale,
                     alpha=float(at.number_input(key="analyze_alpha").value),
                     power=float(at.slider(key="analyze_power").value))
    return f"{math.ceil(plan.n_needed):,}"


@pytest.mark.parametrize("key, value", [("analyze_method", "normal"), ("analyze_cluster_se", "cr1")])
def test_the_cached_plan_changes_with_the_interval_rule_and_the_standard_errors(key, value):
    """Set the interval to normal (or the SEs to CR1) after the auto/CR2 plan was shown and cached: the page shows
    the plan of the new analysis (a CR2/CR1 t-test's), not the cached Tango/MOVER one."""
    at = run_page(PAGE)
    at.session_state[INJECT_KEY] = {"name": FILE.name, "data": FILE.read_bytes()}
    at.run()
    no_exceptions(at)
    before = _needed(at)
    assert at.session_state[LAST_KEY].interval == "auto" and before == _expected(at)
    at.selectbox(key=key).set_value(value).run()
    no_exceptions(at)
    after = _needed(at)
    assert after == _expected(at) and after != before, (before, after)
