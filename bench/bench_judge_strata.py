"""Where the judge-corrected interval over- and under-covers: coverage by the number of disagreements in the labels.

``ppi_mean``'s 95% interval (0/1 scores, 40 labels of 2,000 independent questions) is computed from the
labelled 2 x 2 table and the unlabelled judge passes (``judge_budget.ppi_counts``, tested equal to
``ppi_mean``). The replications of each design are split by what the labels show: no disagreement, one
false pass (judge pass, human fail) and no false fail, one false fail and no false pass, two
disagreements, three or more. For each stratum: its share of the replications, the coverage of the
shipped interval and of the plain t interval (no small-count terms), the misses on each side, the mean
arms and the mean error of the estimate. The designs are the ones that over-cover (near-perfect and good
judges) and the ones that pin the interval's width (a lenient judge, and a judge that misses passes at
the near-perfect judge's pass share).

Run: ``nice -n 5 python bench/bench_judge_strata.py [--reps 40000]`` (under a minute).
Results: ``bench/results/judge_strata.txt``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.judge_budget import ppi_counts  # noqa: E402

N_TOTAL = 2000
#: (sensitivity, specificity, true pass rate, labels)
DESIGNS = ((0.99, 0.99, 0.7, 40), (0.99, 0.99, 0.7, 30), (0.97, 0.97, 0.7, 40), (0.95, 0.95, 0.7, 40),
           (0.99, 0.80, 0.7, 40), (0.99, 0.80, 0.628, 40), (0.93, 0.99, 0.746, 40))


def draw(sens: float, spec: float, pass_rate: float, n: int, reps: int, seed: int):
    """The labelled table (n11, n10, n01, n00) and the unlabelled judge passes of ``reps`` evals."""
    gen = np.random.default_rng(seed)
    cells = [sens * pass_rate, (1 - spec) * (1 - pass_rate), (1 - sens) * pass_rate, spec * (1 - pass_rate)]
    return gen.multinomial(n, cells, size=reps), gen.binomial(N_TOTAL - n, cells[0] + cells[1], size=reps)


def strata(table: np.ndarray) -> dict[str, np.ndarray]:
    fp, ff = table[:, 1], table[:, 2]
    return {"none": fp + ff == 0, "1 false pass": (fp == 1) & (ff == 0), "1 false fail": (fp == 0) & (ff == 1),
            "2": fp + ff == 2, "3 or more": fp + ff >= 3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=40000)
    args = parser.parse_args()
    for seed, (se, sp, p, n) in enumerate(DESIGNS, start=1):
        table, passes = draw(se, sp, p, n, args.reps, seed)
        low, high = ppi_counts(*table.T, passes, n_total=N_TOTAL)
        plow, phigh = ppi_counts(*table.T, passes, n_total=N_TOTAL, small_counts=False)
        est = (plow + phigh) / 2
        cov, pcov = (low <= p) & (p <= high), (plow <= p) & (p <= phigh)
        print(f"judge {se:.2f}/{sp:.2f}, true pass rate {p}, {n} labels: coverage {cov.mean():.3f} "
              f"(plain t {pcov.mean():.3f}); half-width {100 * np.mean(high - low) / 2:.1f} points")
        print(f"  {'disagreements':14} {'share':>6} {'cover':>6} {'plain':>6} {'too low':>8} {'too high':>9}"
              f" {'lower arm':>10} {'upper arm':>10} {'plain arm':>10} {'est-truth':>10}")
        for name, m in strata(table).items():
            if not m.any():
                continue
            print(f"  {name:14} {m.mean():6.3f} {cov[m].mean():6.3f} {pcov[m].mean():6.3f} {np.mean(high[m] < p):8.3f}"
                  f" {np.mean(low[m] > p):9.3f} {100 * np.mean(est[m] - low[m]):10.1f} {100 * np.mean(high[m] - est[m]):10.1f}"
                  f" {100 * np.mean(phigh[m] - est[m]):10.1f} {100 * np.mean(est[m] - p):+10.1f}")
    print(f"{args.reps} seeded evals a design, {N_TOTAL} questions, independent; arms and errors in points")


if __name__ == "__main__":
    main()
