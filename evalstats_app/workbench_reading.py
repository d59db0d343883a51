"""The workbench's reading side: which files, and every choice about how they are read.

The widgets build one :class:`~evalstats_core.reading.ReadingOptions` (the command line builds the same
object from its flags), the files are read through it (cached, keyed on the files' hash and the options),
and the command the page exports names every file and every reading choice
(:func:`evalstats_core.cli.with_command`), so it reruns to the page's numbers (issue 19).

Tests feed files without a file uploader (AppTest cannot drive one) by putting ``{"name": ..., "data":
bytes}`` or ``{"files": [(name, bytes), ...]}`` in ``st.session_state[INJECT_KEY]`` before a run.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from dataclasses import dataclass, replace

import streamlit as st
from streamlit.runtime import scriptrunner
from streamlit.runtime.caching import cache_data_api, cache_resource_api

from evalstats_core._read import open_regular
from evalstats_core.data import Prepared, file_columns
from evalstats_core.engine import SERVER_DATA, _files, choose_engine, server_path
from evalstats_core.errors import RUNS_IN_IDS, UNREAD_CLUSTERS, EvalStatsError
from evalstats_core.importers import detect
from evalstats_core.limits import Limits
from evalstats_core.pairwise_data import file_kind
from evalstats_core.reading import ReadingOptions

from . import examples
from .option_words import CLUSTER_LABEL, DUPLICATES, NO_CLUSTER, SCALES, esc, for_workbench, say
from .workbench import (
    AUTO_CLUSTER,
    DETECT,
    EXAMPLE_PREFIX,
    FORMATS,
    INJECT_KEY,
    LAST_KEY,
    ROLE_KEYS,
    Source,
    by_scope,
    fix_choice,
)
from .workbench_bundle import open_bundle

#: what the uploader reads (issue 26): said in its label and accepted by extension
UPLOAD_TYPES = ["csv", "tsv", "txt", "gz", "bz2", "xz", "parquet", "pq", "jsonl", "json", "eval", "zip"]
MODEL_NAME_KEY = "analyze_model_name_"  # + the file's position: one name per uploaded file

#: What one session may hold of a visitor's files at once, in MB (the sum over the files it has read and keeps):
#: the one place it is set, overridden by the environment variable :data:`SESSION_ENV`. As large as one upload
#: may be (``server.maxUploadSize``), so any single file is read; the server memory it costs is measured by
#: ``bench/bench_session_memory.py`` and stated in the README (issue 46).
SESSION_MB = 200
SESSION_ENV = "EVALSTATS_SESSION_MB"
HELD_KEY = "_analyze_held"  # {source key: bytes} of the files whose readings this session keeps


def session_cap() -> int:
    """The per-session cap in bytes: :data:`SESSION_MB`, or ``EVALSTATS_SESSION_MB`` when the server sets it."""
    text = os.environ.get(SESSION_ENV, "").strip()
    try:
        mb = float(text) if text else SESSION_MB
    except ValueError:
        mb = SESSION_MB
    return int(mb * 2**20) if math.isfinite(mb) and mb > 0 else SESSION_MB * 2**20  # nan, inf, 0 or less: the default


def _release_session() -> None:
    """Drop every reading this session keeps (what Streamlit does when the tab closes): the session's own caches,
    never the examples' (shared by the server)."""
    ctx = scriptrunner.get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        cache_data_api.clear_session_cache(ctx.session_id)
        cache_resource_api.clear_session_cache(ctx.session_id)
    for key in ("_analyze_header", "_analyze_files_header", "_analyze_read"):
        st.session_state.pop(key, None)


