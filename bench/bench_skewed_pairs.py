"""Paired intervals for differences of bounded non-0/1 scores near the ceiling (issue 20, helper skew6).

The generator is the held-out audit's (``bench/audit_heldout.py`` of audit5: ``latent`` / ``draw``), copied
here and vectorised over files. Each design draws ``reps`` files of n questions, A truly ``gap`` below B
(mean scores exactly ``pb - gap`` and ``pb``), and records for each candidate interval of A - B the share of
files whose interval lies wholly above the truth (low > -gap: the gate at margin ``gap`` passes falsely)
and wholly below it (high < -gap).

Candidates: ``t`` (the paired t interval, today's rule), ``qb`` (Tango's score interval on quasi-binomial
effective discordance counts, :func:`effective_counts`), ``union`` (the hull of both), ``unionkg`` (the hull of
t and ``qb`` on counts times ``(z / t_{n-1})^2``: skew6's choice, on branch skew6-rule), ``rule`` (the default since
skew7: ``unionkg`` with the counts divided by the near-bound weight, so t is untouched below the skewness 0.1;
evalstats_core/bounded_unclustered.py; ``--check`` holds it against es.compare). Files whose
differences are all equal (SE 0) get no interval under every candidate (never a false pass).

    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --audit          # the audit's two gate rates
    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --grid --reps 2000
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from evalstats_core.bounded_unclustered import SKEW_FULL, SKEW_START  # noqa: E402
from evalstats_core.pair_proportions import paired_proportion_ci  # noqa: E402


def latent(rng, reps: int, n: int, p_a: float, p_b: float, se2: float, re: float, kind: str):
    """Unclustered copy of the audit's ``latent``: scores (reps, n) of A and B."""
    z1, z2 = rng.standard_normal((reps, n)), rng.standard_normal((reps, n))
    s = math.sqrt(se2)
    ea, eb = s * z1, s * (re * z1 + math.sqrt(1.0 - re * re) * z2)
    out = []
    for p, e in ((p_a, ea), (p_b, eb)):
        eta = float(ndtri(p) * math.sqrt(1.0 + se2)) + e
        if kind == "binary":
            out.append((eta + rng.standard_normal(eta.shape) > 0).astype(np.float64))
        elif kind == "runs3":
            out.append((eta[..., None] + rng.standard_normal(eta.shape + (3,)) > 0).mean(axis=2))
        elif kind == "continuous":  # a continuous score in (0, 1), e.g. a similarity: no trials behind it
            out.append(ndtr(eta))
        else:  # partial credit: share of 8 unit tests passed
            out.append(rng.binomial(8, ndtr(eta)) / 8.0)
    return out[0], out[1]


def effective_counts(ma, mb, va, vb, cov, vd, n):
    """Quasi-binomial effective ``(only_a, only_b, n*)`` of a paired difference of [0, 1] scores from its
    moments (1/n variances): the 0/1 pair with A's and B's means and correlation has discordant shares
    ``q+ = ma - p11``, ``q- = mb - p11`` (``p11 = ma mb + r sqrt(ma(1-ma) mb(1-mb))``), per-question variance
    ``V = q+ + q- - (ma - mb)^2``; ``n* = n V / vd``. For 0/1 scores this is the data's own counts and n."""
    ma, mb, va, vb, cov, vd = (np.asarray(x, dtype=np.float64) for x in (ma, mb, va, vb, cov, vd))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(va * vb > 0, cov / np.sqrt(va * vb), 0.0)
    p11 = ma * mb + r * np.sqrt(ma * (1 - ma) * mb * (1 - mb))
    p11 = np.clip(p11, np.maximum(0.0, ma + mb - 1.0), np.minimum(ma, mb))
    qp, qm = ma - p11, mb - p11
    v = qp + qm - (ma - mb) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ns = np.where(vd > 0, n * v / vd, n)
    return ns * qp, ns * qm, ns


