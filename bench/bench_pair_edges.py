"""Coverage of the clustered paired 0/1 comparison near the ceiling: the old rules, the default, CR2 t.

432 designs: 5 equal, 10 unequal, 12 SWE-bench-like, 27 equal, 57 unequal (5-59) and 60 equal clusters;
the better model at 85%, 95% or 99%, the other 0, 2 or 5 points below; the other model right on 20% or
60% of the better one's errors (strongly / mildly correlated models); ICC of the disagreement rate 0.05
or 0.3; ICC of who wins a disagreement 0 or 0.3 (:class:`~evalstats_core.pair_coverage.PairDesign`).
Prints, for each interval, the worst coverage, the number of designs below 93%, the worst one-sided miss
of each tail (high: the interval wholly below the truth, the better model's side; a gate judging the
mirror image at its margin false-passes this often) and the median width over the old rule's and over
the previous default's (issue 20's second pass); the gate's false-pass rate per margin and ICC; then the
designs where the default covers below 93% or misses more than 2.5% on one side. "threshold" is the
previous default (the CR2 t interval from 100 effective discordant answers on), "default" the score
interval with the MOVER union at every count.

``--held-out`` runs a second grid the rule was not chosen on (other cluster counts and sizes, accuracies,
gaps and correlations; another seed): 4 equal, 8 unequal, 20 equal, 33 unequal (10-50) and 45 equal
clusters, the better model at 80%, 90% or 97%, gaps 0, 1, 3 or 4 points, the other model right on 10%
or 40% of the better one's errors, ICC 0.1 or 0.2 of the disagreement rate and 0 or 0.2 of its direction.

``--unclustered`` prints instead the exact high-side miss (by enumerating the discordant counts) of the
paired t interval and of Tango's score interval without clusters, at 300-3,000 questions: why the rule
without clusters switches to t only from 100 discordant answers on, and what that switch still costs.

Run: ``python bench/bench_pair_edges.py [--reps 2000] [--held-out | --unclustered]`` (about 20 CPU-seconds
per 1,000 reps).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.pair_coverage import PairDesign, pair_design_table  # noqa: E402

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
U57 = tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57))  # as bench_edge_designs.py
U10 = (150, 120, 90, 60, 40, 30, 20, 15, 10, 5)
SIZES = {"5 equal": (200,) * 5, "10 unequal": U10, "12 SWE-like": SWE, "27 equal": (37,) * 27,
         "57 unequal": U57, "60 equal": (20,) * 60}


U33 = tuple(int(v) for v in np.random.default_rng(33).integers(10, 51, 33))
HELD_OUT = {"4 equal": (150,) * 4, "8 unequal": (300, 160, 90, 60, 40, 25, 15, 10), "20 equal": (50,) * 20,
            "33 unequal": U33, "45 equal": (30,) * 45}


def designs() -> list[PairDesign]:
    return [PairDesign.at(sizes, top, gap, kappa, icc_d, icc_s, label=name)
            for (name, sizes), top, gap, kappa, icc_d, icc_s in itertools.product(
                SIZES.items(), (0.85, 0.95, 0.99), (0.0, 0.02, 0.05), (0.2, 0.6), (0.05, 0.3), (0.0, 0.3))]


def held_out() -> list[PairDesign]:
    return [PairDesign.at(sizes, top, gap, kappa, icc_d, icc_s, label=name)
            for (name, sizes), top, gap, kappa, icc_d, icc_s in itertools.product(
                HELD_OUT.items(), (0.80, 0.90, 0.97), (0.0, 0.01, 0.03, 0.04), (0.1, 0.4), (0.1, 0.2), (0.0, 0.2))]


def unclustered() -> None:
    """Exact P(interval wholly below the truth) without clusters: t (n - 1 df), Tango, and the rule."""
    from scipy.stats import multinomial
    from scipy.stats import t as student

    from evalstats_core.pair_proportions import paired_proportion_ci

    print("command: python bench/bench_pair_edges.py --unclustered\nexact high-side miss (the interval wholly "
          "below the truth): questions, P(only A), P(only B), expected discordant: t, Tango, the rule")
    for n in (300, 1000, 3000):
        for pb, pc in ((0.06, 0.04), (0.08, 0.03), (0.10, 0.05), (0.07, 0.02), (0.15, 0.10), (0.055, 0.005)):
            span = [np.arange(max(0, int(n * p - 8 * np.sqrt(n * p))), int(n * p + 8 * np.sqrt(n * p)) + 1)
                    for p in (pb, pc)]
            b, c = (v.ravel() for v in np.meshgrid(*span, indexing="ij"))
            b, c = b[b + c <= n], c[b + c <= n]
            prob = multinomial.pmf(np.stack([b, c, n - b - c], 1), n, [pb, pc, 1.0 - pb - pc])
            d = (b - c) / n
            t_high = d + student.ppf(0.975, n - 1) * np.sqrt(((b + c) - n * d * d) / (n * (n - 1.0)))
            tango_high = paired_proportion_ci(b.astype(float), c.astype(float), float(n))[1]
            rule = np.where(b + c >= 100, t_high, tango_high)
            print(f"  {n:5d} {pb:.3f} {pc:.3f} {n * (pb + pc):5.0f}: " + ", ".join(
                f"{prob[high < pb - pc].sum():.4f}" for high in (t_high, tango_high, rule)))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--held-out", action="store_true", help="the held-out grid (another seed)")
    ap.add_argument("--unclustered", action="store_true", help="exact misses without clusters")
    args = ap.parse_args(argv)
    if args.unclustered:
        return unclustered()
    reps = args.reps
    names = ("t", "old", "previous", "threshold", "default")
    cpu, wall = time.process_time(), time.perf_counter()
    rows = pair_design_table(held_out(), reps, seed=21) if args.held_out else pair_design_table(designs(), reps, seed=20)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"command: python bench/bench_pair_edges.py --reps {reps}" + (" --held-out" if args.held_out else ""))
    print(f"{len(rows)} designs x {reps} simulated files; {cpu:.0f} s CPU, {wall:.0f} s wall, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print(f"{'interval':10s} {'worst':>6s} {'<93%':>5s} {'median':>7s} {'worst miss high':>16s} {'>2.5%':>6s} "
          f"{'worst miss low':>15s} {'>2.5%':>6s} {'width/old':>10s} {'width/threshold (median, p90, max)':>35s}")
    for name in names:
        cov = np.array([r[name][0] for r in rows])
        low, high = np.array([r[name][1] for r in rows]), np.array([r[name][2] for r in rows])
        ratio = np.array([r[name][3] / r["old"][3] for r in rows])
        prev = np.array([r[name][3] / r["threshold"][3] for r in rows])
        print(f"{name:10s} {cov.min():6.3f} {(cov < 0.93).sum():5d} {np.median(cov):7.3f} {high.max():16.3f} "
              f"{(high > 0.025).sum():6d} {low.max():15.3f} {(low > 0.025).sum():6d} {np.median(ratio):10.2f} "
              f"{np.median(prev):14.2f} {np.quantile(prev, 0.9):9.2f} {prev.max():9.2f}")
    moved = [r for r in rows if r["default"][3] != r["threshold"][3]]
    if moved:
        w = np.array([r["default"][3] / r["threshold"][3] for r in moved])
        print(f"\nwidth default / threshold on the {len(moved)} designs where it changed: median {np.median(w):.3f}, "
              f"p90 {np.quantile(w, 0.9):.3f}, max {w.max():.3f}")
    iccs = sorted({r["design"].icc_disagree for r in rows})
    for subset, keep in ((f"ICC of disagreement {iccs[0]}", lambda d: d.icc_disagree == iccs[0]),
                         (f"ICC of disagreement {iccs[-1]}", lambda d: d.icc_disagree == iccs[-1]),
                         ("G >= 27", lambda d: len(d.sizes) >= 27), ("G <= 12", lambda d: len(d.sizes) <= 12)):
        sub = [r for r in rows if keep(r["design"])]
        print(f"\n{subset} ({len(sub)} designs): " + "; ".join(
            f"{n} worst {min(r[n][0] for r in sub):.3f}, <93% {sum(r[n][0] < 0.93 for r in sub)}, "
            f"worst miss high {max(r[n][2] for r in sub):.3f}" for n in names))
    print("\ngate false-pass rate at the margin (the mirror image: the candidate truly the gap worse, margin = gap;"
          " a correct gate <= 0.025)")
    for gap in sorted({round(r["design"].truth, 12) for r in rows if r["design"].truth > 0}):
        for icc in iccs:
            sub = [r for r in rows if abs(r["design"].truth - gap) < 1e-12 and r["design"].icc_disagree == icc]
            print(f"  margin {gap:.0%}, ICC of disagreement {icc}: " + "; ".join(
                f"{n} worst {max(r[n][2] for r in sub):.3f}, median {np.median([r[n][2] for r in sub]):.3f}, "
                f"> 2.5% in {sum(r[n][2] > 0.025 for r in sub)}/{len(sub)}" for n in names))
    print("\ndesigns where the default covers below 93% or misses more than 2.5% on one side: clusters, accuracies,"
          " truth, ICC disagreement / share / difference, coverage threshold -> default (misses low / high), "
          "width / threshold")
    for r in sorted(rows, key=lambda r: -max(r["default"][1], r["default"][2])):
        d, (cov, low, high, width) = r["design"], r["default"]
        if cov >= 0.93 and max(low, high) <= 0.025:
            continue
        acc = d.accuracies
        print(f"  {d.label:12s} {acc[0]:.2f}/{acc[1]:.2f} {d.truth:+.3f} {d.icc_disagree:.2f}/{d.icc_share:.1f}/"
              f"{d.icc_difference:.3f}  {r['threshold'][0]:.3f} -> {cov:.3f} ({low:.3f} / {high:.3f})  "
              f"{width / r['threshold'][3]:.2f}")


if __name__ == "__main__":
    main()
