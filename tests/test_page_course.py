"""The course frame on the chapter pages (AppTest): objectives and the measured time under the title,
optional sections collapsed (and opened by a link), "Do it in Python" printing the chapter's numbers."""

from __future__ import annotations

import doctest
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_app import pacing
from evalstats_app.chapters import LEARN
from evalstats_app.content import load_content

CHAPTERS = [p.slug for p in LEARN]
#: The state in which each chapter shows the numbers its Python block prints (the rest: defaults).
STATE = {"problem": {"problem_errorbars": "1", "problem_reveal": "1"}}


def page_text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    parts += [f"{m.label} {m.value}" for m in at.metric] + [x.value for x in at.latex]
    parts += [t.value.to_string() for t in at.table]
    return "\n".join(parts)


def _normal(text: str) -> str:
    return text.replace("\u2212", "-").replace("\\%", "%").replace(",", "")


@pytest.fixture(scope="module", params=CHAPTERS)
def chapter(request):
    slug = request.param
    at = run_page(f"pages/{slug}.py", query=STATE.get(slug))
    no_exceptions(at)
    return slug, at


def test_objectives_and_measured_time_open_the_chapter(chapter):
    slug, at = chapter
    content = load_content(slug)
    text = "\n".join(m.value for m in at.markdown)
    assert "**After this chapter you can**" in text
    for line in content.meta["objectives"]:
        assert f"- {line}" in text
    stated = [c.value for c in at.caption if c.value.startswith(":material/schedule: About")]
    assert len(stated) == 1
    counts = pacing.chapter_time(slug)
    assert stated[0].startswith(f":material/schedule: About {counts.minutes} min on the main path: {counts.describe()}.")


def test_the_stated_time_is_what_the_page_shows_now(chapter):
    """Re-measure the page at its defaults: the stated time must be within a minute of it (else run
    `python -m evalstats_app.pacing`); the charts and quizzes must be exactly those counted."""
    slug, at = chapter
    if STATE.get(slug):
        at = run_page(f"pages/{slug}.py")
    fresh, stated = pacing.measure(at, slug), pacing.chapter_time(slug)
    assert abs(fresh.minutes - stated.minutes) <= 1, (slug, fresh, stated)
    assert (fresh.charts, fresh.quizzes) == (stated.charts, stated.quizzes), (slug, fresh, stated)
    assert abs(fresh.words - stated.words) <= 0.05 * stated.words, (slug, fresh, stated)


def test_every_number_the_python_block_prints_is_on_the_page(chapter):
    """The block's printed numbers (decimals and percentages) appear in the chapter's own text."""
    slug, at = chapter
    shown = _normal(page_text(at))
    wants = "\n".join(ex.want for ex in doctest.DocTestParser().get_examples(load_content(slug).sections["python"]))
    numbers = [n for n in re.findall(r"[+-]?\d[\d,]*\.\d+%?|\d[\d,]*%", _normal(wants))]
    assert len(numbers) >= 3, (slug, numbers)
    missing = [n for n in numbers if n not in shown and n.lstrip("+") not in shown]
    assert not missing, f"{slug}: the Python block prints numbers the chapter does not show: {missing}"


def test_python_block_is_collapsed_and_shows_the_script(chapter):
    slug, at = chapter
    boxes = [e for e in at.expander if e.label.startswith("Do it in Python")]
    assert len(boxes) == 1 and not boxes[0].proto.expanded
    code = [c.value for c in at.code]
    assert any("from evalstats_core import" in c and ">>>" not in c for c in code)


OPTIONAL = [("clustering", "Optional · Lab: few and unequal clusters", "clustering_fc_g", "20"),
            ("resampling", "Optional · A fixed budget", "resampling_calls", "4000"),
            ("paired", "Optional · How much does pairing buy?", "paired_rho", "0.8"),
            ("paired", "Optional · Right-or-wrong scores: McNemar", "paired_neither", "100")]


@pytest.mark.parametrize(("slug", "label", "key", "value"), OPTIONAL, ids=[row[2] for row in OPTIONAL])
def test_advanced_sections_are_collapsed_and_a_link_opens_them(slug, label, key, value):
    def box(at):
        found = [e for e in at.expander if e.label.startswith(label)]
        assert len(found) == 1
        return found[0]

    assert not box(run_page(f"pages/{slug}.py")).proto.expanded
    assert box(run_page(f"pages/{slug}.py", query={key: value})).proto.expanded
    assert box(run_page(f"pages/{slug}.py", query={"optional": "1"})).proto.expanded


def test_chapter_two_is_split_into_two_sittings():
    """Chapter 2 (26 min measured in one page) is two pages, each with its own objectives, notices, quiz and
    Python block, and each short enough for one sitting."""
    for slug in ("one_model", "small_n"):
        content = load_content(slug)
        assert content.meta["objectives"] and len(content.quizzes) >= 2 and "python" in content.sections
        assert any(name.startswith("notice") for name in content.sections)
        assert pacing.chapter_time(slug).minutes <= 16, (slug, pacing.chapter_time(slug))
    at = run_page("pages/one_model.py")
    assert not any(i.value.startswith("**Optional · part 2") for i in at.info)
