"""Presenter mode, the print stylesheet and the dark palette in Chromium (one server for the module).

- ``?present=1``: no sidebar, large type, and n / ArrowRight / PageDown move to the next heading when it
  is on the screen and one screen on otherwise (so every block passes the screen), p / ArrowLeft / PageUp
  back; formulas are not clipped, chart text grows with the type, columns stack, no downloads; the exit
  button leaves the mode.
- printing chapter 2 (``page.pdf``): no sidebar, no buttons, fewer pages than the 9 the issue measured
  before the stylesheet (sidebar and buttons printed, content cut to the screen).
- ``color_scheme="dark"``: the app's background is dark (and light under "light"), with no forced theme.
"""

from __future__ import annotations

import re

import pytest
from _pw import PAGE_TIMEOUT_MS, SHOTS, next_frames, shot, wait_charts, wait_mounted, wait_ready

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


# every block of the main column: its text (or test id) and its top/bottom relative to the scrolling view
_BLOCKS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const view = main.getBoundingClientRect();
  const h = Math.min(window.innerHeight, view.bottom) - Math.max(0, view.top);
  return Array.from(main.querySelectorAll('[data-testid="stMainBlockContainer"] [data-testid="stElementContainer"]'))
    .filter(e => !e.closest('[data-testid="stExpander"] details:not([open]) > div')
                 && !e.querySelector('[data-testid="stElementContainer"]') && e.getClientRects().length > 0
                 && e.getBoundingClientRect().height > 4 && getComputedStyle(e).display !== 'none'
                 && !e.closest('.st-key-evalstats_present_js, .st-key-evalstats_present_exit'))
    .map((e, i) => { const r = e.getBoundingClientRect();
      return {i, text: (e.innerText || e.firstElementChild?.dataset?.testid || '').trim().slice(0, 60),
              top: r.top - Math.max(0, view.top), bottom: r.bottom - Math.max(0, view.top), view: h}; });
}"""
_SCROLL = """() => document.querySelector('[data-testid="stMain"]').scrollTop"""
_VIEW = """() => document.querySelector('[data-testid="stMain"]').clientHeight"""


def _on_screen(items: list[dict]) -> set[int]:
    return {b["i"] for b in items if b["bottom"] > 0 and b["top"] < b["view"]}


def _press_through(page, key: str = "n", limit: int = 200,
                   shots: str | None = None) -> tuple[list[int], set[int], list[dict]]:
    """Press ``key`` until the page stops moving: the scroll offsets, the blocks seen on screen, all blocks."""
    blocks = page.evaluate(_BLOCKS)
    seen = _on_screen(blocks)
    offsets = [page.evaluate(_SCROLL)]
    for _ in range(limit):
        page.keyboard.press(key)
        next_frames(page)  # the key's scroll is drawn
        offsets.append(page.evaluate(_SCROLL))
        if shots and len(offsets) <= 4:
            shot(page, f"{shots}_{len(offsets) - 1}")
        seen |= _on_screen(page.evaluate(_BLOCKS))
        if offsets[-1] == offsets[-2]:
            break
    return offsets, seen, blocks


def test_presenter_keys_move_section_by_section(server, page):
    """Each 'next' moves forward by at most one screen and lands on a heading whenever one is on the
    screen; 'previous' walks back; the exit button leaves the mode."""
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
    view = page.evaluate(_VIEW)
    offsets = [page.evaluate(_SCROLL)]
    landed = []
    for key in ("n", "n", "ArrowRight", "PageDown", "n", "n"):
        tops = dict(page.evaluate(_HEADINGS))
        page.keyboard.press(key)
        next_frames(page)
        offsets.append(page.evaluate(_SCROLL))
        moved = offsets[-1] - offsets[-2]
        assert 0 < moved <= 0.86 * view + 1, (moved, view)
        # a heading that was on this screen below its top fifth is where the press lands (presenter._PRESENT_JS)
        nxt = [t for t, top in tops.items() if max(60, 0.2 * view) < top - 20 <= 0.85 * view]
        if nxt:
            landed.append(_at_top(page))
            assert landed[-1] == min(nxt, key=lambda t: tops[t]), (landed, tops)
    assert landed, "no press landed on a heading"
    shot(page, "present_one_model_1400")
    back = offsets[-1]
    page.keyboard.press("p")
    next_frames(page)
    assert 0 < back - page.evaluate(_SCROLL) <= 0.86 * view + 1
    page.keyboard.press("ArrowLeft")
    next_frames(page)
    assert page.evaluate(_SCROLL) < back
    page.get_by_role("button", name="Leave presenter mode").click()
    wait_ready(page)
    page.locator('[data-testid="stSidebar"]').wait_for()
    # the rerun that shows the sidebar also drops ?present=1 from the URL: wait for it, do not assume its order
    page.wait_for_function("() => !location.href.includes('present')")
    assert "present" not in page.url


def test_presenter_reaches_every_block_of_chapter_8(server, page):
    """Issue 24: at 1920x1080 the first 'next' skipped the MGSM rows, the table and steps 2-4. Pressing
    'next' until the page stops now shows every block of chapter 8 on the screen at least once; no press
    moves more than one screen; formulas are not clipped; chart text is larger than outside the mode;
    no download button shows; the columns holding the sliders' chart and table stack.

    Issue 40 made presenter mode a slide: the paragraphs of steps 2-4 are not on the projected page at all but in
    the speaker notes, a second window opened from a link below the fold (the link's last block, reached by the
    presses like every block); the notes window shows the step's text."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(server + "/verdict")
    wait_ready(page)
    wait_charts(page, 1)
    page.wait_for_timeout(500)
    small = page.evaluate("""() => { const t = document.querySelector('[data-testid="stVegaLiteChart"] g.role-axis-label text');
                                    return t.getBoundingClientRect().height; }""")
    page.goto(server + "/verdict?present=1")
    wait_ready(page)
    wait_charts(page, 1)
    page.get_by_role("button", name="Leave presenter mode").wait_for()
    page.wait_for_timeout(500)
    large = page.evaluate("""() => { const t = document.querySelector('[data-testid="stVegaLiteChart"] g.role-axis-label text');
                                    return t.getBoundingClientRect().height; }""")
    assert large >= 1.25 * small, (small, large)
    assert not any(b.is_visible() for b in page.locator('[data-testid="stDownloadButton"]').all())
    clipped = page.evaluate("""() => Array.from(document.querySelectorAll('.katex-display')).filter(
        k => k.scrollHeight > k.clientHeight + 2 && getComputedStyle(k).overflowY !== 'visible').length""")
    assert clipped == 0
    page.locator("h1").first.click()
    view = page.evaluate(_VIEW)
    shot(page, "present_verdict_1920_0")
    offsets, seen, blocks = _press_through(page, shots="present_verdict_1920")
    steps = [b - a for a, b in zip(offsets, offsets[1:], strict=False) if b != a]
    assert steps and max(steps) <= 0.86 * view + 1, (steps, view)
    missed = [b["text"] for b in blocks if b["i"] not in seen]
    assert not missed, missed
    texts = " ".join(b["text"] for b in blocks)
    for needed in ("MGSM", "Table 5 SE", "Speaker notes for this chapter"):
        assert needed in texts, needed
    body = page.locator('[data-testid="stMain"]').inner_text()
    for prose in ("Step 2: pair the questions", "Step 3: cluster MGSM", "Chapter 1 ended on a count"):
        assert prose not in body, prose  # not projected, not even collapsed
    assert page.locator('[data-testid="stExpander"]').filter(has_text="Speaker notes").count() == 0
    shot(page, "present_verdict_1920")
    link = page.get_by_role("link", name="Speaker notes for this chapter")
    assert link.get_attribute("target") == "_blank"  # a second window, not the projected tab
    with page.context.expect_page() as opened:
        link.click()
    notes = opened.value
    notes.set_default_timeout(PAGE_TIMEOUT_MS)
    wait_ready(notes)
    notes.get_by_text("Step 2: pair the questions").first.wait_for(state="visible")
    assert "notes_chapter=verdict" in notes.url and "present" not in notes.url
    assert notes.locator('[data-testid="stSidebar"]').count() == 1  # the teacher's window is not in presenter mode
    shot(notes, "notes_verdict_1440")
    notes.close()


