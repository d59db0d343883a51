"""The engine's SQL on Spark local mode: the same FileSums as the in-memory path (and as DuckDB).

Needs pyspark (requirements-dev.txt) and a Java runtime (scripts/test.sh installs one when ``java`` is missing).
One local session for the module: start-up is most of this file's time.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from test_engine import differences, same_analysis, synthetic

from evalstats_core.analysis import analyze_sums
from evalstats_core.data import load, question_scores
from evalstats_core.engine import sums_of
from evalstats_core.errors import EvalStatsError
from evalstats_core.sums import file_sums

pyspark = pytest.importorskip("pyspark", reason="pyspark is a test-only dependency (requirements-dev.txt)")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java runtime (scripts/test.sh installs default-jre-headless)", allow_module_level=True)


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[1]").appName("evalstats-test")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
               .config("spark.sql.adaptive.enabled", "false")
               .config("spark.driver.memory", "512m").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_spark_long_parquet_clustered_and_a_wide_csv(spark, tmp_path):
    from evalstats_core.analysis import analyze

    long = tmp_path / "long.parquet"
    synthetic(7, clustered=True, kind="continuous", n_q=120).to_parquet(long, index=False)
    rng = np.random.default_rng(2)
    wide = pd.DataFrame({"question": [f"q{i}" for i in range(80)]})
    for name in ("beta", "alpha"):
        col = (rng.random(80) < 0.6).astype(float)
        col[rng.random(80) < 0.1] = np.nan
        wide[name] = col
    wide_path = tmp_path / "wide.csv"
    wide.to_csv(wide_path, index=False)
    for path in (long, wide_path):
        memory = file_sums(question_scores(load(str(path))))
        on_spark = sums_of(str(path), engine="spark", spark=spark)
        assert differences(memory, on_spark) == []
        assert differences(memory, sums_of(str(path))) == []  # DuckDB: the same SQL text
        assert same_analysis(analyze(load(str(path))), analyze_sums(on_spark)) == []


def test_spark_checks_rows_in_sql(spark, tmp_path, monkeypatch):
    from evalstats_core import engine

    monkeypatch.setattr(engine, "SAMPLE_ROWS", 5)
    path = tmp_path / "bad.csv"
    path.write_text("question,model,score\n" + "".join(f"q{i},{m},{i % 2}\n" for i in range(10) for m in "AB")
                    + "q9,A,abc\n")
    with pytest.raises(EvalStatsError, match="has a score in column 'score' that is not a number"):
        sums_of(str(path), engine="spark", spark=spark)


def test_spark_needs_a_session(tmp_path):
    with pytest.raises(EvalStatsError, match="needs a SparkSession"):
        sums_of("examples/atlas_breeze.csv", engine="spark")


def test_spark_checks_question_ids_as_memory_does(spark, tmp_path):
    """The runs-in-ids warning (float ids in Parquet) and the score-like-ids refusal (CSV), in Spark SQL."""
    runs = tmp_path / "runs.parquet"
    ids = [1.0, 1.1, 1.2, 2.0, 2.1, 2.2, 3.0, 4.0, 5.0, 6.0]
    pd.DataFrame({"question": [x for x in ids for _ in "AB"], "model": ["A", "B"] * len(ids),
                  "score": [float(i % 3 == 0) for i in range(2 * len(ids))]}).to_parquet(runs, index=False)
    on_spark = sums_of(str(runs), engine="spark", spark=spark).warnings
    assert on_spark == load(str(runs)).warnings and "4 question ids look like runs" in on_spark[0]
    scores = tmp_path / "scores.csv"
    scores.write_text("question,model,score\n" + "".join(f"0.{i:03d},{m},{i % 2}\n" for i in range(1, 40)
                                                         for m in "AB"))
    with pytest.raises(EvalStatsError) as memory:
        load(str(scores))
    with pytest.raises(EvalStatsError) as sql:
        sums_of(str(scores), engine="spark", spark=spark)
    assert str(sql.value) == str(memory.value) and "look like scores" in str(sql.value)


def test_spark_reads_hostile_files_as_memory_does(spark, tmp_path):
    """Issue 46's parity on Spark, one file each: float ids 0.0 and -0.0 are two questions (the sums equal
    memory's); two columns named 'score' and a column of human labels are refused in one line, as on DuckDB."""
    zeros = tmp_path / "zeros.parquet"
    ids = [0.0, -0.0, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0]
    pd.DataFrame({"question": [x for x in ids for _ in "AB"], "model": ["A", "B"] * len(ids),
                  "score": [float(i % 3 == 0) for i in range(2 * len(ids))]}).to_parquet(zeros, index=False)
    memory = file_sums(question_scores(load(str(zeros))))
    assert memory.n_questions == 8 and differences(memory, sums_of(str(zeros), engine="spark", spark=spark)) == []
    dup = tmp_path / "dup.csv"
    dup.write_text("question,model,score,score\n" + "".join(f"q{i},{m},{i % 2},1\n" for i in range(10) for m in "AB"))
    with pytest.raises(EvalStatsError) as in_memory:
        load(str(dup))
    with pytest.raises(EvalStatsError) as on_spark:
        sums_of(str(dup), engine="spark", spark=spark)
    assert str(on_spark.value) == str(in_memory.value) and "two columns named 'score'" in str(in_memory.value)
    human = tmp_path / "human.csv"
    human.write_text("question,model,score,human\n" + "".join(f"q{i},{m},{i % 2},{i % 3 == 0:d}\n"
                                                               for i in range(10) for m in "AB"))
    with pytest.raises(EvalStatsError, match="column 'human' of human.csv holds human labels.*spark engine"):
        sums_of(str(human), engine="spark", spark=spark, human_labels=True)


