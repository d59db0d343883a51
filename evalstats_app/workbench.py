"""The results workbench's widgets, file reading and cached analysis (``pages/analyze.py`` calls these
top to bottom; the result sections are in :mod:`evalstats_app.workbench_sections`).

Each ``*_controls`` function draws a group of widgets and returns plain values. The expensive
middle is cached with ``st.cache_data`` keyed on a hash of the file's bytes and the column roles (the bytes themselves are
not hashed again on every rerun), so moving a control never re-reads the file.

Tests feed a file without a file uploader (AppTest cannot drive one) by putting
``{"name": ..., "data": bytes}`` in ``st.session_state[INJECT_KEY]`` before a run.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

import streamlit as st

from evalstats_core import report
from evalstats_core.analysis import ADJUST_LABELS
from evalstats_core.data import Prepared, file_columns, prepare
from evalstats_core.errors import EvalStatsError

from . import examples

INJECT_KEY = "_analyze_injected"
LAST_KEY = "_analyze_last"  # the Analysis the page shows (read by tests that compare with the command line)
ALL_PAIRS = "(all pairs)"
NO_CLUSTER = "(none)"
DETECT = None  # a role widget left empty means "detect from the column names"
FORMATS = {"auto": "detect", "long": "long", "wide": "wide"}
ADJUST = {"holm": f"{ADJUST_LABELS['holm']} (family-wise)", "bh": f"{ADJUST_LABELS['bh']} (false discovery rate)",
          "none": "none"}
MODES = {"results": "Per-question results", "reported": "Only reported numbers"}
CONFIDENCES = (0.8, 0.9, 0.95, 0.99)
PROPORTION_METHODS = {"wilson": "Wilson", "wald": "Wald (CLT)", "clopper_pearson": "Clopper-Pearson",
                      "bayes": "Bayesian (Beta)"}
ROLE_KEYS = ("analyze_format", "analyze_question_col", "analyze_model_col", "analyze_score_col",
             "analyze_cluster_col", "analyze_duplicates")
#: Every choice about how the file is read: the caches of the analysis are keyed on all of them.
READ_KEYS = (*ROLE_KEYS, "analyze_ignore_cols", "analyze_runs_in_ids", "analyze_metric", "analyze_model_name",
             "analyze_filter", "analyze_harness_cluster")
#: the harness-log cluster choice: the importer's own (a metadata key named subject, category...), or none
AUTO_CLUSTER = "(found by the importer)"


def read_key() -> tuple:
    """The current reading choices, hashable (a list becomes a tuple), for the analysis caches."""
    return tuple(tuple(v) if isinstance(v, list) else v for v in (st.session_state.get(k) for k in READ_KEYS))
DUPLICATES = {"resamples": "resamples (averaged)", "error": "an error (duplicated rows)"}
#: beyond this many models the all-pairs views (matrix, every-pair chart) give way to "every model against
#: the leader": 40 models are 780 pairs; 110 models (5,995 pairs) passed Altair's 5,000-row limit (issue 13)
ALL_PAIRS_MAX_MODELS = 40

#: every setting that goes into the URL, with its default (UrlState)
DEFAULTS: dict[str, Any] = {
    "analyze_mode": "results", "analyze_example": "atlas_breeze", "analyze_confidence": 0.95,
    "analyze_method": "auto", "analyze_baseline": ALL_PAIRS, "analyze_adjust": "holm", "analyze_paired": True,
    "analyze_cluster_se": "cr2", "analyze_wild": False,
    "analyze_delta": 3.0, "analyze_alpha": 0.05, "analyze_power": 0.8, "analyze_reported_method": "wilson",
}
BOUNDS = {"analyze_delta": (0.01, 100.0), "analyze_alpha": (0.001, 0.5), "analyze_power": (0.5, 0.99)}
CHOICES = {"analyze_mode": tuple(MODES), "analyze_example": tuple(examples.EXAMPLES),
           "analyze_confidence": CONFIDENCES, "analyze_method": tuple(report.INTERVAL_METHODS),
           "analyze_cluster_se": tuple(report.SE_METHODS),
           "analyze_adjust": tuple(ADJUST), "analyze_reported_method": tuple(PROPORTION_METHODS)}

def esc(text: Any) -> str:
    """User text made inert for ``st.markdown``: the one Streamlit escaper (evalstats_core.escape)."""
    from evalstats_core.escape import escape_streamlit

    return escape_streamlit(text)


def fix_choice(key: str, options: list, fallback: Any) -> None:
    """Reset a widget's state when it is not among ``options`` (e.g. the file changed)."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = fallback


