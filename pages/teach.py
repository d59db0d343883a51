"""Teach this in 90 minutes: a lesson plan over the chapters (sections, order, timings, questions, quizzes).

The plan lives in content/teach.md (``[[step]]`` tables); this page only lays it out. Not a Learn
chapter: no settings, no previous/next links.
"""

import streamlit as st

from evalstats_app import shell
from evalstats_app.chapters import LEARN, page_by_slug
from evalstats_app.pacing import chapter_time
from evalstats_app.quiz import all_quizzes, reset_all_button

content = shell.page_setup("teach")
steps = content.meta.get("step", [])
quizzes = all_quizzes()


def clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def link(step: dict) -> str:
    """A relative link to the chapter with the step's settings, at the heading's anchor when it names one."""
    query = "&".join(f"{key}={value}" for key, value in step.get("params", {}).items())
    anchor = f"#{step['anchor']}" if step["anchor"] else ""
    return f"[{step['heading']}]({step['slug']}{'?' + query if query else ''}{anchor})"


total = sum(int(s["minutes"]) for s in steps)
timed = [t for t in (chapter_time(p.slug) for p in LEARN) if t is not None]
shell.prose(content["intro"])
st.caption(f":material/schedule: {len(steps)} steps, {total} minutes in all. Reading every chapter alone, with "
           f"everything each shows by default, takes about {sum(t.minutes for t in timed)} minutes (measured; "
           "the chapters' headers give each one's time): the plan picks the core of each.")
shell.prose(content["before"])

start = 0
for i, step in enumerate(steps, 1):
    chapter = page_by_slug(step["slug"])
    q = quizzes[step["quiz"]]
    with st.container(border=True, key=f"teach_step{i}"):
        left, right = st.columns([1, 5])
        left.markdown(f"**{clock(start)}–{clock(start + int(step['minutes']))}**")
        left.caption(f"{step['minutes']} min")
        right.markdown(f"**{chapter.title}** — {link(step)}")
        right.markdown(f"{step['do']}\n\n**Ask the class:** {step['ask']}\n\n**Quiz to run:** {q.question}")
        with right.expander("Answer and explanation (for the teacher)"):
            st.markdown(f"**{q.options[q.answer]}**. {q.explanation}")
    start += int(step["minutes"])

shell.prose(content["after"])
reset_all_button(key="teach_quiz_reset_all")  # answered on the projector: clear them for the next class
st.page_link(LEARN[0].path, label=f"Start with {LEARN[0].title}", icon=LEARN[0].icon)