def test_spark_reads_a_file_by_its_literal_name_never_as_a_pattern(spark, tmp_path):
    """Hadoop's glob read run[1].csv as run1.csv and x{1,2}.csv as x1.csv (issue 46): the names are escaped."""
    from test_engine import _models_file

    for name, models in (("run1.csv", ("A", "B")), ("run[1].csv", ("C", "D")), ("x1.csv", ("E", "F")),
                         ("x{1,2}.csv", ("G", "H")), ("*.csv", ("I", "J"))):
        _models_file(tmp_path / name, models)
    for name, models in (("run[1].csv", ("C", "D")), ("x{1,2}.csv", ("G", "H")), ("*.csv", ("I", "J"))):
        assert sums_of(str(tmp_path / name), engine="spark", spark=spark).models == models, name


def test_spark_fetches_per_cluster_sums_in_batches(spark, tmp_path, monkeypatch):
    """Issue 44.2 on Spark: the per-cluster sums come to the driver FETCH_ROWS rows at a time through
    ``toLocalIterator`` (never one ``collect`` of them all), and the sums equal one batch's, bit for bit."""
    from test_engine_batches import _same

    from evalstats_core import engine

    path = tmp_path / "clustered.parquet"
    synthetic(11, clustered=True, kind="binary", n_q=150, models=3).to_parquet(path, index=False)
    whole = sums_of(str(path), engine="spark", spark=spark)
    assert len(whole.clusters) > 9
    chunks = []
    original = engine._Spark.batches

    def counted(self, sql, rows):
        for v in original(self, sql, rows):
            chunks.append(len(v["g"]))
            yield v

    monkeypatch.setattr(engine, "FETCH_ROWS", 3)
    monkeypatch.setattr(engine._Spark, "batches", counted)
    batched = sums_of(str(path), engine="spark", spark=spark)
    assert max(chunks) == 3 and sum(chunks) == len(whole.clusters)
    assert _same(batched, whole) == []
    assert differences(file_sums(question_scores(load(str(path)))), batched) == []
