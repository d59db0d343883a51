"""Issue 25 (memory): the large-file reader gives what the bytes reader gives.

A large plain CSV file is read from the disk block by block (``evalstats_core._read``), its column types
guessed from the first block and the body parsed in small blocks (``evalstats_core._read``), and a long
table's labels and scores encoded a piece at a time (``evalstats_core._encode``); the per-(question, model)
sums are added a chunk of rows at a time (``evalstats_core._records``). Here every example and every hostile file
goes through both paths with the blocks shrunk to a few hundred bytes (the same code as at 16 MB and 1 MB),
and the answers must be the same: every number, label, warning and error message.
Peak memory itself is measured by ``bench/bench_memory.py``, not here.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hostile_files import cases as hostile_cases
from reading_cases import ROOT, cases

from evalstats_core import _read, cli  # _stream merged into _read
from evalstats_core._encode import encode
from evalstats_core._records import cell_counts, cell_sums, per_model_any, per_model_max, scatter
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsError
from evalstats_core.limits import Limits

_CSV = {name: args for name, args in cases().items() if args[0].endswith(".csv")}
_DIR = tempfile.mkdtemp(prefix="bigread-")
_HOSTILE = {name: c for name, c in hostile_cases(_DIR).items() if c.path.endswith((".csv", ".tsv", ".txt"))}


def teardown_module(module):
    shutil.rmtree(_DIR, ignore_errors=True)


def _small_blocks(monkeypatch, block: int = 700, small: int = 160, stream: bool = True) -> None:
    monkeypatch.setattr(_read, "_BLOCK_SIZE", block)
    monkeypatch.setattr(_read, "_SMALL_BLOCK", small)
    monkeypatch.setattr(_read, "STREAM_BYTES", 0 if stream else 1 << 62)


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["analyze", *args, "-f", "json"])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(_CSV))
def test_every_example_streamed_in_small_blocks_gives_the_same_report(name, monkeypatch):
    """The JSON report (every number, label and note) of each example CSV, read from the disk in 160-byte
    blocks after a 700-byte first block, equals the report of the whole file read as bytes in one block."""
    args = [str(ROOT / a) if a.endswith(".csv") else a for a in _CSV[name]]
    want = _cli(args)
    with monkeypatch.context() as m:
        _small_blocks(m)
        got = _cli(args)
    assert got == want


@pytest.mark.parametrize("name", sorted(_HOSTILE))
def test_every_hostile_csv_streamed_gives_the_same_exit_code_and_lines(name, monkeypatch):
    """Each careless or hostile CSV (late bad bytes, ragged rows, too many lines, a BOM, blank lines...): the
    path read from the disk says exactly what the bytes path says, with the same small blocks."""
    case = _HOSTILE[name]
    args = [case.path, *case.options]
    with monkeypatch.context() as m:
        _small_blocks(m, stream=False)
        want = _cli(args)
    with monkeypatch.context() as m:
        _small_blocks(m, stream=True)
        got = _cli(args)
    assert got == want


def _write(tmp: Path, name: str, body: bytes) -> str:
    path = tmp / name
    path.write_bytes(body)
    return str(path)


def test_only_plain_utf8_csv_files_are_streamed(tmp_path, monkeypatch):
    """A plain CSV (with or without a BOM) is opened from the disk; a compressed, Parquet, UTF-16 or JSON file,
    one with a blank first line or with a header that spans lines, is left to the bytes reader."""
    monkeypatch.setattr(_read, "STREAM_BYTES", 0)
    body = b"question,model,score\n" + b"".join(b"q%d,A,%d\n" % (i, i % 2) for i in range(50))
    limits = Limits()
    assert _read.open_path(_write(tmp_path, "a.csv", body), None, limits) is not None
    assert _read.open_path(_write(tmp_path, "b.csv", b"\xef\xbb\xbf" + body), None, limits) is not None
    for name, data in [("c.csv", b"\n" + body), ("d.csv", body.decode().encode("utf-16")),
                       ("e.csv", b'{"results": []}\n'), ("f.parquet", body), ("g.csv.gz", body),
                       ("h.csv", b'"que\nstion",model,score\n' + body.split(b"\n", 1)[1]),
                       ("i.csv", body + b"q99,A,\xff\n")]:
        assert _read.open_path(_write(tmp_path, name, data), None, limits) is None, name
    assert _read.open_path(body, None, limits) is None  # bytes: nothing to stream


def test_a_late_bad_byte_in_a_large_file_names_its_line(tmp_path, monkeypatch):
    """A byte that is not UTF-8 after the first block: the bytes reader's message, with the line."""
    _small_blocks(monkeypatch)
    body = b"question,model,score\n" + b"".join(b"q%d,A,%d\n" % (i, i % 2) for i in range(300)) + b"q\xe9,A,1\n"
    with pytest.raises(EvalStatsError, match=r"line 302 has the byte 0xe9"):
        load(_write(tmp_path, "late.csv", body))