def within_session_cap(source: Source, where) -> Source:
    """``source`` if the session can hold it, else a source whose ``problem`` says why (one ``st.error``).

    A session keeps the readings of the files it read (so going back to one is instant); the bytes of those files
    are summed. A new file that would take the sum past :func:`session_cap` first releases the earlier readings (the
    page shows one file at a time); files that alone are over the cap are refused, naming the cap and the fix."""
    size = sum(len(d) for _, d in source.files) if source.files else len(source.data)
    cap = session_cap()
    held = dict(st.session_state.get(HELD_KEY) or {})
    held.pop(source.key, None)
    if held and sum(held.values()) + size > cap:
        _release_session()
        held = {}
    if size > cap:
        _release_session()
        st.session_state[HELD_KEY] = {}
        st.session_state.pop(LAST_KEY, None)
        message = (f"The files are {size / 2**20:,.1f} MB, over this server's cap of {cap / 2**20:,.4g} MB of files "
                   "one session holds at once: remove files from the uploader to analyze fewer at once, or run the "
                   "same analysis on your own machine with the command line (evalbars), which has no such cap (the "
                   f"server's administrator sets it with {SESSION_ENV}).")
        where.error(f"**{esc(source.name)} cannot be analyzed here.** {message}", icon=":material/error:")
        return replace(source, problem=message)
    held[source.key] = size
    st.session_state[HELD_KEY] = held
    return source


@by_scope(st.cache_resource, max_entries=4, show_spinner="Reading and checking the files…", show_time=True)
def _prepare(key: str, opts: ReadingOptions, _files: tuple) -> Prepared | str:
    """The files read with ``opts``; a problem the user can fix is its message (shown with ``st.error``). A
    bundled example is read once per server, a visitor's files once per session (:func:`by_scope`)."""
    try:
        return opts.prepare(list(_files))
    except EvalStatsError as exc:
        return str(exc)


@st.cache_resource(show_spinner=False)
def _example_bytes(slug: str) -> tuple[bytes, str]:
    """A bundled example's bytes and name, read from disk once per server."""
    return examples.example_bytes(slug)


def header(source: Source) -> list[str]:
    """A results table's column names, read once per file (reruns use the session's copy)."""
    memo = st.session_state.get("_analyze_header")
    if not memo or memo[0] != source.key:
        memo = (source.key, list(file_columns(source.data, source.name)))
        st.session_state["_analyze_header"] = memo
    return memo[1]


def prepared_for(source: Source, opts: ReadingOptions) -> Prepared | str:
    return _prepare(source.key, opts, source.files or ((source.name, source.data),))


# ------------------------------------------------------------------------------------------- source
def _upload_hash(uploaded) -> str:
    memo = st.session_state.get("_analyze_upload_hash")
    if memo and memo[0] == uploaded.file_id:
        return memo[1]
    digest = hashlib.sha256(uploaded.getvalue()).hexdigest()
    st.session_state["_analyze_upload_hash"] = (uploaded.file_id, digest)
    return digest


def uploader_label(limit: int) -> str:
    """What the uploader reads, said where the user drops a file."""
    return (f"Or upload results files (up to {limit} MB each): a CSV or Parquet table (or gzip/bz2/xz "
            "compressed), JSONL, lm-eval samples (.jsonl, with their results_*.json), Inspect logs (.eval, .json), "
            "promptfoo results (.json), or an analysis you downloaded here (.zip). One file per model is fine. "
            "Pairwise preferences too: a table of prompt, model_a, model_b, winner, AlpacaEval annotations (.json) "
            "or Arena-Hard judgments (.jsonl).")


