"""The DuckDB engine (evalstats_core.engine): the sums of a file computed in SQL equal the in-memory path's.

Oracle: ``file_sums(question_scores(load(path)))`` (numpy over the QuestionTable) for the sums, and
``analyze(load(path))`` for every number of the analysis, on the bundled examples and on generated files
(clustered or not, K > 1 runs, missing answers, 0/1, 0/100, continuous, huge scores, CSV, Parquet, a folder).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from evalstats_core import engine
from evalstats_core.data import load, question_scores
from evalstats_core.engine import sums_of
from evalstats_core.errors import EvalStatsError
from evalstats_core.sums import file_sums

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.csv"))
TOL = 1e-12


def differences(a, b, path: str = "") -> list[str]:
    """Every field of two FileSums (or Model/PairSums) that differs beyond 1e-12 (relative and absolute)."""
    out = []
    for f in dataclasses.fields(a):
        if f.name in ("notes", "reading"):
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, tuple) and x and dataclasses.is_dataclass(x[0]):
            if len(x) != len(y):
                out.append(f"{path}{f.name}: {len(x)} vs {len(y)} entries")
            for i, (u, v) in enumerate(zip(x, y, strict=False)):
                out += differences(u, v, f"{path}{f.name}[{i}].")
        elif isinstance(x, np.ndarray | float):
            xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
            if xa.shape != ya.shape or not np.allclose(xa, ya, rtol=TOL, atol=TOL, equal_nan=True):
                out.append(f"{path}{f.name}: {x} vs {y}")
        elif x != y:
            out.append(f"{path}{f.name}: {x!r} vs {y!r}")
    return out


def assert_same_sums(path: Path, **reading) -> None:
    memory = file_sums(question_scores(load(str(path), **reading)))
    sql = sums_of(str(path), **reading)
    assert differences(memory, sql) == []


def assert_same_error(path: Path) -> None:
    """The in-memory reader and the SQL engine refuse ``path`` with the very same sentence."""
    with pytest.raises(EvalStatsError) as memory:
        load(str(path))
    with pytest.raises(EvalStatsError) as sql:
        sums_of(str(path))
    assert str(sql.value) == str(memory.value)


def to_parquet(csv: Path, out: Path, text_cols: tuple[str, ...] = ("question", "cluster", "model")) -> Path:
    table = pacsv.read_csv(csv, convert_options=pacsv.ConvertOptions(
        column_types={c: pa.string() for c in text_cols}))
    pq.write_table(table, out)
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_csv(path):
    assert_same_sums(path)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_parquet(path, tmp_path):
    assert_same_sums(to_parquet(path, tmp_path / f"{path.stem}.parquet"))


def synthetic(seed: int, *, clustered: bool, kind: str, n_q: int = 300, models: int = 4) -> pd.DataFrame:
    """A long file with K = 1..3 runs, questions some models skipped, clusters of unequal size."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(models):
        for i in range(n_q):
            if rng.random() < 0.1 * (j % 3):  # model j skips some questions
                continue
            for _ in range(int(rng.integers(1, 4))):
                if kind == "binary":
                    s = float(rng.random() < 0.3 + 0.1 * j)
                elif kind == "hundred":
                    s = 100.0 * (rng.random() < 0.5)
                elif kind == "huge":
                    s = float(rng.normal(j, 1.0)) * 1e150  # > 2^400: the sums are kept divided by 2^exponent
                else:
                    s = float(np.round(rng.normal(5 + 0.2 * j, 2.0), 3))
                rows.append({"question": f"q{i:04d}", "model": f"m{(j * 7) % models}-{'zyxw'[j]}", "score": s,
                             **({"cluster": f"c{int(i ** 0.5)}"} if clustered else {})})
    frame = pd.DataFrame(rows)
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # models first appear out of order


@pytest.mark.parametrize("clustered", [True, False], ids=["clustered", "unclustered"])
@pytest.mark.parametrize("kind", ["binary", "continuous", "hundred", "huge"])
@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_synthetic(tmp_path, clustered, kind, ext):
    frame = synthetic(3, clustered=clustered, kind=kind)
    path = tmp_path / f"f.{ext}"
    if ext == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    sums = sums_of(str(path))
    assert (sums.exponent > 400) == (kind == "huge")  # 1e150-sized scores are divided by 2^exponent
    assert sums.score_kind == ("binary" if kind in ("binary", "hundred") else "continuous")
    assert_same_sums(path)


