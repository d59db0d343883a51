"""Chapter 8, "The verdict": Galleon vs Dreadnought again, with everything the chapters taught.

==============================  ==================================================================
``STEPS``                       the four analyses, in the order the chapters introduce them
``PAPER_RHO``, ``PAPER_SE``     Miller (2024, Table 5): each benchmark's correlation and paired SE
``verdict_steps(rho, ...)``     each benchmark's difference under each analysis: SE, interval, verdict,
                                power for a 3-point gap and the 80%-power detectable gap (chapter 7)
``rho_range(eval, rho)``        the correlations (0.01 grid) over which the last verdict stays the same
``conclusion(steps)``           the sentences the chapter ends on, built from the last step
``notices(steps)``              the "what to notice" sentences, built from the same frame
==============================  ==================================================================

Chapter 1 could only treat the two models as independent (the unpaired SE, Miller 2024, Eq. 5).
Here the same reported accuracies are re-analyzed as the paper does in Table 5:

1. **unpaired**: ``SE = sqrt(SE_G^2 + SE_D^2)``, a normal interval;
2. **paired**: both models answered the same questions, so ``SE = sqrt(SE_G^2 + SE_D^2 - 2 rho SE_G SE_D)``
   (Sec. 4.2) with each benchmark's per-question correlation ``rho`` (Table 5: 0.50, 0.64, 0.37);
3. **clustered**: MGSM's 2,500 questions are 250 problems in 10 languages; its SE is multiplied by the
   clustered-to-naive ratio the paper measured on MGSM (1.88, Table 4; chapter 3). MATH and HumanEval
   are sampled question by question: ratio 1;
4. **small sample**: the interval uses Student's t on the degrees of freedom the data has (questions
   minus one, or clusters minus one) instead of the normal 1.96 (chapter 2's and 3's corrections).

Applying one model's clustered/naive ratio to the difference is an assumption (the paired difference's
own ratio needs the per-question scores); the chapter says so where it uses it. A gap whose interval
holds 0 is **unresolved**, not "noise": chapter 7's power says how likely these questions were to
resolve a real gap of the size observed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._results import excludes_zero
from .._validate import check_confidence
from ..errors import EvalStatsError
from ..intervals import se_bernoulli
from ..power import mde, power_at
from ..vocabulary import signed_points
from .clustering import PAPER_EVALS
from .paired import paired_se_formula
from .problem import MODELS, REPORTED, UNRESOLVED

__all__ = ["CLUSTERS", "DETECT", "TABLE2_SE_HUMANEVAL", "power_scenario", "table5_note", "PAPER_RHO", "PAPER_SE", "STEPS", "UNRESOLVED", "Step", "conclusion",
           "notices", "rho_range", "verdict_steps", "verdict_text"]


@dataclass(frozen=True, slots=True)
class Step:
    """One analysis: its key, its short label and the chapter that taught it."""

    key: str
    label: str
    chapter: str


STEPS: tuple[Step, ...] = (
    Step("unpaired", "1 · Unpaired", "chapter 1"),
    Step("paired", "2 · Paired", "chapter 4"),
    Step("clustered", "3 · Paired + clustered", "chapter 3"),
    Step("small_sample", "4 · + small-sample t", "chapters 2 and 3"),
)

#: Miller (2024, Table 5): the correlation of the two models' per-question scores on each benchmark.
PAPER_RHO: Mapping[str, float] = {"MATH": 0.50, "HumanEval": 0.64, "MGSM": 0.37}
#: Miller (2024, Table 5): the paired SE of Galleon - Dreadnought it prints (clustered on MGSM).
PAPER_SE: Mapping[str, float] = {"MATH": 0.007, "HumanEval": 0.021, "MGSM": 0.017}
#: The real gap chapter 7's power is quoted for (3 points, about the size of the three observed gaps).
DETECT = 0.03

_MGSM = next(e for e in PAPER_EVALS if e.eval == "MGSM")
#: Benchmark -> (number of clusters, clustered/naive SE ratio). Unlisted benchmarks: independent questions.
CLUSTERS: dict[str, tuple[int, float]] = {"MGSM": (_MGSM.n_clusters, _MGSM.ratio)}


def verdict_text(diff: float, low: float, high: float) -> str:
    """"Galleon ahead" / "Dreadnought ahead" when the interval excludes 0, else "unresolved"."""
    if excludes_zero(low, high):
        return f"{MODELS[0] if diff > 0 else MODELS[1]} ahead"
    return UNRESOLVED


def _rhos(rho: float | Mapping[str, float] | None) -> dict[str, float]:
    """Each benchmark's correlation: Table 5's, one number for all, or a mapping over Table 5's."""
    if rho is None:
        chosen = dict(PAPER_RHO)
    elif isinstance(rho, Mapping):
        unknown = set(rho) - set(PAPER_RHO)
        if unknown:
            raise EvalStatsError(f"rho names unknown benchmarks {sorted(unknown)}; use {sorted(PAPER_RHO)}")
        chosen = {**PAPER_RHO, **rho}
    else:
        chosen = dict.fromkeys(PAPER_RHO, rho)
    for name, r in chosen.items():
        r = float(r)
        if not np.isfinite(r) or not 0.0 <= r < 1.0:
            raise EvalStatsError(f"rho ({chosen[name]!r}) for {name} must be at least 0 and below 1")
        chosen[name] = r
    return chosen


