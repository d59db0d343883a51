"""A live class in AppTest (issue 43): the teacher's panel on the lesson plan (presenter mode) and the students'
page (pages/class.py), driven by widget key, on a SQLite store in this test's folder."""

from __future__ import annotations

import pytest
from conftest import no_exceptions, run_page

from evalstats_app import live_class
from evalstats_app.class_store import CODE_RE, ClassError
from evalstats_app.content import load_content
from evalstats_app.quiz import all_quizzes

TEACH, CLASS = "pages/teach.py", "pages/class.py"


@pytest.fixture(autouse=True)
def class_db(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALSTATS_DATABASE_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("EVALSTATS_CLASS_DB", str(tmp_path / "classes.sqlite3"))


def start_class(question: str = "problem_quiz0"):
    """A presenter's lesson plan with a class started and ``question`` open: (AppTest, code)."""
    at = run_page(TEACH, query={"present": "1"})
    no_exceptions(at)
    at.button(key="teach_class_start").click().run()
    no_exceptions(at)
    code = at.metric[0].value
    assert CODE_RE.match(code)
    at.selectbox(key="teach_class_question").set_value(question).run()
    at.button(key="teach_class_open").click().run()
    no_exceptions(at)
    return at, code


def answered_line(at) -> str:
    return next(m.value for m in at.markdown if "answered ·" in m.value)


def student(code: str):
    at = run_page(CLASS, query={"code": code})
    no_exceptions(at)
    return at


def test_outside_presenter_mode_the_plan_only_points_to_it():
    at = run_page(TEACH)
    no_exceptions(at)
    assert any("Switch on **Presenter mode** to run a live class" in c.value for c in at.caption)
    assert not [b for b in at.button if (b.key or "").startswith("teach_class_")]


def test_the_presenter_starts_a_class_with_a_code_and_a_qr_code_and_counts_answers():
    at, code = start_class("problem_quiz0")
    assert len(at.get("image")) == 1  # the QR code of the class's address
    assert any(f"class?code={code}" in m.value for m in at.markdown)
    assert live_class.qr_png(f"class?code={code}").startswith(b"\x89PNG")
    assert answered_line(at).startswith(":material/how_to_vote: **0** answered · answers open")
    q = all_quizzes()["problem_quiz0"]
    phones = [student(code) for _ in range(3)]
    for i, phone in enumerate(phones):
        # a phone shows only the question and its options (the quiz's own options, in this browser's order)
        assert [m.value for m in phone.markdown] == [f"**{q.question}**"]
        radio = phone.radio(key="class_answer_problem_quiz0")
        assert sorted(radio.options) == sorted(q.options)
        assert not [b for b in phone.button if (b.key or "").startswith("teach_class_")]
        radio.set_value(q.options[i % 2]).run()
        no_exceptions(phone)
        assert any("Answer received" in s.value for s in phone.success)
    phones[0].radio(key="class_answer_problem_quiz0").set_value(q.options[1]).run()  # a change of mind
    at.run()
    assert answered_line(at).startswith(":material/how_to_vote: **3** answered")
    summary = next(c.value for c in at.caption if c.value.startswith("3 answers:"))
    # phones 0 and 2 chose option 0, phone 1 option 1; then phone 0 moved to option 1: 1 and 2, never 4 in all
    assert f"1 chose “{live_class._short(q.options[0], 50)}”" in summary
    assert f"2 chose “{live_class._short(q.options[1], 50)}”" in summary


def test_reveal_shows_the_answer_and_explanation_on_every_screen_and_close_stops_answers():
    at, code = start_class("paired_quiz0")
    q = all_quizzes()["paired_quiz0"]
    wrong = next(i for i in range(len(q.options)) if i != q.answer)
    right_phone, wrong_phone, late = student(code), student(code), student(code)
    right_phone.radio(key="class_answer_paired_quiz0").set_value(q.options[q.answer]).run()
    wrong_phone.radio(key="class_answer_paired_quiz0").set_value(q.options[wrong]).run()
    at.button(key="teach_class_close").click().run()
    late.run()
    assert late.radio(key="class_answer_paired_quiz0").disabled
    assert any("closed this question" in i.value for i in late.info)
    at.button(key="teach_class_reveal").click().run()
    no_exceptions(at)
    assert any(s.value == f"**{q.options[q.answer]}**. {q.explanation}" for s in at.success)
    right_phone.run()
    wrong_phone.run()
    assert any(s.value.startswith("Right:") and q.explanation in s.value for s in right_phone.success)
    assert any(e.value.startswith(f"The answer is **{q.options[q.answer]}**") for e in wrong_phone.error)
    at.button(key="teach_class_reset").click().run()
    assert answered_line(at).startswith(":material/how_to_vote: **0** answered · answers open")


def test_a_student_cannot_open_or_reveal():
    """The students' page has no teacher control and its session holds no teacher key; the store refuses the
    actions without the key (tests/test_class_store.py checks every action)."""
    at, code = start_class("problem_quiz0")
    phone = student(code)
    assert not [b for b in phone.button if (b.key or "").startswith("teach_")]
    assert "_evalstats_class_teacher" not in phone.session_state
    with pytest.raises(ClassError, match="only the teacher"):
        live_class.store().reveal(code, "")
    at.run()
    assert "answers open" in answered_line(at)


def test_a_second_class_never_sees_the_first_classes_answers():
    first, code1 = start_class("problem_quiz0")
    second, code2 = start_class("power_quiz0")
    assert code1 != code2
    q = all_quizzes()["problem_quiz0"]
    for _ in range(2):
        student(code1).radio(key="class_answer_problem_quiz0").set_value(q.options[0]).run()
    phone = student(code2)
    assert [m.value for m in phone.markdown] == [f"**{all_quizzes()['power_quiz0'].question}**"]
    second.run()
    first.run()
    assert answered_line(second).startswith(":material/how_to_vote: **0** answered")
    assert answered_line(first).startswith(":material/how_to_vote: **2** answered")


def test_an_ask_the_class_question_reveals_the_plans_answer_and_explanation():
    """Each step's "Ask the class" has options, a right answer and an explanation from the lesson plan; the phone
    shows its options (in this browser's order), the reveal shows the answer on both screens."""
    step = load_content("teach").meta["step"][1]
    at, code = start_class("teach_ask_step2")
    phone = student(code)
    radio = phone.radio(key="class_answer_teach_ask_step2")
    assert sorted(radio.options) == sorted(step["ask_options"])
    right = step["ask_options"][step["ask_answer"]]
    radio.set_value(right).run()
    at.button(key="teach_class_reveal").click().run()
    no_exceptions(at)
    assert any(s.value.startswith(f"**{right}**. {step['ask_explanation'][:40]}") for s in at.success)
    assert not any(live_class.OPINION in i.value for i in at.info)
    phone.run()
    assert any(s.value.startswith(f"Right: **{right}**") for s in phone.success)


def test_a_question_without_a_right_answer_says_it_is_an_opinion_on_reveal(monkeypatch):
    """A step written without ask_answer (here, one without options: a show of hands) is an opinion question."""
    meta = load_content("teach").meta
    steps = [dict(s) for s in meta["step"]]
    for key in ("ask_options", "ask_answer", "ask_explanation"):
        steps[1].pop(key)
    monkeypatch.setitem(meta, "step", steps)
    live_class.class_questions.cache_clear()
    try:
        q = live_class.class_questions()["teach_ask_step2"]
        assert q.answer is None and q.options == live_class.ASK_OPTIONS
        at, code = start_class("teach_ask_step2")
        phone = student(code)
        radio = phone.radio(key="class_answer_teach_ask_step2")
        assert radio.options == list(live_class.ASK_OPTIONS)  # written order: nothing to copy
        radio.set_value(live_class.ASK_OPTIONS[2]).run()
        at.button(key="teach_class_reveal").click().run()
        assert any(i.value.startswith(live_class.OPINION) for i in at.info)
        assert not at.success
        phone.run()
        assert any(i.value.startswith(live_class.OPINION) for i in phone.info)
    finally:
        monkeypatch.undo()
        live_class.class_questions.cache_clear()


def test_a_bad_or_unknown_code_gets_one_clear_message():
    phone = run_page(CLASS, query={"code": "<b>x"})
    no_exceptions(phone)
    phone.text_input(key="class_code").input("nope!")
    phone.button(key="class_join").click().run()
    assert any("is not a class code" in e.value for e in phone.error)
    unknown = student("ZZZZZ")
    assert any("there is no class ZZZZZ" in e.value for e in unknown.error)


def test_the_teacher_resumes_a_class_on_another_screen_with_the_key_only():
    at, code = start_class("problem_quiz0")
    key = at.session_state["_evalstats_class_teacher"][1]
    other = run_page(TEACH, query={"present": "1"})
    other.text_input(key="teach_class_resume_code").input(code)
    other.text_input(key="teach_class_resume_key").input("not the key")
    other.button(key="teach_class_resume").click().run()
    assert any("only the teacher" in e.value for e in other.error)
    other.text_input(key="teach_class_resume_key").input(key)
    other.button(key="teach_class_resume").click().run()
    no_exceptions(other)
    assert other.metric[0].value == code
    other.button(key="teach_class_delete").click().run()
    assert any("there is no class" in e.value for e in student(code).error)
