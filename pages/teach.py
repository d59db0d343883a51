"""Teach this in 90 minutes: a lesson plan over the chapters (sections, order, timings, questions, quizzes),
and a second 45-minute session (chapter 9 and the labs).

The plan lives in content/teach.md (``[[step]]`` and ``[[second]]`` tables); this page only lays it out.
Each step's link opens its chapter in the same tab (presenter mode kept) and lands on its heading once the
page has laid out (``?at=``, shell.land_on). A handout (Markdown) carries the answers and the links'
addresses; "Show the answers" prints them on the page. Each step links its chapter's speaker notes (pages/notes.py),
which the teacher opens in a second window. Not a Learn chapter: no previous/next links.
In presenter mode the teacher can run a live class here (evalstats_app.live_class; students use pages/class.py).
"""

import streamlit as st

from evalstats_app import live_class, shell
from evalstats_app.chapters import LEARN, page_by_slug
from evalstats_app.pacing import PROJECTED_WPM, chapter_time, plan_reading_minutes, projected_words
from evalstats_app.quiz import all_quizzes, reset_all_button

content = shell.page_setup("teach")
state = shell.UrlState({"teach_answers": False})
sessions = (("step", "The 90-minute class"), ("second", "A second session (45 minutes)"))
quizzes = all_quizzes()


def clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def params(step: dict) -> dict[str, str]:
    """The step's link settings: the chapter's own, the heading to land on, and presenter mode when it is on."""
    out = dict(step.get("params", {}))
    if step["anchor"]:
        out[shell.LAND] = step["anchor"]
    if shell.presenting():
        out["present"] = "1"
    return out


def address(step: dict) -> str:
    """The link's address as text (for the handout and the printed page)."""
    query = "&".join(f"{key}={value}" for key, value in params(step).items())
    return f"{shell.site_root()}{step['slug']}" + (f"?{query}" if query else "")


def handout() -> str:
    """The plan as a Markdown handout: every step with its address, question, quiz, answer and explanation."""
    lines = [f"# {content.title}", "", content.promise, "",
             f"**{content.meta.get('objectives_heading')}**", "",
             *(f"- {line}" for line in content.meta.get("objectives", [])), ""]
    for name, label in sessions:
        lines += [f"## {label}", ""]
        start = 0
        for i, step in enumerate(content.meta.get(name, []), 1):
            q = quizzes[step["quiz"]]
            end = start + int(step["minutes"])
            lines += [f"### {i}. {clock(start)}–{clock(end)} · {page_by_slug(step['slug']).title}: {step['heading']}", "",
                      f"Open: <{address(step)}>", "",
                      f"Speaker notes: <{shell.site_root()}notes?notes_chapter={step['slug']}>", "", step["do"], "", f"**Ask the class:** {step['ask']}", "",
                      f"**Quiz:** {q.question}", "", *(f"- {option}" for option in q.options), "",
                      f"**Answer:** {q.options[q.answer]}. {q.explanation}", ""]
            start = end
    return "\n".join(lines)


def show(step: dict, i: int, start: int, key: str, answers: bool) -> None:
    chapter = page_by_slug(step["slug"])
    q = quizzes[step["quiz"]]
    with st.container(border=True, key=f"{key}{i}"):
        left, right = st.columns([1, 5])
        left.markdown(f"**{clock(start)}–{clock(start + int(step['minutes']))}**")
        left.caption(f"{step['minutes']} min")
        right.markdown(f"**{chapter.title}**")
        right.page_link(chapter.path, label=step["heading"], icon=":material/arrow_forward:",
                        query_params=params(step))
        right.caption(f"`{address(step)}`")
        shell.notes_link(step["slug"], label=f"Speaker notes for {chapter.title}", where=right,
                         key=f"{key}{i}")
        right.markdown(f"{step['do']}\n\n**Ask the class:** {step['ask']}\n\n**Quiz to run:** {q.question}")
        if answers:
            right.markdown(f"**{q.options[q.answer]}**. {q.explanation}")
        else:
            with right.expander("Answer and explanation (for the teacher)"):
                st.markdown(f"**{q.options[q.answer]}**. {q.explanation}")


steps = content.meta.get("step", [])
total = sum(int(s["minutes"]) for s in steps)
timed = [t for t in (chapter_time(p.slug) for p in LEARN) if t is not None]
reading = plan_reading_minutes(s["slug"] for s in steps)
words = sum(projected_words(s) or 0 for s in dict.fromkeys(s["slug"] for s in steps))
shell.prose(content["intro"])
st.caption(f":material/schedule: {len(steps)} steps, {total} minutes in all. In presenter mode the chapters it opens "
           f"project {words:,} words, about {reading:.0f} minutes of reading at {PROJECTED_WPM} words a minute "
           "(measured, each chapter counted whole); the rest is the charts, the questions and the quizzes. Reading "
           f"every chapter alone, with everything each shows by default, takes about {sum(t.minutes for t in timed)} "
           "minutes.")
shell.prose(content["before"])
answers = st.toggle("Show the answers on the page (for a printed handout)", key="teach_answers")
shell.download_table("Handout (Markdown): steps, link addresses, questions and answers", handout,
                     file_name="evalstats_lesson_plan.md", mime="text/markdown", key="teach_handout")
live_class.teacher_panel(shell.site_root())  # presenter mode: a class answers the plan's questions on their phones

for name, label in sessions:
    if name != "step":
        st.subheader(label, anchor=f"plan-{name}")
    start = 0
    for i, step in enumerate(content.meta.get(name, []), 1):
        show(step, i, start, "teach_step" if name == "step" else f"teach_{name}", answers)
        start += int(step["minutes"])
    if name == "step":
        shell.prose(content["after"])

reset_all_button(key="teach_quiz_reset_all")  # answered on the projector: clear them for the next class
st.page_link(LEARN[0].path, label=f"Start with {LEARN[0].title}", icon=LEARN[0].icon)
state.sync()
