"""One pass from a loaded results file to every model's score and every pairwise comparison.

=====================  ==========================================================================
:func:`analyze`        per-model :func:`~evalstats_core.clustering.summarize`, per-pair
                       :func:`~evalstats_core.comparison.compare`, adjusted p-values, McNemar, warnings
:class:`Analysis`      the result, with ``models_frame()`` / ``comparisons_frame()`` tidy tables
:class:`ModelResult`   one model's row (paper Tables 2-3)
:class:`PairResult`    one comparison's row (paper Table 5)
=====================  ==========================================================================

The command line (``evalbars analyze``) and the app's workbench both call
:func:`analyze`, so their numbers agree to the last digit. It never reads files: pass it a
:class:`~evalstats_core.data.Dataset` from :func:`~evalstats_core.data.load` (or the
:class:`~evalstats_core.data.QuestionTable` made from one).
"""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from ._clusters import MIN_CLUSTERS, MIN_CLUSTERS_CR2, check_method
from ._validate import check_confidence
from .data import Dataset, QuestionTable, load, question_scores
from .errors import EvalStatsError, EvalStatsWarning
from .vocabulary import ADJUST_LABELS, INTERVAL_LABELS, normal_label  # noqa: F401 - re-exported

__all__ = ["Analysis", "AnalysisStopped", "ModelResult", "PairResult", "analyze"]


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
#: failures, else ``normal`` (:func:`~evalstats_core.proportions.binary_mean_interval`).
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
        Standard-error method, ``"cr2"`` or ``"cr1"``.
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
        Standard-error method, ``"cr2"`` or ``"cr1"``.
    p_adjusted : float
        ``p_value`` adjusted across all comparisons of the analysis (Holm by default).
    correlation : float
        Pearson correlation of the two models' question scores (nan when unpaired or undefined).
    se_unpaired, se_paired : float
        ``sqrt(SE_model^2 + SE_baseline^2)`` and the paired SE (nan when unpaired).
    mcnemar_statistic, mcnemar_p_value : float or None
        McNemar's chi-square (no continuity correction) and p-value for 0/1 scores; None otherwise.
    only_model, only_baseline : int or None
        Discordant questions for 0/1 scores: right only for ``model`` / only for ``baseline``.
    mcnemar_p : float or None
        Exact McNemar p-value (two-sided binomial on the discordant questions) for paired 0/1 scores
        without clusters; None otherwise.
    wild_p_value : float or None
        Wild cluster bootstrap p-value of the paired difference, when requested; None otherwise.
    interval : str
        How the interval and p were found, as a label (as ``ModelResult.interval``): the t / normal
        label, or Tango's score interval for paired 0/1 scores with few discordant answers.
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
    mcnemar_p_value: float | None
    only_model: int | None
    only_baseline: int | None
    df: float = math.inf
    method: str = "cr1"
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

    def models_frame(self) -> pd.DataFrame:
        """One row per model, one column per :class:`ModelResult` field."""
        names = [f.name for f in fields(ModelResult)]
        return pd.DataFrame([[getattr(m, k) for k in names] for m in self.models], columns=names)

    def comparisons_frame(self) -> pd.DataFrame:
        """One row per comparison, one column per :class:`PairResult` field."""
        names = [f.name for f in fields(PairResult)]
        return pd.DataFrame([[getattr(c, k) for k in names] for c in self.comparisons], columns=names)

    def chart(self, kind: str = "models") -> Any:
        """The Altair chart the workbench draws: ``"models"``, ``"differences"`` or ``"matrix"`` (needs altair).

        See :func:`evalstats_core.display.chart`.
        """
        from .display import chart

        return chart(self, kind)

    def _repr_html_(self) -> str:  # Jupyter: the workbench's tables
        from .display import analysis_html

        return analysis_html(self)

    def _repr_markdown_(self) -> str:  # Jupyter without HTML: the command line's Markdown report
        from .display import analysis_markdown

        return analysis_markdown(self)

    def model(self, name: str) -> ModelResult:
        """The result of model ``name``."""
        for m in self.models:
            if m.model == name:
                return m
        raise EvalStatsError(f"no model named {name!r}; models are: {', '.join(m.model for m in self.models)}")


