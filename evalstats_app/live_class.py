"""A live class: the teacher's panel on the lesson plan (presenter mode) and the students' page (``pages/class.py``).

The teacher presses "Start a live class" and the projector shows a class code and a QR code of the class's
address (``class?code=XXXXX``; the QR is made here, by segno, with no network). Students open it on their phones
and see only the question on screen, with its options: no sign-in, no name; a random id in a cookie tells one
browser from another. The teacher picks a question of the plan (each step's "Ask the class" and its quiz, then
every other quiz), opens it, watches the answers arrive as bars of counts (redrawn twice a second), closes it,
reveals the right answer with its explanation, or resets it. Only the teacher's session holds the teacher key
(:mod:`evalstats_app.class_store`), so a student's page cannot change anything; after the class the answers go
out as CSV and the class can be deleted.

Questions are the app's own text (the content files); a student sends an option's index, never text.
"""

from __future__ import annotations

import io
import random
import re
from dataclasses import dataclass
from functools import lru_cache

import pandas as pd
import segno
import streamlit as st

from evalstats_core.charts import compile_spec
from evalstats_core.charts.live_class import answer_counts, with_counts

from .chapters import page_by_slug
from .class_store import (
    BROWSER_RE,
    CODE_RE,
    ClassError,
    ClassStore,
    database_url,
    default_path,
    new_browser_id,
)
from .content import load_content
from .presenter import presenting
from .quiz import all_quizzes, option_order

__all__ = ["ASK_OPTIONS", "OPINION", "ClassQuestion", "class_questions", "class_address", "qr_png", "store", "teacher_panel",
           "student_page", "PRESENTER_EVERY", "STUDENT_EVERY"]

#: How often the presenter's counts and a student's screen are redrawn (seconds). Each phone's redraw is a rerun on
#: the server (about 3 ms of CPU): 300 phones every 2 s were 150 reruns a second, more than a server given a third
#: of a busy 2-core machine kept up with (bench/bench_live_class.py); every 3 s a phone sees the next question. The
#: presenter's redraw, one tab, is twice a second: an answer waits at most half a second for the next one.
PRESENTER_EVERY, STUDENT_EVERY = 0.5, 3.0
#: An "Ask the class" question without options of its own is a show of hands before the quiz.
ASK_OPTIONS = ("I can answer it, and say why", "I have a guess", "I do not know yet")
#: What the reveal says of a question with no right answer (a show of hands, or an "Ask the class" written
#: without ``ask_answer``): an opinion question.
OPINION = "An opinion question: it has no right answer to reveal."

_TEACHER = "_evalstats_class_teacher"    # (code, teacher key) of the class this session runs
_ERROR = "_evalstats_class_error"        # the last refused action's message, shown once
_BROWSER = "_evalstats_class_browser"    # this browser's random id (also in the cookie)
COOKIE = "evalstats_class"


@dataclass(frozen=True, slots=True)
class ClassQuestion:
    """One question a class can answer: the app's own words, never a student's.

    key: the store's question key; label: how the teacher's list names it; text: the question; options: the
    options in the content file's order; answer: the right option's index (None for an opinion question: a show
    of hands, or an "Ask the class" the lesson plan gives no ``ask_answer``); explanation: shown at the reveal.
    """

    key: str
    label: str
    text: str
    options: tuple[str, ...]
    answer: int | None
    explanation: str


def _short(text: str, cap: int = 80) -> str:
    plain = " ".join(re.sub(r"[*_`$\\]", "", text).split())
    return plain if len(plain) <= cap else plain[: cap - 1] + "…"


@lru_cache(maxsize=1)
def class_questions() -> dict[str, ClassQuestion]:
    """Every question of the lesson plan in its order (each step's "Ask the class", then its quiz), then the
    quizzes the plan does not run, chapter by chapter.

    A step's "Ask the class" takes its options, right answer and explanation from the lesson plan
    (``ask_options``, ``ask_answer``, ``ask_explanation`` in content/teach.md, written from the step's chapter);
    without ``ask_answer`` it is an opinion question, and without ``ask_options`` a show of hands
    (:data:`ASK_OPTIONS`)."""
    meta = load_content("teach").meta
    quizzes = all_quizzes()
    out: dict[str, ClassQuestion] = {}
    for name, session in (("step", ""), ("second", "Second session, ")):
        for i, step in enumerate(meta.get(name, []), 1):
            ask_key = f"teach_ask_{name}{i}"
            options = tuple(step.get("ask_options", ASK_OPTIONS))
            answer = step.get("ask_answer")
            out[ask_key] = ClassQuestion(ask_key, f"{session}step {i} · Ask the class: {_short(step['ask'])}",
                                         step["ask"], options, answer if isinstance(answer, int) else None,
                                         str(step.get("ask_explanation", "")))
            q = quizzes[step["quiz"]]
            out.setdefault(step["quiz"], ClassQuestion(step["quiz"], f"{session}step {i} · Quiz: {_short(q.question)}",
                                                       q.question, q.options, q.answer, q.explanation))
    for key, q in quizzes.items():
        if key not in out:
            title = page_by_slug(key.rsplit("_quiz", 1)[0]).title
            out[key] = ClassQuestion(key, f"{title} · Quiz: {_short(q.question)}", q.question, q.options, q.answer,
                                     q.explanation)
    return out


