"""Chapter 2b (pages/small_n.py, part 2 of chapter 2) through AppTest: the calculator, the small-N lab,
the URL (it keeps chapter 2's ``one_model_*`` keys) and the forwarding of links made before the split."""

import pytest
from conftest import no_exceptions, run_page
from test_page_one_model import page_text

PATH = "pages/small_n.py"


@pytest.fixture(scope="module")
def opened():
    return run_page(PATH)


def test_calculator_sliders():
    """Accuracy and n sliders set k and the four intervals."""
    at = run_page(PATH)
    calc = at.table[0].value
    assert calc.loc["Wald (CLT)", "95% interval"] == "[81.7%, 98.3%]"  # 45/50
    at.slider(key="one_model_acc").set_value(0.5).run()
    at.slider(key="one_model_n").set_value(1000).run()
    no_exceptions(at)
    assert "**500 correct out of 1000**" in page_text(at)
    calc = at.table[0].value
    assert calc.loc["Wald (CLT)", "Half-width"] == "±3.1 points"
    at.slider(key="one_model_acc").set_value(1.0).run()
    at.slider(key="one_model_n").set_value(10).run()
    calc = at.table[0].value
    assert calc.loc["Wald (CLT)", "95% interval"] == "[100.0%, 100.0%]"  # the collapse at n/n
    assert calc.loc["Wilson", "95% interval"] == "[72.2%, 100.0%]"


def test_small_n_lab_controls():
    """N, the uniform switch, the true accuracy and the seed all change the simulation table."""
    at = run_page(PATH)
    lab = at.table[1].value
    assert lab.loc["Wald (CLT)", "Zero-width intervals"] != "0.0%"
    assert lab.loc["Wilson", "Zero-width intervals"] == "0.0%"
    wald_n10 = lab.loc["Wald (CLT)", "Actual coverage"]
    at.select_slider(key="one_model_lab_n").set_value(3).run()
    no_exceptions(at)
    lab = at.table[1].value
    assert float(lab.loc["Wald (CLT)", "Actual coverage"].rstrip("%")) < float(wald_n10.rstrip("%"))
    at.toggle(key="one_model_uniform").set_value(False).run()
    assert at.slider(key="one_model_theta").disabled is False
    at.slider(key="one_model_theta").set_value(0.95).run()
    no_exceptions(at)
    assert "true accuracy 95%" in page_text(at)
    before = at.table[1].value.loc["Wald (CLT)", "Actual coverage"]
    at.select_slider(key="one_model_lab_n").set_value(100).run()
    at.number_input(key="one_model_lab_seed").set_value(3).run()
    at.button(key="one_model_lab_seed_rerun").click().run()
    no_exceptions(at)
    assert at.number_input(key="one_model_lab_seed").value == 4
    assert at.table[1].value.loc["Wald (CLT)", "Actual coverage"] != before
    assert "Wilson" in page_text(at) and "few hundred" in page_text(at)


def test_url_restores_settings():
    """A link reopens the same calculator and lab."""
    at = run_page(PATH, query={"one_model_n": "300", "one_model_acc": "0.8", "one_model_lab_n": "30",
                               "one_model_uniform": "0", "one_model_theta": "0.7"})
    no_exceptions(at)
    assert at.slider(key="one_model_n").value == 300
    assert at.slider(key="one_model_acc").value == 0.8
    assert at.select_slider(key="one_model_lab_n").value == 30
    assert at.toggle(key="one_model_uniform").value is False
    assert at.slider(key="one_model_theta").value == 0.7
    assert "**240 correct out of 300**" in page_text(at)


def test_url_ignores_values_outside_choices():
    """An N that is not one of the lab's choices falls back to the default."""
    at = run_page(PATH, query={"one_model_lab_n": "7"})
    no_exceptions(at)
    assert at.select_slider(key="one_model_lab_n").value == 10


def test_quiz_reveals_answer(opened):
    """The small-N quiz reveals the answer on submit."""
    q = opened.radio(key="small_n_quiz0_choice")
    q.set_value("Wilson or Bayes (Beta posterior)").run()  # shuffled per reader: by text
    opened.button(key="small_n_quiz0_check").click().run()
    assert "Correct" in opened.success[0].value


def test_coverage_curve_caption_follows_a_fixed_accuracy_near_the_edge():
    """At a fixed 2% the caption reports where Wilson and Bayes dip, from the core's numbers."""
    from evalstats_core.lessons import one_model as om

    at = run_page(PATH, query={"one_model_uniform": "0", "one_model_theta": "0.02"})
    no_exceptions(at)
    seed = at.number_input(key="one_model_lab_seed").value
    expected = om.coverage_range_sentence(om.coverage_by_n(theta=0.02, rng=seed))
    assert expected.startswith("Wilson and Bayes dip below 95%")
    assert any(expected in c.value for c in at.caption)


@pytest.mark.parametrize("query", [{"one_model_n": "300", "one_model_acc": "0.8"}, {"one_model_lab_n": "30"},
                                   {"one_model_uniform": "0", "one_model_theta": "0.7", "one_model_lab_seed": "4"}])
def test_a_link_to_chapter_two_with_part_two_settings_opens_part_two(query):
    """Links made before the split (/one_model?one_model_n=...) open 2b with the same scenario."""
    at = run_page("pages/one_model.py", query=query)
    no_exceptions(at)
    assert at.title[0].value == "2b · Accuracy at small N"
    assert dict(at.query_params) == query
    for key, raw in query.items():
        assert str(at.session_state[key]) in (raw, str(float(raw)), {"0": "False", "1": "True"}.get(raw))


def test_chapter_two_without_part_two_settings_stays_put():
    at = run_page("pages/one_model.py", query={"one_model_task_draw": "3"})
    no_exceptions(at)
    assert at.title[0].value == "2a · One model's error bars"
