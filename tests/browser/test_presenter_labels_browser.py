"""Every chapter's charts in presenter mode at 1920x1080 and 1280x720 (issue 40: "0 clipped or dropped chart
labels"): no text truncated with an ellipsis ("Probability densit…", "Run the task 12 time…"), no text drawn past
the chart's edge, no category or legend label hidden by Vega's overlap culling (a dropped "Wilson"), no two
labels drawn over each other, and no chart text smaller than 12 px on the screen (chapter 4's ~9 px point labels).

Read from the drawn SVG of every chart on the page (the chapter's optional sections are left closed, as the plan
uses them), after each chart has been scrolled into view. Screenshots of each chapter's first screen go to
tests/screenshots/labels_<chapter>_<size>.png, and of any chart with a problem to labels_<chapter>_<size>_bad.png.
"""

from __future__ import annotations

import pytest
from _pw import PAGE_TIMEOUT_MS, SHOTS, read_settled, wait_charts, wait_ready

# For each drawn chart: the texts Vega drew, with their box on the screen, whether they are hidden (opacity 0),
# and which group holds them (axis labels, axis titles, legend labels, marks).
_READ = r"""() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]')).map((chart, i) => {
  const svg = chart.querySelector('svg');
  if (!svg || chart.getClientRects().length === 0 || chart.closest('details:not([open])')) return null;
  const box = svg.getBoundingClientRect();
  // presenter mode zooms the chart element (CSS zoom 1.3): its own box is reported unzoomed, its SVG's zoomed,
  // so the limit is the SVG's box and the main column's right edge
  const column = document.querySelector('[data-testid="stMain"]').getBoundingClientRect();
  const right = Math.min(box.right, column.right);
  const texts = [];
  for (const t of svg.querySelectorAll('text')) {
    const s = t.textContent.trim();
    if (!s) continue;
    const g = t.closest('g[class*="role-"]');
    const role = g ? (g.getAttribute('class').match(/role-[\w-]+/) || [''])[0] : '';
    const r = t.getBoundingClientRect();
    const hidden = t.getAttribute('opacity') === '0' || getComputedStyle(t).opacity === '0'
                   || getComputedStyle(t).visibility === 'hidden';
    texts.push({s, role, hidden, l: r.left, r: r.right, t: r.top, b: r.bottom, h: r.height});
  }
  return {i, left: box.left, right, texts, summary: (chart.parentElement?.nextElementSibling?.innerText || '').slice(0, 60)};
}).filter(x => x)"""

SIZES = {"1920x1080": (1920, 1080), "1280x720": (1280, 720)}
CHAPTERS = ["problem", "one_model", "small_n", "clustering", "paired", "resampling", "temperature", "power",
            "verdict", "judge"]
#: numeric tick labels ("60%", "−3", "1,000", "0.25"): Vega hides some on purpose when they would collide
_NUMERIC = r"^[−+-]?[\d.,]+\s?[%kKM×]?$"
MIN_PX = 12.0


def problems(charts: list[dict]) -> list[str]:
    """What a class would see wrong in the drawn charts (one line each)."""
    import re

    out = []
    for c in charts:
        shown = [t for t in c["texts"] if not t["hidden"] and t["h"] > 0]
        for t in c["texts"]:
            if t["hidden"] and t["role"] in ("role-axis-label", "role-legend-label", "role-mark") \
                    and not re.match(_NUMERIC, t["s"]):
                out.append(f"chart {c['i']}: label '{t['s'][:40]}' dropped (hidden by Vega)")
        for t in shown:
            if t["s"].endswith("…"):
                out.append(f"chart {c['i']}: truncated '{t['s'][:50]}'")
            # a text's box holds its line's leading: a fifth of its smaller side past the edge is not a cut glyph
            slack = max(3.0, 0.2 * min(t["r"] - t["l"], t["b"] - t["t"]))
            if t["l"] < c["left"] - slack or t["r"] > c["right"] + slack:
                out.append(f"chart {c['i']}: past the edge '{t['s'][:50]}'")
            if t["h"] < MIN_PX:
                out.append(f"chart {c['i']}: '{t['s'][:30]}' drawn {t['h']:.1f} px high (< {MIN_PX:g})")
        for a_i, a in enumerate(shown):
            for b in shown[a_i + 1:]:
                w = min(a["r"], b["r"]) - max(a["l"], b["l"])
                h = min(a["b"], b["b"]) - max(a["t"], b["t"])
                if w > 2 and h > 0.3 * min(a["h"], b["h"]):  # boxes that cross by more than a sliver
                    out.append(f"chart {c['i']}: '{a['s'][:30]}' over '{b['s'][:30]}'")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("slug", CHAPTERS)
