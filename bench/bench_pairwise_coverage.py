"""Coverage of the pairwise intervals (issue 42): Bradley-Terry ratings clustered by prompt (sandwich, t on G - 1
df), the model-based interval that treats battles as independent, Chatbot Arena's battle bootstrap, and each pair's
CR2 win-rate interval, on seeded files with prompt effects.

Designs: 3 or 5 models (true Elo spread 50 points a step), 20 / 60 / 150 prompts of 8 battles, and a judge that
repeats its verdict on a pair within a prompt with probability ``copy`` (0: independent battles; 0.7: a strong
taste per prompt). Every battle's win chance is the Bradley-Terry one, so the true ratings are the fit's target.
Each design is ``--reps`` files (default 300); the bootstrap uses ``--n-boot`` resamples (default 200).

Run: ``nice -n 5 python bench/bench_pairwise_coverage.py [--reps 300] [--n-boot 200]``. Results:
``bench/results/pairwise_coverage.txt``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from evalstats_core._clusters import t_crit
from evalstats_core.pairwise import CENTRE, arena_bootstrap, bradley_terry, simulate_battles, win_rates

DESIGNS = [(3, 20, 0.7), (3, 60, 0.0), (3, 60, 0.7), (3, 150, 0.7), (5, 60, 0.7)]


def run(m: int, prompts: int, copy: float, reps: int, n_boot: int, seed: int) -> dict[str, float]:
    true = 1000.0 + 50.0 * (np.arange(m) - (m - 1) / 2)
    names = tuple(f"m{k}" for k in range(m))
    truth = true - true.mean() + CENTRE
    rng = np.random.default_rng(seed)
    hit = {"clustered": [], "plain": [], "bootstrap": [], "win rate": []}
    for r in range(reps):
        b = simulate_battles(true, n_prompts=prompts, per_prompt=8, copy=copy, rng=rng, names=names)
        try:
            fit = bradley_terry(b)
        except ValueError:  # a model that never lost: no finite fit (counted as a miss for every interval)
            for k in ("clustered", "plain", "bootstrap"):
                hit[k] += [False] * m
            continue
        idx = [fit.models.index(n) for n in names]
        est = fit.ratings[idx]
        se = np.sqrt(np.diag(fit.covariance))[idx]
        plain = np.sqrt(np.diag(fit.plain_covariance))[idx]
        hit["clustered"] += list(np.abs(est - truth) <= t_crit(0.95, fit.df) * se)
        hit["plain"] += list(np.abs(est - truth) <= 1.959964 * plain)
        lo, hi, _ = arena_bootstrap(b, n_boot=n_boot, seed=seed + r)
        lo, hi = lo[idx], hi[idx]
        hit["bootstrap"] += list((lo <= truth) & (truth <= hi))
        for w in win_rates(b)[::2]:
            p = 1.0 / (1.0 + 10.0 ** ((true[names.index(w.opponent)] - true[names.index(w.model)]) / 400.0))
            hit["win rate"].append(bool(w.ci_low <= p <= w.ci_high))
    return {k: float(np.mean(v)) for k, v in hit.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--n-boot", type=int, default=200)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    print(f"reps {args.reps}, bootstrap {args.n_boot} resamples, seed {args.seed}; 95% intervals")
    print(f"{'models':>6} {'prompts':>7} {'copy':>5} | {'clustered':>9} {'plain':>6} {'Arena boot':>10} "
          f"{'win rate':>8} | seconds")
    for m, prompts, copy in DESIGNS:
        start = time.perf_counter()
        c = run(m, prompts, copy, args.reps, args.n_boot, args.seed)
        print(f"{m:>6} {prompts:>7} {copy:>5.1f} | {c['clustered']:>9.3f} {c['plain']:>6.3f} {c['bootstrap']:>10.3f} "
              f"{c['win rate']:>8.3f} | {time.perf_counter() - start:.0f}", flush=True)


if __name__ == "__main__":
    main()
