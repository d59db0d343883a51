"""Coverage at the edges, before (the raw t interval) and after (the default rule), on realistic designs.

Prints one table: each design, the coverage of the 95% t interval (``interval="normal"``, the old
default) and of the default (``interval="auto"``: Wilson / Clopper-Pearson / Korn-Graubard / Tango for
0/1 scores), and for the gate the false-pass rate of a candidate truly 5 points worse. One-model
coverage without clusters is exact (binomial sums); everything else is simulated through
``summarize`` / ``compare`` with ``--reps`` replications (standard error about 0.5 points at 2000).

Run: ``python bench/bench_edges.py [--reps 2000]`` (a few minutes on one core).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.edge_coverage import (  # noqa: E402
    clustered_binary_coverage,
    exact_binary_coverage,
    gate_pass_rate,
    paired_binary_coverage,
)

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
EQ27 = (37,) * 27
U57 = tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57))  # as bench_edge_designs.py


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    reps = ap.parse_args(argv).reps
    rows: list[tuple[str, float, float]] = []
    for p, n in ((0.99, 299), (0.99, 300), (0.99, 1000), (0.995, 1000), (0.95, 10), (0.95, 100), (0.999, 5000)):
        rows.append((f"one model, {p:.1%} of {n} (exact)", exact_binary_coverage(p, n, interval="normal"),
                     exact_binary_coverage(p, n)))
    for name, sizes, mean, icc in (("12 SWE-like clusters", SWE, 0.95, 0.1), ("12 SWE-like clusters", SWE, 0.95, 0.2),
                                   ("12 SWE-like clusters", SWE, 0.7, 0.1), ("27 equal clusters", EQ27, 0.95, 0.2),
                                   ("27 equal clusters", EQ27, 0.7, 0.2), ("3 clusters", (300,) * 3, 0.95, 0.1),
                                   ("5 clusters", (200,) * 5, 0.95, 0.1)):
        args = dict(reps=reps, rng=1)
        rows.append((f"one model, {mean:.0%}, {name}, ICC {icc}",
                     clustered_binary_coverage(sizes, mean, icc, interval="normal", **args),
                     clustered_binary_coverage(sizes, mean, icc, **args)))
    for n, a, b in ((10, 0.01, 0.06), (30, 0.01, 0.06), (100, 0.01, 0.06), (100, 0.02, 0.02), (1000, 0.05, 0.02)):
        args = dict(reps=reps // 2, rng=2)
        rows.append((f"pair, n {n}, only A {a:.0%} / only B {b:.0%}",
                     paired_binary_coverage(n, a, b, interval="normal", **args),
                     paired_binary_coverage(n, a, b, **args)))
    for name, sizes, a, b, icc in (("12 SWE-like clusters", SWE, 0.01, 0.04, 0.1),
                                   ("12 SWE-like clusters", SWE, 0.03, 0.08, 0.2),
                                   ("27 equal clusters", EQ27, 0.01, 0.04, 0.1),
                                   ("27 equal clusters", EQ27, 0.005, 0.02, 0.3),
                                   ("57 clusters of 5-59", U57, 0.01, 0.04, 0.1),
                                   ("5 clusters", (200,) * 5, 0.01, 0.04, 0.1)):
        args = dict(reps=reps // 2, rng=3, sizes=sizes, icc=icc)
        rows.append((f"pair, {name}, only A {a:.1%} / only B {b:.0%}, ICC {icc}",
                     paired_binary_coverage(sum(sizes), a, b, interval="normal", **args),
                     paired_binary_coverage(sum(sizes), a, b, **args)))
    print(f"{'design':64s} {'t (before)':>11s} {'default':>9s}")
    for name, before, after in rows:
        print(f"{name:64s} {before:11.3f} {after:9.3f}")
    print("\ngate false-pass rate, candidate truly 5 points worse (a correct gate: <= 0.025)")
    for n, margin, sizes, icc in ((30, 0.02, None, 0.0), (20, 0.03, None, 0.0), (100, 0.02, None, 0.0),
                                  (500, 0.02, SWE, 0.1), (999, 0.02, EQ27, 0.2), (1000, 0.02, (200,) * 5, 0.1),
                                  (sum(U57), 0.02, U57, 0.2)):
        args = dict(reps=reps // 2, rng=4, sizes=sizes, icc=icc)
        label = f"n {n}, margin {margin:.0%}" + (f", {len(sizes)} clusters, ICC {icc}" if sizes else "")
        print(f"{label:64s} {gate_pass_rate(n, 0.05, margin, interval='normal', **args):11.3f} "
              f"{gate_pass_rate(n, 0.05, margin, **args):9.3f}")


if __name__ == "__main__":
    main()
