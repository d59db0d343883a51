"""Chapter 6, "The temperature trap": what lowering T does to the histogram of x, its mean and Var(x).

==============================  ====================================================================
``DISTRIBUTIONS``               the difficulty choices (the paper's two uniform examples, any
                                uniform, any Beta) and their labels
``make_difficulty(...)``        the chosen distribution as a core difficulty object
``temperature_view(...)``       everything the page shows for one distribution and one T: the curves
                                over T, the histogram at T and at T = 1, the numbers at T, and the
                                variance per question at K = 1, 10 and infinity
``worked_examples()``           the paper's two examples (U[0, 1] and U[1/3, 1]) at T = 1 and T -> 0
==============================  ====================================================================

Built on :mod:`evalstats_core.temperature` (Miller 2024, arXiv:2411.00640, Sec. 3.3; the logit
scaling of Hinton et al. 2015 in between) and :mod:`evalstats_core.variance` (Sec. 3.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import temperature as core
from ..errors import EvalStatsError
from ..variance import estimator_variance
from .resampling import fraction_label

__all__ = [
    "DISTRIBUTIONS", "TemperatureView", "WorkedExample", "describe", "limits_sentence", "make_difficulty",
           "temperature_view", "worked_examples"]

#: Difficulty choices: key -> label. The first two are Miller (2024), Sec. 3.3, exactly.
DISTRIBUTIONS: dict[str, str] = {
    "paper1": "Uniform on [0, 1] (the paper's first example)",
    "paper2": "Uniform on [1/3, 1] (the paper's second example)",
    "uniform": "Uniform on [a, b] (choose a and b)",
    "beta": "Beta(α, β) (choose the shape)",
}
T_GRID = np.round(np.linspace(0.0, 1.0, 101), 10)  # T = 0, 0.01, ..., 1 for the curves
BINS = 20
K_SHOWN = (1.0, 10.0, math.inf)  # answers per question in the "what resampling can do" table


def make_difficulty(kind: str, *, low: float = 0.0, high: float = 1.0, alpha: float = 1.0,
                    beta: float = 1.0) -> core.UniformDifficulty | core.BetaDifficulty:
    """The difficulty distribution for a page choice (``low``/``high`` used by "uniform", shapes by "beta")."""
    if kind == "paper1":
        return core.UniformDifficulty(0.0, 1.0)
    if kind == "paper2":
        return core.UniformDifficulty(1.0 / 3.0, 1.0)
    if kind == "uniform":
        return core.UniformDifficulty(low, high)
    if kind == "beta":
        return core.BetaDifficulty(alpha, beta)
    raise EvalStatsError(f"kind ({kind!r}) must be one of {sorted(DISTRIBUTIONS)}")


def describe(value: float, digits: int = 4) -> str:
    """``"1/12 = 0.0833"`` when the value is a simple fraction, else ``"0.0833"``."""
    frac = fraction_label(value)
    number = f"{value:.{digits}f}"
    return f"{frac} = {number}" if frac and "/" in frac else number


@dataclass(frozen=True, slots=True)
class TemperatureView:
    """One distribution at one temperature (see :func:`temperature_view`).

    Attributes
    ----------
    name : str
        The distribution in words ("U[0, 1]", "Beta(0.5, 0.5)").
    t : float
        The temperature shown.
    limits : core.TemperatureLimits
        Closed forms at T = 1 and T -> 0.
    mean, var_x, mean_sigma2 : float
        E[x_T], Var(x_T) and E[sigma_T^2] at ``t``.
    mean_t1, var_x_t1, mean_sigma2_t1 : float
        The same at T = 1.
    curve : DataFrame
        One row per T on 0, 0.01, ..., 1: ``temperature, mean, var_x, mean_sigma2, total_variance``.
    histogram : DataFrame
        ``temperature`` (``t`` and 1.0), ``bin_low, bin_high, share, density``; 20 bins on [0, 1].
    k_table : DataFrame
        Variance of one question's score with K answers averaged, ``Var(x_T) + E[sigma_T^2]/K``:
        columns ``temperature`` (1, then ``t`` unless it is 1), ``k`` ("1", "10", "∞"), ``variance``.
    end_share, end_share_t1 : float
        Share of questions in the two end bins (x_T below 5% or above 95%) at ``t`` and at T = 1.
    """

    name: str
    t: float
    limits: core.TemperatureLimits
    mean: float
    var_x: float
    mean_sigma2: float
    mean_t1: float
    var_x_t1: float
    mean_sigma2_t1: float
    curve: pd.DataFrame
    histogram: pd.DataFrame
    k_table: pd.DataFrame
    end_share: float
    end_share_t1: float

    @property
    def bias(self) -> float:
        """How far the temperature moved the eval score: ``E[x_T] - E[x_1]`` (0 below 1e-12: rounding)."""
        b = self.mean - self.mean_t1
        return 0.0 if abs(b) < 1e-12 else b

    @property
    def var_ratio(self) -> float:
        """How many times Var(x) grew from T = 1 to ``t``."""
        return self.var_x / self.var_x_t1 if self.var_x_t1 > 0 else math.nan


def _name(d: core.UniformDifficulty | core.BetaDifficulty) -> str:
    if isinstance(d, core.UniformDifficulty):
        lo, hi = (f"{v:g}" if round(v, 2) == v else fraction_label(v) or f"{v:.3g}" for v in (d.low, d.high))
        return f"U[{lo}, {hi}]"
    return f"Beta({d.alpha:g}, {d.beta:g})"


def temperature_view(kind: str, t: float, *, low: float = 0.0, high: float = 1.0, alpha: float = 1.0,
                     beta: float = 1.0) -> TemperatureView:
    """The temperature trap for one difficulty distribution and one temperature ``t`` in [0, 1].

    Notes
    -----
    Curves and values from :func:`evalstats_core.temperature.temperature_curve` (``x_T =
    sigmoid(logit(x)/T)``; T = 0 is the closed-form greedy limit ``1[x > 1/2]``), the histogram from
    :func:`~evalstats_core.temperature.temperature_histogram` (exact shares, no sampling). The table
    applies Miller (2024), Sec. 3.1: with K answers averaged a question's score has variance
    ``Var(x_T) + E[sigma_T^2]/K``; K = infinity (next-token probabilities) leaves ``Var(x_T)``, which
    is why the noise that low temperatures push into Var(x) cannot be resampled away.
    """
    d = make_difficulty(kind, low=low, high=high, alpha=alpha, beta=beta)
    tt = float(t)
    if not (math.isfinite(tt) and 0.0 <= tt <= 1.0):
        raise EvalStatsError(f"t ({t!r}) must be a temperature between 0 and 1")
    grid = np.union1d(T_GRID, [tt])
    curve = core.temperature_curve(d, grid).to_frame()
    here = curve.loc[curve["temperature"] == tt].iloc[0]
    one = curve.iloc[-1]
    hist = core.temperature_histogram(d, [tt, 1.0] if tt != 1.0 else [1.0], bins=BINS).to_frame()
    if tt == 1.0:
        hist = pd.concat([hist, hist], ignore_index=True)
    rows = []
    for temp, vx, s2 in ((1.0, one["var_x"], one["mean_sigma2"]), (tt, here["var_x"], here["mean_sigma2"]))[
            : 1 if tt == 1.0 else 2]:
        var = estimator_variance(np.array(K_SHOWN), var_x=float(vx), mean_sigma2=float(s2))  # Sec. 3.1
        rows.append(pd.DataFrame({"temperature": temp, "k": ["1", "10", "∞"], "variance": var}))
    return TemperatureView(
        name=_name(d), t=tt, limits=core.temperature_limits(d),
        mean=float(here["mean"]), var_x=float(here["var_x"]), mean_sigma2=float(here["mean_sigma2"]),
        mean_t1=float(one["mean"]), var_x_t1=float(one["var_x"]), mean_sigma2_t1=float(one["mean_sigma2"]),
        curve=curve, histogram=hist, k_table=pd.concat(rows, ignore_index=True),
        end_share=_ends(hist, tt), end_share_t1=_ends(hist, 1.0),
    )


def _ends(hist: pd.DataFrame, t: float) -> float:
    share = hist.loc[hist["temperature"] == t, "share"].to_numpy()[:BINS]
    return float(share[0] + share[-1])


@dataclass(frozen=True, slots=True)
class WorkedExample:
    """One of the paper's examples at T = 1 and T -> 0 (Miller 2024, Sec. 3.3).

    Attributes
    ----------
    name : str
        "U[0, 1]" or "U[1/3, 1]".
    limits : core.TemperatureLimits
        The closed forms.
    mean, var_x : str
        "T = 1 → T = 0" in fractions and decimals, e.g. "1/12 = 0.0833 → 1/4 = 0.2500".
    """

    name: str
    limits: core.TemperatureLimits
    mean: str
    var_x: str


def worked_examples() -> tuple[WorkedExample, ...]:
    """U[0, 1] (Var 1/12 -> 1/4, mean stays 1/2) and U[1/3, 1] (mean 2/3 -> 3/4, Var 1/27 -> 3/16)."""
    out = []
    for kind in ("paper1", "paper2"):
        d = make_difficulty(kind)
        lim = core.temperature_limits(d)
        out.append(WorkedExample(
            _name(d), lim,
            f"{describe(lim.mean_t1)} → {describe(lim.mean_t0)}",
            f"{describe(lim.var_x_t1)} → {describe(lim.var_x_t0)}",
        ))
    return tuple(out)


def limits_sentence(view: TemperatureView) -> str:
    """What greedy decoding does to this distribution, from its numbers: whether the mean stays (within
    0.05 points) or moves, and how many times Var(x) grows between T = 1 and T -> 0."""
    lim = view.limits
    moves = abs(lim.mean_t0 - view.mean_t1) >= 0.0005
    mean = (f"the eval score moves from {view.mean_t1:.1%} to {lim.mean_t0:.1%}: greedy decoding measures a "
            "different quantity" if moves else f"the eval score stays at {view.mean_t1:.1%}")
    grow = lim.var_x_t0 / view.var_x_t1 if view.var_x_t1 > 0 else float("inf")
    spread = (f"Var(x) grows {grow:.2f} times, from {view.var_x_t1:.4f} to {lim.var_x_t0:.4f}" if grow >= 1
              else f"Var(x) shrinks from {view.var_x_t1:.4f} to {lim.var_x_t0:.4f}")
    return f"For {view.name}, from T = 1 to T → 0 {mean}, and {spread}, while E[σ²] falls to 0."
