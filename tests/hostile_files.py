"""The hostile and careless inputs of issue 13, generated (no committed blobs).

``cases(folder, big=False)`` writes the files and returns ``{name: Case}``: the path, extra command-line
options, the exit code expected from ``python -m evalstats_core analyze`` and words its one stderr line
(or its report) must contain. ``big=True`` adds the full-size bombs of the issue (a 1.7 MB CSV with
100,000 model columns and a 3.4 MB Parquet file with 200 million rows) for ``bench/bench_hostile.py``;
the tests use the same files at a small size with lowered limits (the same code path).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Case:
    path: str
    code: int
    words: tuple[str, ...]
    options: tuple[str, ...] = ()
    stdout_words: tuple[str, ...] = field(default=())


def _long(n_q: int = 40, models=("A", "B"), seed: int = 0, scale: float = 1.0) -> str:
    rng = np.random.default_rng(seed)
    rows = ["question,model,score"]
    for m in models:
        for q in range(n_q):
            rows.append(f"q{q},{m},{int(rng.random() < 0.6) * scale:g}")
    return "\n".join(rows) + "\n"


def _wide(n_q: int, n_models: int, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    header = "question," + ",".join(f"m{j}" for j in range(n_models))
    body = [f"q{i}," + ",".join("1" if v else "0" for v in rng.random(n_models) < 0.6) for i in range(n_q)]
    return "\n".join([header, *body]) + "\n"


def _parquet_bomb(path: Path, n_rows: int, group: int) -> None:
    """A long file whose every column is dictionary-encoded and constant: megabytes on disk, n_rows rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    group = min(group, n_rows)
    idx = pa.array(np.zeros(group, dtype=np.int32))
    table = pa.table({
        "question": pa.DictionaryArray.from_arrays(idx, pa.array(["q1"])),
        "model": pa.DictionaryArray.from_arrays(idx, pa.array(["A"])),
        "score": pa.DictionaryArray.from_arrays(idx, pa.array([1.0])),
    })
    with pq.ParquetWriter(path, table.schema, compression="zstd") as writer:
        for _ in range(n_rows // group):
            writer.write_table(table, row_group_size=group)


def cases(folder: str | os.PathLike, big: bool = False) -> dict[str, Case]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    out: dict[str, Case] = {}

    def put(name: str, data: bytes | str, code: int, words: tuple[str, ...], options: tuple[str, ...] = (),
            stdout_words: tuple[str, ...] = ()) -> None:
        path = d / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        out[name] = Case(str(path), code, words, options, stdout_words)

    # 1. budgets: wide/transposed, huge Parquet, many rows, many pairs
    n_cols = 100_000 if big else 3_000
    put("wide_100k.csv", _wide(3, n_cols), 2, ("transposed", "--max-models"))
    put("transposed_2000.csv", _wide(10, 2_000, seed=1), 2, ("transposed",))
    bomb = d / "bomb.parquet"
    _parquet_bomb(bomb, 200_000_000 if big else 2_000_000, 10_000_000 if big else 1_000_000)
    out["bomb.parquet"] = Case(str(bomb), 2, ("rows", "--max-rows", "GB" if big else "MB"),
                               () if big else ("--max-rows", "1000000"))
    put("many_rows.csv", _long(600), 2, ("--max-rows", "1,000"), ("--max-rows", "1000"))
    put("many_pairs.csv", _wide(30, 120, seed=2), 2, ("--baseline", "7,140 comparisons"))
    put("many_pairs_baseline.csv", _wide(30, 120, seed=2), 0, (), ("--baseline", "m0"))
    # 2. no silently wrong number
    q = pa.array(["q1", None, "q3", "q1"])
    buf = io.BytesIO()
    pq.write_table(pa.table({"question": q, "model": ["A", "A", "A", "B"], "score": [1, 0, 1, 1]}), buf)
    put("null_question.parquet", buf.getvalue(), 2, ("data row 2", "no question id (null)"))
    put("na_model.csv", "question,model,score\nq1,A,1\nq2,NA,0\nq1,B,1\nq2,B,0\n", 2, ("row 3", "missing ('NA')"))
    put("na_cluster.csv", "question,model,score,cluster\nq1,A,1,c1\nq2,A,0,NA\nq1,B,1,c1\nq2,B,0,NA\n", 2,
        ("row 3", "cluster", "missing ('NA')"))
    put("mixed_scales.csv", _long(40, ("A",)) + _long(40, ("B",), seed=3, scale=100).split("\n", 1)[1], 2,
        ("different scales", "'A' (0 to 1)", "'B' (up to 100)"))
    put("mixed_scales_allowed.csv", _long(40, ("A",)) + _long(40, ("B",), seed=3, scale=100).split("\n", 1)[1], 0,
        ("different scales",), ("--mixed-scales", "allow"))
    wide = ["question,gpt,claude,n_tokens"] + [f"q{i},{i % 2},{(i // 2) % 2},{100 + 7 * i}" for i in range(40)]
    put("wide_n_tokens.csv", "\n".join(wide) + "\n", 2, ("'n_tokens' (above 100)", "--ignore-col"))
    put("wide_n_tokens_ignored.csv", "\n".join(wide) + "\n", 0, (), ("--ignore-col", "n_tokens"))
    put("binary_0_100.csv", _long(40, ("A", "B"), scale=100), 0, (), ("--format", "json"), ('"score_kind": "binary"',))
    dup = "question,model,score\nq1,A,1\nq1,A,0\nq2,A,1\nq1,B,1\nq2,B,0\nq3,A,1\nq3,B,1\n"
    put("duplicates.csv", dup, 0, ("different scores", "row 2", "row 3"))
    put("duplicates_error.csv", dup, 2, ("different scores", "row 2"), ("--duplicates", "error"))
    # 3. one clear message per failure
    put("bare_cr.csv", "question,model,score\nq1,A,1\nq2,A\r,0\nq1,B,1\nq2,B,0\n", 2, ("carriage return", "row 3"))
    nested = pa.table({"question": ["q1", "q2", "q1", "q2"], "model": ["A", "A", "B", "B"],
                       "score": pa.array([[1], [0], [1], [1]])})
    buf = io.BytesIO()
    pq.write_table(nested, buf)
    put("nested.parquet", buf.getvalue(), 2, ("nested values", "'score'"))
    buf = io.BytesIO()
    pq.write_table(pa.table({"question": ["q1", "q2", "q1", "q2"], "model": ["A", "A", "B", "B"],
                             "score": pa.nulls(4)}), buf)
    put("null_column.parquet", buf.getvalue(), 2, ("'score'", "every row is null"))
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_arrays([pa.array(["q1", "q2"]), pa.array([1, 0]), pa.array([1, 1])],
                                        names=["question", "A", "A"]), buf)
    put("duplicate_columns.parquet", buf.getvalue(), 2, ("two columns named 'A'",))
    text = _long(40)
    put("gzip.csv.gz", gzip.compress(text.encode()), 0, ())
    put("gzip_no_ext.csv", gzip.compress(text.encode()), 0, ())
    put("bz2.csv.bz2", bz2.compress(text.encode()), 0, ())
    put("xz.csv.xz", lzma.compress(text.encode()), 0, ())
    put("gzip_bomb.csv.gz", gzip.compress(b"question,model,score\n" + b"0" * (64 << 20), 9), 2,
        ("decompresses to more than", "--max-mb"), ("--max-mb", "16"))
    put("utf16_bom.csv", text.encode("utf-16"), 0, ())
    put("utf16_no_bom.csv", text.encode("utf-16-le"), 0, ())
    # 4. names as written, safely
    put("rlo_name.csv", "question,model,score\nq1,A,1\nq2,A,0\nq1,gpt\u202eevil,1\nq2,gpt\u202eevil,0\n", 2,
        ("U+202E", "RIGHT-TO-LEFT OVERRIDE", "row 4"))
    put("zero_width.csv", "question,model,score\nq1,A,1\nq2,A,0\nq1,\u200bA,1\nq2,\u200bA,0\n", 2,
        ("U+200B", "row 4"))
    put("cr_in_name.csv", 'question,model,score\nq1,A,1\nq2,A,0\nq1,"B\rC",1\nq2,"B\rC",0\n', 2, ("U+000D",))
    put("zero_width_header.csv", "question,A,\u200bA\nq1,1,0\nq2,0,1\n", 2, ("U+200B", "column 3"))
    harness_cases(d, out, big)
    # special files (not regular files): made by the caller where the platform allows
    fifo = d / "fifo.csv"
    if not fifo.exists() and hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
    if fifo.exists():
        out["fifo.csv"] = Case(str(fifo), 2, ("named pipe (FIFO)",))
    out["dev_zero"] = Case("/dev/zero", 2, ("a device",))
    # a folder is read as one table by the SQL engine (issue 25); the engine checks each file's own header
    # first (issue 46.4, as the in-memory reader does), so the folder stops on its first file with a repeated name
    out["directory"] = Case(str(d), 2, ("duplicate_columns.parquet has two columns named 'A'",))
    return out


