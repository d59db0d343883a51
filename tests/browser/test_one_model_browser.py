"""Chapter 2 in a real browser: every chart of both parts draws, the rerun button grows the history (2a),
the calculator and the small-N lab respond to their sliders and write the URL (2b), and a link made before
the split opens 2b."""

from _pw import SHOTS, chart_pixels, metric, press_slider, redrawn, shot, step_slider, wait_charts, wait_ready

TALL = {"width": 1400, "height": 9000}  # Streamlit scrolls inside the app; a tall view draws every chart


def test_one_model_page_draws_every_chart(server, page):
    """Opening /one_model draws its five charts and shows Atlas's worked numbers."""
    page.set_viewport_size(TALL)
    page.goto(server + "/one_model")
    wait_ready(page)
    wait_charts(page, 5)
    assert metric(page, "Standard error") == "0.0613"
    assert metric(page, "95% confidence interval") == "[51.6%, 75.6%]"
    shot(page, "one_model_default")
    names = ["one_task", "atlas", "reruns", "rerun_tasks", "binary"]
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    for i, name in enumerate(names):
        charts.nth(i).screenshot(path=str(SHOTS / f"one_model_{name}_chart.png"))


def test_rerun_button_adds_runs(server, page):
    """Three clicks on 'Run the eval again' give a history of four runs."""
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.goto(server + "/one_model")
    wait_ready(page)
    button = page.get_by_role("button", name="Run the eval again")
    for i in range(2, 5):
        button.click()
        page.get_by_text(f"Mean of run {i}").wait_for()
        # the fragment's last output (the chart's caption) is on the page before the next click: a click
        # that lands while the fragment is still running may be dropped by Streamlit
        page.get_by_text(f"{i} runs of the same ten tasks").wait_for()
        wait_ready(page)
        page.wait_for_timeout(300)
    assert metric(page, "Runs inside run 1's 95% CI").endswith("of 4")
    page.locator('[data-testid="stVegaLiteChart"]').nth(2).screenshot(
        path=str(SHOTS / "one_model_reruns_after_clicks.png"))


def test_small_n_page_draws_every_chart(server, page):
    """Opening /small_n (part 2) draws its seven charts."""
    page.set_viewport_size(TALL)
    page.goto(server + "/small_n")
    wait_ready(page)
    wait_charts(page, 7)
    shot(page, "small_n_default")
    names = ["calculator", "sampling", "halfwidth", "coverage", "arrivals", "coverage_by_n", "possible"]
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    for i, name in enumerate(names):
        charts.nth(i).screenshot(path=str(SHOTS / f"small_n_{name}_chart.png"))


def test_an_old_link_to_the_calculator_opens_part_two(server, page):
    """/one_model?one_model_n=30&one_model_acc=0.965 (the teach plan's link before the split) opens 2b there."""
    page.goto(server + "/one_model?one_model_n=30&one_model_acc=0.965")
    wait_ready(page)
    page.get_by_text("29 correct out of 30").wait_for()
    assert "/small_n" in page.url and "one_model_n=30" in page.url


def test_calculator_slider_changes_intervals(server, page):
    """ArrowRight on the questions slider (50 -> 51) updates k and writes one_model_n=51 into the URL; four
    more (55) redraw the sampling chart (its pixels change)."""
    page.set_viewport_size(TALL)
    page.goto(server + "/small_n")
    wait_ready(page)
    wait_charts(page, 7)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(1)
    pixels = chart_pixels(chart)
    slider = page.get_by_role("slider", name="Questions n")
    press_slider(page, slider, "ArrowRight", "() => location.search.includes('one_model_n=51')")
    page.get_by_text("46 correct out of 51").wait_for()
    wait_ready(page)
    assert "one_model_n=51" in page.url
    step_slider(page, slider, "ArrowRight", 4)
    page.wait_for_function("() => location.search.includes('one_model_n=55')")
    wait_charts(page, 7)
    assert redrawn(chart, pixels, "small_n") != pixels, "the chart did not change after moving n"


def test_lab_n_slider_changes_coverage(server, page):
    """ArrowLeft on the lab's N (10 -> 5) lowers Wald's coverage in the table and writes the URL."""
    page.set_viewport_size(TALL)
    page.goto(server + "/small_n")
    wait_ready(page)
    wait_charts(page, 7)
    press_slider(page, page.get_by_role("slider", name="Questions per eval, N"), "ArrowLeft",
                 "() => location.search.includes('one_model_lab_n=5')")
    page.get_by_text("simulated evals of N = 5 ").first.wait_for(state="attached")
    wait_ready(page)
    wait_charts(page, 7)
    shot(page, "small_n_lab_n5")
    page.locator('[data-testid="stVegaLiteChart"]').nth(6).screenshot(
        path=str(SHOTS / "small_n_possible_n5_chart.png"))
