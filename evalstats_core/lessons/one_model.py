"""Chapter 2a, "One model's error bars": Atlas step by step, reruns, one task run many times, and binary
vs continuous scores. Chapter 2b's calculator and small-N lab live in :mod:`evalstats_core.lessons.small_n`;
their names are importable from here too.

=================================  ================================================================
``ATLAS``                          Atlas's ten travel tasks and scores (the worked example)
``atlas_steps()``                  mean, variance, SD, SE and 95% CI, with the per-task table
``rerun_atlas(seed, run)``         one fresh run of the ten tasks around their levels
``rerun_history_frame(...)``       the runs so far as a chartable frame, with the first run's CI
``one_task_runs(draw)``            seed 004's one task run twelve times, this draw and the one before
``binary_vs_continuous()``         Atlas's CLT SE against the Bernoulli SE at the same mean
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

from .._validate import check_positive_int, z_for
from ..clustering import summarize
from ..errors import EvalStatsError
from ..intervals import normal_ci, se_bernoulli, se_clt
from ..simulate import rerun_scores
from .small_n import (  # noqa: F401  chapter 2b's names, importable from here as before the split
    DIST_NS,
    DRAG_NS,
    METHOD_LABELS,
    SmallNLab,
    _pct,
    calculator_sentence,
    ci_calculator,
    coverage_by_n,
    coverage_range_sentence,
    dist_ns,
    halfwidth_curve,
    halfwidth_grid,
    halfwidth_sentence,
    lab_intervals,
    lab_sentences,
    possible_intervals,
    sampling_grid,
    small_n_lab,
)

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
    return [first, "Reruns on the same tasks show only answer variance; the interval also covers *which tasks* were "
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


#: Seed 004, Part 1: the task run 12 times, and the ability this lesson gives Atlas on it (its table's score).
ONE_TASK: tuple[str, float] = ("Find the cheapest round-trip flight to NYC under $500", 0.83)
ONE_TASK_RUNS = 12


def one_task_runs(batch: int, *, runs: int = ONE_TASK_RUNS, noise_sd: float = RERUN_NOISE_SD) -> pd.DataFrame:
    """Seed 004's "one task, many outcomes": the task of :data:`ONE_TASK` run ``runs`` times, for batch
    ``batch`` and, faint in the chart, the batch before it (so a rerun visibly moves each dot).

    Each run's score is the ability plus normal noise of SD ``noise_sd``, clipped to [0, 1]
    (:func:`evalstats_core.simulate.rerun_scores`); batch ``d`` depends only on ``d``.

    Returns ``run`` (1..runs), ``score``, ``batch`` ("this batch" or "previous batch"), ``ability`` and
    ``mean`` (that batch's mean over its runs).
    """
    batch = check_positive_int(batch, "batch")
    runs = check_positive_int(runs, "runs", minimum=2)
    ability = ONE_TASK[1]
    frames = []
    for d, label in ((batch, "this batch"), (batch - 1, "previous batch")):
        if d < 1:
            continue
        scores = rerun_scores(np.full(runs, ability), noise_sd=noise_sd, rng=[int(d), 1_000_003])
        frames.append(pd.DataFrame({"run": np.arange(1, runs + 1), "score": scores, "batch": label,
                                    "ability": ability, "mean": float(scores.mean())}))
    return pd.concat(frames, ignore_index=True)


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


def one_task_sentence(frame: pd.DataFrame) -> str:
    """The runs of this batch in a sentence from their numbers: their range, their mean and its distance
    from the true ability (which the reader would not know in practice)."""
    now = frame[frame["batch"] == "this batch"]
    lo, hi, mean, ability = now["score"].min(), now["score"].max(), now["mean"].iloc[0], now["ability"].iloc[0]
    text = (f"This time the {len(now)} runs landed between {lo:.2f} and {hi:.2f}; their mean, {mean:.3f}, is "
            f"{abs(mean - ability) * 100:.1f} points {'above' if mean > ability else 'below'} the true ability "
            f"{ability:.2f}")
    before = frame[frame["batch"] == "previous batch"]
    if len(before):
        moved = float(np.abs(now["score"].to_numpy() - before["score"].to_numpy()).mean())
        text += f", and each run moved by {moved * 100:.1f} points on average since the previous batch"
    return text + "."