@st.cache_resource(max_entries=4)
def _store(url: str | None, path: str) -> ClassStore:
    return ClassStore(url=url) if url else ClassStore(path=path)


def store() -> ClassStore:
    """The process's store (one per setting: ``EVALSTATS_DATABASE_URL`` / ``DATABASE_URL``, ``EVALSTATS_CLASS_DB``)."""
    url = database_url()
    return _store(url, "" if url else str(default_path()))


def class_address(code: str, root: str) -> str:
    """The students' address of class ``code`` (``root`` is the app's address up to its pages)."""
    return f"{root}class?code={code}"


@lru_cache(maxsize=32)
def qr_png(address: str) -> bytes:
    """A QR code of ``address`` as PNG bytes (segno, pure Python; medium error correction)."""
    out = io.BytesIO()
    segno.make(address, error="m").save(out, kind="png", scale=10, border=2, dark="#111111")
    return out.getvalue()


def _refused(exc: ClassError) -> None:
    st.session_state[_ERROR] = str(exc)


def _show_refusal() -> None:
    message = st.session_state.pop(_ERROR, None)
    if message:
        st.error(message, icon=":material/block:")


# --------------------------------------------------------------------------------------------- the teacher
def _start() -> None:
    try:
        st.session_state[_TEACHER] = store().start()
    except (ClassError, OSError) as exc:  # an unwritable class_data folder, an unreachable database
        st.session_state[_ERROR] = f"Could not start a class: {exc}"


def _resume() -> None:
    code = str(st.session_state.get("teach_class_resume_code", "")).strip().upper()
    key = str(st.session_state.get("teach_class_resume_key", "")).strip()
    try:
        store().check_teacher(code, key)
    except ClassError as exc:
        _refused(exc)
        return
    st.session_state[_TEACHER] = (code, key)


def _act(action: str) -> None:
    code, key = st.session_state[_TEACHER]
    s = store()
    try:
        if action == "open":
            q = class_questions()[st.session_state["teach_class_question"]]
            s.open(code, key, q.key, len(q.options))
        elif action == "close":
            s.close_question(code, key)
        elif action == "reveal":
            s.reveal(code, key)
        elif action == "reset":
            s.reset(code, key)
        elif action == "delete":
            s.delete(code, key)
            st.session_state.pop(_TEACHER, None)
    except ClassError as exc:
        _refused(exc)


def _labels(question: str, option: int) -> tuple[str, str]:
    q = class_questions().get(question)
    if q is None or not 0 <= option < len(q.options):
        return "", ""
    return q.text, q.options[option]


@lru_cache(maxsize=16)
def _chart(options: tuple[str, ...], answer: int | None, revealed: bool) -> dict:
    """A question's compiled bar chart (counts 0), once per question and reveal: the presenter's redraw, twice a
    second, fills in the counts (:func:`~evalstats_core.charts.live_class.with_counts`)."""
    frame = pd.DataFrame({"option": options, "count": [0] * len(options),
                          "right": [i == answer for i in range(len(options))]})
    return compile_spec(answer_counts(frame, revealed=revealed))


def _summary(q: ClassQuestion, counts: tuple[int, ...], revealed: bool) -> str:
    parts = [f"{n} chose “{_short(text, 50)}”" for text, n in zip(q.options, counts, strict=True)]
    head = f"{sum(counts)} answer{'s' if sum(counts) != 1 else ''}: " + "; ".join(parts) + "."
    if revealed and q.answer is not None:
        head += f" The right answer is “{_short(q.options[q.answer], 50)}”."
    return head


