"""Speed of the command line's analysis against reading and reshaping the same file with pandas.

    python bench/bench_cli.py            # full run (about a minute on 2 cores)
    python bench/bench_cli.py --quick    # 100,000 questions instead of 1,000,000

Builds a seeded long CSV (question, model, score; 1,000,000 questions x 2 models = 2,000,000 rows) in a
temporary folder and times, best of ``--repeat`` runs:

* reference: ``pandas.read_csv(engine="pyarrow")`` plus the long-to-wide ``pivot`` (what any analysis of
  the file must at least do);
* the CLI's work in-process: ``cli.main(["analyze", FILE, "-f", "json", "-o", OUT])`` (load, validate,
  question-level scores, every summary and comparison, the JSON report);
* the same as a subprocess ``python -m evalstats_core analyze`` (adds interpreter start-up and imports).

It prints the ratio to the reference (target: the in-process CLI within 2x), then load+analysis times
for files of 10,000, 100,000 and 1,000,000 rows (the workbench's figures).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402

from evalstats_core.analysis import analyze  # noqa: E402
from evalstats_core.cli import main  # noqa: E402
from evalstats_core.data import load  # noqa: E402


def make_csv(path: Path, n_questions: int, seed: int = 0) -> None:
    """Long CSV: n_questions x 2 models, 0/1 scores from a shared difficulty (correlated models)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n_questions)  # (n,)
    q = np.char.add("q", np.arange(n_questions).astype(str))
    table = pa.table({
        "question": np.repeat(q, 2),
        "model": np.tile(np.array(["model-a", "model-b"]), n_questions),
        "score": (rng.random((n_questions, 2)) * 0.6 + difficulty[:, None] > 0.75).astype(np.int8).ravel(),
    })
    pacsv.write_csv(table, path, write_options=pacsv.WriteOptions(quoting_style="none"))


def reference(path: Path) -> None:
    frame = pd.read_csv(path, engine="pyarrow")
    frame.pivot(index="question", columns="model", values="score")


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100,000 questions instead of 1,000,000")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "results.csv", Path(tmp) / "report.json"
        t = time.perf_counter()
        make_csv(path, n)
        print(f"file: {n:,} questions x 2 models = {2 * n:,} rows, {path.stat().st_size / 1e6:.1f} MB "
              f"(written in {time.perf_counter() - t:.1f} s)")
        ref = best(lambda: reference(path), args.repeat)
        cli = best(lambda: main(["analyze", str(path), "-f", "json", "-o", str(out)]), args.repeat)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        sub = best(lambda: subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", str(path), "-f", "json",
                                           "-o", str(out)], check=True, env=env), args.repeat)
        print(f"reference  pandas read_csv(pyarrow) + pivot : {ref:7.2f} s")
        print(f"CLI in-process (load + analyze + JSON)     : {cli:7.2f} s   ratio {cli / ref:4.2f}x  (target <= 2x)")
        print(f"CLI subprocess (adds start-up and imports)  : {sub:7.2f} s   ratio {sub / ref:4.2f}x")

        print(f"\nload + analysis (best of {args.repeat}):")
        print(f"{'rows':>10}  {'questions':>9}  {'load':>7}  {'analyze':>7}  {'total':>7}")
        for rows in (10_000, 100_000, 1_000_000):
            p = Path(tmp) / f"r{rows}.csv"
            make_csv(p, rows // 2, seed=rows)
            t_load = best(lambda p=p: load(p), args.repeat)
            ds = load(p)
            t_an = best(lambda ds=ds: analyze(ds), args.repeat)
            print(f"{rows:>10,}  {rows // 2:>9,}  {t_load:6.3f}s  {t_an:6.3f}s  {t_load + t_an:6.3f}s")


if __name__ == "__main__":
    main_bench()
