"""Load: 10 browser sessions moving sliders and uploading files for 60 s against a local server (prints).

    .venv/bin/python bench/load_sessions.py [--sessions 10] [--seconds 60]

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port), opens N Chromium pages (Debian's
/usr/bin/chromium through Playwright, one browser, one context per session) and, round robin until
the time is up, each session: opens the problem chapter and presses a slider key, or opens the
workbench and uploads a small results file (every third upload a hostile one: a 3,000-column CSV).
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
        time.sleep(4)
        from playwright.sync_api import sync_playwright

        d = tempfile.mkdtemp()
        files = _files(d)
        counts = {"slider": 0, "upload": 0, "errors_shown": 0, "exceptions": 0, "failures": 0}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            pages = [browser.new_context().new_page() for _ in range(opts.sessions)]
            for p in pages:
                p.set_default_timeout(30_000)
            pages[0].goto(f"{url}/problem")
            pages[0].wait_for_selector('[data-testid="stSlider"]')
            threading.Thread(target=sample, daemon=True).start()
            start, i = time.perf_counter(), 0
            while time.perf_counter() - start < opts.seconds:
                page = pages[i % len(pages)]
                try:
                    if i % 2 == 0:
                        page.goto(f"{url}/problem")
                        page.wait_for_selector('[data-testid="stSlider"] [role="slider"]')
                        page.locator('[data-testid="stSlider"] [role="slider"]').first.press("ArrowRight")
                        counts["slider"] += 1
                    else:
                        page.goto(f"{url}/analyze")
                        page.wait_for_selector('[data-testid="stFileUploaderDropzoneInput"]')
                        page.set_input_files('[data-testid="stFileUploaderDropzoneInput"]', files[(i // 2) % 3])
                        page.wait_for_selector('[data-testid="stAlert"], [data-testid="stVegaLiteChart"]')
                        counts["upload"] += 1
                    counts["exceptions"] += page.locator('[data-testid="stException"]').count()
                    counts["errors_shown"] += page.locator('[data-testid="stAlertContentError"]').count()
                except Exception as exc:  # noqa: BLE001 - counted, the load goes on
                    counts["failures"] += 1
                    print("failure:", type(exc).__name__, str(exc)[:120])
                i += 1
            took = time.perf_counter() - start
            browser.close()
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
