"""Time and peak memory of the hostile inputs of issue 13 at full size (prints; not a timed test).

    .venv/bin/python bench/bench_hostile.py [--small]

For each file of ``tests/hostile_files.py`` (``big=True``: the 1.7 MB CSV with 100,000 model columns, the
3.4 MB Parquet file with 200 million rows, ...) it runs the command line and, for the bombs, the
workbench's reading path (``data.prepare`` on the uploaded bytes, what the server does) in a
fresh process, and prints the exit code, the wall time, the peak resident memory and the message.
The issue's bar: under 10 s, one message, under 1.5 GB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SERVER = """
import sys
from evalstats_core.data import prepare
data = open(sys.argv[1], 'rb').read()
try:
    prepare(data, sys.argv[1].rsplit('/', 1)[-1])
    print('analysed')
except Exception as exc:
    print(type(exc).__name__ + ': ' + str(exc)[:160])
"""


def _measured(argv: list[str]) -> tuple[int, float, float, str]:
    """Run argv; (exit code, seconds, peak RSS in MB, last stderr line)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        text = (err.read().strip().splitlines() or out.read().strip().splitlines() or [""])[-1]
    return os.waitstatus_to_exitcode(status), took, usage.ru_maxrss / 1024, text


def main() -> None:
    big = "--small" not in sys.argv
    with tempfile.TemporaryDirectory() as d:
        built = time.perf_counter()
        # build in a child process: Linux children inherit the parent's peak RSS, so the parent stays small
        manifest = subprocess.run(
            [PY, "-c", f"import sys, json; sys.path.insert(0, {str(ROOT / 'tests')!r}); "
             f"from hostile_files import cases; print(json.dumps({{k: [c.path, list(c.options)] for k, c in "
             f"cases({d!r}, big={big}).items()}}))"], check=True, capture_output=True, text=True).stdout
        files = {k: SimpleNamespace(path=v[0], options=v[1]) for k, v in json.loads(manifest).items()}
        print(f"built {len(files)} files in {time.perf_counter() - built:.1f} s (big={big})")
        for name in ("wide_100k.csv", "bomb.parquet"):
            print(f"  {name}: {os.path.getsize(files[name].path) / 1e6:.2f} MB on disk")
        print(f"{'case':28s} {'where':7s} {'exit':>4s} {'s':>6s} {'peak MB':>8s}  message")
        for name, case in files.items():
            code, took, peak, text = _measured([PY, "-m", "evalstats_core", "analyze", case.path, *case.options])
            print(f"{name:28s} {'cli':7s} {code:4d} {took:6.2f} {peak:8.0f}  {text[:110]}")
            if name in ("wide_100k.csv", "bomb.parquet", "transposed_2000.csv", "gzip_bomb.csv.gz"):
                code, took, peak, text = _measured([PY, "-c", SERVER, case.path])
                print(f"{name:28s} {'server':7s} {code:4d} {took:6.2f} {peak:8.0f}  {text[:110]}")


if __name__ == "__main__":
    main()
