"""Chapter 9 · The judge is an instrument: a judge's errors, a coverage lab, and a verdict the judge flips."""

import streamlit as st

from evalstats_app import shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import judge as charts
from evalstats_core.lessons import judge as lesson

content = shell.page_setup("judge")
state = shell.UrlState(
    {"judge_sens": 0.97, "judge_spec": 0.83, "judge_labels": 200, "judge_bias": 0.25, "judge_selected": False},
    bounds={"judge_sens": (0.5, 0.99), "judge_spec": (0.3, 0.99), "judge_labels": (30, 240),
            "judge_bias": (0.0, 0.3)},
)


@shell.shared(max_entries=64, show_spinner="Simulating 1,200 evals…")
def _lab(sens: float, spec: float, labels: int, selected: bool):
    frame = lesson.coverage_lab(sens, spec, labels, selected=selected)
    return frame, charts.coverage_lab_spec(frame), lesson.coverage_sentence(frame)  # a template filled: charts._template


@shell.shared(max_entries=64, show_spinner=False)
def _flip(bias: float, labels: int):
    frame = lesson.flip_panel(bias, labels)
    return frame, compile_spec(charts.flip_chart(frame)), lesson.flip_sentence(frame)


@shell.shared(max_entries=256, show_spinner=False)
def _budget(sens: float, spec: float) -> str:
    return lesson.budget_sentence(sens, spec)


shell.prose(content["intro"])
shell.prose(content["lab"])
left, mid, right = st.columns(3)
sens = left.slider("Judge sensitivity", 0.5, 0.99, step=0.01, key="judge_sens", format="%.2f")
spec = mid.slider("Judge specificity", 0.3, 0.99, step=0.01, key="judge_spec", format="%.2f")
labels = right.slider("Human labels", 30, 240, step=10, key="judge_labels")
selected = st.toggle("Labels chosen by the judge (humans audit its fails first)", key="judge_selected")
frame, chart, sentence = _lab(sens, spec, labels, selected)
shell.chart(chart, sentence, name="judge_coverage", title="How often each 95% interval covers the true pass rate")
st.markdown(_budget(sens, spec))

shell.prose(content["flip"])
bias = st.slider("Extra false passes for B's longer answers", 0.0, 0.3, step=0.05, key="judge_bias", format="%.2f")
flip, flip_chart, flip_text = _flip(bias, labels)
shell.chart(flip_chart, flip_text, name="judge_flip", title="A − B: the judge, the humans alone, corrected")

shell.notice(content["notice"])
shell.prose(content["connections"])
state.sync()
shell.chapter_footer(content)
