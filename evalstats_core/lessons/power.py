"""Chapter 7, "Power calculator": one scenario in, every number and frame the page shows out.

==============================  ==================================================================
``EVALS``                       common evals and their test-split sizes (the chart's landmarks)
``PRESETS``                     named variance scenarios for omega^2 (and the sigma^2 that goes with it)
``resolve_variances(...)``      omega^2, sigma^2_A, sigma^2_B from the page's omega mode
``plan(...)``                   questions needed, MDE and power at n, feasibility, plain sentences
``effect_frame(...)``           questions needed over a grid of effects (the n-vs-effect chart)
``power_frame(...)``            power over a log grid of n (the power curve)
``evals_frame(...)``            power and MDE of each common eval under the scenario
``worked_examples()``           the paper's three worked numbers, recomputed, with their settings
==============================  ==================================================================

Everything is built on :mod:`evalstats_core.power` (Miller 2024, arXiv:2411.00640, Eq. 9 and 10,
Appendix C); this module only composes those calls for the page and words the results. Effects are
proportions (``0.03`` is 3 percentage points); sizes are numbers of questions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

from .. import power as core
from .._validate import check_probability
from ..errors import EvalStatsError
from .clustering import PAPER_EVALS
from .verdict import PAPER_RHO, power_scenario, verdict_steps

__all__ = [
    "EVALS",
    "EVAL_SIZES_SOURCE",
    "OMEGA_MODES",
    "PRESETS",
    "Picture",
    "Plan",
    "Preset",
    "picture",
    "WorkedExample",
    "DRAG_EFFECTS",
    "effect_sentence",
    "effect_frame",
    "power_grid",
    "evals_frame",
    "fmt_n",
    "fmt_points",
    "plan",
    "power_frame",
    "resolve_variances",
    "worked_examples",
]

#: Questions in each eval's public test split (the numbers papers report on).
EVALS: tuple[tuple[str, int], ...] = (
    ("HumanEval", 164),
    ("GPQA Diamond", 198),
    ("GSM8K", 1319),
    ("MGSM", 2500),
    ("MATH", 5000),
    ("DROP", 9622),
    ("MMLU", 14042),
)
EVAL_SIZES_SOURCE = "Sizes: number of questions in each eval's public test split."
#: The clustered evals among :data:`EVALS` and their design effect, (clustered SE / naive SE)^2 from Miller
#: (2024, Table 4) as chapter 3 prints it: DROP 3.05^2 = 9.30 (passages), MGSM 1.88^2 = 3.53 (250 problems
#: in 10 languages). Each counts as its size divided by this (chapter 8 clusters MGSM the same way).
EVAL_DEFF: dict[str, float] = {e.eval: e.ratio**2 for e in PAPER_EVALS if e.eval in dict(EVALS)}


def effective_size(name: str, size: float) -> float:
    """An eval's size in independent questions: its questions over its design effect (:data:`EVAL_DEFF`)."""
    return float(size) / EVAL_DEFF.get(name, 1.0)

LARGEST_EVAL: tuple[str, int] = max(EVALS, key=lambda e: e[1])

#: How the page gets omega^2: typed in, from two variances and a correlation, or from a preset.
OMEGA_MODES: tuple[str, ...] = ("direct", "variances", "preset")


@dataclass(frozen=True, slots=True)
class Preset:
    """A named variance scenario: omega^2 and the conditional variances that go with it.

    Attributes
    ----------
    label : str
        What the scenario is, in words.
    omega2, sigma2_a, sigma2_b : float
        Variance of the question-level difference and each model's mean conditional variance.
    """

    label: str
    omega2: float
    sigma2_a: float
    sigma2_b: float


def _preset(label: str, base: Any, correlation: float | None = None) -> Preset:
    omega2 = base["omega2"] if correlation is None else core.omega2_from(1 / 12, 1 / 12, correlation)
    return Preset(label, float(omega2), float(base["sigma2_a"]), float(base["sigma2_b"]))


#: Uniform difficulty on [0, 1] for both models (Var(x) = 1/12 each, Miller 2024, Sec. 3.1 and 4.2);
#: the first two are the paper's worked scenarios (``power.PRESETS``), the others vary the correlation.
PRESETS: dict[str, Preset] = {
    "binary": _preset("Binary answers, uniform difficulty, correlation 1/3", core.PRESETS["binary"]),
    "continuous": _preset("Next-token probabilities, uniform difficulty, correlation 1/3",
                          core.PRESETS["continuous"]),
    "binary_unrelated": _preset("Binary answers, uniform difficulty, unrelated models (correlation 0)",
                                core.PRESETS["binary"], 0.0),
    "binary_close": _preset("Binary answers, uniform difficulty, similar models (correlation 0.8)",
                            core.PRESETS["binary"], 0.8),
}


