"""Coverage of the judge-corrected (PPI++) 95% interval against the judge-only one, over the issue's grid.

Grid: judge sensitivity {0.6, 0.8, 0.99} x specificity {0.5, 0.8, 0.99} x labelled fraction
{2%, 10%, 50%} of 2,000 questions (40, 200, 1,000 labels: always >= 30) x {independent questions,
12 unequal clusters}, plus the paired difference A - B with a judge 0.1 more lenient with B. Each cell
is ``--reps`` seeded replications (default 2,000). Prints one line per cell: corrected coverage,
judge-only coverage, mean half-widths, mean lambda; then the range of the corrected coverage.

Then two mirror cells (``mirror``): the 40-label cells of the lenient (0.99 / 0.80) and the near-perfect
(0.99 / 0.99) judge with "pass" and "fail" swapped (true pass rate 0.3, sensitivity and specificity
exchanged). The interval treats both kinds of judge error alike, so each mirror cell covers as its
original does: the near-perfect judge's over-coverage at 40 labels is the price of the lenient judge's
95% (see ``evalstats_core.judge_interval.ppi_interval``), not of a choice that favours one direction.

Then designs between the grid's points (``between``, :data:`BETWEEN`): the grid's sensitivity and
specificity values hide that every judge good on both counts (both at 0.95 or more) over-covers at 30-40
labels, not only 0.99 / 0.99 (``bench/bench_judge_zero_counts.py`` scans the ranges finer and shows why
no interval computed from the labels can avoid it).

Run: ``nice -n 5 python bench/bench_judge_coverage.py [--reps 2000] [--quick] [--corrected-only]`` (``--quick``:
sensitivity and specificity at their extremes only; ``--corrected-only``: the corrected interval alone, minutes
instead of about 20, the same draws and so the same corrected coverage). The replications of a cell are drawn and fitted together
(``evalstats_core.judge_rows.ppi_rows``); the judge-only interval is ``summarize``'s, one eval at a time.
Results: ``bench/results/judge_coverage3_2000.txt`` (this script with the ``between`` designs: the 60 cells
0.933-0.991 as before, the 8 designs between the grid's points 0.951-0.991, 0.99 / 0.99 at 30 labels 0.991
and 0.971 with 12 clusters); ``judge_coverage2_2000.txt`` (the small-count limits at the nominal level);
``judge_coverage_2000.txt`` is the earlier run (limits at the t(df) level: 0.941-0.992, three cells above
0.97); ``judge7_coverage_2000.txt``: ``--corrected-only`` on the same seeds, the corrected columns equal to
``judge_coverage3_2000.txt``'s on all 71 rows, with ``bench/bench_judge_floor.py``'s account of the corner.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.judge_sim import judge_compare_coverage, judge_coverage  # noqa: E402

N_TOTAL = 2000
FRACTIONS = (0.02, 0.10, 0.50)
#: Designs between the grid's points (``between``): the near-perfect judge at the fewest labels the issue
#: allows (30), with and without clusters, and good judges whose few labels usually hold no error.
BETWEEN = ((0.99, 0.99, 30, 0), (0.99, 0.99, 30, 12), (0.95, 0.95, 40, 0), (0.97, 0.97, 40, 0),
           (0.93, 0.99, 40, 0), (0.99, 0.90, 40, 0), (0.95, 0.95, 40, 12), (0.97, 0.97, 200, 0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--corrected-only", action="store_true",
                        help="skip the judge-only interval (summarize one eval at a time): its columns print nan")
    args = parser.parse_args()
    extra = dict(judge_only=not args.corrected_only)
    sens = (0.6, 0.99) if args.quick else (0.6, 0.8, 0.99)
    spec = (0.5, 0.99) if args.quick else (0.5, 0.8, 0.99)
    print(f"{'kind':8} {'sens':>5} {'spec':>5} {'labels':>6} {'clus':>4}  corrected  judge-only  hw_corr  hw_judge  lam")
    covs = []
    start = time.perf_counter()
    for seed, (se, sp, frac, k) in enumerate(itertools.product(sens, spec, FRACTIONS, (0, 12))):
        n_lab = round(frac * N_TOTAL)
        c = judge_coverage(n_total=N_TOTAL, n_labeled=n_lab, sensitivity=se, specificity=sp, n_clusters=k,
                           reps=args.reps, rng=seed, **extra)
        covs.append(c.corrected)
        print(f"{'mean':8} {se:5.2f} {sp:5.2f} {n_lab:6d} {k:4d}  {c.corrected:9.3f}  {c.judge_only:10.3f}"
              f"  {c.mean_half_width:7.4f}  {c.judge_half_width:8.4f}  {c.mean_lam:.2f}", flush=True)
    for seed, (frac, k) in enumerate(itertools.product(FRACTIONS, (0, 12)), start=1000):
        n_lab = round(frac * N_TOTAL)
        c = judge_compare_coverage(n_total=N_TOTAL, n_labeled=n_lab, sensitivity=0.9, specificity=0.8,
                                   n_clusters=k, reps=args.reps, rng=seed, **extra)
        covs.append(c.corrected)
        print(f"{'compare':8} {0.9:5.2f} {0.8:5.2f} {n_lab:6d} {k:4d}  {c.corrected:9.3f}  {c.judge_only:10.3f}"
              f"  {c.mean_half_width:7.4f}  {c.judge_half_width:8.4f}  {c.mean_lam:.2f}", flush=True)
    for seed, (se, sp) in enumerate(((0.99, 0.80), (0.99, 0.99)), start=2000):
        c = judge_coverage(n_total=N_TOTAL, n_labeled=40, sensitivity=sp, specificity=se, pass_rate=0.3,
                           reps=args.reps, rng=seed, **extra)
        print(f"{'mirror':8} {sp:5.2f} {se:5.2f} {40:6d} {0:4d}  {c.corrected:9.3f}  {c.judge_only:10.3f}"
              f"  {c.mean_half_width:7.4f}  {c.judge_half_width:8.4f}  {c.mean_lam:.2f}   (pass rate 0.3)", flush=True)
    print(f"corrected coverage from {min(covs):.3f} to {max(covs):.3f} over {len(covs)} cells of {args.reps} "
          f"replications ({time.perf_counter() - start:.0f} s)")
    between = []
    for seed, (se, sp, n_lab, k) in enumerate(BETWEEN, start=3000):
        c = judge_coverage(n_total=N_TOTAL, n_labeled=n_lab, sensitivity=se, specificity=sp, n_clusters=k,
                           reps=args.reps, rng=seed, **extra)
        between.append(c.corrected)
        print(f"{'between':8} {se:5.2f} {sp:5.2f} {n_lab:6d} {k:4d}  {c.corrected:9.3f}  {c.judge_only:10.3f}"
              f"  {c.mean_half_width:7.4f}  {c.judge_half_width:8.4f}  {c.mean_lam:.2f}", flush=True)
    print(f"between the grid's points: {min(between):.3f} to {max(between):.3f} over {len(between)} designs "
          f"({time.perf_counter() - start:.0f} s in all)")


if __name__ == "__main__":
    main()
