"""What a control change in the workbench costs the server, counted rather than timed (issue 25: a new value
at 1e7 rows drawn in 0.5 s; the times themselves are ``bench/bench_workbench_browser.py``'s).

The page's once-per-server set-up (:func:`evalstats_app.workbench.warm_up`) freezes the heap its imports
leave, so Streamlit's full garbage collection after every rerun walks only what was made since, and keeps
BLAS on one thread, so the analysis's dot products over the clusters never wait for a second one."""

from __future__ import annotations

import gc
import threading

from conftest import no_exceptions, run_page

PAGE = "pages/analyze.py"


def _warmed():
    """The workbench opened once and its background set-up finished."""
    at = run_page(PAGE)
    no_exceptions(at)
    for thread in threading.enumerate():
        if thread.name == "evalstats-warm-imports":
            thread.join(timeout=120)
    return at


def test_the_collection_after_a_rerun_walks_only_what_was_made_since_the_set_up():
    _warmed()
    assert gc.get_freeze_count() > 0, "the heap left by the imports is walked by every post-rerun collection"
    walked = len(gc.get_objects())  # what gc.collect(2) walks after every script run
    assert walked < gc.get_freeze_count(), (walked, gc.get_freeze_count())


def test_blas_runs_on_one_thread_in_the_server():
    from threadpoolctl import threadpool_info

    _warmed()
    blas = [p for p in threadpool_info() if p["user_api"] == "blas"]
    assert blas and all(p["num_threads"] == 1 for p in blas), blas
