"""Start-up on small files: the CLI against errorbars (a peer tool on PyPI, bench-only) in one run.

    python bench/bench_startup.py              # 1,000 questions, 2 and 4 models, best of 5
    python bench/bench_startup.py --repeat 9
    python bench/bench_startup.py --source      # ours compiled on every run (a checkout without .pyc files)

Writes the same seeded long CSV (columns question_id, model, score: errorbars' default names, which our
reader also recognises) for 2 and 4 models and times, interleaved, best of ``--repeat`` subprocess runs:

* ours: ``python -m evalstats_core analyze FILE`` (every model summary and pairwise comparison);
* errorbars: ``errorbars compare FILE`` with 2 models (their paired comparison) and ``errorbars leaderboard
  FILE`` with 4 (every model and pairwise test, as ours; ``compare`` refuses more than two models).

Both run from compiled bytecode, as an installed package does (pip writes the ``.pyc`` files): the children get
a fresh ``PYTHONPYCACHEPREFIX`` (and no ``PYTHONDONTWRITEBYTECODE``), and one untimed run of each command fills
it first. Without that, a checkout in an environment that sets ``PYTHONDONTWRITEBYTECODE`` (this machine's)
compiles every evalstats module on every run (~0.1 s), while the peer's ``.pyc`` files came with its install.

It prints wall time and CPU time (user + system of the child) and the ratios ours / errorbars (issue 25's
target: wall ratio <= 1.0 with 2 models), then the imports that cost most in our run (``-X importtime``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_csv(path: Path, n_questions: int, n_models: int, seed: int = 0) -> None:
    import random

    rng = random.Random(seed)
    lines = ["question_id,model,score"]
    for i in range(n_questions):
        easy = rng.random()
        lines += [f"q{i},model-{chr(97 + m)},{int(rng.random() * 0.6 + easy > 0.75)}" for m in range(n_models)]
    path.write_text("\n".join(lines) + "\n")


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def top_imports(path: Path, env: dict[str, str], k: int | None = 8) -> list[tuple[int, str]]:
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "evalstats_core", "analyze", str(path)],
                         env=env, capture_output=True, text=True, check=True)
    rows = []
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and parts[2].strip().split(".")[0] == parts[2].strip():
            rows.append((int(parts[1]), parts[2].strip()))  # top-level packages, cumulative microseconds
    return sorted(rows, reverse=True)[:k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs (default 5)")
    parser.add_argument("--source", action="store_true",
                        help="ours compiled on every run, as from a checkout without .pyc files (numpy and the peer "
                             "still from their installed bytecode)")
    args = parser.parse_args()
    errorbars = shutil.which("errorbars") or str(Path(sys.executable).parent / "errorbars")
    if not Path(errorbars).exists():
        sys.exit("errorbars is not installed: pip install errorbars==0.2.4 (requirements-dev.txt)")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # the untimed first runs write the bytecode both then read
        print(f"{args.questions:,} questions, best of {args.repeat} (wall and CPU separately)")
        print(f"{'models':>6}  {'ours wall':>9}  {'errorbars wall':>14}  {'ratio':>5}  {'ours CPU':>8}  "
              f"{'errorbars CPU':>13}  {'ratio':>5}")
        for n_models in (2, 4):
            path = Path(tmp) / f"small{n_models}.csv"
            make_csv(path, args.questions, n_models, seed=n_models)
            ours_cmd = [sys.executable, *(["-B"] if args.source else []), "-m", "evalstats_core", "analyze", str(path)]
            peer_cmd = [errorbars, "compare" if n_models == 2 else "leaderboard", str(path)]
            ours, peer = [], []
            ours_env = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"} if args.source else env
            run(ours_cmd, ours_env), run(peer_cmd, env)  # untimed: compile both to bytecode once
            for _ in range(args.repeat):  # interleaved, so that the machine's load falls on both alike
                ours.append(run(ours_cmd, ours_env))
                peer.append(run(peer_cmd, env))
            ow, oc = min(w for w, _ in ours), min(c for _, c in ours)
            pw, pc = min(w for w, _ in peer), min(c for _, c in peer)
            print(f"{n_models:>6}  {ow:8.3f}s  {pw:13.3f}s  {ow / pw:5.2f}  {oc:7.3f}s  {pc:12.3f}s  {oc / pc:5.2f}")
        rows = top_imports(Path(tmp) / "small2.csv", env, k=None)
        print("\nour costliest imports (cumulative ms, 2 models):",
              ", ".join(f"{name} {us / 1000:.0f}" for us, name in rows[:8]))
        heavy = sorted({name for _, name in rows} & {"pandas", "pyarrow", "scipy"})
        print("pandas, pyarrow, scipy imported:", ", ".join(heavy) or "none")


if __name__ == "__main__":
    main()
