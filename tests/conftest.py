"""Shared test helpers: run a page through Streamlit's AppTest the way the app routes to it."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.chdir(ROOT)  # AppTest and the page scripts resolve paths from the project root

APPTEST_TIMEOUT = 60


def run_page(path: str | None = None, query: dict[str, str] | None = None, *, timeout: float = APPTEST_TIMEOUT):
    """Run ``app.py`` and switch to ``path`` (e.g. "pages/power.py"), with optional URL query params.

    Returns the AppTest after the page's first run. Pages are reached through app.py because
    ``st.page_link`` in the shared sidebar resolves paths relative to the main script.
    """
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if path is not None:
        at.switch_page(path)
        if query:
            for k, v in query.items():
                at.query_params[k] = v
        at.run()
    return at


def no_exceptions(at) -> None:
    """Fail with the page's own exception text if the script raised."""
    if len(at.exception):
        raise AssertionError("page raised: " + "\n".join(e.value for e in at.exception))



# ---------------------------------------------------------------------------------------------
# Real-browser fixtures: one Streamlit server for the session, Debian's Chromium driven by Playwright.
# Where Chromium or Playwright is missing the browser tests skip with the reason, except when
# EVALSTATS_REQUIRE_BROWSER=1 (set by .ci/run): then a missing browser is a failure.
# Helpers (waits, screenshots to tests/screenshots/) live in tests/browser/_pw.py.


