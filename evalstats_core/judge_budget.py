"""How many human labels a judged eval needs: the label budget with the judge and without it.

:func:`labels_needed` answers "how many questions must a human grade so that the interval's half-width
is at most h?" twice: with the judge's scores on every question (the PPI++ estimate of
:func:`~evalstats_core.judge.ppi_mean`) and with the human labels alone. The judge's quality comes from
the data (a judge score on every question and human labels on some) or, before any labelling, from a
stated sensitivity and specificity and a guessed pass rate.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.special import stdtrit

from ._clusters import t_crit
from ._validate import check_confidence, check_positive_int, check_probability
from .clustering import summarize
from .errors import EvalStatsError, EvalStatsWarning
from .judge import _as_pair, _codes, ppi_fit
from .judge_interval import count_terms
from .judge_rows import human_only_counts
from .proportions import binary_mean_interval

__all__ = ["LabelBudget", "labels_needed", "ppi_half_width", "expected_half_width", "budget_from_moments"]


@dataclass(frozen=True, slots=True)
class LabelBudget:
    """Human labels needed for a target half-width.

    Attributes
    ----------
    half_width : float
        The target half-width (in score units: 0.03 is 3 points of accuracy).
    n_total : int
        Questions the judge scored.
    with_judge : int or None
        Labels needed with the judge's scores on every question (PPI++); ``None`` when even labelling
        every question does not reach the target.
    without_judge : int or None
        Labels needed from the humans alone (may exceed ``n_total``: the eval is then too small); ``None``
        when no number of labels reaches the target (clusters: the between-cluster variance alone is wider).
    var_human, var_judge, cov : float
        The variances of the human labels and the judge's scores and their covariance the plan uses.
    source : str
        ``"data"`` (estimated from labelled questions) or ``"stated"`` (from sensitivity/specificity).
    confidence : float
        Confidence level.
    cells : tuple of 4 floats or None
        For 0/1 verdicts and labels: the probabilities of (judge pass, human pass), (judge pass, human
        fail), (judge fail, human pass), (judge fail, human fail) the plan draws from; None for graded
        scores.
    human_mean : float
        The pass rate of the humans-only plan for 0/1 labels (``nan`` for graded labels: the t interval).
    between_judge, between_human : float
        With clusters: the variance of the corrected estimate and of the humans' mean that more labels do
        not shrink (the cluster effects); 0 without clusters.
    df, df_human : float
        With clusters: the t degrees of freedom of today's corrected and humans-only intervals.
    cluster_shares : tuple of float or None
        The clusters' shares of the questions (labels are planned as a random subset, so in proportion);
        None when the plan assumes independent questions (:attr:`assumption` says which).
    """

    half_width: float
    n_total: int
    with_judge: int | None
    without_judge: int
    var_human: float
    var_judge: float
    cov: float
    source: str
    confidence: float = 0.95
    cells: tuple[float, float, float, float] | None = None
    human_mean: float = math.nan
    between_judge: float = 0.0
    between_human: float = 0.0
    df: float = math.inf
    df_human: float = math.inf
    cluster_shares: tuple[float, ...] | None = None

    @property
    def clustered(self) -> bool:
        """True when the plan allows for the data's clusters."""
        return self.cluster_shares is not None

    @property
    def assumption(self) -> str:
        """What the plan assumes about the questions' dependence, as a sentence."""
        if self.clustered:
            return (f"Planned for the data's {len(self.cluster_shares)} clusters: the variance they add, which more "
                    "labels do not shrink, is held at today's, and t uses today's degrees of freedom.")
        if self.source == "stated":
            return ("Planned for independent questions (stated quality: no design effect); with clustered questions "
                    "the interval is wider than planned: plan from labelled data with clusters instead.")
        return "Planned for independent questions (no clusters given)."

    def half_width_at(self, n_labels: Any) -> Any:
        """The expected half-width of the corrected interval with ``n_labels`` human labels (array in, array
        out): :func:`expected_half_width` for 0/1 scores, :func:`ppi_half_width` for graded ones; with
        clusters, the between-cluster variance added and the t quantile at ``df`` (:func:`labels_needed`)."""
        if self.cells is not None:
            ks = np.atleast_1d(n_labels)
            out = np.array([expected_half_width(int(k), self.cells, n_total=self.n_total, confidence=self.confidence,
                                                human_only=not self.clustered) for k in ks])
            if self.clustered:  # the unclustered arms rescaled to t(df), plus the between-cluster part
                t, z = (t_crit(self.confidence, d) for d in (self.df, math.inf))
                out = np.sqrt((t / z * out) ** 2 + t * t * self.between_judge)
                out = np.minimum(out, self._human_widths(ks))  # HUMAN_ONLY, as the clustered interval applies it
            return float(out[0]) if np.ndim(n_labels) == 0 else out
        out = ppi_half_width(
            n_labels, var_human=self.var_human, var_judge=self.var_judge, cov=self.cov, n_total=self.n_total,
            confidence=self.confidence, between=self.between_judge, df=self.df if self.clustered else None,
        )
        out = np.minimum(out, self._human_widths(n_labels))  # HUMAN_ONLY: never wider than the labels' own
        return float(out) if np.ndim(n_labels) == 0 else out

    def _human_widths(self, n_labels: Any) -> np.ndarray:
        """:meth:`human_half_width_at` at every count of ``n_labels`` (at once for graded labels)."""
        n = np.asarray(n_labels, dtype=float)
        if math.isfinite(self.human_mean):
            return np.reshape([self.human_half_width_at(int(k)) for k in np.atleast_1d(n)], n.shape)
        df = np.full(n.shape, self.df_human) if self.clustered else np.maximum(n - 1.0, 1.0)
        return stdtrit(df, 0.5 + self.confidence / 2.0) * np.sqrt(np.maximum(self.var_human / n + self.between_human,
                                                                            0.0))

    def human_half_width_at(self, n_labels: int) -> float:
        """The half-width of the humans-only interval with ``n_labels`` labels, by the rule ``summarize`` uses
        for it: for 0/1 labels at pass rate ``human_mean``, Wilson's (or Clopper-Pearson's) interval on
        ``round(n p)`` passes when few failures are expected, Korn & Graubard's effective-n interval with
        clusters (:func:`~evalstats_core.proportions.binary_mean_interval`), else ``t se``; ``se^2 =
        var_human / n + between_human``, t on ``n - 1`` degrees of freedom (``df_human`` with clusters)."""

        n = int(n_labels)
        se = math.sqrt(max(self.var_human / n + self.between_human, 0.0))
        df = self.df_human if self.clustered else n - 1.0
        if math.isfinite(self.human_mean):
            sizes = None if not self.clustered else _allocate(n, self.cluster_shares)
            got = binary_mean_interval(self.human_mean, se, n, df, sizes, confidence=self.confidence)
            if got is not None:
                return (got[1] - got[0]) / 2.0
        return t_crit(self.confidence, df) * se

    def for_target(self, half_width: float) -> LabelBudget:
        """The same plan (judge, pass rate, clusters) for another target half-width."""
        return budget_from_moments(
            half_width, n_total=self.n_total, var_human=self.var_human, var_judge=self.var_judge, cov=self.cov,
            source=self.source, confidence=self.confidence, cells=self.cells, human_mean=self.human_mean,
            between_judge=self.between_judge, between_human=self.between_human, df=self.df,
            df_human=self.df_human, cluster_shares=self.cluster_shares,
        )

    @property
    def rho(self) -> float:
        """Correlation of the judge's scores with the human labels."""
        denom = math.sqrt(self.var_human * self.var_judge)
        return self.cov / denom if denom > 0 else math.nan


