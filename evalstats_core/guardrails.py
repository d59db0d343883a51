"""Guardrails: what a quick, naive analysis of *this* results file would get wrong, with its numbers.

======================  =============================================================================
:func:`guardrails`      every check below, run on a loaded file and its analysis
``Guardrail``           one check: its status (``"warn"`` or ``"ok"``), a headline and the numbers
``CHECKS``              the checks, in display order
======================  =============================================================================

The checks, each tied to a mistake the literature documents:

* ``small_n`` -- a CLT (normal) interval with fewer than a few hundred independent questions (or
  clusters) is too narrow (Bowyer, Aitchison & Ivanova 2025); with 0/1 scores Wilson's interval is
  shown beside it, otherwise the Student-t factor the default intervals use (in the file's units).
* ``unused_cluster`` -- a column that groups the questions (passage, source question) left out of
  the analysis: the SE that ignores it is too small (Miller 2024, Sec. 2.2: DROP 3x).
* ``pooled_resamples`` -- several answers per question pooled as if independent (Miller 2024, Sec. 3.1).
* ``overlap`` -- two intervals that overlap read as "no difference" although the paired test finds one.
* ``multiplicity`` -- many pairwise tests without correction (Holm 1979; Benjamini & Hochberg 1995).
* ``extremes`` (below) -- a model at 0% or 100% (SE 0 and an interval of zero width), or near it (fewer than
  about 100 failures: the t interval under-covers; the default 0/1 interval does not).
* ``few_clusters`` -- few clusters: CR1 with a normal reference is too narrow below about 30 (Cameron &
  Miller 2015, Sec. VI); CR2 with Satterthwaite df is wide below about 10; the effective number of
  clusters says how much information the file holds.
* ``clustered_below_plain`` -- a clustered SE of a paired difference smaller than the plain paired SE
  (questions as independent): with few clusters more likely noise in the clustered variance than a real
  negative within-cluster correlation, and the interval built on it is then too narrow (MacKinnon, Nielsen
  & Webb 2023).
* ``missing`` -- questions missing for some models: comparisons silently use fewer questions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import stdtrit

from ._clusters import MIN_CLUSTERS, MIN_CLUSTERS_CR2, cluster_sizes
from ._results import excludes_zero, rejects
from ._validate import z_for
from .analysis import (
    ADJUST_LABELS,
    SE_RATIO_FLAG,
    SMALL_N,
    Analysis,
    ModelResult,
    below_plain,
    below_plain_sentence,
)
from .cluster_means import few_clusters_worth, kish_n
from .clustering import summarize
from .data import Dataset, QuestionTable
from .edge_coverage import claim
from .edge_coverage import claim as _claim
from .errors import EvalStatsWarning
from .intervals import proportion_ci, se_range
from .proportions import FAILURES_FOR_T
from .sums import FileSums
from .vocabulary import INTERVAL_LABELS, signed_zero_free
from .wild import WILD_MIN_CLUSTERS

__all__ = ["CHECKS", "Guardrail", "guardrails"]

#: check code -> short title, in display order
CHECKS: dict[str, str] = {
    "small_n": "CLT interval at small n",
    "unused_cluster": "Clusters left unused",
    "pooled_resamples": "Resamples pooled as independent answers",
    "overlap": "Overlapping intervals read as 'no difference'",
    "multiplicity": "Many comparisons without correction",
    "extremes": "Scores at or near 0% or 100%",
    "few_clusters": "Few clusters",
    "clustered_below_plain": "Clustered SE of a difference below the plain paired one",
    "missing": "Questions missing for some models",
}

@dataclass(frozen=True, slots=True)
class Guardrail:
    """The outcome of one check.

    Attributes
    ----------
    check : str
        Key of :data:`CHECKS`.
    status : str
        ``"warn"`` when a naive analysis of this file would mislead, ``"ok"`` when the check passed.
    title : str
        Short headline.
    detail : str
        Plain words with this file's numbers (percentages are of the score scale).
    """

    check: str
    status: str
    title: str
    detail: str


def _pct(x: float) -> str:
    return signed_zero_free(100.0 * x, 1) + "%"  # the one formatter's rule: never "-0.0%"


def _ok(check: str, detail: str) -> Guardrail:
    return Guardrail(check, "ok", CHECKS[check], detail)


def _warn(check: str, detail: str) -> Guardrail:
    return Guardrail(check, "warn", CHECKS[check], detail)


def _score(x: float, analysis: Analysis) -> str:
    """A score in the file's own units: a percent for 0-1 scores, else the raw number."""
    return _pct(x) if analysis.unit == "percent" else f"{x:.3g}"