@st.fragment(run_every=PRESENTER_EVERY)
def _presenter_counts(code: str) -> None:
    """The question on screen and its counts, redrawn every ``PRESENTER_EVERY`` s while the page is open."""
    try:
        snap = store().snapshot(code)
    except ClassError as exc:
        st.error(str(exc))
        return
    if snap.ended:
        st.warning(f"Class {code} has ended: it takes no more answers. Export its answers below, or start a new one.")
    q = class_questions().get(snap.question or "")
    if q is None:
        st.info("No question on the students' screens yet: pick one and press **Open**.", icon=":material/hourglass_empty:")
        return
    state = {"open": "answers open", "closed": "closed", "revealed": "answer revealed"}[snap.state]
    with st.container(key="teach_class_live"):
        st.markdown(f"**{q.text}**")
        st.markdown(f":material/how_to_vote: **{snap.answered}** answered · {state} · "
                    f"{snap.students} in the class so far")
        revealed = snap.state == "revealed"
        st.vega_lite_chart(spec=with_counts(_chart(q.options, q.answer, revealed), snap.counts), width="stretch",
                           key="teach_class_chart")
        st.caption(_summary(q, snap.counts, revealed))
        if revealed:
            if q.answer is None:
                st.info(f"{OPINION} {q.explanation or 'Ask a few students why, then run the step’s quiz.'}",
                        icon=":material/groups:")
            else:
                st.success(f"**{q.options[q.answer]}**. {q.explanation}", icon=":material/check_circle:")


def teacher_panel(root: str) -> None:
    """The lesson plan's "Run a live class" section (``root``: the app's address up to its pages).

    In presenter mode: start (or resume) a class, then its code and QR, the question list and its buttons, the
    live counts, and the export and delete. Outside the mode a running class keeps its panel (the export's
    download button is hidden on a projector); without one, a line says where to start.
    """
    running = st.session_state.get(_TEACHER)
    if not presenting() and running is None:
        st.caption(":material/groups: Switch on **Presenter mode** to run a live class: students answer the plan's "
                   "questions on their phones and the screen shows their answers as they arrive.")
        return
    st.subheader("Run a live class", anchor="live-class")
    _show_refusal()
    if running is None:
        st.markdown("Students answer the plan's questions on their phones (no sign-in, no name); the screen shows "
                    "how many chose each option as they answer. Only this browser can open, close and reveal "
                    "questions.")
        st.button("Start a live class", key="teach_class_start", on_click=_start, icon=":material/groups:",
                  type="primary")
        with st.expander("Resume a class started on another screen"):
            st.text_input("Class code", key="teach_class_resume_code", max_chars=5)
            st.text_input("Teacher key", key="teach_class_resume_key", type="password", max_chars=64)
            st.button("Resume", key="teach_class_resume", on_click=_resume)
        return
    code, key = running
    address = class_address(code, root)
    qr, join = st.columns([1, 2], vertical_alignment="center")
    qr.image(qr_png(address), width=240, caption="Scan to join")
    join.metric("Class code", code)
    join.markdown(f"Students open **`{address}`** on their phones, or scan the code.")
    questions = class_questions()
    keys = list(questions)
    if st.session_state.get("teach_class_question") not in questions:
        st.session_state["teach_class_question"] = keys[0]
    st.selectbox("Question", keys, key="teach_class_question", format_func=lambda k: questions[k].label)
    row = st.container(horizontal=True, key="teach_class_actions")
    row.button("Open", key="teach_class_open", on_click=_act, args=("open",), icon=":material/play_arrow:",
               type="primary", help="Show this question on the students' phones and take their answers.")
    row.button("Close", key="teach_class_close", on_click=_act, args=("close",), icon=":material/stop:",
               help="Stop taking answers (the counts stay).")
    row.button("Reveal", key="teach_class_reveal", on_click=_act, args=("reveal",), icon=":material/visibility:",
               help="Show the right answer and its explanation here and on every phone.")
    row.button("Reset", key="teach_class_reset", on_click=_act, args=("reset",), icon=":material/restart_alt:",
               help="Forget every answer to the question on screen and ask it again.")
    _presenter_counts(code)
    with st.expander("After the class: export or delete its answers (teacher only)"):
        st.download_button("Answers (CSV): one row per answer, no names", key="teach_class_export",
                           data=lambda: store().export_csv(code, key, _labels), file_name=f"class_{code}.csv",
                           mime="text/csv", icon=":material/download:", on_click="ignore")
        st.caption("Leave presenter mode to download: a projector hides downloads. To run this class from another "
                   "screen, resume it there with the code and this teacher key (keep it off the projector):")
        st.code(key, language=None)
        st.button("Delete this class and every answer", key="teach_class_delete", on_click=_act, args=("delete",),
                  icon=":material/delete:")


