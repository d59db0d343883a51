"""A chapter on a phone and on paper (issue 40, "Handouts and phones"):

- at 390 px chapter 8's table shows all eight columns, "Verdict" and "Power" included (they were cut off by the
  table's clipped overflow);
- printed on A4 (``page.pdf``, print media), a slider is its label and its value, not a track and a knob, and
  each quiz (question and options) sits on one page.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from _pw import PAGE_TIMEOUT_MS, SHOTS, shot, wait_charts, wait_mounted, wait_ready

from evalstats_app.content import load_content

# every header cell of the first table: its text and whether it lies inside the table's visible box
_HEADERS = """() => { const box = document.querySelector('[data-testid="stTable"]');
  const r = box.getBoundingClientRect();
  return {scroll: box.scrollWidth, client: box.clientWidth,
          cells: Array.from(box.querySelectorAll('thead th')).map(th => { const q = th.getBoundingClientRect();
            return [th.innerText.trim(), q.left >= r.left - 1 && q.right <= r.right + 1]; })}; }"""


def test_chapter_8s_table_fits_a_phone(server, browser):
    """At 390 px every column of chapter 8's table, "Verdict" and "Power for 3 pts" included, is inside the
    table's box, and the table needs no sideways scroll."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(server + "/verdict")
        wait_ready(page)
        wait_charts(page, 1)
        table = page.locator('[data-testid="stTable"]').first
        table.scroll_into_view_if_needed()
        read = page.evaluate(_HEADERS)
        names = [name for name, _ in read["cells"]]
        assert "Verdict" in names and any(n.startswith("Power") for n in names), names
        assert all(inside for _, inside in read["cells"]), read["cells"]
        assert read["scroll"] <= read["client"] + 1, read
        SHOTS.mkdir(parents=True, exist_ok=True)
        table.screenshot(path=str(SHOTS / "verdict_table_390.png"))
    finally:
        context.close()


def _pdf_pages_text(pdf: bytes) -> list[str]:
    """The PDF's text page by page (poppler's pdftotext; form feeds part the pages)."""
    path = SHOTS / "print_verdict.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f")


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler's pdftotext is not installed")
def test_print_shows_slider_values_and_keeps_each_quiz_on_one_page(server, page):
    """Chapter 8 printed on A4: under print media no slider's track or tick bar shows, each slider's value does;
    in the PDF the three ρ values are printed, and every quiz's question and all its options are on one page."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1200, "height": 900})
    page.goto(server + "/verdict")
    wait_ready(page)
    wait_charts(page, 1)
    wait_mounted(page)
    page.emulate_media(media="print")
    sliders = page.locator('[data-testid="stSlider"]')
    assert sliders.count() == 4
    for i in range(sliders.count()):
        slider = sliders.nth(i)
        assert slider.locator('[data-testid="stSliderThumbValue"]').is_visible()
        assert not slider.locator('[data-testid="stSliderTickBar"]').is_visible()
        rail = slider.evaluate("""s => { const t = s.querySelector('[role="group"] > div');
            return [getComputedStyle(t.firstElementChild).display, t.getBoundingClientRect().height]; }""")
        assert rail[0] == "none", rail  # the track is not drawn
    boxes = page.locator('[class*="st-key-verdict_quiz"][class*="_box"]')
    assert boxes.count() == len(load_content("verdict").quizzes)
    assert all(boxes.nth(i).evaluate("b => getComputedStyle(b).breakInside") == "avoid" for i in range(boxes.count()))
    shot(page, "print_verdict_media")
    pages = _pdf_pages_text(page.pdf(format="A4"))
    assert len(pages) >= 2
    whole = " ".join(" ".join(p.split()) for p in pages)
    for value in ("0.50", "0.64", "0.37"):
        assert value in whole, value
    for q in load_content("verdict").quizzes:
        words = " ".join(q.question.split()[:6])
        holders = [i for i, p in enumerate(pages) if words in " ".join(p.split())]
        assert holders, words
        text = " ".join(pages[holders[0]].split())
        missing = [o for o in q.options if " ".join(o.split()[:5]) not in text]
        assert not missing, (words, missing)
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(SHOTS / "print_verdict.pdf"), str(SHOTS / "print_verdict")],
                   check=False)
