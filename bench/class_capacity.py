"""Class capacity: N concurrent sessions on the chapters and the workbench against one local server (prints).

    .venv/bin/python bench/class_capacity.py [--sessions 1 10 30] [--seconds 40] [--think 3] [--mix sliders]

``--mix sliders`` (issue 44.4): the sessions move the main slider of chapters 2b, 3, 7 and 9 through ten values a
class shares, each computed once before the class starts; it prints the latency per chapter and the server's CPU
seconds per step (what one more student costs, whatever else the machine runs).

For each N a fresh ``streamlit run app.py`` starts on 127.0.0.1 (a free port; loopback only) and N
sessions connect over Streamlit's own WebSocket protocol (what a browser tab sends, without a browser:
a Chromium per simulated student would eat the cores being measured; bench/load_sessions.py drives
real browsers). Each session opens chapter 1 and the workbench once, then, until the time is up, does an
action and "thinks" for ``--think`` seconds (uniform 0.5x-1.5x): half the actions are a chapter-1 setting
change that the cache has not seen (new n and seed: a 2,000-replication simulation and its chart), half
a workbench change (an example file and a confidence level; the file's analysis is cached across
sessions as in the app). The time from the request to the server's "script finished" is one
action's latency. It prints per N: actions, latency median and 90th percentile, the server's CPU
(percent of one core), its CPU seconds per action (what a class costs, whatever else the machine runs)
and its resident memory before and after the sessions connected (memory per session). Bounded: at
most 100 sessions and 300 s per N; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_sessions import _rss_mb  # noqa: E402  (server + children resident memory, MB)

EXAMPLES = ("atlas_breeze", "multilingual", "synthetic")
#: ``--mix sliders``: each chapter's main slider and the ten values a class moves it through.
SLIDERS = {
    "small_n": ("one_model_acc", tuple(round(0.5 + 0.05 * i, 2) for i in range(10))),
    "clustering": ("clustering_icc", tuple(round(0.05 * i, 2) for i in range(10))),
    "power": ("power_power", tuple(round(0.5 + 0.05 * i, 2) for i in range(10))),
    "judge": ("judge_sens", tuple(round(0.9 + 0.01 * i, 2) for i in range(10))),
}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start_server() -> tuple[subprocess.Popen, int]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                               "--server.address", "127.0.0.1", "--server.headless", "true",
                               "--browser.gatherUsageStats", "false"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    for _ in range(120):
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return server, port
        except OSError:
            time.sleep(0.5)
    os.killpg(server.pid, signal.SIGKILL)
    raise SystemExit("the server did not start")


class Session:
    """One browser tab, spoken to in Streamlit's protocol: rerun a page with a query string, await the end."""

    def __init__(self, port: int, rng: random.Random) -> None:
        self.port, self.rng, self.ws = port, rng, None

    async def connect(self) -> None:
        import websockets

        self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
                                           max_size=None, open_timeout=60)

    async def run(self, page: str, query: str) -> float:
        """Rerun ``page`` with ``query``; seconds until the script finished (raises on an exception shown)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            fwd = ForwardMsg.FromString(await asyncio.wait_for(self.ws.recv(), 120))
            if fwd.WhichOneof("type") == "delta" and fwd.delta.new_element.WhichOneof("type") == "exception":
                raise RuntimeError(f"{page}?{query}: {fwd.delta.new_element.exception.message}")
            if fwd.WhichOneof("type") == "script_finished":
                return time.perf_counter() - t0

    def chapter(self) -> tuple[str, str]:
        n, seed = self.rng.randint(20, 1000), self.rng.randint(0, 2**31 - 1)
        return "problem", f"problem_n={n}&problem_seed={seed}&problem_errorbars=true&problem_reveal=true"

    def slider(self) -> tuple[str, str]:
        """A chapter's main slider set to one of the values a class tries (issue 44.4: the class shares them)."""
        page = self.rng.choice(tuple(SLIDERS))
        key, values = SLIDERS[page]
        return page, f"{key}={self.rng.choice(values)}"

    def workbench(self) -> tuple[str, str]:
        conf = self.rng.choice((0.9, 0.95, 0.99))
        return "analyze", f"analyze_example={self.rng.choice(EXAMPLES)}&analyze_confidence={conf}"


