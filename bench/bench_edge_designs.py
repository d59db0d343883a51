"""Coverage of one clustered model's 95% interval for 0/1 scores on 260 designs: t, Korn-Graubard,
logit CR2, beta-binomial profile likelihood, the union of the first two (the default before the
beta-binomial interval joined it) and the default (the union of all three,
:func:`evalstats_core.proportions.binary_mean_interval`).

Designs: G = 3, 5, 8 (one cluster of 400 of 665), 10, 12 (SWE-bench-like sizes), 27, 57 (sizes 5-59),
60 clusters; and, added for issue 20's held-out audit, MMLU's 57 subject sizes (14,042 questions),
BBH-like 27 tasks (24 of 250, 187, 146, 178), one cluster holding 90% (900 + 10 x 10), 2 equal and 2
unequal (900 + 100) clusters; and, for the cluster means' interval, 2 clusters of 990 + 10 ("2x"), 3 of
900 + 50 + 50 ("3u") and 700 + 200 + 100 ("3v"), 4 of 970 + 10 + 10 + 10 ("4x"). ICC 0.05, 0.1, 0.2, 0.3; accuracy 0.5, 0.8, 0.9, 0.95, 0.99. Cluster
accuracies are Beta with that mean and ICC (the model of
:func:`evalstats_core.edge_coverage.clustered_binary_coverage`). The intervals are computed vectorised
from the per-cluster counts (:func:`evalstats_core.edge_coverage.clustered_binary_intervals`;
``tests/test_edges.py`` checks that they equal :func:`evalstats_core.clustering.summarize`'s to 1e-9),
so the table describes what users get.

Run: ``python bench/bench_edge_designs.py [--reps 10000] [--designs 5,27,bbh] [--reps-for mmlu=2000]``
(``nice -n 5``; at 10,000 draws about an hour on one busy core, most of it MMLU, whose 57 unequal subjects
give many distinct per-cluster counts for the profile likelihood); ``--summary FILE...`` prints the
closing lines of tables run in parts.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.edge_coverage import BBH_SIZES, MMLU_SIZES, SWE_SIZES  # noqa: E402
from evalstats_core.edge_coverage import clustered_binary_intervals as intervals  # noqa: E402
from evalstats_core.edge_coverage import draw_cluster_counts as draw  # noqa: E402

SWE, MMLU, BBH = SWE_SIZES, MMLU_SIZES, BBH_SIZES
SIZES = {"3": (300,) * 3, "5": (200,) * 5, "8": (400, 100, 50, 50, 30, 20, 10, 5), "10": (50,) * 10, "12": SWE,
         "27": (37,) * 27, "57": tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57)),
         "60": (20,) * 60, "mmlu": MMLU, "bbh": BBH, "one90": (900,) + (10,) * 10, "2": (500, 500),
         "2u": (900, 100), "2x": (990, 10), "3u": (900, 50, 50), "3v": (700, 200, 100),
         "4x": (970, 10, 10, 10)}
METHODS = ("t", "Korn-Graubard", "logit CR2", "beta-binomial", "cluster means", "union of KG and logit", "default")
SHORT = ("t", "KG", "logit", "betabin", "cl-means", "KG|logit", "default")


def summary(rows: list[list[str]]) -> None:
    """The closing lines, from the table's rows (``design G n ICC p`` + one coverage per method + width)."""
    cov = np.array([[float(v) for v in r[5:5 + len(METHODS)]] for r in rows])
    ratio = np.array([float(r[-1]) for r in rows])
    draws = sorted({r[-2] for r in rows}) if len(rows[0]) > 6 + len(METHODS) else []
    print(f"\n{len(rows)} designs" + (f", {' or '.join(draws)} draws each" if draws else ""))
    for j, m in enumerate(METHODS):
        c = cov[:, j]
        print(f"{m:22s} worst {c.min():.3f}  below 0.93 in {int(np.sum(c < 0.93)):3d}  above 0.98 in "
              f"{int(np.sum(c > 0.98)):3d}  median {np.median(c):.3f}")
    print(f"width of the default / the union of KG and logit (medians per design): median {np.median(ratio):.3f}, "
          f"90th percentile {np.quantile(ratio, 0.9):.3f}, max {ratio.max():.3f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10000)
    ap.add_argument("--reps-for", action="append", default=[], metavar="DESIGN=N",
                    help="fewer draws for one design (e.g. mmlu=2000: its profile likelihood is the slowest)")
    ap.add_argument("--designs", default=",".join(SIZES), help="comma-separated keys of SIZES")
    ap.add_argument("--summary", nargs="+", metavar="FILE", help="only print the closing lines of these tables")
    args = ap.parse_args(argv)
    if args.summary:
        rows = [ln.split() for f in args.summary for ln in Path(f).read_text().splitlines()
                if ln.split() and ln.split()[0] in SIZES]
        summary(rows)
        return
    per = {k: int(v) for k, v in (item.split("=") for item in args.reps_for)}
    gen = np.random.default_rng(7)
    print(f"{'design':>6s} {'G':>3s} {'n':>5s} {'ICC':>5s} {'p':>5s} " + " ".join(f"{m:>8s}" for m in SHORT)
          + f" {'draws':>6s}  width/KG|logit")
    rows = []
    for key in args.designs.split(","):
        sizes, reps = np.asarray(SIZES[key], dtype=np.float64), per.get(key, args.reps)
        for icc in (0.05, 0.1, 0.2, 0.3):
            for mean in (0.5, 0.8, 0.9, 0.95, 0.99):
                ivs = intervals(draw(sizes, mean, icc, reps, gen), sizes)
                row = {m: float(np.mean((lo <= mean) & (mean <= hi))) for m, (lo, hi) in ivs.items()}
                old = ivs["union of KG and logit"]
                w = float(np.median(ivs["default"][1] - ivs["default"][0]) / np.median(old[1] - old[0]))
                line = (f"{key:>6s} {sizes.size:3d} {int(sizes.sum()):5d} {icc:5.2f} {mean:5.2f} "
                        + " ".join(f"{row[m]:8.3f}" for m in METHODS) + f" {reps:6d}  {w:8.3f}")
                rows.append(line.split())
                print(line, flush=True)
    summary(rows)
    print(f"(coverage SE at 95%: {math.sqrt(0.95 * 0.05 / args.reps):.4f} with {args.reps} draws)")


if __name__ == "__main__":
    main()
