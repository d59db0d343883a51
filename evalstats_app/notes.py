"""Speaker notes: the prose a chapter keeps off the projector, screen by screen (issue 40).

In presenter mode a chapter projects its headings, display formulas, charts, controls and what to notice;
its paragraphs are read from here by the notes view (``pages/notes.py?chapter=<slug>``), which the teacher
opens in a second window. A *screen* starts at each heading of the chapter's prose (the plan's links and the
presenter keys land on headings), and the chapter's opening (before its first heading) is screen 0.

Which sections a chapter shows, in which order, is read from its page script without running it: the
``shell.prose(content["name"])`` calls in the order the page makes them (a call to one of the script's own
functions, such as a fragment, is followed into that function; a ``for`` over a tuple of names is unrolled).
tests/test_notes.py holds the headings found this way to the headings presenter mode projects.

- :func:`parts` splits one section's Markdown into headings, formulas and paragraphs (what
  ``shell.prose`` draws, and what presenter mode leaves out);
- :func:`prose_sections` lists a chapter's sections in page order;
- :func:`screens` groups them into :class:`Screen` s.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from .chapters import ROOT, page_by_slug
from .content import load_content

__all__ = ["Screen", "parts", "prose_sections", "sections_in", "screens", "NOTES_PAGE"]

#: The notes view's script, relative to app.py (its URL is ``notes?notes_chapter=<slug>``).
NOTES_PAGE = "pages/notes.py"

_DISPLAY = re.compile(r"^\$\$(.+?)\$\$\s*$", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^#{1,4} \S.*$", re.MULTILINE)
_LEAD = re.compile(r"^\*\*(.+?)\*\*")  # a paragraph's bold lead-in: "**Step 2: pair the questions.** When ..."


@dataclass(frozen=True, slots=True)
class Screen:
    """One screen of a chapter in presenter mode.

    title: the heading's text (``"The paired comparison"``), or a section's bold lead-in when it has no
    heading (``"Step 2: pair the questions"``, not projected), or "" for the chapter's opening;
    projected: whether ``title`` is a heading on the slide;
    parts: what the notes view shows under it, in order, as ``("notes", markdown)`` or ``("formula", latex)``.
    """

    title: str
    projected: bool
    parts: tuple[tuple[str, str], ...]

    @property
    def has_notes(self) -> bool:
        return any(kind == "notes" for kind, _ in self.parts)


def parts(markdown: str) -> list[tuple[str, str]]:
    """One section's Markdown as ``("heading" | "formula" | "notes", text)`` in order.

    A display formula is a ``$$ ... $$`` block alone on its lines; a heading is a line of one to four ``#``;
    the paragraphs between them are one ``"notes"`` item (empty ones dropped).

    >>> parts("Intro.\\n\\n## A heading\\n\\nText.\\n\\n$$x^2$$\\n\\nMore.")
    [('notes', 'Intro.'), ('heading', '## A heading'), ('notes', 'Text.'), ('formula', 'x^2'), ('notes', 'More.')]
    """
    out: list[tuple[str, str]] = []
    for i, piece in enumerate(_DISPLAY.split(markdown)):
        if i % 2:
            out.append(("formula", piece.strip()))
            continue
        last = 0
        for match in _HEADING.finditer(piece):
            if piece[last:match.start()].strip():
                out.append(("notes", piece[last:match.start()].strip()))
            out.append(("heading", match.group(0).strip()))
            last = match.end()
        if piece[last:].strip():
            out.append(("notes", piece[last:].strip()))
    return out


def _prose_section(call: ast.Call, names: dict[str, str]) -> str | None:
    """``"name"`` when ``call`` is ``shell.prose(content["name"])`` (or ``content[var]`` with ``var`` known)."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called != "prose" or not call.args or not isinstance(call.args[0], ast.Subscript):
        return None
    target, key = call.args[0].value, call.args[0].slice
    if not (isinstance(target, ast.Name) and target.id == "content"):
        return None
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    if isinstance(key, ast.Name):
        return names.get(key.id)
    return None


def _constant_names(node: ast.expr) -> list[str] | None:
    if isinstance(node, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


@lru_cache(maxsize=32)
def prose_sections(slug: str) -> tuple[str, ...]:
    """The content sections chapter ``slug``'s page passes to ``shell.prose``, in the order it draws them.

    Both branches of an ``if`` count (a section shown only after a click is still the teacher's to read);
    a function of the script is followed where it is called, not where it is defined.
    """
    return sections_in((ROOT / page_by_slug(slug).path).read_text(encoding="utf-8"))


def sections_in(source: str) -> tuple[str, ...]:
    """:func:`prose_sections` of a page script's text.

    >>> sections_in('''
    ... def lab():
    ...     shell.prose(content["lab"])
    ... shell.prose(content["intro"])
    ... for name in ("a", "b"):
    ...     shell.prose(content[name])
    ... with shell.optional("Lab"):
    ...     lab()''')
    ('intro', 'a', 'b', 'lab')
    """
    tree = ast.parse(source)
    functions = {f.name: f for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found: list[str] = []

    def visit(node: ast.AST, names: dict[str, str], inside: frozenset[str]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return  # a definition draws nothing until it is called
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and _constant_names(node.iter):
            for value in _constant_names(node.iter):
                for child in node.body:
                    visit(child, {**names, node.target.id: value}, inside)
            return
        if isinstance(node, ast.Call):
            section = _prose_section(node, names)
            if section is not None:
                found.append(section)
                return
            if isinstance(node.func, ast.Name) and node.func.id in functions and node.func.id not in inside:
                for child in functions[node.func.id].body:
                    visit(child, names, inside | {node.func.id})
        for child in ast.iter_child_nodes(node):
            visit(child, names, inside)

    for statement in tree.body:
        visit(statement, {}, frozenset())
    return tuple(found)


@lru_cache(maxsize=32)
def screens(slug: str) -> tuple[Screen, ...]:
    """Chapter ``slug``'s screens in presenter mode, each with the paragraphs and formulas under its heading."""
    content = load_content(slug)
    out: list[Screen] = []
    title, projected, items = "", False, []
    for name in prose_sections(slug):
        section = parts(content[name])
        lead = _LEAD.match(section[0][1]) if section and section[0][0] == "notes" else None
        if lead is not None and items:  # a section that opens on a bold lead-in is a screen of its own
            out.append(Screen(title, projected, tuple(items)))
            title, projected, items = lead.group(1).rstrip(".:"), False, []
        for kind, text in section:
            if kind == "heading":
                if items or title:
                    out.append(Screen(title, projected, tuple(items)))
                title, projected, items = text.lstrip("#").strip(), True, []
            else:
                items.append((kind, text))
    out.append(Screen(title, projected, tuple(items)))
    return tuple(out)
