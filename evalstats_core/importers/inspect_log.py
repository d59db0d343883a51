"""Inspect AI logs: ``.eval`` archives (a ZIP; deflate or zstd) and ``.json`` logs.

From a ``.eval`` only ``header.json`` (model, task, epochs) and the per-sample summaries
(``summaries.json``, or ``_journal/summaries/*.json`` for a run still being written) are read, never the
transcripts. The question is the sample ``id``; each ``epoch`` is a resample (averaged per question);
the score comes from Inspect's value mapping: ``C``/``P``/``I``/``N`` are 1, 0.5, 0, 0; numbers are
kept; ``yes``/``no`` and ``true``/``false`` are 1/0. With several scorers the user chooses one (default:
the first). The cluster is the ``metadata`` key the user names (``cluster_key``; the cluster column on the
command line), else a key named ``subject``, ``category``, ``group``, ``source`` or ``cluster``; every scalar
metadata key that all samples have is kept as a column ``metadata.<key>``, so the workbench can offer it
(and the guardrails can suggest it) as the cluster. Newer Inspect versions write zstd-compressed archives: read with the ``zstandard`` package.
"""

from __future__ import annotations

import io
import math
import zipfile
from typing import Any

from .._bounded import Budget, parse_json, zip_member
from .._records import CLUSTERED_ON, Records, from_columns
from .._sniff import zip_archive
from ..errors import EvalStatsError
from ..limits import Limits

__all__ = ["read_inspect", "value_to_score"]

_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0, "correct": 1.0, "incorrect": 0.0}
_CLUSTER_KEYS = ("subject", "category", "group", "source", "cluster")


def value_to_score(value: Any) -> float | None:
    """Inspect's value as a number (None when it has none, e.g. a dict value)."""
    if type(value) is str and value in _LETTERS:  # C/P/I/N as Inspect writes them
        return _LETTERS[value]
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an integer beyond any float (10**400)
            return None
    if isinstance(value, str):
        v = value.strip()
        if v in _LETTERS:
            return _LETTERS[v]
        if v.lower() in _WORDS:
            return _WORDS[v.lower()]
        try:
            return float(v)
        except ValueError:
            return None
    return None


#: At most this many metadata keys are kept as columns (for the cluster choice and the guardrails).
_META_COLUMNS = 20


def _metadata(samples: list[dict]) -> list[dict]:
    """Each sample's ``metadata`` (an empty dict where it has none or it is no object)."""
    return [m if isinstance(m := s.get("metadata"), dict) else {} for s in samples]


def metadata_keys(samples: list[dict], metadata: list[dict] | None = None) -> list[str]:
    """The metadata keys every sample has with a scalar value (text, number or bool), in first-seen order
    (``metadata``: :func:`_metadata` of the samples, when the caller has it)."""
    if not samples:
        return []
    scalar = (str, int, float, bool)
    mds = _metadata(samples) if metadata is None else metadata
    first = [str(k) for k, v in mds[0].items() if isinstance(v, scalar)]
    return [k for k in first if all(isinstance(m.get(k), scalar) for m in mds)]


def _sample_list(value: Any, name: str, where: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise EvalStatsError(f"{name} is an Inspect log whose {where} is not a list of samples "
                             f"({type(value).__name__}); give the log Inspect wrote, unchanged")
    return value


def _read_parts(data: bytes, name: str, archive: bool, limits: Limits) -> tuple[dict, list[dict]]:
    """The header and the sample summaries, every member read within the byte budget."""
    if not archive:
        header = parse_json(data, name, "Inspect JSON", limits)
        if not isinstance(header, dict):
            raise EvalStatsError(f"{name} is not an Inspect log (its JSON is a {type(header).__name__}, not an object)")
        return header, _sample_list(header.get("samples") or [], name, "'samples'")
    budget = Budget.of(limits, name)
    try:
        zf = zip_archive(data, release=True)  # the directory the sniffer read, not parsed again
        if zf is None:
            zf = zipfile.ZipFile(io.BytesIO(data))  # raises the damaged archive's own error (below)
        names = zf.namelist()

        def member(n: str) -> Any:  # one JSON member: within a quarter of the budget, charged to the file's
            inner = Budget.for_json(limits, name, budget)
            raw = zip_member(data, zf, n, inner)
            if inner is not budget:
                budget.take(len(raw))
            return parse_json(raw, f"{name} ({n})", "Inspect JSON", limits)

        header = member("header.json")
        if "summaries.json" in names:
            samples = _sample_list(member("summaries.json"), name, "summaries.json")
        else:
            samples = [s for n in sorted(x for x in names if x.startswith("_journal/summaries/"))
                       for s in _sample_list(member(n), name, n)]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError, KeyError) as exc:
        raise EvalStatsError(f"{name} is a damaged Inspect .eval archive ({type(exc).__name__}: {exc}); give the "
                             "log Inspect wrote, unchanged") from None
    except Exception as exc:  # noqa: BLE001 - a corrupt zstd/deflate stream raises its library's own error
        if isinstance(exc, EvalStatsError):
            raise
        raise EvalStatsError(f"{name} is a damaged Inspect .eval archive (a member cannot be decompressed: "
                             f"{type(exc).__name__}); give the log Inspect wrote, unchanged") from None
    if not isinstance(header, dict):
        raise EvalStatsError(f"{name} is an Inspect .eval whose header.json is not an object; give the log Inspect wrote")
    return header, samples


