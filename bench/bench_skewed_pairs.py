"""Paired intervals for differences of bounded non-0/1 scores near the ceiling (issue 20, helper skew6).

The generator is the held-out audit's (``bench/audit_heldout.py`` of audit5: ``latent`` / ``draw``), copied
here and vectorised over files. Each design draws ``reps`` files of n questions, A truly ``gap`` below B
(mean scores exactly ``pb - gap`` and ``pb``), and records for each candidate interval of A - B the share of
files whose interval lies wholly above the truth (low > -gap: the gate at margin ``gap`` passes falsely)
and wholly below it (high < -gap).

Candidates: ``t`` (the paired t interval, today's rule), ``qb`` (Tango's score interval on quasi-binomial
effective discordance counts, :func:`effective_counts`), ``union`` (the hull of both), ``unionkg`` (the hull of
t and ``qb`` on counts times ``(z / t_{n-1})^2``: skew6's choice, on branch skew6-rule), ``skew7`` (skew7's rule:
``unionkg`` with the counts divided by the near-bound weight, so t is untouched below the skewness 0.1), ``skew9`` (skew7's with
the weight full from 0.12 and Hall's skewness-corrected t in the hull, its skewness at most 0.3), ``rule`` (the
default since skew10: skew9's with the cap :func:`~evalstats_core.bounded_unclustered.hall_cap`;
evalstats_core/bounded_unclustered.py), ``sampled`` (``rule`` with Hall's correction on the difference's sample
skewness: the default since skew11b, the sums keeping each pair's third moment; ``--check`` holds it against
es.compare). Files whose
differences are all equal (SE 0) get no interval under every candidate (never a false pass).

The gate's candidates (skew11; each is ``rule``'s interval with the lower end the gate reads, so "false pass" is
the gate's): ``gate{r}`` inconclusive where the skewness Hall's correction is asked for is below ``-r`` times the cap
(:func:`hall_request`), ``S{x}`` below ``-x``; ``unc1`` Hall's lower end at the skewness asked for, uncapped (not
monotone in it past Hall's root), ``full`` that up to the root and inconclusive beyond; ``slack{k}`` inconclusive
where capped unless the lower end clears the margin by k SE; ``gate11b`` (the gate since skew11b: ``tan`` on
``sampled``); ``tan`` (skew11's gate on ``rule``,
:mod:`evalstats_core.bounded_reach`) the lower end continued past the cap at Hall's own rate there
(:func:`~evalstats_core.bounded_reach.hall_rate`), ``lin`` at the first-order rate ``crit^2 / 3``, ``r{c}`` at ``c``
SE per unit of skewness. ``--truth X`` puts A ``X`` gaps from B (0: equal; 1: A ahead by the gap, at most half of
B's room to 1): the first column is then the pass rate, the gate's power, and the summary compares each gate
candidate's with ``rule``'s. ``--check`` also holds es.gate against ``gate11b``.

    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --audit          # the audit's two gate rates
    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --grid --reps 2000
    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --heldout --reps 4000 --seed 2027
    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --heldout2 --reps 4000 --seed 1127   # skew10's check
    nice -n 5 .venv/bin/python bench/bench_skewed_pairs.py --heldout2 --reps 8000 --seed 1128 --truth 0  # power
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
from evalstats_core.bounded_reach import hall_rate  # noqa: E402
from evalstats_core.bounded_unclustered import (  # noqa: E402
    COUNT_SHARE,
    HALL_CAP,
    HALL_FACTOR,
    SKEW_FULL,
    SKEW_FULL_PAIR,
    SKEW_START,
    hall_cap,
)
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
        elif kind == "runs5":  # held-out shape: the mean of 5 runs
            out.append((eta[..., None] + rng.standard_normal(eta.shape + (5,)) > 0).mean(axis=2))
        elif kind == "partial4":  # held-out shape: the share of 4 unit tests passed
            out.append(rng.binomial(4, ndtr(eta)) / 4.0)
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


def moments(a, b):
    """Per file (row): ``n``, the differences ``d``, both means, both variances, their covariance and ``d``'s variance
    (population moments, ddof 0)."""
    n = a.shape[1]
    d = a - b
    ma, mb = a.mean(1), b.mean(1)
    va, vb = a.var(1), b.var(1)
    cov = ((a - ma[:, None]) * (b - mb[:, None])).mean(1)
    return n, d, ma, mb, va, vb, cov, d.var(1)


def intervals(a, b, level=0.95):
    n, d, ma, mb, va, vb, cov, vd = moments(a, b)
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
    out["skew7"] = rule(a, ma, mb, va, vb, (bb, cc, ns), out["t"], t, level, full=SKEW_FULL, hall=False)
    out["skew9"] = rule(a, ma, mb, va, vb, (bb, cc, ns), out["t"], t, level, cap=HALL_CAP)  # the fixed cap 0.3
    out["rule"] = rule(a, ma, mb, va, vb, (bb, cc, ns), out["t"], t, level)
    asked, cap = hall_request(n, ma, mb, va, vb, (bb, cc, ns), t, level)
    for ratio in GATE_RATIOS:  # the gate inconclusive where the skewness asked for is beyond ratio x the cap
        beyond = asked < -ratio * cap  # on the lower end's side: a pass would rest on an end known unreliable
        out[f"gate{ratio:g}"] = (np.where(beyond, -np.inf, out["rule"][0]), out["rule"][1])
    mid, se_t = (out["t"][0] + out["t"][1]) / 2, (out["t"][1] - out["t"][0]) / (2 * t)
    for f in UNCAPPED:  # where the cap binds, the gate reads the lower end at f x the skewness asked for, uncapped
        u_lo = hall_interval(mid, se_t, f * asked, t)[0]
        beyond = asked < -cap
        out[f"unc{f:g}"] = (np.where(beyond, np.minimum(out["rule"][0], u_lo), out["rule"][0]), out["rule"][1])
    u_lo = hall_interval(mid, se_t, np.maximum(asked, -1.0 / t), t)[0]  # Hall's lower end at the asked skewness
    full = np.where(asked < -cap, np.minimum(out["rule"][0], u_lo), out["rule"][0])
    out["full"] = (np.where(asked <= -1.0 / t, -np.inf, full), out["rule"][1])  # beyond Hall's root: inconclusive
    excess = np.maximum(0.0, -asked - cap)  # the default since skew11: Hall's end continued on its tangent
    out["tan"] = (out["rule"][0] - hall_rate(cap, float(t)) * excess * se_t, out["rule"][1])
    out["lin"] = (out["rule"][0] - t * t / 3.0 * excess * se_t, out["rule"][1])  # ... at the first-order rate crit^2/3
    for c in RATES:
        out[f"r{c:g}"] = (out["rule"][0] - c * excess * se_t, out["rule"][1])
    for k in SLACK:  # inconclusive where the cap binds unless the lower end clears -margin by k SE
        out[f"slack{k:g}"] = (np.where(asked < -cap, out["rule"][0] - k * se_t, out["rule"][0]), out["rule"][1])
    for lim in FIXED:  # inconclusive where the skewness asked for is beyond lim (whatever n)
        out[f"S{lim:g}"] = (np.where(asked < -lim, -np.inf, out["rule"][0]), out["rule"][1])
    out["sampled"] = sampled(d, ma, mb, va, vb, (bb, cc, ns), out["t"], t, out["rule"])
    asked_, cap_ = hall_request(n, ma, mb, va, vb, (bb, cc, ns), t, level)
    se_ = (out["t"][1] - out["t"][0]) / (2 * t)  # skew11b's gate: tan on the sampled interval (its default)
    out["gate11b"] = (out["sampled"][0] - hall_rate(cap_, float(t)) * np.maximum(0.0, -asked_ - cap_) * se_,
                      out["sampled"][1])
    none = vd <= 0.0  # SE 0: no interval (the default since issue 20; the gate is inconclusive)
    return {k: (np.where(none, np.nan, lo), np.where(none, np.nan, hi)) for k, (lo, hi) in out.items()}


def skewness(m, v):
    """Vectorised :func:`~evalstats_core.bounded_unclustered.quasi_binomial_skewness` (``v``: the 1/n variance)."""
    room = m * (1 - m)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(room > 0, np.abs(1 - 2 * m) * np.sqrt(v) / room, np.inf)


def difference_skewness(bb, cc, ns):
    """Vectorised :func:`~evalstats_core.bounded_unclustered.difference_skewness`."""
    with np.errstate(divide="ignore", invalid="ignore"):
        qp, qm = bb / ns, cc / ns
        d = qp - qm
        var = qp + qm - d * d
        out = (d * (1 - 3 * (qp + qm)) + 2 * d ** 3) / (np.maximum(var, 1e-300) ** 1.5 * np.sqrt(ns))
    return np.where((ns > 0) & (var > 0), out, 0.0)


def hall_interval(mean, se, skew, crit):
    """Vectorised :func:`~evalstats_core.bounded_unclustered.skew_corrected_t` (the interval only)."""
    lam = np.asarray(skew, dtype=np.float64) / 3.0
    safe = np.where(lam == 0.0, 1.0, lam)

    def inverse(v):
        return np.where(lam == 0.0, v, (np.cbrt(1.0 + 3.0 * safe * (v - safe / 2.0)) - 1.0) / safe)

    return mean - inverse(crit) * se, mean - inverse(-crit) * se


#: the candidates printed per design
SHOWN = ("t", "rule", "tan", "sampled", "gate11b")
#: the gate candidates of skew11: inconclusive where Hall's skewness asked for is below -ratio x hall_cap
GATE_RATIOS = (1.0, 1.5, 2.0)
#: ... or read the lower end at this share of the skewness asked for, uncapped, where the cap binds
UNCAPPED = (1.0,)
SLACK = (1.0, 2.0, 3.0)
FIXED = (0.6, 0.8)
RATES = (4.0, 8.0, 12.0)


def hall_request(n, ma, mb, va, vb, counts, t, level):
    """``(asked, cap)``: HALL_FACTOR times the difference skewness of the weighted counts (0 where the rule keeps
    t) and :func:`hall_cap`, vectorised (:func:`~evalstats_core.bounded_unclustered.pair_skew_request`)."""
    w = np.clip((np.maximum(skewness(ma, va / n), skewness(mb, vb / n)) - SKEW_START) / (SKEW_FULL_PAIR - SKEW_START),
                0.0, 1.0)
    bb, cc, ns = counts
    ok = (ns > 0) & (w > 0)
    k = np.where(ok, (stats.norm.ppf(0.5 + level / 2) / t) ** 2 * COUNT_SHARE / np.where(ok, w, 1.0), 1.0)
    asked = np.where(ok, HALL_FACTOR * difference_skewness(bb * k, cc * k, ns * k), 0.0)
    return asked, hall_cap(n, float(t))


def rule(a, ma, mb, va, vb, counts, t_int, t, level, full=SKEW_FULL_PAIR, hall=True, cap=None):
    """The default rule, vectorised (:func:`~evalstats_core.bounded_unclustered.bounded_pair_interval`): the hull
    of t, Tango on the quasi-binomial counts x (z/t)^2 / w (w the near-bound weight of the larger skewness of the
    two means, full from ``full``) and, with ``hall``, Hall's skewness-corrected t on HALL_FACTOR times those
    counts' difference skewness (at most :func:`hall_cap`), the counts at COUNT_SHARE; t untouched where w = 0; inside
    [-1, 1]. ``full=SKEW_FULL, hall=False`` is skew7's rule (no Hall term, full counts). ``--check`` holds the default against es.compare."""
    n = a.shape[1]
    w = np.clip((np.maximum(skewness(ma, va / n), skewness(mb, vb / n)) - SKEW_START) / (full - SKEW_START),
                0.0, 1.0)
    bb, cc, ns = counts
    ok = (ns > 0) & (w > 0)
    share = COUNT_SHARE if hall else 1.0
    k = np.where(ok, (stats.norm.ppf(0.5 + level / 2) / t) ** 2 * share / np.where(ok, w, 1.0), 1.0)
    lo, hi = paired_proportion_ci(np.where(ok, bb * k, 0), np.where(ok, cc * k, 0), np.where(ok, ns * k, 1),
                                  confidence=level)
    if hall:
        cap = hall_cap(n, float(t)) if cap is None else cap  # skew10: 0.3 + 0.5 / sqrt(n), at most 0.9 / t
        skew = np.clip(HALL_FACTOR * difference_skewness(bb * k, cc * k, ns * k), -cap, cap)
        h_lo, h_hi = hall_interval((t_int[0] + t_int[1]) / 2, (t_int[1] - t_int[0]) / (2 * t),
                                   np.where(ok, skew, 0.0), t)
        lo, hi = np.minimum(lo, h_lo), np.maximum(hi, h_hi)
    lo = np.where(ok, np.minimum(lo, t_int[0]), t_int[0])
    hi = np.where(ok, np.maximum(hi, t_int[1]), t_int[1])
    return np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0)


