"""Presenter-mode chart labels (issue 40): at 1920x1080 and 1280x720, in the mode's large type, chapter 2b's
calculator showed only "Wald" and "Bayes" of its four rows (Vega drops labels it finds crowded) and cut
"Clopper-Pe…"; chapter 2a's sampling chart cut "Probability densit"; chapter 4's task labels were 11 px and
chapter 8's rows 11 px and cut ("3 · Paired + clust…"). The specs now keep every label whole and large.
Screens were looked at in Chromium (tests/screenshots/, git-ignored)."""

from __future__ import annotations

import json

from evalstats_core.charts import compile_spec
from evalstats_core.charts import one_model as one_model_charts
from evalstats_core.charts import paired as paired_charts
from evalstats_core.charts import verdict as verdict_charts
from evalstats_core.lessons import paired, small_n, verdict


def _axes(spec: dict, channel: str) -> list[dict]:
    out = []

    def walk(node):
        if isinstance(node, dict):
            enc = node.get("encoding", {})
            if isinstance(enc.get(channel), dict) and "axis" in enc[channel] and enc[channel]["axis"] is not None:
                out.append(enc[channel]["axis"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return out


def test_the_calculator_keeps_all_four_row_labels_whole():
    calc = small_n.ci_calculator(0.965, 30)
    axes = _axes(compile_spec(one_model_charts.calculator_chart(calc)), "y")
    assert axes and all(a.get("labelOverlap") is False and a.get("labelLimit") == 0 for a in axes)


def test_the_sampling_chart_title_fits_its_height():
    bars, rules = small_n.sampling_grid(0.9, n=100)
    spec = compile_spec(one_model_charts.sampling_drag_chart(bars, rules, accuracy=0.9, n=100))
    text = json.dumps(spec)
    assert '"title": "Density"' in text and "Probability density" not in text


def test_chapter_eight_rows_and_chapter_four_tasks_are_large_and_whole():
    steps = verdict.verdict_steps()
    axes = _axes(compile_spec(verdict_charts.steps_chart(steps)), "y")
    assert any(a.get("labelLimit") == 0 and a.get("labelFontSize", 0) >= 13 for a in axes)
    ab = paired.atlas_breeze()
    text = json.dumps(compile_spec(paired_charts.scatter_chart(ab.rects, rects=True, mean_a=ab.summary_a.mean,
                                                               mean_b=ab.summary_b.mean)))
    assert '"fontSize": 11' not in text and '"fontSize": 13' in text
