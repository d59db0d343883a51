"""Coverage and width of one model's default interval where the clusters hold under two clusters' worth of
information (:mod:`evalstats_core.cluster_means`), against CR2's t and, with ``--old DIR``, the default of
an older checkout (e.g. ``git worktree add /tmp/old e16e4b1``: the commit before the cluster means' interval),
on the same draws.

0/1 scores: designs 2 (500 + 500), 2u (900 + 100), 2x (990 + 10), 3u (900 + 50 + 50), 3v (700 + 200 + 100),
4x (970 + 10 x 3), one90 (900 + 10 x 10); ICC 0.05-0.3; accuracy 0.5-0.99 (cluster accuracies Beta, as
:func:`evalstats_core.edge_coverage.draw_cluster_counts`). Scores in [0, 1] that are not 0/1 (``--scores
partial`` or ``k4``: :func:`evalstats_core.edge_coverage.draw_cluster_means`): accuracy 0.5-0.95; the old
default there is CR2's t. Every row prints coverage and the median width of the default over the old one.

Run: ``nice -n 5 python bench/bench_cluster_means.py [--reps 10000] [--scores binary|partial|k4] [--old DIR]``
(at 10,000 draws a few minutes per design on one busy core).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

DESIGNS = {"2": (500, 500), "2u": (900, 100), "2x": (990, 10), "3u": (900, 50, 50), "3v": (700, 200, 100),
           "4x": (970, 10, 10, 10), "one90": (900,) + (10,) * 10}


def _old_intervals(old: str | None):
    """The old checkout's ``clustered_binary_intervals`` (its modules imported, then forgotten)."""
    if old is None:
        return None
    sys.path.insert(0, old)
    import evalstats_core.edge_coverage as ec

    fn = ec.clustered_binary_intervals
    assert fn.__code__.co_filename.startswith(old), fn.__code__.co_filename
    for name in [k for k in sys.modules if k.startswith("evalstats_core")]:
        del sys.modules[name]
    sys.path.remove(old)
    return fn


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10000)
    ap.add_argument("--scores", choices=("binary", "partial", "k4"), default="binary")
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--old", help="an older checkout whose default (0/1 scores) to compare with")
    args = ap.parse_args(argv)
    old = _old_intervals(args.old)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from evalstats_core import edge_coverage as ec

    binary = args.scores == "binary"
    gen = np.random.default_rng(7)
    print(f"{'design':>6s} {'ICC':>5s} {'p':>5s} {'t':>6s} {'old':>6s} {'default':>7s} {'width default/old':>17s}"
          f"  ({args.scores}, {args.reps} draws; old = {args.old or 'CR2 t'})")
    ratios, worst = [], 1.0
    for key in args.designs.split(","):
        sz = np.asarray(DESIGNS[key], dtype=np.float64)
        for icc in (0.05, 0.1, 0.2, 0.3):
            for mean in (0.5, 0.8, 0.9, 0.95, 0.99) if binary else (0.5, 0.8, 0.95):
                if binary:
                    x = ec.draw_cluster_counts(sz, mean, icc, args.reps, gen)
                    new = ec.clustered_binary_intervals(x, sz)
                    before = old(x, sz)["default"] if old is not None else new["t"]
                else:
                    new = ec.clustered_mean_intervals(ec.draw_cluster_means(sz, mean, icc, args.reps, gen,
                                                                            kind=args.scores), sz)
                    before = new["t"]

                def cov(iv: tuple, mean: float = mean) -> float:
                    return float(np.mean((iv[0] <= mean) & (mean <= iv[1])))

                w = float(np.median(new["default"][1] - new["default"][0]) / np.median(before[1] - before[0]))
                ratios.append(w)
                worst = min(worst, cov(new["default"]))
                print(f"{key:>6s} {icc:5.2f} {mean:5.2f} {cov(new['t']):6.3f} {cov(before):6.3f} "
                      f"{cov(new['default']):7.3f} {w:17.3f}", flush=True)
    r = np.asarray(ratios)
    print(f"\nworst default coverage {worst:.3f}; width default/old: median {np.median(r):.3f}, "
          f"90th percentile {np.quantile(r, 0.9):.3f}, max {r.max():.3f} "
          f"(coverage SE at 95%: {math.sqrt(0.95 * 0.05 / args.reps):.4f})")


if __name__ == "__main__":
    main()
