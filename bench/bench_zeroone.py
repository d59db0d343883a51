"""Issue 45: the clustered paired 0/1 rule on held-out designs: coverage, power, the gate's false pass.

Designs the rule was not chosen on (seed 4545; none of them in ``bench/bench_pair_edges.py`` or ``tests/``): 12
unequal clusters (log-normal sizes, 12-ish to 200 questions), 20 x 30, 40 x 25 and 60 x 20 equal clusters and
MMLU's 57 subjects (14,042 questions); the two models at a mean accuracy of 0.55, 0.75, 0.9 or 0.99, their answers
correlated 0.3 or 0.8 (Pearson, over questions), the ICC of the disagreement rate 0.02 or 0.3 (0.1 for a third set
at 0.9 and 0.99; :class:`~evalstats_core.pair_coverage.PairDesign`). Per design:

* ``d80``: the difference at which CR2 t has 80% power (two searches of 400 files at the design's own spread);
* coverage (two-sided) and the two one-sided misses at ``d80`` of CR2 t and of the rule, and the share of files where
  the rule read t; power (the interval wholly above 0) of each;
* the gate at a margin of ``d80``: the candidate truly ``d80`` worse (false pass: must be <= 2.5%), equal, and truly
  ``d80`` better (pass rates), the gate's decision as :func:`~evalstats_core.gating.gate` makes it (on the
  rule's interval; where it reads t, also the 96% end; where it reads the score interval, or t with an end at the
  score interval's (``t-score``), also the end at :data:`~evalstats_core.gating.CLUSTERED_SCORE_PASS_SHARE`).

``--rule before`` runs the rule before issue 45 items 1, 2 and 4 (no t, the uncalibrated df cap, the gate on the 95%
end alone); item 3's bound is in both. Every file is drawn per cluster (vectorised over files); the rule is the
production batch function (:func:`~evalstats_core.pair_proportions.binary_pair_intervals`), replications as pairs.
Monte Carlo SE of a rate p on R files: sqrt(p (1 - p) / R) (0.49 points at 2.5% on 1,000).

``--few``: all disagreements in 2-3 of 30 clusters (the widest interval against the design-based bound), and
the rule without clusters at n 30-2,000 (its coverage). ``--ceiling``: the gate alone matters there; MMLU's sizes at 97% and 99%, correlation 0.5 and 0.8, ICC 0.1 and 0.3.

``--only 'family,acc,corr,icc'``: one design of the grid on the seed it has there (more files for one design).

Run: ``python bench/bench_zeroone.py [--reps 1000] [--rule before] [--quick | --ceiling] [--only DESIGN]`` (``--quick --reps 400``:
4 minutes; ``--ceiling --reps 2000``: about 5).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import stdtrit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import evalstats_core.pair_proportions as pair_proportions  # noqa: E402
from evalstats_core._clusters import cr2_se, cr2_weights  # noqa: E402
from evalstats_core.edge_coverage import MMLU_SIZES  # noqa: E402
from evalstats_core.gating import CLUSTERED_PASS_SHARE, CLUSTERED_SCORE_PASS_SHARE  # noqa: E402
from evalstats_core.pair_coverage import PairDesign, draw_pair_cells  # noqa: E402

SEED = 4545
UNEQUAL12 = tuple(int(v) for v in np.round(np.exp(np.random.default_rng(SEED).normal(3.4, 0.9, 12))) + 8)
FAMILIES = {"12 unequal": UNEQUAL12, "20 x 30": (30,) * 20, "40 x 25": (25,) * 40, "60 x 20": (20,) * 60,
            "57 MMLU": MMLU_SIZES}


def design(sizes: tuple[int, ...], acc: float, gap: float, rho: float, icc: float) -> PairDesign | None:
    """Models at ``acc + gap / 2`` (A) and ``acc - gap / 2`` (B), answers correlated ``rho``; None if impossible."""
    pa, pb = acc + gap / 2.0, acc - gap / 2.0
    if not (0.0 < pb <= pa < 1.0):
        return None
    both = pa * pb + rho * math.sqrt(pa * (1.0 - pa) * pb * (1.0 - pb))
    oa, ob = pa - both, pb - both
    if oa < 0.0 or ob < 0.0 or oa + ob <= 0.0:
        return None
    dis = oa + ob
    return PairDesign(tuple(sizes), dis, oa / dis, both / (1.0 - dis), icc, 0.0, 0.1)


def intervals(cells: tuple[np.ndarray, ...], sizes: tuple[int, ...], confidence: float) -> dict[str, np.ndarray]:
    """The rule (and CR2 t) of every file, as ``compare(a, b, clusters)`` gives them (A - B)."""
    oa, ob, _ = cells
    sz = np.asarray(sizes, dtype=np.float64)
    n = float(sz.sum())
    b, c = oa.sum(1), ob.sum(1)
    diff = (b - c) / n
    a, df = cr2_weights(sz, n)
    resid = oa - ob - sz * diff[:, None]
    se = cr2_se(resid, a, n)
    ssd = (b + c) - n * diff * diff
    se_naive = np.sqrt(np.maximum(ssd, 0.0) / (n * (n - 1.0)))
    ref = np.maximum(np.abs(diff), np.sqrt(np.maximum(ssd, 0.0) / n))
    se = np.where(se <= 1e-12 * np.maximum(ref, 1e-300), 0.0, se)
    reps = b.size
    got = pair_proportions.binary_pair_intervals(b, c, np.full(reps, n), se, se_naive, np.full(reps, df), sz,
                                           confidence=confidence, resid_sums=list(resid),
                                           cells=[(oa[r], ob[r]) for r in range(reps)])
    t = float(stdtrit(df, 0.5 + confidence / 2.0))
    return dict(diff=diff, se=se, df=df, low=np.array([g[0] for g in got]), high=np.array([g[1] for g in got]),
                on_t=np.array([g[3] == "normal" for g in got]), on_mixed=np.array([g[3] == "t-score" for g in got]),
                t_low=diff - t * se, t_high=diff + t * se)


def d80(sizes: tuple[int, ...], acc: float, rho: float, icc: float, gen: np.random.Generator) -> float | None:
    """The difference at which CR2 t has about 80% power: (t_.975 + t_.8) times the spread of the estimate, twice."""
    sz = np.asarray(sizes, dtype=np.float64)
    df = cr2_weights(sz, float(sz.sum()))[1]
    q = float(stdtrit(df, 0.975) + stdtrit(df, 0.8))
    d = design(sizes, acc, 0.0, rho, icc)
    if d is None:
        return None
    spread = float(np.std(_diffs(d, 400, gen)))
    for _ in range(2):
        d = design(sizes, acc, q * spread, rho, icc)
        if d is None:
            return None
        spread = float(np.std(_diffs(d, 400, gen)))
    return q * spread


def _diffs(d: PairDesign, reps: int, gen: np.random.Generator) -> np.ndarray:
    oa, ob, _ = draw_pair_cells(d, reps, gen)
    return (oa.sum(1) - ob.sum(1)) / float(sum(d.sizes))


def gate_pass(iv: dict[str, np.ndarray], strict: dict[str, np.ndarray], margin: float, before: bool) -> np.ndarray:
    """The gate's pass for a candidate A against baseline B (``A - B``) at ``margin``, as ``gate`` decides."""
    ok = iv["low"] > -margin
    if before:
        return ok
    return ok & (strict["low"] > -margin)