def _final_se(rep, rho: np.ndarray | float) -> np.ndarray:
    """The last step's SE of Galleon - Dreadnought at each ``rho`` (paired, times the cluster ratio)."""
    se_g, se_d = se_bernoulli(rep.galleon, rep.n), se_bernoulli(rep.dreadnought, rep.n)
    return np.asarray(paired_se_formula(se_g, se_d, rho)) * CLUSTERS.get(rep.eval, (rep.n, 1.0))[1]


def verdict_steps(rho: float | Mapping[str, float] | None = None, *, confidence: float = 0.95) -> pd.DataFrame:
    """Galleon minus Dreadnought on each benchmark under each of the four analyses.

    Parameters
    ----------
    rho : None, float in [0, 1) or mapping of benchmark to float
        Correlation of the two models' per-question scores. None: Table 5's (:data:`PAPER_RHO`); a float:
        the same for every benchmark; a mapping: those benchmarks changed, the others Table 5's.
    confidence : float
        Two-sided confidence level.

    Returns
    -------
    pandas.DataFrame
        One row per (benchmark, step), benchmarks in chapter 1's order, steps in :data:`STEPS` order:
        ``eval, n, rho, step, label, diff, se_g, se_d, se, paper_se, ratio, df, multiplier, ci_low, ci_high,
        survives, verdict, power, mde``. ``ratio`` is the clustered/naive SE ratio used (1 before step 3),
        ``df`` the degrees of freedom of the t quantile (inf for the normal), ``multiplier`` the quantile.
        ``power`` is the chance this analysis resolves a real gap of :data:`DETECT` (chapter 7's two-sided
        z-test at ``alpha = 1 - confidence`` with this row's SE), ``mde`` the gap it would resolve 80% of
        the time. ``paper_se`` is Table 5's printed SE (:data:`PAPER_SE`).

    Examples
    --------
    The paper's MATH example (Miller 2024, Sec. 4.2): the unpaired SE of the 2.5-point gap is 0.95%,
    the paired one at rho = 0.5 is 0.68% and the interval is (1.2%, 3.8%).

    >>> t = verdict_steps().set_index(["eval", "step"])
    >>> [round(100 * float(t.loc[("MATH", s), "se"]), 2) for s in ("unpaired", "paired")]
    [0.96, 0.68]
    >>> [round(100 * float(t.loc[("MATH", "paired"), c]), 1) for c in ("ci_low", "ci_high")]
    [1.2, 3.8]
    >>> t.loc[("HumanEval", "small_sample"), "verdict"], round(float(t.loc[("HumanEval", "small_sample"), "power"]), 2)
    ('unresolved', 0.25)
    """
    check_confidence(confidence)
    rhos = _rhos(rho)
    tail = (1.0 + confidence) / 2.0
    z = float(stats.norm.ppf(tail))
    rows = []
    for rep in REPORTED:
        r = rhos[rep.eval]
        se_g, se_d = se_bernoulli(rep.galleon, rep.n), se_bernoulli(rep.dreadnought, rep.n)
        diff = rep.galleon - rep.dreadnought
        unpaired = float(np.hypot(se_g, se_d))  # Eq. 5
        paired = float(paired_se_formula(se_g, se_d, r))  # Sec. 4.2
        n_clusters, ratio = CLUSTERS.get(rep.eval, (rep.n, 1.0))
        df = float(n_clusters - 1)
        for step, se, used_ratio, dof in (
            ("unpaired", unpaired, 1.0, np.inf),
            ("paired", paired, 1.0, np.inf),
            ("clustered", paired * ratio, ratio, np.inf),
            ("small_sample", paired * ratio, ratio, df),
        ):
            mult = z if np.isinf(dof) else float(stats.t.ppf(tail, dof))
            low, high = diff - mult * se, diff + mult * se
            per_question = se**2 * rep.n  # the variance per question this SE implies (chapter 7's omega^2)
            rows.append({"eval": rep.eval, "n": rep.n, "rho": r, "step": step,
                         "label": next(s.label for s in STEPS if s.key == step), "diff": diff,
                         "se_g": se_g, "se_d": se_d, "se": se, "paper_se": PAPER_SE[rep.eval],
                         "ratio": used_ratio, "df": dof, "multiplier": mult, "ci_low": low, "ci_high": high,
                         "survives": excludes_zero(low, high), "verdict": verdict_text(diff, low, high),
                         "power": float(power_at(rep.n, DETECT, omega2=per_question, alpha=1.0 - confidence)),
                         "mde": float(mde(rep.n, omega2=per_question, alpha=1.0 - confidence))})
    return pd.DataFrame(rows)


