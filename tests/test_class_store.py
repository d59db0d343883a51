"""The live class's store (issue 43), the same tests on SQLite and on a throwaway local PostgreSQL.

The PostgreSQL cluster (tests/_postgres.py) starts once per run in a temporary folder on a unix socket; its tests
skip, with the reason, only where Debian's PostgreSQL binaries are absent.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import sqlite3
import threading

import _postgres
import pytest

from evalstats_app.class_store import (
    BROWSER_RE,
    CODE_RE,
    ClassError,
    ClassStore,
    database_url,
    default_path,
    new_browser_id,
    open_store,
)


class Clock:
    """A clock the tests move by hand (seconds since the epoch)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="session")
def pg_url():
    why = _postgres.missing()
    if why and os.environ.get("EVALSTATS_REQUIRE_POSTGRES") == "1":
        pytest.fail(why)  # in CI (.ci/run) the PostgreSQL half must run
    if why:
        pytest.skip(why)
    with _postgres.local_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def make(request, tmp_path):
    """``make(**bounds)``: a store on this test's SQLite file, or on the shared PostgreSQL emptied for this test."""
    opened: list[ClassStore] = []
    if request.param == "sqlite":
        where = {"path": tmp_path / "classes.sqlite3"}
    else:
        url = request.getfixturevalue("pg_url")
        psycopg = pytest.importorskip("psycopg")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS answers, students, classes")
        where = {"url": url}

    def factory(**bounds) -> ClassStore:
        store = ClassStore(**where, **bounds)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


def ids(n: int) -> list[str]:
    return [new_browser_id() for _ in range(n)]


def test_a_class_starts_with_a_short_code_and_a_key_kept_only_as_its_hash(make, tmp_path):
    store = make()
    code, key = store.start()
    assert CODE_RE.match(code) and len(code) == 5
    assert len(key) >= 32
    with store._read() as cur:
        (stored,) = cur.one("SELECT teacher_hash FROM classes WHERE code = ?", (code,))
    assert stored == hashlib.sha256(key.encode()).hexdigest() and key not in stored
    other, other_key = store.start()
    assert other != code and other_key != key


def test_one_answer_per_browser_per_question_a_change_replaces_it(make):
    store = make()
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 4)
    a, b, c = ids(3)
    store.answer(code, a, "problem_quiz0", 1)
    store.answer(code, b, "problem_quiz0", 1)
    store.answer(code, c, "problem_quiz0", 3)
    store.answer(code, a, "problem_quiz0", 2)  # a changes its mind: still one answer
    snap = store.snapshot(code)
    assert snap.counts == (0, 1, 1, 1) and snap.answered == 3 and snap.students == 3
    assert snap.question == "problem_quiz0" and snap.state == "open" and not snap.ended
    assert store.my_answer(code, a, "problem_quiz0") == 2
    assert store.my_answer(code, new_browser_id(), "problem_quiz0") is None
    assert len(store.answers(code, key)) == 3


def test_only_the_teacher_key_opens_closes_reveals_resets_exports_deletes(make):
    store = make()
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 3)
    store.answer(code, new_browser_id(), "problem_quiz0", 0)
    other_code, other_key = store.start()
    for wrong in (None, "", "not-the-key", other_key, key + "x"):
        for action in (lambda k: store.open(code, k, "paired_quiz0", 3), lambda k: store.close_question(code, k),
                       lambda k: store.reveal(code, k), lambda k: store.reset(code, k),
                       lambda k: store.export_csv(code, k), lambda k: store.delete(code, k),
                       lambda k: store.check_teacher(code, k)):
            with pytest.raises(ClassError, match="only the teacher"):
                action(wrong)
    snap = store.snapshot(code)
    assert (snap.question, snap.state, snap.counts) == ("problem_quiz0", "open", (1, 0, 0))
    store.check_teacher(code, key)


def test_a_second_class_never_sees_the_first_classes_answers(make):
    store = make()
    first, k1 = store.start()
    second, k2 = store.start()
    store.open(first, k1, "problem_quiz0", 3)
    store.open(second, k2, "problem_quiz0", 3)
    browser = new_browser_id()
    for b in ids(5):
        store.answer(first, b, "problem_quiz0", 2)
    store.answer(first, browser, "problem_quiz0", 2)
    assert store.snapshot(second).counts == (0, 0, 0) and store.snapshot(second).students == 0
    store.answer(second, browser, "problem_quiz0", 0)  # the same browser in both classes: two separate answers
    assert store.snapshot(first).counts == (0, 0, 6)
    assert store.snapshot(second).counts == (1, 0, 0)
    assert {row[1] for row in store.answers(second, k2)} == {browser}
    with pytest.raises(ClassError, match="only the teacher"):
        store.answers(second, k1)