async def _measure(n: int, seconds: float, think: float, seed: int, mix: str = "problem") -> dict:
    server, port = _start_server()
    try:
        warm = Session(port, random.Random(seed))
        await warm.connect()
        for example in EXAMPLES:  # the app's caches as a class finds them after the first student
            await warm.run("analyze", f"analyze_example={example}")
        await warm.run(*warm.chapter())
        if mix == "sliders":  # every shared setting computed once, as the class finds them after the first student
            for page, (key, values) in SLIDERS.items():
                for value in values:
                    await warm.run(page, f"{key}={value}")
        await warm.ws.close()
        await asyncio.sleep(2)
        rss0 = _rss_mb(server.pid)
        sessions = [Session(port, random.Random(seed * 1000 + i)) for i in range(n)]
        await asyncio.gather(*(s.connect() for s in sessions))
        if mix == "sliders":
            await asyncio.gather(*(s.run(*s.slider()) for s in sessions))  # each opens a chapter
        else:
            await asyncio.gather(*(s.run(*s.chapter()) for s in sessions))  # each opens a chapter and the workbench
            await asyncio.gather(*(s.run(*s.workbench()) for s in sessions))
        rss1 = _rss_mb(server.pid)
        latencies: dict[str, list[float]] = {"problem": [], "analyze": []} if mix == "problem" else \
            {page: [] for page in SLIDERS}
        failures = 0
        deadline = time.perf_counter() + seconds
        cpu0, wall0, mine0 = _cpu_seconds(server.pid), time.perf_counter(), time.process_time()

        async def loop(s: Session, i: int) -> None:
            nonlocal failures
            await asyncio.sleep(s.rng.uniform(0, think))  # students do not click in step
            while time.perf_counter() < deadline:
                if mix == "sliders":
                    page, query = s.slider()
                else:
                    page, query = s.chapter() if i % 2 == 0 else s.workbench()
                try:
                    latencies[page].append(await s.run(page, query))
                except Exception as exc:  # noqa: BLE001 - counted and shown, the load goes on
                    failures += 1
                    print("  failure:", type(exc).__name__, str(exc)[:160])
                i += 1
                await asyncio.sleep(s.rng.uniform(0.5 * think, 1.5 * think))

        await asyncio.gather(*(loop(s, i) for i, s in enumerate(sessions)))
        wall = time.perf_counter() - wall0
        cpu = (_cpu_seconds(server.pid) - cpu0) / wall
        client = (time.process_time() - mine0) / wall
        rss2 = _rss_mb(server.pid)
        await asyncio.gather(*(s.ws.close() for s in sessions))
        return {"n": n, "lat": latencies, "wall": wall, "failures": failures, "cpu": cpu, "client": client, "rss": (rss0, rss1, rss2)}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--think", type=float, default=3.0, help="mean seconds between a session's actions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mix", choices=("problem", "sliders"), default="problem",
                    help="problem: chapter-1 simulations never seen and workbench changes (default); sliders: "
                         "chapters 2b, 3, 7 and 9 with their main slider at one of ten values a class shares, each "
                         "computed once before the class starts (the shared cache)")
    opts = ap.parse_args()
    if max(opts.sessions) > 100 or opts.seconds > 300:
        raise SystemExit("bounded: at most 100 sessions and 300 s")
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f} at the start; think time {opts.think} s, "
          f"{opts.seconds:.0f} s per N")
    for n in opts.sessions:
        r = asyncio.run(_measure(n, opts.seconds, opts.think, opts.seed, opts.mix))
        lat = r["lat"]
        rss0, rss1, rss2 = r["rss"]
        if opts.mix == "sliders":
            every = [x for xs in lat.values() for x in xs]
            per_page = ", ".join(f"{page} {_quantile(xs, .5):.2f}/{_quantile(xs, .9):.2f} s" for page, xs in lat.items())
            print(f"N={n:3d}: {len(every)} slider steps, latency median {_quantile(every, .5):.2f} s / p90 "
                  f"{_quantile(every, .9):.2f} s ({per_page}), server CPU {100 * r['cpu']:.0f}% of a core, "
                  f"{r['cpu'] * r['wall'] / max(1, len(every)):.3f} CPU s per step, RSS {rss0:.0f} -> {rss2:.0f} MB, "
                  f"{r['failures']} failures")
            continue
        print(f"N={n:3d}: {len(lat['problem'])} chapter + {len(lat['analyze'])} workbench actions, "
              f"chapter latency median {_quantile(lat['problem'], .5):.2f} s / p90 {_quantile(lat['problem'], .9):.2f} s, "
              f"workbench median {_quantile(lat['analyze'], .5):.2f} s / p90 {_quantile(lat['analyze'], .9):.2f} s, "
              f"server CPU {100 * r['cpu']:.0f}% of a core (this client {100 * r['client']:.0f}%), "
              f"{r['cpu'] * r['wall'] / max(1, len(lat['problem']) + len(lat['analyze'])):.2f} CPU s per action, RSS {rss0:.0f} MB warm -> {rss1:.0f} MB with the "
              f"sessions ({(rss1 - rss0) / n:.1f} MB per session) -> {rss2:.0f} MB at the end, "
              f"{r['failures']} failures")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
