"""Coverage of the stratified estimate with clusters (issue 39, item 4 with clusters), seeded and bounded.

    .venv/bin/python bench/bench_judge39_strata.py --reps 2000     # results/judge39_strata_clustered.txt

Designs: 1,000 questions in 12 unequal clusters (``judge_sim.cluster_sizes``, logit cluster effects of SD
``judge_sim.CLUSTER_SD``; the truth the super-population pass rate ``judge_sim.true_mean``); humans label a share of
the judge's fails and another of its passes (labels chosen by the verdict). Per design and ``reps`` replications
(``rng = [seed, design]``): coverage of ``ppi_stratified(..., clusters=)``'s 95% interval, its mean width, and the
replications with no label in a verdict (no estimate). The pair: two models with a shared cluster effect, labels on
the same questions chosen by A's verdict, ``ppi_compare_stratified(..., clusters=)`` against the difference of the
true means. Target (issue 39): at least 93% in every design; over-coverage is reported, not capped.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalstats_core.judge_sim import CLUSTER_SD, cluster_sizes, true_mean  # noqa: E402
from evalstats_core.judge_strata import ppi_compare_stratified, ppi_stratified  # noqa: E402

N, K = 1000, 12
#: (pass rate, sensitivity, specificity) x (share of fails labelled, share of passes labelled)
JUDGES = ((0.5, 0.9, 0.7), (0.8, 0.99, 0.5), (0.3, 0.6, 0.8), (0.95, 0.95, 0.95), (0.5, 0.8, 0.8))
SHARES = ((0.4, 0.05), (0.1, 0.02))


def model_cell(reps: int, seed: list[int], rate: float, sens: float, spec: float, fail: float, passed: float):
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(K), cluster_sizes(N, K))
    truth = true_mean(rate, True)
    hits, widths, none = [], [], 0
    for _ in range(reps):
        y = (rng.random(N) < expit(logit(rate) + CLUSTER_SD * rng.standard_normal(K))[codes]).astype(float)
        u = rng.random(N)
        f = np.where(y == 1, u < sens, u < 1 - spec).astype(float)
        lab = rng.random(N) < np.where(f == 0, fail, passed)
        s = ppi_stratified(f, np.where(lab, y, np.nan), clusters=codes)
        if s is None:
            none += 1
            continue
        hits.append(s.ci_low <= truth <= s.ci_high)
        widths.append(s.ci_high - s.ci_low)
    return float(np.mean(hits)), float(np.mean(widths)), none, int(np.sum(np.array(widths) <= 0))


def pair_cell(reps: int, seed: list[int], fail: float, passed: float):
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(K), cluster_sizes(N, K))
    truth = true_mean(0.6, True) - true_mean(0.45, True)
    hits, widths, none = [], [], 0
    for _ in range(reps):
        u = CLUSTER_SD * rng.standard_normal(K)
        ya = (rng.random(N) < expit(logit(0.6) + u)[codes]).astype(float)
        yb = (rng.random(N) < expit(logit(0.45) + u)[codes]).astype(float)
        fa = np.where(ya == 1, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(float)
        fb = np.where(yb == 1, rng.random(N) < 0.85, rng.random(N) < 0.3).astype(float)
        lab = rng.random(N) < np.where(fa == 0, fail, passed)
        d = ppi_compare_stratified(fa, np.where(lab, ya, np.nan), fb, np.where(lab, yb, np.nan), clusters=codes)
        if d is None:
            none += 1
            continue
        hits.append(d.ci_low <= truth <= d.ci_high)
        widths.append(d.ci_high - d.ci_low)
    return float(np.mean(hits)), float(np.mean(widths)), none, int(np.sum(np.array(widths) <= 0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "judge39_strata_clustered.txt")
    args = ap.parse_args()
    t0 = time.process_time()
    lines = [f"# bench_judge39_strata.py --reps {args.reps} --seed {args.seed}: {N} questions, {K} unequal clusters",
             "# design                                   cover   width  no-est  zero-width"]
    cell = 0
    for rate, sens, spec in JUDGES:
        for fail, passed in SHARES:
            cover, width, none, zero = model_cell(args.reps, [args.seed, cell], rate, sens, spec, fail, passed)
            lines.append(f"model p={rate:.2f} se={sens:.2f} sp={spec:.2f} lab fail/pass {fail:.2f}/{passed:.2f}  "
                         f"{100 * cover:5.1f}%  {width:.3f}  {none:6d}  {zero:10d}")
            print(lines[-1], flush=True)
            cell += 1
    for fail, passed in ((0.4, 0.08), (0.15, 0.03)):
        cover, width, none, zero = pair_cell(args.reps, [args.seed, cell], fail, passed)
        lines.append(f"pair 0.60-0.45 lab by A's verdict fail/pass {fail:.2f}/{passed:.2f}      "
                     f"{100 * cover:5.1f}%  {width:.3f}  {none:6d}  {zero:10d}")
        print(lines[-1], flush=True)
        cell += 1
    lines.append(f"# {time.process_time() - t0:.0f} s CPU")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