def test_a_type_guessed_from_the_first_block_is_the_one_of_the_whole_read(tmp_path, monkeypatch):
    """Scores that are whole numbers in the first block and a fraction later (the text re-read), and a
    fraction just past the first block's last line: the same data as one read of the whole file."""
    rows = [b"q%d,%s,%d" % (i, b"AB"[i % 2:i % 2 + 1], i % 2) for i in range(400)]
    for at in (5, 40, 41, 42, 200, 399):
        body = b"question,model,score\n" + b"\n".join(rows[:at] + [rows[at][:-1] + b"0.5"] + rows[at + 1:]) + b"\n"
        path = _write(tmp_path, f"t{at}.csv", body)
        want = question_scores(load(body, name=f"t{at}.csv"))
        with monkeypatch.context() as m:
            _small_blocks(m, block=700, small=64)
            got = question_scores(load(path))
        assert np.array_equal(got.scores, want.scores, equal_nan=True) and got.models == want.models, at
        assert got.notes == want.notes and list(got.questions) == list(want.questions)


def test_pieces_encode_to_the_codes_and_labels_of_one_unified_column():
    """Label pieces (dictionaries of their own, an unused entry, a plain text piece) encode to the codes and
    labels pyarrow's combine_chunks gives the whole column; the first null row is kept for the message."""
    d1 = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int32()), pa.array(["b", "a", "unused"]))
    d2 = pa.DictionaryArray.from_arrays(pa.array([1, 0, None], pa.int32()), pa.array(["c", "a"]))
    d3 = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int8()), pa.array(["d"]))
    pieces = [pa.record_batch([d, pa.array(np.arange(len(d), dtype=np.int64))], names=["q", "s"])
              for d in (d1, d2, d3)]
    cols = encode(iter(pieces), 4, [0], 1)  # a capacity below the rows: the arrays grow
    whole = pc.dictionary_encode(pa.chunked_array([d1, d2, d3.cast(pa.dictionary(pa.int32(), pa.string()))]))
    whole = whole.combine_chunks()
    q = cols.column(0)
    assert q.dictionary.to_pylist() == whole.dictionary.to_pylist() == ["b", "a", "unused", "c", "d"]
    valid = np.array([True, True, True, True, True, False, True, True])
    assert q.codes[valid].tolist() == whole.indices.to_numpy(zero_copy_only=False)[valid].astype(int).tolist()
    assert q.null_row == 5 and cols.num_rows == 8
    assert cols.column(1).values.tolist() == [0, 1, 2, 0, 1, 2, 0, 1]
    plain = encode(iter([pa.record_batch([pa.array(["x", "y", "x"])], names=["q"]),
                         pa.record_batch([pa.array(["z", "y"])], names=["q"])]), 5, [0], None).column(0)
    assert plain.dictionary.to_pylist() == ["x", "y", "z"] and plain.codes.tolist() == [0, 1, 0, 2, 1]


def test_chunked_cell_sums_equal_bincount_to_the_last_bit(monkeypatch):
    """Counts and sums of repeated cells in shuffled order, chunk by chunk, equal one np.bincount exactly."""
    import evalstats_core._records as cells

    monkeypatch.setattr(cells, "_CHUNK", 997)
    rng = np.random.default_rng(3)
    n_q, n_m, n = 500, 3, 6000
    q = rng.integers(0, n_q, n).astype(np.int32)
    m = rng.integers(0, n_m, n).astype(np.int8)
    v = rng.normal(size=n) * 1e3
    cell = q.astype(np.int64) * n_m + m
    k, s = cell_sums(q, m, v, n_q, n_m)
    assert np.array_equal(k.ravel(), np.bincount(cell, minlength=n_q * n_m))
    assert np.array_equal(s.ravel(), np.bincount(cell, weights=v, minlength=n_q * n_m))  # bits, not approx
    assert np.array_equal(cell_counts(q, m, n_q, n_m), k)
    out = scatter(np.full(n_q, -1), q, np.arange(n))
    naive = np.full(n_q, -1)
    naive[q] = np.arange(n)
    assert np.array_equal(out, naive)
    assert np.array_equal(per_model_max(m, v, n_m), [np.abs(v[m == j]).max() for j in range(n_m)])
    mask = v > 2500
    assert per_model_any(m, mask, n_m).tolist() == [bool(mask[m == j].any()) for j in range(n_m)]


def test_the_command_line_tunes_the_allocator_only_for_a_large_file(tmp_path):
    """In a fresh process (the setting is the process's): a small file leaves pyarrow's allocator alone, a
    file of 1 MB or more gets the system allocator with glibc's mmap threshold fixed (Linux)."""
    small = _write(tmp_path, "s.csv", b"question,model,score\nq1,A,1\nq2,A,0\n")
    large = _write(tmp_path, "l.csv", b"question,model,score\n" + b"q1,A,1\n" * 200_000)
    code = ("import sys, pyarrow as pa\nfrom evalstats_core._memory import tune_for\n"
            "print(tune_for([sys.argv[1]]), pa.default_memory_pool().backend_name)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [subprocess.run([sys.executable, "-c", code, p], capture_output=True, text=True, env=env, check=True)
            for p in (small, large)]
    assert runs[0].stdout.split()[0] == "False" and runs[0].stdout.split()[1] != "system"
    if sys.platform.startswith("linux"):
        assert runs[1].stdout.split() == ["True", "system"]