def test_a_restart_loses_nothing(make):
    store = make()
    code, key = store.start()
    store.open(code, key, "clustering_quiz1", 4)
    browsers = ids(40)
    for i, b in enumerate(browsers):
        store.answer(code, b, "clustering_quiz1", i % 4)
    before = store.snapshot(code)
    store.close()  # the server goes away in the middle of the question
    again = make()
    assert again.snapshot(code) == before
    assert before.counts == (10, 10, 10, 10)
    again.answer(code, new_browser_id(), "clustering_quiz1", 0)  # the question is still open after the restart
    again.reveal(code, key)  # and the teacher key still works
    assert again.snapshot(code).counts == (11, 10, 10, 10) and again.snapshot(code).state == "revealed"


def test_a_class_holds_at_most_max_students(make):
    store = make(max_students=3)
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 2)
    a, b, c, d = ids(4)
    for browser in (a, b, c):
        store.answer(code, browser, "problem_quiz0", 0)
    with pytest.raises(ClassError, match=r"full \(3 students\)"):
        store.answer(code, d, "problem_quiz0", 0)
    store.answer(code, a, "problem_quiz0", 1)  # a student already in changes their answer
    assert store.snapshot(code).counts == (2, 1) and store.snapshot(code).students == 3


def test_rate_limit_per_browser(make):
    clock = Clock()
    store = make(rate=3, window=60, clock=clock)
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 4)
    a, b = ids(2)
    for option in (0, 1, 2):
        store.answer(code, a, "problem_quiz0", option)
    with pytest.raises(ClassError, match="too many answers"):
        store.answer(code, a, "problem_quiz0", 3)
    store.answer(code, b, "problem_quiz0", 3)  # another browser is not held back
    assert store.my_answer(code, a, "problem_quiz0") == 2
    clock.now += 61
    store.answer(code, a, "problem_quiz0", 3)
    assert store.snapshot(code).counts == (0, 0, 0, 2)


def test_a_class_ends_after_its_hours_and_is_purged_later(make):
    clock = Clock()
    store = make(hours=1, keep_hours=2, clock=clock)
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 2)
    store.answer(code, new_browser_id(), "problem_quiz0", 1)
    clock.now += 3600
    assert store.snapshot(code).ended
    with pytest.raises(ClassError, match="has ended"):
        store.answer(code, new_browser_id(), "problem_quiz0", 0)
    with pytest.raises(ClassError, match="has ended"):
        store.open(code, key, "paired_quiz0", 3)
    assert len(store.answers(code, key)) == 1  # the teacher can still export an ended class
    clock.now += 2 * 3600 + 1
    store.start()  # every start purges classes that ended more than keep_hours ago
    with pytest.raises(ClassError, match="there is no class"):
        store.snapshot(code)


def test_close_reveal_reset(make):
    store = make()
    code, key = store.start()
    with pytest.raises(ClassError, match="open one first"):
        store.reveal(code, key)
    store.open(code, key, "paired_quiz0", 3)
    a, b = ids(2)
    store.answer(code, a, "paired_quiz0", 1)
    store.close_question(code, key)
    with pytest.raises(ClassError, match="not open"):
        store.answer(code, b, "paired_quiz0", 1)
    store.reveal(code, key)
    assert store.snapshot(code).state == "revealed" and store.snapshot(code).counts == (0, 1, 0)
    with pytest.raises(ClassError, match="not open"):
        store.answer(code, b, "paired_quiz0", 0)
    store.reset(code, key)
    assert store.snapshot(code).state == "open" and store.snapshot(code).counts == (0, 0, 0)
    store.open(code, key, "power_quiz0", 2)
    with pytest.raises(ClassError, match="not open"):  # an answer to the previous question is refused
        store.answer(code, b, "paired_quiz0", 0)
    store.answer(code, b, "power_quiz0", 1)
    assert store.snapshot(code).counts == (0, 1)


