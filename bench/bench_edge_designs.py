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

Scores in [0, 1] that are not 0/1 (``--scores partial|narrow|k3|q5``, issue 20's bounded rule,
:mod:`evalstats_core.bounded_means`): question scores drawn by
:func:`evalstats_core.edge_coverage.draw_cluster_scores`; the table gives CR2's t, the old default (t, or
at least the cluster means' interval) and the new one on the same draws, with the median width new / old
(``nice -n 5 python bench/bench_edge_designs.py --scores partial --reps 1500 --designs 2,2u,3,3u,5,5u,2x,4x``).

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
         "4x": (970, 10, 10, 10), "5u": (900, 25, 25, 25, 25), "s30": (1,) * 30, "m8": (6, 4, 3, 2, 2, 2, 1, 1),
         "60a": (600, 100, 100, 100, 100), "60b": (600, 200, 200), "60c": (120, 20, 20, 20, 20)}
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


def bounded(args: argparse.Namespace) -> None:
    """The bounded rule's table: t, the old default and the new one on the same draws of scores in [0, 1]."""
    from evalstats_core.edge_coverage import clustered_mean_intervals, draw_cluster_scores

    gen = np.random.default_rng(7)
    print(f"{'design':>6s} {'ICC':>5s} {'p':>5s} {'t':>6s} {'old':>6s} {'new':>6s} {'width new/old':>13s}"
          f" {'fract.':>6s} {'new/fract.':>10s}  ({args.scores}, {args.reps} draws; fract.: the rule without the "
          "whole-question member)")
    cov_new, cov_old, ratios, cov_frac, r_frac = [], [], [], [], []
    for key in args.designs.split(","):
        sizes = np.asarray(SIZES[key], dtype=np.float64)
        for icc in (0.05, 0.1, 0.2, 0.3):
            for mean in (0.5, 0.8, 0.9, 0.95, 0.99):
                means, m2 = draw_cluster_scores(sizes, mean, icc, args.reps, gen, kind=args.scores)
                new = clustered_mean_intervals(means, sizes, m2=m2)
                old = clustered_mean_intervals(means, sizes)["default"]
                frac = clustered_mean_intervals(means, sizes, m2=m2, whole=False)["default"]
                cov = [float(np.mean((lo <= mean) & (mean <= hi))) for lo, hi in (new["t"], old, new["default"], frac)]
                width = np.median(old[1] - old[0])
                w_new = float(np.median(new["default"][1] - new["default"][0]))
                ratio = w_new / width if width > 0 else math.inf
                cov_old.append(cov[1])
                cov_new.append(cov[2])
                ratios.append(ratio)
                cov_frac.append(cov[3])
                r_frac.append(w_new / float(np.median(frac[1] - frac[0])))
                print(f"{key:>6s} {icc:5.2f} {mean:5.2f} {cov[0]:6.3f} {cov[1]:6.3f} {cov[2]:6.3f} {ratio:13.3f}"
                      f" {cov[3]:6.3f} {r_frac[-1]:10.3f}", flush=True)
    c, o, r = np.asarray(cov_new), np.asarray(cov_old), np.asarray(ratios)
    fin = r[np.isfinite(r)]
    print(f"\n{c.size} designs: new worst {c.min():.3f}, below 0.93 in {int(np.sum(c < 0.93))}, median "
          f"{np.median(c):.3f}; old worst {o.min():.3f}, below 0.93 in {int(np.sum(o < 0.93))}; width new/old "
          f"median {np.median(fin):.3f}, 90th percentile {np.quantile(fin, 0.9):.3f}, max {fin.max():.3f} "
          f"({int(np.sum(~np.isfinite(r)))} designs where the old median width is 0); coverage SE at 95%: "
          f"{math.sqrt(0.95 * 0.05 / args.reps):.4f}")
    f, rf = np.asarray(cov_frac), np.asarray(r_frac)
    print(f"without the whole-question member: worst {f.min():.3f}, below 0.93 in {int(np.sum(f < 0.93))}; width new / "
          f"without: median {np.median(rf):.3f}, 90th percentile {np.quantile(rf, 0.9):.3f}, max {rf.max():.3f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10000)
    ap.add_argument("--reps-for", action="append", default=[], metavar="DESIGN=N",
                    help="fewer draws for one design (e.g. mmlu=2000: its profile likelihood is the slowest)")
    ap.add_argument("--designs", default=",".join(SIZES), help="comma-separated keys of SIZES")
    ap.add_argument("--summary", nargs="+", metavar="FILE", help="only print the closing lines of these tables")
    ap.add_argument("--scores", choices=("partial", "narrow", "k3", "q5"),
                    help="scores in [0, 1] that are not 0/1: the bounded rule's table instead")
    args = ap.parse_args(argv)
    if args.scores:
        bounded(args)
        return
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
