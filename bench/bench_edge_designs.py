"""Coverage of one clustered model's 95% interval for 0/1 scores on 160 designs: t, Korn-Graubard,
logit CR2 and the default (their union, :func:`evalstats_core.proportions.binary_mean_interval`).

Designs: G = 3, 5, 8 (one cluster of 400 of 665), 10, 12 (SWE-bench-like sizes), 27, 57 (sizes 5-59),
60 clusters; ICC 0.05, 0.1, 0.2, 0.3; accuracy 0.5, 0.8, 0.9, 0.95, 0.99. Cluster accuracies are Beta
with that mean and ICC (the model of :func:`evalstats_core.edge_coverage.clustered_binary_coverage`).
The intervals are computed vectorised from the per-cluster counts
(:func:`evalstats_core.edge_coverage.clustered_binary_intervals`; ``tests/test_edges.py`` checks that
they equal :func:`evalstats_core.clustering.summarize`'s to 1e-9), so the table describes what users get.

Run: ``python bench/bench_edge_designs.py [--reps 10000]`` (about 30 s on one core).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.edge_coverage import clustered_binary_intervals as intervals  # noqa: E402
from evalstats_core.edge_coverage import draw_cluster_counts as draw  # noqa: E402

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
SIZES = {3: (300,) * 3, 5: (200,) * 5, 8: (400, 100, 50, 50, 30, 20, 10, 5), 10: (50,) * 10, 12: SWE,
         27: (37,) * 27, 57: tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57)), 60: (20,) * 60}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10000)
    reps = ap.parse_args(argv).reps
    gen = np.random.default_rng(7)
    methods = ("t", "Korn-Graubard", "logit CR2", "default")
    print(f"{'G':>3s} {'n':>5s} {'ICC':>5s} {'p':>5s} " + " ".join(f"{m:>13s}" for m in methods) + "  width/KG")
    cov: dict[str, list[float]] = {m: [] for m in methods}
    ratio = []
    for g, sz in SIZES.items():
        sizes = np.asarray(sz, dtype=np.float64)
        for icc in (0.05, 0.1, 0.2, 0.3):
            for mean in (0.5, 0.8, 0.9, 0.95, 0.99):
                ivs = intervals(draw(sizes, mean, icc, reps, gen), sizes)
                row = {m: float(np.mean((lo <= mean) & (mean <= hi))) for m, (lo, hi) in ivs.items()}
                w = float(np.median(ivs["default"][1] - ivs["default"][0])
                          / np.median(ivs["Korn-Graubard"][1] - ivs["Korn-Graubard"][0]))
                for m in methods:
                    cov[m].append(row[m])
                ratio.append(w)
                print(f"{g:3d} {int(sizes.sum()):5d} {icc:5.2f} {mean:5.2f} "
                      + " ".join(f"{row[m]:13.3f}" for m in methods) + f"  {w:8.3f}", flush=True)
    print(f"\n{len(ratio)} designs, {reps} draws each (coverage SE {math.sqrt(0.95 * 0.05 / reps):.4f} at 95%)")
    for m in methods:
        c = np.asarray(cov[m])
        print(f"{m:14s} worst {c.min():.3f}  below 0.93 in {int(np.sum(c < 0.93)):3d}  median {np.median(c):.3f}")
    print(f"median width of the default / Korn-Graubard: {np.median(ratio):.3f}")


if __name__ == "__main__":
    main()