def strict_ends(cells: tuple[np.ndarray, ...], sizes: tuple[int, ...], iv: dict[str, np.ndarray],
                confidence: float, margin: float) -> dict[str, np.ndarray]:
    """The stricter lower end a pass also needs: on t the 96% CR2 t end; on the score rule its end at the level of
    :data:`CLUSTERED_SCORE_PASS_SHARE` (the rule recomputed there, reading the score interval where it read it)."""
    t_level = 1.0 - CLUSTERED_PASS_SHARE * (1.0 - confidence)
    low = iv["diff"] - float(stdtrit(iv["df"], 0.5 + t_level / 2.0)) * iv["se"]
    ask = np.flatnonzero(~iv["on_t"] & (iv["low"] > -margin))  # only where the 95% end passes (as gate asks)
    if ask.size:  # the rule again at the stricter level (it may read another kind there, as gate's does)
        score = intervals(tuple(c[ask] for c in cells), sizes, 1.0 - CLUSTERED_SCORE_PASS_SHARE * (1.0 - confidence))
        low[ask] = score["low"]
    return dict(low=low)


def run(reps: int, before: bool, quick: bool, ceiling: bool = False, only: str | None = None) -> list[str]:
    gen_root = np.random.SeedSequence(SEED + ceiling)
    lines = []
    accs = (0.55, 0.75, 0.99) if quick else (0.55, 0.75, 0.9, 0.99)
    grid = [(f, a, r, i) for f in FAMILIES for a in accs for r in (0.3, 0.8) for i in (0.02, 0.3)]
    grid += [(f, a, r, 0.1) for f in FAMILIES for a in (0.9, 0.99) for r in (0.3, 0.8)]
    if quick:  # accuracies 0.55, 0.75 and 0.99: 70 designs
        grid = [g for g in grid if g[3] != 0.1 or g[1] == 0.99]
    if ceiling:  # the gate at the ceiling on MMLU's sizes (issue 45: 5.73% false pass through gate): 8 designs
        grid = [("57 MMLU", a, r, i) for a in (0.97, 0.99) for r in (0.5, 0.8) for i in (0.1, 0.3)]
    children = gen_root.spawn(len(grid))
    head = ("design | d80 pts | cov t / rule | miss low,high t | miss low,high rule | on t,t-score | power t / rule | "
            "gate: false pass / pass equal / pass gain")
    lines.append(head)
    for (fam, acc, rho, icc), child in zip(grid, children, strict=True):
        if only is not None and only != f"{fam},{acc},{rho},{icc}":  # one design, on its own seed (--only)
            continue
        gen = np.random.default_rng(child)
        sizes = FAMILIES[fam]
        delta = d80(sizes, acc, rho, icc, gen)
        name = f"{fam}, acc {acc}, corr {rho}, ICC {icc}"
        if delta is None or design(sizes, acc, delta, rho, icc) is None:
            lines.append(f"{name} | impossible at this correlation")
            continue
        d1 = design(sizes, acc, delta, rho, icc)
        cells = draw_pair_cells(d1, reps, gen)
        iv = intervals(cells, sizes, 0.95)
        truth = d1.truth
        cov_t = np.mean((iv["t_low"] <= truth) & (truth <= iv["t_high"]))
        cov_r = np.mean((iv["low"] <= truth) & (truth <= iv["high"]))
        miss_t = (np.mean(iv["t_low"] > truth), np.mean(iv["t_high"] < truth))
        miss_r = (np.mean(iv["low"] > truth), np.mean(iv["high"] < truth))
        power = (np.mean(iv["t_low"] > 0.0), np.mean(iv["low"] > 0.0))
        # the gate at margin delta: A is the candidate; truly delta worse (mirror: B - A = delta), equal, delta better
        rates = []
        for gap in (-delta, 0.0, delta):
            dg = design(sizes, acc, abs(gap), rho, icc)
            cg = draw_pair_cells(dg, reps, gen)
            if gap < 0:  # the candidate is the worse model: swap the cells so A - B = gap
                cg = (cg[1], cg[0], cg[2])
            ivg = intervals(cg, sizes, 0.95)
            strict = None if before else strict_ends(cg, sizes, ivg, 0.95, delta)
            rates.append(float(np.mean(gate_pass(ivg, strict, delta, before))))
        lines.append(f"{name} | {100 * delta:.2f} | {cov_t:.3f} / {cov_r:.3f} | {miss_t[0]:.3f},{miss_t[1]:.3f} | "
                     f"{miss_r[0]:.3f},{miss_r[1]:.3f} | {np.mean(iv['on_t']):.2f},{np.mean(iv['on_mixed']):.2f} | {power[0]:.2f} / {power[1]:.2f} | "
                     f"{rates[0]:.4f} / {rates[1]:.3f} / {rates[2]:.3f}")
        print(lines[-1], flush=True)
    return lines


