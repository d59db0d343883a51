"""Harness logs in: lm-evaluation-harness samples, Inspect .eval (deflate and zstd) and .json logs, promptfoo
results. Each fixture (see tests/fixtures/README.md) is read to the right table, detected by its content,
joined with others on the question, and bad logs get one clear message."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load, load_many
from evalstats_core.errors import EvalStatsError
from evalstats_core.importers import detect
from evalstats_core.importers.inspect_log import value_to_score

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
INSPECT = FIX / "inspect"
LMEVAL = FIX / "lm_eval"


def _samples(model: str, task: str) -> Path:
    (path,) = (LMEVAL / f"org__{model}").glob(f"samples_{task}_*.jsonl")
    return path


def _scores(ds) -> dict[tuple[str, str], float]:
    """Question-level mean score of every (question, model) of a dataset."""
    f = ds.frame.astype({"question": str, "model": str})
    return {k: float(v) for k, v in f.groupby(["question", "model"])["score"].mean().items()}


# ------------------------------------------------------------------------------------------- lm-eval
def test_lm_eval_samples_file_to_its_table():
    """One row per doc: question '<task>:<doc_id>', the model from the results file, the first metric."""
    path = _samples("model-a", "quiz_algebra")
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    ds = load(str(path))
    assert ds.models == ("org/model-a",)
    assert _scores(ds) == {(f"quiz_algebra:{r['doc_id']}", "org/model-a"): float(r["acc"]) for r in lines}
    assert ds.format == "lm_eval" and "metric 'acc' (others: acc_norm)" in ds.notes[0]
    norm = load(str(path), metric="acc_norm")
    assert _scores(norm) == {(f"quiz_algebra:{r['doc_id']}", "org/model-a"): float(r["acc_norm"]) for r in lines}
    assert norm.reading == ("--metric acc_norm",)


def test_lm_eval_filters_and_the_missing_model_name(tmp_path):
    path = _samples("model-b", "quiz_gen")
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    first = lines[0]["filter"]
    ds = load(str(path))
    assert len(ds.frame) == sum(r["filter"] == first for r in lines)  # the task's first filter only
    other = next(r["filter"] for r in lines if r["filter"] != first)
    assert len(load(str(path), harness_filter=other).frame) == sum(r["filter"] == other for r in lines)
    with pytest.raises(EvalStatsError, match="filter 'nope' is not in .*its filters are"):
        load(str(path), harness_filter="nope")
    alone = tmp_path / path.name  # no results_*.json beside it and no org__model folder
    shutil.copy(path, alone)
    with pytest.raises(EvalStatsError, match="lm-eval samples file with no model name: add the results_.*json beside"):
        load(str(alone))
    assert load(str(alone), model_name="mine").models == ("mine",)


def test_lm_eval_subtasks_of_a_group_are_clusters_and_models_join():
    """MMLU-like: quiz_algebra and quiz_history are subtasks of 'quiz' (results file): the task is the cluster;
    two models' files join on the question. Two subtasks are too few to cluster on by default (issue 46): the
    note says so and names cluster_col='task', which reads them."""
    files = [str(_samples(m, t)) for m in ("model-a", "model-b") for t in ("quiz_algebra", "quiz_history")]
    auto = load_many(files)
    assert auto.n_clusters is None and any(n.startswith("cluster column 'task' found by its name but not used: 2 ")
                                           and n.endswith("cluster_col='task'") for n in auto.notes)
    ds = load_many(files, cluster_col="task")
    assert ds.models == ("org/model-a", "org/model-b") and ds.n_clusters == 2
    assert set(ds.frame["cluster"].astype(str)) == {"quiz_algebra", "quiz_history"}
    res = analyze(ds)
    assert res.clustered and res.comparisons[0].n == ds.n_questions


# ------------------------------------------------------------------------------------------- Inspect
def _summaries(path: Path) -> list[dict]:
    """The fixture's per-sample summaries, read independently (deflate: Python's zipfile)."""
    import zipfile

    with zipfile.ZipFile(path) as zf:
        return json.loads(zf.read("summaries.json"))


def test_inspect_eval_to_its_table():
    """Question = sample id, epochs averaged as resamples, C/P/I -> 1/0.5/0, 'subject' metadata as cluster when
    chosen (its 3 values are too few to be read by default)."""
    path = INSPECT / "model-a_deflate.eval"
    ds = load(str(path))
    summ = _summaries(path)
    want: dict = {}
    for s in summ:
        want.setdefault((str(s["id"]), "mockllm/model-a"), []).append({"C": 1.0, "P": 0.5, "I": 0.0}[s["scores"]
                                                                                                ["match"]["value"]])
    assert _scores(ds) == {k: float(np.mean(v)) for k, v in want.items()}
    assert ds.k_typical == 2 and ds.n_clusters is None and ds.format == "inspect_eval"  # 3 subjects: too few (46)
    assert load(str(path), cluster_col="subject").n_clusters == 3
    rating = load(str(path), metric="rating")
    assert rating.score_kind == "continuous" and "scorer 'rating'" in rating.notes[0]


def test_inspect_zstd_deflate_and_json_flavours_agree():
    """The same run written as a deflate .eval, a zstd .eval and a .json log reads to the same scores."""
    a = _scores(load(str(INSPECT / "model-a_deflate.eval")))
    assert _scores(load(str(INSPECT / "model-a_zstd.eval"))) == a
    assert _scores(load(str(INSPECT / "model-a.json"))) == a


def test_inspect_two_models_paired_and_detected_by_content(tmp_path):
    renamed = tmp_path / "model-b.txt"  # detection by content, not by extension
    shutil.copy(INSPECT / "model-b_zstd.eval", renamed)
    assert detect(renamed.read_bytes()) == "inspect_eval"
    ds = load_many([str(INSPECT / "model-a_deflate.eval"), str(renamed)])
    res = analyze(ds)
    (c,) = res.comparisons
    assert (c.model, c.baseline, c.n) == ("mockllm/model-b", "mockllm/model-a", 12) and res.models[0].k == 2


def test_inspect_cluster_is_the_metadata_key_the_user_names():
    """The cluster is a metadata key: the importer's own choice ('subject'), the one named with cluster_col (the
    CLI's --cluster-col), or an error that lists the keys; the other scalar keys are kept as columns."""
    path = str(INSPECT / "model-a.json")
    auto = load(path)  # 3 subjects found by the key's name: too few to read by default (issue 46), said in a note
    assert auto.n_clusters is None and auto.cluster_col is None
    assert any(n.startswith("cluster column 'subject' found by its name but not used: 3 clusters") and
               n.endswith("cluster_col='subject'") for n in auto.notes)
    assert not any("each sample's cluster" in n for n in auto.notes)
    assert {"metadata.subject", "metadata.skill"} <= set(auto.extra)
    chosen = load(path, cluster_col="metadata.subject")
    assert chosen.n_clusters == 3 and "--cluster-col metadata.subject" in chosen.reading
    assert _scores(chosen) == _scores(auto)
    with pytest.raises(EvalStatsError, match=r"no metadata key 'grade'.*'subject', 'skill'"):
        load(path, cluster_col="grade")
    both = load_many([path, str(INSPECT / "model-b_zstd.eval")], cluster_col="subject")
    assert both.n_clusters == 3 and analyze(both).clustered
    assert both.cluster_col == "subject"  # the table (and "clustered on ...") names the key, not "cluster"
    with pytest.raises(EvalStatsError, match="applies to Inspect logs' metadata keys"):
        load(str(sorted((FIX / "lm_eval" / "org__model-a").glob("samples_*"))[0]), cluster_col="subject")