def test_no_grey_frame_after_the_first_press(server, page):
    """A click on the slide, then 'next' (1920x1080): Streamlit's focus ring for the scroll region (a grey
    box-shadow on stMain::before) drew a frame over the slide. None now, and the first press is a real
    move (not the 60-odd px that only brought the title to the top)."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(server + "/verdict?present=1")
    wait_ready(page)
    wait_charts(page, 1)
    page.get_by_role("button", name="Leave presenter mode").wait_for()
    page.locator("h1").first.click()
    page.mouse.move(5, 1070)
    page.keyboard.press("n")
    page.wait_for_timeout(400)
    ring = page.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
        return [m.matches(':focus-visible'), getComputedStyle(m, '::before').boxShadow]; }""")
    assert ring[0] and ring[1] == "none", ring
    assert page.evaluate(_SCROLL) > 0.3 * page.evaluate(_VIEW)
    path = SHOTS / "present_verdict_1920_first_press.png"
    page.screenshot(path=str(path))
    from PIL import Image

    left = Image.open(path).convert("L").crop((0, 0, 12, 1080))  # the slide's left margin: white, no frame
    import numpy as np

    assert np.asarray(left).min() > 240, np.asarray(left).min()


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["problem", "one_model", "small_n", "clustering", "paired", "resampling",
                                  "temperature", "power", "judge"])
