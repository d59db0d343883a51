"""The beta-binomial profile-likelihood interval for one model's accuracy from clustered 0/1 scores.

=================================  ===================================================================
:func:`betabinomial_profile_ci`    the interval ``{mu : 2 (l_max - l_p(mu)) <= z^2}`` of the beta-binomial
                                   model, profiled over the ICC; vectorised over many files
:func:`betabinomial_loglik`        the model's log-likelihood on a grid of accuracies and ICCs
=================================  ===================================================================

Why. Near 100% the accuracies of clusters are often J-shaped: most clusters near 100%, a few much
weaker. A file that happens to hold no weak cluster has a high mean and a small between-cluster
spread, so every interval built from the observed spread (CR2, Korn & Graubard's design-effect
Clopper-Pearson, the logit interval) sits above the truth. The beta-binomial likelihood sees the other
explanation of the same counts: a lower mean with a large ICC, whose clusters are mostly perfect,
explains "every cluster near 100%" about as well, and the profile likelihood keeps such means in the
interval. :func:`evalstats_core.proportions.binary_mean_interval` takes the union of this interval with
Korn & Graubard's and the logit one (coverage in ``bench/bench_edge_designs.py``).

The model: cluster ``g`` has accuracy ``r_g ~ Beta(mu phi, (1 - mu) phi)``, ``phi = 1 / rho - 1``
(``rho`` the ICC of the 0/1 answers), and ``x_g ~ Binomial(n_g, r_g)`` correct answers; the marginal
law of ``x_g`` is beta-binomial (Skellam 1948; Williams 1975).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit, gammaln

from ._results import Interval
from ._validate import check_confidence, z_for
from .errors import EvalStatsError

__all__ = ["ICC_GRID", "LOGIT_GRID", "betabinomial_loglik", "betabinomial_profile_ci"]

#: The accuracies searched, on the logit scale (step 0.1, ends interpolated linearly: accurate to about
#: 0.01 on the logit scale, 0.05 points at 95%; ``tests/test_betabinomial.py`` checks them against an
#: optimiser).
LOGIT_GRID = np.linspace(-10.0, 10.0, 201)

#: The ICCs the likelihood is maximised over: 1e-6 (binomial, to the precision that matters) to 0.98,
#: equally spaced on the logit scale (step 0.63: neighbours about 1.9x apart near 0, closer near 1,
#: where the likelihood bends fastest); the maximum between grid points is found by a parabola
#: through the three around the grid's best.
ICC_GRID = 1.0 / (1.0 + np.exp(-np.linspace(math.log(1e-6 / (1 - 1e-6)), math.log(0.98 / 0.02), 29)))

_CELLS = 20_000_000  # floats in one table of distinct (n_g, x_g) pairs x accuracies x ICCs, 160 MB


def _shapes(mu: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    phi = 1.0 / rho - 1.0
    return mu[:, None] * phi[None, :], (1.0 - mu)[:, None] * phi[None, :], phi


def _table(x: np.ndarray, n: np.ndarray, mu: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct ``(n_g, x_g)`` pair, ``log Gamma(x_g + a) + log Gamma(n_g - x_g + b)`` on the grid
    ``(U, M, K)``; the index of each cluster's pair ``(R, G)``; the rest of the log-likelihood, the
    same for every file of these sizes ``(M, K)``."""

    a, b, phi = _shapes(mu, rho)
    size_term = (gammaln(n[:, None] + phi[None, :]) - gammaln(phi)[None, :]).sum(0)  # (K,)
    size_term = size_term + n.size * (gammaln(a) + gammaln(b))  # (M, K): log B(a, b) once per cluster
    pairs = np.stack([np.broadcast_to(n, x.shape), x], axis=-1).reshape(-1, 2)
    uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
    wins, fails = uniq[:, 1, None, None], (uniq[:, 0] - uniq[:, 1])[:, None, None]
    table = gammaln(wins + a) + gammaln(fails + b)
    return table, inv.reshape(x.shape), size_term


def betabinomial_loglik(successes: Any, sizes: Any, mu: Any, rho: Any) -> np.ndarray:
    """Beta-binomial log-likelihood (without the binomial coefficients) of each file on a grid.

    Parameters
    ----------
    successes : array_like, shape (R, G)
        Correct answers per cluster, one file per row.
    sizes : array_like, shape (G,)
        Questions per cluster.
    mu, rho : array_like, shapes (M,) and (K,)
        Accuracies in (0, 1) and ICCs in (0, 1).

    Returns
    -------
    ndarray, shape (R, M, K)
        ``sum_g log B(x_g + a, n_g - x_g + b) - log B(a, b)``, ``a = mu phi``, ``b = (1 - mu) phi``.
    """
    x = np.rint(np.atleast_2d(np.asarray(successes, dtype=np.float64))).astype(np.int64)
    n = np.rint(np.asarray(sizes, dtype=np.float64)).astype(np.int64)
    table, inv, size_term = _table(x, n, np.asarray(mu, dtype=np.float64), np.asarray(rho, dtype=np.float64))
    return table[inv].sum(1) - size_term


