"""The guardrails at the edges: scores at or near 0% / 100% (or skewed), and few clusters.

Two checks of :func:`evalstats_core.guardrails.guardrails` (``extremes`` and ``few_clusters``), kept here
beside the numbers they quote: every coverage they print is measured by simulation
(:data:`evalstats_core.edge_coverage.COVERAGE_CLAIMS`, :data:`SKEW_FLAG`) and re-checked in
``tests/test_edges.py``.
"""

from __future__ import annotations

import math

import numpy as np

from ._clusters import MIN_CLUSTERS, MIN_CLUSTERS_CR2
from .analysis import Analysis, ModelResult
from .cluster_means import few_clusters_worth, kish_n
from .data import QuestionTable
from .guardrails import Guardrail, _ok, _pct, _score, _warn
from .intervals import proportion_ci
from .proportions import FAILURES_FOR_T
from .vocabulary import INTERVAL_LABELS
from .wild import WILD_MIN_CLUSTERS

__all__ = ["SKEW_FLAG", "extremes", "few_clusters"]


def extremes(table: QuestionTable, analysis: Analysis) -> Guardrail:
    hits = [m for m in analysis.models if m.se == 0.0]
    if not hits:
        return _ceiling(table, analysis)
    parts = []
    for m in hits:
        if table.score_kind == "binary" and m.mean in (0.0, 1.0):
            k = int(round(m.mean * m.n))
            wil = proportion_ci(k, m.n, method="wilson", confidence=analysis.confidence)
            parts.append(f"{m.model} scored {_pct(m.mean)} on all {m.n} questions: SE 0 and a zero-width CLT "
                         f"interval, yet its true accuracy could be {_pct(wil.low)} to {_pct(wil.high)} (Wilson)")
        else:
            parts.append(f"{m.model} has the same score ({m.mean:g}) on all {m.n} questions: SE 0")
    return _warn("extremes", "; ".join(parts) + ". A zero-width interval is never the truth: the next questions "
                                                  "could go the other way.")


def _ceiling(table: QuestionTable, analysis: Analysis) -> Guardrail:
    """Near 0% or 100%: few failures make the mean's distribution skewed and the t interval too narrow."""
    from .edge_coverage import claim

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
    from ._clusters import cluster_sizes
    from .edge_coverage import claim

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
    from .edge_coverage import claim as _claim

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
