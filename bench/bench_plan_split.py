"""The plan's two parts at 1e4 and 1e7 rows: what a new effect, test size or power costs the workbench (issue 25).

``plan_pair`` (what the workbench ran on every new value before: ``_plan`` keyed on the controls) against its two
parts, :func:`~evalstats_core.planning.pair_pilot` (the file's part, now cached per pair and design) and
:func:`~evalstats_core.planning.plan_from_pilot` (the part a new effect, size or power runs), on the browser
bench's file (``bench_workbench_reruns.parquet``: 3 models, 0/1 scores, clusters of 20 questions; at 1e7 rows
3.3e6 questions in 166,667 clusters), the first pair, the page's default analysis, one BLAS thread as the page
sets it. Best of ``--repeat`` calls each; the ratio is the control part's time over ``plan_pair``'s in the same run.

Run: ``python bench/bench_plan_split.py --rows 10000 10000000``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def best(fn, repeat: int) -> tuple[float, object]:
    out, least = None, float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        least = min(least, time.perf_counter() - start)
    return least, out


def one(rows: int, repeat: int) -> None:
    """Time ``plan_pair`` and its two parts on the bench file of ``rows`` rows; print one line."""
    from bench_workbench_reruns import parquet

    from evalstats_core.analysis import analyze
    from evalstats_core.data import prepare
    from evalstats_core.planning import pair_pilot, plan_from_pilot, plan_pair

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"bench_{rows}.parquet"
        path.write_bytes(parquet(rows))
        prepared = prepare(str(path))
    analysis = analyze(prepared.table)
    pair = analysis.comparisons[0]
    args = (prepared.dataset, prepared.table, analysis, pair.model, pair.baseline)
    whole, plan = best(lambda: plan_pair(*args, delta=0.035, alpha=0.05, power=0.8), repeat)
    data, pilot = best(lambda: pair_pilot(*args), repeat)
    deltas = iter([0.036 + 0.001 * i for i in range(repeat)])  # a new value each call, as on the page
    control, _ = best(lambda: plan_from_pilot(pilot, delta=next(deltas), alpha=0.05, power=0.8), repeat)
    same = repr(plan_from_pilot(pilot, delta=0.035, alpha=0.05, power=0.8)) == repr(plan)
    print(f"{rows:>12,} {plan.n_clusters or 0:>9,} | {whole:>8.3f}s {data:>9.3f}s {control:>14.3f}s "
          f"{control / whole:>6.3f} | {same}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    print(f"{'rows':>12} {'clusters':>9} | {'plan_pair':>9} {'pair_pilot':>10} {'plan_from_pilot':>15} "
          f"{'ratio':>6} | same plan")
    for rows in args.rows:
        one(rows, args.repeat)


if __name__ == "__main__":
    main()