def sampled(d, ma, mb, va, vb, counts, t_int, t, base, start=0.03, factor=3.0):
    """Not a rule (skew10's candidate, which the file's sums cannot give: they hold no third moment): ``base``
    widened by Hall's interval with ``factor`` times the sample skewness of the mean difference, taken only in the
    direction the quasi-binomial counts imply (so Atlas vs Breeze, skewed the other way, keeps t), tapering in
    from the quasi-binomial skewness ``start`` to :data:`SKEW_START` and full above it, at most ``hall_cap``."""
    n = d.shape[1]
    vd = d.var(1)
    m3 = ((d - d.mean(1)[:, None]) ** 3).mean(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        samp = np.where(vd > 0, m3 / np.maximum(vd, 1e-300) ** 1.5 / math.sqrt(n), 0.0)
    g = np.maximum(skewness(ma, va / n), skewness(mb, vb / n))
    v = np.clip((g - start) / (SKEW_START - start), 0.0, 1.0)
    sign = np.sign(difference_skewness(*counts))
    cap = hall_cap(n, float(t))
    skew = np.clip(sign * np.maximum(0.0, sign * samp) * factor * v, -cap, cap)
    h_lo, h_hi = hall_interval((t_int[0] + t_int[1]) / 2, (t_int[1] - t_int[0]) / (2 * t), skew, t)
    return np.clip(np.minimum(base[0], h_lo), -1.0, 1.0), np.clip(np.maximum(base[1], h_hi), -1.0, 1.0)


def check(rng, files=40):
    """The largest gap between :func:`rule` and es.compare's interval on ``files`` files of each audit design,
    a mid-range one and two where :func:`~evalstats_core.bounded_unclustered.hall_cap` binds (continuous, n 10, 30)."""
    import evalstats_core as es

    worst = 0.0
    for _, n, pb, gap, se2, re, kind in AUDIT + (("mid", 30, 0.6, 0.05, 0.8, 0.9, "partial"),
                                                ("capped", 10, 0.97, 0.02, 0.5, 0.95, "continuous"),
                                                ("capped", 30, 0.97, 0.02, 0.5, 0.95, "continuous"),
                                                ("t kept", 30, 0.7, 0.05, 0.5, 0.95, "continuous"),
                                                ("t kept", 100, 0.7, 0.05, 0.5, 0.95, "continuous")):
        a, b = latent(rng, files, n, pb - gap, pb, se2, re, kind)
        lo, hi = intervals(a, b)["sampled"]  # the default since skew11b
        for r in range(files):
            c = es.compare(a[r], b[r])
            if not (np.isnan(lo[r]) and math.isnan(c.ci_low)):
                worst = max(worst, abs(c.ci_low - lo[r]), abs(c.ci_high - hi[r]))
    return worst


#: ``--truth``: A's mean minus B's in multiples of the gap (at most half of B's room to 1); None: ``-gap``
TRUTH = None


def check_gate(rng, files=60):
    """Files on which es.gate's verdict differs from the bench's ``tan`` candidate (pass: its lower end above
    ``-gap``), on designs where the cap binds (continuous scores, n 10 and 30, near the ceiling, A behind and equal)."""
    import pandas as pd

    import evalstats_core as es

    differ = passes = 0
    for n, pb, gap, re, shift in ((10, 0.97, 0.02, 0.95, -0.02), (10, 0.97, 0.02, 0.95, 0.0),
                                  (30, 0.9, 0.05, 0.95, 0.0), (20, 0.985, 0.02, 0.9, 0.0)):
        a, b = latent(rng, files, n, pb + shift, pb, 0.5, re, "continuous")
        lo = intervals(a, b)["gate11b"][0]
        q = np.char.add("q", np.arange(n).astype(str))
        for r in range(files):
            g = es.gate(es.load(pd.DataFrame({"question": q, "A": a[r], "B": b[r]})), baseline="B", candidate="A",
                        margin=gap)
            passes += g.verdict == "pass"
            differ += (g.verdict == "pass") != bool(lo[r] > -gap)
    return differ, passes


def run(rng, reps, n, pb, gap, se2, re, kind):
    """``{candidate: (false pass, wholly below, mean width, median and largest width over t's per file)}``; with
    :data:`TRUTH` set the first is the pass rate (lower end above ``-gap``): the power when the truth is above."""
    res = {}
    chunk = max(1, 1_000_000 // n)
    parts = []
    shift = -gap if TRUTH is None else min(TRUTH * gap, (1.0 - pb) / 2.0)
    for i in range(0, reps, chunk):
        a, b = latent(rng, min(chunk, reps - i), n, pb + shift, pb, se2, re, kind)
        parts.append(intervals(a, b))
    t_width = np.concatenate([p["t"][1] - p["t"][0] for p in parts])
    for k in parts[0]:
        lo = np.concatenate([p[k][0] for p in parts])
        hi = np.concatenate([p[k][1] for p in parts])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (hi - lo) / t_width
        res[k] = (float(np.mean(lo > -gap)), float(np.mean(hi < -gap)), float(np.nanmean(hi - lo)),
                  float(np.nanmedian(ratio)), float(np.nanmax(ratio)))
    return res


def show(name, res, reps, only=None):
    se = 100 * math.sqrt(0.025 * 0.975 / reps)
    cells = "  ".join(f"{k} {100 * v[0]:5.2f}%" for k, v in res.items() if only is None or k in only)
    r = res["rule"]
    flag = " over 2.5%" + (" by > 2 SE" if 100 * r[0] > 2.5 + 2 * se else " (within 2 SE)") if r[0] > 0.025 else ""
    print(f"{name:44s} {cells}  (SE at 2.5%: {se:.2f})  rule below {100 * r[1]:5.2f}%  width/t median {r[3]:.3f}"
          f" max {r[4]:.3f}{flag}", flush=True)


def summary(rows, reps, label):
    """One line per candidate over ``rows`` (the results of :func:`run`); with :data:`TRUTH` the power lines."""
    if TRUTH is not None:
        return power_summary(rows, label)
    se = 0.025 * 0.975 / reps
    for k in rows[0]:
        fp = np.array([r[k][0] for r in rows])
        worst = int(np.argmax(fp))
        print(f"# {label} {k:8s} false pass above 2.5% in {np.sum(fp > 0.025):2d} of {len(rows)}, by more than"
              f" 2 SE in {np.sum(fp > 0.025 + 2 * math.sqrt(se)):2d}; worst {100 * fp[worst]:.2f}% (design {worst});"
              f" width/t median over files and designs {np.median([r[k][3] for r in rows]):.3f}, largest median"
              f" {max(r[k][3] for r in rows):.3f}, largest file {max(r[k][4] for r in rows):.3f}", flush=True)


def power_summary(rows, label):
    """With ``--truth`` above ``-1``: each gate candidate's pass rate (power) against the rule's, over ``rows``."""
    base = np.array([r["rule"][0] for r in rows])
    print(f"# {label} power of rule: mean {100 * base.mean():.2f}%, smallest {100 * base.min():.2f}%", flush=True)
    for k in rows[0]:
        if k.startswith(("gate", "unc", "slack", "S", "full", "tan", "lin", "r", "sampled")) and k != "rule":
            got = np.array([r[k][0] for r in rows])
            loss = base - got
            worst = int(np.argmax(loss))
            print(f"# {label} power of {k:8s} mean {100 * got.mean():.2f}% (rule {100 * base.mean():.2f}%); loss above"
                  f" 1 point in {np.sum(loss > 0.01)} of {len(rows)}, above 5 in {np.sum(loss > 0.05)}, largest {100 * loss[worst]:.2f} points (design"
                  f" {worst}: {100 * base[worst]:.2f}% -> {100 * got[worst]:.2f}%)", flush=True)


def grid(rng, reps, kinds, res_, pbs, ns, only=SHOWN):
    rows = []
    for kind in kinds:
        for re in res_:
            for pb in pbs:
                for n in ns:
                    gap = 0.05 if pb <= 0.9 else 0.02
                    se2 = {"partial": 0.8, "runs3": 1.0, "runs5": 1.0, "partial4": 1.5}[kind]
                    rows.append(run(rng, reps, n, pb, gap, se2, re, kind))
                    show(f"{len(rows) - 1:2d} {kind} re {re} pb {pb} gap {gap} n {n}", rows[-1], reps, only)
    return rows


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
    ap.add_argument("--heldout", action="store_true", help="60 designs of other shapes, n, baselines, correlations")
    ap.add_argument("--worst", action="store_true", help="skew7's worst grid designs (use --reps 20000)")
    ap.add_argument("--heldout2", action="store_true",
                    help="skew10's held-out set: 56 designs (continuous scores of other spreads, n, baselines)")
    ap.add_argument("--truth", type=float, default=None,
                    help="A - B in multiples of the gap (0: equal, the gate's power; 1: A ahead by the gap)")
    args = ap.parse_args(argv)
    global TRUTH
    TRUTH = args.truth
    rng = np.random.default_rng(args.seed)
    if args.check:
        print(f"sampled (the default since skew11b) vs es.compare, largest gap {check(rng):.2e}", flush=True)
        differ, passes = check_gate(rng)
        print(f"es.gate vs gate11b (tan on sampled): {differ} of 240 files differ ({passes} pass)", flush=True)
    if args.audit:
        for name, n, pb, gap, se2, re, kind in AUDIT:
            show(name[:44], run(rng, args.reps, n, pb, gap, se2, re, kind), args.reps)
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
        rows = []
        for pb in (0.5, 0.7, 0.9, 0.97):
            for n in (10, 30, 100):
                for re in (0.5, 0.95):
                    gap = 0.05 if pb < 0.95 else 0.02
                    rows.append(run(rng, args.reps, n, pb, gap, 0.5, re, "continuous"))
                    show(f"continuous re {re} pb {pb} gap {gap} n {n}", rows[-1], args.reps, SHOWN)
        summary(rows, args.reps, "continuous")
    if args.worst:  # (kind, latent correlation, baseline, n) of the grid where skew7's rule passed most often
        for kind, re, pb, n in (("partial", 0.5, 0.9, 60), ("partial", 0.5, 0.99, 164), ("partial", 0.9, 0.99, 60),
                                ("partial", 0.5, 0.97, 500), ("partial", 0.5, 0.99, 60), ("partial", 0.9, 0.8, 164),
                                ("runs3", 0.9, 0.9, 500), ("partial", 0.5, 0.9, 164)):
            gap = 0.05 if pb <= 0.9 else 0.02
            show(f"{kind} re {re} pb {pb} gap {gap} n {n}",
                 run(rng, args.reps, n, pb, gap, 0.8 if kind == "partial" else 1.0, re, kind), args.reps,
                 SHOWN)
    if args.grid:  # the 80 designs of skew6/skew7 (tuned on seeds 6 and 7)
        summary(grid(rng, args.reps, ("partial", "runs3"), (0.5, 0.9), (0.8, 0.9, 0.97, 0.99), (20, 30, 60, 164, 500)),
                args.reps, "grid")
    if args.heldout:  # designs not tuned on: other shapes, n, baselines and correlations (use another seed)
        summary(grid(rng, args.reps, ("runs5", "partial4"), (0.3, 0.7), (0.85, 0.95, 0.98), (15, 40, 100, 250, 1000)),
                args.reps, "held-out")
    if args.heldout2:  # skew10's check, never tuned on (use a new seed): continuous scores with latent variance 0.3
        rows = []    # and 0.8, correlation 0.7 and 0.9, baselines 0.8-0.985, n 12-200; partial4 and runs5 at 0.9/0.96
        designs = [("continuous", se2, re, pb, n) for se2 in (0.3, 0.8) for re in (0.7, 0.9)
                   for pb in (0.8, 0.93, 0.985) for n in (12, 20, 45, 200)]
        designs += [(kind, {"partial4": 1.5, "runs5": 1.0}[kind], 0.8, pb, n) for kind in ("partial4", "runs5")
                    for pb in (0.9, 0.96) for n in (25, 70)]
        for kind, se2, re, pb, n in designs:
            gap = 0.05 if pb <= 0.9 else 0.03 if pb < 0.95 else 0.02
            rows.append(run(rng, args.reps, n, pb, gap, se2, re, kind))
            show(f"{len(rows) - 1:2d} {kind} var {se2} re {re} pb {pb} gap {gap} n {n}", rows[-1], args.reps,
                 SHOWN)
        summary(rows, args.reps, "held-out 2")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
