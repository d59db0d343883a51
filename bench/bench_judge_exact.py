"""Exact coverage of candidate judge-corrected intervals over the issue's continuous ranges (0/1 scores, no clusters).

Issue 23 asks the 95% interval of ``ppi_mean`` to cover 93%-97% for every judge with sensitivity 0.6-0.99
and specificity 0.5-0.99 and every labelled share of 2%-50% (at least 30 labels). The grid of
``bench/bench_judge_coverage.py`` samples three values of each; this script scans them finely and, having no
Monte Carlo error (``bench/bench_judge_exact_lib.py`` sums the exact distribution of the labelled 2 x 2 table and the
unlabelled judge passes), shows where each candidate construction leaves 93%-97%:

- ``shipped``: ``ppi_mean`` today (t arms with the Jeffreys MOVER small-count terms), ``plain``: its t interval;
- ``profile``: the joint profile-likelihood interval of ``theta = pi a + (1 - pi) b`` (one chi-square(1));
- ``bayes_jeffreys``: posterior quantiles of ``theta`` under Jeffreys priors (quadrature, no Monte Carlo);
- ``price_bonett``: Price & Bonett's (2004) adjusted Wald interval for a linear function of proportions;
- ``mover_wilson``: the shipped MOVER terms with Wilson limits.

Grids: ``fine`` = sensitivity {0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99} x specificity {0.5, 0.6,
0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99} x true pass rate {0.3, 0.5, 0.7} (330 designs);
``coarse`` = {0.6, 0.8, 0.9, 0.93, 0.95, 0.97, 0.99}^2 x {0.3, 0.5, 0.7} (147); ``p70`` = the coarse judges at
pass rate 0.7 (49); ``small`` = {0.8, 0.9, 0.95, 0.99}^2 at 0.7 (16). Labels: 30 of 1,500 questions (2%), 40, 100 and 200 of 2,000.

Run: ``nice -n 5 python bench/bench_judge_exact.py --methods shipped plain price_bonett mover_wilson --grid fine``;
``--methods profile --grid coarse --labels 30 40``; ``--methods bayes_jeffreys --grid p70 --labels 40``.
``--cells``: the four judges of the docstring of ``ppi_interval`` under every method. Results:
``bench/results/judge_exact.txt``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judge_exact_lib import METHODS, exact_coverage  # noqa: E402

FINE_SENS = (0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99)
FINE_SPEC = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99)
COARSE = (0.6, 0.8, 0.9, 0.93, 0.95, 0.97, 0.99)
SMALL = (0.8, 0.9, 0.95, 0.99)
RATES = (0.3, 0.5, 0.7)
LABELS = {30: 1500, 40: 2000, 100: 2000, 200: 2000}


def grid(name: str) -> list[tuple[float, float, float]]:
    if name == "fine":
        return list(itertools.product(FINE_SENS, FINE_SPEC, RATES))
    if name == "coarse":
        return list(itertools.product(COARSE, COARSE, RATES))
    if name == "p70":
        return list(itertools.product(COARSE, COARSE, (0.7,)))
    return list(itertools.product(SMALL, SMALL, (0.7,)))


CELLS = ((0.99, 0.80), (0.99, 0.99), (0.93, 0.99), (0.8, 0.5))


def cells() -> None:
    """The lenient (0.99 / 0.80), near-perfect (0.99 / 0.99) and two other judges at 40 labels, pass rate 0.7."""
    print("40 labels of 2,000, pass rate 0.7: coverage (share missed below, above) for judges "
          + ", ".join(f"{s}/{c}" for s, c in CELLS))
    variants = dict(METHODS) | {f"price_bonett {a}": partial(METHODS["price_bonett"], add=a) for a in (0.1, 0.25, 0.5, 0.75)}
    for name, method in variants.items():
        start = time.process_time()
        out = [exact_coverage(method, s, c, 0.7, 40, 2000, both=True) for s, c in CELLS]
        print(f"{name:20}" + " ".join(f"{x[0]:.4f} ({x[1]:.3f}, {x[2]:.3f})" for x in out)
              + f"   ({time.process_time() - start:.0f} s CPU)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["shipped", "plain", "price_bonett", "mover_wilson"])
    parser.add_argument("--grid", choices=("fine", "coarse", "p70", "small"), default="fine")
    parser.add_argument("--labels", nargs="+", type=int, default=list(LABELS))
    parser.add_argument("--show", type=int, default=3, help="designs shown at each end")
    parser.add_argument("--cells", action="store_true", help="only the four named judges, every method (and "
                        "Price & Bonett's pseudo-counts varied), coverage (lower miss, upper miss)")
    args = parser.parse_args()
    if args.cells:
        cells()
        return
    designs = grid(args.grid)
    print(f"{'method':15} {'labels':>6} {'of':>5} {'designs':>7}  {'min':>6} {'max':>6} {'<93%':>5} {'>97%':>5}  "
          "lowest / highest (sens, spec, pass rate: coverage)")
    for name in args.methods:
        for n in args.labels:
            start = time.process_time()
            cov = np.array([exact_coverage(METHODS[name], s, c, p, n, LABELS[n]) for s, c, p in designs])
            order = np.argsort(cov)
            ends = [order[: args.show], order[::-1][: args.show]]
            text = " / ".join(", ".join(f"{designs[i][0]:.2f} {designs[i][1]:.2f} {designs[i][2]:.1f}: {cov[i]:.3f}"
                                        for i in e) for e in ends)
            print(f"{name:15} {n:6d} {LABELS[n]:5d} {len(designs):7d}  {cov.min():6.3f} {cov.max():6.3f} "
                  f"{np.sum(cov < 0.93):5d} {np.sum(cov > 0.97):5d}  {text}   ({time.process_time() - start:.0f} s CPU)",
                  flush=True)


if __name__ == "__main__":
    main()
