"""pass@k in the workbench (issue 42): one file through the API, the command line and the page (AppTest, widgets by
key) gives the same numbers and the same table text; a file without several 0/1 samples offers no pass@k, and a
file whose questions have different numbers of samples shows the core's one message."""

from __future__ import annotations

import json
import shlex

import numpy as np
from conftest import no_exceptions, run_page
from test_page_analyze import inject

from evalstats_app.shell import pct
from evalstats_app.workbench_passk import LAST_KEY
from evalstats_app.workbench_sections import EXPORT_KEY
from evalstats_core import pass_at_k, pass_at_k_compare, report, report_passk
from evalstats_core.cli import main
from evalstats_core.lessons.resampling import pass_at_lesson

PAGE = "pages/analyze.py"


def _code_file() -> tuple[bytes, dict[str, np.ndarray], list[str]]:
    """30 problems in 6 topics, 3 models, 8 samples a problem numbered in the column 'run'."""
    rng = np.random.default_rng(42)
    topics = [f"topic-{q % 6}" for q in range(30)]
    samples = {m: (rng.random((30, 8)) < rng.beta(a, 2, 30)[:, None]).astype(int)
               for m, a in (("alpha", 1.0), ("beta", 2.0), ("gamma", 3.0))}
    rows = ["question,topic,model,run,score"] + [
        f"p{q:02d},{topics[q]},{m},{r},{x[q, r]}" for m, x in samples.items() for q in range(30) for r in range(8)]
    return ("\n".join(rows) + "\n").encode(), samples, topics


