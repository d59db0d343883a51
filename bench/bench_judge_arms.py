"""Could any arms fixed per labelled table put every judge at 40 labels between 93% and 97%? A fitted bound.

The candidates of ``bench/bench_judge_exact.py`` are formulas; this asks the question for a whole class of
intervals: ``[est - L_t, est + U_t]`` around ``ppi_mean``'s estimate, with ``L_t``, ``U_t`` any numbers chosen
per labelled 2 x 2 table ``t`` (``k1`` of ``m1``, ``k0`` of ``m0``; 12,341 tables at 40 labels). Given ``t``
the estimate ``lam P / N + mean_L(Y - lam f)`` is taken as normal in the unlabelled judge passes ``P`` (``lam`` taken at
``P = N q``), so a design's coverage is a smooth sum over tables,
``sum_t P(t) [Phi((L_t - d_t) / s_t) - Phi((-U_t - d_t) / s_t)]`` (``d_t`` the estimate's mean minus the truth
given ``t``, ``s_t`` its SD), and the arms can be fitted by L-BFGS to a dense grid of judges (sensitivity
0.60-0.99 x specificity 0.50-0.99 at the true pass rates ``--rates``), pushing every design into ``[--low, --high]``.
The fit is then checked on the grid's midpoints (judges and pass rates it never saw; ``--check-rates``).
Starting point: the shipped arms. The normal step is checked by recomputing a fit's coverage exactly
on nine judges at each check rate (``bench_judge_exact_lib.exact_coverage``; the estimate at every ``P``).

This is a search, not a proof: a fit that lands inside the band shows that table-wise arms can do it (a
target for a formula); one that cannot get the top below 97% with the floor at 93% is evidence, not a
certificate, that no interval of this class can. Nothing here is shipped.

Run: ``nice -n 5 python bench/bench_judge_arms.py --rates 0.3 0.4 0.5 0.6 0.7 --check-rates 0.35 0.45 0.55 0.65
--steps 11 11 --iters 200`` (a minute of CPU). Results: ``bench/results/judge_exact.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln, ndtr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judge_exact_lib import exact_coverage, plain  # noqa: E402

from evalstats_core.judge_budget import ppi_counts  # noqa: E402

CHECK = ((0.99, 0.99), (0.99, 0.80), (0.93, 0.99), (0.97, 0.97), (0.95, 0.95), (0.8, 0.5), (0.6, 0.99), (0.9, 0.93),
         (0.6, 0.5))


def exact_check(tab, arms, labels, n_total, rates):
    """Exact coverage of ``[est - L_t, est + U_t]`` (the estimate at every ``P``) on :data:`CHECK` at ``rates``."""
    key = {tuple(map(int, r)): i for i, r in enumerate(tab)}
    k = arms.size // 2

    def fitted(k1, m1, k0, m0, big_p, nt, level):
        idx = np.array([key.get((int(a), int(b - a), int(c), int(d - c)), -1)
                        for a, b, c, d in zip(k1[:, 0], m1[:, 0], k0[:, 0], m0[:, 0], strict=True)])
        lo = np.where(idx >= 0, arms[:k][idx], 0.5)[:, None]
        up = np.where(idx >= 0, arms[k:][idx], 0.5)[:, None]
        est = sum(plain(k1, m1, k0, m0, big_p, nt, level)) / 2
        return est - lo, est + up

    return np.array([exact_coverage(fitted, s, c, r, labels, n_total) for r in rates for s, c in CHECK])


def all_tables(n: int) -> np.ndarray:
    """Every labelled table as rows (n11, n10, n01, n00)."""
    return np.array([(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
                     for c in range(n + 1 - a - b)], dtype=float)


def designs(sens, spec, rates):
    s, c, r = np.meshgrid(sens, spec, rates, indexing="ij")
    return np.column_stack([s.ravel(), c.ravel(), r.ravel()])


def terms(tab: np.ndarray, des: np.ndarray, n_total: int):
    """``(prob, d, s)`` per (design, table): the table's probability, the estimate's mean minus the truth, its SD."""
    n = tab[0].sum()
    big_n = n_total - n
    s, c, p = des[:, 0:1], des[:, 1:2], des[:, 2:3]
    cells = np.stack([s * p, (1 - c) * (1 - p), (1 - s) * p, c * (1 - p)], axis=-1)[:, 0, :]
    logp = gammaln(n + 1) - gammaln(tab + 1).sum(1)[None, :] + (np.log(cells)[:, None, :] * tab[None]).sum(-1)
    q = cells[:, 0] + cells[:, 1]
    n11, n10, n01, n00 = tab.T
    prob, d, sd = np.exp(logp), np.empty(logp.shape), np.empty(logp.shape)
    for j, qj in enumerate(q):
        big_p = np.full(n11.shape, big_n * qj)
        low, high = ppi_counts(n11, n10, n01, n00, big_p, n_total=n_total, small_counts=False)
        est = (low + high) / 2
        lam = _lam(n11, n10, n01, n00, big_p, n_total)
        d[j] = est - p[j, 0]
        sd[j] = np.maximum(lam, 1e-3) * np.sqrt(qj * (1 - qj) / big_n)
    return prob, d, sd


def _lam(n11, n10, n01, n00, c, n_total):
    n = n11 + n10 + n01 + n00
    big_n = n_total - n
    total = c + n11 + n10
    var_f = (total - total * total / n_total) / (n_total - 1)
    cov = n11 / n - (n11 + n01) / n * (n11 + n10) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(np.where(var_f > 0, cov / ((1.0 + n / big_n) * var_f), 0.0), 0.0, 1.0)


def coverage(arms, prob, d, sd):
    k = arms.size // 2
    lo, up = arms[:k], arms[k:]
    return (prob * (ndtr((lo - d) / sd) - ndtr((-up - d) / sd))).sum(1)


def fit(arms0, prob, d, sd, low, high, iters):
    k = arms0.size // 2
    phi = lambda x: np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)  # noqa: E731

    def loss(arms):
        lo, up = arms[:k], arms[k:]
        a, b = (lo - d) / sd, (-up - d) / sd
        cov = (prob * (ndtr(a) - ndtr(b))).sum(1)
        over, under = np.maximum(cov - high, 0), np.maximum(low - cov, 0)
        value = 1e4 * float((over**2).sum() + 4 * (under**2).sum())
        g = 1e4 * (2 * over - 8 * under)
        grad_lo = (g[:, None] * prob * phi(a) / sd).sum(0)
        grad_up = (g[:, None] * prob * phi(b) / sd).sum(0)
        return value, np.concatenate([grad_lo, grad_up])

    res = minimize(loss, arms0, jac=True, method="L-BFGS-B", bounds=[(0, 0.6)] * arms0.size,
                   options=dict(maxiter=iters))
    return res.x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=40)
    parser.add_argument("--n-total", type=int, default=2000)
    parser.add_argument("--rates", type=float, nargs="+", default=[0.7])
    parser.add_argument("--check-rates", type=float, nargs="+", default=None)
    parser.add_argument("--steps", type=int, nargs=2, default=(27, 29))
    parser.add_argument("--save", default=None, help="npz file for the fitted arms")
    parser.add_argument("--low", type=float, default=0.935)
    parser.add_argument("--high", type=float, default=0.965)
    parser.add_argument("--iters", type=int, default=400)
    args = parser.parse_args()
    start = time.process_time()
    tab = all_tables(args.labels)
    sens, spec = np.linspace(0.6, 0.99, args.steps[0]), np.linspace(0.5, 0.99, args.steps[1])
    train = designs(sens, spec, args.rates)
    mids = designs((sens[:-1] + sens[1:]) / 2, (spec[:-1] + spec[1:]) / 2, args.check_rates or args.rates)
    prob, d, sd = terms(tab, train, args.n_total)
    keep = prob.max(0) > 1e-10
    tab, prob, d, sd = tab[keep], prob[:, keep], d[:, keep], sd[:, keep]
    n11, n10, n01, n00 = tab.T
    big_p = np.full(n11.shape, (args.n_total - args.labels) * args.rates[-1])
    lo0, hi0 = ppi_counts(n11, n10, n01, n00, big_p, n_total=args.n_total)
    est0 = (lambda a, b: (a + b) / 2)(*ppi_counts(n11, n10, n01, n00, big_p, n_total=args.n_total, small_counts=False))
    arms0 = np.concatenate([est0 - lo0, hi0 - est0])
    mprob, md, msd = terms(tab, mids, args.n_total)
    fitted = fit(arms0, prob, d, sd, args.low, args.high, args.iters)
    if args.save:
        np.savez(args.save, tables=tab, arms=fitted, shipped=arms0)
    for name, arms in (("shipped arms", arms0), ("fitted arms", fitted)):
        c, m = coverage(arms, prob, d, sd), coverage(arms, mprob, md, msd)
        print(f"{name:13}  grid ({len(train)} judges): {c.min():.3f}-{c.max():.3f}, {np.sum(c < 0.93)} below 93%, "
              f"{np.sum(c > 0.97)} above 97%;  midpoints ({len(mids)}): {m.min():.3f}-{m.max():.3f}, "
              f"{np.sum(m < 0.93)} below, {np.sum(m > 0.97)} above", flush=True)
        show = lambda i, x: f"{x[i, 0]:.3f}/{x[i, 1]:.3f}@{x[i, 2]:.2f}: "  # noqa: E731
        print("   highest on the grid: " + ", ".join(show(i, train) + f"{c[i]:.3f}" for i in np.argsort(c)[::-1][:3])
              + "; lowest: " + ", ".join(show(i, train) + f"{c[i]:.3f}" for i in np.argsort(c)[:3])
              + "; midpoints highest: " + ", ".join(show(i, mids) + f"{m[i]:.3f}" for i in np.argsort(m)[::-1][:2])
              + ", lowest: " + ", ".join(show(i, mids) + f"{m[i]:.3f}" for i in np.argsort(m)[:2]))
    ex = exact_check(tab, fitted, args.labels, args.n_total, args.check_rates or args.rates)
    print(f"fitted arms, exact coverage of {ex.size} judges at the check rates: {ex.min():.3f}-{ex.max():.3f}")
    print(f"{args.labels} labels of {args.n_total}, true pass rates {args.rates} (midpoints at "
          f"{args.check_rates or args.rates}), {keep.sum()} tables; "
          f"target band {args.low}-{args.high}; {time.process_time() - start:.0f} s CPU")


if __name__ == "__main__":
    main()
