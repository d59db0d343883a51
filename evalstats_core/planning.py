"""Plan the next run from this file: the effect it can detect, and the questions (or answers) it would need.

=======================  ============================================================================
:func:`plan_pair`        pilot estimates for one pair of models, the MDE at this file's size, the
                         questions needed for a chosen effect, and the answers per question needed
``PairPlan``             the result, with ``k_frame()`` (MDE and questions needed at K = 1, 2, 4, ...)
:func:`answers_needed`   the K (answers per question) that reaches an effect at a fixed n, or None
:func:`pair_pilot`       ``plan_pair``'s part that reads the file (``PairPilot``), once per pair
:func:`plan_from_pilot`  ``plan_pair``'s part for an effect, size and power, from a ``PairPilot``
:func:`describe`         the plan in words: the sentences the workbench and the export show
=======================  ============================================================================

The inputs of Miller's sample-size formula (2024, arXiv:2411.00640, Eq. 9) come from the file itself
(Appendix C): ``omega2``, the variance of the question-level differences between the two models, and,
when questions were answered several times, each model's conditional variance ``sigma2`` (estimated
from the spread of answers to the same question) with its ``K``. With one answer per question the two
cannot be separated; the plan then holds for the same K as this file. With a cluster column the
estimates are the cluster-adjusted ones of Appendix C, so "questions" means questions in clusters
like these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from ._clusters import MIN_CLUSTERS, cluster_sizes, cr2_se_df
from ._validate import check_probability
from .analysis import Analysis
from .data import Dataset, QuestionTable
from .decomposition import _codes
from .errors import EvalStatsError
from .intervals import se_range
from .pair_proportions import continuity_correction, discordance_spread, paired_proportion_p, t_or_score_ends
from .pilot import pilot_estimates
from .plan_spread import (
    _anova_parts,
    answers_mean_power,
    binary_pair_df,
    calibrated_from,
    calibration_pilots,
    sample_size_mean_power,
)
from .power import mde_t

__all__ = ["PairPilot", "PairPlan", "pair_pilot", "plan_from_pilot", "plan_pair", "answers_needed", "K_GRID"]

#: Answers per question shown in the K table.
K_GRID: tuple[int, ...] = (1, 2, 4, 8, 16)


@dataclass(frozen=True, slots=True)
class PairPlan:
    """Planning numbers for comparing ``model`` with ``baseline`` in the next run.

    Attributes
    ----------
    model, baseline : str
        The pair (``model - baseline``).
    n : int
        Questions both answered in this file.
    n_clusters : int or None
        Clusters among them, when the analysis is clustered.
    k_model, k_baseline : float
        Answers per question in this file.
    omega2 : float
        Variance of the question-level differences, answer noise removed (Appendix C; the clustered CR2
        sum when clustered): the MDE uses it, so it matches the SE the analysis reports (its power holds if
        omega2 is as estimated). The questions (and answers) needed average the power over a confidence
        distribution of omega2 given this file (``omega2_nodes``, ``omega2_weights``;
        :mod:`evalstats_core.plan_spread`), so plans from files like this one deliver the target power *on
        average over such files* (the audit's pilot -> plan -> eval -> test rate), not in each one.
    sigma2_model, sigma2_baseline : float
        Mean conditional variances E[sigma^2]; 0 when the file has one answer per question (then
        ``resampled`` is False and the noise is inside ``omega2``).
    resampled : bool
        True when sigma2 was estimated from several answers per question.
    correlation : float
        Correlation of the two models' question scores.
    observed_diff : float
        ``mean(model) - mean(baseline)`` on the shared questions.
    delta, alpha, power : float
        The effect to detect, the test's size and the target power.
    mde : float
        Minimum detectable effect of an eval like this one (n questions, this K): Eq. 10 with t
        quantiles on the test's degrees of freedom ``df``.
    n_needed : float
        Questions needed to detect ``delta`` at this file's K, unrounded: the ``n`` whose power, averaged
        over ``omega2_nodes`` with ``omega2_weights``, is ``power``, each power Eq. 9's t approximation on
        the degrees of freedom the planned eval's test will have
        (:func:`~evalstats_core.plan_spread.sample_size_mean_power`; with one node,
        :func:`~evalstats_core.power.sample_size_t`). For clustered 0/1 scores under CR2 with any ``interval`` but
        ``"normal"`` the comparisons read the rule of :func:`~evalstats_core.pair_proportions.binary_pair_interval`
        (issue 45): CR2 t where t's skewness fits, else end by end, each end t's or at least the score rule's
        (Tango's score interval on effective counts with the MOVER union, on the df of the clusters the realised
        variance rests on). Whether the test rejects is decided by the end facing 0, and the plan asks that rule
        itself (:func:`~evalstats_core.pair_proportions.t_or_score_ends`, in the file expected at ``delta`` on the
        planned eval: ``se = sqrt(omega2 / n)`` at each node, the file's share of disagreements and their spread over
        the clusters) which end it will read: where t's, the power is t's on the design's df; where the score rule's,
        on draws of that rule's df (:func:`~evalstats_core.plan_spread.binary_pair_df`); the statistic's df is that
        function's in both, and ``df_per_question`` stays the design's. At a difference of 0 t's skewness error
        vanishes, so at the effects a plan is for the end facing 0 is usually t's and the plan is CR2 t's (before
        issue 45 item 5 the plan was the score rule's at every effect and asked for more questions than the rule
        needs). Checked by ``bench/bench_plan_rule.py`` (pilots planned, files of the planned size analysed with the
        default ``compare``; ``bench/results/plan_rule_issue45.txt``). Unclustered 0/1 scores under the same analysis
        are tested with Tango's score test and the continuity correction: the power is on that rule's own boundary
        (:func:`pair_rule_bound`), not t's (the paired t plan delivered 76.8% with it for 80%; this one 79.8%).
    k_needed : float or None
        Answers per question (both models) that detect ``delta`` with this file's n, with the same average
        power; None when more answers cannot get there (``omega2`` alone is too large) or the file has one
        answer per question.
    note : str or None
        Remarks from the estimation (clipping, sigma2 not identifiable).
    df, df_per_question : float
        Degrees of freedom of this file's paired test, and per question as the eval grows (1 without
        clusters; ``(df + 1) / n`` with clusters).
    omega2_ahead : float
        The median of that confidence distribution (with clusters median-unbiased,
        :attr:`~evalstats_core.pilot.PilotEstimates.omega2_plan`); plans from it alone fell short of the
        target on average (74-79% for 80% from 5-12 clusters: a short plan loses more than a long one gains).
    omega2_nodes, omega2_weights : tuple of float
        The confidence distribution of omega2 the questions needed average over (capped like ``omega2``).
    power_aimed : float
        The average power over that distribution the questions needed are solved for: ``power`` without
        clusters (the average over it is the average over pilots); with clusters the value whose plans deliver
        ``power`` on average over pilots like this one (:func:`~evalstats_core.plan_spread.calibrated_power`:
        below ``power`` when the cluster variance may be near 0, where the distribution is no pivot).
    test : str
        The test the questions needed are planned for: ``"paired t"`` (no clusters: t on ``n - 1`` df),
        ``"tango"`` (unclustered 0/1 scores under the default analysis: Tango's score test with the continuity
        correction, on its boundary :func:`pair_rule_bound`), ``"cr2 t"`` (clusters: t on the design's CR2
        Satterthwaite df) or ``"t-score"`` (clustered 0/1
        scores under CR2 and any ``interval`` but ``"normal"``: the end-by-end rule, planned on the end facing 0 it will
        read, t's on the design's df or the score rule's on draws of its df). The MDE is Eq. 10 on ``df`` in every case, a t-test's (:func:`describe` says so).
    """

    model: str
    baseline: str
    n: int
    n_clusters: int | None
    k_model: float
    k_baseline: float
    omega2: float
    sigma2_model: float
    sigma2_baseline: float
    resampled: bool
    correlation: float
    observed_diff: float
    delta: float
    alpha: float
    power: float
    mde: float
    n_needed: float
    k_needed: float | None
    note: str | None
    df: float = math.inf
    df_per_question: float = 1.0
    omega2_ahead: float = math.nan
    omega2_nodes: tuple[float, ...] = ()
    omega2_weights: tuple[float, ...] = ()
    test: str = "paired t"
    power_aimed: float = math.nan

    def _kw(self) -> dict[str, float]:
        return {"omega2": self.omega2, "sigma2_a": self.sigma2_model, "sigma2_b": self.sigma2_baseline}

    def _spread(self) -> tuple[np.ndarray, np.ndarray]:
        """The confidence distribution of omega2 the questions needed average over (one node if none)."""
        if self.omega2_nodes:
            return np.asarray(self.omega2_nodes), np.asarray(self.omega2_weights)
        return np.array([self.omega2 if math.isnan(self.omega2_ahead) else self.omega2_ahead]), np.ones(1)

    def k_frame(self, ks: tuple[int, ...] = K_GRID) -> pd.DataFrame:
        """MDE at this n and questions needed for ``delta``, for each K in ``ks`` (same K for both models).

        Only meaningful when ``resampled``; without resamples every row equals the K = 1 row.
        """

        kw = {**self._kw(), "alpha": self.alpha, "power": self.power}
        aim = self.power if math.isnan(self.power_aimed) else self.power_aimed
        nodes, weights = self._spread()
        noise = self.sigma2_model + self.sigma2_baseline
        return pd.DataFrame({  # a handful of K values: one scalar call each
            "k": [int(x) for x in ks],
            "mde": [float(mde_t(self.n, k_a=float(x), k_b=float(x), df=self.df, **kw)) for x in ks],
            "n_needed": [sample_size_mean_power(self.delta, nodes, weights, noise=noise / x, alpha=self.alpha,
                                                power=aim, df_per_question=self.df_per_question)
                         if self.resampled else self.n_needed for x in ks],  # one answer: every row is the plan
        })


def answers_needed(n: float, delta: float, *, omega2: float, sigma2_a: float, sigma2_b: float,
                   alpha: float = 0.05, power: float = 0.8, df: float | None = None) -> float | None:
    """Answers per question K (the same for both models) that detect ``delta`` with ``n`` questions.

    Parameters
    ----------
    df : float, optional
        Degrees of freedom of the test the eval will use: ``n - 1`` (the paired t-test) by default;
        pass the clustered test's (about ``G - 1``) with clusters. ``inf`` gives the normal quantiles
        of the paper's Eq. 9.

    Notes
    -----
    Eq. 9 of Miller (2024) with ``K_A = K_B = K`` solved for K, with t quantiles on ``df`` (``n`` is
    fixed, so the df does not move with K):
    ``K = (sigma2_a + sigma2_b) / (n delta^2 / (t_{alpha/2, df} + t_{beta, df})^2 - omega2)``. When the
    denominator is not positive, ``omega2`` alone needs more than ``n`` questions: no K is enough
    (returns None). With ``sigma2_a + sigma2_b = 0`` any K works once the denominator is positive: 1.
    With the true variances the plan delivers its power (``tests/test_edges.py``); with variances
    estimated from a small pilot it under-plans more often than it over-plans (the plan is a convex
    function of the estimated variance, whose distribution is right-skewed: the median estimate is
    below the truth), so read K as a lower bound when the pilot has few clusters. :func:`plan_pair`
    instead averages the power over the pilot's uncertainty about omega2
    (:func:`~evalstats_core.plan_spread.answers_mean_power`).

    Examples
    --------
    >>> round(answers_needed(198, 0.10, omega2=1/9, sigma2_a=1/6, sigma2_b=1/6, df=math.inf), 2)
    2.36
    >>> round(answers_needed(198, 0.10, omega2=1/9, sigma2_a=1/6, sigma2_b=1/6), 2)  # t on 197 df
    2.4
    """

    a = check_probability(alpha, "alpha")
    p = check_probability(power, "power")
    if not (delta > 0 and n > 0):
        raise EvalStatsError(f"delta ({delta!r}) and n ({n!r}) must be positive")
    dof = max(1.0, float(n) - 1.0) if df is None else float(df)
    if not dof > 0.0:
        raise EvalStatsError(f"df ({df!r}) must be positive")
    z = float(stdtrit(dof, 1.0 - a / 2.0) + stdtrit(dof, p))  # the normal quantiles when dof is inf
    room = n * delta * delta / (z * z) - omega2  # Eq. 9 solved for the sigma2/K terms
    if room <= 0.0:
        return None
    noise = sigma2_a + sigma2_b
    return max(1.0, noise / room) if noise > 0 else 1.0


def _column(values: np.ndarray, rows: np.ndarray, j: int | None = None) -> np.ndarray:
    """``values[rows, j]`` (or ``values[rows]``), a contiguous copy of the column when ``rows`` is every row: the same
    numbers without a gather through the index (0.1 s a column at 3e6 questions, a strided copy a few ms)."""
    col = values if j is None else values[:, j]
    return np.ascontiguousarray(col) if rows.size == values.shape[0] else col[rows]


def _answers(dataset: Dataset, table: QuestionTable, j: int, rows: np.ndarray) -> np.ndarray:
    """Model ``j``'s answers on the questions ``rows`` as an (n, K) array when K is constant, else (n,)."""
    kk = _column(table.k, rows, j)
    if kk.min() != kk.max() or kk.min() < 2:
        return _column(table.scores, rows, j)
    frame = dataset.frame
    m = frame["model"].cat.codes.to_numpy()
    sel = np.flatnonzero(m == j)
    q = frame["question"].cat.codes.to_numpy()[sel].astype(np.int64)
    s = frame["score"].to_numpy(dtype=np.float64)[sel]
    order = np.argsort(q, kind="stable")  # group this model's answers by question
    q, s = q[order], s[order]
    k = int(kk.min())
    wanted = np.zeros(table.questions.size, dtype=bool)
    wanted[rows] = True
    keep = wanted[q]
    return s[keep].reshape(-1, k)  # (n, K): rows in question order, like ``rows``


def plan_pair(dataset: Dataset | None, table: QuestionTable, analysis: Analysis, model: str, baseline: str, *,
              delta: float, alpha: float = 0.05, power: float = 0.8) -> PairPlan:
    """Estimate omega2 and sigma2 for one pair from this file and plan the next run.

    Parameters
    ----------
    dataset : Dataset or None
        The loaded file (its answers give sigma2 when questions were answered several times; None
        plans from the question-level scores only).
    table : QuestionTable
        The question-level scores.
    analysis : Analysis
        The analysis (decides whether the estimates are clustered).
    model, baseline : str
        The pair to plan for.
    delta : float
        The difference worth detecting (score units: 0.03 = 3 points).
    alpha, power : float
        Size of the test and target power.

    Returns
    -------
    PairPlan

    Notes
    -----
    The estimates come from :func:`evalstats_core.pilot.pilot_estimates` on the questions both
    models answered (Appendix C), the MDE from Eq. 10 and the questions needed from Eq. 9.
    ``plan_from_pilot(pair_pilot(...), delta=..., alpha=..., power=...)``: the same plan in two steps, the
    first (the file's part) kept while the effect, the test's size or the power change.
    """
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    return plan_from_pilot(pair_pilot(dataset, table, analysis, model, baseline), delta=delta, alpha=alpha,
                           power=power)


@dataclass(frozen=True, slots=True, eq=False)
class PairPilot:
    """What :func:`plan_pair` takes from the file for one pair, before the effect, size and power are chosen.

    Made by :func:`pair_pilot`, read by :func:`plan_from_pilot`; per-cluster numbers at most, no rows.
    """

    model: str
    baseline: str
    n: int
    est: Any  # :class:`~evalstats_core.pilot.PilotEstimates`
    omega2: float
    ahead: float
    nodes: np.ndarray
    weights: np.ndarray
    notes: tuple[str, ...]
    clustered: bool
    df_now: float
    rate: float
    test_df: Any  # n -> draws of the df (clustered 0/1 pairs), or None
    calibration: Any  # :func:`~evalstats_core.plan_spread.calibration_pilots`, or None (the aim is ``power``)
    discordant: float | None = None  # unclustered 0/1 pairs under the rule: the share of disagreements, else None


def pair_pilot(dataset: Dataset | None, table: QuestionTable, analysis: Analysis, model: str,
               baseline: str) -> PairPilot:
    """The part of :func:`plan_pair` that reads the file (estimates, degrees of freedom, the calibration's pilots)
    and none of ``delta``, ``alpha``, ``power``: compute it once per pair and design, then
    :func:`plan_from_pilot` for each effect, size and power."""

    if model not in table.models or baseline not in table.models or model == baseline:
        raise EvalStatsError(f"choose two different models of {table.name} (got {model!r} and {baseline!r})")
    i, j = table.models.index(model), table.models.index(baseline)
    rows = np.flatnonzero(table.answered[:, i] & table.answered[:, j])
    if rows.size < 2:
        raise EvalStatsError(f"{model!r} and {baseline!r} share {rows.size} question(s); planning needs at least 2")
    if dataset is not None:
        a, b = _answers(dataset, table, i, rows), _answers(dataset, table, j, rows)
    else:
        a, b = _column(table.scores, rows, i), _column(table.scores, rows, j)
    clusters = _column(table.cluster_codes, rows) if analysis.clustered and table.cluster_codes is not None else None
    if clusters is not None and (clusters.size == 0 or clusters.min() == clusters.max()):
        clusters = None
    est = pilot_estimates(a, b, clusters=clusters)
    omega2, notes = est.omega2, [est.note] if est.note else []
    ahead = est.omega2_plan  # the median of the omega2 the questions needed average over (the MDE: this file's SE)
    nodes = np.asarray(est.omega2_nodes)
    if analysis.unit == "percent" and clusters is None:
        # Bhatia-Davis: a difference of two [0, 1] scores lies in [-1, 1], so its variance is at most
        # (1 - mean)(1 + mean); the ddof=1 estimate can exceed it at small n (e.g. n/(n-1) for +-1 values)
        cap = (1.0 - est.mean_difference) * (1.0 + est.mean_difference)
        if omega2 > cap:
            notes.append(f"the estimated ω² ({omega2:.3g}) is more than differences of scores in [0, 1] can have "
                         f"with this mean; the plan uses the largest possible value, {cap:.3g}")
            omega2 = cap
        ahead, nodes = min(ahead, cap), np.minimum(nodes, cap)
    if clusters is not None:
        notes.append(_few_clusters_note(clusters, analysis))
    df_now, rate = _test_df(clusters, rows.size)
    weights = np.asarray(est.omega2_weights)  # questions (and answers) for the target power on average over pilots
    parts = None if clusters is None else _diff_parts(a, b, clusters)  # MSW, SSB, sizes: once for both below
    test_df = _binary_pair_test_df(a, b, clusters, nodes, rate, analysis, parts=parts)  # the df of the test that will run
    if test_df is not None:
        notes.append(_binary_pair_note())
    noise = est.sigma2_a / est.k_a + est.sigma2_b / est.k_b
    calibration = None
    if parts is not None:  # no clusters, or singletons: the plain (pivotal) distribution, aimed at ``power``
        # calibrated_power at the pilot's MSW and the mean of the confidence distribution of the cluster variance
        # (the omega2 nodes with the answer noise put back)
        msw, _, sizes, share = parts
        var_c = max(0.0, (float(np.asarray(nodes + noise) @ np.asarray(weights)) - msw) / share)
        calibration = calibration_pilots(sizes, msw, var_c)
    for arr in (nodes, weights):  # kept in a cache and read by every plan made from it: never written to
        arr.setflags(write=False)
    discordant = None  # the rule without clusters (Tango's score test with the continuity correction): its bound
    if clusters is None and a.ndim == 1 and b.ndim == 1 and analysis.method == "cr2" and analysis.interval != "normal" \
            and np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all():
        discordant = float(np.mean(a != b))
    return PairPilot(model=model, baseline=baseline, n=int(rows.size), est=est, omega2=omega2, ahead=ahead,
                     nodes=nodes, weights=weights, notes=tuple(notes), clustered=clusters is not None, df_now=df_now,
                     rate=rate, test_df=test_df, calibration=calibration, discordant=discordant)


def plan_from_pilot(pilot: PairPilot, *, delta: float, alpha: float = 0.05, power: float = 0.8) -> PairPlan:
    """The plan of :func:`plan_pair` for this effect, test size and power from the file's part
    (:func:`pair_pilot`): the MDE (Eq. 10), the calibrated aim, the questions and answers needed."""

    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    est, nodes, weights, rate, df_now = pilot.est, pilot.nodes, pilot.weights, pilot.rate, pilot.df_now
    kw = {"omega2": pilot.omega2, "sigma2_a": est.sigma2_a, "sigma2_b": est.sigma2_b}
    resampled = est.k_a > 1 or est.k_b > 1
    # Eq. 10 and Eq. 9 with t on the degrees of freedom the test has (and will have at the planned size)
    the_mde = float(mde_t(pilot.n, **kw, k_a=est.k_a, k_b=est.k_b, alpha=alpha, power=power, df=df_now))
    noise = est.sigma2_a / est.k_a + est.sigma2_b / est.k_b
    aim = calibrated_from(pilot.calibration, delta, alpha=alpha, power=power, df_per_question=rate)
    test_df = None if pilot.test_df is None else (lambda n: pilot.test_df(n, delta, alpha))  # the rule at this effect
    bound = None if pilot.discordant is None else (lambda n: pair_rule_bound(n, delta, pilot.discordant, alpha))
    needed = sample_size_mean_power(delta, nodes, weights, noise=noise, alpha=alpha, power=aim, df_per_question=rate,
                                    test_df=test_df, bound=bound)
    k_need = answers_mean_power(pilot.n, delta, nodes, weights, noise_sum=est.sigma2_a + est.sigma2_b,
                                alpha=alpha, power=aim, df=df_now) if resampled else None
    return PairPlan(
        model=pilot.model, baseline=pilot.baseline, n=pilot.n, n_clusters=est.n_clusters, k_model=est.k_a,
        k_baseline=est.k_b, omega2=pilot.omega2, sigma2_model=est.sigma2_a, sigma2_baseline=est.sigma2_b,
        resampled=resampled, correlation=est.correlation, observed_diff=est.mean_difference, delta=float(delta),
        alpha=alpha, power=power, mde=the_mde, n_needed=needed, k_needed=k_need,
        note="; ".join(n for n in pilot.notes if n) or None, df=df_now, df_per_question=rate,
        omega2_ahead=pilot.ahead, omega2_nodes=tuple(nodes.tolist()), omega2_weights=tuple(weights.tolist()),
        power_aimed=aim,
        test=("tango" if pilot.discordant is not None else "paired t") if not pilot.clustered
        else "cr2 t" if pilot.test_df is None else "t-score",
    )


def _diff_parts(a: np.ndarray, b: np.ndarray, clusters: np.ndarray) -> tuple | None:
    """:func:`~evalstats_core.plan_spread._anova_parts` of the question-level differences (answers averaged) in ``clusters``."""

    diffs = (a.mean(axis=1) if a.ndim == 2 else a) - (b.mean(axis=1) if b.ndim == 2 else b)
    return _anova_parts(diffs, _codes(clusters, "clusters", clusters.size)[0])


def _test_df(codes: np.ndarray | None, n: int) -> tuple[float, float]:
    """The paired test's degrees of freedom now, and per question as the eval grows like this one.

    Without clusters ``n - 1`` and 1 per question; with clusters the CR2 Satterthwaite df of these
    cluster sizes and ``(df + 1) / n`` per question (more clusters of the same mix of sizes).
    """
    if codes is None:
        return float(n - 1), 1.0

    sizes = cluster_sizes(np.asarray(codes))
    _, df = cr2_se_df(np.zeros_like(sizes), sizes, int(sizes.sum()))
    return df, (df + 1.0) / n


def _binary_pair_test_df(a: np.ndarray, b: np.ndarray, clusters: np.ndarray | None, nodes: np.ndarray, rate: float,
                         analysis: Analysis, *, parts: Any = ...) -> Any:
    """``(n, delta, alpha) -> draws of the df`` of the default test of a clustered 0/1 pair, or None when it is CR2 t.

    The analysis reads a clustered paired difference of 0/1 scores (``method="cr2"`` and any ``interval`` but
    ``"normal"``: the one-model choice, e.g. Wilson, leaves the comparisons on that rule) with
    :func:`~evalstats_core.pair_proportions.binary_pair_interval` (issue 45): the CR2 t interval where t's skewness
    fits, else end by end (:func:`~evalstats_core.pair_proportions.t_or_score_ends`), each end t's or at least the
    score rule's (Tango's score interval on effective counts and the discordant cells' MOVER, on the df
    :func:`~evalstats_core.pair_proportions.disagreement_df`, about a third of the design's or fewer). Whether the test
    rejects is decided by the end facing 0; :func:`_rule_reads_t` asks that rule which end it reads on the planned
    eval. Where it is t's, the draws of a node are the design's df (t's critical value); where it is the score rule's,
    they are the score rule's drawn df (:func:`~evalstats_core.plan_spread.binary_pair_df`); the statistic's df is
    that function's in both. Other scores and ``interval="normal"`` get CR2 t on the design's df, which the plan
    already assumes. Each node of omega2 is split into the random-intercept variances ``MSW`` and
    ``(node - MSW) / (sum n_g^2 / n)`` (the inversion that made the nodes).
    """
    if clusters is None or a.ndim != 1 or b.ndim != 1 or analysis.method != "cr2" or analysis.interval == "normal":
        return None
    if not (np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all()):
        return None

    if parts is ...:  # not given: :func:`_diff_parts` (plan_pair passes the ones it computed once)
        parts = _diff_parts(a, b, clusters)
    if parts is None:  # singletons: the test is Tango's on the counts, as t as the plan assumes
        return None
    msw, _, _, share = parts
    omegas = np.asarray(nodes, dtype=np.float64)
    var_c = np.maximum((omegas - msw) / share, 0.0)
    codes = _codes(clusters, "clusters", clusters.size)[0]
    sizes = np.bincount(codes).astype(np.float64)
    # the disagreements' spread over the clusters (the rule's ``phi``): it depends on the mix of sizes, not their number
    _, phi = discordance_spread(np.bincount(codes, weights=(a > b)), np.bincount(codes, weights=(b > a)), sizes)
    sizes = sizes[sizes > 0]
    discordant = float(np.mean(a != b))

    def test_df(n: float, delta: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        df = rate * n - 1.0
        drawn, spread = binary_pair_df(sizes, n, msw, var_c, df, discordant)
        reads_t = _rule_reads_t(n, delta, omegas, max(1.0, df), discordant, phi, 1.0 - alpha)
        return np.where(reads_t[:, None], max(1.0, df), drawn), spread

    return test_df


def _rule_reads_t(n: float, delta: float, omegas: np.ndarray, df: float, discordant: float, phi: float,
                  confidence: float) -> np.ndarray:
    """For each omega2 in ``omegas``: whether the clustered 0/1 pair rule reads CR2 t's end facing 0 on the planned
    eval (``n`` questions, the design's ``df``, ``n discordant`` disagreements spread like this file's, ``phi``), in
    the file it expects at the planned effect: ``d = delta``, ``se = sqrt(omega2 / n)``.

    It asks :func:`~evalstats_core.pair_proportions.t_or_score_ends` itself, with a score end beyond any of t's (so the
    end it returns is finite exactly where it keeps t's). The rule reads t as a whole
    (:func:`~evalstats_core.pair_proportions.t_skew_error` at the score interval's farther end) only where that end's
    error also fits (the error grows with the difference read), so the end facing 0 is t's exactly where this says so.
    A node with ``omega2 = 0`` has power 1 whatever the df: True.
    """
    m = max(discordant * n, abs(delta) * n)  # at least the disagreements the effect itself needs
    out = np.ones(omegas.size, dtype=bool)
    none = (-math.inf, math.inf, math.nan)  # no cut and, as the score rule's, an end beyond t's
    for i, v in enumerate(omegas):
        if v > 0.0:
            low = t_or_score_ends(0.5 * (m + n * delta), 0.5 * (m - n * delta), n, math.sqrt(v / n), df, m, phi,
                                  confidence, none, none)[0]
            out[i] = math.isfinite(low)
    return out


def pair_rule_bound(n: float, delta: float, discordant: float, alpha: float) -> float:
    """The smallest mean difference the rule without clusters rejects 0 at, on an eval of ``n`` 0/1 questions the two
    models disagree on a share ``discordant`` of (at least ``delta``: the effect needs that many).

    The rule is Tango's score test with :func:`~evalstats_core.pair_proportions.continuity_correction`
    (:func:`~evalstats_core.pair_proportions.binary_pair_interval` without clusters); its boundary is found by
    bisection on the rule's own ``p`` (:func:`~evalstats_core.pair_proportions.paired_proportion_p`) over the net wins
    ``x = b - c`` of ``m = n discordant`` disagreements: the t plan's boundary ``t_{alpha/2} sqrt(omega2 / n)`` moves
    by the continuity correction (an answer, ``1 / n``) and by the score test's variance at 0 (``m / n^2``, where t's is
    ``omega2 / n = (m / n - d^2) / n``). ``m / n`` (no net win reaches ``alpha``: no test on so few) when even
    ``x = m`` is not rejected.
    """
    m = max(float(discordant), float(delta)) * float(n)

    def rejects(x: float) -> bool:
        b, c = 0.5 * (m + x), 0.5 * (m - x)
        return paired_proportion_p(b, c, correction=continuity_correction(b, c)) < alpha

    if not (m > 0.0 and rejects(m)):
        return m / n if m > 0.0 else math.inf
    lo, hi = 0.0, m
    for _ in range(60):  # 2^-60 of m: below what a power can tell
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if rejects(mid) else (mid, hi)
    return hi / n


def _binary_pair_note() -> str:
    """What the plan of a clustered 0/1 pair allows for: the default test's df."""
    return ("the plan is for the rule the analysis reads on clustered 0/1 scores: CR2 t where the disagreements' "
            "skewness allows it, and end by end where it does not at least Tango's score interval on effective counts "
            "and the discordant cells' MOVER, whose degrees of freedom are the clusters its variance rests on (about a "
            "third of the design's or fewer); the questions needed are CR2 t's where that rule will read t's end facing "
            "0 at this effect, and more where it will read the score rule's")


def _few_clusters_note(codes: np.ndarray, analysis: Analysis) -> str | None:
    """What a plan built on a clustered variance cannot know: its range on the clusters' degrees of freedom.

    The clustered variance rests on the Satterthwaite degrees of freedom of the design (Bell &
    McCaffrey 2002); a variance estimated on ``df`` degrees of freedom is within a factor
    ``df / chi2_{df, 0.975}`` to ``df / chi2_{df, 0.025}`` of the truth with 95% confidence. The plan
    allows for it: its power averaged over the confidence distribution of omega2 given the file is the
    target (:mod:`evalstats_core.plan_spread`), which makes it the power averaged over pilots like this one.
    By simulation (``bench/bench_plan_pilots.py``, 300 pilots a design; ``tests/test_plan_pilots.py``) from
    5-12 clusters the mean realised power is 81-82% for an 80% target (the plans from the median-unbiased
    omega2 alone: 74-77%), the spread stays wide (a third of the plans fall short, one in ten delivers
    under 60%), and the plans are 1.2-1.3x as long as those from the median omega2. The direction of what
    remains: up by up to 2 points in the mean, half of it the rounding up to whole clusters (the plan
    from the true omega2 delivers 79-82%).
    """
    sizes = cluster_sizes(np.asarray(codes))
    g = int(np.count_nonzero(sizes))
    if g >= MIN_CLUSTERS:
        return None
    _, df = cr2_se_df(np.zeros_like(sizes), sizes, int(sizes.sum()))

    hi, lo = (1.0 / x**2 for x in se_range(df))  # the variance's truth over its estimate, 95%
    return (f"with only {g} clusters the variance behind this plan rests on about {df:.1f} degrees of freedom: the "
            f"true value could be {lo:.2f}x to {hi:.2f}x this estimate (95%); the questions needed allow for that, so "
            "plans from pilots like this one deliver their power on average, but not each one: about a third of them "
            "fall short of it, and one in ten delivers under 60% power for an 80% target")



def describe(plan: PairPlan, *, percent: bool = True) -> dict[str, Any]:
    """Plain-words sentences about a plan (for the page and the export)."""
    unit = (lambda x: f"{100 * x:.1f} points") if percent else (lambda x: f"{x:.3g}")
    q = math.ceil(plan.n_needed)
    out = {
        "mde": (f"With {plan.n:,} questions{' and K = ' + format(plan.k_model, 'g') if plan.resampled else ''}, "
                f"a paired comparison of {plan.model} and {plan.baseline} detects a true difference of "
                f"{unit(plan.mde)} with {plan.power:.0%} power at α = {plan.alpha:g} {_mde_test(plan)} if ω² is "
                "what this file estimates (Miller 2024, Eq. 10)"
                + (". The analysis reads these clustered 0/1 scores on CR2 t where the disagreements' skewness allows "
                   "it and, end by end where it does not, on at least Tango's score interval and the discordant cells' "
                   "MOVER, on fewer degrees of freedom (the clusters its variance rests on): the questions needed "
                   "below are planned for the end that rule will read at that effect, CR2 t's or the score rule's, "
                   "and where it reads the score rule's the difference it detects is larger than this"
                   if plan.test == "t-score" else
                   ". The analysis tests these 0/1 scores with Tango's score test and a continuity correction instead "
                   "(McNemar's, corrected): the questions needed below are planned for that test, and the difference it "
                   "detects with this file's questions is a little larger than this" if plan.test == "tango" else "")
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
    if plan.test in ("paired t", "tango"):
        return f"in a paired t-test on {plan.df:.0f} degrees of freedom"
    return f"in a CR2 t-test on the clusters' {plan.df:.1f} degrees of freedom (Satterthwaite)"