def test_wide_with_empty_cells(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"question": [f"q{i}" for i in range(200)], "group": [f"g{i // 9}" for i in range(200)]})
    for name in ("b-model", "a-model", "c-model"):
        col = (rng.random(200) < 0.6).astype(float)
        col[rng.random(200) < 0.15] = np.nan
        frame[name] = col
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    assert sums_of(str(path)).models == ("b-model", "a-model", "c-model")
    assert_same_sums(path)


def test_folder_equals_the_whole_file(tmp_path):
    frame = synthetic(5, clustered=True, kind="continuous")
    whole = tmp_path / "whole.parquet"
    frame.to_parquet(whole, index=False)
    folder = tmp_path / "parts"
    folder.mkdir()
    for k, part in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[part].to_parquet(folder / f"part-{k}.parquet", index=False)
    a, b = sums_of(str(whole)), sums_of(str(folder), name="whole.parquet")
    assert differences(a, b) == [] and differences(file_sums(question_scores(load(str(whole)))), b) == []


def test_a_folder_whose_files_differ_in_columns_is_refused_naming_them(tmp_path):
    """A folder is one table: files without the same columns get one line naming the column and both files."""
    folder = tmp_path / "parts"
    folder.mkdir()
    pd.DataFrame({"question": ["q1", "q2"], "model": ["A", "A"], "score": [1, 0]}).to_parquet(
        folder / "a.parquet", index=False)
    pd.DataFrame({"question": ["q1", "q2"], "A": [1, 0]}).to_parquet(folder / "b.parquet", index=False)
    with pytest.raises(EvalStatsError, match=r"do not have the same columns: column 'model' is in a\.parquet but "
                                             r"not in b\.parquet"):
        sums_of(str(folder))


def test_beyond_the_sample_the_rows_are_checked_in_sql(tmp_path, monkeypatch):
    """A bad row after the sample the reader sees is caught by the SQL checks, naming its row."""
    monkeypatch.setattr(engine, "SAMPLE_ROWS", 10)
    good = "question,model,score,cluster\n" + "".join(f"q{i},{m},{i % 2},c{i // 5}\n" for i in range(40)
                                                       for m in ("A", "B"))
    cases = {
        "q39,A,abc,c7\n": "row 82 of f.csv has a score in column 'score' that is not a number",
        "q39,A,,c7\n": "row 82 of f.csv has no score in column 'score'",
        "q39,A,inf,c7\n": "row 82 of f.csv has an infinite score",
        ",A,1,c7\n": "row 82 of f.csv has no question id in column 'question'",
        "q39,NA,1,c7\n": "row 82 of f.csv has no model name in column 'model'",
        "q39,A,1,c1\n": "question 'q39' is in cluster 'c1' and in cluster 'c7'",
        "q99,C,1,c7\n": "model 'C' has a score for only one question in f.csv",
    }
    for line, words in cases.items():
        path = tmp_path / "f.csv"
        path.write_text(good + line)
        with pytest.raises(EvalStatsError, match=words.replace("(", r"\(")):
            sums_of(str(path))


def test_mixed_scales_use_the_readers_words(tmp_path):
    frame = pd.DataFrame({"question": [f"q{i}" for i in range(10)] * 2, "model": ["A"] * 10 + ["B"] * 10,
                          "score": [i % 2 for i in range(10)] + [10.0 * i for i in range(10)]})
    path = tmp_path / "mixed.parquet"
    frame.to_parquet(path, index=False)
    assert_same_error(path)


