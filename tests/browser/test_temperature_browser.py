"""Chapter 6 in a real browser: the three charts draw, the temperature slider moves them, the URL restores."""

import re

from _pw import SHOTS, chart_pixels, metric, redrawn, shot, step_slider, wait_charts, wait_ready


def _open(page, server, query: str = "") -> None:
    page.set_viewport_size({"width": 1400, "height": 4600})  # Streamlit scrolls inside; a tall view shows all
    page.goto(server + "/temperature" + query)
    wait_ready(page)
    wait_charts(page, 3)


def test_temperature_page_draws_charts_and_worked_examples(server, page):
    """Opening /temperature draws the histogram and both curves and shows 1/27 -> 3/16 and 2/3 -> 3/4."""
    _open(page, server)
    page.get_by_text("1/27 = 0.0370 → 3/16 = 0.1875").wait_for()
    page.get_by_text("2/3 = 0.6667 → 3/4 = 0.7500").wait_for()
    assert metric(page, "Eval score at T = 0.50") == "72.0%"
    shot(page, "temperature_default")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    for i, name in enumerate(("histogram", "mean", "variance")):
        charts.nth(i).screenshot(path=str(SHOTS / f"temperature_chart_{name}.png"))


def test_temperature_slider_lowers_t(server, page):
    """ArrowLeft on the temperature slider lowers T from 0.50 to 0.45; the score and the URL follow; five
    more (0.40) redraw the histogram (its pixels change)."""
    _open(page, server)
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    pixels = chart_pixels(chart)
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Temperature T").get_by_role("slider")
    step_slider(page, slider, "ArrowLeft", 5)
    page.get_by_text("Eval score at T = 0.45").wait_for()
    page.wait_for_function("() => /temperature_t=0\\.45/.test(window.location.href)")
    wait_ready(page)
    assert metric(page, "Eval score at T = 0.45") != "72.0%"
    assert re.search(r"temperature_t=0\.45", page.url)
    page.get_by_text(re.compile(r"U\[1/3, 1\] at T = 0\.45: \d+% of the questions")).wait_for()
    step_slider(page, slider, "ArrowLeft", 5)
    page.wait_for_function("() => /temperature_t=0\\.4\\b|temperature_t=0\\.40/.test(location.search)")
    wait_charts(page, 3)
    assert redrawn(chart, pixels, "temperature") != pixels, "the chart did not change after moving T"


def test_temperature_url_opens_greedy_uniform(server, page):
    """A link with the paper's first example at T = 0 shows Var(x) = 0.2500, three times 1/12."""
    _open(page, server, "?temperature_dist=paper1&temperature_t=0.0")
    assert metric(page, "Eval score at T → 0") == "50.0%"
    assert metric(page, "Var(x): between questions") == "0.2500"
    shot(page, "temperature_greedy_uniform")
