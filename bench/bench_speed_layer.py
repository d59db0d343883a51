"""Each speed-up the workbench keeps, measured with and without it in one process (issue 38, item 5: a speed-up
stays only if removing it moves a time a user feels by more than 10% or 100 ms).

    python bench/bench_speed_layer.py gc        # Streamlit's collection after every rerun (now off: postScriptGC)
    python bench/bench_speed_layer.py blas      # one BLAS thread: the upload's analysis at 1e7 rows
    python bench/bench_speed_layer.py scope     # by_scope: a new visitor opens a bundled example
    python bench/bench_speed_layer.py memo      # FileSums.memo: a new confidence level at 1e4 and 1e7 rows
    python bench/bench_speed_layer.py template  # charts._template: the workbench's three charts, a new level

Each runs the two variants alternately (the machine may be shared) and prints medians of process CPU time and
wall time. The page's variants run the real page with AppTest (``pages/analyze.py``) on the bench file of
``bench_workbench_reruns.py`` (3 models, clusters of 20).
"""

from __future__ import annotations

import gc
import inspect
import logging
import sys
import threading
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

import numpy as np  # noqa: E402
from bench_workbench_reruns import parquet  # noqa: E402

warnings.simplefilter("ignore")
logging.disable(logging.WARNING)


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def _timed(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def _print(label, variants):
    for name, times in variants.items():
        print(f"{label}, {name}: CPU {1e3 * _median([t[0] for t in times]):.1f} ms, "
              f"wall {1e3 * _median([t[1] for t in times]):.1f} ms (median of {len(times)})")


def _page(rows: int = 10_000):
    from conftest import run_page
    from test_page_analyze import inject

    at = run_page("pages/analyze.py")
    for thread in threading.enumerate():
        if thread.name == "evalstats-warm-imports":
            thread.join(timeout=120)
    return inject(at, "bench.parquet", parquet(rows))


def bench_gc() -> None:
    """The full collection Streamlit runs after every script run (``runner.postScriptGC``, holding the
    interpreter lock before the rerun's last messages leave), the app's heap unfrozen vs frozen. The project's
    ``.streamlit/config.toml`` now turns that collection off (``postScriptGC = false``, issue 43), so the
    workbench's ``gc.freeze`` was retired: this measures what the setting saves."""
    _page()
    out: dict = {"unfrozen": [], "frozen": []}
    for _ in range(7):
        for name in out:
            gc.unfreeze()
            if name == "frozen":
                gc.collect()
                gc.freeze()
            out[name].append(_timed(lambda: gc.collect(2)))
    print(f"objects walked unfrozen: {len(gc.get_objects()) + gc.get_freeze_count():,}")
    _print("the collection after a rerun (1e4-row file open)", out)


def bench_blas() -> None:
    from threadpoolctl import threadpool_limits

    from evalstats_core.analysis import analyze_sums
    from evalstats_core.reading import ReadingOptions
    from evalstats_core.sums import file_sums

    prepared = ReadingOptions().prepare([("b.parquet", parquet(10_000_000))])
    out: dict = {"default threads": [], "one thread": []}
    for _ in range(5):
        for name, limit in (("default threads", None), ("one thread", 1)):
            with threadpool_limits(limits=limit, user_api="blas"):
                out[name].append(_timed(lambda: analyze_sums(file_sums(prepared.table))))
    _print("the upload's sums and analysis at 1e7 rows", out)


def bench_scope(example: str = "code_samples") -> None:
    from conftest import run_page
    from streamlit.testing.v1 import local_script_runner as lsr

    import evalstats_app.workbench_charts
    import evalstats_app.workbench_passk
    import evalstats_app.workbench_reading
    import evalstats_app.workbench_sections
    from evalstats_app import workbench

    modules = (workbench, evalstats_app.workbench_reading, evalstats_app.workbench_sections,
               evalstats_app.workbench_charts, evalstats_app.workbench_passk)
    scoped = [f for m in modules for f in vars(m).values()
              if inspect.isfunction(f) and hasattr(f, "shared") and hasattr(f, "private")]
    visitor = {"sid": "first"}
    init = lsr.LocalScriptRunner.__init__

    def as_visitor(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._session_id = visitor["sid"]

    lsr.LocalScriptRunner.__init__ = as_visitor
    run_page("pages/analyze.py", {"analyze_example": example})
    out: dict = {"shared by the server": [], "per session": []}
    for r in range(5):
        for name in out:
            if name == "per session":
                for f in scoped:
                    f.shared.clear()
            visitor["sid"] = f"{name} {r}"
            out[name].append(_timed(lambda: run_page("pages/analyze.py", {"analyze_example": example})))
    _print(f"a new visitor opens the {example} example", out)


def bench_memo() -> None:
    from evalstats_core.analysis import analyze_sums
    from evalstats_core.reading import ReadingOptions
    from evalstats_core.sums import file_sums

    for rows in (10_000, 10_000_000):
        sums = file_sums(ReadingOptions().prepare([("b.parquet", parquet(rows))]).table)
        analyze_sums(sums)
        merged = {k: v for k, v in sums.memo.items() if k in ("merged", "unit01")}
        levels = iter(np.linspace(0.8, 0.99, 100))
        out: dict = {"kept": [], "emptied": []}
        for _ in range(7):
            for name in out:
                if name == "emptied":
                    sums.memo.clear()
                    sums.memo.update(merged)
                level = float(next(levels))
                out[name].append(_timed(lambda s=sums, c=level: analyze_sums(s, confidence=c, baseline=None)))
        _print(f"a new confidence level's analysis at {rows:.0e} rows, memo", out)


def bench_template() -> None:
    import pandas as pd

    from evalstats_core.charts import analyze as charts
    from evalstats_core.charts import compile_spec

    rng = np.random.default_rng(0)

    def frames(shift):
        m = pd.DataFrame({"model": list("ABC"), "estimate": [0.6, 0.58, 0.55], "ci_low": [0.58 - shift, 0.56, 0.53],
                          "ci_high": [0.62 + shift, 0.6, 0.57], "tied": [True, True, False], "group": ["a", "a", "b"]})
        d = pd.DataFrame({"label": ["B − A", "C − A", "C − B"], "estimate": [-0.02, -0.05, -0.03],
                          "ci_low": [-0.04 - shift, -0.07, -0.05], "ci_high": [shift, -0.03, -0.01],
                          "significant": [False, True, True]})
        c = pd.DataFrame({"cluster": [f"c{i}" for i in range(8)], "n": [20] * 8, "share": rng.normal(0.1, 0.1, 8)})
        return m, d, c

    def filled(m, d, c):
        charts.models_spec(m, confidence=None, title="t")
        charts.differences_spec(d, confidence=None, title="t")
        charts.cluster_spec(c, title="t")

    def compiled(m, d, c):
        compile_spec(charts.models_chart(m, confidence=None, title="t"))
        compile_spec(charts.differences_chart(d, confidence=None, title="t"))
        compile_spec(charts.cluster_chart(c, title="t"))

    out: dict = {"template filled": [], "compiled": []}
    for r in range(12):
        for name, fn in (("template filled", filled), ("compiled", compiled)):
            f = frames(r / 1000)
            out[name].append(_timed(lambda fn=fn, f=f: fn(*f)))
    _print("the workbench's three charts at a new level", {k: v[1:] for k, v in out.items()})


if __name__ == "__main__":
    {"gc": bench_gc, "blas": bench_blas, "scope": bench_scope, "memo": bench_memo,
     "template": bench_template}[sys.argv[1]]()