def test_roles_and_errors_come_from_the_reader(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("item,system,passed,passage\nq1,A,1,p\nq2,A,0,p\nq1,B,1,p\nq2,B,1,p\n")
    sums = sums_of(str(path), cluster_col="passage")  # one cluster: read only when chosen (issue 46)
    assert (sums.question_col, sums.model_col, sums.score_col, sums.cluster_col) == ("item", "system", "passed",
                                                                                     "passage")
    assert sums_of(str(path)).cluster_col is None and load(str(path)).cluster_col is None
    path.write_text("foo,bar\n1,2\n")
    assert_same_error(path)


def test_what_sums_cannot_give_is_refused_in_one_sentence(tmp_path):
    path = ROOT / "examples" / "synthetic_resampled.csv"
    with pytest.raises(EvalStatsError, match="runs in ids .* not available with the duckdb engine"):
        sums_of(str(path), runs_in_ids=True)
    with pytest.raises(EvalStatsError, match="wild bootstrap is not available with the duckdb engine"):
        engine.analyze_file(str(path), wild_bootstrap=True)


def test_a_column_name_cannot_inject_sql(tmp_path):
    frame = pd.DataFrame({"question": ["q1", "q2", "q3"], 'a"); DROP TABLE x; --': [1, 0, 1], "b'`": [0, 0, 1]})
    path = tmp_path / "odd.parquet"
    frame.to_parquet(path, index=False)
    assert sums_of(str(path)).models == ('a"); DROP TABLE x; --', "b'`")
    assert_same_sums(path)


def test_choose_engine(tmp_path):
    from evalstats_core.limits import Limits

    path = tmp_path / "f.csv"
    path.write_bytes(b"question,model,score\n" + b"q1,A,1\n" * 100)
    assert engine.choose_engine(str(path), Limits(max_bytes=10_000)) == "memory"
    assert engine.choose_engine(str(path), Limits(max_bytes=100)) == "duckdb"
    assert engine.choose_engine(str(tmp_path), Limits()) == "duckdb"  # a folder
    assert engine.choose_engine(b"bytes", Limits(max_bytes=1)) == "memory"  # not a path: the in-memory reader


def same_analysis(a, b) -> list[str]:
    """Every field of two Analyses whose numbers differ beyond 1e-12 or whose words differ (notes aside)."""
    out = []
    for x, y in [(a, b), *zip(a.models, b.models, strict=True), *zip(a.comparisons, b.comparisons, strict=True)]:
        for f in dataclasses.fields(x):
            if f.name in ("notes", "models", "comparisons", "name", "source", "reading"):
                continue
            u, v = getattr(x, f.name), getattr(y, f.name)
            if isinstance(u, float) and isinstance(v, float):
                if not (u == v or (np.isnan(u) and np.isnan(v)) or abs(u - v) <= TOL * max(1.0, abs(u))):
                    out.append(f"{type(x).__name__}.{f.name}: {u!r} vs {v!r}")
            elif u != v:
                out.append(f"{type(x).__name__}.{f.name}: {u!r} vs {v!r}")
    return out


SETTINGS = [{}, {"use_clusters": False}, {"paired": False}, {"method": "cr1"}, {"interval": "normal"},
            {"confidence": 0.9, "adjust": "bh"}]


@pytest.mark.parametrize("settings", SETTINGS, ids=[str(s) for s in SETTINGS])
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_number_of_the_analysis(path, settings):
    from evalstats_core.analysis import analyze

    memory = analyze(load(str(path)), **settings)
    sql = engine.analyze_file(str(path), **settings)
    assert same_analysis(memory, sql) == []


@pytest.mark.parametrize("kind", ["binary", "continuous", "hundred"])
def test_every_number_of_a_generated_analysis(tmp_path, kind):
    from evalstats_core.analysis import analyze

    path = tmp_path / "f.parquet"
    synthetic(11, clustered=True, kind=kind).to_parquet(path, index=False)
    for settings in SETTINGS[:3]:
        assert same_analysis(analyze(load(str(path)), **settings), engine.analyze_file(str(path), **settings)) == []


def test_integer_ids_are_grouped_as_integers_and_named_as_text(tmp_path):
    frame = synthetic(13, clustered=True, kind="binary")
    frame["question"] = frame["question"].str[1:].astype("int64")
    frame["cluster"] = frame["cluster"].str[1:].astype("int32")
    frame["model"] = frame["model"].str[1].astype("int16")
    path = tmp_path / "ints.parquet"
    frame.to_parquet(path, index=False)
    sums = sums_of(str(path))
    assert set(sums.models) == {"0", "1", "2", "3"} and all(isinstance(c, str) for c in sums.clusters)
    assert_same_sums(path)


@pytest.mark.parametrize("path", [EXAMPLES[1], EXAMPLES[4]], ids=["wide", "long"])
def test_many_models_take_the_self_join_with_the_same_sums(path, monkeypatch):
    """Above PIVOT_MODELS models the pairs come from a self-join of the cells: the same sums."""
    from evalstats_core import engine_sql

    monkeypatch.setattr(engine_sql, "PIVOT_MODELS", 1)
    assert_same_sums(path)


def test_server_paths_are_off_by_default_and_stay_inside_their_folder(tmp_path):
    root = tmp_path / "data"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "run.csv").write_text("question,model,score\nq1,A,1\nq2,A,0\n")
    outside = tmp_path / "secret.csv"
    outside.write_text("x\n")
    (root / "link.csv").symlink_to(outside)
    (root / "sneaky").mkdir()
    (root / "sneaky" / "a.csv").symlink_to(outside)
    env = {engine.SERVER_DATA: str(root)}
    with pytest.raises(EvalStatsError, match="is off"):
        engine.server_path("evals/run.csv", {})
    assert engine.server_path("evals/run.csv", env) == str((root / "evals" / "run.csv").resolve())
    assert engine.server_path("evals", env) == str((root / "evals").resolve())
    for name in ("../secret.csv", str(outside), "link.csv", "sneaky", "evals/*.csv", "s3://b/x.parquet"):
        with pytest.raises(EvalStatsError):
            engine.server_path(name, env)


