"""The best allowance for unseen judge errors on labels without a disagreement: what any rule on those tables can do.

Issue 23's corner: a near-perfect judge (0.99 / 0.99) shows no disagreement among 30-40 labels in two evals out
of three, and ``ppi_mean``'s interval then covers 99%-100%, so the judge covers 99.6% in all. The arms on those
tables hold an allowance for the false passes and false fails the labels may have missed. This scan asks what the
*best* such allowance, as a function of what those labels show, can give across the fine grid of
``bench/bench_judge_exact.py`` (330 judges: sensitivity 0.6-0.99 x specificity 0.5-0.99 x true pass rates 0.3,
0.5, 0.7), exactly (no Monte Carlo error), with every other table's interval as shipped.

On a table without a disagreement (``k1 = m1`` human passes among the ``m1`` labelled judge passes, none among
the ``m0 = n - m1`` judge fails) the shipped arms are ``sqrt((t se)^2 + A^2)`` with ``A_lo = w1 (1 - l)``
(``l`` the Jeffreys lower limit of ``m1`` of ``m1``, ``w1 = m1 / n``) and ``A_hi = w0 u`` (``u`` the Jeffreys
upper limit of 0 of ``m0``). Each family below puts its own ``A_lo(m1, n)``, ``A_hi(m0, n)`` there, one
parameter scanned:

- ``jeffreys x``: the shipped allowances times ``x``;
- ``binomial a``: per class, the exact one-sided tail bound of a zero count, ``w (1 - a^(1/m))`` (Clopper-Pearson
  at one-sided level ``a``; the mid-p bound ``w (1 - (2a)^(1/m))`` is the same family at ``a / 2``): large when the
  class holds many labels, smaller when it holds few, since a class of ``m = w n`` labels hides errors worth
  ``w x`` of the mean in ``(1 - x)^m`` of evals;
- ``poisson a``: ``ln(1 / a) / n`` on both sides, whatever the class counts;
- ``lookup``: any numbers per ``m1`` (``A_lo[m1]``, ``A_hi[m1]``, ``2 (n + 1)`` of them), found by shrinking
  each as far as the 93% floor allows, coordinate by coordinate, from the shipped ones (a search over every
  rule that depends on the class counts, not a proof);
- ``none``: no allowance at all on those tables (``A = 0``; the t arms alone): the least any rule on them can
  give the near-perfect judge, whatever it does to the others.

For each family the scan reports the smallest parameter that keeps all 330 judges at or above 93%, and the
most any judge then covers. ``--bound W`` adds a linear program (:func:`bound`): the least maximum coverage that
*any* arms on those tables, chosen per ``m1`` and per bin of ``W`` unlabelled judge passes and even randomised,
can reach with every judge at the floor. On a grid of a few pass rates that bound is loose (each bin then meets
few judges, and the program fits them); ``--grid window`` (576 judges, sensitivity and specificity 0.85-0.99,
each at the true pass rate that puts its pass share at 0.46-0.54) packs every judge whose labels can look like
the near-perfect judge's at pass rate 0.5 around it.

Run: ``nice -n 5 python bench/bench_judge_allowance.py`` (about 2 CPU minutes a label count to split, then
seconds; the lookup a minute); ``--grid window --labels 40 --bound 5`` (the program: minutes, 1.6 GB).
Results: ``bench/results/judge9_allowance.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_judge_exact_lib as je  # noqa: E402
from bench_judge_exact import LABELS, grid  # noqa: E402

from evalstats_core.judge_budget import ppi_counts  # noqa: E402
from evalstats_core.judge_interval import jeffreys_limits  # noqa: E402

FLOOR, TOP, LEVEL = 0.93, 0.97, 0.95


class Split:
    """Every judge's exact coverage split into its tables with a disagreement (shipped, fixed) and without one."""

    def __init__(self, n: int, n_total: int, designs: list[tuple[float, float, float]]):
        self.n, self.n_total, self.designs = n, n_total, designs
        fixed, design_of, m1_of, p_of, mass, gap, t2 = [], [], [], [], [], [], []
        for i, (sens, spec, rate) in enumerate(designs):
            q, a, b = je.design(sens, spec, rate)
            k1, m1, k0, m0, w = je.tables(n, q, a, b)
            big_p, wp = je._support(n_total - n, q)
            total = float(w.sum() * wp.sum())
            zero = (k1 == m1) & (k0 == 0)
            shape = (int((~zero).sum()), big_p.size)
            args = [np.broadcast_to(x[~zero, None], shape) for x in (k1, m1, k0, m0)]
            lo, hi = je.shipped(*args, np.broadcast_to(big_p[None, :], shape), n_total, LEVEL)
            fixed.append(float(np.sum(w[~zero, None] * wp[None, :] * ((lo <= rate) & (rate <= hi)))) / total)
            zm1 = m1[zero]
            mm1, pp = (x.ravel() for x in np.meshgrid(zm1, big_p, indexing="ij"))
            lo, hi = ppi_counts(mm1, 0 * mm1, 0 * mm1, n - mm1, pp, n_total=n_total, confidence=LEVEL,
                                small_counts=False)
            design_of.append(np.full(mm1.size, i))
            m1_of.append(mm1.astype(int))
            p_of.append(pp.astype(int))
            mass.append((w[zero, None] * wp[None, :]).ravel() / total)
            gap.append((lo + hi) / 2 - rate)
            t2.append(((hi - lo) / 2) ** 2)
        self.fixed = np.array(fixed)
        self.design_of, self.m1_of, self.p_of, self.mass, self.gap, self.t2 = (
            np.concatenate(x) for x in (design_of, m1_of, p_of, mass, gap, t2))
        self.zero_share = np.bincount(self.design_of, self.mass, len(designs))
        self.by_m1 = [np.flatnonzero(self.m1_of == m) for m in range(n + 1)]

    def parts(self, a_lo: np.ndarray, a_hi: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Coverage of the no-disagreement tables (``rows`` of them, all by default) per judge."""
        rows = slice(None) if rows is None else rows
        m1, t2, gap = self.m1_of[rows], self.t2[rows], self.gap[rows]
        keep = t2 > 0  # the shipped interval adds no small-count terms when the t arm is 0
        lo = np.sqrt(t2 + keep * a_lo[m1] ** 2)
        hi = np.sqrt(t2 + keep * a_hi[m1] ** 2)
        hit = (gap <= lo) & (gap >= -hi)
        return np.bincount(self.design_of[rows], self.mass[rows] * hit, len(self.designs))

    def coverage(self, a_lo: np.ndarray, a_hi: np.ndarray) -> np.ndarray:
        return self.fixed + self.parts(a_lo, a_hi)


def shipped_allowance(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``A_lo[m1]``, ``A_hi[m1]`` of ``ppi_mean`` today on a table without a disagreement."""
    m = np.arange(n + 1, dtype=float)
    z2 = 1.959963984540054**2
    low, _ = jeffreys_limits(m, np.maximum(m, 1), z2)
    _, high = jeffreys_limits(0 * m, np.maximum(n - m, 1), z2)
    return np.where(m > 0, m / n * (1 - low), 0.0), np.where(m < n, (n - m) / n * high, 0.0)


def binomial_allowance(n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    m = np.arange(n + 1, dtype=float)
    one = np.where(m > 0, m / n * (1 - a ** (1 / np.maximum(m, 1))), 0.0)
    return one, one[::-1].copy()


def poisson_allowance(n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    m = np.arange(n + 1)
    arm = np.full(n + 1, np.log(1 / a) / n)
    return np.where(m > 0, arm, 0.0), np.where(m < n, arm, 0.0)


def smallest(split: Split, family, params: np.ndarray) -> tuple[float, np.ndarray] | None:
    """The first parameter along ``params`` (arms growing) whose coverage keeps every judge at the floor."""
    for x in params:
        cov = split.coverage(*family(split.n, x))
        if cov.min() >= FLOOR:
            return float(x), cov
    return None


def lookup(split: Split, start: tuple[np.ndarray, np.ndarray], rounds: int = 60, step: float = 0.93):
    """Shrink ``A_lo[m]``, ``A_hi[m]`` one at a time by ``step`` while every judge stays at the floor."""
    a_lo, a_hi = (x.copy() for x in start)
    cov = split.coverage(a_lo, a_hi)
    for _ in range(rounds):
        moved = False
        for m in range(split.n + 1):
            rows = split.by_m1[m]
            if rows.size == 0:
                continue
            for arr in (a_lo, a_hi):
                if arr[m] <= 1e-6:
                    continue
                old_part = split.parts(a_lo, a_hi, rows)
                keep = arr[m]
                arr[m] = keep * step
                trial = cov - old_part + split.parts(a_lo, a_hi, rows)
                if trial.min() >= FLOOR:
                    cov, moved = trial, True
                else:
                    arr[m] = keep
        if not moved:
            break
    return a_lo, a_hi, cov


def bound(split: Split, width: int = 10, step: float = 0.0025, top: float = 0.15):
    """The least possible maximum coverage with every judge at the floor over *any* arms, randomised or not, chosen
    per no-disagreement table and per bin of ``width`` unlabelled judge passes (the rest as shipped): a linear
    program. Arms take the values ``0, step, ..., top``; the variables are, per (side, cell), ``F_j`` = the
    probability that the arm is below ``step * j`` (nondecreasing in ``j``), so a table whose estimate sits ``g``
    above the truth misses low with probability ``F_j`` at the first grid value ``>= g`` (and always beyond
    ``top``). Lower and upper misses add. Returns ``(least maximum, coverage, cells)``, or None when no arms hold
    the floor."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, hstack, vstack

    grid_arms = np.arange(0.0, top + step / 2, step)
    k = grid_arms.size
    cells, cell = np.unique(split.m1_of * 100_000 + split.p_of // width, return_inverse=True)
    n_cells, n_des, per = cells.size, len(split.designs), k - 1
    n_f = 2 * n_cells * per
    const = np.zeros(n_des)
    rows, cols, vals = [], [], []
    for side, sign in enumerate((1.0, -1.0)):  # miss low: gap above the lower arm; miss high: below minus the upper
        at = np.searchsorted(grid_arms, sign * split.gap, side="left")  # misses iff arm < grid_arms[at]
        const += np.bincount(split.design_of, split.mass * (at >= k), n_des)
        use = (at >= 1) & (at < k)
        rows.append(split.design_of[use])
        cols.append(side * n_cells * per + cell[use] * per + at[use] - 1)
        vals.append(split.mass[use])
    miss = csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_des, n_f))
    chain = np.arange(n_f).reshape(2 * n_cells, per)[:, :-1].ravel()  # F_j - F_(j+1) <= 0
    mono = csr_matrix((np.r_[np.ones(chain.size), -np.ones(chain.size)],
                       (np.r_[np.arange(chain.size), np.arange(chain.size)], np.r_[chain, chain + 1])),
                      shape=(chain.size, n_f + 1))
    base = split.fixed + split.zero_share - const
    column = csr_matrix(np.ones((n_des, 1)))
    a_ub = vstack([hstack([miss, 0 * column]), hstack([-miss, -column]), mono]).tocsr()
    b_ub = np.concatenate([base - FLOOR, -base, np.zeros(chain.size)])
    cost = np.zeros(n_f + 1)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=[(0, 1)] * n_f + [(0, 1)], method="highs")
    if res.status != 0:
        return None
    return float(res.x[-1]), base - miss @ res.x[:-1], n_cells


def window(qs=(0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52, 0.53, 0.54), rates=np.arange(0.85, 0.995, 0.02)):
    """Judges (sensitivity and specificity 0.85-0.99) whose pass share ``q`` is near the near-perfect judge's at
    pass rate 0.5, at the true pass rate that gives each ``q``: every judge whose labels can look like its."""
    out = []
    for sens in rates:
        for spec in rates:
            for q in qs:
                out.append((round(float(sens), 2), round(float(spec), 2),
                            round((q - (1 - spec)) / (sens - (1 - spec)), 6)))
    return out


def line(name: str, split: Split, cov: np.ndarray) -> str:
    order = np.argsort(cov)
    d = split.designs
    ends = ", ".join(f"{d[i][0]:.2f}/{d[i][1]:.2f}@{d[i][2]}: {cov[i]:.4f}" for i in (*order[:2], *order[-2:]))
    return (f"{name:22} {split.n:3d} {cov.min():.4f} {cov.max():.4f} {np.sum(cov < FLOOR - 1e-7):4d} {np.sum(cov > TOP + 1e-7):4d}"
            f"   lowest two / highest two: {ends}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, nargs="+", default=[40, 30])
    parser.add_argument("--grid", default="fine", choices=("fine", "coarse", "p70", "small", "window"))
    parser.add_argument("--bound", type=int, default=0, help="also the linear program's least maximum, arms "
                        "chosen per table and per bin of this many unlabelled judge passes (0: not run)")
    parser.add_argument("--step", type=float, default=0.0025, help="the program's grid of arm values")
    parser.add_argument("--no-lookup", action="store_true", help="skip the lookup search")
    args = parser.parse_args()
    designs = window() if args.grid == "window" else grid(args.grid)
    near = designs.index((0.99, 0.99, 0.5)) if (0.99, 0.99, 0.5) in designs else None
    print(f"{'allowance':22} {'n':>3} {'min':>6} {'max':>6} {'<93%':>4} {'>97%':>4}")
    for n in args.labels:
        start = time.process_time()
        split = Split(n, LABELS[n], designs)
        zs = split.zero_share
        print(f"-- {n} labels of {LABELS[n]}: tables without a disagreement hold {zs.min():.3f}-{zs.max():.3f} "
              f"of a judge's evals ({time.process_time() - start:.0f} s CPU to split)")
        print(line("shipped", split, split.coverage(*shipped_allowance(n))))
        zeros = np.zeros(n + 1)
        print(line("none (A = 0)", split, split.coverage(zeros, zeros)))
        families = (("jeffreys x", lambda n, x: tuple(x * v for v in shipped_allowance(n)), np.linspace(0, 1.5, 151)),
                    ("binomial a", binomial_allowance, np.geomspace(0.5, 0.005, 200)),
                    ("poisson a", poisson_allowance, np.geomspace(0.5, 0.005, 200)))
        for name, family, params in families:
            found = smallest(split, family, params)
            if found is None:
                print(f"{name:22} {n:3d} never reaches the floor")
                continue
            x, cov = found
            print(line(f"{name} = {x:.3g}", split, cov))
        if not args.no_lookup:
            a_lo, a_hi, cov = lookup(split, shipped_allowance(n))
            print(line("lookup", split, cov))
            base_lo, base_hi = shipped_allowance(n)
            ratio = np.where(base_lo > 0, a_lo / np.where(base_lo > 0, base_lo, 1), np.nan)
            typical = np.flatnonzero(np.bincount(split.m1_of, split.mass, n + 1) > 1e-3)
            print(f"   lookup's A_lo / shipped at m1 = {typical.min()}..{typical.max()}: "
                  + " ".join(f"{r:.2f}" for r in ratio[typical]))
        if args.bound:
            got = bound(split, width=args.bound, step=args.step)
            if got is None:
                print(f"{'bound':22} {n:3d} no arms hold the floor")
            else:
                print(line(f"bound (LP, bins {args.bound})", split, got[1]) + f"   ({got[2]} cells)")
        if near is not None:
            need = (TOP - split.fixed[near]) / zs[near]
            floor = smallest(split, families[0][1], families[0][2])
            at_floor = split.parts(*families[0][1](n, floor[0]))[near] / zs[near] if floor else float("nan")
            print(f"   0.99/0.99@0.5: tables without a disagreement hold {zs[near]:.3f} of its evals; the others cover "
                  f"{split.fixed[near] / (1 - zs[near]):.4f} of theirs (shipped), so it reaches 97% only if those "
                  f"tables cover at most {need:.4f}; they cover {split.parts(zeros, zeros)[near] / zs[near]:.4f} "
                  f"with no allowance and {at_floor:.4f} at the floor's jeffreys x")
        print(f"   ({time.process_time() - start:.0f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
