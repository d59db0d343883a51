"""promptfoo ``promptfoo eval --output results.json``: provider = model, test = question.

Each entry of ``results.results`` (or a top-level ``results`` list in older files) is one (test, provider)
cell: the question is the test's index (``testIdx``, with its ``vars`` as the readable label) and the score
is ``score`` (a number), else ``success`` (true/false as 1/0).
"""

from __future__ import annotations

import json

import pandas as pd

from ..errors import EvalStatsError

__all__ = ["read_promptfoo"]


def read_promptfoo(data: bytes, name: str) -> tuple[pd.DataFrame, list[str]]:
    """The results as ``question, model, score, epoch`` and notes."""
    doc = json.loads(data.decode("utf-8-sig"))
    res = doc.get("results")
    entries = res.get("results") if isinstance(res, dict) else res
    if not isinstance(entries, list) or not entries:
        raise EvalStatsError(f"{name} is a promptfoo results file with no results")
    rows = []
    for i, e in enumerate(entries):
        prov = e.get("provider")
        who = prov.get("label") or prov.get("id") if isinstance(prov, dict) else prov
        if not who:
            raise EvalStatsError(f"result {i} of {name} has no provider; promptfoo results name the provider of each")
        test = e.get("testIdx", e.get("testCase", {}).get("description") if isinstance(e.get("testCase"), dict)
                     else None)
        if test is None:
            test = json.dumps(e.get("vars") or {}, sort_keys=True)
        score = e.get("score")
        if not isinstance(score, int | float) or isinstance(score, bool):
            if not isinstance(e.get("success"), bool):
                raise EvalStatsError(f"result {i} of {name} has neither a numeric score nor success true/false")
            score = float(e["success"])
        rows.append({"question": f"test {test}", "model": str(who), "score": float(score), "epoch": 0})
    frame = pd.DataFrame(rows)
    return frame, [f"{name}: promptfoo results, {frame['model'].nunique()} provider(s) as models, "
                   f"{frame['question'].nunique()} tests as questions"]