# ------------------------------------------------------------------------------------------ caching
@dataclass(frozen=True, slots=True)
class Source:
    """The file being analysed: its bytes, display name, and a key (hash) for the caches."""

    data: bytes
    name: str
    key: str
    uploaded: bool
    files: tuple = ()  # (name, bytes) of harness logs or of several files: read by their importers and joined


@st.cache_resource(max_entries=4, show_spinner="Reading and checking the results file…", show_time=True,
               scope="session")
def _prepare(key: str, roles: tuple, name: str, _data: bytes, duplicates: str = "resamples",
             ignore: tuple = (), runs: bool = False) -> Prepared | str:
    fmt, q, m, s, c = roles
    try:
        return prepare(_data, name, format=fmt, question_col=q, model_col=m, score_col=s, cluster_col=c,
                              duplicates=duplicates, ignore_cols=ignore, runs_in_ids=runs)
    except MemoryError:
        return (f"{name} does not fit in this server's memory; analyse a smaller file (e.g. one score per question "
                "and model), or ask the operator to lower the budgets (EVALSTATS_MAX_ROWS) so that it is refused "
                "up front")
    except EvalStatsError as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - never a traceback on the page
        return f"{name} could not be read ({type(exc).__name__}: {exc}); check that it is a CSV or Parquet results file"


