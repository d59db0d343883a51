"""How often the gate passes a true +4-point gain when a column nobody chose (``category``, 2-8 values drawn
independently of the questions) is read as clusters, against the default reading (issue 46).

Each file: 400 questions with difficulties U(0.3, 0.8), paired 0/1 answers, the candidate 4 points better on every
question (``p + 0.04``), margin 2 points. For each number of categories the gate runs with the column chosen
(``cluster_col="category"``, what the old default did) and by default (read only with ``FOUND_CLUSTERS`` or more).

    .venv/bin/python bench/bench_found_clusters.py --files 200 --seed 46
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

import evalstats_core as es
from evalstats_core._records import FOUND_CLUSTERS


def gain_file(rng: np.random.Generator, n_cat: int, n: int = 400, gain: float = 0.04) -> pd.DataFrame:
    p = rng.uniform(0.3, 0.8, n)
    u = rng.random(n)
    return pd.DataFrame({"question": [f"q{i}" for i in range(n)], "category": [f"c{c}" for c in rng.integers(0, n_cat, n)],
                         "base": (u < p).astype(int), "cand": (u < p + gain).astype(int)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=46)
    args = ap.parse_args()
    print(f"FOUND_CLUSTERS = {FOUND_CLUSTERS}; {args.files} files a row, seed {args.seed}")
    print("categories  pass% read as clusters  pass% default")
    for n_cat in (2, 3, 4, 5, 6, 8):
        rng = np.random.default_rng([args.seed, n_cat])
        chosen = default = 0
        for _ in range(args.files):
            frame = gain_file(rng, n_cat)
            kw = dict(baseline="base", candidate="cand", margin="2pt")
            chosen += es.gate(es.load(frame, cluster_col="category"), **kw).verdict == "pass"
            default += es.gate(es.load(frame), **kw).verdict == "pass"
        print(f"{n_cat:>10}  {100 * chosen / args.files:>21.1f}  {100 * default / args.files:>13.1f}")


if __name__ == "__main__":
    main()
