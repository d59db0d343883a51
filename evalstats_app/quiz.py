"""Quizzes that test understanding: options shuffled per reader, correct answers spread evenly over the
positions, and the reader's answers kept across reloads.

Each reader (a browser) gets a short random id. From it, and only from it, follow

- which position the right answer takes in each quiz: over all the app's quizzes with ``k`` options the
  positions ``0 .. k-1`` are dealt out evenly (counts differ by at most one), in an order shuffled by
  the reader id, so no position is "usually right" and a neighbour's screen does not give the answer away;
- the order of the other options (shuffled by the reader id and the quiz key).

The same id gives the same order on every rerun and every reload. The id and the answers live in one
cookie (``evalstats_quiz``, written by a small script, read back by ``st.context.cookies`` when the page
is reloaded), so progress survives a reload without putting anything in a link a teacher shares. The
cookie is parsed strictly: only known quiz keys and in-range option indices are kept, and correctness is
always recomputed from the content files, never read from the cookie.

A teacher who answers on the projector resets a quiz ("Ask again", under its verdict) or every quiz
(:func:`reset_all_button`, under a chapter's quizzes and on the lesson plan) for the next class: the answers
leave the session and the cookie at once; the reader id, and so the option order, stays.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Sequence
from functools import lru_cache

import streamlit as st

from .chapters import PAGES
from .content import Quiz, load_content

__all__ = ["COOKIE", "all_quizzes", "answer_positions", "option_order", "encode", "decode", "progress",
           "quiz_score", "quiz", "remember", "reset", "reset_all_button"]

COOKIE = "evalstats_quiz"
_PROGRESS = "_evalstats_progress"
_READER = "_evalstats_reader"
_READER_RE = re.compile(r"^[0-9a-f]{8}$")
_CHOICE_RE = re.compile(r"^[a-z][a-z0-9_]{0,40}_quiz\d{1,2}_choice$")
_ITEM_RE = re.compile(r"^([a-z][a-z0-9_]{0,40}_quiz\d{1,2})\.(\d{1,2})$")


@lru_cache(maxsize=1)
def all_quizzes() -> dict[str, Quiz]:
    """Every quiz in the app, by key ``<slug>_quiz<i>``, in the order of the table of contents."""
    out: dict[str, Quiz] = {}
    for page in PAGES:
        try:
            content = load_content(page.slug)
        except FileNotFoundError:  # a page without a content file has no quizzes
            continue
        for i, q in enumerate(content.quizzes):
            out[f"{page.slug}_quiz{i}"] = q
    return out


@lru_cache(maxsize=256)
def answer_positions(reader: str) -> dict[str, int]:
    """Where the right answer of each quiz is shown for ``reader``: balanced over the positions.

    For each option count ``k``, the quizzes with ``k`` options get positions ``0, 1, .., k-1, 0, 1, ..``
    in a shuffled order seeded by the reader id, so every position is right equally often (within one).
    """
    by_size: dict[int, list[str]] = {}
    for key, q in all_quizzes().items():
        by_size.setdefault(len(q.options), []).append(key)
    out: dict[str, int] = {}
    for k, keys in sorted(by_size.items()):
        slots = [i % k for i in range(len(keys))]
        random.Random(f"{reader}/positions/{k}").shuffle(slots)
        out.update(zip(keys, slots, strict=True))
    return out


def option_order(q: Quiz, key: str, reader: str) -> tuple[int, ...]:
    """The indices of ``q.options`` in the order ``reader`` sees them (the right one at its dealt position)."""
    others = [i for i in range(len(q.options)) if i != q.answer]
    random.Random(f"{reader}/{key}").shuffle(others)
    position = answer_positions(reader).get(key, random.Random(f"{reader}/{key}/answer").randrange(len(q.options)))
    others.insert(position, q.answer)
    return tuple(others)


def encode(reader: str, answers: dict[str, tuple[int, bool]]) -> str:
    """The cookie's text: ``<reader>-<key>.<option index>-...`` (option indices into the content file)."""
    return "-".join([reader, *(f"{key}.{index}" for key, (index, _) in sorted(answers.items()))])


def decode(text: object) -> tuple[str | None, dict[str, tuple[int, bool]]]:
    """Read a cookie back: (reader id or None, answers); anything malformed or unknown is dropped."""
    if not isinstance(text, str) or not text or len(text) > 4000:
        return None, {}
    head, *items = text.split("-")
    if not _READER_RE.match(head):  # not a cookie we wrote: trust none of it
        return None, {}
    reader = head
    known = all_quizzes()
    answers: dict[str, tuple[int, bool]] = {}
    for item in items[:200]:
        match = _ITEM_RE.match(item)
        if match is None or match.group(1) not in known:
            continue
        q, index = known[match.group(1)], int(match.group(2))
        if index < len(q.options):
            answers[match.group(1)] = (index, index == q.answer)
    return reader, answers