def _gap(x: float, analysis: Analysis, digits: int = 1) -> str:
    """A difference (or an SE) in the file's units: percentage points for 0-1 scores, else raw."""
    if analysis.unit == "percent":
        return signed_zero_free(100.0 * x, digits, signed=True) + " points"  # never "-0.0 points"
    return f"{x:+.3g}"


def _half(x: float, analysis: Analysis, digits: int = 1) -> str:
    """A half-width in the file's own units: percentage points for 0-1 scores shown as percent."""
    return f"±{100.0 * x:.{digits}f} points" if analysis.unit == "percent" else f"±{x:.{digits + 2}g}"


def _halves(a: float, b: float, analysis: Analysis) -> tuple[str, str]:
    """Two half-widths printed with enough digits to tell them apart (never "±1.5 instead of ±1.5")."""
    for digits in range(1, 7):
        pa, pb = _half(a, analysis, digits), _half(b, analysis, digits)
        if pa != pb:
            return pa, pb
    return pa, pb


def _small_n(table: QuestionTable, analysis: Analysis) -> Guardrail:
    def units(r: Any) -> int:
        return r.n_clusters if r.n_clusters is not None else r.n

    what = "clusters" if analysis.clustered else "questions"
    small = [m for m in analysis.models if units(m) < SMALL_N]
    if not small:
        return _ok("small_n", f"every model has at least {SMALL_N} independent {what}; the normal and t intervals "
                              "agree here.")
    m = min(small, key=units)
    u = units(m)
    z = z_for(analysis.confidence)
    j = table.models.index(m.model)
    kk = table.k[table.answered[:, j], j]
    independent = m.n_clusters is None and int(kk.max()) == 1
    if table.score_kind == "binary" and independent:
        k = int(round(m.mean * m.n))
        wald = proportion_ci(k, m.n, interval="wald", confidence=analysis.confidence)
        wil = proportion_ci(k, m.n, interval="wilson", confidence=analysis.confidence)
        shown = (f" The interval shown is {m.interval}: {_pct(m.ci_low)} to {_pct(m.ci_high)}."
                 if m.interval not in ("Wilson",) and not m.interval.startswith(("t ", "CLT", "CR")) else "")
        return _warn("small_n", (
            f"{m.model} has {m.n} questions. The textbook interval p ± {z:.2f}·√(p(1−p)/n) is "
            f"{_pct(wald.low)} to {_pct(wald.high)}; Wilson's score interval is {_pct(wil.low)} to "
            f"{_pct(wil.high)}. What decides is the number of failures (right or wrong, whichever is rarer), not "
            "n: with fewer than about 100 the CLT interval claims more certainty than it has (Bowyer et al. "
            "2025), so the default uses Wilson's interval, or Clopper-Pearson's exact one below 10 failures "
            "(Wilson's own coverage dips near 0% and 100%)." + shown))
    if analysis.method == "cr2":

        t = float(stdtrit(m.df, 0.5 + analysis.confidence / 2.0))  # the t quantile the interval uses
        wide, narrow = _halves(t * m.se, z * m.se, analysis)

        lo, hi = se_range(m.df, analysis.confidence)
        return _ok("small_n", (
            f"{m.model} has {u} {what}, {m.df:.1f} degrees of freedom. Its interval uses Student's t = {t:.2f} "
            f"rather than z = {z:.2f}: {wide} instead of {narrow}, "
            f"{100.0 * (t / z - 1.0):.0f}% wider, as it should be with so few: the standard error itself is within "
            f"{lo:.2f}x to {hi:.2f}x of the true one (95%). t assumes the mean is roughly normal; when most scores "
            "sit at one end of the scale (skewed, near a ceiling) the interval covers less than it claims."))

    df = max(int(u) - 1, 1)
    t = float(stdtrit(df, 0.5 + analysis.confidence / 2.0))  # Student-t quantile with units - 1 df
    wide, narrow = _halves(t * m.se, z * m.se, analysis)
    return _warn("small_n", (
        f"{m.model} has {u} {what}. The normal interval uses z = {z:.2f}; with so few, Student's t "
        f"({df} degrees of freedom) gives {t:.2f}, an interval {100.0 * (t / z - 1.0):.0f}% wider "
        f"({wide} instead of {narrow}). Switch to the default "
        "(CR2 / t) standard errors: the normal interval covers less than it claims here."))


