"""The DuckDB engine with many string-id clusters (issue 44.2): peak memory with the per-cluster sums fetched in
batches (``engine.FETCH_ROWS``) against one fetch, in the same run.

    .venv/bin/python bench/bench_many_clusters.py [--rows 3000000] [--clusters 750000]

Writes a seeded Parquet file (string question ids, 2 models, 0/1 scores, string cluster ids, every cluster the
same size, written in row groups), runs ``evalbars analyze --engine duckdb`` on it under ``/usr/bin/time -v``, then
``engine.analyze_file`` in a fresh process for each setting, alternately, and prints each process's peak resident
memory (``ru_maxrss``) and CPU time (``--cli-only``: the CLI run alone). The issue's case is 6e7 rows with 750,000 clusters
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


def write(path: Path, rows: int, clusters: int, chunk: int = 2_000_000) -> None:
    """The file in row groups of ``chunk`` questions (so 6e7 rows never sit in Python at once): every question's
    rows for model A, then for model B, with the same seeded scores as one draw of ``2 * questions``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    questions = rows // 2
    per = max(1, questions // clusters)
    rng = np.random.default_rng(44)
    schema = pa.schema([("question", pa.string()), ("model", pa.string()), ("score", pa.int8()),
                        ("cluster", pa.string())])

    def ids(prefix: str, values: np.ndarray, width: int) -> pa.Array:
        text = pc.utf8_lpad(pc.cast(pa.array(values), pa.string()), width, "0")
        return pc.binary_join_element_wise(prefix, text, "")

    with pq.ParquetWriter(path, schema) as out:
        for model in ("A", "B"):
            for lo in range(0, questions, chunk):
                q = np.arange(lo, min(lo + chunk, questions))
                out.write_table(pa.table({
                    "question": ids("question-", q, 9), "model": pa.array([model] * len(q)),
                    "score": (rng.random(len(q)) < 0.6).astype(np.int8),
                    "cluster": ids("cluster-", np.minimum(q // per, clusters - 1), 7)}, schema=schema))


def cli(path: Path) -> str:
    """``evalbars analyze --engine duckdb`` on the file under ``/usr/bin/time -v``: its peak RSS and CPU."""
    run = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "evalstats_core", "analyze", str(path),
                          "--engine", "duckdb"], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=7200)
    got = dict(line.strip().rsplit(": ", 1) for line in run.stderr.splitlines() if ": " in line and "\t" in line)
    if run.returncode:  # the command's own words, before /usr/bin/time's report
        raise SystemExit(run.stderr.split("\tCommand being timed")[0][-1500:] + f"peak RSS "
                         f"{int(got.get('Maximum resident set size (kbytes)', 0)) / 1024:,.0f} MB, exit {run.returncode}")
    rss = int(got["Maximum resident set size (kbytes)"]) / 1024
    cpu = float(got["User time (seconds)"]) + float(got["System time (seconds)"])
    return (f"evalbars analyze --engine duckdb: peak RSS {rss:,.0f} MB, CPU {cpu:.1f} s "
            f"(user {got['User time (seconds)']}, system {got['System time (seconds)']}), "
            f"wall {got['Elapsed (wall clock) time (h:mm:ss or m:ss)']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--clusters", type=int, default=750_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cli-only", action="store_true", help="only the CLI run (not batches against one fetch)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "many_clusters.parquet"
        write(path, args.rows, args.clusters)
        print(f"{args.rows:,} rows, {args.clusters:,} string-id clusters, {path.stat().st_size / 2**20:.0f} MB Parquet; "
              f"load average {os.getloadavg()[0]:.1f}")
        print(cli(path) + f"; load average after {os.getloadavg()[0]:.1f}", flush=True)
        for _ in range(0 if args.cli_only else args.repeat):
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
