"""Chapter 4, "Paired vs unpaired": Atlas vs Breeze, covariance; the optional sweep and McNemar (under "Optional" on the page).

==================================  ==============================================================
``ATLAS``, ``BREEZE``, ``TASKS``    the worked example: two agents' scores on the same ten tasks
``atlas_breeze()``                  both agents' summaries, unpaired and paired comparisons, the
                                    covariance, the correlation and the frames the charts draw
``paired_se_formula(...)``          ``sqrt(SE_A^2 + SE_B^2 - 2 rho SE_A SE_B)``, vectorised
``covariance_rectangles(a, b)``     the rectangles from the means to each point, with signed areas
``correlation_sweep(...)``          simulated evals across correlations beside the closed form
``mcnemar_lesson(a, b, c, d)``      McNemar's test on a 2x2 table, with the paired z-test beside it
``prompt_battles(seed)``            preferences: one seeded eval of battles, ratings with SEs by prompt
                                    and as if the battles were independent
==================================  ==============================================================

Every standard error here comes from :func:`evalstats_core.comparison.compare` (or
:func:`~evalstats_core.clustering.summarize`); the closed form through the correlation is shown beside
it to explain *why* pairing helps, not to replace it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._results import excludes_zero
from .._validate import check_confidence, check_positive_int, z_for
from ..clustering import Summary, summarize
from ..comparison import Comparison, compare, mcnemar_from_counts
from ..errors import EvalStatsError
from ..intervals import se_bernoulli
from ..pairwise import bradley_terry, simulate_battles
from ..power import sample_size
from ..simulate import paired_scores
from ..vocabulary import signed_points
from .problem import REPORTED

__all__ = [
    "ATLAS", "BREEZE", "SWEEP_ACCURACIES", "SWEEP_GRID", "SWEEP_RANGE", "TASKS", "AtlasBreeze", "CorrelationSweep", "McNemarLesson", "atlas_breeze",
    "correlation_sweep", "covariance_rectangles", "deviation_products", "covariance_formulas", "products_sentences", "tasks_for_t_power", "leaderboard_example", "leaderboard_sentence", "mcnemar_lesson",
    "mcnemar_sentences", "paired_se_formula", "BATTLE_DESIGN", "prompt_battles",
]

#: "Is That Improvement Real?" (seed 004), Part 2: the same ten travel tasks for both agents.
TASKS: tuple[str, ...] = (
    "Round-trip flight to NYC under $500",
    "Pet-friendly hotel in downtown Tokyo",
    "3-day Rome itinerary with kids",
    "Train vs flight, London to Paris",
    "Cancel and rebook a delayed connection",
    "Restaurants near the Colosseum open Sunday",
    "Multi-city trip into loyalty points",
    "Packing list for a week in Iceland",
    "Cheapest rental car in Lisbon",
    "Airport transfer for a 6 AM arrival",
)
ATLAS: tuple[float, ...] = (0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48)
BREEZE: tuple[float, ...] = (0.89, 0.58, 0.74, 0.56, 0.94, 0.35, 0.80, 0.59, 0.88, 0.53)
AGENTS: tuple[str, str] = ("Atlas", "Breeze")


@dataclass(frozen=True, slots=True)
class AtlasBreeze:
    """The worked example, analyzed both ways (plain numbers plus tidy frames for the charts).

    Attributes
    ----------
    table : DataFrame
        One row per task: ``task`` ("Q1".."Q10"), ``description``, ``atlas``, ``breeze``, ``diff``
        (Atlas - Breeze), ``winner``.
    summary_a, summary_b : Summary
        Each agent's mean, CLT SE and 95% interval.
    unpaired, paired : Comparison
        Atlas - Breeze with the unpaired SE ``sqrt(SE_A^2 + SE_B^2)`` and with the paired SE (the
        seed's normal z: ``method="cr1"``).
    paired_t : Comparison
        The same paired difference tested the default way: the paired t-test on ``n - 1`` degrees of
        freedom (``compare(a, b)``, ``method="cr2"``).
    tasks_needed : int
        Tasks for 80% power at alpha 0.05 if the true gap is the observed one and the differences'
        spread is what these tasks showed (Miller 2024, Eq. 9 via :func:`evalstats_core.power.sample_size`):
        the paper's z test.
    tasks_needed_t : int
        The same for the paired t-test on ``n - 1`` df (:func:`tasks_for_t_power`), the test the chapter
        recommends at ten tasks.
    sd_a, sd_b, sd_diff : float
        Sample standard deviations (ddof=1) of each agent's scores and of the differences.
    covariance : float
        Sample covariance of the two agents' scores (ddof=1): the sum of the rectangles' signed areas
        over ``n - 1``.
    se_paired_formula : float
        ``sqrt(SE_A^2 + SE_B^2 - 2 rho SE_A SE_B)``; equals ``paired.se`` (two routes, one number).
    se_reduction : float
        ``1 - se_paired / se_unpaired``: how much shorter the paired error bar is.
    b_wins : int
        Tasks on which Breeze scored higher (points above the diagonal).
    positive_rectangles : int
        Tasks whose covariance rectangle has a positive signed area.
    scores, means, comparisons, rects : DataFrame
        Long frames for :mod:`evalstats_core.charts.paired`.
    """

    table: pd.DataFrame
    summary_a: Summary
    summary_b: Summary
    unpaired: Comparison
    paired: Comparison
    paired_t: Comparison
    tasks_needed: int
    tasks_needed_t: int
    sd_a: float
    sd_b: float
    sd_diff: float
    covariance: float
    se_paired_formula: float
    se_reduction: float
    b_wins: int
    positive_rectangles: int
    scores: pd.DataFrame
    means: pd.DataFrame
    comparisons: pd.DataFrame
    rects: pd.DataFrame


def paired_se_formula(se_a: Any, se_b: Any, correlation: Any) -> float | np.ndarray:
    """Standard error of a paired difference from the two SEs and the correlation of the scores.

    Parameters
    ----------
    se_a, se_b : float or array_like
        Each model's standard error (>= 0).
    correlation : float or array_like in [-1, 1]
        Pearson correlation of the two models' per-question scores. Arrays broadcast.

    Returns
    -------
    float or numpy.ndarray
        ``sqrt(SE_A^2 + SE_B^2 - 2 rho SE_A SE_B)``.

    Notes
    -----
    From ``Var(A - B) = Var(A) + Var(B) - 2 Cov(A, B)`` (Miller 2024, arXiv:2411.00640, Sec. 4.2, the
    relation after Eq. 7). With equal SEs the share of variance removed is exactly ``rho``.
    """
    sa, sb, r = (np.asarray(v, dtype=np.float64) for v in (se_a, se_b, correlation))
    if np.any(~np.isfinite(r)) or np.any(np.abs(r) > 1.0):
        raise EvalStatsError(f"correlation ({correlation!r}) must be between -1 and 1")
    if np.any(~np.isfinite(sa)) or np.any(~np.isfinite(sb)) or np.any(sa < 0) or np.any(sb < 0):
        raise EvalStatsError(f"se_a ({se_a!r}) and se_b ({se_b!r}) must be finite and >= 0")
    var = np.maximum(sa**2 + sb**2 - 2.0 * r * sa * sb, 0.0)  # Miller 2024, Sec. 4.2
    out = np.sqrt(var)
    return float(out) if out.ndim == 0 else out


def covariance_rectangles(a: Any, b: Any, labels: Any = None) -> pd.DataFrame:
    """One rectangle per question from ``(mean_a, mean_b)`` to ``(a_i, b_i)``, with its signed area.

    Returns
    -------
    DataFrame
        ``task, a, b, x0, x1, y0, y1, dev_a, dev_b, product, sign``; ``product = dev_a * dev_b`` and
        ``sum(product) / (n - 1)`` is the sample covariance. ``sign`` is "same side" when both
        deviations have the same sign (positive area), else "opposite sides".
    """
    xa, xb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if xa.shape != xb.shape or xa.ndim != 1:
        raise EvalStatsError(f"a and b must be 1-D of equal length (got {xa.shape} and {xb.shape})")
    ma, mb = float(xa.mean()), float(xb.mean())
    da, db = xa - ma, xb - mb
    product = da * db  # one term of the covariance sum
    names = [f"Q{i + 1}" for i in range(xa.size)] if labels is None else list(labels)
    return pd.DataFrame({
        "task": names, "a": xa, "b": xb, "x0": ma, "x1": xa, "y0": mb, "y1": xb,
        "dev_a": da, "dev_b": db, "product": product,
        "sign": np.where(product >= 0, "same side", "opposite sides"),
    })


def atlas_breeze(*, confidence: float = 0.95) -> AtlasBreeze:
    """Atlas vs Breeze on the same ten tasks: unpaired SE 0.0864, paired SE 0.0232.

    Notes
    -----
    Means 0.636 and 0.686, each SE 0.0613 (Miller 2024, Eq. 1); unpaired SE
    ``sqrt(0.0613^2 + 0.0613^2) = 0.0864`` and interval [-21.9%, +11.9%] (Eq. 5); paired SE of the
    differences 0.0232 and interval [-9.5%, -0.5%] (Eq. 7); correlation 0.93, so pairing removes 93%
    of the variance and shortens the error bar by 73%.
    """
    a, b = np.array(ATLAS), np.array(BREEZE)
    sa, sb = summarize(a, confidence=confidence, method="cr1"), summarize(b, confidence=confidence, method="cr1")
    unpaired = compare(a, b, paired=False, confidence=confidence, method="cr1")
    paired = compare(a, b, confidence=confidence, method="cr1")  # the seed's z
    paired_t = compare(a, b, confidence=confidence)  # the default: paired t-test on n - 1 df
    d = a - b
    labels = [f"Q{i + 1}" for i in range(a.size)]
    table = pd.DataFrame({"task": labels, "description": list(TASKS), "atlas": a, "breeze": b, "diff": d,
                          "winner": np.where(d > 0, AGENTS[0], AGENTS[1])})
    cov = float(np.cov(a, b, ddof=1)[0, 1])
    scores = pd.DataFrame({"agent": np.repeat(AGENTS, a.size), "task": labels * 2,
                           "score": np.concatenate([a, b])})
    means = pd.DataFrame([{"agent": name, "estimate": s.mean, "se": s.se, "ci_low": s.ci_low,
                           "ci_high": s.ci_high} for name, s in zip(AGENTS, (sa, sb), strict=True)])
    rects = covariance_rectangles(a, b, labels)
    return AtlasBreeze(
        table=table, summary_a=sa, summary_b=sb, unpaired=unpaired, paired=paired, paired_t=paired_t,
        tasks_needed=math.ceil(sample_size(abs(paired.diff), omega2=float(d.var(ddof=1)))),
        tasks_needed_t=tasks_for_t_power(abs(paired.diff), float(d.std(ddof=1))),
        sd_a=float(a.std(ddof=1)), sd_b=float(b.std(ddof=1)), sd_diff=float(d.std(ddof=1)),
        covariance=cov,
        se_paired_formula=paired_se_formula(sa.se, sb.se, paired.correlation),
        se_reduction=1.0 - paired.se / unpaired.se,
        b_wins=int(np.count_nonzero(d < 0)), positive_rectangles=int(np.count_nonzero(rects["product"] > 0)),
        scores=scores, means=means, comparisons=comparison_frame(unpaired, paired), rects=rects,
    )


def comparison_frame(*results: Comparison) -> pd.DataFrame:
    """One row per comparison: ``method`` ("unpaired" / "paired"), ``label`` (method and verdict),
    ``estimate, se, ci_low, ci_high, p_value, significant, verdict``."""
    rows = []
    for c in results:
        significant = excludes_zero(c.ci_low, c.ci_high)
        method = "paired" if c.paired else "unpaired"
        verdict = "significant" if significant else "not significant"
        rows.append({"method": method, "label": f"{method}: {verdict}", "estimate": c.diff, "se": c.se,
                     "ci_low": c.ci_low, "ci_high": c.ci_high, "p_value": c.p_value,
                     "significant": significant, "verdict": verdict})
    return pd.DataFrame(rows)


def deviation_products(partner: str = "Breeze") -> pd.DataFrame:
    """Seed 004's table of deviation products: Atlas's deviation from its mean on each task times the
    partner's (Breeze, or Atlas itself), with the products' sum and that sum over ``n - 1`` appended.

    With Atlas against itself every product is a square and the last row is Atlas's variance; against
    Breeze they are rectangles' signed areas and the last row is the covariance.

    Returns ``task, atlas_dev, partner_dev, product`` (ten task rows, then "sum" and "÷ (n − 1)").
    """
    if partner not in ("Atlas", "Breeze"):
        raise EvalStatsError(f"partner ({partner!r}) must be 'Atlas' or 'Breeze'")
    a = np.array(ATLAS)
    b = a if partner == "Atlas" else np.array(BREEZE)
    r = covariance_rectangles(a, b, [f"Q{i + 1}" for i in range(a.size)])
    table = pd.DataFrame({"task": r["task"], "atlas_dev": r["dev_a"], "partner_dev": r["dev_b"],
                          "product": r["product"]})
    total = float(r["product"].sum())
    return pd.concat([table, pd.DataFrame({
        "task": ["sum", "÷ (n − 1)"], "atlas_dev": [np.nan, np.nan], "partner_dev": [np.nan, np.nan],
        "product": [total, total / (a.size - 1)]})], ignore_index=True)


def leaderboard_example(rho: float = 0.5, *, confidence: float = 0.95) -> dict:
    """Seed 000's paired MATH example: Galleon 65.5% vs Dreadnought 63.0% on 5,000 questions.

    Returns ``se_g, se_d, unpaired, paired, diff, ci_low, ci_high, unpaired_low, unpaired_high, narrower``
    (paired SE at correlation ``rho``; ``narrower`` is ``1 - paired / unpaired``, Miller 2024, Sec. 4.2). At rho = 0.5: unpaired 0.96%, paired 0.68%, interval
    (+1.2, +3.8) points; the seed rounds both SEs to 0.67% and prints 0.95% and 0.67%.
    """
    z = z_for(check_confidence(confidence))
    rep = REPORTED[0]
    se_g, se_d = se_bernoulli(rep.galleon, rep.n), se_bernoulli(rep.dreadnought, rep.n)
    unpaired = math.hypot(se_g, se_d)
    paired = float(paired_se_formula(se_g, se_d, rho))
    diff = rep.galleon - rep.dreadnought
    return {"eval": rep.eval, "n": rep.n, "se_g": se_g, "se_d": se_d, "unpaired": unpaired, "paired": paired,
            "diff": diff, "ci_low": diff - z * paired, "ci_high": diff + z * paired,
            "unpaired_low": diff - z * unpaired, "unpaired_high": diff + z * unpaired, "rho": float(rho),
            "narrower": 1.0 - paired / unpaired}


def products_sentences(ab: AtlasBreeze, partner: str, products: pd.DataFrame) -> tuple[str, str]:
    """``(caption, after)`` for the scatter against ``partner`` ("Atlas": squares, "Breeze": rectangles) and
    its table of deviation products (``products`` from :func:`deviation_products`, whose last row is the sum
    over ``n - 1``): what the chart shows and what the products add up to, from their numbers."""
    n, last = ab.paired.n, float(products["product"].iloc[-1])
    if partner == "Atlas":
        return (f"Atlas against itself: every point sits on the diagonal and every rectangle is a square of "
                f"positive area; their sum over n − 1 is Atlas's variance, {last:.4f}.",
                f"Every product is a square, so none is negative: the sum over $n - 1$ is Atlas's **variance**, "
                f"{last:.4f} (its SD, {ab.sd_a:.3f}, squared). Now plot Atlas against Breeze.")
    negative = int((products["product"].iloc[:-2] < 0).sum())
    return (f"Breeze against Atlas task by task: {ab.b_wins} of {n} points lie above the diagonal and "
            f"follow it closely (correlation {ab.paired.correlation:.2f}); {ab.positive_rectangles} of "
            f"the {n} covariance rectangles have a positive area.",
            f"The squares become rectangles, and {negative} of the {n} products "
            f"{'is' if negative == 1 else 'are'} negative (a task where the agents sat on opposite sides "
            f"of their means): the sum over $n - 1$ is the **covariance**, {last:.4f}.")


def tasks_for_t_power(delta: float, sd: float, *, power: float = 0.8, alpha: float = 0.05) -> int:
    """The fewest tasks at which the two-sided paired t-test on ``n - 1`` df has ``power`` when the true
    mean difference is ``delta`` and the differences' SD is ``sd``.

    Notes
    -----
    Power is ``P(|T| > t_{1-alpha/2, n-1})`` with ``T`` noncentral t on ``n - 1`` df and noncentrality
    ``delta sqrt(n) / sd`` (Cohen 1988, ch. 2); searched upwards from the z answer (Eq. 9), which it
    never undercuts. Checked against statsmodels' ``TTestPower`` in the tests.

    Examples
    --------
    >>> tasks_for_t_power(0.05, 0.0733)
    19
    """

    if not (delta > 0 and sd > 0):
        raise EvalStatsError(f"delta ({delta!r}) and sd ({sd!r}) must be positive")
    n = max(2, math.ceil(sample_size(delta, omega2=sd**2, power=power, alpha=alpha)))
    while n < 10_000_000:
        crit = stats.t.ppf(1 - alpha / 2, n - 1)
        nc = delta * math.sqrt(n) / sd  # noncentrality of the paired t statistic
        if stats.nct.sf(crit, n - 1, nc) + stats.nct.cdf(-crit, n - 1, nc) >= power:
            return n
        n += 1
    raise EvalStatsError(f"delta ({delta!r}) is too small against sd ({sd!r}) for any practical number of tasks")


def covariance_formulas(ab: AtlasBreeze, partner: str) -> list[str]:
    """The LaTeX beside the scatter, for the partner it shows: against Breeze the covariance, the
    correlation and the paired SE (Sec. 4.2); against Atlas itself the same three lines become the
    variance ``Cov(a, a) = Var(a)``, ``rho = 1`` and a paired SE of 0 (a model minus itself)."""
    se_a, se_b, r = ab.summary_a.se, ab.summary_b.se, ab.paired.correlation
    if partner == "Atlas":
        var = ab.sd_a**2
        return [rf"\mathrm{{Cov}}(a, a) = \frac{{\sum_i (a_i-\overline{{a}})^2}}{{n-1}} = \mathrm{{Var}}(a) = {var:.4f}",
                rf"\rho = \frac{{\mathrm{{Var}}(a)}}{{\mathrm{{SD}}_a\,\mathrm{{SD}}_a}} = "
                rf"\frac{{{var:.4f}}}{{{ab.sd_a:.3f}\times{ab.sd_a:.3f}}} = 1",
                rf"\begin{{aligned}}\mathrm{{SE}}_{{\text{{paired}}}}^2 &= {se_a:.4f}^2 + {se_a:.4f}^2 \\ "
                rf"&\quad - 2\,(1)({se_a:.4f})({se_a:.4f}) \\ &= 0\end{{aligned}}"]
    return [rf"\mathrm{{Cov}}(a, b) = \frac{{\sum_i (a_i-\overline{{a}})(b_i-\overline{{b}})}}{{n-1}} = {ab.covariance:.4f}",
            rf"\rho = \frac{{\mathrm{{Cov}}(a, b)}}{{\mathrm{{SD}}_a\,\mathrm{{SD}}_b}} = "
            rf"\frac{{{ab.covariance:.4f}}}{{{ab.sd_a:.3f}\times{ab.sd_b:.3f}}} = {r:.3f}",
            rf"\begin{{aligned}}\mathrm{{SE}}_{{\text{{paired}}}}^2 &= {se_a:.4f}^2 + {se_b:.4f}^2 \\ "
            rf"&\quad - 2\,({r:.3f})({se_a:.4f})({se_b:.4f}) \\ &= {ab.se_paired_formula:.4f}^2\end{{aligned}}"]


def leaderboard_sentence(ex: dict) -> str:
    """What pairing does to seed 000's MATH interval (``ex`` from :func:`leaderboard_example`)."""
    pts = {key: signed_points(ex[key])  # a true minus sign, as every page prints
           for key in ("unpaired_low", "unpaired_high", "ci_low", "ci_high")}
    return (f"The {ex['diff'] * 100:.1f}-point gap's interval goes from ({pts['unpaired_low']}, "
            f"{pts['unpaired_high']}) to ({pts['ci_low']}, {pts['ci_high']}) points: "
            f"{ex['narrower']:.0%} narrower, from the same answers. (The paper rounds both SEs "
            "to 0.67% and prints 0.95% and 0.67%.) Chapter 8 does the same for all three benchmarks.")


@dataclass(frozen=True, slots=True)
class CorrelationSweep:
    """Paired vs unpaired SE across correlations: the closed form and simulated evals.

    Attributes
    ----------
    n : int
        Questions per simulated eval.
    correlation : float
        The chosen correlation.
    accuracies : (float, float)
        The two models' true accuracies in the simulation.
    se_a, se_b : float
        Each model's theoretical SE, ``sqrt(p (1 - p) / n)``.
    curve : DataFrame
        ``correlation, se, method`` for "paired (formula)" and "unpaired (formula)" on a fine grid.
    simulated : DataFrame
        ``correlation, se, method`` for "paired (simulated)" and "unpaired (simulated)": one
        simulated eval per correlation in :data:`SWEEP_GRID`.
    current : Comparison
        The paired comparison of one simulated eval at the chosen correlation.
    formula_paired, formula_unpaired : float
        The closed-form SEs at the chosen correlation.
    """

    n: int
    correlation: float
    accuracies: tuple[float, float]
    se_a: float
    se_b: float
    curve: pd.DataFrame
    simulated: pd.DataFrame
    current: Comparison
    formula_paired: float
    formula_unpaired: float


#: Correlations of the simulated dots: -0.5 .. 0.8 in steps of 0.1.
SWEEP_GRID: tuple[float, ...] = tuple(round(-0.5 + 0.1 * i, 1) for i in range(14))
#: The sweep's accuracies; 0/1 scores with these can correlate between -0.60 and 0.89 (Frechet bounds).
SWEEP_ACCURACIES: tuple[float, float] = (0.65, 0.60)
SWEEP_RANGE: tuple[float, float] = (-0.5, 0.85)


def correlation_sweep(correlation: float, n: int, *, seed: int = 0) -> CorrelationSweep:
    """Two models' right/wrong answers on the same ``n`` questions, at correlations -0.5 .. 0.8.

    Parameters
    ----------
    correlation : float in [-0.5, 0.85]
        The correlation picked on the page (phi correlation of the two models' 0/1 scores).
    n : int
        Questions per simulated eval (>= 2).
    seed : int
        Seed: the grid's evals draw from ``default_rng([seed, 0])`` and the chosen correlation's eval
        from ``default_rng([seed, 1])``, so moving the correlation does not redraw the dots.

    Notes
    -----
    Scores come from :func:`evalstats_core.simulate.paired_scores` (``kind="binary"``, accuracies
    65% and 60%), each eval is analyzed with :func:`~evalstats_core.comparison.compare`, and the
    curve is :func:`paired_se_formula` with ``SE = sqrt(p (1 - p) / n)``.
    """
    size = check_positive_int(n, "n", minimum=2)
    lo, hi = SWEEP_RANGE
    if not lo <= correlation <= hi:
        raise EvalStatsError(f"correlation ({correlation!r}) must be between {lo} and {hi} for this simulation")
    pa, pb = SWEEP_ACCURACIES
    se_a, se_b = se_bernoulli(pa, size), se_bernoulli(pb, size)  # Miller 2024, Eq. 2
    grid = np.round(np.arange(round(lo * 100), round(hi * 100) + 1) / 100, 2)  # every 0.01: a chart drags along it
    unpaired = math.hypot(se_a, se_b)  # Miller 2024, Eq. 5
    curve = pd.concat([
        pd.DataFrame({"correlation": grid, "se": paired_se_formula(se_a, se_b, grid),
                      "method": "paired (formula)"}),
        pd.DataFrame({"correlation": [lo, hi], "se": [unpaired, unpaired], "method": "unpaired (formula)"}),
    ], ignore_index=True)
    gen = np.random.default_rng([seed, 0])
    rows = []
    for r in SWEEP_GRID:  # 14 small evals: a loop over scenarios, not over questions
        s = paired_scores(size, r, means=SWEEP_ACCURACIES, kind="binary", rng=gen)
        c = compare(s.a, s.b, method="cr1")
        rows += [{"correlation": r, "se": c.se_paired, "method": "paired (simulated)"},
                 {"correlation": r, "se": c.se_unpaired, "method": "unpaired (simulated)"}]
    s = paired_scores(size, correlation, means=SWEEP_ACCURACIES, kind="binary", rng=np.random.default_rng([seed, 1]))
    return CorrelationSweep(
        n=size, correlation=float(correlation), accuracies=SWEEP_ACCURACIES, se_a=se_a, se_b=se_b,
        curve=curve, simulated=pd.DataFrame(rows), current=compare(s.a, s.b, method="cr1"),
        formula_paired=paired_se_formula(se_a, se_b, correlation), formula_unpaired=unpaired,
    )


@dataclass(frozen=True, slots=True)
class McNemarLesson:
    """McNemar's test on a 2x2 agreement table, with the paired z-test on the same answers beside it.

    Attributes
    ----------
    both_right, only_a, only_b, both_wrong : int
        The cells a, b, c, d.
    n, discordant : int
        All questions, and ``b + c``.
    numerator : int
        ``(b - c)^2``, the statistic's numerator.
    share_discordant : float
        ``(b + c) / n``: the share of questions that carry the evidence (``nan`` when ``n`` is 0).
    result : object
        :func:`evalstats_core.comparison.mcnemar_from_counts` of the table.
    paired : Comparison or None
        :func:`~evalstats_core.comparison.compare` of the two 0/1 score vectors the table describes
        (None with fewer than 2 questions).
    paired_z_squared : float
        ``paired.z ** 2``, next to McNemar's chi-square; ``nan`` when undefined.
    table : DataFrame
        Four rows for :func:`evalstats_core.charts.paired.mcnemar_table_chart`.
    """

    both_right: int
    only_a: int
    only_b: int
    both_wrong: int
    n: int
    discordant: int
    numerator: int
    share_discordant: float
    result: Any
    paired: Comparison | None
    paired_z_squared: float
    table: pd.DataFrame


def mcnemar_lesson(both_right: int, only_a: int, only_b: int, both_wrong: int) -> McNemarLesson:
    """McNemar's test for the table ``[[both_right, only_a], [only_b, both_wrong]]``.

    Notes
    -----
    ``chi^2 = (b - c)^2 / (b + c)`` (McNemar 1947, Psychometrika 12(2), 153-157): 3000/275/150/1575 gives
    ``125^2 / 425 = 36.76``. The paired z-test on the 0/1 vectors the table describes (Miller 2024,
    Eq. 7) squares to nearly the same number, because both read only the discordant questions.
    """
    result = mcnemar_from_counts(both_right, only_a, only_b, both_wrong)
    cells = (both_right, only_a, only_b, both_wrong)
    a_scores = np.repeat([1.0, 1.0, 0.0, 0.0], cells)  # question order: cell by cell
    b_scores = np.repeat([1.0, 0.0, 1.0, 0.0], cells)
    n = int(sum(cells))
    paired = compare(a_scores, b_scores, method="cr1") if n >= 2 else None
    kinds = ("agree: no information", "only A right", "only B right", "agree: no information")
    table = pd.DataFrame({
        "a_outcome": ["A right", "A right", "A wrong", "A wrong"],
        "b_outcome": ["B right", "B wrong", "B right", "B wrong"],
        "cell": ["a (both right)", "b (only A right)", "c (only B right)", "d (both wrong)"],
        "count": list(cells), "kind": list(kinds),
        "label": [f"{name} = {count:,}" for name, count in zip("abcd", cells, strict=True)],
    })
    return McNemarLesson(
        both_right=int(both_right), only_a=int(only_a), only_b=int(only_b), both_wrong=int(both_wrong),
        n=n, discordant=int(only_a + only_b), numerator=int((only_a - only_b) ** 2),  # McNemar's (b - c)^2
        share_discordant=(only_a + only_b) / n if n else math.nan, result=result, paired=paired,
        paired_z_squared=float(paired.z**2) if paired is not None else math.nan, table=table,
    )



def mcnemar_sentences(mc: McNemarLesson) -> list[str]:
    """What the McNemar table shows at its counts: the discordant share ("a small share" only under 20%)
    and how close the paired z² is to McNemar's chi-square (within 5%: "next to"), from the numbers."""
    out = []
    if mc.n == 0:
        return ["The table is empty: enter some counts."]
    share = mc.share_discordant
    size = "a small share" if share < 0.2 else "a large share" if share > 0.5 else "part"
    out.append(f"Only the {mc.discordant:,} discordant questions carry the evidence: {share:.1%} of the "
               f"{mc.n:,}, {size} of the eval. Changing $a$ or $d$ leaves the statistic untouched.")
    chi2, z2 = mc.result.statistic, mc.paired_z_squared
    if chi2 == chi2 and z2 == z2 and chi2 > 0:
        gap = abs(z2 - chi2) / chi2
        how = "lands next to" if gap < 0.05 else "differs from"
        out.append(f"The paired z-test on the same answers, squared ({z2:.2f}), {how} McNemar's $\\chi^2$ "
                   f"({chi2:.2f})" + (": they are the same idea." if gap < 0.05 else
                                      f" by {gap:.0%}: with so few questions the two approximations part; "
                                      "trust the exact binomial p."))
    return out


#: The preference section's design (the one ``tests/test_pairwise.py`` measures coverage on): three models of true
#: Elo rating 1050, 1000 and 950, 60 prompts of 8 battles each, and a judge that repeats its verdict on a pair within a
#: prompt with probability 0.7 (its taste for that prompt); every battle's win chance is still the Bradley-Terry one.
BATTLE_DESIGN = {"ratings": (1050.0, 1000.0, 950.0), "names": ("Breeze", "Atlas", "Comet"), "n_prompts": 60,
                 "per_prompt": 8, "copy": 0.7}
#: Coverage of the 95% rating intervals on 2,000 seeded evals of :data:`BATTLE_DESIGN` (``tests/test_pairwise.py``
#: holds the clustered one at 93% or more and the other at 88% or less on 400): clustered by prompt, and as if the
#: battles were independent.
BATTLE_COVERAGE = (0.95, 0.82)


def prompt_battles(seed: int = 4) -> tuple[pd.DataFrame, str]:
    """Chapter 4's preference section: one seeded eval of :data:`BATTLE_DESIGN`, each model's true rating, its fitted
    Bradley-Terry rating and the two standard errors (clustered by prompt; as if every battle were independent), as
    display strings, and the sentence that reads them.

    >>> frame, sentence = prompt_battles()
    >>> list(frame.columns)
    ['model', 'true rating', 'fitted rating', 'SE, battles clustered by prompt', 'SE if battles were independent']
    """
    d = BATTLE_DESIGN
    battles = simulate_battles(d["ratings"], n_prompts=d["n_prompts"], per_prompt=d["per_prompt"], copy=d["copy"],
                               rng=seed, names=d["names"])
    fit = bradley_terry(battles)
    true = np.asarray(d["ratings"])
    centred = dict(zip(d["names"], true - true.mean() + 1000.0, strict=True))
    se = np.sqrt(np.diag(fit.covariance))
    plain = np.sqrt(np.diag(fit.plain_covariance))
    order = np.argsort(-fit.ratings)
    frame = pd.DataFrame({
        "model": [fit.models[k] for k in order],
        "true rating": [f"{centred[fit.models[k]]:.0f}" for k in order],
        "fitted rating": [f"{fit.ratings[k]:.1f}" for k in order],
        "SE, battles clustered by prompt": [f"{se[k]:.1f}" for k in order],
        "SE if battles were independent": [f"{plain[k]:.1f}" for k in order],
    })
    ratio = float(np.mean(se / plain))
    sentence = (f"On {len(battles):,} battles over {fit.n_prompts} prompts, the standard error that treats every "
                f"battle as independent is {1 / ratio:.0%} of the one clustered by prompt. Over 2,000 such evals the "
                f"clustered 95% interval covered the true rating {BATTLE_COVERAGE[0]:.0%} of the time; the "
                f"independent one {BATTLE_COVERAGE[1]:.0%}.")
    return frame, sentence
