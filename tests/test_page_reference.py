"""The reference page through AppTest, and its one computation (evalstats_core.lessons.reference)."""

import math

import pytest
from conftest import no_exceptions, run_page

from evalstats_app.chapters import available, page_by_slug
from evalstats_app.content import load_content
from evalstats_core.lessons import reference as lesson

PAGE = "pages/reference.py"


@pytest.fixture(scope="module")
def at():
    return run_page(PAGE)


def body(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_drop_numbers_0_34_0_44_1_34(at):
    """The Llama 3 section shows the Bernoulli 0.34 beside the same model's clustered 0.8 (Table 3), and Table
    4's naive 0.44 and clustered 1.34 with the 3.05 ratio as another model's."""
    no_exceptions(at)
    assert at.title[0].value == "Reference"
    shown = {m.label: m.value for m in at.metric}
    assert shown == {"Bernoulli SE at 87.1 F1": "0.34", "Its clustered SE (Table 3)": "0.8",
                     "Naive CLT SE": "0.44", "Clustered SE": "1.34", "Clustered / naive": "3.05×"}
    text = body(at)
    assert "**3.05×** the naive one" in text
    assert "about **1,034** independent questions" in text
    assert "What Llama 3 got wrong" in text


def test_the_bound_is_shown_on_one_models_scores(at):
    """Issue 24 item 6: the Bernoulli SE is an upper bound on the CLT SE of the same scores, so nothing shown
    as that model's naive SE may exceed it; Table 4's 0.44 is labelled as a different model's."""
    text = body(at)
    d = lesson.llama3_drop()
    assert f"Galleon's naive SE is at most **{d.se_bernoulli:.2f}**" in text
    assert d.score_clustered_se >= d.se_bernoulli
    assert "a different model from the 87.1" in text
    assert d.se_naive > d.se_bernoulli  # why the page must not call 0.44 the same model's naive SE
    import re

    for sentence in re.split(r"(?<=[.:])\s+", text):
        if "0.44" in sentence:  # every mention of 0.44 says whose it is
            assert "Table 4" in sentence or "different model" in sentence, sentence


def test_recommendations_sections(at):
    """Reporting, comparing and designing recommendations are all on the page."""
    text = body(at)
    for heading in ("Reporting one model's score", "Comparing two models", "Designing an eval",
                    "If you are writing a report today"):
        assert heading in text


def test_cheat_sheet_formulas_link_only_to_existing_chapters(at):
    """One st.latex per formula; each formula links to its chapter when that page exists, never otherwise."""
    formulas = load_content("reference").meta["formula"]
    assert len(at.latex) == len(formulas) >= 12
    assert {f["slug"] for f in formulas} == {"one_model", "small_n", "clustering", "paired", "resampling", "temperature",
                                             "power"}
    main_links = [p.proto.page for p in at.main.get("page_link")]
    existing = {p.slug for p in available()}
    expected = [f["slug"] for f in formulas if page_by_slug(f["slug"]) in available()]
    assert main_links == expected
    assert set(main_links) <= existing
    assert "power" in main_links


def test_cite_blocks(at):
    """BibTeX for Miller 2024, Bowyer et al. 2025 and Cameron & Miller 2015."""
    text = body(at)
    for needle in ("@misc{miller2024adding", "eprint        = {2411.00640}", "@inproceedings{bowyer2025clt",
                   "ICML", "@article{cameron2015practitioner", "Journal of Human Resources", "```bibtex",
                   "@article{bell2002bias", "Survey Methodology", "@article{imbens2016robust",
                   "Review of Economics and Statistics", "@article{pustejovsky2018small",
                   "Journal of Business \\& Economic Statistics"):
        assert needle in text


def test_cheat_sheet_names_the_default(at):
    """The default (CR2 + Satterthwaite t; t-tests without clusters) with its SE and df formulas."""
    text = body(at)
    assert "**The default.** evalstats reports the CR2 standard error with a t interval" in text
    assert "paired t-test, on $n - 1$ degrees of freedom" in text
    latex = [x.value for x in at.latex]
    assert any("\\frac{S_g^2}{1 - n_g/n}" in x and "t_{0.975,\\,\\nu}" in x for x in latex)
    assert any("a_g^2 f_g^2 (1 - 2 f_g)" in x and "\\nu = n - 1" in x for x in latex)
    captions = " ".join(c.value for c in at.caption)
    assert "Bell & McCaffrey 2002" in captions and "Imbens & Kolesár 2016" in captions
    assert "Pustejovsky & Tipton 2018" in captions


def test_reference_quizzes_and_no_chapter_footer(at):
    """Reference is not a Learn chapter (no previous/next links, no URL settings) but has two quiz questions:
    the recommendations (what an MGSM comparison should report) and the cheat sheet (which SE for F1)."""
    quizzes = load_content("reference").quizzes
    assert len(quizzes) == 2
    assert "MGSM" in quizzes[0].question and "clustered" in quizzes[0].options[quizzes[0].answer]
    assert "paired" in quizzes[0].options[quizzes[0].answer]
    assert quizzes[1].options[quizzes[1].answer].startswith("sd(s)/√n")
    assert [b.key for b in at.button if (b.key or "").startswith("reference_quiz")] == [
        "reference_quiz0_check", "reference_quiz1_check"]
    assert any(c.value.endswith("Score: 2 questions to answer.") for c in at.caption)
    assert not any("→" in p.proto.label or "←" in p.proto.label for p in at.main.get("page_link"))
    assert not any(p.proto.label == "Try it on data" for p in at.main.get("page_link"))
    assert dict(at.query_params) == {}


def test_reference_quiz_locks_and_scores():
    """A wrong answer to the cheat-sheet question locks with the right one named; the score counts it."""
    at = run_page(PAGE)
    q = load_content("reference").quizzes[1]
    at.radio(key="reference_quiz1_choice").set_value(q.options[0]).run()
    at.button(key="reference_quiz1_check").click().run()
    no_exceptions(at)
    assert at.radio(key="reference_quiz1_choice").disabled
    assert any(f"**{q.options[q.answer]}**" in e.value for e in at.error)
    assert any(c.value.endswith("Score: 0 of 2 correct (1 still to answer).") for c in at.caption)


# ---- evalstats_core.lessons.reference ------------------------------------------------------------


def test_llama3_drop_against_statsmodels():
    """Bernoulli SE = the normal-interval half-width / z (oracle: statsmodels proportion_confint)."""
    from statsmodels.stats.proportion import proportion_confint

    d = lesson.llama3_drop()
    # proportion_confint(0.871 * 9622, 9622, alpha=0.05, method="normal")
    low, high = proportion_confint(0.871 * 9622, 9622, alpha=0.05, method="normal")
    assert d.halfwidth_bernoulli == pytest.approx(100 * (high - low) / 2, rel=1e-12)
    assert round(d.se_bernoulli, 2) == 0.34
    assert (d.se_naive, d.se_clustered, d.ratio) == (0.44, 1.34, 3.05)
    assert d.deff == pytest.approx(3.05**2) and round(d.n_eff) == 1034
    assert d.ratio_bernoulli == pytest.approx(1.34 / d.se_bernoulli)
    assert (d.n_questions, d.n_clusters) == (9622, 588)


def test_bernoulli_se_bounds_clt_se_for_fractional_scores():
    """Error 2's direction: for scores in [0, 1] the Bernoulli SE is never below the CLT SE at that mean."""
    import numpy as np

    from evalstats_core.intervals import se_bernoulli, se_clt

    rng = np.random.default_rng(7)
    scores = rng.beta(5, 1, size=9622)  # F1-like: most near 1
    assert se_clt(scores) * math.sqrt((scores.size - 1) / scores.size) <= se_bernoulli(scores.mean(), scores.size)


def test_llama3_drop_other_score_and_confidence():
    """The score and confidence arguments are honoured: a 50% score gives the largest Bernoulli SE."""
    mid = lesson.llama3_drop(score=50.0, confidence=0.9)
    assert mid.se_bernoulli == pytest.approx(100 * math.sqrt(0.25 / 9622))
    assert mid.halfwidth_clustered == pytest.approx(1.6448536 * 1.34, rel=1e-6)
