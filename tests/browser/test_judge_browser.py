"""Chapter 9 and the workbench's judge section in a real browser, at desktop width and on a 390-px phone."""

from _pw import PAGE_TIMEOUT_MS, SHOTS, shot, step_slider, wait_charts, wait_ready

from evalstats_core.lessons import judge as lesson

TALL = {"width": 1400, "height": 4200}


def test_judge_chapter_desktop(server, page):
    page.set_viewport_size(TALL)
    page.goto(server + "/judge")
    wait_ready(page)
    wait_charts(page, 2)
    page.get_by_role("heading", name="9 · The judge is an instrument").wait_for()
    page.get_by_text(lesson.coverage_sentence(lesson.coverage_lab(0.97, 0.83, 200))).wait_for()
    page.get_by_text(lesson.flip_sentence(lesson.flip_panel(0.25, 200))).wait_for()
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(0).screenshot(path=str(SHOTS / "judge_coverage_desktop.png"))
    charts.nth(1).screenshot(path=str(SHOTS / "judge_flip_desktop.png"))
    before = charts.nth(1).screenshot()
    slider = page.locator('[data-testid="stSlider"]').filter(
        has=page.get_by_text("Extra false passes for B's longer answers", exact=True)).get_by_role("slider")
    step_slider(page, slider, "ArrowLeft", 5)  # 0.25 -> 0.00
    assert "judge_bias=0.0" in page.url
    page.get_by_text(lesson.flip_sentence(lesson.flip_panel(0.0, 200))).wait_for()
    wait_charts(page, 2)
    page.wait_for_timeout(800)
    assert charts.nth(1).screenshot() != before
    shot(page, "judge_desktop")


def test_judge_chapter_phone(server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(server + "/judge")
        wait_ready(page)
        wait_charts(page, 1)
        for _ in range(10):
            page.mouse.wheel(0, 900)
            page.wait_for_timeout(150)
        wait_charts(page, 2)
        page.wait_for_timeout(1000)
        assert page.locator('[data-testid="stException"]').count() == 0
        charts = page.locator('[data-testid="stVegaLiteChart"]')
        charts.nth(0).screenshot(path=str(SHOTS / "judge_coverage_390.png"))
        charts.nth(1).screenshot(path=str(SHOTS / "judge_flip_390.png"))
    finally:
        context.close()


def test_workbench_judge_section(server, page):
    """The workbench's judge section on the judged example (one page load for both checks): the judge's
    verdict and its intervals chart draw, and the three-interval chart gets one readable row per model with its
    three intervals side by side (issue 39.6), its subtitle naming the method and the labels."""
    page.set_viewport_size(TALL)
    page.goto(server + "/analyze?analyze_example=judged")
    wait_ready(page)
    page.get_by_text("The judge against the human labels").wait_for()
    page.get_by_text("The judge over-states Breeze by 18.9 points", exact=False).first.wait_for()
    wait_charts(page, 3)
    # the judge chart is the one whose subtitle names the correction and its labels
    find = """Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"] svg'))
        .filter(s => s.textContent.includes('PPI++ with 300 human labels per model'))"""
    page.wait_for_function(f"() => {find}.some(s => ['Atlas', 'Breeze', 'Cirrus'].every(m => s.textContent.includes(m)))")
    labels = page.evaluate(f"() => {find}[0].querySelectorAll('text').length")
    assert labels >= 3 + 6  # three row labels and the x ticks: no row label dropped for overlap
    section = page.locator('[data-testid="stVegaLiteChart"]').nth(1)
    section.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    section.screenshot(path=str(SHOTS / "judge_workbench_intervals.png"))
    assert page.locator('[data-testid="stException"]').count() == 0
