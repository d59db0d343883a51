"""How the command line's process allocates memory before it reads a large file (private; issue 25).

glibc's malloc raises its mmap threshold each time a large block is freed (up to 32 MB), so that after the
first freed temporary, arrays of a few MB come from the heap, where freed ones leave holes that a process
reading a 3e6-row file never gives back; and pyarrow's own allocator (mimalloc) keeps the pages it freed for
its next use, which numpy's arrays cannot take. Measured on a 3e6-row long file, the two together were ~80 MB
of the command line's ~355 MB peak. :func:`tune_for` fixes the threshold (blocks of 1 MB and more are mapped
and unmapped on their own, so freed memory goes back at once) and gives pyarrow the same system allocator.
It is called by the command line only (a process it owns), for files of 1 MB or more, and only where glibc's
``mallopt`` is there (Linux); a library that imports evalstats is never changed behind its back.

:func:`give_back` is the server's (the workbench calls it every :data:`GIVE_BACK_SECONDS`): freed memory that glibc's
heap and pyarrow's pool keep for their next use is handed back to the system, so a session's uploads leave the
server's resident memory once the session has ended and its caches are cleared (issue 46; the figures are in
``bench/results/session_memory_issue46.txt``).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable

__all__ = ["tune_for", "LARGE", "give_back", "GIVE_BACK_SECONDS"]

#: How often the workbench's server hands freed memory back (seconds): a trim of a heap of a few hundred MB costs
#: milliseconds, and an ended session's memory is back within this time.
GIVE_BACK_SECONDS = 30.0

#: Files at least this large (bytes) get the tuned allocator (a Parquet file of 1 MB can hold 1e6 rows).
LARGE = 1 << 20

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter: setting it also stops the dynamic adjustment
_THRESHOLD = 1 << 20
_done: list[bool] = []


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def tune_for(paths: Iterable[str]) -> bool:
    """Before a large file is read: fix glibc's mmap threshold and make pyarrow allocate through it. Returns
    whether the allocator is tuned (False off Linux, without glibc's ``mallopt``, or for small files)."""
    if _done:
        return _done[0]
    if not sys.platform.startswith("linux") or not any(_size(p) >= LARGE for p in paths):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
        ok = bool(mallopt(_M_MMAP_THRESHOLD, _THRESHOLD))  # 1 on success (musl's stub returns 0)
    except (OSError, AttributeError):
        ok = False
    if ok:
        import pyarrow as pa  # heavy: a large file only

        pa.set_memory_pool(pa.system_memory_pool())
    _done.append(ok)
    return ok


def give_back() -> bool:
    """Hand freed memory back to the system: pyarrow's pool releases what it keeps (``release_unused``) and glibc
    trims every arena (``malloc_trim(0)``). Returns whether glibc's trim ran (False off Linux or without it).
    Nothing alive is touched; the next allocation simply asks the system again."""
    pa = sys.modules.get("pyarrow")  # None: nothing read through Arrow yet
    if pa is not None:
        pa.default_memory_pool().release_unused()
    if not sys.platform.startswith("linux"):
        return False
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # musl and other libcs have no malloc_trim
        return False
    return True
