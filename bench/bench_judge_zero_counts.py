"""Why one cell of the judge coverage grid covers 99%: other small-count limits on the two cells that pull apart.

The corrected interval of ``ppi_mean`` (0/1 scores) allows for judge errors the labels may have missed
(``evalstats_core.judge_interval.ppi_interval``). With 40 labels of 2,000 questions (true pass rate 0.7) two
cells of ``bench/bench_judge_coverage.py`` pull in opposite directions: a lenient judge (sensitivity 0.99,
specificity 0.80) needs that allowance to reach 93%, and a near-perfect judge (0.99 / 0.99), whose 40
labels usually hold no error at all, gets more than 97% from it. This script draws the labelled 2 x 2 table
and the unlabelled judge passes directly (their exact distribution under the design; independent
questions) and computes ``ppi_mean``'s interval from the counts (``judge_budget.ppi_counts``, tested equal
to ``ppi_mean``) with each of these limits in the small-count terms:

- ``plain``: no small-count terms (the t interval);
- ``jeffreys``: the shipped Jeffreys limits;
- ``jeffreys@L``: Jeffreys, but at a zero count (no false pass, or no false fail) the limit at the
  two-sided level L;
- ``likelihood``: the likelihood-ratio (Wilks) limits, narrower than Jeffreys at a zero count.

Each prints the coverage of both cells and of their mirror images (pass and fail swapped: true pass rate
0.3, sensitivity and specificity exchanged). No limit that treats the two kinds of error alike puts both
cells between 93% and 97%.

Run: ``nice -n 5 python bench/bench_judge_zero_counts.py [--reps 20000]`` (a few seconds). Results:
``bench/results/judge_zero_counts.txt`` (Jeffreys 0.95 / 0.99; zero-count limits at 80% bring the
near-perfect judge to 0.96 and the lenient one to 0.90; likelihood-ratio 0.92 / 0.98).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.special import betaincinv, ndtr, xlogy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.judge_budget import ppi_counts  # noqa: E402
from evalstats_core.judge_interval import jeffreys_limits  # noqa: E402

N_TOTAL, N_LABELS = 2000, 40
CELLS = {"lenient 0.99/0.80": (0.99, 0.80), "near-perfect 0.99/0.99": (0.99, 0.99)}


def zero_count_level(level: float):
    """Jeffreys limits, but at k = 0 (k = m) the upper (lower) one at the two-sided ``level``."""
    def limits(k, m, z2):
        low, high = jeffreys_limits(k, m, z2)
        tail = (1 - level) / 2
        return (np.where(k == m, betaincinv(k + 0.5, m - k + 0.5, tail), low),
                np.where(k == 0, betaincinv(k + 0.5, m - k + 0.5, 1 - tail), high))
    return limits


def likelihood_limits(k, m, z2):
    """Likelihood-ratio limits: the p with 2 (loglik(k/m) - loglik(p)) = z2, by bisection on each side."""
    k, m = np.asarray(k, dtype=float), np.asarray(m, dtype=float)
    z2 = np.broadcast_to(np.asarray(z2, dtype=float), k.shape)
    ph = k / m

    def drop(p):
        p = np.clip(p, 1e-300, 1 - 1e-16)
        top = xlogy(k, np.where(k > 0, ph, 1)) + xlogy(m - k, np.where(k < m, 1 - ph, 1))
        return 2 * (top - xlogy(k, p) - xlogy(m - k, 1 - p)) - z2

    out = []
    for edge in (0.0, 1.0):
        inside, outside = ph.copy(), np.full(k.shape, edge)
        for _ in range(60):
            mid = (inside + outside) / 2
            past = drop(mid) > 0
            inside, outside = np.where(past, inside, mid), np.where(past, mid, outside)
        out.append((inside + outside) / 2)
    return np.where(k == 0, 0.0, out[0]), np.where(k == m, 1.0, out[1])


def coverage(sens: float, spec: float, pass_rate: float, reps: int, seed: int, **kw) -> float:
    gen = np.random.default_rng(seed)
    cells = [sens * pass_rate, (1 - spec) * (1 - pass_rate), (1 - sens) * pass_rate, spec * (1 - pass_rate)]
    table = gen.multinomial(N_LABELS, cells, size=reps)
    passes = gen.binomial(N_TOTAL - N_LABELS, cells[0] + cells[1], size=reps)
    low, high = ppi_counts(*table.T, passes, n_total=N_TOTAL, **kw)
    return float(np.mean((low <= pass_rate) & (pass_rate <= high)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20000)
    args = parser.parse_args()
    variants = {"plain": dict(small_counts=False), "jeffreys": {}}
    for level in (0.9, 0.8, 0.7):
        variants[f"jeffreys@{level:.0%}"] = dict(limits=zero_count_level(level))
    variants["likelihood"] = dict(limits=likelihood_limits)
    names = [f"{c}{tag}" for c in CELLS for tag in ("", ", mirror")]
    print(f"{'limits':16}" + "".join(f"{n:>32}" for n in names))
    for name, kw in variants.items():
        row = []
        for sens, spec in CELLS.values():
            row.append(coverage(sens, spec, 0.7, args.reps, 1, **kw))
            row.append(coverage(spec, sens, 0.3, args.reps, 2, **kw))
        print(f"{name:16}" + "".join(f"{c:32.3f}" for c in row), flush=True)
    print(f"{args.reps} seeded evals a cell, {N_LABELS} labels of {N_TOTAL} questions, independent questions; "
          f"normal tail of the shipped limits: {ndtr(-1.959963984540054):.3f}")


if __name__ == "__main__":
    main()