#: Miller (2024, Table 2): the two models' SEs the paper prints for HumanEval (Galleon, Dreadnought).
TABLE2_SE_HUMANEVAL: tuple[float, float] = (0.032, 0.030)


def table5_note(rhos: Mapping[str, float] | None = None) -> str:
    """Why this chapter's HumanEval SE is not Table 5's: the paper's own tables disagree, in numbers.

    The chapter's SE is Sec. 4.2's paired SE from the binomial SEs of 83.6% and 86.7% on 164 questions at
    Table 5's rho; Table 2 prints larger SEs for the same scores (3.2% and 3.0%), and neither pair gives
    Table 5's 2.1% at rho = 0.64 (the rho that would is printed too). MGSM's step-3 SE is the paired SE times
    the one-model ratio 1.88 (Table 4); Table 5's clustered 1.7% is the paired difference's own, not printed.

    >>> "2.36" in table5_note() and "2.64" in table5_note()
    True
    """
    rhos = _rhos(rhos)
    he = next(r for r in REPORTED if r.eval == "HumanEval")
    r = rhos["HumanEval"]
    se_g, se_d = se_bernoulli(he.galleon, he.n), se_bernoulli(he.dreadnought, he.n)
    ours = float(paired_se_formula(se_g, se_d, r))
    t2g, t2d = TABLE2_SE_HUMANEVAL
    theirs = float(paired_se_formula(t2g, t2d, r))
    target = PAPER_SE["HumanEval"]
    needed = (se_g**2 + se_d**2 - target**2) / (2 * se_g * se_d)  # Sec. 4.2 solved for rho
    mgsm = next(x for x in REPORTED if x.eval == "MGSM")
    ratio = CLUSTERS["MGSM"][1]
    mgsm_se = float(paired_se_formula(se_bernoulli(mgsm.galleon, mgsm.n), se_bernoulli(mgsm.dreadnought, mgsm.n),
                                      rhos["MGSM"])) * ratio
    return (f"**Why the SE column is not Table 5's.** The paper's own tables disagree. HumanEval: the SEs of "
            f"{he.galleon:.1%} and {he.dreadnought:.1%} on {he.n} questions are {100 * se_g:.2f}% and {100 * se_d:.2f}%, "
            f"and at ρ = {r:.2f} their paired SE is {100 * ours:.2f} points; Table 2 prints {100 * t2g:.1f}% and "
            f"{100 * t2d:.1f}% for the same scores, which give {100 * theirs:.2f}; neither gives Table 5's "
            f"{100 * target:.1f}, which needs ρ ≈ {needed:.2f}. MGSM: step 3 multiplies the paired SE by the "
            f"one-model ratio {ratio:.2f} of Table 4 ({100 * mgsm_se:.2f} points); Table 5's {100 * PAPER_SE['MGSM']:.1f} "
            "is the paired difference's own clustered SE, which needs the per-question scores the paper does not print.")


