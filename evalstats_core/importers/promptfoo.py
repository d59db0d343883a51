"""promptfoo ``promptfoo eval --output results.json``: provider = model, test = question.

Each entry of ``results.results`` (or a top-level ``results`` list in older files) is one (test, provider)
cell: the question is the test's index (``testIdx``), and what the test *is* (its description, else its
``vars``) is the question's identity, so two files whose test 3 differs are refused, never paired. The score
is ``score`` (a number), else ``success`` (true/false as 1/0).
"""

from __future__ import annotations

import json
import math

from .._bounded import parse_json
from .._records import Records, from_columns
from ..errors import EvalStatsError
from ..limits import Limits

__all__ = ["read_promptfoo"]


def _entries(doc: object, name: str) -> list[dict]:
    res = doc.get("results") if isinstance(doc, dict) else None
    entries = res.get("results") if isinstance(res, dict) else res
    if not isinstance(entries, list) or not entries:
        raise EvalStatsError(f"{name} is a promptfoo results file with no results")
    bad = next((i for i, e in enumerate(entries) if not isinstance(e, dict)), None)
    if bad is not None:
        raise EvalStatsError(f"result {bad} of {name} is not an object; give the file promptfoo wrote, unchanged")
    return entries


def _test(e: dict) -> tuple[str, str]:
    """(the test's index or label, what the test is: its description, else its vars)."""
    case = e.get("testCase") if isinstance(e.get("testCase"), dict) else {}
    what = case.get("description") or e.get("description")
    if not what:
        what = json.dumps(e.get("vars") if e.get("vars") is not None else case.get("vars") or {}, sort_keys=True,
                          default=str)[:500]
    test = e.get("testIdx")
    return str(test if test is not None else what), str(what)


def read_promptfoo(data: bytes, name: str, *, model: str | None = None, limits: Limits | None = None) -> Records:
    """The results as records of ``question, model, score`` and notes."""
    entries = _entries(parse_json(data, name, "promptfoo JSON", limits or Limits.from_env()), name)
    questions, models, scores, identity = [], [], [], []
    for i, e in enumerate(entries):
        prov = e.get("provider")
        who = (prov.get("label") or prov.get("id")) if isinstance(prov, dict) else prov
        if not who or not isinstance(who, str | int | float):
            raise EvalStatsError(f"result {i} of {name} has no provider; promptfoo results name the provider of each")
        score = e.get("score")
        if not isinstance(score, int | float) or isinstance(score, bool):
            if not isinstance(e.get("success"), bool):
                raise EvalStatsError(f"result {i} of {name} has neither a numeric score nor success true/false")
            score = float(e["success"])
        try:
            score = float(score)
        except OverflowError:
            score = math.inf
        if not math.isfinite(score):
            raise EvalStatsError(f"result {i} of {name} has score {str(e.get('score'))[:40]}, which is not a finite "
                                 "number; give the file promptfoo wrote, unchanged")
        test, what = _test(e)
        questions.append(f"test {test}")
        models.append(str(who))
        scores.append(score)
        identity.append(what)
    providers = list(dict.fromkeys(models))
    if model is not None:
        if len(providers) > 1:
            raise EvalStatsError(f"{name} holds {len(providers)} providers ({', '.join(map(repr, providers[:5]))}): "
                                 "each is a model under its own name, so one model name cannot be given for it")
        models = [model] * len(models)
    return from_columns(name, "promptfoo", questions, models, scores, resample=[0] * len(models), identity=identity,
                        notes=[f"{name}: promptfoo results, {len(providers)} provider(s) as models, "
                               f"{len(set(questions))} tests as questions"], what="result")