def session_gone():
    """A check for the analysis loop: True once this browser session has disconnected (the tab closed), so
    work for nobody stops (its exception is not cached; a reconnecting tab recomputes). None without a
    server (AppTest, bare mode)."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if not runtime.exists() or ctx is None:
        return None
    rt, sid = runtime.get_instance(), ctx.session_id
    return lambda: not rt.is_active_session(sid)


@st.cache_data(max_entries=32, show_spinner=False, scope="session")
def _analyze(key: str, roles: tuple, opts: tuple, _prepared: Prepared):
    from evalstats_core.analysis import analyze

    baseline, confidence, paired, use_clusters, adjust, interval, cluster_se, wild = opts
    try:  # the question table carries the file's roles and notes: the analysis is the command line's
        return analyze(_prepared.table, baseline=baseline, confidence=confidence, paired=paired,
                       use_clusters=use_clusters, adjust=adjust, interval=interval, method=cluster_se,
                       wild_bootstrap=wild, should_stop=session_gone())
    except EvalStatsError as exc:
        return str(exc)


@st.cache_data(max_entries=16, show_spinner=False, scope="session")
def _extras(key: str, roles: tuple, opts: tuple, method: str, _prepared: Prepared, _analysis, _all_pairs):
    """Guardrails and the ranking (from the all-pairs analysis), computed once per setting."""
    from evalstats_core.guardrails import guardrails
    from evalstats_core.ranking import rank_models

    shown = report.model_intervals(_analysis)
    guards = guardrails(_prepared.dataset, _prepared.table, _analysis, extra_clusters=_prepared.extra_clusters,
                        intervals={r.model: (r.ci_low, r.ci_high) for r in shown.itertuples()})
    ranking = rank_models({m.model: m.mean for m in _all_pairs.models},
                          [(c.model, c.baseline, c.p_adjusted, c.diff) for c in _all_pairs.comparisons],
                          alpha=1.0 - _all_pairs.confidence)
    return guards, ranking


# ---------------------------------------------------------------------------------------- controls
def mode_control(content) -> str:
    """Per-question results or only reported numbers."""
    st.markdown(content["mode_help"])
    return st.radio("What do you have?", list(MODES), format_func=MODES.get, horizontal=True, key="analyze_mode")


def _upload_hash(uploaded) -> str:
    memo = st.session_state.get("_analyze_upload_hash")
    if memo and memo[0] == uploaded.file_id:
        return memo[1]
    digest = hashlib.sha256(uploaded.getvalue()).hexdigest()
    st.session_state["_analyze_upload_hash"] = (uploaded.file_id, digest)
    return digest


def source_controls(content) -> Source:
    """Pick an example or upload a file; returns the file to analyse (an upload wins over the example)."""
    st.markdown(content["load"])
    limit = st.get_option("server.maxUploadSize")
    left, right = st.columns(2)
    uploads = right.file_uploader(f"Or upload results files (CSV or Parquet, up to {limit} MB each; harness logs: "
                                  "lm-eval samples .jsonl, Inspect .eval/.json, promptfoo .json; one file per model "
                                  "is fine), or an analysis you downloaded (.zip)",
                                  type=["csv", "tsv", "txt", "parquet", "pq", "zip", "jsonl", "json", "eval"],
                                  accept_multiple_files=True, key="analyze_upload")
    uploads = list(uploads or [])
    uploaded = uploads[0] if len(uploads) == 1 else None
    right.caption("Read in memory for this session only; never written to disk or kept. A link to this page "
                  "carries the settings only, never your file: to share the analysis itself, download it (section "
                  "8) and open the .zip here.")
    injected = st.session_state.get(INJECT_KEY)
    own = bool(uploads) or bool(injected)
    slug = left.selectbox("Example", list(examples.EXAMPLES), format_func=lambda s: examples.EXAMPLES[s].label,
                          key="analyze_example", disabled=own)
    left.caption("Your file is analysed below; remove it to return to the examples." if own
                 else esc(examples.EXAMPLES[slug].blurb))
    with left.expander("About the examples"):
        st.markdown(content["examples"])
    if injected and injected.get("files"):  # tests: several files at once
        source = _files_source([(str(n), bytes(d)) for n, d in injected["files"]], right)
    elif injected:
        data = bytes(injected["data"])
        source = Source(data, str(injected["name"]), "inj:" + hashlib.sha256(data).hexdigest(), True)
    elif len(uploads) > 1:
        source = _files_source([(u.name, u.getvalue()) for u in uploads], right)
    elif uploaded is not None:
        source = Source(uploaded.getvalue(), uploaded.name, "up:" + _upload_hash(uploaded), True)
    else:
        data, name = examples.example_bytes(slug)
        return Source(data, name, f"example:{slug}:{len(data)}", False)
    source = _open_bundle(source, right)
    if not source.files:
        from evalstats_core.importers import detect

        if detect(source.data) is not None:  # one harness log: read by its importer, like several
            source = _files_source([(source.name, source.data)], right)
    if source.files:
        return source
    with right:
        _read_with_status(source)
    return source


def _files_source(files: list[tuple[str, bytes]], where) -> Source:
    """Several files, or harness logs: read by their importers and joined on the question (data.load_many).
    The metric (or Inspect scorer) and a model name for a log that does not say it are asked here."""
    digest = hashlib.sha256(b"".join(hashlib.sha256(d).digest() for _, d in files)).hexdigest()
    names = [n for n, _ in files]
    c1, c2, c3 = where.columns(3)
    c1.text_input("Metric or scorer (harness logs)", key="analyze_metric", placeholder="the first the log lists",
                  help="lm-eval: acc, acc_norm, exact_match...; Inspect: the scorer's name. The notes below say "
                       "which the log offers.")
    c2.text_input("Filter (lm-eval)", key="analyze_filter", placeholder="the task's first",
                  help="lm-evaluation-harness writes one line per document and filter (none, strict-match, "
                       "flexible-extract...); the notes below say which filter was read.")
    c3.text_input("Model name (a log that does not name it)", key="analyze_model_name", placeholder="from the log")
    label = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more file" + \
        ("s" if len(names) > 2 else "")
    return Source(b"", label, f"files:{digest}", True, tuple(files))


@st.cache_resource(max_entries=4, show_spinner="Reading the harness logs…", scope="session")
def _prepare_files(key: str, metric: str, harness_filter: str, model_name: str, cluster: str, duplicates: str,
                   _files: tuple) -> Prepared | str:
    options = {"metric": metric or None, "harness_filter": harness_filter or None, "duplicates": duplicates,
               "cluster_col": cluster or None}
    try:
        if len(_files) == 1:
            name, data = _files[0]
            return prepare(data, name, model_name=model_name or None, **options)
        return prepare(list(_files), **options)
    except EvalStatsError as exc:
        return str(exc)
    except MemoryError:
        return "these files do not fit in this server's memory; analyse fewer or smaller files"


#: Workbench settings a downloaded analysis carries (the example and the mode are not part of it).
BUNDLED = tuple(k for k in DEFAULTS if k not in ("analyze_mode", "analyze_example", "analyze_reported_method"))


def bundle_settings() -> dict[str, Any]:
    """The current settings, for a downloaded analysis (see :mod:`evalstats_core.bundle`)."""
    return {k: st.session_state.get(k, DEFAULTS[k]) for k in BUNDLED}


def _open_bundle(source: Source, where) -> Source:
    """An uploaded analysis bundle becomes its Parquet data; its settings are applied once, checked
    against the page's own choices and bounds (anything else is ignored, with a note)."""
    from evalstats_core.bundle import read_bundle

    try:
        bundle = read_bundle(source.data)
    except EvalStatsError as exc:
        where.error(f"**{esc(source.name)} cannot be opened.** {esc(exc)}", icon=":material/error:")
        return source
    if bundle is None:
        return source
    opened = Source(bundle.data, bundle.name.rsplit(".", 1)[0] + ".parquet", "bundle:" + source.key, True)
    if st.session_state.get("_analyze_bundle_applied") != opened.key:
        skipped = []
        for key, value in bundle.settings.items():
            if key == "command":  # for people reading settings.json; the page does not need it
                continue
            ok = key in BUNDLED and _valid(key, value)
            if ok:
                st.session_state[key] = value
            else:
                skipped.append(key)
        st.session_state["_analyze_bundle_applied"] = opened.key
        st.session_state["_analyze_bundle_note"] = (
            f"Opened the analysis of {esc(bundle.name)} with its settings"
            + (f" (ignored: {esc(', '.join(map(str, skipped[:5])))})" if skipped else "") + ".")
    where.caption(st.session_state.get("_analyze_bundle_note", ""))
    return opened


