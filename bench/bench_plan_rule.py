"""Plans for paired 0/1 comparisons against the rule the analysis reads (issue 45 item 5).

Each design: ``--pilots`` pilot files (:func:`~evalstats_core.plan_pilots.binary_scores`, latent probit abilities),
each planned with :func:`~evalstats_core.planning.plan_pair` under the default analysis for ``p_a - p_b`` at 80%;
``--reps`` files of the planned size (clusters of the pilot's mix, :func:`planned_sizes`) analysed with the default
:func:`~evalstats_core.comparison.compare` (a hit: p < 0.05 and the difference positive) and with CR2 t
(``interval="normal"``). The plan promises its power on average over pilots, so the line reports the mean over every
file (Monte Carlo SE from the pilots' spread), the mean questions planned and the mean planned questions / the pilot's.
Seeded; run ``nice``. Designs: 30 equal clusters of 20 at 60%/55%, 57 MMLU-like subjects (sizes /10) at 75%/71%,
30 clusters of 20 near the ceiling (97%/94.5%), and 200 unclustered questions at 70%/60%.

Run: ``nice python bench/bench_plan_rule.py --pilots 40 --reps 50``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core import compare  # noqa: E402
from evalstats_core.analysis import analyze  # noqa: E402
from evalstats_core.data import load, question_scores  # noqa: E402
from evalstats_core.edge_coverage import MMLU_SIZES  # noqa: E402
from evalstats_core.errors import EvalStatsWarning  # noqa: E402
from evalstats_core.plan_pilots import binary_scores, planned_sizes  # noqa: E402
from evalstats_core.planning import plan_pair  # noqa: E402

#: name, cluster sizes (None: unclustered, the pilot's n given), p_a, p_b, ICC-like var_cluster, var_question, corr
DESIGNS = {
    "30x20 mid": ((20,) * 30, 0.60, 0.55, 0.2, 0.5, 0.75),
    "57 MMLU-like": (tuple(max(1, round(s / 10)) for s in MMLU_SIZES), 0.75, 0.71, 0.2, 0.5, 0.75),
    "30x20 ceiling": ((20,) * 30, 0.97, 0.945, 0.2, 0.5, 0.75),
    "unclustered 200": ((1,) * 200, 0.70, 0.60, 0.0, 0.5, 0.75),
}


def run(name: str, pilots: int, reps: int, seed: int, cap: float) -> dict:
    sizes, p_a, p_b, var_c, var_q, corr = DESIGNS[name]
    sizes = np.asarray(sizes)
    clustered = bool((sizes > 1).any())
    labels = np.repeat(np.arange(sizes.size), sizes)
    hits, hits_t, ns, per_pilot = [], [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for i in range(pilots):  # each pilot and its evals on their own seeds: paired across revisions of the planner
            gen = np.random.default_rng([seed, i])
            a, b = binary_scores(sizes, p_a, p_b, var_c, var_q, corr, gen)
            cols = {"question": np.arange(labels.size).astype(str), "A": a[0], "B": b[0]}
            if clustered:
                cols["cluster"] = labels
            data = load(pd.DataFrame(cols))
            table = question_scores(data)
            plan = plan_pair(data, table, analyze(table), "A", "B", delta=p_a - p_b)
            ns.append(plan.n_needed)
            new = planned_sizes(sizes, min(plan.n_needed, cap)).astype(np.int64)
            new_labels = np.repeat(np.arange(new.size), new) if clustered else None
            a2, b2 = binary_scores(new, p_a, p_b, var_c, var_q, corr, np.random.default_rng([seed, i, 1]), reps)
            h = [(c.p_value < 0.05 and c.diff > 0) for c in (compare(a2[r], b2[r], new_labels) for r in range(reps))]
            ht = [(c.p_value < 0.05 and c.diff > 0)
                  for c in (compare(a2[r], b2[r], new_labels, interval="normal") for r in range(reps))]
            hits += h
            hits_t += ht
            per_pilot.append(np.mean(h))
    per = np.asarray(per_pilot)
    return {"power": float(np.mean(hits)), "se": float(per.std(ddof=1) / np.sqrt(pilots)),
            "power_t": float(np.mean(hits_t)), "n": float(np.mean(ns)), "ratio": float(np.mean(ns) / sizes.sum()),
            "test": plan.test}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pilots", type=int, default=40)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=4505)
    parser.add_argument("--cap", type=float, default=20_000.0, help="questions simulated at most per planned eval")
    parser.add_argument("--only", default=None, help="one design's name")
    args = parser.parse_args()
    print(f"pilots {args.pilots}, files per plan {args.reps}, seed {args.seed}; target 80%")
    for i, name in enumerate(DESIGNS):
        if args.only and args.only != name:
            continue
        t0 = time.perf_counter()
        r = run(name, args.pilots, args.reps, args.seed + i, args.cap)
        print(f"{name:16s} plan {r['test']:10s} mean n {r['n']:8.0f} ({r['ratio']:.2f}x pilot)  power default "
              f"{r['power']:.3f} +- {r['se']:.3f}  CR2 t {r['power_t']:.3f}  [{time.perf_counter() - t0:.0f} s]",
              flush=True)


if __name__ == "__main__":
    main()
