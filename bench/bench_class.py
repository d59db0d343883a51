"""A class on one server: N sessions moving a chapter's slider, the server CPU each step costs (issue 44.4).

One process plays the server: ``--students`` sessions (one AppTest each, opened through ``app.py`` as a
visitor is) on each chapter, all sharing the process's caches as the tabs of one Streamlit server do. In
``--steps`` rounds every student moves the chapter's first slider (or ``--control``) to a value drawn, seeded,
from a pool of ``--values`` values of its grid, as a class does when the teacher says "try a few values". Each
step's cost is the process CPU time (``time.process_time``: the script thread's work, not the wall clock,
so other load on a shared machine does not count) of the rerun. A step is *first* when no session of the class
had that value before (the simulation runs), else *shared* (another session computed it: what most of a
class's steps cost once the caches hold the chapter's settings).

Reference, in the same process: the same step on a trivial page (one slider, one line of text). Ratios to it
compare across machines.

The last lines estimate one server process's capacity: a 2-core server gives at most about 2 CPU-seconds a
second to one process's Python (one interpreter runs one script thread at a time, so in practice nearer 1):
``1 / mean CPU per step`` steps a second, i.e. that many students moving a slider once a second.

    .venv/bin/python bench/bench_class.py --students 20 --steps 4 --pages small_n clustering power judge

Not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.chdir(ROOT)

from _timing import one_blas_thread  # noqa: E402

one_blas_thread()

from bench_pages import TRIVIAL, _quiet, first_control, open_page  # noqa: E402


def step_cpu(at, kind: str, key: str, value) -> float:
    """Process CPU seconds of one rerun after moving ``key`` to ``value``."""
    start = time.process_time()
    getattr(at, kind)(key=key).set_value(value).run()
    return time.process_time() - start


def class_run(sessions: list, kind: str, key: str, pool: list, steps: int, rng: random.Random) -> tuple[list, list]:
    """Every session moves ``key`` ``steps`` times; (CPU of steps first at their value, CPU of shared steps)."""
    seen: set = set()
    first, shared = [], []
    for _ in range(steps):
        for at in sessions:
            current = getattr(at, kind)(key=key).value
            value = rng.choice([v for v in pool if v != current] or pool)
            cost = step_cpu(at, kind, key, value)
            (shared if repr(value) in seen else first).append(cost)
            seen.add(repr(value))
            if len(at.exception):
                raise RuntimeError(f"{key}: page raised " + "; ".join(e.value for e in at.exception))
    return first, shared


def reference(steps: int) -> float:
    """Median CPU of a step on the trivial page."""
    from streamlit.testing.v1 import AppTest

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(TRIVIAL)
    try:
        at = AppTest.from_file(fh.name, default_timeout=60)
        at.run()
        costs = [step_cpu(at, "slider", "ref_x", v) for v in range(1, steps + 1)]
    finally:
        os.unlink(fh.name)
    return statistics.median(costs)


def _ms(values: list) -> str:
    if not values:
        return f"{'-':>8} {'-':>8}"
    p90 = sorted(values)[min(len(values) - 1, int(0.9 * len(values)))]
    return f"{statistics.median(values) * 1000:>8.1f} {p90 * 1000:>8.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20, help="sessions per chapter (default 20)")
    parser.add_argument("--steps", type=int, default=4, help="moves per student (default 4)")
    parser.add_argument("--values", type=int, default=10, help="values the class picks from (default 10)")
    parser.add_argument("--pages", nargs="*", default=["small_n", "clustering", "power", "judge"],
                        help="chapter slugs (default: small_n clustering power judge)")
    parser.add_argument("--control", action="append", default=[],
                        help="SLUG=KEY: the slider to move on a page (default: its first slider)")
    parser.add_argument("--seed", type=int, default=44)
    args = parser.parse_args(argv)
    _quiet()
    from evalstats_app.chapters import page_by_slug

    chosen = dict(c.split("=", 1) for c in args.control)
    ref = reference(20)
    print(f"reference (trivial page, one slider): {ref * 1000:.1f} ms CPU a step")
    print(f"{args.students} students x {args.steps} moves on each page, values from a pool of {args.values}\n")
    header = (f"{'page':<11} {'control':<22} {'first: median':>13} {'p90':>8} {'n':>4}   "
              f"{'shared: median':>14} {'p90':>8} {'n':>4}   {'all: mean ms':>12}")
    print(header)
    print("-" * len(header))
    rng = random.Random(args.seed)
    for slug in args.pages:
        page = page_by_slug(slug)
        sessions = [open_page(page.path) for _ in range(args.students)]
        control = first_control(sessions[0])
        if control is None:
            print(f"{slug:<11} (no slider)")
            continue
        kind, key, values = control
        if slug in chosen:
            key = chosen[slug]
            kind, _, values = first_control_of(sessions[0], key)
        pool = values[:: max(1, len(values) // args.values)][: args.values]
        first, shared = class_run(sessions, kind, key, pool, args.steps, rng)
        every = first + shared
        mean = sum(every) / len(every)
        print(f"{slug:<11} {key:<22} {_ms(first):>22} {len(first):>4}   {_ms(shared):>23} {len(shared):>4}   "
              f"{mean * 1000:>12.1f}")
        print(f"{'':<11} one process: about {1 / mean:.0f} steps a second of CPU "
              f"(shared steps alone: {1 / statistics.mean(shared):.0f})" if shared else "")
        del sessions
    return 0


def first_control_of(at, key: str):
    """(kind, key, values) of the slider ``key`` (values as :func:`bench_pages.first_control` spreads them)."""
    for kind in ("slider", "select_slider", "number_input"):
        for w in getattr(at, kind):
            if w.key == key:
                proto = w.proto
                if kind == "select_slider":
                    return kind, key, list(w.options)
                lo, hi, step = float(proto.min), float(proto.max), float(proto.step) or 1.0
                count = int(round((hi - lo) / step)) + 1
                grid = [round(lo + i * step, 10) for i in range(0, count, max(1, count // 40))]
                if isinstance(w.value, int):
                    grid = [int(v) for v in grid]
                return kind, key, grid
    raise SystemExit(f"no slider or number input with key {key!r}")


if __name__ == "__main__":
    raise SystemExit(main())
