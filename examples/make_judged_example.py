"""Regenerate ``examples/judged_3_models.csv``: an LLM-judged eval with a random 15% human-labelled subset.

    python examples/make_judged_example.py      # rewrites judged_3_models.csv beside this script

How it is made (numpy seed 2023, so the file is the same every time):

* 2,000 questions; three invented models whose answers are truly correct with probability
  ``TRUE_RATES`` (Atlas 0.72, Breeze 0.68, Cirrus 0.60), each answer drawn independently;
* an LLM judge grades every answer. It passes a truly correct answer with probability 0.97
  (sensitivity) and passes a truly wrong one with probability 0.45 (specificity 0.55); with Breeze,
  whose answers are longer, it is more lenient still: it passes a wrong answer with probability 0.65
  (specificity 0.35). The judge's verdict is the ``score`` column;
* humans re-grade a simple random sample of 300 of the 2,000 questions (15%), all three models'
  answers to each, without error: their verdict is the ``human`` column, blank elsewhere.

So the judge over-states every model, Breeze most, and ranks Breeze above Atlas although Atlas is
better. The true accuracies of the answers in the file (every answer's hidden truth, averaged) are
printed by this script and kept in ``TRUTH`` below for the tests; ``evalbars analyze
examples/judged_3_models.csv`` finds the ``human`` column and reports the corrected (PPI++) estimates.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_QUESTIONS, N_LABELLED, SEED = 2000, 300, 2023
TRUE_RATES = {"Atlas": 0.72, "Breeze": 0.68, "Cirrus": 0.60}
SENSITIVITY = 0.97
SPECIFICITY = {"Atlas": 0.55, "Breeze": 0.35, "Cirrus": 0.55}
#: The realised true accuracy of each model's 2,000 answers (printed by main(); checked by the tests).
TRUTH = {"Atlas": 0.724, "Breeze": 0.6855, "Cirrus": 0.5935}


def make(rng: np.random.Generator) -> tuple[list[list[object]], dict[str, float]]:
    """The rows ``question, model, score, human`` and each model's realised true accuracy."""
    labelled = np.zeros(N_QUESTIONS, dtype=bool)
    labelled[rng.choice(N_QUESTIONS, N_LABELLED, replace=False)] = True
    rows: list[list[object]] = []
    truth = {}
    cols = {}
    for model, rate in TRUE_RATES.items():
        correct = rng.random(N_QUESTIONS) < rate
        u = rng.random(N_QUESTIONS)
        judge = np.where(correct, u < SENSITIVITY, u < 1 - SPECIFICITY[model])
        cols[model] = (correct, judge)
        truth[model] = float(correct.mean())
    for i in range(N_QUESTIONS):
        for model, (correct, judge) in cols.items():
            rows.append([f"q{i + 1:04d}", model, int(judge[i]), int(correct[i]) if labelled[i] else ""])
    return rows, truth


def main(out: Path = HERE) -> dict[str, float]:
    rows, truth = make(np.random.default_rng(SEED))
    with open(out / "judged_3_models.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["question", "model", "score", "human"])
        writer.writerows(rows)
    return truth


if __name__ == "__main__":
    print(main())
