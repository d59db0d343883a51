"""``analyze_sums``: the whole analysis from a file's sufficient statistics (re-exported by
:mod:`evalstats_core.analysis`, where its result types live)."""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ._validate import check_confidence
from .analysis import (
    INTERVAL_LABELS,
    Analysis,
    AnalysisStopped,
    ModelResult,
    PairResult,
    _adjust,
    _check_baseline,
    _check_choices,
    _model_interval,
    _pairs,
    normal_label,
)
from .errors import EvalStatsError, EvalStatsWarning
from .sums import FileSums

__all__ = ["analyze_sums"]


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
    from ._analysis_words import below_plain_sums, warnings_for, zero_se_pair
    from ._estimate import comparison_from, pair_rules, scaled, summary_from
    from ._in_unit import InUnit
    from .comparison import _mcnemar as mcnemar_cells

    confidence = check_confidence(confidence)
    _check_choices(method, adjust, interval)
    models = sums.models
    if baseline is not None and baseline not in models:
        _check_baseline(models, baseline, sums.name)
    if len(models) < 2 and baseline is not None:
        raise EvalStatsError(f"{sums.name} has one model, so there is nothing to compare with the baseline")
    clustered = bool(use_clusters and sums.clusters is not None)
    warn: list[str] = []
    if clustered and len(sums.clusters or ()) < 2:
        clustered = False
        warn.append(f"the cluster column '{sums.cluster_col}' has a single value, so the standard errors are "
                    "not clustered (clustering needs at least two clusters)")
    fs = sums if clustered else sums.merged()
    e = sums.exponent
    with _warnings.catch_warnings():  # per-call warnings are gathered below, once each
        _warnings.simplefilter("ignore", EvalStatsWarning)
        rows = []
        for j, ms in enumerate(fs.model_sums):
            if should_stop is not None and should_stop():
                raise AnalysisStopped(f"stopped after {j} of {len(models)} models: nobody is waiting for it")
            cl = clustered and _once(fs.memo, "nonzero", ms.count) >= 2
            if clustered and not cl:
                warn.append(f"{ms.model}: every question it answered lies in one cluster, so its standard error is "
                            "not clustered")
            s = scaled(summary_from(ms.count, ms.mean, ms.m2, binary=not _once(fs.memo, "any", ms.not01), clustered=cl,
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
            n_shared = _once(fs.memo, "total", p.count)
            if n_shared < 2:
                raise EvalStatsError(
                    f"models {models[j]!r} and {models[b]!r} share {n_shared} question(s) in {sums.name}; a "
                    "paired comparison needs at least two questions that both models answered")
            cl = clustered and _once(fs.memo, "nonzero", p.count) >= 2
            if clustered and not cl:
                warn.append(f"{models[j]} vs {models[b]}: the shared questions lie in one cluster, so this "
                            "comparison is not clustered")
            only = (_total(p.only_model), _total(p.only_baseline)) if paired and not _once(fs.memo, "any", p.not01) else None
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
                mc += (only[0], only[1], None if cells.discordant == 0 or cl else float(cells.p_exact))
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
        for i, (low, high, p_value, _) in zip(waiting, pair_rules(pending, confidence, fs.memo), strict=True):
            raw[i].update(ci_low=math.ldexp(low, e), ci_high=math.ldexp(high, e), p_value=p_value)
    adjusted = _adjust([r["p_value"] for r in raw], adjust)
    pairs = tuple(PairResult(p_adjusted=p, **r) for r, p in zip(raw, adjusted, strict=True))

    warn += warnings_for(sums, rows, pairs, clustered=clustered, paired=paired, method=method)
    if paired:  # a skewed pair's lower end that Hall's capped correction leaves unreliable (the gate's reason)
        from .bounded_reach import reach_notes

        warn += reach_notes(sums, pairs, confidence)
    if clustered and paired:  # a clustered SE of a difference below the plain one: say what it means
        warn += below_plain_sums(sums, pairs)  # from each pair's merged sum of squares (no whole merge)
    if clustered:  # few clusters: the clustered and unclustered intervals side by side (issue 19)
        from .cluster_cost import clustering_cost, cost_sentence

        costs = clustering_cost(sums, rows, confidence=confidence, method=method, interval=interval)
        warn += [s for s in [cost_sentence(costs, sums.cluster_col, percent=sums.unit01)] if s]
    return Analysis(
        models=tuple(rows), comparisons=pairs, warnings=tuple(dict.fromkeys(warn)), notes=tuple(sums.notes),
        name=sums.name, confidence=confidence, baseline=baseline, paired=bool(paired), clustered=clustered,
        adjust=adjust, score_kind=sums.score_kind, n_questions=int(sums.n_questions),
        n_clusters=len(sums.clusters or ()) if clustered else None,
        unit="percent" if sums.unit01 else "score",
        format=sums.format, question_col=sums.question_col, model_col=sums.model_col,
        score_col=sums.score_col, cluster_col=sums.cluster_col if clustered else None,
        reading=tuple(sums.reading), method=method, interval=interval)


_ONCE = {"any": lambda a: _any(a), "total": lambda a: _total(a), "nonzero": lambda a: int(np.count_nonzero(a))}


def _once(memo: dict, what: str, a: np.ndarray) -> Any:
    """``_any(a)``, ``_total(a)`` or ``count_nonzero(a)`` (``what``), once per array in ``memo``: every model and pair
    of a full table holds the same count vector and the same zero ``not01`` vector (a pass over the clusters each);
    the entry holds the array, so its identity is not reused while kept."""
    key = (what, id(a))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = (a, _ONCE[what](a))
    return hit[1]


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