def test_presenter_reaches_every_block_of_every_chapter(server, page, slug):
    """Issue 24's check for every chapter (chapter 8 has its own test above): at 1920x1080, pressing 'next'
    until the page stops shows every block of the main column, no press moves more than one screen, and
    no download button shows."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{server}/{slug}?present=1")
    wait_ready(page)
    wait_charts(page, 1)
    page.get_by_role("button", name="Leave presenter mode").wait_for()
    wait_mounted(page)  # every block has its final height before the blocks are listed
    next_frames(page)
    assert not any(b.is_visible() for b in page.locator('[data-testid="stDownloadButton"]').all())
    page.locator("h1").first.click()
    view = page.evaluate(_VIEW)
    offsets, seen, blocks = _press_through(page, shots=f"present_{slug}_1920")
    steps = [b - a for a, b in zip(offsets, offsets[1:], strict=False) if b != a]
    assert steps and max(steps) <= 0.86 * view + 1, (steps, view)
    missed = [b["text"] for b in blocks if b["i"] not in seen]
    assert not missed, missed


def test_presenter_at_390(server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
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
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "print_one_model.pdf"
    path.write_bytes(pdf)
    pages = _pdf_pages(pdf)
    page.emulate_media(media="print")
    for selector in ('[data-testid="stSidebar"]', '[data-testid="stHeader"]', '[data-testid="stButton"]',
                     '[data-testid="stDownloadButton"]', '[data-testid="stPageLink"]'):
        loc = page.locator(selector)
        shown = [i for i in range(loc.count()) if loc.nth(i).is_visible()]
        assert loc.count() > 0 and not shown, (selector, loc.count(), shown)  # on the page, hidden in print
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
        page.set_default_timeout(PAGE_TIMEOUT_MS)
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


def test_the_speaker_notes_follow_the_projector(server, browser):
    """A notes window opened beside a presenting tab (same browser) follows it: it switches to the chapter the
    projector shows (chapter 1's notes become chapter 4's), and when a key press brings a heading to the top of
    the projected screen, the notes' screen of that heading comes to the top of the notes window."""
    target = "Why pairing works: covariance"
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        notes = context.new_page()
        notes.set_default_timeout(PAGE_TIMEOUT_MS)
        notes.goto(server + "/notes?notes_chapter=problem")
        wait_ready(notes)
        slide = context.new_page()
        slide.set_default_timeout(PAGE_TIMEOUT_MS)
        slide.goto(server + "/paired?present=1")
        wait_ready(slide)
        wait_charts(slide, 1)
        slide.get_by_role("button", name="Leave presenter mode").wait_for()
        notes.wait_for_url("**notes_chapter=paired**")
        wait_ready(notes)
        notes.get_by_role("heading", name=target).wait_for()
        slide.locator("h1").first.click()
        for _ in range(60):  # next, until the projector shows the target heading at its top
            if any(t == target and 0 <= top <= 200 for t, top in slide.evaluate(_HEADINGS)):
                break
            slide.keyboard.press("n")
            next_frames(slide)
        assert any(t == target and 0 <= top <= 200 for t, top in slide.evaluate(_HEADINGS))
        notes.wait_for_function("""t => { const h = Array.from(document.querySelectorAll('h3'))
            .find(h => h.textContent.trim().endsWith(t));
            const top = h.getBoundingClientRect().top; return top >= -5 && top < 200; }""", arg=target)
        shot(notes, "notes_follow_paired")
    finally:
        context.close()
