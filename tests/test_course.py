"""The course frame without running pages: "Do it in Python" blocks run as doctests on the public API,
objectives are there, the 90-minute plan adds up and points at real headings, pacing is a formula."""

from __future__ import annotations

import doctest
import re

import pytest

import evalstats_core
from evalstats_app import course, pacing
from evalstats_app.chapters import LEARN, PAGES
from evalstats_app.content import load_content
from evalstats_app.quiz import all_quizzes

CHAPTERS = [p.slug for p in LEARN]


def _python(slug: str) -> str:
    return load_content(slug).sections["python"]


@pytest.mark.parametrize("slug", CHAPTERS)
def test_python_block_runs_and_prints_what_it_says(slug):
    """The block is a doctest: every printed line is checked by running it (fresh namespace)."""
    test = doctest.DocTestParser().get_doctest(_python(slug), {}, f"content/{slug}.md:python", None, 0)
    assert len(test.examples) >= 2 and any(ex.want for ex in test.examples)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted == len(test.examples)


@pytest.mark.parametrize("slug", CHAPTERS)
def test_python_block_uses_only_the_public_api(slug):
    imports = re.findall(r"^>>> (?:from (\S+) import (.+)|import (\S+))$", _python(slug), re.MULTILINE)
    assert imports
    for module, names, plain in imports:
        assert plain == "" and module == "evalstats_core", (slug, module, plain)
        for name in (n.strip() for n in names.split(",")):
            assert name in evalstats_core.__all__, (slug, name)


@pytest.mark.parametrize("slug", CHAPTERS)
def test_the_script_shown_is_valid_python_with_the_output_as_comments(slug):
    text = _python(slug)
    script = course.script_of(text)
    compile(script, f"{slug}.py", "exec")
    assert ">>>" not in script and "..." not in script.replace('"..."', "")
    outputs = [ex.want.strip() for ex in doctest.DocTestParser().get_examples(text) if ex.want]
    for out in outputs:
        for line in out.splitlines():
            assert f"# {line}" in script


@pytest.mark.parametrize("slug", CHAPTERS)
def test_every_chapter_states_its_learning_objectives(slug):
    objectives = load_content(slug).meta.get("objectives")
    assert objectives and 2 <= len(objectives) <= 5
    for line in objectives:
        assert line[0].islower() and line.endswith((";", ".")), line  # completes "After this chapter you can"


def _anchors(slug: str) -> set[str]:
    """The anchors Streamlit gives the Markdown headings of a chapter's content (lower case, words joined by '-')."""
    content = load_content(slug)
    heads = re.findall(r"^#{1,4} (.+)$", "\n".join(content.sections.values()), re.MULTILINE)
    return {re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", h).strip().lower()) for h in heads} | {"check-yourself"}


def test_the_lesson_plan_adds_up_to_90_minutes_in_chapter_order():
    steps = load_content("teach").meta["step"]
    assert sum(s["minutes"] for s in steps) == 90
    order = [p.slug for p in PAGES]
    positions = [order.index(s["slug"]) for s in steps]
    assert positions == sorted(positions)
    core = CHAPTERS[: CHAPTERS.index("verdict") + 1]  # chapters 1 to 8; later ones are for a second class
    assert {s["slug"] for s in steps} == set(core)  # every chapter of the core has its place


def test_each_step_links_to_a_real_heading_and_a_real_quiz():
    quizzes = all_quizzes()
    for step in load_content("teach").meta["step"]:
        assert step["anchor"] == "" or step["anchor"] in _anchors(step["slug"]), step
        assert step["quiz"] in quizzes and step["quiz"].startswith(step["slug"]), step
        assert step["ask"].endswith("?") and step["do"] and step["heading"]


def test_each_ask_the_class_has_options_a_right_answer_and_an_explanation():
    """A live class reveals the plan's answer to each "Ask the class" (issue 43): 3 to 4 distinct options, the right
    one's index in range, an explanation that is not the option again."""
    meta = load_content("teach").meta
    for step in meta["step"] + meta["second"]:
        options = step["ask_options"]
        assert 3 <= len(options) <= 4 and len(set(options)) == len(options), step["ask"]
        assert isinstance(step["ask_answer"], int) and 0 <= step["ask_answer"] < len(options), step["ask"]
        assert len(step["ask_explanation"]) > 80 and options[step["ask_answer"]] not in step["ask_explanation"]


def test_optional_sections_are_not_in_the_plan():
    """The plan never sends the class into a section the chapters mark optional."""
    for step in load_content("teach").meta["step"]:
        assert step["anchor"] not in {"few-and-unequal-clusters", "a-fixed-budget-more-questions-or-more-answers",
                                      "the-small-n-lab", "how-much-does-pairing-buy",
                                      "right-or-wrong-scores-mcnemars-test"}


def test_chapter_four_main_path_fits_one_sitting():
    """Chapter 4 measured 21 min with its correlation lab and McNemar's test on the main path; collapsed
    into optional sections, what it shows by default reads in about a quarter of an hour."""
    assert pacing.chapter_time("paired").minutes <= 15, pacing.chapter_time("paired")


def test_pacing_is_a_formula_of_the_counts():
    c = pacing.Counts(words=1000, charts=4, controls=8, formulas=2, tables=2, quizzes=2)
    # 1000/200 + 4 * 0.75 + 8 * 0.25 + 2 * 0.25 + 2 * 0.5 + 2 * 1 = 5 + 3 + 2 + 0.5 + 1 + 2 = 13.5 -> 14
    assert c.minutes == 14
    assert pacing.Counts(0, 0, 0, 0, 0, 0).minutes == 1
    assert pacing.render({"x": c}).count("words = 1000") == 1


def test_every_chapter_has_measured_counts():
    measured = pacing.manifest()
    assert set(measured) == set(CHAPTERS), "content/pacing.toml is stale: run python -m evalstats_app.pacing"
    for slug, counts in measured.items():
        assert counts.words > 300 and counts.quizzes == len(load_content(slug).quizzes), slug
