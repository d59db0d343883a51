"""Timers shared by the scripts in ``bench/`` (import as ``from _timing import ...``: a script's own folder
is first on ``sys.path``).

* :func:`best`: the fastest of ``repeat`` calls (wall clock unless told).
* :func:`best_pair`: two functions called alternately, so that load from other processes on a shared
  machine falls on both alike, after one warm-up round.
* :func:`one_blas_thread`: BLAS on one thread, for process-CPU-time comparisons (call before numpy is
  imported).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Fastest time of ``repeat`` calls of ``fn`` (seconds on ``clock``), no warm-up."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def best_pair(fn: Callable[[], object], ref: Callable[[], object] | None, repeat: int,
              clock: Callable[[], float] = time.process_time,
              fresh: Callable[[], object] | None = None) -> tuple[float, float]:
    """Fastest times of ``fn`` and ``ref`` (``ref`` may be None: then ``inf``) over ``repeat`` rounds in which
    each is called once, alternately, after one warm-up round (seconds on ``clock``).

    ``fresh``, when given, runs before every call, untimed: it empties whatever the code under test keeps
    across calls, so that each timed call costs what a file seen for the first time costs."""
    times = [math.inf, math.inf]
    for i in range(repeat + 1):
        for j, f in enumerate((fn, ref)):
            if f is None:
                continue
            if fresh is not None:
                fresh()
            start = clock()
            f()
            if i:  # the first round is a warm-up
                times[j] = min(times[j], clock() - start)
    return times[0], times[1]


def one_blas_thread() -> None:
    """Run BLAS (OpenBLAS, MKL, OpenMP) on one thread unless the environment already says otherwise.

    A threaded BLAS call (``np.dot`` of 1e6 floats) leaves its worker threads spinning for a while after it
    returns, and process CPU time counts that spinning against whatever runs next: measured on this machine,
    the same ``compare`` took 4.3 ms of CPU with one BLAS thread and 24.5 ms with two, its bound 3.0 and
    5.8 ms. Must run before numpy is imported.
    """
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(name, "1")
