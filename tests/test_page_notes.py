"""Speaker notes (issue 40): presenter mode projects a chapter's headings and formulas, and every paragraph it
leaves out is in the chapter's notes view (pages/notes.py), a second window for the teacher; the notes' screens
follow the headings the projector shows, in the same order.

The screens are read from each page script without running it (evalstats_app.notes); these tests run the pages
(AppTest) and hold that reading to what the pages draw.
"""

from __future__ import annotations

import doctest
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_app import notes
from evalstats_app.chapters import LEARN, page_by_slug
from evalstats_app.content import load_content

_HEADING = re.compile(r"^#{1,4} (\S.*)$")


def _main_markdown(at) -> list[str]:
    """The main column's Markdown in page order, outside expanders but the chapter's optional sections (collapsed,
    and opened on the projector when the plan uses them)."""
    out: list[str] = []

    def walk(node) -> None:
        kind = getattr(node, "type", "")
        if kind == "sidebar" or (kind == "expander" and not str(getattr(node, "label", "")).startswith("Optional")):
            return
        if getattr(node, "type", "") == "markdown":
            out.append(node.value)
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at.main)
    return out


def test_the_notes_module_examples_run():
    """The module's examples (a section's parts, a script's sections in call order) hold."""
    assert doctest.testmod(notes).failed == 0


def test_parts_keep_every_word():
    """Splitting a section loses no text: headings, formulas and paragraphs put back together are the section."""
    for page in LEARN:
        content = load_content(page.slug)
        for name in notes.prose_sections(page.slug):
            words = " ".join(text for _, text in notes.parts(content[name])).split()
            assert words == content[name].replace("$$", " ").split(), (page.slug, name)


@pytest.mark.parametrize("slug", [p.slug for p in LEARN])
def test_the_notes_hold_what_the_projector_leaves_out(slug):
    """In presenter mode a chapter's projected headings are the notes' numbered screens, in order; every
    paragraph shown outside the mode and left out in it is in the notes (none is lost from both)."""
    present = run_page(page_by_slug(slug).path, {"present": "1"})
    no_exceptions(present)
    projected = _main_markdown(present)
    headings = [m.group(1) for v in projected if (m := _HEADING.match(v.strip()))]
    screens = notes.screens(slug)
    assert [s.title for s in screens if s.projected] == headings
    plain = run_page(page_by_slug(slug).path)
    no_exceptions(plain)
    text = "\n\n".join(t for s in screens for kind, t in s.parts if kind == "notes")
    left_out = [v for v in _main_markdown(plain) if v not in projected]
    assert left_out, slug
    for block in left_out:
        if block.startswith("**After this chapter you can**"):
            continue  # the objectives: at the top of the notes page (checked below for chapter 8)
        for paragraph in block.split("\n\n"):
            if not _HEADING.match(paragraph.strip()):
                assert paragraph.strip() in text, (slug, paragraph[:80])


def test_the_notes_page_lays_out_chapter_8():
    """The notes view of chapter 8: its objectives, its step in the plan, the opening and steps 2-4 as paragraphs
    with the paired-SE formula, the headings numbered, a link that projects the chapter, and the next chapter."""
    at = run_page("pages/notes.py", {"notes_chapter": "verdict"})
    no_exceptions(at)
    assert at.title[0].value == "Speaker notes · 8 · The verdict"
    shown = " ".join(m.value for m in at.markdown)
    assert "**After this chapter you can**" in shown
    for lead in ("**Step 2: pair the questions.**", "**Step 3: cluster MGSM.**", "Chapter 1 ended on a count"):
        assert lead in shown, lead
    assert [h.value for h in at.subheader] == ["Opening (the title and the promise)", "1. The verdict", "2. Connections"]
    assert any("SE}_{\\text{paired}}" in f.value for f in at.latex)
    assert any("Lesson plan, 90-minute class" in i.value for i in at.info)
    links = {p.proto.label: p.proto for p in at.get("page_link")}
    assert "present=1" in links["Project 8 · The verdict"].query_string
    assert links["9 · The judge is an instrument →"].query_string == "notes_chapter=judge"


def test_a_chapter_the_notes_do_not_know_opens_the_first():
    """A hand-made ?notes_chapter= outside the chapters opens chapter 1's notes, not an error."""
    at = run_page("pages/notes.py", {"notes_chapter": "x');alert(1);('"})
    no_exceptions(at)
    assert at.title[0].value == f"Speaker notes · {load_content(LEARN[0].slug).title}"
