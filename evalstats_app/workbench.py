"""The results workbench's analysis controls and cached analysis (``pages/analyze.py`` calls these top to
bottom; reading the files is :mod:`evalstats_app.workbench_reading`, the result sections are
:mod:`evalstats_app.workbench_sections`).

Each ``*_controls`` function draws a group of widgets and returns plain values. The expensive middle is
cached with ``st.cache_data`` keyed on a hash of the files' bytes and the reading options (the bytes
themselves are not hashed again on every rerun), so moving a control never re-reads the file.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import io
import os
import threading
import types
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import streamlit as st
from streamlit import runtime
from streamlit.runtime import scriptrunner  # the module, looked up at the call (tests stand in for it)

from evalstats_core import report
from evalstats_core.analysis import ADJUST_LABELS, analyze, analyze_sums
from evalstats_core.cli import with_command as cli_command
from evalstats_core.data import Prepared, file_columns
from evalstats_core.errors import EvalStatsError
from evalstats_core.guardrails import guardrails
from evalstats_core.ranking import rank_models
from evalstats_core.reading import ReadingOptions
from evalstats_core.sums import file_sums
from evalstats_core.vocabulary import INTERVAL_LABELS

from . import examples
from .option_words import DUPLICATES, NO_CLUSTER, esc, say  # noqa: F401 - DUPLICATES, NO_CLUSTER: their home before issue 38

INJECT_KEY = "_analyze_injected"
LAST_KEY = "_analyze_last"  # the Analysis the page shows (read by tests that compare with the command line)
ALL_PAIRS = "(all pairs)"
DETECT = None  # a role widget left empty means "detect from the column names"
FORMATS = {"auto": "detect", "long": "long", "wide": "wide"}
ADJUST = {"holm": f"{ADJUST_LABELS['holm']} (family-wise)", "bh": f"{ADJUST_LABELS['bh']} (false discovery rate)",
          "none": "none"}
MODES = {"results": "Per-question results", "reported": "Only reported numbers"}
CONFIDENCES = (0.8, 0.9, 0.95, 0.99)
PROPORTION_METHODS = {"wilson": "Wilson", "wald": "Wald (CLT)", "clopper_pearson": "Clopper-Pearson",
                      "bayes": INTERVAL_LABELS["bayes"]}  # one label for Bayes, the report's
ROLE_KEYS = ("analyze_format", "analyze_question_col", "analyze_model_col", "analyze_score_col",
             "analyze_cluster_col", "analyze_duplicates")
#: the harness-log cluster choice: the importer's own (a metadata key named subject, category...), or none
AUTO_CLUSTER = "(found by the importer)"


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

def fix_choice(key: str, options: list, fallback: Any) -> None:
    """Reset a widget's state when it is not among ``options`` (e.g. the file changed)."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = fallback


# ------------------------------------------------------------------------------------------ caching
@dataclass(frozen=True, slots=True)
class Source:
    """The files being analyzed: ``files`` as (name, bytes), a display ``name``, a ``key`` (hash) for the
    caches; ``table`` is True for one results table (CSV/Parquet) read with column roles, False for
    harness logs or several files (read by their importers and joined on the question)."""

    data: bytes
    name: str
    key: str
    uploaded: bool
    files: tuple = ()
    table: bool = True
    #: a folder or big table on the server, analyzed through DuckDB (:mod:`evalstats_app.workbench_server`)
    path: str = ""
    #: why the named server path was refused (already shown): the page stops there
    problem: str = ""
    #: pairwise preferences (battles of two models), not scores: :mod:`evalstats_app.workbench_pairwise` reads them
    pairwise: bool = False

    @property
    def names(self) -> list[str]:
        """Every file's name, in order (the command lists each one)."""
        return [n for n, _ in self.files] if self.files else [self.name]


def session_gone():
    """A check for the analysis loop: True once this browser session has disconnected (the tab closed), so
    work for nobody stops (its exception is not cached; a reconnecting tab recomputes). None without a
    server (AppTest, bare mode)."""
    ctx = scriptrunner.get_script_run_ctx(suppress_warning=True)
    if not runtime.exists() or ctx is None:
        return None
    rt, sid = runtime.get_instance(), ctx.session_id
    return lambda: not rt.is_active_session(sid)


