"""The analysis of freshly made sums at 1e6 rows (issue 25): the part of ``analyze`` after the data pass.

``bench/bench_core.py --scale 1e6`` times ``analyze`` against the one-pass bound; what it adds to the data pass is
``analyze_sums`` of the new :class:`~evalstats_core.sums.FileSums`. This times that alone, on the same tables
(2 and 4 models, clustered and not), as best process CPU time of ``--repeat`` calls, each on sums made afresh (no
memo carried over). A second time is ``interval="normal"``: every interval and p from t, none from the 0/1 rules (a pair's Tango score interval and, with clusters, the MOVER's; a model's Wilson or
Korn-Graubard check), so the difference is what those rules cost. Run: ``python bench/bench_sums_analysis.py [--repeat 100]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from _timing import one_blas_thread

one_blas_thread()  # before numpy, as bench_core

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_core import table_of  # noqa: E402

from evalstats_core.analysis import analyze_sums  # noqa: E402
from evalstats_core.sums import file_sums  # noqa: E402


def fresh_best(table, repeat: int, interval: str = "auto") -> float:
    """Best CPU time of ``analyze_sums`` on sums made afresh each call."""
    best = float("inf")
    for i in range(repeat + 1):
        kept = file_sums(table)
        start = time.process_time()
        analyze_sums(kept, interval=interval)
        if i:  # the first call is a warm-up
            best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--rows", type=float, default=1e6)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"analyze_sums of fresh sums, {args.rows:.0e} rows (best of {args.repeat}, process CPU time)")
    for n_clusters in (None, 10_000):
        for n_models in (2, 4):
            table = table_of(int(args.rows), n_models, n_clusters)
            none = fresh_best(table, args.repeat)
            plain = fresh_best(table, args.repeat, "normal")
            where = "no clusters" if n_clusters is None else f"{n_clusters:,} clusters"
            print(f"  {n_models} models, {where:<16} {none * 1e3:6.2f} ms; without the 0/1 rules "
                  f"(interval='normal') {plain * 1e3:6.2f} ms: the rules {(none - plain) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
