"""data.load and data.question_scores: layouts, column roles, score coding, validation messages, speed path.

Oracle for question_scores: a readable pandas groupby-mean + pivot (the slow version of the bincount).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core.data import Dataset, QuestionTable, load, question_scores
from evalstats_core.errors import EvalStatsError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LONG = b"question,model,score\nq1,A,1\nq2,A,0\nq3,A,1\nq1,B,1\nq2,B,1\nq3,B,0\n"


def err(data, **kw) -> str:
    with pytest.raises(EvalStatsError) as info:
        load(data, name=kw.pop("name", "results.csv"), **kw)
    return str(info.value)


# ------------------------------------------------------------------------------------------ layouts


def test_long_form_roles_models_and_kind():
    """A plain long file: roles found by name, models in order of first appearance, binary scores."""
    ds = load(LONG, name="r.csv")
    assert (ds.format, ds.file_type, ds.question_col, ds.model_col, ds.score_col) == ("long", "csv", "question",
                                                                                      "model", "score")
    assert ds.models == ("A", "B") and ds.score_kind == "binary"
    assert (ds.n_rows, ds.n_questions, ds.k_min, ds.k_max, ds.k_typical) == (6, 3, 1, 1, 1)
    assert ds.cluster_col is None and ds.n_clusters is None
    assert list(ds.frame.columns) == ["question", "model", "score"]
    assert ds.frame["score"].tolist() == [1, 0, 1, 1, 1, 0]


def test_wide_form_atlas_breeze():
    """Seed 004's table in wide form: one column per model, continuous scores, means 0.636 and 0.686."""
    ds = load(EXAMPLES / "atlas_breeze.csv")
    assert ds.format == "wide" and ds.models == ("Atlas", "Breeze") and ds.model_cols == ("Atlas", "Breeze")
    assert ds.score_kind == "continuous" and ds.n_questions == 10 and ds.name == "atlas_breeze.csv"
    qt = question_scores(ds)
    assert qt.scores.shape == (10, 2)
    assert np.round(qt.scores.mean(axis=0), 3).tolist() == [0.636, 0.686]


def test_wide_and_long_give_the_same_question_table():
    """The same results written both ways give identical question-level scores."""
    wide = b"item,A,B\nq1,1,1\nq2,0,1\nq3,1,0\n"
    a, b = question_scores(load(LONG)), question_scores(load(wide))
    assert np.array_equal(a.scores, b.scores) and a.models == b.models
    assert a.questions.tolist() == b.questions.tolist() == ["q1", "q2", "q3"]


@pytest.mark.parametrize("header,roles", [
    ("Question_ID,System,Correct", ("Question_ID", "System", "Correct")),
    ("id,agent,accuracy", ("id", "agent", "accuracy")),
    ("sample id,Model Name,RESULT", ("sample id", "Model Name", "RESULT")),
    ("task,llm,value", ("task", "llm", "value")),
])
def test_synonyms_case_insensitive(header, roles):
    """Column roles are recognised from common synonyms in any case, with spaces or underscores."""
    data = (header + "\nq1,A,1\nq2,A,0\nq1,B,1\nq2,B,1\n").encode()
    ds = load(data)
    assert (ds.question_col, ds.model_col, ds.score_col) == roles and ds.format == "long"


def test_explicit_columns_override_detection():
    """Explicit column names win over detection; other columns are ignored and noted."""
    data = b"qq,who,pts,score\nq1,A,3,9\nq2,A,5,9\nq1,B,4,9\nq2,B,7,9\n"
    ds = load(data, question_col="qq", model_col="who", score_col="pts")
    assert ds.frame["score"].tolist() == [3, 5, 4, 7] and ds.score_kind == "continuous"
    assert any("ignored column(s): score" in n for n in ds.notes)


def test_explicit_format_wide_with_model_like_column_names():
    """format='wide' reads every non-question column as a model even if one is called 'model'."""
    ds = load(b"question,model,other\nq1,1,0\nq2,0,0\n", format="wide")
    assert ds.models == ("model", "other")