def source_controls(content) -> Source:
    """Pick an example or upload files; returns the files to analyze (an upload wins over the example)."""
    st.markdown(content["load"])
    left, right = st.columns(2)
    uploads = right.file_uploader(uploader_label(st.get_option("server.maxUploadSize")), type=UPLOAD_TYPES,
                                  accept_multiple_files=True, key="analyze_upload",
                                  help="Results tables: long (question, model, score) or wide (one column per "
                                       "model). Harness logs are read by their importers and joined on the question.")
    uploads = list(uploads or [])
    right.caption("Read in memory for this session only; never written to disk or kept. A link to this page "
                  "carries the settings only, never your file: to share the analysis itself, download it (section "
                  "8) and open the .zip here.")
    on_server = path_control(right)  # an upload wins over it, as over the example
    injected = st.session_state.get(INJECT_KEY)
    own = bool(uploads) or bool(injected) or on_server is not None
    slug = left.selectbox("Example", list(examples.EXAMPLES), format_func=lambda s: examples.EXAMPLES[s].label,
                          key="analyze_example", disabled=own)
    left.caption("Your file is analyzed below; remove it to return to the examples." if own
                 else esc(examples.EXAMPLES[slug].blurb))
    with left.expander("About the examples"):
        st.markdown(content["examples"])
    if injected and injected.get("files"):  # tests: several files at once
        source = _files_source([(str(n), bytes(d)) for n, d in injected["files"]])
    elif injected:
        data = bytes(injected["data"])
        name = str(injected["name"])  # the name is part of the key: it is in the analysis and its command
        source = Source(data, name, f"inj:{hashlib.sha256(name.encode() + b'/' + data).hexdigest()}", True)
    elif len(uploads) > 1:
        source = _files_source([(u.name, u.getvalue()) for u in uploads])
    elif uploads:
        source = Source(uploads[0].getvalue(), uploads[0].name, f"up:{_upload_hash(uploads[0])}:{uploads[0].name}",
                        True)
    elif on_server is not None:
        source = on_server
        if source.problem or source.path:  # refused (the message is shown), or DuckDB's: no bytes to read here
            return source
    else:
        data, name = _example_bytes(slug)
        return Source(data, name, f"{EXAMPLE_PREFIX}{slug}:{len(data)}", False)
    source = within_session_cap(source, right)
    if source.problem:
        return source
    if all(file_kind(data, name) is not None for name, data in (source.files or ((source.name, source.data),))):
        return replace(source, pairwise=True, table=False)  # battles, not scores: workbench_pairwise reads them
    source = open_bundle(source, right)
    if source.table:

        if detect(source.data) is not None:  # one harness log: read by its importer, like several
            source = _files_source([(source.name, source.data)])
    if source.table:
        with right:
            _read_with_status(source)
    return source


def _files_source(files: list[tuple[str, bytes]]) -> Source:
    """Several files, or harness logs: read by their importers and joined on the question (``load_many``)."""
    digest = hashlib.sha256(b"".join(hashlib.sha256(n.encode() + b"/" + d).digest() for n, d in files)).hexdigest()
    names = [n for n, _ in files]
    label = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more file" + \
        ("s" if len(names) > 2 else "")
    return Source(b"", label, f"files:{digest}", True, tuple(files), table=False)


def _read_with_status(source: Source) -> None:
    """Read a new file under a visible status box beside the uploader (the first read of a big file takes
    seconds); later reruns hit the cache and only say how long the read took."""
    opts = _table_options(header(source), roles=False)
    what = (source.key, opts)  # a changed reading choice reads (from the cache) again,
    done = st.session_state.get("_analyze_read")  # so a fixed file never keeps "could not be read"
    if done and done[0] == what:
        st.caption(done[1])  # already escaped
        return
    size = f"{len(source.data) / 1e6:.1f} MB" if len(source.data) >= 100_000 else f"{len(source.data) / 1e3:.1f} kB"
    with st.status(f"Reading {esc(source.name)} ({size})…", expanded=False) as box:
        start = time.perf_counter()
        result = prepared_for(source, opts)
        took = time.perf_counter() - start
        if isinstance(result, str):
            note = f"{esc(source.name)} could not be read: see the message below."
            box.update(label=note, state="error")
        else:
            note = f"Read {result.dataset.n_rows:,} scores from {esc(source.name)} ({size}) in {took:.1f} s."
            box.update(label=note, state="complete")
    st.session_state["_analyze_read"] = (what, note)


# ----------------------------------------------------------------------------------- reading options
def _text(key: str) -> str | None:
    value = str(st.session_state.get(key, "") or "").strip()
    return value or None


