"""Time per step of a chart's own drag input in Chromium (issue 24: chapter 2's half-width drag took 71 ms a
step, about 14 fps). Starts the app, moves the chart's range input 40 steps, waits one animation frame (16.7 ms at 60 Hz is the floor)
after each, and prints ms per step. Run: .venv/bin/python bench/bench_drag.py [slug] [chart index]."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]

_READY = """i => document.querySelectorAll('[data-testid="stVegaLiteChart"] svg').length > i"""
_STEP = """async ([i, steps]) => {
  const chart = document.querySelectorAll('[data-testid="stVegaLiteChart"]')[i];
  const input = chart.querySelector('.vega-bindings input[type=range]');
  const lo = +input.min, hi = +input.max, step = +input.step || 1;
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const t0 = performance.now();
  for (let k = 0; k < steps; k++) {
    input.value = lo + ((k * 7) % Math.floor((hi - lo) / step)) * step;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await frame();
  }
  return (performance.now() - t0) / steps;
}"""


def main(slug: str = "one_model", index: int = 6) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                            "true", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(6)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 9000})
            page.goto(f"http://127.0.0.1:{port}/{slug}")
            page.wait_for_function(_READY, arg=index)
            page.wait_for_timeout(3000)
            page.evaluate(_STEP, [index, 5])  # warm-up
            ms = page.evaluate(_STEP, [index, 40])
            print(f"{slug} chart {index}: {ms:.1f} ms per drag step ({1000 / ms:.0f} fps)")
            browser.close()
    finally:
        app.terminate()
        app.wait(timeout=20)


if __name__ == "__main__":
    main(*(sys.argv[1:2] or ["one_model"]), *(int(a) for a in sys.argv[2:3]))
