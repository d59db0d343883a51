"""Seeded simulations of a judged eval: how often the judge-only and the corrected intervals cover the truth.

==============================  =====================================================================
``judged_eval(...)``            one draw: true 0/1 labels, a judge with given sensitivity/specificity,
                                a random labelled subset, optional unequal clusters
``judge_coverage(...)``         coverage of the corrected (``ppi_mean``) and judge-only intervals
``judge_compare_coverage(...)`` the same for the paired difference (``ppi_compare``)
==============================  =====================================================================

The truth is the super-population pass rate (with clusters: the expected pass rate over clusters,
whose logit-scale effects are drawn afresh in every replication). Randomness only via ``rng``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit, logit, roots_hermitenorm

from ._validate import check_confidence, check_positive_int, check_unit
from .errors import EvalStatsError, EvalStatsWarning
from .judge import ppi_fit
from .judge_interval import ppi_interval

__all__ = ["JudgedEval", "Coverage", "judged_eval", "judge_coverage", "judge_compare_coverage", "cluster_sizes"]

#: Logit-scale SD of the cluster effects in the clustered design.
CLUSTER_SD = 0.8


@dataclass(frozen=True, slots=True)
class JudgedEval:
    """One simulated eval: ``truth`` (0/1), ``judge`` (0/1), ``human`` (truth or NaN), ``clusters`` (codes)."""

    truth: np.ndarray
    judge: np.ndarray
    human: np.ndarray
    clusters: np.ndarray | None
    true_mean: float


@dataclass(frozen=True, slots=True)
class Coverage:
    """Coverage of the corrected and judge-only intervals over ``reps`` replications."""

    corrected: float
    judge_only: float
    mean_half_width: float
    judge_half_width: float
    mean_lam: float
    reps: int
    true_mean: float


def cluster_sizes(n_total: int, n_clusters: int) -> np.ndarray:
    """Unequal cluster sizes (geometric, largest about 6x the smallest) summing to ``n_total``."""
    w = 0.85 ** np.arange(n_clusters)
    sizes = np.floor(w / w.sum() * n_total).astype(int)
    sizes[0] += n_total - sizes.sum()
    return sizes


def true_mean(pass_rate: float, clustered: bool) -> float:
    """The super-population pass rate: ``E[expit(logit(p) + u)]``, ``u ~ N(0, CLUSTER_SD^2)`` if clustered."""
    if not clustered:
        return pass_rate
    x, w = roots_hermitenorm(60)
    return float(expit(logit(pass_rate) + CLUSTER_SD * x) @ w / w.sum())


def judged_eval(
    n_total: int, n_labeled: int, *, sensitivity: float, specificity: float, pass_rate: float = 0.7,
    n_clusters: int = 0, rng: Any = None,
) -> JudgedEval:
    """Draw one judged eval with a random labelled subset of ``n_labeled`` questions.

    Each question's truth is Bernoulli(``pass_rate``) (with clusters: Bernoulli(expit(logit(p) + u_g)));
    the judge passes a true pass with probability ``sensitivity`` and a true fail with probability
    ``1 - specificity``. Humans label a simple random sample of ``n_labeled`` questions, correctly.
    """
    n_total = check_positive_int(n_total, "n_total", minimum=3)
    n_labeled = check_positive_int(n_labeled, "n_labeled", minimum=2)
    if n_labeled > n_total:
        raise EvalStatsError(f"n_labeled ({n_labeled}) cannot exceed n_total ({n_total})")
    gen = np.random.default_rng(rng)
    p = np.full(n_total, check_unit(pass_rate, "pass_rate"))
    codes = None
    if n_clusters:
        codes = np.repeat(np.arange(n_clusters), cluster_sizes(n_total, n_clusters))
        p = expit(logit(p) + CLUSTER_SD * gen.standard_normal(n_clusters)[codes])
    truth = (gen.random(n_total) < p).astype(float)
    u = gen.random(n_total)
    judge = np.where(truth == 1, u < sensitivity, u < 1 - specificity).astype(float)
    human = np.full(n_total, np.nan)
    idx = gen.choice(n_total, n_labeled, replace=False)
    human[idx] = truth[idx]
    return JudgedEval(truth, judge, human, codes, true_mean(pass_rate, bool(n_clusters)))


def _judge_only(f: np.ndarray, codes: np.ndarray | None, level: float) -> tuple[float, float]:
    """``(mean, half-width)`` of ``summarize``'s interval for the judge's scores (CR2 / t, as summarize)."""
    from .clustering import summarize

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        s = summarize(f, codes, confidence=level)
    return s.mean, (s.ci_high - s.ci_low) / 2


def judge_coverage(
    *, n_total: int, n_labeled: int, sensitivity: float, specificity: float, pass_rate: float = 0.7,
    n_clusters: int = 0, reps: int = 2000, confidence: float = 0.95, rng: Any = None,
) -> Coverage:
    """Share of ``reps`` seeded evals whose corrected / judge-only interval covers the true pass rate."""
    level = check_confidence(confidence)
    reps = check_positive_int(reps, "reps")
    gen = np.random.default_rng(rng)
    hits = np.zeros((reps, 2), dtype=bool)
    hw = np.zeros((reps, 3))
    truth = true_mean(pass_rate, bool(n_clusters))
    for r in range(reps):
        ev = judged_eval(n_total, n_labeled, sensitivity=sensitivity, specificity=specificity,
                         pass_rate=pass_rate, n_clusters=n_clusters, rng=gen)
        lab = ~np.isnan(ev.human)
        codes = np.arange(n_total) if ev.clusters is None else ev.clusters
        est, se, df, lam = ppi_fit(ev.judge, ev.human, lab, codes)
        low, high = ppi_interval(ev.judge, ev.human, lab, est, se, df, level)
        half = (high - low) / 2
        jm, jh = _judge_only(ev.judge, ev.clusters, level)
        hits[r] = (low <= truth <= high, abs(jm - truth) <= jh)
        hw[r] = (half, jh, lam)
    return Coverage(float(hits[:, 0].mean()), float(hits[:, 1].mean()), float(hw[:, 0].mean()),
                    float(hw[:, 1].mean()), float(hw[:, 2].mean()), reps, truth)


def judge_compare_coverage(
    *, n_total: int, n_labeled: int, sensitivity: float, specificity: float, pass_rates: tuple[float, float] = (0.7, 0.6),
    bias_b: float = 0.1, n_clusters: int = 0, reps: int = 2000, confidence: float = 0.95, rng: Any = None,
) -> Coverage:
    """Coverage of the paired difference A - B when the judge is more lenient with B (by ``bias_b``).

    B's true fails are passed by the judge with probability ``1 - specificity + bias_b`` (a judge that
    likes B's longer answers); the truth is ``p_A - p_B`` (super-population).
    """
    level = check_confidence(confidence)
    gen = np.random.default_rng(rng)
    spec_b = specificity - bias_b
    if not 0 <= spec_b <= 1:
        raise EvalStatsError(f"specificity - bias_b ({spec_b}) must be in [0, 1]")
    truth = true_mean(pass_rates[0], bool(n_clusters)) - true_mean(pass_rates[1], bool(n_clusters))
    hits = np.zeros((reps, 2), dtype=bool)
    hw = np.zeros((reps, 3))
    for r in range(reps):
        a = judged_eval(n_total, n_labeled, sensitivity=sensitivity, specificity=specificity,
                        pass_rate=pass_rates[0], n_clusters=n_clusters, rng=gen)
        b = judged_eval(n_total, n_labeled, sensitivity=sensitivity, specificity=spec_b,
                        pass_rate=pass_rates[1], n_clusters=n_clusters, rng=gen)
        hb = np.where(np.isnan(a.human), np.nan, b.truth)  # humans grade both answers to the same questions
        f, h = a.judge - b.judge, a.human - hb
        lab = ~np.isnan(h)
        codes = np.arange(n_total) if a.clusters is None else a.clusters
        est, se, df, lam = ppi_fit(f, h, lab, codes)
        low, high = ppi_interval(f, h, lab, est, se, df, level, small_counts=False)  # as ppi_compare
        half = (high - low) / 2
        jm, jh = _judge_only(f, a.clusters, level)
        hits[r] = (low <= truth <= high, abs(jm - truth) <= jh)
        hw[r] = (half, jh, lam)
    return Coverage(float(hits[:, 0].mean()), float(hits[:, 1].mean()), float(hw[:, 0].mean()),
                    float(hw[:, 1].mean()), float(hw[:, 2].mean()), reps, truth)
