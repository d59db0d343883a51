"""How far down a skewed pair's lower end may reach where Hall's correction is capped (issue 20, skew11).

=================================  ===================================================================
:func:`hall_rate`                  how fast Hall's lower end moves with the skewness (SE per unit)
:func:`pair_reach`                 a pair's :class:`Reach`, or None where the cap does not bind downward
:func:`reach_of`                   the same from a file's sums or question table (two models)
:func:`reach_sentence`             the sentence the analysis and the gate print
:func:`reach_notes`                the analysis' sentences, one per pair whose lower end is capped
:func:`sample_skewness`            the skewness of a pair's mean difference from its third moment, for Hall's
                                   correction where the counts alone ask for none
:func:`sampled_interval`           the t interval widened by that correction (skew11b)
:func:`skew_corrected_t`           Hall's (1992) skewness-corrected t interval and its p at 0
``Reach``                          the numbers behind it
=================================  ===================================================================

Why. For a pair of [0, 1] scores that are not all 0/1, unclustered, near a bound, the interval of
:func:`~evalstats_core.bounded_unclustered.bounded_pair_interval` takes Hall's skewness-corrected t with at most
:func:`~evalstats_core.bounded_unclustered.hall_cap` of skewness. Where the data ask for more (the skewness asked
for beyond the cap, on the lower end's side: the first model behind, near the ceiling), the lower end is known to be
too high: continuous scores at 97% with latent correlation 0.95 and 10 questions made the gate pass falsely in 4.2%
of files (the studentized difference's 97.5% point is 5.66 there, t's 2.26). The reach continues Hall's lower end
past the cap on its tangent: ``low - rate (|asked| - cap) se``, ``rate`` Hall's own rate at the cap
(:func:`hall_rate`, no new constant). The gate (:func:`~evalstats_core.gating.gate`) does not pass where the reach
is at or below ``-margin`` (inconclusive, exit 3) and the analysis says where a pair's lower end is capped.

Chosen by simulation (``bench/bench_skewed_pairs.py``, its ``tan`` candidate, against inconclusive whenever the cap
binds, a fixed slack of 1-3 SE and linear rates of 1.5-12 SE per unit of skewness; ``bench/results/
skew11_issue20_2026-11-27.txt``): on the 56 held-out designs (8,000 files, seed 1128) the gate's false pass at the
margin is above 2.5% by more than 2 SE in 6 (rule 12, inconclusive-whenever-capped 5), worst 3.99% (7.51%, 3.74%);
the power at a true difference of 0 falls by 2.3 points on average (whenever-capped 3.5), by more than 5 points in
8 of 56 designs (13), at most 18.5 (24.5), and at a clear improvement by at most 1.8 points. The design above
(n = 10): 4.23% -> 0.52% (20,000 files), its power at 0 42.6% -> 32.8%. With the sample-skewness step
(:func:`sampled_interval`, skew11b) the held-out designs above 2.5% by more than 2 SE are 2 of 56 (worst 3.67%) and
0 of the 24 continuous ones (worst 2.72%); the power at 0 falls by 3.2 and 3.4 points on average.

References
----------
Hall 1992, "On the removal of skewness by transformation", J. Royal Statistical Society B 54(1), 221-228.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ._clusters import clt_se
from .bounded_unclustered import (
    SAMPLE_FACTOR,
    SAMPLE_START,
    hall_request,
    sample_skewness,
    sampled_interval,
    skew_corrected_t,
)
from .errors import SKEWED_LOWER_END, Note
from .sums import FileSums, two_model_sums
from .vocabulary import INTERVAL_LABELS, signed_zero_free

__all__ = ["Reach", "hall_rate", "pair_reach", "reach_of", "reach_sentence", "reach_notes", "SAMPLE_START",
           "SAMPLE_FACTOR", "sample_skewness", "sampled_interval", "skew_corrected_t"]


@dataclass(frozen=True, slots=True)
class Reach:
    """Where a pair's lower end is capped: ``n`` shared questions, the skewness of the mean difference ``asked``
    for (negative: a long lower tail), the ``cap`` Hall's correction took, the interval's lower end ``low`` and the
    ``reach``: that end continued on Hall's tangent to the skewness asked for (score units)."""

    n: int
    asked: float
    cap: float
    low: float
    reach: float


