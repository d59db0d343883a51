"""Regenerate the CR2 oracle fixtures: small synthetic designs, then R's clubSandwich on every file.

    python scripts/clubsandwich_oracle.py                 # designs + Rscript -> tests/fixtures/clubsandwich.json
    python scripts/clubsandwich_oracle.py --designs-only  # only rewrite tests/fixtures/cr2_designs/*.csv

A thin wrapper over ``scripts/clubsandwich_oracle.R`` (which holds the R calls and documents the
fixture fields). This file only writes the synthetic designs, deterministically (fixed numpy seeds),
and then runs the R script on the two few-cluster example files and on every design:

=========================  =====================================================================
``unequal_8.csv``          93 questions in 8 clusters of sizes 1, 2, 3, 5, 8, 13, 21, 40, rows
                           shuffled (a cluster's questions are not contiguous), 3 models, 0/1
``singletons_mixed.csv``   21 questions: 6 singleton clusters beside clusters of 6 and 9, 2 models,
                           continuous scores
``two_clusters.csv``       25 questions in 2 clusters (7 and 18), 2 models, 0/1
``continuous_6.csv``       50 questions in 6 clusters (3, 4, 10, 2, 25, 6), 3 models, scores in (0, 1)
``constant_cluster.csv``   24 questions in 5 clusters; in cluster ``k1`` every score of a model is the
                           same (a constant residual inside the cluster), 2 models, 0/1
``tiny_3.csv``             7 questions in 3 clusters (2, 3, 2), 2 models, 0/1
``all_singletons.csv``     20 questions, each its own cluster label (CR2 = one-sample/paired t-test)
``no_clusters.csv``        30 questions, no cluster column (R clusters on the row: the t-test)
=========================  =====================================================================

Requires ``Rscript`` with clubSandwich (Debian: ``apt-get install r-cran-clubsandwich``).
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DESIGNS = ROOT / "tests" / "fixtures" / "cr2_designs"
FIXTURES = ROOT / "tests" / "fixtures" / "clubsandwich.json"
EXAMPLES = ("examples/coding_12_repos.csv", "examples/chat_5_sources.csv")


def _write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _num(x: float) -> object:
    """0/1 as ints, other numbers as the shortest repr that round-trips (R's strtod reads it exactly)."""
    return int(x) if float(x).is_integer() else repr(float(x))


def _design(path: Path, sizes: list[int], models: int, rng: np.random.Generator, *, binary: bool,
            shuffle: bool = False, labels: bool = True) -> None:
    g = np.repeat(np.arange(len(sizes)), sizes)  # (n,) cluster index of each question
    u = rng.normal(0.0, 0.8, len(sizes))[g]  # (n,) cluster shift (so clustering matters)
    eta = u[:, None] + rng.normal(0.0, 1.0, (g.size, models)) + np.linspace(-0.6, 0.6, models)  # (n, M)
    p = 1.0 / (1.0 + np.exp(-eta))
    y = (rng.random(p.shape) < p).astype(float) if binary else np.round(p, 6)  # (n, M)
    order = rng.permutation(g.size) if shuffle else np.arange(g.size)
    header = ["question", *(["cluster"] if labels else []), *(f"m{j + 1}" for j in range(models))]
    rows = [[f"q{i + 1:03d}", *([f"k{g[i] + 1}"] if labels else []), *map(_num, y[i])] for i in order]
    _write(path, header, rows)


def write_designs(out: Path = DESIGNS) -> list[Path]:
    """Write every design CSV into ``out``; return their paths, sorted."""
    _design(out / "unequal_8.csv", [1, 2, 3, 5, 8, 13, 21, 40], 3, np.random.default_rng(901), binary=True, shuffle=True)
    _design(out / "singletons_mixed.csv", [1, 1, 1, 6, 1, 9, 1, 1], 2, np.random.default_rng(902), binary=False)
    _design(out / "two_clusters.csv", [7, 18], 2, np.random.default_rng(903), binary=True)
    _design(out / "continuous_6.csv", [3, 4, 10, 2, 25, 6], 3, np.random.default_rng(904), binary=False, shuffle=True)
    _write(out / "tiny_3.csv", ["question", "cluster", "m1", "m2"],  # by hand: 2, 3 and 2 questions
           [["q1", "k1", 1, 0], ["q2", "k1", 0, 0], ["q3", "k2", 0, 1], ["q4", "k2", 0, 0], ["q5", "k2", 1, 1],
            ["q6", "k3", 1, 0], ["q7", "k3", 1, 1]])
    _design(out / "all_singletons.csv", [1] * 20, 2, np.random.default_rng(907), binary=False)
    _design(out / "no_clusters.csv", [30], 3, np.random.default_rng(908), binary=False, labels=False)
    # Cluster k1: model m1 answers all 4 right and m2 all 4 wrong (constant residual inside k1, and a
    # constant paired difference there); the other clusters vary.
    rng = np.random.default_rng(905)
    sizes = [4, 3, 5, 6, 6]
    g = np.repeat(np.arange(len(sizes)), sizes)
    y = (rng.random((g.size, 2)) < np.where(g % 2 == 0, 0.35, 0.65)[:, None]).astype(float)  # (n, 2)
    y[g == 0] = [1.0, 0.0]
    _write(out / "constant_cluster.csv", ["question", "cluster", "m1", "m2"],
           [[f"q{i + 1:03d}", f"k{g[i] + 1}", *map(_num, y[i])] for i in range(g.size)])
    return sorted(out.glob("*.csv"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs-only", action="store_true", help="write the design CSVs, do not run R")
    parser.add_argument("--out", default=str(FIXTURES), help="fixture JSON to write (default: %(default)s)")
    args = parser.parse_args(argv)
    designs = [str(p.relative_to(ROOT)) for p in write_designs()]
    if args.designs_only:
        return 0
    cmd = ["Rscript", str(ROOT / "scripts" / "clubsandwich_oracle.R"), "--out", str(Path(args.out).resolve()),
           *EXAMPLES, *designs]
    return subprocess.run(cmd, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
