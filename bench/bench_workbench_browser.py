"""The workbench in Chromium against a real ``streamlit run app.py``: open the page, upload a file, move a control.

For each file size (a long-form Parquet file of 3 models with clusters, the one
``bench_workbench_reruns.py`` builds) a fresh browser tab opens ``/analyze``, uploads the file through the
uploader, and waits until the status box says the file was read, the script has stopped running and both
charts (models, differences) have drawn: that is **upload -> drawn**. Then three controls are set to a new value
in turn, the confidence slider one step (95% -> 90%), the p-value adjustment (Holm -> Benjamini-Hochberg) and the
interval for one model (auto -> Wilson); the time from the choice until the page is drawn again is that
**control change**. Beside each wall time it
prints the server's CPU time (``/proc/PID/stat``, every thread), the browser's CPU time (every Chromium
process) and the server's peak resident memory during that upload (``VmHWM``, reset before each file through
``/proc/PID/clear_refs``).

The reference, measured in the same run, is a second visitor opening ``/analyze`` on the bundled example
(warm server): every time is also printed as a ratio to it. The first visitor's open is printed too (a cold
server: imports, the example read and analysed once per server).

Each step also prints its phases: the bytes sent over the websocket, when the key press or click reached the
page (the timed change starts earlier, when this script asks Playwright for it: finding the option and waiting
for it to stand still are inside it) and when the browser had drawn. (The page's own phase marks and
``--profile`` went with issue 38: profile the server with ``py-spy`` instead.)

Targets (issue 25): upload -> drawn <= 1.5 s at 1e4 rows, <= 10 s and <= 1.5 GB server peak at 1e7 rows; a
control set to a new value at 1e7 rows <= 0.5 s.

Run: ``python bench/bench_workbench_browser.py [--rows 10000 1000000 10000000]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

TIMEOUT_MS = 600_000
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def peak_gb(pid: int) -> float:
    """Peak resident memory (VmHWM) of ``pid`` since the last reset, in GB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e9
    return float("nan")


def reset_peak(pid: int) -> None:
    """Reset ``pid``'s VmHWM to its current RSS (Linux: ``echo 5 > /proc/PID/clear_refs``)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass


def server_pid(port: int) -> int:
    """The process listening on ``port`` (the Streamlit server)."""
    import psutil

    for conn in psutil.net_connections("tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
            return conn.pid
    raise RuntimeError(f"no process listens on port {port}")


def browser_cpu() -> float:
    """CPU time of every Chromium process this script started (renderers, GPU, browser)."""
    import psutil

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name().lower():
                t = child.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            pass
    return total


class Meter:
    """Wall, server CPU and browser CPU between ``start()`` and ``stop()``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def start(self) -> Meter:
        self.t, self.s, self.b = time.perf_counter(), cpu_seconds(self.pid), browser_cpu()
        return self

    def stop(self) -> tuple[float, float, float]:
        return time.perf_counter() - self.t, cpu_seconds(self.pid) - self.s, browser_cpu() - self.b


