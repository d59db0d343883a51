"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<date>.jsonl`` (+ ``results_*.json``).

One line per (document, filter), with the metric values as top-level numbers (``"acc": 1.0``). The
question is ``<task>:<doc_id>`` (the task is part of its identity, so two tasks are never paired); the model
comes from the caller's ``model``, else the ``results_<date>.json`` of the same run (the same date, in the
same folder; never another run's), else the folder's name (lm-eval writes ``<output>/<org>__<model>/``). A
results file is opened only when it is a regular file within the byte budget (a FIFO or a link to a device
is refused, never waited on). The filter and the metric are chosen by the
user (default: the first in the file), and the notes say which were used and which others exist. A task
that belongs to a group in the results file (MMLU's subjects) carries the task as its cluster.
"""

from __future__ import annotations

import gc
import json
import os
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._bounded import MAX_JSON_DEPTH, _constant, json_lines_depth, parse_json
from .._records import CLUSTERED_ON, Records, from_columns
from .._sniff import detect
from ..errors import EvalStatsError
from ..limits import Limits

__all__ = ["read_samples", "task_of", "date_of", "model_of_results", "pair_results", "run_of"]

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


def run_of(date: str | None) -> str | None:
    """The run's timestamp as shown in a model's name (``2026-11-25T17-21-19``: the fraction dropped)."""
    return None if date is None else date.split(".")[0]


def model_of_results(data: bytes) -> str | None:
    """The model a ``results_*.json`` names (None when it names none or cannot be read)."""
    try:
        doc = parse_json(data, "results file")
    except EvalStatsError:
        return None
    return _model_name(doc if isinstance(doc, dict) else None, None)


def _results_beside(path: Any, date: str | None, limits: Limits) -> dict | None:
    """The ``results_<date>.json`` of this run beside ``path``: only a regular file within the budget."""
    if path is None or date is None:
        return None
    found = Path(path).parent / f"results_{date}.json"
    try:
        st = os.stat(found)
        if not stat.S_ISREG(st.st_mode) or st.st_size > min(limits.max_bytes, 64 * 2**20):
            return None  # a FIFO, a device, a folder or a huge file: not a results file of lm-eval
        fd = os.open(found, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # swapped since the stat
                return None
            data = fh.read(64 * 2**20 + 1)
    except OSError:
        return None
    try:
        doc = parse_json(data, str(found.name))
    except EvalStatsError:
        return None
    return doc if isinstance(doc, dict) else None


def pair_results(sources: list[Any]) -> tuple[list[Any], dict[str, str], dict[str, dict]]:
    """Uploaded lm-eval ``results_<date>.json`` files name the model of the samples files of the same run
    (the same date) and say which tasks are subtasks of a group: they are taken out of the list, and their
    model names and documents kept for those files. A results file given by path is taken out when a samples
    file of its run is given from the same folder (that file reads it there, as the command line always did)."""
    by_date: dict[str, list[tuple[str | None, Any]]] = {}
    paths = {(Path(s).parent, date_of(s)) for s in sources if isinstance(s, str | os.PathLike)
             and date_of(s) and Path(s).name.startswith("samples_")}
    rest = []
    for source in sources:
        if isinstance(source, tuple) and detect(source[1]) == "lm_eval_results":
            date = date_of(source[0])
            try:
                doc = parse_json(source[1], str(source[0]))
            except EvalStatsError:
                doc = None
            if date:
                by_date.setdefault(date, []).append((_model_name(doc if isinstance(doc, dict) else None, None), doc))
            continue
        if isinstance(source, str | os.PathLike) and Path(source).name.startswith("results_") \
                and (Path(source).parent, date_of(source)) in paths:
            continue
        rest.append(source)
    named, docs = {}, {}
    for source in rest:
        runs = by_date.get(date_of(source[0])) if isinstance(source, tuple) else None
        if runs and len({m for m, _ in runs}) == 1:  # one model ran on that date: unambiguous
            if runs[0][0]:
                named[str(source[0])] = runs[0][0]
            if isinstance(runs[0][1], dict):
                docs[str(source[0])] = runs[0][1]
        elif runs:  # several models on that date: no model name, but the groups when every results file agrees
            groups = [d.get("group_subtasks") if isinstance(d, dict) else None for _, d in runs]
            if groups[0] and all(g == groups[0] for g in groups):
                docs[str(source[0])] = {"group_subtasks": groups[0]}
    return rest, named, docs


def _model_name(results: dict | None, path: Any) -> str | None:
    if isinstance(results, dict):
        if results.get("model_name"):
            return str(results["model_name"])
        config = results.get("config") if isinstance(results.get("config"), dict) else {}
        args = config.get("model_args")
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


def _keep(row: dict) -> dict:
    """Only the id, the filter, the metric names and the numbers (not the document or the responses)."""
    return {k: v for k, v in row.items() if k in ("doc_id", "filter", "metrics")
            or (k not in _NOT_METRICS and isinstance(v, int | float))}


def _fast_lines(data: bytes) -> list[dict] | None:
    """Every line parsed in one pass over text decoded once, the garbage collector paused (the parsed
    documents are dropped at once; collecting among them cost 3-7x the parse, issue 25); None when anything
    is odd (bad bytes, deep nesting, a line that is not an object), for :func:`_careful_lines` to name it."""

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if json_lines_depth(data) > MAX_JSON_DEPTH:
        return None
    rows, loads = [], json.JSONDecoder(parse_constant=_constant).decode
    enabled = gc.isenabled()
    gc.disable()
    try:
        for line in text.split("\n"):
            if not line.strip():
                continue
            row = loads(line)
            if not isinstance(row, dict):
                return None
            rows.append(_keep(row))
    except (ValueError, RecursionError):
        return None
    finally:
        if enabled:
            gc.enable()
    return rows


def _careful_lines(data: bytes, name: str) -> list[dict]:
    """Line by line, each checked on its own, so that the first bad line is named with the fix."""
    rows = []
    for i, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = parse_json(line, f"line {i} of {name}", "lm-eval JSON")
        except EvalStatsError as exc:
            if "is not valid" not in str(exc):
                raise  # too deep, or not UTF-8: the message says it
            raise EvalStatsError(f"line {i} of {name} is not JSON; an lm-eval samples file has one JSON object "
                                 "per line") from None
        if not isinstance(row, dict):
            raise EvalStatsError(f"line {i} of {name} is not a JSON object; an lm-eval samples file has one JSON "
                                 "object per line")
        rows.append(_keep(row))
    return rows


def _lines(data: bytes, name: str) -> list[dict]:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        parse_json(data, name, "lm-eval JSON")  # says: UTF-16, re-save as UTF-8
    rows = _fast_lines(data)
    if rows is None:
        rows = _careful_lines(data, name)
    if not rows:
        raise EvalStatsError(f"{name} is an lm-eval samples file with no samples")
    return rows


def _choose(rows: list[dict], name: str, metric: str | None, filter: str | None) -> tuple[str, list[str], str,
                                                                                           list[str], list[dict]]:
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for r in rows))
    chosen_filter = filter if filter is not None else filters[0]
    if chosen_filter not in filters:
        raise EvalStatsError(f"filter {chosen_filter!r} is not in {name}; its filters are: "
                             f"{', '.join(map(repr, filters))} (harness_filter=)")
    rows = [r for r in rows if str(r.get("filter", "none")) == chosen_filter]
    listed = rows[0].get("metrics") if isinstance(rows[0].get("metrics"), list) else []
    numeric = [k for k, v in rows[0].items() if k not in _NOT_METRICS and isinstance(v, int | float)
               and not isinstance(v, bool)]
    metrics = list(dict.fromkeys([*map(str, listed), *numeric]))
    chosen = metric if metric is not None else (metrics[0] if metrics else None)
    if chosen is None or chosen not in metrics:
        raise EvalStatsError(f"{name} has no metric {chosen!r}; its metrics are: {', '.join(map(repr, metrics))} "
                             "(metric=)")
    return chosen_filter, filters, chosen, metrics, rows


def read_samples(data: bytes, name: str, *, metric: str | None = None, filter: str | None = None,
                 model: str | None = None, path: Any = None, limits: Limits | None = None,
                 results: dict | None = None) -> Records:
    """The samples file as records of ``question, model, score[, cluster]`` and notes (see the module);
    ``results`` is its run's results document when it was uploaded beside it (else it is read beside ``path``)."""
    chosen_filter, filters, chosen, metrics, rows = _choose(_lines(data, name), name, metric, filter)
    date = date_of(path if path is not None else name)
    results = results if results is not None else _results_beside(path, date, limits or Limits.from_env())
    who = model or _model_name(results, path)
    if who is None:
        raise EvalStatsError(f"{name} is an lm-eval samples file with no model name: add the results_*.json beside "
                             "it (lm-eval writes both into the model's folder) or set the model name")
    task = task_of(name)
    group = None
    subtasks_of = (results or {}).get("group_subtasks")
    for g, subtasks in (subtasks_of.items() if isinstance(subtasks_of, dict) else ()):
        if isinstance(subtasks, list) and task in subtasks and len(subtasks) > 1:
            group = g
    scores, questions = [], []
    for i, r in enumerate(rows, start=1):
        v = r.get(chosen)
        if isinstance(v, bool):
            v = float(v)
        if not isinstance(v, int | float) or not _finite(v):
            raise EvalStatsError(f"sample {i} of {name} (doc_id {str(r.get('doc_id'))[:40]!r}) has no finite number "
                                 f"for metric {chosen!r}; choose another with metric=")
        scores.append(float(v))
        questions.append(f"{task}:{r.get('doc_id')}")
    notes = [f"{name}: lm-evaluation-harness samples of task '{task}', model '{who}', metric '{chosen}'"
             + (f" (others: {', '.join(m for m in metrics if m != chosen)})" if len(metrics) > 1 else "")
             + f", filter '{chosen_filter}'"
             + (f" (others: {', '.join(f for f in filters if f != chosen_filter)})" if len(filters) > 1 else "")]
    if group is not None:
        notes.append(f"task '{task}' is a subtask of group '{group}', the cluster of its questions: {CLUSTERED_ON}")
    records = from_columns(name, "lm_eval", questions, [str(who)] * len(rows), scores, resample=[0] * len(rows),
                           cluster=[task] * len(rows) if group is not None else None,
                           cluster_name="task" if group is not None else None, notes=notes)
    return _with_run(records, run_of(date), named=model is not None)


def _finite(v: float) -> bool:
    try:
        return abs(float(v)) < float("inf")
    except OverflowError:
        return False


def _with_run(records: Records, run: str | None, named: bool) -> Records:
    return replace(records, layout={**records.layout, "run": run, "named": named})


def name_runs(parts: list[Records]) -> list[Records]:
    """Two runs of one model (lm-eval samples of different dates naming the same model, e.g. repeated runs in
    one folder) become two models named by their run, ``"org/model (run 2026-11-25T17-21-19)"``, with a note;
    never one model whose answers are silently merged or renamed. Names the user gave are kept."""

    import pandas as pd  # heavy: kept off the small-CSV start-up (lm-eval logs only)

    runs: dict[str, set[str]] = {}
    for p in parts:
        if p.file_type == "lm_eval" and not p.layout.get("named") and p.layout.get("run"):
            for m in p.m_labels:
                runs.setdefault(str(m), set()).add(p.layout["run"])
    twice = {m for m, r in runs.items() if len(r) > 1}
    if not twice:
        return parts
    out = []
    for p in parts:
        if p.file_type == "lm_eval" and p.layout.get("run") and not p.layout.get("named") and set(
                map(str, p.m_labels)) & twice:
            labels = pd.Index([f"{m} (run {p.layout['run']})" if m in twice else str(m) for m in p.m_labels],
                              dtype="str")
            note = (f"{p.name}: model '{', '.join(sorted(set(map(str, p.m_labels)) & twice))}' has two runs "
                    f"among the files: this one is named by its run ({p.layout['run']})")
            p = replace(p, m_labels=labels, notes=(*p.notes, note))
        out.append(p)
    return out
