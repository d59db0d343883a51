"""The one sniffer (private): what a file's bytes are, by content (and a name's extension where it decides).

=======================  ======================================================================================
:func:`detect`           the harness that wrote a log (a key of :data:`FORMATS`), or None for a results table
:func:`compression`      gzip, bz2, xz or zstd by magic bytes, or None
:func:`is_parquet`       Parquet by extension or ``PAR1`` magic
:func:`delimiter`        a CSV header line's separator (tab for ``.tsv``, else comma, else tab or semicolon)
:func:`utf16`            UTF-16 text (with or without a byte-order mark), or None
:func:`zip_archive`      the ZIP archive on a file's bytes, its directory read once for every reader that asks
=======================  ======================================================================================

Every reader, the uploader's header preview (:func:`evalstats_core.data.file_columns`) and the importers ask
these functions, so a file is recognised the same way everywhere.
"""

from __future__ import annotations

import io
import zipfile

__all__ = ["FORMATS", "detect", "compression", "is_parquet", "delimiter", "is_bundle", "utf16", "zip_archive"]

#: Harness formats, as :func:`detect` names them.
FORMATS = {"lm_eval": "an lm-evaluation-harness samples file",
           "lm_eval_results": "an lm-evaluation-harness results file (it names the model of its samples files)",
           "inspect_eval": "an Inspect .eval log",
           "inspect_json": "an Inspect JSON log", "promptfoo": "a promptfoo results file"}

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"))


def utf16(head: bytes) -> str | None:
    """'utf-16' (BOM), 'utf-16-le' or 'utf-16-be' (no BOM: every other byte of ASCII text is 0), or None."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    sample = head[: len(head) // 2 * 2][:512]
    if len(sample) >= 4:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
            return "utf-16-le"
        if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
            return "utf-16-be"
    return None


def compression(data: bytes) -> str | None:
    """``"gzip"``, ``"bz2"``, ``"xz"`` or ``"zstd"`` from the first bytes, else None."""
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


def is_parquet(data: bytes, ext: str) -> bool:
    """A Parquet file: the extension ``.parquet``/``.pq`` (or a name ending so) or the ``PAR1`` magic."""
    return ext.lower().endswith((".parquet", ".pq")) or data[:4] == b"PAR1"


def delimiter(first_line: str, ext: str) -> str:
    """The separator as the reader picks it: tab for .tsv, else comma, else tab or semicolon if present."""
    sep = "\t" if ext.lower().endswith(".tsv") else ","
    if sep not in first_line:
        sep = next((d for d in ("\t", ";") if d in first_line), sep)
    return sep


#: The last ZIP archive opened, as ``(data, archive)``: the bundle check, :func:`detect` and the reader (the Inspect
#: log's, the bundle's, a one-file .zip's) ask for the same upload's archive in turn, and its central directory
#: is parsed once (issue 44.3: three parses of a 10,000-sample .eval's directory were a third of its reading).
#: The reader that uses the archive releases it (``release=True``), so no upload's bytes stay held after it is read.
_LAST_ZIP: tuple[bytes, object] | None = None


def zip_archive(data: bytes, *, release: bool = False):
    """The ``zipfile.ZipFile`` on ``data`` (the same object for the same bytes until it is released), or None when
    its central directory cannot be read. ``release``: the last use; forget it afterwards."""
    global _LAST_ZIP
    last = _LAST_ZIP
    if last is not None and last[0] is data:
        archive = last[1]
    else:
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))  # the central directory only: nothing inflated
        except Exception:  # noqa: BLE001 - any unreadable central directory (even NotImplementedError): not ours
            archive = None
    _LAST_ZIP = None if release or archive is None else (data, archive)
    return archive


def _zip_names(data: bytes) -> set[str] | None:
    archive = zip_archive(data)
    return None if archive is None else set(archive.namelist())


def is_bundle(data: bytes) -> bool:
    """An evalstats analysis bundle (a ZIP with ``settings.json`` and ``data.parquet``)."""
    names = _zip_names(data) if data[:4] == b"PK\x03\x04" else None
    return bool(names) and {"settings.json", "data.parquet"} <= names


def detect(data: bytes) -> str | None:
    """The harness format of ``data`` (a key of :data:`FORMATS`), or None for anything else (a results CSV)."""
    encoding = utf16(data[:4096])
    if encoding is not None:  # UTF-16 (a log re-saved by an editor): recognised, so its reader can say what to do
        return detect(data[:8192].decode(encoding, "ignore").encode("utf-8"))
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if data[:4] == b"PK\x03\x04":
        names = _zip_names(data) or set()
        if "header.json" in names and ("summaries.json" in names or any(n.startswith("_journal/") for n in names)):
            return "inspect_eval"  # its reader takes the archive (and releases it)
        zip_archive(data, release=True)  # no reader of ours wants it: not held
        return None
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        if b'"doc_id"' in first and (b'"resps"' in first or b'"filtered_resps"' in first or b'"doc"' in first):
            return "lm_eval"
        if b'"eval"' in head and (b'"samples"' in data[:1 << 20] or b'"results"' in head) and b'"task"' in head:
            return "inspect_json"
        if b'"results"' in head and (b'"evalId"' in head or b'"promptfoo' in data[:1 << 16]
                                     or b'"testIdx"' in data[:1 << 20]):
            return "promptfoo"
        if b'"results"' in head and (b'"lm_eval_version"' in data or b'"n-samples"' in data
                                     or b'"group_subtasks"' in data):
            return "lm_eval_results"
    return None