@dataclass(frozen=True, slots=True)
class AnalysisSettings:
    """The analysis settings of a workbench rerun, built in one place (:meth:`of`, from what
    :func:`analysis_controls` returned): the cached analyses' key and their arguments.

    ``interval`` is the one-model interval choice (the core's ``interval=``), ``se_method`` the standard-error
    method (the core's ``method=``: ``"cr2"`` or ``"cr1"``)."""

    baseline: str | None
    confidence: float
    paired: bool
    use_clusters: bool
    adjust: str
    interval: str
    se_method: str
    wild: bool

    @classmethod
    def of(cls, controls: dict[str, Any], use_clusters: bool, *, wild: bool = True) -> AnalysisSettings:
        """From :func:`analysis_controls`' values and whether the clusters are used (``wild=False``: never the
        wild bootstrap, which needs every question's score)."""
        return cls(controls["baseline"], controls["confidence"], controls["paired"], bool(use_clusters),
                   controls["adjust"], controls["method"], controls["cluster_se"], bool(wild and controls["wild"]))

    def with_baseline(self, baseline: str | None) -> AnalysisSettings:
        """The same settings compared against ``baseline`` (None: every pair)."""
        return replace(self, baseline=baseline)

    def analysis_kw(self) -> dict[str, Any]:
        """The keyword arguments of ``analyze`` / ``analyze_sums`` but the baseline."""
        return dict(confidence=self.confidence, paired=self.paired, use_clusters=self.use_clusters,
                    adjust=self.adjust, interval=self.interval, method=self.se_method)


EXAMPLE_PREFIX = "example:"  # the cache key of a bundled example (Source.key); anything else is a visitor's own


def by_scope(cache, **kw):
    """``cache`` (``st.cache_data`` or ``st.cache_resource``) twice over one function, chosen by its first
    argument, the files' key: one cache per server for the bundled examples (the key starts with
    :data:`EXAMPLE_PREFIX`: every visitor opens the same example, prepared and analyzed once), and one per
    session for everything a visitor uploads (never shared with another session).

    Cheap keys, as some twenty cached calls run on every rerun: the reading options in an argument are hashed
    by their ``repr`` (every field; frozen), not by Streamlit's hashing of the dataclass (through
    ``__reduce__``, 0.5-1.3 ms an argument); and every argument is passed by name, as Streamlit finds a
    positional argument's name through ``inspect.signature`` once per argument and call."""

    kw.setdefault("hash_funcs", {ReadingOptions: repr, AnalysisSettings: repr})

    def wrap(fn):
        twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
        twin.__qualname__, twin.__module__ = f"{fn.__qualname__}_shared", fn.__module__  # its own cache key
        shared, private = cache(**kw)(twin), cache(scope="session", **kw)(fn)
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(key, *args, **kwargs):
            named = signature.bind(key, *args, **kwargs).arguments
            return (shared if str(key).startswith(EXAMPLE_PREFIX) else private)(**named)

        call.shared, call.private = shared, private  # each has .clear() (the private one inside a script run)
        return call
    return wrap


@by_scope(st.cache_resource, max_entries=4, show_spinner=False)
def _sums(key: str, roles: Any, _prepared: Prepared):
    """The file's sufficient statistics (:func:`evalstats_core.sums.file_sums`, one pass over the question
    table), kept as they are for the session (an upload) or the server (an example): every setting but the
    wild bootstrap is computed from them without touching the rows again."""
    return file_sums(_prepared.table)


def kept_sums(source: Source, reading: Any):
    """The file's kept sums (:func:`_sums`, from the cache) for ``reading``, what
    :func:`evalstats_app.workbench_reading.roles_controls` returned."""
    return _sums(source.key, reading.options, reading.prepared)


@by_scope(st.cache_data, max_entries=32, show_spinner=False)
def _analyze(key: str, roles: Any, opts: AnalysisSettings, _prepared: Prepared):
    """The analysis for ``opts``: from the kept sums (a new confidence level, adjustment, interval or
    baseline costs microseconds per pair), from the rows only for the wild bootstrap. Both give the command
    line's numbers (``analyze(table)`` is ``analyze_sums(file_sums(table))``)."""
    settings = dict(baseline=opts.baseline, **opts.analysis_kw(), should_stop=session_gone())
    try:  # the question table carries the file's roles and notes: the analysis is the command line's
        if opts.wild:
            return analyze(_prepared.table, wild_bootstrap=True, **settings)
        return analyze_sums(_sums(key, roles, _prepared), **settings)
    except EvalStatsError as exc:
        return str(exc)


@by_scope(st.cache_data, max_entries=16, show_spinner=False)
def _extras(key: str, roles: Any, opts: AnalysisSettings, method: str, _prepared: Prepared, _analysis, _all_pairs):
    """Guardrails and the ranking (from the all-pairs analysis), computed once per setting."""
    shown = report.model_intervals(_analysis)
    guards = guardrails(_prepared.dataset, _prepared.table, _analysis, extra_clusters=_prepared.extra_clusters,
                        intervals={r.model: (r.ci_low, r.ci_high) for r in shown.itertuples()},
                        sums=_sums(key, roles, _prepared))  # the plain paired SEs from the kept sums
    return guards, ranking_of(_all_pairs)