def _summarize_quiet(scores: np.ndarray, codes: np.ndarray | None, confidence: float):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        return summarize(scores, codes, confidence=confidence)


def _cluster_effect(table: QuestionTable, codes: np.ndarray, confidence: float) -> tuple[float, str, int]:
    """Largest ratio clustered SE / naive SE over the models, that model, and the number of groups."""
    best = (0.0, "", 0)
    for j, name in enumerate(table.models):
        mask = table.answered[:, j]
        sub = codes[mask]
        if sub.size == 0 or sub.min() == sub.max():  # one cluster (no sort needed)
            continue
        s = _summarize_quiet(table.scores[mask, j], sub, confidence)
        ratio = s.se / s.se_naive if s.se_naive > 0 else math.nan
        if math.isfinite(ratio) and ratio > best[0]:
            best = (ratio, name, s.n_clusters)
    return best


def _partition(codes: Any) -> bytes:
    """A fingerprint of how ``codes`` group the questions, whatever the labels (first-seen relabelling)."""
    _, first, inverse = np.unique(np.asarray(codes), return_index=True, return_inverse=True)
    relabelled = np.argsort(np.argsort(first))[inverse.ravel()].astype(np.int64)
    return relabelled.tobytes()


def _unused_cluster(table: QuestionTable, analysis: Analysis, extra: Mapping[str, np.ndarray]) -> Guardrail:
    found = []
    candidates = dict(extra)
    if table.cluster_codes is not None and not analysis.clustered:
        candidates = {table.cluster_col: table.cluster_codes, **candidates}
    used = (_partition(table.cluster_codes)  # only when there is a column to compare it with (a pass over n)
            if candidates and analysis.clustered and table.cluster_codes is not None else None)
    for col, codes in candidates.items():
        if analysis.clustered and (col == analysis.cluster_col or _partition(codes) == used):
            continue  # the analysis is clustered on this very grouping: nothing is left unused
        ratio, model, groups = _cluster_effect(table, np.asarray(codes), analysis.confidence)
        if ratio:
            found.append((ratio, col, model, groups))
    if found and max(found)[0] >= SE_RATIO_FLAG:
        ratio, col, model, groups = max(found)
        sizes = f"{groups} groups, about {table.questions.size / groups:.1f} questions each"
        return _warn("unused_cluster", (
            f"Column '{col}' groups the questions ({sizes}) but is not used as the cluster column. "
            f"Clustering on it makes {model}'s SE {ratio:.2f}× larger (design effect {ratio * ratio:.2f}): "
            "without it every interval here is too narrow. If questions were sampled in these groups, set it "
            "as the cluster column (Miller 2024, Sec. 2.2; Abadie et al. 2023)."))
    if analysis.clustered:
        return _ok("unused_cluster", f"standard errors are clustered on '{analysis.cluster_col}' "
                                     f"({analysis.n_clusters} clusters).")
    if found:
        ratio, col, model, groups = max(found)
        return _ok("unused_cluster", f"column '{col}' groups the questions into {groups} groups, but clustering on "
                                     f"it changes the SEs by at most {100 * abs(ratio - 1):.0f}% ({model}).")
    return _ok("unused_cluster", "no column of the file groups the questions in a way that changes the SEs by "
                                 f"more than {100 * (SE_RATIO_FLAG - 1):.0f}%.")


