"""How well an LLM judge agrees with human labels: accuracy, sensitivity, specificity, Cohen's kappa.

Use :func:`judge_agreement` on the labelled questions (the judge's verdict and the human's on the same
answers). For 0/1 verdicts it gives the confusion table, accuracy, sensitivity (the judge passes what
the humans pass) and specificity (the judge fails what the humans fail), each with a Wilson interval,
and Cohen's kappa with its large-sample interval. For graded scores (e.g. 1-5) it gives the exact
agreement, the quadratic-weighted kappa and Spearman's rho.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from ._results import Interval
from ._validate import check_confidence, z_for
from .errors import EvalStatsError
from .intervals import proportion_ci
from .judge import _as_pair

__all__ = ["Agreement", "judge_agreement", "cohen_kappa"]

_NAN = Interval(math.nan, math.nan)


@dataclass(frozen=True, slots=True)
class Agreement:
    """The judge against the humans on the labelled questions.

    Attributes
    ----------
    n : int
        Questions with both a judge score and a human label.
    binary : bool
        True when every score and label is 0 or 1 (then the confusion table and rates apply).
    accuracy, accuracy_ci : float, Interval
        Share of questions where judge and human give the same score (Wilson interval).
    sensitivity, sensitivity_ci : float, Interval
        Of the answers the humans pass, the share the judge passes (``nan`` if graded or none pass).
    specificity, specificity_ci : float, Interval
        Of the answers the humans fail, the share the judge fails.
    kappa, kappa_se, kappa_ci : float, float, Interval
        Cohen's kappa, its large-sample standard error and interval (see :func:`cohen_kappa`).
    weighted_kappa : float
        Quadratic-weighted kappa (graded scores; equal to ``kappa`` for 0/1 scores).
    spearman : float
        Spearman's rank correlation of judge and human scores (``nan`` if either is constant).
    true_pass, false_pass, false_fail, true_fail : int
        The confusion table (judge verdict against human verdict); 0 for graded scores.
    confidence : float
        Level of the intervals.
    """

    n: int
    binary: bool
    accuracy: float
    accuracy_ci: Interval
    sensitivity: float
    sensitivity_ci: Interval
    specificity: float
    specificity_ci: Interval
    kappa: float
    kappa_se: float
    kappa_ci: Interval
    weighted_kappa: float
    spearman: float
    true_pass: int = 0
    false_pass: int = 0
    false_fail: int = 0
    true_fail: int = 0
    confidence: float = 0.95


def cohen_kappa(table: Any, *, confidence: float = 0.95) -> tuple[float, float, Interval]:
    """Cohen's kappa of a square agreement table with its large-sample SE and interval.

    Notes
    -----
    With cell shares ``p_ij``, row and column shares ``p_i.``, ``p_.j``, observed agreement
    ``p_o = sum_i p_ii`` and chance agreement ``p_e = sum_i p_i. p_.i``: ``kappa = (p_o - p_e)/(1 - p_e)``.
    Its variance (Fleiss, Cohen & Everitt 1969, Eq. 13; as statsmodels' ``cohens_kappa``)::

        var = [ sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))^2
                + (1 - kappa)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
                - (kappa - p_e (1 - kappa))^2 ] / ((1 - p_e)^2 n)

    and the interval is ``kappa -/+ z se``.

    References
    ----------
    Cohen 1960, Educ. Psychol. Meas. 20(1); Fleiss, Cohen & Everitt 1969, Psychol. Bull. 72(5).

    Examples
    --------
    >>> k, se, ci = cohen_kappa([[20, 5], [10, 15]])
    >>> round(k, 3), round(se, 3)
    (0.4, 0.127)
    """
    t = np.asarray(table, dtype=np.float64)
    n = float(t.sum())
    p = t / n
    row, col = p.sum(1), p.sum(0)
    p_o, p_e = float(np.trace(p)), float(row @ col)
    if p_e == 1.0:
        return math.nan, math.nan, _NAN
    kappa = (p_o - p_e) / (1.0 - p_e)
    term_a = float((np.diag(p) * (1.0 - (row + col) * (1.0 - kappa)) ** 2).sum())
    off = p * (col[:, None] + row[None, :]) ** 2
    np.fill_diagonal(off, 0.0)
    term_b = (1.0 - kappa) ** 2 * float(off.sum())
    term_c = (kappa - p_e * (1.0 - kappa)) ** 2
    se = math.sqrt(max(term_a + term_b - term_c, 0.0) / (1.0 - p_e) ** 2 / n)
    z = z_for(check_confidence(confidence))
    return kappa, se, Interval(kappa - z * se, kappa + z * se)


def _weighted_kappa(f: np.ndarray, y: np.ndarray) -> float:
    """Quadratic-weighted kappa over the categories seen in either rater (as scikit-learn computes it)."""
    cats, inv = np.unique(np.concatenate([f, y]), return_inverse=True)
    k = cats.size
    if k < 2:
        return math.nan
    t = np.zeros((k, k))
    np.add.at(t, (inv[: f.size], inv[f.size:]), 1.0)
    idx = np.arange(k, dtype=float)
    w = (idx[:, None] - idx[None, :]) ** 2
    expected = np.outer(t.sum(1), t.sum(0)) / t.sum()
    denom = float((w * expected).sum())
    return 1.0 - float((w * t).sum()) / denom if denom > 0 else math.nan


def judge_agreement(judge: Any, human: Any, *, confidence: float = 0.95) -> Agreement:
    """The judge's agreement with the human labels on the questions that have one.

    Parameters
    ----------
    judge : array_like, shape (n_total,)
        The judge's scores (0/1 verdicts or graded scores).
    human : array_like, shape (n_total,)
        Human labels of the same answers, NaN where unlabelled (those questions are skipped).
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    Agreement

    Notes
    -----
    Sensitivity and specificity treat the human label as the truth and a score of 1 as "pass". The
    Wilson intervals come from :func:`~evalstats_core.intervals.proportion_ci`; kappa's interval from
    :func:`cohen_kappa`. Graded scores are compared category by category (the distinct values seen);
    the quadratic-weighted kappa weighs a disagreement by its squared distance in category ranks.

    Examples
    --------
    >>> a = judge_agreement([1, 1, 0, 1, 0, 1], [1, 0, 0, 1, 0, float("nan")])
    >>> a.n, a.true_pass, a.false_pass, a.true_fail, round(a.accuracy, 2)
    (5, 2, 1, 2, 0.8)
    """

    level = check_confidence(confidence)
    f_all, h_all = _as_pair(judge, human, ("judge", "human"))
    lab = ~np.isnan(h_all)
    f, y = f_all[lab], h_all[lab]
    n = int(f.size)
    if n < 2:
        raise EvalStatsError(f"{n} question(s) have a human label: agreement needs at least 2")
    binary = bool(np.isin(f, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all())
    same = int((f == y).sum())
    cats, inv = np.unique(np.concatenate([f, y]), return_inverse=True)
    table = np.zeros((cats.size, cats.size))
    np.add.at(table, (inv[:n], inv[n:]), 1.0)
    kappa, kse, kci = cohen_kappa(table, confidence=level) if cats.size > 1 else (math.nan, math.nan, _NAN)
    rho = math.nan if np.ptp(f) == 0 or np.ptp(y) == 0 else float(spearmanr(f, y).statistic)
    out = dict(
        n=n, binary=binary, accuracy=same / n, accuracy_ci=proportion_ci(same, n, confidence=level),
        sensitivity=math.nan, sensitivity_ci=_NAN, specificity=math.nan, specificity_ci=_NAN, kappa=kappa,
        kappa_se=kse, kappa_ci=kci, weighted_kappa=_weighted_kappa(f, y), spearman=rho, confidence=level,
    )
    if binary:
        tp, fp = int(((f == 1) & (y == 1)).sum()), int(((f == 1) & (y == 0)).sum())
        fn, tn = int(((f == 0) & (y == 1)).sum()), int(((f == 0) & (y == 0)).sum())
        out.update(true_pass=tp, false_pass=fp, false_fail=fn, true_fail=tn)
        if tp + fn:
            out.update(sensitivity=tp / (tp + fn), sensitivity_ci=proportion_ci(tp, tp + fn, confidence=level))
        if tn + fp:
            out.update(specificity=tn / (tn + fp), specificity_ci=proportion_ci(tn, tn + fp, confidence=level))
    return Agreement(**out)
