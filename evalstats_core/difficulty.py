"""Difficulty distributions: how a model's probability of a correct answer ``x`` spreads over the questions.

Closed forms for the mean, Var(x) (which no resampling can remove) and E[sigma^2] = E[x(1-x)] (the noise
within a question), the CDF, seeded draws, and the density of ``logit x`` that
:mod:`evalstats_core.temperature` integrates over (its temperature trap rescales each question's logit).

=========================  =====================================================================
``UniformDifficulty``      x ~ U[low, high], with closed-form mean, Var(x), E[sigma^2]
``BetaDifficulty``         x ~ Beta(alpha, beta), the same
=========================  =====================================================================

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 3.1-3.3 (U[0, 1] difficulties:
Var(x) = 1/12, E[sigma^2] = 1/6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betainc, betaln, expit, log_expit

from ._validate import check_finite
from .errors import EvalStatsError

__all__ = ["BetaDifficulty", "UniformDifficulty"]


@dataclass(frozen=True, slots=True)
class UniformDifficulty:
    """Conditional means (probabilities of a correct answer) spread evenly on ``[low, high]``.

    Attributes
    ----------
    low, high : float
        The support, ``0 <= low < high <= 1``. ``UniformDifficulty()`` is the paper's U[0, 1].
    """

    low: float = 0.0
    high: float = 1.0

    def __post_init__(self) -> None:
        lo, hi = check_finite(self.low, "low"), check_finite(self.high, "high")
        if not (0.0 <= lo < hi <= 1.0):
            raise EvalStatsError(
                f"UniformDifficulty needs 0 <= low < high <= 1 (got low={lo!r}, high={hi!r}); "
                "difficulties are probabilities of a correct answer"
            )
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "high", hi)

    @property
    def mean(self) -> float:
        """E[x] = (low + high) / 2."""
        return (self.low + self.high) / 2.0

    @property
    def var_x(self) -> float:
        """Var(x) = (high - low)^2 / 12 (1/12 for U[0, 1])."""
        return (self.high - self.low) ** 2 / 12.0

    @property
    def mean_sigma2(self) -> float:
        """E[sigma^2] = E[x(1-x)] = E[x] - E[x]^2 - Var(x) for binary answers (1/6 for U[0, 1])."""
        m = self.mean
        return m * (1.0 - m) - self.var_x

    def cdf(self, x: Any) -> np.ndarray:
        """P(X <= x), elementwise."""
        return np.clip((np.asarray(x, dtype=np.float64) - self.low) / (self.high - self.low), 0.0, 1.0)

    def sample(self, size: int, rng: Any = None) -> np.ndarray:
        """``size`` seeded draws of x (``rng`` goes through ``np.random.default_rng``)."""
        return np.random.default_rng(rng).uniform(self.low, self.high, size=size)

    def _logit_support(self) -> tuple[float, float]:
        with np.errstate(divide="ignore"):
            return float(np.log(self.low) - np.log1p(-self.low)), float(
                np.log(self.high) - np.log1p(-self.high)
            )

    def _tails(self, v_lo: np.ndarray, v_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # P(logit x < v_lo) and P(logit x > v_hi)
        w = self.high - self.low
        return np.clip((expit(v_lo) - self.low) / w, 0.0, 1.0), np.clip(
            (self.high - expit(v_hi)) / w, 0.0, 1.0
        )

    def _logit_density(self, v: np.ndarray) -> np.ndarray:
        # density of v = logit(x): f(x) * dx/dv = x(1-x) / (high - low) inside the support
        return np.exp(log_expit(v) + log_expit(-v)) / (self.high - self.low)


@dataclass(frozen=True, slots=True)
class BetaDifficulty:
    """Conditional means drawn from a Beta(alpha, beta) distribution on [0, 1].

    Attributes
    ----------
    alpha, beta : float
        Positive shape parameters. Beta(1, 1) is U[0, 1]; small shapes pile difficulties near 0 and 1.
    """

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            v = check_finite(getattr(self, name), name)
            if v <= 0.0:
                raise EvalStatsError(
                    f"BetaDifficulty {name} ({v!r}) must be > 0; e.g. alpha=beta=1 is uniform"
                )
            object.__setattr__(self, name, v)

    @property
    def mean(self) -> float:
        """E[x] = alpha / (alpha + beta)."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def var_x(self) -> float:
        """Var(x) = alpha*beta / ((alpha+beta)^2 (alpha+beta+1))."""
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1.0))

    @property
    def mean_sigma2(self) -> float:
        """E[x(1-x)] = alpha*beta / ((alpha+beta)(alpha+beta+1))."""
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * (s + 1.0))

    def cdf(self, x: Any) -> np.ndarray:
        """P(X <= x), elementwise (regularised incomplete beta function)."""
        return betainc(self.alpha, self.beta, np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0))

    def sample(self, size: int, rng: Any = None) -> np.ndarray:
        """``size`` seeded draws of x (``rng`` goes through ``np.random.default_rng``)."""
        return np.random.default_rng(rng).beta(self.alpha, self.beta, size=size)

    def _logit_support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    def _tails(self, v_lo: np.ndarray, v_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # P(logit x < v_lo) and P(logit x > v_hi) = P(1 - x < sigmoid(-v_hi)), both without cancellation
        return betainc(self.alpha, self.beta, expit(v_lo)), betainc(self.beta, self.alpha, expit(-v_hi))

    def _logit_density(self, v: np.ndarray) -> np.ndarray:
        # density of v = logit(x): x^alpha (1-x)^beta / B(alpha, beta), in logs for stability
        return np.exp(self.alpha * log_expit(v) + self.beta * log_expit(-v) - betaln(self.alpha, self.beta))


Difficulty = UniformDifficulty | BetaDifficulty


def _check_difficulty(difficulty: Any) -> Difficulty:
    if not isinstance(difficulty, (UniformDifficulty, BetaDifficulty)):
        raise EvalStatsError(
            f"difficulty must be UniformDifficulty(low, high) or BetaDifficulty(alpha, beta), "
            f"not {type(difficulty).__name__}"
        )
    return difficulty
