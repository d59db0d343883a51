"""gate14 (issue 20): with clusters (the CR2 t interval) a pass needs the lower end of the stricter interval
``1 - CLUSTERED_PASS_SHARE * (1 - confidence)`` (96% at the default 95%: one-sided 2% instead of 2.5%) above
``-margin``, measured against the gate before it and the alternatives weighed with it
(bench/results/gate14_issue20_2026-11-27.txt).

For a clustered pair read on the CR2 t interval, with the per-cluster residual sums ``S_g`` of ``d = A - B`` and
``f_g = n_g / n``: CR2's ``se^2 = sum S_g^2 / (1 - f_g) / n^2``; the jackknife's ``sum S_g^2 / (1 - f_g)^2 / n^2``
(clubSandwich's "CR3"), never smaller. The columns, each the share of files that pass at truth ``shift x margin``:

* ``old``: CR2 + Satterthwaite df at one-sided 2.5% alone (the gate of 6d11319 .. afe256d);
* ``gate``: ``old`` and the 96% interval's lower end above ``-margin`` (the gate now; ``--check`` holds the
  vectorised rule against es.gate's verdict file by file);
* ``jack``: ``old`` and the jackknife's end at the same t quantile (rejected: 2.5-2.55% left at 30-40 clusters);
* ``cr3 df``: the jackknife's end at its own Satterthwaite df (clubSandwich's CR3 test; rejected: at 4-12
  unequal clusters it halves the power at +margin).

    nice -n 5 .venv/bin/python bench/bench_gate14_clusters.py --check
    SHIFTS=-1 nice -n 5 .venv/bin/python bench/bench_gate14_clusters.py --reps 100000 --seed 41
    SHIFTS=0,1 nice -n 5 .venv/bin/python bench/bench_gate14_clusters.py --reps 20000 --seed 42
    nice -n 5 .venv/bin/python bench/bench_gate14_clusters.py --many --reps 40000 --seed 5
    nice -n 5 .venv/bin/python bench/bench_gate14_clusters.py --direct --reps 8000 --seed 123
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from audit_heldout import frame, labels_of, latent  # noqa: E402
from bench_gate13_clusters import DESIGNS, files  # noqa: E402

from evalstats_core._clusters import cr2_weights  # noqa: E402
from evalstats_core.gating import CLUSTERED_PASS_SHARE  # noqa: E402


def satterthwaite(sizes, a) -> float:
    """Satterthwaite df of ``sum a_g S_g^2 / n^2`` under working independence (``a`` = CR2's factors gives
    ``cr2_weights``' df; their squares the jackknife's)."""
    s = np.asarray(sizes, float)
    n = s.sum()
    f = s / n
    c = np.sqrt(a) / n
    q = np.outer(c, c) * (np.diag(s) - np.outer(s, f) - np.outer(f, s) + np.outer(f, f) * n)
    return float(np.trace(q) ** 2 / (q * q).sum())


def rules(design):
    """The per-design constants: CR2's factors, its df and the jackknife's, and the rules' t quantiles."""
    sizes = np.asarray(design[1], float)
    a, df = cr2_weights(sizes, int(sizes.sum()))
    df3 = satterthwaite(sizes, a * a)
    strict = 1.0 - CLUSTERED_PASS_SHARE * 0.025  # one-sided 2%
    return a, df, df3, stats.t.ppf(0.975, df), stats.t.ppf(0.975, df3), stats.t.ppf(strict, df)


def verdicts(dbar, se, s_g, n, m, consts):
    """Per file: passes of old, gate, jack and cr3 df (boolean arrays)."""
    a, _, _, crit, crit3, crit2 = consts
    se3 = np.sqrt((s_g * s_g) @ (a * a)) / n
    old = dbar - crit * se > -m
    return old, old & (dbar - crit2 * se > -m), old & (dbar - crit * se3 > -m), dbar - crit3 * se3 > -m


def check(rng, count=40) -> int:
    """es.gate's verdict and jackknife end against the vectorised rule on ``count`` files a design, near the margin
    (truth -margin / 2, where the two rules part most often). Returns the number of disagreements."""
    import evalstats_core as es

    bad = held = 0
    worst = 0.0
    for design in DESIGNS:
        sizes, m = design[1], design[3]
        consts = rules(design)
        n = int(np.sum(sizes))
        lab = labels_of(sizes)
        a, b = latent(rng, count, sizes, design[2] - 0.5 * m, design[2], *design[4:])
        onehot = np.zeros((n, len(sizes)))
        onehot[np.arange(n), lab] = 1.0
        for r in range(count):
            d = a[r] - b[r]
            s_g = (d - d.mean()) @ onehot
            se = math.sqrt(float((s_g * s_g) @ consts[0])) / n
            old, gate, _, _ = verdicts(np.array([d.mean()]), np.array([se]), s_g[None, :], n, m, consts)
            g = es.gate(es.load(frame(a[r], b[r], lab), cluster_col="cluster"), baseline="B", candidate="A", margin=m)
            want = "pass" if gate[0] else g.verdict if g.verdict != "pass" else "inconclusive"
            worst = max(worst, abs(g.pass_low - (d.mean() - consts[5] * se)))
            held += bool(old[0] and not gate[0])
            bad += g.verdict != want or g.held_at_pass_level != bool(old[0] and not gate[0])
    print(f"es.gate vs the vectorised rule on {count} files x {len(DESIGNS)} designs: {bad} verdicts differ, "
          f"{held} held back at the 96% end, largest gap of that end {worst:.1e}", flush=True)
    return bad


