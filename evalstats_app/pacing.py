"""Honest pacing: a chapter's time counts what is on its screen by default, measured, never typed.

``python -m evalstats_app.pacing`` opens every Learn chapter at its default settings (Streamlit's
AppTest, no browser), walks what the main column shows outside collapsed expanders (the "Go deeper"
derivations and the optional sections), and writes the counts to ``content/pacing.toml``. The time is

    words / 200 + 0.75 min per chart + 0.25 min per control + 0.25 min per displayed formula
    + 0.5 min per table + 1 min per quiz,

rounded up. 200 words a minute is a careful pace for technical prose (general prose is read at about
240; Brysbaert 2019); the allowances are the time to look at a chart and its caption, to try a control
once, to read a formula, to scan a table and to answer a quiz. tests/test_pacing.py re-measures and
checks the file, so a chapter that grows cannot keep an old time.

It also opens every chapter in presenter mode (``?present=1``) and counts the words projected there
(``projected``): what a class reads off the screen, at :data:`PROJECTED_WPM` (130 words a minute, reading
aloud together), while the prose sits in collapsed speaker notes. The lesson plan's projected reading is
the sum over the chapters it opens (:func:`plan_reading_minutes`), held under 45 minutes by a test.
"""

from __future__ import annotations

import math
import sys
import tomllib
from dataclasses import dataclass
from functools import lru_cache

from streamlit.testing.v1 import AppTest

from .chapters import LEARN, ROOT, available, page_by_slug
from .content import CONTENT_DIR, load_content

__all__ = ["Counts", "WORDS_PER_MINUTE", "PROJECTED_WPM", "ALLOWANCE", "chapter_time", "measure", "manifest",
           "projected_words", "plan_reading_minutes", "main"]

WORDS_PER_MINUTE = 200
#: A class reading a projected screen together (the issue's yardstick: 130 words a minute).
PROJECTED_WPM = 130
#: Minutes per chart, control, formula, table and quiz.
ALLOWANCE = {"charts": 0.75, "controls": 0.25, "formulas": 0.25, "tables": 0.5, "quizzes": 1.0}
PACING_FILE = CONTENT_DIR / "pacing.toml"
#: Elements keyed with this prefix are for the teacher (shell.notes_link), not counted.
TEACHER_KEY = "evalstats_teacher_"

_TEXT = {"markdown", "caption", "title", "header", "subheader", "info", "warning", "success", "error",
         "exception"}
_CONTROLS = {"slider", "select_slider", "toggle", "checkbox", "selectbox", "multiselect", "number_input",
             "text_input", "radio", "button", "segmented_control", "pills", "data_editor"}
_TABLES = {"table", "dataframe", "arrow_data_frame"}


@dataclass(frozen=True, slots=True)
class Counts:
    """What a chapter shows by default: prose words, charts, controls, formulas, tables, quizzes."""

    words: int
    charts: int
    controls: int
    formulas: int
    tables: int
    quizzes: int

    @property
    def minutes(self) -> int:
        extra = sum(getattr(self, name) * each for name, each in ALLOWANCE.items())
        return max(1, math.ceil(self.words / WORDS_PER_MINUTE + extra))

    def describe(self) -> str:
        """``"1,003 words, 2 charts, 6 controls, 3 formulas, 2 quiz questions"`` (zero counts left out)."""
        names = (("words", "word"), ("charts", "chart"), ("controls", "control"), ("formulas", "formula"),
                 ("tables", "table"), ("quizzes", "quiz question"))
        parts = [f"{getattr(self, field):,} {noun}{'' if getattr(self, field) == 1 else 's'}"
                 for field, noun in names if getattr(self, field)]
        return ", ".join(parts)


@lru_cache(maxsize=1)
def _file() -> dict:
    return tomllib.loads(PACING_FILE.read_text(encoding="utf-8")) if PACING_FILE.is_file() else {}


@lru_cache(maxsize=1)
def manifest() -> dict[str, Counts]:
    """The measured counts by chapter slug (empty when the file is missing)."""
    return {slug: Counts(**{k: v for k, v in row.items() if k != "projected"}) for slug, row in _file().items()}


