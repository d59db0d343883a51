"""Chapter 4 in a real browser: the main path's charts draw with the worked numbers, the correlation lab and
McNemar's test are collapsed optional sections (a link with ``optional=1`` opens them), the correlation
slider moves the simulation, editing a McNemar cell changes the statistic, the rectangles toggle."""

from _pw import SHOTS, chart_pixels, metric, redrawn, shot, step_slider, wait_charts, wait_ready


def test_paired_page_draws_every_chart_with_the_worked_numbers(server, page):
    """Opening /paired directly shows SE 0.0864 vs 0.0232 and draws the main path's four charts; the
    correlation lab and McNemar's test are there, collapsed."""
    page.goto(server + "/paired")
    wait_ready(page)
    wait_charts(page, 4)
    assert metric(page, "Unpaired SE", exact=True) == "0.0864"
    assert metric(page, "Unpaired 95% CI", exact=True) == "[−21.9%, 11.9%]"
    assert metric(page, "Paired SE", exact=True) == "0.0232"
    assert metric(page, "Paired 95% CI", exact=True) == "[−9.5%, −0.5%]"
    for label in ("Optional · How much does pairing buy?", "Optional · Right-or-wrong scores: McNemar"):
        box = page.locator('[data-testid="stExpander"]').filter(has_text=label)
        assert box.count() == 1 and box.locator("details").first.get_attribute("open") is None, label
    shot(page, "paired_default")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(3).scroll_into_view_if_needed()
    charts.nth(3).screenshot(path=str(SHOTS / "paired_scatter_chart.png"))


def test_correlation_slider_moves_the_simulation(server, page):
    """Two ArrowRight presses take the correlation from 0.50 to 0.60 and redraw the simulated eval (the
    numbers and the chart's pixels)."""
    page.set_viewport_size({"width": 1400, "height": 9000})  # Streamlit scrolls inside; a tall view draws all
    page.goto(server + "/paired?optional=1")
    wait_ready(page)
    wait_charts(page, 6)
    before = metric(page, "Simulated eval: unpaired → paired SE", exact=True)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(4)
    pixels = chart_pixels(chart)
    step_slider(page, page.get_by_role("slider", name="Correlation between the models' answers"), "ArrowRight", 2)
    page.wait_for_url("**paired_rho=0.6*")
    page.get_by_text("at ρ = 0.60 the formula gives").wait_for()
    wait_ready(page)
    assert metric(page, "Simulated eval: unpaired → paired SE", exact=True) != before
    wait_charts(page, 6)
    assert redrawn(chart, pixels, "paired") != pixels, "the chart did not change after moving the correlation"
    shot(page, "paired_rho_060")


def test_editing_a_mcnemar_cell_changes_the_statistic(server, page):
    """McNemar's 36.76 at the defaults; typing 100 into 'c: only B right' gives (275 - 100)^2 / 375 = 81.67."""
    page.goto(server + "/paired?optional=1")
    wait_ready(page)
    wait_charts(page, 6)
    assert metric(page, "McNemar χ²", exact=True) == "36.76"
    box = page.get_by_label("c: only B right")
    box.fill("100")
    box.press("Enter")
    page.locator('[data-testid="stMetricValue"]', has_text="81.67").wait_for()
    wait_ready(page)
    assert "paired_only_b=100" in page.url
    shot(page, "paired_mcnemar_edited")


def test_rectangle_toggle_hides_the_covariance_rectangles(server, page):
    """Switching the toggle off writes paired_rects=0 into the URL and redraws the scatter."""
    page.goto(server + "/paired")
    wait_ready(page)
    wait_charts(page, 4)
    page.get_by_test_id("stCheckbox").get_by_text("Show covariance rectangles").click()
    page.wait_for_url("**paired_rects=0*")
    wait_ready(page)
    wait_charts(page, 4)
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(3).scroll_into_view_if_needed()
    charts.nth(3).screenshot(path=str(SHOTS / "paired_scatter_no_rects.png"))


_SCALES = r"""(chart) => {
  // pixels per unit on each axis, from the drawn tick labels' positions ("40%" at x = ..., "60%" at ...)
  const svg = chart.querySelector('svg');
  const axes = Array.from(svg.querySelectorAll('g.role-axis'));
  const read = (axis) => Array.from(axis.querySelectorAll('g.role-axis-label text'))
      .filter(t => t.getAttribute('opacity') !== '0')
      .map(t => { const r = t.getBoundingClientRect();
                  return {v: parseFloat(t.textContent), x: r.left + r.width / 2, y: r.top + r.height / 2}; });
  return axes.map(a => ({orient: a.getAttribute('aria-label') || '', ticks: read(a)}));
}"""


def test_squares_are_drawn_square(server, page):
    """Seed 004's squares -> rectangles: the scatter's axes have the same pixel scale (it was about 1.7:1),
    read from the drawn tick labels at 1440 px; Atlas against itself puts every point on the diagonal."""
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(server + "/paired?paired_y=Atlas&paired_rects=1")
    wait_ready(page)
    wait_charts(page, 4)
    chart = page.locator('[data-testid="stVegaLiteChart"]').filter(has_text="Atlas score").first
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    axes = chart.evaluate(_SCALES)
    x = next(a["ticks"] for a in axes if "X-axis" in a["orient"])
    y = next(a["ticks"] for a in axes if "Y-axis" in a["orient"])
    assert len(x) >= 4 and len(y) >= 4
    x, y = x[1:-1], y[1:-1]  # the end labels are flushed inside the axis, off their ticks
    px_x = (x[-1]["x"] - x[0]["x"]) / (x[-1]["v"] - x[0]["v"])
    px_y = (y[0]["y"] - y[-1]["y"]) / (y[-1]["v"] - y[0]["v"])  # y grows upwards
    assert abs(px_x / px_y - 1) < 0.02, (px_x, px_y)
    chart.screenshot(path=str(SHOTS / "paired_squares_chart.png"))
    page.get_by_text("Var}(a)", exact=False).first.wait_for(state="attached")