def resolve_variances(mode: str, *, omega2: float, sigma2_a: float, sigma2_b: float, var_a: float = 1 / 12,
                      var_b: float = 1 / 12, rho: float = 1 / 3, preset: str = "binary") -> tuple[float, float, float]:
    """``(omega2, sigma2_a, sigma2_b)`` for the page's omega mode.

    ``"direct"`` uses ``omega2`` as given; ``"variances"`` computes it with
    :func:`evalstats_core.power.omega2_from` (``Var(x_A) + Var(x_B) - 2 rho sd_A sd_B``); both keep the
    given sigma^2. ``"preset"`` takes all three from :data:`PRESETS`.
    """
    if mode == "direct":
        return float(omega2), float(sigma2_a), float(sigma2_b)
    if mode == "variances":
        return core.omega2_from(var_a, var_b, rho), float(sigma2_a), float(sigma2_b)
    if mode == "preset":
        if preset not in PRESETS:
            raise EvalStatsError(f"preset ({preset!r}) must be one of {sorted(PRESETS)}")
        p = PRESETS[preset]
        return p.omega2, p.sigma2_a, p.sigma2_b
    raise EvalStatsError(f"mode ({mode!r}) must be one of {OMEGA_MODES}")


def fmt_points(effect: float) -> str:
    """0.1327 -> "13.3 points" (percentage points, one decimal)."""
    return f"{100 * effect:.1f} points"


def fmt_n(n: float) -> str:
    """Questions, rounded up and with thousands separators: 968.997 -> "969"."""
    return f"{math.ceil(n):,}" if math.isfinite(n) else "infinitely many"


@dataclass(frozen=True, slots=True)
class Plan:
    """The calculator's answer for one scenario (effects are proportions).

    Attributes
    ----------
    delta, alpha, power, omega2, sigma2_a, sigma2_b, k_a, k_b, deff : float
        The inputs (``deff`` 1 means independent questions).
    n : int
        The eval size whose MDE is asked for.
    variance : float
        ``deff * omega2 + sigma2_a/k_a + sigma2_b/k_b`` (Eq. 9's numerator with Appendix C's omega^2).
    n_required : float
        Questions needed to detect ``delta`` (unrounded; the page shows it rounded up).
    mde : float
        Minimum detectable effect of ``n`` questions.
    power_at_n : float
        Power of ``n`` questions to detect ``delta``.
    smallest_enough : str
        The smallest eval in :data:`EVALS` with at least ``n_required`` questions ("" if none).
    sentence_n, sentence_mde : str
        The two answers in plain words.
    """

    delta: float
    alpha: float
    power: float
    omega2: float
    sigma2_a: float
    sigma2_b: float
    k_a: float
    k_b: float
    deff: float
    n: int
    variance: float
    n_required: float
    mde: float
    power_at_n: float
    smallest_enough: str
    sentence_n: str
    sentence_mde: str

    @property
    def feasible(self) -> bool:
        """True when some eval in :data:`EVALS` is large enough."""
        return self.n_required <= LARGEST_EVAL[1]

    def kwargs(self) -> dict[str, float]:
        """Keyword arguments for :mod:`evalstats_core.power`, with the design effect folded into omega^2."""
        return {"omega2": self.deff * self.omega2, "sigma2_a": self.sigma2_a, "sigma2_b": self.sigma2_b,
                "k_a": self.k_a, "k_b": self.k_b, "alpha": self.alpha}  # Appendix C: omega2 -> deff * omega2


