"""The analysis' cautions in plain words (private to :mod:`evalstats_core.analysis`).

Every sentence is built from the results and the file's :class:`~evalstats_core.sums.FileSums`, never
from the rows, so :func:`~evalstats_core.analysis.analyze_sums` says the same as
:func:`~evalstats_core.analysis.analyze`.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ._clusters import MIN_CLUSTERS, MIN_CLUSTERS_CR2
from .analysis import SMALL_DF, SMALL_N, ModelResult, PairResult
from .cluster_means import kish_n
from .sums import FileSums

__all__ = ["below_plain_sums", "warnings_for", "zero_se_model", "zero_se_pair"]


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

    from .guardrails import below_plain, below_plain_sentence  # lazy: guardrails imports analysis

    found = below_plain(sums, SimpleNamespace(clustered=True, paired=True, comparisons=pairs))
    return [below_plain_sentence(c, plain, sums.unit01) for c, plain in found]
