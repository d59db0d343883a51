"""How many of the project's modules a call passes through (issue 38, "followed call by call").

Two paths, each run once to warm the imports and then again under :func:`sys.setprofile`, which records the
module of every function frame of ``evalstats_core`` and ``evalstats_app`` that is entered (a module's own import
code is not a call, and the warm run has imported everything by then):

Two counts: every module entered, and the deepest chain (the one call stack holding the most distinct modules).

* **upload -> forest chart**: the workbench's steps for an uploaded CSV up to the forest plot of means, called as
  the page calls them without Streamlit's caches: ``ReadingOptions().prepare`` (the upload's bytes), ``file_sums``,
  ``analyze_sums`` with the page's default settings, the ranking, ``display.models_frame`` and the workbench's
  chart spec (``workbench_charts._build_spec("models", ...)`` and ``_arrow``). Target: at most 9 modules.
* **evalbars gate --margin**: ``cli.main(["gate", FILE, "--baseline", A, "--candidate", B, "--margin", "2pt"])``
  to its printed output. Target: at most 20 modules.

Run: ``python bench/call_paths.py`` (add ``--list`` to print each module with its number of calls).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGETS = {"upload -> forest chart": 9, "evalbars gate --margin": 20}


def _csv(rows: int = 10_000, models: int = 4, clusters: int = 50, seed: int = 38) -> bytes:
    """A long results CSV (question, model, score, cluster) of ``rows`` answer rows, 0/1 scores, seeded."""
    rng = np.random.default_rng(seed)
    n_q = rows // models
    cluster = rng.integers(0, clusters, n_q)
    lines = ["question,model,score,topic"]
    for m in range(models):
        right = rng.random(n_q) < 0.55 + 0.04 * m
        lines += [f"q{q},model-{m},{int(right[q])},t{cluster[q]}" for q in range(n_q)]
    return ("\n".join(lines) + "\n").encode()


def modules_called(fn: Callable[[], object]) -> tuple[Counter, list[str]]:
    """The project modules whose functions ``fn`` enters (module name -> calls), imports not counted, and the
    deepest chain: the call stack that holds the most distinct project modules at once (its modules, outermost
    first)."""
    seen: Counter = Counter()
    stack: list[str | None] = []
    deepest: list[str] = []

    def profile(frame, event, arg):  # noqa: ARG001 - sys.setprofile's signature
        nonlocal deepest
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            ours = name.split(".")[0] in ("evalstats_core", "evalstats_app") and frame.f_code.co_name != "<module>"
            stack.append(name if ours else None)
            if ours:
                seen[name] += 1
                chain = list(dict.fromkeys(m for m in stack if m))
                if len(chain) > len(deepest):
                    deepest = chain
        elif event == "return" and stack:
            stack.pop()

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen, deepest


def upload_to_forest(data: bytes) -> Callable[[], object]:
    from evalstats_app import workbench_charts
    from evalstats_app.workbench import DEFAULTS, ranking_of
    from evalstats_core.analysis import analyze_sums
    from evalstats_core.display import models_frame
    from evalstats_core.reading import ReadingOptions
    from evalstats_core.sums import file_sums

    settings = dict(confidence=DEFAULTS["analyze_confidence"], paired=DEFAULTS["analyze_paired"],
                    adjust=DEFAULTS["analyze_adjust"], interval=DEFAULTS["analyze_method"],
                    method=DEFAULTS["analyze_cluster_se"])

    def run() -> object:
        prepared = ReadingOptions().prepare([("upload.csv", data)])
        analysis = analyze_sums(file_sums(prepared.table), **settings)
        frame = models_frame(analysis, ranking_of(analysis))
        spec = workbench_charts._build_spec("models", frame, workbench_charts.is_percent(analysis), None,
                                            "mean score by model", "", analysis.paired, ())
        return workbench_charts._arrow(spec)

    return run


def gate_margin(path: str) -> Callable[[], object]:
    from evalstats_core.cli import main

    def run() -> object:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return main(["gate", path, "--baseline", "model-0", "--candidate", "model-1", "--margin", "2pt"])

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print each module with its number of calls")
    args = parser.parse_args()
    data = _csv()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "results.csv")
        with open(path, "wb") as fh:
            fh.write(data)
        paths = {"upload -> forest chart": upload_to_forest(data), "evalbars gate --margin": gate_margin(path)}
        for label, run in paths.items():
            run()  # warm: every import done
            seen, deepest = modules_called(run)
            verdict = "within" if len(seen) <= TARGETS[label] else "over"
            print(f"{label}: {len(seen)} modules entered ({verdict} the target of {TARGETS[label]}); the deepest "
                  f"call chain passes through {len(deepest)}: {' > '.join(m.split('.', 1)[1] for m in deepest)}")
            if args.list:
                for name, calls in sorted(seen.items()):
                    print(f"    {name:45s} {calls:7d} calls")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
