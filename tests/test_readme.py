"""The README is for users and true: its Python examples run (every ```python block with ``>>>`` prompts is a
doctest, run from a directory outside the repository), its example commands run from any folder, its Quick
start is short and its test command is the one CI runs, it quotes no measured figure (those live, marked, in
CONTRIBUTING.md and docs/, rewritten by scripts/readme_figures.py), and the reference it moved to docs/ agrees
with the code."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
INPUT_FILES = (ROOT / "docs" / "input-files.md").read_text(encoding="utf-8")
DOCS = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))}
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
    pattern = r"\b(examples/\w+\.csv|scripts/\w+\.sh|tests/[\w/]+\.py|docs/[\w-]+\.(?:png|md|yml)|[A-Z]+\.md)"
    for text in (README, *DOCS.values()):
        for path in sorted(set(re.findall(pattern, text))):
            assert (ROOT / path).exists(), path


def _section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_quick_start_is_two_commands_and_short():
    """The first screen: what it is, a picture of an answer, then a Quick start of at most 200 words whose two
    commands install-and-open and install-and-test; the test command is the one CI runs."""
    intro, quick = README.split("\n## ", 1)[0], _section("Quick start")
    assert "docs/screenshot.png" in intro and len(intro.split()) < 150
    assert len(quick.split()) <= 200, len(quick.split())
    assert "bash scripts/app.sh" in quick and "bash scripts/test.sh" in quick and "source .venv/bin/activate" in quick
    assert "not from PyPI" in quick
    assert 'bash scripts/test.sh -m "not browser and not slow"' in " ".join(quick.split())  # the everyday command
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^bash scripts/test\.sh\b", ci, re.M)  # CI runs the README's test command
    assert "apt-get install" in (ROOT / "scripts" / "test.sh").read_text()  # which installs everything


def test_readme_quotes_no_measured_figure():
    """Counts, times and sizes change with every commit and machine: the README quotes none (the marked ones
    live in CONTRIBUTING.md and docs/), outside code blocks and its doctest."""
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    figures = re.findall(r"\d[\d,.]*\s?(?:s|min|minutes|seconds|MB|kB|GB|tests|questions per second)(?![\w-])", prose)
    assert not figures, figures
    assert "<!--fig:" not in README


def test_readme_example_commands_run_from_any_folder(tmp_path, monkeypatch, capsys):
    """Every `evalbars ... --example NAME` line of the README runs from a folder outside the repository."""
    import shlex

    from evalstats_core.cli import main

    monkeypatch.chdir(tmp_path)
    lines = [line.split("#")[0].strip() for block in re.findall(r"```bash\n(.*?)```", README, re.S)
             for line in block.splitlines()]
    runs = [shlex.split(line.split(">")[0])[1:] for line in lines if line.startswith("evalbars") and "--example" in line]
    assert len(runs) >= 4
    for args in runs:
        code = main(args)
        capsys.readouterr()
        assert code in (0, 1, 3), (args, code)  # a gate may pass, fail or be inconclusive; never unusable (2)


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
    assert "not from PyPI" in project["description"] and "NOT on PyPI" in (ROOT / "pyproject.toml").read_text()
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]


def _readme_table(first_header: str) -> dict[str, list[str]]:
    """The docs/input-files.md table whose header row starts with ``first_header``: {first cell: backticked names}."""
    block = INPUT_FILES[INPUT_FILES.index(f"| {first_header} |"):].split("\n\n", 1)[0]
    rows = [line.split("|")[1:-1] for line in block.splitlines()[2:]]
    return {cells[0].strip(): re.findall(r"`([^`]+)`", cells[1]) for cells in rows}


def test_readme_lists_every_column_synonym_in_order():
    from evalstats_core._records import _SYNONYMS

    table = _readme_table("role")
    assert {role.split()[0]: names for role, names in table.items()} == {k: list(v) for k, v in _SYNONYMS.items()}


def test_readme_lists_the_score_words_missing_words_and_budgets():
    from evalstats_core._records import _FALSE, _MISSING, _TRUE
    from evalstats_core.flags import flag
    from evalstats_core.limits import _ENV, Limits

    section = " ".join(INPUT_FILES.split())
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
    """Every figure scripts/readme_figures.py measures has its marked span in CONTRIBUTING.md or docs/, and only
    those; the script rewrites a span and leaves the rest of the text alone."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "scripts" / "readme_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    texts = [path.read_text() for path in figures.FILES if path.exists()]
    marked = [m.group(1) for text in texts for m in figures.SPAN.finditer(text)]
    measured = {*figures.SELECTIONS, "wheel", "unpacked", "examples", "fast_timed", "fast_time", "fast_load", "full_tests", "full_time",
                "full_minutes", "full_load"}
    assert sorted(marked) == sorted(measured)
    text = DOCS["CONTRIBUTING.md"] + DOCS["install.md"]
    new = figures.rewrite(text, {"tests": "9,999", "wheel": "1 kB"})
    assert "<!--fig:tests-->9,999<!--/fig-->" in new and "<!--fig:wheel-->1 kB<!--/fig-->" in new
    assert figures.rewrite(text, {}) == text


def test_what_the_readme_writes_is_ignored():
    """A file the README's commands write (``> FILE``, ``-o FILE``) in the repository root is git-ignored, so
    trying them leaves ``git status`` clean."""
    import subprocess

    blocks = "\n".join(re.findall(r"```bash\n(.*?)```", README + DOCS["command-line.md"], re.S))
    outputs = sorted(set(re.findall(r"(?:>|-o)\s+([\w./-]+)", blocks)) - {"/dev/null"})
    assert {"stats.json", "report.html"} <= set(outputs)
    found = subprocess.run(["git", "check-ignore", *outputs], cwd=ROOT, capture_output=True, text=True)
    if found.returncode == 128:
        pytest.skip("not a git checkout")
    assert sorted(found.stdout.split()) == outputs