def _table_options(header: list, *, roles: bool = True) -> ReadingOptions:
    """A results table's reading choices from the widgets (``roles=False``: the column roles detected)."""
    ss = st.session_state
    ignore = tuple(x for x in ss.get("analyze_ignore_cols", []) if x in header)
    resample = ss.get("analyze_resample_col")
    common = dict(duplicates=ss.get("analyze_duplicates", "resamples"),
                  mixed_scales=ss.get("analyze_mixed_scales", "error"), ignore_cols=ignore,
                  runs_in_ids=bool(ss.get("analyze_runs_in_ids", False)),
                  resample_col=resample if resample in header else None)
    if not roles:
        return ReadingOptions(**common)
    fmt = ss.get("analyze_format", "auto")
    wide = fmt == "wide" or (fmt == "auto" and (ss.get("_analyze_detected") or ("",))[0] == "wide")
    cluster = ss.get("analyze_cluster_col")
    role = {k: ss.get(k) for k in ROLE_KEYS[1:4]}
    detected = ss.get("_analyze_detected")
    chosen = (fmt, role["analyze_question_col"], role["analyze_model_col"], role["analyze_score_col"], cluster)
    if detected is not None and chosen[:4] == detected[:4] and cluster in (detected[4], NO_CLUSTER):
        return ReadingOptions(**common)  # what detection found: the first read again (and the CLI's default)
    return ReadingOptions(layout=None if fmt == "auto" else fmt, question_col=role["analyze_question_col"],
                          model_col=None if wide else role["analyze_model_col"],
                          score_col=None if wide else role["analyze_score_col"],
                          cluster_col=None if cluster in (DETECT, NO_CLUSTER) else cluster, **common)


def _table_columns(source: Source) -> list[str]:
    """The columns every results table among several files has (harness logs have none), read once."""
    memo = st.session_state.get("_analyze_files_header")
    if memo and memo[0] == source.key:
        return memo[1]

    heads = [list(file_columns(d, n)) for n, d in source.files if detect(d) is None]
    common = [c for c in heads[0] if all(c in h for h in heads[1:])] if heads else []
    st.session_state["_analyze_files_header"] = (source.key, common)
    return common


def _files_options(source: Source) -> ReadingOptions:
    """Harness logs' or several files' reading choices from the widgets."""
    ss = st.session_state
    choice = ss.get("analyze_harness_cluster", AUTO_CLUSTER)
    names = tuple(_text(f"{MODEL_NAME_KEY}{i}") for i in range(len(source.files)))
    cols = _table_columns(source)
    resample = ss.get("analyze_resample_col")
    return ReadingOptions(cluster_col=None if choice in (AUTO_CLUSTER, NO_CLUSTER) else choice,
                          duplicates=ss.get("analyze_duplicates", "resamples"),
                          mixed_scales=ss.get("analyze_mixed_scales", "error"), metric=_text("analyze_metric"),
                          harness_filter=_text("analyze_filter"), model_names=names if any(names) else (),
                          ignore_cols=tuple(x for x in ss.get("analyze_ignore_cols", []) if x in cols),
                          resample_col=resample if resample in cols else None,
                          runs_in_ids=bool(ss.get("analyze_runs_in_ids", False)) and bool(cols))


def reading_options(source: Source) -> ReadingOptions:
    """The reading choices the widgets hold now, for ``source`` (one object: the caches' key, the reader's
    options and the exported command's reading flags)."""
    if source.table:
        return _table_options(header(source))
    return _files_options(source)


# ------------------------------------------------------------------------------------------ controls
@dataclass(frozen=True, slots=True)
class Reading:
    """What the reading controls give the rest of the page."""

    prepared: Prepared | None
    use_clusters: bool
    options: ReadingOptions


def _common_controls(where) -> None:
    """Duplicates and scales: the same two choices for every kind of file."""
    fix_choice("analyze_duplicates", list(DUPLICATES), "resamples")
    fix_choice("analyze_mixed_scales", list(SCALES), "error")
    a, b = where.columns(2)
    a.selectbox("Several rows for one question and model are", list(DUPLICATES), format_func=DUPLICATES.get,
                key="analyze_duplicates",
                help="Resamples (several answers to one question) are averaged per question. If your file should "
                     "have one row per question and model, choose error to see the duplicated rows.")
    b.selectbox("Models on different scales (0-1 against 0-100) are", list(SCALES), format_func=SCALES.get,
                key="analyze_mixed_scales",
                help="Usually a column read as a model that is not one (a token count), or a model scored in "
                     "percent beside models scored 0/1.")


def _error(source: Source, message: str) -> None:
    st.session_state.pop(LAST_KEY, None)
    st.error(f"**{esc(source.name)} cannot be analyzed.** {say(message)}", icon=":material/error:")


