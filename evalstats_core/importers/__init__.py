"""Importers for evaluation harnesses' own output: each turns a log into the tidy answers table.

=========================  ====================================================================================
:func:`detect`             which harness wrote these bytes (by content, never by the file name's extension)
:func:`import_log`         the log as a long frame ``question, model, score, epoch[, cluster]``
``lm_eval``                lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (+ ``results_*.json``)
``inspect_log``            Inspect AI ``.eval`` archives (deflate or zstd) and ``.json`` logs
``promptfoo``              promptfoo ``--output results.json``
=========================  ====================================================================================

:func:`evalstats_core.data.load` calls :func:`detect` first, so a harness log goes wherever a results
CSV goes (the workbench, the command line, the API), and :func:`evalstats_core.data.load_many` joins one
file per model on the question. Several epochs (Inspect) are resamples: averaged per question, never pooled.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import EvalStatsError

__all__ = ["FORMATS", "detect", "import_log"]

#: Harness formats, as :func:`detect` names them.
FORMATS = {"lm_eval": "an lm-evaluation-harness samples file",
           "lm_eval_results": "an lm-evaluation-harness results file (it names the model of its samples files)",
           "inspect_eval": "an Inspect .eval log",
           "inspect_json": "an Inspect JSON log", "promptfoo": "a promptfoo results file"}


def detect(data: bytes) -> str | None:
    """The harness format of ``data`` (a key of :data:`FORMATS`), or None for anything else (a results CSV)."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if data[:4] == b"PK\x03\x04":
        import io
        import zipfile

        try:
            names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
        except (zipfile.BadZipFile, OSError, ValueError):
            return None
        return "inspect_eval" if "header.json" in names and ("summaries.json" in names or any(
            n.startswith("_journal/") for n in names)) else None
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        if b'"doc_id"' in first and (b'"resps"' in first or b'"filtered_resps"' in first or b'"doc"' in first):
            return "lm_eval"
        if b'"eval"' in head and (b'"samples"' in data[:1 << 20] or b'"results"' in head) and b'"task"' in head:
            return "inspect_json"
        if b'"results"' in head and (b'"evalId"' in head or b'"promptfoo' in data[:1 << 16] or b'"testIdx"' in data[:1 << 20]):
            return "promptfoo"
        if b'"results"' in head and (b'"lm_eval_version"' in data or b'"n-samples"' in data or b'"group_subtasks"' in data):
            return "lm_eval_results"
    return None


def import_log(data: bytes, name: str, *, metric: str | None = None, filter: str | None = None,
               model: str | None = None, path: Any = None,
               cluster: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """``(frame, notes)``: the log as ``question, model, score, epoch[, cluster]`` and what was chosen.

    Parameters
    ----------
    data, name : the file's bytes and name (for messages).
    metric : the lm-eval metric (``acc``, ``acc_norm``, ``exact_match``) or the Inspect scorer; default: the
        first the log lists (the notes say which, and which others there are).
    filter : the lm-eval filter (``none``, ``strict-match``...); default: the task's first.
    model : the model's name, when the log cannot say it (an lm-eval samples file without its results file).
    path : the file's path, when it has one (lm-eval: the results file beside it, and the folder's name).
    cluster : the Inspect ``metadata`` key to cluster on (default: one named subject, category, group, source
        or cluster). lm-eval samples are clustered by their subtask and promptfoo results are not clustered,
        so naming a cluster for them is an error rather than silently ignored.
    """
    kind = detect(data)
    if cluster is not None and kind not in ("inspect_eval", "inspect_json"):
        what = {"lm_eval": "an lm-evaluation-harness samples file (clustered by its subtask when several subtask "
                           "files are given)", "promptfoo": "a promptfoo results file"}.get(kind, "this file")
        raise EvalStatsError(f"{name} is {what}: a cluster column applies to Inspect logs' metadata keys only; "
                             "leave the cluster to the importer")
    if kind == "lm_eval":
        from .lm_eval import read_samples

        return read_samples(data, name, metric=metric, filter=filter, model=model, path=path)
    if kind in ("inspect_eval", "inspect_json"):
        from .inspect_log import read_inspect

        return read_inspect(data, name, scorer=metric, model=model, archive=kind == "inspect_eval",
                            cluster_key=cluster)
    if kind == "lm_eval_results":
        raise EvalStatsError(f"{name} is an lm-evaluation-harness results file: it holds only summary scores; give "
                             "the samples_<task>_<date>.jsonl files written with --log_samples (with this file "
                             "beside them, or uploaded with them)")
    if kind == "promptfoo":
        from .promptfoo import read_promptfoo

        return read_promptfoo(data, name)
    raise EvalStatsError(f"{name} is not a harness log this version reads (lm-evaluation-harness samples, Inspect "
                         ".eval/.json, promptfoo results)")
