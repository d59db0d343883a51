"""The live class's store: classes, the question on screen and the students' answers, in SQLite or PostgreSQL.

A teacher starts a class (:meth:`ClassStore.start`) and gets a short class code, which students type or scan,
and a teacher key, which only the teacher's browser holds (the store keeps its SHA-256, never the key). Every
change to a class (open, close, reveal or reset a question, export, delete) needs the key; answering needs
only the code and a random per-browser id (never a name). Nothing a student sends is text: an answer is an
option's index into a question the app owns, so nothing a student types ever reaches another screen.

Bounds, each a keyword of :class:`ClassStore` (defaults in brackets):

- ``max_students`` browsers a class [300]: the next one is refused with a message saying the class is full;
- one answer per browser per question: a second answer replaces the first while the question is open
  (one row; the count never doubles), and nothing is accepted once it is closed;
- ``rate`` writes per browser per ``window`` seconds [20 per 60 s]: more are refused;
- a class ends ``hours`` after it starts [3]: then it takes no answer and no change, and
  :meth:`ClassStore.purge` (run at every start) deletes classes that ended more than ``keep_hours`` ago [24].

Where the rows live: SQLite (the standard library's ``sqlite3``, WAL mode, so readers never wait for the
writer) in ``class_data/classes.sqlite3`` beside the app, or the file ``EVALSTATS_CLASS_DB`` names; PostgreSQL
when ``EVALSTATS_DATABASE_URL`` (or ``DATABASE_URL``) names one, so several app servers behind one address share
a class. The SQL is the same on both (``INSERT .. ON CONFLICT``, ``RETURNING``); every write is one transaction,
so a server that restarts loses no answer that was acknowledged. :func:`open_store` reads the settings.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import os
import queue
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from evalstats_core.errors import EvalStatsError
from evalstats_core.escape import csv_safe

from .chapters import ROOT

__all__ = ["ClassError", "ClassStore", "Snapshot", "CODE_RE", "BROWSER_RE", "QUESTION_RE", "database_url",
           "default_path", "open_store", "new_browser_id"]

#: Class codes: 5 characters from 31 that cannot be misread on a projector (no 0/O, 1/I/L), about 2.9e7 codes.
_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
CODE_RE = re.compile(rf"^[{_ALPHABET}]{{{CODE_LENGTH}}}$")
#: A browser's id: 16 hex digits drawn by :func:`new_browser_id` (64 random bits).
BROWSER_RE = re.compile(r"^[0-9a-f]{16}$")
#: A question's key: the app's own (``problem_quiz0``, ``teach_ask_step3``), never a student's text.
QUESTION_RE = re.compile(r"^[a-z][a-z0-9_]{0,60}$")
STATES = ("open", "closed", "revealed")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS classes (
        code TEXT PRIMARY KEY, teacher_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL, max_students INTEGER NOT NULL,
        question TEXT, state TEXT NOT NULL DEFAULT 'closed', options INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE IF NOT EXISTS students (
        code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE, browser TEXT NOT NULL,
        joined DOUBLE PRECISION NOT NULL, window_start DOUBLE PRECISION NOT NULL, hits INTEGER NOT NULL,
        PRIMARY KEY (code, browser))""",
    """CREATE TABLE IF NOT EXISTS answers (
        code TEXT NOT NULL REFERENCES classes(code) ON DELETE CASCADE, question TEXT NOT NULL,
        browser TEXT NOT NULL, option INTEGER NOT NULL, at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, question, browser))""",
)


class ClassError(EvalStatsError):
    """A class action that cannot be done: the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a class's screens show at one moment.

    code: the class code; question: the key of the question on screen (None before the first);
    state: "open" (answers taken), "closed" or "revealed" (the right answer shown);
    counts: answers per option index, ``len == options`` of the question on screen;
    answered: browsers that answered it; students: browsers that joined the class;
    expires: the class's end (seconds since the epoch); ended: whether that time has passed.
    """

    code: str
    question: str | None
    state: str
    counts: tuple[int, ...]
    answered: int
    students: int
    expires: float
    ended: bool