def _profile(x: np.ndarray, n: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """``max_rho l(mu, rho)`` of each row of ``x`` on the grid ``mu``, shape ``(R, M)``.

    Each distinct ``(n_g, x_g)`` pair is evaluated once and gathered, so many simulated files near the
    ceiling (few distinct pairs) cost little more than one; rows are split when the pairs are too many.
    """
    cells = mu.size * ICC_GRID.size
    if x.shape[0] > 1 and x.shape[0] * x.shape[1] * cells > _CELLS:
        pairs = np.unique(np.stack([np.broadcast_to(n, x.shape), x], axis=-1).reshape(-1, 2), axis=0).shape[0]
        if pairs * cells > _CELLS:
            half = x.shape[0] // 2
            return np.concatenate([_profile(x[:half], n, mu), _profile(x[half:], n, mu)])
    table, inv, size_term = _table(x, n, mu, ICC_GRID)
    out = np.empty((x.shape[0], mu.size))
    block = max(1, 4_000_000 // cells)
    for start in range(0, x.shape[0], block):
        rows = slice(start, start + block)
        acc = np.broadcast_to(-size_term, (inv[rows].shape[0], mu.size, ICC_GRID.size)).copy()  # (rows, M, K)
        for g in range(x.shape[1]):
            acc += table[inv[rows, g]]
        out[rows] = _peak(acc)
    return out


def _peak(y: np.ndarray) -> np.ndarray:
    """The maximum over the last axis (equally spaced points), refined by the parabola through the best
    grid point and its neighbours (the grid's best at either end of the axis)."""
    k = np.clip(y.argmax(-1), 1, y.shape[-1] - 2)[..., None]
    y0, y1, y2 = (np.take_along_axis(y, k + d, -1)[..., 0] for d in (-1, 0, 1))
    curve = y0 - 2.0 * y1 + y2  # < 0 at an interior maximum
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = y1 - (y2 - y0) ** 2 / (8.0 * curve)
    best = y.max(-1)
    inner = (curve < 0.0) & (y1 >= np.maximum(y0, y2))  # the best point is interior: a true vertex
    return np.where(inner, np.maximum(vertex, best), best)


def _ends(stat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where ``stat`` (rows x logit grid, <= 0 inside the interval) crosses 0 on each side, interpolated
    linearly on the logit scale; the end of the scale when the grid's end is inside."""

    rows, m = stat.shape
    inside = stat <= 0.0
    idx = np.arange(m)
    first = np.where(inside, idx, m).min(1)
    last = np.where(inside, idx, -1).max(1)
    r = np.arange(rows)

    def cross(out_i: np.ndarray, in_i: np.ndarray) -> np.ndarray:
        s_in, s_out = stat[r, in_i], stat[r, out_i]
        w = s_in / (s_in - s_out)  # s_in <= 0 < s_out
        return expit(LOGIT_GRID[in_i] + w * (LOGIT_GRID[out_i] - LOGIT_GRID[in_i]))

    with np.errstate(divide="ignore", invalid="ignore"):  # the unused branch of a row at the scale's end
        low = np.where(first == 0, 0.0, cross(np.maximum(first - 1, 0), np.minimum(first, m - 1)))
        high = np.where(last == m - 1, 1.0, cross(np.minimum(last + 1, m - 1), np.maximum(last, 0)))
    return low, high


def betabinomial_profile_ci(successes: Any, sizes: Any, *, confidence: float = 0.95) -> Interval:
    """The beta-binomial profile-likelihood interval for the accuracy of clustered 0/1 scores.

    Parameters
    ----------
    successes : array_like, shape (G,) or (R, G)
        Correct answers per cluster (one file, or one file per row); or the sums of scores in [0, 1].
    sizes : array_like, shape (G,)
        Questions per cluster, at least 2 clusters.
    confidence : float, default 0.95

    Returns
    -------
    Interval
        ``(low, high)`` inside [0, 1] (floats for one file, arrays for several); the end of the scale
        when the likelihood cannot exclude it (e.g. 0 successes: low is 0).

    Notes
    -----
    ``l_p(mu) = max_rho l(mu, rho)``, maximised on :data:`ICC_GRID` (refined by a parabola); the interval is ``{mu : 2 (l_max -
    l_p(mu)) <= z^2}`` (the likelihood-ratio interval, chi-square with 1 df), searched on
    :data:`LOGIT_GRID` and interpolated. When every cluster is perfect the lower end is about
    ``exp(-z^2 / (2 G))``: what G clusters that each answered as one can say. Fractional ``successes`` (the
    sums of scores in [0, 1], :mod:`~evalstats_core.bounded_means`) enter the same formula unrounded: with
    the ICC near 0 it is the Bernoulli quasi-likelihood ``x log mu + (n - x) log(1 - mu)`` of fractional
    responses (Papke & Wooldridge 1996).

    References
    ----------
    Williams 1975, "The analysis of binary responses from toxicological experiments involving
    reproduction and teratogenicity", Biometrics 31(4), 949-952 (beta-binomial likelihood).
    Venzon & Moolgavkar 1988, "A method for computing profile-likelihood-based confidence intervals",
    Applied Statistics 37(1), 87-94.

    Examples
    --------
    >>> low, high = betabinomial_profile_ci([20, 20, 20], [20, 20, 20])
    >>> round(low, 2), high
    (0.54, 1.0)
    """
    level = check_confidence(confidence)
    x = np.asarray(successes, dtype=np.float64)
    one = x.ndim == 1
    x = np.atleast_2d(x)
    n = np.asarray(sizes, dtype=np.float64)
    if n.ndim != 1 or x.shape[1] != n.size or n.size < 2 or np.any(n < 1) or np.any(x < 0) or np.any(x > n):
        raise EvalStatsError("betabinomial_profile_ci needs 0 <= successes <= sizes per cluster, at least 2 clusters")

    mu, crit = expit(LOGIT_GRID), z_for(level) ** 2
    if np.array_equal(np.rint(x), x):  # counts
        prof = _profile(x.astype(np.int64), np.rint(n).astype(np.int64), mu)
    else:  # the sums of scores in [0, 1] stay fractional: their quasi-likelihood (Notes)
        prof = _profile(x, np.rint(n).astype(np.int64), mu)
    low, high = _ends(2.0 * (prof.max(1, keepdims=True) - prof) - crit)
    if one:
        return Interval(float(low[0]), float(high[0]))
    return Interval(low, high)
