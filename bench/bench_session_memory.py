"""Server memory a workbench session keeps after it ends (issue 46.8).

One process: the workbench (AppTest through app.py) reads three uploaded CSV files one after the other, then the
session ends as Streamlit ends it (its session-scoped caches cleared, what ``AppSession.shutdown`` does when a
tab closes), then freed memory is handed back as the server does every 30 s (``_memory.give_back``: pyarrow's
``release_unused``, glibc's ``malloc_trim(0)``). Prints the resident memory (``/proc/self/statm``) at each step.

    .venv/bin/python bench/bench_session_memory.py --rows 3000000     # three ~40 MB files
"""

from __future__ import annotations

import argparse
import gc
import os
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


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
    args = ap.parse_args()
    import pyarrow as pa
    from streamlit.runtime.caching import cache_data_api, cache_resource_api
    from streamlit.testing.v1 import AppTest

    from evalstats_app.workbench import INJECT_KEY
    from evalstats_core._memory import give_back

    rng = np.random.default_rng(46)
    files = [results_file(args.rows, k, rng) for k in range(3)]
    size = sum(len(f) for f in files) / 2**20
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.switch_page("pages/analyze.py")
    at.run()
    base = rss() - size  # the files' bytes are the visitor's, not the server's: counted out
    print(f"three files, {size:.0f} MB in all; server after the page's first run: {base:.0f} MB")
    for i, data in enumerate(files):
        at.session_state[INJECT_KEY] = {"name": f"r{i}.csv", "data": data}
        at.run()
        print(f"after upload {i + 1}: +{rss() - size - base:.0f} MB")
    del files, data
    sessions = {k for k in cache_data_api._data_caches._function_caches if k is not None}
    sessions |= {k for k in cache_resource_api._resource_caches._function_caches if k is not None}
    for sid in sessions:  # what Streamlit does when the session ends (AppSession.clear_session_caches)
        cache_data_api.clear_session_cache(sid)
        cache_resource_api.clear_session_cache(sid)
    del at
    gc.collect()
    print(f"after the session ends (its caches cleared, gc): +{rss() - base:.0f} MB "
          f"(pyarrow still holds {pa.total_allocated_bytes() / 2**20:.0f} MB)")
    give_back()  # what the workbench's server does every GIVE_BACK_SECONDS (shell._memory_returner)
    print(f"after give_back() (pyarrow release_unused, glibc malloc_trim(0)): +{rss() - base:.0f} MB")


if __name__ == "__main__":
    main()
