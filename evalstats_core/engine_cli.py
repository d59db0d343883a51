"""The command line's ``--engine`` (private to :mod:`evalstats_core.cli`): which engine reads the file, and the
analysis or gate from a file's sums when it is DuckDB or Spark.

``auto`` (the default) is DuckDB for a results table bigger than the in-memory byte budget (``--max-mb``), a
folder or a glob, else the in-memory reader. ``spark`` starts a local ``SparkSession`` (pyspark installed: the
``[spark]`` extra); from Python, pass your own session to :func:`evalstats_core.engine.sums_of`.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

__all__ = ["CHOICES", "add_option", "engine_of", "sums_for", "by_sql", "refuse_rows_only"]

CHOICES = ("auto", "memory", "duckdb", "spark")
_TABLES = (".csv", ".parquet", ".pq")


def add_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=CHOICES, default="auto",
                   help="who reads the file: memory (the rows in Python), duckdb (SQL over a file, folder or glob of "
                        "any size: only sums per model, pair and cluster are kept), spark (the same SQL in a local "
                        "Spark session; needs pyspark and Java); auto (default): duckdb when the file is larger "
                        "than --max-mb, else memory")


def engine_of(args: argparse.Namespace, limits: Any) -> str:
    """The engine that reads ``args.file``: as asked, or for ``auto`` by size (a results table only)."""
    if args.engine != "auto":
        if args.engine != "memory" and len(args.file) != 1:
            raise ValueError(f"--engine {args.engine} reads one file, folder or glob; give one (join the files "
                             "into a folder)")
        return args.engine
    if len(args.file) != 1 or args.file == ["-"]:
        return "memory"
    path = args.file[0]
    if not (os.path.isdir(path) or path.lower().endswith(_TABLES)):
        return "memory"  # harness logs are read by their importers
    if not any(c in path for c in "*?[") and os.path.isfile(path) and os.path.getsize(path) <= limits.max_bytes:
        return "memory"  # what choose_engine says of a file within the budget, without importing the engine
    from .engine import choose_engine  # heavy: pyarrow; only for --engine or a file above --max-mb

    return choose_engine(path, limits)


def refuse_rows_only(args: argparse.Namespace, engine: str) -> None:
    """One sentence for each option that needs the rows, which the SQL engines do not keep."""
    from .engine import NOT_FROM_SUMS  # heavy: pyarrow; only for --engine

    why = NOT_FROM_SUMS.format(engine=engine)
    for flag, given in (("the wild bootstrap (--wild-bootstrap)", getattr(args, "wild_bootstrap", False)),
                        ("the judge correction (--human-col, --labels)",
                         getattr(args, "human_col", None) or getattr(args, "labels", None)),
                        ("--table judge", getattr(args, "table", None) == "judge"),
                        ("a harness log's options (--metric, --filter, --model-name)",
                         args.metric or args.filter or args.model_name)):
        if given:
            raise ValueError(f"{flag} {why}")


def sums_for(args: argparse.Namespace, engine: str, limits: Any) -> Any:
    """The :class:`~evalstats_core.sums.FileSums` of ``args.file`` by ``engine`` with the reading options."""
    from .engine import sums_of  # heavy: pyarrow; only for --engine

    refuse_rows_only(args, engine)
    spark = None
    if engine == "spark":
        try:
            from pyspark.sql import SparkSession  # optional dependency (the spark extra)
        except ImportError:
            raise ValueError("--engine spark needs pyspark (pip install 'evalbars[spark]') and a Java runtime") from None
        spark = SparkSession.builder.master("local[*]").appName("evalbars").getOrCreate()
    return sums_of(args.file[0], engine=engine, spark=spark, format=args.layout, question_col=args.question_col,
                   model_col=args.model_col, score_col=args.score_col, cluster_col=args.cluster_col,
                   ignore_cols=tuple(args.ignore_col), duplicates=args.duplicates, mixed_scales=args.mixed_scales,
                   limits=limits, runs_in_ids=args.runs_in_ids, resample_col=args.resample_col,
                   human_labels=True)  # the in-memory path reads a column named human, gold, label ...


def by_sql(args: argparse.Namespace, limits: Any) -> tuple[Any, Any, str] | None:
    """``(sums, limits, engine)`` when DuckDB or Spark reads ``args.file`` (``--engine``), else None (the rows are
    read in memory)."""
    engine = engine_of(args, limits)
    return None if engine == "memory" else (sums_for(args, engine, limits), limits, engine)
