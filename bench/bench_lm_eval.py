"""lm-eval samples files: our reader against a per-line ``json.loads`` of the same file (issue 25: <= 2x).

    python bench/bench_lm_eval.py                 # 100,000 lines, best of 3
    python bench/bench_lm_eval.py --lines 20000

Writes a seeded ``samples_<task>_<date>.jsonl`` shaped like lm-evaluation-harness's ``--log_samples`` output
(document, arguments, responses, hashes, two metrics per line) and times, best of ``--repeat``:

* floor: ``[json.loads(line) for line in data.splitlines()]`` on the bytes already in memory (the issue's
  reference), and the same with the garbage collector paused (``gc.disable()``: the kept documents make
  Python's collector walk them again and again; this is the stricter floor);
* ours: ``evalstats_core.importers.lm_eval.read_samples`` on the same bytes (parse, keep the fields that
  are used, the records of question, model and score).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402

from evalstats_core.importers.lm_eval import read_samples  # noqa: E402


def samples(n: int, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        choices = ["one", "two", "three", "four"]
        logp = [f"{-rng.random() * 3:.16f}" for _ in choices]
        row = {"doc_id": i, "doc": {"question": f"question {i}", "choices": choices, "answer": i % 4},
               "target": str(i % 4),
               "arguments": {f"gen_args_{k}": {"arg_0": f"Question: question {i}\nAnswer:", "arg_1": f" {c}"}
                             for k, c in enumerate(choices)},
               "resps": [[[p, "False"]] for p in logp], "filtered_resps": [[p, "False"] for p in logp],
               "filter": "none", "metrics": ["acc", "acc_norm"], "doc_hash": f"{rng.getrandbits(256):064x}",
               "prompt_hash": f"{rng.getrandbits(256):064x}", "target_hash": f"{rng.getrandbits(256):064x}",
               "acc": float(rng.random() < 0.6), "acc_norm": float(rng.random() < 0.65)}
        out.append(json.dumps(row))
    return ("\n".join(out) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = samples(args.lines)
    name = "samples_quiz_2026-01-02T03-04-05.000006.jsonl"
    floor = best(lambda: [json.loads(line) for line in data.splitlines()], args.repeat)
    gc.disable()
    try:
        quiet = best(lambda: [json.loads(line) for line in data.splitlines()], args.repeat)
    finally:
        gc.enable()
    ours = best(lambda: read_samples(data, name, model="m"), args.repeat)
    print(f"{args.lines:,} lines, {len(data) / 1e6:.0f} MB, best of {args.repeat}")
    print(f"floor: per-line json.loads      {floor:6.3f} s")
    print(f"floor: the same, gc paused      {quiet:6.3f} s")
    print(f"ours:  read_samples             {ours:6.3f} s   ratio {ours / floor:4.2f}x  (target <= 2x); "
          f"{ours / quiet:4.2f}x the gc-paused floor")


if __name__ == "__main__":
    main()
