"""Measure the project's quoted figures (test counts, suite times, wheel size) and rewrite their marked spans.

The figures live in CONTRIBUTING.md (tests, times) and docs/install.md (the wheel); the README itself quotes
none (tests/test_readme.py checks that). Every file in :data:`FILES` is rewritten.

    .venv/bin/python scripts/readme_figures.py                      # counts and the wheel: about a minute
    .venv/bin/python scripts/readme_figures.py --time-fast          # also time the fast subset (one process)
    .venv/bin/python scripts/readme_figures.py --junit full.xml     # the full suite's time from a run's JUnit XML
    .venv/bin/python scripts/readme_figures.py --check              # exit 1 if the README's figures differ

A figure sits between ``<!--fig:NAME-->`` and ``<!--/fig-->`` (HTML comments: invisible on
GitHub). Counts come from ``pytest --collect-only`` with the README's selections, the wheel's size from
building it (``pip wheel --no-deps --no-build-isolation``, offline) from a copy of the source; times
only from a run: the fast subset when ``--time-fast`` is given, the whole suite from the JUnit XML of a run
(``bash scripts/test.sh --junitxml=full.xml``), each with the machine's load average at the time. A
figure that is not measured this time keeps its current text.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: the files whose marked figures this script rewrites
FILES = (README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))
SPAN = re.compile(r"<!--fig:([a-z_]+)-->(.*?)<!--/fig-->", re.S)
SELECTIONS = {"tests": (), "browser": ("-m", "browser"), "not_browser": ("-m", "not browser"),
              "fast": ("-m", "not browser and not slow")}


def count(selection: tuple[str, ...]) -> int:
    """How many tests ``pytest --collect-only`` selects (the whole tests/ folder)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          *selection], cwd=ROOT, capture_output=True, text=True, timeout=600)
    m = re.search(r"(\d+)(?:/\d+)? tests? (?:collected|selected)", out.stdout)
    if not m:
        raise SystemExit(f"could not count {selection}: {out.stdout[-500:]}{out.stderr[-500:]}")
    return int(m.group(1))


def wheel_sizes() -> tuple[int, int, int]:
    """(wheel bytes, unpacked bytes, example files' bytes) of a wheel built from a copy of the source."""
    ignore = shutil.ignore_patterns(".venv", ".git", "tests", "bench", "build", "dist", "*.egg-info",
                                    "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "artifacts")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT, src, ignore=ignore)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
                        "--no-index", "-w", str(Path(tmp) / "dist"), str(src)], check=True, cwd=tmp)
        (wheel,) = (Path(tmp) / "dist").glob("*.whl")
        with zipfile.ZipFile(wheel) as z:
            infos = z.infolist()
        return (wheel.stat().st_size, sum(i.file_size for i in infos),
                sum(i.file_size for i in infos if "/site/examples/" in i.filename))


def time_fast() -> tuple[int, float, float]:
    """(tests passed, seconds, load average) of one run of the fast subset in one process."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                          *SELECTIONS["fast"]], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    took = time.perf_counter() - t0
    m = re.search(r"(\d+) passed", out.stdout)
    if out.returncode != 0 or not m:
        raise SystemExit(f"the fast subset did not pass; no time recorded:\n{out.stdout[-2000:]}")
    return int(m.group(1)), took, (load + os.getloadavg()[0]) / 2


def junit_time(path: Path) -> tuple[int, float]:
    """(tests, seconds) of a run's JUnit XML."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    return sum(int(s.get("tests", 0)) for s in suites), max(float(s.get("time", 0)) for s in suites)


def kb(n: int) -> str:
    return f"{n / 1000:,.0f} kB" if n < 1_000_000 else f"{n / 1e6:.1f} MB"


def figures(opts: argparse.Namespace) -> dict[str, str]:
    """The figures measured this time, by marker name."""
    out = {name: f"{count(sel):,}" for name, sel in SELECTIONS.items()}
    wheel, unpacked, example = wheel_sizes()
    out |= {"wheel": kb(wheel), "unpacked": kb(unpacked), "examples": kb(example)}
    if opts.time_fast:
        passed, took, load = time_fast()
        out |= {"fast_timed": f"{passed:,}", "fast_time": f"{took:.0f} s", "fast_load": f"{load:.0f}"}
    if opts.junit:
        tests, took = junit_time(Path(opts.junit))
        out |= {"full_tests": f"{tests:,}", "full_time": f"{took:.0f} s", "full_minutes": f"{took / 60:.0f} min",
                "full_load": opts.load or "not recorded"}
    return out


def rewrite(text: str, new: dict[str, str]) -> str:
    """``text`` with every marked span whose figure was measured set to the new value."""
    return SPAN.sub(lambda m: f"<!--fig:{m.group(1)}-->{new.get(m.group(1), m.group(2))}<!--/fig-->", text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-fast", action="store_true", help="run the fast subset once and record its time")
    ap.add_argument("--junit", metavar="XML", help="JUnit XML of a whole-suite run: its time")
    ap.add_argument("--load", metavar="L", help="the load average during that run (for the words beside it)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a figure differs (naming the files)")
    opts = ap.parse_args()
    new = figures(opts)
    texts = {path: path.read_text() for path in FILES if path.exists()}
    marked = {m.group(1) for text in texts.values() for m in SPAN.finditer(text)}
    for name, value in sorted(new.items()):
        print(f"{name:>14}: {value}" + ("" if name in marked else "   (no marker in any file)"))
    changed = [path for path, text in texts.items() if rewrite(text, new) != text]
    if opts.check:
        for path in changed:
            print(f"differs: {path.relative_to(ROOT)}")
        return int(bool(changed))
    for path in changed:
        path.write_text(rewrite(texts[path], new))
    return 0


if __name__ == "__main__":
    sys.exit(main())