def test_cluster_column_codes_and_sizes():
    """A cluster column gives cluster codes per question (computed once) and cluster sizes; with 3 clusters only
    when chosen (issue 46: found by its name, too few to read by default)."""
    data = b"question,model,score,passage\n" + b"".join(
        f"q{i},{m},{(i + j) % 2},p{i // 3}\n".encode() for j, m in enumerate("AB") for i in range(7))
    assert load(data).n_clusters is None
    ds = load(data, cluster_col="passage")
    assert ds.cluster_col == "passage" and ds.n_clusters == 3
    assert (ds.cluster_size_min, ds.cluster_size_max) == (1, 3) and ds.cluster_size_mean == pytest.approx(7 / 3)
    qt = question_scores(ds)
    assert qt.cluster_codes.tolist() == [0, 0, 0, 1, 1, 1, 2] and qt.n_clusters == 3
    assert qt.clusters.tolist() == ["p0", "p1", "p2"]


def test_parquet_bytes_and_path_match_csv(tmp_path):
    """Parquet (by extension or by the PAR1 magic bytes) loads to the same data as the CSV."""
    frame = pd.read_csv(io.BytesIO(LONG))
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    by_path, by_bytes = load(path), load(path.read_bytes(), name="upload")
    assert by_path.file_type == by_bytes.file_type == "parquet"
    for ds in (by_path, by_bytes):
        assert np.array_equal(question_scores(ds).scores, question_scores(load(LONG)).scores)


def test_sources_path_bytes_and_file_objects(tmp_path):
    """A path, bytes, a binary file object and a text file object all load the same data."""
    path = tmp_path / "r.csv"
    path.write_bytes(LONG)
    with open(path, "rb") as fb, open(path, encoding="utf-8") as ft:
        loaded = [load(path), load(str(path)), load(LONG), load(fb), load(ft), load(io.BytesIO(LONG))]
    assert {d.name for d in loaded[:2]} == {"r.csv"} and loaded[2].name == "uploaded file"
    assert all(d.frame.equals(loaded[0].frame) for d in loaded)


# -------------------------------------------------------------------------------------- score coding


@pytest.mark.parametrize("yes,no", [("true", "false"), ("TRUE", "FALSE"), ("True", "False"), ("yes", "No"),
                                    ("1", "0"), ("1.0", "0.0")])
def test_words_and_numbers_code_binary(yes, no):
    """true/false and yes/no in any case, 0/1 and 1.0/0.0 are all binary 1/0."""
    data = f"question,model,score\nq1,A,{yes}\nq2,A,{no}\nq1,B,{no}\nq2,B,{yes}\n".encode()
    ds = load(data)
    assert ds.frame["score"].tolist() == [1.0, 0.0, 0.0, 1.0] and ds.score_kind == "binary"


def test_judge_scale_is_continuous():
    """A 1-10 judge score is continuous, kept on its own scale."""
    ds = load(b"question,model,score\nq1,A,7\nq2,A,10\nq1,B,3\nq2,B,1\n")
    assert ds.score_kind == "continuous" and ds.frame["score"].max() == 10


def test_ids_are_text_and_trimmed():
    """Question ids keep leading zeros; surrounding spaces are trimmed (' A' and 'A' are one model)."""
    ds = load(b"question,model,score\n001, A ,1\n002,A,0\n001,B,1\n002,B , 1\n")
    assert ds.frame["question"].cat.categories.tolist() == ["001", "002"]
    assert ds.models == ("A", "B")


def test_bom_semicolon_and_tab():
    """A UTF-8 byte-order mark, ';'-separated and tab-separated files are read."""
    base = load(LONG)
    for data in (b"\xef\xbb\xbf" + LONG, LONG.replace(b",", b";"), LONG.replace(b",", b"\t")):
        assert load(data).frame.equals(base.frame)


def test_late_values_that_do_not_fit_the_guessed_type(monkeypatch):
    """A value after the first block (whose type pyarrow guessed) is read, or reported with its row."""
    import evalstats_core._read as read
    import evalstats_core.data as data

    monkeypatch.setattr(read, "_BLOCK_SIZE", 64)  # many blocks: the type is guessed from the first lines only
    body = b"question,model,score\n" + b"".join(b"q%d,A,%d\n" % (i, i % 2) for i in range(40))
    assert data.load(body + b"q99,A,0.5\n").frame["score"].iloc[-1] == 0.5
    assert err(body + b"q99,A,abc\n").startswith("row 42 of results.csv has score 'abc' in column 'score'")


def test_windows_line_endings():
    assert load(LONG.replace(b"\n", b"\r\n")).frame.equals(load(LONG).frame)
    assert err(b"question,model,score\r\nq1,A,1\r\nq2,A,x\r\n").startswith("row 3 of results.csv has score 'x'")


def test_blank_lines_are_skipped():
    """Blank lines (also at the end) are not rows."""
    ds = load(b"question,model,score\n\nq1,A,1\n\nq2,A,0\nq1,B,1\nq2,B,0\n\n\n")
    assert ds.n_rows == 4