def test_presenter_chart_labels(server, browser, slug, size):
    """In presenter mode at ``size``, every chart of chapter ``slug`` draws all its labels whole, apart and
    at least 12 px high."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(f"{server}/{slug}?present=1")
        wait_ready(page)
        wait_charts(page, 1)
        page.get_by_role("button", name="Leave presenter mode").wait_for()
        charts = read_settled(page, _READ)
        assert charts, slug
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator('[data-testid="stMain"]').evaluate("m => m.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"labels_{slug}_{size}.png"))
        found = problems(charts)
        if found:
            bad = sorted({int(line.split()[1].rstrip(":")) for line in found})
            visible = page.locator('[data-testid="stVegaLiteChart"]')
            for k in bad[:3]:
                chart = visible.nth(k)
                chart.scroll_into_view_if_needed()
                chart.screenshot(path=str(SHOTS / f"labels_{slug}_{size}_bad{k}.png"))
        assert not found, f"{slug} at {size}: " + "; ".join(found)
    finally:
        context.close()


def test_the_reader_finds_each_kind_of_problem():
    """The checks can fail: a dropped category, an ellipsis, a label past the edge, a small one and an overlap."""
    base = {"role": "role-axis-label", "hidden": False, "l": 10, "r": 50, "t": 0, "b": 14, "h": 14}
    chart = {"i": 0, "left": 0, "right": 400, "texts": [
        {**base, "s": "Wilson", "hidden": True},
        {**base, "s": "Probability densit…", "l": 100, "r": 180},
        {**base, "s": "past", "l": 390, "r": 420, "t": 40, "b": 54},
        {**base, "s": "tiny", "l": 200, "r": 220, "t": 80, "b": 89, "h": 9},
        {**base, "s": "Wald", "t": 100, "b": 114},
        {**base, "s": "Bayes", "l": 20, "r": 60, "t": 102, "b": 116},
    ]}
    found = problems([chart])
    assert len(found) == 5, found


# every drawn chart text whose fill is dark (relative luminance under 0.3): unreadable on the dark theme
_DARK_TEXT = r"""() => { const out = [];
 document.querySelectorAll('[data-testid="stVegaLiteChart"]').forEach((c, i) => c.querySelectorAll('svg text').forEach(t => {
   const m = getComputedStyle(t).fill.match(/\d+(\.\d+)?/g); if (!m || !t.textContent.trim()) return;
   const [r, g, b] = m.map(Number);
   if ((0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 < 0.3 && t.getAttribute('opacity') !== '0')
     out.push(`chart ${i}: '${t.textContent.trim().slice(0, 30)}'`); }));
 return out; }"""


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["clustering", "verdict"])
def test_chart_text_reads_on_the_dark_theme(server, browser, slug):
    """Under a dark preference no chart text is drawn in a dark colour: chapter 8's benchmark names and chapter
    3's coverage labels and ratios were black on the dark background (a text mark without a colour of its own
    now takes the page's text colour, shell.whole_labels)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="dark")
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(f"{server}/{slug}")
        wait_ready(page)
        wait_charts(page, 1)
        dark = read_settled(page, _DARK_TEXT)
        assert not dark, dark
    finally:
        context.close()
