"""gate13 (issue 20): why the 40-cluster K = 3 gate of the held-out audit passes falsely in ~2.6% of files, and two
candidate remedies measured (all rejected; bench/results/gate13_issue20_2026-11-27.txt).

The gate on a clustered pair of non-0/1 scores reads CR2 + Satterthwaite t (``interval`` "CR2 t (Satterthwaite
df)"), which for an intercept-only mean of ``d = A - B`` is, from the per-cluster residual sums ``S_g``,
``se^2 = sum_g S_g^2 / (1 - n_g/n) / n^2`` with the working-independence df of ``_clusters.cr2_weights``. It is
vectorised here over files (``--check`` holds it against es.gate: diff, se and df) with the audit's generator
(``bench/audit_heldout.py``: ``latent``, ``labels_of``, the cluster-size tuples).

``--diagnose``: at truth = -margin, the upper tail ``P(T > t_df)`` (the false pass) and the lower tail
``P(T < -t_df)`` of ``T = (mean(d) + margin) / se``; T's skewness; the cluster-level sample skewness of the mean
``sum S~^3 / (sum S~^2)^1.5`` (``S~ = S_g / sqrt(1 - n_g/n)``); the df whose t quantile equals T's two-sided 95% point;
the Satterthwaite df under an exchangeable working model at the design's ICC of ``d``.

``--candidates``: the pass rate at truth -margin, 0 and +margin of ``old`` (today's gate), ``exch`` (the df of an
exchangeable working model with the file's ANOVA ICC of d, from per-cluster sums) and ``hall`` (Hall's
skewness-corrected lower end on the cluster-level sample skewness, taken only where it lowers the end) and ``cr2x``
(CR2 factors and df both under the exchangeable model at the file's ICC), with old's other tail at the truth, on the
audit's design and eight more clustered designs of non-0/1 scores.

    nice -n 5 .venv/bin/python bench/bench_gate13_clusters.py --check --diagnose --reps 400000 --seed 2
    SHIFTS=-1 nice -n 5 .venv/bin/python bench/bench_gate13_clusters.py --candidates --reps 100000 --seed 7
    nice -n 5 .venv/bin/python bench/bench_gate13_clusters.py --candidates --reps 4000 --seed 100
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
from scipy.optimize import brentq

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from audit_heldout import CONVO, FOUR_60, MMLU_PRO, SWE, UNEQUAL30, frame, labels_of, latent  # noqa: E402

from evalstats_core._clusters import cr2_weights  # noqa: E402

SIX = (80, 40, 25, 15, 10, 5)
EQ10 = (30,) * 10
DESIGNS = [  # name, sizes, baseline, margin, su2, ru, se2, re, kind (audit_heldout.latent's parameters)
    ("K=3 runs, 40 convo clusters, pb 0.6, m 4pt (audit)", CONVO, 0.6, 0.04, 0.4, 0.7, 0.6, 0.6, "runs3"),
    ("partial, 40 convo clusters, pb 0.8, m 3pt", CONVO, 0.8, 0.03, 0.3, 0.7, 0.6, 0.7, "partial"),
    ("K=3 runs, 12 SWE clusters, pb 0.8, m 4pt", SWE, 0.8, 0.04, 0.15, 0.8, 0.4, 0.7, "runs3"),
    ("partial, 6 clusters (80-5), pb 0.7, m 5pt", SIX, 0.7, 0.05, 0.25, 0.5, 0.4, 0.6, "partial"),
    ("K=3 runs, 30 unequal (5-60), pb 0.7, m 3pt", UNEQUAL30, 0.7, 0.03, 0.3, 0.6, 0.6, 0.7, "runs3"),
    ("partial, 10 equal of 30, pb 0.75, m 4pt", EQ10, 0.75, 0.04, 0.3, 0.6, 0.6, 0.7, "partial"),
    ("K=3 runs, 4 clusters (one 60%), pb 0.85, m 3pt", FOUR_60, 0.85, 0.03, 0.03, 0.5, 0.5, 0.6, "runs3"),
    ("K=3 runs, 14 MMLU-Pro subjects, pb 0.7, m 1pt", MMLU_PRO, 0.7, 0.01, 0.15, 0.8, 0.4, 0.7, "runs3"),
    ("partial, 40 convo, low ICC, pb 0.6, m 4pt", CONVO, 0.6, 0.04, 0.02, 0.5, 0.8, 0.6, "partial"),
]


def df_exchangeable(sizes, rho: float) -> float:
    """Satterthwaite df of the CR2 variance of an intercept-only mean under an exchangeable working model (ICC
    ``rho``; 0 gives clubSandwich's working-independence df, singletons ``n - 1``): ``tr(Q)^2 / tr(Q^2)`` with
    ``Q_gh = u_g' Phi u_h``, ``u_g = (1_g - f_g 1) / (n sqrt(1 - f_g))``, ``Phi`` block-exchangeable."""
    s = np.asarray(sizes, float)
    n = s.sum()
    f = s / n
    c = 1.0 / (n * np.sqrt(1.0 - f))
    lam = s * (1.0 - rho + rho * s)  # n_g x the eigenvalue of cluster g's block on its ones vector
    q = np.outer(c, c) * (np.diag(lam) - np.outer(lam, f) - np.outer(f, lam) + np.outer(f, f) * lam.sum())
    return float(np.trace(q) ** 2 / (q * q).sum())


def exchangeable_cr2(sizes, rho: float) -> tuple[np.ndarray, float]:
    """``(a, df)``: factors ``a_g`` that make ``sum a_g S_g^2 / n^2`` unbiased for the mean's variance under an
    exchangeable model with ICC ``rho`` (``a_g = n_g l_g / E[S_g^2]``, ``l_g = 1 - rho + rho n_g``; CR2's
    ``1 / (1 - f_g)`` at 0) and the Satterthwaite df of that estimator under the same model."""
    s = np.asarray(sizes, float)
    n = s.sum()
    f = s / n
    lam = s * (1.0 - rho + rho * s)
    es2 = lam - 2.0 * f * lam + f * f * lam.sum()
    a = lam / es2
    c = np.sqrt(a) / n
    q = np.outer(c, c) * (np.diag(lam) - np.outer(lam, f) - np.outer(f, lam) + np.outer(f, f) * lam.sum())
    return a, float(np.trace(q) ** 2 / (q * q).sum())


def anova_icc(s_g, ss_total, sizes):
    """ANOVA ICC (truncated at 0) of d from its per-cluster residual sums and total sum of squares, per file."""
    s = np.asarray(sizes, float)
    n, g = s.sum(), s.size
    ssb = (s_g * s_g / s).sum(-1)
    msb, msw = ssb / (g - 1), (ss_total - ssb) / (n - g)
    n0 = (n - (s * s).sum() / n) / (g - 1)
    return np.maximum(0.0, (msb - msw) / (msb + (n0 - 1) * msw))


def files(rng, reps, design, shift):
    """Per file: mean(d), CR2 se, per-cluster residual sums and total SS, in chunks (truth = shift x margin)."""
    _, sizes, pb, m, su2, ru, se2, re, kind = design
    lab = labels_of(sizes)
    n, g = lab.size, len(sizes)
    onehot = np.zeros((n, g))
    onehot[np.arange(n), lab] = 1.0
    a_w, _ = cr2_weights(np.asarray(sizes, float), n)
    chunk = max(1, min(reps, 1_500_000 // n))
    for i in range(0, reps, chunk):
        a, b = latent(rng, min(chunk, reps - i), sizes, pb + shift * m, pb, su2, ru, se2, re, kind)
        d = a - b
        dbar = d.mean(1)
        r = d - dbar[:, None]
        s_g = r @ onehot
        yield dbar, np.sqrt((s_g * s_g) @ a_w) / n, s_g, (r * r).sum(1), a_w


def check(rng, count=50) -> float:
    """Largest gap between the vectorised CR2 (mean, se, df) and es.gate's on ``count`` files of the audit design."""
    import evalstats_core as es

    design = DESIGNS[0]
    sizes = design[1]
    df = cr2_weights(np.asarray(sizes, float), int(np.sum(sizes)))[1]
    a, b = latent(rng, count, sizes, design[2] - design[3], design[2], *design[4:])
    worst = 0.0
    for r in range(count):
        g = es.gate(es.load(frame(a[r], b[r], labels_of(sizes)), cluster_col="cluster"), baseline="B", candidate="A",
                    margin=design[3])  # the column chosen: designs of 2-4 clusters are read too (issue 46)
        d = a[r] - b[r]
        onehot = np.zeros((d.size, len(sizes)))
        onehot[np.arange(d.size), labels_of(sizes)] = 1.0
        s_g = (d - d.mean()) @ onehot
        se = math.sqrt(float((s_g * s_g) @ cr2_weights(np.asarray(sizes, float), d.size)[0])) / d.size
        worst = max(worst, abs(g.se - se), abs(g.df - df), abs(g.diff - d.mean()))
    print(f"vectorised CR2 vs es.gate on {count} files: largest gap {worst:.2e} (interval: {g.interval})", flush=True)
    return worst


def diagnose(rng, reps) -> None:
    design = DESIGNS[0]
    sizes, m = design[1], design[3]
    df = cr2_weights(np.asarray(sizes, float), int(np.sum(sizes)))[1]
    t_s, gam, icc = [], [], []
    for dbar, se, s_g, ss, a_w in files(rng, reps, design, -1.0):
        t_s.append((dbar + m) / se)
        st = s_g * np.sqrt(a_w)
        gam.append((st ** 3).sum(1) / (st * st).sum(1) ** 1.5)
        icc.append(anova_icc(s_g, ss, sizes))
    t_s, gam, icc = np.concatenate(t_s), np.concatenate(gam), np.concatenate(icc)
    q = stats.t.ppf(0.975, df)
    up, lo = float(np.mean(t_s > q)), float(np.mean(t_s < -q))

    def mc(p):
        return 100 * math.sqrt(p * (1 - p) / t_s.size)

    q95 = float(np.quantile(np.abs(t_s), 0.95))
    need = brentq(lambda v: stats.t.ppf(0.975, v) - q95, 2.0, 1e6) if q95 > 1.96 else math.inf
    rho = float(np.median(icc))
    print(f"{design[0]}: n {int(np.sum(sizes))}, {len(sizes)} clusters, {t_s.size:,} files at truth -{100 * m:g} points")
    print(f"  Satterthwaite df (working independence, the gate's) {df:.2f}, t crit {q:.4f}")
    print(f"  upper tail (false pass) {100 * up:.2f}% +- {mc(up):.2f}; lower tail {100 * lo:.2f}% +- {mc(lo):.2f}; "
          f"two-sided {100 * (up + lo):.2f}%")
    print(f"  T: mean {t_s.mean():+.4f}, sd {t_s.std():.4f} (t({df:.1f}): {math.sqrt(df / (df - 2)):.4f}), skewness "
          f"{stats.skew(t_s):+.4f}; 2.5% / 97.5% points {np.quantile(t_s, 0.025):+.4f} / {np.quantile(t_s, 0.975):+.4f}")
    print(f"  cluster-level sample skewness of the mean: mean {gam.mean():+.4f}, sd over files {gam.std():.4f}")
    print(f"  95% point of |T| {q95:.4f}: the t df with that quantile {need:.2f}")
    print(f"  ICC of d (ANOVA, per file): median {rho:.3f}; Satterthwaite df under an exchangeable working model at it "
          f"{df_exchangeable(sizes, rho):.2f}", flush=True)


def candidates(rng, reps, shifts, only=None) -> None:
    grid = np.linspace(0.0, 1.0, 1001)
    for j, design in enumerate(DESIGNS):
        if only and j not in only:
            continue
        name, sizes, m = design[0], design[1], design[3]
        df0 = cr2_weights(np.asarray(sizes, float), int(np.sum(sizes)))[1]
        dfg = np.array([df_exchangeable(sizes, r) for r in grid])
        xs = [exchangeable_cr2(sizes, r) for r in grid]
        ag, dfx = np.array([x[0] for x in xs]), np.array([x[1] for x in xs])
        crit = stats.t.ppf(0.975, df0)
        rates, meds = {}, None
        for k in shifts:
            n_old = n_exch = n_hall = n_low = n_x = 0
            icc_all, dfs = [], []
            for dbar, se, s_g, ss, a_w in files(rng, reps, design, k):
                icc = anova_icc(s_g, ss, sizes)
                dfn = np.interp(icc, grid, dfg)
                n_old += int((dbar - crit * se > -m).sum())
                n_low += int((dbar + crit * se < k * m).sum())  # the other tail of the same t at the truth
                n_exch += int((dbar - stats.t.ppf(0.975, dfn) * se > -m).sum())
                at = np.rint(icc * (grid.size - 1)).astype(int)  # the grid point of the file's ICC
                se_x = np.sqrt((s_g * s_g * ag[at]).sum(1)) / int(np.sum(sizes))
                n_x += int((dbar - stats.t.ppf(0.975, dfx[at]) * se_x > -m).sum())
                st = s_g * np.sqrt(a_w)
                lam = np.minimum((st ** 3).sum(1) / (st * st).sum(1) ** 1.5, -1e-12) / 3.0  # only a long lower tail
                x = 1.0 + 3.0 * lam * (crit - lam / 2.0)
                hall_t = np.where(x > 0, (np.cbrt(x) - 1.0) / lam, np.inf)  # Hall's (1992) lower end, in SE
                n_hall += int((np.minimum(dbar - crit * se, dbar - hall_t * se) > -m).sum())
                icc_all.append(icc)
                dfs.append(dfn)
            rates[k] = (n_old / reps, n_exch / reps, n_hall / reps, n_low / reps, n_x / reps)
            if meds is None:
                meds = (float(np.median(np.concatenate(icc_all))), float(np.median(np.concatenate(dfs))))

        def mc(p):
            return 100 * math.sqrt(max(p * (1 - p), 0.25 / reps) / reps)

        cells = []
        for k in shifts:
            o, e, h, lo, x = rates[k]
            what = "false pass" if k < 0 else f"pass at {k:+g} x margin"
            cells.append(f"{what}: old {100 * o:5.2f} exch {100 * e:5.2f} hall {100 * h:5.2f} cr2x {100 * x:5.2f}"
                         + (f" (MC SE {mc(o):.2f}; old's other tail {100 * lo:5.2f})" if k < 0 else ""))
        print(f"{j} {name:50s} G {len(sizes):2d} df {df0:5.2f} ICC(d) {meds[0]:.3f} exch df {meds[1]:5.2f} | "
              + " | ".join(cells), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--diagnose", action="store_true")
    ap.add_argument("--candidates", action="store_true")
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", type=int, nargs="*", default=None, help="design numbers (--candidates)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    if args.check:
        check(rng)
    if args.diagnose:
        diagnose(rng, args.reps)
    if args.candidates:
        candidates(rng, args.reps, tuple(float(x) for x in os.environ.get("SHIFTS", "-1,0,1").split(",")), args.only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