def ppi_half_width(
    n_labels: Any, *, var_human: float, var_judge: float, cov: float, n_total: int, confidence: float = 0.95,
    between: float = 0.0, df: float | None = None,
) -> Any:
    """Half-width ``t(n-1) sqrt(V)`` of the PPI++ interval with ``n`` labels out of ``n_total`` questions.

    With clusters, ``between`` (the variance that more labels do not shrink) is added to ``V`` and the t
    quantile is taken at ``df`` instead of ``n - 1``.

    Notes
    -----
    With ``N = n_total - n`` unlabelled questions and the optimal weight
    ``lam = clip(cov / ((1 + n/N) var_f), 0, 1)``::

        V = (var_y - 2 lam cov + lam^2 var_f) / n + lam^2 var_f / N

    (Angelopoulos, Duchi & Zrnic 2023, Sec. 2). ``lam = 0`` (no judge) gives ``var_y / n``.
    """

    n = np.asarray(n_labels, dtype=np.float64)
    unl = n_total - n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(unl > 0, cov / ((1.0 + n / np.where(unl > 0, unl, 1.0)) * var_judge), 0.0) if var_judge > 0 else 0 * n
        lam = np.clip(np.nan_to_num(lam), 0.0, 1.0)
        var = (var_human - 2 * lam * cov + lam * lam * var_judge) / n + np.where(unl > 0, lam * lam * var_judge / np.where(unl > 0, unl, 1.0), 0.0)
    level = check_confidence(confidence)
    dfs = np.maximum(n - 1.0, 1.0) if df is None else np.full(n.shape, float(df))
    out = stdtrit(dfs, 0.5 + level / 2.0) * np.sqrt(np.maximum(var + between, 0.0))
    return float(out) if out.ndim == 0 else out