def _pooled(dataset: Dataset | None, table: QuestionTable, analysis: Analysis, sums: FileSums | None = None) -> Guardrail:
    most = (int(table.k.max()) if sums is None  # the runs per question, from the sums' histograms when kept
            else max((int(m.k_values.max()) for m in sums.model_sums if len(m.k_values)), default=0))
    if most <= 1:
        return _ok("pooled_resamples", "one answer per question and model: nothing to pool.")
    if dataset is None:
        return _warn("pooled_resamples", "several answers per question: average them per question before "
                                         "computing any SE (done here).")
    frame = dataset.frame
    m = frame["model"].cat.codes.to_numpy().astype(np.int64)
    s = frame["score"].to_numpy(dtype=np.float64)
    n_m = len(table.models)
    cnt = np.bincount(m, minlength=n_m).astype(np.float64)  # (n_m,) answers per model
    tot = np.bincount(m, weights=s, minlength=n_m)
    dev = s - (tot / cnt)[m]
    ss = np.bincount(m, weights=dev * dev, minlength=n_m)
    pooled = np.sqrt(ss / (cnt - 1.0) / cnt)  # sd over all answers / sqrt(N): the wrong, pooled SE
    def question_se(name: str) -> float:  # the SE across question means, not the clustered one
        m = analysis.model(name)
        return m.se_naive if analysis.clustered and math.isfinite(m.se_naive) else m.se

    rows = [(question_se(name) / pooled[j], name, j) for j, name in enumerate(table.models) if pooled[j] > 0]
    if not rows:
        return _ok("pooled_resamples", "every answer has the same score; pooling changes nothing here.")
    ratio, name, j = max(rows)
    mres = analysis.model(name)
    if ratio < SE_RATIO_FLAG:
        return _ok("pooled_resamples", (
            f"K = {mres.k} answers per question, averaged per question. Pooling the {int(cnt[j]):,} answers of "
            f"{name} would give nearly the same SE here ({_gap(pooled[j], analysis, 2).lstrip('+')} vs "
            f"{_gap(question_se(name), analysis, 2).lstrip('+')} across questions), "
            "but only because its answers to one question vary about as much as the questions do."))
    return _warn("pooled_resamples", (
        f"{name} gave {int(cnt[j]):,} answers to {mres.n:,} questions (K = {mres.k}). Treating them as "
        f"{int(cnt[j]):,} independent scores gives SE {_gap(pooled[j], analysis, 2).lstrip('+')}; the answers to "
        f"one question are not independent, and the SE across the {mres.n:,} question means is "
        f"{_gap(question_se(name), analysis, 2).lstrip('+')}, "
        f"{ratio:.2f}× larger. The analysis here averages first (Miller 2024, Sec. 3.1)."))