# ----------------------------------------------------------------------------------- resamples / K


def slow_question_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Readable oracle: group by (question, model), take the mean, pivot to questions x models."""
    f = frame.astype({"question": str, "model": str})
    return f.groupby(["question", "model"], sort=False)["score"].mean().unstack("model")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from("ABC"), st.integers(0, 4)), min_size=1, max_size=60),
       st.randoms(use_true_random=False))
def test_question_scores_match_groupby_mean(rows, rnd):
    """Property: bincount averaging equals groupby-mean for any mix of resamples and missing answers."""
    rows = rows + [(q, m, 1) for q in (0, 1) for m in "ABC"]  # every model has at least two questions
    rnd.shuffle(rows)
    text = "question,model,score\n" + "".join(f"q{q},{m},{s / 4}\n" for q, m, s in rows)
    ds = load(text.encode())
    qt = question_scores(ds)
    oracle = slow_question_table(ds.frame).reindex(index=qt.questions.tolist(), columns=list(qt.models))
    np.testing.assert_allclose(qt.scores, oracle.to_numpy(dtype=float), rtol=1e-12, atol=1e-15)
    counts = ds.frame.astype(str).groupby(["question", "model"]).size().unstack().reindex(
        index=qt.questions.tolist(), columns=list(qt.models)).fillna(0)
    assert np.array_equal(qt.k, counts.to_numpy(dtype=np.int64))
    assert np.array_equal(qt.answered, qt.k > 0)
    assert ds.k_min == qt.k[qt.answered].min() and ds.k_max == qt.k[qt.answered].max()


def test_resamples_are_averaged_and_noted():
    """Five answers per question are averaged to one score (never pooled); K is recorded."""
    ds = load(EXAMPLES / "synthetic_resampled.csv")
    assert (ds.k_min, ds.k_max, ds.k_typical, ds.n_questions, ds.n_rows) == (5, 5, 5, 400, 6000)
    qt = question_scores(ds)
    assert qt.scores.shape == (400, 3) and (qt.k == 5).all()
    assert set(np.unique(qt.scores * 5)) <= set(range(6))
    assert any("averaged" in n and "never pooled" in n for n in ds.notes)


def test_partial_coverage_is_not_an_error():
    """A question answered by only some models is kept (NaN for the others) and noted."""
    ds = load(b"question,model,score\nq1,A,1\nq2,A,0\nq3,A,1\nq1,B,1\nq2,B,0\n")
    qt = question_scores(ds)
    assert np.isnan(qt.scores[2, 1]) and qt.answered.sum(axis=0).tolist() == [3, 2]
    assert any("1 of 3 questions were answered by only some models" in n for n in ds.notes)


def test_wide_empty_cells_mean_not_answered():
    """In wide form an empty cell is 'not answered'; a row empty for every model is dropped."""
    ds = load(b"question,A,B\nq1,1,\nq2,0,1\nq3,,\nq4,1,1\n")
    qt = question_scores(ds)
    assert qt.questions.tolist() == ["q1", "q2", "q4"] and np.isnan(qt.scores[0, 1])
    assert any("3 empty cell(s)" in n for n in ds.notes)


def test_results_are_frozen_and_read_only():
    """Dataset and QuestionTable are frozen; the question-level arrays cannot be written."""
    ds = load(LONG)
    qt = question_scores(ds)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.name = "x"  # type: ignore[misc]
    with pytest.raises(ValueError):
        qt.scores[0, 0] = 5.0
    assert isinstance(ds, Dataset) and isinstance(qt, QuestionTable)


def test_question_scores_rejects_other_input():
    with pytest.raises(EvalStatsError, match="needs a Dataset"):
        question_scores(pd.DataFrame())  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------- bad input


def test_missing_file_and_folder(tmp_path):
    assert "does not exist" in err(tmp_path / "nope.csv") and "nope.csv" in err(tmp_path / "nope.csv")
    assert "is a folder" in err(tmp_path)


def test_empty_and_header_only():
    assert err(b"") == "results.csv is empty; it needs a header line and one line per answer"
    assert "results.csv is empty" in err(b"\n \n")
    assert err(b"question,model,score\n") == "results.csv has a header but no data rows; add one row per answer"


def test_non_numeric_score_names_row_column_value():
    """The issue's example message, with the line number counting the header as line 1."""
    data = b"question,model,score\n" + b"".join(b"q%d,A,1\n" % i for i in range(15)) + b"q99,A,abc\n"
    assert err(data) == ("row 17 of results.csv has score 'abc' in column 'score'; "
                         "scores must be numbers, true/false or 0/1")


