"""The workbench in a real browser: a new confidence level redraws the charts of the results in place.

The charts carry no setting inside them (the level and the method line are in the caption under each), so a
new level changes their data only, and Streamlit's frontend feeds the new rows into the Vega views it has
drawn instead of embedding new ones (a quarter of a second for the page's charts). Checked here on the drawn
page: each chart's drawing (its canvas or SVG node) is the very node drawn before the change, its pixels
changed (narrower intervals), and the caption under it names the new level. Saves the charts before and after
to tests/screenshots/.
"""

import time

from _pw import SHOTS, chart_pixels, press_slider, wait_charts, wait_ready

TALL = {"width": 1400, "height": 7000}  # Streamlit scrolls inside the app; a tall view draws every chart
CHARTS = '[data-testid="stVegaLiteChart"]'
MARK = """() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]')).map((c, i) => {
    const drawn = c.querySelector('canvas, svg.marks');
    if (drawn) { drawn.dataset.evalstatsDrawn = String(i); }
    return !!drawn;
})"""
SAME = """() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]')).map(
    (c, i) => { const d = c.querySelector('canvas, svg.marks'); return !!d && d.dataset.evalstatsDrawn === String(i); })"""


def test_a_new_confidence_level_redraws_the_charts_in_place(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_default_timeout(90_000)  # a shared machine: the first open of the workbench can be slow
    page.set_viewport_size(TALL)
    page.goto(server + "/analyze")
    wait_ready(page)
    wait_charts(page, 2)
    charts = page.locator(CHARTS)
    assert charts.count() == 2  # the example: the models and their difference
    before = [chart_pixels(charts.nth(i)) for i in range(2)]
    for i, png in enumerate(before):
        (SHOTS / f"analyze_redraw_{i}_95.png").write_bytes(png)
    assert page.evaluate(MARK) == [True, True]
    page.get_by_text("95% CI · ").first.wait_for()  # the method line under the chart names the level
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Confidence level").get_by_role("slider")
    press_slider(page, slider, "ArrowLeft", "() => location.href.includes('analyze_confidence=0.9')")
    page.get_by_text("90% CI · ").first.wait_for()
    wait_ready(page)
    wait_charts(page, 2)
    after = []
    for i in range(2):
        chart = charts.nth(i)
        deadline, now = time.monotonic() + 15, chart.screenshot()
        while now == before[i] and time.monotonic() < deadline:  # explicit wait for the redraw
            page.wait_for_timeout(300)
            now = chart.screenshot()
        after.append(chart_pixels(chart))
        (SHOTS / f"analyze_redraw_{i}_90.png").write_bytes(after[i])
    assert page.evaluate(SAME) == [True, True], "a chart was embedded anew instead of fed the new rows"
    assert after[0] != before[0] and after[1] != before[1], "the intervals were not redrawn at 90%"
    assert page.get_by_text("95% CI · ").count() == 0