def _cluster_keys(prepared: Prepared | str) -> list[str]:
    """The cluster choices a harness log offers besides its importer's own: Inspect metadata keys, and lm-eval's
    subtasks ('task': read by default only with enough of them, so offered to choose, issue 46)."""
    if isinstance(prepared, str):
        return []
    task = ["task"] if prepared.dataset.file_type == "lm_eval" else []
    return task + [c.removeprefix("metadata.") for c in (prepared.dataset.extra or {}) if c.startswith("metadata.")]


def _files_controls(source: Source) -> Reading:
    """Harness logs or several files: metric, filter, a model name per file, the cluster, duplicates."""

    st.session_state.setdefault("analyze_duplicates", "resamples")
    if st.session_state.get("_analyze_names_for") != source.key:  # new files: no model names carried over
        for k in [k for k in st.session_state if str(k).startswith(MODEL_NAME_KEY)]:
            del st.session_state[k]
        st.session_state["_analyze_names_for"] = source.key
    c1, c2 = st.columns(2)
    c1.text_input("Metric or scorer (harness logs)", key="analyze_metric", placeholder="the first the log lists",
                  help="lm-eval: acc, acc_norm, exact_match...; Inspect: the scorer's name. The notes below say "
                       "which the log offers.")
    c2.text_input("Filter (lm-eval)", key="analyze_filter", placeholder="the task's first",
                  help="lm-evaluation-harness writes one line per document and filter (none, strict-match, "
                       "flexible-extract...); the notes below say which filter was read.")
    with st.expander("Model name of each file", expanded=len(source.files) <= 2):
        for i, (name, data) in enumerate(source.files):
            if detect(data) == "lm_eval_results":  # names the model of its run's samples: no name of its own
                continue
            st.text_input(name, key=f"{MODEL_NAME_KEY}{i}", placeholder="from the file",
                          help="The model's name for this file's scores, when the file does not say it or says "
                               "it wrongly (two runs of one model, say). On the command line: NAME=PATH.")
    cols = _table_columns(source)
    if cols:  # results tables among the files: their columns can be left out or number the runs
        _column_widgets(cols)
    _common_controls(st)
    choice = st.session_state.get("analyze_harness_cluster", AUTO_CLUSTER)
    opts = _files_options(source)
    prepared = prepared_for(source, opts)
    keys = list(dict.fromkeys([*_cluster_keys(prepared), *(c for c in cols if c not in opts.ignore_cols)]))
    if choice not in (AUTO_CLUSTER, NO_CLUSTER) and choice not in keys:
        keys.insert(0, choice)  # kept (and named by the error) until the user chooses again
    fix_choice("analyze_harness_cluster", [AUTO_CLUSTER, NO_CLUSTER, *keys], AUTO_CLUSTER)
    st.selectbox(CLUSTER_LABEL, [AUTO_CLUSTER, NO_CLUSTER, *keys], key="analyze_harness_cluster",
                 help="Questions that share a cluster were drawn together: standard errors are clustered on it. "
                      "The importer's own (the command line's default): lm-eval's subtasks of a group (MMLU's "
                      "subjects); an Inspect metadata key named subject, category, group, source or cluster; a "
                      "results table's column named cluster, group, passage... Choose none, or another Inspect "
                      "metadata key or table column, to change it.")
    runs = bool(st.session_state.get("analyze_runs_in_ids", False))
    if cols and not isinstance(prepared, str) and (runs or any(getattr(w, "code", None) == RUNS_IN_IDS for w in prepared.dataset.warnings)):
        st.checkbox("Read question ids like 1.1, 1.2 as runs of question 1 (resamples averaged per question)",
                    key="analyze_runs_in_ids")
    if isinstance(prepared, str):
        _error(source, prepared)
        return Reading(None, False, opts)
    use = st.session_state.get("analyze_harness_cluster", AUTO_CLUSTER) != NO_CLUSTER
    _inferred(prepared, use)
    return Reading(prepared, use and prepared.dataset.cluster_col is not None, opts)


def _detected_roles(ds) -> tuple:
    cluster = ds.cluster_col if ds.cluster_col is not None else NO_CLUSTER
    return (ds.format, ds.question_col, ds.model_col, ds.score_col, cluster)


