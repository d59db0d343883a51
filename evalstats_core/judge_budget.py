"""How many human labels a judged eval needs: the label budget with the judge and without it.

:func:`labels_needed` answers "how many questions must a human grade so that the interval's half-width
is at most h?" twice: with the judge's scores on every question (the PPI++ estimate of
:func:`~evalstats_core.judge.ppi_mean`) and with the human labels alone. The judge's quality comes from
the data (a judge score on every question and human labels on some) or, before any labelling, from a
stated sensitivity and specificity and a guessed pass rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import check_confidence, check_positive_int, check_probability
from .errors import EvalStatsError

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
    without_judge : int
        Labels needed from the humans alone (may exceed ``n_total``: the eval is then too small).
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

    def half_width_at(self, n_labels: Any) -> Any:
        """The expected half-width of the corrected interval with ``n_labels`` human labels (array in, array
        out): :func:`expected_half_width` for 0/1 scores, :func:`ppi_half_width` for graded ones."""
        if self.cells is not None:
            out = np.array([expected_half_width(int(k), self.cells, n_total=self.n_total, confidence=self.confidence)
                            for k in np.atleast_1d(n_labels)])
            return float(out[0]) if np.ndim(n_labels) == 0 else out
        return ppi_half_width(
            n_labels, var_human=self.var_human, var_judge=self.var_judge, cov=self.cov, n_total=self.n_total,
            confidence=self.confidence,
        )

    @property
    def rho(self) -> float:
        """Correlation of the judge's scores with the human labels."""
        denom = math.sqrt(self.var_human * self.var_judge)
        return self.cov / denom if denom > 0 else math.nan


def ppi_half_width(
    n_labels: Any, *, var_human: float, var_judge: float, cov: float, n_total: int, confidence: float = 0.95
) -> Any:
    """Half-width ``t(n-1) sqrt(V)`` of the PPI++ interval with ``n`` labels out of ``n_total`` questions.

    Notes
    -----
    With ``N = n_total - n`` unlabelled questions and the optimal weight
    ``lam = clip(cov / ((1 + n/N) var_f), 0, 1)``::

        V = (var_y - 2 lam cov + lam^2 var_f) / n + lam^2 var_f / N

    (Angelopoulos, Duchi & Zrnic 2023, Sec. 2). ``lam = 0`` (no judge) gives ``var_y / n``.
    """
    from scipy.special import stdtrit

    n = np.asarray(n_labels, dtype=np.float64)
    unl = n_total - n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(unl > 0, cov / ((1.0 + n / np.where(unl > 0, unl, 1.0)) * var_judge), 0.0) if var_judge > 0 else 0 * n
        lam = np.clip(np.nan_to_num(lam), 0.0, 1.0)
        var = (var_human - 2 * lam * cov + lam * lam * var_judge) / n + np.where(unl > 0, lam * lam * var_judge / np.where(unl > 0, unl, 1.0), 0.0)
    level = check_confidence(confidence)
    out = stdtrit(np.maximum(n - 1.0, 1.0), 0.5 + level / 2.0) * np.sqrt(np.maximum(var, 0.0))
    return float(out) if out.ndim == 0 else out


def labels_needed(
    half_width: float, *, n_total: int, judge: Any = None, human: Any = None, sensitivity: float | None = None,
    specificity: float | None = None, pass_rate: float = 0.5, confidence: float = 0.95,
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
    the smallest ``n`` with ``t(n-1) sd_y / sqrt(n) <= half_width``. Clusters are not planned for: with
    clustered questions the interval is wider than planned.

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
    var_y, var_f, cov, source, cells = _moments(judge, human, sensitivity, specificity, pass_rate)
    return budget_from_moments(hw, n_total=n_total, var_human=var_y, var_judge=var_f, cov=cov, source=source,
                               confidence=level, cells=cells)


def budget_from_moments(half_width: float, *, n_total: int, var_human: float, var_judge: float, cov: float,
                        source: str = "data", confidence: float = 0.95,
                        cells: tuple[float, float, float, float] | None = None) -> LabelBudget:
    """:func:`labels_needed` from the variances and covariance (and, for 0/1 scores, the 2 x 2 cell
    probabilities) directly, e.g. for another target with the same judge."""
    hw, level, var_y, var_f = float(half_width), check_confidence(confidence), var_human, var_judge
    if not math.isfinite(hw) or hw <= 0:
        raise EvalStatsError(f"half_width ({half_width!r}) must be a positive number, e.g. 0.03 for 3 points")
    if cells is None:
        grid = np.arange(2, n_total + 1)
        hws = ppi_half_width(grid, var_human=var_y, var_judge=var_f, cov=cov, n_total=n_total, confidence=level)
        ok = np.flatnonzero(hws <= hw)
        with_judge = int(grid[ok[0]]) if ok.size else None
    else:
        with_judge = _search(lambda k: expected_half_width(k, cells, n_total=n_total, confidence=level) <= hw,
                             2, n_total - 2)
    return LabelBudget(
        half_width=hw, n_total=n_total, with_judge=with_judge, without_judge=_human_only_n(var_y, hw, level),
        var_human=var_y, var_judge=var_f, cov=cov, source=source, confidence=level, cells=cells,
    )


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
                        draws: int = PLAN_DRAWS, seed: int = 0) -> float:
    """Mean half-width of :func:`~evalstats_core.judge.ppi_mean`'s interval (0/1 scores, independent questions)
    with ``n_labels`` of ``n_total`` questions labelled.

    ``draws`` seeded labelled tables (multinomial with the 2 x 2 ``cells``: judge pass/fail by human
    pass/fail) and judge pass counts on the unlabelled questions (binomial); each gets the interval
    ``ppi_mean`` would give it, computed from the counts (:func:`ppi_counts`). Common seeds: the same
    ``(seed, n_labels)`` always gives the same number.
    """
    gen = np.random.default_rng([seed, int(n_labels)])
    p = np.clip(np.asarray(cells, dtype=float), 0.0, None)
    p = p / p.sum()
    table = gen.multinomial(int(n_labels), p, size=draws)
    passes = gen.binomial(n_total - int(n_labels), p[0] + p[1], size=draws)
    low, high = ppi_counts(*table.T, passes, n_total=n_total, confidence=confidence)
    return float(np.mean(high - low) / 2.0)


