"""The workbench's once-per-server warm-up reads through the upload's Parquet path before any upload (issue 25:
a 10,000-row upload drawn in 1.5 s; the times themselves are ``bench/bench_workbench_browser.py``'s).

Checked in a fresh interpreter, where nothing of the reader is imported yet: after the page's set-up
(:func:`evalstats_app.workbench.warm_up`, its background thread joined) the Parquet reader and the table
reader are loaded, so the first upload neither imports them nor pays their first-use set-up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import json, sys, threading
sys.path.insert(0, sys.argv[1])
import evalstats_app.workbench as wb
reader = ("pyarrow.parquet", "evalstats_core._read", "evalstats_core._encode")
before = [m for m in reader if m in sys.modules]
wb.warm_up()
for thread in threading.enumerate():
    if thread.name == "evalstats-warm-imports":
        thread.join(timeout=120)
print(json.dumps({"before": before, "after": [m for m in reader if m in sys.modules]}))
"""


def test_the_warm_up_loads_the_parquet_and_table_readers_before_an_upload():
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT)], capture_output=True, text=True, timeout=300,
                         cwd=ROOT, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["before"] == [], seen  # the check means something: nothing of the reader is loaded up front
    assert seen["after"] == ["pyarrow.parquet", "evalstats_core._read",
                             "evalstats_core._encode"], seen


def test_a_failure_while_warming_never_reaches_the_page(monkeypatch):
    from evalstats_app import workbench as wb
    from evalstats_core import reading

    def broken(self, files):
        raise RuntimeError("no reader here")

    monkeypatch.setattr(reading.ReadingOptions, "prepare", broken)
    wb.warm_reader()  # an optimisation only: the upload itself reports any problem