def test_row_numbers_count_blank_lines_and_quoted_newlines():
    """Line numbers are physical lines: blank lines and newlines inside quotes are counted."""
    assert "row 5 of" in err(b'question,model,score\n"q\n1",A,1\n\nq2,A,x\n')


@pytest.mark.parametrize("value,shown", [(b"", "empty or NaN"), (b"NA", "empty or NaN"), (b"nan", "empty or NaN")])
def test_missing_score(value, shown):
    msg = err(b"question,model,score\nq1,A,1\nq2,A,0\nq3,A," + value + b"\n")
    assert msg.startswith(f"row 4 of results.csv has no score in column 'score' ({shown})")
    assert "fill it in or delete the row" in msg


def test_missing_score_among_words():
    """A missing value in a column of words is reported as missing, not as a bad word."""
    assert "row 3 of results.csv has no score" in err(b"question,model,score\nq1,A,true\nq2,A,\n")


@pytest.mark.parametrize("value", [b"inf", b"-inf", b"1e400"])
def test_infinite_score(value):
    msg = err(b"question,model,score\nq1,A,1\nq2,A," + value + b"\n")
    assert msg.startswith("row 3 of results.csv has score") and "finite" in msg and "'score'" in msg


def test_missing_and_duplicated_columns():
    assert "could not find the score column in results.csv" in err(b"question,model,x\nq1,A,1\n")
    assert "score_col=" in err(b"question,model,x\nq1,A,1\n")  # the API's keyword (the CLI prints --score-col)
    msg = err(LONG, score_col="points")
    assert "column 'points' (given as the score column) is not in results.csv" in msg and "'score'" in msg
    assert err(b"question,model,score,Score\nq1,A,1,1\n").startswith("results.csv has two columns named 'Score'")
    assert "could not find the question column" in err(b"a,b,c\n1,2,3\n")


def test_too_few_questions_and_a_model_with_one_question():
    assert "only 1 question ('q1')" in err(b"question,model,score\nq1,A,1\nq1,B,0\n")
    msg = err(b"question,model,score\nq1,A,1\nq2,A,0\nq1,B,1\n")
    assert msg.startswith("model 'B' has a score for only one question in results.csv")


def test_ragged_rows():
    msg = err(b"question,model,score\nq1,A,1\nq2,A,1,3\nq3,A,1\n")
    assert msg.startswith("row 3 of results.csv has 4 fields but the header has 3 ('q2,A,1,3')")
    assert "row 4 of results.csv has 2 fields" in err(b"question,model,score\nq1,A,1\nq2,A,1\nq3,A\n")
    msg = err(b'question,model,score\n"q1,A,1\nq2,A,0\nq3,A,1\n')  # a quote that is never closed
    assert msg.startswith("row 2 of results.csv has 1 field but the header has 3")
    assert "opens a quoted value that runs over the next lines; close or remove it" in msg


def test_encoding_and_binary_junk():
    msg = err("question,model,score\nq1,A,1\nq2,caf\xe9,1\n".encode("latin-1"))
    assert "results.csv is not UTF-8" in msg and "line 3" in msg and "0xe9" in msg and "re-save it as UTF-8" in msg
    assert "not a CSV file" in err(bytes(range(256)) * 4)
    assert "Excel" in err(b"PK\x03\x04" + bytes(100))
    text = "question,model,score\nq1,A,1\nq2,A,0\nq1,B,1\nq2,B,1\n"  # UTF-16 (issue 13): read, with or without BOM
    for encoding in ("utf-16", "utf-16-le", "utf-16-be"):
        assert load(text.encode(encoding), name="u16.csv").frame.equals(load(text.encode(), name="u16.csv").frame)


def test_empty_ids_and_inconsistent_clusters():
    assert err(b"question,model,score\nq1,A,1\n,A,1\n").startswith(
        "row 3 of results.csv has an empty question id in column 'question'")
    assert "empty model name" in err(b"question,model,score\nq1,A,1\nq2,,1\n")
    msg = err(b"question,model,score,cluster\nq1,A,1,x\nq2,A,1,y\nq1,B,1,y\nq2,B,0,y\n")
    assert msg == ("question 'q1' is in cluster 'x' on row 2 of results.csv but in cluster 'y' on row 4 of "
                   "results.csv; each question must belong to one cluster")


