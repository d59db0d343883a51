"""Importers for evaluation harnesses' own output: each turns a log into the reader protocol's records.

=========================  ====================================================================================
:func:`detect`             which harness wrote these bytes (by content; :func:`evalstats_core._sniff.detect`)
:func:`import_records`     the log as :class:`~evalstats_core._records.Records` (question, model, score, epoch...)
``lm_eval``                lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (+ ``results_*.json``)
``inspect_log``            Inspect AI ``.eval`` archives (deflate or zstd) and ``.json`` logs
``promptfoo``              promptfoo ``--output results.json``
=========================  ====================================================================================

:func:`evalstats_core.data.load` calls :func:`detect` first, so a harness log goes wherever a results
CSV goes (the workbench, the command line, the API), and :func:`evalstats_core.data.load_many` joins one
file per model on the question. Several epochs (Inspect) are resamples: averaged per question, never pooled.
Every importer reads archives and JSON through :mod:`evalstats_core._bounded` (a byte budget on what is
decompressed, a depth limit on JSON) and maps every failure of an odd file to one
:class:`~evalstats_core.errors.EvalStatsError` naming the file, the place and the fix.
"""

from __future__ import annotations

from typing import Any

from .._records import Records
from .._sniff import FORMATS, detect
from ..errors import EvalStatsError
from ..limits import Limits
from .inspect_log import read_inspect
from .lm_eval import read_samples
from .promptfoo import read_promptfoo

__all__ = ["FORMATS", "detect", "import_records"]


def import_records(data: bytes, name: str, kind: str | None = None, *, metric: str | None = None,
                   filter: str | None = None, model: str | None = None, path: Any = None,
                   cluster: str | None = None, limits: Limits | None = None, results: dict | None = None) -> Records:
    """The log as :class:`Records`: one row per (sample, epoch), and what was chosen in the notes.

    Parameters
    ----------
    data, name : the file's bytes and name (for messages).
    kind : what :func:`detect` said (found again when None).
    metric : the lm-eval metric (``acc``, ``acc_norm``, ``exact_match``) or the Inspect scorer; default: the
        first the log lists (the notes say which, and which others there are).
    filter : the lm-eval filter (``none``, ``strict-match``...); default: the task's first.
    model : the model's name, when the log cannot say it (or says it wrongly).
    path : the file's path, when it has one (lm-eval: the results file of its run beside it, the folder's name).
    cluster : the Inspect ``metadata`` key to cluster on (default: one named subject, category, group, source
        or cluster). lm-eval samples are clustered by their subtask (``"task"``, the one name they take: with
        fewer than :data:`~evalstats_core._records.FOUND_CLUSTERS` subtasks only when chosen) and promptfoo
        results are not clustered, so naming another cluster for them is an error rather than silently ignored.
    limits : the byte budget for what archives decompress to (default :meth:`Limits.from_env`).
    """
    kind = kind or detect(data)
    limits = limits or Limits.from_env()
    if cluster is not None and kind not in ("inspect_eval", "inspect_json") and (kind, cluster) != ("lm_eval", "task"):
        what = {"lm_eval": "an lm-evaluation-harness samples file (clustered by its subtask when several subtask "
                           "files are given)", "promptfoo": "a promptfoo results file"}.get(kind, "this file")
        raise EvalStatsError(f"{name} is {what}: a cluster column applies to Inspect logs' metadata keys (and "
                             "lm-eval's cluster_col='task') only; leave the cluster to the importer")
    if kind == "lm_eval":

        return read_samples(data, name, metric=metric, filter=filter, model=model, path=path, limits=limits,
                            results=results)
    if kind in ("inspect_eval", "inspect_json"):

        return read_inspect(data, name, scorer=metric, model=model, archive=kind == "inspect_eval",
                            cluster_key=cluster, limits=limits)
    if kind == "lm_eval_results":
        raise EvalStatsError(f"{name} is an lm-evaluation-harness results file: it holds only summary scores; give "
                             "the samples_<task>_<date>.jsonl files written with --log_samples (with this file "
                             "beside them, or uploaded with them)")
    if kind == "promptfoo":

        return read_promptfoo(data, name, model=model, limits=limits)
    raise EvalStatsError(f"{name} is not a harness log this version reads (lm-evaluation-harness samples, Inspect "
                         ".eval/.json, promptfoo results)")
