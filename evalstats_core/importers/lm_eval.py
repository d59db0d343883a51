"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<date>.jsonl`` (+ ``results_*.json``).

One line per (document, filter), with the metric values as top-level numbers (``"acc": 1.0``). The
question is ``<task>:<doc_id>``; the model comes from the ``results_*.json`` beside the file
(``model_name``, or ``config.model_args``'s ``pretrained=``), else the folder's name (lm-eval writes
``<output>/<org>__<model>/``), else the caller's ``model``. The filter and the metric are chosen by the
user (default: the first in the file), and the notes say which were used and which others exist. A task
that belongs to a group in the results file (MMLU's subjects) carries the task as its cluster.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import EvalStatsError

__all__ = ["read_samples", "task_of", "date_of", "model_of_results"]

_SAMPLES = re.compile(r"^samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.jsonl$")
_NOT_METRICS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
                "prompt_hash", "target_hash"}


def task_of(name: str) -> str:
    """The task named in ``samples_<task>_<date>.jsonl`` (the whole stem when the name has another form)."""
    base = Path(str(name)).name
    m = _SAMPLES.match(base)
    return m.group("task") if m else Path(base).stem.removeprefix("samples_")


def date_of(name: str) -> str | None:
    """The run's date in ``samples_<task>_<date>.jsonl`` or ``results_<date>.json`` (it ties them together)."""
    base = Path(str(name)).name
    m = _SAMPLES.match(base) or re.match(r"^results_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.json$", base)
    return m.group("date") if m else None


def model_of_results(data: bytes) -> str | None:
    """The model a ``results_*.json`` names (None when it names none)."""
    try:
        return _model_name(json.loads(data.decode("utf-8-sig")), None)
    except ValueError:
        return None


def _results_beside(path: Any) -> dict | None:
    if path is None:
        return None
    folder = Path(path).parent
    found = sorted(folder.glob("results_*.json"))
    if not found:
        return None
    try:
        return json.loads(found[-1].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _model_name(results: dict | None, path: Any) -> str | None:
    if results:
        if results.get("model_name"):
            return str(results["model_name"])
        args = (results.get("config") or {}).get("model_args")
        if isinstance(args, dict) and args.get("pretrained"):
            return str(args["pretrained"])
        if isinstance(args, str):
            m = re.search(r"pretrained=([^,]+)", args)
            if m:
                return m.group(1)
    if path is not None:
        folder = Path(path).parent.name
        if "__" in folder:
            return folder.replace("__", "/")
    return None


def read_samples(data: bytes, name: str, *, metric: str | None = None, filter: str | None = None,
                 model: str | None = None, path: Any = None) -> tuple[pd.DataFrame, list[str]]:
    """The samples file as ``question, model, score, epoch[, cluster]`` and notes (see the module)."""
    rows = []
    for i, line in enumerate(data.decode("utf-8-sig", errors="strict").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError:
            raise EvalStatsError(f"line {i} of {name} is not JSON; an lm-eval samples file has one JSON object "
                                 "per line") from None
    if not rows:
        raise EvalStatsError(f"{name} is an lm-eval samples file with no samples")
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for r in rows))
    chosen_filter = filter if filter is not None else filters[0]
    if chosen_filter not in filters:
        raise EvalStatsError(f"filter {chosen_filter!r} is not in {name}; its filters are: "
                             f"{', '.join(map(repr, filters))} (--filter)")
    rows = [r for r in rows if str(r.get("filter", "none")) == chosen_filter]
    listed = [str(m) for m in rows[0].get("metrics") or []]
    numeric = [k for k, v in rows[0].items() if k not in _NOT_METRICS and isinstance(v, int | float)
               and not isinstance(v, bool)]
    metrics = list(dict.fromkeys([*listed, *numeric]))
    chosen = metric if metric is not None else (metrics[0] if metrics else None)
    if chosen is None or chosen not in metrics:
        raise EvalStatsError(f"{name} has no metric {chosen!r}; its metrics are: {', '.join(map(repr, metrics))} "
                             "(--metric)")
    results = _results_beside(path)
    who = model or _model_name(results, path)
    if who is None:
        raise EvalStatsError(f"{name} is an lm-eval samples file with no model name: add the results_*.json beside "
                             "it (lm-eval writes both into the model's folder) or set the model name")
    task = task_of(name)
    group = None
    for g, subtasks in ((results or {}).get("group_subtasks") or {}).items():
        if task in (subtasks or []) and len(subtasks) > 1:
            group = g
    scores, questions = [], []
    for i, r in enumerate(rows, start=1):
        v = r.get(chosen)
        if isinstance(v, bool):
            v = float(v)
        if not isinstance(v, int | float):
            raise EvalStatsError(f"sample {i} of {name} (doc_id {r.get('doc_id')!r}) has no number for metric "
                                 f"{chosen!r}; choose another with --metric")
        scores.append(float(v))
        questions.append(f"{task}:{r.get('doc_id')}")
    frame = pd.DataFrame({"question": questions, "model": who, "score": scores, "epoch": 0})
    if group is not None:
        frame["cluster"] = task
        frame.attrs["cluster_name"] = "task"  # the table names the cluster column "task"
    notes = [f"{name}: lm-evaluation-harness samples of task '{task}', model '{who}', metric '{chosen}'"
             + (f" (others: {', '.join(m for m in metrics if m != chosen)})" if len(metrics) > 1 else "")
             + f", filter '{chosen_filter}'"
             + (f" (others: {', '.join(f for f in filters if f != chosen_filter)})" if len(filters) > 1 else "")]
    if group is not None:
        notes.append(f"task '{task}' is a subtask of group '{group}': it is the cluster of its questions")
    return frame, notes
