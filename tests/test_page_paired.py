"""Chapter 4 · Paired vs unpaired, through AppTest: the Atlas/Breeze numbers, every control by key,
McNemar after editing cells, the URL."""

import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import paired as lesson

PAGE = "pages/paired.py"


def metrics(at) -> dict[str, tuple[str, str]]:
    return {m.label: (m.value, m.delta) for m in at.metric}


def text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.latex]
    return " ".join(parts)


def chi2(at) -> str:
    return metrics(at)["McNemar χ²"][0]


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_page_renders_every_section(default_page):
    at = default_page
    no_exceptions(at)
    assert at.title[0].value == "4 · Paired vs unpaired"
    assert len(at.get("vega_lite_chart")) == 6
    body = text(at)
    for section in ("Two agents, ten tasks", "The unpaired comparison", "The paired comparison",
                    "Why pairing works: covariance", "How much does pairing buy?", "McNemar's test"):
        assert section in body
    assert len([r for r in at.radio if r.key != "paired_y"]) == 2  # the two quiz questions
    table = at.dataframe[0].value
    assert list(table["Atlas"]) == list(lesson.ATLAS) and list(table["Breeze"]) == list(lesson.BREEZE)


def test_unpaired_numbers_appear(default_page):
    """Unpaired SE 0.0864 and CI [-21.9%, 11.9%], not significant."""
    shown = metrics(default_page)
    assert shown["Unpaired SE"][0] == "0.0864"
    assert shown["Unpaired 95% CI"] == ("[−21.9%, 11.9%]", "not significant")
    assert shown["Difference (Atlas − Breeze)"][0] == "−5.0%"
    assert "= 0.0864" in text(default_page) and "[-21.9\\%,\\ 11.9\\%]" in text(default_page)


def test_signs_print_with_a_true_minus(default_page):
    """Issue 24: the task table and the metrics printed "-0.06" and "-5.0%" with a hyphen while every other
    chapter prints U+2212. No number the reader sees (table, metrics, captions, prose) has a hyphen sign."""
    at = default_page
    table = at.dataframe[0].value
    assert list(table["Atlas − Breeze"])[:2] == ["−0.06", "−0.13"]
    seen = [str(v) for v in table["Atlas − Breeze"]]
    seen += [m.value for m in at.metric] + [str(m.delta or "") for m in at.metric]
    seen += [c.value for c in at.caption] + [m.value for m in at.markdown] + [t.value.to_string() for t in at.table]
    hyphen = [s for s in seen if re.search(r"(?<![\w$])-\d", s)]
    assert not hyphen, hyphen
    assert "−5.0%" in [m.value for m in at.metric]


def test_paired_numbers_appear(default_page):
    """Paired SE 0.0232 and CI [-9.5%, -0.5%], significant; correlation 0.93, 93% removed, SE down 73%."""
    shown = metrics(default_page)
    assert shown["Paired SE"] == ("0.0232", "73% smaller than unpaired")
    assert shown["Paired 95% CI"] == ("[−9.5%, −0.5%]", "significant")
    assert shown["Correlation ρ"][0] == "0.93"
    assert shown["Variance removed by pairing"][0] == "93%"
    assert shown["SE reduction"] == ("73%", "0.0864 → 0.0232")
    body = text(default_page)
    assert "[-9.5\\%,\\ -0.5\\%]" in body
    assert "\\mathrm{Cov}(a, b) = " in body and "0.0346" in body


def test_mcnemar_default_is_36_76(default_page):
    shown = metrics(default_page)
    assert shown["McNemar χ²"][0] == "36.76"
    assert shown["p-value (χ², 1 df)"][0] == "1.3e-09"
    assert "= 36.76" in text(default_page)


def test_editing_a_discordant_cell_changes_the_statistic():
    """c = 100 instead of 150: (275 - 100)^2 / 375 = 81.67."""
    at = run_page(PAGE)
    at.number_input(key="paired_only_b").set_value(100).run()
    no_exceptions(at)
    assert chi2(at) == f"{(275 - 100) ** 2 / 375:.2f}" == "81.67"
    at.number_input(key="paired_only_a").set_value(100).run()
    assert chi2(at) == "0.00"


def test_editing_a_concordant_cell_leaves_the_statistic_alone():
    """Both right 3000 -> 500 and both wrong 1575 -> 4000: still 36.76 (only b and c matter)."""
    at = run_page(PAGE)
    at.number_input(key="paired_both").set_value(500).run()
    at.number_input(key="paired_neither").set_value(4000).run()
    no_exceptions(at)
    assert chi2(at) == "36.76"
    assert "Of 4,925 questions only the 425 discordant ones" in text(at)


def test_no_discordant_questions_warns_instead_of_failing():
    at = run_page(PAGE)
    at.number_input(key="paired_only_a").set_value(0).run()
    at.number_input(key="paired_only_b").set_value(0).run()
    no_exceptions(at)
    assert chi2(at) == "undefined"
    assert any("b + c = 0" in w.value for w in at.warning)


