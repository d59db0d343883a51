"""ReadingOptions: the one object the command line builds from its flags and the workbench from its widgets;
its flags parse back to the same options, and the files it names are written so that a shell reads them back."""

import shlex

import pytest

from evalstats_core.cli import build_parser, file_args, reading_flags, reading_options
from evalstats_core.errors import EvalStatsError
from evalstats_core.reading import ReadingOptions

OPTIONS = [
    ReadingOptions(),
    ReadingOptions(layout="long", question_col="id", model_col="system", score_col="correct", cluster_col="passage"),
    ReadingOptions(layout="wide", question_col="q id", ignore_cols=("n tokens", "=cmd()"), runs_in_ids=True),
    ReadingOptions(duplicates="error", mixed_scales="allow", resample_col="epoch"),
    ReadingOptions(metric="acc_norm", harness_filter="strict-match", cluster_col="subject", model_names=("org/m a",)),
    ReadingOptions(metric="-starts-with-dash", question_col="-q"),
]


@pytest.mark.parametrize("opts", OPTIONS)
def test_flags_parse_back_to_the_same_options(opts):
    argv = ["analyze", "f.csv", *shlex.split(" ".join(reading_flags(opts)))]
    assert reading_options(build_parser().parse_args(argv)) == opts


@pytest.mark.parametrize("names", [["a.csv"], ["-x.csv", "b c.jsonl", "it's.eval", "-"], ["--help"]])
def test_every_file_is_named_and_none_reads_as_an_option(names):
    words = shlex.split(file_args(names))
    assert len(words) == len(names)
    assert [w.removeprefix("./") for w in words] == names
    assert all(not w.startswith("-") or w == "-" for w in words)


def test_model_names_per_file_are_name_equals_path_for_several_files():
    assert shlex.split(file_args(["a.eval", "b.eval"], ("first", None))) == ["first=a.eval", "b.eval"]
    assert shlex.split(file_args(["a.eval"], ("first",))) == ["a.eval"]  # one file: --model-name instead
    assert reading_flags(ReadingOptions(model_names=("first",))) == ("--model-name first",)


def test_options_are_checked_and_hashable():
    with pytest.raises(EvalStatsError, match="duplicates"):
        ReadingOptions(duplicates="average")
    with pytest.raises(EvalStatsError, match="layout"):
        ReadingOptions(layout="tall")
    assert hash(ReadingOptions(ignore_cols=["a"])) == hash(ReadingOptions(ignore_cols=("a",)))
    with pytest.raises(EvalStatsError, match="3 model names for 2 files"):
        ReadingOptions(model_names=("a", "b", "c")).load([b"x", b"y"])


def test_the_cli_and_the_options_read_the_same_dataset(tmp_path):
    """The command line's reading is ReadingOptions.load: the same dataset from the same flags."""
    from evalstats_core.cli import _load

    f = tmp_path / "r.csv"
    f.write_text("question,model,score,n_tokens\nq1,A,1,5\nq2,A,0,6\nq1,B,1,7\nq2,B,1,8\n")
    args = build_parser().parse_args(["analyze", str(f), "--ignore-col", "n_tokens", "--duplicates", "error"])
    dataset, _, opts = _load(args)
    again = opts.load([str(f)])
    assert dataset.frame.equals(again.frame) and dataset.notes == again.notes


def test_two_models_uploaded_with_results_of_one_date_keep_their_groups():
    """Two models' lm-eval runs with the same timestamp, uploaded (as the workbench does) and named per file:
    the results files cannot say whose samples are whose, but both say which tasks form a group, so the
    subtasks are clusters as on the command line (which reads each results file beside its samples)."""
    from pathlib import Path

    from evalstats_core.data import load_many

    root = Path(__file__).parent / "fixtures" / "lm_eval"
    files, names, paths = [], {}, []
    for folder, model in (("org__model-a", "A"), ("org__model-b", "B")):
        for p in sorted((root / folder).glob("*_quiz_[ah][li]*.jsonl")):
            files.append((f"{folder}/{p.name}", p.read_bytes()))
            names[f"{folder}/{p.name}"] = model
            paths.append(f"{model}={p}")
        results = next((root / folder).glob("results_*.json"))
        files.append((f"{folder}/{results.name}", results.read_bytes()))
    uploaded = load_many(files, model_names=names, cluster_col="task")  # 2 subtasks: read when chosen (issue 46)
    by_path = load_many([p.split("=", 1)[1] for p in paths], model_names={p.split("=", 1)[1]: p.split("=")[0]
                                                                         for p in paths}, cluster_col="task")
    assert uploaded.models == by_path.models == ("A", "B")
    assert uploaded.n_clusters == by_path.n_clusters == 2 and uploaded.cluster_col == by_path.cluster_col == "task"
