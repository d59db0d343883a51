"""The DuckDB engine with many string-id clusters (issue 44.2): peak memory with the per-cluster sums fetched in
batches (``engine.FETCH_ROWS``) against one fetch, in the same run.

    .venv/bin/python bench/bench_many_clusters.py [--rows 3000000] [--clusters 750000]

Writes a seeded Parquet file (string question ids, 2 models, 0/1 scores, string cluster ids, every cluster the
same size), then runs ``engine.analyze_file`` in a fresh process for each setting, alternately, and prints each
process's peak resident memory (``ru_maxrss``) and CPU time. The issue's case is 6e7 rows with 750,000 clusters
(under 2 GB asked); ``--rows 60000000`` runs it (minutes, and a 1 GB file in the temporary folder).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = ("import sys, resource; from evalstats_core import engine; engine.FETCH_ROWS = int(sys.argv[2]); "
         "a = engine.analyze_file(sys.argv[1]); r = resource.getrusage(resource.RUSAGE_SELF); "
         "print(); print(r.ru_maxrss / 1024, r.ru_utime + r.ru_stime, a.models[0].n_clusters)")


def write(path: Path, rows: int, clusters: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    questions = rows // 2
    q = np.arange(questions)
    per = max(1, questions // clusters)
    qs = pa.array([f"question-{i:09d}" for i in q])
    cs = pa.array([f"cluster-{i:07d}" for i in np.minimum(q // per, clusters - 1)])
    rng = np.random.default_rng(44)
    table = pa.table({"question": pa.concat_arrays([qs, qs]), "model": ["A"] * questions + ["B"] * questions,
                      "score": (rng.random(2 * questions) < 0.6).astype(np.int8),
                      "cluster": pa.concat_arrays([cs, cs])})
    pq.write_table(table, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--clusters", type=int, default=750_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "many_clusters.parquet"
        write(path, args.rows, args.clusters)
        print(f"{args.rows:,} rows, {args.clusters:,} string-id clusters, {path.stat().st_size / 2**20:.0f} MB Parquet; "
              f"load average {os.getloadavg()[0]:.1f}")
        for _ in range(args.repeat):
            for label, batch in (("batches (FETCH_ROWS = 131,072)", 1 << 17), ("one fetch", 1 << 62)):
                out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(batch)], capture_output=True,
                                     text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=3600)
                if out.returncode:
                    raise SystemExit(out.stderr[-400:])
                rss, cpu, g = out.stdout.split()[-3:]
                print(f"{label:<32} peak RSS {float(rss):,.0f} MB, CPU {float(cpu):.1f} s, clusters {g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
