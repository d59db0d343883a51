"""Write examples/pairwise_battles.tsv (tab-separated, so the results-file globs of *.csv leave it alone): seeded battles of four models judged by a judge with a taste per prompt.

    python examples/make_pairwise_example.py

150 prompts, 6 battles each (900 battles); a battle repeats its prompt's verdict on that pair half the time
(``copy=0.5``) and 12% of battles are judged even (``winner = tie``). True ratings: 1060, 1020, 1000, 920.
"""

from pathlib import Path

from evalstats_core.pairwise import simulate_battles

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    b = simulate_battles([1020, 1060, 920, 1000], n_prompts=150, per_prompt=6, copy=0.5, even=0.12, rng=2026,
                         names=("Galleon", "Dreadnought", "Corvette", "Frigate"))
    word = {1.0: "a", 0.0: "b", 0.5: "tie"}
    lines = ["prompt\tmodel_a\tmodel_b\twinner"]
    lines += [f"{p}\t{a}\t{c}\t{word[y]}" for p, a, c, y in zip(b.prompts, b.model_a, b.model_b, b.outcome, strict=True)]
    (HERE / "pairwise_battles.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