def test_scores_written_as_words_beyond_the_sample_are_noted(tmp_path, monkeypatch):
    """Whether scores were words (true/false) is decided over every row, not the reader's sample."""
    monkeypatch.setattr(engine, "SAMPLE_ROWS", 10)
    words = "words such as true/false and yes/no were read as 1/0"
    head = "question,model,score\n" + "".join(f"q{i},{m},{i % 2}\n" for i in range(20) for m in ("A", "B"))
    for tail, noted in (("q20,A,true\nq20,B,no\n", True), ("q20,A,1\nq20,B,0\n", False)):
        path = tmp_path / "w.csv"
        path.write_text(head + tail)
        memory = file_sums(question_scores(load(str(path))))
        assert (words in memory.notes) is noted  # the in-memory path reads every row
        assert (words in sums_of(str(path)).notes) is noted


def test_several_answers_per_question_get_the_readers_note(tmp_path):
    """Runs per (question, model) are named in the notes as the in-memory path names them (from every row)."""
    path = tmp_path / "runs.csv"
    path.write_text("question,model,score\n" + "".join(f"q{i},{m},{(i + r) % 2}\n" for i in range(30)
                                                       for m in ("A", "B") for r in range(1 + (i == 29) * 2)))
    memory = [n for n in file_sums(question_scores(load(str(path)))).notes if "answers per question" in n]
    assert memory == ["1-3 answers per question and model (resamples); they are averaged into one score per "
                      "question, never pooled"]
    assert [n for n in sums_of(str(path)).notes if "answers per question" in n] == memory


@pytest.mark.parametrize("clustered", [True, False], ids=["clustered", "unclustered"])
@pytest.mark.parametrize("kind", ["binary", "continuous", "huge"])
def test_every_model_answered_every_question_takes_the_lighter_pairs(tmp_path, monkeypatch, clustered, kind):
    """When no model skipped a question, the pairs reuse the models' aggregates (no per-pair CASE): the same
    FileSums as the in-memory path, and the same as the general query gives."""
    from evalstats_core import engine_sql

    seen = []
    general = engine_sql.pivot_sums_sql

    def spy(pivot, n_models, clustered, scale, complete, **key):
        seen.append(complete)
        return general(pivot, n_models, clustered, scale, complete, **key)

    monkeypatch.setattr(engine_sql, "pivot_sums_sql", spy)
    frame = synthetic(5, clustered=clustered, kind=kind)
    everyone = frame.groupby("question")["model"].nunique() == 4
    path = tmp_path / "all.parquet"
    frame[frame["question"].map(everyone)].to_parquet(path, index=False)
    assert_same_sums(path)
    assert seen == [True]
    monkeypatch.setattr(engine_sql, "pivot_sums_sql", lambda *args, **key: general(*args[:4], complete=False, **key))
    assert differences(sums_of(str(path)), file_sums(question_scores(load(str(path))))) == []


def _verdict(read) -> tuple | str:
    """The reading's warnings, or the one-line refusal."""
    try:
        return tuple(read().warnings)
    except EvalStatsError as exc:
        return str(exc)


_RUN_IDS = [1.0, 1.1, 1.2, 2.0, 2.1, 2.2, 3.0, 4.0, 5.0, 6.0]


@pytest.mark.parametrize("ids", [_RUN_IDS, [str(x).removesuffix(".0") for x in _RUN_IDS],  # floats, their text
                                 [i / 64 for i in range(1, 40)]])  # fractions: question ids that look like scores
def test_question_id_checks_on_parquet_equal_memory(tmp_path, ids):
    """The validator's runs-in-ids warning and score-like-ids refusal, made in SQL over every id of a Parquet file
    (a float column's whole numbers are written '1' as Arrow writes them, so 1.1 is a run of 1 in both)."""
    path = tmp_path / "ids.parquet"
    n = len(ids)
    pq.write_table(pa.table({"question": [x for x in ids for _ in "AB"], "model": ["A", "B"] * n,
                             "score": [float(i % 3 == 0) for i in range(2 * n)]}), path)
    memory, sql = _verdict(lambda: load(str(path))), _verdict(lambda: sums_of(str(path)))
    assert memory == sql and memory  # a warning or a refusal, word for word


