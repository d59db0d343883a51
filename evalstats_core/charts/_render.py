"""Render a Vega-Lite spec with vl-convert without ever taking the process down.

vl-convert runs V8, which aborts the whole process (not a Python exception) when it cannot reserve its
heap, as happens under an address-space cap (``ulimit -v``, a container's ``RLIMIT_AS``): the first SVG
export then killed the app's server. Under such a cap :func:`render` draws in a child process, so a
failure ends the child and comes back as an :class:`~evalstats_core.errors.EvalStatsError` with a message;
without a cap it draws in-process (fast).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from ..errors import EvalStatsError

__all__ = ["render", "capped"]

_CHILD = """
import sys, json, vl_convert as vlc
job = json.loads(sys.stdin.buffer.read())
out = vlc.vegalite_to_svg(job["spec"]).encode() if job["kind"] == "svg" else vlc.vegalite_to_png(job["spec"], scale=job["scale"])
sys.stdout.buffer.write(out)
"""


def capped() -> bool:
    """True when this process runs under an address-space limit (where V8 may abort it)."""
    try:
        import resource  # optional: POSIX only
    except ImportError:  # not POSIX
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return soft != resource.RLIM_INFINITY


def render(spec: dict, kind: str = "svg", *, scale: float = 2.0, isolate: bool | None = None) -> Any:
    """The SVG text (``kind="svg"``) or PNG bytes (``"png"``) of ``spec``; in a child process when
    ``isolate`` (default: when :func:`capped`), where a renderer crash is a message, not a dead server."""
    if not (capped() if isolate is None else isolate):
        import vl_convert as vlc  # optional dependency (the app's extra), heavy

        return vlc.vegalite_to_svg(spec) if kind == "svg" else vlc.vegalite_to_png(spec, scale=scale)
    job = json.dumps({"spec": spec, "kind": kind, "scale": scale}).encode()
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD], input=job, capture_output=True, timeout=120,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EvalStatsError(f"the chart could not be drawn here ({type(exc).__name__}); the table and the "
                             "report downloads still work") from None
    if proc.returncode != 0:
        raise EvalStatsError("the chart could not be drawn here: the renderer ran out of memory under this "
                             "server's memory limit; the table and the report downloads still work")
    return proc.stdout.decode("utf-8") if kind == "svg" else proc.stdout
