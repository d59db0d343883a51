"""Issue 39's coverage grid for the corrected (PPI++) interval of ``ppi_mean``, seeded and bounded.

    .venv/bin/python bench/bench_judge39_grid.py --reps 2000            # the whole grid (results/judge39_grid_<reps>.txt)
    .venv/bin/python bench/bench_judge39_grid.py --reps 200 --quick     # a few cells
    .venv/bin/python bench/bench_judge39_grid.py --pairs --reps 500     # paired differences (results/judge39_pairs_<reps>.txt)

Cells: judge sensitivity {0.6, 0.8, 0.99} x specificity {0.5, 0.8, 0.99} x the model's true accuracy (pass rate)
{0.5, 0.95} x {30, 300} human labels (a simple random sample of 1,000 questions) x {no clusters, 12 unequal
clusters} (``judge_sim.judged_rows``: the truth is the super-population pass rate). Per cell and ``reps``
replications (``rng = [seed, cell]``):

* ``cover``: the corrected 95% interval (``judge_rows.ppi_rows``, the numbers ``ppi_mean`` gives) covers the
  truth; ``width``: its mean width; ``zero``: replications whose interval has zero width (must be 0);
* ``human``: the mean width of the human-only interval (``summarize`` on the labelled rows alone, as the
  judge section reports it; on the first ``--human-reps`` replications);
* ``ppi_py``: coverage and mean width of ``ppi_py.ppi_mean_ci`` (z interval, no clusters; on the first
  ``--ppi-reps`` replications).

Criteria (issue 39, "Decision"): cover >= 93% in every cell (over-coverage reported, not capped); width <= the
human-only width in every cell; width <= 1.15 x ppi_py's where ppi_py covers >= 93%.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalstats_core.clustering import summarize  # noqa: E402
from evalstats_core.errors import EvalStatsError, EvalStatsWarning  # noqa: E402
from evalstats_core.judge_rows import pair_human_only, ppi_pair_rows, ppi_rows  # noqa: E402
from evalstats_core.judge_sim import judged_rows, true_mean  # noqa: E402

N_TOTAL = 1000
SENS, SPEC, ACC, LABELS, CLUSTERS = (0.6, 0.8, 0.99), (0.5, 0.8, 0.99), (0.5, 0.95), (30, 300), (0, 12)


def _human_width(truth: np.ndarray, lab: np.ndarray, codes: np.ndarray | None, reps: int,
                 width: np.ndarray) -> tuple[float, float, int]:
    """Mean human-only width and the corrected interval's mean width on the same first ``reps`` replications,
    and how many of them have a corrected interval wider than the human-only one."""
    widths, ours = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for r in range(min(reps, truth.shape[0])):
            groups = None if codes is None else codes[lab[r]]
            try:
                s = summarize(truth[r, lab[r]], groups, confidence=0.95)
            except EvalStatsError:
                continue
            widths.append(s.ci_high - s.ci_low)
            ours.append(width[r])
    if not widths:
        return float("nan"), float("nan"), 0
    w, o = np.array(widths), np.array(ours)
    return float(w.mean()), float(o.mean()), int(np.sum(o > w + 1e-12))


def _ppi_py(truth: np.ndarray, judge: np.ndarray, lab: np.ndarray, target: float, reps: int) -> tuple[float, float]:
    from ppi_py import ppi_mean_ci  # the oracle (tests/bench only)

    hits, widths = [], []
    for r in range(min(reps, truth.shape[0])):
        lo, hi = ppi_mean_ci(truth[r, lab[r]], judge[r, lab[r]], judge[r, ~lab[r]], alpha=0.05)
        lo, hi = float(np.ravel(lo)[0]), float(np.ravel(hi)[0])
        hits.append(lo <= target <= hi)
        widths.append(hi - lo)
    return float(np.mean(hits)), float(np.mean(widths))


def cell(sens: float, spec: float, acc: float, n_lab: int, k: int, reps: int, seed: int, index: int,
         human_reps: int, ppi_reps: int) -> dict:
    truth, judge, lab, codes = judged_rows(N_TOTAL, n_lab, reps, sensitivity=sens, specificity=spec, pass_rate=acc,
                                           n_clusters=k, rng=[seed, index])
    target = true_mean(acc, bool(k))
    _, _, _, _, low, high = ppi_rows(judge, truth, lab, codes)
    width = high - low
    out = dict(sens=sens, spec=spec, acc=acc, labels=n_lab, clusters=k, reps=reps,
               cover=float(np.mean((low <= target) & (target <= high))), width=float(width.mean()),
               zero=int(np.sum(width <= 0)))
    out["human"], out["width_same"], out["wider_evals"] = _human_width(truth, lab, codes, human_reps, width)
    out["ppi_cover"], out["ppi_width"] = _ppi_py(truth, judge, lab, target, ppi_reps)
    return out


def pair_cell(sens: float, spec: float, acc: float, n_lab: int, k: int, reps: int, seed: int, index: int) -> dict:
    """A paired difference A - B (B's pass rate ``acc - 0.1``, the judge 0.1 more lenient with B's fails, as
    ``judge_sim.judge_compare_coverage``), both models' answers labelled on A's random subset: coverage and width of
    ``judge_rows.ppi_pair_rows`` (``ppi_compare``'s numbers, the pair's HUMAN_ONLY rule included) and of the labelled
    rows' own paired interval (``compare`` on them), evals wider than it (must be 0)."""
    acc_b, spec_b = acc - 0.1, max(spec - 0.1, 0.0)
    ya, fa, lab, codes = judged_rows(N_TOTAL, n_lab, reps, sensitivity=sens, specificity=spec, pass_rate=acc,
                                     n_clusters=k, rng=[seed, index, 0])
    yb, fb, _, _ = judged_rows(N_TOTAL, n_lab, reps, sensitivity=sens, specificity=spec_b, pass_rate=acc_b,
                               n_clusters=k, rng=[seed, index, 1])
    target = true_mean(acc, bool(k)) - true_mean(acc_b, bool(k))
    _, _, _, lam, low, high = ppi_pair_rows(fa, ya, fb, yb, lab, codes)
    own_w, own_hit = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for r in range(reps):
            c = pair_human_only(ya[r, lab[r]], yb[r, lab[r]], None if codes is None else codes[lab[r]], 0.95)
            own_w.append(c.ci_high - c.ci_low if c is not None else np.inf)
            own_hit.append(c is not None and c.ci_low <= target <= c.ci_high)
    width = high - low
    return dict(cover=float(np.mean((low <= target) & (target <= high))), width=float(width.mean()),
                human=float(np.mean(own_w)), human_cover=float(np.mean(own_hit)),
                wider_evals=int(np.sum(width > np.array(own_w) + 1e-12)), taken=int(np.sum(lam == 0.0)),
                zero=int(np.sum(width <= 0)))