def test_wide_text_column_error_explains_the_layout():
    msg = err(b"question,prompt,A\nq1,hello,1\nq2,hi,0\n")
    assert "row 2 of results.csv has score 'hello' in column 'prompt'" in msg and "wide form" in msg


def test_bad_parquet_and_parquet_rows(tmp_path):
    assert "could not read broken.parquet as Parquet" in err(b"PAR1garbage", name="broken.parquet")
    path = tmp_path / "r.parquet"
    pd.DataFrame({"question": ["q1", "q2"], "model": ["A", "A"], "score": ["1", "abc"]}).to_parquet(path)
    assert err(path, name="r.parquet").startswith("data row 2 of r.parquet has score 'abc' in column 'score'")


def test_bad_format_and_source():
    assert "format ('tall')" in err(LONG, format="tall")
    with pytest.raises(EvalStatsError, match="cannot read results from a int"):
        load(42)


def test_file_is_never_modified(tmp_path):
    """Loading (good or bad files) leaves the bytes of the file unchanged."""
    for data in (LONG, b"question,model,score\nq1,A,zzz\n"):
        path = tmp_path / "r.csv"
        path.write_bytes(data)
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        try:
            load(path)
        except EvalStatsError:
            pass
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_examples_load():
    """The bundled examples: shapes the app and the docs rely on."""
    mgsm = load(EXAMPLES / "multilingual_clustered.csv")
    assert (mgsm.n_questions, mgsm.n_clusters, mgsm.cluster_size_min, mgsm.cluster_size_max) == (2500, 250, 10, 10)
    assert mgsm.models == ("Galleon", "Dreadnought", "Frigate") and mgsm.score_kind == "binary"
    for f in EXAMPLES.glob("*.csv"):
        assert f.stat().st_size < 1_000_000


def test_runs_in_ids_warned_then_read_as_runs_on_request():
    """'1', '1.1', '1.2', '1.3', '2', ...: a warning (never applied silently); runs_in_ids=True reads them as
    4 runs of each question; 'gsm.0' .. 'gsm.99' are ids, not runs."""
    rows = "question,A,B\n" + "".join(f"{q}{('.' + str(r)) if r else ''},{(q + r) % 2},{(q * r) % 2}\n"
                                      for q in range(1, 16) for r in range(4))
    plain = load(rows.encode())
    assert plain.n_questions == 60 and any("look like runs" in w for w in plain.warnings)
    runs = load(rows.encode(), runs_in_ids=True)
    assert runs.n_questions == 15 and runs.k_typical == 4 and not runs.warnings
    assert runs.reading == ("--runs-in-ids",)
    ids = "question,A,B\n" + "".join(f"gsm.{i},{i % 2},{(i // 2) % 2}\n" for i in range(100))
    assert not load(ids.encode()).warnings


def test_resample_col_and_a_question_column_that_holds_scores():
    rows = "question,epoch,model,score\n" + "".join(f"q{i},{e},{m},{(i + e) % 2}\n" for i in range(10)
                                                    for e in range(3) for m in "AB")
    ds = load(rows.encode(), resample_col="epoch")
    assert ds.k_typical == 3 and ds.reading == ("--resample-col epoch",)
    assert not ds.warnings  # runs that differ are resamples by declaration, not "repeated rows"
    with pytest.raises(EvalStatsError, match="resample column 'nope'"):
        load(rows.encode(), resample_col="nope")
    scores = "id,ref,A\n" + "".join(f"{i},0.{i + 10},{i % 2}\n" for i in range(40))
    with pytest.raises(EvalStatsError, match="question column 'ref'.*look like scores"):
        load(scores.encode(), question_col="ref", format="wide", ignore_cols=("id",))


def test_a_text_column_in_a_wide_file_is_named_with_the_option_that_leaves_it_out():
    """A reference answer beside the model columns: the message names the column, the row, the value and the
    ignore_cols= fix (the API's words: the CLI says --ignore-col); following the advice analyses the file."""
    body = "question,reference output,A,B\n" + "".join(f"q{i},answer {i},{i % 2},{(i // 2) % 2}\n" for i in range(12))
    with pytest.raises(EvalStatsError, match=r"row 2 .*'answer 0' in column 'reference output'.*"
                                             r"ignore_cols=\('reference output',\)"):
        load(body.encode(), name="w.csv")
    ds = load(body.encode(), name="w.csv", ignore_cols=("reference output",))
    assert ds.models == ("A", "B") and ds.n_questions == 12
