"""Exact coverage of judge-corrected intervals for 0/1 scores (independent questions), and the candidate intervals.

Used by ``bench/bench_judge_exact.py`` (the scan) and ``tests/test_judge_exact.py`` (its checks).

The data of a judged eval with ``n`` labelled questions out of ``n_total`` are, for 0/1 scores without
clusters, the labelled 2 x 2 table (``k1`` human passes among the ``m1`` labelled judge passes, ``k0`` among
the ``m0`` labelled judge fails) and ``P``, the judge passes among the ``N = n_total - n`` unlabelled
questions. Under the design of ``evalstats_core.judge_sim`` (true pass rate ``p``, judge sensitivity ``s``
and specificity ``c``) ``m1 ~ Bin(n, q)``, ``k1 | m1 ~ Bin(m1, a)``, ``k0 | m0 ~ Bin(m0, b)`` and, apart,
``P ~ Bin(N, q)``, with ``q = s p + (1 - c)(1 - p)`` the judge's pass share, ``a = s p / q`` and
``b = (1 - s) p / (1 - q)``; the truth is ``p = q a + (1 - q) b``. :func:`exact_coverage` sums the
probability of every (table, ``P``) whose interval covers ``p`` (tables and ``P`` below ``1e-13`` of
probability dropped), so a design takes well under a second and has no Monte Carlo error.

Intervals (each ``f(k1, m1, k0, m0, P, n_total, level) -> (low, high)``, arrays):

- :func:`shipped`: ``ppi_mean``'s interval today (``judge_budget.ppi_counts``: t arms plus the Jeffreys
  MOVER small-count terms); :func:`plain`: its t interval without them;
- :func:`profile`: the profile-likelihood (Wilks) interval of ``theta = pi a + (1 - pi) b`` with the judge's
  pass share ``pi`` estimated from all ``n_total`` verdicts: one chi-square(1) for the three parameters
  jointly (:func:`profile_limits`);
- :func:`price_bonett`: the adjusted Wald interval for a linear function of binomial proportions (Price &
  Bonett 2004: each of ``a``, ``b`` gets ``2/k`` pseudo-successes and ``4/k`` pseudo-trials, ``k = 2``),
  plus the normal variance of the judge's share ``(a~ - b~)^2 pi (1 - pi) / n_total``;
- :func:`mover_wilson`: ``shipped`` with Wilson limits in place of Jeffreys in the small-count terms;
- :func:`bayes_jeffreys`: equal-tailed posterior quantiles of ``theta`` under independent Jeffreys priors on
  ``a``, ``b`` and ``pi`` (Gauss-Jacobi quadrature over ``a`` and ``b``, normal over ``pi``; no Monte Carlo).
"""

from __future__ import annotations

import sys
from functools import cache, partial
from pathlib import Path

import numpy as np
from scipy.special import betainc, ndtri, roots_jacobi, xlogy
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.judge_budget import ppi_counts  # noqa: E402

TOL = 1e-13


