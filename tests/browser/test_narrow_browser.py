"""Every chapter and the workbench on a 390-px phone: no chart draws a label, legend or axis title past
its own edge (wide tables scroll inside their frame already).

A Vega chart's SVG clips whatever falls outside it, so a label placed right of a bar at 95% or a row of
legend entries wider than the phone is silently cut ("93.5% ± 1." or a missing "Bayes"). Charts of
side-by-side panels that are wider than the phone may scroll sideways instead (their container says so).
"""

from __future__ import annotations

import pytest
from _pw import PAGE_TIMEOUT_MS, read_settled, shot, wait_charts, wait_ready
from test_chart_text_browser import _READ, CHAPTERS, problems

# (left overflow, right overflow) in px of each chart's texts and legends relative to its SVG (3 px of slack for
# the glyphs' side bearings of rotated titles), and whether
# the chart is a wide one that scrolls; only the texts Vega draws (marks, legends, axes) are measured.
_OVERFLOW = """() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]')).map((chart, i) => {
  const svg = chart.querySelector('svg');
  if (!svg) return null;
  const box = svg.getBoundingClientRect();
  const frame = chart.getBoundingClientRect();
  const scrolls = getComputedStyle(chart).overflowX === 'auto' && chart.scrollWidth > chart.clientWidth + 1;
  const cut = [];
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0 || !t.textContent.trim()) continue;
    const right = scrolls ? box.right : Math.min(box.right, frame.right);
    if (r.left < box.left - 3 || r.right > right + 3) cut.push([t.textContent.trim().slice(0, 50),
                                                                 Math.round(r.left - box.left), Math.round(r.right - right)]);
  }
  return {i, width: Math.round(box.width), frame: Math.round(frame.width), scrolls, cut};
}).filter(x => x)"""

PAGES = ["problem", "one_model", "small_n", "clustering", "paired", "resampling", "temperature", "power", "verdict", "judge",
         "analyze"]


# both reads in one: the chapters' drawn text at 390 px (test_chart_text_browser.py's checks) is read on the
# page opened here, rather than on a second page load of its own
_BOTH = f"() => ({{overflow: ({_OVERFLOW})(), text: ({_READ})()}})"


@pytest.mark.slow
@pytest.mark.parametrize("slug", PAGES)
def test_no_chart_text_is_cut_at_390_px(server, browser, slug):
    """No chart text past its chart's edge at 390 px; for the chapters also test_chart_text_browser.py's
    checks (no repeated tick label, no ellipsis) on the same page."""
    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(f"{server}/{slug}")
        wait_ready(page)
        wait_charts(page, 1)
        both = read_settled(page, _BOTH)  # every chart brought into view and drawn, the layout settled
        charts = both["overflow"]
        assert page.locator('[data-testid="stException"]').count() == 0, f"{slug}: the page shows an error"
        assert charts, slug
        if slug in CHAPTERS:
            assert both["text"], slug
            if problems(both["text"]):
                shot(page, f"chart_text_{slug}_390")
            assert not problems(both["text"]), f"{slug} at 390 px: {problems(both['text'])}"
        cut = [c for c in charts if c["cut"]]
        # a chart wider than the phone must scroll rather than be cut off at the edge
        clipped = [c for c in charts if c["width"] > c["frame"] + 1 and not c["scrolls"]]
        if cut or clipped:
            shot(page, f"narrow_{slug}")
        assert not cut, f"{slug}: texts past a chart's edge (text, px past left, px past right): {cut}"
        assert not clipped, f"{slug}: charts wider than the phone that do not scroll: {clipped}"
    finally:
        context.close()