def _valid(key: str, value: Any) -> bool:
    """A bundled setting the page can take: one of its choices, within its bounds, or of its type."""
    if key in CHOICES:
        return value in CHOICES[key]
    if key in BOUNDS:
        lo, hi = BOUNDS[key]
        return isinstance(value, int | float) and not isinstance(value, bool) and lo <= value <= hi
    default = DEFAULTS[key]
    return isinstance(value, type(default)) and (not isinstance(default, bool) or isinstance(value, bool))


def _read_with_status(source: Source) -> None:
    """Read a new file under a visible status box beside the uploader (the first read of a big file takes
    seconds); later reruns hit the cache and only say how long the read took."""
    ignored = _ignored(list(file_columns(source.data, source.name)))
    duplicates = st.session_state.get("analyze_duplicates", "resamples")
    what = (source.key, ignored, _runs(), duplicates)  # a changed reading choice reads (from the cache) again,
    done = st.session_state.get("_analyze_read")        # so a fixed file never keeps "could not be read"
    if done and done[0] == what:
        st.caption(done[1])  # already escaped
        return
    size = f"{len(source.data) / 1e6:.1f} MB" if len(source.data) >= 100_000 else f"{len(source.data) / 1e3:.1f} kB"
    with st.status(f"Reading {esc(source.name)} ({size})…", expanded=False) as box:
        start = time.perf_counter()
        result = _prepare(source.key, (None,) * 5, source.name, source.data, duplicates, ignored, _runs())
        took = time.perf_counter() - start
        if isinstance(result, str):
            note = f"{esc(source.name)} could not be read: see the message below."
            box.update(label=note, state="error")
        else:
            note = f"Read {result.dataset.n_rows:,} scores from {esc(source.name)} ({size}) in {took:.1f} s."
            box.update(label=note, state="complete")
    st.session_state["_analyze_read"] = (what, note)


def _detected_roles(ds) -> tuple:
    cluster = ds.cluster_col if ds.cluster_col is not None else NO_CLUSTER
    return (ds.format, ds.question_col, ds.model_col, ds.score_col, cluster)