def test_runs_in_ids_of_a_wide_file_equal_memory(tmp_path):
    """A wide CSV: a row with no score at all is no question (in memory and in SQL), so it is not counted."""
    rows = [f"{q},{a},{b}" for q, a, b in [("7", 1, 0), ("7.1", 0, 0), ("7.2", 1, 1), ("8", 0, 1), ("8.1", 1, 0),
                                            ("9", 0, 0), ("10", 1, 1), ("11", "", ""), ("12", 1, 0), ("13", 0, 1)]]
    path = tmp_path / "wide.csv"
    path.write_text("question,alpha,beta\n" + "\n".join(rows) + "\n")
    memory, sql = _verdict(lambda: load(str(path))), _verdict(lambda: sums_of(str(path)))
    assert memory == sql and "3 question ids look like runs" in memory[0]


# ------------------------------------------------------------------------- file names are never patterns
def _models_file(path: Path, models: tuple[str, ...]) -> None:
    path.write_text("question,model,score\n" + "".join(f"q{i},{m},{(i + j) % 2}\n" for i in range(6)
                                                       for j, m in enumerate(models)))


def test_a_file_is_read_by_its_literal_name_never_as_a_pattern(tmp_path):
    """run[1].csv read run1.csv, and a file named '*.csv' or 'results_*.csv' pulled in its neighbours
    (issue 46): DuckDB expanded the names again. Each is now read alone, by its name."""
    _models_file(tmp_path / "run1.csv", ("A", "B"))
    _models_file(tmp_path / "run[1].csv", ("C", "D"))
    _models_file(tmp_path / "*.csv", ("E", "F"))
    _models_file(tmp_path / "results_*.csv", ("G", "H"))
    _models_file(tmp_path / "results_x.csv", ("I", "J"))
    _models_file(tmp_path / "~x{1,2}?.csv", ("K", "L"))
    for name, models in (("run[1].csv", ("C", "D")), ("*.csv", ("E", "F")), ("results_*.csv", ("G", "H")),
                         ("~x{1,2}?.csv", ("K", "L"))):
        sums = sums_of(str(tmp_path / name))
        assert sums.models == models, name
        assert "answers per question" not in " ".join(sums.notes)  # no neighbour read as a second run
        assert engine.choose_engine(str(tmp_path / name)) == "memory"  # a small file, not a folder or glob
    assert set(sums_of(str(tmp_path / "results_x*.csv")).models) == {"I", "J"}  # a glob no file is named: matched
    _models_file(tmp_path / "a\\*b.csv", ("M", "N"))  # DuckDB's glob escape beside a glob character: refused
    with pytest.raises(EvalStatsError, match="by its name alone"):
        sums_of(str(tmp_path / "a\\*b.csv"))


def test_a_folder_reads_each_regular_file_once_and_refuses_a_fifo(tmp_path):
    """A link loop read one file 41 times as 'resamples' (issue 46); a FIFO would block the engine."""
    folder = tmp_path / "runs"
    folder.mkdir()
    _models_file(folder / "a.csv", ("A", "B"))
    (folder / "loop").symlink_to(folder)
    (folder / "twice.csv").symlink_to(folder / "a.csv")
    assert engine._files(str(folder))[0] == [str(folder / "a.csv")]
    assert "answers per question" not in " ".join(sums_of(str(folder)).notes)  # one answer each: no resamples
    os.mkfifo(folder / "pipe.csv")
    with pytest.raises(EvalStatsError, match="named pipe"):
        sums_of(str(folder))
    with pytest.raises(EvalStatsError, match="named pipe"):
        sums_of(str(folder / "pipe.csv"))


def test_the_server_folder_never_reads_a_hidden_link_outside_through_a_pattern_name(tmp_path):
    """A file named '*.csv' beside a hidden link to a file outside: DuckDB expanded the name and the page showed
    the outside file's models (issue 46). Only '*.csv' itself is read."""
    root = tmp_path / "data"
    (root / "runs").mkdir(parents=True)
    _models_file(root / "runs" / "*.csv", ("A", "B"))
    _models_file(tmp_path / "secret.csv", ("Secret", "Other"))
    (root / "runs" / ".hidden.csv").symlink_to(tmp_path / "secret.csv")
    env = {engine.SERVER_DATA: str(root)}
    path = engine.server_path("runs", env)
    assert sums_of(path).models == ("A", "B")
    os.mkfifo(root / "pipe.csv")
    with pytest.raises(EvalStatsError, match="named pipe"):
        engine.server_path("pipe.csv", env)
    (root / "runs" / "late.csv").symlink_to(tmp_path / "secret.csv")  # a link made after server_path's check
    with pytest.raises(EvalStatsError, match="leads outside"):
        sums_of(path, within=str(root))
