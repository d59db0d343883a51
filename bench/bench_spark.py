"""The engine's SQL on Spark local mode against the in-memory path, on one 1e6-row Parquet file.

    python bench/bench_spark.py                  # 1,000,000 rows: 4 models, clusters of 100, 0/1 scores
    python bench/bench_spark.py --rows 200000 --kind continuous

Needs pyspark (requirements-dev.txt, or the ``[spark]`` extra) and a Java runtime. It writes a seeded long
Parquet file (question, model, score, cluster; one answer per question and model), then computes every
model's and every pair's numbers three ways: in memory (``analyze(load(path))``), through DuckDB and
through Spark SQL in local mode (``analyze_sums(sums_of(path, engine=...))``). It prints the time of
each and the largest relative difference of any printed number (means, SEs, df, interval ends, p-values)
from the in-memory path; issue 25 asks for the same numbers (1e-12).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalstats_core.analysis import analyze, analyze_sums  # noqa: E402
from evalstats_core.data import load  # noqa: E402
from evalstats_core.engine import sums_of  # noqa: E402

MODELS = ("atlas", "breeze", "comet", "drift")


def write(path: Path, rows: int, kind: str, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    n_q = rows // len(MODELS)
    cluster = np.arange(n_q) // 100
    easy = rng.normal(0.0, 1.0, n_q) + rng.normal(0.0, 0.5, cluster.max() + 1)[cluster]
    frames = []
    for j, model in enumerate(MODELS):
        latent = easy + 0.1 * j + rng.normal(0.0, 1.0, n_q)
        score = (latent > 0.0).astype(np.float64) if kind == "binary" else 1.0 / (1.0 + np.exp(-latent))
        frames.append(pd.DataFrame({"question": np.arange(n_q), "model": model, "score": score,
                                    "cluster": cluster}))
    pd.concat(frames, ignore_index=True).to_parquet(path, index=False)


def numbers(analysis) -> dict[str, float]:
    out = {}
    for m in analysis.models:
        for key in ("mean", "se", "df", "ci_low", "ci_high"):
            out[f"{m.model}.{key}"] = float(getattr(m, key))
    for c in analysis.comparisons:
        for key in ("diff", "se", "ci_low", "ci_high", "p_value", "p_adjusted", "correlation"):
            out[f"{c.model}-{c.baseline}.{key}"] = float(getattr(c, key))
    return out


def largest_difference(a: dict[str, float], b: dict[str, float]) -> tuple[float, str]:
    assert a.keys() == b.keys(), sorted(a.keys() ^ b.keys())
    worst, where = 0.0, ""
    for key, x in a.items():
        y = b[key]
        if math.isnan(x) and math.isnan(y):
            continue
        rel = abs(x - y) / max(abs(x), 1e-300) if x != y else 0.0
        if rel > worst:
            worst, where = rel, key
    return worst, where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--kind", choices=("binary", "continuous"), default="binary")
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.parquet"
        write(path, args.rows, args.kind)
        t = time.perf_counter()
        memory = numbers(analyze(load(str(path), cluster_col="cluster")))
        t_mem = time.perf_counter() - t
        t = time.perf_counter()
        duck = numbers(analyze_sums(sums_of(str(path), cluster_col="cluster")))
        t_duck = time.perf_counter() - t
        spark = (SparkSession.builder.master("local[2]").appName("evalstats-bench")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "4")
                 .config("spark.driver.memory", "1g").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        try:
            t = time.perf_counter()
            on_spark = numbers(analyze_sums(sums_of(str(path), engine="spark", spark=spark, cluster_col="cluster")))
            t_spark = time.perf_counter() - t
        finally:
            spark.stop()
    print(f"{args.rows:,} rows ({args.kind} scores, {len(MODELS)} models, clusters of 100); "
          f"{len(memory)} numbers compared")
    for name, got, secs in (("DuckDB", duck, t_duck), ("Spark local", on_spark, t_spark)):
        worst, where = largest_difference(memory, got)
        plain = [k for k in memory if not k.endswith(("p_value", "p_adjusted"))]  # a far tail magnifies rounding
        rest, _ = largest_difference({k: memory[k] for k in plain}, {k: got[k] for k in plain})
        print(f"{name:12s} {secs:7.2f} s (in memory {t_mem:.2f} s); largest relative difference {worst:.1e}"
              + (f" ({where} = {memory[where]:.2g})" if where else "") + f"; without p-values {rest:.1e}")


if __name__ == "__main__":
    main()