def power_scenario(name: str = "MGSM", *, rho: float | None = None) -> dict[str, float]:
    """Chapter 7's calculator settings that give this chapter's power for benchmark ``name``.

    Chapter 7's power is ``power_at(n, DETECT, omega2=deff * omega2)``: here ``omega2`` is the variance per
    question of the paired difference, ``n`` times the square of the paired SE (Sec. 4.2 at Table 5's ``rho``),
    and ``deff`` the square of the clustered/naive ratio (:data:`CLUSTERS`; MGSM 1.88^2 = 3.53, 1 for the
    others). With them chapter 7 prints the power :func:`verdict_steps` gives its step 3.

    >>> s = power_scenario("MGSM")
    >>> round(s["omega2"], 3), round(s["deff"], 2), s["n"]
    (0.225, 3.53, 2500)
    """
    rep = next((r for r in REPORTED if r.eval == name), None)
    if rep is None:
        raise EvalStatsError(f"name ({name!r}) must be one of {[r.eval for r in REPORTED]}")
    r = PAPER_RHO[name] if rho is None else float(rho)
    paired = float(paired_se_formula(se_bernoulli(rep.galleon, rep.n), se_bernoulli(rep.dreadnought, rep.n), r))
    ratio = CLUSTERS.get(name, (rep.n, 1.0))[1]
    return {"delta": DETECT, "omega2": paired**2 * rep.n, "sigma2_a": 0.0, "sigma2_b": 0.0, "k_a": 1, "k_b": 1,
            "alpha": 0.05, "power": 0.8, "deff": ratio**2, "n": rep.n}


def rho_range(name: str, rho: float, *, confidence: float = 0.95) -> tuple[float, float]:
    """The correlations (on a 0.01 grid from 0 to 0.99) around ``rho`` over which benchmark ``name``'s last
    verdict stays what it is at ``rho``: ``(lowest, highest)``. The paired SE falls as rho grows, so the
    verdict changes at most once along the grid and the range is one stretch.

    Examples
    --------
    >>> rho_range("MGSM", 0.37), rho_range("MATH", 0.5), rho_range("MGSM", 0.9)
    ((0.0, 0.62), (0.0, 0.99), (0.63, 0.99))
    """
    rep = next((r for r in REPORTED if r.eval == name), None)
    if rep is None:
        raise EvalStatsError(f"name ({name!r}) must be one of {[r.eval for r in REPORTED]}")
    r0 = _rhos({name: rho})[name]
    grid = np.round(np.arange(0, 100) / 100.0, 2)
    n_clusters = CLUSTERS.get(rep.eval, (rep.n, 1.0))[0]
    mult = float(stats.t.ppf((1.0 + confidence) / 2.0, n_clusters - 1))
    diff = rep.galleon - rep.dreadnought
    half = mult * _final_se(rep, np.append(grid, r0))
    low, high = diff - half, diff + half
    verdicts = np.where((low > 0) | (high < 0), np.sign(diff), 0.0)
    same = grid[verdicts[:-1] == verdicts[-1]]
    if same.size == 0:  # rho falls between two grid points on either side of the turn
        return (r0, r0)
    return (float(same.min()), float(same.max()))


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _power_clause(row) -> str:
    return (f"{int(row.n):,} questions have {row.power:.0%} power to resolve a real {100 * DETECT:g}-point gap "
            f"(chapter 7); only a gap of {100 * row.mde:.1f} points would be resolved 80% of the time")