def _overlap(analysis: Analysis, intervals: Mapping[str, tuple[float, float]]) -> Guardrail:
    if not analysis.comparisons:
        return _ok("overlap", "only one model: no comparison.")
    level = f"{analysis.confidence:.0%}"
    hits = []
    for p in analysis.comparisons:
        a = intervals.get(p.model, (analysis.model(p.model).ci_low, analysis.model(p.model).ci_high))
        b = intervals.get(p.baseline, (analysis.model(p.baseline).ci_low, analysis.model(p.baseline).ci_high))
        overlap = a[0] <= b[1] and b[0] <= a[1]
        if overlap and excludes_zero(p.ci_low, p.ci_high):
            hits.append((abs(p.z), p, a, b))
    if not hits:
        return _ok("overlap", "no pair has overlapping intervals and yet a significant difference.")
    _, p, a, b = max(hits, key=lambda h: h[0])
    more = f" ({len(hits)} pairs in all)" if len(hits) > 1 else ""
    return _warn("overlap", (
        f"{p.model} ({_score(a[0], analysis)} to {_score(a[1], analysis)}) and {p.baseline} "
        f"({_score(b[0], analysis)} to {_score(b[1], analysis)}) "
        f"have overlapping {level} intervals, so a glance says 'no difference'. The paired difference is "
        f"{_gap(p.diff, analysis)} ({level} CI {_gap(p.ci_low, analysis).replace(' points', '')} to "
        f"{_gap(p.ci_high, analysis)}): a real "
        f"difference{more}. Judge a difference by its own interval, not by overlap."))


def _multiplicity(analysis: Analysis) -> Guardrail:
    m = len(analysis.comparisons)
    alpha = 1.0 - analysis.confidence
    if m <= 1:
        return _ok("multiplicity", "one comparison: no correction needed.")
    raw = sum(1 for p in analysis.comparisons if rejects(p.p_value, alpha))
    adj = sum(1 for p in analysis.comparisons if rejects(p.p_adjusted, alpha))
    expected = m * alpha
    if analysis.adjust == "none":
        return _warn("multiplicity", (
            f"{m} comparisons without correction: even if no model differed, about {expected:.1f} of them "
            f"would have p < {alpha:g} by chance. {raw} {'does' if raw == 1 else 'do'}. Choose Holm or Benjamini–Hochberg."))
    name = ADJUST_LABELS["holm" if analysis.adjust == "holm" else "bh"]
    if raw > adj:
        survivors = "none remains" if adj == 0 else f"only {adj} remain{'s' if adj == 1 else ''}"
        return _warn("multiplicity", (
            f"{m} comparisons: {raw} {'has' if raw == 1 else 'have'} an unadjusted p < {alpha:g}, but "
            f"{survivors} after {name}'s "
            f"adjustment. Claiming the other {raw - adj} would ignore that about {expected:.1f} false positives "
            "are expected by chance."))
    return _ok("multiplicity", f"{m} comparisons, adjusted with {name}: {adj} significant before and after.")


def _clustered_below_plain(data: QuestionTable | FileSums, analysis: Analysis) -> Guardrail:
    found = below_plain(data, analysis)
    if not analysis.clustered:
        return _ok("clustered_below_plain", "not clustered.")
    if not found:
        return _ok("clustered_below_plain", "every clustered SE of a difference is at least the plain paired one.")
    return _warn("clustered_below_plain", " ".join(below_plain_sentence(c, plain, analysis.unit == "percent")
                                                   for c, plain in found[:3]))


def _missing(table: QuestionTable, analysis: Analysis) -> Guardrail:
    n_q = table.questions.size
    per = [r.n for r in analysis.models]  # questions each model answered (no pass over the table)
    if all(c == n_q for c in per):
        return _ok("missing", f"every model answered all {n_q:,} questions.")
    short = [f"{r.model} answered {r.n:,} of {n_q:,}" for r in analysis.models if r.n < n_q]
    worst = max(analysis.comparisons, key=lambda p: p.n_left_out, default=None)
    tail = ""
    if worst is not None and worst.n_left_out:
        tail = (f" The comparison {worst.model} vs {worst.baseline} leaves out {worst.n_left_out:,} questions "
                "that only one of them answered.")
    return _warn("missing", (
        "; ".join(short) + ". Comparing the overall means would compare different question sets; each "
        "comparison here uses only the questions both models answered." + tail
        + " If questions are missing because a model failed on them, score them as failures instead."))


