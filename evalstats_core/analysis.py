"""One pass from a loaded results file to every model's score and every pairwise comparison.

=======================  ================================================================================
:func:`analyze`          per-model :func:`~evalstats_core.clustering.summarize`, per-pair
                         :func:`~evalstats_core.comparison.compare`, adjusted p-values, McNemar, warnings
:func:`analyze_sums`     the same from a file's :class:`~evalstats_core.sums.FileSums`, without the rows
:class:`Analysis`        the result, with ``models_frame()`` / ``comparisons_frame()`` tidy tables
:class:`ModelResult`     one model's row (paper Tables 2-3)
:class:`PairResult`      one comparison's row (paper Table 5)
:func:`clustering_cost`  with fewer than :data:`FEW_CLUSTERS` clusters, each model's interval clustered
                         and unclustered (:class:`ClusterCost`): what clustering costs
:func:`cost_sentence`    the warning that shows both (issue 19)
=======================  ================================================================================

The command line (``evalbars analyze``) and the app's workbench both call
:func:`analyze`, so their numbers agree to the last digit. It never reads files: pass it a
:class:`~evalstats_core.data.Dataset` from :func:`~evalstats_core.data.load` (or the
:class:`~evalstats_core.data.QuestionTable` made from one). It reads the rows once
(:func:`~evalstats_core.sums.file_sums`) and computes everything from those sums with
:func:`analyze_sums`, which a SQL engine's sums (files larger than memory) feed just the same.
"""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from ._clusters import MIN_CLUSTERS, MIN_CLUSTERS_CR2, check_method
from ._estimate import comparison_from, pair_rules, scaled, summary_from
from ._in_unit import InUnit
from ._records import CLUSTERED_ON
from ._results import notebook_view
from ._validate import check_confidence
from .bounded_reach import reach_notes
from .cluster_means import kish_n
from .comparison import _mcnemar as mcnemar_cells
from .data import Dataset, QuestionTable, load, question_scores
from .errors import CLUSTERING_COST, DEFF_BELOW_ONE, EvalStatsError, EvalStatsWarning, Note
from .intervals import _model_interval
from .multiple import benjamini_hochberg, holm
from .passk import PassAtSection, pass_at_section
from .sums import FileSums, file_sums, two_model_sums
from .vocabulary import ADJUST_LABELS, INTERVAL_LABELS, normal_label  # noqa: F401 - re-exported

if TYPE_CHECKING:  # pandas is imported when a frame is asked for: the command line's reports never need one
    import pandas as pd


def _data_frame(*args: Any, **kwargs: Any) -> pd.DataFrame:
    """``pandas.DataFrame(*args, **kwargs)``, pandas imported on first use (issue 25: start-up)."""
    import pandas as pd  # heavy: only when a frame is asked for

    return pd.DataFrame(*args, **kwargs)


__all__ = ["Analysis", "AnalysisStopped", "ClusterCost", "COST_PREFIX", "FEW_CLUSTERS", "ModelResult", "PairResult",
           "analyze", "analyze_sums", "clustering_cost", "cost_sentence"]


class AnalysisStopped(RuntimeError):
    """``should_stop`` asked :func:`analyze` to stop (not an input error: nothing is wrong with the file)."""

#: Below this many questions the normal (CLT) interval can under-cover (Bowyer et al. 2025).
SMALL_N = 300
#: Below this many degrees of freedom a t interval is noticeably wider than the normal one (t = 2.04 at 30).
SMALL_DF = 30
_ADJUST = ("holm", "bh", "none")

#: One-model interval methods (the CLI's ``--interval`` and the workbench's choice). ``auto``: for 0/1
#: scores, chosen by the expected number of failures (effective, with clusters), not by n: Wilson
#: (independent questions) or Korn & Graubard's effective-n Clopper-Pearson (clusters) below 100 expected
#: failures, else ``normal``; with under two clusters' worth of information at least the cluster means'
#: interval, for any scores (:func:`~evalstats_core.proportions.binary_mean_interval`, :mod:`~evalstats_core.cluster_means`).
#: ``normal`` is ``mean -/+ t(df) * se`` (z for ``method="cr1"``); the proportion methods apply to 0/1 scores with one answer per independent question (else ``normal`` is used and
#: the label says why).
INTERVALS = ("auto", "normal", "wilson", "clopper-pearson", "bayes")

# One label per interval method and adjustment, everywhere: evalstats_core.vocabulary.


@dataclass(frozen=True, slots=True)
class ModelResult:
    """One model's mean score and its uncertainty (a row of the paper's Tables 2-3).

    Attributes
    ----------
    model : str
        Model name as written in the file.
    n : int
        Questions this model answered.
    n_clusters : int or None
        Clusters among them (None when the analysis is not clustered).
    k, k_min, k_max : int
        Answers per question: most common, smallest, largest (K > 1: resamples were averaged).
    mean, se : float
        Mean question-level score and its standard error (CR2 or CR1 when clustered, else CLT).
    ci_low, ci_high : float
        The interval named by ``interval``: ``mean -/+ t(df) * se`` (z with ``method="cr1"``), or a
        proportion interval (Wilson, Clopper-Pearson, Bayes) for independent 0/1 answers.
    se_naive : float
        The CLT standard error that ignores clusters.
    deff, n_eff : float
        Design effect ``(se / se_naive)^2`` and effective number of questions ``n / deff``.
    df : float
        Degrees of freedom of the t reference (``inf``: normal).
    method : str
        Standard-error method, ``"cr2"`` (default) or ``"cr1"``.
    interval : str
        The interval method used, as a label (e.g. ``"Wilson"``, ``"CR2 t (Satterthwaite df)"``).
    """

    model: str
    n: int
    n_clusters: int | None
    k: int
    k_min: int
    k_max: int
    mean: float
    se: float
    ci_low: float
    ci_high: float
    se_naive: float
    deff: float
    n_eff: float
    df: float
    method: str
    interval: str


