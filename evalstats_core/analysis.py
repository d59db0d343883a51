"""One pass from a loaded results file to every model's score and every pairwise comparison.

=====================  ==========================================================================
:func:`analyze`        per-model :func:`~evalstats_core.clustering.summarize`, per-pair
                       :func:`~evalstats_core.comparison.compare`, adjusted p-values, McNemar, warnings
:func:`analyze_sums`   the same from a file's :class:`~evalstats_core.sums.FileSums`, without the rows
:class:`Analysis`      the result, with ``models_frame()`` / ``comparisons_frame()`` tidy tables
:class:`ModelResult`   one model's row (paper Tables 2-3)
:class:`PairResult`    one comparison's row (paper Table 5)
=====================  ==========================================================================

The command line (``evalbars analyze``) and the app's workbench both call
:func:`analyze`, so their numbers agree to the last digit. It never reads files: pass it a
:class:`~evalstats_core.data.Dataset` from :func:`~evalstats_core.data.load` (or the
:class:`~evalstats_core.data.QuestionTable` made from one). It reads the rows once
(:func:`~evalstats_core.sums.file_sums`) and computes everything from those sums with
:func:`analyze_sums`, which a SQL engine's sums (files larger than memory) feed just the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ._clusters import check_method
from ._results import notebook_view
from ._validate import check_confidence
from .data import Dataset, QuestionTable, load, question_scores
from .errors import EvalStatsError
from .vocabulary import ADJUST_LABELS, INTERVAL_LABELS, normal_label  # noqa: F401 - re-exported

if TYPE_CHECKING:  # pandas is imported when a frame is asked for: the command line's reports never need one
    import pandas as pd


def _data_frame(*args: Any, **kwargs: Any) -> pd.DataFrame:
    """``pandas.DataFrame(*args, **kwargs)``, pandas imported on first use (issue 25: start-up)."""
    import pandas as pd

    return pd.DataFrame(*args, **kwargs)


__all__ = ["Analysis", "AnalysisStopped", "ModelResult", "PairResult", "analyze", "analyze_sums"]


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
    from .multiple import benjamini_hochberg, holm

    arr = np.asarray(p, dtype=np.float64)
    out = np.full(arr.shape, math.nan)
    ok = np.isfinite(arr)
    if method == "none":
        return [float(x) for x in arr]
    if ok.any():
        fn = holm if method == "holm" else benjamini_hochberg
        out[ok] = np.asarray(fn(arr[ok]), dtype=np.float64)
    return [float(x) for x in out]


def _model_interval(s: Any, kind: str, interval: str, proportion: bool, method: str,
                    clustered: bool, confidence: float) -> tuple[float, float, str]:
    """``(low, high, label)`` of one model's interval by the ``interval`` rule (see :data:`INTERVALS`)."""
    chosen = interval
    if interval == "auto":
        if s.interval != "normal":  # summarize applied the 0/1 rule
            return s.ci_low, s.ci_high, INTERVAL_LABELS[s.interval]
        chosen = "normal"
    if chosen == "normal":
        return s.ci_low, s.ci_high, normal_label(method, clustered)
    if not proportion:
        why = "clusters" if clustered else ("resamples" if kind == "resampled" else "scores not 0/1")
        return (s.ci_low, s.ci_high, f"{normal_label(method, clustered)}; {INTERVAL_LABELS[chosen]} needs "
                f"independent 0/1 answers ({why})")
    from .intervals import proportion_ci

    k = int(round(s.mean * s.n))  # 0/1 scores, one answer each: the count of right answers
    low, high = proportion_ci(k, s.n, method=chosen.replace("-", "_"), confidence=confidence)
    return float(low), float(high), INTERVAL_LABELS[chosen]


def _is_frame(data: Any) -> bool:
    from ._table import arrow_of

    return not isinstance(data, (str, bytes)) and arrow_of(data) is not None


def analyze(data: Dataset | QuestionTable, *, baseline: str | None = None, confidence: float = 0.95,
            paired: bool = True, use_clusters: bool = True, adjust: str = "holm", method: str = "cr2",
            interval: str = "auto", wild_bootstrap: bool = False, n_boot: int = 9999,
            seed: int = 0, should_stop: Callable[[], bool] | None = None) -> Analysis:
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
    from .sums import file_sums

    res = analyze_sums(file_sums(table), baseline=baseline, confidence=confidence, paired=paired,
                       use_clusters=use_clusters, adjust=adjust, method=method, interval=interval,
                       should_stop=should_stop)
    wild = bool(wild_bootstrap and paired)
    if not wild and (int(n_boot), int(seed)) == (res.n_boot, res.seed):  # the defaults analyze_sums set: kept
        return res
    pairs = res.comparisons
    if wild:
        from .wild import wild_cluster_bootstrap

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


from ._sums_analysis import analyze_sums  # noqa: E402 - it reads this module's result types