def plan(delta: float, *, omega2: float, sigma2_a: float = 0.0, sigma2_b: float = 0.0, k_a: float = 1,
         k_b: float = 1, alpha: float = 0.05, power: float = 0.8, deff: float = 1.0, n: int = 198) -> Plan:
    """Questions needed for ``delta``, and the MDE and power of ``n`` questions, with sentences.

    Notes
    -----
    ``n_required`` is :func:`evalstats_core.power.clustered_sample_size` (Eq. 9 with ``deff * omega2``,
    Appendix C), ``mde`` is :func:`~evalstats_core.power.clustered_mde` (Eq. 10) and ``power_at_n`` is
    :func:`~evalstats_core.power.power_at` with the same variance. With ``deff = 1`` these are the plain
    Eq. 9 and 10: ``plan(0.03, omega2=1/9).n_required`` is 968.997, i.e. 969 questions.
    """
    power = check_probability(power, "power")
    kw = dict(omega2=omega2, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b, alpha=alpha)
    need = float(core.clustered_sample_size(delta, **kw, deff=deff, power=power))
    detectable = float(core.clustered_mde(n, **kw, deff=deff, power=power))
    folded = dict(kw, omega2=float(deff) * float(omega2))  # Appendix C: cluster-adjusted omega2
    pw = float(core.power_at(n, delta, **folded))
    variance = folded["omega2"] + float(sigma2_a) / float(k_a) + float(sigma2_b) / float(k_b)
    enough = [name for name, size in sorted(EVALS, key=lambda e: effective_size(*e)) if effective_size(name, size) >= need]
    settings = f"{power:.0%} power, α = {alpha:g}"
    sentence_n = (f"To detect a true difference of {fmt_points(delta)} or more ({settings}), you need "
                  f"{fmt_n(need)} questions.")
    if enough:
        size = dict(EVALS)[enough[0]]
        worth = "" if enough[0] not in EVAL_DEFF else f" clustered questions, worth {effective_size(enough[0], size):,.0f}"
        sentence_n += f" The smallest common eval that large is {enough[0]} ({size:,}{worth})."
    else:
        sentence_n += (f" That is more than {LARGEST_EVAL[0]}'s {LARGEST_EVAL[1]:,}, the largest eval "
                       "listed: no common eval can detect this effect.")
    sentence_mde = (f"With {int(n):,} questions you can reliably detect differences of {fmt_points(detectable)} "
                    f"or more ({settings}); the power to detect {fmt_points(delta)} is {pw:.0%}.")
    return Plan(float(delta), float(alpha), power, float(omega2), float(sigma2_a), float(sigma2_b), float(k_a),
                float(k_b), float(deff), int(n), variance, need, detectable, pw, enough[0] if enough else "",
                sentence_n, sentence_mde)


def effect_frame(p: Plan, *, points: int = 120) -> pd.DataFrame:
    """Questions needed for each effect on a grid from 0.5 points to ``max(30, 1.25 delta)`` points.

    Returns
    -------
    pandas.DataFrame
        ``points`` rows: ``effect`` (proportion), ``n_required`` (unrounded questions).
    """
    top = max(0.30, 1.25 * p.delta)
    grid = np.linspace(0.005, top, points)  # shape (points,)
    kw = p.kwargs()
    need = core.sample_size(grid, **kw, power=p.power)  # Eq. 9, vectorised over delta
    return pd.DataFrame({"effect": grid, "n_required": np.asarray(need, dtype=np.float64)})


def power_frame(p: Plan, *, points: int = 150) -> pd.DataFrame:
    """Power to detect ``p.delta`` over a log grid of n from 10 to beyond the required n.

    Returns
    -------
    pandas.DataFrame
        ``points`` rows: ``n`` (questions), ``power``.
    """
    top = max(4.0 * p.n_required, 2.0 * LARGEST_EVAL[1], 10.0 * p.n, 1000.0)
    grid = np.geomspace(10.0, min(top, 1e8), points)  # shape (points,)
    return core.power_curve(p.delta, grid, **p.kwargs(), power=p.power).to_frame()


#: The effects (in percentage points) the power chart's own "Drag effect" input reaches: 0.5 to 30 by 0.5.
DRAG_EFFECTS: tuple[float, ...] = tuple(round(0.5 * i, 1) for i in range(1, 61))