def guardrails(dataset: Dataset | None, table: QuestionTable, analysis: Analysis, *,
               extra_clusters: Mapping[str, Any] | None = None,
               intervals: Mapping[str, tuple[float, float]] | None = None,
               sums: FileSums | None = None) -> tuple[Guardrail, ...]:
    """Run every check of :data:`CHECKS` on one results file and its analysis.

    Parameters
    ----------
    dataset : Dataset or None
        The loaded file (needed for the answer-level pooled SE; None skips that number).
    table : QuestionTable
        Its question-level scores (``question_scores(dataset)``).
    analysis : Analysis
        ``analyze(table, ...)`` with the settings shown to the user.
    extra_clusters : mapping of column name -> labels of shape (n_questions,), optional
        Columns of the file that were not used and might be clusters, as one integer label per
        question of ``table`` (see :func:`evalstats_core.data.extra_columns`).
    intervals : mapping of model -> (low, high), optional
        The one-model intervals the reader sees (e.g. Wilson); the overlap check compares these.
        Default: the analysis' normal intervals.
    sums : FileSums, optional
        The file's sums (``file_sums(table)``), when kept: the plain paired SEs come from them without a
        pass over the questions. Default: built from ``table`` for each pair the check needs.

    Returns
    -------
    tuple of Guardrail
        One per check, in the order of :data:`CHECKS`.

    Examples
    --------
    >>> from evalstats_core.data import load, question_scores
    >>> from evalstats_core.analysis import analyze
    >>> ds = load(b"question,A,B\\n1,1,1\\n2,1,0\\n3,1,1\\n4,1,1\\n", name="t.csv")
    >>> tb = question_scores(ds)
    >>> [g.check for g in guardrails(ds, tb, analyze(tb)) if g.status == "warn"]
    ['small_n', 'extremes']
    """
    extra = {str(k): np.asarray(v) for k, v in (extra_clusters or {}).items()}
    return (
        _small_n(table, analysis),
        _unused_cluster(table, analysis, extra),
        _pooled(dataset, table, analysis, sums),
        _overlap(analysis, dict(intervals or {})),
        _multiplicity(analysis),
        extremes(table, analysis),
        few_clusters(table, analysis, None if sums is None else sums.cluster_sizes),
        _clustered_below_plain(table if sums is None else sums, analysis),
        _missing(table, analysis),
    )


def extremes(table: QuestionTable, analysis: Analysis) -> Guardrail:
    hits = [m for m in analysis.models if m.se == 0.0]
    if not hits:
        return _ceiling(table, analysis)
    parts = []
    for m in hits:
        if table.score_kind == "binary" and m.mean in (0.0, 1.0):
            k = int(round(m.mean * m.n))
            wil = proportion_ci(k, m.n, interval="wilson", confidence=analysis.confidence)
            parts.append(f"{m.model} scored {_pct(m.mean)} on all {m.n} questions: SE 0 and a zero-width CLT "
                         f"interval, yet its true accuracy could be {_pct(wil.low)} to {_pct(wil.high)} (Wilson)")
        else:
            parts.append(f"{m.model} has the same score ({m.mean:g}) on all {m.n} questions: SE 0")
    return _warn("extremes", "; ".join(parts) + ". A zero-width interval is never the truth: the next questions "
                                                  "could go the other way.")


def _ceiling(table: QuestionTable, analysis: Analysis) -> Guardrail:
    """Near 0% or 100%: few failures make the mean's distribution skewed and the t interval too narrow."""

    if table.score_kind != "binary":
        return _skewed(table, analysis)
    near = []
    for m in analysis.models:
        n_eff = m.n if m.n_clusters is None else (m.n_eff if math.isfinite(m.n_eff) else m.n)
        fails = min(n_eff, m.n) * min(m.mean, 1.0 - m.mean)
        if fails < FAILURES_FOR_T:
            near.append((m, fails))
    if not near:
        return _ok("extremes", "no model is near 0% or 100%: both outcomes are common enough for a t interval.")
    m, fails = min(near, key=lambda x: x[1])
    return _warn("extremes", (
        f"{m.model} scored {_pct(m.mean)}: about {fails:.0f} {'effective ' if m.n_clusters is not None else ''}"
        "failures (the rarer outcome). With fewer than about 100, the mean's distribution is skewed and the "
        "symmetric t interval covers less than it claims (at 99% accuracy on 300 questions, 80% instead of 95%; "
        f"at 95% with 12 unequal clusters, {claim('t_swe_95')}). The interval shown is {m.interval}: {_pct(m.ci_low)} to "
        f"{_pct(m.ci_high)}, which held its level in those simulations."))


