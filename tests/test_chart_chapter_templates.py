"""The chapters' charts filled into a template (evalstats_core/charts/_template.py) are the charts themselves:
each ``*_spec(...)`` equals ``compile_spec(*_chart(...))`` but for the datasets' names, number for number (the
JSON text, so an int filled where the chart writes a float fails too), for settings after the first, whose
template they reuse, and for the extremes of every slider (issue 44.4: a new slider value fills, not compiles)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_chart_template import canonical

from evalstats_core.charts import _template, compile_spec
from evalstats_core.charts import clustering as cc
from evalstats_core.charts import judge as jc
from evalstats_core.charts import one_model as om
from evalstats_core.lessons import clustering, judge, small_n


@pytest.fixture(autouse=True)
def fresh_templates():
    _template._TEMPLATES.clear()
    yield
    _template._TEMPLATES.clear()


def same(got: dict, want: dict) -> bool:
    return json.dumps(canonical(got), sort_keys=True) == json.dumps(canonical(want), sort_keys=True)


# chapter 2b's calculator sliders: accuracy 0-1 by 0.005, n 5-2000 (the first setting compiles the template)
SMALL_N = ((0.9, 50), (0.85, 80), (0.0, 5), (1.0, 2000), (0.5, 1000), (0.995, 7), (0.3, 41))


def test_halfwidth_drag_spec_is_the_compiled_chart():
    for accuracy, n in SMALL_N:
        grid = small_n.halfwidth_grid(accuracy)
        got = om.halfwidth_drag_spec(grid, n=n)
        assert same(got, compile_spec(om.halfwidth_drag_chart(grid, n=n))), (accuracy, n)
    assert len(_template._TEMPLATES) == 1  # every accuracy and n: one template


def test_sampling_drag_spec_is_the_compiled_chart():
    for accuracy, n in SMALL_N:
        bars, rules = small_n.sampling_grid(accuracy, n=n)
        got = om.sampling_drag_spec(bars, rules, accuracy=accuracy, n=n)
        assert same(got, compile_spec(om.sampling_drag_chart(bars, rules, accuracy=accuracy, n=n))), (accuracy, n)
    assert len(_template._TEMPLATES) == 1  # every accuracy and every n's grid (n mod 20): one template


def test_calculator_spec_is_the_compiled_chart():
    for accuracy, n in SMALL_N:
        calc = small_n.ci_calculator(accuracy, n)
        assert same(om.calculator_spec(calc), compile_spec(om.calculator_chart(calc))), (accuracy, n)
    assert len(_template._TEMPLATES) == 1


def test_a_filled_value_is_the_number_not_its_placeholder():
    """The drag's start and the axis's ends differ between two settings, and each spec carries its own."""
    a = om.sampling_drag_spec(*small_n.sampling_grid(0.9, n=50), accuracy=0.9, n=50)
    b = om.sampling_drag_spec(*small_n.sampling_grid(0.5, n=41), accuracy=0.5, n=41)
    (pa,), (pb,) = a["params"], b["params"]
    assert (pa["value"], pa["bind"]["min"], pb["value"], pb["bind"]["min"]) == (50, 10, 41, 1)
    assert "e-29" not in json.dumps(a) + json.dumps(b)  # no placeholder left anywhere


def test_deff_drag_spec_is_the_compiled_chart():
    """Chapter 3's sliders: ρ 0-0.9 by 0.05, m 1-40 (and a ρ between the grid's steps, outside it)."""
    grid = clustering.deff_grid()
    for m, icc in ((10, 0.3), (1, 0.0), (40, 0.9), (7, 0.35), (23, 0.55), (0, 1.2), (12, 0.333)):
        got = cc.deff_drag_spec(grid, m=m, icc=icc)
        assert same(got, compile_spec(cc.deff_drag_chart(grid, m=m, icc=icc))), (m, icc)
    assert len(_template._TEMPLATES) == 1


@pytest.mark.parametrize("k,m,icc", ((100, 10, 0.3), (5, 1, 0.0), (300, 40, 0.9), (79, 3, 0.45), (80, 2, 0.05)))
def test_simulation_charts_are_the_compiled_charts(k, m, icc):
    """Chapter 3's simulated eval (cluster strip, intervals) and coverage, each setting after another one's
    template (79 and 80 clusters: the strip's bars lose their padding)."""
    for k_, m_, icc_ in ((100, 10, 0.3), (k, m, icc)):
        sim = clustering.simulate_eval(k_, m_, icc_, seed=clustering.DEFAULT_SEED)
        cov = clustering.coverage(k_, m_, icc_, seed=clustering.DEFAULT_SEED)
        assert same(cc.cluster_strip_spec(sim.bars, overall=sim.naive.mean),
                    compile_spec(cc.cluster_strip(sim.bars, overall=sim.naive.mean))), (k_, m_, icc_)
        assert same(cc.intervals_spec(sim.intervals, truth=sim.truth),
                    compile_spec(cc.intervals_chart(sim.intervals, truth=sim.truth))), (k_, m_, icc_)
        assert same(cc.coverage_spec(cov.frame), compile_spec(cc.coverage_chart(cov.frame))), (k_, m_, icc_)
    assert len(_template._TEMPLATES) == (4 if k < 80 else 3)  # 100 clusters: unpadded; under 80: padded


def test_judge_coverage_lab_spec_is_the_compiled_chart():
    """Chapter 9's lab: a second judge fills the first's template; labels chosen by the judge add a kind of
    interval (a new template); a title fills in."""
    for sens, spec, labels, selected, title in ((0.97, 0.83, 200, False, ""), (0.6, 0.31, 30, False, ""),
                                                (0.9, 0.9, 240, True, ""), (0.97, 0.83, 200, False, "Coverage")):
        frame = judge.coverage_lab(sens, spec, labels, selected=selected)
        got = jc.coverage_lab_spec(frame, title=title)
        assert same(got, compile_spec(jc.coverage_lab(frame, title=title))), (sens, spec, labels, selected, title)


@pytest.mark.parametrize("accuracy,n", ((0.0, 5), (0.005, 41), (0.8, 50), (0.5, None), (1.0, 2000)))
def test_sampling_grid_is_the_frames_of_each_n_concatenated(accuracy, n):
    """The sampling chart's data, built from its columns in one frame, is the readable loop's frames, one per n,
    concatenated (the same numbers to the last bit, the same types)."""
    frames = []
    for size in small_n.dist_ns(n):
        k = np.arange(size + 1)
        prob = stats.binom.pmf(k, size, accuracy)
        keep = prob >= 1e-3
        frames.append(pd.DataFrame({"n": size, "k": k[keep], "acc_lo": (k[keep] - 0.5) / size,
                                    "acc_hi": (k[keep] + 0.5) / size, "prob": prob[keep], "density": prob[keep] * size}))
    bars, rules = small_n.sampling_grid(accuracy, n=n)
    pd.testing.assert_frame_equal(bars, pd.concat(frames, ignore_index=True), check_exact=True)
    se = math.sqrt(accuracy * (1 - accuracy) / 10)
    assert rules.loc[rules["n"] == 10, "se"].tolist() == ([se] if 10 in small_n.dist_ns(n) else [])


def test_arrivals_spec_is_the_compiled_chart():
    """Chapter 2b's lab: the intervals arriving, for every N of the lab's slider, a fixed truth and a new seed."""
    for n, theta, seed in ((10, None, 1), (3, None, 1), (1000, 0.9, 1), (30, 0.5, 7), (10, None, 2)):
        arrivals = small_n.lab_intervals(n, theta, count=100, rng=seed)
        assert same(om.arrivals_spec(arrivals), compile_spec(om.arrivals_chart(arrivals))), (n, theta, seed)
    assert len(_template._TEMPLATES) == 1


def test_lab_coverage_and_possible_intervals_specs_are_the_compiled_charts():
    """Chapter 2b's lab: the coverage of each method (its axis's start a value) for new N, truths and seeds, and
    every interval each method can give at each N of the lab up to 30 (one template per N)."""
    for n, theta, seed in ((10, None, 1), (3, 0.99, 1), (1000, 0.5, 3), (30, None, 7)):
        lab = small_n.small_n_lab(n, theta, reps=2_000, rng=seed)
        got = om.coverage_spec(lab.frame, confidence=lab.confidence)
        assert same(got, compile_spec(om.coverage_chart(lab.frame, confidence=lab.confidence))), (n, theta, seed)
    assert len(_template._TEMPLATES) == 1
    for n in (3, 5, 10, 20, 30, 10):
        frame = small_n.possible_intervals(n)
        assert same(om.possible_intervals_spec(frame), compile_spec(om.possible_intervals_chart(frame))), n
    assert len(_template._TEMPLATES) == 1 + 5
