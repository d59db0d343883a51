"""Coverage of one clustered model's 95% interval for 0/1 scores on 260 designs: t, Korn-Graubard,
logit CR2, beta-binomial profile likelihood, the union of the first two (the default before the
beta-binomial interval joined it) and the default (the union of all three,
:func:`evalstats_core.proportions.binary_mean_interval`).

Designs: G = 3, 5, 8 (one cluster of 400 of 665), 10, 12 (SWE-bench-like sizes), 27, 57 (sizes 5-59),
60 clusters; and, added for issue 20's held-out audit, MMLU's 57 subject sizes (14,042 questions),
BBH-like 27 tasks (24 of 250, 187, 146, 178), one cluster holding 90% (900 + 10 x 10), 2 equal and 2
unequal (900 + 100) clusters. ICC 0.05, 0.1, 0.2, 0.3; accuracy 0.5, 0.8, 0.9, 0.95, 0.99. Cluster
accuracies are Beta with that mean and ICC (the model of
:func:`evalstats_core.edge_coverage.clustered_binary_coverage`). The intervals are computed vectorised
from the per-cluster counts (:func:`evalstats_core.edge_coverage.clustered_binary_intervals`;
``tests/test_edges.py`` checks that they equal :func:`evalstats_core.clustering.summarize`'s to 1e-9),
so the table describes what users get.

Run: ``python bench/bench_edge_designs.py [--reps 10000] [--designs 5,27,bbh]`` (about 40 min on one
busy core at 10,000 draws; ``nice -n 5``).
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
MMLU = (100, 135, 152, 100, 265, 144, 100, 100, 100, 173, 102, 100, 235, 114, 145, 378, 126, 100, 310, 203,
        100, 165, 198, 193, 390, 270, 238, 151, 545, 216, 204, 237, 223, 131, 121, 108, 163, 112, 103, 234,
        100, 783, 346, 895, 306, 311, 324, 282, 1534, 272, 612, 110, 245, 201, 100, 166, 171)  # test split
BBH = (250,) * 24 + (187, 146, 178)
SIZES = {"3": (300,) * 3, "5": (200,) * 5, "8": (400, 100, 50, 50, 30, 20, 10, 5), "10": (50,) * 10, "12": SWE,
         "27": (37,) * 27, "57": tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57)),
         "60": (20,) * 60, "mmlu": MMLU, "bbh": BBH, "one90": (900,) + (10,) * 10, "2": (500, 500),
         "2u": (900, 100)}
METHODS = ("t", "Korn-Graubard", "logit CR2", "beta-binomial", "union of KG and logit", "default")
SHORT = ("t", "KG", "logit", "betabin", "KG|logit", "default")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10000)
    ap.add_argument("--designs", default=",".join(SIZES), help="comma-separated keys of SIZES")
    args = ap.parse_args(argv)
    reps, keys = args.reps, args.designs.split(",")
    gen = np.random.default_rng(7)
    print(f"{'design':>6s} {'G':>3s} {'n':>5s} {'ICC':>5s} {'p':>5s} " + " ".join(f"{m:>8s}" for m in SHORT)
          + "  width/KG|logit")
    cov: dict[str, list[float]] = {m: [] for m in METHODS}
    ratio = []
    for key in keys:
        sizes = np.asarray(SIZES[key], dtype=np.float64)
        for icc in (0.05, 0.1, 0.2, 0.3):
            for mean in (0.5, 0.8, 0.9, 0.95, 0.99):
                ivs = intervals(draw(sizes, mean, icc, reps, gen), sizes)
                row = {m: float(np.mean((lo <= mean) & (mean <= hi))) for m, (lo, hi) in ivs.items()}
                old = ivs["union of KG and logit"]
                w = float(np.median(ivs["default"][1] - ivs["default"][0]) / np.median(old[1] - old[0]))
                for m in METHODS:
                    cov[m].append(row[m])
                ratio.append(w)
                print(f"{key:>6s} {sizes.size:3d} {int(sizes.sum()):5d} {icc:5.2f} {mean:5.2f} "
                      + " ".join(f"{row[m]:8.3f}" for m in METHODS) + f"  {w:8.3f}", flush=True)
    print(f"\n{len(ratio)} designs, {reps} draws each (coverage SE {math.sqrt(0.95 * 0.05 / reps):.4f} at 95%)")
    for m in METHODS:
        c = np.asarray(cov[m])
        print(f"{m:22s} worst {c.min():.3f}  below 0.93 in {int(np.sum(c < 0.93)):3d}  above 0.98 in "
              f"{int(np.sum(c > 0.98)):3d}  median {np.median(c):.3f}")
    r = np.asarray(ratio)
    print(f"width of the default / the union of KG and logit (medians per design): median {np.median(r):.3f}, "
          f"90th percentile {np.quantile(r, 0.9):.3f}, max {r.max():.3f}")


if __name__ == "__main__":
    main()