def new_browser_id() -> str:
    """A random id for one browser (16 hex digits); it names no one."""
    return secrets.token_hex(8)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def database_url(environ: dict[str, str] | None = None) -> str | None:
    """The PostgreSQL address the settings name (``EVALSTATS_DATABASE_URL``, else ``DATABASE_URL``), or None."""
    env = os.environ if environ is None else environ
    url = env.get("EVALSTATS_DATABASE_URL") or env.get("DATABASE_URL")
    return url or None


def default_path(environ: dict[str, str] | None = None) -> Path:
    """The SQLite file: ``EVALSTATS_CLASS_DB``, else ``class_data/classes.sqlite3`` beside the app (git-ignored)."""
    env = os.environ if environ is None else environ
    return Path(env["EVALSTATS_CLASS_DB"]) if env.get("EVALSTATS_CLASS_DB") else ROOT / "class_data" / "classes.sqlite3"


def open_store(environ: dict[str, str] | None = None, **bounds) -> ClassStore:
    """The store the settings name: PostgreSQL when a database address is set, else SQLite (:func:`default_path`)."""
    url = database_url(environ)
    return ClassStore(url=url, **bounds) if url else ClassStore(path=default_path(environ), **bounds)


class ClassStore:
    """Classes and their answers in one SQLite file (``path``) or one PostgreSQL database (``url``).

    Thread-safe: a pool of at most ``pool`` connections serves every thread (Streamlit runs each session's
    script in a thread). ``clock`` (seconds since the epoch) is for tests of expiry and rate limits.
    """

    def __init__(self, *, path: str | Path | None = None, url: str | None = None, max_students: int = 300,
                 rate: int = 20, window: float = 60.0, hours: float = 3.0, keep_hours: float = 24.0,
                 pool: int = 8, clock: Callable[[], float] = time.time) -> None:
        if (path is None) == (url is None):
            raise ClassError("a class store needs either a SQLite path or a PostgreSQL url (one of them)")
        if max_students < 1 or rate < 1 or window <= 0 or hours <= 0 or keep_hours < 0 or pool < 1:
            raise ClassError(f"the class bounds must be positive (max_students={max_students}, rate={rate}, "
                             f"window={window}, hours={hours}, keep_hours={keep_hours}, pool={pool})")
        self.path = None if path is None else Path(path)
        self.url = url
        self.max_students, self.rate, self.window = int(max_students), int(rate), float(window)
        self.hours, self.keep_hours, self.clock = float(hours), float(keep_hours), clock
        self.pool = int(pool)
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        self._opened = 0
        self._lock = threading.Lock()
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._write() as cur:
            if self.url is not None:  # two app servers starting at once create the tables once
                cur.run("SELECT pg_advisory_xact_lock(4343)")
            for statement in _SCHEMA:
                cur.run(statement)

    @property
    def backend(self) -> str:
        return "sqlite" if self.url is None else "postgresql"

    # ------------------------------------------------------------------ connections and transactions
    def _connect(self):
        if self.url is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a committed answer survives the app's crash
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            return conn
        import psycopg  # optional dependency (PostgreSQL), imported only when a database address is set
        return psycopg.connect(self.url, autocommit=True)

    @contextmanager
    def _borrow(self) -> Iterator:
        """A connection from the pool (at most ``pool`` open; a thread waits for a free one).

        Streamlit runs each rerun in a new thread, so a connection per thread would grow with every rerun; the
        pool keeps the count fixed (PostgreSQL's max_connections is shared by every app server)."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            with self._lock:
                fresh = self._opened < self.pool
                self._opened += fresh
            try:
                conn = self._connect() if fresh else self._idle.get(timeout=60)
            except Exception as exc:  # noqa: BLE001 - sqlite3's or psycopg's own errors: one message for the pages
                if fresh:
                    with self._lock:
                        self._opened -= 1
                where = self.path if self.url is None else "the PostgreSQL database (EVALSTATS_DATABASE_URL)"
                raise ClassError(f"the class store cannot be reached ({where}: {type(exc).__name__}); check the "
                                 "setting and that the folder is writable") from exc
        try:
            yield conn
        finally:
            if getattr(conn, "closed", False):  # a PostgreSQL connection the server dropped: open a new one later
                with self._lock:
                    self._opened -= 1
            else:
                self._idle.put(conn)

    def _sql(self, statement: str) -> str:
        return statement if self.url is None else statement.replace("?", "%s")

    @contextmanager
    def _write(self) -> Iterator[_Cursor]:
        """One write transaction (SQLite: BEGIN IMMEDIATE, so writers queue instead of failing to upgrade)."""
        with self._borrow() as conn:
            if self.url is None:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield _Cursor(self, conn.cursor())
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            else:
                with conn.transaction(), conn.cursor() as cur:
                    yield _Cursor(self, cur)

    @contextmanager
    def _read(self) -> Iterator[_Cursor]:
        with self._borrow() as conn:
            if self.url is None:
                yield _Cursor(self, conn.cursor())
            else:
                with conn.cursor() as cur:
                    yield _Cursor(self, cur)

    def close(self) -> None:
        """Close the pool's idle connections (a store is closed when its process or its test ends)."""
        while True:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                break
            with self._lock:
                self._opened -= 1
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - a connection already gone is closed
                pass

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _code(code: object) -> str:
        text = code.strip().upper() if isinstance(code, str) else ""
        if not CODE_RE.match(text):
            raise ClassError(f"{str(code)[:20]!r} is not a class code: a code is {CODE_LENGTH} letters and digits, "
                             "as on the teacher's screen")
        return text

    def _class(self, cur: _Cursor, code: str, *, lock: bool = False) -> tuple:
        row = cur.one("SELECT code, teacher_hash, expires, max_students, question, state, options FROM classes "
                      "WHERE code = ?" + (" FOR UPDATE" if lock and self.url is not None else ""), (code,))
        if row is None:
            raise ClassError(f"there is no class {code}: check the code on the teacher's screen")
        return row

    def _teacher(self, cur: _Cursor, code: str, key: object, *, lock: bool = False) -> tuple:
        row = self._class(cur, code, lock=lock)
        if not isinstance(key, str) or not hmac.compare_digest(row[1], _hash(key)):
            raise ClassError(f"only the teacher who started class {code} can do that (the teacher key does not match)")
        return row

    def _running(self, row: tuple) -> None:
        if self.clock() >= row[2]:
            raise ClassError(f"class {row[0]} has ended (classes end {self.hours:g} hours after they start); "
                             "start a new one")

    # ------------------------------------------------------------------ the teacher's actions
    def start(self) -> tuple[str, str]:
        """Start a class: ``(code, teacher_key)``. The key is shown once; the store keeps only its hash."""
        self.purge()
        key = secrets.token_urlsafe(24)
        now = self.clock()
        for _ in range(20):
            code = "".join(secrets.choice(_ALPHABET) for _ in range(CODE_LENGTH))
            with self._write() as cur:
                if cur.one("SELECT 1 FROM classes WHERE code = ?", (code,)) is None:
                    cur.run("INSERT INTO classes (code, teacher_hash, created, expires, max_students) "
                            "VALUES (?, ?, ?, ?, ?)", (code, _hash(key), now, now + self.hours * 3600,
                                                       self.max_students))
                    return code, key
        raise ClassError("could not find a free class code after 20 tries; delete old classes and start again")

    def open(self, code: str, key: str, question: str, options: int) -> None:
        """Put ``question`` (with ``options`` options) on the students' screens and take answers to it.

        Answers given earlier to the same question in this class stay (reopening resumes it); :meth:`reset`
        clears them.
        """
        code = self._code(code)
        if not isinstance(question, str) or not QUESTION_RE.match(question):
            raise ClassError(f"{str(question)[:40]!r} is not a question key of the app")
        if not isinstance(options, int) or not 2 <= options <= 20:
            raise ClassError(f"a class question needs 2 to 20 options, not {options!r}")
        with self._write() as cur:
            self._running(self._teacher(cur, code, key))
            cur.run("UPDATE classes SET question = ?, state = 'open', options = ? WHERE code = ?",
                    (question, options, code))

    def _set_state(self, code: str, key: str, state: str) -> None:
        code = self._code(code)
        with self._write() as cur:
            row = self._teacher(cur, code, key)
            self._running(row)
            if row[4] is None:
                raise ClassError(f"class {code} has no question on screen yet: open one first")
            cur.run("UPDATE classes SET state = ? WHERE code = ?", (state, code))

    def close_question(self, code: str, key: str) -> None:
        """Stop taking answers to the question on screen (the counts stay)."""
        self._set_state(code, key, "closed")

    def reveal(self, code: str, key: str) -> None:
        """Show the right answer and the explanation on every screen (answers are no longer taken)."""
        self._set_state(code, key, "revealed")

    def reset(self, code: str, key: str) -> None:
        """Forget every answer to the question on screen and take answers to it again."""
        code = self._code(code)
        with self._write() as cur:
            row = self._teacher(cur, code, key)
            self._running(row)
            if row[4] is None:
                raise ClassError(f"class {code} has no question on screen yet: open one first")
            cur.run("DELETE FROM answers WHERE code = ? AND question = ?", (code, row[4]))
            cur.run("UPDATE classes SET state = 'open' WHERE code = ?", (code,))

    def delete(self, code: str, key: str) -> None:
        """Delete the class, its students and every answer (the class code stops working)."""
        code = self._code(code)
        with self._write() as cur:
            self._teacher(cur, code, key)
            for table in ("answers", "students", "classes"):
                cur.run(f"DELETE FROM {table} WHERE code = ?", (code,))  # noqa: S608 - table names are ours

    def purge(self) -> int:
        """Delete the classes that ended more than ``keep_hours`` ago (and their answers); how many went."""
        cutoff = self.clock() - self.keep_hours * 3600
        with self._write() as cur:
            gone = [r[0] for r in cur.all("SELECT code FROM classes WHERE expires < ?", (cutoff,))]
            for code in gone:
                for table in ("answers", "students", "classes"):
                    cur.run(f"DELETE FROM {table} WHERE code = ?", (code,))  # noqa: S608 - table names are ours
        return len(gone)

    def answers(self, code: str, key: str) -> list[tuple[str, str, int, float]]:
        """Every answer of the class (teacher only): ``(question, browser, option, seconds since the epoch)``."""
        code = self._code(code)
        with self._read() as cur:
            self._teacher(cur, code, key)
            return [(q, b, int(o), float(t)) for q, b, o, t in
                    cur.all("SELECT question, browser, option, at FROM answers WHERE code = ? "
                            "ORDER BY question, at, browser", (code,))]

    def export_csv(self, code: str, key: str, labels: Callable[[str, int], tuple[str, str]] | None = None) -> str:
        """The class's answers as CSV, one row per answer (teacher only).

        Columns: class, question, question_text, option, option_text, browser, answered_at (UTC, ISO 8601).
        ``labels(question, option)`` gives the question's and the option's words (the app's own text); every
        text cell is neutralised for spreadsheets (:func:`evalstats_core.escape.csv_safe`).
        """
        rows = self.answers(code, key)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["class", "question", "question_text", "option", "option_text", "browser", "answered_at"])
        for question, browser, option, at in rows:
            q_text, o_text = labels(question, option) if labels else ("", "")
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
            writer.writerow([csv_safe(c) for c in (self._code(code), question, q_text, option, o_text, browser, stamp)])
        return out.getvalue()

    # ------------------------------------------------------------------ the students' side
    def answer(self, code: str, browser: str, question: str, option: int) -> None:
        """Record ``browser``'s answer ``option`` to ``question``; it replaces the browser's earlier answer to it.

        Refused (:class:`ClassError`) when the class is unknown, ended or full, the question is not the one open,
        the option is out of range, or the browser wrote more than ``rate`` times in ``window`` seconds.
        """
        code = self._code(code)
        if not isinstance(browser, str) or not BROWSER_RE.match(browser):
            raise ClassError("this browser's class id is malformed: reload the class page")
        now = self.clock()
        with self._write() as cur:
            row = self._class(cur, code)
            self._running(row)
            if row[4] != question or row[5] != "open":
                raise ClassError("that question is not open any more: your screen will show the current one")
            if not isinstance(option, int) or isinstance(option, bool) or not 0 <= option < row[6]:
                raise ClassError(f"option {option!r} is not one of the question's {row[6]} options")
            hits = cur.one("UPDATE students SET hits = CASE WHEN ? - window_start >= ? THEN 1 ELSE hits + 1 END, "
                           "window_start = CASE WHEN ? - window_start >= ? THEN ? ELSE window_start END "
                           "WHERE code = ? AND browser = ? RETURNING hits",
                           (now, self.window, now, self.window, now, code, browser))
            if hits is None:  # a new browser: join, under the class's row lock (PostgreSQL) or the write lock (SQLite)
                self._class(cur, code, lock=True)
                joined = cur.one("SELECT COUNT(*) FROM students WHERE code = ?", (code,))[0]
                if joined >= row[3]:
                    raise ClassError(f"class {code} is full ({row[3]} students); ask the teacher")
                cur.run("INSERT INTO students (code, browser, joined, window_start, hits) VALUES (?, ?, ?, ?, 1)",
                        (code, browser, now, now))
            elif hits[0] > self.rate:
                raise ClassError(f"too many answers from this browser: wait {self.window:g} seconds and try again")
            cur.run("INSERT INTO answers (code, question, browser, option, at) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (code, question, browser) DO UPDATE SET option = excluded.option, at = excluded.at",
                    (code, question, browser, option, now))

    def my_answer(self, code: str, browser: str, question: str) -> int | None:
        """The option ``browser`` gave to ``question`` (None when it has not answered)."""
        code = self._code(code)
        with self._read() as cur:
            row = cur.one("SELECT option FROM answers WHERE code = ? AND question = ? AND browser = ?",
                          (code, question, browser))
        return None if row is None else int(row[0])

    def snapshot(self, code: str) -> Snapshot:
        """The question on screen, its state and its counts per option (anyone with the code: counts only)."""
        code = self._code(code)
        with self._read() as cur:
            row = cur.one("SELECT code, expires, question, state, options, "
                          "(SELECT COUNT(*) FROM students s WHERE s.code = c.code) FROM classes c WHERE code = ?",
                          (code,))
            if row is None:
                raise ClassError(f"there is no class {code}: check the code on the teacher's screen")
            _, expires, question, state, options, students = row
            counts = [0] * int(options)
            if question is not None:
                for option, n in cur.all("SELECT option, COUNT(*) FROM answers WHERE code = ? AND question = ? "
                                         "GROUP BY option", (code, question)):
                    if 0 <= option < len(counts):
                        counts[option] = int(n)
        return Snapshot(code, question, state, tuple(counts), sum(counts), int(students), float(expires),
                        self.clock() >= expires)

    def check_teacher(self, code: str, key: str) -> None:
        """Raise :class:`ClassError` unless ``key`` is the teacher key of class ``code``."""
        code = self._code(code)
        with self._read() as cur:
            self._teacher(cur, code, key)


class _Cursor:
    """A cursor that speaks one SQL dialect: ``?`` placeholders, turned into ``%s`` for psycopg."""

    __slots__ = ("_store", "_cur")

    def __init__(self, store: ClassStore, cur) -> None:
        self._store, self._cur = store, cur

    def run(self, statement: str, params: Sequence = ()) -> None:
        self._cur.execute(self._store._sql(statement), tuple(params))

    def one(self, statement: str, params: Sequence = ()) -> tuple | None:
        self.run(statement, params)
        return self._cur.fetchone()

    def all(self, statement: str, params: Sequence = ()) -> list[tuple]:
        self.run(statement, params)
        return self._cur.fetchall()
