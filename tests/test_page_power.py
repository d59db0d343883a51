"""Chapter 7 · Power calculator, through AppTest: every control by key, the worked numbers, the URL."""

import math

import pytest
from conftest import no_exceptions, run_page

from evalstats_app.content import load_content
from evalstats_core import power as core

PAGE = "pages/power.py"


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def needed(at) -> str:
    return metrics(at)["Questions needed"]


def detectable(at) -> str:
    return next(v for k, v in metrics(at).items() if k.startswith("Minimum detectable effect"))


def text(at) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(c.value for c in at.caption)


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_page_shows_969_questions_and_sentences(default_page):
    """Defaults are the paper's first example: 969 questions to detect 3 points."""
    at = default_page
    no_exceptions(at)
    assert needed(at) == "969"
    body = text(at)
    assert "you need 969 questions" in body
    assert "With 198 questions you can reliably detect differences of 6.6 points or more" in body
    assert "Sizes are each eval's public test split" in body
    assert len(at.get("vega_lite_chart")) == 3  # questions needed, power curve, and the test pictured (issue 40)


def test_worked_examples_table_shows_969_133_76(default_page):
    """The worked-example rows show the three recomputed numbers beside the paper's."""
    body = text(default_page)
    for shown in ("**969 questions**", "**13.3%**", "**7.6%**"):
        assert shown in body


@pytest.mark.parametrize("index, expected", [(0, ("969", "3.0 points")), (1, (None, "13.3 points")),
                                             (2, (None, "7.6 points"))])
def test_load_buttons_reproduce_worked_examples(index, expected):
    """Each Load button copies an example's settings into the calculator, which then shows its number."""
    at = run_page(PAGE)
    at.button(key=f"power_load{index}").click().run()
    no_exceptions(at)
    n_text, mde_text = expected
    if n_text:
        assert needed(at) == n_text
    assert detectable(at) == mde_text


def test_sigma_k_and_n_controls_give_13_3_and_7_6_points():
    """sigma^2 = 1/6 each and n = 198 give an MDE of 13.3 points; K = 10 for both gives 7.6 points."""
    at = run_page(PAGE)
    at.number_input(key="power_sigma2_a").set_value(1 / 6)
    at.number_input(key="power_sigma2_b").set_value(1 / 6)
    at.number_input(key="power_n").set_value(198).run()
    assert detectable(at) == "13.3 points"
    assert "With 198 questions you can reliably detect differences of 13.3 points or more" in text(at)
    at.number_input(key="power_k_a").set_value(10)
    at.number_input(key="power_k_b").set_value(10).run()
    no_exceptions(at)
    assert detectable(at) == "7.6 points"


@pytest.mark.parametrize("kind, key, value, kwargs", [
    ("number_input", "power_delta", 0.05, {"delta": 0.05}),
    ("number_input", "power_alpha", 0.01, {"alpha": 0.01}),
    ("slider", "power_power", 0.9, {"power": 0.9}),
    ("number_input", "power_omega2", 0.2, {"omega2": 0.2}),
    ("number_input", "power_deff", 2.5, {"deff": 2.5}),
])
def test_each_test_control_changes_questions_needed(kind, key, value, kwargs):
    """Moving one control changes the required n to what the core computes for the new setting."""
    at = run_page(PAGE)
    getattr(at, kind)(key=key).set_value(value).run()
    no_exceptions(at)
    args = {"delta": 0.03, "omega2": 1 / 9, "alpha": 0.05, "power": 0.8, "deff": 1.0} | kwargs
    delta = args.pop("delta")
    expect = core.clustered_sample_size(delta, **args)
    assert needed(at) == f"{math.ceil(expect):,}"
    assert needed(at) != "969"


def test_variances_mode_builds_omega2_from_correlation():
    """In 'variances' mode omega^2 comes from Var(x_A), Var(x_B) and rho: 1/12 each with rho 0.5 gives 1/12."""
    at = run_page(PAGE)
    at.radio(key="power_omega_mode").set_value("variances").run()
    assert needed(at) == "969"  # the defaults 1/12, 1/12, rho = 1/3 give omega^2 = 1/9
    at.slider(key="power_rho").set_value(0.5).run()
    no_exceptions(at)
    assert needed(at) == f"{math.ceil(core.sample_size(0.03, omega2=1 / 12)):,}"
    at.number_input(key="power_var_a").set_value(0.25)
    at.number_input(key="power_var_b").set_value(0.25).run()
    assert needed(at) == f"{math.ceil(core.sample_size(0.03, omega2=core.omega2_from(0.25, 0.25, 0.5))):,}"
    assert "ω² = 0.2500" in text(at)


def test_preset_mode_sets_omega2_and_sigma2():
    """The binary preset brings sigma^2 = 1/6 for both models; the unrelated-models preset omega^2 = 1/6."""
    at = run_page(PAGE)
    at.radio(key="power_omega_mode").set_value("preset").run()
    no_exceptions(at)
    assert not any(w.key == "power_sigma2_a" for w in at.number_input)
    binary = core.sample_size(0.03, omega2=1 / 9, sigma2_a=1 / 6, sigma2_b=1 / 6)
    assert needed(at) == f"{math.ceil(binary):,}"
    at.selectbox(key="power_preset").set_value("binary_unrelated").run()
    unrelated = core.sample_size(0.03, omega2=1 / 6, sigma2_a=1 / 6, sigma2_b=1 / 6)
    assert needed(at) == f"{math.ceil(unrelated):,}"


