"""Plans from a noisy pilot: the realised power of ``plan_pair``'s plan across pilots drawn from a design.

Each design draws ``--pilots`` pilots (question-level differences with a cluster effect), plans each with
:func:`~evalstats_core.planning.plan_pair` for a ``--power`` (default 80%) power at the true difference,
and simulates the plan's power (``--reps`` evals of the planned size, clusters of the pilot's mix, paired
CR2 t-test). Prints the median, the mean and the 10-90% range of realised power across pilots (the median
is what a median-unbiased omega2 aims at; the mean is the rejection rate of the whole pilot-then-eval
procedure, the check of issue 20), the share of pilots whose plan falls short, the power of the plan
made from the true omega2 (the planner's arithmetic alone), the mean and median power of the plans made
from the median-unbiased omega2 alone (the planner before plans averaged over the pilot's uncertainty),
the median ratio of the plan's length to that plan's, and the median number of clusters planned.

With ``--binary`` the pilots are 0/1 answers of two models in a few unequal clusters
(:func:`~evalstats_core.plan_pilots.binary_scores`, designs ``BINARY``) and each plan's power is that of the
default ``compare`` (Tango's score interval on effective counts with the MOVER union), beside that of
``compare(..., interval="normal")`` (CR2 t on the design's df).

Run: ``python bench/bench_plan_pilots.py [--pilots 400] [--reps 400] [--power 0.8] [--designs 1,3] [--binary]``
(``--designs``: 0-based indices into ``DESIGNS`` or ``BINARY``; a few minutes on one core; ``--binary``
with 200 pilots x 100 evals: about 2 min of CPU a design).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.plan_pilots import plan_binary_pilots, plan_from_pilots  # noqa: E402

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
DESIGNS = (  # label, pilot cluster sizes, delta, sd_cluster, sd_question
    ("100 independent questions", (1,) * 100, 0.10, 0.0, 0.45),
    ("12 SWE-like clusters, ICC 0.015", SWE, 0.03, 0.05, 0.4),
    ("12 SWE-like clusters, ICC 0.1", SWE, 0.05, 0.13, 0.4),
    ("27 equal clusters of 37, ICC 0.1", (37,) * 27, 0.04, 0.13, 0.4),
    ("8 unequal clusters (60-5), ICC 0.06", (60, 50, 40, 30, 20, 10, 5, 5), 0.06, 0.1, 0.4),
    ("5 equal clusters of 40, ICC 0.1", (40,) * 5, 0.08, 0.13, 0.4),
)

BINARY = (  # label, pilot cluster sizes, p_a, p_b, var_cluster, var_question, corr (binary_scores)
    ("0/1, 7 unequal clusters (150-5), 0.72 vs 0.64", (150, 60, 35, 25, 15, 10, 5), 0.72, 0.64, 0.2, 0.5, 0.75),
    ("0/1, 9 clusters, one of 270 in 600, 0.55 vs 0.48", (270, 90, 70, 50, 40, 30, 25, 15, 10), 0.55, 0.48, 0.15, 0.5,
     0.75),
    ("0/1, 5 unequal clusters (120-10), 0.80 vs 0.72", (120, 60, 40, 20, 10), 0.80, 0.72, 0.2, 0.3, 0.8),
    ("0/1, 15 clusters (80-5, geometric), 0.65 vs 0.59", tuple(int(x) for x in np.geomspace(80, 5, 15).round()), 0.65,
     0.59, 0.1, 0.5, 0.75),
)


def binary(args: argparse.Namespace) -> None:
    """The 0/1 designs: mean realised power of the default test and of CR2 t, over pilots."""
    picked = range(len(BINARY)) if args.designs is None else [int(x) for x in args.designs.split(",")]
    print(f"target power {args.power:.0%}; {args.pilots} pilots per design, {args.reps} simulated evals per plan; "
          "the default compare (Tango / MOVER) and CR2 t (interval='normal') on the same evals\n")
    print(f"{'design':50s} {'mean (default)':>14s} {'MC SE':>6s} {'CR2 t':>6s} {'median':>6s} {'under 60%':>9s} "
          f"{'median n':>8s}")
    for i in picked:
        label, sizes, pa, pb, vc, vq, corr = BINARY[i]
        r = plan_binary_pilots(sizes, pa, pb, vc, vq, corr, pilots=args.pilots, reps=args.reps, seed=200 + i,
                               power=args.power, t_too=True)
        p = r["power"]
        print(f"{label:50s} {np.mean(p):14.3f} {np.std(p, ddof=1) / np.sqrt(p.size):6.3f} {np.mean(r['power_t']):6.3f} "
              f"{np.median(p):6.3f} {np.mean(p < 0.6):9.2f} {np.median(r['n_needed']):8.0f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pilots", type=int, default=400)
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--power", type=float, default=0.8, help="target power of the plans")
    ap.add_argument("--designs", default=None, help="comma-separated 0-based indices into DESIGNS (default: all)")
    ap.add_argument("--binary", action="store_true", help="0/1 pilots in few unequal clusters, the default test")
    args = ap.parse_args(argv)
    if args.binary:
        binary(args)
        return
    picked = range(len(DESIGNS)) if args.designs is None else [int(x) for x in args.designs.split(",")]
    target = args.power
    print(f"target power {target:.0%}; {args.pilots} pilots per design, {args.reps} simulated evals per plan\n")
    print(f"{'design':38s} {'median power':>12s} {'mean':>6s} {'10-90% of pilots':>17s} {'below':>6s} "
          f"{'true-omega2 plan':>16s} {'median-omega2 plans: mean':>25s} {'median':>6s} "
          f"{'length x':>8s} {'clusters':>8s}")
    for i in picked:
        label, sizes, delta, sd_c, sd_q = DESIGNS[i]
        r = plan_from_pilots(sizes, delta, sd_c, sd_q, pilots=args.pilots, reps=args.reps, seed=100 + i,
                             power=target, median_too=True)
        p, before = r["power"], r["power_median"]
        lo, hi = np.quantile(p, [0.1, 0.9])
        clusters = np.ceil(r["n_needed"] / np.mean(sizes))
        print(f"{label:38s} {np.median(p):12.3f} {np.mean(p):6.3f} {lo:8.3f}-{hi:.3f} {np.mean(p < target):6.2f} "
              f"{r['power_true']:16.3f} {np.mean(before):25.3f} {np.median(before):6.3f} "
              f"{np.median(r['n_needed'] / r['n_median']):8.2f} {np.median(clusters):8.0f}", flush=True)

if __name__ == "__main__":
    main()
