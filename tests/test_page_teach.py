"""The "Teach this in 90 minutes" page (AppTest): the plan in order with contiguous times summing to 90,
a link to each section, the question and the quiz with its answer tucked away; linked from the sidebar."""

from __future__ import annotations

import re

from conftest import no_exceptions, run_page

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
    assert len(times) == len(steps)
    ends = [tuple(t.strip("*").split("–")) for t in times]
    assert ends[0][0] == "0:00" and ends[-1][1] == "1:30"
    assert all(a[1] == b[0] for a, b in zip(ends, ends[1:], strict=False))  # contiguous
    quizzes = all_quizzes()
    for step in steps:
        query = "&".join(f"{k}={v}" for k, v in step.get("params", {}).items())
        target = step["slug"] + (f"?{query}" if query else "") + (f"#{step['anchor']}" if step["anchor"] else "")
        head = f"**{page_by_slug(step['slug']).title}** — [{step['heading']}]({target})"
        assert head in text, head
        q = quizzes[step["quiz"]]
        assert any(f"**Ask the class:** {step['ask']}" in t and f"**Quiz to run:** {q.question}" in t for t in text)
        assert any(t.startswith(f"**{q.options[q.answer]}**. ") for t in text)
    answers = [e for e in at.expander if e.label.startswith("Answer and explanation")]
    assert len(answers) == len(steps) and not any(e.proto.expanded for e in answers)
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