def _set_roles(values: tuple) -> None:
    for key, value in zip(ROLE_KEYS, values, strict=False):
        st.session_state[key] = value


def _ignored(header: list) -> tuple:
    """The columns the user left out (only those of this file), as the caches' key wants them."""
    return tuple(x for x in st.session_state.get("analyze_ignore_cols", []) if x in header)


def _runs() -> bool:
    return bool(st.session_state.get("analyze_runs_in_ids", False))


def _harness_roles(source: Source) -> tuple[Prepared | None, bool]:
    """Harness logs: the importers know the roles; the user may choose the cluster among the Inspect
    metadata keys every sample has (or none)."""
    text = {k: str(st.session_state.get(k, "") or "") for k in ("analyze_metric", "analyze_filter", "analyze_model_name")}
    choice = st.session_state.get("analyze_harness_cluster", AUTO_CLUSTER)
    cluster = "" if choice in (AUTO_CLUSTER, NO_CLUSTER) else choice
    prepared = _prepare_files(source.key, text["analyze_metric"], text["analyze_filter"], text["analyze_model_name"],
                              cluster, st.session_state["analyze_duplicates"], source.files)
    keys = [] if isinstance(prepared, str) else [
        c.removeprefix("metadata.") for c in (prepared.dataset.extra or {}) if c.startswith("metadata.")]
    if cluster and cluster not in keys:
        keys.insert(0, cluster)  # kept (and named by the error) until the user chooses again
    if keys:
        fix_choice("analyze_harness_cluster", [AUTO_CLUSTER, NO_CLUSTER, *keys], AUTO_CLUSTER)
        st.selectbox("Cluster (a metadata key of the Inspect samples)", [AUTO_CLUSTER, NO_CLUSTER, *keys],
                     key="analyze_harness_cluster",
                     help="Samples that share the key's value were drawn together (a subject, a source document): "
                          "standard errors are clustered on it. The importer picks a key named subject, category, "
                          "group, source or cluster when there is one.")
    if isinstance(prepared, str):
        st.session_state.pop(LAST_KEY, None)
        st.error(f"**{esc(source.name)} cannot be analysed.** {esc(prepared)}", icon=":material/error:")
        return None, False
    use = st.session_state.get("analyze_harness_cluster", AUTO_CLUSTER) != NO_CLUSTER
    _inferred(prepared, use)
    return prepared, use and prepared.dataset.cluster_col is not None


