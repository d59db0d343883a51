"""Variance reduction by resampling: what K answers per question buy, and what a budget should buy.

A question's score is ``s_i = x_i + eps_i``: ``x_i`` is the conditional mean (how easy the question is
for the model) and ``eps_i`` the sampling noise with variance ``sigma_i^2``. The variance of the eval
mean is ``(Var(x) + E[sigma^2]/K) / n`` when each question is answered ``K`` times and its answers are
averaged *before* any standard error is computed (never pool the ``n*K`` answers).

=================================  ===============================================================
``estimator_variance``             ``(Var(x) + E[sigma^2]/K) / n``, vectorised over K
``variance_reduction``             ``1 - V(K)/V(1)``: the share of variance removed by K answers
``resampling_curve``               the K curve as a result with ``.to_frame()`` (for charts)
``budget_allocation``              fixed budget: more questions or more answers per question?
=================================  ===============================================================

Var(x) and E[sigma^2] are estimated from an eval with K > 1 answers per question by
:func:`evalstats_core.decomposition.resampling_decomposition`. Closed-form Var(x) and
E[sigma^2] = E[x(1-x)] for a difficulty distribution (uniform, Beta) are the ``var_x`` and
``mean_sigma2`` properties of :class:`~evalstats_core.difficulty.UniformDifficulty` and
:class:`~evalstats_core.difficulty.BetaDifficulty` (:mod:`evalstats_core.difficulty`).

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 3.1-3.2 (resampling,
next-token probabilities).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._results import scalar_or_array as _out
from ._validate import check_finite
from .errors import EvalStatsError

__all__ = [
    "BudgetAllocation",
    "ResamplingCurve",
    "budget_allocation",
    "estimator_variance",
    "resampling_curve",
    "variance_reduction",
]


def _nonneg(value: Any, name: str) -> float:
    v = check_finite(value, name)
    if v < 0.0:
        raise EvalStatsError(f"{name} ({v!r}) must be >= 0: it is a variance")
    return v


def _as_k(k: Any) -> np.ndarray:
    arr = np.asarray(k, dtype=np.float64)
    bad = ~(arr >= 1.0)  # also catches NaN
    if bad.any():
        raise EvalStatsError(
            f"k ({float(arr[bad].ravel()[0])!r}) must be >= 1 answers per question (np.inf means next-token probabilities)"
        )
    return arr


# ---------------------------------------------------------------------------------------------------
# the K curve
# ---------------------------------------------------------------------------------------------------
def estimator_variance(k: Any, /, *, var_x: float, mean_sigma2: float, n: float = 1) -> float | np.ndarray:
    """Variance of the eval mean with ``k`` answers per question: ``(Var(x) + E[sigma^2]/k) / n``.

    Parameters
    ----------
    k : float or array of float, any shape
        Answers averaged per question, each >= 1; ``np.inf`` stands for next-token probabilities.
    var_x, mean_sigma2 : float
        Variance of the conditional means and the mean conditional variance (both >= 0).
    n : float, default 1
        Number of questions; the default gives the per-question variance ``n * Var(mean)``.

    Returns
    -------
    float or ndarray
        Same shape as ``k``.

    Notes
    -----
    Law of total variance with the K answers averaged per question (Miller 2024, Sec. 3.1):
    ``Var(s_bar) = (Var(x) + E[sigma^2]/K) / n``. Only the second term shrinks with K.

    Examples
    --------
    >>> float(estimator_variance(2, var_x=1/12, mean_sigma2=1/6))
    0.16666666666666666
    """
    kk = _as_k(k)
    vx, s2 = _nonneg(var_x, "var_x"), _nonneg(mean_sigma2, "mean_sigma2")
    nn = check_finite(n, "n")
    if nn <= 0:
        raise EvalStatsError(f"n ({nn!r}) must be > 0 questions")
    return _out((vx + s2 / kk) / nn)  # Sec. 3.1: (Var(x) + E[sigma^2]/K) / n


def variance_reduction(k: Any, /, *, var_x: float, mean_sigma2: float) -> float | np.ndarray:
    """Share of the estimator variance removed by averaging ``k`` answers instead of one.

    Returns ``1 - V(k)/V(1) = E[sigma^2] (1 - 1/k) / (Var(x) + E[sigma^2])``, same shape as ``k``.

    Notes
    -----
    For binary answers and uniform difficulty (Var(x) = 1/12, E[sigma^2] = 1/6) this is
    ``(2/3)(1 - 1/k)``: 1/3 at k = 2, 1/2 at k = 4, 5/9 at k = 6 and the limit 2/3 at k = infinity,
    which next-token probabilities reach (Miller 2024, Sec. 3.1 and 3.2).

    Examples
    --------
    >>> variance_reduction([2, 4, 6, np.inf], var_x=1/12, mean_sigma2=1/6).round(4).tolist()
    [0.3333, 0.5, 0.5556, 0.6667]
    """
    kk = _as_k(k)
    vx, s2 = _nonneg(var_x, "var_x"), _nonneg(mean_sigma2, "mean_sigma2")
    if vx + s2 == 0.0:
        raise EvalStatsError("var_x + mean_sigma2 is 0: with no variance there is nothing to reduce")
    return _out(s2 * (1.0 - 1.0 / kk) / (vx + s2))  # 1 - V(K)/V(1), Sec. 3.1


@dataclass(frozen=True, slots=True)
class ResamplingCurve:
    """The estimator variance as a function of K (for the diminishing-returns chart).

    Attributes
    ----------
    k : tuple of float
        Answers per question (``inf`` = next-token probabilities).
    variance, se : tuple of float
        ``(Var(x) + E[sigma^2]/K)/n`` and its square root.
    relative_variance : tuple of float
        ``V(K)/V(1)``; ``reduction`` is ``1 - relative_variance``.
    reduction : tuple of float
    floor : float
        ``Var(x) / (Var(x) + E[sigma^2])``: the relative variance no amount of resampling removes.
    var_x, mean_sigma2, n : float
        The inputs.
    """

    k: tuple[float, ...]
    variance: tuple[float, ...]
    se: tuple[float, ...]
    relative_variance: tuple[float, ...]
    reduction: tuple[float, ...]
    floor: float
    var_x: float
    mean_sigma2: float
    n: float

    def to_frame(self) -> Any:
        """Tidy ``pandas.DataFrame``: one row per K with every per-K field as a column."""
        import pandas as pd  # heavy: only when a frame is asked for

        return pd.DataFrame(
            {
                "k": self.k,
                "variance": self.variance,
                "se": self.se,
                "relative_variance": self.relative_variance,
                "reduction": self.reduction,
            }
        )


def resampling_curve(
    k: Any = range(1, 21), /, *, var_x: float, mean_sigma2: float, n: float = 1
) -> ResamplingCurve:
    """The K curve: variance, SE and reduction for each K in ``k`` (1-D), as a chartable result.

    Examples
    --------
    >>> resampling_curve([1, 2], var_x=1/12, mean_sigma2=1/6).reduction
    (0.0, 0.3333333333333333)
    """
    kk = np.atleast_1d(_as_k(k)).ravel()
    var = np.atleast_1d(estimator_variance(kk, var_x=var_x, mean_sigma2=mean_sigma2, n=n))
    red = np.atleast_1d(variance_reduction(kk, var_x=var_x, mean_sigma2=mean_sigma2))
    vx, s2 = float(var_x), float(mean_sigma2)
    return ResamplingCurve(
        k=tuple(kk.tolist()),
        variance=tuple(var.tolist()),
        se=tuple(np.sqrt(var).tolist()),
        relative_variance=tuple((1.0 - red).tolist()),
        reduction=tuple(red.tolist()),
        floor=vx / (vx + s2),
        var_x=vx,
        mean_sigma2=s2,
        n=float(n),
    )


# ---------------------------------------------------------------------------------------------------
# a fixed budget: more questions or more answers?
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BudgetAllocation:
    """How to spend a fixed budget: SE of the eval mean for each K, and the best K.

    Attributes
    ----------
    budget, cost_question, cost_answer : float
        The inputs: total budget, fixed cost per question, cost per answer (model call).
    var_x, mean_sigma2 : float
        The inputs: Var(x) and E[sigma^2].
    max_questions : float or None
        Cap on the number of questions available (an existing eval), or None.
    k : tuple of int
        Candidate answers per question, 1..k_max.
    n_questions : tuple of float
        Questions the budget buys at each K: ``budget / (cost_question + K cost_answer)``, capped at
        ``max_questions``; fractional (round down when you run it).
    variance, se : tuple of float
        ``(Var(x) + E[sigma^2]/K) / n_questions`` and its square root.
    k_best : int
        The K in ``k`` with the smallest SE (the smallest such K on ties).
    n_best, se_best : float
        Questions and SE at ``k_best``.
    k_star : float
        The unconstrained optimum ``sqrt((cost_question/cost_answer) (E[sigma^2]/Var(x)))``, a real
        number (0 without a per-question cost, ``inf`` when Var(x) = 0); below 1 means K = 1 is best.
    note : str
        One sentence saying what the optimum is and why.
    """

    budget: float
    cost_question: float
    cost_answer: float
    var_x: float
    mean_sigma2: float
    max_questions: float | None
    k: tuple[int, ...]
    n_questions: tuple[float, ...]
    variance: tuple[float, ...]
    se: tuple[float, ...]
    k_best: int
    n_best: float
    se_best: float
    k_star: float
    note: str

    def to_frame(self) -> Any:
        """Tidy ``pandas.DataFrame``: columns ``k, n_questions, variance, se, is_best``."""
        import pandas as pd  # heavy: only when a frame is asked for

        return pd.DataFrame(
            {
                "k": self.k,
                "n_questions": self.n_questions,
                "variance": self.variance,
                "se": self.se,
                "is_best": [k == self.k_best for k in self.k],
            }
        )


def budget_allocation(
    budget: float,
    /,
    *,
    var_x: float,
    mean_sigma2: float,
    cost_question: float = 0.0,
    cost_answer: float = 1.0,
    k_max: int = 20,
    max_questions: float | None = None,
) -> BudgetAllocation:
    """Spend a fixed budget on more questions or on more answers per question?

    Parameters
    ----------
    budget : float
        Total budget, in the units of the costs. With the default costs it is the number of model
        calls ``B = n * K``.
    var_x, mean_sigma2 : float
        Var(x) and E[sigma^2] (e.g. from
        :func:`~evalstats_core.decomposition.resampling_decomposition` on a pilot).
    cost_question : float, default 0
        Fixed cost of each question, paid once whatever K (writing or licensing it, a long shared
        context, grading set-up).
    cost_answer : float, default 1
        Cost of each answer (one model call plus its grading); must be > 0.
    k_max : int, default 20
        Largest K tried.
    max_questions : float, optional
        The questions that exist (an eval you cannot extend); past it, budget can only buy answers.

    Returns
    -------
    BudgetAllocation

    Notes
    -----
    Cost model: a budget ``B`` buys ``n = B / (c_q + K c_a)`` questions answered ``K`` times each, and
    the eval mean then has variance ``V(K) = (Var(x) + E[sigma^2]/K)(c_q + K c_a) / B``. Setting
    ``dV/dK = 0`` gives ``K* = sqrt((c_q / c_a) (E[sigma^2] / Var(x)))``, the optimum subsample size
    of two-stage sampling (Cochran 1977, Sec. 10.6). Without a per-question cost (``c_q = 0``,
    calls are all that costs) ``V`` grows with K, so more questions always win: a new question
    averages away Var(x) *and* E[sigma^2], a repeat answer only E[sigma^2]. Resampling pays when
    questions are scarce (``max_questions``) or dear (``c_q > 0``). The paper gives no cost model; it
    advises a K with ``E[sigma^2]/K`` well below Var(x) (Miller 2024, Sec. 3.1), which is what K*
    formalises.

    References
    ----------
    Cochran, W. G. (1977). Sampling Techniques, 3rd ed., Wiley, Sec. 10.6.
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 3.1.

    Examples
    --------
    >>> r = budget_allocation(1000, var_x=1/12, mean_sigma2=1/6, cost_question=2.0)
    >>> r.k_best, round(r.k_star, 3)
    (2, 2.0)
    """
    b = check_finite(budget, "budget")
    if b <= 0:
        raise EvalStatsError(f"budget ({b!r}) must be > 0")
    vx, s2 = _nonneg(var_x, "var_x"), _nonneg(mean_sigma2, "mean_sigma2")
    if vx + s2 == 0.0:
        raise EvalStatsError("var_x + mean_sigma2 is 0: with no variance every allocation has SE 0")
    cq = _nonneg(cost_question, "cost_question")
    ca = check_finite(cost_answer, "cost_answer")
    if ca <= 0:
        raise EvalStatsError(f"cost_answer ({ca!r}) must be > 0: every answer costs something")
    if isinstance(k_max, bool) or int(k_max) != k_max or k_max < 1:
        raise EvalStatsError(f"k_max ({k_max!r}) must be a whole number >= 1")
    cap = None
    if max_questions is not None:
        cap = check_finite(max_questions, "max_questions")
        if cap <= 0:
            raise EvalStatsError(f"max_questions ({cap!r}) must be > 0 or None")

    k = np.arange(1, int(k_max) + 1)  # (k_max,)
    n = b / (cq + k * ca)  # questions the budget buys at each K
    if cap is not None:
        n = np.minimum(n, cap)
    var = (vx + s2 / k) / n  # Sec. 3.1 with n bought by the budget
    best = int(np.argmin(var))
    if cq == 0.0 or s2 == 0.0:
        k_star = 0.0
    elif vx == 0.0:
        k_star = math.inf
    else:
        k_star = math.sqrt(cq / ca * s2 / vx)  # Cochran Sec. 10.6: K* = sqrt(c_q/c_a * E[sigma^2]/Var(x))

    capped = cap is not None and bool(n[0] >= cap)
    if capped:
        note = (
            f"Only {cap:g} questions exist: the budget buys more questions than that at small K, so the rest "
            f"is best spent on answers; K = {k[best]} gives the smallest SE."
        )
    elif cq == 0.0:
        note = (
            "With no fixed cost per question, more questions always beat more answers: K = 1 gives the "
            "smallest SE, because a new question averages away Var(x) as well as E[σ²]."
        )
    else:
        note = (
            f"K* = √((c_q/c_a)·E[σ²]/Var(x)) = {k_star:.3g}; the best whole K up to {int(k_max)} "
            f"is {k[best]}, with {'' if float(n[best]).is_integer() else 'about '}{n[best]:,.0f} questions."
        )
    return BudgetAllocation(
        budget=b,
        cost_question=cq,
        cost_answer=ca,
        var_x=vx,
        mean_sigma2=s2,
        max_questions=cap,
        k=tuple(int(x) for x in k),
        n_questions=tuple(n.tolist()),
        variance=tuple(var.tolist()),
        se=tuple(np.sqrt(var).tolist()),
        k_best=int(k[best]),
        n_best=float(n[best]),
        se_best=float(math.sqrt(var[best])),
        k_star=k_star,
        note=note,
    )