def test_an_analysis_of_the_question_table_is_the_analysis_of_the_file():
    """The question table carries the file's roles, notes and reading options: analysing it (what the workbench
    caches) gives the command line's analysis of the Dataset, settings and command included."""
    from evalstats_core.data import question_scores
    from evalstats_core.report import settings

    for ds in (load(str(INSPECT / "model-a.json"), metric="rating"),
               load(str(ROOT / "examples" / "multilingual_clustered.csv"))):
        of_file, of_table = analyze(ds), analyze(question_scores(ds))
        assert of_table == of_file
        assert (of_table.format, of_table.notes, of_table.reading) == (ds.format, tuple(ds.notes), tuple(ds.reading))
        assert settings(of_table)["command"] == settings(of_file)["command"]


UPSTREAM = INSPECT / "upstream"  # Inspect AI's own test logs (MIT; see tests/fixtures/README.md)


@pytest.mark.parametrize("log", ["2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
                                 "2025-05-12T20-28-13-04-00_popularity.json"])
def test_inspect_upstream_logs_agree_with_inspects_own_metrics(log):
    """Logs written by Inspect itself: our mean and SE are the accuracy and stderr Inspect computed and stored in
    the log's results (its own implementation is the oracle); non-scalar metadata is left out."""
    path = UPSTREAM / log
    if log.endswith(".eval"):
        import zipfile

        header = json.loads(zipfile.ZipFile(path).read("header.json"))
    else:
        header = json.loads(path.read_text(encoding="utf-8"))
    (scores,) = header["results"]["scores"]
    ds = load(str(path))
    (m,) = analyze(ds).models
    assert ds.models == (header["eval"]["model"],) and ds.n_questions == header["results"]["completed_samples"]
    assert m.mean == pytest.approx(scores["metrics"]["accuracy"]["value"], abs=1e-12)
    assert m.se == pytest.approx(scores["metrics"]["stderr"]["value"], abs=1e-12)
    assert not any(k.startswith("metadata.nested") for k in (ds.extra or {}))