def _new_table(source: Source, header: list) -> None:
    """A new results table: detect its roles once and set the role widgets to them."""
    first = prepared_for(source, _table_options(header, roles=False))
    detected = None if isinstance(first, str) else _detected_roles(first.dataset)
    for key, value in zip(ROLE_KEYS, detected or ("auto", DETECT, DETECT, DETECT, DETECT), strict=False):
        st.session_state[key] = value
    st.session_state["_analyze_detected"] = detected
    st.session_state["_analyze_roles_for"] = source.key


def _role_widgets(header: list) -> None:
    fix_choice("analyze_format", list(FORMATS), "auto")
    for key in ROLE_KEYS[1:4]:
        fix_choice(key, [DETECT, *header], DETECT)
    fix_choice("analyze_cluster_col", [DETECT, NO_CLUSTER, *header], DETECT)
    cols = st.columns(5)
    fmt = cols[0].selectbox("Layout", list(FORMATS), format_func=FORMATS.get, key="analyze_format",
                            help="Long: one row per answer (question, model, score). Wide: one row per question, "
                                 "one column per model.")
    cols[1].selectbox("Question column", header, key="analyze_question_col", placeholder="detect")
    wide = fmt == "wide" or (fmt == "auto" and (st.session_state.get("_analyze_detected") or ("",))[0] == "wide")
    cols[2].selectbox("Model column", header, key="analyze_model_col", placeholder="detect",
                      disabled=wide, help="Wide form has one column per model instead.")
    cols[3].selectbox("Score column", header, key="analyze_score_col", placeholder="detect",
                      disabled=wide, help="Wide form has one column per model instead.")
    cols[4].selectbox(CLUSTER_LABEL, [NO_CLUSTER, *header], key="analyze_cluster_col",
                      placeholder="detect", help="Questions that share a value were sampled together "
                                                 "(a passage, a source question): standard errors are clustered on "
                                                 "it. A column named cluster, group, passage... is found by itself "
                                                 "(as on the command line); choose (none) to leave it out.")


def _column_widgets(header: list) -> None:
    """Columns left out and the resample column (each only among this file's columns)."""
    ss = st.session_state
    q = ss.get("analyze_question_col")
    current = [x for x in ss.get("analyze_ignore_cols", []) if x in header]
    if current != ss.get("analyze_ignore_cols", []):
        ss["analyze_ignore_cols"] = current  # a new file: keep only its own columns
    if ss.get("analyze_resample_col") not in header:
        ss["analyze_resample_col"] = None  # none until the user picks one (a selectbox would take the first)
    a, b = st.columns([2, 1])
    a.multiselect("Columns to leave out", [h for h in header if h != q], key="analyze_ignore_cols",
                  placeholder="none", help="Columns that are neither the question, a model nor a cluster (a prompt, "
                                           "a reference answer, a token count): in a wide file every other column is "
                                           "read as a model.")
    b.selectbox("Resample column", header, key="analyze_resample_col", placeholder="none",
                help="A column numbering the runs (epoch, sample): rows it tells apart are answers to the same "
                     "question, averaged per question.")


def _table_controls(source: Source) -> Reading:
    cols = header(source)
    st.session_state.setdefault("analyze_duplicates", "resamples")
    if len(cols) > 500:  # a very wide file: no column pickers with thousands of options, just the message
        first = prepared_for(source, _table_options(cols, roles=False))
        if isinstance(first, str):
            _error(source, first)
            return Reading(None, False, _table_options(cols, roles=False))
    if st.session_state.get("_analyze_roles_for") != source.key:
        _new_table(source, cols)
    _role_widgets(cols)
    _column_widgets(cols)
    _common_controls(st)
    opts = _table_options(cols)
    use_clusters = st.session_state.get("analyze_cluster_col") != NO_CLUSTER
    prepared = prepared_for(source, opts)  # the same options as the first read when nothing changed: one parse
    runs = bool(st.session_state.get("analyze_runs_in_ids", False))
    if not isinstance(prepared, str) and (runs or any(getattr(w, "code", None) == RUNS_IN_IDS for w in prepared.dataset.warnings)):
        st.checkbox("Read question ids like 1.1, 1.2 as runs of question 1 (resamples averaged per question)",
                    key="analyze_runs_in_ids",
                    help="Offered because many ids look like runs of another question; never applied unless you "
                         "tick it. Runs counted as separate questions make every standard error too small.")
    if isinstance(prepared, str):
        _error(source, prepared)
        st.caption("Fix the file, or change the column roles above; the rest of the page waits for a readable file.")
        return Reading(None, use_clusters, opts)
    _inferred(prepared, use_clusters)
    return Reading(prepared, use_clusters, opts)


