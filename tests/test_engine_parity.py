"""One reading on every engine (issue 46): the same files, ordinary and hostile, through ``analyze -f json`` and
``gate`` in memory and by DuckDB; the engine reads them as memory does (numbers, labels, warnings) or refuses with
one line naming why. Each hostile file was once read differently without a word: DuckDB dropped human labels
(the gate PASSED where memory said REGRESSION), took one of two columns named alike, and merged ids 0.0 and -0.0.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_engine_cli import numbers_equal, run

ENGINE_NOTE = "computed by the duckdb engine"


def _long(n: int = 60, seed: int = 3, human: bool = False, extra: dict | None = None) -> pd.DataFrame:
    """A long file, models A and B; with ``human`` a 'human' column labelling the first 40% of questions, on which
    the judge over-scores B (so the corrected gate says REGRESSION where the judge alone does not)."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n):
        a, b = rng.random() < 0.7, rng.random() < 0.45
        lab = q < 0.4 * n
        rows.append({"question": f"q{q}", "model": "A", "score": int(rng.random() < 0.7),
                     **({"human": int(a) if lab else None} if human else {})})
        rows.append({"question": f"q{q}", "model": "B", "score": int(rng.random() < 0.7),
                     **({"human": int(b) if lab else None} if human else {})})
    frame = pd.DataFrame(rows)
    for k, v in (extra or {}).items():
        frame[k] = v(frame)
    return frame


