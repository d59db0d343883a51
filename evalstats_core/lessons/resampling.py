"""Chapter 5, "Resampling returns": the K curve, why resamples must not be pooled, budgets and the MDE.

==============================  ====================================================================
``fraction_label(x)``           "1/3" when ``x`` is a simple fraction (for the paper's worked numbers)
``difficulty(alpha, beta)``     the chapter's Beta difficulty (Beta(1, 1) is the paper's U[0, 1])
``k_curve(...)``                variance relative to K = 1 over K = 1..20, the Var(x) floor, the
                                reductions at K = 2, 4, 6 and infinity beside the paper's uniform case
``pooled_coverage(...)``        large-n coverage of the pooled-answers interval, as a function of K
``pooling_lesson(...)``         the seeded simulation: coverage of pooled vs question-level intervals,
                                their Monte Carlo intervals, the coverage curve and a few example evals
``budget_lesson(...)``          a fixed number of model calls spent on questions or on answers
``mde_lesson(...)``             the minimum detectable effect against K (13.3% -> 7.6% at n = 198)
``pass_at_lesson(...)``         one simulated eval's pass@k at each k against the truth and the naive
                                "any of the K answers" count (:mod:`evalstats_core.passk`)
==============================  ====================================================================

Everything is built on :mod:`evalstats_core.variance` (Miller 2024, arXiv:2411.00640, Sec. 3.1-3.2),
:mod:`evalstats_core.simulate`, :mod:`evalstats_core.power` (Eq. 10) and
:mod:`evalstats_core.intervals`; this module arranges their numbers into what the page shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd
from scipy.special import betaln, ndtr

from .. import coverage, power, simulate, variance
from .._validate import check_confidence, check_positive_int, z_for
from ..intervals import proportion_ci
from ..passk import pass_at_k
from ..temperature import BetaDifficulty, UniformDifficulty

__all__ = [
    "PassAtLesson",
    "pass_at_lesson",
    "mde_sentence",
    "BudgetLesson",
    "KCurve",
    "MdeLesson",
    "PAPER_K",
    "PoolingLesson",
    "budget_lesson",
    "difficulty",
    "fraction_label",
    "k_curve",
    "mde_lesson",
    "pooled_coverage",
    "pooling_lesson",
    "pooling_reps",
]

#: The K of the paper's worked reductions (Miller 2024, Sec. 3.1); inf = next-token probabilities.
PAPER_K: tuple[float, ...] = (2.0, 4.0, 6.0, math.inf)
K_MAX = 20  # the curves run over K = 1..K_MAX
EXAMPLE_EVALS = 20  # simulated evals drawn as intervals
POOL_WORK = 60_000  # questions x replications per coverage run: keeps a slider move under ~50 ms


def fraction_label(x: float, *, max_denominator: int = 100) -> str:
    """``"1/3"`` when ``x`` equals a fraction with a small denominator (to 1e-9), else ``""``.

    Examples
    --------
    >>> fraction_label(5 / 9), fraction_label(0.25), fraction_label(0.1234)
    ('5/9', '1/4', '')
    """
    if not math.isfinite(x):
        return ""
    f = Fraction(x).limit_denominator(max_denominator)
    if abs(float(f) - x) > 1e-9:
        return ""
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def k_label(k: float) -> str:
    """``"4"`` for a whole K, ``"∞"`` for next-token probabilities."""
    return "∞" if math.isinf(k) else f"{k:g}"


def difficulty(alpha: float = 1.0, beta: float = 1.0) -> BetaDifficulty | UniformDifficulty:
    """The difficulty distribution of the chapter: Beta(alpha, beta), with Beta(1, 1) as exact U[0, 1]."""
    if float(alpha) == 1.0 and float(beta) == 1.0:
        return UniformDifficulty()
    return BetaDifficulty(alpha, beta)


# ---------------------------------------------------------------------------------------------------
# the K curve
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class KCurve:
    """Variance of the eval mean relative to K = 1, for one difficulty distribution and one K.

    Attributes
    ----------
    alpha, beta : float
        Beta shape of the difficulty (1, 1 is the paper's uniform case).
    var_x, mean_sigma2 : float
        Var(x) and E[sigma^2] = E[x(1-x)] of that distribution (binary answers).
    k : int
        The chosen answers per question.
    relative_variance, reduction : float
        ``V(K)/V(1)`` and ``1 - V(K)/V(1)`` at ``k``.
    floor : float
        ``Var(x) / (Var(x) + E[sigma^2])``: the relative variance at K = infinity (next-token
        probabilities), which no resampling goes below.
    icc : float
        Correlation of two answers to the same question, ``Var(x) / (Var(x) + E[sigma^2])`` (equal to
        the floor): the K answers form a cluster with this intra-cluster correlation.
    frame : DataFrame
        One row per K = 1..20: ``k, relative_variance, reduction``.
    table : DataFrame
        Rows K = 2, 4, 6, infinity: ``k`` (label), ``reduction``, ``fraction`` (e.g. "1/3"),
        ``paper_reduction``, ``paper_fraction`` (the uniform case of Miller 2024, Sec. 3.1), and
        ``label``, ``paper_label`` ("33.3% (1/3)") for display.
    """

    alpha: float
    beta: float
    var_x: float
    mean_sigma2: float
    k: int
    relative_variance: float
    reduction: float
    floor: float
    icc: float
    frame: pd.DataFrame
    table: pd.DataFrame


def k_curve(k: int, *, alpha: float = 1.0, beta: float = 1.0) -> KCurve:
    """The diminishing returns of resampling for Beta(alpha, beta) difficulty and binary answers.

    Notes
    -----
    ``V(K)/V(1) = (Var(x) + E[sigma^2]/K) / (Var(x) + E[sigma^2])`` (Miller 2024, Sec. 3.1, via
    :func:`evalstats_core.variance.resampling_curve`). For U[0, 1], Var(x) = 1/12 and E[sigma^2] = 1/6,
    so the reduction is ``(2/3)(1 - 1/K)``: 1/3, 1/2, 5/9 at K = 2, 4, 6 and 2/3 at K = infinity.
    """
    kk = check_positive_int(k, "k")
    d = difficulty(alpha, beta)
    curve = variance.resampling_curve(range(1, K_MAX + 1), var_x=d.var_x, mean_sigma2=d.mean_sigma2)
    here = float(variance.variance_reduction(kk, var_x=d.var_x, mean_sigma2=d.mean_sigma2))
    ours = variance.variance_reduction(np.array(PAPER_K), var_x=d.var_x, mean_sigma2=d.mean_sigma2)
    uni = UniformDifficulty()
    paper = variance.variance_reduction(np.array(PAPER_K), var_x=uni.var_x, mean_sigma2=uni.mean_sigma2)
    table = pd.DataFrame({
        "k": [k_label(v) for v in PAPER_K],
        "reduction": ours.tolist(),
        "fraction": [fraction_label(v) for v in ours.tolist()],
        "paper_reduction": paper.tolist(),
        "paper_fraction": [fraction_label(v) for v in paper.tolist()],
    })
    for col in ("", "paper_"):  # "33.3% (1/3)", or "41.2%" when the share is no simple fraction
        table[f"{col}label"] = [f"{r:.1%} ({f})" if f else f"{r:.1%}"
                                for r, f in zip(table[f"{col}reduction"], table[f"{col}fraction"], strict=True)]
    frame = curve.to_frame()[["k", "relative_variance", "reduction"]]
    return KCurve(float(alpha), float(beta), d.var_x, d.mean_sigma2, kk, 1.0 - here, here, curve.floor,
                  curve.floor, frame, table)


# ---------------------------------------------------------------------------------------------------
# do not pool the resamples
# ---------------------------------------------------------------------------------------------------
def pooled_coverage(k: object, /, *, var_x: float, mean_sigma2: float,
                    confidence: float = 0.95) -> float | np.ndarray:
    """Large-n coverage of ``mean +/- z SE_pooled`` when the SE treats all n*K answers as independent.

    Parameters
    ----------
    k : float or array of float >= 1
        Answers per question.
    var_x, mean_sigma2 : float
        Var(x) and E[sigma^2] of binary answers (their sum is the variance of one answer).

    Returns
    -------
    float or ndarray, shape of ``k``

    Notes
    -----
    The eval mean has variance ``(Var(x) + E[sigma^2]/K)/n`` (Miller 2024, Sec. 3.1); the pooled SE
    estimates ``(Var(x) + E[sigma^2])/(nK)``, the variance of one answer over the number of answers.
    Their ratio is the design effect of clusters of K answers, ``1 + (K - 1) rho`` with
    ``rho = Var(x)/(Var(x) + E[sigma^2])`` (Kish 1965, Sec. 5.4), so the pooled interval is
    ``sqrt(DEFF)`` times too narrow and covers ``2 Phi(z / sqrt(DEFF)) - 1``. Exactly ``confidence`` at
    K = 1; it falls towards 0 as K grows whenever Var(x) > 0. This is our own derivation (normal
    approximation, n large); the simulation of :func:`pooling_lesson` checks it.

    Examples
    --------
    >>> round(float(pooled_coverage(5, var_x=1/12, mean_sigma2=1/6)), 3)
    0.801
    """
    kk = np.asarray(k, dtype=np.float64)
    vx, s2 = float(var_x), float(mean_sigma2)
    z = z_for(confidence)
    deff = 1.0 + (kk - 1.0) * vx / (vx + s2)  # Kish Eq. 5.4.2 with rho = Var(x)/(Var(x) + E[sigma^2])
    out = 2.0 * ndtr(z / np.sqrt(deff)) - 1.0
    return float(out) if out.ndim == 0 else out


def pooling_reps(n: int) -> int:
    """Simulated evals for ``n`` questions: ``POOL_WORK // n``, between 500 and 2,000."""
    return int(min(2000, max(500, POOL_WORK // check_positive_int(n, "n"))))


@dataclass(frozen=True, slots=True)
class PoolingLesson:
    """The pooling simulation: how often each interval covers the true accuracy.

    Attributes
    ----------
    n, k, reps, seed : int
        Questions, answers per question, simulated evals, the seed.
    true_mean, true_se : float
        The accuracy ``E[x]`` and the real SD of the eval mean.
    pooled_coverage, question_coverage : float
        Share of simulated evals whose 95% interval contains ``true_mean``.
    pooled_mc, question_mc : Interval
        95% Wilson intervals for those two shares (Monte Carlo error of ``reps`` evals).
    pooled_se, question_se : float
        Average SE each method reported.
    predicted_pooled : float
        :func:`pooled_coverage` at ``k`` (the large-n prediction).
    deff : float
        Design effect of the K answers, ``1 + (K-1) rho``: the pooled variance is this many times too small.
    coverage_frame : DataFrame
        Predicted large-n coverage of the pooled interval over K = 1..20: ``k, method`` ("pooled
        answers"), ``coverage``. (Question means cover at the nominal level at every K.)
    sim_frame : DataFrame
        The simulated point at ``k``: ``method, estimate, ci_low, ci_high``.
    evals_frame : DataFrame
        ``EXAMPLE_EVALS`` seeded evals: ``eval, method, estimate, ci_low, ci_high, covers``.
    pooled_misses, question_misses : int
        Example evals whose interval misses the truth, per method.
    """

    n: int
    k: int
    reps: int
    seed: int
    true_mean: float
    true_se: float
    pooled_coverage: float
    question_coverage: float
    pooled_mc: tuple[float, float]
    question_mc: tuple[float, float]
    pooled_se: float
    question_se: float
    predicted_pooled: float
    deff: float
    coverage_frame: pd.DataFrame
    sim_frame: pd.DataFrame
    evals_frame: pd.DataFrame
    pooled_misses: int
    question_misses: int


POOLED, QUESTION = "pooled answers", "question means"


def _example_evals(n: int, k: int, *, alpha: float, beta: float, z: float, truth: float,
                   rng: np.random.Generator) -> pd.DataFrame:
    """``EXAMPLE_EVALS`` evals of n questions x k answers with both intervals (Sec. 3.1: never pool)."""
    answers = simulate.resampled_answers(EXAMPLE_EVALS * n, k, difficulty=(alpha, beta), rng=rng)
    q_means = answers.mean(axis=1).reshape(EXAMPLE_EVALS, n)  # (evals, n) question-level means
    mean = q_means.mean(axis=1)  # (evals,)
    se_q = q_means.std(axis=1, ddof=1) / math.sqrt(n)  # Eq. 1 on the n question means
    se_pool = np.sqrt(mean * (1.0 - mean) / (n * k - 1))  # sd of all n*k answers / sqrt(nk): wrong
    rows = []
    for method, se in ((POOLED, se_pool), (QUESTION, se_q)):
        low, high = mean - z * se, mean + z * se
        rows.append(pd.DataFrame({"eval": np.arange(1, EXAMPLE_EVALS + 1), "method": method, "estimate": mean,
                                  "ci_low": low, "ci_high": high, "covers": (low <= truth) & (truth <= high)}))
    return pd.concat(rows, ignore_index=True)


def pooling_lesson(n: int, k: int, *, seed: int, alpha: float = 1.0, beta: float = 1.0,
                   confidence: float = 0.95, reps: int | None = None) -> PoolingLesson:
    """Simulate evals of ``n`` questions answered ``k`` times: pooled vs question-level 95% intervals.

    Notes
    -----
    The coverage comes from :func:`evalstats_core.coverage.pooling_coverage` (``reps`` evals, by default
    :func:`pooling_reps`), its Monte Carlo error from Wilson intervals
    (:func:`evalstats_core.intervals.proportion_ci`), the curve from :func:`pooled_coverage`. One seed
    drives everything: ``np.random.default_rng(seed)`` feeds the coverage run, then the example evals.
    """
    size = check_positive_int(n, "n", minimum=2)
    kk = check_positive_int(k, "k")
    conf = check_confidence(confidence)
    r = pooling_reps(size) if reps is None else check_positive_int(reps, "reps")
    d = difficulty(alpha, beta)
    gen = np.random.default_rng(seed)
    cov = coverage.pooling_coverage(size, kk, reps=r, confidence=conf, difficulty=(alpha, beta), rng=gen)
    mc = [proportion_ci(round(share * r), r, interval="wilson", confidence=0.95)
          for share in (cov.pooled_coverage, cov.question_coverage)]
    ks = np.arange(1, K_MAX + 1, dtype=np.float64)
    curve = pooled_coverage(ks, var_x=d.var_x, mean_sigma2=d.mean_sigma2, confidence=conf)
    coverage_frame = pd.DataFrame({"k": ks, "method": POOLED, "coverage": curve})
    sim_frame = pd.DataFrame({
        "method": [POOLED, QUESTION], "k": [kk, kk],
        "estimate": [cov.pooled_coverage, cov.question_coverage],
        "ci_low": [mc[0].low, mc[1].low], "ci_high": [mc[0].high, mc[1].high],
    })
    evals = _example_evals(size, kk, alpha=alpha, beta=beta, z=z_for(conf), truth=cov.true_mean, rng=gen)
    misses = evals.loc[~evals["covers"]].groupby("method").size()
    icc = d.var_x / (d.var_x + d.mean_sigma2)
    return PoolingLesson(
        n=size, k=kk, reps=r, seed=int(seed), true_mean=cov.true_mean, true_se=cov.true_se,
        pooled_coverage=cov.pooled_coverage, question_coverage=cov.question_coverage,
        pooled_mc=tuple(mc[0]), question_mc=tuple(mc[1]),
        pooled_se=cov.pooled_mean_se, question_se=cov.question_mean_se,
        predicted_pooled=float(pooled_coverage(kk, var_x=d.var_x, mean_sigma2=d.mean_sigma2, confidence=conf)),
        deff=1.0 + (kk - 1) * icc,  # Kish Eq. 5.4.2
        coverage_frame=coverage_frame, sim_frame=sim_frame, evals_frame=evals,
        pooled_misses=int(misses.get(POOLED, 0)), question_misses=int(misses.get(QUESTION, 0)),
    )


# ---------------------------------------------------------------------------------------------------
# a fixed budget of model calls
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BudgetLesson:
    """A budget of model calls spent on questions or answers (see :func:`budget_lesson`).

    Attributes
    ----------
    result : variance.BudgetAllocation
        The core result (best K, K*, note).
    frame : DataFrame
        One row per K = 1..20: ``k, n_questions, se, is_best`` and ``calls_used`` (n * K, the calls
        that buy answers).
    se_k1 : float
        SE when every call goes to a new question (K = 1).
    """

    result: variance.BudgetAllocation
    frame: pd.DataFrame
    se_k1: float


def budget_lesson(calls: int, *, cost_question: float = 0.0, max_questions: int | None = None,
                  alpha: float = 1.0, beta: float = 1.0) -> BudgetLesson:
    """SE of the eval mean for each K when ``calls`` model calls are all there is to spend.

    Notes
    -----
    :func:`evalstats_core.variance.budget_allocation` with one call per answer and ``cost_question``
    calls' worth of fixed cost per question: ``n = calls / (c_q + K)`` questions (capped at
    ``max_questions``), SE ``sqrt((Var(x) + E[sigma^2]/K)/n)`` (Miller 2024, Sec. 3.1; Cochran 1977,
    Sec. 10.6 for the optimum).
    """
    d = difficulty(alpha, beta)
    res = variance.budget_allocation(calls, var_x=d.var_x, mean_sigma2=d.mean_sigma2,
                                     cost_question=cost_question, cost_answer=1.0, k_max=K_MAX,
                                     max_questions=max_questions)
    frame = res.to_frame()[["k", "n_questions", "se", "is_best"]]
    frame["calls_used"] = frame["n_questions"] * frame["k"]
    return BudgetLesson(res, frame, float(res.se[0]))


# ---------------------------------------------------------------------------------------------------
# the minimum detectable effect
# ---------------------------------------------------------------------------------------------------
#: The paper's MDE scenario (Miller 2024, Sec. 5): omega^2 = 1/9, sigma^2 = 1/6 for both models.
MDE_SCENARIO = dict(power.PRESETS["binary"])


@dataclass(frozen=True, slots=True)
class MdeLesson:
    """The minimum detectable effect of a paired comparison against K (both models answer K times).

    Attributes
    ----------
    n, k : int
        Questions and the chosen K.
    mde_k1, mde_k10, mde_k, mde_floor : float
        MDE at K = 1, K = 10, the chosen K, and K = infinity (only omega^2 left).
    frame : DataFrame
        One row per K = 1..20: ``k, mde``.
    """

    n: int
    k: int
    mde_k1: float
    mde_k10: float
    mde_k: float
    mde_floor: float
    frame: pd.DataFrame


def mde_lesson(n: int, k: int) -> MdeLesson:
    """MDE over K = 1..20 at ``n`` questions for the paper's binary scenario (80% power, alpha 0.05).

    Notes
    -----
    Eq. 10 of Miller (2024): ``delta = (z_{alpha/2} + z_beta) sqrt((omega^2 + 2 sigma^2/K)/n)``, via
    :func:`evalstats_core.power.mde`. At n = 198: 13.3% at K = 1, 7.6% at K = 10 (the paper prints
    13.2% and 7.5%, truncated); the floor at K = infinity is ``omega^2`` alone.
    """
    size = check_positive_int(n, "n")
    kk = check_positive_int(k, "k")

    def at(j: int) -> float:
        return float(power.mde(size, **MDE_SCENARIO, k_a=j, k_b=j))  # Eq. 10 (scalar in K)

    ks = list(range(1, K_MAX + 1))
    floor = float(power.mde(size, omega2=MDE_SCENARIO["omega2"]))  # K = infinity: sigma^2/K -> 0
    return MdeLesson(size, kk, at(1), at(10), at(kk), floor, pd.DataFrame({"k": ks, "mde": [at(j) for j in ks]}))


def mde_sentence(m: MdeLesson) -> str:
    """The MDE chart's numbers in a sentence: K = 1 and K = 10 at the chosen n (and the paper's printed
    values beside them only at its own n = 198, where they apply)."""
    text = (f"At n = {m.n:,}, ten answers per question take the minimum detectable effect from "
            f"{m.mde_k1:.1%} to {m.mde_k10:.1%}, against a floor of {m.mde_floor:.1%}.")
    if m.n == 198:
        text += " (The paper prints 13.2% and 7.5%, truncating rather than rounding.)"
    return text


@dataclass(frozen=True, slots=True)
class PassAtLesson:
    """One simulated eval's pass@k (:func:`pass_at_lesson`).

    ``frame`` has one row per k = 1 .. K: ``k``, ``truth`` (the population's pass@k, ``1 - B(a, b + k) / B(a, b)``
    for Beta(a, b) difficulty), ``estimate, ci_low, ci_high`` (:func:`~evalstats_core.passk.pass_at_k`) and ``naive``
    (the share of questions with any of their K answers right, the same at every k). ``naive_truth`` is what the
    naive count estimates: pass@K.
    """

    n: int
    k: int
    seed: int
    frame: pd.DataFrame
    naive: float
    naive_truth: float


def pass_at_lesson(n: int, k: int, *, seed: int, alpha: float = 1.0, beta: float = 1.0) -> PassAtLesson:
    """``n`` questions of Beta(alpha, beta) difficulty answered ``k`` times (seeded): pass@j for j = 1 .. k with its
    interval, the truth, and the naive "any of the k answers" share that over-states pass@j for every j < k.

    >>> les = pass_at_lesson(200, 5, seed=7)
    >>> les.frame["truth"].round(4).tolist()
    [0.5, 0.6667, 0.75, 0.8, 0.8333]
    """
    rows = check_positive_int(n, "n", minimum=2)
    kk = check_positive_int(k, "k")
    answers = simulate.resampled_answers(rows, kk, difficulty=(alpha, beta), rng=seed)  # (n, K) 0/1
    out = []
    for j in range(1, kk + 1):
        r = pass_at_k(answers, j)
        truth = 1.0 - math.exp(betaln(alpha, beta + j) - betaln(alpha, beta))  # E[1 - (1 - x)^j], x ~ Beta(a, b)
        out.append((j, truth, r.estimate, r.ci.low, r.ci.high, r.any_of_n))
    frame = pd.DataFrame(out, columns=["k", "truth", "estimate", "ci_low", "ci_high", "naive"])
    return PassAtLesson(n=rows, k=kk, seed=int(seed), frame=frame, naive=float(frame["naive"].iloc[0]),
                        naive_truth=float(frame["truth"].iloc[-1]))