def few_and_unclustered(reps: int) -> list[str]:
    """Item 3 and the rule without clusters: (a) all disagreements in 2 or 3 of 30 clusters of 20 (600 questions,
    2-12 disagreements, one model winning half to all of them): the widest interval against the design-based bound
    (:func:`~evalstats_core.pair_proportions.worst_case_interval`) and coverage; (b) without clusters (the rule
    unchanged by issue 45: continuity-corrected Tango), n 30-2,000, accuracy 0.55-0.99, correlation 0.3-0.95:
    coverage and the two one-sided misses."""
    from evalstats_core.pair_proportions import continuity_correction, tango_intervals, worst_case_interval

    gen = np.random.default_rng(SEED + 7)
    lines = ["few disagreeing clusters | widest / bound (points) | coverage"]
    sizes = (20,) * 30
    for holders in (2, 3):
        for per, a_share in ((1, 0.5), (2, 1.0), (4, 0.75)):
            m = np.zeros((reps, 30))
            m[:, :holders] = gen.binomial(20, per / 20.0, size=(reps, holders))
            oa = gen.binomial(m.astype(int), a_share).astype(float)
            ob = m - oa
            both = np.clip(20 - m - 1, 0, None)
            iv = intervals((oa, ob, both), sizes, 0.95)
            w_low, w_high, _ = worst_case_interval(oa.sum(1), ob.sum(1), sizes)
            truth = holders * per * (2 * a_share - 1) / 600.0
            cov = np.mean((iv["low"] <= truth) & (truth <= iv["high"]))
            inside = bool(np.all((iv["low"] >= w_low - 1e-12) & (iv["high"] <= w_high + 1e-12)))
            lines.append(f"{holders} clusters, {per} expected each, A wins {a_share:.0%} | "
                         f"{100 * np.max(iv['high'] - iv['low']):.1f} / {100 * np.max(w_high - w_low):.1f} "
                         f"(inside the bound: {inside}) | {cov:.3f}")
    lines.append("without clusters (n, accuracy, correlation) | coverage | miss low, high")
    worst = 1.0
    for n in (30, 100, 300, 1000, 2000):
        for acc in (0.55, 0.75, 0.9, 0.99):
            for rho in (0.3, 0.95):
                gap = 2.0 / math.sqrt(n)  # about the difference a paired test of n questions can see
                d = design((1,) * 1, acc, min(gap, 0.9 * (1 - acc) * 2), rho, 0.0)
                if d is None:
                    continue
                p_a, p_b = d.disagree * d.a_share, d.disagree * (1 - d.a_share)
                draws = gen.multinomial(n, [p_a, p_b, 1 - p_a - p_b], size=reps).astype(float)
                b, c = draws[:, 0], draws[:, 1]
                low, high = tango_intervals(b, c, np.full(reps, float(n)), correction=continuity_correction(b, c))
                cov = np.mean((low <= d.truth) & (d.truth <= high))
                worst = min(worst, cov)
                lines.append(f"{n}, {acc}, {rho} | {cov:.3f} | {np.mean(low > d.truth):.3f}, {np.mean(high < d.truth):.3f}")
    lines.append(f"# without clusters: worst coverage {worst:.3f}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--rule", choices=("after", "before"), default="after")
    parser.add_argument("--quick", action="store_true", help="accuracies 0.55, 0.75 and 0.99 only (70 designs)")
    parser.add_argument("--ceiling", action="store_true", help="the gate on MMLU's sizes at 97-99%% only")
    parser.add_argument("--few", action="store_true", help="2-3 disagreeing clusters, and the rule without clusters")
    parser.add_argument("--only", help="one design of the grid, on the seed it has there: 'family,acc,corr,icc' "
                        "(e.g. '60 x 20,0.75,0.3,0.02')")
    parser.add_argument("--out", help="also write the table to this file")
    args = parser.parse_args()
    before = args.rule == "before"
    if before:  # the rule before items 1 and 2: never t, the df cap uncalibrated
        pair_proportions.T_SKEW_ROOM = -1.0
        pair_proportions.variance_df = pair_proportions.variance_clusters
    start = time.time()
    lines = [f"# bench_zeroone.py --reps {args.reps} --rule {args.rule}{' --quick' * args.quick}"
             f"{' --ceiling' * args.ceiling}{' --few' * args.few}{f' --only {args.only!r}' if args.only else ''} (seed {SEED}; 12 unequal sizes {UNEQUAL12})"]
    lines += few_and_unclustered(args.reps) if args.few else run(args.reps, before, args.quick, args.ceiling, args.only)
    lines.append(f"# {time.time() - start:.0f} s; Monte Carlo SE at 2.5% on {args.reps} files: "
                 f"{100 * math.sqrt(0.025 * 0.975 / args.reps):.2f} points")
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    print(lines[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
