"""A live class in Chromium (issue 43): a presenter (1400 px, presenter mode) and phones (390 px, one Chromium
context each, loopback only) on a server of its own whose class store is a SQLite file in a temporary folder.

The issue asks for 30 students; on this project's 2 shared cores each phone is a whole Streamlit page polling every
2 s, so the test runs ``EVALSTATS_CLASS_PHONES`` of them (default 6) and bench/bench_live_class.py carries the 300.
"""

from __future__ import annotations

import os
import re
import tempfile
import time

import pytest
from _pw import PAGE_TIMEOUT_MS, shot, wait_charts, wait_ready
from conftest import streamlit_server

from evalstats_app.live_class import class_questions
from evalstats_app.quiz import all_quizzes

PHONES = int(os.environ.get("EVALSTATS_CLASS_PHONES", "6"))
QUIZ = "problem_quiz0"


@pytest.fixture(scope="module")
def class_server():
    """A server of its own, its class store in a temporary folder (the shared server's environment is left alone)."""
    saved = {k: os.environ.pop(k, None) for k in ("EVALSTATS_CLASS_DB", "EVALSTATS_DATABASE_URL", "DATABASE_URL")}
    with tempfile.TemporaryDirectory(prefix="evalstats-class-") as folder:
        os.environ["EVALSTATS_CLASS_DB"] = f"{folder}/classes.sqlite3"
        try:
            with streamlit_server() as base:
                yield base
        finally:
            os.environ.pop("EVALSTATS_CLASS_DB", None)
            os.environ.update({k: v for k, v in saved.items() if v is not None})


def answered(page) -> int:
    """The presenter's count of answers ("**12** answered · ..."); -1 before a question is open."""
    text = page.locator(".st-key-teach_class_live").inner_text() if page.locator(".st-key-teach_class_live").count() else ""
    match = re.search(r"(\d+)\s+answered", text)
    return int(match.group(1)) if match else -1


def wait_answered(page, n: int, timeout: float) -> float:
    """Seconds until the presenter shows ``n`` answers (fails after ``timeout``)."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if answered(page) == n:
            return time.perf_counter() - t0
        page.wait_for_timeout(100)
    raise AssertionError(f"the presenter showed {answered(page)} answers, not {n}, after {timeout} s")


def press(page, key: str) -> None:
    """Click the button of widget ``key`` once the page has settled (a rerun can briefly hold two copies)."""
    wait_ready(page)
    page.locator(f".st-key-{key} button").first.click()


def start(context, base: str):
    """A presenter's page (a tab of ``context``) with a class started and the plan's first quiz open: (page, code)."""
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.goto(f"{base}/teach?present=1", wait_until="domcontentloaded")
    wait_ready(page)
    press(page, "teach_class_start")
    page.wait_for_selector('[data-testid="stMetricValue"]')
    code = page.locator('[data-testid="stMetricValue"]').inner_text().strip()
    assert re.fullmatch(r"[A-Z2-9]{5}", code), code
    box = page.get_by_role("combobox", name="Question", exact=True)
    box.click()
    box.fill("step 1 · Quiz")
    page.get_by_role("option", name=class_questions()[QUIZ].label, exact=True).click()
    wait_ready(page)
    press(page, "teach_class_open")
    page.wait_for_function("() => /0\\s+answered/.test(document.querySelector('.st-key-teach_class_live')?.innerText || '')")
    return page, code


def test_a_class_answers_on_phones_and_the_presenter_counts_them(class_server, browser):
    """Every phone's answer is counted once and shows on the presenter's chart within 2 s; a phone has no teacher
    control; the reveal reaches the phones; a second class starts from 0."""
    q = all_quizzes()[QUIZ]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    presenter, code = start(ctx, class_server)
    phones: list = []
    contexts: list = []
    try:
        for _ in range(PHONES + 1):  # the last one answers after the others, timed from its click
            c = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            p = c.new_page()
            p.set_default_timeout(PAGE_TIMEOUT_MS)
            p.goto(f"{class_server}/class?code={code}", wait_until="commit")  # the phones load side by side
            phones.append((c, p))
            contexts.append(c)
        chosen: dict[str, int] = {}
        late = phones.pop()[1]
        for i, (_, p) in enumerate(phones):
            p.wait_for_selector(".st-key-class_question [role='radiogroup']", timeout=3 * PAGE_TIMEOUT_MS)
            assert p.locator(f".st-key-class_question >> text={q.question[:40]}").count() == 1
            assert p.locator("[class*='st-key-teach_class_']").count() == 0  # no open, close, reveal or reset here
            labels = p.locator(".st-key-class_question [role='radiogroup'] label")
            assert labels.count() == len(q.options)
            pick = q.options[q.answer] if i % 2 else q.options[(q.answer + 1) % len(q.options)]  # odd: right
            chosen[pick] = chosen.get(pick, 0) + 1
            p.locator(".st-key-class_question [role='radiogroup'] label", has_text=pick).click()
        waits = []
        for _, p in phones:  # each phone says its answer arrived
            p.wait_for_selector("text=Answer received")
        waits.append(wait_answered(presenter, PHONES, 10))
        print(f"{PHONES} phones: the presenter showed all {PHONES} answers {waits[0]:.2f} s after the last phone's ack")
        assert waits[0] <= 2.0, waits
        # one more answer, timed from the click: on the presenter's screen within 2 s
        late.wait_for_selector(".st-key-class_question [role='radiogroup']")
        t_click = time.perf_counter()
        late.locator(".st-key-class_question [role='radiogroup'] label", has_text=q.options[q.answer]).click()
        late.wait_for_selector("text=Answer received")
        acked = time.perf_counter() - t_click
        chosen[q.options[q.answer]] = chosen.get(q.options[q.answer], 0) + 1
        seen = wait_answered(presenter, PHONES + 1, 10)
        print(f"one more answer: the phone's ack {acked:.2f} s after the click, the presenter {seen:.2f} s after the ack")
        assert seen <= 2.0
        # the counts per option, in the chart's one-sentence summary
        presenter.wait_for_timeout(1200)
        summary = presenter.locator(".st-key-teach_class_live [data-testid='stCaptionContainer']").inner_text()
        for option in q.options:
            short = option if len(option) <= 50 else option[:49] + "…"
            assert f"{chosen.get(option, 0)} chose “{short}”" in summary, (option, summary)
        # the reveal, on the presenter and on a phone
        press(presenter, "teach_class_reveal")
        presenter.wait_for_selector(f"text={q.explanation[:40]}")
        wait_charts(presenter)
        presenter.set_viewport_size({"width": 1400, "height": 1500})  # the code, the QR, the question and its bars
        presenter.mouse.move(5, 5)  # no button's tooltip over the slide
        presenter.evaluate("() => document.getElementById('live-class').scrollIntoView({block: 'start'})")
        presenter.wait_for_timeout(1500)
        shot(presenter, "live_class_presenter")
        phones[1][1].wait_for_selector("text=Right:", timeout=10_000)  # phone 1 picked the right answer
        phones[0][1].wait_for_selector(f"text=The answer is {q.options[q.answer][:30]}", timeout=10_000)
        shot(phones[0][1], "live_class_phone")
        # a second class never sees the first's answers
        presenter2, code2 = start(ctx, class_server)  # another tab: another session, another teacher key
        assert code2 != code and answered(presenter2) == 0
        presenter2.wait_for_timeout(2500)
        assert answered(presenter2) == 0 and answered(presenter) == PHONES + 1
    finally:
        for c in contexts:
            c.close()
        ctx.close()