def conclusion(steps: pd.DataFrame) -> list[str]:
    """One sentence per benchmark on how its verdict moved from chapter 1 to the last step, and a closing
    sentence that counts the resolved gaps; every word chosen from the numbers in ``steps``."""
    out = []
    last_key = STEPS[-1].key
    for name, rows in steps.groupby("eval", sort=False):
        first, last = rows.iloc[0], rows[rows["step"] == last_key].iloc[0]
        ci = f"({signed_points(last.ci_low)}, {signed_points(last.ci_high)}) points"
        if first.survives == last.survives and first.verdict == last.verdict:
            how = f"stays **{last.verdict}**"
        else:
            how = f"goes from *{first.verdict}* to **{last.verdict}**"
        width = (last.ci_high - last.ci_low) / (first.ci_high - first.ci_low)
        change = (f"its interval, {ci}, is {width:.0%} as wide as chapter 1's" if abs(width - 1) >= 0.005
                  else f"its interval, {ci}, is as wide as chapter 1's")
        extra = "" if last.survives else f"; {_power_clause(last)}"
        out.append(f"**{name}** ({int(first.n):,} questions, {signed_points(first['diff'])} points) {how}: {change}{extra}.")
    final = steps[steps["step"] == last_key]
    real = list(final.loc[final["survives"], "eval"])
    if not real:
        out.append("None of the three gaps is resolved at these correlations: each interval holds 0 and "
                   "gaps of a few points either way.")
    elif len(real) == len(final):
        out.append("All three gaps are resolved at these correlations.")
    else:
        open_ = [e for e in final["eval"] if e not in real]
        out.append(f"Only {_join(real)} {'is' if len(real) == 1 else 'are'} resolved; {_join(open_)} "
                   f"{'is' if len(open_) == 1 else 'are'} unresolved: "
                   f"{'its interval holds' if len(open_) == 1 else 'their intervals hold'} 0 and real gaps "
                   f"either way, and {'the eval is' if len(open_) == 1 else 'the evals are'} too small to tell them apart.")
    return out


def notices(steps: pd.DataFrame) -> list[str]:
    """The chapter's "what to notice" sentences, each built from ``steps`` (any correlations)."""
    by = steps.set_index(["eval", "step"])
    names = list(dict.fromkeys(steps["eval"]))
    widths = {e: (by.loc[(e, "paired"), "se"] / by.loc[(e, "unpaired"), "se"]) for e in names}
    narrowed = [f"{e} to {w:.0%} (ρ = {by.loc[(e, 'paired'), 'rho']:.2f})" for e, w in widths.items()]
    out = ["Pairing is free precision: the same data, and each interval shrinks to a share of chapter 1's "
           f"width set by its correlation: {_join(narrowed)}."]
    for e, (_, ratio) in CLUSTERS.items():
        before, after = by.loc[(e, "paired")], by.loc[(e, "clustered")]
        if before.verdict != after.verdict:
            what = f"turns {e} from *{before.verdict}* to *{after.verdict}*"
        else:
            what = f"leaves {e} *{after.verdict}*"
        out.append(f"Clustering goes the other way: it widens {e}'s interval {ratio:.2f}-fold and {what}; "
                   "ten translations of one problem are not ten independent tests.")
    grow = max(by.loc[(e, "small_sample"), "multiplier"] / by.loc[(e, "clustered"), "multiplier"] for e in names)
    ten = float(stats.t.ppf(0.975, 9) / stats.norm.ppf(0.975))
    out.append(f"The small-sample correction widens these intervals by at most {grow - 1:.1%} "
               f"({min(int(by.loc[(e, 'small_sample'), 'df']) + 1 for e in names):,} clusters or questions at "
               f"the fewest); with ten clusters it would widen them by {ten - 1:.0%} (chapter 3's few-cluster lab).")
    ranges = []
    for e in names:
        rho = float(by.loc[(e, "small_sample"), "rho"])
        lo, hi = rho_range(e, rho)
        ranges.append(f"{e} is *{by.loc[(e, 'small_sample'), 'verdict']}* for every ρ from {lo:.2f} to {hi:.2f}")
    out.append("How far each verdict hangs on ρ: " + "; ".join(ranges) + ". That is why the paper asks "
               "reports to print the correlation (Table 5 does).")
    return out