def intervals(a, b, level=0.95):
    n = a.shape[1]
    d = a - b
    ma, mb = a.mean(1), b.mean(1)
    va, vb = a.var(1), b.var(1)
    cov = ((a - ma[:, None]) * (b - mb[:, None])).mean(1)
    vd = d.var(1)
    dbar = ma - mb
    se = np.sqrt(vd * n / (n - 1) / n)
    t = stats.t.ppf(0.5 + level / 2, n - 1)
    out = {"t": (dbar - t * se, dbar + t * se)}
    bb, cc, ns = effective_counts(ma, mb, va, vb, cov, vd, n)
    ok = ns > 0
    lo, hi = paired_proportion_ci(np.where(ok, bb, 0), np.where(ok, cc, 0), np.where(ok, ns, 1), confidence=level)
    lo, hi = np.where(ok, lo, out["t"][0]), np.where(ok, hi, out["t"][1])
    out["qb"] = (lo, hi)
    out["union"] = (np.minimum(lo, out["t"][0]), np.maximum(hi, out["t"][1]))
    k = (stats.norm.ppf(0.5 + level / 2) / t) ** 2  # Korn & Graubard's (z / t)^2 on n - 1 df
    lo, hi = paired_proportion_ci(np.where(ok, bb * k, 0), np.where(ok, cc * k, 0), np.where(ok, ns * k, 1),
                                  confidence=level)
    lo, hi = np.where(ok, lo, out["t"][0]), np.where(ok, hi, out["t"][1])
    out["unionkg"] = (np.minimum(lo, out["t"][0]), np.maximum(hi, out["t"][1]))
    out["rule"] = rule(a, ma, mb, va, vb, (bb, cc, ns), out["t"], t, level)
    none = vd <= 0.0  # SE 0: no interval (the default since issue 20; the gate is inconclusive)
    return {k: (np.where(none, np.nan, lo), np.where(none, np.nan, hi)) for k, (lo, hi) in out.items()}


def skewness(m, v):
    """Vectorised :func:`~evalstats_core.bounded_unclustered.quasi_binomial_skewness` (``v``: the 1/n variance)."""
    room = m * (1 - m)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(room > 0, np.abs(1 - 2 * m) * np.sqrt(v) / room, np.inf)


def rule(a, ma, mb, va, vb, counts, t_int, t, level):
    """The default since skew7, vectorised (:func:`~evalstats_core.bounded_unclustered.bounded_pair_interval`):
    the hull of t and Tango on the quasi-binomial counts x (z/t)^2 / w, w the near-bound weight of the larger
    skewness of the two means; t untouched where w = 0; inside [-1, 1]. ``--check`` holds it against es.compare."""
    n = a.shape[1]
    w = np.clip((np.maximum(skewness(ma, va / n), skewness(mb, vb / n)) - SKEW_START) / (SKEW_FULL - SKEW_START),
                0.0, 1.0)
    bb, cc, ns = counts
    ok = (ns > 0) & (w > 0)
    k = np.where(ok, (stats.norm.ppf(0.5 + level / 2) / t) ** 2 / np.where(ok, w, 1.0), 1.0)
    lo, hi = paired_proportion_ci(np.where(ok, bb * k, 0), np.where(ok, cc * k, 0), np.where(ok, ns * k, 1),
                                  confidence=level)
    lo = np.where(ok, np.minimum(lo, t_int[0]), t_int[0])
    hi = np.where(ok, np.maximum(hi, t_int[1]), t_int[1])
    return np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0)


def check(rng, files=40):
    """The largest gap between :func:`rule` and es.compare's interval on ``files`` files of each audit design
    and of a mid-range one."""
    import evalstats_core as es

    worst = 0.0
    for _, n, pb, gap, se2, re, kind in AUDIT + (("mid", 30, 0.6, 0.05, 0.8, 0.9, "partial"),):
        a, b = latent(rng, files, n, pb - gap, pb, se2, re, kind)
        lo, hi = intervals(a, b)["rule"]
        for r in range(files):
            c = es.compare(a[r], b[r])
            if not (np.isnan(lo[r]) and math.isnan(c.ci_low)):
                worst = max(worst, abs(c.ci_low - lo[r]), abs(c.ci_high - hi[r]))
    return worst


