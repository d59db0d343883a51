"""The suite stops cleanly: an interrupted pytest run leaves no Streamlit server (or browser) behind.

pytest runs one browser test in a subprocess with a token in its environment, which every process it
starts inherits. Once the run's Streamlit server is up, the run gets SIGINT (Ctrl-C) or SIGTERM
(``kill``); pytest must end within a minute, and no process carrying the token may survive it. A terminal's
Ctrl-C reaches the whole foreground process group, not pytest alone: sent that way, once Chromium is up,
the run must still end with pytest's own summary line, its teardown intact (Playwright's driver must not
have died first: "Target page, context or browser has been closed" in every later browser call).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import REQUIRED, _missing_reason

ROOT = Path(__file__).resolve().parent.parent
ONE_TEST = "tests/browser/test_analyze_browser.py::test_default_example_draws_tables_and_charts"


def _processes(token: str) -> dict[int, str]:
    """pid -> command line of every process whose environment holds ``token``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "environ").read_bytes():
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    return found


def _wait(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return predicate()


@pytest.mark.parametrize(("sig", "group"), [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)],
                         ids=["SIGINT", "SIGTERM", "SIGINT-to-the-group"])
def test_an_interrupted_run_leaves_no_server(sig, group):
    reason = _missing_reason()
    if reason and not REQUIRED:
        pytest.skip(reason)
    if not Path("/proc/self/environ").exists():
        pytest.skip("needs Linux /proc to find the run's processes")
    token = f"EVALSTATS_RUN_TOKEN={uuid.uuid4().hex}"
    env = {**os.environ, "EVALSTATS_RUN_TOKEN": token.split("=", 1)[1]}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.Popen([sys.executable, "-m", "pytest", ONE_TEST, "-q", "-p", "no:cacheprovider", "-n", "0"],
                           cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           start_new_session=True)
    try:
        needed = "chromium" if group else "streamlit"  # the group's Ctrl-C: once the browser is up too
        up = _wait(lambda: any(needed in c for c in _processes(token).values()) or run.poll() is not None, 120)
        assert up and run.poll() is None, f"the run's {needed} never started"
        time.sleep(2)  # the test is under way
        if group:
            os.killpg(run.pid, sig)  # every process of the run's group, as a terminal's Ctrl-C
        else:
            os.kill(run.pid, sig)  # pytest alone, as `kill PID` (or a Ctrl-C reaching it first)
        try:
            out = run.communicate(timeout=60)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            pytest.fail(f"pytest did not stop within 60 s of {sig.name}")
        left = _wait(lambda: not _processes(token), 20)
        assert left, f"processes of the interrupted run survive: {_processes(token)}"
        if group:
            assert "KeyboardInterrupt" in out, out[-3000:]
            assert re.search(r"^(\d+ (passed|failed|error)|no tests ran)\b.* in [\d.]+s", out, re.M), out[-3000:]
            assert "has been closed" not in out and "TargetClosedError" not in out, out[-3000:]
    finally:
        for pid in _processes(token):  # never leave anything behind, even when the test fails
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
