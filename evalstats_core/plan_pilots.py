"""Do plans from a noisy pilot deliver their power? Pilots drawn from a design, planned, then simulated.

=============================  ========================================================================
:func:`pilot_file`             one simulated pilot as CSV bytes (question, cluster, A, B)
:func:`planned_sizes`          the cluster sizes of the planned eval: more clusters of the pilot's mix
:func:`realised_power`         share of simulated planned evals whose paired CR2 t-test rejects
:func:`plan_from_pilots`       draw pilots, plan each with :func:`~evalstats_core.planning.plan_pair`
                               (what the CLI and the workbench run) and simulate each plan's power
:func:`binary_scores`          two models' 0/1 answers in clusters (a latent probit model)
:func:`plan_binary_pilots`     the same for 0/1 pilots, each plan's power that of the default
                               :func:`~evalstats_core.comparison.compare` (Tango / MOVER with clusters)
=============================  ========================================================================

The model: question-level differences ``d = delta + u_g + e``, ``u_g ~ N(0, sd_cluster^2)`` shared by
the questions of cluster ``g``, ``e ~ N(0, sd_question^2)``. The true omega2 of a design is
``sd_question^2 + sd_cluster^2 sum n_g^2 / n``; the plan asks for ``n_needed`` questions, in clusters of
the pilot's sizes (:func:`planned_sizes`), and its realised power is that of the paired CR2 t-test
(Bell-McCaffrey df, as :func:`~evalstats_core.comparison.compare`) at ``alpha``, simulated from
cluster totals. ``bench/bench_plan_pilots.py`` prints the table; ``tests/test_plan_pilots.py`` runs it
small.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy.special import ndtri, stdtrit

from ._clusters import cr2_weights
from .analysis import analyze
from .comparison import compare
from .data import load, question_scores
from .errors import EvalStatsWarning
from .plan_spread import planned_sizes
from .planning import _test_df, plan_pair
from .power import sample_size_t

__all__ = ["binary_scores", "pilot_file", "plan_binary_pilots", "plan_from_pilots", "planned_sizes", "realised_power"]


def pilot_file(sizes: Any, delta: float, sd_cluster: float, sd_question: float, gen: np.random.Generator) -> bytes:
    """A pilot of two models on ``sum(sizes)`` questions in clusters of ``sizes`` (singletons: no cluster column)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    labels = np.repeat(np.arange(sizes.size), sizes)
    d = delta + gen.normal(0.0, sd_cluster, sizes.size)[labels] + gen.normal(0.0, sd_question, labels.size)
    base = 5.0 + gen.normal(0.0, 1.0, labels.size)  # both models on one scale (0 to 10) even in a tiny pilot
    clustered = bool((sizes > 1).any())
    head = "question,cluster,A,B" if clustered else "question,A,B"
    rows = [head] + [(f"q{i},c{g},{b + x:.9g},{b:.9g}" if clustered else f"q{i},{b + x:.9g},{b:.9g}")
                     for i, (g, x, b) in enumerate(zip(labels, d, base, strict=True))]
    return ("\n".join(rows) + "\n").encode()


def realised_power(sizes: Any, delta: float, sd_cluster: float, sd_question: float, *, reps: int,
                   gen: np.random.Generator, alpha: float = 0.05) -> float:
    """Power of the paired CR2 t-test on an eval with clusters of ``sizes``, by simulation of cluster totals."""


    sizes = np.asarray(sizes, dtype=np.float64)
    n = float(sizes.sum())
    a, df = cr2_weights(sizes, n)
    shape = (reps, sizes.size)
    totals = sizes * (delta + gen.normal(0.0, sd_cluster, shape)) + np.sqrt(sizes) * gen.normal(0.0, sd_question, shape)
    mean = totals.sum(1) / n
    resid = totals - sizes * mean[:, None]
    se = np.sqrt((resid * resid) @ a) / n
    return float(np.mean(np.abs(mean) / se > stdtrit(df, 1.0 - alpha / 2.0)))