def ranking_of(all_pairs):
    """The honest ranking from the all-pairs analysis (its adjusted p-values, at its confidence level)."""
    return rank_models({m.model: m.mean for m in all_pairs.models},
                       [(c.model, c.baseline, c.p_adjusted, c.diff) for c in all_pairs.comparisons],
                       alpha=1.0 - all_pairs.confidence)


@st.cache_resource(show_spinner=False)
def warm_up() -> None:
    """Once per server, in the background: import the solvers the plan's pilot estimate uses
    (``scipy.integrate`` and ``scipy.optimize``, about 0.6 s cold) and compile one small layered chart
    (Altair's and pandas' own first-use set-up, about 0.2 s) while a visitor chooses a file, so the first
    upload does not wait for them (a later import finds them loaded; Python's import lock makes an
    import that starts meanwhile wait for this one, never run twice)."""
    one_blas_thread()

    def load() -> None:
        warm_reader()
        import scipy.integrate  # noqa: F401 - the warm-up's point: heavy, imported in its thread, off the page's start-up
        import scipy.optimize  # noqa: F401

        # the warm-up's point: imported in its thread, off the page's start-up
        from evalstats_core.charts import warm_up as warm_charts

        warm_charts()
        one_blas_thread()  # scipy's own OpenBLAS too, loaded by the imports above

    threading.Thread(target=load, name="evalstats-warm-imports", daemon=True).start()


def warm_reader() -> None:
    """Read a tiny Parquet table (made here, in memory) through the upload's own path, its header and then
    :meth:`~evalstats_core.reading.ReadingOptions.prepare`: the Parquet reader (``pyarrow.parquet`` and its
    file-system modules) and the table reader's modules are imported, and their first-use set-up done, before
    a visitor uploads a file. Measured under load, a first 10,000-row Parquet upload read in 0.17 s of which
    0.12 s was this (0.05 s afterwards); on a cold disk the first read took 0.52 s. A failure here only
    leaves the upload to pay it."""

    try:
        import pyarrow as pa  # heavy: imported by the warm-up thread, not the page's first run
        import pyarrow.parquet as pq

        buf = io.BytesIO()
        pq.write_table(pa.table({"question": ["q1", "q1", "q2", "q2"], "model": ["a", "b", "a", "b"],
                                 "score": [1, 0, 1, 1]}), buf)
        data = buf.getvalue()
        file_columns(data, "warm.parquet")
        ReadingOptions().prepare([("warm.parquet", data)])
    except Exception:  # noqa: BLE001 - warming is an optimisation: the real upload reports any problem
        pass


def one_blas_thread() -> None:
    """BLAS on one thread in this server process: threadpoolctl for every BLAS library loaded when it is
    called (numpy's, and scipy's own once scipy is imported; the limit stays for the process), and the
    environment for one loaded later (unless it says otherwise already).

    The analysis's per-cluster sums meet BLAS in dot products (``x @ w`` over 1e5 clusters), and OpenBLAS
    splits one of more than 10,000 terms over every core: each call then wakes a worker thread, which on a
    server whose cores are busy (the browser drawing, another session) waits for a time slice. Measured on
    the 1e7-row bench file under load, a new confidence level's ``analyze_sums`` took 0.6 s wall (0.21 s
    CPU) with two BLAS threads, 0.08 s (0.03 s CPU) with one. A page's sums are never big enough for a
    second thread to pay."""

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # a BLAS loaded later reads these
        os.environ.setdefault(name, "1")
    try:
        from threadpoolctl import threadpool_limits  # optional dependency
    except ImportError:  # not installed: BLAS keeps its own threads (slower under load, same numbers)
        return
    threadpool_limits(limits=1, user_api="blas")


# ---------------------------------------------------------------------------------------- controls
def mode_control(content) -> str:
    """Per-question results or only reported numbers."""
    st.markdown(content["mode_help"])
    return st.radio("What do you have?", list(MODES), format_func=MODES.get, horizontal=True, key="analyze_mode")


#: Workbench settings a downloaded analysis carries (the example and the mode are not part of it).
BUNDLED = tuple(k for k in DEFAULTS if k not in ("analyze_mode", "analyze_example", "analyze_reported_method"))


def bundle_settings() -> dict[str, Any]:
    """The current settings, for a downloaded analysis (see :mod:`evalstats_core.bundle`)."""
    return {k: st.session_state.get(k, DEFAULTS[k]) for k in BUNDLED}


