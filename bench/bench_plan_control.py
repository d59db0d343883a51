"""A new effect to detect, α or power on the workbench's plan, rerun through AppTest at 1e4 and 1e7 rows (issue 25:
a control change at 1e7 <= 0.5 s).

Drives ``pages/analyze.py`` (its real caches and sections) as ``bench_workbench_reruns.py`` does: injects that
bench's Parquet file (3 models, 0/1 scores, clusters of 20 questions), then sets the plan's effect to three new
values, α and the power to one each, timing each rerun (wall and this process's CPU: AppTest runs the script in
this process). Beside each, the rerun of a trivial page measured in the same run and the ratio. The tree measured is
the one this file is in: copy it into another revision's tree (``git archive``) to measure that one.

Run: ``python bench/bench_plan_control.py [--rows 10000 10000000]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))


def timed(step) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    step()
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 10_000_000])
    args = parser.parse_args()
    from bench_workbench_reruns import parquet, trivial_rerun
    from conftest import run_page
    from test_page_analyze import PAGE, inject

    ref = trivial_rerun()
    print(f"tree: {ROOT}; trivial page rerun: {ref * 1e3:.0f} ms")
    for rows in args.rows:
        data = parquet(rows)
        at = run_page(PAGE, timeout=900)
        wall, cpu = timed(lambda: inject(at, "bench.parquet", data))  # noqa: B023
        assert not at.exception and not at.error, (at.exception, at.error)
        print(f"{rows:>12,} rows: upload -> drawn {wall:6.2f} s (CPU {cpu:5.2f} s)", flush=True)
        steps = [("effect 7.0", "analyze_delta", 7.0), ("effect 8.5", "analyze_delta", 8.5),
                 ("effect 4.0", "analyze_delta", 4.0), ("alpha 0.01", "analyze_alpha", 0.01),
                 ("power 0.9", "analyze_power", 0.9)]
        for label, key, value in steps:
            widget = at.slider(key=key) if key == "analyze_power" else at.number_input(key=key)
            wall, cpu = timed(lambda: widget.set_value(value).run(timeout=900))  # noqa: B023
            assert not at.exception, at.exception
            shown = [m.value for m in at.metric if m.label.startswith("Questions for")]
            print(f"{'':>12}   {label:<11} {wall:5.2f} s (CPU {cpu:4.2f} s, {wall / ref:5.1f}x trivial) "
                  f"questions needed {shown}", flush=True)


if __name__ == "__main__":
    main()
