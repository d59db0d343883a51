"""Chapter 2b, "One model at small N": the interval calculator, the half-width against n, the small-N lab
(coverage of Wald, Wilson, Clopper-Pearson and Bayes), and the sampling distribution of an accuracy.

Split from :mod:`evalstats_core.lessons.one_model` (chapter 2a), which re-exports every name here.

=================================  ================================================================
``ci_calculator(accuracy, n)``     Wald, Wilson, Clopper-Pearson and Bayes intervals side by side
``halfwidth_curve(accuracy, ns)``  each method's half-width against n
``small_n_lab(n, theta, ...)``     coverage, width and Wald's failures from a seeded simulation
``coverage_by_n(ns, theta, ...)``  the same coverage across several n (for the curve)
``possible_intervals(n)``          every interval each method can produce with n questions
``lab_sentences(lab)``             what the lab's table shows, in sentences built from its numbers
``lab_intervals(n, theta, ...)``   the lab's first evals, interval by interval (Wald and Wilson)
``halfwidth_grid(accuracy)``       the half-width curve on every n a chart can be dragged to
``sampling_grid(accuracy, n)``     the exact sampling distribution of k / n at every n of the drag
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
from ..coverage import coverage_experiment
from ..errors import EvalStatsError
from ..intervals import PROPORTION_METHODS, proportion_ci_arrays

__all__ = [
    "METHOD_LABELS", "DIST_NS", "DRAG_NS", "SmallNLab",
    "ci_calculator", "halfwidth_curve", "halfwidth_grid", "calculator_sentence", "halfwidth_sentence",
    "small_n_lab", "coverage_by_n", "coverage_range_sentence", "possible_intervals", "lab_sentences",
    "lab_intervals", "dist_ns", "sampling_grid",
]

METHOD_LABELS: dict[str, str] = {
    "wald": "Wald (CLT)",
    "wilson": "Wilson",
    "clopper_pearson": "Clopper-Pearson",
    "bayes": "Bayes",
}


def _pct(x: float) -> str:
    return f"{x:.1%}"


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
        low, high = proportion_ci_arrays(k, n, interval=m, confidence=conf)
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
        low, high = proportion_ci_arrays(k, grid, interval=m, confidence=conf)
        frames.append(pd.DataFrame({"n": grid.astype(int), "method": m, "label": METHOD_LABELS[m],
                                    "half_width": (high - low) / 2.0}))
    return pd.concat(frames, ignore_index=True)


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
        raise EvalStatsError(f"theta ({theta!r}) must be between 0 and 1, or None to pick it uniformly at random")
    conf = check_confidence(confidence)
    result = coverage_experiment(size, theta=fixed, confidence=conf, reps=reps, rng=rng)
    shares = np.asarray(result.k_shares)  # (n + 1,) share of simulated evals with k correct
    outcomes = np.arange(size + 1)
    rows = []
    for m in PROPORTION_METHODS:
        low, high = proportion_ci_arrays(outcomes, size, interval=m, confidence=conf)  # (n + 1,) each
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
        low, high = proportion_ci_arrays(k, size, interval=m, confidence=conf)
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
    truth = "a true accuracy picked uniformly at random for every eval" if lab.theta is None else f"true accuracy {lab.theta:.0%}"
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
        low, high = proportion_ci_arrays(k, size, interval=m, confidence=conf)
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


# the charts' captions

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

    p = float(accuracy)
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        raise EvalStatsError(f"accuracy ({accuracy!r}) must be between 0 and 1")
    z = z_for(check_confidence(confidence))
    cols: dict[str, list] = {"n": [], "k": [], "acc_lo": [], "acc_hi": [], "prob": [], "density": []}
    rules = []
    for size in dist_ns(n):
        k = np.arange(size + 1)
        prob = stats.binom.pmf(k, size, p)
        keep = prob >= tail
        for name, part in (("n", np.full(int(keep.sum()), size, dtype=np.int64)), ("k", k[keep]),
                           ("acc_lo", (k[keep] - 0.5) / size), ("acc_hi", (k[keep] + 0.5) / size),
                           ("prob", prob[keep]), ("density", prob[keep] * size)):
            cols[name].append(part)
        se = math.sqrt(p * (1 - p) / size)
        rules.append({"n": size, "low": p - z * se, "high": p + z * se, "se": se})
    # one frame from the columns (50 frames concatenated cost 10 ms of a slider step, issue 44.4)
    return pd.DataFrame({name: np.concatenate(parts) for name, parts in cols.items()}), pd.DataFrame(rules)
