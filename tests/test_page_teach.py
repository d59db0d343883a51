"""The "Teach this in 90 minutes" page (AppTest): the plan in order with contiguous times summing to 90,
a link to each section (same tab, presenter mode kept, landing on its heading), the question and the quiz
with its answer tucked away, session objectives, a second session with chapter 9, a handout with answers and
addresses, projected reading under 45 minutes; linked from the sidebar."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from conftest import no_exceptions, run_page

from evalstats_app import pacing
from evalstats_app.chapters import page_by_slug
from evalstats_app.content import load_content
from evalstats_app.quiz import all_quizzes

PATH = "pages/teach.py"


def test_the_plan_is_laid_out_with_times_links_questions_and_quizzes():
    at = run_page(PATH)
    no_exceptions(at)
    assert at.title[0].value == "Teach this in 90 minutes"
    steps = load_content("teach").meta["step"]
    text = [m.value for m in at.markdown]
    times = [t for t in text if re.fullmatch(r"\*\*\d:\d\d–\d:\d\d\*\*", t)]
    second = load_content("teach").meta["second"]
    assert len(times) == len(steps) + len(second)  # the class, then the second session from 0:00 again
    assert times[len(steps)].startswith("**0:00–") and times[-1].endswith("–0:45**")
    ends = [tuple(t.strip("*").split("–")) for t in times[:len(steps)]]
    assert ends[0][0] == "0:00" and ends[-1][1] == "1:30"
    assert all(a[1] == b[0] for a, b in zip(ends, ends[1:], strict=False))  # contiguous
    quizzes = all_quizzes()
    links = {(p.proto.page, p.proto.label): p.proto.query_string for p in at.get("page_link")}
    for step in steps:
        # a page link (same tab) to the chapter, with its settings and the heading to land on
        query = {**step.get("params", {}), **({"at": step["anchor"]} if step["anchor"] else {})}
        assert links[(step["slug"], step["heading"])] == urlencode(query), step
        assert f"**{page_by_slug(step['slug']).title}**" in text
        q = quizzes[step["quiz"]]
        assert any(f"**Ask the class:** {step['ask']}" in t and f"**Quiz to run:** {q.question}" in t for t in text)
        assert any(t.startswith(f"**{q.options[q.answer]}**. ") for t in text)
    answers = [e for e in at.expander if e.label.startswith("Answer and explanation")]
    assert len(answers) == len(steps) + len(second) and not any(e.proto.expanded for e in answers)
    assert any("90 minutes in all" in c.value for c in at.caption)


def test_a_steps_settings_open_its_chapter_in_that_scenario():
    """The step links that carry settings reopen the chapter with them (valid keys, nothing adjusted):
    chapter 2's calculator at 29 of 30 shows Wald past 100%."""
    steps = [s for s in load_content("teach").meta["step"] if s.get("params")]
    assert steps
    for step in steps:
        at = run_page(page_by_slug(step["slug"]).path, query=step["params"])
        no_exceptions(at)
        assert not any("settings were adjusted" in c.value for c in at.caption)
        for key, value in step["params"].items():
            assert str(at.session_state[key]) == value, (key, at.session_state[key])
        if step["slug"] == "small_n":
            assert any("29/30: Wald gives [90.2%, 103.1%]" in c.value for c in at.caption)


def test_the_sidebar_and_home_link_to_the_class_page():
    at = run_page()
    no_exceptions(at)
    sidebar_links = [p.proto.page for p in at.sidebar.get("page_link")]
    assert "teach" in sidebar_links, sidebar_links  # the page's URL path
    assert [h.value for h in at.subheader] == ["Learn", "Analyze", "Reference", "Teach"]


def test_session_objectives_second_session_and_handout():
    """The class's objectives open the page; chapter 9 has its place in a second, 45-minute session; the
    handout carries every step's address, quiz answer and explanation; the answers toggle prints them."""
    at = run_page(PATH)
    content = load_content("teach")
    assert any(m.value.startswith("**After this class the students can**") for m in at.markdown)
    second = content.meta["second"]
    assert sum(s["minutes"] for s in second) == 45 and "judge" in {s["slug"] for s in second}
    assert [h.value for h in at.subheader if "second session" in h.value]
    labels = {p.proto.label for p in at.get("page_link")}
    assert all(s["heading"] in labels for s in second)
    quizzes = all_quizzes()
    handout = at.get("download_button")
    assert [b for b in handout if b.proto.label.startswith("Handout (Markdown)")]
    at.toggle(key="teach_answers").set_value(True).run()
    no_exceptions(at)
    text = " ".join(m.value for m in at.markdown)
    for step in (*content.meta["step"], *second):
        q = quizzes[step["quiz"]]
        assert f"**{q.options[q.answer]}**. {q.explanation}" in text
    assert not [e for e in at.expander if e.label.startswith("Answer and explanation")]
    addresses = [c.value for c in at.caption if c.value.startswith("`")]
    assert "`small_n?one_model_acc=0.965&one_model_n=30&at=a-confidence-interval-calculator-for-accuracy`" in addresses