def _two_values(codes: np.ndarray) -> bool:
    """True when ``codes`` holds at least two distinct clusters (min != max: one pass, no sort)."""
    return codes.size > 0 and bool(codes.min() != codes.max())


def _pairs(models: tuple[str, ...], baseline: str | None) -> list[tuple[int, int]]:
    """(model index, baseline index) pairs: every later model against every earlier one, or vs baseline."""
    if baseline is None:
        return [(j, i) for i in range(len(models)) for j in range(i + 1, len(models))]
    b = models.index(baseline)
    return [(j, b) for j in range(len(models)) if j != b]


def _adjust(p: list[float], method: str) -> list[float]:
    """Adjusted p-values over the finite entries (a nan p-value stays nan and is not counted)."""
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


def _mcnemar(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, int | None, int | None,
                                                    float | None]:
    """McNemar statistic, p-value, discordant counts and exact p for 0/1 scores; Nones otherwise."""
    from .comparison import mcnemar

    if not (np.all((a == 0.0) | (a == 1.0)) and np.all((b == 0.0) | (b == 1.0))):
        return None, None, None, None, None
    res = mcnemar(a, b)
    if res.discordant == 0:  # no discordant question: the test is undefined, not "p = 1"
        return None, None, res.only_a, res.only_b, None
    return float(res.statistic), float(res.p_value), res.only_a, res.only_b, float(res.p_exact)


def _percent(x: float) -> str:
    return f"{100.0 * x:.1f}%"


