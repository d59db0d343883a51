"""The small-CSV path (issue 25, start-up): ``analyze``/``gate`` on a small CSV import neither pandas, pyarrow nor
scipy, and the stdlib reader (:func:`evalstats_core._read.read_small`) gives what the Arrow reader gives: the same
Dataset and question table, the same report in every format, the same warnings and the same error line.

The Arrow path is forced by setting ``SMALL_CSV_BYTES`` to 0 (every file is then "too big" for the small reader).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hostile_files import cases as hostile_cases

from evalstats_core import _read
from evalstats_core._read import read_source
from evalstats_core.cli import main
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsError

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "pyarrow", "scipy")


def _csv(header: tuple, rows: list) -> bytes:
    return ("\n".join(",".join(map(str, r)) for r in [header, *rows]) + "\n").encode()


def _cases() -> dict[str, bytes]:
    rng = random.Random(1)
    c = {
        "binary": _csv(("question_id", "model", "score"),
                       [(f"q{i}", f"m{j}", int(rng.random() < 0.6)) for i in range(300) for j in range(3)]),
        "clusters": _csv(("question", "model", "score", "passage"),
                         [(f"q{i}", f"m{j}", int(rng.random() < 0.6), f"p{i // 5}") for i in range(600) for j in range(2)]),
        "few_failures_clustered": _csv(("question", "model", "score", "cluster"),  # Korn-Graubard: a beta quantile
                                       [(f"q{i}", f"m{j}", int(rng.random() < 0.9), f"c{i // 4}") for i in range(120)
                                        for j in range(2)]),
        "k_runs": _csv(("question", "model", "score"),  # K = 3, scores differ: a warning naming two rows
                       [(f"q{i}", f"m{j}", int(rng.random() < 0.5)) for i in range(100) for j in range(2) for _ in range(3)]),
        "missing_answers": _csv(("question", "model", "score"),
                                [(f"q{i}", f"m{j}", round(rng.random(), 3)) for i in range(150) for j in range(3)
                                 if not (j == 2 and i % 7 == 0)]),
        "continuous_extra": _csv(("id", "system", "reward", "prompt"),
                                 [(i, f"s{j}", round(rng.gauss(5, 2), 4), f"text {i}") for i in range(120) for j in range(2)]),
        "words": _csv(("question", "model", "correct"),
                      [(f"q{i}", f"m{j}", rng.choice(["true", "false", "True", "yes", "no"])) for i in range(80) for j in range(2)]),
        "percent": _csv(("question", "model", "score"), [(f"q{i}", f"m{j}", rng.choice([0, 100])) for i in range(90) for j in range(2)]),
        "runs_in_ids": _csv(("question", "model", "score"),
                            [(f"{i}.{k}", f"m{j}", int(rng.random() < 0.5)) for i in range(40) for k in range(3) for j in range(2)]),
        "numeric_ids": _csv(("question", "model", "score"), [(i, f"m{j}", int(rng.random() < 0.5)) for i in range(60) for j in range(2)]),
        "unused_columns": _csv(("question", "model", "score", "batch", "notes", "topic"),
                               [(f"q{i}", f"m{j}", int(rng.random() < 0.5), f"b{i // 10}", f"n{i}", f"t{i % 4}")
                                for i in range(100) for j in range(2)]),
        "same_score_twice": _csv(("question", "model", "score"), [(f"q{i}", f"m{j}", 1) for i in range(30) for j in range(2) for _ in range(2)]),
        # read by the small reader, refused by the one validator: the same message either way
        "fraction_ids": _csv(("question", "model", "score"), [(f"0.{i:02d}", f"m{j}", 1) for i in range(1, 60) for j in range(2)]),
        "mixed_scales": _csv(("question", "model", "score"), [(f"q{i}", f"m{j}", 1 if j == 0 else 70) for i in range(30) for j in range(2)]),
        "one_question": _csv(("question", "model", "score"), [("q1", f"m{j}", 1) for j in range(3)]),
        "cluster_clash": _csv(("question", "model", "score", "cluster"),
                              [(f"q{i}", f"m{j}", 1, f"c{(i + j) % 3}") for i in range(30) for j in range(2)]),
    }
    wide = [(f"q{i}", *(("" if (i + j) % 9 == 0 else int(rng.random() < 0.5 + 0.1 * j)) for j in range(3)),
             f"c{i // 6}", f"note {i}") for i in range(90)]
    c["wide"] = _csv(("question", "A", "B", "C", "cluster"), [r[:5] for r in wide])
    c["wide_unscored_row"] = _csv(("id", "A", "B"), [(f"q{i}", *(("", "") if i == 4 else (i % 2, round(rng.random(), 2))))
                                                     for i in range(40)])
    c["wide_words"] = _csv(("question", "gpt-a", "gpt-b"), [(f"q{i}", rng.choice(["true", "false", ""]), rng.choice(["yes", "no"]))
                                                            for i in range(50)])
    c["wide_repeated_rows"] = _csv(("question", "A", "B"), [(f"q{i % 20}", int(rng.random() < 0.5), 1) for i in range(60)])
    c["crlf"] = c["binary"].replace(b"\n", b"\r\n")
    c["blank_line"] = c["binary"].replace(b"q5,m0", b"\nq5,m0", 1)
    # CSV as it is written (issue 44.1): quoted header and text cells (pyarrow's write_csv, R's write.csv), every
    # cell quoted (pandas' QUOTE_ALL, NaN as ""), with CRLF, behind a byte-order mark
    c["quoted_text"] = _quoted(c["clusters"], numbers=False)
    c["quoted_all"] = _quoted(c["missing_answers"], numbers=True)
    c["quoted_crlf"] = _quoted(c["k_runs"], numbers=False).replace(b"\n", b"\r\n")
    c["quoted_wide"] = _quoted(c["wide"], numbers=True)
    c["quoted_words"] = _quoted(c["words"], numbers=True)
    c["bom"] = b"\xef\xbb\xbf" + c["binary"]
    c["bom_quoted_crlf"] = b"\xef\xbb\xbf" + c["quoted_crlf"]
    return c


def _quoted(data: bytes, *, numbers: bool) -> bytes:
    """``data`` with every header name and text cell in double quotes (and numbers too with ``numbers``)."""
    def cell(v: str) -> str:
        try:
            float(v)
        except ValueError:
            return f'"{v}"'
        return f'"{v}"' if numbers else v
    lines = data.decode().split("\n")
    return "\n".join(",".join(cell(v) for v in line.split(",")) if line else line for line in lines).encode()


CASES = _cases()
# what the small reader leaves to the Arrow reader (which words the error, or reads what it alone can)
DECLINED = {
    "doubled_quote": b'question,model,score\n"q""1",A,1\nq2,A,0\n"q""1",B,1\nq2,B,0\n',
    "comma_in_quotes": b'question,model,score\n"q,1",A,1\nq2,A,0\n"q,1",B,1\nq2,B,0\n',
    "line_end_in_quotes": b'question,model,score\n"q\n1",A,1\nq2,A,0\n"q\n1",B,1\nq2,B,0\n',
    "quote_within_a_cell": b'question,model,score\nq"1",A,1\nq2,A,0\nq"1",B,1\nq2,B,0\n',
    "quoted_spaces": b'question,model,score\n" q1",A,1\n" q2",A,0\n" q1",B,1\n" q2",B,0\n',
    "quoted_na": b'question,model,score\nq1,A,"NA"\nq2,A,0\nq1,B,1\nq2,B,0\n',
    "semicolons": CASES["binary"].replace(b",", b";"),
    "tabs": CASES["binary"].replace(b",", b"\t"),
    "wide_na": b"question,A,B\nq1,1,NA\nq2,0,1\nq3,1,1\n",
    "missing_score": _csv(("question", "model", "score"), [(f"q{i}", "m0", "NA" if i == 3 else 1) for i in range(30)]),
    "empty_label": _csv(("question", "model", "score"), [("" if i == 3 else f"q{i}", "m0", 1) for i in range(30)]),
    "spaced_labels": _csv(("question", "model", "score"), [(f" q{i}", f"m{j} ", " 1") for i in range(30) for j in range(2)]),
    "negative_zero": _csv(("question", "model", "score"), [(f"q{i}", f"m{j}", "-0" if i == 2 else 0.5) for i in range(30) for j in range(2)]),
    "ragged": b"question,model,score\nq1,A,1\nq2,A\nq1,B,1\nq2,B,0\n",
    "bare_cr": b"question,model,score\nq1,A,1\nq2,A\r,0\nq1,B,1\nq2,B,0\n",
    "invisible": "question,model,score\nq1,A,1\nq2,A,0\nq1,\u200bA,1\nq2,\u200bA,0\n".encode(),
    "header_twice": _csv(("question", "model", "score", "Model"), [(f"q{i}", "m0", 1, "x") for i in range(30)]),
}
ROLE_OPTIONS = (["--ignore-col", "notes"], ["--cluster-col", "batch"], ["--no-clusters", "--baseline", "m1"],
                ["--question-col", "question", "--model-col", "model", "--score-col", "score", "--confidence", "0.9"],
                ["--layout", "wide"], ["--duplicates", "error"], ["--runs-in-ids"], ["--resample-col", "batch"],
                ["--layout", "wide", "--ignore-col", "model", "--ignore-col", "batch", "--ignore-col", "notes",
                 "--ignore-col", "topic"])


@contextlib.contextmanager
def _arrow_only():
    saved = _read.SMALL_CSV_BYTES
    _read.SMALL_CSV_BYTES = 0
    try:
        yield
    finally:
        _read.SMALL_CSV_BYTES = saved


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def _both(args: list[str]) -> tuple[tuple, tuple]:
    small = _cli(args)
    with _arrow_only():
        arrow = _cli(args)
    return small, arrow


def _loaded(data: bytes):
    try:
        ds = load(data, name="f.csv")
        return ds, question_scores(ds)
    except EvalStatsError as exc:
        return str(exc)


# ------------------------------------------------------------------------------------------ which reader
@pytest.mark.parametrize("name", sorted(CASES))
def test_small_reader_takes_plain_long_files(name):
    assert _read.reads(CASES[name]), name  # so the parity tests below run the small reader


@pytest.mark.parametrize("name", sorted(DECLINED))
def test_small_reader_leaves_the_unusual_to_the_arrow_reader(name):
    assert not _read.reads(DECLINED[name]), name


def test_small_reader_takes_files_up_to_its_threshold_only():
    data = CASES["binary"]
    assert _read.reads(data)
    assert not _read.reads(data, resample_col="score") and not _read.reads(data, ext=".parquet")
    big = data + b"".join(b"x%d,m0,1\n" % i for i in range(_read.SMALL_CSV_BYTES // 8))
    assert len(big) > _read.SMALL_CSV_BYTES and not _read.reads(big)


# ------------------------------------------------------------------------------------------ same results
_FIELDS = ("name", "format", "file_type", "question_col", "model_col", "score_col", "cluster_col", "model_cols", "models",
           "score_kind", "n_rows", "n_questions", "k_min", "k_max", "k_typical", "n_clusters", "cluster_size_min",
           "cluster_size_max", "cluster_size_mean", "notes", "warnings", "reading", "options", "sources")


@pytest.mark.parametrize("name", sorted(CASES) + sorted(DECLINED))
def test_same_dataset_and_question_table_from_both_readers(name):
    data = {**CASES, **DECLINED}[name]
    small = _loaded(data)
    with _arrow_only():
        arrow = _loaded(data)
    if isinstance(arrow, str) or isinstance(small, str):
        assert small == arrow  # the same error message, word for word
        return
    (ds, table), (da, ta) = small, arrow
    assert {f: getattr(ds, f) for f in _FIELDS} == {f: getattr(da, f) for f in _FIELDS}
    pd.testing.assert_frame_equal(ds.frame, da.frame)  # built on first use, with the Arrow reader's dtypes
    for col in ("question", "model"):
        assert ds.frame[col].cat.categories.dtype == da.frame[col].cat.categories.dtype
    for got, want in ((ds.unused, da.unused), (ds.extra, da.extra)):
        assert got.keys() == want.keys()
        for k in got:
            assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k]), k
    for f in ("questions", "scores", "k", "answered", "cluster_codes", "clusters"):
        x, y = getattr(table, f), getattr(ta, f)
        assert (x is None) == (y is None), f
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv", "latex"])
@pytest.mark.parametrize("name", sorted(CASES) + sorted(DECLINED))
def test_same_report_in_every_format(name, fmt, tmp_path):
    path = tmp_path / f"{name}.csv"
    path.write_bytes({**CASES, **DECLINED}[name])
    small, arrow = _both(["analyze", str(path), "--format", fmt])
    assert small == arrow  # exit code, the report, and every warning or error line on stderr


@pytest.mark.parametrize("name", ["binary", "clusters", "k_runs", "missing_answers"])
def test_same_html_report_and_gate(name, tmp_path):
    path = tmp_path / f"{name}.csv"
    path.write_bytes(CASES[name])
    small, arrow = _both(["analyze", str(path), "--format", "html"])
    assert small == arrow and small[0] == 0
    for margin in ("0", "5pt"):
        small, arrow = _both(["gate", str(path), "--baseline", "m0", "--candidate", "m1", "--margin", margin])
        assert small == arrow and small[0] in (0, 1, 3)


@pytest.mark.parametrize("options", ROLE_OPTIONS, ids=" ".join)
def test_same_report_with_reading_options(options, tmp_path):
    path = tmp_path / "unused.csv"
    path.write_bytes(CASES["unused_columns"])
    small, arrow = _both(["analyze", str(path), "--format", "json", *options])
    assert small == arrow


def test_same_report_for_a_wide_file_with_an_ignored_column(tmp_path):
    rows = [(f"q{i}", i % 2, "" if i % 5 == 0 else 1, f"c{i // 4}", f"text {i}") for i in range(60)]
    data = _csv(("question", "A", "B", "cluster", "prompt"), rows)
    assert _read.reads(data, ignore_cols=("prompt",)) and not _read.reads(data)  # a model of text: refused
    path = tmp_path / "wide.csv"
    path.write_bytes(data)
    for options in (["--ignore-col", "prompt"], [], ["--ignore-col", "prompt", "--no-clusters", "--format", "json"]):
        small, arrow = _both(["analyze", str(path), *options])
        assert small == arrow


def test_same_results_for_the_bundled_examples_fixtures_and_hostile_files(tmp_path):
    files = {p.name: (str(p), ()) for p in [*sorted((ROOT / "examples").glob("*.csv")),
                                            *sorted((ROOT / "tests" / "fixtures" / "cr2_designs").glob("*.csv"))]}
    files |= {n: (c.path, c.options) for n, c in hostile_cases(tmp_path).items()
              if n.endswith((".csv", ".gz", ".bz2", ".xz")) and n != "fifo.csv"}
    taken = []
    for name, (path, options) in files.items():
        data, _, ext = read_source(path, None)  # decompressed, as the loader hands it to the readers
        if _read.reads(data, name, ext):
            taken.append(name)
        for fmt in ("json", "markdown"):
            small, arrow = _both(["analyze", path, "--format", fmt, *options])
            assert small == arrow, name
    assert len(taken) >= 23, taken  # most of them, compressed ones too


# ------------------------------------------------------------------------------------------ no heavy imports
_PROBE = ("import sys; from evalstats_core.cli import main; code = main(sys.argv[1:]); "
          "print('HEAVY', *sorted(m for m in ('pandas', 'pyarrow', 'scipy.stats') if m in sys.modules), file=sys.stderr); "
          "sys.exit(code)")


@pytest.mark.parametrize("args", [
    ["analyze", "{clusters}"], ["analyze", "{binary}", "--format", "json"], ["analyze", "{k_runs}", "--format", "csv"],
    ["analyze", "{words}", "--format", "latex"], ["gate", "{binary}", "--baseline", "m0", "--candidate", "m1"],
    ["gate", "{clusters}", "--baseline", "m0", "--candidate", "m1", "--margin", "5pt"],
    ["analyze", "{quoted_text}"], ["gate", "{bom_quoted_crlf}", "--baseline", "m0", "--candidate", "m1"],
], ids=lambda a: " ".join(a[:1] + a[2:]))
def test_cli_on_a_small_csv_imports_no_pandas_pyarrow_or_scipy_stats(args, tmp_path):
    """The CLI's tails are scipy.special's; scipy.stats (another ~0.5 s of start-up) is never imported."""
    for name in ("binary", "clusters", "k_runs", "words", "quoted_text", "bom_quoted_crlf"):
        (tmp_path / f"{name}.csv").write_bytes(CASES[name])
    argv = [a.format(**{n: str(tmp_path / f"{n}.csv") for n in CASES}) for a in args]
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.returncode in (0, 1, 3) and proc.stdout, proc.stderr
    heavy = [line for line in proc.stderr.splitlines() if line.startswith("HEAVY")]
    assert heavy == ["HEAVY"], proc.stderr  # nothing after the word: none of them was imported


def test_korn_graubard_imports_no_scipy_stats(tmp_path):
    """Korn and Graubard's interval (clustered 0/1 scores with few failures) takes its beta quantile from scipy.special."""
    path = tmp_path / "few.csv"
    path.write_bytes(CASES["few_failures_clustered"])
    proc = subprocess.run([sys.executable, "-c", _PROBE, "analyze", str(path), "--format", "json"], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.returncode == 0 and "Korn" in proc.stdout
    assert [line for line in proc.stderr.splitlines() if line.startswith("HEAVY")] == ["HEAVY"]


def test_dataset_frame_is_built_on_first_use_only():
    code = ("import sys; from evalstats_core.data import load, question_scores; "
            "ds = load(sys.stdin.buffer.read(), name='f.csv'); question_scores(ds); before = 'pandas' in sys.modules; "
            "frame = ds.frame; print(before, 'pandas' in sys.modules, frame is ds.frame, list(frame.columns))")
    proc = subprocess.run([sys.executable, "-c", code], input=CASES["clusters"], capture_output=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.stdout.decode().split(None, 3) == ["False", "True", "True", "['question', 'model', 'score', 'cluster']\n"]
