"""Chapter 4's optional part: the correlation sweep and McNemar's test.

=============================  ===================================================================
``correlation_sweep(...)``     simulated evals across correlations beside the closed form
``mcnemar_lesson(a, b, c, d)`` McNemar's test on a 2x2 table, with the paired z-test beside it
``mcnemar_sentences(...)``     what the table shows at its counts, computed from them
=============================  ===================================================================

Both sit under "Optional" on the page; :mod:`evalstats_core.lessons.paired` re-exports them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validate import check_positive_int
from ..comparison import Comparison, compare, mcnemar_from_counts
from ..errors import EvalStatsError
from ..intervals import se_bernoulli
from ..simulate import paired_scores

__all__ = ["SWEEP_ACCURACIES", "SWEEP_GRID", "SWEEP_RANGE", "CorrelationSweep", "McNemarLesson",
           "correlation_sweep", "mcnemar_lesson", "mcnemar_sentences"]


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
    65% and 60%), each eval is analysed with :func:`~evalstats_core.comparison.compare`, and the
    curve is :func:`paired_se_formula` with ``SE = sqrt(p (1 - p) / n)``.
    """
    from .paired import paired_se_formula  # paired re-exports this module: import at call time

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
