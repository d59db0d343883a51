"""Peak memory of the command line per row (issue 25: <= 100 B/row on a 3e6-row long file).

    python bench/bench_memory.py                 # 3,000,000 rows, CSV and Parquet
    python bench/bench_memory.py --rows 1000000

Writes a seeded long file (question, model, cluster, score; 4 models, 50 questions a cluster) as CSV and
as Parquet, then runs ``python -m evalstats_core analyze FILE -f json`` in a child process for each and
reads the child's peak resident memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``, one fresh
child per measurement). It prints the peak, the peak over the interpreter's own start-up peak (a child
that imports the same modules and reads nothing), both per row, and the CPU time. The reference: a
minimal pyarrow pipeline (read the columns, dictionary-encode the labels, group the scores) in a child
of its own, printed beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_BASELINE = """
import evalstats_core.analysis, evalstats_core.report, evalstats_core.cli  # the same imports, no data
import pandas, pyarrow, pyarrow.compute, pyarrow.csv, pyarrow.parquet  # lazy since issue 25: a large file needs them
"""

_ARROW_FLOOR = """
import sys, numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as pacsv, pyarrow.parquet as pq
path = sys.argv[1]
t = pq.read_table(path) if path.endswith(".parquet") else pacsv.read_csv(path)
q = pc.dictionary_encode(t["question"]).combine_chunks()
m = pc.dictionary_encode(t["model"]).combine_chunks()
s = t["score"].to_numpy()
del t
sums = np.bincount(m.indices.to_numpy(), weights=s)
"""


def make_files(folder: Path, rows: int, seed: int = 0) -> tuple[Path, Path]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_q = rows // 4
    q = np.char.add("q", np.arange(n_q).astype(str))
    difficulty = rng.random(n_q)
    table = pa.table({
        "question": np.repeat(q, 4),
        "model": np.tile(np.array(["model-a", "model-b", "model-c", "model-d"]), n_q),
        "cluster": np.repeat(np.char.add("c", (np.arange(n_q) // 50).astype(str)), 4),
        "score": (rng.random((n_q, 4)) * 0.6 + difficulty[:, None] > 0.75).astype(np.int8).ravel(),
    })
    csv, parquet = folder / "long.csv", folder / "long.parquet"
    pacsv.write_csv(table, csv, write_options=pacsv.WriteOptions(quoting_style="none"))
    pq.write_table(table, parquet)
    return csv, parquet


def child(args: list[str]) -> tuple[float, float]:
    """Peak RSS (bytes) and CPU seconds of one fresh child running ``python args``."""
    code = ("import resource, subprocess, sys\n"
            "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
            "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(r.ru_maxrss * 1024, r.ru_utime + r.ru_stime)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code, sys.executable, *args], env=env, check=True,
                         capture_output=True, text=True)
    peak, cpu = out.stdout.split()
    return float(peak), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        csv, parquet = make_files(Path(tmp), args.rows)
        base, _ = child(["-c", _BASELINE])
        print(f"{args.rows:,} rows (4 models, clusters); start-up peak with the same imports {base / 1e6:.0f} MB; "
              f"load average {Path('/proc/loadavg').read_text().split()[0] if Path('/proc/loadavg').exists() else '?'}")
        print(f"{'file':>8}  {'size':>7}  {'peak':>8}  {'B/row':>6}  {'over start-up':>13}  {'CPU':>6}  "
              f"{'arrow floor B/row':>17}")
        for path in (csv, parquet):
            peak, cpu = child(["-m", "evalstats_core", "analyze", str(path), "-f", "json", "-o",
                               str(Path(tmp) / "out.json")])
            floor, _ = child(["-c", _ARROW_FLOOR, str(path)])
            print(f"{path.suffix[1:]:>8}  {path.stat().st_size / 1e6:5.0f}MB  {peak / 1e6:6.0f}MB  "
                  f"{peak / args.rows:6.0f}  {(peak - base) / args.rows:10.0f} B/row  {cpu:5.1f}s  "
                  f"{floor / args.rows:17.0f}")


if __name__ == "__main__":
    main()
