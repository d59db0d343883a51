"""Inspect AI logs: ``.eval`` archives (a ZIP; deflate or zstd) and ``.json`` logs.

From a ``.eval`` only ``header.json`` (model, task, epochs) and the per-sample summaries
(``summaries.json``, or ``_journal/summaries/*.json`` for a run still being written) are read, never the
transcripts. The question is the sample ``id``; each ``epoch`` is a resample (averaged per question);
the score comes from Inspect's value mapping: ``C``/``P``/``I``/``N`` are 1, 0.5, 0, 0; numbers are
kept; ``yes``/``no`` and ``true``/``false`` are 1/0. With several scorers the user chooses one (default:
the first). The cluster is the ``metadata`` key the user names (``cluster_key``; ``--cluster-col`` on the
command line), else a key named ``subject``, ``category``, ``group``, ``source`` or ``cluster``; every scalar
metadata key that all samples have is kept as a column ``metadata.<key>``, so the workbench can offer it
(and the guardrails can suggest it) as the cluster. Newer Inspect versions write zstd-compressed archives: read with the ``zstandard`` package.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from typing import Any

import pandas as pd

from ..errors import EvalStatsError

__all__ = ["read_inspect", "value_to_score"]

_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0, "correct": 1.0, "incorrect": 0.0}
_CLUSTER_KEYS = ("subject", "category", "group", "source", "cluster")


def value_to_score(value: Any) -> float | None:
    """Inspect's value as a number (None when it has none, e.g. a dict value)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
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


def _member(data: bytes, zf: zipfile.ZipFile, name: str) -> bytes:
    """One archive member's bytes; zstd members (method 93) are decompressed with ``zstandard``."""
    info = zf.getinfo(name)
    if info.compress_type != 93:
        return zf.read(name)
    try:
        import zstandard
    except ImportError:
        raise EvalStatsError("this Inspect .eval log is zstd-compressed; install the 'zstandard' package "
                             "(pip install zstandard) to read it") from None
    start = info.header_offset
    fn_len, extra_len = struct.unpack("<HH", data[start + 26:start + 30])  # the local file header
    begin = start + 30 + fn_len + extra_len
    raw = data[begin:begin + info.compress_size]
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=max(info.file_size, 1))


#: At most this many metadata keys are kept as columns (for the cluster choice and the guardrails).
_META_COLUMNS = 20


def metadata_keys(samples: list[dict]) -> list[str]:
    """The metadata keys every sample has with a scalar value (text, number or bool), in first-seen order."""
    if not samples:
        return []
    scalar = (str, int, float, bool)
    first = [k for k, v in (samples[0].get("metadata") or {}).items() if isinstance(v, scalar)]
    return [k for k in first if all(isinstance((s.get("metadata") or {}).get(k), scalar) for s in samples)]


def read_inspect(data: bytes, name: str, *, scorer: str | None = None, model: str | None = None,
                 archive: bool = True, cluster_key: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The log as ``question, model, score, epoch[, cluster]`` and notes (see the module)."""
    if archive:
        zf = zipfile.ZipFile(io.BytesIO(data))
        names = zf.namelist()
        header = json.loads(_member(data, zf, "header.json"))
        if "summaries.json" in names:
            samples = json.loads(_member(data, zf, "summaries.json"))
        else:
            samples = [s for n in sorted(x for x in names if x.startswith("_journal/summaries/"))
                       for s in json.loads(_member(data, zf, n))]
    else:
        header = json.loads(data.decode("utf-8-sig"))
        samples = header.get("samples") or []
    ev = header.get("eval") or {}
    who = model or ev.get("model")
    task = ev.get("task") or "task"
    if not who:
        raise EvalStatsError(f"{name} is an Inspect log with no model name in its header; set the model name")
    if not samples:
        raise EvalStatsError(f"{name} is an Inspect log with no scored samples (status {header.get('status')!r}); "
                             "run the eval to the end, or give a log that has samples")
    scorers = list(dict.fromkeys(k for s in samples for k in (s.get("scores") or {})))
    if not scorers:
        raise EvalStatsError(f"{name} is an Inspect log whose {len(samples)} samples have no scores (run without a "
                             "scorer, or with --no-score); score it first (inspect score LOG) and give the scored log")
    chosen = scorer if scorer is not None else (scorers[0] if scorers else None)
    if chosen is None or chosen not in scorers:
        raise EvalStatsError(f"{name} has no scorer {chosen!r}; its scorers are: {', '.join(map(repr, scorers))} "
                             "(--metric)")
    meta = metadata_keys(samples)
    if cluster_key is not None:
        wanted = cluster_key.removeprefix("metadata.")
        if wanted not in meta:
            have = ", ".join(repr(k) for k in meta) if meta else "none"
            raise EvalStatsError(f"{name} has no metadata key {wanted!r} on every sample to cluster on; its samples' "
                                 f"metadata keys are: {have} (choose one of them as the cluster, or none)")
        keys = [wanted]
    else:
        keys = [k for k in _CLUSTER_KEYS if k in meta]
    rows = []
    for s in samples:
        sc = (s.get("scores") or {}).get(chosen)
        if sc is None:
            continue  # a sample this scorer did not score (an error): left out, counted below
        v = value_to_score(sc.get("value") if isinstance(sc, dict) else sc)
        if v is None:
            raise EvalStatsError(f"sample {s.get('id')!r} (epoch {s.get('epoch')}) of {name} has score value "
                                 f"{sc.get('value')!r} for scorer {chosen!r}, which is not a number, C/P/I/N or yes/no")
        row = {"question": str(s.get("id")), "model": str(who), "score": v, "epoch": int(s.get("epoch") or 1)}
        md = s.get("metadata") or {}
        if keys:
            row["cluster"] = str(md[keys[0]])
        for k in meta[:_META_COLUMNS]:
            row[f"metadata.{k}"] = str(md[k])
        rows.append(row)
    frame = pd.DataFrame(rows)
    if keys:
        frame.attrs["cluster_name"] = keys[0]  # the table names the cluster by its metadata key
    epochs = int(frame["epoch"].nunique()) if len(frame) else 0
    notes = [f"{name}: Inspect log of task '{task}', model '{who}', scorer '{chosen}'"
             + (f" (others: {', '.join(x for x in scorers if x != chosen)})" if len(scorers) > 1 else "")
             + f", {epochs} epoch(s) per sample (resamples, averaged per question)"]
    if len(rows) < len(samples):
        notes.append(f"{len(samples) - len(rows)} samples have no '{chosen}' score and are left out")
    if keys:
        notes.append(f"metadata '{keys[0]}' is each sample's cluster"
                     + (" (chosen)" if cluster_key is not None else " (found by its name; choose another key, or none)"))
    return frame, notes