def test_export_is_neutralised_and_delete_removes_everything(make):
    store = make()
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 2)
    browsers = ids(3)
    for i, b in enumerate(browsers):
        store.answer(code, b, "problem_quiz0", i % 2)
    text = store.export_csv(code, key, lambda q, o: ("=SUM(A1)", ["+1 yes", "-no"][o]))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 3
    assert {r["question_text"] for r in rows} == {"'=SUM(A1)"}
    assert sorted(r["option_text"] for r in rows) == ["'+1 yes", "'+1 yes", "'-no"]
    assert sorted(r["browser"] for r in rows) == sorted(browsers)
    assert all(r["class"] == code and r["answered_at"].endswith("Z") for r in rows)
    store.delete(code, key)
    with pytest.raises(ClassError, match="there is no class"):
        store.snapshot(code)
    with store._read() as cur:
        assert cur.one("SELECT COUNT(*) FROM answers WHERE code = ?", (code,))[0] == 0
        assert cur.one("SELECT COUNT(*) FROM students WHERE code = ?", (code,))[0] == 0


def test_bad_input_is_one_clear_message(make):
    store = make()
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 3)
    with pytest.raises(ClassError, match="is not a class code"):
        store.snapshot("nope!")
    with pytest.raises(ClassError, match="there is no class"):
        store.snapshot("ZZZZZ" if code != "ZZZZZ" else "YYYYY")
    assert store.snapshot(code.lower()).code == code  # typed in lower case on a phone
    with pytest.raises(ClassError, match="malformed"):
        store.answer(code, "Robert'); DROP TABLE answers;--", "problem_quiz0", 0)
    for option in (-1, 3, 1.0, True, "1"):
        with pytest.raises(ClassError, match="is not one of"):
            store.answer(code, new_browser_id(), "problem_quiz0", option)
    with pytest.raises(ClassError, match="not a question key"):
        store.open(code, key, "<script>", 3)
    with pytest.raises(ClassError, match="2 to 20 options"):
        store.open(code, key, "problem_quiz0", 1)
    assert store.snapshot(code).counts == (0, 0, 0)


def test_answers_from_many_threads_at_once_are_all_counted(make):
    """12 threads at once through a pool of 3 connections: every answer counted, never more than 3 connections
    (Streamlit runs each rerun in a new thread: a connection per thread would grow without bound)."""
    store = make(pool=3)
    code, key = store.start()
    store.open(code, key, "problem_quiz0", 4)
    browsers = ids(60)
    errors: list[Exception] = []
    start = threading.Barrier(12)

    def student(chunk: list[str]) -> None:
        start.wait()
        for i, b in enumerate(chunk):
            try:
                store.answer(code, b, "problem_quiz0", i % 4)
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

    threads = [threading.Thread(target=student, args=(browsers[i::12],)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    snap = store.snapshot(code)
    assert snap.answered == 60 and snap.students == 60 and sum(snap.counts) == 60
    assert 1 <= store._opened <= 3


def test_settings_choose_the_backend(tmp_path):
    assert database_url({}) is None
    assert database_url({"DATABASE_URL": "postgresql://x/y"}) == "postgresql://x/y"
    assert database_url({"DATABASE_URL": "a", "EVALSTATS_DATABASE_URL": "b"}) == "b"
    assert default_path({}).parts[-2:] == ("class_data", "classes.sqlite3")
    target = tmp_path / "mine.sqlite3"
    store = open_store({"EVALSTATS_CLASS_DB": str(target)}, max_students=5)
    try:
        assert store.backend == "sqlite" and store.max_students == 5 and target.is_file()
        code, _ = store.start()
        with sqlite3.connect(target) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("SELECT code FROM classes").fetchall() == [(code,)]
    finally:
        store.close()
    assert BROWSER_RE.match(new_browser_id())
    with pytest.raises(ClassError, match="either a SQLite path or a PostgreSQL url"):
        ClassStore()
    with pytest.raises(ClassError, match="must be positive"):
        ClassStore(path=tmp_path / "x.sqlite3", max_students=0)
    (tmp_path / "a_folder.sqlite3").mkdir()  # a path that cannot be opened as a database file
    with pytest.raises(ClassError, match="cannot be reached"):
        ClassStore(path=tmp_path / "a_folder.sqlite3")
