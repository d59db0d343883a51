"""Harness readers at the floor (issue 44.3): the Inspect reader against a plain zip + json read of the same archive.

    .venv/bin/python bench/bench_readers.py [--samples 10000] [--repeat 5]

Writes a seeded Inspect ``.eval`` archive shaped like Inspect's (``header.json``, ``summaries.json`` and one
``samples/<id>_epoch_1.json`` member per sample, deflated) and times, alternately (``_timing.best_pair``, process
CPU time, so other load on a shared machine falls on both alike):

* floor: ``zipfile.ZipFile`` on the bytes, then ``json.loads`` of ``header.json`` and ``summaries.json``;
* ours: ``evalstats_core.data.load`` of the same bytes (sniff, read the archive, parse, bound the depth, build the
  records, validate): what the workbench and the CLI do with an uploaded log.

The target is at most 2.5x the floor. ``bench/bench_lm_eval.py`` does the same for lm-eval's samples files.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best_pair, one_blas_thread  # noqa: E402

one_blas_thread()

from evalstats_core.data import load  # noqa: E402


def inspect_archive(n: int, seed: int = 44) -> bytes:
    """A seeded Inspect .eval with ``n`` samples (scores C/I, metadata with a subject, usage, explanations)."""
    rng = random.Random(seed)
    samples = [{"id": i, "epoch": 1, "input": f"Question {i}: what is {i} + {i}?\nAnswer with a number.",
                 "target": str(2 * i), "scores": {"match": {"value": rng.choice("CI"), "answer": str(2 * i),
                                                            "explanation": f"The model said \"{2 * i}\"."}},
                 "metadata": {"subject": f"s{i % 7}", "level": i % 3},
                 "model_usage": {"m": {"input_tokens": 40 + i % 9, "output_tokens": 5}}} for i in range(n)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps({"version": 2, "status": "success",
                                               "eval": {"task": "arith", "model": "openai/gpt-x"}}))
        zf.writestr("summaries.json", json.dumps(samples))
        for s in samples:
            zf.writestr(f"samples/{s['id']}_epoch_1.json", json.dumps({**s, "messages": [], "events": []}))
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    data = inspect_archive(args.samples)

    def floor() -> None:
        zf = zipfile.ZipFile(io.BytesIO(data))
        json.loads(zf.read("header.json"))
        json.loads(zf.read("summaries.json"))

    def ours() -> None:
        load(data, name="log.eval")

    mine, ref = best_pair(ours, floor, args.repeat)
    print(f"Inspect .eval, {args.samples:,} samples ({len(data) / 2**20:.1f} MB): floor (zip + json) "
          f"{ref * 1000:.0f} ms CPU, ours (data.load) {mine * 1000:.0f} ms = {mine / ref:.2f}x the floor "
          f"(fastest of {args.repeat}; target <= 2.5x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