def roles_controls(content, source: Source) -> Reading:
    """Every reading choice the command line has, for this kind of file; returns the prepared files (None
    after an error), whether to cluster, and the reading options."""
    st.markdown(content["columns"])
    if source.table:
        return _table_controls(source)
    return _files_controls(source)


_IMPORTER = {"lm_eval": "lm-evaluation-harness", "inspect_eval": "Inspect", "inspect_json": "Inspect",
             "promptfoo": "promptfoo", "joined": "harness and results-file"}


def _inferred(prepared: Prepared, use_clusters: bool) -> None:
    ds = prepared.dataset
    kind = ("**binary** (every score is 0 or 1)" if ds.score_kind == "binary"
            else "**continuous** (partial credit or a rating)")
    k = (f"**{ds.k_typical}** answers per question and model (from {ds.k_min} to {ds.k_max}): they are "
         "averaged into one score per question, never pooled" if ds.k_max > 1
         else "**one** answer per question and model")
    if ds.n_clusters is not None and use_clusters:
        sizes = (f"{ds.cluster_size_min} questions each" if ds.cluster_size_min == ds.cluster_size_max else
                 f"{ds.cluster_size_min}–{ds.cluster_size_max} questions (mean {ds.cluster_size_mean:.1f})")
        cl = f"**{ds.n_clusters:,}** clusters in column '{esc(ds.cluster_col)}', of {sizes}"
    elif ds.n_clusters is not None:
        cl = f"cluster column '{esc(ds.cluster_col)}' found but **not used** (cluster set to none)"
    else:  # a cluster column found by its name with too few clusters is not read: its note says so (issue 46)
        unread = next((n for n in ds.notes if getattr(n, "code", None) == UNREAD_CLUSTERS), None)
        cl = ("**no** cluster column: questions are treated as independent" if unread is None else
              f"**not clustered**: {say(unread)}")
    st.markdown(
        f"**What was inferred** from {esc(ds.name)} ("
        + (f"{ds.file_type.upper()}, {ds.format} form, " if ds.format in ("long", "wide") else
           f"read by the {_IMPORTER.get(ds.format, ds.format)} importer, ")
        + f"{ds.n_rows:,} scores): {ds.n_questions:,} questions, {len(ds.models)} model{'' if len(ds.models) == 1 else 's'} "
        f"({', '.join(esc(m) for m in ds.models)}); scores are {kind}; {k}; {cl}.")
    reading_warnings(ds.warnings)
    with st.expander("How the file was read"):
        for note in ds.notes:  # an option named as the API names it (cluster_col=) is named as its control here
            st.text("• " + for_workbench(note))


def reading_warnings(warnings) -> None:
    """What reading the file found worth a warning (``Dataset.warnings``, or ``FileSums.warnings`` from DuckDB:
    the same checks, the same words), one box each."""
    for w in warnings:
        st.warning(say(w), icon=":material/warning:")


PATH_KEY = "analyze_server_path"



#: a file the in-memory path reads; anything else bigger than the budget must be a table DuckDB reads
SQL_TABLES = (".parquet", ".pq", ".csv")



def enabled() -> bool:
    """True when the server's administrator named a data folder (``EVALSTATS_SERVER_DATA``)."""

    return bool(os.environ.get(SERVER_DATA))



def _stamp(path: str) -> str:
    """Size and modification time of a file, or of every file a folder holds: a changed file is read again."""

    files = _files(path)[0] if os.path.isdir(path) else [path]
    stats = [os.stat(f) for f in files]
    return f"{len(files)}:{sum(s.st_size for s in stats)}:{max(s.st_mtime_ns for s in stats)}"



def path_control(where) -> Source | None:
    """The server path box (only when the server offers one); returns the source it names, None when empty.

    A refused name (outside the folder, missing, a pattern, the option off) is one ``st.error`` and a source
    whose :attr:`~evalstats_app.workbench.Source.problem` says so (the page then stops there)."""

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
