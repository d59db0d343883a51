"""The plan in words: :func:`describe` (the sentences the workbench and the export show of a
:class:`~evalstats_core.planning.PairPlan`), also importable from :mod:`evalstats_core.planning`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .planning import PairPlan

__all__ = ["describe"]


def describe(plan: PairPlan, *, percent: bool = True) -> dict[str, Any]:
    """Plain-words sentences about a plan (for the page and the export)."""
    unit = (lambda x: f"{100 * x:.1f} points") if percent else (lambda x: f"{x:.3g}")
    q = math.ceil(plan.n_needed)
    out = {
        "mde": (f"With {plan.n:,} questions{' and K = ' + format(plan.k_model, 'g') if plan.resampled else ''}, "
                f"a paired comparison of {plan.model} and {plan.baseline} detects a true difference of "
                f"{unit(plan.mde)} with {plan.power:.0%} power at α = {plan.alpha:g} {_mde_test(plan)} if ω² is "
                "what this file estimates (Miller 2024, Eq. 10)"
                + (". The analysis tests these clustered 0/1 scores with Tango's score interval and the discordant "
                   "cells' MOVER instead, on fewer degrees of freedom (the clusters its variance rests on): the "
                   "questions needed below are planned for that test, and the difference it detects with this "
                   "file's questions is larger than this" if plan.test == "tango-mover" else "")
                + f". The observed difference is {unit(abs(plan.observed_diff))}."),
        "n": (f"To detect {unit(plan.delta)} you need about {q:,} questions like these"
              + (f" ({math.ceil(q / (plan.n / plan.n_clusters)):,} clusters of this size)" if plan.n_clusters else "")
              + f", {'more' if q > plan.n else 'fewer'} than the {plan.n:,} in this file (Eq. 9)."
              + f" That is {plan.power:.0%} power on average over files like this one: the plan allows for how "
                "uncertain ω² is from this file, " + _aim_words(plan) + ", and a given plan delivers more or less than that"
              + (" (with clusters much more or less: from 5 to 12 clusters about a third of such plans fall short)."
                 if plan.n_clusters else ".")),
    }
    if plan.resampled:
        out["k"] = (f"With the same {plan.n:,} questions, {unit(plan.delta)} needs K = {math.ceil(plan.k_needed)} "
                    "answers per question." if plan.k_needed is not None else
                    f"No number of answers per question reaches {unit(plan.delta)} with {plan.n:,} questions: "
                    "the question-level variance ω² alone is too large; add questions.")
    else:
        out["k"] = ("This file has one answer per question, so the answer noise σ² cannot be told apart from "
                    "question difficulty: the plan is for the same K. Answer each question twice or more to "
                    "see how much resampling would help.")
    return out


def _aim_words(plan: PairPlan) -> str:
    """Why the plan is as long as it is: longer than a plan for the estimate alone, or (clustered files whose
    cluster variance may be near 0) solved for a lower average power so that such plans deliver ``power``."""
    if plan.power_aimed < plan.power:  # nan (not set) compares False
        return (f"aiming at {plan.power_aimed:.0%} averaged over that uncertainty (its cluster variance may be near 0, "
                f"where aiming at the full {plan.power:.0%} over-delivers)")
    return "so it is longer than a plan for the estimate alone"


def _mde_test(plan: PairPlan) -> str:
    """The test the MDE of ``plan`` is for, in words: a t-test on ``plan.df`` degrees of freedom (Eq. 10)."""
    if plan.test == "paired t":
        return f"in a paired t-test on {plan.df:.0f} degrees of freedom"
    return f"in a CR2 t-test on the clusters' {plan.df:.1f} degrees of freedom (Satterthwaite)"
