"""The README's Python examples run: every ```python block with ``>>>`` prompts is a doctest (run from a
directory outside the repository: its example paths resolve from anywhere), and its commands name real files."""

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
def test_readme_python_block_runs(block, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the README's paths work from anywhere, not only from the repository root
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


def _readme_table(first_header: str) -> dict[str, list[str]]:
    """The README table whose header row starts with ``first_header``: {first cell: backticked names}."""
    block = README[README.index(f"| {first_header} |"):].split("\n\n", 1)[0]
    rows = [line.split("|")[1:-1] for line in block.splitlines()[2:]]
    return {cells[0].strip(): re.findall(r"`([^`]+)`", cells[1]) for cells in rows}


def test_readme_lists_every_column_synonym_in_order():
    from evalstats_core._columns import _SYNONYMS

    table = _readme_table("role")
    assert {role.split()[0]: names for role, names in table.items()} == {k: list(v) for k, v in _SYNONYMS.items()}


def test_readme_lists_the_score_words_missing_words_and_budgets():
    from evalstats_core._columns import _FALSE, _MISSING, _TRUE
    from evalstats_core.flags import flag
    from evalstats_core.limits import _ENV, Limits

    section = " ".join(README[README.index("## Input files"):README.index("## The app")].split())
    words = {w.lower() for pair in re.findall(r"`(\w+/\w+)`", section) for w in pair.split("/")}
    assert _TRUE | _FALSE <= words
    assert {w for w in _MISSING if w} <= {w.lower() for w in re.findall(r"`([\w/]+)`", section)}
    budgets = Limits()
    assert f"{budgets.max_bytes // 2**20} MB" in section and f"{budgets.max_rows:,}" in section.replace(" million", ",000,000")
    assert f"{budgets.max_models:,} models" in section and f"{budgets.max_pairs:,} pairwise" in section
    for name in (*_ENV.values(), *(flag(k) for k in _ENV)):
        assert f"`{name}`" in section, name
    for fmt in (".csv", ".tsv", ".parquet", ".zip", "gzip", "bzip2", "xz", "zstd", "UTF-16"):
        assert fmt in section, fmt


def test_readme_figures_are_marked_for_the_script_that_measures_them():
    """Every figure scripts/readme_figures.py measures has its marked span in the README, and only those."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "scripts" / "readme_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    text = (ROOT / "README.md").read_text()
    marked = [m.group(1) for m in figures.SPAN.finditer(text)]
    measured = {*figures.SELECTIONS, "wheel", "unpacked", "examples", "fast_timed", "fast_time", "fast_load", "full_tests", "full_time",
                "full_minutes", "full_load"}
    assert sorted(marked) == sorted(measured)
    new = figures.rewrite(text, {"tests": "9,999", "wheel": "1 kB"})
    assert "<!--fig:tests-->9,999<!--/fig-->" in new and "<!--fig:wheel-->1 kB<!--/fig-->" in new
    assert figures.rewrite(text, {}) == text
