"""The workbench as a user meets it: upload -> every result drawn, then a control change, at 10k to 10M rows.

Drives ``pages/analyze.py`` with Streamlit's AppTest (the page's real code path: caches, sections, charts),
injecting a long-form Parquet file of 3 models with clusters, then moving the confidence slider and the
adjustment. Beside each time it prints the rerun of a trivial page measured in the same run (the fixed
cost of a script run), and the ratio. The process's peak memory is printed last (it includes building
the test file itself). Run: ``python bench/bench_workbench_reruns.py [--rows 10000 1000000 10000000]``.

Targets (issues 11 and 25): upload -> drawn <= 1.5 s at 10k rows and <= 10 s at 1e7 rows; a control change
<= 0.3 s at 10k and <= 0.5 s at 1e7. The CPU time of this process is printed beside each wall time (the
machine may be shared). The same in Chromium against the real server: ``bench_workbench_browser.py``.
"""

from __future__ import annotations

import argparse
import io
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def parquet(rows: int) -> bytes:
    rng = np.random.default_rng(0)
    nq = rows // 3
    tbl = pa.table({"question": np.repeat(np.arange(nq), 3).astype(str),
                    "model": np.tile(np.array(["A", "B", "C"]), nq),
                    "score": (rng.random(nq * 3) < 0.6).astype(np.int8),
                    "cluster": np.repeat(np.arange(nq) // 20, 3)})
    buf = io.BytesIO()
    pq.write_table(tbl, buf)
    return buf.getvalue()


def trivial_rerun() -> float:
    """Best of 5 reruns of a one-line page: the fixed cost of an AppTest script run."""
    from streamlit.testing.v1 import AppTest

    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "trivial.py"
        script.write_text("import streamlit as st\nx = st.slider('x', 0, 10, key='x')\nst.write(x)\n")
        at = AppTest.from_file(str(script)).run()
        best = float("inf")
        for v in range(1, 6):
            start = time.perf_counter()
            at.slider(key="x").set_value(v).run()
            best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 1_000_000])
    args = parser.parse_args()
    from conftest import run_page
    from test_page_analyze import PAGE, inject

    ref = trivial_rerun()
    print(f"trivial page rerun: {ref * 1e3:.0f} ms")
    for rows in args.rows:
        data = parquet(rows)
        at = run_page(PAGE, timeout=600)
        start, cpu = time.perf_counter(), time.process_time()
        inject(at, "bench.parquet", data)
        drawn, drawn_cpu = time.perf_counter() - start, time.process_time() - cpu
        assert not at.exception and not at.error, (at.exception, at.error)
        start, cpu = time.perf_counter(), time.process_time()
        at.select_slider(key="analyze_confidence").set_value(0.9).run(timeout=600)
        conf, conf_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        at.selectbox(key="analyze_adjust").set_value("bh").run(timeout=600)
        adj, adj_cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{rows:>12,} rows: upload -> drawn {drawn:6.2f} s (CPU {drawn_cpu:5.2f} s, {drawn / ref:5.0f}x trivial); "
              f"confidence change {conf:5.2f} s (CPU {conf_cpu:4.2f} s, {conf / ref:4.0f}x); adjustment change "
              f"{adj:5.2f} s (CPU {adj_cpu:4.2f} s, {adj / ref:4.0f}x)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(f"peak memory of this process (test files included): {peak:.2f} GB")


if __name__ == "__main__":
    main()
