"""``--engine`` on the command line: DuckDB gives the report the in-memory reader gives, says that it ran, and
refuses in one line what needs the rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evalstats_core.cli import main

ROOT = Path(__file__).resolve().parent.parent
CLUSTERED = str(ROOT / "examples" / "multilingual_clustered.csv")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def numbers_equal(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(numbers_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(numbers_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("extra", [(), ("--no-clusters",), ("--baseline", "Galleon", "--cluster-se", "cr1")])
def test_duckdb_report_equals_memory(capsys, extra):
    code, memory, _ = run(capsys, "analyze", CLUSTERED, "--format", "json", "--engine", "memory", *extra)
    code2, sql, _ = run(capsys, "analyze", CLUSTERED, "--format", "json", "--engine", "duckdb", *extra)
    assert code == code2 == 0
    a, b = json.loads(memory), json.loads(sql)
    assert numbers_equal(a["models"], b["models"]) and numbers_equal(a["comparisons"], b["comparisons"])
    assert a["warnings"] == b["warnings"]
    assert "--engine duckdb" in b["settings"]["command"]
    assert any("duckdb engine" in n for n in b["settings"]["notes"])
    assert not any("duckdb engine" in n for n in a["settings"]["notes"])


def test_markdown_says_which_engine_ran(capsys):
    code, out, _ = run(capsys, "analyze", CLUSTERED, "--engine", "duckdb")
    assert code == 0 and "computed by the duckdb engine" in out


def test_auto_uses_duckdb_above_the_byte_budget(tmp_path, capsys):
    path = tmp_path / "big.csv"
    lines = "".join(f"q{i},{m},{(i * 7 + len(m)) % 3 == 0:d}\n" for i in range(40_000) for m in ("A-model", "B-model"))
    path.write_text("question,model,score\n" + lines)
    assert path.stat().st_size > 2**20
    code, out, _ = run(capsys, "analyze", str(path), "--max-mb", "1", "--format", "json")
    assert code == 0 and "--engine duckdb" in json.loads(out)["settings"]["command"]
    code, out, _ = run(capsys, "analyze", str(path), "--max-mb", "2", "--format", "json")
    assert code == 0 and "--engine" not in json.loads(out)["settings"]["command"]


def test_gate_by_duckdb_equals_memory(capsys):
    argv = ("gate", CLUSTERED, "--baseline", "Galleon", "--candidate", "Frigate", "--margin", "2pt")
    code, memory, _ = run(capsys, *argv, "--engine", "memory")
    code2, sql, _ = run(capsys, *argv, "--engine", "duckdb")
    assert code == code2
    assert memory.splitlines()[:6] == sql.splitlines()[:6]
    assert "duckdb engine" in sql


@pytest.mark.parametrize("extra, words", [(("--wild-bootstrap",), "the wild bootstrap (--wild-bootstrap) is not available"),
                                          (("--human-col", "x"), "the judge correction"),
                                          (("--runs-in-ids",), "runs in ids (--runs-in-ids) is not available")])
def test_what_needs_the_rows_is_refused_in_one_line(capsys, extra, words):
    code, out, err = run(capsys, "analyze", CLUSTERED, "--engine", "duckdb", *extra)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err


def ids_file(tmp_path, ids: list[str], name: str = "ids.csv") -> str:
    """A long CSV with these question ids (quoted: an id may hold a line break), each answered by two models."""
    path = tmp_path / name
    lines = "".join(f'"{q}",{m},{(i + len(m)) % 2}\n' for i, q in enumerate(ids) for m in ("A", "Bee"))
    path.write_text("question,model,score\n" + lines, encoding="utf-8")
    return str(path)


def both_engines(capsys, path: str, *extra: str) -> tuple[tuple, tuple]:
    """(exit code, stderr, the JSON report's warnings) by the in-memory reader and by DuckDB."""
    got = []
    for engine in ("memory", "duckdb"):
        code, out, err = run(capsys, "analyze", path, "--format", "json", "--engine", engine, *extra)
        got.append((code, err, json.loads(out)["warnings"] if code == 0 else out))
    return got[0], got[1]


def test_duckdb_warns_of_runs_in_ids_as_memory_does(tmp_path, capsys):
    path = ids_file(tmp_path, ["1", "1.1", "1.2", "2", "2.1", "2.2", "3", "4", "5", "6"])
    memory, duck = both_engines(capsys, path)
    assert memory == duck
    assert memory[0] == 0 and "evalbars: warning: 4 question ids look like runs of another question (e.g. '1.1' of " \
        "'1')" in memory[1]


def test_duckdb_refuses_score_like_question_ids_as_memory_does(tmp_path, capsys):
    path = ids_file(tmp_path, ["1e-1", "2e-1", "3e-1", ".5", ".75", "+0.5", "0.25", "1", "0"])
    memory, duck = both_engines(capsys, path)
    assert memory == duck
    assert memory[0] == 2 and memory[2] == "" and len(memory[1].strip().splitlines()) == 1
    assert "holds numbers that look like scores (1e-1, 2e-1, 3e-1, .5, ...: 9 distinct)" in memory[1]


@pytest.mark.parametrize("ids", [
    [f"task.{i}" for i in range(30)],  # one base, more than 20 'runs' of it: ids, not runs
    ["a.1", "b.1", "c", "d", "e", "f", "g", "h", "i", "j"],  # bases neither ids nor shared
    ["x\ny.1", "x\ny.2", "q1", "q2", "q3", "q4", "q5", "q6"],  # a base with a line break
    ["1.\u0661", "1.\u0662", "1", "2", "3", "4"],  # Arabic-Indic digits are no run number (in SQL nor Python)
    ["0", "1", "0.0", "1.0"],  # whole numbers that look like runs of 0 and 1
    [f"0.{i:03d}" for i in range(1, 40)],  # fractions with one shared base '0': scores, not runs
    [f"0.{i:03d}" for i in range(1, 40)] + ["inf"],  # 'inf' is no score
    [f"0.{i:03d}" for i in range(1, 40)] + ["1_0"],  # nor a number with '_' (Python would read 10)
    [f"0.{i}5" for i in range(1, 9)],  # eight runs of '0': the runs settle it, no scores check
])
def test_duckdb_decides_question_ids_as_memory_does(tmp_path, capsys, ids):
    memory, duck = both_engines(capsys, ids_file(tmp_path, ids))
    assert memory == duck


def test_duckdb_decides_ids_over_every_row_not_the_sample(tmp_path, capsys, monkeypatch):
    from evalstats_core import engine

    monkeypatch.setattr(engine, "SAMPLE_ROWS", 4)  # the runs come after the rows read for the column roles
    memory, duck = both_engines(capsys, ids_file(tmp_path, [f"q{i}" for i in range(6)] + ["7", "7.1", "7.2"]))
    assert memory == duck and "look like runs" in duck[1]
