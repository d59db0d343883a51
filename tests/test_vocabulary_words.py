"""One vocabulary in the teaching prose (issue 40): an interval that holds 0 is "unresolved", and the words
``vocabulary.AVOIDED`` names ("draw", "tie", "noise" and their forms) never appear in our own voice.

The scan covers what a reader of the chapters sees: every content file (prose, objectives, quizzes, the
lesson plan, the "Do it in Python" code), and every string in the chapters' pages, the chapter frame
(evalstats_app), the lessons and the chapters' charts that is not a docstring or a comment. A paper's own
phrase quoted as the paper's (``vocabulary.PAPER_PHRASES``) is allowed. The workbench's words live in
``vocabulary``'s labels and are not this scan's business.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from evalstats_core.lessons.problem import differences
from evalstats_core.vocabulary import AVOIDED, PAPER_PHRASES, UNRESOLVED

ROOT = Path(__file__).resolve().parent.parent
_FORMS = {"draw": ("draw", "draws", "drawn", "drawing"), "tie": ("tie", "ties", "tied"),
          "noise": ("noise", "noises", "noisy", "noisier", "noisiest")}
BANNED = re.compile(r"\b(" + "|".join(form for word in AVOIDED for form in _FORMS[word]) + r")\b", re.IGNORECASE)

#: The workbench (pages/analyze.py and evalstats_app/workbench*) and the charts it alone uses speak the
#: analysis vocabulary, not the chapters'.
_NOT_TEACHING = {"pages/analyze.py", "evalstats_core/charts/analyze.py", "evalstats_core/charts/_render.py"}


def _python_files() -> list[Path]:
    files = [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("evalstats_core/lessons/*.py"),
             *ROOT.glob("evalstats_core/charts/*.py"),
             *(p for p in ROOT.glob("evalstats_app/*.py") if not p.name.startswith("workbench"))]
    return sorted(p for p in files if str(p.relative_to(ROOT)) not in _NOT_TEACHING)


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of ``path`` except docstrings (a statement that is only a string)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip]


def hits(text: str, quoted: tuple[str, ...] = PAPER_PHRASES) -> list[str]:
    """The avoided words in ``text`` outside the quoted paper phrases."""
    for phrase in quoted:
        text = text.replace(phrase, " ")
    return [m.group(0) for m in BANNED.finditer(text)]


def test_the_scan_finds_the_words_it_bans_and_allows_a_quoted_phrase():
    """The scan catches chapter 1's old "one win each, and a draw" and "sits inside the noise", and every form."""
    assert hits("one win each, and a draw") == ["draw"]
    assert hits("HumanEval's gap sits inside the noise.") == ["noise"]
    assert hits("Ties, noisier, drawn, TIED") == ["Ties", "noisier", "drawn", "TIED"]
    assert hits("withdrawn, tiers, noiseless") == []  # whole words only
    assert hits('the paper calls it "a statistical tie"', quoted=('"a statistical tie"',)) == []


@pytest.mark.parametrize("path", sorted(ROOT.glob("content/*.md")), ids=lambda p: p.name)
def test_content_files_avoid_the_words(path):
    """No content file uses "draw", "tie" or "noise" in any form in our own voice."""
    found = [f"line {i}: {word}" for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for word in hits(line)]
    assert not found, f"{path.name}: {found} (say instead: {AVOIDED})"


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_lesson_and_chart_strings_avoid_the_words(path):
    """No string a chapter shows (page, frame, lesson sentence, chart label) uses an avoided word."""
    found = [f"line {line}: {word}" for line, text in _strings(path) for word in hits(text)]
    assert not found, f"{path.relative_to(ROOT)}: {found} (say instead: {AVOIDED})"


def test_chapter_one_calls_a_gap_whose_interval_holds_zero_unresolved():
    """The word comes from one place: chapter 1's verdict of HumanEval (interval holds 0) is UNRESOLVED."""
    table = differences()
    humaneval = table[table["eval"] == "HumanEval"].iloc[0]
    assert humaneval["ci_low"] < 0 < humaneval["ci_high"]
    assert humaneval["verdict"] == UNRESOLVED == "unresolved"
