"""Files larger than memory: the sufficient statistics computed by DuckDB (or Spark SQL), never the rows in Python.

=====================  ==================================================================================
:func:`sums_of`        a Parquet/CSV file, a folder or a glob (any size) -> :class:`~evalstats_core.sums.FileSums`
:func:`analyze_file`   :func:`sums_of` then :func:`~evalstats_core.analysis.analyze_sums`: the same numbers as
                       ``analyze(load(path))`` for a file that fits in memory
:func:`choose_engine`  ``"duckdb"`` when a file is bigger than the in-memory budget, else ``"memory"``
:data:`ENGINES`        ``memory``, ``duckdb``, ``spark``
=====================  ==================================================================================

The column roles are found as for any file (:func:`evalstats_core._table.read_table`, the same names, synonyms
and messages) on a bounded sample of the first rows; then the whole file is aggregated in SQL
(:mod:`evalstats_core.engine_sql`): per (question, model) the mean over runs and ``k``, per (model, cluster)
counts, means and centred sums of squares, per pair per cluster on shared questions the difference statistics
and discordant counts. Every check of a row (no score, a score that is not a number, inf, no question or model,
a question in two clusters, a model with one question, mixed scales) is made over the whole file in the same
pass, with the in-memory reader's words. DuckDB is embedded (``memory_limit`` and a spill folder keep it
within a budget); Spark runs the same SQL text in a ``SparkSession`` the caller gives.

What needs the rows themselves is not computed from sums: the wild cluster bootstrap without clusters,
per-question breakdowns, the judge correction; :data:`NOT_FROM_SUMS` says so in one sentence.
"""

from __future__ import annotations

import glob as _glob
import math
import os
from typing import Any

import numpy as np

from . import engine_sql as q
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["ENGINES", "NOT_FROM_SUMS", "SERVER_DATA", "sums_of", "analyze_file", "choose_engine", "duckdb_connection",
           "server_path"]

ENGINES = ("memory", "duckdb", "spark")
#: Rows of the file read into memory to find the column roles (the whole file is then aggregated in SQL).
SAMPLE_ROWS = 50_000
NOT_FROM_SUMS = ("is not available with the {engine} engine, which keeps only sums per model, pair and cluster, "
                 "not the rows; analyse a file that fits in memory (engine='memory') for it")
#: The environment variable naming the one server folder whose files the workbench may analyse by path (unset:
#: off, the default).
SERVER_DATA = "EVALSTATS_SERVER_DATA"
_UNSUPPORTED = {"runs_in_ids": "runs in ids (runs_in_ids=True)", "resample_col": "a resample column (resample_col=)"}


def choose_engine(path: Any, limits: Limits | None = None) -> str:
    """``"duckdb"`` for a path (file, folder or glob) bigger than ``limits.max_bytes``, else ``"memory"``."""
    limits = limits or Limits.from_env()
    if not isinstance(path, str | os.PathLike):
        return "memory"
    path = os.fspath(path)
    if os.path.isdir(path) or _glob.has_magic(path):
        return "duckdb"
    try:
        return "duckdb" if os.path.getsize(path) > limits.max_bytes else "memory"
    except OSError:
        return "memory"  # the in-memory reader names the problem


def _files(path: str) -> tuple[list[str], str]:
    """The files a path names (a file, a folder of .parquet or .csv files, or a glob) and their type."""
    path = os.fspath(path)
    if "://" in path:  # s3://, https://, gs://: DuckDB's httpfs reads (and expands) it
        return [path], "parquet" if path.lower().rstrip("/").endswith((".parquet", ".pq")) else "csv"
    if os.path.isdir(path):
        found = sorted(_glob.glob(os.path.join(path, "**", "*.parquet"), recursive=True)) or sorted(
            _glob.glob(os.path.join(path, "**", "*.csv"), recursive=True))
        if not found:
            raise EvalStatsError(f"folder '{path}' holds no .parquet or .csv files; give a folder of Parquet (or CSV) "
                                 "files, one file, or a glob such as 'results/*.parquet'")
    elif _glob.has_magic(path):
        found = sorted(_glob.glob(path, recursive=True))
        if not found:
            raise EvalStatsError(f"no file matches '{path}'; check the pattern")
    elif os.path.isfile(path):
        found = [path]
    else:
        raise EvalStatsError(f"file '{path}' does not exist; check the path and the spelling")
    kinds = {"parquet" if f.lower().endswith((".parquet", ".pq")) else "csv" for f in found}
    if len(kinds) > 1:
        raise EvalStatsError(f"'{path}' mixes Parquet and CSV files; give files of one kind")
    return found, kinds.pop()