def _model_interval(s: Any, kind: str, interval: str, proportion: bool, method: str,
                    clustered: bool, confidence: float) -> tuple[float, float, str]:
    """``(low, high, label)`` of one model's interval by the ``interval`` rule (see :data:`INTERVALS`)."""
    from .intervals import proportion_ci

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
        rule of :func:`~evalstats_core.comparison.compare` (Tango's score interval for paired 0/1 scores
        with fewer than 100 discordant answers).
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
    come from :func:`~evalstats_core.clustering.summarize`; each pair from
    :func:`~evalstats_core.comparison.compare` on the questions both models answered (paired SE, Eq. 7;
    clustered paired, Eq. 8; CR2 with Bell-McCaffrey df by default). The integer cluster codes are
    computed once for the whole file and sliced per model and pair.

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
    from .clustering import summarize
    from .comparison import compare

    confidence = check_confidence(confidence)
    check_method(method)
    if adjust not in _ADJUST:
        raise EvalStatsError(f"adjust ({adjust!r}) must be one of {', '.join(map(repr, _ADJUST))}")
    if interval not in INTERVALS:
        raise EvalStatsError(f"interval ({interval!r}) must be one of {', '.join(map(repr, INTERVALS))}")
    if isinstance(data, Dataset):
        table = question_scores(data)
    elif isinstance(data, QuestionTable):
        table = data  # it carries the file's roles and notes (question_scores copies them from the Dataset)
    elif _is_frame(data):  # a pandas/polars DataFrame or an Arrow table: read as load() reads a file
        table = question_scores(load(data))
    else:
        raise EvalStatsError(f"analyze needs a Dataset from load() (or a QuestionTable), not a {type(data).__name__}")
    models = table.models
    if baseline is not None and baseline not in models:
        raise EvalStatsError(f"baseline {baseline!r} is not a model in {table.name}; its models are: "
                             f"{', '.join(repr(m) for m in models)} (names must match exactly)")
    if len(models) < 2 and baseline is not None:
        raise EvalStatsError(f"{table.name} has one model, so there is nothing to compare with the baseline")
    clustered = bool(use_clusters and table.cluster_codes is not None)
    warn: list[str] = []
    if clustered and table.n_clusters < 2:
        clustered = False
        warn.append(f"the cluster column '{table.cluster_col}' has a single value, so the standard errors are "
                    "not clustered (clustering needs at least two clusters)")
    codes = table.cluster_codes if clustered else None
    scores, answered, k = table.scores, table.answered, table.k  # (n_q, n_m) each
    notes: list[str] = list(table.notes)
    binary = table.score_kind == "binary"

    with _warnings.catch_warnings():  # per-call warnings are gathered below, once each
        _warnings.simplefilter("ignore", EvalStatsWarning)
        rows = []
        for j, name in enumerate(models):
            if should_stop is not None and should_stop():
                raise AnalysisStopped(f"stopped after {j} of {len(models)} models: nobody is waiting for it")
            mask = answered[:, j]
            full = bool(mask.all())  # every question answered: views, no copies of the columns
            cl = None if codes is None else (codes if full else codes[mask])
            if cl is not None and not _two_values(cl):
                cl = None
                warn.append(f"{name}: every question it answered lies in one cluster, so its standard error is "
                            "not clustered")
            s = summarize(scores[:, j] if full else scores[mask, j], cl, confidence=confidence, method=method,
                          interval="auto" if interval == "auto" else "normal")
            kj = k[:, j] if full else k[mask, j]
            proportion = binary and int(kj.max()) == 1 and cl is None
            low, high, label = _model_interval(s, "resampled" if int(kj.max()) > 1 else table.score_kind,
                                               interval, proportion, method, cl is not None, confidence)
            rows.append(ModelResult(
                model=name, n=s.n, n_clusters=s.n_clusters if cl is not None else None,
                k=int(np.bincount(kj).argmax()), k_min=int(kj.min()), k_max=int(kj.max()),
                mean=s.mean, se=s.se, ci_low=low, ci_high=high, se_naive=s.se_naive,
                deff=s.deff, n_eff=s.n_eff, df=s.df, method=method, interval=label))
        raw: list[dict[str, Any]] = []
        for done, (j, b) in enumerate(_pairs(models, baseline)):
            if should_stop is not None and should_stop():
                raise AnalysisStopped(f"stopped after {done} comparisons: nobody is waiting for it")
            both = answered[:, j] & answered[:, b]
            n_shared = int(np.count_nonzero(both))
            left_out = int(np.count_nonzero(answered[:, j] | answered[:, b])) - n_shared
            if n_shared < 2:
                raise EvalStatsError(
                    f"models {models[j]!r} and {models[b]!r} share {n_shared} question(s) in {table.name}; a "
                    "paired comparison needs at least two questions that both models answered")
            full = n_shared == both.size
            sj, sb = (scores[:, j], scores[:, b]) if full else (scores[both, j], scores[both, b])
            cl = None if codes is None else (codes if full else codes[both])
            if cl is not None and not _two_values(cl):
                cl = None
                warn.append(f"{models[j]} vs {models[b]}: the shared questions lie in one cluster, so this "
                            "comparison is not clustered")
            c = compare(sj, sb, cl, paired=paired, confidence=confidence, method=method,
                        interval="normal" if interval == "normal" else "auto")
            mc = _mcnemar(sj, sb) if paired else (None, None, None, None, None)
            if c.se == 0.0 and paired:
                warn.append(_zero_se_pair(c, models[j], models[b], every_question=bool(np.ptp(sj - sb) == 0.0)))
            wild_p = None
            if wild_bootstrap and paired:
                from .wild import wild_cluster_bootstrap

                wild_p = float(wild_cluster_bootstrap(sj - sb, cl, confidence=confidence, n_boot=n_boot,
                                                      rng=seed).p_value)
            raw.append(dict(model=models[j], baseline=models[b], n=c.n, n_left_out=left_out,
                            n_clusters=c.n_clusters if cl is not None else None, mean_model=c.mean_a,
                            mean_baseline=c.mean_b, diff=c.diff, se=c.se, ci_low=c.ci_low, ci_high=c.ci_high,
                            z=c.z, p_value=c.p_value, correlation=c.correlation, se_unpaired=c.se_unpaired,
                            se_paired=c.se_paired, mcnemar_statistic=mc[0], mcnemar_p_value=mc[1],
                            only_model=mc[2], only_baseline=mc[3], df=c.df, method=method,
                            mcnemar_p=mc[4] if cl is None else None, wild_p_value=wild_p,
                            interval=(normal_label(method, cl is not None) if c.interval == "normal"
                                      else INTERVAL_LABELS[c.interval])))
    adjusted = _adjust([r["p_value"] for r in raw], adjust)
    pairs = tuple(PairResult(p_adjusted=p, **r) for r, p in zip(raw, adjusted, strict=True))

    warn += _warnings_for(table, rows, pairs, clustered=clustered, paired=paired, method=method)
    if clustered:  # few clusters: the clustered and unclustered intervals side by side (issue 19)
        from .cluster_cost import clustering_cost, cost_sentence

        costs = clustering_cost(table, rows, confidence=confidence, method=method, interval=interval)
        binary_scale = bool(np.all((scores[answered] >= 0.0) & (scores[answered] <= 1.0)))
        warn += [s for s in [cost_sentence(costs, table.cluster_col, percent=binary_scale)] if s]
    return Analysis(
        models=tuple(rows), comparisons=pairs, warnings=tuple(dict.fromkeys(warn)), notes=tuple(notes),
        name=table.name, confidence=confidence, baseline=baseline, paired=bool(paired), clustered=clustered,
        adjust=adjust, score_kind=table.score_kind, n_questions=int(table.questions.size),
        n_clusters=table.n_clusters if clustered else None,
        unit="percent" if bool(np.all((scores[answered] >= 0.0) & (scores[answered] <= 1.0))) else "score",
        format=table.format, question_col=table.question_col, model_col=table.model_col,
        score_col=table.score_col, cluster_col=table.cluster_col if clustered else None,
        reading=tuple(table.reading),
        method=method, interval=interval, wild_bootstrap=bool(wild_bootstrap and paired), n_boot=int(n_boot),
        seed=int(seed),
    )