def _support(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = binom.ppf(TOL, n, p), binom.isf(TOL, n, p)
    x = np.arange(int(max(lo - 1, 0)), int(min(hi + 1, n)) + 1)
    w = binom.pmf(x, n, p)
    keep = w > TOL
    return x[keep], w[keep]


def tables(n: int, q: float, a: float, b: float) -> tuple[np.ndarray, ...]:
    """``(k1, m1, k0, m0, pmf)`` of every labelled table with probability above ``TOL``."""
    out = []
    for m1, w in zip(*_support(n, q), strict=True):
        k1, w1 = _support(int(m1), a) if m1 else (np.array([0]), np.array([1.0]))
        k0, w0 = _support(int(n - m1), b) if n - m1 else (np.array([0]), np.array([1.0]))
        kk1, kk0 = np.meshgrid(k1, k0, indexing="ij")
        pmf = w * np.outer(w1, w0)
        keep = pmf > TOL
        out.append(np.stack([kk1[keep], np.full(keep.sum(), m1), kk0[keep], np.full(keep.sum(), n - m1), pmf[keep]]))
    t = np.concatenate(out, axis=1)
    return t[0], t[1], t[2], t[3], t[4]


def design(sens: float, spec: float, p: float) -> tuple[float, float, float]:
    """``(q, a, b)``: the judge's pass share and the human pass shares among its passes and fails."""
    q = sens * p + (1 - spec) * (1 - p)
    return q, sens * p / q, (1 - sens) * p / (1 - q)


def exact_coverage(method, sens: float, spec: float, p: float, n: int, n_total: int, level: float = 0.95,
                   *, both: bool = False, chunk: int = 4_000_000):
    """Coverage of ``method``'s interval of ``p`` (and, with ``both``, the lower and upper miss shares)."""
    q, a, b = design(sens, spec, p)
    k1, m1, k0, m0, w = tables(n, q, a, b)
    big_p, wp = _support(n_total - n, q)
    cover = low_miss = 0.0
    step = max(chunk // big_p.size, 1)
    for s in range(0, k1.size, step):
        sl = slice(s, s + step)
        shape = (k1[sl].size, big_p.size)
        args = [np.broadcast_to(x[sl, None], shape) for x in (k1, m1, k0, m0)]
        lo, hi = method(*args, np.broadcast_to(big_p[None, :], shape), n_total, level)
        weight = w[sl, None] * wp[None, :]
        cover += float(np.sum(weight * ((lo <= p) & (p <= hi))))
        low_miss += float(np.sum(weight * (lo > p)))
    total = float(w.sum() * wp.sum())
    if both:
        return cover / total, low_miss / total, 1 - (cover + low_miss) / total
    return cover / total


def _counts(k1, m1, k0, m0):
    return k1, m1 - k1, k0, m0 - k0


def shipped_direct(k1, m1, k0, m0, big_p, n_total, level, *, small_counts: bool = True):
    """``ppi_mean``'s interval from the counts, at every ``P`` (slow: ``shipped`` interpolates it)."""
    return ppi_counts(*_counts(k1, m1, k0, m0), big_p, n_total=n_total, confidence=level, small_counts=small_counts)


def shipped(k1, m1, k0, m0, big_p, n_total, level):
    """:func:`shipped_direct` at 9 Chebyshev nodes of ``P`` (equal to it to 1e-5 in coverage on the designs tried)."""
    return _by_nodes(shipped_direct, k1, m1, k0, m0, big_p, n_total, level, nodes=9)


def plain(k1, m1, k0, m0, big_p, n_total, level):
    return _by_nodes(partial(shipped_direct, small_counts=False), k1, m1, k0, m0, big_p, n_total, level, nodes=9)


def wilson_limits(k, m, z2):
    p = k / m
    centre = (p + z2 / (2 * m)) / (1 + z2 / m)
    arm = np.sqrt(z2) / (1 + z2 / m) * np.sqrt(p * (1 - p) / m + z2 / (4 * m * m))
    return np.where(k == 0, 0.0, centre - arm), np.where(k == m, 1.0, centre + arm)


def mover_wilson(k1, m1, k0, m0, big_p, n_total, level):
    return ppi_counts(*_counts(k1, m1, k0, m0), big_p, n_total=n_total, confidence=level, limits=wilson_limits)


def _share(k1, m1, big_p, n_total):
    pi = (m1 + big_p) / n_total
    return pi, pi * (1 - pi) / n_total


def price_bonett(k1, m1, k0, m0, big_p, n_total, level, *, add: float = 1.0):
    """Price & Bonett (2004) for ``pi a + (1 - pi) b``: ``add`` pseudo-successes, ``2 add`` pseudo-trials each."""
    z = ndtri(0.5 + level / 2)
    pi, var_pi = _share(k1, m1, big_p, n_total)
    at, bt = (k1 + add) / (m1 + 2 * add), (k0 + add) / (m0 + 2 * add)
    est = pi * at + (1 - pi) * bt
    var = pi**2 * at * (1 - at) / (m1 + 2 * add) + (1 - pi) ** 2 * bt * (1 - bt) / (m0 + 2 * add) + (at - bt) ** 2 * var_pi
    arm = z * np.sqrt(var)
    return est - arm, est + arm


def _root(c, k, m):
    """The maximiser in [0, 1] of ``k log x + (m - k) log(1 - x) - c x`` (closed form; ``m = 0``: free, 0.5)."""
    c, k, m = np.broadcast_arrays(c, k, m)
    s = c + m
    disc = np.sqrt(np.maximum(s * s - 4 * c * k, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(s >= 0, 2 * k / (s + disc), (s - disc) / (2 * c))
    r = np.where(m > 0, r, np.where(c > 0, 0.0, np.where(c < 0, 1.0, 0.5)))
    return np.clip(np.nan_to_num(r, nan=0.0), 0.0, 1.0)


def _loglik(pi, a, b, big_m, n_total, k1, m1, k0, m0):
    return (xlogy(big_m, pi) + xlogy(n_total - big_m, 1 - pi) + xlogy(k1, a) + xlogy(m1 - k1, 1 - a)
            + xlogy(k0, b) + xlogy(m0 - k0, 1 - b))


def _constrained(mu, k1, m1, k0, m0, big_m, n_total, sweeps: int = 6):
    """The maximiser of the log-likelihood minus ``mu * theta`` (Lagrange): ``(theta, loglik)``."""
    pi = big_m / n_total
    for _ in range(sweeps):
        a = _root(mu * pi, k1, m1)
        b = _root(mu * (1 - pi), k0, m0)
        pi = _root(mu * (a - b), big_m, n_total)
    a = _root(mu * pi, k1, m1)
    b = _root(mu * (1 - pi), k0, m0)
    return pi * a + (1 - pi) * b, _loglik(pi, a, b, big_m, n_total, k1, m1, k0, m0)


def profile_limits(k1, m1, k0, m0, big_m, n_total, crit, iters: int = 60):
    """Limits of ``theta`` where the profile deviance reaches ``crit`` (bisection on log ``mu``)."""
    theta0, top = _constrained(np.zeros(np.shape(k1)), k1, m1, k0, m0, big_m, n_total)
    out = []
    for sign in (1.0, -1.0):
        lo, hi = np.full(np.shape(k1), -8.0), np.full(np.shape(k1), 9.0)  # log10 mu
        for _ in range(iters):
            mid = (lo + hi) / 2
            _, ll = _constrained(sign * 10.0**mid, k1, m1, k0, m0, big_m, n_total)
            past = 2 * (top - ll) > crit
            lo, hi = np.where(past, lo, mid), np.where(past, mid, hi)
        th, ll = _constrained(sign * 10.0 ** ((lo + hi) / 2), k1, m1, k0, m0, big_m, n_total)
        out.append(np.where(2 * (top - ll) >= 0.5 * crit, th, 0.0 if sign > 0 else 1.0))
    return out[0], out[1]


def _by_nodes(fn, k1, m1, k0, m0, big_p, n_total, level, nodes: int = 7):
    """``fn`` at ``nodes`` Chebyshev values of ``P`` per table, interpolated (polynomial) to every ``P``.

    The limits move smoothly with ``P`` (through the judge's pass share), so a few nodes give them to
    ~1e-7; the exact coverage then sums over every integer ``P``."""
    col = big_p[0]
    lo_p, hi_p = float(col.min()), float(col.max())
    t = np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    xs = (lo_p + hi_p) / 2 + (hi_p - lo_p) / 2 * t
    rows = [x[:, 0] for x in (k1, m1, k0, m0)]
    vals = [fn(*rows, np.full(rows[0].shape, x), n_total, level) for x in xs]
    u = (2 * col - lo_p - hi_p) / max(hi_p - lo_p, 1)
    v = np.polynomial.chebyshev.chebvander(t, nodes - 1)
    basis = np.polynomial.chebyshev.chebvander(u, nodes - 1)
    out = []
    for side in range(2):
        y = np.stack([vl[side] for vl in vals])  # nodes x tables
        coef = np.linalg.solve(v, y)
        out.append((basis @ coef).T)
    return out[0], out[1]


def _profile_one(k1, m1, k0, m0, big_p, n_total, level):
    crit = ndtri(0.5 + level / 2) ** 2
    return profile_limits(k1, m1, k0, m0, m1 + big_p, n_total, crit)


def profile(k1, m1, k0, m0, big_p, n_total, level):
    return _by_nodes(_profile_one, k1, m1, k0, m0, big_p, n_total, level)


@cache
def _jacobi(alpha: float, beta: float, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes in [0, 1] and weights of the Beta(beta + 1, alpha + 1) density (Gauss-Jacobi)."""
    x, w = roots_jacobi(nodes, alpha, beta)
    return (x + 1) / 2, w / w.sum()


def _bayes_one(k1, m1, k0, m0, big_p, n_total, level, nodes: int = 20, iters: int = 36):
    """Posterior quantiles of ``pi a + (1 - pi) b`` (Jeffreys priors), ``pi`` at its posterior normal."""
    tail = (1 - level) / 2
    big_m = m1 + big_p
    pi = (big_m + 0.5) / (n_total + 1)
    sd_pi = np.sqrt(pi * (1 - pi) / (n_total + 2))
    hx, hw = np.polynomial.hermite_e.hermegauss(5)
    hw = hw / hw.sum()
    keys = np.stack([k1, m1]).T
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.ravel()
    ax = np.empty((uniq.shape[0], nodes))
    aw = np.empty_like(ax)
    for i, (k, m) in enumerate(uniq):
        ax[i], aw[i] = _jacobi(m - k - 0.5, k - 0.5, nodes)
    ax, aw = ax[inv], aw[inv]
    qb, rb = k0 + 0.5, m0 - k0 + 0.5

    def cdf(t):
        total = np.zeros(t.shape)
        for x, wt in zip(hx, hw, strict=True):
            pj = np.clip(pi + sd_pi * x, 1e-9, 1 - 1e-9)
            arg = (t[:, None] - pj[:, None] * ax) / (1 - pj[:, None])
            total += wt * np.sum(aw * betainc(qb[:, None], rb[:, None], np.clip(arg, 0.0, 1.0)), axis=1)
        return total

    out = []
    for target in (tail, 1 - tail):
        lo, hi = np.zeros(k1.shape), np.ones(k1.shape)
        for _ in range(iters):
            mid = (lo + hi) / 2
            below = cdf(mid) < target
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out.append((lo + hi) / 2)
    return out[0], out[1]


def bayes_jeffreys(k1, m1, k0, m0, big_p, n_total, level):
    """Posterior quantiles (:func:`_bayes_one`) at 5 nodes of ``P``; the quadrature moves coverage by up to ~0.003."""
    return _by_nodes(_bayes_one, k1, m1, k0, m0, big_p, n_total, level, nodes=5)


METHODS = {"shipped": shipped, "plain": plain, "profile": profile, "price_bonett": price_bonett,
           "mover_wilson": mover_wilson, "bayes_jeffreys": bayes_jeffreys}

