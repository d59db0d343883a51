"""The pass@k plan (issue 42): one file through the API (pass_at_k_plan on each model's samples), the command line
(`evalbars plan`) and the workbench's pass@k section (AppTest, widgets by key) gives the same questions, samples
and half-widths, and the same table text; bad options are one stderr line with exit 2."""

from __future__ import annotations

import json

import pytest
from conftest import no_exceptions, run_page
from test_page_analyze import inject
from test_page_analyze_passk import PAGE, _code_file

from evalstats_app.workbench_passk import PLAN_KEY
from evalstats_core import pass_at_k_plan, report_passk
from evalstats_core.cli import main
from evalstats_core.data import load
from evalstats_core.passk import pass_at_plans


def _json_plan(p) -> dict:
    option = lambda o: {"samples": o.samples, "questions": o.questions, "total": o.total}  # noqa: E731
    return {"half_width_now": p.half_width_now, "between": p.between, "within": p.within,
            "design_effect": p.design_effect, "cheapest": option(p.cheapest), "options": [option(o) for o in p.options]}


def test_api_cli_and_workbench_give_the_same_plan(tmp_path, capsys):
    """k = 5 at 3 points, 90%: each model's plan on the page and in `evalbars plan -f json` is pass_at_k_plan on
    that model's 30 x 8 samples with the file's topics as clusters; the page prints report_passk.plan_rows."""
    data, samples, topics = _code_file()
    path = tmp_path / "code.csv"
    path.write_bytes(data)
    api = {m: pass_at_k_plan(x, 5, 0.03, clusters=topics, confidence=0.9) for m, x in samples.items()}
    assert main(["plan", str(path), "--resample-col", "run", "--pass-at", "5", "--half-width", "3pt",
                 "--confidence", "0.9", "-f", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert (cli["k"], cli["half_width"], cli["confidence"], cli["n_samples"], cli["clustered"]) == (5, 0.03, 0.9, 8,
                                                                                                  True)
    assert [m["model"] for m in cli["models"]] == list(samples)
    for entry in cli["models"]:
        assert {k: v for k, v in entry.items() if k != "model"} == _json_plan(api[entry["model"]])
    assert [o["samples"] for o in cli["models"][0]["options"]] == [5, 8, 10, 25, 50]

    at = run_page(PAGE)
    inject(at, "code.csv", data)
    at.selectbox(key="analyze_resample_col").set_value("run").run()
    at.multiselect(key="analyze_pass_at").set_value([1, 5]).run()
    at.select_slider(key="analyze_confidence").set_value(0.9).run()
    at.selectbox(key="analyze_pass_at_plan_k").set_value(5).run()
    at.number_input(key="analyze_pass_at_plan_hw").set_value(3.0).run()
    no_exceptions(at)
    plans = at.session_state[PLAN_KEY]
    assert (plans.k, plans.half_width, plans.confidence, plans.clustered) == (5, 0.03, 0.9, True)
    assert [m.model for m in plans.models] == list(samples)
    for m in plans.models:
        assert m.plan == api[m.model]
    pilot, options = report_passk.plan_rows(plans)
    tables = [t.value for t in at.table]
    for rows in (pilot, options):
        shown = [t for t in tables if list(t.columns) == rows[0]][0]
        assert shown.astype(str).values.tolist() == rows[1:]
    assert main(["plan", str(path), "--resample-col", "run", "--pass-at", "5", "--half-width", "0.03",
                 "--confidence", "0.9"]) == 0
    markdown = capsys.readouterr().out.replace("\\", "")
    for row in pilot[1:] + options[1:]:
        assert "| " + " | ".join(row) + " |" in markdown
    assert any(report_passk.plan_sentence(plans) in c.value.replace("\\", "") for c in at.caption)


def test_the_file_plan_is_each_model_s_own_plan():
    """pass_at_plans on a file = pass_at_k_plan on each model's samples (no clusters: no design effect)."""
    data, samples, topics = _code_file()
    plans = pass_at_plans(load(data, name="code.csv", resample_col="run"), 2, 0.05, samples="2,4,8",
                          use_clusters=False)
    assert not plans.clustered
    for m in plans.models:
        assert m.plan == pass_at_k_plan(samples[m.model], 2, 0.05, samples=[2, 4, 8])
        assert m.plan.design_effect == 1.0
        assert m.plan.cheapest == min(m.plan.options, key=lambda o: (o.total, o.samples))


@pytest.mark.parametrize(("args", "words"), [
    (["--pass-at", "5", "--half-width", "0"], "--half-width '0' must be a half-width between 0 and 1"),
    (["--pass-at", "5", "--half-width", "two"], "--half-width 'two' must be"),
    (["--pass-at", "9", "--half-width", "2pt"], "k (9) must not be greater than the samples a question (8)"),
    (["--pass-at", "5", "--half-width", "2pt", "--samples", "5,x"], "samples ('5,x') must be whole numbers"),
    (["--pass-at", "5", "--half-width", "2pt", "--samples", "4"], "k (5)"),
    (["--pass-at", "5", "--half-width", "2pt", "--engine", "duckdb"], "leave --engine out"),
])
def test_bad_options_are_one_line_and_exit_2(tmp_path, capsys, args, words):
    data, _, _ = _code_file()
    path = tmp_path / "code.csv"
    path.write_bytes(data)
    try:
        code = main(["plan", str(path), "--resample-col", "run", *args])
    except SystemExit as exc:  # argparse refuses a bad --half-width before main returns
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
