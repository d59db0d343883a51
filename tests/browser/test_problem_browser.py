"""Chapter 1 in a real browser: the charts draw, the toggles reveal the error bars and the verdicts, the
super-population slider moves the numbers and the URL."""

from _pw import SHOTS, chart_pixels, metric, press_slider, redrawn, shot, step_slider, wait_charts, wait_ready

TALL = {"width": 1400, "height": 4600}  # Streamlit scrolls inside the app; a tall view draws every chart


def test_problem_page_draws_its_charts(server, page):
    """Opening /problem directly shows the bare table and draws the scores and super-population charts."""
    page.set_viewport_size(TALL)
    page.goto(server + "/problem")
    wait_ready(page)
    wait_charts(page, 2)
    page.get_by_role("heading", name="1 · The problem").wait_for()
    assert metric(page, "SE from the formula") == "3.71%"
    shot(page, "problem_default")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(0).screenshot(path=str(SHOTS / "problem_scores_chart.png"))
    charts.nth(1).screenshot(path=str(SHOTS / "problem_superpopulation_chart.png"))


def test_toggles_reveal_error_bars_and_verdicts(server, page):
    """Switching on both toggles shows the worked intervals, the differences table and its forest plot."""
    page.set_viewport_size(TALL)
    page.goto(server + "/problem")
    wait_ready(page)
    wait_charts(page, 2)
    page.get_by_text("Show 95% error bars").click()
    page.get_by_text("(64.2%, 66.8%)").first.wait_for()
    wait_ready(page)
    page.get_by_text("Reveal which differences survive").click()
    page.get_by_text("unresolved").first.wait_for()
    wait_ready(page)
    wait_charts(page, 3)
    assert "problem_errorbars=1" in page.url and "problem_reveal=1" in page.url
    shot(page, "problem_revealed")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(0).screenshot(path=str(SHOTS / "problem_scores_errorbars_chart.png"))
    charts.nth(1).screenshot(path=str(SHOTS / "problem_differences_chart.png"))


def test_questions_slider_moves_formula_se(server, page):
    """ArrowRight on the questions slider (164 -> 165) changes the formula SE and writes the URL; four more
    (169) redraw the super-population chart (its pixels change)."""
    page.set_viewport_size(TALL)
    page.goto(server + "/problem")
    wait_ready(page)
    wait_charts(page, 2)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(1)
    pixels = chart_pixels(chart)
    slider = page.get_by_role("slider", name="Questions per run")
    press_slider(page, slider, "ArrowRight", "() => location.search.includes('problem_n=165')")
    wait_ready(page)
    page.get_by_text("With 165 questions").first.wait_for(state="attached")
    assert metric(page, "SE from the formula") == "3.70%"
    step_slider(page, slider, "ArrowRight", 4)
    page.wait_for_function("() => location.search.includes('problem_n=169')")
    wait_charts(page, 2)
    assert redrawn(chart, pixels, "problem") != pixels, "the chart did not change after moving the questions"
