"""Helpers for the browser tests: waits and screenshots (fixtures live in conftest.py)."""

from __future__ import annotations

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots"


def wait_ready(page) -> None:
    """Wait until Streamlit has finished running the script (no running indicator, app rendered)."""
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') !== 'running'
                   && !document.querySelector('[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]');
        }"""
    )
    page.wait_for_timeout(300)


def wait_charts(page, count: int = 1) -> None:
    """Wait until at least ``count`` Vega charts have drawn their canvas or SVG."""
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=\"stVegaLiteChart\"] canvas, "
        f"[data-testid=\"stVegaLiteChart\"] svg.marks').length >= {count}"
    )


def next_frames(page, frames: int = 2) -> None:
    """Wait until the browser has painted ``frames`` more frames: what a key press or a scroll changed is
    laid out and drawn (a condition, where a fixed pause would guess how long that takes)."""
    page.evaluate("n => new Promise(done => { const tick = k => k ? requestAnimationFrame(() => tick(k - 1)) : done();"
                  " tick(n); })", frames)


# Bring each chart into view, one per painted frame, from the top of the page down to the bottom.
_VISIT_CHARTS = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  for (const chart of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    chart.scrollIntoView({block: 'center'});
    await frame();
  }
}"""
# every element has mounted (Streamlit shows a skeleton while an element's code loads, after the script
# has finished) and every chart on the page (not in a closed expander) has drawn its SVG or canvas
_ALL_DRAWN = """() => !document.querySelector('[data-testid="stMain"] [data-testid="stSkeleton"]')
  && Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]'))
  .filter(c => c.getClientRects().length > 0).every(c => c.querySelector('canvas, svg.marks'))"""


def wait_mounted(page) -> None:
    """Wait until every element of the page has mounted (no skeleton left) and every visible chart has drawn."""
    page.wait_for_function(_ALL_DRAWN)


def read_settled(page, script: str, *, interval: float = 0.3, timeout: float = 20.0):
    """Scroll every chart of the page into view, wait until each visible one has drawn, then evaluate
    ``script`` until two reads ``interval`` s apart agree (the layout has stopped moving); that read.

    Replaces scrolling the page a fixed number of times with fixed pauses: each chart is visited, and
    the read is taken once the page has settled, however long that takes (up to ``timeout``).
    """
    wait_mounted(page)
    page.evaluate(_VISIT_CHARTS)
    wait_mounted(page)
    last = page.evaluate(script)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page.wait_for_timeout(interval * 1000)
        now = page.evaluate(script)
        if now == last:
            return now
        last = now
    return last


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def press_slider(page, slider, key: str, done: str, *, arg=None, tries: int = 3, timeout: float = 20_000) -> None:
    """Press ``key`` once on ``slider`` (a locator of the slider handle) and wait until the JavaScript
    predicate ``done`` (called with ``arg``) holds, e.g. until the URL carries the new value.

    A key pressed while the page is still being redrawn can land on a handle that is being replaced and
    be lost: the handle's value (``aria-valuenow``) is then unchanged and the key is pressed again, up to
    ``tries`` times. A handle that did move but whose rerun never satisfies ``done`` is a failure, not
    retried: pressing again would step twice.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        before = slider.get_attribute("aria-valuenow")
        slider.focus()
        page.keyboard.press(key)
        try:
            page.wait_for_function(done, arg=arg, timeout=timeout)
            return
        except PlaywrightTimeout:
            if slider.get_attribute("aria-valuenow") != before:
                raise
    raise AssertionError(f"{key} on the slider was lost {tries} times (its value stayed {before})")


def step_slider(page, slider, key: str, presses: int) -> None:
    """Press ``key`` on ``slider`` (a locator of the slider handle) ``presses`` times, one step at a time.

    Each step waits until the rerun it starts has mirrored the new value into the URL: a key pressed
    while a rerun is still running can otherwise be merged into it and lost.
    """
    for _ in range(presses):
        press_slider(page, slider, key, "h => location.href !== h", arg=page.evaluate("() => location.href"))
        wait_ready(page)


def metric(page, label: str, *, exact: bool = False) -> str:
    """The value shown by the first ``st.metric`` whose label is (or, unless ``exact``, contains) ``label``."""
    boxes = page.locator('[data-testid="stMetric"]')
    box = (boxes.filter(has=page.get_by_text(label, exact=True)) if exact else boxes.filter(has_text=label)).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def count_sent_frames(page) -> dict:
    """Start counting the WebSocket frames the page sends to the Streamlit server.

    Every widget change (and so every script rerun) is a frame the browser sends; a chart that redraws
    from its own Vega-Lite parameter sends none. Returns a dict whose ``"n"`` grows with each frame.
    Call before ``page.goto``: only sockets opened afterwards are counted.
    """
    counter = {"n": 0}

    def on_socket(ws) -> None:
        ws.on("framesent", lambda _payload: counter.__setitem__("n", counter["n"] + 1))

    page.on("websocket", on_socket)
    return counter


def drag_vega_range(chart, value: float, *, nth: int = 0) -> None:
    """Move the ``nth`` Vega-Lite range input bound to a chart parameter (``alt.binding_range``) inside
    ``chart`` (a locator of one ``stVegaLiteChart``) to ``value``, as a drag would: the input's value
    changes and an ``input`` event fires, which Vega handles in the browser without Streamlit.

    Pair it with :func:`count_sent_frames` to show the redraw made no server round trip.
    """
    slider = chart.locator(".vega-bindings input[type=range]").nth(nth)
    slider.wait_for(state="attached")
    slider.evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true}));"
        " el.dispatchEvent(new Event('change', {bubbles: true})); }",
        value,
    )