def test_n_control_changes_mde_and_sentence():
    """The eval size sets the minimum detectable effect and its sentence."""
    at = run_page(PAGE)
    at.number_input(key="power_n").set_value(5000).run()
    no_exceptions(at)
    expect = core.mde(5000, omega2=1 / 9)
    assert detectable(at) == f"{100 * expect:.1f} points"
    assert "With 5,000 questions" in text(at)


def test_infeasible_effect_says_no_common_eval_is_large_enough():
    """An effect of half a point needs more questions than MMLU; the sentence says so."""
    at = run_page(PAGE)
    at.number_input(key="power_delta").set_value(0.005).run()
    assert "no common eval can detect this effect" in text(at)


def test_zero_noise_shows_error_not_exception():
    """omega^2 = sigma^2 = 0 makes the question meaningless: the core's message is shown, the page lives on."""
    at = run_page(PAGE)
    at.number_input(key="power_omega2").set_value(0.0).run()
    no_exceptions(at)
    assert any("omega2" in e.value for e in at.error)
    assert len(at.button) >= 3  # the worked examples and quiz still render


def test_url_restores_every_widget():
    """A link with the workbench's parameters reopens the same scenario (all units as documented)."""
    query = {"power_delta": "0.05", "power_alpha": "0.01", "power_power": "0.9", "power_omega2": "0.2",
             "power_sigma2_a": "0.1", "power_sigma2_b": "0.15", "power_k_a": "4", "power_k_b": "2",
             "power_deff": "1.5", "power_n": "2500"}
    at = run_page(PAGE, query)
    no_exceptions(at)
    assert at.number_input(key="power_delta").value == pytest.approx(0.05)
    assert at.number_input(key="power_alpha").value == pytest.approx(0.01)
    assert at.slider(key="power_power").value == pytest.approx(0.9)
    assert at.number_input(key="power_omega2").value == pytest.approx(0.2)
    assert at.number_input(key="power_sigma2_a").value == pytest.approx(0.1)
    assert at.number_input(key="power_sigma2_b").value == pytest.approx(0.15)
    assert at.number_input(key="power_k_a").value == 4
    assert at.number_input(key="power_k_b").value == 2
    assert at.number_input(key="power_deff").value == pytest.approx(1.5)
    assert at.number_input(key="power_n").value == 2500
    expect = core.clustered_sample_size(0.05, omega2=0.2, sigma2_a=0.1, sigma2_b=0.15, k_a=4, k_b=2, deff=1.5,
                                        alpha=0.01, power=0.9)
    assert needed(at) == f"{math.ceil(expect):,}"


def test_url_restores_variances_mode():
    """power_omega_mode, power_var_a/b and power_rho come back from the URL."""
    at = run_page(PAGE, {"power_omega_mode": "variances", "power_var_a": "0.2", "power_var_b": "0.1",
                         "power_rho": "0.6"})
    assert at.radio(key="power_omega_mode").value == "variances"
    assert at.number_input(key="power_var_a").value == pytest.approx(0.2)
    assert at.slider(key="power_rho").value == pytest.approx(0.6)
    assert needed(at) == f"{math.ceil(core.sample_size(0.03, omega2=core.omega2_from(0.2, 0.1, 0.6))):,}"


def test_settings_round_trip_through_the_url():
    """Moved controls are written to the URL, and that URL restores them on a fresh session."""
    at = run_page(PAGE)
    at.number_input(key="power_delta").set_value(0.04)
    at.number_input(key="power_k_a").set_value(3)
    at.radio(key="power_omega_mode").set_value("preset").run()
    at.selectbox(key="power_preset").set_value("binary_close").run()
    params = dict(at.query_params)
    assert params["power_delta"] == "0.04" and params["power_k_a"] == "3"
    assert params["power_preset"] == "binary_close"
    assert "power_n" not in params  # defaults stay out of the URL
    again = run_page(PAGE, {k: v[0] if isinstance(v, list) else v for k, v in params.items()})
    assert again.number_input(key="power_delta").value == pytest.approx(0.04)
    assert again.number_input(key="power_k_a").value == 3
    assert again.selectbox(key="power_preset").value == "binary_close"
    assert needed(again) == needed(at)


def test_bad_url_values_fall_back_or_clamp():
    """Unparseable values and unknown modes fall back to defaults; out-of-range numbers are clamped."""
    at = run_page(PAGE, {"power_delta": "abc", "power_omega_mode": "bogus", "power_n": "5", "power_k_a": "0",
                         "power_alpha": "0.9"})
    no_exceptions(at)
    assert at.number_input(key="power_delta").value == pytest.approx(0.03)
    assert at.radio(key="power_omega_mode").value == "direct"
    assert at.number_input(key="power_n").value == 5
    assert at.number_input(key="power_k_a").value == 1
    assert at.number_input(key="power_alpha").value == pytest.approx(0.5)


def test_chapter_frame_quiz_and_previous_link(default_page):
    """Title, promise, two quizzes and a link back to the previous chapter when it exists."""
    at = default_page
    assert at.title[0].value == "7 · Power calculator"
    assert sum(1 for b in at.button if b.key and b.key.startswith("power_quiz")) == 2
    q = load_content("power").quizzes[0]  # the options are shuffled per reader: pick by text
    at.radio(key="power_quiz0_choice").set_value(q.options[q.answer])
    at.button(key="power_quiz0_check").click().run()
    assert any("Correct" in s.value for s in at.success)
