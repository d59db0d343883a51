"""A live class under load (issue 43): 300 students answer one question within 10 s (prints).

    .venv/bin/python bench/bench_live_class.py [--students 300] [--seconds 10] [--seed 0] [--no-server] [--no-postgres]
                                               [--before]

Four runs, each bounded (at most 1,000 students, 60 s):

1. **One server, SQLite.** A teacher starts a class and opens a question; each student (a thread, as Streamlit runs
   each session's script in one) reads the class every 2 s (its phone's page: every 3 s) and answers once at a random
   moment within ``--seconds`` (seeded); a presenter thread reads the counts every second (the lesson plan's
   panel: twice a second). Printed: answers sent, counted, lost (must be 0; every count per option is checked against what was
   sent), the time from an answer's commit to the presenter's first count that includes it (median, 99th
   percentile, max: the screen must show it within 2 s), and the time each answer took.
2. **Two app servers sharing PostgreSQL.** The same on a throwaway local PostgreSQL (tests/_postgres.py): two
   processes, each with its own store, take half the students each; the presenter reads through a third store.
   Skipped, with the reason, where Debian's PostgreSQL binaries are absent.
3. **One real app server, end to end.** ``streamlit run app.py`` on 127.0.0.1 (a free port), a class started in its
   SQLite file, then ``--students`` phones open ``class?code=...`` over Streamlit's own WebSocket protocol
   (bench/class_capacity.py's client; a Chromium per student would eat the cores being measured), in waves of 50.
   Each phone then does what its browser does: reruns the page's fragment every ``STUDENT_EVERY`` s
   (``is_auto_rerun``; evalstats_app.live_class) and answers once within ``--seconds`` (the radio's value in a
   fragment rerun, so the page's own callback writes it). The presenter is a tab too: the lesson plan in presenter
   mode resumes the class (code and key typed, the button pressed) and reruns its counts fragment every
   ``PRESENTER_EVERY`` s.
   Printed: acks, answers counted and lost, the delay from each ack to the presenter's tab drawing it (the end of
   the first of its reruns that counts it), how long an answer's, a poll's and the presenter's rerun took, the server's CPU, and its resident memory before and after the phones arrived (per student).
4. **Two real app servers sharing PostgreSQL, end to end.** Run 3 with two ``streamlit run`` processes on one
   throwaway PostgreSQL (``EVALSTATS_DATABASE_URL``), the phones taking the two servers in turn; the teacher's
   store and the presenter's reads go to the same database. CPU and memory are the two servers' sums.

``--before`` first runs 3 and 4 with Streamlit's full garbage collection after every rerun
(``STREAMLIT_RUNNER_POST_SCRIPT_GC=true``), as the app servers ran until .streamlit/config.toml switched it off,
then as they run now: the before and after of one bench run, on the same machine load.
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
    # the agreed start, or now if this process took longer than that to start (a loaded machine)
    start = max(time.perf_counter() + (start_wall - time.time()), time.perf_counter() + 0.2)
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
    start_wall = time.time() + (1.0 if servers == 1 else 8.0)  # spawned processes import the store first
    seen: list = []
    presenter = threading.Thread(target=_presenter, args=(teacher, code, start_wall + seconds + 20.0, seen))
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


def one_server(n: int, seconds: float, seed: int, url: str | None = None, servers: int = 1,
               gc_after_rerun: bool = False) -> None:
    """Runs 3 and 4: ``n`` phones on ``servers`` real app servers answer through Streamlit itself, within
    ``seconds``; the servers share the PostgreSQL database ``url`` (None: one SQLite file). ``gc_after_rerun``:
    the servers run Streamlit's full garbage collection after every rerun, as before .streamlit/config.toml
    switched it off (``runner.postScriptGC``)."""
    from class_capacity import Session, _start_server  # a Streamlit server and its WebSocket client
    from load_sessions import _rss_mb
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from evalstats_app.live_class import (  # streamlit: kept out of the PostgreSQL run's processes
        PRESENTER_EVERY,
        STUDENT_EVERY,
        class_questions,
    )

    folder = tempfile.mkdtemp(prefix="evalstats-class-bench-")
    os.environ["EVALSTATS_CLASS_DB"] = f"{folder}/classes.sqlite3"
    os.environ.pop("DATABASE_URL", None)
    if url is None:
        os.environ.pop("EVALSTATS_DATABASE_URL", None)
    else:
        os.environ["EVALSTATS_DATABASE_URL"] = url  # the app servers' store (started with this environment)
    teacher = ClassStore(path=f"{folder}/classes.sqlite3") if url is None else ClassStore(url=url)
    code, key = teacher.start()
    teacher.open(code, key, QUESTION, OPTIONS)
    os.environ["STREAMLIT_RUNNER_POST_SCRIPT_GC"] = "true" if gc_after_rerun else "false"  # beats config.toml
    try:
        started = [_start_server() for _ in range(servers)]
    finally:
        os.environ.pop("STREAMLIT_RUNNER_POST_SCRIPT_GC")
    pids = [srv.pid for srv, _ in started]

    class Phone(Session):
        """A phone's tab: loads class?code=, then reruns the page's fragment every STUDENT_EVERY s and answers once."""

        fragment = ""
        radio = ""
        options: list[str] = []

        async def connect(self) -> None:
            import websockets

            # no keepalive pings: on a busy shared machine a late pong would close a socket the bench is measuring
            self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/_stcore/stream",
                                               subprotocols=["streamlit"], max_size=None, open_timeout=120,
                                               ping_interval=None)

        async def send(self, *, fragment: bool = False, auto: bool = False, answer: str | None = None) -> float:
            """One rerun (the page, or its fragment); seconds until the script finished."""
            msg = BackMsg()
            msg.rerun_script.query_string = f"code={code}"
            msg.rerun_script.page_name = "class"
            if fragment:
                msg.rerun_script.fragment_id = self.fragment
                msg.rerun_script.is_auto_rerun = auto
            if answer is not None:
                widget = msg.rerun_script.widget_states.widgets.add()
                widget.id, widget.string_value = self.radio, answer
            t0 = time.perf_counter()
            await self.ws.send(msg.SerializeToString())
            while True:
                fwd = ForwardMsg.FromString(await asyncio.wait_for(self.ws.recv(), 300))
                kind = fwd.WhichOneof("type")
                if kind == "auto_rerun":
                    self.fragment = fwd.auto_rerun.fragment_id
                elif kind == "delta" and fwd.delta.new_element.WhichOneof("type") == "radio":
                    self.radio, self.options = fwd.delta.new_element.radio.id, list(fwd.delta.new_element.radio.options)
                elif kind == "delta" and fwd.delta.new_element.WhichOneof("type") == "exception":
                    raise RuntimeError(fwd.delta.new_element.exception.message)
                elif kind == "script_finished":
                    return time.perf_counter() - t0

    class Presenter(Phone):
        """The teacher's tab on the first server: the lesson plan in presenter mode resumes the class with its code and
        key (the widgets by key, the button's trigger), then reruns its counts fragment every ``PRESENTER_EVERY`` s as
        the browser does (its ``run_every``); each rerun's "**N** answered" is what the projector shows when it finishes."""

        async def run(self, widgets: dict[str, object] | None = None, *, fragment: bool = False) -> int | None:
            msg = BackMsg()
            msg.rerun_script.query_string = "present=1"
            msg.rerun_script.page_name = "teach"
            if fragment:
                msg.rerun_script.fragment_id, msg.rerun_script.is_auto_rerun = self.fragment, True
            for key, value in (widgets or {}).items():
                w = msg.rerun_script.widget_states.widgets.add()
                w.id = self.ids[key]
                if value is True:
                    w.trigger_value = True
                else:
                    w.string_value = str(value)
            await self.ws.send(msg.SerializeToString())
            shown = None
            while True:
                fwd = ForwardMsg.FromString(await asyncio.wait_for(self.ws.recv(), 300))
                kind = fwd.WhichOneof("type")
                if kind == "auto_rerun" and abs(fwd.auto_rerun.interval - PRESENTER_EVERY) < 1e-9:
                    self.fragment = fwd.auto_rerun.fragment_id
                elif kind == "delta":
                    element = fwd.delta.new_element
                    which = element.WhichOneof("type")
                    if which == "exception":
                        raise RuntimeError(element.exception.message)
                    widget_id = getattr(getattr(element, which), "id", "") if which else ""
                    for key in ("teach_class_resume_code", "teach_class_resume_key", "teach_class_resume"):
                        if isinstance(widget_id, str) and widget_id.endswith(f"-{key}"):
                            self.ids[key] = widget_id
                    if which == "markdown" and " answered · " in element.markdown.body:
                        shown = int(element.markdown.body.split("**")[1])
                elif kind == "script_finished":
                    return shown

    async def measure() -> dict:
        teacher_tab = Presenter(started[0][1], random.Random(seed))
        teacher_tab.ids = {}
        await teacher_tab.connect()
        await teacher_tab.run()
        await teacher_tab.run({"teach_class_resume_code": code, "teach_class_resume_key": key,
                               "teach_class_resume": True})
        if not teacher_tab.fragment or await teacher_tab.run(fragment=True) != 0:
            raise SystemExit("the presenter's tab did not resume the class")
        for _, port in started:
            warm = Phone(port, random.Random(seed))
            await warm.connect()
            await warm.send()
            await warm.ws.close()
        await asyncio.sleep(2)
        rss0 = sum(_rss_mb(pid) for pid in pids)
        rng = random.Random(seed)
        phones = [Phone(started[i % servers][1], random.Random(seed + i)) for i in range(n)]  # in turn
        t0 = time.perf_counter()
        loads = []
        for i in range(0, n, 50):  # a class arriving in waves of 50 phones, not one burst of sockets
            wave = phones[i:i + 50]
            await asyncio.gather(*(p.connect() for p in wave))
            loads += await asyncio.gather(*(p.send() for p in wave))
        arrived = time.perf_counter() - t0
        rss1 = sum(_rss_mb(pid) for pid in pids)
        picks = [rng.randrange(OPTIONS) for _ in phones]
        text = class_questions()[QUESTION].options
        acks: list[float] = []
        taps: dict[float, float] = {}  # ack time -> when that phone sent its answer
        answer_runs: list[float] = []
        polls: list[float] = []
        failures: list[str] = []
        start = time.perf_counter()

        async def phone(p: Phone, pick: int) -> None:
            at = start + rng.uniform(0, seconds)
            answered = False
            next_poll = start + rng.uniform(0, STUDENT_EVERY)
            while time.perf_counter() < start + seconds + 2.0 or not answered:
                now = time.perf_counter()
                try:
                    if not answered and now >= at:
                        tapped = time.time()
                        answer_runs.append(await p.send(fragment=True, answer=text[pick]))
                        acks.append(time.time())
                        taps[acks[-1]] = tapped
                        answered = True
                    elif now >= next_poll:
                        polls.append(await p.send(fragment=True, auto=True))
                        next_poll = now + STUDENT_EVERY
                except Exception as exc:  # noqa: BLE001 - counted and printed: a lost answer
                    failures.append(repr(exc)[:160])
                    answered = True
                await asyncio.sleep(max(0.0, min(next_poll, at if not answered else next_poll) - time.perf_counter()))

        seen: list = []  # (wall time a presenter's rerun finished, the count it drew)
        stop = [False]
        presenter_runs: list[float] = []

        async def presenter() -> None:
            while not stop[0]:
                t0 = time.perf_counter()
                shown = await teacher_tab.run(fragment=True)
                presenter_runs.append(time.perf_counter() - t0)
                seen.append((time.time(), -1 if shown is None else shown))
                await asyncio.sleep(max(0.0, PRESENTER_EVERY - (time.perf_counter() - t0)))

        projector = asyncio.ensure_future(presenter())
        cpu0 = sum(_cpu(pid) for pid in pids)
        await asyncio.gather(*(phone(p, k) for p, k in zip(phones, picks, strict=True)))
        cpu = sum(_cpu(pid) for pid in pids) - cpu0
        wall = time.perf_counter() - start
        while not seen or seen[-1][1] < len(acks):  # until the projector has drawn every answer (or 60 s)
            if time.perf_counter() - start > wall + 60:
                break
            await asyncio.sleep(0.5)
        stop[0] = True
        await projector
        await asyncio.gather(*(p.ws.close() for p in [*phones, teacher_tab]))
        want = [picks.count(k) for k in range(OPTIONS)]
        return {"rss": (rss0, rss1), "arrived": arrived, "loads": sorted(loads), "acks": acks, "seen": seen,
                "answer_runs": sorted(answer_runs), "polls": sorted(polls), "failures": failures, "want": want,
                "cpu": cpu, "wall": wall, "presenter_runs": sorted(presenter_runs), "taps": taps}

    try:
        r = asyncio.run(measure())
        rss0, rss1 = r["rss"]
        snap = teacher.snapshot(code)
        waits = _visible_after(r["acks"], r["seen"])
        where = "one app server (SQLite)" if url is None else f"{servers} app servers sharing PostgreSQL"
        where += ", a full garbage collection after every rerun (as before)" if gc_after_rerun else ""
        print(f"{where}, {n} phones answering through Streamlit within {seconds:g} s: {len(r['acks'])} acks, "
              f"{snap.answered} counted, {len(r['acks']) - snap.answered} lost, {len(r['failures'])} failures"
              f"{': ' + r['failures'][0] if r['failures'] else ''}; counts {list(snap.counts)} "
              f"{'=' if list(snap.counts) == r['want'] else '!='} picked {r['want']}")
        if waits:
            runs = r["presenter_runs"]
            acked = sorted(r["acks"])
            tapped = [a + w - r["taps"][a] for a, w in zip(acked, waits, strict=True)]
            print(f"    from a phone's answer sent to the presenter's tab drawing it: median "
                  f"{statistics.median(tapped):.2f} s, max {max(tapped):.2f} s "
                  f"({sum(t <= 2.0 for t in tapped)} of {len(tapped)} within 2 s)")
            print(f"    the presenter's tab (its fragment rerun every {PRESENTER_EVERY:g} s through the server) draws an answer after the "
                  f"phone's ack: median {statistics.median(waits):.2f} s, max {max(waits):.2f} s "
                  f"({sum(w <= 2.0 for w in waits)} of {len(waits)} within 2 s); its rerun took median "
                  f"{statistics.median(runs):.2f} s, max {runs[-1]:.2f} s")
        if r["answer_runs"] and r["polls"]:
            print(f"    an answer's rerun: median {statistics.median(r['answer_runs']):.2f} s, max "
                  f"{r['answer_runs'][-1]:.2f} s; a {STUDENT_EVERY:g}-second poll's rerun: median {statistics.median(r['polls']):.2f} s, "
                  f"90th percentile {r['polls'][int(0.9 * (len(r['polls']) - 1))]:.2f} s ({len(r['polls'])} polls)")
        print(f"    server CPU {r['cpu']:.1f} s over {r['wall']:.1f} s ({100 * r['cpu'] / r['wall']:.0f}% of a core), "
              f"{1000 * r['cpu'] / (len(r['answer_runs']) + len(r['polls'])):.1f} ms a rerun; "
              f"{r['arrived']:.1f} s until every phone showed the question (in waves of 50); server RSS "
              f"{rss0:.0f} MB -> {rss1:.0f} MB with the phones = {1024 * (rss1 - rss0) / n:.0f} KB per student")
    finally:
        for server, _ in started:
            os.killpg(server.pid, signal.SIGTERM)
        for server, _ in started:
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        teacher.close()


def _cpu(pid: int) -> float:
    from class_capacity import _cpu_seconds

    return _cpu_seconds(pid)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--students", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-server", action="store_true", help="skip the memory run on a real app server")
    ap.add_argument("--no-postgres", action="store_true", help="skip the two servers on PostgreSQL")
    ap.add_argument("--before", action="store_true", help="first the app servers as they were: Streamlit's full "
                    "garbage collection after every rerun (runner.postScriptGC)")
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
    for gc_after_rerun in (True, False) if opts.before else (False,):
        if opts.no_server:
            break
        one_server(opts.students, opts.seconds, opts.seed, gc_after_rerun=gc_after_rerun)
        if not opts.no_postgres and not _postgres.missing():
            with _postgres.local_postgres() as url:
                one_server(opts.students, opts.seconds, opts.seed, url=url, servers=2, gc_after_rerun=gc_after_rerun)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
