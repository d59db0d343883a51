"""Speed of ``evalbars pairwise`` before and after a change, in one run, with its output compared byte for byte
(issue 42): the commit ``--against`` (the code before) and this tree each read the same seeded files, and the JSON
they print (ratings, intervals, ranks, letter groups, win rates) must be identical.

Files: ``examples/pairwise_battles.tsv``, and seeded simulations of 30,000 battles (3,000 prompts of 10,
:func:`~evalstats_core.pairwise.simulate_battles`, true ratings spread evenly over 850-1150, a judge repeating its
prompt's verdict with probability 0.3, 10% ties) among each of ``--models`` models. Each command runs
``--repeats`` times in a fresh process (start-up and reading included); the best wall and CPU times are printed
with their ratio (before / after).

Run: ``nice -n 5 python bench/bench_pairwise_speed.py --against REF [--models 50,100] [--n-boot 1000]``.
Results: ``bench/results/pairwise_speed.txt``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalstats_core.pairwise import simulate_battles  # noqa: E402 - after the tree is on the path


def simulated(m: int, folder: Path, seed: int = 42) -> Path:
    b = simulate_battles(np.linspace(850.0, 1150.0, m), n_prompts=3000, per_prompt=10, copy=0.3, even=0.1,
                         rng=np.random.default_rng(seed), names=[f"model{k:03d}" for k in range(m)])
    path = folder / f"sim{m}.tsv"
    word = {1.0: "a", 0.0: "b", 0.5: "tie"}
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("prompt\tmodel_a\tmodel_b\twinner\n")
        fh.writelines(f"{p}\t{a}\t{o}\t{word[y]}\n" for p, a, o, y in zip(b.prompts, b.model_a, b.model_b,
                                                                            b.outcome, strict=True))
    return path


def timed(tree: Path, args: list[str]) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of ``python -m evalstats_core pairwise ARGS`` run on ``tree``, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "pairwise", *args], cwd=tree,
                         env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, check=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="the commit before the change")
    ap.add_argument("--models", default="50,100", help="comma-separated model counts to simulate")
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=1)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        old = folder / "before"
        old.mkdir()
        archive = subprocess.run(["git", "archive", opts.against, "evalstats_core"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        files = [ROOT / "examples" / "pairwise_battles.tsv"]
        files += [simulated(int(m), folder) for m in opts.models.split(",")]
        print(f"before: {opts.against}; after: this tree; {opts.n_boot} resamples, best of {opts.repeats}")
        print(f"{'file':<24}{'before s':>10}{'after s':>10}{'ratio':>8}{'before cpu':>12}{'after cpu':>11}"
              f"{'ratio':>8}  output")
        for path in files:
            args = [str(path), "-f", "json", "--n-boot", str(opts.n_boot), "--max-models", "1000"]
            runs = {}
            for name, tree in (("before", old), ("after", ROOT)):
                results = [timed(tree, args) for _ in range(opts.repeats)]
                runs[name] = (min(r[0] for r in results), min(r[1] for r in results), results[0][2])
            (bw, bc, bo), (aw, ac, ao) = runs["before"], runs["after"]
            same = "identical" if bo == ao else "DIFFERENT"
            print(f"{path.name:<24}{bw:>10.2f}{aw:>10.2f}{bw / aw:>8.2f}{bc:>12.2f}{ac:>11.2f}{bc / ac:>8.2f}  {same}",
                  flush=True)


if __name__ == "__main__":
    main()
