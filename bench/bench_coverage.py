"""Replications per second of the small-N coverage experiment, three ways, measured in the same run.

1. ``coverage_experiment`` (evalstats): each method's N + 1 intervals computed once, then looked up
   by the simulated number of successes k.
2. A vectorised quantile-function approach: draw every (theta, k) pair, then compute each method's
   interval for all of them at once with ``proportion_ci_arrays`` (betaincinv / sqrt per replication).
3. A plain loop in the style of the paper's slides: ``scipy.stats.binomtest(k, n).proportion_ci`` for
   Wilson and Clopper-Pearson, ``scipy.stats.beta(...).interval`` for Bayes, the Wald formula by hand
   (a few hundred replications only).

Run: ``python bench/bench_coverage.py [--reps 1000000] [--loop-reps 300]``. Prints replications per
second for each approach and the ratios of the lookup to the other two; the target is >= 1e6 per
second for the lookup.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best  # noqa: E402

from evalstats_core.coverage import coverage_experiment  # noqa: E402
from evalstats_core.intervals import PROPORTION_METHODS, proportion_ci_arrays  # noqa: E402

NS = (3, 10, 30, 100)


def lookup(n: int, reps: int) -> None:
    coverage_experiment(n, reps=reps, rng=0)


def vectorised_quantiles(n: int, reps: int) -> None:
    rng = np.random.default_rng(0)
    theta = rng.random(reps)
    k = rng.binomial(n, theta)
    for method in PROPORTION_METHODS:
        low, high = proportion_ci_arrays(k, n, interval=method)
        np.mean((low <= theta) & (theta <= high))
        np.mean(high - low)


def scipy_loop(n: int, reps: int) -> None:
    from scipy import stats

    rng = np.random.default_rng(0)
    z = stats.norm.ppf(0.975)
    hits = dict.fromkeys(PROPORTION_METHODS, 0)
    for _ in range(reps):
        theta = rng.random()
        k = int(rng.binomial(n, theta))
        p = k / n
        half = z * math.sqrt(p * (1 - p) / n)
        test = stats.binomtest(k, n)
        intervals = {
            "wald": (p - half, p + half),
            "wilson": tuple(test.proportion_ci(0.95, method="wilson")),
            "clopper_pearson": tuple(test.proportion_ci(0.95, method="exact")),
            "bayes": stats.beta(1 + k, 1 + n - k).interval(0.95),
        }
        for method, (low, high) in intervals.items():
            hits[method] += low <= theta <= high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1_000_000, help="replications for the vectorised runs")
    parser.add_argument("--loop-reps", type=int, default=300, help="replications for the scipy loop")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best is reported)")
    args = parser.parse_args()

    lookup(10, 1000)  # warm up imports and caches
    scipy_loop(10, 5)
    print(f"coverage experiment, 4 methods, replications per second (best of {args.repeat})")
    header = ("N", "lookup", "vectorised", "scipy loop", "vs vectorised", "vs loop")
    print("{:>4} {:>12} {:>12} {:>12} {:>14} {:>10}".format(*header))
    slowest = math.inf
    for n in NS:
        rate_lookup = args.reps / best(lambda n=n: lookup(n, args.reps), args.repeat)
        rate_vec = args.reps / best(lambda n=n: vectorised_quantiles(n, args.reps), args.repeat)
        rate_loop = args.loop_reps / best(lambda n=n: scipy_loop(n, args.loop_reps), 1)
        slowest = min(slowest, rate_lookup)
        print(
            f"{n:>4} {rate_lookup:>12,.0f} {rate_vec:>12,.0f} {rate_loop:>12,.0f} "
            f"{rate_lookup / rate_vec:>13.1f}x {rate_lookup / rate_loop:>9,.0f}x"
        )
    verdict = "meets" if slowest >= 1e6 else "MISSES"
    print(f"slowest lookup rate {slowest:,.0f}/s: {verdict} the 1,000,000 replications per second target")


if __name__ == "__main__":
    main()