CHROMIUM = os.environ.get("EVALSTATS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
REQUIRED = os.environ.get("EVALSTATS_REQUIRE_BROWSER") == "1"
#: how long a browser test waits for a condition (a rerun's text, a URL, a chart) before it fails: generous, as
#: every wait is on a condition and returns as soon as it holds; a 2-core machine running two servers and two
#: Chromiums (CI's -n 2) can take longer than 30 s for a page's first run
PAGE_TIMEOUT_MS = 60_000


def _missing_reason() -> str | None:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        return f"Debian's chromium is not installed ({CHROMIUM}); apt-get install -y chromium"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed; pip install -r requirements-dev.txt"
    return None


# The ``slow`` marker, also added by path: tests that run the Streamlit app (AppTest pages, servers), build
# the wheel, or call R or pdflatex. ``-m "not browser and not slow"`` leaves the core's own tests (the
# statistics, files, reports and the command line); the full suite runs everything.
SLOW_FILES = ("test_page_", "test_notes_", "test_chart_contrast.py", "test_chart_ticks.py", "test_home.py",
              "test_hostile_app.py", "test_wheel.py", "test_container.py",
              "test_latex_compile.py", "test_inspect_metric.py", "test_action.py", "test_interrupt.py",
              "test_quickstart.py")
SLOW_TESTS = ("test_live_r_",)  # test_cr2_oracle.py: rerun the clubSandwich script with Rscript


def pytest_collection_modifyitems(config, items):
    reason = _missing_reason()
    for item in items:
        path = str(item.fspath).replace(os.sep, "/")
        if "tests/browser" not in path and (Path(path).name.startswith(SLOW_FILES)
                                            or item.name.startswith(SLOW_TESTS)):
            item.add_marker(pytest.mark.slow)
        if "tests/browser" in path:
            item.add_marker(pytest.mark.browser)
            if reason and not REQUIRED:  # in CI a missing browser must fail, not skip
                item.add_marker(pytest.mark.skip(reason=reason))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# A clean stop: the test server runs in its own process group, stopped by the fixture's teardown, by an
# atexit handler if the teardown is cut short (a second Ctrl-C), and by the kernel if pytest itself is
# killed (PR_SET_PDEATHSIG). SIGTERM is turned into KeyboardInterrupt, so `kill PID` tears down like
# Ctrl-C. tests/test_interrupt.py checks that no server of an interrupted run survives.
_SERVERS: set[subprocess.Popen] = set()
# Run the rest of argv after asking the kernel for SIGTERM when the parent (pytest) dies (Linux; kept
# across exec). A wrapper process instead of preexec_fn, which is unsafe once threads run.
_DIE_WITH_PARENT = ("import ctypes, os, sys\n"
                    "try:\n    ctypes.CDLL(None).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM\n"
                    "except (OSError, AttributeError):\n    pass\n"
                    "os.execv(sys.argv[1], sys.argv[1:])\n")


def _stop(proc: subprocess.Popen) -> None:
    """Stop a server and everything in its process group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    _SERVERS.discard(proc)


def _stop_servers() -> None:
    for proc in list(_SERVERS):
        _stop(proc)


def _terminate_as_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


atexit.register(_stop_servers)
if threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)


@contextlib.contextmanager
def streamlit_server():
    """Start ``streamlit run app.py`` on a free loopback port; yield its base URL once healthy."""
    port = _free_port()
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-c", _DIE_WITH_PARENT, sys.executable, "-m", "streamlit", "run", "app.py",
         "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port),
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    _SERVERS.add(proc)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    try:
        while True:
            try:
                if urllib.request.urlopen(f"{base}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                log.seek(0)
                raise RuntimeError("streamlit did not start:\n" + log.read().decode(errors="replace"))
            time.sleep(0.3)
        yield base
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def server():
    """One Streamlit server shared by the browser tests; yields its base URL."""
    with streamlit_server() as base:
        yield base


# Playwright's driver (Node.js) would start in pytest's process group, so a terminal's Ctrl-C (SIGINT to the
# whole group) would kill it while pytest is still tearing down: every later browser call, the fixtures'
# teardown included, then fails with "Target page, context or browser has been closed" and a traceback
# instead of pytest's summary. Playwright starts Node from PLAYWRIGHT_NODEJS_PATH when that is set, so it is
# pointed at a tiny launcher that moves Node into its own session (os.setsid) and then execs it (same pid,
# same pipes). The driver still ends with pytest: it exits when its stdin closes, taking Chromium (which it
# starts in a process group of its own) with it.
_NODE_IN_OWN_SESSION = "import os, sys\nos.setsid()\nos.execv({node!r}, [{node!r}, *sys.argv[1:]])\n"


@contextlib.contextmanager
def _driver_in_own_session():
    """While the block runs, PLAYWRIGHT_NODEJS_PATH names a launcher that starts Node in its own session."""
    import playwright._impl._driver as driver

    node, _ = driver.compute_driver_executable()  # the user's PLAYWRIGHT_NODEJS_PATH, else the bundled Node
    with tempfile.TemporaryDirectory(prefix="evalstats-pw-") as tmp:
        launcher = Path(tmp) / "node"
        launcher.write_text(f"#!{sys.executable}\n" + _NODE_IN_OWN_SESSION.format(node=node))
        launcher.chmod(0o755)
        before = os.environ.get("PLAYWRIGHT_NODEJS_PATH")
        os.environ["PLAYWRIGHT_NODEJS_PATH"] = str(launcher)
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("PLAYWRIGHT_NODEJS_PATH", None)
            else:
                os.environ["PLAYWRIGHT_NODEJS_PATH"] = before


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with _driver_in_own_session():
        pw = sync_playwright().start()  # the driver is started here; the launcher may go once it runs
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
    finally:
        pw.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(PAGE_TIMEOUT_MS)
    yield pg
    context.close()


# No test writes a tracked file (screenshots go to tests/screenshots/, ignored; the README's picture is remade on
# purpose by scripts/hero.sh): the run's summary names any tracked file whose state changed while it ran.
def _tracked_changes() -> set[str] | None:
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return set(out.stdout.splitlines()) if out.returncode == 0 else None


def pytest_sessionstart(session):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        session.config._tracked_before = _tracked_changes()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    before = getattr(config, "_tracked_before", None)
    after = _tracked_changes() if before is not None else None
    if after is not None and after - before:
        terminalreporter.write_line("tracked files changed during this run (no test may write one): "
                                    + ", ".join(sorted(line[3:] for line in after - before)), red=True)
