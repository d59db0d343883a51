"""The power calculator in a real browser: both charts draw, controls move the numbers, the URL restores."""

import re

from _pw import SHOTS, chart_pixels, metric, redrawn, shot, step_slider, wait_charts, wait_ready


def test_power_page_draws_both_charts(server, page):
    """Opening /power directly shows 969 questions and draws the effect chart and the power curve."""
    page.set_viewport_size({"width": 1400, "height": 5200})  # Streamlit scrolls inside; a tall view shows all
    page.goto(server + "/power")
    wait_ready(page)
    wait_charts(page, 2)
    assert metric(page, "Questions needed") == "969"
    page.get_by_text("Questions needed against the effect: 969 for 3.0 points").wait_for()
    shot(page, "power_default")
    page.locator('[data-testid="stVegaLiteChart"]').first.screenshot(path=str(SHOTS / "power_effect_chart.png"))


def test_power_slider_moves_required_n(server, page):
    """Pressing ArrowRight on the power slider raises the target power and the questions needed, and redraws
    the power curve (its pixels change)."""
    page.set_viewport_size({"width": 1400, "height": 5200})  # Streamlit scrolls inside; a tall view shows all
    page.goto(server + "/power")
    wait_ready(page)
    wait_charts(page, 2)
    before = metric(page, "Questions needed")
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(1)
    pixels = chart_pixels(chart)
    power = page.locator('[data-testid="stSlider"]').filter(has=page.get_by_text("Power", exact=True))
    step_slider(page, power.get_by_role("slider"), "ArrowRight", 5)
    # five steps of 0.01 mirrored into the URL; a step pressed while a rerun runs may be merged, so any
    # raised value counts
    page.wait_for_url(re.compile(r"power_power=0\.(8[1-9]|9[0-9])"))
    wait_ready(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')].some(e => e.innerText !== '969' "
        "&& /^[0-9,]+$/.test(e.innerText))")
    after = metric(page, "Questions needed")
    assert int(after.replace(",", "")) > int(before.replace(",", ""))
    wait_charts(page, 2)
    assert redrawn(chart, pixels, "power") != pixels, "the chart did not change after moving the power"
    shot(page, "power_after_slider")


def test_power_url_restores_scenario(server, page):
    """A link like the workbench's opens with its settings: 198 binary questions at K = 10 -> 7.6 points."""
    page.set_viewport_size({"width": 1400, "height": 5200})
    page.goto(server + "/power?power_sigma2_a=0.16666666666666666&power_sigma2_b=0.16666666666666666"
                       "&power_k_a=10&power_k_b=10&power_n=198")
    wait_ready(page)
    wait_charts(page, 2)
    assert metric(page, "Minimum detectable effect") == "7.6 points"
    page.get_by_text("With 198 questions you can reliably detect differences of 7.6 points").wait_for()
    shot(page, "power_url_k10")
