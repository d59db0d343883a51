"""Every chapter's charts as Chromium draws them, at 1440 px and at 390 px: no axis repeats a tick label
("0.4 0.4 0.4 0.5"), no legend or axis text is truncated with an ellipsis ("true ability (unknown in …"),
and no text is drawn past the chart's edge.

Read from the drawn SVG (Streamlit's Vega renders SVG): each axis's visible labels (Vega hides overlapping
ones with opacity 0). The offline test (tests/test_chart_ticks.py) renders at Vega's default width; this one
reads what the reader sees at the container's width.
"""

from __future__ import annotations

import pytest
from _pw import PAGE_TIMEOUT_MS, read_settled, shot, wait_charts, wait_ready

_READ = r"""() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]')).map((chart, i) => {
  const svg = chart.querySelector('svg');
  if (!svg) return null;
  const box = svg.getBoundingClientRect();
  const frame = chart.getBoundingClientRect();
  const scrolls = getComputedStyle(chart).overflowX === 'auto' && chart.scrollWidth > chart.clientWidth + 1;
  const visible = t => t.getAttribute('opacity') !== '0' && getComputedStyle(t).opacity !== '0'
                       && t.textContent.trim() !== '';
  // numeric labels only ("60%", "−3", "1,000"): a band axis may name a category twice on purpose
  const numeric = s => /^[−+-]?[\d.,]+[%kKM]?$/.test(s);
  const axes = Array.from(svg.querySelectorAll('g.role-axis-label')).map(
      g => Array.from(g.querySelectorAll('text')).filter(visible).map(t => t.textContent.trim()).filter(numeric));
  const ellipsis = Array.from(svg.querySelectorAll('text')).filter(visible).map(t => t.textContent.trim())
                   .filter(s => s.endsWith('…'));
  const cut = [];
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0 || !visible(t)) continue;
    const right = scrolls ? box.right : Math.min(box.right, frame.right);
    if (r.left < box.left - 3 || r.right > right + 3) cut.push(t.textContent.trim().slice(0, 50));
  }
  return {i, axes, ellipsis, cut};
}).filter(x => x)"""

CHAPTERS = ["problem", "one_model", "small_n", "clustering", "paired", "resampling", "temperature", "power", "verdict"]
WIDTHS = {"1440": 1440, "390": 390}


def read_charts(browser, server, slug: str, width: int, query: str = "") -> list[dict]:
    """Open ``slug`` at ``width`` px, scroll every chart into view, and read its drawn text."""
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(f"{server}/{slug}{query}")
        wait_ready(page)
        wait_charts(page, 1)
        charts = read_settled(page, _READ)  # every chart brought into view and drawn, the layout settled
        assert page.locator('[data-testid="stException"]').count() == 0, f"{slug}: the page shows an error"
        bad = [c for c in charts if c["ellipsis"] or c["cut"] or any(len(a) != len(set(a)) for a in c["axes"])]
        if bad:
            shot(page, f"chart_text_{slug}_{width}")
        return charts
    finally:
        context.close()


def problems(charts: list[dict]) -> list[str]:
    out = []
    for c in charts:
        for labels in c["axes"]:
            if len(labels) != len(set(labels)):
                out.append(f"chart {c['i']}: repeated tick label {labels}")
        out += [f"chart {c['i']}: truncated '{s}'" for s in c["ellipsis"]]
        out += [f"chart {c['i']}: past the edge '{s}'" for s in c["cut"]]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("slug", CHAPTERS)
def test_drawn_axes_and_legends(server, browser, slug):
    """At 1440 px; the same checks at 390 px run in test_narrow_browser.py, on the page it opens at 390 px
    for its own check (one page load per chapter and width)."""
    charts = read_charts(browser, server, slug, WIDTHS["1440"])
    assert charts, slug
    assert not problems(charts), f"{slug} at 1440 px: {problems(charts)}"


@pytest.mark.slow
@pytest.mark.parametrize("width", list(WIDTHS), ids=[f"{w}px" for w in WIDTHS])
def test_chapter_1_at_n_1000_and_share_1(server, browser, width):
    """The issue's squeezed case: chapter 1's super-population chart at n = 1,000 and share 1."""
    charts = read_charts(browser, server, "problem", WIDTHS[width], "?problem_n=1000&problem_share=1.0")
    assert not problems(charts), problems(charts)


SQUEEZED = [("resampling", "?resampling_calls=20000&resampling_cost_q=20.0"),
            ("resampling", "?resampling_calls=200&resampling_cost_q=0.0"),
            ("small_n", "?one_model_n=2000&one_model_acc=0.6&one_model_lab_n=1000"),
            ("verdict", "?verdict_rho_math=0.95&verdict_rho_humaneval=0.95&verdict_rho_mgsm=0.95")]


@pytest.mark.slow
@pytest.mark.parametrize(("slug", "query"), SQUEEZED, ids=[f"{s}-{i}" for i, (s, _) in enumerate(SQUEEZED)])
def test_squeezed_settings_at_1440(server, browser, slug, query):
    """Chapter 5's budget axis at the extremes of its sliders, chapter 2 at large n, chapter 8 at high rho."""
    charts = read_charts(browser, server, slug, 1440, query)
    assert not problems(charts), problems(charts)


def test_the_reader_finds_a_repeat_and_an_ellipsis(server, browser):
    """The checks can fail: a chart page with a spec that repeats a label and truncates a legend."""
    spec_charts = [{"i": 0, "axes": [["0.4", "0.4", "0.5"]], "ellipsis": ["true ability (unknown in …"], "cut": []}]
    assert len(problems(spec_charts)) == 2