def _epoch(s: dict, name: str) -> int:
    value = s.get("epoch") or 1
    if type(value) is int and 0 <= value < 2**31:  # as Inspect writes it (bool is not int's own type)
        return value
    try:
        epoch = int(value) if not isinstance(value, float) or value.is_integer() else None
    except (TypeError, ValueError, OverflowError):
        epoch = None
    if epoch is None or isinstance(value, bool) or not 0 <= epoch < 2**31:
        raise EvalStatsError(f"sample {str(s.get('id'))[:60]!r} of {name} has epoch {str(value)[:40]!r}, which is not "
                             "a whole number of runs; give the log Inspect wrote, unchanged")
    return epoch


def read_inspect(data: bytes, name: str, *, scorer: str | None = None, model: str | None = None,
                 archive: bool = True, cluster_key: str | None = None, limits: Limits | None = None) -> Records:
    """The log as records of ``question, model, score, epoch[, cluster]`` and notes (see the module)."""
    header, samples = _read_parts(data, name, archive, limits or Limits.from_env())
    ev = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    who = model or ev.get("model")
    task = str(ev.get("task") or "task")
    dataset = ev.get("dataset") if isinstance(ev.get("dataset"), dict) else {}
    identity = f"task '{task}'" + (f", dataset '{dataset.get('name')}'" if dataset.get("name") else "")
    if not who:
        raise EvalStatsError(f"{name} is an Inspect log with no model name in its header; set the model name")
    if not samples:
        raise EvalStatsError(f"{name} is an Inspect log with no scored samples (status {header.get('status')!r}); "
                             "run the eval to the end, or give a log that has samples")
    scores_of = [s.get("scores") if isinstance(s.get("scores"), dict) else {} for s in samples]
    scorers = list(dict.fromkeys(str(k) for sc in scores_of for k in sc))
    if not scorers:
        raise EvalStatsError(f"{name} is an Inspect log whose {len(samples)} samples have no scores (run without a "
                             "scorer, or with --no-score); score it first (inspect score LOG) and give the scored log")
    chosen = scorer if scorer is not None else scorers[0]
    if chosen not in scorers:
        raise EvalStatsError(f"{name} has no scorer {chosen!r}; its scorers are: {', '.join(map(repr, scorers))} "
                             "(metric=)")
    mds = _metadata(samples)
    meta = metadata_keys(samples, mds)
    if cluster_key is not None:
        wanted = cluster_key.removeprefix("metadata.")
        if wanted not in meta:
            have = ", ".join(repr(k) for k in meta) if meta else "none"
            raise EvalStatsError(f"{name} has no metadata key {wanted!r} on every sample to cluster on; its samples' "
                                 f"metadata keys are: {have} (choose one of them as the cluster, or none)")
        keys = [wanted]
    else:
        keys = [k for k in _CLUSTER_KEYS if k in meta]
    cols: dict[str, list] = {"question": [], "score": [], "epoch": [], "cluster": []}
    unused: dict[str, list] = {f"metadata.{k}": [] for k in meta[:_META_COLUMNS]}
    kept = [(k, unused[f"metadata.{k}"]) for k in meta[:_META_COLUMNS]]
    for s, sc_all, md in zip(samples, scores_of, mds, strict=True):
        sc = sc_all.get(chosen)
        if sc is None:
            continue  # a sample this scorer did not score (an error): left out, counted below
        raw = sc.get("value") if isinstance(sc, dict) else sc
        v = value_to_score(raw)
        if v is None or not math.isfinite(v):
            raise EvalStatsError(f"sample {str(s.get('id'))[:60]!r} (epoch {str(s.get('epoch'))[:20]}) of {name} has "
                                 f"score value {str(raw)[:60]!r} for scorer {chosen!r}, which is not a finite number, "
                                 "C/P/I/N or yes/no")
        cols["question"].append(str(s.get("id")))
        cols["score"].append(v)
        cols["epoch"].append(_epoch(s, name))
        if keys:
            cols["cluster"].append(str(md[keys[0]]))
        for k, column in kept:
            column.append(str(md[k]))
    n = len(cols["question"])
    epochs = len(set(cols["epoch"]))
    notes = [f"{name}: Inspect log of task '{task}', model '{who}', scorer '{chosen}'"
             + (f" (others: {', '.join(x for x in scorers if x != chosen)})" if len(scorers) > 1 else "")
             + f", {epochs} epoch(s) per sample (resamples, averaged per question)"]
    if n < len(samples):
        notes.append(f"{len(samples) - n} samples have no '{chosen}' score and are left out")
    if keys:
        notes.append(f"metadata '{keys[0]}' is each sample's cluster"
                     + (" (chosen)" if cluster_key is not None else " (found by its name; choose another key, or none)")
                     + f": {CLUSTERED_ON}")
    return from_columns(name, "inspect_eval" if archive else "inspect_json", cols["question"], [str(who)] * n,
                        cols["score"], resample=cols["epoch"], cluster=cols["cluster"] if keys else None,
                        cluster_name=keys[0] if keys else None, identity=[identity] * n, unused=unused, notes=notes)
