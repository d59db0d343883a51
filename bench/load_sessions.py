"""Load: 10 browser sessions moving sliders and uploading files for 60 s against a local server (prints).

    .venv/bin/python bench/load_sessions.py [--sessions 10] [--seconds 60]

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port) and N threads, each a user with its own
Chromium (Debian's /usr/bin/chromium through Playwright), all at once until the time is up: open the
problem chapter and press a slider key (waiting for the rerun to reach the URL), or open the workbench
and upload a small results file (every third upload a hostile one: a 3,000-column CSV).
It samples the server's resident memory every second and prints actions done, exceptions seen on
the pages, and the server's memory at the start, peak and end. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _rss_mb(pid: int) -> float:
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


def _files(d: str) -> list[str]:
    import numpy as np

    rng = np.random.default_rng(0)
    good = Path(d) / "good.csv"
    rows = ["question,model,score"] + [f"q{i},{m},{int(rng.random() < p)}" for m, p in (("A", .6), ("B", .7))
                                       for i in range(300)]
    good.write_text("\n".join(rows) + "\n")
    wide = Path(d) / "wide.csv"
    wide.write_text("question," + ",".join(f"m{j}" for j in range(3000)) + "\n" +
                    "\n".join(f"q{i}," + ",".join("1" for _ in range(3000)) for i in range(3)) + "\n")
    return [str(good), str(good), str(wide)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60.0)
    opts = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.address", "127.0.0.1", "--server.headless", "true"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    mem: list[float] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            mem.append(_rss_mb(server.pid))
            time.sleep(1.0)

    try:
        for _ in range(60):  # ready when /_stcore/health answers ok
            try:
                import urllib.request

                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        d = tempfile.mkdtemp()
        files = _files(d)
        counts = {"slider": 0, "upload": 0, "errors_shown": 0, "exceptions": 0, "failures": 0}
        lock = threading.Lock()
        threading.Thread(target=sample, daemon=True).start()
        deadline = time.perf_counter() + opts.seconds

        def session(n: int) -> None:
            """One user: its own browser, alternating a slider move on a chapter and an upload."""
            from playwright.sync_api import sync_playwright

            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                page = browser.new_context().new_page()
                page.set_default_timeout(60_000)
                i = n
                while time.perf_counter() < deadline:
                    try:
                        if i % 2 == 0:
                            page.goto(f"{url}/problem")
                            slider = page.get_by_role("slider").first
                            slider.wait_for()
                            before = page.evaluate("() => location.href")
                            slider.focus()
                            page.keyboard.press("ArrowRight")
                            page.wait_for_function("h => location.href !== h", arg=before)
                            key = "slider"
                        else:
                            page.goto(f"{url}/analyze")
                            page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
                                files[(i // 2) % 3])
                            name = Path(files[(i // 2) % 3]).name
                            page.get_by_text(name).first.wait_for()  # the upload reached the page
                            page.wait_for_timeout(500)  # let the rerun it starts begin
                            page.wait_for_function(  # and its run has finished
                                "() => document.querySelector('[data-testid=\"stApp\"]')"
                                ".getAttribute('data-test-script-state') !== 'running'")
                            page.wait_for_selector('[data-testid="stAlertContentError"], '
                                                   '[data-testid="stVegaLiteChart"] canvas, '
                                                   '[data-testid="stVegaLiteChart"] svg.marks')
                            key = "upload"
                            if name.startswith("wide"):
                                page.locator('[data-testid="stAlertContentError"]').first.wait_for()
                        exc = page.locator('[data-testid="stException"]').count()
                        err = page.locator('[data-testid="stAlertContentError"]').count()
                        with lock:
                            counts[key] += 1
                            counts["exceptions"] += exc
                            counts["errors_shown"] += err
                    except Exception as exc:  # noqa: BLE001 - counted, the load goes on
                        with lock:
                            counts["failures"] += 1
                        print(f"session {n} failure:", type(exc).__name__, str(exc)[:120])
                    i += 1
                browser.close()

        start = time.perf_counter()
        threads = [threading.Thread(target=session, args=(n,)) for n in range(opts.sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.perf_counter() - start
        stop.set()
        print(f"{opts.sessions} sessions, {took:.0f} s: {counts['slider']} slider moves, {counts['upload']} uploads "
              f"({counts['errors_shown']} error messages shown, for the hostile uploads), {counts['exceptions']} "
              f"exceptions on pages, {counts['failures']} failed actions")
        print(f"server RSS (with children): start {mem[0]:.0f} MB, peak {max(mem):.0f} MB, end {mem[-1]:.0f} MB")
    finally:
        stop.set()
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