def test_every_step_links_its_chapters_speaker_notes():
    """Issue 40: each step of both sessions links the notes view of its chapter (a second window for the
    teacher), in and outside presenter mode."""
    content = load_content("teach")
    steps = [*content.meta["step"], *content.meta["second"]]
    for query in (None, {"present": "1"}):
        at = run_page(PATH, query=query)
        no_exceptions(at)
        links = [c.value for c in at.caption if "Speaker notes for" in c.value]
        assert len(links) == len(steps)
        for step, link in zip(steps, links, strict=True):
            assert f"(notes?notes_chapter={step['slug']})" in link, (step["slug"], link)


def test_in_presenter_mode_the_links_keep_it():
    """Every plan link carries present=1 in presenter mode, so the mode is never switched on again."""
    at = run_page(PATH, query={"present": "1"})
    no_exceptions(at)
    plan = [p for p in at.get("page_link") if p.proto.label != "Start with 1 · The problem" and p.proto.icon
            == ":material/arrow_forward:"]
    assert len(plan) == len(load_content("teach").meta["step"]) + len(load_content("teach").meta["second"])
    assert all("present=1" in p.proto.query_string for p in plan)


def test_a_plan_link_lands_on_its_heading_and_only_on_a_plan_heading():
    """?at=<anchor> draws the landing script for a heading the plan names, drops the key, and ignores any other."""
    anchor = "the-key-insight-questions-are-a-sample"
    at = run_page("pages/problem.py", query={"at": anchor})
    no_exceptions(at)
    scripts = [h.proto.body for h in at.get("html") if "scrollIntoView" in h.proto.body]
    assert len(scripts) == 1 and f"getElementById('{anchor}')" in scripts[0]
    assert "at" not in at.query_params
    hostile = run_page("pages/problem.py", query={"at": "x');alert(1);('"})
    no_exceptions(hostile)
    assert not [h for h in hostile.get("html") if "scrollIntoView" in h.proto.body or "alert" in h.proto.body]


def test_projected_reading_of_the_plan_fits_in_45_minutes():
    """Issue 40: the plan projected 10,678 words (82 min at 130 wpm). Counted as the presenter shows each
    chapter it opens (whole, at its defaults; tests below re-measure), at most 45 minutes, and no chapter
    projects more reading than the minutes the plan gives it."""
    steps = load_content("teach").meta["step"]
    assert pacing.plan_reading_minutes(s["slug"] for s in steps) <= 45
    given: dict[str, int] = {}
    for s in steps:
        given[s["slug"]] = given.get(s["slug"], 0) + int(s["minutes"])
    for slug, minutes in given.items():
        assert pacing.projected_words(slug) / pacing.PROJECTED_WPM <= minutes, slug


@pytest.mark.parametrize("slug", sorted({s["slug"] for s in load_content("teach").meta["step"]}))
def test_projected_words_are_measured_now(slug):
    """Re-measure a chapter in presenter mode: within 5% of content/pacing.toml (else run
    `python -m evalstats_app.pacing`), and well under what it shows outside the mode (the prose is in the speaker
    notes, a second window: issue 40 moved it out of the projected page, where it sat in collapsed expanders)."""
    at = pacing.open_chapter(slug, present=True)
    no_exceptions(at)
    fresh, stated = pacing.measure(at, slug).words, pacing.projected_words(slug)
    assert abs(fresh - stated) <= 0.05 * stated, (slug, fresh, stated)
    assert fresh < 0.75 * pacing.chapter_time(slug).words, slug
    assert not [e for e in at.expander if e.label == "Speaker notes"]
    assert [c for c in at.caption if f"(notes?notes_chapter={slug})" in c.value]