def _zero_se_model(r: ModelResult, binary: bool) -> str:
    """The sentence for a model whose standard error is 0: what is true of its scores, and its interval."""
    if r.se_naive > 0.0:  # clustered: the scores vary, but every cluster has the same mean
        what = f"{r.model}: every cluster has the same mean score ({_percent(r.mean) if binary else f'{r.mean:g}'})"
    elif binary:
        what = f"{r.model} scored {_percent(r.mean)} on every question"
    else:
        what = f"{r.model} has the same score ({r.mean:g}) on every question"
    if r.interval.startswith(("Wilson", "Korn", "Clopper", "Bayes")):
        return (f"{what}: its standard error is 0, which understates the uncertainty; its interval is "
                f"{r.interval}, which does not")
    if r.interval.startswith("no interval"):
        return f"{what}: its standard error is 0, so there is no interval (the data cannot bound its mean)"
    return f"{what}: its standard error is 0 and its t interval has zero width, which understates the uncertainty"


def _zero_se_pair(c: Any, model: str, baseline: str, *, every_question: bool) -> str:
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


def _warnings_for(table: QuestionTable, rows: list[ModelResult], pairs: tuple[PairResult, ...], *,
                  clustered: bool, paired: bool, method: str = "cr2") -> list[str]:
    """Plain-words cautions about the analysis, most important first."""
    out: list[str] = []
    counted = [r.n_clusters for r in rows if r.n_clusters is not None]
    if clustered and counted:
        few = min(counted)
        low_df = min(r.df for r in rows if r.n_clusters is not None)
        if method == "cr1" and few < MIN_CLUSTERS:
            out.append(f"only {few} clusters (column '{table.cluster_col}'): with fewer than about {MIN_CLUSTERS} "
                       "clusters the CR1 standard error with a normal interval tends to be too small, so read the "
                       "intervals as optimistic (Cameron & Miller 2015); the default CR2 with Satterthwaite "
                       "degrees of freedom (--cluster-se cr2) corrects this")
        elif method == "cr2" and few < MIN_CLUSTERS_CR2:
            from .proportions import kish_n

            eff = kish_n(np.bincount(table.cluster_codes))
            worth = "about one cluster's worth" if eff < 1.5 else f"about {eff:.1f} clusters' worth"
            wild = ("the wild cluster bootstrap is a useful cross-check" if few >= 6 else
                    "the wild cluster bootstrap is no cross-check with so few (it covered less than CR2 in "
                    "simulations with 2 clusters)")
            out.append(f"only {few} clusters (column '{table.cluster_col}'), as little as {low_df:.1f} degrees of "
                       f"freedom, {worth} of information (Kish's effective number of clusters): the CR2 intervals "
                       f"account for this and are wide; a difference must be large to be told apart, and {wild}")
        under = [r for r in rows if r.n_clusters is not None and math.isfinite(r.deff) and r.deff < 1.0]
        if under:
            names = ", ".join(f"{r.model} ({r.deff:.2f})" for r in under[:5]) + (", ..." if len(under) > 5 else "")
            out.append(f"design effect below 1 for {names}: the clustered standard error came out smaller than "
                       "the naive one, as if questions in a cluster disagreed more than chance would make them. "
                       + (f"With only {few} clusters this is as likely noise in the clustered variance estimate "
                          "as a real negative within-cluster correlation; an effective n above the number of "
                          "questions is not credible" if few < MIN_CLUSTERS else
                          "It means a negative within-cluster correlation estimate; check that the cluster "
                          "column groups related questions"))
    # small samples: what counts is the independent units (clusters when clustered) and the df
    units = [(r.n_clusters if r.n_clusters is not None else r.n) for r in rows]
    small = [r for r, u in zip(rows, units, strict=True) if u < SMALL_N]
    if small:
        u_min = min(units)
        what = "clusters" if clustered else "questions"
        tail = ("for 0/1 scores the default interval is Wilson's (Clopper-Pearson's below 10 failures) when fewer "
                "than 100 failures are expected" if table.score_kind == "binary" and not clustered else
                "t assumes a roughly normal mean, which scores bunched at one end of the scale do not give with "
                "so few")
        if method == "cr1":
            out.append(f"{'every model has' if len(small) == len(rows) else 'some models have'} fewer than "
                       f"{SMALL_N} {what} (smallest: {u_min}): normal (CLT) intervals can be too narrow with fewer "
                       f"than a few hundred independent {what} (Bowyer et al. 2025); the default t reference "
                       f"(--cluster-se cr2) widens them; {tail}")
        elif min(r.df for r in rows) < SMALL_DF:
            df_min = min(r.df for r in rows)
            out.append(f"only {u_min} independent {what} at the fewest ({df_min:.1f} degrees of freedom): the "
                       f"intervals use t on those degrees of freedom, noticeably wider than normal ones; {tail}")
    for r in rows:
        if r.se == 0.0:
            out.append(_zero_se_model(r, table.score_kind == "binary"))
    partial = [r for r in rows if r.n < table.questions.size]
    if partial:
        out.append("questions missing for some models: " + "; ".join(
            f"{r.model} answered {r.n} of {table.questions.size}" for r in partial)
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
    if clustered and paired:  # a clustered SE of a difference below the plain one: say what it means
        from types import SimpleNamespace

        from .guardrails import below_plain, below_plain_sentence  # lazy: guardrails imports this module

        state = SimpleNamespace(clustered=True, paired=True, comparisons=pairs)
        out += [below_plain_sentence(c, plain, _unit01(table)) for c, plain in below_plain(table, state)]
    return out


def _unit01(table: QuestionTable) -> bool:
    """Scores on the 0-1 scale (printed in percent and points)."""
    vals = table.scores[table.answered]
    return bool(np.all((vals >= 0.0) & (vals <= 1.0)))