def _cookie() -> str | None:
    try:
        return st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 - no request context (bare script run): nothing stored
        return None


def progress() -> dict:
    """This session's progress: ``{"visited": [slug, ...], "answers": {quiz key: (option index, correct)}}``.

    Kept in ``st.session_state`` across page switches; on a new session (a reload) the answers and the
    reader id come back from the cookie.
    """
    store = st.session_state.get(_PROGRESS)
    if store is None:
        reader, answers = decode(_cookie())
        st.session_state.setdefault(_READER, reader or secrets.token_hex(4))
        store = {"visited": [], "answers": answers}
        st.session_state[_PROGRESS] = store
    return store


def reader_id() -> str:
    """This reader's id (8 hex digits): the seed of every quiz's option order."""
    progress()
    return st.session_state[_READER]


def remember() -> None:
    """Write the reader id and the answers into the cookie (a hidden one-line script; no user text)."""
    value = encode(reader_id(), progress()["answers"])
    if not re.fullmatch(r"[0-9a-z_.\-]+", value):  # only our own keys and digits ever get here
        return
    with st.container(key="evalstats_quiz_store"):
        st.html("<style>.st-key-evalstats_quiz_store{display:none !important}</style><script>"
                f"document.cookie = '{COOKIE}={value}; path=/; max-age=31536000; SameSite=Lax';</script>",
                unsafe_allow_javascript=True)


def quiz_score(slug: str, n_quizzes: int) -> tuple[int, int]:
    """(answered, correct) among the quizzes ``<slug>_quiz0`` .. ``<slug>_quiz<n-1>`` in this session."""
    answers = progress()["answers"]
    mine = [answers[f"{slug}_quiz{i}"] for i in range(n_quizzes) if f"{slug}_quiz{i}" in answers]
    return len(mine), sum(1 for _, correct in mine if correct)


def _check(q: Quiz, key: str) -> None:
    choice = st.session_state.get(f"{key}_choice")
    if choice is None or choice not in q.options:
        st.session_state[f"{key}_empty"] = True
        return
    st.session_state.pop(f"{key}_empty", None)
    index = list(q.options).index(choice)
    progress()["answers"][key] = (index, index == q.answer)


def reset(keys: Sequence[str] | None = None) -> None:
    """Forget the answers to ``keys`` (every quiz when None): unlocked, unpicked, out of the cookie on this rerun.

    A button's callback: it runs before the page, so :func:`remember` writes the cookie without them.
    """
    answers = progress()["answers"]
    for key in list(answers) if keys is None else keys:
        answers.pop(key, None)
        st.session_state.pop(f"{key}_empty", None)
        st.session_state.pop(f"{key}_choice", None)  # the radio starts again with nothing picked
    if keys is None:  # every quiz's pick, including those of pages not on screen
        for name in [k for k in st.session_state if isinstance(k, str) and _CHOICE_RE.match(k)]:
            st.session_state.pop(name, None)


def reset_all_button(*, key: str) -> None:
    """"Reset every quiz" for the next class (nothing when no quiz has been answered in this browser)."""
    if progress()["answers"]:
        st.button("Reset every quiz", key=key, on_click=reset, icon=":material/restart_alt:",
                  help="Clears every answer in this browser (the teacher's screen before the next class).")


def quiz(q: Quiz, *, key: str) -> None:
    """A multiple-choice question, options in this reader's order, that locks once checked.

    Before "Check my answer" the reader may change their pick; once checked, the radio is disabled on
    the checked option and the verdict (right, or the right answer with the explanation) stays, across
    page switches and reloads, until "Ask again" unlocks it. The answer is recorded in :func:`progress`.
    """
    choice_key = f"{key}_choice"
    locked = progress()["answers"].get(key)
    if locked is not None and st.session_state.get(choice_key) != q.options[locked[0]]:
        st.session_state[choice_key] = q.options[locked[0]]  # before the widget: the locked pick is shown
    shown = [q.options[i] for i in option_order(q, key, reader_id())]
    with st.container(border=True, key=f"{key}_box"):  # printed whole on one page (presenter._PRINT_CSS)
        st.markdown(f"**Quiz.** {q.question}")
        st.radio("Your answer", shown, index=None, key=choice_key, label_visibility="collapsed",
                 disabled=locked is not None)
        if locked is None:
            st.button("Check my answer", key=f"{key}_check", on_click=_check, args=(q, key))
            if st.session_state.get(f"{key}_empty"):
                st.warning("Pick an answer first.")
        elif locked[1]:
            st.success(f"Correct. {q.explanation}")
        else:
            st.error(f"Not quite: the answer is **{q.options[q.answer]}**. {q.explanation}")
        if locked is not None:
            st.button("Ask again", key=f"{key}_reset", on_click=reset, args=([key],), icon=":material/replay:",
                      help="Unlock this question (answered on the projector: reset it for the next class).")
