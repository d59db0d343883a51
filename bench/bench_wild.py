"""Speed of ``wild_cluster_bootstrap`` (p-value and interval) against references timed in the same run.

On n = 100,000 seeded 0/1 scores in G = 12 and G = 200 clusters, B = 9999 draws (Webb's weights at
G = 12, Rademacher at G = 200; too many vectors to enumerate at either), the whole call -- validation,
cluster sums, draws, the p-value and the interval by test inversion -- against:

* **matrix product**: a (B, G) weight matrix, drawn beforehand, times a (G, 7) matrix: the two
  products the per-draw coefficients need, with nothing else;
* **draws + product**: drawing the (B, G) weights, then the same product: the least any wild
  bootstrap with B independent draws does;
* **direct p-value**: a plain numpy wild bootstrap that builds the (B, G) bootstrap residual sums and
  their CR1 SEs for one null, and no interval (what a first implementation would do).

No target is set: the interval (a grid and a bisection over every draw) is most of the cost at
G = 12. Times are process CPU time (``--wall`` for wall clock), best of ``--repeat`` runs taken
alternately with each reference. Run: ``python bench/bench_wild.py [--repeat 7] [--wall]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_core  # noqa: E402 - the bench scripts' one timing helper (bench/ is on the path when run)
from bench_core import best_pair  # noqa: E402

from evalstats_core.wild import wild_cluster_bootstrap  # noqa: E402

WEBB = np.array([-math.sqrt(1.5), -1.0, -math.sqrt(0.5), math.sqrt(0.5), 1.0, math.sqrt(1.5)])


def data(n: int, n_clusters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_clusters, n)
    level = rng.random(n_clusters)[codes]
    return (level + 0.5 * rng.random(n) > 0.8).astype(np.float64), codes


def draw_weights(rng, n_boot: int, n_clusters: int) -> np.ndarray:
    """(B, G) float64 weights: Webb's for G <= 12, Rademacher otherwise (as ``weights="auto"``)."""
    if n_clusters <= 12:
        return WEBB[rng.integers(0, 6, size=(n_boot, n_clusters), dtype=np.uint8)]
    return rng.integers(0, 2, size=(n_boot, n_clusters), dtype=np.int8) * 2.0 - 1.0


def direct_p_value(scores, codes, null: float, n_boot: int, rng) -> float:
    """Plain numpy WCR bootstrap, one null: (B, G) bootstrap residual sums, CR1 t*, symmetric p."""
    n = scores.size
    sums = np.bincount(codes, weights=scores - null)  # (G,) restricted residual sums
    sizes = np.bincount(codes).astype(np.float64)
    g = sums.size
    resid = np.bincount(codes, weights=scores - scores.mean())
    t = (scores.mean() - null) / (math.sqrt(g / (g - 1) * float(resid @ resid)) / n)
    v = draw_weights(rng, n_boot, g)  # (B, G)
    d_star = (v @ sums) / n  # (B,)
    boot = v * sums - d_star[:, None] * sizes  # (B, G) bootstrap residual sums
    t_star = d_star / (np.sqrt(g / (g - 1) * np.einsum("ij,ij->i", boot, boot)) / n)
    return float(np.mean(np.abs(t_star) > abs(t)))


def row(label: str, ours: float, ref: float, ref_name: str) -> None:
    print(f"  {label:<30} {ours * 1e3:8.2f} ms   {ref_name:<16} {ref * 1e3:8.2f} ms   ratio {ours / ref:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--n-boot", type=int, default=9999)
    parser.add_argument("--wall", action="store_true", help="time wall clock instead of process CPU time")
    args = parser.parse_args()
    if args.wall:
        bench_core.CLOCK = time.perf_counter
    clock = "wall clock" if args.wall else "process CPU time"
    print(f"n = {args.n:,} questions, B = {args.n_boot} draws (best of {args.repeat}, {clock})")
    for n_clusters in (12, 200):
        bench_clusters(args.n, n_clusters, args.n_boot, args.repeat)


def bench_clusters(n: int, n_clusters: int, n_boot: int, repeat: int) -> None:
    scores, codes = data(n, n_clusters)
    null = float(scores.mean()) + 0.01
    r = wild_cluster_bootstrap(scores, codes, null=null, n_boot=n_boot, rng=0)
    p_direct = direct_p_value(scores, codes, null, n_boot, np.random.default_rng(1))
    print(
        f"G = {n_clusters} ({r.weights}): p = {r.p_value:.4f} (direct, other draws: {p_direct:.4f}), "
        f"interval [{r.ci_low:.4f}, {r.ci_high:.4f}]"
    )
    v = draw_weights(np.random.default_rng(2), n_boot, n_clusters)  # (B, G)
    x = np.random.default_rng(3).random((n_clusters, 7))  # (G, 7)
    refs = {
        "matrix product": lambda: v @ x,
        "draws + product": lambda: draw_weights(np.random.default_rng(2), n_boot, n_clusters) @ x,
        "direct p-value": lambda: direct_p_value(scores, codes, null, n_boot, np.random.default_rng(1)),
    }
    for name, ref in refs.items():
        t_ours, t_ref = best_pair(
            lambda: wild_cluster_bootstrap(scores, codes, null=null, n_boot=n_boot, rng=0), ref, repeat
        )
        row(f"wild_cluster_bootstrap, G={n_clusters}", t_ours, t_ref, name)

if __name__ == "__main__":
    main()
