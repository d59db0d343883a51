"""The workbench's pairwise section (issue 42): a file of battles (prompt, model_a, model_b, winner; AlpacaEval
annotations; Arena-Hard judgments) uploads into the same page and gets its ratings, win rates and downloads.

Every number comes from :func:`evalstats_core.pairwise.pairwise_analysis` (cached per file and settings) and is
printed by :mod:`evalstats_core.pairwise_report`, as on the command line (``evalbars pairwise FILE``); the charts
are :mod:`evalstats_core.charts.pairwise`'s. Widget keys carry the page's prefix (``analyze_pw_``).
"""

from __future__ import annotations

import streamlit as st

from evalstats_core.charts import compile_spec
from evalstats_core.charts.pairwise import ratings_forest, win_matrix
from evalstats_core.errors import EvalStatsError
from evalstats_core.pairwise import PairwiseResult, pairwise_analysis
from evalstats_core.pairwise_data import Battles, file_kind, join_battles, read_battles
from evalstats_core.pairwise_report import (
    csv_tables,
    ratings_display,
    ratings_frame,
    render_pairwise,
    separation_display,
    summary_line,
    win_matrix_frame,
    win_rates_display,
)
from evalstats_core.vocabulary import level

from . import shell
from .option_words import esc
from .workbench import CONFIDENCES, Source

__all__ = ["is_pairwise", "pairwise_section", "LAST_PAIRWISE_KEY", "MEAN_ANCHOR"]

#: the result the page shows (tests compare it with the command line's)
LAST_PAIRWISE_KEY = "_analyze_pairwise_last"
MEAN_ANCHOR = "(the mean is 1000)"


def is_pairwise(files: list[tuple[str, bytes]]) -> bool:
    """True when every file is a pairwise file (:func:`evalstats_core.pairwise_data.file_kind`: compressed too)."""
    return bool(files) and all(file_kind(data, name) is not None for name, data in files)


@st.cache_resource(max_entries=4, show_spinner="Reading the battles…")
def _battles(key: str, _files: tuple, baseline: str | None) -> Battles | str:
    """The files' battles (keyed on their hash and the baseline); a fixable problem is its message."""
    try:
        return join_battles([read_battles(data, name, baseline=baseline) for name, data in _files])
    except EvalStatsError as exc:
        return str(exc)


@st.cache_resource(max_entries=8, show_spinner="Fitting the ratings…")
def _analysis(key: str, baseline: str | None, _battles: Battles, confidence: float, anchor: str | None, n_boot: int,
              seed: int) -> PairwiseResult | str:
    """:func:`pairwise_analysis` of the battles read under ``key`` and ``baseline``, with these settings."""
    try:
        return pairwise_analysis(_battles, confidence=confidence, anchor=anchor, n_boot=n_boot, seed=seed)
    except EvalStatsError as exc:
        return str(exc)


def _controls(models: tuple[str, ...]) -> dict:
    row = st.container(horizontal=True)
    confidence = row.select_slider("Confidence level", CONFIDENCES, value=0.95, format_func=lambda v: f"{v:.0%}",
                                   key="analyze_pw_confidence")
    if st.session_state.get("analyze_pw_anchor") not in (MEAN_ANCHOR, *models):
        st.session_state["analyze_pw_anchor"] = MEAN_ANCHOR
    anchor = row.selectbox("Anchor", [MEAN_ANCHOR, *models], key="analyze_pw_anchor",
                           format_func=lambda m: m if m == MEAN_ANCHOR else f"{m} at 1000")
    n_boot = row.number_input("Arena bootstrap resamples", min_value=0, max_value=5000, value=1000, step=100,
                              key="analyze_pw_n_boot")
    seed = row.number_input("Seed", min_value=0, value=0, step=1, key="analyze_pw_seed")
    return {"confidence": float(confidence), "anchor": None if anchor == MEAN_ANCHOR else anchor,
            "n_boot": int(n_boot), "seed": int(seed)}


def pairwise_section(content, source: Source) -> None:
    """Read the battles, draw the controls, the ratings (table and forest), the neighbours, the win-rate matrix and
    table, the notes and the downloads."""
    files = tuple(source.files or ((source.name, source.data),))
    baseline = None
    if any(file_kind(data, name) == "arena_hard" for name, data in files):
        baseline = st.text_input("Arena-Hard baseline", key="analyze_pw_baseline",
                                 placeholder="the file's, else Arena-Hard's default (gpt-4-0314 for v0.1)",
                                 help="Arena-Hard's judgment files of v0.1 do not name the model they compare "
                                      "against.").strip() or None
    battles = _battles(source.key, files, baseline)
    if isinstance(battles, str):
        st.error(esc(battles))
        return
    settings = _controls(tuple(sorted(battles.models)))
    result = _analysis(source.key, baseline, battles, **settings)
    if isinstance(result, str):
        st.error(esc(result))
        return
    st.session_state[LAST_PAIRWISE_KEY] = result
    st.markdown("### Ratings")
    st.caption(esc(summary_line(result)))
    st.dataframe(ratings_display(result), hide_index=True, key="analyze_pw_ratings")
    lv = level(result.confidence)
    top = result.ratings[0]
    shell.chart(compile_spec(ratings_forest(ratings_frame(result), level=lv)),
                f"Bradley-Terry ratings of {len(result.ratings)} models with {lv} intervals clustered by prompt "
                f"(thick) and Chatbot Arena's bootstrap (thin); {top.model} is rated highest at {top.rating:.1f}.",
                name="pairwise_ratings", key="analyze_pw_forest")
    st.markdown("### Neighbours: told apart, or how many battles would")
    st.dataframe(separation_display(result), hide_index=True, key="analyze_pw_separation")
    st.markdown("### Win rates")
    st.caption("Each cell: the share of the battles between the two models that the row's model won; a battle judged "
               "even counts half. Intervals are clustered by prompt (CR2).")
    shell.chart(compile_spec(win_matrix(win_matrix_frame(result))),
                f"Win rates of every pair that met, {len(result.win_rates) // 2} pairs.",
                name="pairwise_win_rates", key="analyze_pw_matrix", width="content")
    st.dataframe(win_rates_display(result), hide_index=True, key="analyze_pw_win_rates")
    for note in result.notes:
        st.info(esc(note))
    st.markdown("### Downloads")
    cols = st.columns(4)
    with cols[0]:
        shell.download_table("JSON", lambda: render_pairwise(result, "json"), file_name="pairwise.json",
                             mime="application/json", key="analyze_pw_json")
    with cols[1]:
        shell.download_table("Markdown", lambda: render_pairwise(result, "markdown"), file_name="pairwise.md",
                             mime="text/markdown", key="analyze_pw_md")
    tables = csv_tables(result)
    with cols[2]:
        shell.download_table("ratings.csv", tables["ratings.csv"], file_name="ratings.csv", mime="text/csv",
                             key="analyze_pw_ratings_csv")
    with cols[3]:
        shell.download_table("win_rates.csv", tables["win_rates.csv"], file_name="win_rates.csv", mime="text/csv",
                             key="analyze_pw_win_csv")
