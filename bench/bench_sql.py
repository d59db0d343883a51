"""Files larger than memory through DuckDB: time and peak memory of ``evalstats_core.engine`` on big Parquet.

    python bench/bench_sql.py                       # 6e7 rows (one file), then 1e9 rows (a folder)
    python bench/bench_sql.py --rows 60000000       # one size only
    python bench/bench_sql.py --rows 1000000 --memory-limit 512MB

For each size it writes, with DuckDB's ``COPY`` into a temporary folder (deleted afterwards), a long Parquet
dataset of 4 models, clusters of 100 questions and binary scores (the 6e7-row file: one answer per
question; the 1e9-row dataset: 10 runs per question, 25 million questions, a folder of files of at most
512 MB -- this design compresses to one 0.44 GB file). Then:

* reference: one plain DuckDB pass, ``SELECT model, AVG(score), COUNT(*) ... GROUP BY model`` (the floor any
  analysis of the file must pay; with a constant number of runs per question it also gives each model's
  exact mean, the check below);
* the engine, in a child process (its peak RSS is that child's ``ru_maxrss`` from ``os.wait4``):
  :func:`~evalstats_core.engine.sums_of` with DuckDB's ``memory_limit`` and a spill folder, then
  :func:`~evalstats_core.analysis.analyze_sums` (every model and pair, CR2 clustered).

It prints rows, seconds (engine and reference, and their ratio), the child's peak RSS against the 2 GB
target, the largest difference between the engine's means and the reference's, and the disk the data took.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = 4
TARGET_RSS = 2 * 2**30


def generate(folder: Path, rows: int, runs: int) -> Path:
    """A long Parquet dataset of ``rows`` rows: question, model, score (0/1), cluster; a folder above 1e8 rows."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{folder / 'gen_tmp'}'")
    con.execute("SET threads = 2")
    con.execute("SET memory_limit = '2GB'")
    con.execute("SET preserve_insertion_order = false")
    per_question = MODELS * runs
    select = f"""
        SELECT i // {per_question} AS question,
               'model-' || chr(97 + CAST((i // {runs}) % {MODELS} AS INTEGER)) AS model,
               CAST((hash(i // {runs} * 31 + i % {runs}) % 1000) < 550 + 60 * ((i // {runs}) % {MODELS})
                    AS TINYINT) AS score,
               i // {per_question * 100} AS cluster
        FROM range({rows}) t(i)"""
    if rows > 100_000_000:
        out = folder / "data"
        con.execute(f"COPY ({select}) TO '{out}' (FORMAT parquet, FILE_SIZE_BYTES '512MB')")
    else:
        out = folder / "data.parquet"
        con.execute(f"COPY ({select}) TO '{out}' (FORMAT parquet)")
    con.close()
    return out


def reference(path: Path) -> tuple[float, float, dict]:
    """The plain pass: wall and CPU seconds (all DuckDB threads of this process) and per model (mean, rows)."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    glob = f"{path}/*.parquet" if path.is_dir() else str(path)
    start, cpu = time.perf_counter(), time.process_time()
    rows = con.execute(f"SELECT model, AVG(score), COUNT(*) FROM read_parquet('{glob}') GROUP BY model").fetchall()
    return time.perf_counter() - start, time.process_time() - cpu, {m: (mean, n) for m, mean, n in rows}


def child(path: str, memory_limit: str, spill: str) -> None:
    """The engine's run, in its own process (the parent reads its peak RSS)."""
    from evalstats_core.analysis import analyze_sums
    from evalstats_core.engine import duckdb_connection, sums_of

    start, cpu = time.perf_counter(), time.process_time()
    con = duckdb_connection(memory_limit=memory_limit, temp_directory=spill, threads=2)
    sums = sums_of(path, connection=con)
    mid = time.perf_counter()
    result = analyze_sums(sums)
    end = time.perf_counter()
    print(json.dumps({"sums_s": mid - start, "analyze_s": end - mid, "cpu_s": time.process_time() - cpu, "n_questions": sums.n_questions,
                      "means": {m.model: m.mean for m in result.models}, "n": {m.model: m.n for m in result.models},
                      "pairs": [[c.model, c.baseline, c.diff, c.se, c.df] for c in result.comparisons]}))