def projected_words(slug: str) -> int | None:
    """Words chapter ``slug`` projects in presenter mode (measured; None when not measured)."""
    return _file().get(slug, {}).get("projected")


def plan_reading_minutes(slugs) -> float:
    """Minutes of projected reading for a plan that opens the chapters ``slugs`` (each counted once, whole)."""
    return sum(projected_words(s) or 0 for s in dict.fromkeys(slugs)) / PROJECTED_WPM


def chapter_time(slug: str) -> Counts | None:
    return manifest().get(slug)


def _type(node) -> str:
    return str(getattr(node, "type", "") or "")


def _walk(node, out: dict[str, int], quiz_keys: set[str]) -> None:
    kind = _type(node)
    if kind in ("expander", "sidebar", "event"):  # collapsed by default, or not the main column
        return
    key = getattr(node, "key", None) or ""
    if key.startswith(TEACHER_KEY):  # the teacher's own (the speaker notes' link), not read off the screen
        return
    in_quiz = any(key.startswith(q) for q in quiz_keys)
    if kind in _TEXT and not in_quiz:
        out["words"] += len(str(getattr(node, "value", "") or "").split())
    elif kind == "metric":  # a labelled number: its label and value are read
        out["words"] += len(f"{getattr(node, 'label', '')} {getattr(node, 'value', '')}".split())
    elif kind == "vega_lite_chart":
        out["charts"] += 1
    elif kind in _CONTROLS and not in_quiz:
        out["controls"] += 1
    elif kind == "latex":
        out["formulas"] += 1
    elif kind in _TABLES:
        out["tables"] += 1
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            _walk(child, out, quiz_keys)


def measure(at, slug: str) -> Counts:
    """Count what an AppTest run of chapter ``slug`` shows outside expanders (quiz text from its content)."""

    quizzes = load_content(slug).quizzes
    out = dict.fromkeys(("words", "charts", "controls", "formulas", "tables"), 0)
    _walk(at._tree, out, {f"{slug}_quiz{i}" for i in range(len(quizzes))})
    out["words"] += sum(len(" ".join((q.question, *q.options)).split()) for q in quizzes)
    return Counts(**out, quizzes=len(quizzes))


def open_chapter(slug: str, *, present: bool = False, timeout: float = 120):
    """An AppTest run of chapter ``slug`` at its defaults (in presenter mode when ``present``)."""


    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    at.switch_page(page_by_slug(slug).path)
    if present:
        at.query_params["present"] = "1"
    at.run()
    return at


def measure_all(timeout: float = 120) -> dict[str, tuple[Counts, int]]:
    """Open every Learn chapter in AppTest at its defaults, and in presenter mode, and measure both."""

    result = {}
    for page in LEARN:
        if page not in available():
            continue
        shown = measure(open_chapter(page.slug, timeout=timeout), page.slug)
        projected = measure(open_chapter(page.slug, present=True, timeout=timeout), page.slug).words
        result[page.slug] = (shown, projected)
    return result


def render(counts: dict[str, Counts], projected: dict[str, int] | None = None) -> str:
    lines = ["# Written by `python -m evalstats_app.pacing` (what each chapter shows by default, and the words it",
             "# projects in presenter mode; see evalstats_app/pacing.py). tests/test_page_course.py and",
             "# tests/test_page_teach.py re-measure.", ""]
    for slug, c in counts.items():
        lines += [f"[{slug}]", *(f"{name} = {getattr(c, name)}" for name in Counts.__slots__)]
        lines += [f"projected = {projected[slug]}"] if projected and slug in projected else []
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    counts = measure_all()
    PACING_FILE.write_text(render({s: c for s, (c, _) in counts.items()}, {s: p for s, (_, p) in counts.items()}),
                           encoding="utf-8")
    for slug, (c, projected) in counts.items():
        print(f"{slug:12} {c.minutes:3} min  {c.describe()}; projected {projected:,} words "
              f"({projected / PROJECTED_WPM:.1f} min at {PROJECTED_WPM} wpm)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
