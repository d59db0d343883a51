"""One reading, one answer (issue 19): every harness-log fixture and every example file, uploaded to the
workbench (AppTest, widgets driven by key), gives the JSON that the workbench's own reproducible command gives
on the command line: every number, label, cluster count, warning and setting, and the same dataset warnings
(the page's yellow boxes, the CLI's stderr lines). The command is run from a folder holding the uploaded files
under their upload names, as a user would run it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, no_exceptions, run_page
from judged_logs import two_logs

from evalstats_app.option_words import for_workbench
from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core import report
from evalstats_core.flags import for_cli

PAGE = "pages/analyze.py"
FIX = ROOT / "tests" / "fixtures"
LM = FIX / "lm_eval"
_UNESCAPE = re.compile(r"\\(.)")


def _files(*paths: Path) -> list[tuple[str, Path]]:
    return [(p.name, p) for p in paths]


def _split_by_model(path: Path) -> list[tuple[str, bytes]]:
    """A long results file as one file per model (as some harnesses write them), with an extra column."""
    head, *rows = path.read_text().splitlines()
    out: dict[str, list[str]] = {}
    for row in rows:
        out.setdefault(row.split(",")[1], []).append(row + f",{len(row)}")
    return [(f"{m}.csv", "\n".join([head + ",n_chars", *r]).encode() + b"\n") for m, r in out.items()]


SPLIT = _split_by_model(ROOT / "examples" / "multilingual_clustered.csv")


#: 24 questions, two models, one (question, model) pair on two rows with different scores: a reading warning
REPEATED = ("question,model,score\n" + "".join(f"q{i},A,{i % 2}\nq{i},Bee,{(i // 3) % 2}\n" for i in range(24))
            + "q0,A,1\n").encode()

CASES: dict[str, tuple[list[tuple[str, Path]], dict]] = {
    **{f"example:{p.name}": (_files(p), {}) for p in sorted((ROOT / "examples").glob("*.csv"))},
    **{f"cr2:{p.name}": (_files(p), {}) for p in sorted((FIX / "cr2_designs").glob("*.csv"))},
    "lm_eval:model-a (samples + results)": (_files(*sorted((LM / "org__model-a").iterdir())), {}),
    "lm_eval:model-a algebra+history (a group of 2 subtasks)": (
        _files(*sorted((LM / "org__model-a").glob("*_quiz_[ah][li]*")), *(LM / "org__model-a").glob("results_*")), {}),
    "lm_eval:model-a, metric acc_norm": (
        _files(*sorted((LM / "org__model-a").glob("*_quiz_[ah][li]*")), *(LM / "org__model-a").glob("results_*")),
        {"text": {"analyze_metric": "acc_norm"}}),
    "lm_eval:model-a, no clusters": (
        _files(*sorted((LM / "org__model-a").glob("*_quiz_[ah][li]*")), *(LM / "org__model-a").glob("results_*")),
        {"select": {"analyze_harness_cluster": "(none)"}}),
    "inspect:model-a.json": (_files(FIX / "inspect" / "model-a.json"), {}),
    "inspect:model-a_deflate.eval": (_files(FIX / "inspect" / "model-a_deflate.eval"), {}),
    "inspect:two models (zstd)": (_files(FIX / "inspect" / "model-a_zstd.eval", FIX / "inspect" / "model-b_zstd.eval"),
                                  {}),
    # the human scorer on the judge's 0/1 scale (issue 46: the fixture's 'match' beside a 1-10 'rating' judge, which
    # this case read before, is refused now: tests/test_human_labels.py)
    "inspect:two scorers, the human one picked (issue 39.5)": (two_logs(), {"select": {"judge_human_col": "scorer 'human'"}}),
    "inspect:a metadata key per sample and model (issue 39.5)": (
        two_logs(), {"select": {"judge_human_col": "metadata.human_label"}}),
    "inspect:upstream json": (_files(*sorted((FIX / "inspect" / "upstream").glob("*.json"))), {}),
    "promptfoo": (_files(FIX / "promptfoo" / "results.json"), {}),
    "example:duplicates as errors": (_files(ROOT / "examples" / "atlas_breeze.csv"),
                                     {"select": {"analyze_duplicates": "error"}}),
    "example:scales allowed": (_files(ROOT / "examples" / "atlas_breeze.csv"),
                               {"select": {"analyze_mixed_scales": "allow"}}),
    "example:cluster set to none": (_files(ROOT / "examples" / "multilingual_clustered.csv"),
                                    {"select": {"analyze_cluster_col": "(none)"}}),
    "example:a column left out": (_files(ROOT / "examples" / "chat_5_sources.csv"), {"multi": "last"}),
    "split:one CSV per model, a column left out": (SPLIT, {"multi": "last"}),
    "split:one CSV per model, cluster none": (SPLIT, {"select": {"analyze_harness_cluster": "(none)"}}),
    "bytes:a repeated row with another score (a warning naming duplicates=)": ([("repeated.csv", REPEATED)], {}),
    "example:named -dash.csv": ([("-dash.csv", ROOT / "examples" / "atlas_breeze.csv")], {}),
    "example:with a space and a quote.csv": ([("it's a file.csv", ROOT / "examples" / "atlas_breeze.csv")], {}),
}


def _upload(cases_files: list[tuple[str, Path]], changes: dict):
    at = run_page(PAGE)
    files = [(name, path if isinstance(path, bytes) else path.read_bytes()) for name, path in cases_files]
    at.session_state[INJECT_KEY] = {"files": files} if len(files) > 1 else {"name": files[0][0], "data": files[0][1]}
    at.run()
    for key, value in changes.get("text", {}).items():
        at.text_input(key=key).input(value).run()
    for key, value in changes.get("select", {}).items():
        at.selectbox(key=key).set_value(value).run()
    if changes.get("multi") == "last":
        box = at.multiselect(key="analyze_ignore_cols")
        box.set_value([box.options[-1]]).run()
    no_exceptions(at)
    return at


def _cli(command: str, folder: Path) -> tuple[dict, list[str]]:
    words = shlex.split(command)
    args = words[words.index("analyze"):]  # the program's name may be 'evalbars' or 'python -m evalstats_core'
    out = subprocess.run([sys.executable, "-m", "evalstats_core", *args, "--format", "json"], cwd=folder,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), [ln for ln in out.stderr.splitlines() if ln]


@pytest.mark.parametrize("case", list(CASES))
def test_the_workbench_and_its_command_give_the_same_json(case, tmp_path, monkeypatch):
    files, changes = CASES[case]
    at = _upload(files, changes)
    assert not at.error, [e.value for e in at.error]
    analysis = at.session_state[LAST_KEY]
    page = json.loads(report.to_json(analysis))
    if case == "example:judged_3_models.csv":  # the judge's blocks are in the page's export (issue 23.5)
        assert page["settings"]["human_labels"] and all({"judge", "agreement"} <= set(m) for m in page["models"])
        assert page["comparisons"] and all("judge" in c for c in page["comparisons"])
    if case.startswith("inspect:two scorers"):  # the human scorer read on the page as --human-col reads it
        assert page["settings"]["human_labels"] == "scorer 'human'" and "--human-col human" in page["settings"]["command"]
        assert all(m["judge"]["corrected"] and m["judge"]["n_labeled"] == 12 for m in page["models"])
    if case.startswith("inspect:a metadata key"):  # per sample and model, never averaged across the models
        assert "--human-col metadata.human_label" in page["settings"]["command"]
        a, b = (m["judge"]["estimate"] for m in page["models"])
        (pair,) = page["comparisons"]
        assert all(m["judge"]["corrected"] and m["judge"]["n_labeled"] == 12 for m in page["models"])
        assert pair["judge"]["estimate"] != 0.0 and abs(pair["judge"]["estimate"]) == pytest.approx(abs(b - a))
    command = page["settings"]["command"]
    for name, path in files:  # the user's folder: the files under the names they uploaded
        (tmp_path / name).write_bytes(path if isinstance(path, bytes) else path.read_bytes())
    for name, _ in files:  # every file by name, never '<file> and 3 more files'
        assert shlex.quote(name if not name.startswith("-") else f"./{name}") in command
    assert "more file" not in command
    cli, stderr = _cli(command, tmp_path)
    assert cli["settings"] == page["settings"], [(k, v, page["settings"].get(k)) for k, v in cli["settings"].items() if page["settings"].get(k) != v]
    assert cli == page  # every number, label, cluster count, warning and setting (the command itself too)
    # the files' own warnings: yellow boxes under "What was inferred" (the guardrails below them start in bold),
    # the same warnings as the core words them, each surface naming the options its own way (option_words, flags)
    shown = [_UNESCAPE.sub(r"\1", w.value) for w in at.warning if not w.value.startswith("**")]
    printed = [ln.removeprefix("evalstats: warning: ").removeprefix("evalbars: warning: ") for ln in stderr]
    raw = _core_warnings(command, tmp_path, monkeypatch)
    assert _lines(shown) == _lines(for_workbench(w) for w in raw)
    assert _lines(printed) == _lines(for_cli(w) for w in raw)


def _core_warnings(command: str, folder: Path, monkeypatch) -> list[str]:
    """The dataset warnings of the command's reading, in the core's words (the API's: ``duplicates='error'``)."""
    import contextlib
    import io

    from evalstats_core.cli import _load, build_parser

    words = shlex.split(command)
    monkeypatch.chdir(folder)
    with contextlib.redirect_stderr(io.StringIO()):
        return list(_load(build_parser().parse_args(words[words.index("analyze"):]))[0].warnings)


def _lines(texts) -> list[str]:
    return sorted(" ".join(t.split()) for t in texts)


def test_an_lm_eval_group_clusters_on_its_subtasks_in_both_places(tmp_path):
    """Issue 19.1: an lm-eval group's subtasks are the clusters on the page as on the command line, the page
    shows the choice, and the few-clusters cost is said in both. Issue 46: 2 subtasks are too few to be read by
    default (the page says so and offers 'task'); chosen, they are read in both places."""
    files, _ = CASES["lm_eval:model-a algebra+history (a group of 2 subtasks)"]
    at = _upload(files, {})
    assert not at.session_state[LAST_KEY].clustered
    assert at.selectbox(key="analyze_harness_cluster").value == "(found by the importer)"
    at.selectbox(key="analyze_harness_cluster").set_value("task").run()
    a = at.session_state[LAST_KEY]
    assert a.clustered and a.n_clusters == 2 and a.cluster_col == "task"
    assert any("what clustering on 2 clusters" in _UNESCAPE.sub(r"\1", i.value).lower() for i in at.info)
    cli = json.loads(subprocess.run(
        [sys.executable, "-m", "evalstats_core", "analyze", *[str(p) for _, p in files if "samples" in p.name],
         "--cluster-col", "task", "--format", "json"], capture_output=True, text=True, cwd=ROOT, timeout=120).stdout)
    assert [m["ci"] for m in cli["models"]] == [[m.ci_low, m.ci_high] for m in a.models]
    assert any(w.startswith("what clustering on 2 clusters") for w in cli["warnings"])


def test_a_model_name_per_file_reaches_the_analysis_and_the_command(tmp_path):
    """Issue 19.3: two Inspect logs named per file in the workbench: the names are the models, and the command
    gives them as NAME=PATH, which reruns to the same JSON."""
    files, _ = CASES["inspect:two models (zstd)"]
    at = _upload(files, {"text": {"analyze_model_name_0": "first", "analyze_model_name_1": "second"}})
    a = at.session_state[LAST_KEY]
    assert [m.model for m in a.models] == ["first", "second"]
    page = json.loads(report.to_json(a))
    assert "first=model-a_zstd.eval" in page["settings"]["command"]
    for name, path in files:
        shutil.copyfile(path, tmp_path / name)
    cli, _ = _cli(page["settings"]["command"], tmp_path)
    assert cli == page


def test_the_uploader_says_what_it_reads_and_accepts_those_extensions():
    """Issue 26: the uploader's label names every format the readers take, and its types let them through."""
    at = run_page(PAGE)
    (uploader,) = at.get("file_uploader")
    label = uploader.proto.label
    for word in ("CSV", "Parquet", "JSONL", "lm-eval samples", "Inspect logs", "promptfoo", "analysis you downloaded"):
        assert word in label, word
    types = set(uploader.proto.type)
    for fixture in [*FIX.rglob("*.json*"), *FIX.rglob("*.eval"), *(ROOT / "examples").glob("*.csv")]:
        assert fixture.suffix in types, fixture.name
    assert {".parquet", ".zip", ".gz"} <= types
