"""The bundled examples by name from anywhere, and a command line that refuses a missing file at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalstats_core import examples
from evalstats_core.cli import expand_examples, missing_file
from evalstats_core.errors import EvalStatsError

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalstats_core", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=120)


def test_every_example_resolves_to_a_bundled_file_and_the_workbench_uses_the_same_list():
    from evalstats_app import examples as app_examples

    assert app_examples.EXAMPLES is examples.EXAMPLES
    for slug, ex in examples.EXAMPLES.items():
        assert examples.path(slug) == examples.path(ex.file) == examples.EXAMPLES_DIR / ex.file
        assert examples.path(slug).is_file()
    for bad in ("nope", "../README.md", "/etc/passwd", ".streamlit"):
        with pytest.raises(EvalStatsError, match="choose one of atlas_breeze, multilingual, synthetic"):
            examples.path(bad)


def test_example_by_name_from_another_directory_gives_the_files_numbers(tmp_path):
    by_name = cli("analyze", "--example", "multilingual", "--format", "json", cwd=tmp_path)
    by_path = cli("analyze", str(ROOT / "examples" / "multilingual_clustered.csv"), "--format", "json", cwd=tmp_path)
    assert by_name.returncode == 0, by_name.stderr
    assert json.loads(by_name.stdout)["models"] == json.loads(by_path.stdout)["models"]
    gate = cli("gate", "--example=multilingual", "--baseline", "Galleon", "--candidate", "Dreadnought", cwd=tmp_path)
    assert gate.returncode == 0 and "PASS" in gate.stdout
    code = "from evalstats_core import examples; print(examples.path('synthetic').is_file())"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=ENV, capture_output=True, text=True)
    assert out.stdout.strip() == "True"


def test_unknown_example_is_one_line_and_exit_2(tmp_path):
    out = cli("analyze", "--example", "nope", cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "choose one of atlas_breeze" in out.stderr
    assert cli("analyze", "--example", cwd=tmp_path).returncode == 2


def test_argv_expansion():
    where = str(examples.path("atlas_breeze"))
    assert expand_examples(["analyze", "--example", "atlas_breeze", "-f", "json"]) == ["analyze", where, "-f", "json"]
    assert expand_examples(["gate", "--example=atlas_breeze"]) == ["gate", where]
    assert expand_examples(["analyze", "--", "--example"]) == ["analyze", "--", "--example"]  # a file so named
    with pytest.raises(EvalStatsError, match="needs a name"):
        expand_examples(["analyze", "--example", "--format"])


def test_missing_file_is_refused_before_numpy_or_pandas_load(tmp_path):
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "evalstats_core", "analyze", "missing.csv"],
                         cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "file 'missing.csv' does not exist; check the path and the spelling" in out.stderr
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert imported and not imported & {"numpy", "pandas", "scipy", "pyarrow"}
    (tmp_path / "there.csv").write_text("x\n")
    assert missing_file(["-", str(tmp_path / "there.csv"), f"A={tmp_path / 'there.csv'}"]) is None
    assert missing_file([f"A={tmp_path / 'gone.csv'}"]) == f"file '{tmp_path / 'gone.csv'}' does not exist; " \
                                                          "check the path and the spelling"
