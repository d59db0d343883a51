"""Chapter 3 in a real browser: the four charts draw, the sliders move the numbers, the warning appears
live below 30 clusters."""

from _pw import SHOTS, chart_pixels, metric, redrawn, shot, step_slider, wait_charts, wait_ready


def _slider(page, label: str):
    return page.get_by_role("slider", name=label)


def test_clustering_page_draws_every_chart(server, page):
    """Opening /clustering directly draws the cluster strip, the coverage bars and the paper's ratios."""
    page.goto(server + "/clustering")
    wait_ready(page)
    wait_charts(page, 3)
    page.get_by_role("heading", name="3 · Clustering").wait_for()
    page.get_by_text("3.05x").first.wait_for(state="attached")
    shot(page, "clustering_default")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(0).screenshot(path=str(SHOTS / "clustering_strip_chart.png"))
    charts.nth(1).screenshot(path=str(SHOTS / "clustering_coverage_chart.png"))


def test_icc_slider_raises_the_design_effect(server, page):
    """ArrowRight on the ICC slider (0.30 -> 0.50) raises the formula's design effect from 3.70 to 5.50, and
    redraws the cluster strip (its pixels change)."""
    page.goto(server + "/clustering")
    wait_ready(page)
    wait_charts(page, 3)
    before = metric(page, "Clustered SE", exact=True)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(0)
    pixels = chart_pixels(chart)
    step_slider(page, _slider(page, "Intra-cluster correlation ρ"), "ArrowRight", 4)
    page.get_by_text("formula 1 + (m−1)ρ: 5.50").wait_for()
    wait_ready(page)
    assert "clustering_icc=0.5" in page.url
    assert metric(page, "Clustered SE", exact=True) != before
    wait_charts(page, 3)
    assert redrawn(chart, pixels, "clustering") != pixels, "the chart did not change after moving ρ"
    shot(page, "clustering_icc_050")


def test_warning_appears_live_below_30_clusters(server, page):
    """From 31 clusters, two ArrowLeft presses reach 29 and the few-clusters warning appears."""
    page.goto(server + "/clustering?clustering_k=31")
    wait_ready(page)
    wait_charts(page, 3)
    assert page.get_by_text("Fewer than 30 clusters.").count() == 0
    step_slider(page, _slider(page, "Number of clusters C"), "ArrowLeft", 2)
    page.get_by_text("Fewer than 30 clusters.").wait_for()
    wait_ready(page)
    assert "clustering_k=29" in page.url
    shot(page, "clustering_29_clusters")
