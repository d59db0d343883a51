"""JSON records as a results table (private to the reader protocol): read as a CSV would be.

========================  ==================================================================================
:func:`is_records`        JSON Lines (one object a line) or a JSON list of objects, by content
:func:`records_table`     the records as an Arrow table of text columns, one a key (nested keys joined by ``.``)
========================  ==================================================================================

:func:`evalstats_core.data.load` reads the table with the column rules of a CSV or Parquet file (the same
roles, synonyms and errors; a message says "keys" and "record" where a CSV's says "columns" and "row"). Every
value becomes text as a CSV cell would be (``true``/``false``, numbers as written, ``null`` an empty cell; a
list or an object its JSON), so the scores are read by the one rule for text scores. Two shapes that harnesses
write are recognised by their keys and given the roles they mean:

- **FastChat MT-Bench judgments** (``data/mt_bench/model_judgment/*_single.jsonl``: ``question_id, model,
  judge, score, turn``): each turn of a question is a question (``<question_id>/turn<turn>``) clustered on its
  ``question_id``, and a score of -1 (the judge gave no rating) is left out, as FastChat's ``show_result`` does,
  with a note. Pairwise judgment files (``model_1, model_2``, no ``score``) are not scores and are refused.
- **HELM per-instance predictions** (``display_predictions.json``: ``instance_id, train_trial_index, stats``):
  the question is ``instance_id``, the trial a resample, the score ``stats.<metric>`` (``metric=``,
  else the first of :data:`HELM_METRICS` present), the model the ``model=`` part of the run's folder name (or
  ``model_name=``); perturbed instances are left out with a note.

Read through :mod:`evalstats_core._bounded`'s limits: no more JSON text than ``json_limit`` at once, nesting
at most ``MAX_JSON_DEPTH``.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

from ._bounded import MAX_JSON_DEPTH, _constant, json_limit, json_lines_depth, parse_json
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["HELM_METRICS", "is_records", "records_table"]

#: HELM's per-instance statistics that are scores, in the order one is chosen when none is named.
HELM_METRICS = ("exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match",
                "f1_score", "rouge_l", "bleu_4", "math_equiv", "math_equiv_chain_of_thought")


def is_records(data: bytes) -> bool:
    """JSON records: the text starts with ``{`` (a harness log was ruled out first) or with a list of objects."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        return True
    if head.startswith(b"[") and head[1:].lstrip(b" \t\r\n")[:1] in (b"{", b"]"):
        return True
    first, _, rest = head.partition(b"\n")  # JSON Lines whose first line is not an object (null, a number): its
    return _json_scalar(first.strip()) and rest.lstrip(b" \t\r\n")[:1] == b"{"  # records' check names that line


def _json_scalar(line: bytes) -> bool:
    """A line that is one JSON value other than an object or a list (``null``, ``true``, ``3``, ``"x"``)."""
    try:
        value = json.loads(line)
    except ValueError:  # not JSON (UnicodeDecodeError is a ValueError)
        return False
    return not isinstance(value, dict | list)


def _json_kind(value: Any) -> str:
    """A JSON value's kind in JSON's words (``null``, not Python's ``NoneType``)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return {int: "a number", float: "a number", str: "a string", list: "a list"}.get(type(value), type(value).__name__)


def _parse(data: bytes, label: str, limits: Limits) -> list[Any]:
    """Every record of ``data``: a JSON list, one JSON value (refused below unless a list), or JSON Lines."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"["):
        return parse_json(data, label, "JSON", limits)
    if len(data) > json_limit(limits):
        parse_json(data, label, "JSON Lines", limits)  # says: too large to read at once, and how to raise it
    if json_lines_depth(data) > MAX_JSON_DEPTH:
        raise EvalStatsError(f"{label} nests JSON more than {MAX_JSON_DEPTH} levels deep; give one flat object "
                             "a line (question, model, score)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        parse_json(data, label, "JSON Lines")  # says which line holds the bad byte
        raise
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line, parse_constant=_constant))
        except json.JSONDecodeError as exc:
            if number == 1 and len(records) == 0:  # one JSON document over several lines: an object, or bad JSON
                whole = parse_json(data, label, "JSON", limits)
                keys = ", ".join(repr(k) for k in list(whole)[:12]) if isinstance(whole, dict) else ""
                raise EvalStatsError(f"{label} holds one JSON object (keys: {keys}), not records; give one object "
                                     "per line (JSON Lines), or a JSON list of objects, each with a question, a "
                                     "model and a score") from None
            raise EvalStatsError(f"{label} is not JSON Lines: line {number} is not one JSON object ({exc.msg}, "
                                 f"column {exc.colno}); give one object per line") from None
        except ValueError:  # an integer of more than 4,300 digits (Python's int_max_str_digits), issue 46
            raise EvalStatsError(f"line {number} of {label} holds a number too long to read (over 4,300 digits); "
                                 "scores must be ordinary numbers: fix that line") from None
    return records


def _cell(value: Any) -> str | None:
    """A JSON value as the text a CSV cell would hold (None: an empty cell)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _flat(record: dict, prefix: str = "") -> dict[str, Any]:
    """``record`` with nested objects' keys joined by ``.`` (``stats.exact_match``)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{name}."))
        else:
            out[name] = value
    return out


def _fastchat(records: list[dict], notes: list[str]) -> list[dict]:
    """MT-Bench single-answer judgments: one question per (question, turn), clustered on the question."""
    kept = [r for r in records if r.get("score") != -1]
    if len(kept) < len(records):
        gone = len(records) - len(kept)
        notes.append(f"{gone:,} judgment{'s' if gone != 1 else ''} with score -1 (the judge gave no rating) left out, "
                     "as FastChat's show_result does")
    return [{"question": f"{r['question_id']}/turn{r.get('turn', 1)}", "model": r.get("model"),
             "score": r.get("score"), "cluster": r["question_id"]} for r in kept]


def _helm(records: list[dict], label: str, metric: str | None, model: str | None, path: Any,
          notes: list[str]) -> tuple[list[dict], str]:
    """HELM per-instance predictions: question = instance_id, resample = trial, score = stats[metric]."""
    if model is None and path is not None:
        folder = os.path.basename(os.path.dirname(os.path.abspath(os.fspath(path))))
        found = re.search(r"(?:^|[,:])model=([^,]+)", folder)
        model = found.group(1) if found else None
    if model is None:
        raise EvalStatsError(f"{label} holds HELM predictions, which do not name their model; give it with "
                             "model_name='NAME', or keep the file in its run folder "
                             "(…,model=org_name)")
    kept = [r for r in records if not r.get("perturbation")]
    if len(kept) < len(records):
        gone = len(records) - len(kept)
        notes.append(f"{gone:,} perturbed instance{'s' if gone != 1 else ''} left out (HELM's robustness and "
                     "fairness variants); the analysis is of the unperturbed ones")
    stats = {k for r in kept for k, v in (r.get("stats") or {}).items() if isinstance(v, int | float)}
    chosen = metric if metric is not None else next((m for m in HELM_METRICS if m in stats), None)
    if chosen not in stats:
        raise EvalStatsError(f"{label} holds HELM predictions {'without the statistic ' + repr(metric) if metric else 'with no score statistic'}; "
                             f"its stats are: {', '.join(sorted(stats)) or 'none'}; choose one with "
                             "metric='NAME'")
    if metric is None:
        notes.append(f"score: HELM's {chosen!r} (others: {', '.join(sorted(stats - {chosen})) or 'none'}; "
                     "metric= chooses)")
    return [{"question": r.get("instance_id"), "model": model, "score": (r.get("stats") or {}).get(chosen),
             "trial": r.get("train_trial_index", 0)} for r in kept], chosen


def records_table(data: bytes, label: str, limits: Limits, *, metric: str | None = None, model: str | None = None,
                  path: Any = None) -> tuple[Any, list[str], str | None]:
    """The records of ``data`` as an Arrow table of text columns (one per key, in first-seen order), the notes
    on what was left out or chosen, and the column numbering resamples (HELM's trial) or None.

    Raises
    ------
    EvalStatsError
        Not JSON records (one object, bad JSON, a record that is not an object), or none at all.
    """
    import pyarrow as pa  # heavy: JSON records only, never a CSV

    records = _parse(data, label, limits)
    if not isinstance(records, list):
        raise EvalStatsError(f"{label} holds one JSON value, not records; give a JSON list of objects or one "
                             "object per line")
    bad = next((k for k, r in enumerate(records, 1) if not isinstance(r, dict)), None)
    if bad is not None:
        raise EvalStatsError(f"record {bad} of {label} is {_json_kind(records[bad - 1])}, not a JSON object; every "
                             "record must be an object with a question, a model and a score: fix or remove it")
    if not records:
        raise EvalStatsError(f"{label} holds no records; give one object per answer (question, model, score)")
    notes: list[str] = []
    resample = None
    first = records[0]
    if {"question_id", "model", "judge", "score", "turn"} <= set(first):
        records = _fastchat(records, notes)
    elif {"model_1", "model_2", "question_id"} <= set(first) and "score" not in first:
        raise EvalStatsError(f"{label} holds pairwise judgments (which of model_1 and model_2 won), not scores; "
                             "give FastChat's single-answer judgments (*_single.jsonl)")
    elif {"instance_id", "stats"} <= set(first) and isinstance(first.get("stats"), dict):
        records, _ = _helm(records, label, metric, model, path, notes)
        resample = "trial"
    flat = [_flat(r) for r in records]
    keys: dict[str, None] = {}
    for r in flat:
        keys.update(dict.fromkeys(r))
    table = pa.table({k: pa.array([_cell(r.get(k)) for r in flat], pa.string()) for k in keys})
    return table, notes, resample
