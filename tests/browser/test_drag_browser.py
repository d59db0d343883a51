"""Charts that follow the drag: each chart with its own Vega-Lite range input redraws in the browser when
the input moves, and the page sends nothing to the Streamlit server (no script rerun)."""

import pytest
from _pw import SHOTS, chart_pixels, count_sent_frames, drag_vega_range, wait_charts, wait_ready

TALL = {"width": 1400, "height": 9000}
SHOTS.mkdir(parents=True, exist_ok=True)  # this file may run alone, before any other test made it

# slug -> list of (chart title substring used in the file name, chart index, charts on opening, value)
CASES = {
    "small_n": [("sampling", 1, 7, 1000), ("halfwidth", 2, 7, 1500), ("arrivals", 4, 7, 100)],
    "clustering": [("deff", 2, 6, 40)],
    "paired": [("se_rho", 4, 6, 0.85)],
    "resampling": [("k_curve", 0, 5, 20)],
    "power": [("power_curve", 1, 3, 10), ("picture_effect", 2, 3, 8)],  # issue 40: the test pictured
}

#: chapters whose slider or chart sits in a collapsed optional section: the link opens it
OPEN = {"paired": "?optional=1"}


@pytest.mark.parametrize("slug", list(CASES))
def test_drag_redraws_without_a_rerun(server, page, slug):
    """Each drag chart of the page redraws when its range input moves, and no frame goes to the server.

    One page load per chapter for all its drag charts (chapter 2b has three): a drag changes nothing on
    the server, so the charts after the first are dragged on the same page as they would be by a reader.
    """
    frames = count_sent_frames(page)
    page.set_viewport_size(TALL)
    page.goto(f"{server}/{slug}{OPEN.get(slug, '')}")
    wait_ready(page)
    for name, index, n_charts, value in CASES[slug]:
        wait_charts(page, n_charts)
        chart = page.locator('[data-testid="stVegaLiteChart"]').nth(index)
        chart.scroll_into_view_if_needed()
        before = chart_pixels(chart)
        (SHOTS / f"drag_{slug}_{name}_before.png").write_bytes(before)
        page.wait_for_timeout(500)
        sent = frames["n"]
        drag_vega_range(chart, value)
        page.wait_for_timeout(600)
        after = chart_pixels(chart)
        (SHOTS / f"drag_{slug}_{name}_after.png").write_bytes(after)
        assert after != before, f"{slug}/{name}: the chart did not redraw"
        assert frames["n"] == sent, f"{slug}/{name}: dragging sent {frames['n'] - sent} frame(s) to the server"
    assert page.locator(".vega-bindings input[type=range]").count() >= 1


def test_coverage_lab_plays(server, page):
    """Switching on Play makes the lab's intervals arrive on their own: the chart keeps changing while it
    plays and stands still once paused."""
    page.set_viewport_size(TALL)
    page.goto(f"{server}/small_n")
    wait_ready(page)
    wait_charts(page, 7)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(4)
    chart.scroll_into_view_if_needed()
    before = chart_pixels(chart)
    page.get_by_text("Play: intervals arrive one at a time").click()
    frames = []
    for _ in range(4):
        page.wait_for_timeout(900)
        frames.append(chart.screenshot())
    assert len({before, *frames}) >= 3, "the intervals did not arrive on their own"
    (SHOTS / "drag_small_n_arrivals_playing.png").write_bytes(frames[-1])
    page.get_by_text("Play: intervals arrive one at a time").click()
    page.wait_for_timeout(1200)
    paused = chart_pixels(chart)
    page.wait_for_timeout(1200)
    assert chart.screenshot() == paused, "the chart still moves after pausing"