def many(design: tuple, mult: int) -> tuple:
    """``design`` with each cluster repeated ``mult`` times (80-160 clusters)."""
    return (f"{design[0]} x{mult}", design[1] * mult, *design[2:])


def measure(rng, reps, shifts, designs) -> None:
    for j, design in enumerate(designs):
        name, sizes, m = design[0], design[1], design[3]
        consts = rules(design)
        n = int(np.sum(sizes))
        cells = []
        for k in shifts:
            c = np.zeros(4)
            for dbar, se, s_g, _, _ in files(rng, reps, design, k):
                c += [int(v.sum()) for v in verdicts(dbar, se, s_g, n, m, consts)]
            c = 100.0 * c / reps
            what = "false pass" if k < 0 else f"pass at {k:+g} x margin"
            mc = 100 * math.sqrt(0.025 * 0.975 / reps)
            cells.append(f"{what}: old {c[0]:5.2f} gate {c[1]:5.2f} jack {c[2]:5.2f} cr3 df {c[3]:5.2f}"
                         + (f" (MC SE {mc:.2f})" if k < 0 else ""))
        print(f"{j} {name:50s} G {len(sizes):2d} df {consts[1]:5.2f} (CR3's {consts[2]:5.2f}) | " + " | ".join(cells),
              flush=True)


DIRECT = [  # sizes, kind, baseline, margin, su2: designs read through es.gate itself (2-20 clusters)
    ((200, 150, 100), "runs3", 0.7, 0.05, 0.1), ((200, 150, 100), "partial", 0.7, 0.05, 0.1),
    ((250, 200), "runs3", 0.7, 0.05, 0.1), ((300, 60), "partial", 0.8, 0.04, 0.2), ((300, 60), "runs3", 0.7, 0.05, 0.1),
    ((400, 30, 20), "partial", 0.8, 0.04, 0.2), ((120, 80, 60, 40, 20), "partial", 0.75, 0.04, 0.2),
    ((30,) * 20, "runs3", 0.9, 0.03, 0.2),
]


def direct(reps: int, seed: int) -> None:
    """The false pass of the gate and of CR2's 95% end alone through es.gate, file by file (any interval it picks),
    on :data:`DIRECT` (two clusters: the gate never passes, :data:`~evalstats_core.gating.TWO_CLUSTERS`)."""
    import evalstats_core as es

    for sizes, kind, pb, m, su2 in DIRECT:
        rng = np.random.default_rng(seed)
        a, b = latent(rng, reps, sizes, pb - m, pb, su2, 0.6, 0.5, 0.7, kind)
        lab = labels_of(sizes)
        passes = ends = 0
        kinds = {}
        for r in range(reps):
            g = es.gate(es.load(frame(a[r], b[r], lab), cluster_col="cluster"), baseline="B", candidate="A", margin=m)
            passes += g.verdict == "pass"
            ends += g.interval.startswith("CR2") and g.ci_low > -m  # the gate of afe256d (CR2's 95% end alone)
            kinds[g.interval] = kinds.get(g.interval, 0) + 1
        print(f"{len(sizes)} clusters {sizes[:5]}, {kind}, pb {pb}, m {100 * m:g}pt: false pass: old {100 * ends / reps:.2f}%"
              f" gate {100 * passes / reps:.2f}% (MC SE {100 * math.sqrt(0.025 * 0.975 / reps):.2f}); intervals {kinds}",
              flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--direct", action="store_true", help="2-20 clusters through es.gate itself (--reps files)")
    ap.add_argument("--many", action="store_true", help="the audit's 40-cluster and the 30-unequal designs x2, x4")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    if args.check and check(rng):
        return 1
    if args.direct:
        direct(args.reps, args.seed)
    elif args.reps:
        designs = [many(d, k) for k in (2, 4) for d in (DESIGNS[0], DESIGNS[4])] if args.many else DESIGNS
        measure(rng, args.reps, tuple(float(x) for x in os.environ.get("SHIFTS", "-1,0,1").split(",")), designs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