#: Above this |skewness| / sqrt(units) the t interval of a mean covers about 93% or less (by simulation
#: of Beta-distributed scores near a ceiling; ``tests/test_edges.py``).
SKEW_FLAG = 0.3


def _skewed(table: QuestionTable, analysis: Analysis) -> Guardrail:
    """The ceiling / skewness caution for scores that are not 0/1: t assumes a roughly normal mean."""
    worst = None
    for j, m in enumerate(analysis.models):
        x = table.scores[table.answered[:, j], j]
        if m.n_clusters is not None and table.cluster_codes is not None:
            codes = table.cluster_codes[table.answered[:, j]]
            sizes = np.bincount(codes)
            x = np.bincount(codes, weights=x)[sizes > 0] / sizes[sizes > 0]  # cluster means: the units
        d = x - x.mean()
        sd = math.sqrt(float(d @ d) / d.size)
        if x.size < 3 or sd == 0.0:
            continue
        g = float(np.mean(d**3)) / sd**3  # sample skewness of the units the SE rests on
        ratio = abs(g) / math.sqrt(x.size)
        if worst is None or ratio > worst[0]:
            worst = (ratio, g, x.size, m)
    if worst is None or worst[0] <= SKEW_FLAG:
        return _ok("extremes", "no model's scores are so skewed, for their number, that the t interval would "
                               "under-cover.")
    ratio, g, units, m = worst
    what = "clusters" if m.n_clusters is not None else "questions"
    return _warn("extremes", (
        f"{m.model}'s scores are skewed (skewness {g:+.1f}: most sit near one end of the scale) over {units} {what}: "
        f"|skewness|/√n = {ratio:.2f}, above {SKEW_FLAG}. The t interval assumes a roughly normal mean; in our "
        "simulations (scores Beta-distributed with mean 95%) it covered about 93% at that ratio and less above "
        "it: 86% with 30 questions at skewness -3.6, 92% with 100. More questions help; a transformation or "
        "a bootstrap interval is a cross-check." + _shown(m, analysis)))


def _shown(m: ModelResult, analysis: Analysis) -> str:
    """The interval a model got when it is not the t / normal one (e.g. clustered scores in [0, 1])."""

    widened = m.interval == INTERVAL_LABELS["quasi-binomial-t"]  # unclustered scores in [0, 1] near a bound
    if (m.interval.startswith(("t ", "CR", "CLT")) and not widened) or not math.isfinite(m.ci_low):
        return ""
    low, high = (_score(v, analysis) for v in (m.ci_low, m.ci_high))
    return f" The interval shown for {m.model} is not {'plain ' if widened else ''}t but {m.interval}: {low} to {high}."


