"""The workbench on a folder of the server (``EVALSTATS_SERVER_DATA``), aggregated by DuckDB: path -> drawn, then
a confidence change, through AppTest in this process (the page's real code: caches, sections, charts).

The folder holds the long-form table of ``bench_workbench_reruns.py`` (3 models, clusters of 20 questions) in two
Parquet files. CPU is this process's (DuckDB's threads included); the peak includes building the files.
Run: ``python bench/bench_workbench_server.py [--rows 10000000]``.
"""
import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--rows", type=int, default=10_000_000)
rows = parser.parse_args().rows
tmp = Path(tempfile.mkdtemp())
root = tmp / "data"
(root / "runs").mkdir(parents=True)
rng = np.random.default_rng(0)
nq = rows // 3
for i, part in enumerate(np.array_split(np.arange(nq), 2)):
    pq.write_table(pa.table({"question": np.repeat(part, 3).astype(str),
                             "model": np.tile(np.array(["A", "B", "C"]), part.size),
                             "score": (rng.random(part.size * 3) < 0.6).astype(np.int8),
                             "cluster": np.repeat(part // 20, 3)}), root / "runs" / f"part{i}.parquet")
os.environ["EVALSTATS_SERVER_DATA"] = str(root)
print(f"load average: {Path('/proc/loadavg').read_text().strip()}")
from conftest import run_page  # noqa: E402

at = run_page("pages/analyze.py", timeout=900)
t, c = time.perf_counter(), time.process_time()
at.text_input(key="analyze_server_path").input("runs").run(timeout=900)
print(f"{rows:,} rows in a server folder (DuckDB): path -> drawn {time.perf_counter() - t:.2f} s "
      f"(CPU {time.process_time() - c:.2f} s, DuckDB's threads included)")
assert not at.exception and not at.error, (at.exception, at.error)
t, c = time.perf_counter(), time.process_time()
at.select_slider(key="analyze_confidence").set_value(0.9).run(timeout=900)
print(f"confidence change {time.perf_counter() - t:.2f} s (CPU {time.process_time() - c:.2f} s)")
shutil.rmtree(tmp)
print(f"peak memory of this process (test files included): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