# ------------------------------------------------------------------------- issue 21: harness logs, round 3
def zip_bytes(members: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A ZIP written by hand: ``(name, stored bytes, method, declared size, crc)`` per member (method 93 =
    zstd, which Python's zipfile cannot write; the declared size may lie, as a bomb's does)."""
    import struct

    out, central = io.BytesIO(), io.BytesIO()
    for name, raw, method, declared, crc in members:
        offset, fn = out.tell(), name.encode()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(raw), declared,
                              len(fn), 0) + fn + raw)
        central.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc, len(raw),
                                  declared, len(fn), 0, 0, 0, 0, 0, offset) + fn)
    cd, start = central.getvalue(), out.tell()
    n = len(members)
    out.write(cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), start, 0))
    return out.getvalue()


def zstd_bomb(n_bytes: int) -> bytes:
    """A zstd frame of ``[`` then spaces that inflates to ``n_bytes`` (RLE blocks: tens of KB per GB)."""
    import zstandard

    cctx = zstandard.ZstdCompressor(level=1)
    buf = io.BytesIO()
    with cctx.stream_writer(buf, closefd=False, size=n_bytes) as w:
        w.write(b"[")
        chunk, left = b" " * (1 << 24), n_bytes - 1
        while left > 0:
            w.write(chunk[:left])
            left -= min(left, len(chunk))
    return buf.getvalue()


def inspect_eval(samples: object, *, task: str = "gsm8k", model: str = "m", dataset: str | None = None,
                 header: object = None, summaries: bytes | None = None, method: int = 8) -> bytes:
    """An Inspect .eval archive (header.json + summaries.json) holding ``samples`` (any JSON value)."""
    import json
    import zlib

    head = header if header is not None else {"status": "success", "eval": {
        "task": task, "model": model, **({"dataset": {"name": dataset}} if dataset else {})}}
    body = summaries if summaries is not None else json.dumps(samples).encode()

    def pack(name: str, raw: bytes) -> tuple[str, bytes, int, int, int]:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        return name, c.compress(raw) + c.flush(), 8, len(raw), zlib.crc32(raw)
    last = pack("summaries.json", body) if method == 8 else ("summaries.json", body, method, 3 * len(body), 0)
    return zip_bytes([pack("header.json", json.dumps(head).encode()), last])


def _samples(n: int, score: object = "C", ids: object = None, epoch: object = 1) -> list[dict]:
    ids = ids or range(1, n + 1)
    return [{"id": i, "epoch": epoch, "scores": {"match": {"value": score if k % 3 else "I"}}}
            for k, i in enumerate(ids)]


def harness_cases(d: Path, out: dict, big: bool) -> None:
    """Issue 21's hostile harness logs: bombs, depth, odd shapes, bad numbers, encodings, duplicates."""
    import json

    def put(name: str, data: bytes, code: int, words: tuple[str, ...], options: tuple[str, ...] = ()) -> None:
        (d / name).write_bytes(data)
        out[name] = Case(str(d / name), code, words, options)

    size = 6 * 2**30 if big else 64 * 2**20
    put("zstd_bomb.eval", inspect_eval(None, summaries=zstd_bomb(size), method=93), 2,
        ("decompresses to more than", "--max-mb"), () if big else ("--max-mb", "16"))
    deep = b"[" * 100_000 + b"]" * 100_000
    put("deep.eval", inspect_eval(None, summaries=deep), 2, ("levels deep",))
    put("deep.json", b'{"eval": {"task": "t", "model": "m"}, "samples": ' + deep + b"}", 2, ("levels deep",))
    put("summaries_object.eval", inspect_eval({"a": 1}), 2, ("not a list of samples",))
    put("bare_string_score.eval", inspect_eval([{"id": 1, "epoch": 1, "scores": {"match": "yes"}},
                                                {"id": 2, "epoch": 1, "scores": {"match": "abc"}}]), 2,
        ("'abc'", "not a finite number"))
    put("epoch_abc.eval", inspect_eval(_samples(6, epoch="abc")), 2, ("epoch 'abc'", "whole number"))
    put("epoch_1e400.json", json.dumps({"eval": {"task": "t", "model": "m"}, "samples": _samples(4)}).replace(
        '"epoch": 1', '"epoch": 1e400', 1).encode(), 2, ("epoch", "whole number"))
    put("score_1e400.json", json.dumps({"eval": {"task": "t", "model": "m"}, "samples": _samples(4)}).replace(
        '"value": "C"', '"value": 1e400', 1).encode(), 2, ("not a finite number",))
    put("broken.json", b'{"eval": {"task": "t", "model": "m"}, "samples": [{"id": 1,', 2, ("not valid", "line 1"))
    put("utf16.json", json.dumps({"eval": {"task": "t", "model": "m"}, "samples": _samples(4)}).encode("utf-16"),
        2, ("UTF-16", "UTF-8"))
    put("latin1.json", ('{"eval": {"task": "t\xe9", "model": "m"}, "samples": ' + json.dumps(_samples(4))
                        + "}").encode("latin-1"), 2, ("not UTF-8", "0xe9"))
    put("damaged.eval", inspect_eval(_samples(4))[:-60] + b"\0" * 60, 2, ("damaged",))
    dup = inspect_eval(_samples(8, ids=[1, 2, 3, 3, 4, 5, 6, 7]))
    put("duplicated_ids.eval", dup, 0, ("read as resamples",))
    put("duplicated_ids_error.eval", dup, 2, ("(question, model, epoch)", "1 "), ("--duplicates", "error"))
    put("gsm8k.eval", inspect_eval(_samples(60), task="gsm8k", model="a"), 0, ())
    put("mmlu.eval", inspect_eval(_samples(60), task="mmlu", model="b"), 0, ())