def test_rectangle_toggle_switches_the_scatter_layers():
    at = run_page(PAGE)
    assert at.toggle(key="paired_rects").value is True
    at.toggle(key="paired_rects").set_value(False).run()
    no_exceptions(at)
    assert at.query_params["paired_rects"] == "0"


def test_correlation_and_questions_sliders_move_the_simulation():
    at = run_page(PAGE)
    at.slider(key="paired_rho").set_value(0.8).run()
    at.slider(key="paired_n").set_value(1000).run()
    no_exceptions(at)
    sw = lesson.correlation_sweep(0.8, 1000, seed=1)
    assert metrics(at)["Simulated eval: measured correlation"][0] == f"{sw.current.correlation:.2f}"
    assert f"at ρ = 0.80 the formula gives {sw.formula_paired:.2%}" in text(at)
    assert "With 1000 questions" in text(at)


def test_seed_rerun_button_draws_new_evals():
    at = run_page(PAGE)
    at.button(key="paired_seed_rerun").click().run()
    no_exceptions(at)
    assert at.number_input(key="paired_seed").value == 2
    sw = lesson.correlation_sweep(0.5, 200, seed=2)
    assert metrics(at)["Simulated eval: variance removed"][0] == f"{sw.current.variance_removed:.0%}"


def test_url_restores_every_setting():
    query = {"paired_rho": "0.7", "paired_n": "400", "paired_seed": "5", "paired_rects": "0",
             "paired_both": "100", "paired_only_a": "30", "paired_only_b": "10", "paired_neither": "60"}
    at = run_page(PAGE, query=query)
    no_exceptions(at)
    assert at.slider(key="paired_rho").value == 0.7
    assert at.slider(key="paired_n").value == 400
    assert at.number_input(key="paired_seed").value == 5
    assert at.toggle(key="paired_rects").value is False
    assert [at.number_input(key=k).value for k in ("paired_both", "paired_only_a", "paired_only_b",
                                                  "paired_neither")] == [100, 30, 10, 60]
    assert chi2(at) == f"{20 ** 2 / 40:.2f}"


def test_settings_are_written_to_the_url():
    at = run_page(PAGE)
    at.number_input(key="paired_only_b").set_value(120).run()
    at.slider(key="paired_rho").set_value(0.3).run()
    assert at.query_params["paired_only_b"] == "120"
    assert at.query_params["paired_rho"] == "0.3"


def test_quiz_answers_are_checked():
    """The paired-SE quiz: 3.0 points is right; the McNemar quiz: the statistic does not change."""
    at = run_page(PAGE)
    at.radio(key="paired_quiz0_choice").set_value("3.0 points")
    at.button(key="paired_quiz0_check").click().run()
    no_exceptions(at)
    assert any(s.value.startswith("Correct") for s in at.success)
    at.radio(key="paired_quiz1_choice").set_value("It grows: more answers are correct")
    at.button(key="paired_quiz1_check").click().run()
    assert any("It stays exactly where it was" in e.value for e in at.error)


def test_both_ways_z_and_t(default_page):
    """The seed's z (p 0.031, CI -9.5% to -0.5%) and the paired t-test on 9 df (p 0.059, CI crossing 0)."""
    at = default_page
    shown = metrics(at)
    assert shown["Normal z (the paper's)"] == ("p = 0.031", "95% CI [−9.5%, −0.5%]")
    assert shown["Paired t-test (9 df)"] == ("p = 0.059", "95% CI [−10.2%, 0.2%]")
    body = text(at)
    assert "Both ways: z or t?" in body
    assert "with t(9) it is [−10.2%, 0.2%] and crosses 0 (p = 0.059)" in body
    assert "about 19 tasks would give this t-test 80% power at the 5% level (17 by the paper's z formula" in body
    ab = lesson.atlas_breeze()
    assert ab.paired_t.df == 9 and ab.paired.df == float("inf")
    assert round(ab.paired.p_value, 3) == 0.031 and round(ab.paired_t.p_value, 3) == 0.059
    notices = " ".join(i.value for i in at.info)
    assert "What to conclude from 10 tasks" in notices and "suggestive" in notices


def test_leaderboard_formulas_give_their_printed_results_from_their_printed_inputs(default_page):
    """Issue 24 (instructor review): SE_unpaired = √(0.67² + 0.68²) = 0.96% does not recompute (it gives 0.95).
    The SEs inside each root now carry the digits that reproduce the printed result."""
    import re

    formulas = [x.value.strip("$\n") for x in default_page.latex
                if re.search(r"paired\}\} = \\sqrt\{[\d.]+\^2", x.value)]
    assert len(formulas) == 2, formulas
    for f in formulas:
        a, b = (float(v) for v in re.findall(r"([\d.]+)\^2", f)[:2])
        got = float(re.search(r"= ([\d.]+)\\%$", f).group(1))
        value = (a * a + b * b - (a * b if "2(0.5)" in f else 0.0)) ** 0.5
        assert round(value, 2) == got, (f, value)
