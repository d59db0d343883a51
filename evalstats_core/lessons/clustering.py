"""Chapter 3, "Clustering": a simulated clustered eval, interval coverage, and the paper's numbers.

==============================  ====================================================================
``PAPER_EVALS``                 DROP, RACE-H and MGSM as Miller (2024, Table 4) reports them
``paper_table()``               those evals with design effect, effective n and implied ICC
``simulate_eval(...)``          one clustered eval: naive / clustered / block-bootstrap intervals,
                                measured ICC and design effect beside the formula, per-cluster bars
``coverage(...)``               how often naive and clustered 95% intervals cover the truth
``coverage_reps(n_clusters)``   how many evals ``coverage`` simulates by default
``few_clusters(...)``           few and unequal clusters: coverage of CR1 + z, CR1 + t(G-1), CR2 +
                                Satterthwaite t and the wild cluster bootstrap, and what it shows
==============================  ====================================================================

All statistics come from :mod:`evalstats_core.clustering` and :mod:`evalstats_core.simulate`; this
module arranges them into the numbers and tidy frames the chapter shows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validate import z_for
from ..cluster_coverage import (
    DOMINANT_CLUSTER_SIZES,
    METHOD_LABELS,
    FewClustersCoverage,
    few_clusters_coverage,
    unequal_sizes,
)
from ..clustering import (
    BootstrapCI,
    Summary,
    cluster_bootstrap_ci,
    design_effect,
    effective_n,
    icc,
    summarize,
)
from ..coverage import clustering_coverage
from ..errors import EvalStatsError, EvalStatsWarning
from ..simulate import clustered_binary_eval

__all__ = ["COVERAGE_BUDGET", "DEFAULT_SEED", "FEW_CLUSTERS_PRESETS", "typical_sentence", "PAPER_EVALS", "ClusterSimulation", "CoverageLesson", "deff_grid", "design_effect_array", "intervals_sentence", "simulation_notes",
           "FewClustersLesson", "PaperEval", "coverage", "coverage_reps", "few_clusters", "paper_table",
           "simulate_eval"]


@dataclass(frozen=True, slots=True)
class PaperEval:
    """One row of Miller 2024, Table 4: a clustered eval with both standard errors.

    Attributes
    ----------
    eval : str
        Benchmark name.
    n_questions, n_clusters : int
        Questions and clusters (passages, or source problems for MGSM).
    se_clustered, se_naive : float
        The two standard errors as printed (DROP in F1 points, the others in percentage points).
    ratio : float
        The ratio as printed (from unrounded SEs; recomputing it from the rounded SEs can differ in
        the last digit: 0.51 / 0.46 = 1.11 for RACE-H, printed 1.10).
    unit : str
        "points" or "%".
    """

    eval: str
    n_questions: int
    n_clusters: int
    se_clustered: float
    se_naive: float
    ratio: float
    unit: str


#: Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, Table 4 (and Table 3 for n, clusters).
PAPER_EVALS: tuple[PaperEval, ...] = (
    PaperEval("DROP", 9622, 588, 1.34, 0.44, 3.05, "points"),
    PaperEval("RACE-H", 3498, 1045, 0.51, 0.46, 1.10, "%"),
    PaperEval("MGSM", 2500, 250, 1.62, 0.86, 1.88, "%"),
)


def paper_table() -> pd.DataFrame:
    """The paper's three clustered evals with what their published ratio implies.

    Returns
    -------
    DataFrame
        One row per eval: ``eval, n_questions, n_clusters, cluster_size`` (mean questions per
        cluster), ``se_clustered, se_naive, unit, ratio`` (as published), ``label`` ("3.05x"),
        ``deff`` (ratio squared), ``n_eff`` (questions / deff) and ``implied_icc`` (the rho that gives
        this deff for clusters of the mean size, ``(deff - 1) / (m - 1)``).

    Notes
    -----
    DROP: ratio 3.05, design effect 9.3, about 1,034 effective questions out of 9,622 and an implied
    ICC of 0.54 for its 16.4 questions per passage (Kish 1965, Sec. 5.4, inverted).
    """
    rows = []
    for e in PAPER_EVALS:
        m = e.n_questions / e.n_clusters
        deff = e.ratio**2  # design effect = variance ratio
        rows.append({
            "eval": e.eval, "n_questions": e.n_questions, "n_clusters": e.n_clusters, "cluster_size": m,
            "se_clustered": e.se_clustered, "se_naive": e.se_naive, "unit": e.unit, "ratio": e.ratio,
            "label": f"{e.ratio:.2f}x", "deff": deff, "n_eff": effective_n(e.n_questions, deff),
            "implied_icc": (deff - 1.0) / (m - 1.0),  # invert 1 + (m - 1) rho (Kish Eq. 5.4.2)
        })
    return pd.DataFrame(rows)


@dataclass(frozen=True, slots=True)
class ClusterSimulation:
    """One simulated clustered eval, analyzed three ways.

    Attributes
    ----------
    n_clusters, cluster_size : int
        Clusters ``C`` and questions per cluster ``m``; ``n = C m``.
    icc : float
        The true intra-cluster correlation of the simulation.
    truth : float
        The true accuracy the eval was drawn around.
    naive, clustered : Summary
        :func:`summarize` without and with the cluster labels.
    bootstrap : BootstrapCI
        :func:`cluster_bootstrap_ci` of the same eval.
    icc_hat : float
        The ICC measured from the data (``nan`` with one question per cluster).
    deff_theory, n_eff_theory : float
        ``1 + (m - 1) rho`` and ``n / deff`` from the true ICC.
    ratio : float
        ``clustered.se / naive.se`` (``nan`` when the naive SE is 0).
    warnings : tuple of str
        The core's cautions (fewer than 30 clusters).
    bars : DataFrame
        Two rows per cluster for :func:`evalstats_core.charts.clustering.cluster_strip`.
    intervals : DataFrame
        ``method, estimate, se, ci_low, ci_high, width`` for naive, clustered and bootstrap, and
        ``shown_low, shown_high, clipped``: the interval clipped to [0, 1] for display, and whether it
        had to be.
    """

    n_clusters: int
    cluster_size: int
    icc: float
    truth: float
    naive: Summary
    clustered: Summary
    bootstrap: BootstrapCI
    icc_hat: float
    deff_theory: float
    n_eff_theory: float
    ratio: float
    warnings: tuple[str, ...]
    bars: pd.DataFrame
    intervals: pd.DataFrame


def simulate_eval(n_clusters: int, cluster_size: int, icc_true: float, *, truth: float = 0.7,
                  n_boot: int = 1000, seed: int = 0) -> ClusterSimulation:
    """Draw one clustered 0/1 eval and compute its naive, clustered and bootstrap intervals.

    Parameters
    ----------
    n_clusters : int
        Clusters (>= 2).
    cluster_size : int
        Questions per cluster (>= 1).
    icc_true : float in [0, 1]
        Intra-cluster correlation of the simulation (beta-binomial model,
        :func:`evalstats_core.simulate.clustered_binary_eval`).
    truth : float in (0, 1)
        True accuracy.
    n_boot : int
        Block-bootstrap resamples (1,000 is enough for a 95% percentile interval and keeps a slider
        move fast; Efron & Tibshirani 1993, Sec. 19.3).
    seed : int
        One seed for the eval and the bootstrap (the bootstrap uses ``seed + 1``).
    """
    sim = clustered_binary_eval(n_clusters, cluster_size, icc_true, mean=truth, rng=seed)
    naive = summarize(sim.scores, method="cr1")
    with warnings.catch_warnings():  # the warning is kept on the result and shown by the page
        warnings.simplefilter("ignore", EvalStatsWarning)
        clustered = summarize(sim.scores, sim.clusters, method="cr1")
    boot = cluster_bootstrap_ci(sim.scores, sim.clusters, n_boot=n_boot, rng=seed + 1)
    icc_hat = icc(sim.scores, sim.clusters) if cluster_size > 1 else math.nan
    deff = design_effect(cluster_size, icc_true)
    ratio = clustered.se / naive.se if naive.se > 0 else math.nan
    intervals = pd.DataFrame([
        {"method": "naive (CLT)", "estimate": naive.mean, "se": naive.se, "ci_low": naive.ci_low,
         "ci_high": naive.ci_high},
        {"method": "clustered (CR1)", "estimate": clustered.mean, "se": clustered.se,
         "ci_low": clustered.ci_low, "ci_high": clustered.ci_high},
        {"method": "block bootstrap", "estimate": boot.mean, "se": boot.se, "ci_low": boot.ci_low,
         "ci_high": boot.ci_high},
    ])
    intervals["width"] = intervals["ci_high"] - intervals["ci_low"]
    # an accuracy cannot leave [0, 1]: the shown interval is clipped, the computed one kept beside it
    intervals["shown_low"] = intervals["ci_low"].clip(lower=0.0)
    intervals["shown_high"] = intervals["ci_high"].clip(upper=1.0)
    intervals["clipped"] = (intervals["ci_low"] < 0.0) | (intervals["ci_high"] > 1.0)
    return ClusterSimulation(
        n_clusters=int(n_clusters), cluster_size=int(cluster_size), icc=float(icc_true), truth=float(truth),
        naive=naive, clustered=clustered, bootstrap=boot, icc_hat=icc_hat, deff_theory=deff,
        n_eff_theory=effective_n(naive.n, deff), ratio=ratio, warnings=clustered.warnings,
        bars=_cluster_bars(sim.scores, sim.clusters, n_clusters), intervals=intervals,
    )


def _cluster_bars(scores: np.ndarray, clusters: np.ndarray, n_clusters: int) -> pd.DataFrame:
    """Two rows per cluster (right, wrong) with the bar's extent, clusters ranked by accuracy."""
    right = np.bincount(clusters, weights=scores, minlength=n_clusters)  # (C,) right answers
    size = np.bincount(clusters, minlength=n_clusters).astype(np.float64)  # (C,)
    acc = right / size
    order = np.argsort(acc, kind="stable")
    rank = np.empty(n_clusters, dtype=np.int64)
    rank[order] = np.arange(n_clusters)
    ids = np.arange(n_clusters)
    return pd.DataFrame({
        "rank": np.concatenate([rank, rank]),
        "cluster": np.concatenate([ids, ids]) + 1,
        "outcome": np.repeat(["right", "wrong"], n_clusters),
        "share_low": np.concatenate([np.zeros(n_clusters), acc]),
        "share_high": np.concatenate([acc, np.ones(n_clusters)]),
        "count": np.concatenate([right, size - right]).astype(np.int64),
        "accuracy": np.concatenate([acc, acc]),
    })


