"""The course in Chromium: the 90-minute page and a chapter at 1440 and 390 px (screenshots), the plan's
links land on their sections, optional sections start closed, and quiz progress survives a reload."""

from __future__ import annotations

import pytest
from _pw import PAGE_TIMEOUT_MS, shot, wait_ready

from evalstats_app.content import load_content

WIDTHS = {"desktop": 1440, "phone": 390}


@pytest.fixture(params=sorted(WIDTHS))
def sized(browser, request):
    context = browser.new_context(viewport={"width": WIDTHS[request.param], "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(PAGE_TIMEOUT_MS)
    yield request.param, pg
    context.close()


def _no_error(page, what: str) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, f"{what}: the page shows an error"


def test_class_page_at_both_widths(server, sized):
    name, page = sized
    page.goto(f"{server}/teach")
    wait_ready(page)
    _no_error(page, "teach")
    steps = load_content("teach").meta["step"]
    page.get_by_text("0:00–0:10", exact=True).wait_for()
    page.get_by_text("1:20–1:30", exact=True).wait_for()
    assert page.locator('[class*="st-key-teach_step"]').count() == len(steps)
    # nothing sticks out sideways on a phone
    overflow = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollWidth"
                             " - document.querySelector('[data-testid=\"stMain\"]').clientWidth")
    assert overflow <= 1, overflow
    shot(page, f"course_teach_{name}")


def test_every_plan_link_lands_on_its_heading(server, page):
    """In presenter mode each step's link opens its chapter in the same tab, still presenting, with its
    settings, and (once the page has laid out) its heading at the top of the screen (issue 40)."""
    for step in load_content("teach").meta["step"]:
        page.goto(f"{server}/teach?present=1")
        wait_ready(page)
        page.locator('[data-testid="stPageLink"] a').filter(has_text=step["heading"]).first.click()
        page.wait_for_url(f"**/{step['slug']}*")
        wait_ready(page)
        _no_error(page, step["slug"])
        assert len(page.context.pages) == 1  # the same tab
        page.locator(".st-key-evalstats_present_exit").wait_for()  # still presenting
        for key, value in step.get("params", {}).items():  # the scenario's settings stayed in the URL
            assert f"{key}={value}" in page.url, (key, page.url)
        if step["anchor"]:
            page.wait_for_function("""id => { const el = document.getElementById(id);
                if (!el) return false; const top = el.getBoundingClientRect().top;
                return top >= 0 && top < 120; }""", arg=step["anchor"])


def test_chapter_header_and_optional_sections_at_both_widths(server, sized):
    name, page = sized
    page.goto(f"{server}/clustering")
    wait_ready(page)
    _no_error(page, "clustering")
    page.get_by_text("After this chapter you can").wait_for()
    page.get_by_text("on the main path").first.wait_for()
    lab = page.locator('[data-testid="stExpander"]').filter(has_text="Optional · Lab: few and unequal clusters")
    assert lab.locator("details").get_attribute("open") is None  # closed on the main path
    python = page.locator('[data-testid="stExpander"]').filter(has_text="Do it in Python")
    python.locator("summary").click()
    python.get_by_text("from evalstats_core import").first.wait_for()
    page.wait_for_timeout(500)
    shot(page, f"course_clustering_{name}")


def _quiz_box(page, q):
    """The quiz's radio group once every option is on the screen: all_inner_texts does not wait, and a read
    during the first render found the group with no labels yet (CI, stop 31)."""
    box = page.locator('[data-testid="stRadio"]').filter(has_text=q.options[q.answer]).first
    for option in q.options:
        box.get_by_text(option, exact=True).wait_for()
    return box


def test_quiz_answer_survives_a_reload(server, page):
    """Check an answer, reload the page (a new session): the quiz is still answered, options in the same order."""
    q = load_content("temperature").quizzes[1]
    page.goto(f"{server}/temperature")
    wait_ready(page)
    box = _quiz_box(page, q)
    order = [t.strip() for t in box.locator("label").all_inner_texts() if t.strip()]
    box.get_by_text(q.options[q.answer], exact=True).click()
    wait_ready(page)
    page.locator('[class*="st-key-temperature_quiz1_check"] button').click()
    wait_ready(page)
    page.get_by_text("Correct.").first.wait_for()
    page.wait_for_function("() => document.cookie.includes('temperature_quiz1.')")
    page.reload()
    wait_ready(page)
    page.get_by_text("Correct.").first.wait_for()
    box = _quiz_box(page, q)
    assert [t.strip() for t in box.locator("label").all_inner_texts() if t.strip()] == order
    assert page.locator('[class*="st-key-temperature_quiz1_check"]').count() == 0  # locked
    shot(page, "course_quiz_after_reload")
