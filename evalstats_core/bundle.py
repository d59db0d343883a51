"""A shareable analysis: the data as Parquet plus the settings, in one ZIP that the workbench reopens.

====================  ============================================================================
:func:`make_bundle`   ZIP bytes holding ``data.parquet`` (the loaded scores, tidy and long) and
                      ``settings.json`` (the workbench's settings and the command line that reruns it)
:func:`read_bundle`   the Parquet bytes, file name and settings back; ``None`` for any other file
====================  ============================================================================

A link to the workbench carries its settings only, never an uploaded file; the bundle carries both.
The Parquet holds the columns ``question, model, score[, cluster]`` the analysis ran on (every answer,
so resamples stay resamples), which the loader detects by name. Nothing executable goes in or comes
out: the settings are JSON and are checked by the page against its own choices and bounds.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ._bounded import Budget, parse_json, zip_member
from ._sniff import is_bundle, zip_archive
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["Bundle", "make_bundle", "read_bundle", "MARKER"]

#: ``settings.json`` of a bundle carries this key (its value is the format version).
MARKER = "evalstats_bundle"
#: The Parquet schema metadata key that says how the bundle's data is read (its resample column).
META_KEY = b"evalstats"
_MAX_SETTINGS_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Bundle:
    """An opened analysis bundle: ``data`` (Parquet bytes), the original file ``name`` and ``settings``."""

    data: bytes
    name: str
    settings: dict


def make_bundle(dataset: Any, settings: dict[str, Any], *, use_clusters: bool = True) -> bytes:
    """ZIP bytes of ``dataset.frame`` as ``data.parquet`` and ``settings`` (JSON-safe values) as JSON.

    ``use_clusters=False`` leaves the cluster column out, so the reopened analysis is not clustered.

    Examples
    --------
    >>> from evalstats_core.data import load
    >>> ds = load(b"question,A,B\\nq1,1,0\\nq2,0,0\\nq3,1,1\\n", name="r.csv")
    >>> b = read_bundle(make_bundle(ds, {"analyze_confidence": 0.9}))
    >>> b.name, b.settings["analyze_confidence"], load(b.data, name="r.parquet").n_questions
    ('r.csv', 0.9, 3)
    """

    frame = dataset.frame
    if not use_clusters and "cluster" in frame.columns:
        frame = frame.drop(columns=["cluster"])
    if "resample" not in frame.columns and len(frame) > frame[["question", "model"]].drop_duplicates().shape[0]:
        # repeated answers were read as resamples: number them, so the reopened file reads them the same way
        frame = frame.assign(resample=frame.groupby(["question", "model"], sort=False, observed=True).cumcount())
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if "resample" in frame.columns:  # the runs stay runs when the bundle is reopened (read as resamples)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), META_KEY: json.dumps(
            {"resample_col": "resample"}).encode()})
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    doc = {MARKER: 1, "file": str(dataset.name), "settings": settings}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("settings.json", json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False))
        zf.writestr("data.parquet", buf.getvalue())
        zf.writestr("README.txt", "An evalstats analysis: open this .zip with the workbench's uploader to see the "
                                  "same analysis; data.parquet is the scores, settings.json the settings.\n")
    return out.getvalue()


def read_bundle(data: bytes, limits: Any = None) -> Bundle | None:
    """The bundle in ``data``, or ``None`` when ``data`` is not an evalstats bundle (any other file).

    Every part is read through the bounded reader (:mod:`evalstats_core._bounded`): the settings within
    1 MB and 200 levels of JSON nesting, the data within ``limits.max_bytes`` (default
    :meth:`Limits.from_env <evalstats_core.limits.Limits.from_env>`), whatever sizes the archive declares.

    Raises
    ------
    EvalStatsError
        A ZIP that says it is a bundle but is damaged or oversized.
    """

    if not is_bundle(data):
        return None  # not a ZIP with a bundle's parts (e.g. a workbook): the loader names what it is
    limits = limits or Limits.from_env()
    try:
        zf = zip_archive(data, release=True) or zipfile.ZipFile(io.BytesIO(data))  # the directory is_bundle read
        small = Budget(_MAX_SETTINGS_BYTES, "the analysis bundle's settings.json", _MAX_SETTINGS_BYTES)
        doc = parse_json(zip_member(data, zf, "settings.json", small), "the analysis bundle's settings.json")
        if not isinstance(doc, dict) or MARKER not in doc:
            return None
        settings = doc.get("settings")
        if not isinstance(settings, dict):
            raise EvalStatsError("the analysis bundle's settings.json has no settings; re-export it from the workbench")
        parquet = zip_member(data, zf, "data.parquet", Budget.of(limits, "the analysis bundle's data.parquet"))
        return Bundle(parquet, str(doc.get("file") or "bundle.parquet")[:200], settings)
    except EvalStatsError:
        raise
    except Exception as exc:  # noqa: BLE001 - a damaged archive raises its library's own error: name it once
        raise EvalStatsError(f"the analysis bundle cannot be opened ({type(exc).__name__}); re-export it from "
                             "the workbench") from None
