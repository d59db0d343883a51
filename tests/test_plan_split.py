"""``plan_pair`` in two parts (issue 25: a new effect, size or power at 1e7 rows in 0.5 s).

:func:`~evalstats_core.planning.pair_pilot` reads the file once per pair and design; :func:`plan_from_pilot` turns
it into the plan for each effect, test size and power. One pilot reused for several control values gives, for each,
the plan a fresh ``plan_pair`` gives (every field, to the last bit: ``repr``), holds no row-sized arrays, and the
workbench keeps it while the effect changes (the data part is not recomputed)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, no_exceptions, run_page

from evalstats_core.analysis import analyze
from evalstats_core.data import load, prepare, question_scores
from evalstats_core.planning import pair_pilot, plan_from_pilot, plan_pair

CONTROLS = [(0.05, 0.05, 0.8), (0.02, 0.01, 0.9), (0.12, 0.1, 0.6), (0.05, 0.05, 0.8)]


def _wide(seed: int, n: int, clusters: int | None, binary: bool):
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, n)
    cols = {"question": [f"q{i}" for i in range(n)]}
    if clusters:
        cols["cluster"] = np.arange(n) % clusters
        base = base + rng.normal(0.0, 0.5, clusters)[cols["cluster"]]
    for name, shift in (("A", 0.3), ("B", 0.0)):
        x = base + shift + rng.normal(0.0, 0.7, n)
        cols[name] = (x > 0).astype(int) if binary else x
    data = load(pd.DataFrame(cols), cluster_col="cluster" if clusters else None)
    return data, question_scores(data)


def _designs():
    out = {}
    for binary in (True, False):
        for clusters in (None, 8, 40):
            data, table = _wide(3, 400, clusters, binary)
            out[f"{'01' if binary else 'cont'}-{clusters or 'none'}"] = (data, table, analyze(table))
    data, table = _wide(4, 400, 40, True)
    out["01-40-normal"] = (data, table, analyze(table, interval="normal"))
    prepared = prepare(str(ROOT / "examples" / "synthetic_resampled.csv"))  # several answers per question
    out["resampled"] = (prepared.dataset, prepared.table, analyze(prepared.table))
    prepared = prepare(str(ROOT / "examples" / "multilingual_clustered.csv"))  # answers and clusters
    out["multilingual"] = (prepared.dataset, prepared.table, analyze(prepared.table))
    return out


DESIGNS = _designs()


@pytest.mark.parametrize("name", list(DESIGNS))
def test_one_pilot_gives_plan_pairs_plan_for_every_control(name):
    data, table, analysis = DESIGNS[name]
    model, baseline = table.models[1], table.models[0]
    pilot = pair_pilot(data, table, analysis, model, baseline)
    plans = []
    for delta, alpha, power in CONTROLS:  # the same pilot each time, as the workbench's cache keeps it
        got = plan_from_pilot(pilot, delta=delta, alpha=alpha, power=power)
        assert repr(got) == repr(plan_pair(data, table, analysis, model, baseline, delta=delta, alpha=alpha,
                                           power=power)), (name, delta, alpha, power)
        plans.append(got)
    assert plans[0].n_needed != plans[1].n_needed  # the control part follows the controls
    assert repr(plans[0]) == repr(plans[-1])  # and leaves the pilot as it was


def test_the_designs_cover_every_test_and_the_resampled_case():
    tests = {}
    for name, (data, table, analysis) in DESIGNS.items():
        pilot = pair_pilot(data, table, analysis, table.models[1], table.models[0])
        plan = plan_from_pilot(pilot, delta=0.05)
        tests.setdefault(plan.test, []).append(name)
        if name in ("resampled", "multilingual"):
            assert plan.resampled and plan.k_needed is not None or name == "multilingual"
    assert set(tests) == {"paired t", "cr2 t", "t-score", "tango"}, tests  # tango: unclustered 0/1 (issue 45 item 5)
    assert any(p < 0.8 for p in (plan_from_pilot(pair_pilot(d, t, a, t.models[1], t.models[0]), delta=0.05).power_aimed
                                 for d, t, a in DESIGNS.values()))  # a calibrated aim below the target is covered


def _arrays(obj, seen=None):
    """Every ndarray reachable from ``obj`` through dataclass fields, tuples and a function's closure."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _arrays(x, seen)
    elif callable(obj) and getattr(obj, "__closure__", None):
        for cell in obj.__closure__:
            yield from _arrays(cell.cell_contents, seen)
    elif hasattr(obj, "__dataclass_fields__"):
        for f in obj.__dataclass_fields__:
            yield from _arrays(getattr(obj, f), seen)


