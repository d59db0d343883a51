"""Presenter mode, the print stylesheet and the dark palette in Chromium (one server for the module).

- ``?present=1``: no sidebar, large type, and n / ArrowRight / PageDown move to the next section's heading,
  p / ArrowLeft / PageUp back; the exit button leaves the mode.
- printing chapter 2 (``page.pdf``): no sidebar, no buttons, fewer pages than the 9 the issue measured
  before the stylesheet (sidebar and buttons printed, content cut to the screen).
- ``color_scheme="dark"``: the app's background is dark (and light under "light"), with no forced theme.
"""

from __future__ import annotations

import re

import pytest
from _pw import SHOTS, shot, wait_charts, wait_ready

# the main column's headings (not those inside "Go deeper" expanders) and their distance from the top
_HEADINGS = """() => Array.from(document.querySelectorAll(
    '[data-testid="stMain"] h1, [data-testid="stMain"] h2, [data-testid="stMain"] h3'))
  .filter(h => !h.closest('[data-testid="stExpander"]') && h.getClientRects().length > 0)
  .map(h => [h.textContent.trim(), Math.round(h.getBoundingClientRect().top)])"""


def _at_top(page) -> str:
    """The heading now at the top of the view (within the first 60 px)."""
    tops = page.evaluate(_HEADINGS)
    near = [text for text, top in tops if 0 <= top <= 60]
    assert near, tops
    return near[0]


def test_presenter_keys_move_section_by_section(server, page):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(server + "/one_model?present=1")
    wait_ready(page)
    wait_charts(page, 1)
    page.get_by_role("button", name="Leave presenter mode").wait_for()
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "22px"
    headings = [text for text, _ in page.evaluate(_HEADINGS)]
    assert len(headings) >= 5, headings
    page.locator("h1").first.click()  # focus the page, not a widget
    visited = []
    for key in ("n", "n", "ArrowRight", "PageDown"):
        page.keyboard.press(key)
        page.wait_for_timeout(150)
        visited.append(_at_top(page))
    # each press lands on the next heading in document order, one at a time
    assert visited == headings[headings.index(visited[0]):headings.index(visited[0]) + 4], (visited, headings)
    shot(page, "present_one_model_1400")
    page.keyboard.press("p")
    page.wait_for_timeout(150)
    assert _at_top(page) == visited[2]
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(150)
    assert _at_top(page) == visited[1]
    page.get_by_role("button", name="Leave presenter mode").click()
    page.wait_for_function("() => !location.search.includes('present=1')")
    wait_ready(page)
    assert page.locator('[data-testid="stSidebar"]').is_visible()
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "16px"


def test_presenter_at_390(server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(server + "/paired?present=1")
        wait_ready(page)
        page.get_by_role("button", name="Leave presenter mode").wait_for()
        shot(page, "present_paired_390")
    finally:
        context.close()


def _pdf_pages(pdf: bytes) -> int:
    """The document's page count: the page tree's root holds the largest /Count (its subtrees count less)."""
    return max(int(n) for n in re.findall(rb"/Count\s+(\d+)", pdf))


def test_print_chapter_two_is_a_clean_handout(server, page):
    """Chapter 2 printed: no sidebar, buttons, links or toolbars (under print media), the whole chapter
    (down to its last quiz) in fewer than the 9 pages of before, and every display formula inside the
    page width. Where poppler's pdftotext is installed, the PDF's own text is checked too."""
    import shutil
    import subprocess

    page.goto(server + "/one_model")
    wait_ready(page)
    wait_charts(page, 3)
    page.wait_for_timeout(1000)
    pdf = page.pdf(format="A4")
    path = SHOTS / "print_one_model.pdf"
    path.write_bytes(pdf)
    pages = _pdf_pages(pdf)
    page.emulate_media(media="print")
    for selector in ('[data-testid="stSidebar"]', '[data-testid="stHeader"]', '[data-testid="stButton"]',
                     '[data-testid="stDownloadButton"]', '[data-testid="stPageLink"]'):
        loc = page.locator(selector)
        assert loc.count() > 0 and not any(loc.nth(i).is_visible() for i in range(loc.count())), selector
    assert page.get_by_text("Quiz.").last.is_visible()
    wide = page.evaluate("""() => { const w = document.querySelector('[data-testid="stMain"]').clientWidth;
        return Array.from(document.querySelectorAll('.katex-display > .katex > .katex-html'))
          .map(k => Math.round(k.getBoundingClientRect().right - w)).filter(x => x > 2); }""")
    assert not wide, wide
    assert 1 < pages < 9, pages
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
        assert "One model's error bars" in text and "Quiz." in text
        for chrome in ("evalstats home", "LEARN", "Presenter mode", "Check my answer", "Try it on data"):
            assert chrome not in text, chrome


@pytest.mark.parametrize("scheme, dark", [("dark", True), ("light", False)])
def test_theme_follows_the_viewers_preference(server, browser, scheme, dark):
    """The app's background is dark under a dark preference and light under a light one; screenshots of
    a chapter with charts at 1400 and 390 px in each."""
    for width in (1400, 390):
        context = browser.new_context(viewport={"width": width, "height": 2600}, color_scheme=scheme)
        page = context.new_page()
        page.set_default_timeout(30_000)
        try:
            page.goto(server + "/clustering")
            wait_ready(page)
            wait_charts(page, 1)
            rgb = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]'))"
                                ".backgroundColor")
            r, g, b = (int(v) for v in re.findall(r"\d+", rgb)[:3])
            assert (max(r, g, b) < 60) if dark else (min(r, g, b) > 230), rgb
            shot(page, f"clustering_{scheme}_{width}")
        finally:
            context.close()
