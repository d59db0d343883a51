"""The workbench's judge section (evalstats_app/workbench_judge.py) through AppTest on the judged example."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT, no_exceptions, run_page

PAGE = "pages/analyze.py"
_UNESCAPE = re.compile(r"\\(.)")


def _text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return _UNESCAPE.sub(r"\1", "\n".join(parts)).replace("**", "")


@pytest.fixture(scope="module")
def judged():
    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value("judged").run()
    no_exceptions(at)
    return at


def test_judge_section_shows_the_cli_numbers(judged):
    doc = json.loads(subprocess.run([sys.executable, "-m", "evalstats_core", "analyze",
                                     "examples/judged_3_models.csv", "-f", "json"], capture_output=True, text=True,
                                    cwd=ROOT, timeout=120).stdout)
    assert judged.selectbox(key="judge_human_col").value == "human"
    text = _text(judged)
    for row in doc["models"]:
        j = row["judge"]
        gap = 100 * (j["judge_only"][0] + j["judge_only"][1]) / 2 - 100 * j["estimate"]
        assert f"over-states {row['model']} by {gap:.1f} points" in text
        assert f"300 labels give ±{100 * (j['ci'][1] - j['ci'][0]) / 2:.1f}" in text
    agree = next(d.value for d in judged.dataframe if "judge pass, human fail" in d.value.columns)
    assert list(agree["model"]) == ["Atlas", "Breeze", "Cirrus"]
    assert [agree["kappa"][i] for i in range(3)] == pytest.approx([r["agreement"]["kappa"] for r in doc["models"]])
    assert "Breeze - Atlas" in text and "Breeze and Atlas cannot be told apart" in text  # the verdicts' words


def test_every_table_and_verdict_uses_the_corrected_numbers_and_says_so(judged):
    doc = json.loads(subprocess.run([sys.executable, "-m", "evalstats_core", "analyze",
                                     "examples/judged_3_models.csv", "-f", "json"], capture_output=True, text=True,
                                    cwd=ROOT, timeout=120).stdout)
    assert any(_UNESCAPE.sub(r"\1", i.value).startswith("Judge-scored file with human labels") for i in judged.info)
    models = next(d.value for d in judged.dataframe if d.value.columns[0] == "Model")
    for row in doc["models"]:
        shown = models.loc[models["Model"] == row["model"]].iloc[0].astype(str).str.cat(sep=" ")
        assert f"{100 * row['mean']:.1f}%" in shown, shown
    text = _text(judged)
    assert "Breeze and Atlas cannot be told apart" in text  # the judge alone: Breeze ahead


def test_budget_follows_the_target_and_none_hides_the_section(judged):
    judged.number_input(key="judge_target").set_value(5.0).run()
    budget = next(d.value for d in judged.dataframe if "labelled now" in d.value.columns)
    assert (budget.iloc[:, 2] < budget.iloc[:, 3]).all()
    judged.selectbox(key="judge_human_col").set_value("(no human labels)").run()
    no_exceptions(judged)
    assert "The judge against the human labels" not in _text(judged)


def test_no_judge_section_on_a_file_without_other_columns():
    at = run_page(PAGE)
    no_exceptions(at)
    assert not [s for s in at.selectbox if s.key == "judge_human_col"]


def test_the_refusal_of_labels_without_a_model_is_worded_for_the_page():
    """Issue 46: a wide file's one label per question is refused, and the page names what it cannot set as the
    command line's flag (--labels-all-models, "which this page does not offer"), never the API's
    labels_all_models=True; the command line keeps its flag, the API its keyword."""
    import numpy as np

    from evalstats_app.workbench import INJECT_KEY
    from evalstats_core.analysis import analyze
    from evalstats_core.data import load
    from evalstats_core.errors import EvalStatsError
    from evalstats_core.judge_io import section_for

    rng = np.random.default_rng(0)
    rows = ["question,alpha,beta,human"] + [
        f"q{i},{int(rng.random() < .7)},{int(rng.random() < .6)},{int(rng.random() < .6) if i < 40 else ''}"
        for i in range(200)]
    data = ("\n".join(rows) + "\n").encode()
    at = run_page(PAGE)
    at.session_state[INJECT_KEY] = {"name": "w.csv", "data": data}
    at.run()
    at.multiselect(key="analyze_ignore_cols").set_value(["human"]).run()
    no_exceptions(at)
    shown = [_UNESCAPE.sub(r"\1", box.value) for box in [*at.info, *at.error] if "human labels" in box.value]
    assert len(shown) == 1 and "labels_all_models" not in shown[0], shown
    assert "--labels-all-models on the command line, which this page does not offer" in shown[0]
    dataset = load(data, name="w.csv", ignore_cols=("human",))
    with pytest.raises(EvalStatsError, match=r"labels_all_models=True"):  # the API keeps its keyword
        section_for(dataset, analyze(dataset), human_col="human")
