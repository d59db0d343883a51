"""Every chapter with a slider, in a real browser: moving the slider redraws a chart (its pixels change),
not only the numbers beside it. Saves the chart before and after to tests/screenshots/."""

import time

import pytest
from _pw import SHOTS, wait_charts, wait_ready

TALL = {"width": 1400, "height": 9000}  # Streamlit scrolls inside the app; a tall view draws every chart

# slug -> (slider's accessible name, index of that slider among those named so, chart index, arrow key,
#          presses, charts drawn on opening)
CASES = {
    "problem": ("Questions per run", 0, 1, "ArrowRight", 5, 2),
    "small_n": ("Questions n", 0, 1, "ArrowRight", 5, 7),
    "clustering": ("Intra-cluster correlation ρ", 0, 0, "ArrowRight", 2, 3),
    "paired": ("Correlation between the models' answers", 0, 4, "ArrowRight", 2, 6),
    "resampling": ("Answers per question (K)", 0, 0, "ArrowRight", 1, 5),
    "temperature": ("Temperature T", 0, 0, "ArrowLeft", 10, 3),
    "power": ("Power", 0, 1, "ArrowRight", 5, 2),
}

#: chapters whose slider or chart sits in a collapsed optional section: the link opens it
OPEN = {"paired": "?optional=1"}


def _settled(chart, *, timeout: float = 10.0) -> bytes:
    """The chart's pixels once two screenshots in a row agree (Vega has finished drawing)."""
    last = chart.screenshot()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        chart.page.wait_for_timeout(300)
        now = chart.screenshot()
        if now == last:
            return now
        last = now
    return last


@pytest.mark.parametrize("slug", list(CASES))
def test_slider_redraws_the_chart(server, page, slug):
    """A few arrow-key presses on the chapter's slider change the pixels of the chart it drives."""
    name, nth, chart_index, key, presses, n_charts = CASES[slug]
    page.set_viewport_size(TALL)
    page.goto(f"{server}/{slug}{OPEN.get(slug, '')}")
    page.wait_for_selector("h1")
    wait_ready(page)
    wait_charts(page, n_charts)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(chart_index)
    before = _settled(chart)
    (SHOTS / f"redraw_{slug}_before.png").write_bytes(before)
    search = page.evaluate("() => location.search")
    label = page.get_by_text(name, exact=True)
    page.locator('[data-testid="stSlider"]').filter(has=label).nth(nth).get_by_role("slider").focus()
    for _ in range(presses):
        page.keyboard.press(key)
    page.wait_for_function("s => location.search !== s", arg=search)  # the rerun has mirrored the setting
    wait_ready(page)
    wait_charts(page, n_charts)
    deadline = time.monotonic() + 15
    after = chart.screenshot()
    while after == before and time.monotonic() < deadline:  # explicit wait for the redraw
        page.wait_for_timeout(300)
        after = chart.screenshot()
    after = _settled(chart)
    (SHOTS / f"redraw_{slug}_after.png").write_bytes(after)
    assert after != before, f"{slug}: the chart did not change after moving '{name}'"
