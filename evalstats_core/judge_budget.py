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

__all__ = ["LabelBudget", "labels_needed", "ppi_half_width", "budget_from_moments"]


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

    def half_width_at(self, n_labels: Any) -> Any:
        """The PPI++ half-width with ``n_labels`` human labels (array in, array out)."""
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
    With stated quality and true pass rate ``p``: ``var_y = p(1-p)``; the judge passes
    ``q = sens p + (1 - spec)(1 - p)``, ``var_f = q(1-q)``, ``cov = p (sens - q)``. The smallest ``n``
    with :func:`ppi_half_width` at most the target is found by a vectorised scan; the humans alone need
    the smallest ``n`` with ``t(n-1) sd_y / sqrt(n) <= half_width``.

    Examples
    --------
    >>> b = labels_needed(0.03, n_total=5000, sensitivity=0.95, specificity=0.9)
    >>> b.without_judge, b.with_judge
    (1070, 351)
    """
    level = check_confidence(confidence)
    n_total = check_positive_int(n_total, "n_total", minimum=3)
    hw = float(half_width)
    if not math.isfinite(hw) or hw <= 0:
        raise EvalStatsError(f"half_width ({half_width!r}) must be a positive number, e.g. 0.03 for 3 points")
    var_y, var_f, cov, source = _moments(judge, human, sensitivity, specificity, pass_rate)
    return budget_from_moments(hw, n_total=n_total, var_human=var_y, var_judge=var_f, cov=cov, source=source,
                               confidence=level)


def budget_from_moments(half_width: float, *, n_total: int, var_human: float, var_judge: float, cov: float,
                        source: str = "data", confidence: float = 0.95) -> LabelBudget:
    """:func:`labels_needed` from the variances and covariance directly (e.g. another target, same judge)."""
    hw, level, var_y, var_f = float(half_width), check_confidence(confidence), var_human, var_judge
    if not math.isfinite(hw) or hw <= 0:
        raise EvalStatsError(f"half_width ({half_width!r}) must be a positive number, e.g. 0.03 for 3 points")
    grid = np.arange(2, n_total + 1)
    hws = ppi_half_width(grid, var_human=var_y, var_judge=var_f, cov=cov, n_total=n_total, confidence=level)
    ok = np.flatnonzero(hws <= hw)
    with_judge = int(grid[ok[0]]) if ok.size else None
    return LabelBudget(
        half_width=hw, n_total=n_total, with_judge=with_judge, without_judge=_human_only_n(var_y, hw, level),
        var_human=var_y, var_judge=var_f, cov=cov, source=source, confidence=level,
    )


def _human_only_n(var_y: float, hw: float, level: float) -> int:
    from ._clusters import t_crit

    if var_y <= 0:
        return 2
    n = max(2, math.ceil(var_y * (t_crit(level, math.inf) / hw) ** 2))
    while t_crit(level, n - 1.0) * math.sqrt(var_y / n) > hw:
        n += 1
    return n


def _moments(judge: Any, human: Any, sens: float | None, spec: float | None, p: float) -> tuple[float, float, float, str]:
    if judge is not None and human is not None:
        from .judge import _as_pair

        f, h = _as_pair(judge, human, ("judge", "human"))
        lab = ~np.isnan(h)
        if lab.sum() < 3:
            raise EvalStatsError(f"{int(lab.sum())} human labels: a budget from data needs at least 3")
        y, fl = h[lab], f[lab]
        cov = float(np.cov(y, fl, ddof=1)[0, 1])
        return float(np.var(y, ddof=1)), float(np.var(f, ddof=1)), cov, "data"
    if sens is None or spec is None:
        raise EvalStatsError(
            "labels_needed needs the judge's quality: pass judge= and human= (a pilot with some labels), or "
            "sensitivity= and specificity="
        )
    sens = check_probability(sens, "sensitivity")
    spec = check_probability(spec, "specificity")
    p = check_probability(p, "pass_rate")
    q = sens * p + (1 - spec) * (1 - p)
    return p * (1 - p), q * (1 - q), p * (sens - q), "stated"
