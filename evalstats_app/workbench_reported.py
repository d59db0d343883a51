"""The workbench's reported-numbers mode (``pages/analyze.py``): accuracy and n (or ± SE) per model in,
intervals and unpaired comparisons out, with what those numbers can and cannot support."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evalstats_app.option_words import say
from evalstats_app.workbench import CONFIDENCES, PROPORTION_METHODS, esc
from evalstats_core.errors import EvalStatsError
from evalstats_core.reported import analyze_reported
from evalstats_core.vocabulary import Formatter, fmt_p

_REPORTED_START = pd.DataFrame({"model": ["Galleon", "Dreadnought"], "accuracy": [83.6, 86.7],
                                "n": pd.array([164, 164], dtype="Int64"), "se": [None, None]}).astype({"se": "float64"})


def reported_section(content) -> None:
    """Accuracy and n (or ± SE) per model in, intervals and unpaired comparisons out."""

    st.markdown(content["reported"])
    a, b = st.columns([3, 1])
    table = a.data_editor(_REPORTED_START, num_rows="dynamic", key="analyze_reported_table", hide_index=True,
                          column_config={
                              "model": st.column_config.TextColumn("Model", required=True),
                              "accuracy": st.column_config.NumberColumn("Accuracy (%)", min_value=0.0, max_value=100.0,
                                                                        format="%.2f"),
                              "n": st.column_config.NumberColumn("Questions n", min_value=2, step=1),
                              "se": st.column_config.NumberColumn("Reported SE (points)", min_value=0.0,
                                                                  format="%.3f")}, width="stretch")
    interval = b.selectbox("Interval from n", list(PROPORTION_METHODS), format_func=PROPORTION_METHODS.get,
                           key="analyze_reported_method")
    confidence = b.select_slider("Confidence level", CONFIDENCES, format_func=lambda v: f"{v:.0%}",
                                 key="analyze_confidence")
    try:
        r = analyze_reported(table, interval=interval, confidence=float(confidence))
    except EvalStatsError as exc:
        st.error(f"**The table cannot be used yet.** {say(exc)}", icon=":material/error:")
        return
    level = f"{confidence:.0%} CI"
    shown = pd.DataFrame({
        "Model": r.models["model"], "Accuracy (SE)": [f"{x:.1%} ({s:.2%})" for x, s in zip(r.models["estimate"], r.models["se"], strict=False)],
        level: [f"({lo:.1%}, {hi:.1%})" for lo, hi in zip(r.models["ci_low"], r.models["ci_high"], strict=False)],
        "SE from": r.models["se_source"], "Interval": [PROPORTION_METHODS.get(m, m) for m in r.models["method"]]})
    st.dataframe(shown, hide_index=True, width="stretch")
    if len(r.comparisons):

        pt = Formatter(percent=True, decimals=1)  # the one formatter: differences in points, never "-0.0"
        pairs = pd.DataFrame({
            "A": r.comparisons["a"], "B": r.comparisons["b"],
            "A − B (unpaired SE), points": [f"{pt.num(d, signed=True, unit=False)} ({pt.num(s, unit=False)})"
                                            for d, s in zip(r.comparisons["diff"], r.comparisons["se"], strict=False)],
            f"{level}, points": [f"({pt.num(lo, signed=True, unit=False)}, {pt.num(hi, signed=True, unit=False)})"
                                 for lo, hi in zip(r.comparisons["ci_low"], r.comparisons["ci_high"], strict=False)],
            "p (unpaired)": [fmt_p(p) for p in r.comparisons["p_value"]],
            "Paired SE could be": [f"{lo * 100:.1f} to {hi * 100:.1f} pts" if lo == lo else "n/a"
                                   for lo, hi in zip(r.comparisons["paired_se_low"], r.comparisons["paired_se_high"], strict=False)]})
        st.dataframe(pairs, hide_index=True, width="stretch")
    st.markdown("**What these numbers support**")
    for line in r.can_say:
        st.markdown(":material/check: " + esc(line))
    st.markdown("**What cannot be said without per-question scores**")
    for line in r.cannot_say:
        st.markdown(":material/block: " + esc(line))