def pairs_main(args: argparse.Namespace) -> None:
    """``--pairs``: the paired grid (sens {0.6, 0.99} x spec {0.5, 0.99} x acc {0.6, 0.95} x labels x clusters)."""
    grid = list(itertools.product((0.6, 0.99), (0.5, 0.99), (0.6, 0.95), LABELS, CLUSTERS))
    head = (f"{'sens':>5} {'spec':>5} {'acc':>5} {'lab':>4} {'K':>3} {'cover':>6} {'width':>6} {'own':>6} "
            f"{'own_cov':>7} {'lam=0':>5} {'zero':>4}  flags")
    print(head, flush=True)
    lines, rows, start = [head], [], time.time()
    for i, (sens, spec, acc, n_lab, k) in enumerate(grid):
        r = pair_cell(sens, spec, acc, n_lab, k, args.reps, args.seed, i)
        flags = [f for f, bad in (("UNDER", r["cover"] < 0.93), ("over", r["cover"] > 0.97),
                                  (f"wider-in-{r['wider_evals']}-evals", r["wider_evals"]),
                                  ("ZERO-WIDTH", r["zero"])) if bad]
        line = (f"{sens:5.2f} {spec:5.2f} {acc:5.2f} {n_lab:4d} {k:3d} {r['cover']:6.3f} {r['width']:6.3f} "
                f"{r['human']:6.3f} {r['human_cover']:7.3f} {r['taken']:5d} {r['zero']:4d}  {' '.join(flags)}")
        print(line, flush=True)
        lines.append(line)
        rows.append(r)
    cov = np.array([r["cover"] for r in rows])
    summary = ["", f"pairs: {len(rows)} cells x {args.reps} replications; seed {args.seed}; {time.time() - start:.0f} s",
               f"coverage {cov.min():.3f} to {cov.max():.3f}; below 93%: {int((cov < 0.93).sum())}; above 97%: "
               f"{int((cov > 0.97).sum())}",
               f"evals wider than the labelled rows' own paired interval: {sum(r['wider_evals'] for r in rows)}; "
               f"evals with lam = 0 (PPI++ clipped at 0, or the labels' own interval taken): {sum(r['taken'] for r in rows)}; zero-width: {sum(r['zero'] for r in rows)}"]
    print("\n".join(summary))
    out = ROOT / "bench" / "results" / f"judge39_pairs_{args.reps}.txt"
    out.write_text("\n".join(lines + summary) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--human-reps", type=int, default=300)
    ap.add_argument("--ppi-reps", type=int, default=500)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--pairs", action="store_true", help="the paired difference's grid instead (pair_cell)")
    args = ap.parse_args()
    if args.pairs:
        pairs_main(args)
        return
    grid = list(itertools.product(SENS, SPEC, ACC, LABELS, CLUSTERS))
    if args.quick:
        grid = grid[::9]
    rows, start = [], time.time()
    head = (f"{'sens':>5} {'spec':>5} {'acc':>5} {'lab':>4} {'K':>3} {'cover':>6} {'width':>6} {'human':>6} "
            f"{'ppi_cov':>7} {'ppi_w':>6} {'zero':>4}  flags")
    print(head, flush=True)
    lines = [head]
    for i, (sens, spec, acc, n_lab, k) in enumerate(grid):
        r = cell(sens, spec, acc, n_lab, k, args.reps, args.seed, i, args.human_reps, args.ppi_reps)
        flags = []
        if r["cover"] < 0.93:
            flags.append("UNDER")
        if r["cover"] > 0.97:
            flags.append("over")
        if not r["width_same"] <= r["human"]:
            flags.append("WIDER-THAN-HUMAN")
        if r["wider_evals"]:
            flags.append(f"wider-in-{r['wider_evals']}-evals")
        if r["ppi_cover"] >= 0.93 and r["width"] > 1.15 * r["ppi_width"]:
            flags.append("WIDER-THAN-1.15xPPI")
        if r["zero"]:
            flags.append("ZERO-WIDTH")
        line = (f"{sens:5.2f} {spec:5.2f} {acc:5.2f} {n_lab:4d} {k:3d} {r['cover']:6.3f} {r['width']:6.3f} "
                f"{r['human']:6.3f} {r['ppi_cover']:7.3f} {r['ppi_width']:6.3f} {r['zero']:4d}  {' '.join(flags)}")
        print(line, flush=True)
        lines.append(line)
        rows.append(r)
    cov = np.array([r["cover"] for r in rows])
    summary = [
        "",
        f"{len(rows)} cells x {args.reps} replications (human-only width on {args.human_reps}, ppi_py on "
        f"{args.ppi_reps}); seed {args.seed}; {time.time() - start:.0f} s",
        f"coverage {cov.min():.3f} to {cov.max():.3f}; below 93%: {int((cov < 0.93).sum())}; above 97% (reported, "
        f"not capped): {int((cov > 0.97).sum())}",
        f"width above the human-only width (on the same replications): "
        f"{sum(not r['width_same'] <= r['human'] for r in rows)} cells; evals wider than their human-only "
        f"interval: {sum(r['wider_evals'] for r in rows)}",
        f"width above 1.15 x ppi_py's where ppi_py covers >= 93%: "
        f"{sum(r['ppi_cover'] >= 0.93 and r['width'] > 1.15 * r['ppi_width'] for r in rows)} cells",
        f"zero-width intervals: {sum(r['zero'] for r in rows)}",
    ]
    print("\n".join(summary))
    if not args.quick:
        out = ROOT / "bench" / "results" / f"judge39_grid_{args.reps}.txt"
        out.write_text("\n".join(lines + summary) + "\n")


if __name__ == "__main__":
    main()
