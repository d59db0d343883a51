"""Chapter 2, "One model's error bars": Atlas step by step, reruns, the CI calculator, binary vs
continuous scores, and the small-N lab.

=================================  ================================================================
``ATLAS``                          Atlas's ten travel tasks and scores (the worked example)
``atlas_steps()``                  mean, variance, SD, SE and 95% CI, with the per-task table
``rerun_atlas(seed, run)``         one fresh run of the ten tasks around their levels
``rerun_history_frame(...)``       the runs so far as a chartable frame, with the first run's CI
``ci_calculator(accuracy, n)``     Wald, Wilson, Clopper-Pearson and Bayes intervals side by side
``halfwidth_curve(accuracy, ns)``  each method's half-width against n
``binary_vs_continuous()``         Atlas's CLT SE against the Bernoulli SE at the same mean
``small_n_lab(n, theta, ...)``     coverage, width and Wald's failures from a seeded simulation
``coverage_by_n(ns, theta, ...)``  the same coverage across several n (for the curve)
``possible_intervals(n)``          every interval each method can produce with n questions
``lab_sentences(lab)``             what the lab's table shows, in sentences built from its numbers
``lab_intervals(n, theta, ...)``   the lab's first evals, interval by interval (Wald and Wilson)
``halfwidth_grid(accuracy)``       the half-width curve on every n a chart can be dragged to
``*_sentence(...)``                each chart's caption, built from the numbers it draws
=================================  ================================================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import check_confidence, check_positive_int, z_for
from ..clustering import summarize
from ..coverage import coverage_experiment
from ..errors import EvalStatsError
from ..intervals import PROPORTION_METHODS, normal_ci, proportion_ci_arrays, se_bernoulli, se_clt
from ..simulate import rerun_scores

__all__ = [
    "ATLAS",
    "METHOD_LABELS",
    "coverage_range_sentence",
    "DIST_NS",
    "dist_ns",
    "DRAG_NS",
    "AtlasSteps",
    "BinaryVsContinuous",
    "Rerun",
    "SmallNLab",
    "atlas_steps",
    "atlas_notes", "atlas_rows", "atlas_sentence", "both_ways_sentence",
    "rerun_notes", "rerun_sentence", "rerun_tasks_frame",
    "calculator_sentence",
    "halfwidth_sentence",
    "binary_vs_continuous",
    "ci_calculator",
    "coverage_by_n",
    "halfwidth_curve",
    "halfwidth_grid",
    "lab_intervals",
    "lab_sentences",
    "ONE_TASK",
    "one_task_runs",
    "one_task_sentence",
    "possible_intervals",
    "rerun_atlas",
    "rerun_history_frame",
    "sampling_grid",
    "small_n_lab",
]

#: Seed 004 ("Is That Improvement Real?"), Part 1: Agent Atlas on ten travel tasks.
ATLAS: tuple[tuple[str, float], ...] = (
    ("Book a round-trip flight to NYC under $500", 0.83),
    ("Find a pet-friendly hotel in downtown Tokyo", 0.45),
    ("Build a 3-day itinerary for Rome with kids", 0.72),
    ("Compare train vs. flight for London → Paris", 0.69),
    ("Cancel and rebook a delayed connection", 0.91),
    ("Find restaurants near the Colosseum open Sunday", 0.30),
    ("Convert a multi-city trip into loyalty points", 0.67),
    ("Suggest packing list for a week in Iceland", 0.51),
    ("Find the cheapest rental car in Lisbon", 0.80),
    ("Book an airport transfer for a 6 AM arrival", 0.48),
)

METHOD_LABELS: dict[str, str] = {
    "wald": "Wald (CLT)",
    "wilson": "Wilson",
    "clopper_pearson": "Clopper-Pearson",
    "bayes": "Bayes",
}


def _scores() -> np.ndarray:
    return np.array([s for _, s in ATLAS])


# ---------------------------------------------------------------------------------------------------
# the worked example
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AtlasSteps:
    """Every number on the way from ten scores to a 95% confidence interval.

    Attributes
    ----------
    n : int
        Number of tasks (10).
    total : float
        Sum of the scores.
    mean : float
        ``s_bar = total / n`` (0.636).
    sum_sq : float
        Sum of squared deviations from the mean.
    variance : float
        Sample variance ``sum_sq / (n - 1)`` (0.0376).
    sd : float
        Standard deviation, ``sqrt(variance)`` (0.194).
    se : float
        Standard error of the mean, ``sd / sqrt(n)`` (0.0613).
    z : float
        Normal critical value for ``confidence`` (1.96).
    ci_low, ci_high : float
        ``mean -/+ z * se`` (0.516, 0.756).
    confidence : float
    table : pandas.DataFrame
        One row per task: ``q, task, score, deviation, squared``.
    df, t : float
        Degrees of freedom ``n - 1`` (9) and Student's t critical value on them (2.262).
    t_low, t_high : float
        ``mean -/+ t * se`` (0.497, 0.775): evalstats' default interval (:func:`summarize`'s CR2 with
        Satterthwaite df, which for ten independent scores is exactly this t interval), the one the
        workbench shows for the same scores.
    """

    n: int
    total: float
    mean: float
    sum_sq: float
    variance: float
    sd: float
    se: float
    z: float
    ci_low: float
    ci_high: float
    confidence: float
    table: pd.DataFrame
    df: float
    t: float
    t_low: float
    t_high: float


def atlas_steps(*, confidence: float = 0.95) -> AtlasSteps:
    """Mean, variance, SD, SE and the normal interval of Atlas's ten scores, step by step.

    Notes
    -----
    ``s_bar = sum s_i / n``; ``Var = sum (s_i - s_bar)^2 / (n - 1)`` (Bessel's correction);
    ``SD = sqrt(Var)``; ``SE = SD / sqrt(n)`` (Miller 2024, Eq. 1); ``CI = s_bar +/- z SE`` (Eq. 3).
    The result agrees with :func:`evalstats_core.clustering.summarize` on the same scores.
    """
    z = z_for(confidence)
    s = _scores()  # (10,)
    n = s.size
    summary = summarize(s, confidence=confidence, method="cr1")  # the paper's z (Eq. 3)
    dev = s - summary.mean  # (n,) deviations from the mean
    sq = dev**2
    variance = float(sq.sum()) / (n - 1)  # sample variance with Bessel's correction
    sd = math.sqrt(variance)
    table = pd.DataFrame({"q": [f"Q{i + 1}" for i in range(n)], "task": [t for t, _ in ATLAS],
                          "score": s, "deviation": dev, "squared": sq})
    default = summarize(s, confidence=confidence)  # evalstats' default: t on n - 1 df for independent scores
    return AtlasSteps(n=n, total=float(s.sum()), mean=summary.mean, sum_sq=float(sq.sum()), variance=variance,
                      sd=sd, se=summary.se, z=z, ci_low=summary.ci_low, ci_high=summary.ci_high,
                      confidence=float(confidence), table=table, df=float(default.df),
                      t=float(stats.t.ppf((1.0 + confidence) / 2.0, default.df)),  # Student's t quantile
                      t_low=default.ci_low, t_high=default.ci_high)


# ---------------------------------------------------------------------------------------------------
# run the eval again
# ---------------------------------------------------------------------------------------------------

#: Run-to-run noise on one task's score (the SD of the normal noise around the task's level).
RERUN_NOISE_SD = 0.1


@dataclass(frozen=True, slots=True)
class Rerun:
    """One run of Atlas's ten tasks: ``run`` number (1 is the original), the scores and their mean."""

    run: int
    scores: tuple[float, ...]
    mean: float


def rerun_atlas(seed: int, run: int, *, noise_sd: float = RERUN_NOISE_SD) -> Rerun:
    """Run 1 is the published scores; run ``k >= 2`` draws fresh scores around each task's level.

    The draw of run ``k`` depends only on ``(seed, k)``, so a history of runs can be rebuilt from the
    seed. Noise: normal with SD ``noise_sd`` per task, clipped to [0, 1]
    (:func:`evalstats_core.simulate.rerun_scores`).
    """
    run = check_positive_int(run, "run")
    if run == 1:
        scores = _scores()
    else:
        scores = rerun_scores(_scores(), noise_sd=noise_sd, rng=[int(seed), run])
    return Rerun(run=run, scores=tuple(float(v) for v in scores), mean=float(scores.mean()))


def rerun_tasks_frame(seed: int, run: int) -> pd.DataFrame:
    """Each of the ten tasks in run ``run`` and in the run before it (for run 1: itself), so a chart can
    show every task's score moving when the eval is run again: ``task, score, previous, moved``.

    Examples
    --------
    >>> f = rerun_tasks_frame(1, 2)
    >>> len(f), bool((f["score"] != f["previous"]).any())
    (10, True)
    """
    now = rerun_atlas(seed, run)
    before = rerun_atlas(seed, run - 1) if run > 1 else now
    score, previous = np.asarray(now.scores), np.asarray(before.scores)
    return pd.DataFrame({"task": [f"Q{i + 1}" for i in range(score.size)], "score": score,
                         "previous": previous, "moved": score - previous})


def rerun_notes(runs: pd.DataFrame) -> list[str]:
    """The rerun section's "what to notice", from the runs so far (``rerun_history_frame``)."""
    n, inside = len(runs), int(runs["inside"].sum())
    if n == 1:
        first = "Run the eval again: each run moves every task's score, and its mean moves less."
    else:
        spread = 100 * (runs["mean"].max() - runs["mean"].min())
        first = (f"{inside} of {n} run means lie inside run 1's band, {spread:.1f} points apart at most: one run "
                 "already tells you roughly how far its mean could move.")
    return [first, "Reruns on the same tasks show only answer noise; the interval also covers *which tasks* were "
                   "chosen (chapter 1), so it is wider."]


def rerun_history_frame(means: Iterable[float], *, confidence: float = 0.95) -> pd.DataFrame:
    """The runs so far, as ``run, mean, ci_low, ci_high, inside`` (the CI is the first run's).

    ``inside`` says whether a run's mean falls inside the interval computed from run 1.
    """
    values = [float(m) for m in means]
    if not values:
        raise EvalStatsError("means is empty: the history always holds at least run 1")
    steps = atlas_steps(confidence=confidence)
    arr = np.asarray(values)
    return pd.DataFrame({"run": np.arange(1, arr.size + 1), "mean": arr, "ci_low": steps.ci_low,
                         "ci_high": steps.ci_high,
                         "inside": (arr >= steps.ci_low) & (arr <= steps.ci_high)})


# ---------------------------------------------------------------------------------------------------
# the CI calculator
# ---------------------------------------------------------------------------------------------------


def _successes(accuracy: float, n: Any) -> np.ndarray:
    p = float(accuracy)
    if not (0.0 <= p <= 1.0) or math.isnan(p):
        raise EvalStatsError(f"accuracy ({accuracy!r}) must be between 0 and 1")
    return np.rint(p * np.asarray(n, dtype=np.float64))


def ci_calculator(accuracy: float, n: int, *, confidence: float = 0.95) -> pd.DataFrame:
    """The four proportion intervals for ``k = round(accuracy * n)`` correct out of ``n``.

    Returns
    -------
    pandas.DataFrame
        One row per method: ``method, label, k, n, estimate (= k/n), ci_low, ci_high, width,
        half_width, outside`` (``outside``: the interval reaches below 0 or above 1, Wald only).
    """
    n = check_positive_int(n, "n")
    conf = check_confidence(confidence)
    k = float(_successes(accuracy, n))
    rows = []
    for m in PROPORTION_METHODS:
        low, high = proportion_ci_arrays(k, n, method=m, confidence=conf)
        low, high = float(low), float(high)
        rows.append({"method": m, "label": METHOD_LABELS[m], "k": int(k), "n": n, "estimate": k / n,
                     "ci_low": low, "ci_high": high, "width": high - low, "half_width": (high - low) / 2,
                     "outside": low < 0.0 or high > 1.0})
    return pd.DataFrame(rows)


def halfwidth_curve(accuracy: float, ns: Iterable[int] | None = None, *,
                    confidence: float = 0.95) -> pd.DataFrame:
    """Half-width ``(high - low) / 2`` of each method's interval against the number of questions.

    Parameters
    ----------
    accuracy : float in [0, 1]
        Observed accuracy; ``k = round(accuracy * n)`` at each n.
    ns : iterable of int, optional
        Question counts; default 60 log-spaced values from 5 to 10,000.

    Returns
    -------
    pandas.DataFrame
        ``n, method, label, half_width`` (long form, one row per n and method).
    """
    conf = check_confidence(confidence)
    grid = (np.unique(np.rint(np.geomspace(5, 10_000, 60))) if ns is None
            else np.asarray(list(ns), dtype=np.float64))
    if grid.size == 0 or (grid < 1).any():
        raise EvalStatsError(f"ns ({list(grid)!r}) must be question counts of at least 1")
    k = _successes(accuracy, grid)  # (len(ns),)
    frames = []
    for m in PROPORTION_METHODS:
        low, high = proportion_ci_arrays(k, grid, method=m, confidence=conf)
        frames.append(pd.DataFrame({"n": grid.astype(int), "method": m, "label": METHOD_LABELS[m],
                                    "half_width": (high - low) / 2.0}))
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------------------------
# binary vs continuous scores
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BinaryVsContinuous:
    """Atlas's scores with the right (CLT) and the wrong (Bernoulli) standard error.

    Attributes
    ----------
    mean, n : the mean score and number of tasks.
    variance : sample variance of the scores (0.0376).
    bernoulli_variance : ``p (1 - p)``, the variance 0/1 scores with this mean would have (0.2315).
    se_clt, se_bernoulli : the two standard errors (0.0613 and 0.152).
    ratio : ``se_bernoulli / se_clt``.
    frame : ``label, estimate, se, ci_low, ci_high`` for the forest plot (two rows).
    """

    mean: float
    n: int
    variance: float
    bernoulli_variance: float
    se_clt: float
    se_bernoulli: float
    ratio: float
    frame: pd.DataFrame


def binary_vs_continuous(*, confidence: float = 0.95) -> BinaryVsContinuous:
    """Atlas's CLT SE against the Bernoulli SE ``sqrt(p(1-p)/n)`` at the same mean.

    Notes
    -----
    For scores in [0, 1] with mean p, ``Var(s) <= p(1 - p)``, with equality only for 0/1 scores.
    The Bernoulli SE (Miller 2024, Eq. 2) on continuous scores is therefore too wide; the CLT SE
    (Eq. 1) uses the scores' actual spread (Miller 2024, Sec. 2.1 on the Llama 3 report).
    """
    s = _scores()
    mean, n = float(s.mean()), s.size
    clt = se_clt(s)  # Miller Eq. 1
    bern = se_bernoulli(mean, n)  # Miller Eq. 2, as if the scores were 0/1
    rows = []
    for label, se in (("CLT SE", clt), ("Bernoulli SE", bern)):
        low, high = normal_ci(mean, se, confidence=confidence)
        rows.append({"label": label, "estimate": mean, "se": se, "ci_low": low, "ci_high": high})
    return BinaryVsContinuous(mean=mean, n=n, variance=float(s.var(ddof=1)),
                              bernoulli_variance=mean * (1.0 - mean), se_clt=clt, se_bernoulli=bern,
                              ratio=bern / clt, frame=pd.DataFrame(rows))


# ---------------------------------------------------------------------------------------------------
# the small-N lab (Bowyer, Aitchison & Ivanova 2025)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SmallNLab:
    """Coverage and width of the four intervals at one n, with Wald's failure modes.

    Attributes
    ----------
    n, reps : int
        Questions per simulated eval, and simulated evals.
    theta : float or None
        The fixed true accuracy, or None when each eval drew its own from Uniform(0, 1).
    confidence : float
    frame : pandas.DataFrame
        One row per method: ``method, label, coverage, mc_se, mean_width, zero_width, outside``.
        ``zero_width``: share of evals whose interval has zero width; ``outside``: share whose
        interval reaches below 0 or above 1 (both happen only to Wald).
    """

    n: int
    reps: int
    theta: float | None
    confidence: float
    frame: pd.DataFrame


def small_n_lab(n: int, theta: float | None = None, *, reps: int = 20_000, confidence: float = 0.95,
                rng: Any = None) -> SmallNLab:
    """Simulate ``reps`` evals of ``n`` 0/1 questions: each method's coverage and width, and how often
    Wald's interval has zero width or leaves [0, 1].

    Parameters
    ----------
    n : int
        Questions per eval.
    theta : float in [0, 1], optional
        Fixed true accuracy; None draws it from Uniform(0, 1) for every eval (Bowyer et al.'s setup).
    reps : int
        Simulated evals (20,000 gives coverage to about +/-0.3 points).
    rng : seed
        The same seed gives the same evals.

    Notes
    -----
    Coverage, mean width and the share of evals ending at each k come from
    :func:`evalstats_core.coverage.coverage_experiment`. An interval depends on the data only through
    k, so the failure shares are ``sum_k share(k) * [fails at k]`` over the same simulated evals. Wald has zero width at ``k = 0`` and ``k = n`` and reaches outside
    [0, 1] near them (Bowyer, Aitchison & Ivanova 2025, arXiv:2503.01747, Sec. 2 and 4).
    """
    size = check_positive_int(n, "n")
    fixed = None if theta is None else float(theta)
    if fixed is not None and not 0.0 <= fixed <= 1.0:
        raise EvalStatsError(f"theta ({theta!r}) must be between 0 and 1, or None to draw it uniformly")
    conf = check_confidence(confidence)
    result = coverage_experiment(size, theta=fixed, confidence=conf, reps=reps, rng=rng)
    shares = np.asarray(result.k_shares)  # (n + 1,) share of simulated evals with k correct
    outcomes = np.arange(size + 1)
    rows = []
    for m in PROPORTION_METHODS:
        low, high = proportion_ci_arrays(outcomes, size, method=m, confidence=conf)  # (n + 1,) each
        rows.append({"method": m, "label": METHOD_LABELS[m], "coverage": result.coverage[m],
                     "mc_se": result.mc_se[m], "mean_width": result.mean_width[m],
                     "zero_width": float(shares @ (high - low <= 1e-12)),
                     "outside": float(shares @ ((low < 0.0) | (high > 1.0)))})
    return SmallNLab(n=size, reps=result.reps, theta=fixed, confidence=conf, frame=pd.DataFrame(rows))


def coverage_by_n(ns: Iterable[int] = (3, 10, 30, 100, 300, 1000), theta: float | None = None, *,
                  reps: int = 20_000, confidence: float = 0.95, rng: Any = None) -> pd.DataFrame:
    """Coverage and mean width of every method at each n: ``n, method, label, coverage, mean_width``."""
    frames = []
    for n in ns:
        r = coverage_experiment(check_positive_int(n, "n"), theta=theta, confidence=confidence, reps=reps,
                                rng=rng)
        frames.append(pd.DataFrame({"n": r.n, "method": list(r.methods),
                                    "label": [METHOD_LABELS[m] for m in r.methods],
                                    "coverage": [r.coverage[m] for m in r.methods],
                                    "mean_width": [r.mean_width[m] for m in r.methods]}))
    return pd.concat(frames, ignore_index=True)


def coverage_range_sentence(by_n: pd.DataFrame, *, confidence: float = 0.95, tolerance: float = 0.02) -> str:
    """What :func:`coverage_by_n` shows for Wilson and Bayes, in one sentence built from its numbers.

    "stay near 95% throughout" only when every coverage of both is within ``tolerance`` of the
    nominal level; otherwise each method's lowest coverage and the N where it occurs.
    """
    parts = []
    lows = []
    for m in ("wilson", "bayes"):
        rows = by_n[by_n["method"] == m]
        i = int(np.argmin(rows["coverage"].to_numpy()))
        lows.append(float(rows["coverage"].iloc[i]))
        parts.append(f"{METHOD_LABELS[m]} {rows['coverage'].iloc[i]:.1%} at N = {int(rows['n'].iloc[i]):,}")
    if min(lows) >= confidence - tolerance:
        return f"Wilson and Bayes stay near {confidence:.0%} throughout."
    return f"Wilson and Bayes dip below {confidence:.0%} at this true accuracy: lowest {parts[0]}, {parts[1]}."


def possible_intervals(n: int, *, confidence: float = 0.95) -> pd.DataFrame:
    """Every interval each method can give with ``n`` questions: one row per (k, method).

    Returns ``k, accuracy, method, label, ci_low, ci_high, zero_width, outside`` (Wald unclipped).
    """
    size = check_positive_int(n, "n")
    conf = check_confidence(confidence)
    k = np.arange(size + 1)
    frames = []
    for m in PROPORTION_METHODS:
        low, high = proportion_ci_arrays(k, size, method=m, confidence=conf)
        frames.append(pd.DataFrame({"k": k, "accuracy": k / size, "method": m, "label": METHOD_LABELS[m],
                                    "ci_low": low, "ci_high": high, "zero_width": high - low <= 1e-12,
                                    "outside": (low < 0.0) | (high > 1.0)}))
    return pd.concat(frames, ignore_index=True)



def lab_sentences(lab: SmallNLab) -> list[str]:
    """What the lab's table shows at its settings, in sentences chosen from its numbers.

    Wald's coverage with its zero-width and out-of-range shares (named only when they occur); Wilson's
    coverage and its mean width against Wald's ("about as wide" within 10%, else "n times as wide" or
    "narrower"); Clopper-Pearson's coverage, called the widest only when it is.
    """
    f = lab.frame.set_index("method")
    wald, wilson, cp = f.loc["wald"], f.loc["wilson"], f.loc["clopper_pearson"]
    truth = "a true accuracy drawn uniformly for every eval" if lab.theta is None else f"true accuracy {lab.theta:.0%}"
    nominal = f"{lab.confidence:.0%}"
    first = f"At N = {lab.n:,} with {truth}, Wald's \"{nominal}\" interval contains the truth in {wald.coverage:.1%} of the evals"
    fails = []
    if wald.zero_width > 0:
        fails.append(f"{wald.zero_width:.1%} of its intervals have zero width (all or none right)")
    if wald.outside > 0:
        fails.append(f"{wald.outside:.1%} reach past 0% or 100%")
    first += (": " + " and ".join(fails) if fails else "") + "."
    ratio = wilson.mean_width / wald.mean_width if wald.mean_width > 0 else math.inf
    if math.isinf(ratio):
        width = "while every Wald interval has zero width"
    elif abs(ratio - 1) < 0.1:
        width = "with intervals about as wide as Wald's on average"
    elif ratio > 1:
        width = f"with intervals {ratio:.1f} times as wide as Wald's on average: the width Wald leaves out"
    else:
        width = f"with intervals narrower than Wald's on average ({ratio:.2f} times)"
    second = f"Wilson contains it in {wilson.coverage:.1%}, {width}."
    widest = f.loc[f["mean_width"].idxmax()]
    third = (f"Clopper-Pearson contains it in {cp.coverage:.1%}"
             + (" and pays with the widest intervals." if widest.name == "clopper_pearson" else "."))
    return [first, second, third]


def lab_intervals(n: int, theta: float | None = None, *, count: int = 100, confidence: float = 0.95,
                  rng: Any = None) -> pd.DataFrame:
    """The first ``count`` simulated evals of the lab, one row per (eval, method) for Wald and Wilson.

    Returns ``eval`` (1..count), ``method, label, truth, accuracy (k/n), ci_low, ci_high, hit``,
    ``misses`` (the method's misses among evals 1..eval) and ``zero_width``, for a chart where intervals arrive one at a
    time. The true accuracy is fixed at ``theta`` or drawn from Uniform(0, 1) for every eval.
    """
    size = check_positive_int(n, "n")
    count = check_positive_int(count, "count")
    conf = check_confidence(confidence)
    gen = np.random.default_rng(rng)
    truth = gen.uniform(0.0, 1.0, count) if theta is None else np.full(count, float(theta))
    k = gen.binomial(size, truth)
    frames = []
    for m in ("wald", "wilson"):
        low, high = proportion_ci_arrays(k, size, method=m, confidence=conf)
        hit = (low <= truth) & (truth <= high)
        frames.append(pd.DataFrame({"eval": np.arange(1, count + 1), "method": m, "label": METHOD_LABELS[m],
                                    "truth": truth, "accuracy": k / size, "ci_low": low, "ci_high": high,
                                    "hit": hit, "misses": np.cumsum(~hit), "zero_width": high - low <= 1e-12}))
    return pd.concat(frames, ignore_index=True)


#: The question counts the half-width chart can be dragged to: every 5 from 5 to 2,000.
DRAG_NS: tuple[int, ...] = tuple(range(5, 2001, 5))


def halfwidth_grid(accuracy: float, *, confidence: float = 0.95) -> pd.DataFrame:
    """:func:`halfwidth_curve` on :data:`DRAG_NS`, so a chart can move along it in the browser."""
    return halfwidth_curve(accuracy, DRAG_NS, confidence=confidence)


#: Seed 004, Part 1: the task run 12 times, and the ability this lesson gives Atlas on it (its table's score).
ONE_TASK: tuple[str, float] = ("Find the cheapest round-trip flight to NYC under $500", 0.83)
ONE_TASK_RUNS = 12


def one_task_runs(draw: int, *, runs: int = ONE_TASK_RUNS, noise_sd: float = RERUN_NOISE_SD) -> pd.DataFrame:
    """Seed 004's "one task, many outcomes": the task of :data:`ONE_TASK` run ``runs`` times, for draw
    ``draw`` and, faint in the chart, the draw before it (so a rerun visibly moves each dot).

    Each run's score is the ability plus normal noise of SD ``noise_sd``, clipped to [0, 1]
    (:func:`evalstats_core.simulate.rerun_scores`); draw ``d`` depends only on ``d``.

    Returns ``run`` (1..runs), ``score``, ``draw`` ("this draw" or "previous draw"), ``ability`` and
    ``mean`` (that draw's mean over its runs).
    """
    draw = check_positive_int(draw, "draw")
    runs = check_positive_int(runs, "runs", minimum=2)
    ability = ONE_TASK[1]
    frames = []
    for d, label in ((draw, "this draw"), (draw - 1, "previous draw")):
        if d < 1:
            continue
        scores = rerun_scores(np.full(runs, ability), noise_sd=noise_sd, rng=[int(d), 1_000_003])
        frames.append(pd.DataFrame({"run": np.arange(1, runs + 1), "score": scores, "draw": label,
                                    "ability": ability, "mean": float(scores.mean())}))
    return pd.concat(frames, ignore_index=True)


def _pct(x: float) -> str:
    return f"{x:.1%}"


def atlas_rows(steps: AtlasSteps, pct: Any) -> list[tuple[str, str, str, str]]:
    """The worked example's steps as ``(content section, LaTeX, metric label, metric value)``, numbers from
    ``steps``; ``pct`` formats a proportion as the page does."""
    return [
        ("step_mean", rf"\bar s = \frac{{1}}{{n}}\sum_{{i=1}}^{{n}} s_i = \frac{{{steps.total:.2f}}}{{{steps.n}}} "
                      rf"= {steps.mean:.3f}", "Mean s̄", f"{steps.mean:.3f}"),
        ("step_variance", rf"s^2 = \frac{{1}}{{n-1}}\sum_{{i=1}}^{{n}} (s_i - \bar s)^2 = "
                          rf"\frac{{{steps.sum_sq:.4f}}}{{{steps.n - 1}}} = {steps.variance:.4f}",
         "Variance s²", f"{steps.variance:.4f}"),
        ("step_sd", rf"\mathrm{{SD}} = \sqrt{{s^2}} = \sqrt{{{steps.variance:.4f}}} = {steps.sd:.3f}",
         "Standard deviation", f"{steps.sd:.3f}"),
        ("step_se", rf"\mathrm{{SE}} = \frac{{\mathrm{{SD}}}}{{\sqrt n}} = \frac{{{steps.sd:.3f}}}{{\sqrt{{{steps.n}}}}}"
                    rf" = {steps.se:.4f}", "Standard error", f"{steps.se:.4f}"),
        ("step_ci", rf"\bar s \pm 1.96\,\mathrm{{SE}} = {steps.mean:.3f} \pm 1.96 \times {steps.se:.4f} = "
                    rf"[{pct(steps.ci_low)},\ {pct(steps.ci_high)}]".replace("%", r"\%"),
         "95% confidence interval", f"[{pct(steps.ci_low)}, {pct(steps.ci_high)}]"),
    ]


def atlas_notes(steps: AtlasSteps) -> list[str]:
    """The worked example's "what to notice", from its numbers: SD against SE, and the interval both ways."""
    return [f"The SD ({100 * steps.sd:.1f} points) describes single tasks; the SE ({100 * steps.se:.1f} points) "
            f"describes the *mean*, √{steps.n} ≈ {steps.sd / steps.se:.1f} times smaller.",
            f"Atlas's \"{_pct(steps.mean)}\" is compatible with anything from about {100 * steps.ci_low:.0f}% to "
            f"{100 * steps.ci_high:.0f}% with the paper's z, and from {100 * steps.t_low:.0f}% to "
            f"{100 * steps.t_high:.0f}% with the t that ten scores call for."]


def both_ways_sentence(steps: AtlasSteps) -> str:
    """The z and t intervals side by side, in a sentence from their numbers."""
    return (f"Same mean {_pct(steps.mean)} and SE {steps.se:.4f}, two multipliers: the paper's normal "
            f"{steps.z:.2f} gives [{_pct(steps.ci_low)}, {_pct(steps.ci_high)}]; Student's t on {steps.df:.0f} degrees "
            f"of freedom, {steps.t:.3f}, gives [{_pct(steps.t_low)}, {_pct(steps.t_high)}], "
            f"{(steps.t_high - steps.t_low) / (steps.ci_high - steps.ci_low) - 1:.0%} wider. The workbench "
            "uses t by default, so for these ten scores it shows the second.")


def atlas_sentence(steps: AtlasSteps) -> str:
    """The worked example's caption: the scores' range and SD, the mean and its interval."""
    scores = steps.table["score"]
    return (f"Atlas's ten scores spread from {scores.min():.0%} to {scores.max():.0%} (SD {steps.sd:.3f}); their mean "
            f"{steps.mean:.3f} has a 95% CI of [{_pct(steps.ci_low)}, {_pct(steps.ci_high)}].")


def rerun_sentence(runs: pd.DataFrame, steps: AtlasSteps) -> str:
    """The reruns chart's caption (``runs`` from :func:`rerun_history_frame`)."""
    if len(runs) == 1:
        return (f"1 run of the ten tasks so far, mean {_pct(runs['mean'].iloc[0])}, inside its own interval "
                f"[{_pct(steps.ci_low)}, {_pct(steps.ci_high)}]: press *Run the eval again* for the next.")
    return (f"{len(runs)} runs of the same ten tasks: means from {_pct(runs['mean'].min())} to "
            f"{_pct(runs['mean'].max())}, {int(runs['inside'].sum())} inside run 1's interval "
            f"[{_pct(steps.ci_low)}, {_pct(steps.ci_high)}].")


def calculator_sentence(calc: pd.DataFrame, k: int, n: int) -> str:
    """The calculator chart's caption: Wald's and Wilson's intervals (the first two rows of ``calc``)."""
    return (f"{k}/{n}: Wald gives [{_pct(calc['ci_low'].iloc[0])}, {_pct(calc['ci_high'].iloc[0])}], Wilson "
            f"[{_pct(calc['ci_low'].iloc[1])}, {_pct(calc['ci_high'].iloc[1])}].")


def halfwidth_sentence(curve: pd.DataFrame, accuracy: float) -> str:
    """The half-width chart's caption: Wald's half-width at the smallest and the largest n of ``curve``."""
    wald = curve[curve["method"] == "wald"]
    return (f"At {_pct(accuracy)} accuracy the Wald half-width falls from ±{wald['half_width'].iloc[0] * 100:.0f} "
            f"points at n = {int(wald['n'].iloc[0])} to ±{wald['half_width'].iloc[-1] * 100:.1f} at "
            f"n = {int(wald['n'].iloc[-1]):,}, like 1/√n.")


def one_task_sentence(frame: pd.DataFrame) -> str:
    """The runs of this draw in a sentence from their numbers: their range, their mean and its distance
    from the true ability (which the reader would not know in practice)."""
    now = frame[frame["draw"] == "this draw"]
    lo, hi, mean, ability = now["score"].min(), now["score"].max(), now["mean"].iloc[0], now["ability"].iloc[0]
    text = (f"This time the {len(now)} runs landed between {lo:.2f} and {hi:.2f}; their mean, {mean:.3f}, is "
            f"{abs(mean - ability) * 100:.1f} points {'above' if mean > ability else 'below'} the true ability "
            f"{ability:.2f}")
    before = frame[frame["draw"] == "previous draw"]
    if len(before):
        moved = float(np.abs(now["score"].to_numpy() - before["score"].to_numpy()).mean())
        text += f", and each run moved by {moved * 100:.1f} points on average since the previous draw"
    return text + "."


#: The question counts the sampling-distribution chart can be dragged to: every 20 from 20 to 1,000 (about
#: 3,000 bars in all; Altair refuses a chart of more than 5,000 rows).
DIST_NS: tuple[int, ...] = tuple(range(20, 1001, 20))


def dist_ns(n: int | None = None) -> tuple[int, ...]:
    """The drag's question counts: :data:`DIST_NS` shifted so that ``n`` (up to 1,000) is one of them, and the
    chart opens at the calculator's n (n = 50: 10, 30, 50, ..., 990).

    Examples
    --------
    >>> dist_ns(50)[:3], dist_ns(40)[:2], dist_ns(2000) == DIST_NS
    ((10, 30, 50), (20, 40), True)
    """
    if n is None or not 1 <= int(n) <= DIST_NS[-1]:
        return DIST_NS
    step = DIST_NS[1] - DIST_NS[0]
    return tuple(range(int(n) % step or step, DIST_NS[-1] + 1, step))


def sampling_grid(accuracy: float, *, n: int | None = None, confidence: float = 0.95,
                  tail: float = 1e-3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The exact sampling distribution of the observed accuracy ``k / n`` when the true accuracy is
    ``accuracy``, for every n in ``dist_ns(n)``, and the Wald interval ``p +/- z sqrt(p(1-p)/n)`` at each n.

    Returns ``(bars, rules)``: ``bars`` has ``n, k, acc_lo, acc_hi`` (the bar for k spans (k -/+ 0.5)/n),
    ``prob`` (Binomial(n, p) probability of k) and ``density`` (``prob * n``, so bars of any width compare),
    keeping the k whose probability is at least ``tail``; ``rules`` has ``n, low, high, se``.
    """
    from scipy import stats

    p = float(accuracy)
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        raise EvalStatsError(f"accuracy ({accuracy!r}) must be between 0 and 1")
    z = z_for(check_confidence(confidence))
    frames, rules = [], []
    for size in dist_ns(n):
        k = np.arange(size + 1)
        prob = stats.binom.pmf(k, size, p)
        keep = prob >= tail
        frames.append(pd.DataFrame({"n": size, "k": k[keep], "acc_lo": (k[keep] - 0.5) / size,
                                    "acc_hi": (k[keep] + 0.5) / size, "prob": prob[keep], "density": prob[keep] * size}))
        se = math.sqrt(p * (1 - p) / size)
        rules.append({"n": size, "low": p - z * se, "high": p + z * se, "se": se})
    return pd.concat(frames, ignore_index=True), pd.DataFrame(rules)