def analysis_controls(models: tuple[str, ...]) -> dict[str, Any]:
    """Confidence, interval method, baseline, adjustment, pairing; returns them as plain values."""
    fix_choice("analyze_baseline", [ALL_PAIRS, *models], ALL_PAIRS)
    # rows as horizontal containers: one message to the browser each on every rerun (columns: one per column
    # plus one), the widgets sharing the row's width
    row = st.container(horizontal=True)
    confidence = row.select_slider("Confidence level", CONFIDENCES, format_func=lambda v: f"{v:.0%}",
                                   key="analyze_confidence")
    method = row.selectbox("Interval for one model", list(report.INTERVAL_METHODS),
                           format_func=report.INTERVAL_METHODS.get, key="analyze_method",
                           help="Proportion intervals apply to 0/1 scores on independent questions, one answer each.")
    baseline = row.selectbox("Compare", [ALL_PAIRS, *models], key="analyze_baseline",
                             format_func=lambda v: "every pair" if v == ALL_PAIRS else f"every model against {v}")
    adjust = row.selectbox("p-value adjustment", list(ADJUST), format_func=ADJUST.get, key="analyze_adjust")
    row = st.container(horizontal=True)
    cluster_se = row.selectbox("Standard errors", list(report.SE_METHODS), format_func=report.SE_METHODS.get,
                               key="analyze_cluster_se",
                               help="CR2 with Satterthwaite degrees of freedom and a t reference keeps its level "
                                    "with few or unequal clusters and few questions; CR1 with a normal reference "
                                    "gives the paper's numbers.")
    with row.container():
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
    opts: AnalysisSettings
    #: what the numbers follow from (files' key, reading options, settings; a judge correction adds its own
    #: sentence): the charts' cache key, so a chart is never rebuilt, nor its frame hashed, on a rerun
    key: tuple = ()


def corrected_key(base: Results | None, results: Results | None) -> Results | None:
    """``results`` whose key also names a judge correction (:func:`evalstats_app.workbench_judge.corrected`
    swaps the analysis but keeps the settings): the corrected charts never share the uncorrected ones' cache."""

    if results is None or base is None or results.analysis is base.analysis:
        return results
    return dataclasses.replace(results, key=(*results.key, "corrected", tuple(results.analysis.warnings[:1])))


def run(source: Source, reading: Any, settings: dict) -> Results | None:
    """The cached analysis for these settings (and its all-pairs twin for the ranking); ``reading`` is what
    :func:`evalstats_app.workbench_reading.roles_controls` returned. The analysis names every file and every
    reading choice in its command (the command line's own)."""
    prepared, roles_key = reading.prepared, reading.options
    opts = AnalysisSettings.of(settings, reading.use_clusters)
    models = prepared.table.models
    many = len(models) > ALL_PAIRS_MAX_MODELS
    if many and opts.baseline is None:  # every pair would be too many comparisons to draw: compare with the leader
        leader = models[int(np.nanargmax(np.nanmean(prepared.table.scores, axis=0)))]
        pairs = len(models) * (len(models) - 1) // 2
        st.info(f"**{len(models)} models**: every pair would be {pairs:,} comparisons, too many to show, so every "
                f"model is compared with the leader, **{esc(leader)}** (choose another baseline above).",
                icon=":material/info:")
        opts = opts.with_baseline(leader)
    analysis = _analyze(source.key, roles_key, opts, prepared)
    everything = (analysis if opts.baseline is None or many
                  else _analyze(source.key, roles_key, opts.with_baseline(None), prepared))
    for result in (analysis, everything):
        if isinstance(result, str):
            st.session_state.pop(LAST_KEY, None)
            st.error(f"**The analysis cannot run.** {say(result)}", icon=":material/error:")
            return None
    guards, ranking = _extras(source.key, roles_key, opts, settings["method"], prepared, analysis, everything)
    analysis, everything = with_command(analysis, source, roles_key), with_command(everything, source, roles_key)
    st.session_state[LAST_KEY] = analysis
    return Results(analysis, everything, guards, ranking, opts, (source.key, roles_key, opts))


def with_command(analysis: Any, source: Source, opts: ReadingOptions) -> Any:
    """The analysis whose ``settings.command`` names every file of ``source`` and every reading choice:
    the command line's own (:func:`evalstats_core.cli.with_command`). A bundled example is named by its file's
    path, which the command writes as ``--example NAME`` (as the command line does): a command that reruns from
    any folder."""
    names = source.names
    if str(source.key).startswith(EXAMPLE_PREFIX) and not source.uploaded:
        slug = str(source.key)[len(EXAMPLE_PREFIX):].split(":", 1)[0]
        names = [str(examples.EXAMPLES_DIR / examples.EXAMPLES[slug].file)]
    return cli_command(analysis, names, opts)