def ppi_counts(n11: Any, n10: Any, n01: Any, n00: Any, passes: Any, *, n_total: int, confidence: float = 0.95,
               limits: Any = None, small_counts: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(ci_low, ci_high)`` of ``ppi_mean`` for 0/1 scores without clusters, from counts (arrays).

    ``n11, n10, n01, n00``: labelled questions by (judge pass, human pass), (judge pass, human fail),
    (judge fail, human pass), (judge fail, human fail); ``passes``: judge passes among the ``n_total - n``
    unlabelled questions (at least 2). Every number of ``ppi_mean`` (lam, the estimate, the CR2 standard
    error with singleton clusters, Welch's df and the small-count terms) depends on the questions only
    through these counts. ``limits``, ``small_counts``: other binomial limits in the small-count terms
    (:func:`~evalstats_core.judge_interval.count_terms`), or none (the plain t interval).
    """
    from scipy.special import stdtrit

    from .judge_interval import count_terms

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
    keep = (var > 0) & small_counts
    d_lo, d_hi = np.where(keep, d_lo, 0.0), np.where(keep, d_hi, 0.0)
    est = lam * fu + zl
    return est - np.sqrt(np.maximum(t * t * var + d_lo, 0.0)), est + np.sqrt(np.maximum(t * t * var + d_hi, 0.0))


def _human_only_n(var_y: float, hw: float, level: float) -> int:
    from ._clusters import t_crit

    if var_y <= 0:
        return 2
    n = max(2, math.ceil(var_y * (t_crit(level, math.inf) / hw) ** 2))
    while t_crit(level, n - 1.0) * math.sqrt(var_y / n) > hw:
        n += 1
    return n


def _moments(judge: Any, human: Any, sens: float | None, spec: float | None, p: float) -> tuple[float, float, float, str, Any]:
    if judge is not None and human is not None:
        from .judge import _as_pair

        f, h = _as_pair(judge, human, ("judge", "human"))
        lab = ~np.isnan(h)
        if lab.sum() < 3:
            raise EvalStatsError(f"{int(lab.sum())} human labels: a budget from data needs at least 3")
        y, fl = h[lab], f[lab]
        cov = float(np.cov(y, fl, ddof=1)[0, 1])
        return float(np.var(y, ddof=1)), float(np.var(f, ddof=1)), cov, "data", _cells(f, y, fl)
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
    return p * (1 - p), q * (1 - q), p * (sens - q), "stated", cells


def _cells(f: np.ndarray, y: np.ndarray, f_lab: np.ndarray) -> tuple[float, float, float, float] | None:
    """The 2 x 2 plan from a pilot of 0/1 scores: the judge's pass share on every question times the
    humans' pass share within each verdict (0.5 for a verdict no labelled question got); None if graded."""
    if not (np.all((f == 0) | (f == 1)) and np.all((y == 0) | (y == 1))):
        return None
    q = float(f.mean())
    a = float(y[f_lab == 1].mean()) if (f_lab == 1).any() else 0.5
    b = float(y[f_lab == 0].mean()) if (f_lab == 0).any() else 0.5
    return (q * a, q * (1 - a), (1 - q) * b, (1 - q) * (1 - b))
