"""Spark local mode gives the same analysis as the in-memory path for a pair the bounded rule's sample skewness
moves (issue 20, skew11b: the sums' third moment of the difference, ``PairSums.m3_diff``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_bounded_pair_cap import _continuous
from test_engine import differences, same_analysis
from test_engine_spark import spark  # noqa: F401  (the module's Spark session; skips without pyspark or Java)

import evalstats_core as es
from evalstats_core.analysis import analyze_sums
from evalstats_core.engine import sums_of
from evalstats_core.sums import file_sums


def test_spark_keeps_the_third_moment_and_the_rule_reads_it(spark, tmp_path):  # noqa: F811
    a, b = _continuous(np.random.default_rng(5), 1, 300, 0.65, 0.7, 0.95)
    df = pd.DataFrame({"question": [f"q{i}" for i in range(300)], "A": a[0], "B": b[0], "C": np.round(a[0], 2)})
    df.loc[::17, "C"] = np.nan
    path = tmp_path / "kept.parquet"
    df.to_parquet(path, index=False)
    memory = file_sums(es.question_scores(es.load(str(path))))
    on_spark = sums_of(str(path), engine="spark", spark=spark)
    assert differences(memory, on_spark) == []  # m3_diff included
    assert same_analysis(es.analyze(es.load(str(path)), baseline="B"), analyze_sums(on_spark, baseline="B")) == []
