"""Every "what to notice" box of every chapter, at the defaults and at squeezed settings: a box either is
built from the numbers on the page (the per-chapter sweeps, tests/test_notes_<chapter>.py, check each
against the numbers beside it) or holds a fixed text from the chapter's content file that is listed here
with the reason it cannot contradict any state the page can reach (a general statement worded
conditionally, or a worked example that no control changes). A new fixed notice fails this test until
it is reviewed and listed, or built from the numbers.

Issue 24: fixed notices contradicted the numbers beside them (chapter 8 at rho >= 0.62, chapter 1 at
share 0, chapter 4's squares mode); those are now built by the lessons (verdict.notices, problem.demo_notes,
paired.covariance_formulas, one_model.atlas_notes / rerun_notes).
"""

from __future__ import annotations

import pytest
from conftest import no_exceptions, run_page
from test_chart_ticks import SQUEEZED

from evalstats_app.chapters import page_by_slug
from evalstats_app.content import load_content

#: (chapter, content section) -> why this fixed text cannot contradict the page's state.
STATIC: dict[tuple[str, str], str] = {
    ("problem", "notice_problem"): "chapter 1's reveal table: fixed reported numbers, no control changes them",
    ("small_n", "notice_calculator"): "general rules worded as what happens 'with a few hundred questions', "
                                      "'push the accuracy to 100%': instructions, not claims about this state",
    ("one_model", "notice_binary"): "Atlas's fixed ten scores (no control): 2.5 times, 34% to 93% as computed",
    ("small_n", "notice_lab"): "instructions ('move N to 3 or 10 and watch'): the lab's own sentence is built",
    ("clustering", "sim_notice"): "conditional ('push the correlation up', 'with enough clusters')",
    ("clustering", "coverage_notice"): "conditional on rho and the number of clusters, as the chart shows",
    ("clustering", "bootstrap_notice"): "conditional ('with a hundred or more clusters', 'with a handful')",
    ("clustering", "fc_notice_static"): "general: the few-cluster lab's own notice before it is built (fc.notice)",
    ("clustering", "paper_notice"): "Table 4's fixed numbers",
    ("clustering", "notice"): "take-aways, general",
    ("paired", "naive_notice"): "Atlas vs Breeze, fixed scores, no control",
    ("paired", "paired_notice"): "Atlas vs Breeze, fixed scores, no control",
    ("paired", "both_ways_notice"): "Atlas vs Breeze, fixed scores, no control",
    ("paired", "covariance_notice"): "Atlas vs Breeze, fixed scores; its counts are filled from the lesson",
    ("paired", "sim_notice"): "conditional on rho ('at rho = 0', 'at rho = 0.85'), formula facts",
    ("paired", "mcnemar_notice"): "a definition (ties carry no information); the sentences above it are built",
    ("paired", "battles_notice"): "the battles section has no control (one fixed seeded design); it names the two "
                                  "SE columns and the command, and the numbers in the sentence above it are built",
    ("paired", "notice"): "take-aways, general",
    ("resampling", "k_notice"): "conditional on the difficulty distribution ('crowded near 0 and 1', 'around 50%')",
    ("resampling", "pool_notice"): "conditional ('at K = 1', 'from K = 2 on', 'near 80% at K = 5 for uniform')",
    ("resampling", "budget_notice"): "conditional ('when questions are free', 'for uniform difficulty')",
    ("resampling", "mde_notice"): "a formula fact (the omega^2 floor); the sentence before it is built",
    ("resampling", "notice"): "take-aways, general",
    ("temperature", "hist_notice"): "true for every distribution (two bars at T = 0 with those heights)",
    ("temperature", "curves_notice"): "conditional on symmetry; the sentence before it is built",
    ("temperature", "notice"): "take-aways, general",
    ("power", "chart_n_notice"): "a formula fact (n ~ 1/delta^2); the sentence before it is built",
    ("power", "chart_power_notice"): "general, about the power curve's shape",
    ("power", "picture_notice"): "general: how each dragged control moves the curves; the chart's sentence is built",
    ("power", "notice"): "take-aways, general",
}

CHAPTERS = ["problem", "one_model", "small_n", "clustering", "paired", "resampling", "temperature", "power", "verdict"]
CASES = [(s, {}) for s in CHAPTERS] + [c for c in SQUEEZED if c[0] in CHAPTERS] + [
    ("problem", {"problem_share": "0.0"}), ("problem", {"problem_reveal": "1"}), ("paired", {"paired_y": "Atlas"}),
    ("verdict", {"verdict_rho_mgsm": "0.62"})]


def _boxes(at) -> list[str]:
    """The body of every notice box (``st.info`` with a bold title line)."""
    out = []
    for box in at.info:
        head, _, body = box.value.partition("\n\n")
        if head.startswith("**") and head.endswith("**"):
            out.append(body)
    return out


def _check(slug: str, at, static: dict) -> None:
    boxes = _boxes(at)
    assert boxes, f"{slug}: no notice found"
    sections = {name: text.strip() for name, text in load_content(slug).sections.items() if text.strip()}
    for body in boxes:
        for name, text in sections.items():
            if text in body:
                assert (slug, name) in static, (f"{slug}: the notice section '{name}' is fixed text; build it "
                                                f"from the numbers or list it in STATIC with the reason")


@pytest.mark.slow
@pytest.mark.parametrize(("slug", "query"), CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)])
def test_every_fixed_notice_is_reviewed(slug, query):
    at = run_page(page_by_slug(slug).path, query=query)
    no_exceptions(at)
    _check(slug, at, STATIC)


def test_an_unlisted_fixed_notice_fails():
    """The check can fail: with one reviewed entry taken out, its page is refused."""
    at = run_page(page_by_slug("temperature").path)
    with pytest.raises(AssertionError, match="hist_notice"):
        _check("temperature", at, {k: v for k, v in STATIC.items() if k != ("temperature", "hist_notice")})


def test_the_contradicting_notices_are_gone():
    """The three fixed notices the issue caught are no longer in the content files."""
    assert "notice" not in load_content("verdict").sections
    assert "notice_demo" not in load_content("problem").sections
    assert all("notice_steps" != n and "notice_rerun" != n for n in load_content("one_model").sections)
    assert "notice_steps" not in load_content("small_n").sections
