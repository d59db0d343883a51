"""Chapter 5 in a real browser: every chart draws, the K slider moves the curve, the seed button reruns."""

import re

from _pw import SHOTS, chart_pixels, metric, press_slider, redrawn, shot, wait_charts, wait_ready


def _open(page, server, query: str = "") -> None:
    page.set_viewport_size({"width": 1400, "height": 7600})  # Streamlit scrolls inside; a tall view shows all
    # ?optional=1 opens the optional sections (the fixed-budget chart is collapsed on the main path)
    page.goto(server + "/resampling" + (query + "&" if query else "?") + "optional=1")
    wait_ready(page)
    wait_charts(page, 5)


def test_resampling_page_draws_every_chart(server, page):
    """Opening /resampling directly draws the five charts and shows the paper's reductions and MDEs."""
    _open(page, server)
    assert metric(page, "Variance removed at K = 4") == "50.0%"
    assert metric(page, "MDE at K = 1") == "13.3%"
    assert metric(page, "MDE at K = 10") == "7.6%"
    page.get_by_text("55.6% (5/9)").first.wait_for()
    shot(page, "resampling_default")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    for i, name in enumerate(("k_curve", "coverage", "evals", "budget", "mde")):
        charts.nth(i).screenshot(path=str(SHOTS / f"resampling_chart_{name}.png"))


def test_resampling_k_slider_moves_reduction(server, page):
    """Pressing ArrowRight on the K slider takes K from 4 to 5: 53.3% of the variance removed, K in the URL,
    and the K curve redrawn (its pixels change)."""
    _open(page, server)
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    pixels = chart_pixels(chart)
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Answers per question (K)").first
    press_slider(page, slider.get_by_role("slider"), "ArrowRight", "() => /resampling_k=5\\b/.test(location.search)")
    page.get_by_text("Variance removed at K = 5").wait_for()
    wait_ready(page)
    assert metric(page, "Variance removed at K = 5") == "53.3%"
    assert re.search(r"resampling_k=5\b", page.url)
    wait_charts(page, 5)
    assert redrawn(chart, pixels, "resampling") != pixels, "the chart did not change after moving K"
    chart.screenshot(path=str(SHOTS / "resampling_k5_chart.png"))


def test_resampling_rerun_button_draws_new_seed(server, page):
    """The Rerun simulation button bumps the seed from 7 to 8 and writes it into the URL."""
    _open(page, server)
    page.get_by_role("button", name="Rerun simulation").click()
    page.wait_for_function("() => /resampling_seed=8/.test(window.location.href)")
    wait_ready(page)
    seed = page.locator('[data-testid="stNumberInput"]').filter(has_text="Seed").locator("input")
    assert seed.input_value() == "8"
    page.get_by_text(re.compile(r"seed 8\.")).first.wait_for()
    shot(page, "resampling_seed8")
