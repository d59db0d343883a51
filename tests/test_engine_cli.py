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
