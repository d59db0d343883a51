"""The course frame of a chapter: learning objectives and honest time at the top, optional sections
collapsed off the main path, and the chapter's key numbers as code a student can take away.

Everything here reads the chapter's content file (``objectives = [...]`` in the front matter, a
``<!-- python -->`` section) or the measured pacing (:mod:`evalstats_app.pacing`); no number is typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import streamlit as st

from .content import Content
from .pacing import chapter_time
from .presenter import presenting

__all__ = ["header", "optional", "python_block", "script_of"]

#: ``?optional=1`` opens every optional section (a teacher's link, a print-out of the whole chapter).
OPEN_ALL = "optional"

# On a phone an optional section's charts keep (nearly) the main column's width: the expander's side
# padding shrinks from 16 px to 2 px (static CSS; a style-only st.html takes no space on the page).
_PHONE_CSS = ("<style>@media (max-width: 640px) { [data-testid=\"stMain\"] [data-testid=\"stExpanderDetails\"] "
              "{ padding-left: 2px; padding-right: 2px; } }</style>")


def header(content: Content) -> None:
    """Under the chapter's promise: "After this chapter you can ..." (``objectives_heading`` in the front
    matter changes the words: the lesson plan's "After this class you can") and the measured time on screen.
    In presenter mode both are in the speaker notes (pages/notes.py): the slide keeps the title and the promise."""
    objectives = content.meta.get("objectives") or []
    lines = []
    if objectives:
        items = "\n".join(f"- {line}" for line in objectives)
        lines.append(f"**{content.meta.get('objectives_heading', 'After this chapter you can')}**\n\n{items}")
    timing = chapter_time(content.slug)
    if timing is not None:
        lines.append(f":material/schedule: About {timing.minutes} min on the main path: {timing.describe()}. "
                     "Sections marked *Optional* are collapsed and not counted.")
    if presenting() and content.slug != "teach":  # the plan's objectives are the class's: projected
        return  # a chapter's are the teacher's: in its speaker notes (pages/notes.py)
    if objectives:
        st.markdown(lines[0])
    if timing is not None:
        st.caption(lines[-1])


def _opened(keys: Sequence[str]) -> bool:
    params = st.query_params
    return params.get(OPEN_ALL) == "1" or any(key in params for key in keys)


@contextmanager
def optional(label: str, *, keys: Sequence[str] = (), why: str = "") -> Iterator[None]:
    """An optional section, collapsed on the main path: ``with course.optional("lab", keys=[...]):``.

    It opens by itself when the link carries one of its settings (``keys``: a shared scenario shows
    what it is about) or ``?optional=1``. ``why`` says what the section adds, in one line.
    """
    st.html(_PHONE_CSS)
    with st.expander(f"Optional · {label}", icon=":material/school:", expanded=_opened(keys)):
        if why:
            st.caption(why)
        yield


_PROMPT = re.compile(r"^(>>>|\.\.\.) ?")


def script_of(doctest_text: str) -> str:
    """The doctest of a ``python`` section as a script to copy: prompts removed, output as comments."""
    lines = []
    for line in doctest_text.strip("\n").splitlines():
        if _PROMPT.match(line):
            lines.append(_PROMPT.sub("", line))
        elif line.strip():
            lines.append(f"# {line}")
        else:
            lines.append("")
    return "\n".join(lines)


def python_block(content: Content) -> None:
    """"Do it in Python": the chapter's key numbers through the package's API, collapsed (the block is
    the ``python`` section's doctest, run by tests/test_course.py)."""
    code = content.sections.get("python")
    if not code:
        return
    with st.expander("Do it in Python: this chapter's numbers from evalstats_core", icon=":material/code:"):
        st.caption("Run it in a notebook or a script with the package installed (`pip install .`); "
                   "the comments show what it prints, the same numbers as the chapter above.")
        st.code(script_of(_strip_fence(code)), language="python")


def _strip_fence(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if not ln.startswith("```")]
    return "\n".join(lines)
