"""Which pairwise preference format some bytes hold, read from their first MB only (private to
:mod:`evalstats_core.pairwise_data`, which re-exports :func:`pairwise_kind` and :func:`pairwise_paths`).

It imports the standard library and :mod:`evalstats_core._bounded` (itself standard library only), so the command
line can ask it, at start-up cost next to nothing, whether a results file it refused holds battles instead
(``evalbars pairwise`` reads those); a compressed file (gzip, bz2, xz, zstd, a one-file .zip) is sniffed on its
decompressed head, through the same bounded reader the pairwise reader's :func:`file_kind` uses.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable

from ._bounded import head
from ._sniff import compression
from .limits import Limits

__all__ = ["KINDS", "pairwise_kind", "pairwise_paths"]

#: The formats read, with how a report names them.
KINDS = {"long": "prompt, model_a, model_b, winner", "alpaca_eval": "AlpacaEval annotations",
         "arena_hard": "Arena-Hard judgments"}
_SNIFF = 1 << 20  # bytes a sniff reads: the first record of a JSON list, the first line of JSON lines


def _first_keys(data: bytes) -> set[str] | None:
    """The keys of the first JSON object of a JSON list or of JSON lines, read from the first MB only (a results
    file of hundreds of MB is never parsed to be sniffed); None when the data does not start like either."""
    head = data[:_SNIFF].lstrip()
    if head[:1] == b"{":
        line = head.split(b"\n", 1)[0]
        try:
            first = json.loads(line.decode("utf-8-sig"))
        except (ValueError, RecursionError):  # not JSON (or nested beyond reason): not a pairwise file
            return None
        return {str(k).lower() for k in first} if isinstance(first, dict) else None
    if head[:1] == b"[":  # a JSON list: the quoted keys its first record names (outputs may run long)
        return {k.decode("utf-8", "replace").lower() for k in
                re.findall(rb'"([A-Za-z_0-9]{1,40})"\s*:', head[:_SNIFF])}
    return None


def pairwise_kind(data: bytes, name: str = "") -> str | None:
    """Which pairwise format ``data`` holds (a key of :data:`KINDS`), or None for any other file. Reads at most the
    first MB.

    >>> pairwise_kind(b"prompt,model_a,model_b,winner\\np1,x,y,a\\n")
    'long'
    >>> pairwise_kind(b'[{"instruction": "hi", "generator_1": "x", "generator_2": "y", "preference": 2}]')
    'alpaca_eval'
    >>> pairwise_kind(b"question,model,score\\nq1,x,1\\n") is None
    True
    """
    keys = _first_keys(data)
    if keys is not None:
        if {"generator_1", "generator_2", "preference"} <= keys:
            return "alpaca_eval"
        if "games" in keys and "model" in keys and keys & {"question_id", "uid"}:
            return "arena_hard"
        if {"model_a", "model_b", "winner"} <= keys:
            return "long"
        return None
    head = data[:4096].split(b"\n", 1)[0].decode("utf-8-sig", "replace").lower()
    cells = {c.strip().strip('"') for c in head.replace("\t", ",").split(",")}
    if {"model_a", "model_b", "winner"} <= cells:
        return "long"
    return None


def pairwise_paths(paths: Iterable[str]) -> str:
    """The formats (:data:`KINDS`' words, joined) when every path is a readable pairwise file, else ``""``: a
    refused results file is told where it belongs. Reads at most the first MB of each (a compressed file's first MB,
    decompressed to at most a MB; a .zip archive, whose directory sits at its end, whole up to ``Limits().max_bytes``);
    never raises."""
    kinds = []
    for path in paths:
        try:
            if not stat.S_ISREG(os.stat(str(path)).st_mode):  # a FIFO or device is never opened
                return ""
            ext = os.path.splitext(str(path))[1].lower()
            with open(str(path), "rb") as fh:
                data = fh.read(_SNIFF)
                if ext == ".zip" and data[:4] == b"PK\x03\x04":
                    data += fh.read(Limits().max_bytes - len(data) + 1)
            if compression(data) is not None or ext == ".zip":
                data = head(data, ext, _SNIFF)
            kind = pairwise_kind(data)
        except OSError:  # an unreadable file gets no hint (head() and pairwise_kind() never raise)
            return ""
        if kind is None:
            return ""
        kinds.append(KINDS[kind])
    return ", ".join(dict.fromkeys(kinds))
