"""evalstats home page: what it is, the map of chapters (reading time, this session's progress), where to start."""

import streamlit as st

from evalstats_app import shell
from evalstats_app.chapters import available
from evalstats_app.content import load_content
from evalstats_app.pacing import ALLOWANCE, WORDS_PER_MINUTE, chapter_time

shell.page_setup(None)
home = load_content("home")

st.title("evalstats")
st.markdown(f"*{home.promise}*")
st.markdown(home["intro"])

progress = shell.progress()
learn = [p for p in available() if p.section == "Learn"]
# (quizzes, answered, correct) per page with quizzes: the Learn chapters and the reference
scores = {p.slug: (len(load_content(p.slug).quizzes), *shell.quiz_score(p.slug, len(load_content(p.slug).quizzes)))
          for p in [*learn, *(p for p in available() if p.slug == "reference")]}
n_quizzes, answered_all, correct_all = (sum(s[i] for s in scores.values()) for i in range(3))


def chapter_line(slug: str) -> str:
    """Reading time, then what this session has done on the page: visited, quizzes answered / correct."""
    timing = chapter_time(slug)
    parts = [f":material/schedule: about {timing.minutes} min"] if timing is not None else []
    total, answered, correct = scores[slug]
    if answered:
        parts.append(f":material/task_alt: quiz {correct} of {total} correct"
                     + ("" if answered == total else f", {total - answered} to go"))
    elif slug in progress["visited"]:
        parts.append(":material/visibility: visited")
    return " · ".join(parts)


for section in shell.SECTIONS:
    st.subheader(section)
    pages = [p for p in available() if p.section == section]
    if not pages:
        continue
    cols = st.columns(min(len(pages), 3))
    for i, page in enumerate(pages):
        with cols[i % len(cols)].container(border=True):
            st.page_link(page.path, label=page.title, icon=page.icon)
            st.caption(page.blurb)
            line = chapter_line(page.slug) if page.slug in scores else ""
            if line:
                st.caption(line)
    if section == "Learn":
        timed = [t for t in (chapter_time(p.slug) for p in learn) if t is not None]
        visited = sum(1 for p in learn if p.slug in progress["visited"])
        if timed:
            st.caption(f"Times count what each chapter shows by default, measured from the page: its words at "
                       f"{WORDS_PER_MINUTE} a minute, plus {ALLOWANCE['charts']:g} min per chart, "
                       f"{ALLOWANCE['controls']:g} per control, {ALLOWANCE['formulas']:g} per formula, "
                       f"{ALLOWANCE['tables']:g} per table and {ALLOWANCE['quizzes']:g} per quiz question; "
                       f"the collapsed optional sections are extra. All chapters: about "
                       f"{sum(t.minutes for t in timed)} min ({sum(t.words for t in timed):,} words, "
                       f"{sum(t.charts for t in timed)} charts). For a single class, see "
                       f"*Teach this in 90 minutes*.")
        if visited:
            st.caption(f":material/insights: This session: {visited} of {len(learn)} chapters visited.")

if answered_all:
    st.caption(f":material/insights: Quizzes this session: {correct_all} of {answered_all} answered correctly "
               f"({n_quizzes - answered_all} of {n_quizzes} still to answer).")
st.markdown(home["start"])