def test_api_cli_and_workbench_give_the_same_pass_at_k(tmp_path, capsys):
    """k = 1, 5, 8 chosen in the page's control (key analyze_pass_at): every estimate, SE, interval and df equals
    pass_at_k / pass_at_k_compare and `evalbars analyze --pass-at 1,5,8 --format json`, and the page's tables
    print report_passk's rows (the Markdown report's text)."""
    data, samples, topics = _code_file()
    path = tmp_path / "code.csv"
    path.write_bytes(data)
    assert main(["analyze", str(path), "--resample-col", "run", "--pass-at", "1,5,8", "-f", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)

    at = run_page(PAGE)
    inject(at, "code.csv", data)
    at.selectbox(key="analyze_resample_col").set_value("run").run()
    at.multiselect(key="analyze_pass_at").set_value([1, 5, 8]).run()
    no_exceptions(at)
    section = at.session_state[LAST_KEY]
    assert section.ks == (1, 5, 8) and section.clustered
    for entry in cli["models"]:
        page = section.model(entry["model"]).results
        api = [pass_at_k(samples[entry["model"]], k, clusters=topics) for k in (1, 5, 8)]
        for shown, block, r in zip(page, entry["pass_at"], api, strict=True):
            assert shown == r
            assert (block["k"], block["estimate"], block["se"], block["ci"], block["df"]) == (
                r.k, r.estimate, r.se, list(r.ci), r.df)
    for pair, entry in zip(section.comparisons, cli["comparisons"], strict=True):
        assert (pair.model, pair.baseline) == (entry["model"], entry["baseline"])
        api = [pass_at_k_compare(samples[pair.model], samples[pair.baseline], k, clusters=topics) for k in (1, 5, 8)]
        for shown, block, r in zip(pair.results, entry["pass_at"], api, strict=True):
            assert shown == r
            assert (block["estimate"], block["se"], block["ci"], block["df"], block["p_value"]) == (
                r.estimate, r.se, list(r.ci), r.df, r.p_value)
    models, pairs = report_passk.rows(section)
    tables = [t.value for t in at.table]
    shown_models = [t for t in tables if list(t.columns) == models[0]][0]
    assert shown_models.astype(str).values.tolist() == models[1:]
    shown_pairs = [t for t in tables if list(t.columns) == pairs[0]][0]
    assert shown_pairs.astype(str).values.tolist() == pairs[1:]
    assert main(["analyze", str(path), "--resample-col", "run", "--pass-at", "1,5,8"]) == 0
    markdown = capsys.readouterr().out
    for row in models[1:]:
        assert "| " + " | ".join(row) + " |" in markdown.replace("\\", "")
    assert any("pass@k of each model" in c.value for c in at.caption)


def test_the_exports_and_the_command_carry_pass_at_k(tmp_path, capsys):
    """The page's exports carry the pass@k it shows: the analysis they are made from holds the section, its JSON
    equals the shown command's output (`--pass-at 1,5` written into it) number for number."""
    data, _, _ = _code_file()
    path = tmp_path / "code.csv"
    path.write_bytes(data)
    at = run_page(PAGE)
    inject(at, "code.csv", data)
    at.selectbox(key="analyze_resample_col").set_value("run").run()
    at.multiselect(key="analyze_pass_at").set_value([1, 5]).run()
    no_exceptions(at)
    exported = at.session_state[EXPORT_KEY]
    assert exported.pass_at is at.session_state[LAST_KEY]
    command = report.settings(exported)["command"]
    assert "--pass-at 1,5" in command and any(command in c.value for c in at.code)
    args = shlex.split(command)[2:]  # after 'evalbars analyze'
    args[args.index("code.csv")] = str(path)
    assert main(["analyze", *args, "-f", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    page = json.loads(report.to_json(exported))
    assert cli["models"] == page["models"] and cli["comparisons"] == page["comparisons"]
    assert [b["k"] for b in page["models"][0]["pass_at"]] == [1, 5]


def test_a_file_with_one_answer_a_question_offers_no_pass_at_k():
    at = run_page(PAGE)  # the opening example: continuous scores, one a question
    no_exceptions(at)
    assert not [m for m in at.multiselect if m.key == "analyze_pass_at"]


def test_different_sample_counts_show_the_core_s_message():
    data = b"question,model,run,score\nq1,A,1,1\nq1,A,2,0\nq2,A,1,0\nq3,A,1,1\nq3,A,2,1\nq4,A,1,0\nq4,A,2,0\n"
    at = run_page(PAGE)
    inject(at, "uneven.csv", data)
    at.selectbox(key="analyze_resample_col").set_value("run").run()
    no_exceptions(at)
    errors = [e.value for e in at.error]
    assert any("has 1 samples of question 'q2' but 2 of most questions" in e.replace("\\", "") for e in errors), errors


def test_the_resampling_chapter_shows_pass_at_k_from_the_core():
    """Chapter 5's pass@k table prints the lesson's numbers for the page's questions, answers and seed."""
    at = run_page("pages/resampling.py")
    at.slider(key="resampling_pool_k").set_value(8).run()
    no_exceptions(at)
    n, seed = at.slider(key="resampling_pool_n").value, at.session_state["resampling_seed"]
    les = pass_at_lesson(n, 8, seed=seed)
    shown = [t.value for t in at.table if "True pass@k" in t.value.columns][0]
    assert shown["True pass@k"].tolist() == [pct(v) for v in les.frame["truth"]]
    assert shown["Naive: any of the 8 answers"].tolist() == [pct(les.naive)] * 8
    assert any(f"estimates pass@8 ({pct(les.naive_truth)})" in c.value for c in at.caption)


def test_a_downloaded_analysis_reopens_with_its_pass_at_k():
    """The downloaded analysis (.zip) carries the k shown and the plan's controls: opened again with the uploader, the
    page shows the same pass@k section and the same plan (non-default k 2 and 8, plan at k = 2 for 4.5 points)."""
    from evalstats_app.workbench_passk import PLAN_KEY
    from evalstats_app.workbench_sections import BUNDLE_KEY
    from evalstats_core.bundle import make_bundle, read_bundle
    from evalstats_core.data import load

    data, _, _ = _code_file()
    at = run_page(PAGE)
    inject(at, "code.csv", data)
    at.selectbox(key="analyze_resample_col").set_value("run").run()
    at.multiselect(key="analyze_pass_at").set_value([2, 8]).run()
    at.selectbox(key="analyze_pass_at_plan_k").set_value(2).run()
    at.number_input(key="analyze_pass_at_plan_hw").set_value(4.5).run()
    no_exceptions(at)
    before, plan_before = at.session_state[LAST_KEY], at.session_state[PLAN_KEY]
    kept = at.session_state[BUNDLE_KEY]
    assert (kept["analyze_pass_at"], kept["analyze_pass_at_plan_k"], kept["analyze_pass_at_plan_hw"]) == ([2, 8], 2,
                                                                                                          4.5)
    blob = make_bundle(load(data, name="code.csv", resample_col="run"), kept)  # what the download button zips
    assert read_bundle(blob).settings["analyze_pass_at"] == [2, 8]

    fresh = run_page(PAGE)
    inject(fresh, "code_analysis.zip", blob)
    no_exceptions(fresh)
    assert fresh.multiselect(key="analyze_pass_at").value == [2, 8]
    assert fresh.selectbox(key="analyze_pass_at_plan_k").value == 2
    assert fresh.number_input(key="analyze_pass_at_plan_hw").value == 4.5
    assert fresh.session_state[LAST_KEY] == before and fresh.session_state[PLAN_KEY] == plan_before
    assert not any("ignored" in c.value for c in fresh.caption)


def test_a_bundle_s_bad_pass_at_k_is_ignored():
    """k that are not whole numbers >= 1, or a half-width outside the control's bounds, are ignored with the note;
    a k the file cannot take (more than its samples) is dropped from the control."""
    from evalstats_core.bundle import make_bundle
    from evalstats_core.data import load

    data, _, _ = _code_file()
    blob = make_bundle(load(data, name="code.csv", resample_col="run"),
                       {"analyze_pass_at": [1, 99], "analyze_pass_at_plan_k": True, "analyze_pass_at_plan_hw": 80.0})
    fresh = run_page(PAGE)
    inject(fresh, "code_analysis.zip", blob)
    no_exceptions(fresh)
    assert fresh.multiselect(key="analyze_pass_at").value == [1]
    assert fresh.number_input(key="analyze_pass_at_plan_hw").value == 2.0
    note = " ".join(c.value for c in fresh.caption).replace("\\", "")
    assert "ignored: analyze_pass_at_plan_k, analyze_pass_at_plan_hw" in note, note
