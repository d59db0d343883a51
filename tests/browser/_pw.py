"""Helpers for the browser tests: waits and screenshots (fixtures live in conftest.py)."""

from __future__ import annotations

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


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def step_slider(page, slider, key: str, presses: int) -> None:
    """Press ``key`` on ``slider`` (a locator of the slider handle) ``presses`` times, one step at a time.

    Each step waits until the rerun it starts has mirrored the new value into the URL: a key pressed
    while a rerun is still running can otherwise be merged into it and lost.
    """
    for _ in range(presses):
        before = page.evaluate("() => location.href")
        slider.focus()
        page.keyboard.press(key)
        page.wait_for_function("h => location.href !== h", arg=before)
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