def roles_controls(content, source: Source) -> tuple[Prepared | None, bool]:
    """Confirm the columns; returns the prepared file (None after an error) and whether to cluster."""
    st.markdown(content["columns"])
    if source.files:  # harness logs or several files: their importers know the roles
        st.session_state.setdefault("analyze_duplicates", "resamples")
        return _harness_roles(source)
    header = list(file_columns(source.data, source.name))
    auto = (None, None, None, None, None)
    st.session_state.setdefault("analyze_duplicates", "resamples")
    fix_choice("analyze_duplicates", list(DUPLICATES), "resamples")
    duplicates = st.session_state["analyze_duplicates"]
    if len(header) > 500:  # a very wide file: no column pickers with thousands of options, just the message
        first = _prepare(source.key, auto, source.name, source.data, duplicates, _ignored(header), _runs())
        if isinstance(first, str):
            st.session_state.pop(LAST_KEY, None)
            st.error(f"**{esc(source.name)} cannot be analysed.** {esc(first)}", icon=":material/error:")
            return None, False
    if st.session_state.get("_analyze_roles_for") != source.key:  # a new file: detect its roles
        first = _prepare(source.key, auto, source.name, source.data, duplicates, _ignored(header), _runs())
        if isinstance(first, str):
            _set_roles(("auto", DETECT, DETECT, DETECT, DETECT))
            st.session_state["_analyze_detected"] = None
        else:
            _set_roles(_detected_roles(first.dataset))
            st.session_state["_analyze_detected"] = _detected_roles(first.dataset)
        st.session_state["_analyze_roles_for"] = source.key
    fix_choice("analyze_format", list(FORMATS), "auto")
    for key in ROLE_KEYS[1:4]:
        fix_choice(key, [DETECT, *header], DETECT)
    fix_choice("analyze_cluster_col", [DETECT, NO_CLUSTER, *header], DETECT)
    cols = st.columns(5)
    fmt = cols[0].selectbox("Layout", list(FORMATS), format_func=FORMATS.get, key="analyze_format",
                            help="Long: one row per answer (question, model, score). Wide: one row per question, "
                                 "one column per model.")
    q = cols[1].selectbox("Question column", header, key="analyze_question_col", placeholder="detect")
    wide = fmt == "wide" or (fmt == "auto" and (st.session_state.get("_analyze_detected") or ("",))[0] == "wide")
    m = cols[2].selectbox("Model column", header, key="analyze_model_col", placeholder="detect",
                          disabled=wide, help="Wide form has one column per model instead.")
    s = cols[3].selectbox("Score column", header, key="analyze_score_col", placeholder="detect",
                          disabled=wide, help="Wide form has one column per model instead.")
    c = cols[4].selectbox("Cluster column", [NO_CLUSTER, *header], key="analyze_cluster_col",
                          placeholder="detect", help="Questions that share a value were sampled together "
                                                     "(a passage, a source question): standard errors are clustered on it.")
    chosen = (fmt, q, m, s, c)
    use_clusters = c != NO_CLUSTER
    detected = st.session_state.get("_analyze_detected")
    if detected is not None and chosen[:4] == detected[:4] and (c == detected[4] or c == NO_CLUSTER):
        roles = auto  # what detection found: reuse the first read
    else:
        roles = (None if fmt == "auto" else fmt, q, None if wide else m, None if wide else s,
                 None if c in (DETECT, NO_CLUSTER) else c)
    current = [x for x in st.session_state.get("analyze_ignore_cols", []) if x in header]
    if current != st.session_state.get("analyze_ignore_cols", []):
        st.session_state["analyze_ignore_cols"] = current  # a new file: keep only its own columns
    ignore = tuple(st.multiselect(
        "Columns to leave out", [h for h in header if h != q], key="analyze_ignore_cols",
        placeholder="none", help="Columns that are neither the question, a model nor a cluster (a prompt, a reference "
                                 "answer, a token count): in a wide file every other column is read as a model."))
    st.selectbox("Several rows for one question and model are", list(DUPLICATES), format_func=DUPLICATES.get,
                 key="analyze_duplicates",
                 help="Resamples (several answers to one question) are averaged per question. If your file should "
                      "have one row per question and model, choose error to see the duplicated rows.")
    runs = bool(st.session_state.get("analyze_runs_in_ids", False))
    prepared = _prepare(source.key, roles, source.name, source.data, st.session_state["analyze_duplicates"], ignore,
                        runs)  # the same arguments as the first read when nothing changed: one parse
    if not isinstance(prepared, str) and (runs or any("look like runs" in w for w in prepared.dataset.warnings)):
        st.checkbox("Read question ids like 1.1, 1.2 as runs of question 1 (resamples averaged per question)",
                    key="analyze_runs_in_ids",
                    help="Offered because many ids look like runs of another question; never applied unless you "
                         "tick it. Runs counted as separate questions make every standard error too small.")
    if isinstance(prepared, str):
        st.session_state.pop(LAST_KEY, None)
        st.error(f"**{esc(source.name)} cannot be analysed.** {esc(prepared)}", icon=":material/error:")
        st.caption("Fix the file, or change the column roles above; the rest of the page waits for a readable file.")
        return None, use_clusters
    _inferred(prepared, use_clusters)
    return prepared, use_clusters


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
    else:
        cl = "**no** cluster column: questions are treated as independent"
    st.markdown(
        f"**What was inferred** from {esc(ds.name)} ("
        + (f"{ds.file_type.upper()}, {ds.format} form, " if ds.format in ("long", "wide") else
           f"read by the {_IMPORTER.get(ds.format, ds.format)} importer, ")
        + f"{ds.n_rows:,} scores): {ds.n_questions:,} questions, {len(ds.models)} model{'' if len(ds.models) == 1 else 's'} "
        f"({', '.join(esc(m) for m in ds.models)}); scores are {kind}; {k}; {cl}.")
    for w in ds.warnings:
        st.warning(esc(w), icon=":material/warning:")
    with st.expander("How the file was read"):
        for note in ds.notes:
            st.text("• " + note)


