"""The temperature trap: what lowering the sampling temperature does to an eval's variance.

Each question has a conditional mean ``x`` (the probability of a correct answer at T = 1), drawn from a
difficulty distribution. Lowering the temperature sharpens every answer distribution: at T -> 0 the
model always gives its most likely answer, so ``x`` is rounded to ``1[x > 1/2]``. The noise within a
question, E[sigma^2] = E[x(1-x)], vanishes, but Var(x), which no resampling can remove, grows; and
the mean itself can move (bias). For temperatures in between we scale each question's logit by 1/T.

=========================  =====================================================================
``UniformDifficulty``      x ~ U[low, high], with closed-form mean, Var(x), E[sigma^2]
``BetaDifficulty``         x ~ Beta(alpha, beta), the same (both from :mod:`evalstats_core.difficulty`)
``temperature_scale``      ``x_T = sigmoid(logit(x) / T)``, elementwise (T = 0 rounds at 1/2)
``temperature_limits``     closed forms at T = 1 and T -> 0
``temperature_curve``      mean, Var(x_T), E[sigma_T^2] over a grid of T (quadrature), ``.to_frame()``
``temperature_histogram``  exact share of questions in each bin of x_T, for each T
=========================  =====================================================================

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 3.3 ("Don't touch the
thermostat!"). Hinton, Vinyals and Dean (2015), arXiv:1503.02531 (temperature divides the logits).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.special import expit

from .difficulty import BetaDifficulty, Difficulty, UniformDifficulty, _check_difficulty
from .errors import EvalStatsError

__all__ = [
    "BetaDifficulty",
    "TemperatureCurve",
    "TemperatureHistogram",
    "TemperatureLimits",
    "UniformDifficulty",
    "temperature_curve",
    "temperature_histogram",
    "temperature_limits",
    "temperature_scale",
]


def _as_temperatures(temperature: Any) -> np.ndarray:
    t = np.asarray(temperature, dtype=np.float64)
    bad = ~(np.isfinite(t) & (t >= 0.0))
    if bad.any():
        raise EvalStatsError(
            f"temperature ({float(t[bad].ravel()[0])!r}) must be a finite number >= 0 (0 means greedy decoding)"
        )
    return t


# ---------------------------------------------------------------------------------------------------
# the model: scale each question's logit by 1/T
# ---------------------------------------------------------------------------------------------------
def temperature_scale(x: Any, temperature: Any) -> float | np.ndarray:
    """Conditional mean at temperature T: ``x_T = sigmoid(logit(x) / T)``, elementwise (broadcasts).

    Parameters
    ----------
    x : float or array of float in [0, 1]
        Probabilities of a correct answer at T = 1.
    temperature : float or array of float >= 0
        T = 1 leaves ``x`` unchanged; T = 0 gives the greedy limit ``1[x > 1/2]`` (1/2 stays 1/2).

    Notes
    -----
    For a true/false question the answer distribution at T = 1 is (x, 1 - x), logits
    ``(log x, log(1 - x))``. Sampling at temperature T divides the logits by T (Hinton et al. 2015), so
    the probability of the correct answer becomes ``sigmoid(logit(x)/T)``. A single-token true/false
    eval is exactly this; for longer answers it is a one-parameter stand-in that reaches the paper's
    two end points (Miller 2024, Sec. 3.3).

    Examples
    --------
    >>> temperature_scale([0.2, 0.5, 0.9], 0.0).tolist()
    [0.0, 0.5, 1.0]
    """
    xx = np.asarray(x, dtype=np.float64)
    if not ((xx >= 0.0) & (xx <= 1.0)).all():
        raise EvalStatsError("x must lie in [0, 1]: it is the probability of a correct answer at T = 1")
    t = _as_temperatures(temperature)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = np.log(xx) - np.log1p(-xx)  # logit(x), +-inf at 0 and 1
        out = np.where(t > 0.0, expit(v / np.where(t > 0.0, t, 1.0)), np.sign(xx - 0.5) / 2.0 + 0.5)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True, slots=True)
class TemperatureLimits:
    """Closed forms at T = 1 and T -> 0 for binary (right/wrong) answers.

    Attributes
    ----------
    mean_t1, var_x_t1, mean_sigma2_t1 : float
        E[x], Var(x) and E[sigma^2] = E[x(1-x)] at T = 1.
    total_variance_t1 : float
        Variance of a single answer, ``Var(x) + E[sigma^2] = mean (1 - mean)``.
    mean_t0, var_x_t0, mean_sigma2_t0, total_variance_t0 : float
        The same at T -> 0, where ``x`` is rounded to ``1[x > 1/2]``: ``mean_t0 = P(x > 1/2) = p``,
        ``var_x_t0 = p(1-p)`` and ``mean_sigma2_t0 = 0``.
    bias : float
        ``mean_t0 - mean_t1``: how far greedy decoding moves the score.
    var_x_ratio : float
        ``var_x_t0 / var_x_t1``: how many times the variance that resampling cannot remove grows.
    """

    mean_t1: float
    var_x_t1: float
    mean_sigma2_t1: float
    total_variance_t1: float
    mean_t0: float
    var_x_t0: float
    mean_sigma2_t0: float
    total_variance_t0: float
    bias: float
    var_x_ratio: float


def temperature_limits(difficulty: Difficulty, /) -> TemperatureLimits:
    """The temperature trap in closed form: mean and variances at T = 1 and at T -> 0.

    Notes
    -----
    At T = 1 the score of a question is Bernoulli(x): Var(x) and E[sigma^2] = E[x(1-x)] follow from
    the difficulty distribution. At T -> 0 every answer is the most likely one, ``x_0 = 1[x > 1/2]``,
    a Bernoulli(p) variable with ``p = P(x > 1/2)``: all noise moved into Var(x_0) = p(1-p), which
    resampling cannot reduce (Miller 2024, Sec. 3.3). For U[0, 1], Var goes from 1/12 to 1/4 (tripled),
    the mean stays 1/2; for U[1/3, 1] the mean moves from 2/3 to 3/4 and Var from 1/27 to 3/16.

    Examples
    --------
    >>> lim = temperature_limits(UniformDifficulty(1/3, 1))
    >>> round(lim.mean_t0, 4), round(lim.var_x_t0, 4), round(lim.var_x_t1 * 27, 4)
    (0.75, 0.1875, 1.0)
    """
    d = _check_difficulty(difficulty)
    m1, v1, s1 = d.mean, d.var_x, d.mean_sigma2
    p = float(1.0 - d.cdf(0.5))  # T -> 0 rounds x at 1/2: Bernoulli(P(x > 1/2)), Sec. 3.3
    return TemperatureLimits(
        mean_t1=m1,
        var_x_t1=v1,
        mean_sigma2_t1=s1,
        total_variance_t1=m1 * (1.0 - m1),
        mean_t0=p,
        var_x_t0=p * (1.0 - p),
        mean_sigma2_t0=0.0,
        total_variance_t0=p * (1.0 - p),
        bias=p - m1,
        var_x_ratio=p * (1.0 - p) / v1,
    )


_NODES = 200  # Gauss-Legendre nodes per temperature
_TAIL = 40.0  # |logit x| beyond 40 T: x_T is within sigmoid(-40) = 4e-18 of 0 or 1


@lru_cache(maxsize=1)
def _gauss_legendre() -> tuple[np.ndarray, np.ndarray]:
    z, w = np.polynomial.legendre.leggauss(_NODES)
    z.flags.writeable = w.flags.writeable = False
    return z, w


def _moments(d: Difficulty, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """E[x_T], E[x_T^2], E[x_T(1-x_T)] for each T in ``t`` (shape (m,), all > 0)."""
    v_lo, v_hi = d._logit_support()
    cut = _TAIL * np.maximum(t, 1.0)  # (m,)
    lo, hi = np.maximum(v_lo, -cut), np.minimum(v_hi, cut)  # (m,) integration range in v = logit x
    # substitute v = T sinh(s): nodes are dense where x_T changes (|v| ~ T), sparse in the tails
    s_lo, s_hi = np.arcsinh(lo / t), np.arcsinh(hi / t)
    z, w = _gauss_legendre()
    half = ((s_hi - s_lo) / 2.0)[:, None]
    s = ((s_hi + s_lo) / 2.0)[:, None] + half * z  # (m, N)
    wt = half * w * t[:, None] * np.cosh(s) * d._logit_density(t[:, None] * np.sinh(s))  # (m, N)
    y = expit(np.sinh(s))  # x_T = sigmoid(v / T) at the nodes
    p_lo, p_hi = d._tails(lo, hi)  # (m,) mass cut off below lo and above hi
    p_lo, p_hi = np.where(lo > v_lo, p_lo, 0.0), np.where(hi < v_hi, p_hi, 0.0)
    y_lo, y_hi = expit(lo / t), expit(hi / t)
    e1 = (wt * y).sum(axis=1) + p_lo * y_lo + p_hi * y_hi
    e2 = (wt * y * y).sum(axis=1) + p_lo * y_lo**2 + p_hi * y_hi**2
    es = (wt * (y * (1.0 - y))).sum(axis=1) + p_lo * y_lo * (1.0 - y_lo) + p_hi * y_hi * (1.0 - y_hi)
    return e1, e2, es


@dataclass(frozen=True, slots=True)
class TemperatureCurve:
    """Mean and variance components of one binary answer, as functions of the temperature.

    Attributes
    ----------
    temperature : tuple of float
        The grid of T (as given; T = 0 means the greedy limit).
    mean : tuple of float
        E[x_T], the eval score the temperature would produce.
    var_x : tuple of float
        Var(x_T), the variance between questions (no resampling removes it).
    mean_sigma2 : tuple of float
        E[sigma_T^2] = E[x_T(1 - x_T)], the noise within a question (resampling divides it by K).
    total_variance : tuple of float
        ``var_x + mean_sigma2 = mean (1 - mean)``: the variance of one answer.
    """

    temperature: tuple[float, ...]
    mean: tuple[float, ...]
    var_x: tuple[float, ...]
    mean_sigma2: tuple[float, ...]
    total_variance: tuple[float, ...]

    def to_frame(self) -> Any:
        """Tidy ``pandas.DataFrame``: one row per T, columns named as the fields."""
        import pandas as pd  # heavy: only when a frame is asked for

        return pd.DataFrame({name: getattr(self, name) for name in self.__slots__})


def temperature_curve(difficulty: Difficulty, /, temperatures: Any = None) -> TemperatureCurve:
    """Mean, Var(x_T) and E[sigma_T^2] on a grid of temperatures, for the temperature slider.

    Parameters
    ----------
    difficulty : UniformDifficulty or BetaDifficulty
        The distribution of x at T = 1.
    temperatures : array_like of float >= 0, shape (m,), optional
        Default: 50 points from 0.02 to 1. T = 0 returns the closed-form greedy limit.

    Returns
    -------
    TemperatureCurve

    Notes
    -----
    With ``x_T = sigmoid(logit(x)/T)`` (see :func:`temperature_scale`)::

        mean(T)    = E[x_T]
        Var(x_T)   = E[x_T^2] - E[x_T]^2
        E[sig_T^2] = E[x_T (1 - x_T)]

    The expectations over the difficulty density are computed by Gauss-Legendre quadrature (200
    nodes) in ``s``, where ``logit(x) = T sinh(s)``: the nodes crowd where x_T changes fastest
    (``|logit x| ~ T``) for every T, and singular Beta densities become smooth in the logit scale.
    Beyond ``|logit x| = 40 max(T, 1)`` the exact tail mass is added at x_T = 0 or 1. The result
    matches the closed forms of :func:`temperature_limits` at T = 1 (to ~1e-12) and approaches the
    T -> 0 limit as T shrinks (the mean within O(T^2), the variances within O(T)).

    Examples
    --------
    >>> c = temperature_curve(UniformDifficulty(), [1.0, 0.0])
    >>> [round(v, 6) for v in c.var_x]
    [0.083333, 0.25]
    """
    d = _check_difficulty(difficulty)
    t = np.linspace(0.02, 1.0, 50) if temperatures is None else _as_temperatures(temperatures)
    t = np.atleast_1d(t).ravel()
    if t.size == 0:
        raise EvalStatsError("temperatures is empty; pass at least one T such as [1.0, 0.5, 0.0]")
    e1, e2, es = np.empty(t.size), np.empty(t.size), np.empty(t.size)
    pos = t > 0.0
    if pos.any():
        e1[pos], e2[pos], es[pos] = _moments(d, t[pos])
    if not pos.all():
        p = float(1.0 - d.cdf(0.5))  # T = 0: x_0 = 1[x > 1/2]
        e1[~pos], e2[~pos], es[~pos] = p, p, 0.0
    var = np.maximum(e2 - e1 * e1, 0.0)  # Var(x_T) = E[x_T^2] - E[x_T]^2
    return TemperatureCurve(
        temperature=tuple(t.tolist()),
        mean=tuple(e1.tolist()),
        var_x=tuple(var.tolist()),
        mean_sigma2=tuple(es.tolist()),
        total_variance=tuple((e1 * (1.0 - e1)).tolist()),
    )


@dataclass(frozen=True, slots=True)
class TemperatureHistogram:
    """Share of questions whose x_T falls in each bin, for each temperature (exact, no sampling).

    Attributes
    ----------
    temperature : tuple of float, length m
    edges : tuple of float, length bins + 1
        Bin edges on [0, 1]; bin j is ``(edges[j], edges[j+1]]`` (the first also holds 0).
    share : tuple of tuple of float, shape (m, bins)
        Probability that x_T falls in each bin; each row sums to 1.
    """

    temperature: tuple[float, ...]
    edges: tuple[float, ...]
    share: tuple[tuple[float, ...], ...]

    def to_frame(self) -> Any:
        """Tidy ``pandas.DataFrame``: ``temperature, bin_low, bin_high, share, density`` (share / width)."""
        import pandas as pd  # heavy: only when a frame is asked for

        e = np.asarray(self.edges)
        m, b = len(self.temperature), e.size - 1
        share = np.asarray(self.share).reshape(m, b)
        return pd.DataFrame(
            {
                "temperature": np.repeat(self.temperature, b),
                "bin_low": np.tile(e[:-1], m),
                "bin_high": np.tile(e[1:], m),
                "share": share.ravel(),
                "density": (share / np.diff(e)).ravel(),
            }
        )


def temperature_histogram(
    difficulty: Difficulty, /, temperatures: Any, *, bins: int = 20
) -> TemperatureHistogram:
    """Exact histogram of x_T (equal-width bins on [0, 1]) for each temperature: the morphing histogram.

    Notes
    -----
    ``x_T`` increases with ``x``, so ``x_T <= e`` exactly when ``x <= sigmoid(T logit(e))``; the share
    of a bin is a difference of the difficulty CDF at two such points. No random draws: the chart
    moves smoothly with T. For a seeded sample instead, use ``difficulty.sample(size, rng)`` and
    :func:`temperature_scale`.

    Examples
    --------
    >>> h = temperature_histogram(UniformDifficulty(), [0.0], bins=4)
    >>> h.share
    ((0.5, 0.0, 0.0, 0.5),)
    """
    d = _check_difficulty(difficulty)
    t = np.atleast_1d(_as_temperatures(temperatures)).ravel()
    if isinstance(bins, bool) or int(bins) != bins or bins < 1:
        raise EvalStatsError(f"bins ({bins!r}) must be a whole number >= 1")
    e = np.linspace(0.0, 1.0, int(bins) + 1)
    inner = np.log(e[1:-1]) - np.log1p(-e[1:-1])  # logit of the inner edges
    cdf = d.cdf(expit(t[:, None] * inner))  # (m, bins-1): P(x_T <= e) = F(sigmoid(T logit e))
    cum = np.concatenate([np.zeros((t.size, 1)), cdf, np.ones((t.size, 1))], axis=1)
    share = np.diff(cum, axis=1)  # (m, bins)
    return TemperatureHistogram(
        temperature=tuple(t.tolist()),
        edges=tuple(e.tolist()),
        share=tuple(tuple(r) for r in share.tolist()),
    )