def labels_needed(
    half_width: float, *, n_total: int, judge: Any = None, human: Any = None, sensitivity: float | None = None,
    specificity: float | None = None, pass_rate: float = 0.5, confidence: float = 0.95, clusters: Any = None,
) -> LabelBudget:
    """Human labels needed for a 95% interval of half-width ``half_width``, with the judge and without it.

    Parameters
    ----------
    half_width : float
        Target half-width in score units (0.03 = 3 points).
    n_total : int
        Number of questions the judge scores.
    judge, human : array_like, optional
        The judge's scores and the human labels (NaN where unlabelled) of a pilot: the variances and
        the covariance are estimated from them. Give these, or ``sensitivity`` and ``specificity``.
    sensitivity, specificity : float, optional
        The judge's stated quality for 0/1 verdicts, when no labels exist yet.
    pass_rate : float, default 0.5
        The guessed true pass rate with stated quality (0.5 is the worst case for the humans alone).
    confidence : float, default 0.95
    clusters : array_like, shape (n_total,), optional
        A cluster label per question of the pilot (with ``judge`` and ``human`` only): the plan then allows
        for the clusters as the intervals do (Notes).

    Returns
    -------
    LabelBudget

    Notes
    -----
    With stated quality and true pass rate ``p`` the labelled 2 x 2 table has cell probabilities
    ``(sens p, (1 - spec)(1 - p), (1 - sens) p, spec (1 - p))`` (judge pass/fail by human pass/fail);
    from data they are the judge's pass share on every question times the labelled questions' human pass
    shares within each verdict. For 0/1 scores the plan is the interval the user will get: the smallest
    ``n`` whose :func:`expected_half_width` (the mean half-width of ``ppi_mean``'s interval, small-count
    terms included, over seeded draws of the labelled table) is at most the target, found by bisection.
    The plain formula :func:`ppi_half_width` understates it when few labels hold few judge errors: the
    interval then allows for errors the labels may have missed. For graded scores the plan is
    :func:`ppi_half_width` (``t(n-1) sqrt(V)``; the interval is the plain t one). The humans alone need
    the smallest ``n`` whose humans-only interval, by the rule ``summarize`` applies to it (Wilson or
    Clopper-Pearson for 0/1 labels with few expected failures, t otherwise;
    :meth:`LabelBudget.human_half_width_at`), is at most the target at the planned pass rate.

    Clusters (from a pilot, ``clusters=``): a random subset of labels falls into the clusters in
    proportion to their sizes, so the clusters' effects on the mean do not average out as labels are
    added. The plan adds to each interval's variance the part today's clusters contribute, ``B =
    se_CR2^2 - se_indep^2`` at the pilot's labels (the corrected estimate's from
    :func:`~evalstats_core.judge.ppi_fit` with and without the clusters; the humans' mean's from
    ``summarize``), held fixed as labels are added, and takes the t quantile at today's Bell-McCaffrey
    df. This is the design effect ``1 + (m - 1) rho`` written additively (``m`` labels per cluster):
    ``V(n) = V_indep(n) + B`` with ``B = rho sigma^2 sum_g pi_g^2``. When ``t^2 B`` alone exceeds the
    target's square no number of labels reaches it (``None``). With stated quality the plan assumes
    independent questions (:attr:`LabelBudget.assumption`).

    Examples
    --------
    >>> b = labels_needed(0.03, n_total=5000, sensitivity=0.95, specificity=0.9)
    >>> b.without_judge, b.with_judge
    (1070, 361)
    """
    level = check_confidence(confidence)
    n_total = check_positive_int(n_total, "n_total", minimum=3)
    hw = float(half_width)
    if not math.isfinite(hw) or hw <= 0:
        raise EvalStatsError(f"half_width ({half_width!r}) must be a positive number, e.g. 0.03 for 3 points")
    var_y, var_f, cov, source, cells, p = _moments(judge, human, sensitivity, specificity, pass_rate)
    if clusters is not None and source != "data":
        raise EvalStatsError("clusters= needs a pilot with labels (judge= and human=): stated quality plans for "
                             "independent questions")
    design = {} if clusters is None else _cluster_design(judge, human, clusters, level)
    return budget_from_moments(hw, n_total=n_total, var_human=var_y, var_judge=var_f, cov=cov, source=source,
                               confidence=level, cells=cells, human_mean=p, **design)