def run(rng, reps, n, pb, gap, se2, re, kind):
    res = {}
    chunk = max(1, 1_000_000 // n)
    parts = []
    for i in range(0, reps, chunk):
        a, b = latent(rng, min(chunk, reps - i), n, pb - gap, pb, se2, re, kind)
        parts.append(intervals(a, b))
    for k in parts[0]:
        lo = np.concatenate([p[k][0] for p in parts])
        hi = np.concatenate([p[k][1] for p in parts])
        res[k] = (float(np.mean(lo > -gap)), float(np.mean(hi < -gap)), float(np.nanmean(hi - lo)))
    return res


def show(name, res, reps):
    cells = "  ".join(f"{k}: pass {100 * v[0]:5.2f}% below {100 * v[1]:5.2f}% w {100 * v[2]:6.2f}"
                      for k, v in res.items())
    print(f"{name:58s} {cells}", flush=True)


#: the audit's two failing gate designs (audit_heldout.py ``gate``): name, n, baseline, margin, se2, re, kind
AUDIT = (("partial credit, n = 30, baseline 0.9, margin 3pt", 30, 0.9, 0.03, 0.8, 0.9, "partial"),
         ("K = 3 runs, n = 60, baseline 0.97, margin 2pt", 60, 0.97, 0.02, 1.0, 0.8, "runs3"))


def parser(against: str, seed: int) -> argparse.ArgumentParser:
    """The options of this bench and of bench_skewed_means.py: --audit, --grid, --check, --reps, --seed."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--audit", action="store_true")
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--check", action="store_true", help=f"the vectorised rule against {against}")
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=seed)
    return ap


def main(argv=None):
    ap = parser("es.compare", 6)
    ap.add_argument("--continuous", action="store_true", help="continuous scores Phi(eta), latent variance 0.5")
    ap.add_argument("--gate", action="store_true", help="the audit's two designs through es.gate itself")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    if args.check:
        print(f"rule vs es.compare, largest gap {check(rng):.2e}", flush=True)
    if args.audit:
        for name, n, pb, gap, se2, re, kind in AUDIT:
            show(name, run(rng, args.reps, n, pb, gap, se2, re, kind), args.reps)
    if args.gate:
        import pandas as pd

        import evalstats_core as es

        for name, n, pb, gap, se2, re, kind in AUDIT:
            a, b = latent(rng, args.reps, n, pb - gap, pb, se2, re, kind)
            q = np.char.add("q", np.arange(n).astype(str))
            passed = sum(es.gate(es.load(pd.DataFrame({"question": q, "A": a[r], "B": b[r]})), baseline="B",
                                 candidate="A", margin=gap).exit_code == 0 for r in range(args.reps))
            rate = passed / args.reps
            print(f"es.gate {name:52s} false pass {100 * rate:5.2f}% +- {100 * math.sqrt(rate * (1 - rate) / args.reps):.2f}"
                  f" ({args.reps} files)", flush=True)
    if args.continuous:
        for pb in (0.5, 0.7, 0.9, 0.97):
            for n in (10, 30, 100):
                for re in (0.5, 0.95):
                    gap = 0.05 if pb < 0.95 else 0.02
                    show(f"continuous re {re} pb {pb} gap {gap} n {n}", run(rng, args.reps, n, pb, gap, 0.5, re,
                                                                            "continuous"), args.reps)
    if args.grid:
        for kind in ("partial", "runs3"):
            for re in (0.5, 0.9):
                for pb in (0.8, 0.9, 0.97, 0.99):
                    for n in (20, 30, 60, 164, 500):
                        gap = 0.05 if pb <= 0.9 else 0.02
                        name = f"{kind} re {re} pb {pb} gap {gap} n {n}"
                        show(name, run(rng, args.reps, n, pb, gap, 0.8 if kind == "partial" else 1.0, re, kind),
                             args.reps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