def power_grid(p: Plan, curve: pd.DataFrame) -> pd.DataFrame:
    """Power against n for every effect in :data:`DRAG_EFFECTS`, on every 3rd n of ``curve`` (the chosen
    effect's :func:`power_frame`), so the chart can swap curves in the browser as the reader drags.

    Returns ``effect_pts, n, power, mid`` (``mid`` marks the row nearest 50% power, where the chart
    labels the curve; Miller 2024, Eq. 9 inverted, via :func:`evalstats_core.power.power_at`
    with the scenario's variances, K, design effect and alpha).
    """
    grid = np.asarray(curve["n"], dtype=np.float64)[::3]
    kw = p.kwargs()
    frames = []
    for e in DRAG_EFFECTS:
        pw = np.asarray(core.power_at(grid, e / 100.0, **kw), dtype=np.float64)
        mid = np.zeros(grid.size, dtype=bool)
        mid[int(np.argmin(np.abs(pw - 0.5)))] = True  # where the curve's label goes
        frames.append(pd.DataFrame({"effect_pts": e, "n": grid, "power": pw, "mid": mid}))
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True, slots=True)
class Picture:
    """Chapter 7's picture of the test: the null and the alternative distributions of the statistic
    ``difference / SE``, the two-sided rejection region (alpha) and the power, for the browser to redraw as
    the reader drags the effect, n and rho (:func:`evalstats_core.charts.power.null_alternative_chart`).

    With ``omega2(rho) = var_a + var_b - 2 rho sd_a sd_b`` and
    ``V(rho) = deff * omega2(rho) + sigma2_a / k_a + sigma2_b / k_b`` the statistic is N(0, 1) under the null and
    N(lam, 1) under the alternative, ``lam = delta * sqrt(n / V)``; power is
    ``Phi(lam - z) + Phi(-lam - z)`` with ``z = z_{alpha/2}`` (Miller 2024, Eq. 9 and 10;
    :func:`evalstats_core.power.power_at` with ``omega2 = deff * omega2(rho)``).

    Attributes
    ----------
    grid : DataFrame
        ``x`` (the statistic, -4 to 10 by 0.05), ``null`` (its standard normal density): the curve both
        distributions share, the alternative's drawn by shifting it by ``lam``.
    z_crit, var_a, var_b, deff, answer_term : float
        The critical value, the two models' Var(x), the design effect and ``sigma2_a/k_a + sigma2_b/k_b``.
    rho, effect_pts, log10_n : float
        Where the picture starts: the rho that gives the plan's omega^2 from ``var_a, var_b`` (clipped to
        [-0.5, 0.95]), the plan's effect in points and its log10 n.
    power : float
        The power at the start (the page prints it; the browser's must agree).
    """

    grid: pd.DataFrame
    z_crit: float
    var_a: float
    var_b: float
    deff: float
    answer_term: float
    rho: float
    effect_pts: float
    log10_n: float
    power: float


def picture(p: Plan, *, var_a: float = 1 / 12, var_b: float = 1 / 12) -> Picture:
    """The null/alternative picture for plan ``p``, its rho found from ``p.omega2`` and ``var_a, var_b``.

    >>> pic = picture(plan(0.03, omega2=1 / 9, n=198))
    >>> round(pic.rho, 3), round(pic.z_crit, 2), round(pic.power, 3) == round(plan(0.03, omega2=1 / 9, n=198).power_at_n, 3)
    (0.333, 1.96, True)
    """
    sd = math.sqrt(var_a * var_b)
    rho = min(0.95, max(-0.5, (var_a + var_b - p.omega2) / (2 * sd))) if sd > 0 else 0.0
    omega2 = var_a + var_b - 2 * rho * sd  # equals p.omega2 unless the clip moved rho
    answer = p.sigma2_a / p.k_a + p.sigma2_b / p.k_b
    z = float(ndtri(1 - p.alpha / 2))
    lam = p.delta * math.sqrt(p.n / (p.deff * omega2 + answer)) if p.deff * omega2 + answer > 0 else math.inf
    x = np.round(np.arange(-4.0, 10.0001, 0.05), 2)  # shape (281,)
    grid = pd.DataFrame({"x": x, "null": np.exp(-x**2 / 2) / math.sqrt(2 * math.pi)})
    return Picture(grid, z, float(var_a), float(var_b), float(p.deff), float(answer), float(rho),
                   round(100 * p.delta * 2) / 2, math.log10(p.n), float(ndtr(lam - z) + ndtr(-lam - z)))


def evals_frame(p: Plan) -> pd.DataFrame:
    """Each common eval under the scenario: its size, power to detect ``p.delta`` and its MDE.

    Returns
    -------
    pandas.DataFrame
        One row per eval in :data:`EVALS`, ordered by size: ``eval, questions, deff, n, power, mde, enough``.
        ``deff`` is the eval's own design effect (:data:`EVAL_DEFF`, 1 for independent questions) and ``n`` its
        size in independent questions, ``questions / deff``, at which its power and MDE are computed and its
        dot is drawn (so chapter 7's MGSM is chapter 8's, clustered); ``enough``: power at least the target.
    """
    names = [e[0] for e in EVALS]
    questions = np.array([e[1] for e in EVALS], dtype=np.int64)  # shape (7,)
    own = np.array([EVAL_DEFF.get(name, 1.0) for name in names])  # shape (7,)
    sizes = questions / own  # shape (7,): independent questions
    kw = p.kwargs()
    pw = np.asarray(core.power_at(sizes, p.delta, **kw), dtype=np.float64)
    detectable = np.asarray(core.mde(sizes, **kw, power=p.power), dtype=np.float64)
    return pd.DataFrame({"eval": names, "questions": questions, "deff": own, "n": sizes, "power": pw,
                         "mde": detectable, "enough": pw >= p.power})