def budget_from_moments(half_width: float, *, n_total: int, var_human: float, var_judge: float, cov: float,
                        source: str = "data", confidence: float = 0.95,
                        cells: tuple[float, float, float, float] | None = None, human_mean: float = math.nan,
                        between_judge: float = 0.0, between_human: float = 0.0, df: float = math.inf,
                        df_human: float = math.inf, cluster_shares: tuple[float, ...] | None = None) -> LabelBudget:
    """:func:`labels_needed` from the variances and covariance (and, for 0/1 scores, the 2 x 2 cell
    probabilities, the humans' pass rate and the clusters' part; see :class:`LabelBudget`) directly, e.g.
    for another target with the same judge (:meth:`LabelBudget.for_target`)."""
    hw, level = float(half_width), check_confidence(confidence)
    if not math.isfinite(hw) or hw <= 0:
        raise EvalStatsError(f"half_width ({half_width!r}) must be a positive number, e.g. 0.03 for 3 points")
    plan = LabelBudget(
        half_width=hw, n_total=n_total, with_judge=None, without_judge=None, var_human=var_human,
        var_judge=var_judge, cov=cov, source=source, confidence=level, cells=cells, human_mean=float(human_mean),
        between_judge=float(between_judge), between_human=float(between_human), df=float(df),
        df_human=float(df_human), cluster_shares=cluster_shares,
    )
    if cells is None:
        grid = np.arange(2, n_total + 1)
        ok = np.flatnonzero(plan.half_width_at(grid) <= hw)
        with_judge = int(grid[ok[0]]) if ok.size else None
    else:
        with_judge = _search(lambda k: plan.half_width_at(k) <= hw, 2, n_total - 2)
    return replace(plan, with_judge=with_judge, without_judge=_human_only_n(plan, hw))


def _search(reaches: Any, low: int, high: int) -> int | None:
    """The smallest ``n`` in [low, high] with ``reaches(n)`` (bisection; ``reaches`` rises with ``n``)."""
    if high < low or not reaches(high):
        return None
    if reaches(low):
        return low
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return high


#: Seeded draws of the labelled table behind one expected half-width.
PLAN_DRAWS = 2000


def expected_half_width(n_labels: int, cells: Any, *, n_total: int, confidence: float = 0.95,
                        draws: int = PLAN_DRAWS, seed: int = 0, human_only: bool = True) -> float:
    """Mean half-width of :func:`~evalstats_core.judge.ppi_mean`'s interval (0/1 scores, independent questions)
    with ``n_labels`` of ``n_total`` questions labelled.

    ``draws`` seeded labelled tables (multinomial with the 2 x 2 ``cells``: judge pass/fail by human
    pass/fail) and judge pass counts on the unlabelled questions (binomial); each gets the interval
    ``ppi_mean`` would give it, computed from the counts (:func:`ppi_counts`), then, as ``ppi_mean`` does, the
    labels' own interval where it is narrower (``human_only``: :data:`~evalstats_core.judge_rows.HUMAN_ONLY` by
    :func:`~evalstats_core.judge_rows.human_only_counts`; False: PPI++'s interval alone). Common seeds: the same
    ``(seed, n_labels)`` always gives the same number.
    """
    gen = np.random.default_rng([seed, int(n_labels)])
    p = np.clip(np.asarray(cells, dtype=float), 0.0, None)
    p = p / p.sum()
    table = gen.multinomial(int(n_labels), p, size=draws)
    passes = gen.binomial(n_total - int(n_labels), p[0] + p[1], size=draws)
    est, low, high = ppi_count_parts(*table.T, passes, n_total=n_total, confidence=confidence)
    if human_only:
        nan = np.full(est.shape, np.nan)  # the SE, df and lam are not read here
        level = check_confidence(confidence)
        _, _, _, _, low, high = human_only_counts(table[:, 0] + table[:, 2], table.sum(1), level, est, nan, nan,
                                                  nan, low, high)
    return float(np.mean(high - low) / 2.0)


