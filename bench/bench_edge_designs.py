"""Coverage of one clustered model's 95% interval for 0/1 scores on 160 designs: t, Korn-Graubard,
logit CR2 and the default (their union, :func:`evalstats_core.proportions.binary_mean_interval`).

Designs: G = 3, 5, 8 (one cluster of 400 of 665), 10, 12 (SWE-bench-like sizes), 27, 57 (sizes 5-59),
60 clusters; ICC 0.05, 0.1, 0.2, 0.3; accuracy 0.5, 0.8, 0.9, 0.95, 0.99. Cluster accuracies are Beta
with that mean and ICC (the model of :func:`evalstats_core.edge_coverage.clustered_binary_coverage`).
The intervals are computed vectorised from the per-cluster counts (CR2 SE and Bell-McCaffrey df of
the mean, the same formulas as :func:`evalstats_core._clusters.cr2_se_df`); before the table, the
script checks on 40 draws of three designs that these equal :func:`evalstats_core.clustering.summarize`'s
default interval to 1e-9, so the table describes what users get.

Run: ``python bench/bench_edge_designs.py [--reps 10000]`` (about 30 s on one core).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.special import betaincinv, expit, logit, ndtri, stdtrit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.clustering import summarize  # noqa: E402
from evalstats_core.proportions import FAILURES_FOR_T  # noqa: E402

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
SIZES = {3: (300,) * 3, 5: (200,) * 5, 8: (400, 100, 50, 50, 30, 20, 10, 5), 10: (50,) * 10, 12: SWE,
         27: (37,) * 27, 57: tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57)), 60: (20,) * 60}


def draw(sizes: np.ndarray, mean: float, icc: float, reps: int, gen: np.random.Generator) -> np.ndarray:
    """Per-cluster correct counts, shape (reps, G)."""
    phi = 1.0 / icc - 1.0
    rates = gen.beta(mean * phi, (1.0 - mean) * phi, size=(reps, sizes.size))
    return gen.binomial(sizes.astype(np.int64), rates).astype(np.float64)


def intervals(x: np.ndarray, sizes: np.ndarray, conf: float = 0.95) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """t, Korn-Graubard (with t above FAILURES_FOR_T effective failures), logit and the default."""
    n = sizes.sum()
    p = x.sum(1) / n
    resid = x - sizes * p[:, None]
    f = sizes / n
    a = 1.0 / (1.0 - f)
    se = np.sqrt((resid * resid) @ a) / n
    af2 = a * f * f
    df = 1.0 / (float(af2 @ (a * (1.0 - 2.0 * f))) + float(af2.sum()) ** 2)
    z, t = ndtri(0.5 + conf / 2), stdtrit(df, 0.5 + conf / 2)
    pq, tail = p * (1.0 - p), (1.0 - conf) / 2
    se = np.where(se <= 1e-12 * np.maximum(p, np.sqrt(pq / (n - 1))), 0.0, se)
    kish = n * n / (sizes @ sizes)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(se > 0, n * (pq / n) / (se * se), kish)
        n_star = np.where((se > 0) & (pq > 0), np.minimum(n, pq / (se * se)), np.minimum(n, kish)) * (z / t) ** 2
        k = p * n_star
        kg = (np.where(k <= 0, 0.0, betaincinv(k, n_star - k + 1, tail)),
              np.where(k >= n_star, 1.0, betaincinv(k + 1, n_star - k, 1 - tail)))
        half = t * se / pq
        ok = (se > 0) & (pq > 0)
        lg = (np.where(ok, expit(logit(p) - half), kg[0]), np.where(ok, expit(logit(p) + half), kg[1]))
    use = ~((se > 0) & (np.minimum(n_eff, n) * np.minimum(p, 1 - p) >= FAILURES_FOR_T))
    tt = (p - t * se, p + t * se)
    return {"t": tt,
            "Korn-Graubard": (np.where(use, kg[0], tt[0]), np.where(use, kg[1], tt[1])),
            "logit CR2": (np.where(use, lg[0], tt[0]), np.where(use, lg[1], tt[1])),
            "default": (np.where(use, np.fmin(kg[0], lg[0]), tt[0]), np.where(use, np.fmax(kg[1], lg[1]), tt[1]))}


def check_against_summarize(gen: np.random.Generator) -> None:
    """The vectorised default equals summarize's on 40 draws of three designs."""
    import warnings

    for g, mean, icc in ((12, 0.95, 0.2), (27, 0.99, 0.1), (5, 0.8, 0.3)):
        sizes = np.asarray(SIZES[g], dtype=np.float64)
        x = draw(sizes, mean, icc, 40, gen)
        low, high = intervals(x, sizes)["default"]
        labels = np.repeat(np.arange(sizes.size), sizes.astype(np.int64))
        for r in range(40):
            scores = np.concatenate([np.r_[np.ones(int(c)), np.zeros(int(s - c))]
                                     for c, s in zip(x[r], sizes, strict=True)])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s = summarize(scores, labels)
            assert abs(s.ci_low - low[r]) < 1e-9 and abs(s.ci_high - high[r]) < 1e-9, (g, mean, icc, r, s, low[r])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10000)
    reps = ap.parse_args(argv).reps
    gen = np.random.default_rng(7)
    check_against_summarize(gen)
    methods = ("t", "Korn-Graubard", "logit CR2", "default")
    print(f"{'G':>3s} {'n':>5s} {'ICC':>5s} {'p':>5s} " + " ".join(f"{m:>13s}" for m in methods) + "  width/KG")
    cov: dict[str, list[float]] = {m: [] for m in methods}
    ratio = []
    for g, sz in SIZES.items():
        sizes = np.asarray(sz, dtype=np.float64)
        for icc in (0.05, 0.1, 0.2, 0.3):
            for mean in (0.5, 0.8, 0.9, 0.95, 0.99):
                ivs = intervals(draw(sizes, mean, icc, reps, gen), sizes)
                row = {m: float(np.mean((lo <= mean) & (mean <= hi))) for m, (lo, hi) in ivs.items()}
                w = float(np.median(ivs["default"][1] - ivs["default"][0])
                          / np.median(ivs["Korn-Graubard"][1] - ivs["Korn-Graubard"][0]))
                for m in methods:
                    cov[m].append(row[m])
                ratio.append(w)
                print(f"{g:3d} {int(sizes.sum()):5d} {icc:5.2f} {mean:5.2f} "
                      + " ".join(f"{row[m]:13.3f}" for m in methods) + f"  {w:8.3f}", flush=True)
    print(f"\n{len(ratio)} designs, {reps} draws each (coverage SE <= 0.005)")
    for m in methods:
        c = np.asarray(cov[m])
        print(f"{m:14s} worst {c.min():.3f}  below 0.93 in {int(np.sum(c < 0.93)):3d}  median {np.median(c):.3f}")
    print(f"median width of the default / Korn-Graubard: {np.median(ratio):.3f}")


if __name__ == "__main__":
    main()
