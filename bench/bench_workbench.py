"""Time the workbench's expensive middle (load + analysis) on results files of 10k, 100k and 1M rows,
beside pandas' pyarrow CSV reader on the same bytes (measured in the same run).

What is timed, for each file size:

* ``pandas read``: ``pd.read_csv(BytesIO(data), engine="pyarrow")`` -- only parsing, no checks.
* ``load``: ``evalstats_core.data.prepare`` -- read + validate every cell (data.load),
  question-level scores (resamples averaged), cluster codes, and the scan for unused cluster-like columns.
* ``analyze``: ``analyze`` (every model, every pair, Holm), the guardrails, the ranking and the plan of one
  pair: everything the page computes once per setting.
* ``rerun``: ``analyze`` + guardrails again with a different confidence (what moving a control costs when
  the file itself is cached).

The file is long form, four models, K = 5 answers per question, 0/1 scores and a cluster column (10 questions
per cluster): 1M rows are 50,000 questions. Run: ``python bench/bench_workbench.py [--rows 10000 100000 1000000]``.
The target is "a few seconds" for 1M rows on a 2-core machine; the ratio column says how many pandas reads
the whole load + analysis costs.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.analysis import analyze  # noqa: E402
from evalstats_core.data import prepare  # noqa: E402
from evalstats_core.guardrails import guardrails  # noqa: E402
from evalstats_core.planning import plan_pair  # noqa: E402
from evalstats_core.ranking import rank_models  # noqa: E402

MODELS = ("model-a", "model-b", "model-c", "model-d")
K = 5
CLUSTER_SIZE = 10


def make_file(rows: int, seed: int = 0) -> bytes:
    """A long-form CSV of about ``rows`` answers (vectorised; the generator is not what is timed)."""
    rng = np.random.default_rng(seed)
    n_q = max(rows // (len(MODELS) * K), 2)
    difficulty = rng.normal(0, 1, n_q) + np.repeat(rng.normal(0, 0.7, n_q // CLUSTER_SIZE + 1), CLUSTER_SIZE)[:n_q]
    ability = np.linspace(0.2, 0.6, len(MODELS))
    q = np.repeat(np.arange(n_q), len(MODELS) * K)
    m = np.tile(np.repeat(np.arange(len(MODELS)), K), n_q)
    p = 1 / (1 + np.exp(-(ability[m] - difficulty[q])))
    score = (rng.random(q.size) < p).astype(np.int8)
    frame = pd.DataFrame({"question": pd.Series(q).map("q{:06d}".format), "model": np.asarray(MODELS)[m],
                          "score": score, "cluster": pd.Series(q // CLUSTER_SIZE).map("c{:05d}".format)})
    return frame.to_csv(index=False).encode()


#: Process CPU seconds (every thread: pyarrow's reader, BLAS) of the fastest call of each ``timed`` step.
CPU: list[float] = []


def timed(fn, repeat: int) -> tuple[float, object]:
    """Fastest wall time of ``repeat`` calls and the last result (that call's process CPU appended to ``CPU``)."""
    best, out, cpu = float("inf"), None, 0.0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall = time.perf_counter() - start
        if wall < best:
            best, cpu = wall, time.process_time() - start_cpu
    CPU.append(cpu)
    return best, out


def middle(p, confidence: float):
    a = analyze(p.table, confidence=confidence)
    g = guardrails(p.dataset, p.table, a, extra_clusters=p.extra_clusters)
    return a, g


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=0, help="calls of each step (default 3, above 1e5 rows 2)")
    args = parser.parse_args()
    print(f"{'rows':>10} {'MB':>6} {'pandas read':>12} {'load':>8} {'analyze':>8} {'rerun':>8} "
          f"{'total':>8} {'total/pandas':>13}   CPU s (load, analyze, rerun; all threads)")
    for rows in args.rows:
        data = make_file(rows)
        repeat = args.repeat or (3 if rows <= 100_000 else 2)
        CPU.clear()
        t_pd, _ = timed(lambda data=data: pd.read_csv(io.BytesIO(data), engine="pyarrow"), repeat)
        t_load, p = timed(lambda data=data: prepare(data, "bench.csv"), repeat)

        def everything(p=p):
            a, g = middle(p, 0.95)
            r = rank_models({m.model: m.mean for m in a.models}, [(c.model, c.baseline, c.p_adjusted)
                                                                   for c in a.comparisons])
            c = a.comparisons[0]
            plan = plan_pair(p.dataset, p.table, a, c.model, c.baseline, delta=0.02)
            return a, g, r, plan

        t_an, _ = timed(everything, repeat)
        t_rerun, _ = timed(lambda p=p: middle(p, 0.9), repeat)
        total = t_load + t_an
        print(f"{p.dataset.n_rows:>10,} {len(data) / 1e6:>6.1f} {t_pd:>11.3f}s {t_load:>7.3f}s {t_an:>7.3f}s "
              f"{t_rerun:>7.3f}s {total:>7.3f}s {total / t_pd:>12.1f}x   "
              f"{CPU[1]:.2f}, {CPU[2]:.2f}, {CPU[3]:.2f}; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
