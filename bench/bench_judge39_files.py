"""Issue 39's held-out check: FaithBench-like judged files through the reading path (load -> analyze -> section_for
-> corrected_analysis), seeded and bounded.

    .venv/bin/python bench/bench_judge39_files.py --files 20      # results/judge39_files.txt

Each file: 750 questions, 10 models (true accuracies 0.15-0.75), a lenient GPT-4o-like judge (sensitivity 0.9-0.97,
false passes 30-85% depending on the model); labels on a random 5%, 15% or 40% of the questions (every model's
answer to a labelled question), or chosen by the judge's verdict (a judge fail 6 times as likely to be labelled,
15% of the questions); and 0.4% of each model's answers labelled on their own (0-8 labels a model, almost no
question labelled for two: the refusals). The truth is the all-human mean of the file (every answer's hidden label). Per design over
``--files`` files: how many models and pairs are corrected or refused, whether any refused one shows a number
(must be 0), how often a corrected model's and pair's interval covers the all-human truth, and how many files are
flagged as labelled by the verdict.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalstats_core.analysis import analyze  # noqa: E402
from evalstats_core.data import load  # noqa: E402
from evalstats_core.errors import EvalStatsWarning  # noqa: E402
from evalstats_core.judge_apply import corrected_analysis  # noqa: E402
from evalstats_core.judge_io import section_for  # noqa: E402

N, MODELS = 750, 10


def make(rng: np.random.Generator, share: float, selected: bool, answers: bool = False) -> tuple[bytes, dict, dict]:
    rates = np.linspace(0.15, 0.75, MODELS)
    false_pass = np.linspace(0.85, 0.3, MODELS)
    truth, rows = {}, ["question,model,score,human"]
    judged = {}
    for j in range(MODELS):
        y = rng.random(N) < rates[j]
        f = np.where(y, rng.random(N) < 0.93, rng.random(N) < false_pass[j])
        judged[f"m{j}"] = (y, f)
        truth[f"m{j}"] = float(y.mean())
    if selected:  # by the first model's verdict (an audit of what the judge failed), per question
        f0 = judged["m0"][1]
        keys = -np.log1p(-rng.random(N)) / np.where(f0, 1.0, 6.0)
        lab = np.zeros(N, dtype=bool)
        lab[np.argsort(keys)[: int(share * N)]] = True
    else:
        lab = np.zeros(N, dtype=bool)
        lab[rng.choice(N, int(share * N), replace=False)] = True
    for m, (y, f) in judged.items():
        if answers:  # each model's answers labelled on their own (few questions labelled for two models)
            lab = rng.random(N) < share
        rows += [f"q{i},{m},{int(f[i])},{int(y[i]) if lab[i] else ''}" for i in range(N)]
    pairs = {(a, b): truth[a] - truth[b] for a in truth for b in truth if a != b}
    return ("\n".join(rows) + "\n").encode(), truth, pairs


def run(share: float, selected: bool, files: int, seed: int, answers: bool = False) -> str:
    cov = cov_p = n_m = n_p = refused = shown = flagged = 0
    for i in range(files):
        data, truth, pairs = make(np.random.default_rng([seed, int(1000 * share), int(selected), int(answers), i]), share,
                                  selected, answers)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvalStatsWarning)
            d = load(data, name="faithbench_like.csv")
            a = analyze(d, baseline="m9")
            c = corrected_analysis(a, section_for(d, a))
        flagged += any("chosen by the judge's verdict" in w for w in c.warnings)
        for m in c.models:
            if m.interval.startswith("not corrected"):
                refused += 1
                shown += not math.isnan(m.mean)
            else:
                n_m += 1
                cov += m.ci_low <= truth[m.model] <= m.ci_high
        for p in c.comparisons:
            if p.interval.startswith("not corrected"):
                refused += 1
                shown += not math.isnan(p.diff)
            else:
                n_p += 1
                cov_p += p.ci_low <= pairs[(p.model, p.baseline)] <= p.ci_high
    what = "chosen by verdict" if selected else "random answers" if answers else "random questions"
    return (f"{100 * share:4.1f}% {what:18s} files {files:3d}  models corrected {n_m:4d} covered {cov / max(n_m, 1):.3f}"
            f"  pairs corrected {n_p:4d} covered {cov_p / max(n_p, 1):.3f}  refused {refused:3d} with a number "
            f"{shown}  flagged {flagged}/{files}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--seed", type=int, default=39)
    args = ap.parse_args()
    start = time.time()
    lines = [run(share, sel, args.files, args.seed) for share, sel in ((0.05, False), (0.15, False), (0.40, False),
                                                                       (0.15, True))]
    lines.append(run(0.004, False, args.files, args.seed, answers=True))  # 0-8 labels a model: refusals
    lines.append(f"{args.files} files a design, seed {args.seed}, {time.time() - start:.0f} s")
    print("\n".join(lines))
    (ROOT / "bench" / "results" / "judge39_files.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