def run_child(path: Path, memory_limit: str, spill: Path) -> tuple[dict, int, float]:
    proc = subprocess.Popen([sys.executable, __file__, "--child", str(path), "--memory-limit", memory_limit,
                             "--spill", str(spill)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the engine's run failed ({proc.returncode}): {err.decode()[-2000:]}")
    # ru_maxrss is in KiB on Linux; user + system CPU of the whole child (import, sampling, every DuckDB thread)
    return json.loads(out), usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def disk(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def bench(rows: int, memory_limit: str, keep: bool, data: str | None = None) -> None:
    runs = 1 if rows <= 100_000_000 else 10
    folder = Path(data) if data else Path(tempfile.mkdtemp(prefix="bench_sql_", dir="/tmp"))
    try:
        start = time.perf_counter()
        existing = folder / ("data" if rows > 100_000_000 else "data.parquet")
        path = existing if data and existing.exists() else generate(folder, rows, runs)
        made = time.perf_counter() - start
        shutil.rmtree(folder / "gen_tmp", ignore_errors=True)
        size = disk(path)
        ref_s, ref_cpu, ref = reference(path)
        (folder / "spill").mkdir()
        load_before = os.getloadavg()
        got, rss, child_cpu = run_child(path, memory_limit, folder / "spill")
        load_after = os.getloadavg()
        worst = max(abs(got["means"][m] - ref[m][0]) for m in ref)
        engine_s = got["sums_s"] + got["analyze_s"]
        print(f"{rows:>14,} rows ({MODELS} models x {rows // MODELS // runs:,} questions x {runs} run(s), clusters "
              f"of 100): data {size / 2**30:.2f} GB written in {made:.0f} s")
        print(f"  engine (DuckDB, memory_limit {memory_limit}, 2 threads): {engine_s:.1f} s "
              f"(sums {got['sums_s']:.1f} s + analysis {got['analyze_s']:.3f} s); reference one pass {ref_s:.1f} s; "
              f"ratio {engine_s / ref_s:.1f}x")
        print(f"  CPU (user + system, every thread): engine {got['cpu_s']:.1f} s (whole child process "
              f"{child_cpu:.1f} s), reference {ref_cpu:.1f} s; ratio {got['cpu_s'] / ref_cpu:.1f}x")
        print(f"  machine load average (1, 5, 15 min) before the engine {load_before[0]:.1f} {load_before[1]:.1f} "
              f"{load_before[2]:.1f}, after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f} "
              f"({os.cpu_count()} cores): wall time >> CPU time when the machine is shared")
        print(f"  peak RSS of the engine's process: {rss / 2**30:.2f} GB (target < 2 GB: "
              f"{'met' if rss < TARGET_RSS else 'NOT met'}); {rss / rows:.2f} B/row")
        print(f"  means vs the reference: largest difference {worst:.2e} "
              f"({'exact to 1e-12' if worst <= 1e-12 else 'NOT exact'}); questions per model "
              f"{sorted(set(got['n'].values()))}, rows per model {sorted({n for _, n in ref.values()})}")
        for model, base, diff, se, df in got["pairs"][:3]:
            print(f"    {model} - {base}: {diff:+.6f} (SE {se:.6f}, df {df:.1f})")
    finally:
        shutil.rmtree(folder / "spill", ignore_errors=True)
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, action="append", help="rows (repeatable; default 6e7 then 1e9)")
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB's memory_limit (default 1GB)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data (printed folder)")
    parser.add_argument("--data", help="a folder for the data: reused when it already holds it (with --keep)")
    parser.add_argument("--generate-only", action="store_true", help="write the data (into --data) and stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--spill", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.memory_limit, args.spill)
        return
    for rows in args.rows or [60_000_000, 1_000_000_000]:
        if args.generate_only:
            Path(args.data).mkdir(parents=True, exist_ok=True)
            generate(Path(args.data), rows, 1 if rows <= 100_000_000 else 10)
            continue
        bench(rows, args.memory_limit, args.keep, args.data)


if __name__ == "__main__":
    main()