def plan_from_pilots(sizes: Any, delta: float, sd_cluster: float, sd_question: float, *, pilots: int, reps: int,
                     seed: int = 0, alpha: float = 0.05, power: float = 0.8, cr2_too: bool = False,
                     median_too: bool = False) -> dict[str, Any]:
    """Plan from ``pilots`` simulated pilots with :func:`~evalstats_core.planning.plan_pair` and simulate each plan.

    Returns ``{"power": (pilots,) realised powers, "n_needed": (pilots,), "omega2": (pilots,) median
    omega2 (``omega2_ahead``), "omega2_true": float, "n_true": float (the plan from the true omega2),
    "power_true": float}``; with ``cr2_too`` ``"power_cr2"``: the realised power of the plans made from the
    file's own CR2 omega2; with ``median_too`` ``"power_median"`` and ``"n_median"``: those of the plans made
    from the median omega2 alone (the planner before the average over its confidence distribution).
    """
    gen = np.random.default_rng(seed)
    sizes = np.asarray(sizes, dtype=np.int64)
    n = int(sizes.sum())
    omega_true = sd_question**2 + sd_cluster**2 * float(sizes @ sizes) / n
    out: dict[str, Any] = {"power": [], "n_needed": [], "omega2": [], "power_cr2": [], "power_median": [],
                           "n_median": [], "omega2_true": omega_true}

    def simulate(n_planned: float) -> float:
        return realised_power(planned_sizes(sizes, n_planned), delta, sd_cluster, sd_question, reps=reps, gen=gen,
                              alpha=alpha)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for i in range(pilots):
            table = question_scores(load(pilot_file(sizes, delta, sd_cluster, sd_question, gen), name=f"pilot{i}.csv"))
            plan = plan_pair(None, table, analyze(table), "A", "B", delta=delta, alpha=alpha, power=power)
            out["n_needed"].append(plan.n_needed)
            out["omega2"].append(plan.omega2_ahead)
            out["power"].append(simulate(plan.n_needed))
            if cr2_too:  # the plan from the file's own CR2 omega2 (before issue 20's second pass)
                out["power_cr2"].append(simulate(sample_size_t(delta, omega2=plan.omega2, df_per_question=plan.df_per_question,
                                                               alpha=alpha, power=power)))
            if median_too:  # the plan from the median omega2 alone (issue 20's second pass)
                out["n_median"].append(sample_size_t(delta, omega2=plan.omega2_ahead, df_per_question=plan.df_per_question,
                                                     alpha=alpha, power=power))
                out["power_median"].append(simulate(out["n_median"][-1]))
    labels = np.repeat(np.arange(sizes.size), sizes) if (sizes > 1).any() else None
    _, rate = _test_df(labels, n)
    out["n_true"] = sample_size_t(delta, omega2=omega_true, alpha=alpha, power=power, df_per_question=rate)
    out["power_true"] = realised_power(planned_sizes(sizes, out["n_true"]), delta, sd_cluster, sd_question,
                                       reps=20 * reps, gen=gen, alpha=alpha)
    for key in ("power", "n_needed", "omega2", "power_cr2", "power_median", "n_median"):
        out[key] = np.asarray(out[key])
    return out


def binary_scores(sizes: Any, p_a: float, p_b: float, var_cluster: float, var_question: float, corr: float,
                  gen: np.random.Generator, reps: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Two models' 0/1 answers, each ``(reps, n)``, in clusters of ``sizes``: latent probit abilities.

    Model ``m`` gets question ``i`` of cluster ``g`` right when ``mu_m + u_gm + e_im + N(0, 1) > 0``, with
    ``u_gm`` normal of variance ``var_cluster`` and ``e_im`` of variance ``var_question``, each the share ``corr``
    of a part common to the two models (correlation ``corr^2``: they find the same clusters and questions hard); ``mu_m`` makes ``p_m`` the
    expected accuracy (a normal mixture of probits is a probit), so the true difference is ``p_a - p_b``.
    """

    labels = np.repeat(np.arange(len(sizes)), np.asarray(sizes))
    scale = math.sqrt(1.0 + var_cluster + var_question)
    out = []
    shared = [gen.standard_normal((reps, len(sizes))), gen.standard_normal((reps, labels.size))]
    for p in (p_a, p_b):
        u, e = (corr * x + math.sqrt(1.0 - corr * corr) * gen.standard_normal(x.shape) for x in shared)
        eta = ndtri(p) * scale + math.sqrt(var_cluster) * u[:, labels] + math.sqrt(var_question) * e
        out.append((eta + gen.standard_normal(eta.shape) > 0.0).astype(np.float64))
    return out[0], out[1]


def plan_binary_pilots(sizes: Any, p_a: float, p_b: float, var_cluster: float, var_question: float, corr: float, *,
                       pilots: int, reps: int, seed: int = 0, power: float = 0.8, t_too: bool = False) -> dict[str, Any]:
    """0/1 pilots from :func:`binary_scores` planned with :func:`~evalstats_core.planning.plan_pair` for
    ``p_a - p_b``; each plan simulated ``reps`` times at its size (clusters of the pilot's mix,
    :func:`planned_sizes`) and tested with the default :func:`~evalstats_core.comparison.compare` (p < 0.05 in
    the right direction). Returns ``{"power", "n_needed"}`` (one per pilot), with ``t_too`` also
    ``"power_t"``: the same evals tested with ``interval="normal"`` (CR2 t on the design's df).
    """
    import pandas as pd  # heavy: only when a frame is asked for

    gen = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(sizes)), np.asarray(sizes))
    out: dict[str, Any] = {"power": [], "n_needed": [], "power_t": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for _ in range(pilots):
            a, b = binary_scores(sizes, p_a, p_b, var_cluster, var_question, corr, gen)
            frame = pd.DataFrame({"question": np.arange(labels.size).astype(str), "cluster": labels, "A": a[0],
                                  "B": b[0]})
            data = load(frame)
            table = question_scores(data)
            plan = plan_pair(data, table, analyze(table), "A", "B", delta=p_a - p_b, power=power)
            new = planned_sizes(sizes, min(plan.n_needed, 50_000.0)).astype(np.int64)
            new_labels = np.repeat(np.arange(new.size), new)
            a2, b2 = binary_scores(new, p_a, p_b, var_cluster, var_question, corr, gen, reps)
            out["n_needed"].append(plan.n_needed)
            for key, kind in (("power", "auto"), ("power_t", "normal"))[:2 if t_too else 1]:
                tests = [compare(a2[r], b2[r], new_labels, interval=kind) for r in range(reps)]
                out[key].append(np.mean([t.p_value < 0.05 and t.diff > 0 for t in tests]))
    return {k: np.asarray(v) for k, v in out.items()}
