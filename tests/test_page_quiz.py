"""Quizzes on the pages: the reader's shuffled order on screen, stable on rerun, and progress restored
from the cookie on a reload (a new session); the cookie script carries only our own keys and digits."""

from __future__ import annotations

from conftest import no_exceptions, run_page

from evalstats_app import quiz as qz
from evalstats_app.content import load_content


def _reader(at) -> str:
    return at.session_state["_evalstats_reader"]


def test_options_are_shown_in_the_readers_order_and_stay_put_on_rerun():
    at = run_page("pages/paired.py")
    no_exceptions(at)
    reader = _reader(at)
    for i, q in enumerate(load_content("paired").quizzes):
        key = f"paired_quiz{i}"
        shown = list(at.radio(key=f"{key}_choice").options)
        assert shown == [q.options[j] for j in qz.option_order(q, key, reader)]
    first = list(at.radio(key="paired_quiz1_choice").options)
    at.run()
    assert list(at.radio(key="paired_quiz1_choice").options) == first
    assert _reader(at) == reader


def test_two_readers_see_different_orders():
    orders = set()
    for _ in range(6):
        at = run_page("pages/problem.py")
        orders.add(tuple(at.radio(key="problem_quiz0_choice").options))
    assert len(orders) >= 2  # 6 fresh sessions: all alike would have chance 1 in 4^5


def test_a_reload_restores_answers_and_order_from_the_cookie(monkeypatch):
    """Answer on one session, write the cookie text, start a fresh session with it: the quiz is locked
    on the same pick with its verdict, the order is the same, and the home page counts it."""
    at = run_page("pages/temperature.py")
    reader = _reader(at)
    q = load_content("temperature").quizzes[0]
    wrong = q.options[(q.answer + 1) % len(q.options)]
    at.radio(key="temperature_quiz0_choice").set_value(wrong).run()
    at.button(key="temperature_quiz0_check").click().run()
    order = list(at.radio(key="temperature_quiz0_choice").options)
    html = [h.proto.body for h in at.get("html") if qz.COOKIE in h.proto.body]
    cookie = qz.encode(reader, at.session_state["_evalstats_progress"]["answers"])
    assert html and f"{qz.COOKIE}={cookie};" in html[-1]

    monkeypatch.setattr(qz, "_cookie", lambda: cookie)
    again = run_page("pages/temperature.py")  # a new AppTest is a new session: a reload
    no_exceptions(again)
    assert _reader(again) == reader
    radio = again.radio(key="temperature_quiz0_choice")
    assert list(radio.options) == order and radio.value == wrong and radio.disabled
    assert any(f"the answer is **{q.options[q.answer]}**" in e.value for e in again.error)
    home = run_page()
    assert any("quiz 0 of 2 correct, 1 to go" in c.value for c in home.caption)


def test_a_forged_cookie_changes_nothing(monkeypatch):
    monkeypatch.setattr(qz, "_cookie", lambda: "zzzz-temperature_quiz0.0'</script><script>alert(1)")
    at = run_page("pages/temperature.py")
    no_exceptions(at)
    assert not at.radio(key="temperature_quiz0_choice").disabled
    body = " ".join(h.proto.body for h in at.get("html"))
    assert "alert" not in body and "zzzz" not in body


def test_ask_again_unlocks_one_quiz_and_drops_it_from_the_cookie():
    """A teacher who answered on the projector resets one quiz: unlocked, nothing picked, out of the cookie."""
    at = run_page("pages/temperature.py")
    q = load_content("temperature").quizzes[0]
    for key in ("temperature_quiz0", "temperature_quiz1"):
        at.radio(key=f"{key}_choice").set_value(at.radio(key=f"{key}_choice").options[0]).run()
        at.button(key=f"{key}_check").click().run()
    assert at.radio(key="temperature_quiz0_choice").disabled
    at.button(key="temperature_quiz0_reset").click().run()
    no_exceptions(at)
    radio = at.radio(key="temperature_quiz0_choice")
    assert not radio.disabled and radio.value is None and q.options[q.answer] in radio.options
    answers = at.session_state["_evalstats_progress"]["answers"]
    assert "temperature_quiz0" not in answers and "temperature_quiz1" in answers
    cookie = [h.proto.body for h in at.get("html") if qz.COOKIE in h.proto.body][-1]
    assert "temperature_quiz0." not in cookie and "temperature_quiz1." in cookie
    assert at.radio(key="temperature_quiz1_choice").disabled  # the other quiz stays answered


def test_reset_every_quiz_clears_all_chapters_answers():
    """"Reset every quiz" (under a chapter's quizzes and on the plan) clears answers of every chapter."""
    at = run_page("pages/temperature.py")
    assert not [b for b in at.button if b.key == "temperature_quiz_reset_all"]  # nothing to reset yet
    at.radio(key="temperature_quiz0_choice").set_value(at.radio(key="temperature_quiz0_choice").options[1]).run()
    at.button(key="temperature_quiz0_check").click().run()
    at.session_state["_evalstats_progress"]["answers"]["paired_quiz1"] = (0, False)  # answered on another page
    at.button(key="temperature_quiz_reset_all").click().run()
    no_exceptions(at)
    assert at.session_state["_evalstats_progress"]["answers"] == {}
    assert not at.radio(key="temperature_quiz0_choice").disabled
    cookie = [h.proto.body for h in at.get("html") if qz.COOKIE in h.proto.body][-1]
    reader = at.session_state["_evalstats_reader"]
    assert f"{qz.COOKIE}={reader};" in cookie  # the reader id (the option order) stays; no answer does