@dataclass(frozen=True, slots=True)
class CoverageLesson:
    """Coverage of naive and clustered 95% intervals over many simulated evals.

    Attributes
    ----------
    reps : int
        Simulated evals.
    naive, clustered : float
        Share of evals whose interval contained the true accuracy.
    design_effect, true_se : float
        From the simulation's settings.
    frame : DataFrame
        ``method, coverage, mc_low, mc_high, mc_half, label, mean_se``: a 95% Monte Carlo band
        ``coverage -/+ 1.96 sqrt(c (1 - c) / reps)`` around each coverage, its half-width, and a label
        such as "68.0% ± 2.9".
    """

    reps: int
    naive: float
    clustered: float
    design_effect: float
    true_se: float
    frame: pd.DataFrame


#: Cluster draws per coverage experiment when ``reps`` is not given: 1,000 evals up to 100 clusters,
#: fewer (never below 300) for more clusters, so that a slider move stays fast.
COVERAGE_BUDGET = 100_000


def coverage_reps(n_clusters: int) -> int:
    """Simulated evals for :func:`coverage`: ``COVERAGE_BUDGET / n_clusters`` clipped to [300, 1000]."""
    return int(min(1000, max(300, COVERAGE_BUDGET // max(int(n_clusters), 1))))


def coverage(n_clusters: int, cluster_size: int, icc_true: float, *, truth: float = 0.7, reps: int | None = None,
             seed: int = 0) -> CoverageLesson:
    """Run :func:`evalstats_core.coverage.clustering_coverage` and shape it for the chart.

    ``reps`` defaults to :func:`coverage_reps` (1,000 evals up to 100 clusters); the Monte Carlo error
    of each coverage is in the frame, so fewer evals show up as a wider ``±``.
    """
    reps = coverage_reps(n_clusters) if reps is None else reps
    r = clustering_coverage(n_clusters, cluster_size, icc_true, mean=truth, reps=reps, rng=seed)
    cov = np.array([r.naive_coverage, r.clustered_coverage])
    half = z_for(0.95) * np.sqrt(cov * (1.0 - cov) / r.reps)  # Monte Carlo error of a proportion
    frame = pd.DataFrame({
        "method": ["naive (CLT)", "clustered (CR1)"], "coverage": cov,
        "mc_low": np.clip(cov - half, 0.0, 1.0), "mc_high": np.clip(cov + half, 0.0, 1.0), "mc_half": half,
        "label": [f"{c:.1%} ± {h * 100:.1f}" for c, h in zip(cov, half, strict=True)],
        "mean_se": [r.naive_mean_se, r.clustered_mean_se],
    })
    return CoverageLesson(reps=r.reps, naive=r.naive_coverage, clustered=r.clustered_coverage,
                          design_effect=r.design_effect, true_se=r.true_se, frame=frame)


# ------------------------------------------------------------------------- few and unequal clusters

#: The section's presets: SWE-bench-Verified-like repository sizes, or sizes from the sliders.
FEW_CLUSTERS_PRESETS = {
    "dominant": "One dominant cluster (500 tasks in 12 repositories, like SWE-bench Verified)",
    "custom": "My own: number of clusters and share of the largest",
}


@dataclass(frozen=True, slots=True)
class FewClustersLesson:
    """Coverage of four 95% intervals with few or unequal clusters, shaped for the chapter.

    Attributes
    ----------
    result : FewClustersCoverage
        The core's numbers.
    frame : DataFrame
        One row per method: ``method`` (its label), ``key``, ``coverage``, ``mc_half`` (1.96 Monte
        Carlo standard errors), ``label`` (e.g. "78.3% ± 1.8"), ``mean_width`` (nan for the bootstrap).
    notice : str
        Markdown bullets saying what these numbers show (built from them, so they follow the sliders).
    """

    result: FewClustersCoverage
    frame: pd.DataFrame
    notice: str


def few_clusters(preset: str, n_clusters: int, largest_share: float, icc_true: float, *, seed: int = 0,
                 n: int = 500, truth: float = 0.7, reps: int = 1000, n_boot: int = 199) -> FewClustersLesson:
    """Run :func:`evalstats_core.cluster_coverage.few_clusters_coverage` for the section's settings.

    ``preset="dominant"`` uses :data:`~evalstats_core.cluster_coverage.DOMINANT_CLUSTER_SIZES` (then
    ``n_clusters``, ``largest_share`` and ``n`` are ignored); ``"custom"`` uses
    :func:`~evalstats_core.cluster_coverage.unequal_sizes` ``(n, n_clusters, largest_share)``.
    """
    if preset not in FEW_CLUSTERS_PRESETS:
        raise EvalStatsError(f"preset ({preset!r}) must be one of {tuple(FEW_CLUSTERS_PRESETS)}")
    sizes = DOMINANT_CLUSTER_SIZES if preset == "dominant" else unequal_sizes(n, n_clusters, largest_share)
    r = few_clusters_coverage(sizes, icc_true, mean=truth, reps=reps, n_boot=n_boot, rng=seed)
    cov = np.array([r.coverage[m] for m in r.methods])
    half = z_for(0.95) * np.array([r.mc_se[m] for m in r.methods])
    frame = pd.DataFrame({
        "method": [METHOD_LABELS[m] for m in r.methods], "key": list(r.methods), "coverage": cov,
        "mc_half": half, "label": [f"{c:.1%} ± {h * 100:.1f}" for c, h in zip(cov, half, strict=True)],
        "mean_width": [r.mean_width[m] for m in r.methods],
    })
    return FewClustersLesson(result=r, frame=frame, notice=_few_clusters_notice(r))


def _few_clusters_notice(r: FewClustersCoverage) -> str:
    """What the coverage numbers show, in three bullets whose words follow the numbers."""
    c = r.coverage
    nominal = r.confidence

    def verdict(m: str) -> str:
        gap = c[m] - nominal
        if abs(gap) <= 2 * r.mc_se[m] + 0.01:  # within simulation noise and a point of the promise
            return f"stays close to the promised {nominal:.0%}"
        if gap < 0:
            return f"covers too rarely for a {nominal:.0%} interval"
        return "covers more often than promised (it is conservative)"

    sizes = f"{r.n_clusters} clusters, the largest holding {r.largest_share:.0%} of the {r.n:,} questions"
    lines = [
        f"With {sizes} and ICC {r.icc:.2f}, the paper's CR1 + z interval covered the true accuracy in "
        f"**{c['cr1_z']:.1%}** of {r.reps:,} simulated evals: it {verdict('cr1_z')}. Using t({r.n_clusters - 1}) "
        f"instead of z gives **{c['cr1_t']:.1%}**: it {verdict('cr1_t')}.",
        f"CR2 with Satterthwaite degrees of freedom covered **{c['cr2']:.1%}**: it {verdict('cr2')}. "
        + (f"Its degrees of freedom are **{r.cr2_df:.1f}**, not {r.n_clusters - 1}: unequal clusters carry "
           "less information than their count, and the t critical value grows to match"
           if r.cr2_df < 0.8 * (r.n_clusters - 1) else
           f"Its degrees of freedom, **{r.cr2_df:.1f}**, are close to G − 1 = {r.n_clusters - 1}: the clusters "
           "are nearly equal")
        + f" (its intervals were {r.mean_width['cr2'] / r.mean_width['cr1_z']:.2f}x as wide as CR1 + z's "
        "on average).",
    ]
    if "wild" in r.methods:
        lines.append(
            f"The wild cluster bootstrap ({r.n_boot} resamples per eval) covered **{c['wild']:.1%}** of "
            f"{r.wild_reps:,}: it {verdict('wild')}, a check that needs no degrees-of-freedom formula."
        )
    return "\n".join(f"* {line}" for line in lines)


def intervals_sentence(sim: ClusterSimulation) -> str:
    """The interval picture beside the sliders in a sentence from its numbers (``sim.intervals``)."""
    iv = sim.intervals.set_index("method")
    naive, clustered = iv.iloc[0], iv.iloc[1]
    covers = [m for m, r in iv.iterrows() if r.ci_low <= sim.truth <= r.ci_high]
    return (f"Naive interval {naive.ci_low:.1%} to {naive.ci_high:.1%}, clustered {clustered.ci_low:.1%} to "
            f"{clustered.ci_high:.1%} ({clustered.width / naive.width:.1f}× as wide); "
            + (f"{len(covers)} of {len(iv)} cover the true {sim.truth:.0%}." if covers
               else f"none covers the true {sim.truth:.0%}."))


#: The simulator's default seed: at the default settings (100 clusters of 10, rho 0.30) its eval is the
#: typical one, every interval covering the true 70%, as about 69% of evals do for the naive interval and
#: 94% for the clustered (the coverage section counts them; :func:`typical_sentence` says so under the
#: chart). Seed 1 was an eval in which none covered, the rare case, on the step the lesson plan opens on.
DEFAULT_SEED = 2


def typical_sentence(sim: ClusterSimulation, cov: CoverageLesson) -> str:
    """How typical the eval on screen is: which of its intervals cover the truth, and how often each covers
    over the coverage section's many evals at the same settings (so no seed looks like the rule)."""
    iv = sim.intervals.set_index("method")
    naive, clustered = iv.iloc[0], iv.iloc[1]

    def did(row) -> str:
        return "covers" if row.ci_low <= sim.truth <= row.ci_high else "misses"

    return (f"**How typical is this eval?** Its naive interval {did(naive)} the true {sim.truth:.0%} and its "
            f"clustered one {did(clustered)}. Over {cov.reps:,} simulated evals at these settings the naive "
            f"interval covered in {cov.naive:.1%} of them and the clustered in {cov.clustered:.1%}: press "
            "*Rerun simulation* and count.")


def simulation_notes(sim: ClusterSimulation) -> list[str]:
    """The sentences the simulator needs at its settings, each shown only where its numbers make it true.

    * the measured design effect above ``m`` (the most ``1 + (m - 1) rho`` allows) and the effective n
      below the number of clusters: why (the CR1 factor ``C / (C - 1)`` and the noise of a variance
      estimated from ``C`` cluster totals);
    * an interval that runs past 0% or 100%: it is drawn clipped, and why it ran past.
    """
    notes = []
    c, m = sim.n_clusters, sim.cluster_size
    deff, n_eff = sim.clustered.deff, sim.clustered.n_eff
    if math.isfinite(deff) and m > 1 and deff > m:
        notes.append(
            f"The measured design effect, {deff:.2f}, is above m = {m}, the most the formula $1 + (m-1)\\rho$ "
            f"allows (at $\\rho = 1$). The clustered SE is estimated from only {c} cluster totals and carries "
            f"the small-sample factor $C/(C-1) = {c / (c - 1):.2f}$, so it can overshoot; the effective n it "
            f"implies, {n_eff:,.1f}, is then below the {c} clusters, which no amount of correlation can "
            f"really give. With {c} clusters, read the design effect as a rough range, not a measurement.")
    clipped = sim.intervals[sim.intervals["clipped"]]
    if len(clipped):
        which = " and ".join(f"the {r.method} interval ({r.ci_low:.1%} to {r.ci_high:.1%})" for r in clipped.itertuples())
        notes.append(
            f"† {which[0].upper() + which[1:]} {'runs' if len(clipped) == 1 else 'run'} past the 0%–100% an "
            f"accuracy can take, and {'is' if len(clipped) == 1 else 'are'} shown clipped. "
            f"A normal interval, estimate ± 1.96 SE, knows nothing of the bounds; with {c} clusters its SE is "
            "also rough. The few-cluster corrections below (CR2 with t, the wild bootstrap) are the remedy.")
    return notes


def deff_grid(*, max_m: int = 40, rhos: Any = None) -> pd.DataFrame:
    """The design effect ``1 + (m - 1) rho`` on a grid of cluster sizes and correlations, for a chart the
    reader drags along ``m`` and ``rho`` in the browser.

    Returns ``m, rho, deff, share`` with ``share = 1 / deff`` (the fraction of the questions the clustered
    eval is worth), for every ``m`` in 1..``max_m`` and ``rho`` in 0, 0.01, ..., 0.9 (or ``rhos``).
    """
    grid_rho = np.round(np.arange(0, 91) / 100, 2) if rhos is None else np.asarray(rhos, dtype=np.float64)
    ms = np.arange(1, int(max_m) + 1)
    mm, rr = np.meshgrid(ms, grid_rho, indexing="ij")
    deff = design_effect_array(mm.ravel(), rr.ravel())
    return pd.DataFrame({"m": mm.ravel(), "rho": rr.ravel(), "deff": deff, "share": 1.0 / deff})


def design_effect_array(m: Any, rho: Any) -> np.ndarray:
    """:func:`evalstats_core.clustering.design_effect` for arrays (Kish 1965, Sec. 5.4)."""
    m, rho = np.asarray(m, dtype=np.float64), np.asarray(rho, dtype=np.float64)
    return 1.0 + (m - 1.0) * rho