SETTLED = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const idle = app && app.getAttribute('data-test-script-state') === 'notRunning'
                 && !document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
    return idle && document.querySelectorAll('[data-testid="stVegaLiteChart"] canvas, '
                                             + '[data-testid="stVegaLiteChart"] svg.marks').length >= 2;
}"""
#: the first paint of the results (forest of the models and of the differences), the script may still run
CHARTS = """() => document.querySelectorAll('[data-testid="stVegaLiteChart"] canvas, '
                                          + '[data-testid="stVegaLiteChart"] svg.marks').length >= 2"""
PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


#: the time (ms since the epoch) the first key press or pointer press of a step reached the page: Playwright's
#: own work before it (finding, scrolling to, waiting for a still element) is inside the timed change
LISTEN = """() => { window.__evalstatsInput = null;
    const seen = e => { if (window.__evalstatsInput === null) window.__evalstatsInput = performance.timeOrigin + e.timeStamp; };
    document.addEventListener('keydown', seen, true); document.addEventListener('pointerdown', seen, true); }"""


def drawn(page) -> None:
    """The script has stopped and both charts of the results have drawn, and the next frame is painted (no
    fixed sleep: tests/browser's ``wait_ready`` adds 300 ms, which would be timed here)."""
    page.wait_for_function(SETTLED, polling=20)
    page.evaluate(PAINTED)


def open_example(browser, base: str, meter: Meter) -> tuple[float, float, float]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    meter.start()
    page.goto(base + "/analyze")
    drawn(page)
    out = meter.stop()
    context.close()
    return out


class Phases:
    """Per-phase timestamps of one step: the upload request's end (the browser's ``requestfinished``), the bytes
    the server sent over the websocket (the deltas: elements, tables, chart specs) and the moment the browser had
    drawn."""

    def __init__(self, page) -> None:
        self.uploaded, self.ws_bytes, self.t0, self.forest, self.event = None, 0, 0.0, None, None
        page.on("requestfinished", self._request)
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _request(self, request) -> None:
        if "upload_file" in request.url and request.method == "PUT":
            self.uploaded = time.time()

    def _frame(self, payload) -> None:
        self.ws_bytes += len(payload)

    def start(self) -> None:
        self.t0, self.uploaded, self.ws_bytes, self.forest, self.event = time.time(), None, 0, None, None

    def report(self, label: str) -> None:
        """Print each phase's end (seconds after the step began) and its length."""
        end = time.time()
        marks = []
        if self.uploaded is not None:
            marks.append((self.uploaded, "upload request finished (browser -> server)"))
        if self.event is not None:
            marks.append((self.event, "browser: the key press or click reached the page"))
        if self.forest is not None:
            marks.append((self.forest, "browser: tables and both forests on screen (the issue's 'drawn')"))
        marks.sort()
        marks.append((end, "browser drew the page (after the last script end)"))
        print(f"  phases of {label} (s after the step began; length; server->browser websocket "
              f"{self.ws_bytes / 1e6:.2f} MB):")
        last = self.t0
        for t, name in marks:
            print(f"    {t - self.t0:7.2f}  +{t - last:6.2f}  {name.strip()}")
            last = t


def upload_and_move(browser, base: str, path: Path, meter: Meter) -> tuple:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    phases = Phases(page)
    page.goto(base + "/analyze")
    drawn(page)
    reset_peak(meter.pid)
    phases.start()
    meter.start()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_text(f"scores from {path.name}").first.wait_for()
    # the caption under the differences forest names the bench file's 3 comparisons (the example has 1)
    page.get_by_text("of 3 comparisons are significant").first.wait_for()
    page.wait_for_function(CHARTS, polling=20)  # the tables and both forests are on screen
    page.evaluate(PAINTED)
    phases.forest = time.time()
    drawn(page)
    up = meter.stop()
    peak = peak_gb(meter.pid)
    phases.report(f"upload -> drawn, {path.name}")
    moves = []
    page.evaluate(LISTEN)
    for name, move, url in CONTROLS:
        before = page.evaluate("() => location.href")
        ready = move(page)  # e.g. a dropdown opened: what the user does before choosing is not timed
        page.evaluate("() => { window.__evalstatsInput = null; }")
        phases.start()
        meter.start()
        ready()
        page.wait_for_function("([h, u]) => location.href !== h && location.href.includes(u)", arg=[before, url])
        drawn(page)
        moves.append((name, meter.stop()))
        phases.event = page.evaluate("() => window.__evalstatsInput && window.__evalstatsInput / 1000")
        phases.report(f"{name} change, {path.name}")
    context.close()
    return up, peak, moves


def _confidence(page):
    """The confidence slider one step left (95% -> 90%), by the keyboard."""
    page.locator('[data-testid="stSlider"]').filter(has_text="Confidence level").get_by_role("slider").focus()
    return lambda: page.keyboard.press("ArrowLeft")


def _choose(label: str, option: str):
    """A selectbox's dropdown opened (not timed), then ``option`` clicked (timed)."""
    def move(page):
        page.locator('[data-testid="stSelectbox"]').filter(has_text=label).click()
        choice = page.get_by_role("option", name=option, exact=True)
        choice.wait_for()
        return choice.click
    return move


#: each control set to a new value after the upload, in this order: (name, move, what the URL then carries)
CONTROLS = (
    ("confidence", _confidence, "analyze_confidence=0.9"),
    ("adjustment", _choose("p-value adjustment", "Benjamini–Hochberg (false discovery rate)"), "analyze_adjust=bh"),
    ("interval", _choose("Interval for one model", "Wilson"), "analyze_method=wilson"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 1_000_000, 10_000_000])
    args = parser.parse_args()
    from bench_workbench_reruns import parquet
    from conftest import CHROMIUM, CHROMIUM_ARGS, streamlit_server
    from playwright.sync_api import sync_playwright

    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    with tempfile.TemporaryDirectory() as tmp, streamlit_server() as base, sync_playwright() as pw:
        files = {}
        for rows in args.rows:
            files[rows] = Path(tmp) / f"bench_{rows}.parquet"
            files[rows].write_bytes(parquet(rows))
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        meter = Meter(server_pid(int(base.rsplit(":", 1)[1])))
        first = open_example(browser, base, meter)
        ref = open_example(browser, base, meter)
        print(f"open /analyze, first visitor: {first[0]:6.2f} s wall ({first[1]:5.2f} s server CPU, "
              f"{first[2]:5.2f} s browser CPU)")
        print(f"open /analyze, next visitor (reference): {ref[0]:6.2f} s wall ({ref[1]:5.2f} s server CPU, "
              f"{ref[2]:5.2f} s browser CPU)")
        print(f"{'rows':>12} {'MB':>6} | {'upload->drawn':>13} {'ratio':>6} {'srv CPU':>8} {'brw CPU':>8} "
              f"{'srv peak':>9} | {'control':>10} {'change':>8} {'ratio':>6} {'srv CPU':>8} {'brw CPU':>8}")
        for rows, path in files.items():
            (t_up, s_up, b_up), peak, moves = upload_and_move(browser, base, path, meter)
            for i, (name, (t_mv, s_mv, b_mv)) in enumerate(moves):
                head = (f"{rows:>12,} {path.stat().st_size / 1e6:>6.1f} | {t_up:>11.2f} s {t_up / ref[0]:>5.1f}x "
                        f"{s_up:>6.2f} s {b_up:>6.2f} s {peak:>6.2f} GB" if i == 0 else " " * 64)
                print(f"{head} | {name:>10} {t_mv:>6.2f} s {t_mv / ref[0]:>5.1f}x {s_mv:>6.2f} s {b_mv:>6.2f} s",
                      flush=True)
        browser.close()
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
