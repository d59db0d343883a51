"""The live class's chart (evalstats_core.charts.live_class), through ``to_dict()``: one bar per option in the
question's order, the counts written at the bars' ends, blue before the reveal, the right answer bluish green with
a check mark after it and the others grey."""

from __future__ import annotations

import pandas as pd

from evalstats_core.charts import PALETTE
from evalstats_core.charts.live_class import WRAP, answer_counts

FRAME = pd.DataFrame({"option": ["Zeta comes first", "A" * (WRAP + 10), "Middle"], "count": [4, 0, 9],
                      "right": [False, False, True]})


def rows(spec: dict) -> list[dict]:
    (data,) = spec["datasets"].values()
    return data


def test_before_the_reveal_every_bar_is_blue_in_the_questions_order():
    spec = answer_counts(FRAME).to_dict()
    data = rows(spec)
    assert [r["count"] for r in data] == [4, 0, 9]
    assert {r["shade"] for r in data} == {"answers"} and not any(r["label"].startswith("✓") for r in data)
    bars, text = spec["layer"]
    assert bars["encoding"]["y"]["sort"] == [r["label"] for r in data]  # the question's order: "Zeta" stays first
    scale = bars["encoding"]["color"]["scale"]
    assert dict(zip(scale["domain"], scale["range"], strict=True))["answers"] == PALETTE[0]
    assert text["mark"]["type"] == "text" and text["encoding"]["text"]["field"] == "count"
    assert "\n" in data[1]["label"] and all(len(line) <= WRAP for line in data[1]["label"].split("\n"))


def test_after_the_reveal_the_right_answer_is_marked_by_colour_and_a_check_mark():
    data = rows(answer_counts(FRAME, revealed=True).to_dict())
    assert [r["shade"] for r in data] == ["other", "other", "right answer"]
    assert data[2]["label"] == "✓ Middle" and not data[0]["label"].startswith("✓")


def test_a_show_of_hands_has_no_right_answer_to_mark():
    data = rows(answer_counts(FRAME.assign(right=False), revealed=True).to_dict())
    assert {r["shade"] for r in data} == {"other"}


def test_new_counts_filled_into_a_compiled_chart_equal_the_chart_compiled_anew():
    """The presenter's redraw (with_counts on the chart compiled once with counts 0) against building and compiling
    answer_counts with the counts, for counts below and above the axis's minimum domain, before and after the reveal."""
    from evalstats_core.charts import compile_spec
    from evalstats_core.charts.live_class import with_counts

    for revealed in (False, True):
        template = compile_spec(answer_counts(FRAME.assign(count=[0, 0, 0]), revealed=revealed))
        for counts in ([0, 0, 0], [1, 0, 2], [4, 0, 9], [120, 95, 85], [0, 300, 0]):
            want = compile_spec(answer_counts(FRAME.assign(count=counts), revealed=revealed))
            assert with_counts(template, counts) == want, (revealed, counts)
    assert [r["count"] for r in rows(template)] == [0, 0, 0]  # the compiled chart itself is left alone
