"""Chapter prose lives in ``content/<slug>.md``: TOML front matter between ``+++`` lines (title,
promise, quizzes) and Markdown sections introduced by ``<!-- name -->`` comment lines.

    +++
    title = "One model's error bars"
    promise = "Turn a bare score into a range you can defend."
    [[quiz]]
    question = "..."
    options = ["...", "..."]
    answer = 1          # index into options
    explanation = "..."
    +++
    <!-- intro -->
    Markdown, with $LaTeX$.
    <!-- notice -->
    ...
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = ["Content", "Quiz", "load_content", "CONTENT_DIR"]

_PKG = Path(__file__).resolve().parent
# content/ at the repository root in a checkout; evalstats_app/site/content in an installed wheel.
CONTENT_DIR = _PKG / "site" / "content" if (_PKG / "site" / "content").is_dir() else _PKG.parent / "content"
_SECTION = re.compile(r"^<!--\s*([\w-]+)\s*-->\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Quiz:
    question: str
    options: tuple[str, ...]
    answer: int
    explanation: str


@dataclass(frozen=True, slots=True)
class Content:
    slug: str
    title: str
    promise: str
    sections: dict[str, str] = field(default_factory=dict)
    quizzes: tuple[Quiz, ...] = ()
    meta: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> str:
        try:
            return self.sections[name]
        except KeyError:
            raise KeyError(f"content/{self.slug}.md has no section <!-- {name} -->") from None


@lru_cache(maxsize=64)
def load_content(slug: str) -> Content:
    """Parse ``content/<slug>.md`` (cached for the life of the process)."""
    text = (CONTENT_DIR / f"{slug}.md").read_text(encoding="utf-8")
    meta: dict = {}
    if text.startswith("+++"):
        _, front, text = text.split("+++", 2)
        meta = tomllib.loads(front)
    parts = _SECTION.split(text)
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if parts[0].strip():
        sections.setdefault("intro", parts[0].strip())
    quizzes = tuple(
        Quiz(q["question"], tuple(q["options"]), int(q["answer"]), q.get("explanation", ""))
        for q in meta.get("quiz", [])
    )
    return Content(slug, meta.get("title", slug), meta.get("promise", ""), sections, quizzes, meta)
