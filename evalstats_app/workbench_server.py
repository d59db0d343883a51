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

from evalstats_core._read import open_regular
from evalstats_core.errors import EvalStatsError

from .option_words import say
from .workbench import LAST_KEY, Results, Source, esc

PATH_KEY = "analyze_server_path"
#: a file the in-memory path reads; anything else bigger than the budget must be a table DuckDB reads
SQL_TABLES = (".parquet", ".pq", ".csv")


def enabled() -> bool:
    """True when the server's administrator named a data folder (``EVALSTATS_SERVER_DATA``)."""
    from evalstats_core.engine import SERVER_DATA

    return bool(os.environ.get(SERVER_DATA))


def _stamp(path: str) -> str:
    """Size and modification time of a file, or of every file a folder holds: a changed file is read again."""
    from evalstats_core.engine import _files

    files = _files(path)[0] if os.path.isdir(path) else [path]
    stats = [os.stat(f) for f in files]
    return f"{len(files)}:{sum(s.st_size for s in stats)}:{max(s.st_mtime_ns for s in stats)}"


def path_control(where) -> Source | None:
    """The server path box (only when the server offers one); returns the source it names, None when empty.

    A refused name (outside the folder, missing, a pattern, the option off) is one ``st.error`` and a source
    whose :attr:`~evalstats_app.workbench.Source.problem` says so (the page then stops there)."""
    from evalstats_core.engine import SERVER_DATA, choose_engine, server_path
    from evalstats_core.limits import Limits

    if not enabled() and not st.session_state.get(PATH_KEY):
        return None
    name = where.text_input("Or a file or folder on this server", key=PATH_KEY, placeholder="evals/run1.parquet",
                            help=f"A Parquet or CSV file, or a folder of them, inside the folder the server's "
                                 f"administrator named ({SERVER_DATA}), by its relative name. Big files and folders "
                                 "are aggregated by DuckDB without reading the rows into memory.")
    name = str(name or "").strip()
    if not name:
        return None
    try:
        path = server_path(name)
        stamp = _stamp(path)
        limits = Limits.from_env()
        engine = choose_engine(path, limits)
        if engine != "memory" and not os.path.isdir(path) and not path.lower().endswith(SQL_TABLES):
            raise EvalStatsError(f"{name!r} is {os.path.getsize(path) / 1e6:,.0f} MB, over the in-memory budget of "
                                 f"{limits.max_bytes / 1e6:,.0f} MB, and only Parquet or CSV files are read through "
                                 "DuckDB beyond it; convert it to Parquet")
    except (EvalStatsError, OSError) as exc:
        st.session_state.pop(LAST_KEY, None)  # nothing is analyzed: no earlier analysis stands in for it
        where.error(f"**{esc(name)} cannot be read on the server.** {esc(exc)}", icon=":material/error:")
        return Source(b"", name, "", True, problem=str(exc))
    key = f"srv:{path}:{stamp}"
    if engine == "memory":  # read like an upload: every section of the page
        try:
            with open_regular(path) as fh:  # a FIFO swapped in since server_path's check: refused, never waited on
                return Source(fh.read(limits.max_bytes + 1), name, key, True)
        except EvalStatsError as exc:
            where.error(f"**{esc(name)} cannot be read on the server.** {esc(exc)}", icon=":material/error:")
            return Source(b"", name, "", True, problem=str(exc))
    return Source(b"", name, key, True, path=path)


@st.cache_resource(max_entries=2, show_spinner="Aggregating the files with DuckDB…", show_time=True)
def _sql_sums(key: str, path: str, name: str) -> Any:
    """The files' sufficient statistics from DuckDB (one query per file set, kept for the server: the folder is
    the server's own, the same for every visitor); a problem the user can fix is its message."""
    from evalstats_core.engine import sums_of

    try:
        return sums_of(path, engine="duckdb", name=name)
    except EvalStatsError as exc:
        return str(exc)


def sql_results(source: Source) -> tuple[Any, Results | None]:
    """The analysis controls and the analysis from DuckDB's sums (every setting recomputed from the sums);
    returns the sums and the results (None after an error, shown with ``st.error``)."""
    from evalstats_core.analysis import analyze_sums
    from evalstats_core.cli import with_command
    from evalstats_core.reading import ReadingOptions

    from .workbench import analysis_controls, ranking_of

    sums = _sql_sums(source.key, source.path, os.path.basename(source.path.rstrip("/")) or source.name)
    if isinstance(sums, str):
        st.session_state.pop(LAST_KEY, None)
        st.error(f"**{esc(source.name)} cannot be analyzed.** {say(sums)}", icon=":material/error:")
        return sums, None
    st.markdown(f"**Aggregated by DuckDB** from {esc(source.name)}: {sums.n_questions:,} questions, "
                f"{len(sums.models)} models ({', '.join(esc(m) for m in sums.models)}), "
                + (f"{len(sums.clusters):,} clusters in column '{esc(sums.cluster_col)}'."
                   if sums.clusters is not None else "no cluster column."))
    from .workbench_reading import reading_warnings

    reading_warnings(sums.warnings)  # the in-memory reader's checks, run in SQL: the upload's words
    st.markdown("---")
    settings = analysis_controls(sums.models)
    if settings["wild"]:
        st.info("The wild cluster bootstrap needs every question's score; DuckDB keeps only sums per model, pair "
                "and cluster, so it is left out here.", icon=":material/info:")
    opts = (settings["baseline"], settings["confidence"], settings["paired"], sums.clusters is not None,
            settings["adjust"], settings["method"], settings["cluster_se"], False)
    kw = dict(confidence=opts[1], paired=opts[2], use_clusters=opts[3], adjust=opts[4], interval=opts[5],
              method=opts[6])
    try:
        analysis = analyze_sums(sums, baseline=opts[0], **kw)
        everything = analysis if opts[0] is None else analyze_sums(sums, baseline=None, **kw)
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
    from . import workbench_sections as sections

    sums, res = sql_results(source)
    if res is None:
        return
    sections.models_section(content, sections.design_of(sums), res, res.opts[5])
    sections.compare_section(content, res)
    sections.rank_section(content, res)
    st.info("Read through DuckDB, which keeps sums per model, pair and cluster rather than the rows: the "
            "per-question sections (which questions two models disagree on, the guardrails, the plan for the next "
            "run, the downloadable analysis) need the rows. Analyze a file that fits in memory for them.",
            icon=":material/info:")
    from evalstats_core import report

    st.markdown("**Reproduce with the command line**")
    st.code(report.settings_document(res.analysis, file_name=source.name)["command"] + " --format json",
            language="bash")