@dataclass(frozen=True, slots=True)
class WorkedExample:
    """One of the paper's worked numbers, recomputed.

    Attributes
    ----------
    title : str
        What is asked.
    settings : dict
        The calculator's values that reproduce it, by :func:`plan`'s keywords (``delta``, ``omega2``, ``n`` ...;
        the page's widget keys are spelled on the app side: ``evalstats_app.page_keys.power_widgets``).
    value : float
        The recomputed answer (questions, or an MDE as a proportion).
    shown : str
        ``value`` formatted as the page shows it ("969 questions", "13.3 points").
    paper : str
        What Miller (2024, Sec. 5) prints.
    """

    title: str
    settings: dict
    value: float
    shown: str
    paper: str


def worked_examples() -> tuple[WorkedExample, ...]:
    """The three worked numbers of Miller (2024, Sec. 5): 969 questions, MDE 13.3% and 7.6%.

    Notes
    -----
    ``n = 2.80^2 (1/9) / 0.03^2 = 969`` (continuous scores, sigma^2 = 0); at ``n = 198`` with binary
    answers (sigma^2 = 1/6 each, omega^2 = 1/9) the MDE is 0.1327 at K = 1 and 0.0757 at K = 10. The
    paper prints 13.2% and 7.5% (truncated); exact quantiles round them to 13.3% and 7.6%.
    """
    base = {"omega_mode": "direct", "alpha": 0.05, "power": 0.8, "deff": 1.0, "omega2": 1 / 9, "k_a": 1, "k_b": 1}
    mgsm = dict(power_scenario("MGSM"), omega_mode="direct")
    steps = verdict_steps().set_index(["eval", "step"])
    ex1 = dict(base, delta=0.03, sigma2_a=0.0, sigma2_b=0.0, n=969)
    ex2 = dict(base, delta=0.03, sigma2_a=1 / 6, sigma2_b=1 / 6, n=198)
    ex3 = dict(ex2, k_a=10, k_b=10)
    out = []
    for title, s, paper in (
        ("Questions to detect 3 points (ω² = 1/9, σ² = 0)", ex1, "969"),
        ("MDE of 198 binary questions, K = 1 (ω² = 1/9, σ² = 1/6)", ex2, "13.2%"),
        ("MDE of 198 binary questions, K = 10", ex3, "7.5%"),
    ):
        p = plan(s["delta"], omega2=s["omega2"], sigma2_a=s["sigma2_a"], sigma2_b=s["sigma2_b"], k_a=s["k_a"],
                 k_b=s["k_b"], n=s["n"])
        if paper == "969":
            out.append(WorkedExample(title, s, p.n_required, f"{fmt_n(p.n_required)} questions", paper))
        else:
            out.append(WorkedExample(title, s, p.mde, f"{100 * p.mde:.1f}%", paper))
    p = plan(mgsm["delta"], omega2=mgsm["omega2"], deff=mgsm["deff"], n=mgsm["n"])
    out.append(WorkedExample(
        f"Chapter 8's MGSM: power for 3 points, paired at ρ = {PAPER_RHO['MGSM']:.2f} (ω² = {mgsm['omega2']:.3f}), "
        f"clustered (design effect 1.88² = {mgsm['deff']:.2f}), {mgsm['n']:,} questions",
        mgsm, p.power_at_n, f"{p.power_at_n:.0%} power",
        f"chapter 8: {steps.loc[('MGSM', 'clustered'), 'power']:.0%}"))
    return tuple(out)


def effect_sentence(p: Plan) -> str:
    """What the questions-needed chart shows under the scenario, in one sentence from its numbers: the
    questions 1, 2 and 10 points need, each set against the largest common eval."""
    kw = p.kwargs()
    largest_name, largest_n = LARGEST_EVAL
    parts = []
    for pts in (1, 2, 10):
        need = float(core.sample_size(pts / 100.0, **kw, power=p.power))
        side = "more than" if need > largest_n else "fewer than"
        parts.append(f"{pts} {'points need' if pts > 1 else 'point needs'} {fmt_n(need)} questions "
                     f"({side} {largest_name}'s {largest_n:,})")
    return f"Under your settings, at {p.power:.0%} power: " + "; ".join(parts) + "."
