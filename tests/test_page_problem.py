"""Chapter 1 page (pages/problem.py) through AppTest: every control, the worked numbers, the URL."""

import pytest
from conftest import no_exceptions, run_page

PATH = "pages/problem.py"


def page_text(at) -> str:
    """All the text a reader sees: markdown, LaTeX, captions, metrics, tables, notices."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [t.value.to_string() for t in at.table]
    parts += [s.value for s in at.success] + [e.value for e in at.error]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def revealed():
    """The page with error bars and the reveal switched on."""
    at = run_page(PATH)
    at.toggle(key="problem_errorbars").set_value(True).run()
    at.toggle(key="problem_reveal").set_value(True).run()
    return at


def test_bare_table_first():
    """The page opens on the bare table, without intervals, and raises nothing."""
    at = run_page(PATH)
    no_exceptions(at)
    assert at.title[0].value == "1 · The problem"
    bare = at.table[0].value
    assert list(bare.index) == ["MATH", "HumanEval", "MGSM"]
    assert bare.loc["HumanEval", "Galleon"] == "83.6%" and bare.loc["MGSM", "Dreadnought"] == "78.0%"
    assert "0.67%" not in page_text(at)
    assert len(at.table) == 1


def test_error_bars_show_worked_numbers(revealed):
    """MATH SE 0.67% and CI (64.2%, 66.8%); HumanEval SE 2.89% and CI (77.9%, 89.3%)."""
    no_exceptions(revealed)
    latex = " ".join(e.value for e in revealed.latex)
    assert r"= 0.67\%" in latex and r"(64.2\%,\ 66.8\%)" in latex
    assert r"= 2.89\%" in latex and r"(77.9\%,\ 89.3\%)" in latex
    per_model = revealed.table[1].value
    assert per_model.loc[("MATH", "Galleon"), "SE"] == "0.67%"
    assert per_model.loc[("MATH", "Galleon"), "95% CI"] == "(64.2%, 66.8%)"
    assert per_model.loc[("HumanEval", "Galleon"), "SE"] == "2.89%"
    assert per_model.loc[("HumanEval", "Galleon"), "95% CI"] == "(77.9%, 89.3%)"


def test_reveal_lists_surviving_differences(revealed):
    """The differences table gives unpaired SEs, CIs and the verdicts, and says the data are reported numbers."""
    diffs = revealed.table[2].value
    assert diffs.loc["MATH", "Verdict"] == "Galleon ahead"
    assert diffs.loc["HumanEval", "Verdict"] == "unresolved"
    assert diffs.loc["MGSM", "Verdict"] == "Dreadnought ahead"
    assert diffs.loc["MATH", "SE (unpaired)"] == "0.96%"
    assert diffs.loc["HumanEval", "95% CI"] == "(−10.8%, +4.6%)"
    text = page_text(revealed)
    assert "unpaired" in text and "not which questions each model got right" in text
    assert "between 1.36% and 4.26%" in text  # reported.paired_se_bounds(0.836, 0.867, 164)


def test_superpopulation_controls_move_the_numbers():
    """Questions, share and seed sliders change the simulation; the formula SE follows n."""
    at = run_page(PATH)
    assert at.metric[0].value == "3.71%"  # sqrt(0.655 * 0.345 / 164)
    at.slider(key="problem_n").set_value(1000).run()
    no_exceptions(at)
    assert at.metric[0].value == "1.50%"  # sqrt(0.655 * 0.345 / 1000)
    same_before = at.metric[2].value
    at.slider(key="problem_share").set_value(1.0).run()
    no_exceptions(at)
    assert at.metric[2].value == "0.00%" != same_before  # a deterministic model never moves on reruns
    fresh = at.metric[1].value
    at.number_input(key="problem_seed").set_value(5).run()
    assert at.metric[1].value != fresh
    at.button(key="problem_seed_rerun").click().run()
    no_exceptions(at)
    assert at.number_input(key="problem_seed").value == 6


def test_url_restores_settings():
    """A link with the settings reopens the same scenario."""
    at = run_page(PATH, query={"problem_n": "300", "problem_share": "0.25", "problem_errorbars": "1",
                               "problem_seed": "9"})
    no_exceptions(at)
    assert at.slider(key="problem_n").value == 300
    assert at.slider(key="problem_share").value == 0.25
    assert at.toggle(key="problem_errorbars").value is True
    assert at.number_input(key="problem_seed").value == 9
    assert r"(64.2\%,\ 66.8\%)" in " ".join(e.value for e in at.latex)


def test_settings_are_written_to_url():
    """Moving a control writes it into the query string."""
    at = run_page(PATH)
    at.slider(key="problem_n").set_value(500).run()
    assert at.query_params["problem_n"] == "500"


def test_quiz_reveals_answer():
    """Submitting the right answer shows 'Correct' with the explanation; a wrong one names the answer."""
    at = run_page(PATH)
    right = at.radio(key="problem_quiz0_choice")
    right.set_value("MATH: its 5,000 questions make its gap far more precise").run()  # by text
    at.button(key="problem_quiz0_check").click().run()
    assert "Correct" in at.success[0].value and "1/√n" in at.success[0].value
    wrong = at.radio(key="problem_quiz1_choice")
    wrong.set_value("E[σᵢ²] alone, divided by n").run()
    at.button(key="problem_quiz1_check").click().run()
    assert "Not quite" in at.error[0].value