def test_an_unscored_inspect_log_says_so():
    with pytest.raises(EvalStatsError, match=r"10 samples have no scores .*inspect score"):
        load(str(UPSTREAM / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"))


def test_inspect_value_mapping():
    assert [value_to_score(v) for v in ("C", "P", "I", "N", "yes", "no", 0.7, True, "3")] == \
        [1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.7, 1.0, 3.0]
    assert value_to_score({"a": 1}) is None


# ------------------------------------------------------------------------------------------- promptfoo
def test_promptfoo_results_to_its_table():
    doc = json.loads((FIX / "promptfoo" / "results.json").read_text())
    ds = load(str(FIX / "promptfoo" / "results.json"))
    want = {(f"test {r['testIdx']}", r["provider"]["id"]): float(r["score"]) for r in doc["results"]["results"]}
    assert _scores(ds) == want and ds.format == "promptfoo"


# ------------------------------------------------------------------------------------------- errors, CLI
def test_a_model_twice_and_a_broken_log_get_one_clear_message(tmp_path):
    path = str(INSPECT / "model-a_deflate.eval")
    with pytest.raises(EvalStatsError, match=r"answers question '\d+' in both"):
        load_many([path, str(INSPECT / "model-a.json")])
    bad = tmp_path / "samples_x_2026-01-01T00-00-00.jsonl"
    bad.write_text('{"doc_id": 0, "doc": {}, "resps": [], "filter": "none", "metrics": ["acc"], "acc": 1}\nnot json\n')
    with pytest.raises(EvalStatsError, match="line 2 of .* is not JSON"):
        load(str(bad), model_name="m")


def test_cli_analyzes_several_harness_files():
    files = [str(INSPECT / "model-a_deflate.eval"), str(INSPECT / "model-b_zstd.eval")]
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", *files, "--metric", "rating",
                          "-f", "json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [m["model"] for m in doc["models"]] == ["mockllm/model-a", "mockllm/model-b"]
    assert all(m["k"] == 2 for m in doc["models"])  # two epochs averaged per question
    # the 3 subjects are too few to cluster on unless chosen (issue 46): the command says so, as for any unclustered file
    assert doc["settings"]["command"].endswith("model-b_zstd.eval --metric rating --no-clusters")
    assert doc["settings"]["command"].startswith("evalbars analyze ")  # one name: the installed command
    rerun = subprocess.run([sys.executable, "-m", "evalstats_core", *doc["settings"]["command"].split()[1:], "-f",
                            "json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert json.loads(rerun.stdout)["models"] == doc["models"]
    bad = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", files[0], "--metric", "nope"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "its scorers are: 'match', 'rating'" in bad.stderr


# ------------------------------------------------------------------------------ issue 19: naming, DataFrames
def test_name_equals_path_names_each_file_and_reruns(capsys):
    """NAME=PATH on the command line names that file's model (as errorbars takes it); --model-name with several
    files is an error rather than silently ignored; settings.command keeps NAME=PATH so it reruns."""
    from evalstats_core import cli

    a, b = str(_samples("model-a", "quiz_algebra")), str(_samples("model-b", "quiz_algebra"))
    assert cli.main(["analyze", f"alpha={a}", f"beta={b}", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["model"] for m in doc["models"]] == ["alpha", "beta"]
    assert f"alpha={a}" in doc["settings"]["command"]
    assert cli.main(["analyze", a, b, "--model-name", "x"]) == 2
    assert "--model-name names the model of one file" in capsys.readouterr().err
    assert cli.main(["analyze", f"solo={a}", "--format", "json"]) == 0
    assert [m["model"] for m in json.loads(capsys.readouterr().out)["models"]] == ["solo"]


def test_dataframes_and_arrow_tables_load_like_files():
    """load() takes a pandas DataFrame or a pyarrow Table (and anything with to_arrow / __arrow_c_stream__)
    with the same column rules and the same numbers as the file."""
    import pandas as pd
    import pyarrow as pa

    path = ROOT / "examples" / "multilingual_clustered.csv"
    from_file = load(str(path))
    frame = pd.read_csv(path)
    for source in (frame, pa.Table.from_pandas(frame)):
        ds = load(source)
        assert ds.models == from_file.models and ds.n_questions == from_file.n_questions
        assert ds.cluster_col == from_file.cluster_col and ds.name == "DataFrame" and ds.file_type == "dataframe"
        assert np.allclose(ds.frame["score"].to_numpy(), from_file.frame["score"].to_numpy())
    a = analyze(frame)  # analyze() reads a DataFrame as load() does
    assert a.models[0].mean == pytest.approx(analyze(from_file).models[0].mean)

    class Polarsish:  # duck typing: polars is not a dependency
        def to_arrow(self):
            return pa.Table.from_pandas(frame)

    assert load(Polarsish(), name="pl").models == from_file.models
    with pytest.raises(EvalStatsError, match="could not find the model column|no model columns|score"):
        load(pd.DataFrame({"question": ["q1", "q2"], "model": ["A", "A"]}))


def test_unused_columns_by_name_aligned_to_rows():
    """A judge's human label column is kept by name, one value per row of the frame (Dataset.column)."""
    ds = load(b"question,model,score,human\nq1,A,1,1\nq2,A,0,0\nq1,B,1,1\nq2,B,1,0\n", name="j.csv")
    assert list(ds.column("human")) == ["1", "0", "1", "0"] and list(ds.unused) == ["human"]
    with pytest.raises(EvalStatsError, match="no unused column 'nope'"):
        ds.column("nope")
    wide = load(b"question,A,B,human\nq1,1,0,yes\nq2,0,1,no\n", name="w.csv", ignore_cols=("human",))
    assert list(wide.column("human")) == ["yes", "yes", "no", "no"]  # q1:A, q1:B, q2:A, q2:B: each cell, its row


@pytest.mark.parametrize("source", ["examples/synthetic_resampled.csv", "tests/fixtures/inspect/model-a_zstd.eval",
                                    "examples/multilingual_clustered.csv"])
def test_bundle_keeps_the_runs_and_reopens_without_a_warning(source):
    """The analysis bundle carries every answer with its run (resample) number: reopened, the same
    question-level numbers and no 'several rows with different scores' warning (issue 19.5)."""
    from evalstats_core.analysis import analyze
    from evalstats_core.bundle import make_bundle, read_bundle

    ds = load(str(ROOT / source))
    bundle = read_bundle(make_bundle(ds, {"analyze_confidence": 0.95}))
    again = load(bundle.data, name=bundle.name.rsplit(".", 1)[0] + ".parquet")
    assert again.warnings == ()
    assert again.models == ds.models and again.n_questions == ds.n_questions and again.k_max == ds.k_max
    a, b = analyze(ds), analyze(again)
    assert [m.mean for m in a.models] == pytest.approx([m.mean for m in b.models], rel=1e-12)
    assert [m.se for m in a.models] == pytest.approx([m.se for m in b.models], rel=1e-12)


def test_load_reads_an_analysis_bundle_itself(tmp_path):
    """load() and the CLI read an analysis bundle's data (the bundle is one of the readers)."""
    from evalstats_core import cli
    from evalstats_core.bundle import make_bundle

    ds = load(str(ROOT / "examples" / "synthetic_resampled.csv"))
    path = tmp_path / "analysis.zip"
    path.write_bytes(make_bundle(ds, {}))
    again = load(str(path))
    assert again.models == ds.models and again.warnings == () and again.n_rows == ds.n_rows
    assert cli.main(["analyze", str(path)]) == 0


def test_several_files_on_the_command_line_keep_the_reading_choices(capsys):
    """With several files, --cluster-col (and the column roles) apply to every file, not only to one: the
    Inspect logs are clustered on the key the user chose, and settings.command repeats it."""
    from evalstats_core import cli

    files = [str(INSPECT / "model-a_deflate.eval"), str(INSPECT / "model-b_zstd.eval")]
    assert cli.main(["analyze", *files, "--cluster-col", "subject", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "--cluster-col subject" in doc["settings"]["command"]
    assert doc["models"][0]["n_clusters"] is not None
    assert cli.main(["analyze", *files, "--cluster-col", "nope"]) == 2  # it reaches every file's importer
    assert "no metadata key 'nope'" in capsys.readouterr().err
