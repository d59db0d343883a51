"""A live class under load (issue 43): 300 students answer one question within 10 s (prints).

    .venv/bin/python bench/bench_live_class.py [--students 300] [--seconds 10] [--seed 0] [--no-server] [--no-postgres]

Three runs, each bounded (at most 1,000 students, 60 s):

1. **One server, SQLite.** A teacher starts a class and opens a question; each student (a thread, as Streamlit runs
   each session's script in one) reads the class every 2 s, as the phone's page does, and answers once at a random
   moment within ``--seconds`` (seeded); a presenter thread reads the counts every second, as the lesson plan's
   panel does. Printed: answers sent, counted, lost (must be 0; every count per option is checked against what was
   sent), the time from an answer's commit to the presenter's first count that includes it (median, 99th
   percentile, max: the screen must show it within 2 s), and the time each answer took.
2. **Two app servers sharing PostgreSQL.** The same on a throwaway local PostgreSQL (tests/_postgres.py): two
   processes, each with its own store, take half the students each; the presenter reads through a third store.
   Skipped, with the reason, where Debian's PostgreSQL binaries are absent.
3. **Memory per student on a real app server.** ``streamlit run app.py`` on 127.0.0.1 (a free port), a class
   started in its SQLite file, then ``--students`` sessions open ``class?code=...`` over Streamlit's own WebSocket
   protocol (bench/class_capacity.py's client; a Chromium per student would eat the cores being measured): the
   server's resident memory before and after, per student, and how long the phones took to show the question.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import _postgres  # noqa: E402  (the throwaway PostgreSQL cluster of the tests)

from evalstats_app.class_store import ClassStore, new_browser_id  # noqa: E402

QUESTION, OPTIONS = "problem_quiz0", 4


def _student(store: ClassStore, code: str, browser: str, option: int, at: float, stop: float,
             sent: list, errors: list) -> None:
    """One phone: read the class every 2 s (its page's fragment) and answer once at ``at`` (perf_counter)."""
    answered = False
    next_poll = time.perf_counter()
    while time.perf_counter() < stop:
        now = time.perf_counter()
        if not answered and now >= at:
            try:
                t0 = time.perf_counter()
                store.answer(code, browser, QUESTION, option)
                sent.append((option, time.perf_counter(), time.perf_counter() - t0))
            except Exception as exc:  # noqa: BLE001 - counted and printed: a lost answer
                errors.append(repr(exc))
            answered = True
        if now >= next_poll:
            store.snapshot(code)
            store.my_answer(code, browser, QUESTION)
            next_poll = now + 2.0
        wake = min(next_poll, stop) if answered else min(next_poll, at)
        time.sleep(max(0.0, wake - time.perf_counter()))


def _run_students(store: ClassStore, code: str, n: int, seconds: float, seed: int, start: float) -> tuple:
    rng = random.Random(seed)
    sent: list = []
    errors: list = []
    stop = start + seconds + 3.0
    threads = [threading.Thread(target=_student, daemon=True,
                                args=(store, code, new_browser_id(), rng.randrange(OPTIONS),
                                      start + rng.uniform(0, seconds), stop, sent, errors)) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sent, errors


def _server_half(where: dict, code: str, n: int, seconds: float, seed: int, start_wall: float, out) -> None:
    """A second app server (a process of its own) with its own store on the shared PostgreSQL."""
    store = ClassStore(**where)
    start = time.perf_counter() + (start_wall - time.time())
    sent, errors = _run_students(store, code, n, seconds, seed, start)
    wall_offset = time.time() - time.perf_counter()
    out.put(([(o, t + wall_offset, d) for o, t, d in sent], errors))
    store.close()


def _presenter(store: ClassStore, code: str, stop: float, seen: list) -> None:
    """The lesson plan's panel: the counts every second; (wall time, answered) per read."""
    while time.time() < stop:
        seen.append((time.time(), store.snapshot(code).answered))
        time.sleep(1.0)


def _visible_after(sent_wall: list[float], seen: list[tuple[float, int]]) -> list[float]:
    """For the k-th answer committed (in time order), the wait until the presenter first read >= k answers."""
    waits = []
    for k, t in enumerate(sorted(sent_wall), 1):
        first = next((s for s, count in seen if count >= k and s >= t), None)
        waits.append(float("inf") if first is None else first - t)
    return waits


def one_class(where: dict, label: str, n: int, seconds: float, seed: int, servers: int) -> None:
    teacher = ClassStore(**where, max_students=max(300, n))
    code, key = teacher.start()
    teacher.open(code, key, QUESTION, OPTIONS)
    start_wall = time.time() + 1.0
    seen: list = []
    presenter = threading.Thread(target=_presenter, args=(teacher, code, start_wall + seconds + 6.0, seen))
    presenter.start()
    if servers == 1:
        store = ClassStore(**where)
        sent, errors = _run_students(store, code, n, seconds, seed, time.perf_counter() + 1.0)
        offset = time.time() - time.perf_counter()
        sent = [(o, t + offset, d) for o, t, d in sent]
        store.close()
    else:
        queue = mp.get_context("spawn").Queue()
        halves = [mp.get_context("spawn").Process(target=_server_half, args=(where, code, n // servers, seconds,
                                                                             seed * 10 + i, start_wall, queue))
                  for i in range(servers)]
        for p in halves:
            p.start()
        sent, errors = [], []
        for _ in halves:
            s, e = queue.get(timeout=seconds + 120)
            sent += s
            errors += e
        for p in halves:
            p.join(30)
    presenter.join()
    snap = teacher.snapshot(code)
    want = [0] * OPTIONS
    for option, _, _ in sent:
        want[option] += 1
    lost = len(sent) - snap.answered
    waits = _visible_after([t for _, t, _ in sent], seen)
    took = sorted(d for _, _, d in sent)
    print(f"{label}: {len(sent)} answers sent by {n} students in {seconds:g} s, {snap.answered} counted, {lost} lost, "
          f"{len(errors)} refused{': ' + errors[0] if errors else ''}; counts per option {list(snap.counts)} "
          f"{'=' if list(snap.counts) == want else '!='} sent {want}")
    print(f"    presenter shows an answer after: median {statistics.median(waits):.2f} s, "
          f"99th percentile {sorted(waits)[int(0.99 * (len(waits) - 1))]:.2f} s, max {max(waits):.2f} s "
          f"(reads every 1 s; {sum(w <= 2.0 for w in waits)} of {len(waits)} within 2 s)")
    print(f"    one answer's write: median {1000 * statistics.median(took):.1f} ms, "
          f"max {1000 * took[-1]:.1f} ms")
    teacher.delete(code, key)
    teacher.close()


def memory_per_student(n: int, seed: int) -> None:
    from class_capacity import Session, _start_server  # a Streamlit server and its WebSocket client
    from load_sessions import _rss_mb

    folder = tempfile.mkdtemp(prefix="evalstats-class-bench-")
    os.environ["EVALSTATS_CLASS_DB"] = f"{folder}/classes.sqlite3"
    os.environ.pop("EVALSTATS_DATABASE_URL", None)
    os.environ.pop("DATABASE_URL", None)
    store = ClassStore(path=f"{folder}/classes.sqlite3")
    code, key = store.start()
    store.open(code, key, QUESTION, OPTIONS)
    server, port = _start_server()

    class Phone(Session):
        async def connect(self) -> None:
            import websockets

            # no keepalive pings: on a busy shared machine a late pong would close a socket the bench is measuring
            self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/_stcore/stream",
                                               subprotocols=["streamlit"], max_size=None, open_timeout=120,
                                               ping_interval=None)

    async def measure() -> tuple[float, float, list[float]]:
        warm = Phone(port, random.Random(seed))
        await warm.connect()
        await warm.run("class", f"code={code}")
        await warm.ws.close()
        await asyncio.sleep(2)
        rss0 = _rss_mb(server.pid)
        sessions = [Phone(port, random.Random(seed + i)) for i in range(n)]
        t0 = time.perf_counter()
        loads = []
        for i in range(0, n, 50):  # a class arriving in waves of 50 phones, not one burst of sockets
            wave = sessions[i:i + 50]
            await asyncio.gather(*(s.connect() for s in wave))
            loads += await asyncio.gather(*(s.run("class", f"code={code}") for s in wave))
        wall = time.perf_counter() - t0
        await asyncio.sleep(2)
        rss1 = _rss_mb(server.pid)
        await asyncio.gather(*(s.ws.close() for s in sessions))
        return rss0, rss1, [wall, *sorted(loads)]

    try:
        rss0, rss1, (wall, *loads) = asyncio.run(measure())
        print(f"one app server, {n} phones on class?code= (in waves of 50): {wall:.1f} s until every phone showed "
              f"the question (per page: median {statistics.median(loads):.2f} s, max {loads[-1]:.2f} s); server RSS {rss0:.0f} MB -> "
              f"{rss1:.0f} MB = {1024 * (rss1 - rss0) / n:.0f} KB per student")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--students", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-server", action="store_true", help="skip the memory run on a real app server")
    ap.add_argument("--no-postgres", action="store_true", help="skip the two servers on PostgreSQL")
    opts = ap.parse_args()
    if opts.students > 1000 or opts.seconds > 60:
        raise SystemExit("bounded: at most 1,000 students and 60 s")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; seed {opts.seed}")
    with tempfile.TemporaryDirectory() as folder:
        one_class({"path": Path(folder) / "classes.sqlite3"}, "one server, SQLite", opts.students, opts.seconds,
                  opts.seed, 1)
    if not opts.no_postgres:
        why = _postgres.missing()
        if why:
            print(f"two servers on PostgreSQL: skipped ({why})")
        else:
            with _postgres.local_postgres() as url:
                one_class({"url": url}, "two servers sharing PostgreSQL", opts.students, opts.seconds, opts.seed, 2)
    if not opts.no_server:
        memory_per_student(opts.students, opts.seed)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
