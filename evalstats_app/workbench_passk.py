"""The workbench's pass@k section: for a file of 0/1 answers with several samples a question, a control for the k
values, one cached core call (:func:`evalstats_core.passk.pass_at_section`), its table and its chart."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evalstats_core import report_passk
from evalstats_core.charts import compile_spec
from evalstats_core.charts.passk import pass_at_chart
from evalstats_core.errors import EvalStatsError
from evalstats_core.passk import largest_k, pass_at_plans, pass_at_section
from evalstats_core.report_words import method_line

from . import shell
from . import workbench as wb
from .option_words import esc, say

#: The session key of the pass@k section the page shows (tests compare it with the command line's).
LAST_KEY = "_analyze_pass_at"
#: The session key of the pass@k plan the page shows.
PLAN_KEY = "_analyze_pass_at_plan"
#: The section's settings a downloaded analysis (.zip) carries and restores (:func:`bundle_settings`, :func:`valid`).
BUNDLED = ("analyze_pass_at", "analyze_pass_at_plan_k", "analyze_pass_at_plan_hw")
_HALF_WIDTH = (0.1, 50.0)  # the plan's target half-width, in points: the control's bounds
_MOST_K = 100_000  # a bundled k above this is no file's


@wb.by_scope(st.cache_data, max_entries=16, show_spinner=False)
def _section(key: str, roles: Any, ks: tuple[int, ...], pairs: tuple[tuple[str, str], ...], use_clusters: bool,
             confidence: float, _prepared: Any) -> Any:
    """pass@k for these settings (the analysis's pairs, clusters and level), or the core's message."""
    try:
        return pass_at_section(_prepared.table, ks, pairs=pairs, use_clusters=use_clusters, confidence=confidence)
    except EvalStatsError as exc:
        return str(exc)


@wb.by_scope(st.cache_data, max_entries=16, show_spinner=False)
def _plans(key: str, roles: Any, k: int, half_width: float, use_clusters: bool, confidence: float,
           _prepared: Any) -> Any:
    """Every model's plan for pass@k at this target (the file as the pilot), or the core's message."""
    try:
        return pass_at_plans(_prepared.table, k, half_width, use_clusters=use_clusters, confidence=confidence)
    except EvalStatsError as exc:
        return str(exc)


@st.cache_data(max_entries=16, show_spinner=False)
def _chart(key: tuple, ks: tuple[int, ...], _section: Any, title: str, subtitle: str) -> dict:
    """The chart's compiled spec, once per setting."""
    return compile_spec(pass_at_chart(report_passk.chart_frame(_section), n_samples=_section.n_samples,
                                      confidence=_section.confidence, title=title, subtitle=subtitle))


def bundle_settings(section: Any) -> dict[str, Any]:
    """The settings of the pass@k section shown, for a downloaded analysis: its k and the plan's controls."""
    out: dict[str, Any] = {"analyze_pass_at": list(section.ks)}
    for key in BUNDLED[1:]:
        if key in st.session_state:
            out[key] = st.session_state[key]
    return out


def valid(key: str, value: Any) -> bool:
    """A bundled pass@k setting the section can take: k as whole numbers >= 1, the half-width within the control's
    bounds (whether the file has that many samples is checked when the section is drawn)."""
    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= _MOST_K

    if key == "analyze_pass_at":
        return isinstance(value, list) and 0 < len(value) <= 1000 and all(whole(v) for v in value)
    if key == "analyze_pass_at_plan_k":
        return whole(value)
    if key == "analyze_pass_at_plan_hw":
        lo, hi = _HALF_WIDTH
        return isinstance(value, int | float) and not isinstance(value, bool) and lo <= value <= hi
    return False


def pass_at_controls(largest: int) -> tuple[int, ...]:
    """The k values to show (1 to ``largest``): 1, 5 and 10 where the file has that many samples, or the k kept in
    the session (a reopened analysis's), less any the file cannot take."""
    options = list(range(1, largest + 1))
    kept = st.session_state.get("analyze_pass_at")
    if kept is not None:
        st.session_state["analyze_pass_at"] = [k for k in kept if k in options]
    default = {} if kept is not None else {"default": [k for k in (1, 5, 10) if k <= largest] or [1]}
    chosen = st.multiselect("k (tries counted)", options, key="analyze_pass_at", **default,
                            help="pass@k: the chance that at least one of k sampled answers to a question passes")
    return tuple(sorted(chosen))


def passk_section(content: Any, source: Any, read: Any, results: Any) -> Any:
    """Offered only when the file's answers are 0/1 with several samples a question. Returns the pass@k section
    shown (the exports carry it, as ``analyze(pass_at=...)`` would), or None."""
    prepared = read.prepared
    largest = largest_k(prepared.table)
    if largest is None:
        return None
    if largest < 2 and st.session_state.get("analyze_resample_col") is None:
        return None  # a repeated row with no resample column chosen is a duplicate (the reader warns), not a sample
    st.markdown(content["passk"])
    ks = pass_at_controls(largest)
    if not ks:
        st.info("Choose at least one k to see pass@k.")
        return None
    a = results.analysis
    pairs = tuple((c.model, c.baseline) for c in a.comparisons) if a.paired else ()
    section = _section(source.key, read.options, ks, pairs, a.clustered, a.confidence, prepared)
    if isinstance(section, str):
        st.error(say(section), icon=":material/error:")
        return None
    st.session_state[LAST_KEY] = section
    models, pair_rows = report_passk.rows(section)
    st.table({h: [row[i] for row in models[1:]] for i, h in enumerate(models[0])})
    title = f"{a.name}: pass@k by model"
    shell.chart(_chart((results.key, ks), ks, section, title, method_line(a)), esc(report_passk.summary(section)),
                name="analyze_pass_at", title=title)
    if pair_rows:
        st.table({h: [row[i] for row in pair_rows[1:]] for i, h in enumerate(pair_rows[0])})
    st.caption(esc(report_passk.sentence(section)))
    plan_section(content, source, read, ks, a.clustered, a.confidence)
    return section


def plan_controls(ks: tuple[int, ...]) -> tuple[int, float]:
    """The k to plan for (one of those shown) and the target half-width, in points."""
    left, right = st.columns(2)
    if st.session_state.get("analyze_pass_at_plan_k") not in ks:
        st.session_state.pop("analyze_pass_at_plan_k", None)  # a k no longer shown: back to the largest
    first = {} if "analyze_pass_at_plan_k" in st.session_state else {"index": len(ks) - 1}
    k = left.selectbox("Plan for pass@k at k", ks, key="analyze_pass_at_plan_k", **first)
    value = {} if "analyze_pass_at_plan_hw" in st.session_state else {"value": 2.0}
    points = right.number_input("Target half-width (points)", min_value=_HALF_WIDTH[0], max_value=_HALF_WIDTH[1],
                                step=0.5, key="analyze_pass_at_plan_hw", **value,
                                help="half the width of pass@k's interval you want, in percentage points")
    return int(k), float(points)


def plan_section(content: Any, source: Any, read: Any, ks: tuple[int, ...], clustered: bool,
                 confidence: float) -> None:
    """Questions and samples a question for a target half-width (:func:`evalstats_core.passk.pass_at_plans`)."""
    st.markdown(content["passk_plan"])
    k, points = plan_controls(ks)
    plans = _plans(source.key, read.options, k, points / 100.0, clustered, confidence, read.prepared)
    if isinstance(plans, str):
        st.error(say(plans), icon=":material/error:")
        return
    st.session_state[PLAN_KEY] = plans
    pilot, options = report_passk.plan_rows(plans)
    st.table({h: [row[i] for row in pilot[1:]] for i, h in enumerate(pilot[0])})
    with st.expander("Every option"):
        st.table({h: [row[i] for row in options[1:]] for i, h in enumerate(options[0])})
    st.caption(esc(report_passk.plan_sentence(plans)))
