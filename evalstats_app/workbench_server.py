"""The workbench on a file or folder of the server (issue 25): off unless ``EVALSTATS_SERVER_DATA`` names the
one folder the page may read (:func:`evalstats_core.engine.server_path` refuses anything outside it).

A file that fits the in-memory budget is read like an upload (every section of the page); a folder, or a
Parquet/CSV file bigger than the budget, is aggregated by DuckDB into the file's sufficient statistics
(:func:`evalstats_core.engine.sums_of`, the command line's ``--engine duckdb``) and the page draws the
sections those sums give: the same model and comparison tables, charts and ranking as the command line.
"""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from evalstats_core import report
from evalstats_core.analysis import analyze_sums
from evalstats_core.cli import with_command
from evalstats_core.engine import SERVER_DATA, sums_of
from evalstats_core.errors import EvalStatsError
from evalstats_core.reading import ReadingOptions

from . import workbench_sections as sections
from .option_words import say
from .workbench import LAST_KEY, AnalysisSettings, Results, Source, analysis_controls, esc, ranking_of
from .workbench_reading import reading_warnings


@st.cache_resource(max_entries=2, show_spinner="Aggregating the files with DuckDB…", show_time=True)
def _sql_sums(key: str, path: str, name: str) -> Any:
    """The files' sufficient statistics from DuckDB (one query per file set, kept for the server: the folder is
    the server's own, the same for every visitor); a problem the user can fix is its message."""

    try:  # human_labels: an upload corrects the judge by them; within: each file resolved inside the folder again
        return sums_of(path, engine="duckdb", name=name, human_labels=True, within=os.environ.get(SERVER_DATA))
    except EvalStatsError as exc:
        return str(exc)


def sql_results(source: Source) -> tuple[Any, Results | None]:
    """The analysis controls and the analysis from DuckDB's sums (every setting recomputed from the sums);
    returns the sums and the results (None after an error, shown with ``st.error``)."""

    sums = _sql_sums(source.key, source.path, os.path.basename(source.path.rstrip("/")) or source.name)
    if isinstance(sums, str):
        st.session_state.pop(LAST_KEY, None)
        st.error(f"**{esc(source.name)} cannot be analyzed.** {say(sums)}", icon=":material/error:")
        return sums, None
    st.markdown(f"**Aggregated by DuckDB** from {esc(source.name)}: {sums.n_questions:,} questions, "
                f"{len(sums.models)} models ({', '.join(esc(m) for m in sums.models)}), "
                + (f"{len(sums.clusters):,} clusters in column '{esc(sums.cluster_col)}'."
                   if sums.clusters is not None else "no cluster column."))
    reading_warnings(sums.warnings)  # the in-memory reader's checks, run in SQL: the upload's words
    st.markdown("---")
    settings = analysis_controls(sums.models)
    if settings["wild"]:
        st.info("The wild cluster bootstrap needs every question's score; DuckDB keeps only sums per model, pair "
                "and cluster, so it is left out here.", icon=":material/info:")
    opts = AnalysisSettings.of(settings, sums.clusters is not None, wild=False)
    kw = opts.analysis_kw()
    try:
        analysis = analyze_sums(sums, baseline=opts.baseline, **kw)
        everything = analysis if opts.baseline is None else analyze_sums(sums, baseline=None, **kw)
    except EvalStatsError as exc:
        st.session_state.pop(LAST_KEY, None)
        st.error(f"**The analysis cannot run.** {say(exc)}", icon=":material/error:")
        return sums, None
    analysis, everything = (with_command(x, [source.name], ReadingOptions()) for x in (analysis, everything))
    st.session_state[LAST_KEY] = analysis
    return sums, Results(analysis, everything, (), ranking_of(everything), opts, (source.key, "duckdb", opts))


def sql_sections(content, source: Source) -> None:
    """Every section the sums give: models, comparisons, ranking and the command; the sections that read
    each question (why a pair differs, guardrails, the plan, downloads of the data) say why they are absent."""
    sums, res = sql_results(source)
    if res is None:
        return
    sections.models_section(content, sections.design_of(sums), res, res.opts.interval)
    sections.compare_section(content, res)
    sections.rank_section(content, res)
    st.info("Read through DuckDB, which keeps sums per model, pair and cluster rather than the rows: the "
            "per-question sections (which questions two models disagree on, the guardrails, the plan for the next "
            "run, the downloadable analysis) need the rows. Analyze a file that fits in memory for them.",
            icon=":material/info:")

    st.markdown("**Reproduce with the command line**")
    st.code(report.settings_document(res.analysis, file_name=source.name)["command"] + " --format json",
            language="bash")
