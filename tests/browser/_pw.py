"""Helpers for the browser tests: waits and screenshots (fixtures live in conftest.py)."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import PAGE_TIMEOUT_MS  # noqa: F401  (re-exported for the tests that open their own contexts)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots"


def wait_ready(page) -> None:
    """Wait until Streamlit has finished running the script (no running indicator, app rendered).

    The app's script state must be ``notRunning``: not merely "not ``running``", which also holds for
    ``initial`` (a page whose first run has not started: its widgets are not there yet) and for
    ``rerunRequested`` (a widget change sent, its rerun not yet begun: the page is about to be redrawn).
    """
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                   && app.getAttribute('data-test-connection-state') === 'CONNECTED'
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


def press_slider(page, slider, key: str, done: str, *, arg=None, tries: int = 3, probe: float = 5_000,
                 timeout: float = PAGE_TIMEOUT_MS) -> None:
    """Press ``key`` once on ``slider`` (a locator of the slider handle) and wait until the JavaScript
    predicate ``done`` (called with ``arg``) holds, e.g. until the URL carries the new value.

    A key pressed while the page is still being redrawn can land on a handle that is being replaced and
    be lost: the handle's value (its ``<input type=range>``'s value; Streamlit's slider sets no
    ``aria-valuenow``) is then unchanged and the key is pressed again, up to
    ``tries`` times. ``done`` is first waited for ``probe`` ms; if it does not hold by then and the handle
    did move, the rerun is slow, not lost, and is waited for up to ``timeout`` ms more: a handle that moved
    is never pressed again (that would step twice), and a rerun that never satisfies ``done`` is a failure.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        before = slider.input_value()
        slider.focus()
        page.keyboard.press(key)
        try:
            page.wait_for_function(done, arg=arg, timeout=probe)
            return
        except PlaywrightTimeout:
            if slider.input_value() != before:
                page.wait_for_function(done, arg=arg, timeout=timeout)
                return
    raise AssertionError(f"{key} on the slider was lost {tries} times (its value stayed {before})")


def step_slider(page, slider, key: str, presses: int) -> None:
    """Press ``key`` on ``slider`` (a locator of the slider handle) ``presses`` times, one step at a time.

    Each step waits until the rerun it starts has mirrored the new value into the URL: a key pressed
    while a rerun is still running can otherwise be merged into it and lost.
    """
    for _ in range(presses):
        press_slider(page, slider, key, "h => location.href !== h", arg=page.evaluate("() => location.href"))
        wait_ready(page)


def slide_to(page, slider, target: float, *, step: float, limit: int = 60) -> None:
    """Move ``slider`` (a locator of the slider handle) to ``target`` with the keyboard, one press at a time
    (each waits for its rerun, as :func:`step_slider`): PageUp/PageDown while the gap is more than a page
    (a tenth of the range, as the slider's own keyboard handling), then the arrow keys, checking the handle's
    value after each press. Fewer reruns than ``round(gap / step)`` arrow presses.
    """
    low, high = (float(slider.get_attribute(a)) for a in ("min", "max"))
    page_size = max(step, round((high - low) / 10 / step) * step)
    for _ in range(limit):
        gap = target - float(slider.input_value())
        if abs(gap) < step / 2:
            return
        if abs(gap) > page_size + step * 1.5:  # a page step cannot overshoot (whichever way it rounds)
            key = "PageUp" if gap > 0 else "PageDown"
        else:
            key = "ArrowRight" if gap > 0 else "ArrowLeft"
        press_slider(page, slider, key, "h => location.href !== h", arg=page.evaluate("() => location.href"))
        wait_ready(page)
    raise AssertionError(f"the slider did not reach {target} in {limit} presses")


def chart_pixels(chart, *, timeout: float = 10.0) -> bytes:
    """The chart's pixels (a locator of one ``stVegaLiteChart``) once two screenshots in a row agree (Vega
    has finished drawing)."""
    last = chart.screenshot()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        chart.page.wait_for_timeout(300)
        now = chart.screenshot()
        if now == last:
            return now
        last = now
    return last


def redrawn(chart, before: bytes, name: str, *, timeout: float = 15.0) -> bytes:
    """Wait until ``chart`` draws other pixels than ``before`` (up to ``timeout`` s), then until it has
    settled; save both to tests/screenshots/redraw_{name}_before/after.png and return the settled pixels.
    The caller asserts they differ."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"redraw_{name}_before.png").write_bytes(before)
    deadline = time.monotonic() + timeout
    after = chart.screenshot()
    while after == before and time.monotonic() < deadline:  # a wait for the redraw, not a fixed pause
        chart.page.wait_for_timeout(300)
        after = chart.screenshot()
    after = chart_pixels(chart)
    (SHOTS / f"redraw_{name}_after.png").write_bytes(after)
    return after


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
