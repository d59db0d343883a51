"""Chapter 1, "The problem": Galleon vs Dreadnought, and the super-population behind an eval score.

==============================  ==================================================================
``REPORTED``                    the three benchmarks as a paper would report them (n, two accuracies)
``reported_table()``            the bare table: questions, both accuracies, the difference
``score_intervals()``           each model's accuracy with its Bernoulli SE and normal interval
``differences()``               Galleon - Dreadnought per benchmark: unpaired SE, interval, verdict
``superpopulation_demo(...)``   simulate rerunning an eval on the same vs on freshly drawn questions
==============================  ==================================================================

Only the reported accuracies and question counts are known, not the per-question scores, so the
difference uses the *unpaired* standard error ``sqrt(SE_A^2 + SE_B^2)`` (Miller 2024, Eq. 5). With the
per-question scores the paired SE would be smaller (chapter 4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._results import excludes_zero
from .._validate import check_confidence, check_positive_int, check_probability
from ..errors import EvalStatsError
from ..intervals import normal_ci, se_bernoulli
from ..reported import analyze_reported
from ..variance import estimator_variance
from ..vocabulary import UNRESOLVED  # the one word for an interval that holds 0 (chapters 1, 8, 9)

__all__ = [
    "UNRESOLVED",
    "MODELS",
    "REPORTED",
    "Reported",
    "SuperPopulation",
    "demo_notes", "demo_sentence",
    "differences",
    "reported_table",
    "score_intervals",
    "superpopulation_demo",
]


MODELS: tuple[str, str] = ("Galleon", "Dreadnought")


@dataclass(frozen=True, slots=True)
class Reported:
    """One benchmark as reported: its name, question count and the two models' accuracies.

    Attributes
    ----------
    eval : str
        Benchmark name.
    n : int
        Number of questions.
    galleon, dreadnought : float
        Reported accuracies (proportions in [0, 1]).
    """

    eval: str
    n: int
    galleon: float
    dreadnought: float


#: Miller 2024 (arXiv:2411.00640), Sec. 1: the fictional reported results.
REPORTED: tuple[Reported, ...] = (
    Reported("MATH", 5000, 0.655, 0.630),
    Reported("HumanEval", 164, 0.836, 0.867),
    Reported("MGSM", 2500, 0.753, 0.780),
)


def reported_table() -> pd.DataFrame:
    """The bare table a technical report prints: one row per benchmark, no uncertainty.

    Returns
    -------
    pandas.DataFrame
        Columns ``eval, n, galleon, dreadnought, difference`` (accuracies as proportions,
        ``difference = galleon - dreadnought``).
    """
    return pd.DataFrame(
        {
            "eval": [r.eval for r in REPORTED],
            "n": [r.n for r in REPORTED],
            "galleon": [r.galleon for r in REPORTED],
            "dreadnought": [r.dreadnought for r in REPORTED],
            "difference": [r.galleon - r.dreadnought for r in REPORTED],
        }
    )


def score_intervals(*, confidence: float = 0.95) -> pd.DataFrame:
    """Each model's accuracy on each benchmark with its Bernoulli SE and normal interval.

    Returns
    -------
    pandas.DataFrame
        One row per (benchmark, model): ``eval, model, n, estimate, se, ci_low, ci_high``, in the
        order of :data:`REPORTED` with Galleon before Dreadnought.

    Notes
    -----
    ``SE = sqrt(p (1 - p) / n)`` (Miller 2024, Eq. 2) and ``p +/- z SE`` (Eq. 3). MATH, Galleon:
    SE = 0.67%, interval (64.2%, 66.8%); HumanEval, Galleon: SE = 2.89%, interval (77.9%, 89.3%).
    """
    check_confidence(confidence)
    rows = []
    for r in REPORTED:
        for model, p in zip(MODELS, (r.galleon, r.dreadnought), strict=True):
            se = se_bernoulli(p, r.n)  # Miller 2024, Eq. 2
            low, high = normal_ci(p, se, confidence=confidence)  # Eq. 3
            rows.append({"eval": r.eval, "model": model, "n": r.n, "estimate": p, "se": se,
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def differences(*, confidence: float = 0.95) -> pd.DataFrame:
    """Galleon minus Dreadnought on each benchmark, with the unpaired SE, interval and verdict.

    Returns
    -------
    pandas.DataFrame
        One row per benchmark: ``eval, n, diff, se, ci_low, ci_high, z, p_value, paired_se_low,
        paired_se_high, survives, verdict``. ``survives`` is True when the interval excludes 0;
        ``verdict`` says who is ahead, or :data:`UNRESOLVED` when the interval holds 0. ``paired_se_low/high`` bound the
        paired SE the per-question data could have given.

    Notes
    -----
    Built on :func:`evalstats_core.reported.analyze_reported`: ``SE_diff = sqrt(SE_G^2 + SE_D^2)``
    (Miller 2024, Eq. 5), interval ``diff +/- z SE_diff`` and a two-sided normal p-value (Eq. 6). This
    treats the two models' scores as independent, which is all the reported numbers allow; both models
    answered the same questions, so the paired SE (Eq. 7) lies somewhere in
    ``[paired_se_low, paired_se_high]`` depending on how often they disagree.
    """
    check_confidence(confidence)
    rows = []
    for r in REPORTED:
        table = {"model": list(MODELS), "accuracy": [r.galleon, r.dreadnought], "n": [r.n, r.n],
                 "se": [None, None]}
        comp = analyze_reported(table, interval="wald", confidence=confidence, percent=False).comparisons.iloc[0]
        low, high = float(comp["ci_low"]), float(comp["ci_high"])
        survives = excludes_zero(low, high)
        if not survives:
            verdict = UNRESOLVED
        else:
            verdict = f"{MODELS[0] if comp['diff'] > 0 else MODELS[1]} ahead"
        rows.append({"eval": r.eval, "n": r.n, "diff": float(comp["diff"]), "se": float(comp["se"]),
                     "ci_low": low, "ci_high": high, "z": float(comp["z"]), "p_value": float(comp["p_value"]),
                     "paired_se_low": float(comp["paired_se_low"]),
                     "paired_se_high": float(comp["paired_se_high"]),
                     "survives": survives, "verdict": verdict})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------
# the super-population
# ---------------------------------------------------------------------------------------------------

SAME = "Same questions, new answers"
FRESH = "New questions, new answers"


@dataclass(frozen=True, slots=True)
class SuperPopulation:
    """Rerunning an eval two ways, from a super-population of questions with known variances.

    Attributes
    ----------
    accuracy : float
        True mean score ``mu = E[x]`` of the super-population.
    share : float
        ``Var(x) / (Var(x) + E[sigma^2])``: how much of a single score's variance is *which question*.
    n, reps : int
        Questions per eval and simulated evals per kind of rerun.
    var_x, mean_sigma2 : float
        ``Var(x)`` and ``E[sigma_i^2]``; they add up to ``p (1 - p)`` for 0/1 scores.
    var_mean : float
        ``(Var(x) + E[sigma^2]) / n``: the variance of the eval mean over fresh questions.
    se_total : float
        ``sqrt(var_mean)``; equals the Bernoulli SE ``sqrt(p(1-p)/n)``.
    se_answers : float
        ``sqrt(E[sigma^2] / n)``: the spread when only the answers are redrawn (on average over
        question sets).
    sd_same, sd_fresh : float
        Simulated standard deviations of the eval mean for the two kinds of rerun.
    histogram : pandas.DataFrame
        ``kind, bin_low, bin_high, bin_mid, count, density``: the simulated eval means, binned on
        common edges (``kind`` is "Same questions, new answers" or "New questions, new answers").
    """

    accuracy: float
    share: float
    n: int
    reps: int
    var_x: float
    mean_sigma2: float
    var_mean: float
    se_total: float
    se_answers: float
    sd_same: float
    sd_fresh: float
    histogram: pd.DataFrame


def _difficulties(accuracy: float, share: float, size: Any, gen: np.random.Generator) -> np.ndarray:
    """Draw question-level means ``x`` with ``E[x] = accuracy`` and ``Var(x) = share * p(1-p)``."""
    if share == 0.0:
        return np.full(size, accuracy)
    if share == 1.0:
        return (gen.random(size) < accuracy).astype(np.float64)
    kappa = 1.0 / share - 1.0  # Beta(p k, (1-p) k) has Var = p(1-p)/(k+1) = share * p(1-p)
    return gen.beta(accuracy * kappa, (1.0 - accuracy) * kappa, size=size)


def superpopulation_demo(accuracy: float = 0.655, share: float = 0.5, n: int = 164, *, reps: int = 2000,
                         bins: int = 40, rng: Any = None) -> SuperPopulation:
    """Simulate an eval's mean under two kinds of rerun, from a Beta super-population of questions.

    Parameters
    ----------
    accuracy : float
        True accuracy ``mu`` in (0, 1).
    share : float
        ``Var(x) / p(1-p)`` in [0, 1]: 0 means every question is equally hard (all variance is sampling
        noise), 1 means each question is always right or always wrong (no sampling noise).
    n : int
        Questions per eval (>= 1).
    reps : int
        Simulated evals per kind (>= 2); the work is ``2 * reps * n`` random draws.
    bins : int
        Roughly how many histogram bins; each bin spans a whole number of correct answers.
    rng : seed or numpy Generator
        Randomness; the same seed gives the same picture.

    Returns
    -------
    SuperPopulation

    Notes
    -----
    Question ``i`` has conditional mean ``x_i ~ Beta(p k, (1-p) k)`` with ``k = 1/share - 1`` and the
    score ``s_i ~ Bernoulli(x_i)``, so ``s_i = x_i + eps_i`` with ``Var(eps_i | x_i) = x_i(1-x_i)``.
    By the law of total variance ``Var(s) = Var(x) + E[sigma^2] = p(1-p)`` and the eval mean has
    variance ``(Var(x) + E[sigma^2]) / n`` (Miller 2024, Sec. 2.1 and 3.1). Redrawing only the answers
    (the same questions) leaves out ``Var(x)``: its spread is about ``sqrt(E[sigma^2]/n)``.

    Redrawing questions *and* answers gives a score that is marginally ``Bernoulli(p)`` (integrate
    ``x`` out), so those eval means are drawn exactly as ``Binomial(n, p) / n``: the same distribution
    as the two-stage draw, at a fraction of the cost.
    """
    p = check_probability(accuracy, "accuracy")
    try:
        share = float(share)
    except (TypeError, ValueError):
        raise EvalStatsError(f"share ({share!r}) must be a number between 0 and 1") from None
    if not 0.0 <= share <= 1.0:
        raise EvalStatsError(f"share ({share!r}) must be between 0 and 1 (a share of the variance)")
    n = check_positive_int(n, "n")
    reps = check_positive_int(reps, "reps", minimum=2)
    bins = check_positive_int(bins, "bins")
    gen = np.random.default_rng(rng)
    total = p * (1.0 - p)  # Var(s) for 0/1 scores with mean p
    var_x, mean_sigma2 = share * total, (1.0 - share) * total
    var_mean = float(estimator_variance(1, var_x=var_x, mean_sigma2=mean_sigma2, n=n))  # (Var x + E s2)/n

    x_fixed = _difficulties(p, share, n, gen)  # (n,) one set of questions, kept
    same = (gen.random((reps, n)) < x_fixed).mean(axis=1)  # (reps,) new answers only
    # new questions every time: a fresh question's score is marginally Bernoulli(E[x]) = Bernoulli(p)
    # whatever the share, so the eval mean is exactly Binomial(n, p) / n; draw it directly
    fresh = gen.binomial(n, p, size=reps) / n  # (reps,)

    # every simulated mean is k/n: bin whole numbers of correct answers so each bin holds as many
    # possible values as the next (no comb pattern), about ``bins`` bins over the observed range
    k_same, k_fresh = np.rint(same * n).astype(np.int64), np.rint(fresh * n).astype(np.int64)
    k_lo = int(min(k_same.min(), k_fresh.min()))
    k_hi = int(max(k_same.max(), k_fresh.max()))
    width_k = max(1, -(-(k_hi - k_lo + 1) // bins))  # ceil: whole answers per bin
    n_bins = -(-(k_hi - k_lo + 1) // width_k)
    edges = (k_lo - 0.5 + width_k * np.arange(n_bins + 1)) / n  # (n_bins + 1,)
    frames = []
    for kind, ks in ((SAME, k_same), (FRESH, k_fresh)):
        count = np.bincount((ks - k_lo) // width_k, minlength=n_bins)  # (n_bins,)
        frames.append(pd.DataFrame({
            "kind": kind, "bin_low": edges[:-1], "bin_high": edges[1:],
            "bin_mid": (edges[:-1] + edges[1:]) / 2.0, "count": count,
            "density": count / (reps * (width_k / n)),
        }))
    return SuperPopulation(
        accuracy=p, share=share, n=n, reps=reps, var_x=var_x, mean_sigma2=mean_sigma2,
        var_mean=var_mean, se_total=math.sqrt(var_mean), se_answers=math.sqrt(mean_sigma2 / n),
        sd_same=float(same.std(ddof=1)), sd_fresh=float(fresh.std(ddof=1)),
        histogram=pd.concat(frames, ignore_index=True),
    )


def demo_notes(demo: SuperPopulation) -> list[str]:
    """The super-population demo's "what to notice", from its numbers: the green histogram is called
    narrower only when it is (below 90% of the blue one's spread), a spike only when it has none."""
    same, fresh = demo.sd_same, demo.sd_fresh
    out = [f"The blue histogram (new questions every run) spreads by {fresh:.2%}, against {demo.se_total:.2%} from "
           "the formula (the dashed lines): one run's standard error already accounts for *which questions were "
           "sampled*."]
    if same <= 1e-12:
        out.append("The green histogram (same questions, new answers) collapses to a spike: at a "
                   f"{demo.share:.0%} share a deterministic model gives the same score on every rerun, yet its "
                   "score is still uncertain, because a different set of questions would give a different number.")
    elif same < 0.9 * fresh:
        out.append(f"The green histogram (same questions, new answers) is narrower, {same:.2%}: reruns on the same "
                   "questions see the answer variance but not the luck of which questions were sampled.")
    else:
        out.append(f"The green histogram (same questions, new answers) spreads about as much, {same:.2%}: at a "
                   f"{demo.share:.0%} share every question is equally hard, so all the variance is answer variance "
                   "and a rerun samples it all. Move the share up to see the two part.")
    out.append("Rerunning an eval and watching it barely move is therefore no evidence that its error bar is "
               "small." if same < 0.9 * fresh else "Only when questions differ in difficulty does a rerun on the "
               "same questions understate the error bar; real benchmarks' questions do.")
    return out


def demo_sentence(demo: SuperPopulation) -> str:
    """The super-population chart in a sentence from its numbers; reruns on the same questions spread
    "by only" so much only when they spread less than runs on new questions (at a 0% share they match)."""
    same, fresh = demo.sd_same, demo.sd_fresh
    if same < 0.9 * fresh:
        how = f"reruns on the same questions spread by only {same:.2%}"
    else:
        how = f"reruns on the same questions spread about as much, {same:.2%}: every bit of the variance is answer variance"
    return (f"With {demo.n} questions and {demo.share:.0%} of the variance from question difficulty, {demo.reps:,} "
            f"runs on new questions spread by {fresh:.2%} (formula: {demo.se_total:.2%}); {how}.")
