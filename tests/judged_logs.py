"""Two Inspect logs (model-a, model-b) built from tests/fixtures/inspect/model-a.json with human labels on the
judge's 0/1 scale, given twice: as a third scorer 'human' and as a metadata key 'human_label' per sample and model
(seeded; model-b's judge flips 30% of the verdicts, the humans disagree with the judge on 10% / 30%)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parent / "fixtures" / "inspect" / "model-a.json"


def two_logs() -> list[tuple[str, bytes]]:
    base = json.loads(SOURCE.read_text(encoding="utf-8"))
    rng = np.random.default_rng(3)
    out = []
    for model, flip in (("mockllm/model-a", 0.1), ("mockllm/model-b", 0.3)):
        log = copy.deepcopy(base)
        log["eval"]["model"] = model
        for s in log["samples"]:
            verdict = s["scores"]["match"]["value"]
            if model.endswith("b") and rng.random() < 0.3:
                s["scores"]["match"]["value"] = "I" if verdict == "C" else "C"
            human = (s["scores"]["match"]["value"] == "C") != (rng.random() < flip)
            s["scores"]["human"] = {"value": "C" if human else "I", "history": []}
            s["metadata"]["human_label"] = int(human)
        out.append((f"{model.split('/')[1]}.json", json.dumps(log).encode()))
    return out