def _information(table: QuestionTable, analysis: Analysis, sizes: np.ndarray | None = None) -> str:
    """How much the clusters hold: Kish's effective number of clusters, in words, and what the default
    interval does with under two clusters' worth. ``sizes``: the questions per cluster when already counted
    (``FileSums.cluster_sizes``), else counted from the table's cluster codes."""
    if table.cluster_codes is None:
        return ""
    sizes = cluster_sizes(table.cluster_codes) if sizes is None else np.asarray(sizes, dtype=np.float64)
    eff = kish_n(sizes)
    share = float(sizes.max() / sizes.sum())
    worth = "about one cluster's worth" if eff < 1.5 else f"about {eff:.1f} clusters' worth"
    words = (f" The largest cluster holds {share:.0%} of the questions, so on what varies between clusters the "
             f"file holds {worth} of information (Kish's effective number of clusters, (Σ n_g)² / Σ n_g²).")
    if few_clusters_worth(sizes) and analysis.method == "cr2" and analysis.interval == "auto":
        words += (" With under two clusters' worth, CR2's variance (which assumes independent questions) is far "
                  "too small when the big cluster differs from the rest: in our simulations (900 + 100, 990 + 10, "
                  f"900 + 50 + 50 and 970 + 10 + 10 + 10 questions, ICC up to 0.2, accuracies 30-70%) its t interval "
                  f"covered {claim('t_one_big_mid')}. So each interval is at least the cluster means' interval "
                  "(exact for normal cluster means of equal spread; for scores in [0, 1] on the logit scale too), which "
                  f"covered {claim('default_one_big_mid')} there: wide, because the file cannot say more.")
    return words


def few_clusters(table: QuestionTable, analysis: Analysis, sizes: np.ndarray | None = None) -> Guardrail:
    if not analysis.clustered:
        return _ok("few_clusters", "not clustered.")
    c = analysis.n_clusters or 0
    dfs = [m.df for m in analysis.models if m.n_clusters is not None]
    info = _information(table, analysis, sizes)
    if analysis.method == "cr2":
        df = min(dfs) if dfs else math.nan
        if c >= MIN_CLUSTERS_CR2:
            return _ok("few_clusters", (
                f"{c} clusters ({df:.1f} degrees of freedom at the fewest). In our simulations (12 to 57 clusters, "
                "equal or SWE-bench-like unequal sizes, ICC up to 0.2) CR2 with Satterthwaite degrees of freedom "
                f"covered {_claim('t_many_mid')} for accuracies between 30% and 70%; near 0% or 100% its t interval "
                f"covers less ({_claim('t_swe_95')} at 95% accuracy with 12 unequal clusters), so 0/1 scores there "
                f"get Korn & Graubard's interval (at least as wide as the logit one and the beta-binomial "
                f"likelihood one), which covered {_claim('default_many_95')} at 95% accuracy and "
                f"{_claim('default_many_99')} at 99% (also with MMLU's 57 subjects and BBH-like 27 tasks, ICC up "
                "to 0.3): where the clusters could hide a few weak ones the file does not contain, the "
                "beta-binomial likelihood keeps the lower means they would make in the interval." + info))
        wild = ("The wild cluster bootstrap is a useful cross-check (Cameron, Gelbach & Miller 2008)."
                if c >= WILD_MIN_CLUSTERS else
                f"With {c} clusters the wild cluster bootstrap is no cross-check: it has too few distinct draws "
                "and covered less than CR2 in our simulations (80-90% with 2 clusters).")
        return _warn("few_clusters", (
            f"only {c} clusters, {df:.1f} degrees of freedom: the CR2 intervals account for it and are wide, so "
            "only large differences can be told apart, and the cluster variance itself is poorly known (a "
            f"design effect or an effective n from so few clusters is rough).{info} In our simulations (3, 5 "
            f"or 8 clusters, ICC up to 0.2) the CR2 t interval covered {_claim('t_few_mid')} for accuracies "
            "between 30% and 70%; at 95% accuracy the default 0/1 interval, with 3-8 clusters, covered "
            f"{_claim('default_few_95')}. "
            f"{wild}"))
    if c >= MIN_CLUSTERS:
        return _ok("few_clusters", f"{c} clusters: enough for the clustered SE.")
    return _warn("few_clusters", (
        f"only {c} clusters. The clustered (CR1) SE with a normal interval is biased downward with fewer than "
        f"about {MIN_CLUSTERS} clusters (Cameron & Miller 2015, Sec. VI): the intervals are optimistic. Use the "
        "default CR2 standard errors with Satterthwaite degrees of freedom, and cross-check with the wild "
        "cluster bootstrap."))
