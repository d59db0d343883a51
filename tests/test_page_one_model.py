"""Chapter 2a (pages/one_model.py) through AppTest: every control, the worked numbers, the URL."""

import pytest
from conftest import no_exceptions, run_page

PATH = "pages/one_model.py"


def page_text(at) -> str:
    """All the text a reader sees: markdown, LaTeX, captions, metrics, tables, notices."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [t.value.to_string() for t in at.table]
    return "\n".join(parts)


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def opened():
    return run_page(PATH)


def test_atlas_steps_show_worked_numbers(opened):
    """0.636, 0.0376, 0.194, 0.0613 and [51.6%, 75.6%], each beside its formula."""
    no_exceptions(opened)
    assert metric(opened, "Mean s̄") == "0.636"
    assert metric(opened, "Variance s²") == "0.0376"
    assert metric(opened, "Standard deviation") == "0.194"
    assert metric(opened, "Standard error") == "0.0613"
    assert metric(opened, "95% confidence interval") == "[51.6%, 75.6%]"
    latex = " ".join(e.value for e in opened.latex)
    assert r"\frac{6.36}{10} = 0.636" in latex and r"\frac{0.3384}{9} = 0.0376" in latex
    assert r"\sqrt{0.0376} = 0.194" in latex and r"\sqrt{10}} = 0.0613" in latex
    assert r"[51.6\%,\ 75.6\%]" in latex


def test_atlas_interval_both_ways(opened):
    """The paper's z interval beside the t interval that 'Try it on data' shows for the same ten scores."""
    assert metric(opened, "Normal z = 1.96 (the paper's)") == "[51.6%, 75.6%]"
    assert metric(opened, "Student's t = 2.262 on 9 df (evalstats' default)") == "[49.7%, 77.5%]"
    text = " ".join(m.value for m in opened.markdown)
    assert "gives [49.7%, 77.5%], 15% wider" in text


def test_atlas_table_has_the_ten_tasks(opened):
    """The first table lists the ten tasks with their scores."""
    table = opened.table[0].value
    assert len(table) == 10
    assert table.loc["Q6", "Task"] == "Find restaurants near the Colosseum open Sunday"
    assert table.loc["Q5", "Score sᵢ"] == "0.91"


def test_binary_vs_continuous_numbers(opened):
    """The CLT SE 0.0613 and the Bernoulli SE 0.1522 at the same mean."""
    latex = " ".join(e.value for e in opened.latex)
    assert r"\mathrm{SE}_{\mathrm{CLT}}" in latex and "= 0.0613" in latex
    assert "= 0.1522" in latex
    assert "[33.8%, 93.4%]" in page_text(opened)


def test_rerun_button_keeps_a_history():
    """Each click adds a run; 'Start over' keeps only run 1; a new seed starts a new history."""
    at = run_page(PATH)
    assert metric(at, "Runs inside run 1's 95% CI").endswith("of 1")
    at.button(key="one_model_rerun").click().run()
    at.button(key="one_model_rerun").click().run()
    no_exceptions(at)
    assert metric(at, "Runs inside run 1's 95% CI").endswith("of 3")
    assert metric(at, "Mean of run 3") != "63.6%"
    at.number_input(key="one_model_task_draw").set_value(3).run()  # another control: the history survives
    assert metric(at, "Runs inside run 1's 95% CI").endswith("of 3")
    at.button(key="one_model_reset").click().run()
    assert metric(at, "Runs inside run 1's 95% CI").endswith("of 1")
    at.button(key="one_model_rerun").click().run()
    first = metric(at, "Mean of run 2")
    at.number_input(key="one_model_rerun_seed").set_value(2).run()
    assert metric(at, "Runs inside run 1's 95% CI").endswith("of 1")
    at.button(key="one_model_rerun").click().run()
    assert metric(at, "Mean of run 2") != first


def _task_dots(at) -> list[tuple[float, float]]:
    """(score, previous) of the ten tasks, from the data the per-task rerun chart was sent."""
    from test_chart_ticks import _specs

    for spec in _specs(at):
        if "Task score in this run" in str(spec):
            values = next(v for v in spec.get("datasets", {}).values() if v and "previous" in v[0])
            return [(v["score"], v["previous"]) for v in values]
    raise AssertionError("no per-task rerun chart")


def test_rerun_moves_every_task():
    """Issue 24: the 10-task rerun did not move the per-task dots. Each click now draws the new run's ten
    scores with the previous run's beside them (those of run k-1), and the notice counts the run means."""
    at = run_page(PATH)
    first = _task_dots(at)
    assert all(s == p for s, p in first)  # run 1 against itself
    at.button(key="one_model_rerun").click().run()
    second = _task_dots(at)
    assert [p for _, p in second] == [s for s, _ in first]
    assert sum(s != p for s, p in second) >= 8  # (almost) every task moved
    at.button(key="one_model_rerun").click().run()
    third = _task_dots(at)
    assert [p for _, p in third] == [s for s, _ in second]
    runs = metric(at, "Runs inside run 1's 95% CI")
    box = next(i.value for i in at.info if "run means lie inside" in i.value)
    assert box.split("**What to notice**")[1].strip().startswith(f"- {runs.replace(' of ', ' of ')} run means")


def test_quiz_reveals_answer(opened):
    """Part 1's SD/SE quiz reveals the answer on submit."""
    q = opened.radio(key="one_model_quiz1_choice")
    q.set_value("The SD stays about the same; the SE is 5.6 times smaller").run()  # shuffled per reader: by text
    opened.button(key="one_model_quiz1_check").click().run()
    assert "Correct" in opened.success[0].value


def test_part_one_ends_by_pointing_to_part_two(opened):
    """The calculator and the lab moved to 2b: part 1 has none of their controls and names part 2."""
    keys = {w.key for kind in ("slider", "select_slider", "toggle") for w in opened.get(kind)}
    assert not keys & {"one_model_acc", "one_model_n", "one_model_lab_n", "one_model_uniform"}
    assert any("2b · Accuracy at small N" in m.value for m in opened.markdown)