@dataclass(frozen=True, slots=True)
class PairResult:
    """``model - baseline`` on the questions both answered (a row of the paper's Table 5).

    Attributes
    ----------
    model, baseline : str
        The difference is ``mean(model) - mean(baseline)``.
    n : int
        Questions both models answered (the comparison uses only these).
    n_left_out : int
        Questions answered by only one of the two (left out of this comparison).
    n_clusters : int or None
        Clusters among the shared questions (None when not clustered).
    mean_model, mean_baseline : float
        Means on the shared questions.
    diff, se, ci_low, ci_high, z, p_value : float
        Difference, its (paired, clustered when clustered) SE, ``t(df)`` interval (normal with
        ``method="cr1"``), the statistic ``diff / se`` and its two-sided p.
    df : float
        Degrees of freedom of the t reference (``inf``: normal).
    method : str
        Standard-error method, ``"cr2"`` (default) or ``"cr1"``.
    p_adjusted : float
        ``p_value`` adjusted across all comparisons of the analysis (Holm by default).
    correlation : float
        Pearson correlation of the two models' question scores (nan when unpaired or undefined).
    se_unpaired, se_paired : float
        ``sqrt(SE_model^2 + SE_baseline^2)`` and the paired SE (nan when unpaired).
    mcnemar_statistic, mcnemar_chi2_p : float or None
        McNemar's chi-square (no continuity correction) and its asymptotic p-value for 0/1 scores; None
        otherwise. Not the p the tables, the JSON document and the CSV print: that is ``mcnemar_p``, the
        exact one (the chi-square p was called ``mcnemar_p_value``: two McNemar p-values under
        near-identical names that differ on small counts).
    only_model, only_baseline : int or None
        Discordant questions for 0/1 scores: right only for ``model`` / only for ``baseline``.
    mcnemar_p : float or None
        Exact McNemar p-value (two-sided binomial on the discordant questions) for paired 0/1 scores
        without clusters; None otherwise.
    wild_p_value : float or None
        Wild cluster bootstrap p-value of the paired difference, when requested; None otherwise.
    interval : str
        How the interval and p were found, as a label (as ``ModelResult.interval``): the t / normal
        label, or Tango's score interval for paired 0/1 scores (at any count of discordant answers).
    """

    model: str
    baseline: str
    n: int
    n_left_out: int
    n_clusters: int | None
    mean_model: float
    mean_baseline: float
    diff: float
    se: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    p_adjusted: float
    correlation: float
    se_unpaired: float
    se_paired: float
    mcnemar_statistic: float | None
    mcnemar_chi2_p: float | None
    only_model: int | None
    only_baseline: int | None
    df: float = math.inf
    method: str = "cr2"
    mcnemar_p: float | None = None
    wild_p_value: float | None = None
    interval: str = "normal"


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every model summary and pairwise comparison of one results file, with the settings used.

    Attributes
    ----------
    models : tuple of ModelResult
        In the order the models first appear in the file.
    comparisons : tuple of PairResult
        Every pair (later model minus earlier model) or every model against ``baseline``.
    warnings : tuple of str
        Cautions in plain words (few clusters, small n, missing questions, 0%/100% scores, ...).
    notes : tuple of str
        What was inferred when the file was read.
    name : str
        File name.
    confidence : float
        Confidence level of every interval.
    baseline : str or None
        The baseline model, or None for all pairs.
    paired, clustered : bool
        Whether comparisons are paired, and whether SEs are clustered.
    adjust : str
        Multiple-comparison adjustment of ``p_adjusted``: ``"holm"``, ``"bh"`` or ``"none"``.
    score_kind : str
        ``"binary"`` or ``"continuous"`` (raw answers).
    n_questions : int
        Distinct questions in the file.
    n_clusters : int or None
        Distinct clusters (None when not clustered).
    unit : str
        ``"percent"`` when every question score lies in [0, 1] (reports then print percentages and
        percentage points), else ``"score"`` (raw units, e.g. a 1-10 judge scale).
    format, question_col, model_col, score_col, cluster_col : str or None
        How the file was read (None when a QuestionTable was passed).
    method : str
        Standard-error method: ``"cr2"`` (default) or ``"cr1"``.
    interval : str
        The one-model interval choice (a key of :data:`INTERVALS`).
    wild_bootstrap : bool
        Whether the comparisons carry a wild cluster bootstrap p-value.
    n_boot : int
        Wild bootstrap draws asked for (every sign vector when there are fewer).
    seed : int
        Seed of the wild bootstrap draws.
    source : str or None
        The file's path as the user gave it (the command line sets it), for ``settings.command``.
    reading : tuple of str
        Command-line options that repeat how the file was read (``Dataset.reading``).
    judge : JudgeSection or None
        The judge-corrected (PPI++) results when human labels were read
        (:func:`~evalstats_core.judge_apply.corrected_analysis` sets it); every report format adds them.
    pass_at : PassAtSection or None
        pass@k of every model and comparison at the k asked for (``analyze(pass_at=...)``); every report format
        adds it. None when not asked for.
    """

    models: tuple[ModelResult, ...]
    comparisons: tuple[PairResult, ...]
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    name: str
    confidence: float
    baseline: str | None
    paired: bool
    clustered: bool
    adjust: str
    score_kind: str
    n_questions: int
    n_clusters: int | None
    unit: str
    format: str | None = None
    question_col: str | None = None
    model_col: str | None = None
    score_col: str | None = None
    cluster_col: str | None = None
    method: str = "cr2"
    interval: str = "auto"
    wild_bootstrap: bool = False
    n_boot: int = 9999
    seed: int = 0
    source: str | None = None
    reading: tuple[str, ...] = ()
    judge: Any = None
    pass_at: PassAtSection | None = None

    def models_frame(self) -> pd.DataFrame:
        """One row per model, one column per :class:`ModelResult` field."""
        names = [f.name for f in fields(ModelResult)]
        return _data_frame([[getattr(m, k) for k in names] for m in self.models], columns=names)

    def comparisons_frame(self) -> pd.DataFrame:
        """One row per comparison, one column per :class:`PairResult` field."""
        names = [f.name for f in fields(PairResult)]
        return _data_frame([[getattr(c, k) for k in names] for c in self.comparisons], columns=names)

    def chart(self, kind: str = "models") -> Any:
        """The Altair chart the workbench draws: ``"models"``, ``"differences"`` or ``"matrix"`` (needs altair).

        See :func:`evalstats_core.display.chart`.
        """
        return notebook_view(self, "chart", kind)

    def _repr_html_(self) -> str:  # Jupyter: the workbench's tables
        return notebook_view(self, "analysis_html")

    def _repr_markdown_(self) -> str:  # Jupyter without HTML: the command line's Markdown report
        return notebook_view(self, "analysis_markdown")

    def model(self, name: str) -> ModelResult:
        """The result of model ``name``."""
        for m in self.models:
            if m.model == name:
                return m
        raise EvalStatsError(f"no model named {name!r}; models are: {', '.join(m.model for m in self.models)}")


def _pairs(models: tuple[str, ...], baseline: str | None) -> list[tuple[int, int]]:
    """(model index, baseline index) pairs: every later model against every earlier one, or vs baseline."""
    if baseline is None:
        return [(j, i) for i in range(len(models)) for j in range(i + 1, len(models))]
    b = models.index(baseline)
    return [(j, b) for j in range(len(models)) if j != b]


def _adjust(p: list[float], method: str) -> list[float]:
    """Adjusted p-values over the finite entries (a nan p-value stays nan and is not counted)."""
    if len(p) == 1 and (math.isnan(p[0]) or 0.0 <= p[0] <= 1.0):  # one pair: Holm's and BH's p is its own
        return [float(p[0])]

    arr = np.asarray(p, dtype=np.float64)
    out = np.full(arr.shape, math.nan)
    ok = np.isfinite(arr)
    if method == "none":
        return [float(x) for x in arr]
    if ok.any():
        fn = holm if method == "holm" else benjamini_hochberg
        out[ok] = np.asarray(fn(arr[ok]), dtype=np.float64)
    return [float(x) for x in out]


def _is_frame(data: Any) -> bool:
    from ._read import arrow_of  # kept off the page's import (warm_up)
    return not isinstance(data, (str, bytes)) and arrow_of(data) is not None


def analyze(data: Dataset | QuestionTable, *, baseline: str | None = None, confidence: float = 0.95,
            paired: bool = True, use_clusters: bool = True, adjust: str = "holm", method: str = "cr2",
            interval: str = "auto", wild_bootstrap: bool = False, n_boot: int = 9999,
            seed: int = 0, should_stop: Callable[[], bool] | None = None, pass_at: Any = None) -> Analysis:
    """Summarise every model and compare every pair (or every model against a baseline) in one pass.

    Parameters
    ----------
    data : Dataset or QuestionTable
        From :func:`~evalstats_core.data.load` (or :func:`~evalstats_core.data.question_scores`); a pandas or
        polars DataFrame or an Arrow table is read by :func:`~evalstats_core.data.load` first.
    baseline : str, optional
        Compare every other model against this one (``diff = model - baseline``). None compares every
        pair, later model minus earlier model in file order.
    confidence : float, default 0.95
        Confidence level of every interval.
    paired : bool, default True
        Paired comparisons on the shared questions (right when the models answered the same questions).
    use_clusters : bool, default True
        Cluster the standard errors on the file's cluster column, when it has one.
    adjust : {"holm", "bh", "none"}, default "holm"
        Adjustment of ``p_adjusted`` across the comparisons: Holm (family-wise error) or
        Benjamini-Hochberg (false discovery rate).
    method : {"cr2", "cr1"}, default "cr2"
        Standard errors and reference distribution: CR2 with Satterthwaite df and t (the t-tests
        without clusters), or the paper's CR1 / CLT with a normal reference.
    interval : one of :data:`INTERVALS`, default "auto"
        Each model's interval. The comparisons use ``diff -/+ t(df) * se`` with ``"normal"``, else the
        rule of :func:`~evalstats_core.comparison.compare` (Tango's score interval for paired 0/1 scores).
    wild_bootstrap : bool, default False
        Add a wild cluster bootstrap p-value to every paired comparison (a cross-check).
    n_boot, seed : int
        Wild bootstrap draws (every sign vector is used when there are at most this many) and seed.
    should_stop : callable, optional
        Asked before each model and each pair; when it returns True the work stops at once with
        :class:`AnalysisStopped` (the app passes "has this browser session gone away?").
    pass_at : int, sequence of int or str, optional
        Also pass@k at each of these k (``"1,5,10"``), for 0/1 answers with several samples a question (the
        resample column numbers them): :func:`~evalstats_core.passk.pass_at_section` on the same questions,
        clusters and pairs, in :attr:`Analysis.pass_at`.

    Returns
    -------
    Analysis

    Notes
    -----
    Resamples are averaged to one score per question first (never pooled). Each model's mean and SE
    come from the same estimators as :func:`~evalstats_core.clustering.summarize`; each pair from those of
    :func:`~evalstats_core.comparison.compare` on the questions both models answered (paired SE, Eq. 7;
    clustered paired, Eq. 8; CR2 with Bell-McCaffrey df by default). The data are read once:
    :func:`~evalstats_core.sums.file_sums` makes the per-cluster sums of every model and pair, and
    :func:`analyze_sums` computes everything from them (keep the sums to recompute at a new confidence
    level, adjustment or interval choice without the rows). The wild bootstrap reads the rows.

    References
    ----------
    Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, Eqs. 1-8.
    Bell & McCaffrey 2002, Survey Methodology 28(2); Pustejovsky & Tipton 2018, JBES 36(4).
    Holm 1979, Scand. J. Statistics 6(2); Benjamini & Hochberg 1995, JRSS B 57(1).

    Examples
    --------
    >>> from evalstats_core.data import load
    >>> ds = load(b"question,A,B\\n1,0.83,0.89\\n2,0.45,0.58\\n3,0.72,0.74\\n4,0.69,0.56\\n", name="t.csv")
    >>> res = analyze(ds)
    >>> c = res.comparisons[0]
    >>> c.model, c.baseline, round(c.diff, 4), c.df
    ('B', 'A', 0.02, 3.0)
    """
    confidence = check_confidence(confidence)
    if isinstance(data, Dataset):
        table = question_scores(data)
    elif isinstance(data, QuestionTable):
        table = data  # it carries the file's roles and notes (question_scores copies them from the Dataset)
    elif _is_frame(data):  # a pandas/polars DataFrame or an Arrow table: read as load() reads a file
        table = question_scores(load(data))
    else:
        raise EvalStatsError(f"analyze needs a Dataset from load() (or a QuestionTable), not a {type(data).__name__}")
    _check_choices(method, adjust, interval)
    if baseline is not None and baseline not in table.models:
        _check_baseline(table.models, baseline, table.name)

    res = analyze_sums(file_sums(table), baseline=baseline, confidence=confidence, paired=paired,
                       use_clusters=use_clusters, adjust=adjust, method=method, interval=interval,
                       should_stop=should_stop)
    if pass_at is not None:  # pass@k on the same questions, clusters and pairs
        res = replace(res, pass_at=pass_at_section(
            table, pass_at, pairs=[(c.model, c.baseline) for c in res.comparisons] if paired else (),
            use_clusters=res.clustered, confidence=confidence))
    wild = bool(wild_bootstrap and paired)
    if not wild and (int(n_boot), int(seed)) == (res.n_boot, res.seed):  # the defaults analyze_sums set: kept
        return res
    pairs = res.comparisons
    if wild:
        from .wild import wild_cluster_bootstrap  # only for --wild-bootstrap

        index = {m: j for j, m in enumerate(table.models)}
        out = []
        for done, c in enumerate(pairs):
            if should_stop is not None and should_stop():
                raise AnalysisStopped(f"stopped after {done} wild bootstraps: nobody is waiting for it")
            j, b = index[c.model], index[c.baseline]
            both = table.answered[:, j] & table.answered[:, b]
            cl = table.cluster_codes[both] if c.n_clusters is not None else None
            d = table.scores[both, j] - table.scores[both, b]
            p = wild_cluster_bootstrap(d, cl, confidence=confidence, n_boot=n_boot, rng=seed).p_value
            out.append(replace(c, wild_p_value=float(p)))
        pairs = tuple(out)
    return replace(res, comparisons=pairs, wild_bootstrap=wild, n_boot=int(n_boot), seed=int(seed))


def _check_choices(method: str, adjust: str, interval: str) -> None:
    check_method(method)
    if adjust not in _ADJUST:
        raise EvalStatsError(f"adjust ({adjust!r}) must be one of {', '.join(map(repr, _ADJUST))}")
    if interval not in INTERVALS:
        raise EvalStatsError(f"interval ({interval!r}) must be one of {', '.join(map(repr, INTERVALS))}")


def _check_baseline(models: tuple[str, ...], baseline: str, name: str) -> None:
    raise EvalStatsError(f"baseline {baseline!r} is not a model in {name}; its models are: "
                         f"{', '.join(repr(m) for m in models)} (names must match exactly)")


def analyze_sums(sums: FileSums, *, baseline: str | None = None, confidence: float = 0.95, paired: bool = True,
                 use_clusters: bool = True, adjust: str = "holm", method: str = "cr2", interval: str = "auto",
                 should_stop: Callable[[], bool] | None = None) -> Analysis:
    """:func:`analyze` from a file's sufficient statistics, without the rows.

    Parameters
    ----------
    sums : FileSums
        From :func:`~evalstats_core.sums.file_sums` (in memory) or from a SQL engine (same fields).
    baseline, confidence, paired, use_clusters, adjust, method, interval, should_stop
        As for :func:`analyze`. The wild bootstrap is not available here (without clusters it needs each
        question's difference): :func:`analyze` adds it from the rows.

    Returns
    -------
    Analysis
        The same numbers as ``analyze`` on the rows the sums came from (to rounding, about 1e-15).

    Notes
    -----
    Nothing here is proportional to the number of questions: a new confidence level, adjustment or interval
    choice costs a few microseconds per model and pair.
    """
    confidence = check_confidence(confidence)
    _check_choices(method, adjust, interval)
    models = sums.models
    if baseline is not None and baseline not in models:
        _check_baseline(models, baseline, sums.name)
    if len(models) < 2 and baseline is not None:
        raise EvalStatsError(f"{sums.name} has one model, so there is nothing to compare with the baseline")
    clustered = bool(use_clusters and sums.clusters is not None)
    warn: list[str] = []
    notes = tuple(sums.notes)
    if clustered and len(sums.clusters or ()) < 2:
        clustered = False
        warn.append(f"the cluster column '{sums.cluster_col}' has a single value, so the standard errors are "
                    "not clustered (clustering needs at least two clusters)")
        notes = tuple(n for n in notes if not n.endswith(CLUSTERED_ON))  # it said "clustered on it" (issue 46)
    fs = sums if clustered else sums.merged()
    e = sums.exponent
    with _warnings.catch_warnings():  # per-call warnings are gathered below, once each
        _warnings.simplefilter("ignore", EvalStatsWarning)
        rows = []
        for j, ms in enumerate(fs.model_sums):
            if should_stop is not None and should_stop():
                raise AnalysisStopped(f"stopped after {j} of {len(models)} models: nobody is waiting for it")
            cl = clustered and int(np.count_nonzero(ms.count)) >= 2
            if clustered and not cl:
                warn.append(f"{ms.model}: every question it answered lies in one cluster, so its standard error is "
                            "not clustered")
            s = scaled(summary_from(ms.count, ms.mean, ms.m2, binary=not _any(ms.not01), clustered=cl,
                                    confidence=confidence, method=method,
                                    interval="auto" if interval == "auto" else "normal", memo=fs.memo,
                                    in_unit=InUnit(not e and 0.0 <= ms.minimum and ms.maximum <= 1.0)), e)
            k_values, k_counts = ms.k_values.tolist(), ms.k_counts.tolist()  # a few distinct runs per question
            k_max, k_min = max(k_values), min(k_values)
            proportion = sums.score_kind == "binary" and k_max == 1 and not cl
            low, high, label = _model_interval(s, "resampled" if k_max > 1 else sums.score_kind, interval,
                                               proportion, method, cl, confidence)
            rows.append(ModelResult(
                model=ms.model, n=s.n, n_clusters=s.n_clusters if cl else None,
                k=k_values[k_counts.index(max(k_counts))], k_min=k_min, k_max=k_max,
                mean=s.mean, se=s.se, ci_low=low, ci_high=high, se_naive=s.se_naive,
                deff=s.deff, n_eff=s.n_eff, df=s.df, method=method, interval=label))
        raw: list[dict[str, Any]] = []
        pending: list[tuple] = []  # the 0/1 pair rule's arguments, solved for every pair at once below
        waiting: list[int] = []  # the pairs (indices into raw) that wait for it
        for done, (j, b) in enumerate(_pairs(models, baseline)):
            if should_stop is not None and should_stop():
                raise AnalysisStopped(f"stopped after {done} comparisons: nobody is waiting for it")
            p = fs.pair(j, b)
            n_shared = _total(p.count)
            if n_shared < 2:
                raise EvalStatsError(
                    f"models {models[j]!r} and {models[b]!r} share {n_shared} question(s) in {sums.name}; a "
                    "paired comparison needs at least two questions that both models answered")
            cl = clustered and int(np.count_nonzero(p.count)) >= 2
            if clustered and not cl:
                warn.append(f"{models[j]} vs {models[b]}: the shared questions lie in one cluster, so this "
                            "comparison is not clustered")
            only = (_total(p.only_model), _total(p.only_baseline)) if paired and not _any(p.not01) else None
            c = scaled(comparison_from(p.count, p.mean_model, p.mean_baseline, p.m2_model, p.m2_baseline,
                                       p.m2_diff, p.comoment, only, paired=paired, clustered=cl,
                                       confidence=confidence, method=method,
                                       interval="normal" if interval == "normal" else "auto", memo=fs.memo,
                                       pending=pending, in_unit=InUnit(sums.unit01),
                                       cells=None if only is None else (p.only_model, p.only_baseline),
                                       m3_diff=p.m3_diff), e)
            if len(pending) > len(waiting):
                waiting.append(len(raw))
            mc: tuple[Any, ...] = (None, None, None, None, None)
            if only is not None:
                cells = mcnemar_cells(0, only[0], only[1], 0, exact=not cl)  # the exact p is reported unclustered
                mc = ((None, None) if cells.discordant == 0 else (float(cells.statistic), float(cells.p_value)))
                mc += (only[0], only[1], None if cl else float(cells.p_exact))  # 1 with no discordant answer
            if c.se == 0.0 and paired:
                warn.append(zero_se_pair(c, models[j], models[b], every_question=p.diff_min == p.diff_max))
            raw.append(dict(model=models[j], baseline=models[b], n=c.n, n_left_out=p.n_left_out,
                            n_clusters=c.n_clusters if cl else None, mean_model=c.mean_a,
                            mean_baseline=c.mean_b, diff=c.diff, se=c.se, ci_low=c.ci_low, ci_high=c.ci_high,
                            z=c.z, p_value=c.p_value, correlation=c.correlation, se_unpaired=c.se_unpaired,
                            se_paired=c.se_paired, mcnemar_statistic=mc[0], mcnemar_chi2_p=mc[1],
                            only_model=mc[2], only_baseline=mc[3], df=c.df, method=method,
                            mcnemar_p=mc[4],
                            interval=(normal_label(method, cl) if c.interval == "normal"
                                      else INTERVAL_LABELS[_label_key(c.interval, only)])))
        for i, (low, high, p_value, kind) in zip(waiting, pair_rules(pending, confidence, fs.memo), strict=True):
            raw[i].update(ci_low=math.ldexp(low, e), ci_high=math.ldexp(high, e), p_value=p_value)
            if kind == "normal":  # the clustered 0/1 rule read the CR2 t interval (pair_proportions.t_skew_error)
                raw[i].update(interval=normal_label(method, True))
            elif kind == "t-score":  # an end of CR2 t at least the score rule's (pair_proportions.t_or_score_ends)
                raw[i].update(interval=INTERVAL_LABELS[kind])
    adjusted = _adjust([r["p_value"] for r in raw], adjust)
    pairs = tuple(PairResult(p_adjusted=p, **r) for r, p in zip(raw, adjusted, strict=True))

    warn += warnings_for(sums, rows, pairs, clustered=clustered, paired=paired, method=method)
    if paired:  # a skewed pair's lower end that Hall's capped correction leaves unreliable (the gate's reason)
        warn += reach_notes(sums, pairs, confidence)
    if clustered and paired:  # a clustered SE of a difference below the plain one: say what it means
        warn += below_plain_sums(sums, pairs)  # from each pair's merged sum of squares (no whole merge)
    if clustered:  # few clusters: the clustered and unclustered intervals side by side (issue 19)
        costs = clustering_cost(sums, rows, confidence=confidence, method=method, interval=interval)
        warn += [s for s in [cost_sentence(costs, sums.cluster_col, percent=sums.unit01)] if s]
    return Analysis(
        models=tuple(rows), comparisons=pairs, warnings=tuple(dict.fromkeys(warn)), notes=notes,
        name=sums.name, confidence=confidence, baseline=baseline, paired=bool(paired), clustered=clustered,
        adjust=adjust, score_kind=sums.score_kind, n_questions=int(sums.n_questions),
        n_clusters=len(sums.clusters or ()) if clustered else None,
        unit="percent" if sums.unit01 else "score",
        format=sums.format, question_col=sums.question_col, model_col=sums.model_col,
        score_col=sums.score_col, cluster_col=sums.cluster_col if clustered else None,
        reading=tuple(sums.reading), method=method, interval=interval)


def _any(a: np.ndarray) -> bool:
    """``a.any()``; of one element (the groups of an unclustered analysis) without numpy's reduction."""
    return bool(a[0]) if a.shape == (1,) else bool(a.any())


def _total(a: np.ndarray) -> int:
    """``int(a.sum())`` of integer counts; of one element without numpy's reduction."""
    return int(a[0]) if a.shape == (1,) else int(a.sum())


def _label_key(kind: str, only: tuple[int, int] | None) -> str:
    """The label of a pair's interval ``kind``: Tango's without clusters says when it is continuity-corrected
    (:func:`~evalstats_core.pair_proportions.continuity_correction` is above 0 from one discordant answer on)."""
    if kind == "tango" and only is not None and only[0] + only[1] > 0:
        return "tango-corrected"
    return kind


def _percent(x: float) -> str:
    return f"{100.0 * x:.1f}%"


def zero_se_model(r: ModelResult, binary: bool) -> str:
    """The sentence for a model whose standard error is 0: what is true of its scores, and its interval."""
    if r.se_naive > 0.0:  # clustered: the scores vary, but every cluster has the same mean
        what = f"{r.model}: every cluster has the same mean score ({_percent(r.mean) if binary else f'{r.mean:g}'})"
    elif binary:
        what = f"{r.model} scored {_percent(r.mean)} on every question"
    else:
        what = f"{r.model} has the same score ({r.mean:g}) on every question"
    if r.interval.startswith(("Wilson", "Korn", "Clopper", "Bayes", "quasi-binomial", "cluster means")):
        return (f"{what}: its standard error is 0, which understates the uncertainty; its interval is "
                f"{r.interval}, which does not")
    if r.interval.startswith("no interval"):
        return f"{what}: its standard error is 0, so there is no interval (the data cannot bound its mean)"
    return f"{what}: its standard error is 0 and its t interval has zero width, which understates the uncertainty"


def zero_se_pair(c: Any, model: str, baseline: str, *, every_question: bool) -> str:
    """The sentence for a comparison whose standard error is 0: what is true, and what interval it has."""
    where = ("have the same score difference on every shared question" if every_question else
             "have the same mean score difference in every cluster")
    if c.interval.startswith("tango"):
        return (f"{model} and {baseline} {where}: the t standard error is 0, so the interval is Tango's score "
                f"interval on the {c.only_a + c.only_b} discordant answers, which does not have zero width")
    if c.interval == "none":
        return (f"{model} and {baseline} {where}: the difference has standard error 0, so there is no interval "
                "(the data cannot bound the difference; the gate reports inconclusive)")
    return (f"{model} and {baseline} {where}: the difference has standard error 0 and its t interval has zero "
            "width, which understates the uncertainty")


def warnings_for(sums: FileSums, rows: list[ModelResult], pairs: tuple[PairResult, ...], *,
                  clustered: bool, paired: bool, method: str = "cr2") -> list[str]:
    """Plain-words cautions about the analysis, most important first."""
    out: list[str] = []
    counted = [r.n_clusters for r in rows if r.n_clusters is not None]
    if clustered and counted:
        few = min(counted)
        low_df = min(r.df for r in rows if r.n_clusters is not None)
        if method == "cr1" and few < MIN_CLUSTERS:
            out.append(f"only {few} clusters (column '{sums.cluster_col}'): with fewer than about {MIN_CLUSTERS} "
                       "clusters the CR1 standard error with a normal interval tends to be too small, so read the "
                       "intervals as optimistic (Cameron & Miller 2015); the default CR2 with Satterthwaite "
                       "degrees of freedom (method='cr2') corrects this")
        elif method == "cr2" and few < MIN_CLUSTERS_CR2:
            eff = kish_n(sums.cluster_sizes)
            worth = "about one cluster's worth" if eff < 1.5 else f"about {eff:.1f} clusters' worth"
            wild = ("the wild cluster bootstrap is a useful cross-check" if few >= 6 else
                    "the wild cluster bootstrap is no cross-check with so few (it covered less than CR2 in "
                    "simulations with 2 clusters)")
            out.append(f"only {few} clusters (column '{sums.cluster_col}'), as little as {low_df:.1f} degrees of "
                       f"freedom, {worth} of information (Kish's effective number of clusters): the CR2 intervals "
                       f"account for this and are wide; a difference must be large to be told apart, and {wild}")
        under = [r for r in rows if r.n_clusters is not None and math.isfinite(r.deff) and r.deff < 1.0]
        if under:
            names = ", ".join(f"{r.model} ({r.deff:.2f})" for r in under[:5]) + (", ..." if len(under) > 5 else "")
            out.append(Note(f"design effect below 1 for {names}: the clustered standard error came out smaller than "
                            "the naive one, as if questions in a cluster disagreed more than chance would make them. "
                            + (f"With only {few} clusters this is as likely noise in the clustered variance estimate "
                               "as a real negative within-cluster correlation; an effective n above the number of "
                               "questions is not credible" if few < MIN_CLUSTERS else
                               "It means a negative within-cluster correlation estimate; check that the cluster "
                               "column groups related questions"), DEFF_BELOW_ONE))
    # small samples: what counts is the independent units (clusters when clustered) and the df
    units = [(r.n_clusters if r.n_clusters is not None else r.n) for r in rows]
    small = [r for r, u in zip(rows, units, strict=True) if u < SMALL_N]
    if small:
        u_min = min(units)
        what = "clusters" if clustered else "questions"
        tail = ("for 0/1 scores the default interval is Wilson's (Clopper-Pearson's below 10 failures) when fewer "
                "than 100 failures are expected" if sums.score_kind == "binary" and not clustered else
                "t assumes a roughly normal mean, which scores bunched at one end of the scale do not give with "
                "so few")
        if method == "cr1":
            out.append(f"{'every model has' if len(small) == len(rows) else 'some models have'} fewer than "
                       f"{SMALL_N} {what} (smallest: {u_min}): normal (CLT) intervals can be too narrow with fewer "
                       f"than a few hundred independent {what} (Bowyer et al. 2025); the default t reference "
                       f"(method='cr2') widens them; {tail}")
        elif min(r.df for r in rows) < SMALL_DF:
            df_min = min(r.df for r in rows)
            out.append(f"only {u_min} independent {what} at the fewest ({df_min:.1f} degrees of freedom): the "
                       f"intervals use t on those degrees of freedom, noticeably wider than normal ones; {tail}")
    for r in rows:
        if r.se == 0.0:
            out.append(zero_se_model(r, sums.score_kind == "binary"))
    partial = [r for r in rows if r.n < sums.n_questions]
    if partial:
        out.append("questions missing for some models: " + "; ".join(
            f"{r.model} answered {r.n} of {sums.n_questions}" for r in partial)
            + " - each comparison uses only the questions both models answered")
    if any(r.k_max > 1 for r in rows):
        ks = sorted({(r.k_min, r.k_max) for r in rows})
        span = ", ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in ks)
        out.append(f"resamples averaged: each question's answers (K = {span}) were averaged into one score "
                   "per question before computing standard errors (not pooled)")
    if clustered and paired and any(p.mcnemar_statistic is not None for p in pairs):
        out.append("McNemar's test assumes independent questions; with clusters, use the clustered paired "
                   "test (the p-values in the table)")
    if not paired:
        dfs = ("" if method != "cr2" else
               "; their t uses clubSandwich's Satterthwaite degrees of freedom of the two-group CR2 model"
               if clustered else "; their t uses Welch's degrees of freedom (Welch's t-test)")
        out.append("comparisons are unpaired: the standard errors ignore that both models answered the same "
                   f"questions and are larger than the paired ones{dfs}")
    return out


def below_plain_sums(sums: FileSums, pairs: tuple[PairResult, ...]) -> list[str]:
    """The sentences for clustered paired SEs below the plain paired SE (questions as independent), as
    :func:`~evalstats_core.guardrails.below_plain` finds them, from the pairs' sums."""


    found = below_plain(sums, SimpleNamespace(clustered=True, paired=True, comparisons=pairs))
    return [below_plain_sentence(c, plain, sums.unit01) for c, plain in found]


#: An ignored column counts as cluster-like when clustering on it changes some SE by this factor.
SE_RATIO_FLAG = 1.1


def plain_paired_se(data: QuestionTable | FileSums, model: str, baseline: str) -> float:
    """The paired SE of ``model - baseline`` with questions as independent: sd(d) / sqrt(n) on shared questions.

    From a file's sums (:meth:`FileSums.plain_paired_se <evalstats_core.sums.FileSums.plain_paired_se>`, no
    pass over the questions), or from a question table through the sums of those two models alone.
    """
    if isinstance(data, FileSums):
        return data.plain_paired_se(data.models.index(model), data.models.index(baseline))
    return two_model_sums(data, model, baseline).plain_paired_se(0, 1)


def below_plain(data: QuestionTable | FileSums, analysis: Any) -> list[tuple[Any, float]]:
    """The paired comparisons whose clustered SE is below the plain paired SE (by more than the noise of
    :data:`SE_RATIO_FLAG`: plain / clustered > 1.1), with that plain SE. ``data`` is the file's
    :class:`~evalstats_core.sums.FileSums` (or its question table); ``analysis`` needs ``clustered``,
    ``paired`` and ``comparisons`` (an :class:`Analysis`, or the same while it is being built)."""
    if not (analysis.clustered and analysis.paired):
        return []
    out = []
    for c in analysis.comparisons:
        plain = plain_paired_se(data, c.model, c.baseline)
        if math.isfinite(plain) and plain > 0 and math.isfinite(c.se) and c.se * SE_RATIO_FLAG < plain:
            out.append((c, plain))
    return out


def below_plain_sentence(c: Any, plain: float, percent: bool) -> str:
    """What a clustered SE below the plain paired one means, in one sentence with its numbers."""
    def pts(x: float) -> str:
        return f"{100.0 * x:.2f} points" if percent else f"{x:.3g}"

    clusters = c.n_clusters if c.n_clusters is not None else 0
    return (f"{c.model} − {c.baseline}: the clustered SE ({pts(c.se)}) is below the plain paired SE with questions "
            f"as independent ({pts(plain)}), as if questions in a cluster disagreed more than chance would make them. "
            + (f"With {clusters} clusters this is as likely noise in the clustered variance estimate as a real negative "
               "within-cluster correlation, and an interval built on it is then too narrow: read the wider, "
               "plain interval as the safer one, or cross-check with the wild cluster bootstrap."
               if clusters < 30 else
               "It means a negative within-cluster correlation of the differences; check that the cluster column "
               "groups related questions."))


# What clustering on a handful of clusters costs (issue 19; cluster_cost.py until issue 38 merged it here: the
# analysis' own warning, like zero_se_model and below_plain_sentence above, and used by nothing else).
#
# What clustering on a handful of clusters costs: the clustered interval beside the unclustered one.
#
# With fewer than :data:`FEW_CLUSTERS` clusters the clustered standard error rests on a few cluster means: CR2
# with Satterthwaite degrees of freedom stays honest but its t reference has very few degrees of freedom, so
# the interval can be several times wider than the one that treats the questions as independent. Neither
# answer is hidden: :func:`clustering_cost` puts the two side by side (degrees of freedom and widths), and
# :func:`analyze` adds its sentence to the warnings, so the command line and the
# workbench print the same numbers (issue 19).
#
# References
# ----------
# Cameron & Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference", J. Human Resources 50(2),
# Sec. VI (few clusters). Pustejovsky & Tipton 2018, JBES 36(4) (CR2 and its degrees of freedom).

#: below this many clusters the default analysis shows what clustering costs
FEW_CLUSTERS = 5
#: how the cost sentence starts (the workbench shows it beside the models' table)
COST_PREFIX = "what clustering on"


@dataclass(frozen=True, slots=True)
class ClusterCost:
    """One model's interval clustered and unclustered.

    Attributes
    ----------
    model : str
    n_clusters : int
    df : float
        Degrees of freedom of the clustered interval.
    clustered : tuple of float
        ``(low, high)`` of the clustered interval (the one the analysis reports).
    unclustered : tuple of float
        ``(low, high)`` of the same model's interval with the questions treated as independent (the
        analysis' own interval rule, e.g. Wilson for few 0/1 answers).
    unclustered_df : float
        Degrees of freedom of the unclustered interval (``inf`` for a proportion interval or a normal one).
    """

    model: str
    n_clusters: int
    df: float
    clustered: tuple[float, float]
    unclustered: tuple[float, float]
    unclustered_df: float

    @property
    def ratio(self) -> float:
        """Clustered width over unclustered width."""
        wide = self.unclustered[1] - self.unclustered[0]
        return (self.clustered[1] - self.clustered[0]) / wide if wide > 0 else math.inf


def clustering_cost(table: Any, rows: Any, *, confidence: float, method: str, interval: str) -> list[ClusterCost]:
    """Each clustered model's interval next to its unclustered interval, when the clusters are few.

    Parameters
    ----------
    table : FileSums or QuestionTable
        The sums of the file the analysis ran on (or its question-level scores).
    rows : sequence of ModelResult
        The analysis' models (clustered ones have ``n_clusters``).
    confidence, method, interval
        As given to :func:`~evalstats_core.analysis.analyze`; the unclustered interval uses the same rule.

    Returns
    -------
    list of ClusterCost
        Empty unless some model is clustered on fewer than :data:`FEW_CLUSTERS` clusters.
    """
    if not any(r.n_clusters is not None and r.n_clusters < FEW_CLUSTERS for r in rows):
        return []  # no model on few clusters (the usual file): no merge, no sums
    sums = table if isinstance(table, FileSums) else file_sums(table)
    one = sums.merged()  # every question its own cluster
    out = []
    for ms, r in zip(one.model_sums, rows, strict=True):
        if r.n_clusters is None or r.n_clusters >= FEW_CLUSTERS:
            continue
        s = scaled(summary_from(ms.count, ms.mean, ms.m2, binary=not ms.not01.any(), clustered=False,
                                confidence=confidence, method=method,
                                interval="auto" if interval == "auto" else "normal", in_unit=InUnit(sums.unit01)),
                   sums.exponent)  # analyze's rule (unclustered scores in [0, 1] near a bound: bounded_unclustered)
        k_max = int(ms.k_values.max())
        proportion = sums.score_kind == "binary" and k_max == 1
        low, high, label = _model_interval(s, "resampled" if k_max > 1 else sums.score_kind, interval,
                                           proportion, method, False, confidence)
        normal = label.startswith(normal_label(method, False))  # else a proportion interval (no df)
        df = float(s.df) if normal and method == "cr2" else math.inf
        out.append(ClusterCost(r.model, int(r.n_clusters), float(r.df), (float(r.ci_low), float(r.ci_high)),
                               (float(low), float(high)), df))
    return out


def cost_sentence(costs: list[ClusterCost], cluster_col: str | None, *, percent: bool, shown: int = 3) -> str | None:
    """One sentence for the report and the page: the clustered and unclustered intervals of the first
    ``shown`` models, with their degrees of freedom and widths (points for 0-1 scores)."""
    if not costs:
        return None

    def num(x: float) -> str:
        return f"{100.0 * x:.1f}%" if percent else f"{x:.3g}"

    def width(a: float, b: float) -> str:
        return f"{100.0 * (b - a):.1f} points" if percent else f"{b - a:.3g}"

    parts = []
    for c in costs[:shown]:
        un_df = "" if math.isinf(c.unclustered_df) else f" on {c.unclustered_df:.0f} df"
        parts.append(f"{c.model}: {num(c.clustered[0])} to {num(c.clustered[1])} ({width(*c.clustered)} wide, "
                     f"{c.df:.1f} df) clustered, against {num(c.unclustered[0])} to {num(c.unclustered[1])} "
                     f"({width(*c.unclustered)}{un_df}) unclustered")
    more = f"; and {len(costs) - shown} more model{'s' if len(costs) - shown > 1 else ''}" if len(costs) > shown else ""
    few = min(c.n_clusters for c in costs)
    return Note(f"{COST_PREFIX} {few} clusters (column '{cluster_col}') costs: " + "; ".join(parts) + more
                + f". The clustered interval treats the {few} clusters as a sample of many possible ones, and so few "
                "leave few degrees of freedom; if they are the fixed set you care about (these clusters, not others "
                "like them), the unclustered interval answers for them (use_clusters=False)", CLUSTERING_COST)