def hall_rate(skewness: float, crit: float) -> float:
    """``d T / d s`` of Hall's lower end ``mean - T se`` at the skewness ``-s`` of the mean (``s > 0``), in SE per
    unit of skewness.

    With ``lam = -s / 3`` and ``x = 1 + 3 lam (crit - lam / 2)``, ``T = (x^(1/3) - 1) / lam``
    (:func:`~evalstats_core.bounded_unclustered.skew_corrected_t`) and
    ``dT/dlam = ((crit - lam) lam x^(-2/3) - x^(1/3) + 1) / lam^2``; ``dT/ds = -dT/dlam / 3``. Defined while
    ``x > 0``, which :func:`~evalstats_core.bounded_unclustered.hall_cap` keeps at the cap.

    >>> round(hall_rate(0.3979, 2.262), 2), round(hall_rate(0.3354, 1.972), 2)  # n = 10 and 200 at their caps
    (23.27, 4.85)
    """
    lam = -skewness / 3.0
    x = 1.0 + 3.0 * lam * (crit - lam / 2.0)
    if not (x > 0.0 and lam < 0.0):
        return math.inf if lam < 0.0 else crit * crit / 3.0  # past the root; at 0 the first-order rate
    root = x ** (1.0 / 3.0)
    return -((crit - lam) * lam / (root * root) - root + 1.0) / (lam * lam) / 3.0


def pair_reach(ma: float, mb: float, squares: tuple[float, float, float, float], n: int, low: float,
               confidence: float = 0.95) -> Reach | None:
    """The :class:`Reach` of ``a - b`` (means ``ma``, ``mb``; ``squares = (ssa, ssb, ssd, cov)``; ``n`` shared
    questions; ``low`` the interval's lower end), or None where the pair rule keeps t or its cap does not bind on
    the lower end's side. Only for scores in [0, 1], unclustered (the caller's check)."""

    if n < 3 or not math.isfinite(low) or not squares[2] > 0.0:
        return None
    request = hall_request(ma, mb, squares, n, confidence)
    if request is None:
        return None
    asked, cap, crit = request[3:]
    if not asked < -cap:
        return None
    reach = low - hall_rate(cap, crit) * (-asked - cap) * clt_se(squares[2], n)
    return Reach(n=n, asked=asked, cap=cap, low=low, reach=reach)


def reach_of(data: Any, model: str, baseline: str, low: float, confidence: float = 0.95) -> Reach | None:
    """:func:`pair_reach` of ``model - baseline`` from a :class:`~evalstats_core.sums.FileSums` or a question table
    (through the sums of those two models alone, unclustered), or None (scores rescaled, i.e. not in [0, 1])."""

    if not isinstance(data, FileSums):
        data = two_model_sums(data, model, baseline)
    if data.exponent:
        return None
    p = data.merged().pair(list(data.models).index(model), list(data.models).index(baseline))
    squares = (float(p.m2_model[0]), float(p.m2_baseline[0]), float(p.m2_diff[0]), float(p.comoment[0]))
    return pair_reach(float(p.mean_model[0]), float(p.mean_baseline[0]), squares, int(p.count[0]), low, confidence)


#: How :func:`reach_sentence` begins (the workbench finds the analysis' warnings of this kind by it).
REACH_START = "the scores are too skewed for "


def reach_sentence(r: Reach, model: str, baseline: str, margin: float | None = None) -> str:
    """Why the lower end of ``model - baseline`` is unreliable, with the numbers, and the fix; with ``margin`` (the
    gate's, score units) why the gate cannot pass."""

    def points(x: float) -> str:
        return signed_zero_free(100.0 * x, 1, signed=True) + " points"

    head = (f"{REACH_START}{r.n:,} shared questions to bound {model} - {baseline} from below: the "
            f"skewness of its mean they imply, {r.asked:.2f}, is beyond the {-r.cap:.2f} Hall's correction takes with "
            f"{r.n:,} questions, so the interval's lower end, {points(r.low)}, is unreliable (continued at the "
            f"correction's rate it reaches {points(r.reach)}")
    if margin is None:
        return Note(head + "; a gate passes only with a margin beyond that); add questions", SKEWED_LOWER_END)
    return Note(head + f", at or below {points(-margin)}, minus the margin); add questions", SKEWED_LOWER_END)


def comparison_reach(data: Any, c: Any, confidence: float, *, upper: bool = False) -> Reach | None:
    """The :class:`Reach` of a comparison ``c`` (``Comparison`` or an analysis' pair) that is unclustered and whose
    interval is the bounded pair rule's, from ``data`` (sums or a question table): of its lower end, or with
    ``upper`` of its upper end read as the lower end of ``baseline - model``; None otherwise."""

    if c.n_clusters is not None or c.interval != INTERVAL_LABELS["t-tango"]:
        return None
    if upper:
        return reach_of(data, c.baseline, c.model, -c.ci_high, confidence)
    return reach_of(data, c.model, c.baseline, c.ci_low, confidence)


def reach_notes(sums: Any, pairs: Any, confidence: float) -> list[str]:
    """:func:`reach_sentence` for each pair of ``pairs`` (an analysis' comparisons) whose :func:`comparison_reach`
    exists on either side, from the file's ``sums`` (a file analyzed without a baseline lists the pair in the order
    its means give, whichever way its skewness points)."""
    notes = []
    for p in pairs:
        for upper in (False, True):
            r = comparison_reach(sums, p, confidence, upper=upper)
            if r is not None:
                names = (p.baseline, p.model) if upper else (p.model, p.baseline)
                notes.append(reach_sentence(r, *names))
    return notes


