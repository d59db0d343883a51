"""Every chapter with a slider, in a real browser: moving the slider redraws a chart (its pixels change),
not only the numbers beside it. Saves the chart before and after to tests/screenshots/.

The chapters whose own slider test already moves this slider (clustering, paired, resampling, power) check
the redraw there, on the page they have open (``redrawn`` in _pw.py); the others are checked here."""

import pytest
from _pw import chart_pixels, redrawn, step_slider, wait_charts, wait_ready

TALL = {"width": 1400, "height": 9000}  # Streamlit scrolls inside the app; a tall view draws every chart

# slug -> (slider's accessible name, index of that slider among those named so, chart index, arrow key,
#          presses, charts drawn on opening)
CASES = {
    "problem": ("Questions per run", 0, 1, "ArrowRight", 5, 2),
    "small_n": ("Questions n", 0, 1, "ArrowRight", 5, 7),
    "temperature": ("Temperature T", 0, 0, "ArrowLeft", 10, 3),
}
# checked in their chapter's own slider test (same slider, same direction, at least as many presses):
# clustering (ICC, chart 0) in test_clustering_browser.py, paired (correlation, chart 4) in
# test_paired_browser.py, resampling (K, chart 0) in test_resampling_browser.py, power (power, chart 1) in
# test_power_browser.py


@pytest.mark.parametrize("slug", list(CASES))
def test_slider_redraws_the_chart(server, page, slug):
    """A few arrow-key presses on the chapter's slider change the pixels of the chart it drives."""
    name, nth, chart_index, key, presses, n_charts = CASES[slug]
    page.set_viewport_size(TALL)
    page.goto(f"{server}/{slug}")
    page.wait_for_selector("h1")
    wait_ready(page)
    wait_charts(page, n_charts)
    chart = page.locator('[data-testid="stVegaLiteChart"]').nth(chart_index)
    before = chart_pixels(chart)
    label = page.get_by_text(name, exact=True)
    # one press at a time, each waiting until its rerun has mirrored the setting into the URL: presses in a
    # row could land on a handle that the first press's rerun was replacing, and be lost
    step_slider(page, page.locator('[data-testid="stSlider"]').filter(has=label).nth(nth).get_by_role("slider"),
                key, presses)
    wait_charts(page, n_charts)
    after = redrawn(chart, before, slug)
    assert after != before, f"{slug}: the chart did not change after moving '{name}'"
