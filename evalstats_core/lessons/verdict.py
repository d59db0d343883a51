"""Chapter 8, "The verdict": Galleon vs Dreadnought again, with everything the chapters taught.

==============================  ==================================================================
``STEPS``                       the four analyses, in the order the chapters introduce them
``verdict_steps(rho, ...)``     each benchmark's difference under each analysis: SE, interval, verdict
``conclusion(steps)``           the sentences the chapter ends on, built from the last step
==============================  ==================================================================

Chapter 1 could only treat the two models as independent (the unpaired SE, Miller 2024, Eq. 5).
Here the same reported accuracies are re-analysed as the paper does in its worked example:

1. **unpaired**: ``SE = sqrt(SE_G^2 + SE_D^2)``, a normal interval;
2. **paired**: both models answered the same questions, so ``SE = sqrt(SE_G^2 + SE_D^2 - 2 rho SE_G SE_D)``
   (Sec. 4.2) with the per-question correlation ``rho`` (0.5 in the paper's MATH example);
3. **clustered**: MGSM's 2,500 questions are 250 problems in 10 languages; its SE is multiplied by the
   clustered-to-naive ratio the paper measured on MGSM (1.88, Table 4; chapter 3). MATH and HumanEval
   are sampled question by question: ratio 1;
4. **small sample**: the interval uses Student's t on the degrees of freedom the data has (questions
   minus one, or clusters minus one) instead of the normal 1.96 (chapter 2's and 3's corrections).

Applying one model's clustered/naive ratio to the difference is an assumption (the paired difference's
own ratio needs the per-question scores); the chapter says so where it uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._validate import check_confidence
from ..errors import EvalStatsError
from ..intervals import se_bernoulli
from .clustering import PAPER_EVALS
from .paired import paired_se_formula
from .problem import MODELS, REPORTED

__all__ = ["STEPS", "CLUSTERS", "Step", "conclusion", "verdict_steps", "verdict_text"]


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

_MGSM = next(e for e in PAPER_EVALS if e.eval == "MGSM")
#: Benchmark -> (number of clusters, clustered/naive SE ratio). Unlisted benchmarks: independent questions.
CLUSTERS: dict[str, tuple[int, float]] = {"MGSM": (_MGSM.n_clusters, _MGSM.ratio)}


def verdict_text(diff: float, low: float, high: float) -> str:
    """"Galleon ahead" / "Dreadnought ahead" when the interval excludes 0, else "could be noise"."""
    if low > 0.0 or high < 0.0:
        return f"{MODELS[0] if diff > 0 else MODELS[1]} ahead"
    return "could be noise"


def verdict_steps(rho: float = 0.5, *, confidence: float = 0.95) -> pd.DataFrame:
    """Galleon minus Dreadnought on each benchmark under each of the four analyses.

    Parameters
    ----------
    rho : float in [0, 1)
        Correlation of the two models' per-question scores (the paper's example uses 0.5).
    confidence : float
        Two-sided confidence level.

    Returns
    -------
    pandas.DataFrame
        One row per (benchmark, step), benchmarks in chapter 1's order, steps in :data:`STEPS` order:
        ``eval, n, step, label, diff, se_g, se_d, se, ratio, df, multiplier, ci_low, ci_high, survives,
        verdict``. ``ratio`` is the clustered/naive SE ratio used (1 before step 3), ``df`` the degrees of
        freedom of the t quantile (inf for the normal), ``multiplier`` the quantile itself.

    Examples
    --------
    The paper's MATH example (Miller 2024, Sec. 4.2): the unpaired SE of the 2.5-point gap is 0.95%,
    the paired one at rho = 0.5 is 0.68% and the interval is (1.2%, 3.8%).

    >>> t = verdict_steps(0.5).set_index(["eval", "step"])
    >>> [round(100 * float(t.loc[("MATH", s), "se"]), 2) for s in ("unpaired", "paired")]
    [0.96, 0.68]
    >>> [round(100 * float(t.loc[("MATH", "paired"), c]), 1) for c in ("ci_low", "ci_high")]
    [1.2, 3.8]
    """
    check_confidence(confidence)
    r = float(rho)
    if not np.isfinite(r) or not 0.0 <= r < 1.0:
        raise EvalStatsError(f"rho ({rho!r}) must be at least 0 and below 1")
    tail = (1.0 + confidence) / 2.0
    z = float(stats.norm.ppf(tail))
    rows = []
    for rep in REPORTED:
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
            rows.append({"eval": rep.eval, "n": rep.n, "step": step,
                         "label": next(s.label for s in STEPS if s.key == step), "diff": diff,
                         "se_g": se_g, "se_d": se_d, "se": se, "ratio": used_ratio, "df": dof,
                         "multiplier": mult, "ci_low": low, "ci_high": high,
                         "survives": bool(low > 0.0 or high < 0.0), "verdict": verdict_text(diff, low, high)})
    return pd.DataFrame(rows)


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "−")


def conclusion(steps: pd.DataFrame) -> list[str]:
    """One sentence per benchmark on how its verdict moved from chapter 1 to the last step, and a closing
    sentence that counts the real differences; every word chosen from the numbers in ``steps``."""
    out = []
    last_key = STEPS[-1].key
    for name, rows in steps.groupby("eval", sort=False):
        first, last = rows.iloc[0], rows[rows["step"] == last_key].iloc[0]
        ci = f"({_pts(last.ci_low)}, {_pts(last.ci_high)}) points"
        if first.verdict == last.verdict:
            how = f"stays **{last.verdict}**"
        else:
            how = f"goes from *{first.verdict}* to **{last.verdict}**"
        width = (last.ci_high - last.ci_low) / (first.ci_high - first.ci_low)
        change = (f"its interval, {ci}, is {width:.0%} as wide as chapter 1's" if abs(width - 1) >= 0.005
                  else f"its interval, {ci}, is as wide as chapter 1's")
        out.append(f"**{name}** ({int(first.n):,} questions, {_pts(first['diff'])} points) {how}: {change}.")
    final = steps[steps["step"] == last_key]
    real = list(final.loc[final["survives"], "eval"])
    if not real:
        out.append("None of the three gaps is a real difference at this correlation.")
    elif len(real) == len(final):
        out.append("All three gaps are real differences at this correlation.")
    else:
        noise = [e for e in final["eval"] if e not in real]
        out.append(f"Only {' and '.join(real)} {'is a real difference' if len(real) == 1 else 'are real differences'}; "
                   f"{' and '.join(noise)} {'is' if len(noise) == 1 else 'are'} noise.")
    return out