@pytest.mark.parametrize("name", ["01-40", "cont-8", "resampled"])
def test_the_pilot_holds_no_row_sized_arrays(name):
    data, table, analysis = DESIGNS[name]
    pilot = pair_pilot(data, table, analysis, table.models[1], table.models[0])
    sizes = [a.size for a in _arrays(pilot)]
    assert sizes and max(sizes) < pilot.n, sizes  # per cluster or per node, never per question


def test_the_parts_raise_what_plan_pair_raises():
    from evalstats_core.errors import EvalStatsError

    data, table, analysis = DESIGNS["01-8"]
    with pytest.raises(EvalStatsError, match="two different models"):
        pair_pilot(data, table, analysis, "A", "A")
    pilot = pair_pilot(data, table, analysis, "A", "B")
    with pytest.raises(EvalStatsError):
        plan_from_pilot(pilot, delta=0.05, alpha=1.5)


def test_a_new_effect_on_the_page_reuses_the_files_part(monkeypatch, tmp_path):
    """Change the effect to detect after a first plan: the page shows plan_pair's plan for the new value, and the
    file's part (``pair_pilot``) ran once, for the first plan only."""
    import evalstats_app.workbench_sections as sections
    from evalstats_app.workbench import INJECT_KEY, LAST_KEY

    calls = []
    real = sections.pair_pilot

    def counted(*args, **kwargs):
        calls.append(args[3:5])
        return real(*args, **kwargs)

    # the page's own name for it (imported at workbench_sections' top since issue 38); plan_pair's call is not counted
    monkeypatch.setattr(sections, "pair_pilot", counted)
    rng = np.random.default_rng(25)  # a file of this test's own: no other test's plan of it is in the caches
    n = 600
    path = tmp_path / "plan_split_clustered.csv"
    pd.DataFrame({"question": [f"q{i}" for i in range(n)], "cluster": [f"c{i % 30}" for i in range(n)],
                  "A": (rng.random(n) < 0.7).astype(int), "B": (rng.random(n) < 0.6).astype(int)}).to_csv(path,
                                                                                                      index=False)
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": path.name, "data": path.read_bytes()}
    at.run()
    no_exceptions(at)
    first = at.session_state[LAST_KEY].comparisons[0]
    assert calls and calls[-1] == (first.model, first.baseline), calls  # the upload's plan read the file
    before = len(calls)  # (the bundled example's plan, drawn first, may be among them)
    needed = {}
    for delta in (7.0, 12.5):
        at.number_input(key="analyze_delta").set_value(delta).run()
        no_exceptions(at)
        assert len(calls) == before, calls  # the file's part was not recomputed for the new effect
        analysis, prepared = at.session_state[LAST_KEY], prepare(str(path))
        pair = analysis.comparisons[0]
        pilot = real(prepared.dataset, prepared.table, analysis, pair.model, pair.baseline)
        want = plan_pair(prepared.dataset, prepared.table, analysis, pair.model, pair.baseline, delta=delta / 100.0,
                         alpha=float(at.number_input(key="analyze_alpha").value),
                         power=float(at.slider(key="analyze_power").value))
        assert repr(plan_from_pilot(pilot, delta=delta / 100.0, alpha=want.alpha, power=want.power)) == repr(want)
        shown = [m.value for m in at.metric if m.label.startswith("Questions for")][0]
        mde = [m.value for m in at.metric if m.label.startswith("Minimum detectable")][0]
        assert shown == f"{math.ceil(want.n_needed):,}" and mde == f"{100 * want.mde:.1f} pts", (shown, mde)
        needed[delta] = shown
        assert want.test == "t-score" and want.n_clusters == 30  # the clustered plan, its calibration kept
    assert needed[7.0] != needed[12.5]
