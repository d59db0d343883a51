"""Chapter 8 in a real browser: the chart draws the four analyses, one benchmark's correlation slider moves
its verdict, the chart and the URL, and the closing sentence follows."""

from _pw import SHOTS, shot, slide_to, wait_charts, wait_ready

TALL = {"width": 1400, "height": 4200}


def test_verdict_page_and_its_slider(server, page):
    page.set_viewport_size(TALL)
    page.goto(server + "/verdict")
    wait_ready(page)
    wait_charts(page, 1)
    page.get_by_role("heading", name="8 · The verdict").wait_for()
    page.get_by_text("Only MATH is resolved; HumanEval and MGSM are unresolved", exact=False).wait_for()
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    chart.screenshot(path=str(SHOTS / "verdict_chart_rho050.png"))
    before = chart.screenshot()
    shot(page, "verdict_default")
    slider = page.locator('[data-testid="stSlider"]').filter(
        has=page.get_by_text("ρ on HumanEval (Table 5: 0.64)", exact=True)).get_by_role("slider")
    slide_to(page, slider, 0.90, step=0.01)  # 0.64 -> 0.90: two page steps and six arrow steps, not 26 reruns
    assert "verdict_rho_humaneval=0.9" in page.url
    page.get_by_text("Only MATH and HumanEval are resolved; MGSM is unresolved", exact=False).wait_for()
    wait_charts(page, 1)
    page.wait_for_timeout(800)
    assert chart.screenshot() != before
    chart.screenshot(path=str(SHOTS / "verdict_chart_humaneval090.png"))
