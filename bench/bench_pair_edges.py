"""Coverage of the clustered paired 0/1 comparison near the ceiling: the old rules, the default, CR2 t.

432 designs: 5 equal, 10 unequal, 12 SWE-bench-like, 27 equal, 57 unequal (5-59) and 60 equal clusters;
the better model at 85%, 95% or 99%, the other 0, 2 or 5 points below; the other model right on 20% or
60% of the better one's errors (strongly / mildly correlated models); ICC of the disagreement rate 0.05
or 0.3; ICC of who wins a disagreement 0 or 0.3 (:class:`~evalstats_core.pair_coverage.PairDesign`).
Prints, for each interval, the worst coverage, the number of designs below 93%, the worst one-sided miss
of each tail (high: the interval wholly below the truth, the better model's side; a gate judging the
mirror image at its margin false-passes this often) and the median width over the old rule's and over
the previous default's (issue 20's second pass); the gate's false-pass rate per margin and ICC; then the
designs where the default covers below 93% or misses more than 2.5% on one side. "threshold" is the
previous default (the CR2 t interval from 100 effective discordant answers on), "default" the score
interval with the MOVER union at every count.

``--held-out`` runs a second grid the rule was not chosen on (other cluster counts and sizes, accuracies,
gaps and correlations; another seed): 4 equal, 8 unequal, 20 equal, 33 unequal (10-50) and 45 equal
clusters, the better model at 80%, 90% or 97%, gaps 0, 1, 3 or 4 points, the other model right on 10%
or 40% of the better one's errors, ICC 0.1 or 0.2 of the disagreement rate and 0 or 0.2 of its direction.

``--unclustered`` prints instead the exact high-side miss (by enumerating the discordant counts) of the
paired t interval and of Tango's score interval without clusters, at 200-10,000 questions: why the rule
without clusters is Tango's interval at every count (the old rule switched to t from 100 discordant
answers on, whose high-side miss reached 3.0%), with both one-sided misses, the coverage and the width. These
tables are gate5's: Tango's interval without the continuity correction the rule now adds (``--wide`` compares
the two).

``--wide`` enumerates exactly (no simulation) two grids of unclustered designs by accuracy and correlation:
3,510 designs (10-3,000 questions, the better model at 50-99.9%, the other 0-20 points below, the worse
model right on 0-100% of the better one's errors as a share of what independent answers would give) and a
held-out 1,470 (15-2,000 questions, 60-99.7%, gaps 0-15 points, 5-130% of independence), and prints per
band of expected discordant answers both one-sided misses of Tango's interval and of the rule (the
numerator corrected by ``min(1, discordant / 10)`` answers, :func:`~evalstats_core.pair_proportions.continuity_correction`),
and the rule's expected width over Tango's.

``--recheck`` re-runs the three clustered designs whose gate false pass was above 2.5% in the 2,000-file
grids (57 unequal clusters at 99%/97%, ICC 0.3/0.3; 20 and 45 equal at 97%/93%, ICC 0.2/0.2; with both
correlations of each) on ``--reps`` more files each (new seeds), with the Clopper-Pearson 95% interval of
each simulated rate: Monte Carlo noise or a real excess.

``--cost`` times one ``compare`` call on unclustered 0/1 pairs (Tango's bisection) against the t interval.

Run: ``python bench/bench_pair_edges.py [--reps 2000] [--held-out | --unclustered | --wide | --recheck | --cost]`` (about 20 CPU-seconds
per 1,000 reps).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalstats_core.pair_coverage import PairDesign, pair_design_table  # noqa: E402

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
U57 = tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57))  # as bench_edge_designs.py
U10 = (150, 120, 90, 60, 40, 30, 20, 15, 10, 5)
SIZES = {"5 equal": (200,) * 5, "10 unequal": U10, "12 SWE-like": SWE, "27 equal": (37,) * 27,
         "57 unequal": U57, "60 equal": (20,) * 60}


U33 = tuple(int(v) for v in np.random.default_rng(33).integers(10, 51, 33))
HELD_OUT = {"4 equal": (150,) * 4, "8 unequal": (300, 160, 90, 60, 40, 25, 15, 10), "20 equal": (50,) * 20,
            "33 unequal": U33, "45 equal": (30,) * 45}


def designs() -> list[PairDesign]:
    return [PairDesign.at(sizes, top, gap, kappa, icc_d, icc_s, label=name)
            for (name, sizes), top, gap, kappa, icc_d, icc_s in itertools.product(
                SIZES.items(), (0.85, 0.95, 0.99), (0.0, 0.02, 0.05), (0.2, 0.6), (0.05, 0.3), (0.0, 0.3))]


def held_out() -> list[PairDesign]:
    return [PairDesign.at(sizes, top, gap, kappa, icc_d, icc_s, label=name)
            for (name, sizes), top, gap, kappa, icc_d, icc_s in itertools.product(
                HELD_OUT.items(), (0.80, 0.90, 0.97), (0.0, 0.01, 0.03, 0.04), (0.1, 0.4), (0.1, 0.2), (0.0, 0.2))]


def unclustered() -> None:
    """Exact misses without clusters (enumerating the discordant counts): t (n - 1 df), Tango, the old rule.

    The first table is gate4's (high-side miss at 300-3,000 questions); the second the whole grid: 200-10,000
    questions, discordant rates 3-70%, A's share of the discordant answers 50-95%; per design both one-sided
    misses and the two-sided coverage of t and Tango, and Tango's expected width over t's.
    """
    from scipy.stats import multinomial
    from scipy.stats import t as student

    from evalstats_core.pair_proportions import paired_proportion_ci

    def enumerate_design(n: int, pb: float, pc: float) -> tuple:
        span = [np.arange(max(0, int(n * p - 8 * np.sqrt(n * p))), int(n * p + 8 * np.sqrt(n * p)) + 1)
                for p in (pb, pc)]
        b, c = (v.ravel() for v in np.meshgrid(*span, indexing="ij"))
        b, c = b[b + c <= n], c[b + c <= n]
        prob = multinomial.pmf(np.stack([b, c, n - b - c], 1), n, [pb, pc, 1.0 - pb - pc])
        d = (b - c) / n
        half = student.ppf(0.975, n - 1) * np.sqrt(np.maximum((b + c) - n * d * d, 0.0) / (n * (n - 1.0)))
        tango = paired_proportion_ci(b.astype(float), c.astype(float), float(n))
        return b, c, prob, (d - half, d + half), (tango[0], tango[1])

    print("command: python bench/bench_pair_edges.py --unclustered\nexact high-side miss (the interval wholly "
          "below the truth): questions, P(only A), P(only B), expected discordant: t, Tango, the old rule "
          "(t from 100 discordant answers on)")
    for n in (300, 1000, 3000):
        for pb, pc in ((0.06, 0.04), (0.08, 0.03), (0.10, 0.05), (0.07, 0.02), (0.15, 0.10), (0.055, 0.005)):
            b, c, prob, tt, tg = enumerate_design(n, pb, pc)
            rule = np.where(b + c >= 100, tt[1], tg[1])
            print(f"  {n:5d} {pb:.3f} {pc:.3f} {n * (pb + pc):5.0f}: " + ", ".join(
                f"{prob[high < pb - pc].sum():.4f}" for high in (tt[1], tg[1], rule)))
    print("\nthe grid: questions, discordant rate, A's share; high miss, low miss, coverage of t | of Tango; "
          "Tango's expected width / t's")
    rows = []
    for n in (200, 1000, 3000, 10000):
        for rate in (0.03, 0.06, 0.1, 0.2, 0.4, 0.7):
            for share in (0.5, 0.55, 0.65, 0.8, 0.95):
                pb, pc = rate * share, rate * (1.0 - share)
                b, c, prob, tt, tg = enumerate_design(n, pb, pc)
                truth = pb - pc
                out = []
                for low, high in (tt, tg):
                    hi_miss, lo_miss = prob[high < truth].sum(), prob[low > truth].sum()
                    out.append((hi_miss, lo_miss, prob.sum() - hi_miss - lo_miss, prob @ (high - low)))
                rows.append((n, rate, share, n * rate, *out[0], *out[1]))
                print(f"  {n:5d} {rate:.2f} {share:.2f}: t {out[0][0]:.4f} {out[0][1]:.4f} {out[0][2]:.4f} | "
                      f"Tango {out[1][0]:.4f} {out[1][1]:.4f} {out[1][2]:.4f} | width {out[1][3] / out[0][3]:.3f}")
    summarize(np.array(rows))
    print("\nthe gate at its margin (the better model ahead by the margin: the high-side miss is the false pass "
          "of a gate judging the mirror image): questions, discordant rate, gap; t, Tango")
    rows = []
    for n in (300, 1000, 3000, 10000):
        for rate in (0.02, 0.05, 0.1, 0.2, 0.35):
            for gap in (g for g in (0.01, 0.02, 0.03, 0.05) if g < rate):
                b, c, prob, tt, tg = enumerate_design(n, (rate + gap) / 2, (rate - gap) / 2)
                rows.append((n, rate, gap, n * rate, prob[tt[1] < gap].sum(), prob[tg[1] < gap].sum()))
                print(f"  {n:5d} {rate:.2f} {gap:.2f}: {rows[-1][4]:.4f}, {rows[-1][5]:.4f}")
    r = np.array(rows)
    for label, sel in (("all margin designs", np.ones(len(r), bool)), ("from 100 expected discordant answers on",
                                                                         r[:, 3] >= 100)):
        print(f"{label} ({int(sel.sum())}): worst false pass t {r[sel, 4].max():.4f} ({int((r[sel, 4] > 0.025).sum())} "
              f"above 2.5%), Tango {r[sel, 5].max():.4f} ({int((r[sel, 5] > 0.025).sum())} above 2.5%)")


def wide_grid(held: bool) -> list[tuple[int, float, float, float, float, float]]:
    """``(n, better accuracy, gap, correlation share, P(only better right), P(only worse right))`` of --wide's
    grid (``held``: the held-out one). The worse model is right on ``share * acc_worse * (1 - acc_better)`` of
    the questions the better gets wrong (share 1: independent answers; above 1: negatively correlated)."""
    if held:
        axes = ((15, 40, 75, 150, 400, 750, 2000), (0.6, 0.85, 0.93, 0.97, 0.985, 0.997),
                (0.0, 0.003, 0.015, 0.025, 0.04, 0.07, 0.15), (0.05, 0.2, 0.45, 0.8, 1.3))
    else:
        axes = ((10, 20, 30, 50, 100, 200, 300, 500, 1000, 3000), (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999),
                (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2), (0.0, 0.1, 0.3, 0.6, 1.0))
    out = []
    for n, top, gap, share in itertools.product(*axes):
        if top - gap < 0.3:
            continue
        only_worse = min(share * (top - gap) * (1.0 - top), 1.0 - top)
        if only_worse + gap > 0.0:
            out.append((n, top, gap, share, only_worse + gap, only_worse))
    return out


def wide() -> None:
    """Exact one-sided misses of Tango's interval and of the rule (corrected) on --wide's two grids."""
    from scipy.special import gammaln

    from evalstats_core.pair_proportions import continuity_correction, paired_proportion_ci

    cpu, wall = time.process_time(), time.perf_counter()
    print("command: python bench/bench_pair_edges.py --wide\nexact (every pair of discordant counts) misses of the "
          "interval of better - worse: 'above' = wholly above the truth, 'gate' = wholly below it where the gap is "
          "> 0 (the false pass of a gate at a margin equal to the gap); designs above 2.5% in brackets")
    for held in (False, True):
        grid, rows = wide_grid(held), []
        for n in sorted({g[0] for g in grid}):
            cap = min(n, 1400 if n > 1000 else n)
            b, c = (v.ravel() for v in np.meshgrid(np.arange(cap + 1.0), np.arange(cap + 1.0), indexing="ij"))
            b, c = b[b + c <= n], c[b + c <= n]
            ivs = (paired_proportion_ci(b, c, float(n)),
                   paired_proportion_ci(b, c, float(n), correction=continuity_correction(b, c)))
            base = gammaln(n + 1.0) - gammaln(b + 1.0) - gammaln(c + 1.0) - gammaln(n - b - c + 1.0)
            for nn, _, gap, _, pb, pc in grid:
                if nn != n:
                    continue
                with np.errstate(divide="ignore", invalid="ignore"):
                    logp = base + np.where(b > 0, b * np.log(max(pb, 1e-300)), 0.0) + np.where(
                        c > 0, c * np.log(max(pc, 1e-300)), 0.0) + (n - b - c) * np.log1p(-(pb + pc))
                prob = np.exp(np.where((pc == 0) & (c > 0), -np.inf, logp))
                row = [n * (pb + pc), gap, prob.sum()]
                for low, high in ivs:
                    row += [prob[low > pb - pc + 1e-12].sum(), prob[high < pb - pc - 1e-12].sum(), prob @ (high - low)]
                rows.append(row)
        r = np.array(rows)
        print(f"\n{'held-out grid' if held else 'grid'}: {len(r)} designs (probability enumerated >= {r[:, 2].min():.9f})")
        for lo, hi in ((0, 2), (2, 5), (5, 10), (10, 20), (20, 50), (50, 100), (100, 300), (300, np.inf), (0, np.inf)):
            sel = (r[:, 0] >= lo) & (r[:, 0] < hi)
            gate_sel = sel & (r[:, 1] > 0)
            ratio = r[sel, 8] / r[sel, 5]
            print(f"  expected discordant {lo}-{hi} ({int(sel.sum())}): " + "; ".join(
                f"{name} above {r[sel, k].max():.4f} [{int((r[sel, k] > 0.025).sum())}], gate {r[gate_sel, k + 1].max():.4f} "
                f"[{int((r[gate_sel, k + 1] > 0.025).sum())}]" for name, k in (("Tango", 3), ("rule", 6)))
                + f"; width rule / Tango median {np.median(ratio):.3f}, max {ratio.max():.3f}")
    print(f"{time.process_time() - cpu:.0f} s CPU, {time.perf_counter() - wall:.0f} s wall, load average "
          f"{os.getloadavg()[0]:.1f}")


def recheck(reps: int, chunk: int = 20_000) -> None:
    """The flagged clustered gate designs on ``reps`` new files each (seed 2026, chunks of ``chunk`` files):
    coverage and both one-sided misses of the default, with the Clopper-Pearson interval of the high-side
    miss (the gate's false pass at the margin)."""
    from scipy.stats import beta

    flagged = [d for d in designs() if d.label == "57 unequal" and d.accuracies[0] == 0.99
               and abs(d.truth - 0.02) < 1e-12 and d.icc_disagree == 0.3 and d.icc_share == 0.3]
    flagged += [d for d in held_out() if d.label in ("20 equal", "45 equal") and abs(d.accuracies[0] - 0.97) < 1e-12
                and abs(d.truth - 0.04) < 1e-12 and d.icc_disagree == 0.2 and d.icc_share == 0.2]
    cpu, wall = time.process_time(), time.perf_counter()
    print(f"command: python bench/bench_pair_edges.py --recheck --reps {reps}\nclusters, accuracies, disagreement "
          "rate, truth: coverage, miss low, miss high (the gate's false pass) [Clopper-Pearson 95% interval], files")
    for i, des in enumerate(flagged):
        hits = np.zeros(3)
        for j in range(0, reps, chunk):
            row = pair_design_table([des], min(chunk, reps - j), seed=2026 + 1000 * i + j // chunk, names=("default",))[0]
            hits += np.array(row["default"][:3]) * min(chunk, reps - j)
        k = int(round(hits[2]))
        lo = beta.ppf(0.025, k, reps - k + 1) if k else 0.0
        hi = beta.ppf(0.975, k + 1, reps - k)
        acc = des.accuracies
        print(f"  {des.label:10s} {acc[0]:.2f}/{acc[1]:.2f} {des.disagree:.3f} {des.truth:+.3f}: {hits[0] / reps:.4f}, "
              f"{hits[1] / reps:.4f}, {k / reps:.4f} [{lo:.4f}, {hi:.4f}], {reps}")
    print(f"{time.process_time() - cpu:.0f} s CPU, {time.perf_counter() - wall:.0f} s wall, load average "
          f"{os.getloadavg()[0]:.1f}")


def summarize(r: np.ndarray) -> None:
    """The grid's worst misses and coverage of t and Tango, and Tango's width over t's."""
    for label, sel in (("all designs", np.ones(len(r), bool)), ("from 100 expected discordant answers on",
                                                                  r[:, 3] >= 100)):
        ratio = r[sel, 11] / r[sel, 7]
        print(f"{label} ({int(sel.sum())}): worst high-side miss t {r[sel, 4].max():.4f}, Tango "
              f"{r[sel, 8].max():.4f}; worst low-side miss t {r[sel, 5].max():.4f}, Tango {r[sel, 9].max():.4f}; "
              f"worst coverage t {r[sel, 6].min():.4f}, Tango {r[sel, 10].min():.4f}; Tango's width / t's: "
              f"median {np.median(ratio):.3f}, max {ratio.max():.3f}")


def cost() -> None:
    """Wall and CPU time of one ``compare`` call on unclustered 0/1 pairs: the default (Tango's bisection)
    against ``interval="normal"`` (the paired t interval) in the same run, and their ratio."""
    from evalstats_core.comparison import compare

    rng = np.random.default_rng(0)
    print(f"command: python bench/bench_pair_edges.py --cost (load average {os.getloadavg()[0]:.1f})\n"
          "questions: per call default (Tango), interval='normal' (t): wall ms / CPU ms; ratio of wall times")
    for n in (1_000, 100_000, 1_000_000):
        a = (rng.random(n) < 0.8).astype(float)
        b = np.where(rng.random(n) < 0.9, a, 1.0 - a)
        reps = max(20, 200_000 // n)
        out = []
        for interval in ("auto", "normal"):
            compare(a, b, interval=interval)
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(reps):
                compare(a, b, interval=interval)
            out.append(((time.perf_counter() - w0) / reps * 1e3, (time.process_time() - c0) / reps * 1e3))
        print(f"  {n:9,d}: {out[0][0]:.3f} / {out[0][1]:.3f}, {out[1][0]:.3f} / {out[1][1]:.3f}; "
              f"{out[0][0] / out[1][0]:.2f}x")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--held-out", action="store_true", help="the held-out grid (another seed)")
    ap.add_argument("--unclustered", action="store_true", help="exact misses without clusters")
    ap.add_argument("--cost", action="store_true", help="time one compare call: Tango against t")
    ap.add_argument("--wide", action="store_true", help="exact misses of Tango and the rule on two wide grids")
    ap.add_argument("--recheck", action="store_true", help="re-run the flagged clustered gate designs on --reps files")
    args = ap.parse_args(argv)
    if args.unclustered:
        return unclustered()
    if args.cost:
        return cost()
    if args.wide:
        return wide()
    if args.recheck:
        return recheck(args.reps)
    reps = args.reps
    names = ("t", "old", "previous", "threshold", "default")
    cpu, wall = time.process_time(), time.perf_counter()
    rows = pair_design_table(held_out(), reps, seed=21) if args.held_out else pair_design_table(designs(), reps, seed=20)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"command: python bench/bench_pair_edges.py --reps {reps}" + (" --held-out" if args.held_out else ""))
    print(f"{len(rows)} designs x {reps} simulated files; {cpu:.0f} s CPU, {wall:.0f} s wall, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print(f"{'interval':10s} {'worst':>6s} {'<93%':>5s} {'median':>7s} {'worst miss high':>16s} {'>2.5%':>6s} "
          f"{'worst miss low':>15s} {'>2.5%':>6s} {'width/old':>10s} {'width/threshold (median, p90, max)':>35s}")
    for name in names:
        cov = np.array([r[name][0] for r in rows])
        low, high = np.array([r[name][1] for r in rows]), np.array([r[name][2] for r in rows])
        ratio = np.array([r[name][3] / r["old"][3] for r in rows])
        prev = np.array([r[name][3] / r["threshold"][3] for r in rows])
        print(f"{name:10s} {cov.min():6.3f} {(cov < 0.93).sum():5d} {np.median(cov):7.3f} {high.max():16.3f} "
              f"{(high > 0.025).sum():6d} {low.max():15.3f} {(low > 0.025).sum():6d} {np.median(ratio):10.2f} "
              f"{np.median(prev):14.2f} {np.quantile(prev, 0.9):9.2f} {prev.max():9.2f}")
    moved = [r for r in rows if r["default"][3] != r["threshold"][3]]
    if moved:
        w = np.array([r["default"][3] / r["threshold"][3] for r in moved])
        print(f"\nwidth default / threshold on the {len(moved)} designs where it changed: median {np.median(w):.3f}, "
              f"p90 {np.quantile(w, 0.9):.3f}, max {w.max():.3f}")
    iccs = sorted({r["design"].icc_disagree for r in rows})
    for subset, keep in ((f"ICC of disagreement {iccs[0]}", lambda d: d.icc_disagree == iccs[0]),
                         (f"ICC of disagreement {iccs[-1]}", lambda d: d.icc_disagree == iccs[-1]),
                         ("G >= 27", lambda d: len(d.sizes) >= 27), ("G <= 12", lambda d: len(d.sizes) <= 12)):
        sub = [r for r in rows if keep(r["design"])]
        print(f"\n{subset} ({len(sub)} designs): " + "; ".join(
            f"{n} worst {min(r[n][0] for r in sub):.3f}, <93% {sum(r[n][0] < 0.93 for r in sub)}, "
            f"worst miss high {max(r[n][2] for r in sub):.3f}" for n in names))
    print("\ngate false-pass rate at the margin (the mirror image: the candidate truly the gap worse, margin = gap;"
          " a correct gate <= 0.025)")
    for gap in sorted({round(r["design"].truth, 12) for r in rows if r["design"].truth > 0}):
        for icc in iccs:
            sub = [r for r in rows if abs(r["design"].truth - gap) < 1e-12 and r["design"].icc_disagree == icc]
            print(f"  margin {gap:.0%}, ICC of disagreement {icc}: " + "; ".join(
                f"{n} worst {max(r[n][2] for r in sub):.3f}, median {np.median([r[n][2] for r in sub]):.3f}, "
                f"> 2.5% in {sum(r[n][2] > 0.025 for r in sub)}/{len(sub)}" for n in names))
    print("\ndesigns where the default covers below 93% or misses more than 2.5% on one side: clusters, accuracies,"
          " truth, ICC disagreement / share / difference, coverage threshold -> default (misses low / high), "
          "width / threshold")
    for r in sorted(rows, key=lambda r: -max(r["default"][1], r["default"][2])):
        d, (cov, low, high, width) = r["design"], r["default"]
        if cov >= 0.93 and max(low, high) <= 0.025:
            continue
        acc = d.accuracies
        print(f"  {d.label:12s} {acc[0]:.2f}/{acc[1]:.2f} {d.truth:+.3f} {d.icc_disagree:.2f}/{d.icc_share:.1f}/"
              f"{d.icc_difference:.3f}  {r['threshold'][0]:.3f} -> {cov:.3f} ({low:.3f} / {high:.3f})  "
              f"{width / r['threshold'][3]:.2f}")


if __name__ == "__main__":
    main()
