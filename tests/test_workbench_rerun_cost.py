"""What a control change in the workbench costs the server, counted rather than timed (issue 25: a new value
at 1e7 rows drawn in 0.5 s; the times themselves are ``bench/bench_workbench_browser.py``'s).

The project's server configuration turns off Streamlit's full garbage collection after every rerun
(``runner.postScriptGC``: it walked every object the imports left, about 0.1 s of CPU a rerun; issue 43 measured
it under a class), and the page's once-per-server set-up (:func:`evalstats_app.workbench.warm_up`) keeps BLAS on
one thread, so the analysis's dot products over the clusters never wait for a second one."""

from __future__ import annotations

import threading
import tomllib
from pathlib import Path

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


def test_the_server_runs_no_full_collection_after_every_rerun():
    with open(Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml", "rb") as fh:
        config = tomllib.load(fh)
    assert config["runner"]["postScriptGC"] is False, config.get("runner")


def test_blas_runs_on_one_thread_in_the_server():
    from threadpoolctl import threadpool_info

    _warmed()
    blas = [p for p in threadpool_info() if p["user_api"] == "blas"]
    assert blas and all(p["num_threads"] == 1 for p in blas), blas


BY_SCOPE = ("evalstats_app.workbench", "evalstats_app.workbench_charts", "evalstats_app.workbench_sections",
            "evalstats_app.workbench_reading")


def test_a_new_confidence_level_hashes_cheap_cache_keys(monkeypatch):
    """The workbench's caches (:func:`evalstats_app.workbench.by_scope`) get every argument by name and hash the
    reading options by their repr: Streamlit never looks up a positional argument's name (``inspect.signature``
    per argument and call) nor walks the options through ``__reduce__``."""
    import importlib
    import inspect

    from streamlit.runtime.caching import cache_utils

    from evalstats_core.reading import ReadingOptions

    at = _warmed()
    # the functions by_scope wraps (each carries its two caches, .shared and .private); a module such as shell,
    # whose st.cache_resource helper is also named shared (issue 44.4), is not one
    scoped = {f.__qualname__ for m in BY_SCOPE for f in vars(importlib.import_module(m)).values()
              if inspect.isfunction(f) and hasattr(f, "shared") and hasattr(f, "private")}
    assert {"_analyze", "_extras", "_chart_spec", "_plan", "_why", "_prepare"} <= scoped, scoped
    lookups, reduced = [], []
    positional = cache_utils._get_positional_arg_name

    def counted_lookup(func, index):
        if getattr(func, "__qualname__", "").removesuffix("_shared") in scoped:
            lookups.append((func.__qualname__, index))
        return positional(func, index)

    def counted_reduce(self):
        reduced.append(self)
        return object.__reduce__(self)

    monkeypatch.setattr(cache_utils, "_get_positional_arg_name", counted_lookup)
    monkeypatch.setattr(ReadingOptions, "__reduce__", counted_reduce, raising=False)
    at.select_slider(key="analyze_confidence").set_value(0.9).run()
    no_exceptions(at)
    assert at.session_state["analyze_confidence"] == 0.9
    assert not lookups, sorted(set(lookups))
    assert not reduced, len(reduced)