def duckdb_connection(memory_limit: str | None = None, temp_directory: str | None = None,
                      threads: int | None = None) -> Any:
    """An in-process DuckDB connection with a memory limit and a spill folder (defaults: 1 GB, the system's
    temporary folder; ``EVALSTATS_DUCKDB_MEMORY`` overrides the limit)."""
    try:
        import duckdb
    except ImportError:  # a dependency of the package: only a broken install lacks it
        raise EvalStatsError("the duckdb engine needs the duckdb package (pip install duckdb)") from None
    import tempfile

    con = duckdb.connect(":memory:")
    con.execute(f"SET memory_limit = '{_size(memory_limit or os.environ.get('EVALSTATS_DUCKDB_MEMORY', '1GB'))}'")
    con.execute(f"SET temp_directory = '{_path_literal(temp_directory or tempfile.gettempdir())}'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


def _size(text: str) -> str:
    import re

    if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]?i?B", str(text).strip(), flags=re.IGNORECASE):
        raise EvalStatsError(f"memory limit {text!r} must look like '1GB' or '512MB'")
    return str(text).strip()


def _path_literal(path: str) -> str:
    return os.fspath(path).replace("'", "''")


class _Duck:
    """The DuckDB side: the file as a view ``es_raw``, its sample, and the tables kept between queries."""

    def __init__(self, path: str, con: Any | None) -> None:
        self.files, self.file_type = _files(path)
        self.con = con if con is not None else duckdb_connection()
        self.dialect = q.DUCKDB
        listed = "[" + ", ".join(f"'{_path_literal(f)}'" for f in self.files) + "]"
        if self.file_type == "parquet":
            self.con.execute(f"CREATE OR REPLACE TEMP VIEW es_raw AS SELECT * FROM read_parquet({listed})")
            self.order = "(file_index * 1099511627776 + file_row_number)"
            self.from_ = f"(SELECT *, file_index, file_row_number FROM read_parquet({listed}))"
        else:
            self.con.execute(f"CREATE OR REPLACE TEMP VIEW es_raw AS SELECT * FROM read_csv({listed}, "
                             "all_varchar = true, header = true)")  # ids stay text, as the in-memory reader reads them
            self.order = "r0"
            self.from_ = "(SELECT *, ROW_NUMBER() OVER () - 1 AS r0 FROM es_raw)"

    def sample(self, n: int) -> Any:
        return self.con.execute(f"SELECT * FROM es_raw LIMIT {int(n)}").to_arrow_table()

    def types(self) -> dict[str, str]:
        return {row[0]: str(row[1]) for row in self.con.execute("DESCRIBE es_raw").fetchall()}

    def keep(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")

    def run(self, sql: str) -> list[tuple]:
        return self.con.execute(sql).fetchall()

    def columns(self, sql: str) -> dict[str, np.ndarray]:
        """The result of ``sql`` as one numpy array per column (NULL: NaN in a number column)."""
        return {k: _unmasked(v) for k, v in self.con.execute(sql).fetchnumpy().items()}

    def where(self, r: int) -> str:
        if self.file_type == "csv":
            return f"row {int(r) + 2} of {os.path.basename(self.files[0])}"  # the header is line 1
        k, row = divmod(int(r), 1 << 40)
        return f"data row {row + 1} of {os.path.basename(self.files[k])}"

    def close(self) -> None:
        for name in ("es_cells", "es_questions", "es_models"):
            self.con.execute(f"DROP TABLE IF EXISTS {name}")


class _Spark:
    """The Spark side: the same SQL text in the caller's ``SparkSession``."""

    def __init__(self, path: str, spark: Any) -> None:
        self.files, self.file_type = _files(path) if not _is_table(path) else ([path], "table")
        self.spark = spark
        self.dialect = q.SPARK
        if self.file_type == "table":
            frame = spark.table(path)
        elif self.file_type == "parquet":
            frame = spark.read.parquet(*self.files)
        else:
            frame = spark.read.option("header", "true").csv(self.files)  # every column as text
        from pyspark.sql import functions as F  # noqa: N812 - pyspark's own spelling

        frame.withColumn("es_row", F.monotonically_increasing_id()).createOrReplaceTempView("es_raw")
        self.order = "es_row"
        self.from_ = "es_raw"

    def sample(self, n: int) -> Any:
        import pyarrow as pa

        frame = self.spark.sql(f"SELECT * FROM es_raw LIMIT {int(n)}").drop("es_row").toPandas()
        return pa.Table.from_pandas(frame, preserve_index=False)

    def types(self) -> dict[str, str]:
        return {f.name: f.dataType.simpleString() for f in self.spark.table("es_raw").schema.fields}

    def keep(self, name: str, sql: str) -> None:
        self.spark.sql(f"DROP VIEW IF EXISTS {name}")
        self.spark.sql(sql).cache().createOrReplaceTempView(name)

    def run(self, sql: str) -> list[tuple]:
        return [tuple(row) for row in self.spark.sql(sql).collect()]

    def columns(self, sql: str) -> dict[str, np.ndarray]:
        frame = self.spark.sql(sql)
        rows = [tuple(row) for row in frame.collect()]
        return {name: _unmasked(np.array([row[i] for row in rows], dtype=object))
                for i, name in enumerate(frame.columns)}

    def where(self, r: int) -> str:
        return f"the row with Spark id {int(r)} of {os.path.basename(self.files[0])}"

    def close(self) -> None:
        for name in ("es_cells", "es_questions", "es_models"):
            self.spark.catalog.dropTempView(name)


def _unmasked(values: Any) -> np.ndarray:
    """A fetched column as a plain array: numbers as float64 with NaN for NULL (counts stay exact below 2**53),
    anything else (labels) as it is."""
    if isinstance(values, np.ma.MaskedArray):
        if values.dtype.kind in "biuf":
            return np.ma.filled(values.astype(np.float64), np.nan)
        return np.asarray(values.astype(object).filled(None))
    values = np.asarray(values)
    if values.dtype == object and all(v is None or isinstance(v, int | float) for v in values):
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    return values


def _is_table(path: str) -> bool:
    """A Spark table name (``db.table``) rather than a path."""
    return not os.path.exists(path) and not _glob.has_magic(path) and "/" not in path and not path.endswith(
        (".parquet", ".pq", ".csv"))


def sums_of(path: Any, *, engine: str = "duckdb", spark: Any = None, connection: Any = None, name: str | None = None,
            format: str | None = None, question_col: str | None = None, model_col: str | None = None,
            score_col: str | None = None, cluster_col: str | None = None, ignore_cols: tuple[str, ...] = (),
            duplicates: str = "resamples", mixed_scales: str = "error", limits: Limits | None = None,
            **unsupported: Any) -> Any:
    """The :class:`~evalstats_core.sums.FileSums` of a results table of any size, computed in SQL.

    Parameters
    ----------
    path : str or os.PathLike
        A Parquet or CSV file, a folder of them, a glob (``results/*.parquet``), or with ``engine="spark"`` a
        table name of the session's catalog.
    engine : {"duckdb", "spark"}
        DuckDB embedded (``connection``: an open ``duckdb`` connection, default :func:`duckdb_connection`), or
        Spark SQL in ``spark``, a ``SparkSession`` the caller made (pyspark is optional).
    name : str, optional
        The name used in messages and reports (default: the path's base name).
    format, question_col, model_col, score_col, cluster_col, ignore_cols, duplicates, mixed_scales
        As :func:`~evalstats_core.data.load`.
    limits : Limits, optional
        ``max_models`` applies; the row and byte budgets do not (the rows never enter Python).

    Returns
    -------
    FileSums
        Equal, to rounding, to ``file_sums(question_scores(load(path)))`` of the in-memory path.
    """
    for key, value in unsupported.items():
        if value:
            raise EvalStatsError(f"{_UNSUPPORTED.get(key, key)} {NOT_FROM_SUMS.format(engine=engine)}")
    if engine not in ("duckdb", "spark"):
        raise EvalStatsError(f"engine ({engine!r}) must be 'duckdb' or 'spark' here ('memory' reads with load())")
    if engine == "spark" and spark is None:
        raise EvalStatsError("the spark engine needs a SparkSession: pass spark=SparkSession.builder.getOrCreate()")
    path = os.fspath(path)
    side = _Spark(path, spark) if engine == "spark" else _Duck(path, connection)
    label = name or os.path.basename(path.rstrip("/")) or path
    limits = limits or Limits.from_env()
    try:
        from .engine_sums import aggregate

        return aggregate(side, label, limits, dict(format=format, question_col=question_col, model_col=model_col,
                                                   score_col=score_col, cluster_col=cluster_col,
                                                   ignore_cols=tuple(ignore_cols), duplicates=duplicates,
                                                   mixed_scales=mixed_scales))
    except Exception as exc:  # noqa: BLE001 - the engine's own read errors become one clear line
        if isinstance(exc, EvalStatsError) or not _engine_error(exc):
            raise
        raise EvalStatsError(engine_message(str(exc), label, engine)) from None
    finally:
        side.close()


def _engine_error(exc: BaseException) -> bool:
    """True for DuckDB's and Spark's own errors (a file it could not read), not for a bug of ours."""
    module = type(exc).__module__ or ""
    return module.split(".")[0] in ("duckdb", "_duckdb", "pyspark", "py4j")


def engine_message(text: str, label: str, engine: str) -> str:
    """One line naming what the SQL engine could not read in ``label`` and the fix.

    Examples
    --------
    >>> engine_message('Invalid Input Error: Failed to read file "/d/b.parquet": schema mismatch in glob: column '
    ...                '"model" was read from the original file "/d/a.parquet", but could not be found in file '
    ...                '"/d/b.parquet". Candidate names: question, A', "d", "duckdb")
    "the files of 'd' do not have the same columns: column 'model' is in a.parquet but not in b.parquet; a folder or glob is read as one table, so give files with the same columns (or analyse each file on its own)"
    """
    import re

    found = re.search(r'column "([^"]*)" was read from the original file "([^"]*)", but could not be found in '
                      r'file "([^"]*)"', text)
    if found:
        column, first, other = found.groups()
        return (f"the files of '{label}' do not have the same columns: column '{column}' is in "
                f"{os.path.basename(first)} but not in {os.path.basename(other)}; a folder or glob is read as one "
                "table, so give files with the same columns (or analyse each file on its own)")
    if "schema mismatch" in text:
        return (f"the files of '{label}' do not have the same columns; a folder or glob is read as one table, so "
                "give files with the same columns (or analyse each file on its own)")
    first_line = " ".join(text.split())[:300]
    return (f"{engine} could not read '{label}' ({first_line}); check that every file is a Parquet or CSV results "
            "table, or read one file with engine='memory' for a detailed message")


def analyze_file(path: Any, *, engine: str = "duckdb", spark: Any = None, connection: Any = None,
                 reading: dict | None = None, **settings: Any) -> Any:
    """:func:`sums_of` (with the reading choices ``reading``) then
    :func:`~evalstats_core.analysis.analyze_sums` with ``settings`` (baseline, confidence, ...)."""
    from .analysis import analyze_sums

    if settings.pop("wild_bootstrap", False):
        raise EvalStatsError(f"the wild bootstrap {NOT_FROM_SUMS.format(engine=engine)}")
    sums = sums_of(path, engine=engine, spark=spark, connection=connection, **(reading or {}))
    return analyze_sums(sums, **settings)


def exponent_of(big: float) -> int:
    """The power of two every score is divided by when the largest is huge or tiny (as the in-memory path)."""
    from ._clusters import rescale_exponent

    return rescale_exponent(np.array([big])) if math.isfinite(big) else 0


def server_path(name: str, environ: dict | None = None) -> str:
    """The path of ``name`` (a file or folder, relative to the server's data folder) for the workbench to analyse
    on the server, or an :class:`EvalStatsError`: off unless ``EVALSTATS_SERVER_DATA`` names a folder; absolute
    paths, globs, ``..`` and links that lead outside that folder are refused (every file a folder holds too).

    Examples
    --------
    >>> server_path("results.parquet", {})
    Traceback (most recent call last):
    ...
    evalstats_core.errors.EvalStatsError: reading files on the server is off; ...
    """
    env = os.environ if environ is None else environ
    root = env.get(SERVER_DATA)
    if not root or not os.path.isdir(root):
        raise EvalStatsError(f"reading files on the server is off; the server's administrator turns it on by setting "
                             f"{SERVER_DATA} to the one folder it may read")
    name = str(name).strip()
    if not name or os.path.isabs(name) or _glob.has_magic(name) or "://" in name:
        raise EvalStatsError(f"give a file or folder inside the server's data folder by its relative name (no "
                             f"absolute path, pattern or URL), e.g. 'evals/run1.parquet'; got {name!r}")
    base = os.path.realpath(root)
    path = os.path.realpath(os.path.join(base, name))
    inside = [path] + ([os.path.realpath(f) for f in _files(path)[0]] if os.path.isdir(path) else [])
    if any(os.path.commonpath([base, p]) != base for p in inside):
        raise EvalStatsError(f"{name!r} leads outside the server's data folder; only files inside it can be read")
    if not os.path.exists(path):
        raise EvalStatsError(f"{name!r} is not in the server's data folder; check the name")
    return path
