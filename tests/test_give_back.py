"""The server hands freed memory back (issue 46, item 8): _memory.give_back returns the pages glibc's heap keeps
after a session's arrays are freed, and the workbench runs it from one thread per server."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import os, numpy as np
from evalstats_core._memory import give_back
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20
start = rss()
kept = [np.ones(12_000) for _ in range(2_500)]  # 96 KB each (240 MB), under glibc's mmap threshold
pin = np.ones(12_000)  # one live block above them (a session's small leftovers): the heap cannot shrink by itself
del kept
held = rss() - start
print(held, give_back(), rss() - start)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_give_back_returns_the_heap_a_freed_session_left():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=120)
    held, trimmed, after = out.stdout.split()
    assert trimmed == "True", out.stderr
    assert float(held) > 100 and float(after) < float(held) / 4, (held, after)


def test_the_workbench_starts_one_give_back_thread_per_server():
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import run_page

    run_page("pages/analyze.py")
    run_page("app.py")
    names = [t.name for t in threading.enumerate() if t.name == "evalstats-give-back"]
    assert len(names) == 1 and all(t.daemon for t in threading.enumerate() if t.name == "evalstats-give-back")