def _ids(ids: list, n_models: int = 2, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame([{"question": q, "model": "AB"[m], "score": int(rng.random() < 0.6)}
                         for q in ids for m in range(n_models)])


def _write(tmp_path: Path, name: str, frame: pd.DataFrame | str) -> str:
    path = tmp_path / name
    if isinstance(frame, str):
        path.write_text(frame)
    elif name.endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return str(path)


def _dup_parquet(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table([pa.array([f"q{i // 2}" for i in range(20)]), pa.array(["A", "B"] * 10),
                             pa.array([i % 3 == 0 for i in range(20)]), pa.array([1] * 20)],
                            names=["question", "model", "score", "score"]), path)


def _gzip(path: Path) -> str:
    import gzip

    path.write_bytes(gzip.compress(_long().to_csv(index=False).encode()))
    return str(path)


# name -> (file builder, what the engine does: "same" reading, or the words of its one-line refusal)
CASES = {
    "plain long csv": (lambda t: _write(t, "plain.csv", _long()), "same"),
    "wide csv": (lambda t: _write(t, "wide.csv", "question,A,B\n" + "".join(
        f"q{i},{i % 2},{i % 3 == 0:d}\n" for i in range(30))), "same"),
    "clustered parquet": (lambda t: _write(t, "cl.parquet", _long(extra={"topic": lambda f: [
        f"t{int(q[1:]) % 6}" for q in f["question"]]})), "same"),
    "a label column of categories": (lambda t: _write(t, "cat.csv", _long(extra={"label": lambda f: [
        ("easy", "hard")[i % 2] for i in range(len(f))]})), "same"),
    "human labels in a column": (lambda t: _write(t, "human.csv", _long(human=True)), "holds human labels"),
    "gold labels in a parquet column": (lambda t: _write(t, "gold.parquet", _long(human=True).rename(
        columns={"human": "Gold"})), "holds human labels"),
    "an unnamed column": (lambda t: _write(t, "unnamed.csv", "question,model,score,\n" + "".join(
        f"q{i},{m},{i % 2},\n" for i in range(20) for m in "AB")), "same"),
    " spaced , quoted names ": (lambda t: _write(t, "spaced.csv", '\ufeff" question ", model ,"score"\n' + "".join(
        f"q{i},{m},{i % 3 == 0:d}\n" for i in range(20) for m in "AB")), "same"),
    "an id NA": (lambda t: _write(t, "na.csv", "question,model,score\n" + "".join(
        f"{'NA' if i == 3 else f'q{i}'},{m},{i % 2}\n" for i in range(12) for m in "AB")), "same"),
    "a ragged row": (lambda t: _write(t, "ragged.csv", "question,model,score\n" + "".join(
        f"q{i},{m},{i % 2}{',x' if i == 5 else ''}\n" for i in range(12) for m in "AB")), "where its header has 3"),
    "gzip bytes named .csv": (lambda t: _gzip(t / "packed.csv"), "could not read"),
    "two columns named score": (lambda t: _write(t, "dup.csv", "question,model,score,score\n" + "".join(
        f"q{i},{m},{i % 2},{i % 3 == 0:d}\n" for i in range(20) for m in "AB")), "same"),
    "Score and 'score ' alike": (lambda t: _write(t, "dup2.csv", "question,model,Score,score \n" + "".join(
        f"q{i},{m},{i % 2},1\n" for i in range(20) for m in "AB")), "same"),
    "two parquet columns named score": (lambda t: _dup_parquet(t / "dup.parquet") or str(t / "dup.parquet"), "same"),
    "float ids 0.0 and -0.0": (lambda t: _write(t, "zero.parquet", _ids([0.0, -0.0, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0])),
                               "same"),
    "text ids 0.0, -0.0, 1, 1.0": (lambda t: _write(t, "zero.csv", _ids(["0.0", "-0.0", "1", "1.0", "2", "3", "x"])),
                                   "same"),
    "integer ids": (lambda t: _write(t, "int.parquet", _ids([0, -1, 7, 10**12, 3, 4])), "same"),
    "string ids that look like integers": (lambda t: _write(t, "str.parquet", _ids(["0", "-1", "7", "007", "3"])),
                                           "same"),
    "float ids 1e10 and 1e-05": (lambda t: _write(t, "odd.parquet", _ids([1e10, 1e-5, 1.0, 2.0, 3.0])),
                                 "floating-point numbers"),
}


def _both(capsys, *argv: str) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    return run(capsys, *argv, "--engine", "memory"), run(capsys, *argv, "--engine", "duckdb")


def _same_json(memory: str, sql: str) -> None:
    a, b = json.loads(memory), json.loads(sql)
    assert [m["model"] for m in a["models"]] == [m["model"] for m in b["models"]]
    assert numbers_equal(a["models"], b["models"]), (a["models"], b["models"])
    assert numbers_equal(a["comparisons"], b["comparisons"])
    assert a["warnings"] == b["warnings"]
    assert a["settings"]["notes"] == [n for n in b["settings"]["notes"] if ENGINE_NOTE not in n]
    assert a["settings"]["command"] == b["settings"]["command"].replace(" --engine duckdb", "")


@pytest.mark.parametrize("case", list(CASES))
def test_analyze_reads_the_same_on_both_engines_or_the_engine_refuses_in_one_line(tmp_path, capsys, case):
    build, expected = CASES[case]
    path = build(tmp_path)
    (code, out, err), (code2, out2, err2) = _both(capsys, "analyze", path, "-f", "json")
    if expected == "same":
        assert code == code2, (err, err2)
        if code == 2:  # refused by both, in the same words
            assert err == err2 and err.count("\n") == 1 and "Traceback" not in err
        else:
            assert code == 0, err
            _same_json(out, out2)
    else:  # memory reads it (or refuses in its own words: a ragged row); the engine refuses in one line
        assert code == 0 or (code == 2 and err.count("\n") == 1), err
        assert code2 == 2 and err2.count("\n") == 1 and expected in err2 and "Traceback" not in err2


def test_duplicate_names_are_refused_by_both_naming_the_column(tmp_path, capsys):
    path = CASES["two columns named score"][0](tmp_path)
    (code, _, err), (code2, _, err2) = _both(capsys, "analyze", path)
    assert code == code2 == 2 and err == err2 and "two columns named 'score' (columns 3 and 4)" in err


def test_float_ids_0_and_minus_0_are_two_questions_on_both(tmp_path, capsys):
    path = CASES["float ids 0.0 and -0.0"][0](tmp_path)
    (_, out, _), (_, out2, _) = _both(capsys, "analyze", path, "-f", "json")
    assert [m["n"] for m in json.loads(out)["models"]] == [m["n"] for m in json.loads(out2)["models"]] == [8, 8]


def test_the_gate_never_passes_by_dropping_human_labels(tmp_path, capsys):
    """Memory decides on the labels (REGRESSION); DuckDB once decided on the judge alone without a word."""
    path = CASES["human labels in a column"][0](tmp_path)
    argv = ("gate", path, "--baseline", "A", "--candidate", "B")
    (code, out, _), (code2, _, err2) = _both(capsys, *argv)
    assert "corrected by human labels" in out and code in (0, 1, 3)
    assert code2 == 2 and err2.count("\n") == 1 and "column 'human'" in err2 and "--engine memory" in err2


@pytest.mark.parametrize("case", ["plain long csv", "clustered parquet", "float ids 0.0 and -0.0",
                                  "a label column of categories"])
def test_gate_decides_the_same_on_both_engines(tmp_path, capsys, case):
    path = CASES[case][0](tmp_path)
    (code, out, _), (code2, out2, _) = _both(capsys, "gate", path, "--baseline", "A", "--candidate", "B")
    assert code == code2 and code in (0, 1, 3)
    assert out.splitlines()[:4] == out2.splitlines()[:4]  # the title and the decision with its interval


def test_a_file_over_max_mb_with_human_labels_is_refused_not_read_without_them(tmp_path, capsys):
    """The automatic route (a file above --max-mb goes to DuckDB) refuses the labels column as --engine duckdb
    does, instead of gating on the judge alone."""
    path = tmp_path / "big.csv"
    path.write_text("question,model,score,human\n" + "".join(
        f"q{i},{m},{(i * 7 + len(m)) % 3 == 0:d},{'' if i % 4 else str(int(i % 3 == 0))}\n"
        for i in range(30_000) for m in ("A-model", "B-model")))
    assert path.stat().st_size > 2**20
    code, _, err = run(capsys, "gate", str(path), "--baseline", "A-model", "--candidate", "B-model", "--max-mb", "1")
    assert code == 2 and err.count("\n") == 1 and "column 'human' of big.csv holds human labels" in err