# --------------------------------------------------------------------------------------------- the students
def _browser() -> str:
    """This browser's random class id: from the session, else the cookie, else a new one."""
    browser = st.session_state.get(_BROWSER)
    if browser is None:
        try:
            cookie = st.context.cookies.get(COOKIE)
        except Exception:  # noqa: BLE001 - no request context (bare script run): a new id
            cookie = None
        browser = cookie if isinstance(cookie, str) and BROWSER_RE.match(cookie) else new_browser_id()
        st.session_state[_BROWSER] = browser
    return browser


def _remember(browser: str) -> None:
    """Keep the id in a cookie (hidden one-line script; the value is 16 hex digits, checked): a reload is the
    same student, so it neither counts twice nor takes a second place in the class."""
    if not BROWSER_RE.match(browser):
        return
    with st.container(key="class_cookie"):
        st.html("<style>.st-key-class_cookie{display:none !important}</style><script>"
                f"document.cookie = '{COOKIE}={browser}; path=/; max-age=43200; SameSite=Lax';</script>",
                unsafe_allow_javascript=True)


def _order(q: ClassQuestion, browser: str) -> tuple[int, ...]:
    """The options in the order this browser sees them: a quiz's in the reader's own order, an "Ask the class"
    with a right answer shuffled by the browser's id (neighbours cannot copy a position), an opinion question in
    its written order."""
    quiz = all_quizzes().get(q.key)
    if quiz is not None:
        return option_order(quiz, q.key, browser[:8])
    order = list(range(len(q.options)))
    if q.answer is not None:
        random.Random(f"{browser}/{q.key}").shuffle(order)
    return tuple(order)


def _send(code: str, browser: str, question: str) -> None:
    q = class_questions()[question]
    picked = st.session_state.get(f"class_answer_{question}")
    if picked not in q.options:
        return
    try:
        store().answer(code, browser, question, q.options.index(picked))
    except ClassError as exc:
        _refused(exc)


@st.fragment(run_every=STUDENT_EVERY)
def _student_question(code: str, browser: str) -> None:
    """The question on the teacher's screen, its options, and this browser's answer (redrawn every STUDENT_EVERY s)."""
    try:
        snap = store().snapshot(code)
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    if snap.ended:
        st.info("This class has ended. Thank you!", icon=":material/waving_hand:")
        return
    q = class_questions().get(snap.question or "")
    if q is None:
        st.info("Waiting for the teacher to open a question…", icon=":material/hourglass_empty:")
        return
    widget = f"class_answer_{q.key}"
    mine = store().my_answer(code, browser, q.key)
    st.session_state[widget] = None if mine is None else q.options[mine]  # what the store holds, nothing else
    with st.container(key="class_question"):
        st.markdown(f"**{q.text}**")
        st.radio("Your answer", [q.options[i] for i in _order(q, browser)], index=None, key=widget,
                 label_visibility="collapsed", disabled=snap.state != "open", on_change=_send,
                 args=(code, browser, q.key))
        _show_refusal()
        if snap.state == "revealed":
            if q.answer is None:
                st.info(f"{OPINION} {q.explanation or 'The quiz comes next.'}", icon=":material/groups:")
            elif mine == q.answer:
                st.success(f"Right: **{q.options[q.answer]}**. {q.explanation}")
            else:
                st.error(f"The answer is **{q.options[q.answer]}**. {q.explanation}")
        elif snap.state == "closed":
            st.info("The teacher has closed this question.", icon=":material/lock:")
        elif mine is not None:
            st.success("Answer received. You can change it until the teacher closes the question.",
                       icon=":material/check:")


def _join() -> None:
    code = str(st.session_state.get("class_code", "")).strip().upper()
    if CODE_RE.match(code):
        st.query_params["code"] = code
    else:
        st.session_state[_ERROR] = (f"{code[:12]!r} is not a class code: it is 5 letters and digits, as on the "
                                    "teacher's screen")


def student_page() -> None:
    """``pages/class.py``: the class code from the link (``?code=``) or typed, then only the current question."""
    raw = st.query_params.get("code", "")
    code = raw.strip().upper() if isinstance(raw, str) else ""
    if not CODE_RE.match(code):
        st.markdown("### Join the class")
        _show_refusal()
        st.text_input("Class code (on the teacher's screen)", key="class_code", max_chars=5)
        st.button("Join", key="class_join", on_click=_join, type="primary")
        return
    browser = _browser()
    _remember(browser)
    st.caption(f":material/groups: Class {code} · your answers are counted, never shown with a name")
    _student_question(code, browser)