def analysis_controls(models: tuple[str, ...]) -> dict[str, Any]:
    """Confidence, interval method, baseline, adjustment, pairing; returns them as plain values."""
    fix_choice("analyze_baseline", [ALL_PAIRS, *models], ALL_PAIRS)
    a, b, c, d = st.columns([1.2, 1.2, 1.2, 1])
    confidence = a.select_slider("Confidence level", CONFIDENCES, format_func=lambda v: f"{v:.0%}",
                                 key="analyze_confidence")
    method = b.selectbox("Interval for one model", list(report.INTERVAL_METHODS),
                         format_func=report.INTERVAL_METHODS.get, key="analyze_method",
                         help="Proportion intervals apply to 0/1 scores on independent questions, one answer each.")
    baseline = c.selectbox("Compare", [ALL_PAIRS, *models], key="analyze_baseline",
                           format_func=lambda v: "every pair" if v == ALL_PAIRS else f"every model against {v}")
    adjust = d.selectbox("p-value adjustment", list(ADJUST), format_func=ADJUST.get, key="analyze_adjust")
    e, f = st.columns([1.2, 2])
    cluster_se = e.selectbox("Standard errors", list(report.SE_METHODS), format_func=report.SE_METHODS.get,
                             key="analyze_cluster_se",
                             help="CR2 with Satterthwaite degrees of freedom and a t reference keeps its level with "
                                  "few or unequal clusters and few questions; CR1 with a normal reference gives the "
                                  "paper's numbers.")
    with f:
        paired = st.toggle("Paired comparisons (both models answered the same questions)", key="analyze_paired")
        wild = st.toggle("Wild cluster bootstrap p-values (a cross-check beside every paired comparison)",
                         key="analyze_wild", disabled=not paired,
                         help="Restricted wild cluster bootstrap with the null imposed (Webb weights with 12 or "
                              "fewer clusters, Rademacher otherwise; 9,999 draws, seed 0, or every sign vector).")
    return {"confidence": float(confidence), "method": method, "baseline": None if baseline == ALL_PAIRS else baseline,
            "adjust": adjust, "paired": bool(paired), "cluster_se": cluster_se, "wild": bool(wild and paired)}


# ---------------------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class Results:
    """Everything the result sections draw, computed (and cached) once per setting."""

    analysis: Any
    all_pairs: Any
    guards: tuple
    ranking: Any
    opts: tuple


def run(source: Source, prepared: Prepared, roles_key: tuple, settings: dict, use_clusters: bool) -> Results | None:
    """The cached analysis for these settings (and its all-pairs twin for the ranking)."""
    opts = (settings["baseline"], settings["confidence"], settings["paired"], use_clusters, settings["adjust"],
            settings["method"], settings["cluster_se"], settings["wild"])
    models = prepared.table.models
    many = len(models) > ALL_PAIRS_MAX_MODELS
    if many and opts[0] is None:  # every pair would be too many comparisons to draw: compare with the leader
        import numpy as np

        leader = models[int(np.nanargmax(np.nanmean(prepared.table.scores, axis=0)))]
        pairs = len(models) * (len(models) - 1) // 2
        st.info(f"**{len(models)} models**: every pair would be {pairs:,} comparisons, too many to show, so every "
                f"model is compared with the leader, **{esc(leader)}** (choose another baseline above).",
                icon=":material/info:")
        opts = (leader, *opts[1:])
    analysis = _analyze(source.key, roles_key, opts, prepared)
    everything = analysis if opts[0] is None or many else _analyze(source.key, roles_key, (None, *opts[1:]), prepared)
    for result in (analysis, everything):
        if isinstance(result, str):
            st.session_state.pop(LAST_KEY, None)
            st.error(f"**The analysis cannot run.** {esc(result)}", icon=":material/error:")
            return None
    guards, ranking = _extras(source.key, roles_key, opts, settings["method"], prepared, analysis, everything)
    st.session_state[LAST_KEY] = analysis
    return Results(analysis, everything, guards, ranking, opts)
