"""The README's Python examples run: every ```python block with ``>>>`` prompts is a doctest (run from the
repository root, where the README's example paths resolve), and its commands name real files."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = [b for b in re.findall(r"```python\n(.*?)```", README, re.DOTALL) if ">>>" in b]


def test_readme_has_an_api_example():
    assert BLOCKS and sum(b.count(">>>") for b in BLOCKS) >= 8


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(block, monkeypatch):
    monkeypatch.chdir(ROOT)
    test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 8 and result.failed == 0


def test_readme_commands_name_files_that_exist():
    for path in sorted(set(re.findall(r"\b(examples/\w+\.csv|scripts/\w+\.sh|tests/[\w/]+\.py|docs/\w+\.png)", README))):
        assert (ROOT / path).exists(), path


def test_citation_and_licence_agree_with_the_package():
    import tomllib

    import evalstats_core

    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.MULTILINE)
    assert re.search(rf"^version: {re.escape(evalstats_core.__version__)}$", cff, re.MULTILINE)
    assert re.search(rf"^license: {project['license']}$", cff, re.MULTILINE)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License") and project["license"] == "MIT"
    assert project["name"] == "evalbars" and re.search(r"\*\*not\*\* the\s+PyPI project `evalstats`", README)
