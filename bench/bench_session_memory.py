"""Server memory a workbench session keeps while it reads files and after it ends (issue 46.8).

One process: the workbench (AppTest through app.py) reads ``--uploads`` CSV files one after the other (one
visitor's repeated uploads; the session holds at most ``workbench_reading.session_cap()`` bytes of files, and a
file past it releases the earlier readings), then the session ends as Streamlit ends it (its session-scoped caches
cleared, what ``AppSession.shutdown`` does when a tab closes, and its fragments dropped with the session: their
closures hold the last run's files and reading, and AppTest would keep them alive), then freed memory is handed back as the server does
every 30 s (``_memory.give_back``: pyarrow's ``release_unused``, glibc's ``malloc_trim(0)``). Prints the resident
memory (``/proc/self/statm``) at each step and, from glibc's ``mallinfo2``, how much of the heap is in use
(live allocations) and how much is free but kept; ``--trace`` adds the largest Python allocations still alive
after the session (tracemalloc; slow, use it with ``--rows 1000000``).

    .venv/bin/python bench/bench_session_memory.py --rows 3000000              # three ~40 MB files
    .venv/bin/python bench/bench_session_memory.py --rows 3000000 --uploads 6  # up to the 200 MB cap and past it
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import re
import sys
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]


def heap() -> str:
    """glibc's view: bytes in use (heap + mmapped blocks) and bytes free but kept in its arenas."""
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return "no mallinfo2"
    fn.restype = _Mallinfo2
    m = fn()
    return (f"malloc in use {(m.uordblks + m.hblkhd) / 2**20:.0f} MB (mmapped {m.hblkhd / 2**20:.0f}), "
            f"free in arenas {m.fordblks / 2**20:.0f} MB")


def pymalloc() -> str:
    """Python's own small-object allocator: its arenas (1 MB each, mmapped, outside glibc's figures) in use."""
    with tempfile.TemporaryFile() as tmp:  # sys._debugmallocstats writes to the C-level stderr
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", "replace")
    found = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", text)
    return f"pymalloc arenas {int(found.group(1).replace(',', ''))} MB" if found else "pymalloc arenas ?"


def rss() -> float:
    """Resident memory of this process in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def results_file(rows: int, k: int, rng: np.random.Generator) -> bytes:
    q = np.repeat(np.arange(rows // 4), 4)
    m = np.tile(np.array(["A", "B", "C", "D"]), rows // 4)
    s = (rng.random(q.size) < 0.6).astype(int)
    return ("question,model,score\n" + "".join(f"q{k}_{a},{b},{c}\n" for a, b, c in zip(q, m, s, strict=True))).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--uploads", type=int, default=3)
    ap.add_argument("--trace", action="store_true", help="tracemalloc's largest live allocations after the session")
    args = ap.parse_args()
    import pyarrow as pa
    from streamlit.runtime.caching import cache_data_api, cache_resource_api
    from streamlit.runtime.fragment import MemoryFragmentStorage
    from streamlit.testing.v1 import AppTest

    from evalstats_app.workbench import INJECT_KEY
    from evalstats_app.workbench_reading import HELD_KEY, session_cap
    from evalstats_core._memory import give_back

    rng = np.random.default_rng(46)
    files = [results_file(args.rows, k, rng) for k in range(args.uploads)]
    size = sum(len(f) for f in files) / 2**20
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    at.switch_page("pages/analyze.py")
    at.run()
    give_back()
    base = rss() - size  # the files' bytes are the visitor's, not the server's: counted out
    print(f"{args.uploads} files, {size:.0f} MB in all (cap {session_cap() / 2**20:.0f} MB a session); "
          f"server after the page's first run: {base:.0f} MB ({heap()}; {pymalloc()})")
    if args.trace:
        tracemalloc.start(40)
        before = tracemalloc.take_snapshot()
    for i, data in enumerate(files):
        at.session_state[INJECT_KEY] = {"name": f"r{i}.csv", "data": data}
        at.run()
        held = sum(at.session_state[HELD_KEY].values()) / 2**20 if HELD_KEY in at.session_state else 0
        print(f"after upload {i + 1}: +{rss() - size - base:.0f} MB (the session holds {held:.0f} MB of files; "
              f"{len(at.error)} error(s))")
    del files, data
    sessions = {k for k in cache_data_api._data_caches._function_caches if k is not None}
    sessions |= {k for k in cache_resource_api._resource_caches._function_caches if k is not None}
    for sid in sessions:  # what Streamlit does when the session ends (AppSession.clear_session_caches)
        cache_data_api.clear_session_cache(sid)
        cache_resource_api.clear_session_cache(sid)
    del at
    for storage in [o for o in gc.get_objects() if isinstance(o, MemoryFragmentStorage)]:
        storage.clear()  # a server drops the session's fragments with its AppSession; AppTest keeps them alive
    gc.collect()
    print(f"after the session ends (its caches cleared, gc): +{rss() - base:.0f} MB "
          f"(pyarrow still holds {pa.total_allocated_bytes() / 2**20:.0f} MB; {heap()}; {pymalloc()})")
    give_back()  # what the workbench's server does every GIVE_BACK_SECONDS (shell._memory_returner)
    print(f"after give_back() (pyarrow release_unused, glibc malloc_trim(0)): +{rss() - base:.0f} MB ({heap()}; "
          f"{pymalloc()})")
    if args.trace:
        stats = tracemalloc.take_snapshot().compare_to(before, "traceback")
        live = sum(s.size_diff for s in stats)
        print(f"Python allocations made during the session and still alive: {live / 2**20:.1f} MB; the largest:")
        for s in stats[:8]:
            print(f"  {s.size_diff / 2**20:7.2f} MB in {s.count_diff:+,} blocks  " + " <- ".join(
                f"{Path(f.filename).name}:{f.lineno}" for f in s.traceback[:40]))


if __name__ == "__main__":
    main()