def ppi_counts(n11: Any, n10: Any, n01: Any, n00: Any, passes: Any, *, n_total: int, confidence: float = 0.95,
               limits: Any = None, small_counts: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(ci_low, ci_high)`` of PPI++ for 0/1 scores without clusters, from counts (arrays):
    :func:`ppi_count_parts` without its estimate."""
    return ppi_count_parts(n11, n10, n01, n00, passes, n_total=n_total, confidence=confidence, limits=limits,
                           small_counts=small_counts)[1:]


def ppi_count_parts(n11: Any, n10: Any, n01: Any, n00: Any, passes: Any, *, n_total: int,
                    confidence: float = 0.95, limits: Any = None,
                    small_counts: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(estimate, ci_low, ci_high)`` of PPI++ (``ppi_mean``'s ``lam="auto"`` fit before its human-only rule,
    :data:`~evalstats_core.judge_rows.HUMAN_ONLY`) for 0/1 scores without clusters, from counts (arrays).

    ``n11, n10, n01, n00``: labelled questions by (judge pass, human pass), (judge pass, human fail),
    (judge fail, human pass), (judge fail, human fail); ``passes``: judge passes among the ``n_total - n``
    unlabelled questions (at least 2). Every number of ``ppi_mean`` (lam, the estimate, the CR2 standard
    error with singleton clusters, Welch's df and the small-count terms) depends on the questions only
    through these counts. ``limits``, ``small_counts``: other binomial limits in the small-count terms
    (:func:`~evalstats_core.judge_interval.count_terms`), or none (the plain t interval).
    """


    n11, n10, n01, n00, c = (np.asarray(x, dtype=float) for x in (n11, n10, n01, n00, passes))
    n = n11 + n10 + n01 + n00
    big_n = n_total - n
    fl, yl, fu = (n11 + n10) / n, (n11 + n01) / n, c / big_n
    total = c + n11 + n10
    var_f = (total - total * total / n_total) / (n_total - 1)
    cov = n11 / n - yl * fl
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(np.where(var_f > 0, cov / ((1.0 + n / big_n) * var_f), 0.0), 0.0, 1.0)
    zl = (n11 * (1 - lam) - n10 * lam + n01) / n
    s_l2 = np.maximum(n11 * (1 - lam) ** 2 + n10 * lam**2 + n01 - n * zl * zl, 0.0) / (n - 1)
    s_u2 = lam**2 * np.maximum(c - c * c / big_n, 0.0) / (big_n - 1)
    v_l, v_u = s_l2 / n, s_u2 / big_n
    var = v_l + v_u
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(var > 0, var**2 / (v_l**2 / (n - 1) + v_u**2 / (big_n - 1)), n - 1.0)
    t = np.where(var > 0, stdtrit(df, 0.5 + check_confidence(confidence) / 2.0), 0.0)
    d_lo, d_hi = count_terms(n11, n11 + n10, n01, n01 + n00, n, confidence, limits=limits)
    # the small-count terms also where var is 0 (labels that all agree with a constant judge): never a zero width
    d_lo, d_hi = (d_lo, d_hi) if small_counts else (0.0 * d_lo, 0.0 * d_hi)
    est = lam * fu + zl
    return (est, est - np.sqrt(np.maximum(t * t * var + d_lo, 0.0)),
            est + np.sqrt(np.maximum(t * t * var + d_hi, 0.0)))


def _human_only_n(plan: LabelBudget, hw: float) -> int | None:
    """The smallest ``n`` whose humans-only half-width (:meth:`LabelBudget.human_half_width_at`) is at most
    ``hw``, by bisection up to four times the normal-theory count (None when the between-cluster part alone is wider)."""
    if plan.var_human <= 0 and not math.isfinite(plan.human_mean):
        return 2
    t = t_crit(plan.confidence, plan.df_human if plan.clustered else math.inf)
    room = (hw / t) ** 2 - plan.between_human
    if room <= 0:
        return None
    normal = plan.var_human / room
    high = max(4 * math.ceil(normal), 100, plan.n_total, math.ceil(4 / hw))  # 4 / hw: a zero count's exact limit
    return _search(lambda k: plan.human_half_width_at(k) <= hw, 2, high)


def _allocate(n: int, shares: Any) -> np.ndarray:
    """``n`` labels spread over clusters in proportion to ``shares`` (largest remainders)."""
    w = np.asarray(shares, dtype=float) * n
    out = np.floor(w).astype(int)
    out[np.argsort(out - w)[: n - int(out.sum())]] += 1
    return out[out > 0]


def _cluster_design(judge: Any, human: Any, clusters: Any, level: float) -> dict:
    """The clusters' part of the plan from a pilot (:func:`labels_needed`, Notes): ``between_judge``,
    ``between_human``, ``df``, ``df_human`` and ``cluster_shares``."""

    f, h = _as_pair(judge, human, ("judge", "human"))
    lab = ~np.isnan(h)
    codes, k = _codes(clusters, f.size)
    _, se_c, df_c, _ = ppi_fit(f, h, lab, codes)
    _, se_i, _, _ = ppi_fit(f, h, lab, np.arange(f.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        s = summarize(h[lab], np.asarray(clusters, dtype=object)[lab], confidence=level, interval="normal")
    shares = np.bincount(codes, minlength=k) / f.size
    return dict(between_judge=max(se_c**2 - se_i**2, 0.0), between_human=max(s.se**2 - s.se_naive**2, 0.0),
                df=df_c, df_human=s.df, cluster_shares=tuple(float(x) for x in shares))


def _moments(judge: Any, human: Any, sens: float | None, spec: float | None, p: float) -> tuple[Any, ...]:
    if judge is not None and human is not None:
        f, h = _as_pair(judge, human, ("judge", "human"))
        lab = ~np.isnan(h)
        if lab.sum() < 3:
            raise EvalStatsError(f"{int(lab.sum())} human labels: a budget from data needs at least 3")
        y, fl = h[lab], f[lab]
        cov = float(np.cov(y, fl, ddof=1)[0, 1])
        p = float(y.mean()) if np.all((y == 0) | (y == 1)) else math.nan
        return float(np.var(y, ddof=1)), float(np.var(f, ddof=1)), cov, "data", _cells(f, y, fl), p
    if sens is None or spec is None:
        raise EvalStatsError(
            "labels_needed needs the judge's quality: pass judge= and human= (a pilot with some labels), or "
            "sensitivity= and specificity="
        )
    sens = check_probability(sens, "sensitivity")
    spec = check_probability(spec, "specificity")
    p = check_probability(p, "pass_rate")
    q = sens * p + (1 - spec) * (1 - p)
    cells = (sens * p, (1 - spec) * (1 - p), (1 - sens) * p, spec * (1 - p))
    return p * (1 - p), q * (1 - q), p * (sens - q), "stated", cells, p


def _cells(f: np.ndarray, y: np.ndarray, f_lab: np.ndarray) -> tuple[float, float, float, float] | None:
    """The 2 x 2 plan from a pilot of 0/1 scores: the judge's pass share on every question times the
    humans' pass share within each verdict (0.5 for a verdict no labelled question got); None if graded."""
    if not (np.all((f == 0) | (f == 1)) and np.all((y == 0) | (y == 1))):
        return None
    q = float(f.mean())
    a = float(y[f_lab == 1].mean()) if (f_lab == 1).any() else 0.5
    b = float(y[f_lab == 0].mean()) if (f_lab == 0).any() else 0.5
    return (q * a, q * (1 - a), (1 - q) * b, (1 - q) * (1 - b))
