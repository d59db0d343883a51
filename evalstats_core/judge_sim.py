"""Seeded simulations of a judged eval: how often the judge-only and the corrected intervals cover the truth.

==============================  =====================================================================
``judged_eval(...)``            one draw: true 0/1 labels, a judge with given sensitivity/specificity,
                                a random labelled subset, optional unequal clusters
``judged_rows(...)``            many draws of the same design at once (rows)
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
from .clustering import summarize
from .errors import EvalStatsError, EvalStatsWarning
from .judge_rows import ppi_rows

__all__ = ["JudgedEval", "Coverage", "judged_eval", "judged_rows", "judge_coverage", "judge_compare_coverage",
           "cluster_sizes"]

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


def judged_rows(
    n_total: int, n_labeled: int, reps: int, *, sensitivity: float, specificity: float, pass_rate: float = 0.7,
    n_clusters: int = 0, rng: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """``reps`` draws of :func:`judged_eval`'s design at once: ``(truth, judge, labelled, codes)``, the first three
    of shape (reps, n_total) (``codes`` shared by the rows; None without clusters)."""
    gen = np.random.default_rng(rng)
    p = np.full((reps, n_total), check_unit(pass_rate, "pass_rate"))
    codes = None
    if n_clusters:
        codes = np.repeat(np.arange(n_clusters), cluster_sizes(n_total, n_clusters))
        p = expit(logit(p) + CLUSTER_SD * gen.standard_normal((reps, n_clusters))[:, codes])
    truth = gen.random((reps, n_total)) < p
    u = gen.random((reps, n_total))
    judge = np.where(truth, u < sensitivity, u < 1 - specificity).astype(float)
    order = np.argsort(gen.random((reps, n_total)), axis=1)[:, :n_labeled]
    labelled = np.zeros((reps, n_total), dtype=bool)
    np.put_along_axis(labelled, order, True, axis=1)
    return truth.astype(float), judge, labelled, codes


def _judge_only(f: np.ndarray, codes: np.ndarray | None, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise ``(mean, half-width)`` of ``summarize``'s interval for the judge's scores (as summarize)."""

    out = np.empty((f.shape[0], 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for r, row in enumerate(f):
            s = summarize(row, codes, confidence=level)
            out[r] = s.mean, (s.ci_high - s.ci_low) / 2
    return out[:, 0], out[:, 1]


#: Replications drawn at once (memory: a few arrays of CHUNK x n_total floats).
CHUNK = 250


def _tally(parts: list, reps: int, truth: float) -> Coverage:
    hits = np.concatenate([p[0] for p in parts])
    hw = np.concatenate([p[1] for p in parts])
    return Coverage(float(hits[:, 0].mean()), float(hits[:, 1].mean()), float(hw[:, 0].mean()),
                    float(hw[:, 1].mean()), float(hw[:, 2].mean()), reps, truth)


def _score(f: np.ndarray, h: np.ndarray, lab: np.ndarray, codes: Any, truth: float, level: float,
           small_counts: bool, judge_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
    est, _, _, lam, low, high = ppi_rows(f, h, lab, codes, level=level, small_counts=small_counts)
    jm, jh = _judge_only(f, codes, level) if judge_only else (np.full(f.shape[0], np.nan),) * 2
    judge_hits = np.abs(jm - truth) <= jh if judge_only else np.full(jm.shape, np.nan)
    hits = np.column_stack([(low <= truth) & (truth <= high), judge_hits])
    return hits, np.column_stack([(high - low) / 2, jh, lam])


def judge_coverage(
    *, n_total: int, n_labeled: int, sensitivity: float, specificity: float, pass_rate: float = 0.7,
    n_clusters: int = 0, reps: int = 2000, confidence: float = 0.95, rng: Any = None, small_counts: bool = True,
    judge_only: bool = True,
) -> Coverage:
    """Share of ``reps`` seeded evals whose corrected / judge-only interval covers the true pass rate.

    The corrected interval is ``ppi_mean``'s (``small_counts=False``: without its 0/1 small-count terms),
    computed for many evals at once (:func:`~evalstats_core.judge_rows.ppi_rows`). ``judge_only=False``
    skips the judge-only interval (``summarize`` one eval at a time, most of the run time with clusters):
    its coverage and half-width are then NaN; the draws, and so the corrected numbers, are the same.
    """
    level = check_confidence(confidence)
    reps = check_positive_int(reps, "reps")
    gen = np.random.default_rng(rng)
    truth = true_mean(pass_rate, bool(n_clusters))
    parts = []
    for start in range(0, reps, CHUNK):
        y, f, lab, codes = judged_rows(n_total, n_labeled, min(CHUNK, reps - start), sensitivity=sensitivity,
                                       specificity=specificity, pass_rate=pass_rate, n_clusters=n_clusters, rng=gen)
        parts.append(_score(f, y, lab, codes, truth, level, small_counts, judge_only))
    return _tally(parts, reps, truth)


def judge_compare_coverage(
    *, n_total: int, n_labeled: int, sensitivity: float, specificity: float, pass_rates: tuple[float, float] = (0.7, 0.6),
    bias_b: float = 0.1, n_clusters: int = 0, reps: int = 2000, confidence: float = 0.95, rng: Any = None,
    judge_only: bool = True,
) -> Coverage:
    """Coverage of the paired difference A - B when the judge is more lenient with B (by ``bias_b``).

    B's true fails are passed by the judge with probability ``1 - specificity + bias_b`` (a judge that
    likes B's longer answers); the truth is ``p_A - p_B`` (super-population). Humans grade both answers
    to A's labelled questions. ``judge_only``: as for :func:`judge_coverage`.
    """
    level = check_confidence(confidence)
    reps = check_positive_int(reps, "reps")
    gen = np.random.default_rng(rng)
    spec_b = specificity - bias_b
    if not 0 <= spec_b <= 1:
        raise EvalStatsError(f"specificity - bias_b ({spec_b}) must be in [0, 1]")
    truth = true_mean(pass_rates[0], bool(n_clusters)) - true_mean(pass_rates[1], bool(n_clusters))
    parts = []
    for start in range(0, reps, CHUNK):
        size = min(CHUNK, reps - start)
        ya, fa, lab, codes = judged_rows(n_total, n_labeled, size, sensitivity=sensitivity, specificity=specificity,
                                         pass_rate=pass_rates[0], n_clusters=n_clusters, rng=gen)
        yb, fb, _, _ = judged_rows(n_total, n_labeled, size, sensitivity=sensitivity, specificity=spec_b,
                                   pass_rate=pass_rates[1], n_clusters=n_clusters, rng=gen)
        parts.append(_score(fa - fb, ya - yb, lab, codes, truth, level, False, judge_only))  # as ppi_compare
    return _tally(parts, reps, truth)
