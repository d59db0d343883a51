"""Files larger than memory: the sufficient statistics computed by DuckDB (or Spark SQL), never the rows in Python.

=====================  ==================================================================================
:func:`sums_of`        a Parquet/CSV file, a folder or a glob (any size) -> :class:`~evalstats_core.sums.FileSums`
:func:`analyze_file`   :func:`sums_of` then :func:`~evalstats_core.analysis.analyze_sums`: the same numbers as
                       ``analyze(load(path))`` for a file that fits in memory
:func:`choose_engine`  ``"duckdb"`` when a file is bigger than the in-memory budget, else ``"memory"``
:data:`ENGINES`        ``memory``, ``duckdb``, ``spark``
=====================  ==================================================================================

The column roles are found as for any file (:func:`evalstats_core._read.read_table`, the same names, synonyms
and messages) on a bounded sample of the first rows; then the whole file is aggregated in SQL
(:mod:`evalstats_core.engine_sql`): per (question, model) the mean over runs and ``k``, per (model, cluster)
counts, means and centred sums of squares, per pair per cluster on shared questions the difference statistics
and discordant counts. Every check of a row (no score, a score that is not a number, inf, no question or model,
a question in two clusters, a model with one question, mixed scales) is made over the whole file in the same
pass, with the in-memory reader's words. DuckDB is embedded (``memory_limit`` and a spill folder keep it
within a budget); Spark runs the same SQL text in a ``SparkSession`` the caller gives.

What needs the rows themselves is not computed from sums: the wild cluster bootstrap without clusters,
per-question breakdowns, the judge correction; :data:`NOT_FROM_SUMS` says so in one sentence.

From the SQL aggregates to :class:`~evalstats_core.sums.FileSums` (the second half of this module):
:func:`aggregate` finds the column roles on a sample with the in-memory reader, keeps one row per (question,
model) in the engine (``es_cells``), checks the whole file from it with the reader's words, and assembles the
per-model and per-pair sums in the order the in-memory path uses (models by first appearance, or column order
in a wide file; clusters by first appearance).
"""

from __future__ import annotations

import csv
import dataclasses
import glob as _glob
import io
import itertools
import math
import os
import re
import secrets
import tempfile
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import engine_sql as q
from ._clusters import rescale_exponent
from ._read import _check_regular, opened_arrow, read_table
from ._records import (
    CLUSTERED_ON,
    SPACES_NOTES,
    look_alike,
    resamples_note,
    runs_warning,
    scales,
    scores_in_question_col,
    spaces_note,
    unique_names,
    unread_clusters,
)
from ._sniff import compression, delimiter, utf16
from .analysis import analyze_sums
from .errors import EvalStatsError
from .human_labels import NotLabels, human_name, parse_labels
from .limits import Limits
from .sums import FileSums, ModelSums, PairSums

__all__ = ["ENGINES", "NOT_FROM_SUMS", "SERVER_DATA", "sums_of", "analyze_file", "choose_engine", "duckdb_connection",
           "server_path"]

ENGINES = ("memory", "duckdb", "spark")
#: Rows of the file read into memory to find the column roles (the whole file is then aggregated in SQL).
SAMPLE_ROWS = 50_000
NOT_FROM_SUMS = ("is not available with the {engine} engine, which keeps only sums per model, pair and cluster, "
                 "not the rows; analyze a file that fits in memory (engine='memory') for it")
#: The environment variable naming the one server folder whose files the workbench may analyze by path (unset:
#: off, the default).
SERVER_DATA = "EVALSTATS_SERVER_DATA"
_UNSUPPORTED = {"runs_in_ids": "runs in ids (runs_in_ids=True)", "resample_col": "a resample column (resample_col=)"}


def choose_engine(path: Any, limits: Limits | None = None) -> str:
    """``"duckdb"`` for a path (file, folder or glob) bigger than ``limits.max_bytes``, else ``"memory"``."""
    limits = limits or Limits.from_env()
    if not isinstance(path, str | os.PathLike):
        return "memory"
    path = os.fspath(path)
    if os.path.isdir(path) or (_glob.has_magic(path) and not os.path.lexists(path)):
        return "duckdb"
    try:
        return "duckdb" if os.path.getsize(path) > limits.max_bytes else "memory"
    except OSError:
        return "memory"  # the in-memory reader names the problem


def _files(path: str, within: str | None = None) -> tuple[list[str], str]:
    """The files a path names and their type: a file (by its name, whatever characters it holds); a folder's
    .parquet files, else its .csv files, in its sub-folders too (hidden ones left out, each folder once even
    through a link loop); or, only when no file or folder has that name, the files a glob the caller wrote
    matches (``results/*.parquet``, matched here once). Each is then read by its literal name: DuckDB and Spark
    never expand a file's name again (issue 46: a file named ``*.parquet`` made DuckDB read its neighbours).

    Only regular files are listed (a FIFO would block the engine: refused before any read), each once (two links
    to one file are one file). ``within`` (the server's data folder): each file is resolved (every link followed)
    and refused unless it lies inside that folder, and the engine reads the resolved path, so a link changed
    after :func:`server_path`'s check cannot lead it outside.
    """
    path = os.fspath(path)
    if "://" in path and not os.path.lexists(path):  # s3://, https://, gs://: DuckDB's httpfs reads (and expands) it
        return [path], "parquet" if path.lower().rstrip("/").endswith((".parquet", ".pq")) else "csv"
    if os.path.isdir(path):
        found = _folder_files(path, ".parquet") or _folder_files(path, ".csv")
        if not found:
            raise EvalStatsError(f"folder '{path}' holds no .parquet or .csv files; give a folder of Parquet (or CSV) "
                                 "files, one file, or a glob such as 'results/*.parquet'")
    elif os.path.lexists(path):
        found = [path]
    elif _glob.has_magic(path):
        found = sorted(_glob.glob(path, recursive=True))
        if not found:
            raise EvalStatsError(f"no file matches '{path}'; check the pattern")
    else:
        raise EvalStatsError(f"file '{path}' does not exist; check the path and the spelling")
    seen, files = set(), []
    for f in found:
        _check_regular(f)  # a FIFO, a device, a folder matched by a glob: refused, never opened
        st = os.stat(f)
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            files.append(f)
    if within is not None:
        base = os.path.realpath(within)
        files = [os.path.realpath(f) for f in files]
        if any(os.path.commonpath([base, f]) != base for f in files):
            raise EvalStatsError(f"'{os.path.basename(path.rstrip('/')) or path}' leads outside the server's data "
                                 "folder; only files inside it can be read")
    kinds = {"parquet" if f.lower().endswith((".parquet", ".pq")) else "csv" for f in files}
    if len(kinds) > 1:
        raise EvalStatsError(f"'{path}' mixes Parquet and CSV files; give files of one kind")
    return files, kinds.pop()


def _folder_files(folder: str, ext: str) -> list[str]:
    """The files ending in ``ext`` in ``folder`` and its sub-folders, sorted by path; names starting with '.' are
    left out (as a glob leaves them), and a folder reached twice (a link loop) is walked once."""
    found, walked = [], set()
    for top, dirs, names in os.walk(folder, followlinks=True):
        st = os.stat(top)
        if (st.st_dev, st.st_ino) in walked:
            dirs[:] = []
            continue
        walked.add((st.st_dev, st.st_ino))
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [os.path.join(top, n) for n in names if n.endswith(ext) and not n.startswith(".")]
    return sorted(found)


def duckdb_connection(memory_limit: str | None = None, temp_directory: str | None = None,
                      threads: int | None = None) -> Any:
    """An in-process DuckDB connection with a memory limit and a spill folder (defaults: 1 GB, the system's
    temporary folder; ``EVALSTATS_DUCKDB_MEMORY`` overrides the limit).

    The spill goes to a folder of its own inside that folder, which DuckDB creates when it first spills and
    removes when the connection closes: DuckDB names its spill files by block size alone
    (``duckdb_temp_storage_S96K-0.tmp``), so two processes spilling into one folder overwrote each other's
    blocks ("Could not read enough bytes from file", seen with two analyses at once)."""
    try:
        import duckdb  # heavy, and only for --engine duckdb
    except ImportError:  # a dependency of the package: only a broken install lacks it
        raise EvalStatsError("the duckdb engine needs the duckdb package (pip install duckdb)") from None

    con = duckdb.connect(":memory:")
    con.execute(f"SET memory_limit = '{_size(memory_limit or os.environ.get('EVALSTATS_DUCKDB_MEMORY', '1GB'))}'")
    spill = os.path.join(temp_directory or tempfile.gettempdir(), f"evalstats-duckdb-{os.getpid()}-{secrets.token_hex(6)}")
    con.execute(f"SET temp_directory = '{_path_literal(spill)}'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


def _size(text: str) -> str:
    if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]?i?B", str(text).strip(), flags=re.IGNORECASE):
        raise EvalStatsError(f"memory limit {text!r} must look like '1GB' or '512MB'")
    return str(text).strip()


def _path_literal(path: str) -> str:
    return os.fspath(path).replace("'", "''")


#: The characters that make DuckDB read a path as a glob pattern (it expands nothing else: no braces, and a
#: leading '~' only, which an absolute path never has).
_DUCKDB_GLOB = frozenset("*?[")


def _duckdb_path(con: Any, path: str) -> str:
    """``path`` as DuckDB reads exactly that one file: absolute (no ``~`` expansion), and when its name holds a
    glob character, each one escaped as a one-character class (``run[1].csv`` as ``run[[]1].csv``). A backslash
    is DuckDB's glob escape, which no class spells: such a name is checked with DuckDB's own ``glob()`` (one
    listing of its folder) to match that file alone, else refused.
    """
    full = os.path.abspath(path)
    if not _DUCKDB_GLOB.intersection(full):
        return full
    escaped = "".join(f"[{c}]" if c in "*?[{}" else c for c in full)
    if "\\" not in full:
        return escaped
    matched = [row[0] for row in con.execute("SELECT file FROM glob(?)", [escaped]).fetchall()]
    if matched != [full]:  # a backslash beside a glob character: DuckDB's glob cannot match it literally
        raise EvalStatsError(f"DuckDB cannot read {os.path.basename(path)!r} by its name alone (it would read it as "
                             "a pattern); rename the file without * ? [ \\ and give it again")
    return escaped


class _Duck:
    """The DuckDB side: the file as a view ``es_raw``, its sample, and the tables kept between queries."""

    def __init__(self, path: str, con: Any | None, within: str | None = None) -> None:
        self.files, self.file_type = _files(path, within)
        self.con = con if con is not None else duckdb_connection()
        self.dialect = q.DUCKDB
        listed = "[" + ", ".join(f"'{_path_literal(_duckdb_path(self.con, f))}'" for f in self.files) + "]"
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

    def batches(self, sql: str, rows: int) -> Any:
        """The result of ``sql`` as :meth:`columns`, at most ``rows`` rows at a time: kept as a numbered temporary
        table (the engine's memory, bounded and spilled to disk, not Python's) and fetched by ranges of the number."""
        self.keep("es_fetch", f"SELECT ROW_NUMBER() OVER () - 1 AS es_i, * FROM ({sql}) es_s")
        try:
            (n,), = self.run("SELECT COUNT(*) FROM es_fetch")
            for lo in range(0, int(n), rows):
                yield self.columns(f"SELECT * EXCLUDE (es_i) FROM es_fetch WHERE es_i >= {lo} AND es_i < {lo + rows}")
        finally:
            self.run("DROP TABLE IF EXISTS es_fetch")

    def where(self, r: int) -> str:
        if self.file_type == "csv":
            return f"row {int(r) + 2} of {os.path.basename(self.files[0])}"  # the header is line 1
        k, row = divmod(int(r), 1 << 40)
        return f"data row {row + 1} of {os.path.basename(self.files[k])}"

    def close(self) -> None:
        for name in ("es_cells", "es_questions", "es_models", "es_clusters"):
            self.con.execute(f"DROP TABLE IF EXISTS {name}")


class _Spark:
    """The Spark side: the same SQL text in the caller's ``SparkSession``."""

    def __init__(self, path: str, spark: Any, within: str | None = None) -> None:
        self.files, self.file_type = _files(path, within) if not _is_table(path) else ([path], "table")
        self.spark = spark
        self.dialect = q.SPARK
        if self.file_type == "table":
            frame = spark.table(path)
        elif self.file_type == "parquet":
            frame = spark.read.parquet(*map(_spark_path, self.files))
        else:
            frame = spark.read.option("header", "true").csv(list(map(_spark_path, self.files)))  # every column text
        from pyspark.sql import functions as F  # noqa: N812 - pyspark's own spelling

        frame.withColumn("es_row", F.monotonically_increasing_id()).createOrReplaceTempView("es_raw")
        self.order = "es_row"
        self.from_ = "es_raw"

    def sample(self, n: int) -> Any:
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
        return _spark_columns(frame.collect(), frame.columns)

    def batches(self, sql: str, rows: int) -> Any:
        """The result of ``sql`` as :meth:`columns`, at most ``rows`` rows at a time: Spark's
        ``toLocalIterator`` brings one partition at a time to the driver, never the whole result (``collect``)."""
        frame = self.spark.sql(sql)
        names, it = frame.columns, frame.toLocalIterator()
        while chunk := list(itertools.islice(it, rows)):
            yield _spark_columns(chunk, names)

    def where(self, r: int) -> str:
        return f"the row with Spark id {int(r)} of {os.path.basename(self.files[0])}"

    def close(self) -> None:
        for name in ("es_cells", "es_questions", "es_models", "es_clusters"):
            self.spark.catalog.dropTempView(name)


def _spark_columns(rows: list, names: list[str]) -> dict[str, np.ndarray]:
    """Spark rows as one numpy array per column (as :meth:`_Duck.columns`)."""
    return {name: _unmasked(np.array([row[i] for row in rows], dtype=object)) for i, name in enumerate(names)}


def _spark_path(path: str) -> str:
    """A local file as Spark (Hadoop's ``globStatus``) reads exactly that one file: absolute, with each of
    ``\\ * ? [ ] { }`` escaped by a backslash (``run[1].csv`` would read ``run1.csv``, ``x{1,2}.csv`` ``x1.csv``)."""
    if "://" in path and not os.path.lexists(path):
        return path
    return "".join(f"\\{c}" if c in "\\*?[]{}" else c for c in os.path.abspath(path))


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
            human_labels: bool = False, within: str | None = None, **unsupported: Any) -> Any:
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
    human_labels : bool
        True where a column named as human labels (``human``, ``gold``, ``label`` ...) would correct the judge
        in memory (the command line, :func:`~evalstats_core.judge_io.section_for`): such a column is refused,
        for the correction needs the rows, unless its first rows already hold a value that is no label (a
        ``label`` column of categories, which the in-memory path leaves alone too).
    within : str, optional
        A folder every file must lie in once its links are resolved (the server's data folder,
        :func:`server_path`): checked again as the files are listed, and the engine reads the resolved paths.

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
    label = name or os.path.basename(path.rstrip("/")) or path
    limits = limits or Limits.from_env()
    side = None
    try:  # opening the file is the engine's first reading of it: its errors are one clear line too
        side = _Spark(path, spark, within) if engine == "spark" else _Duck(path, connection, within)
        for f in side.files if side.file_type in ("csv", "parquet") else ():
            unique_names(_header(f, side.file_type), os.path.basename(f))  # before the engine renames a repeat
        return aggregate(side, label, limits, dict(format=format, question_col=question_col, model_col=model_col,
                                                   score_col=score_col, cluster_col=cluster_col,
                                                   ignore_cols=tuple(ignore_cols), duplicates=duplicates,
                                                   mixed_scales=mixed_scales, human_labels=human_labels))
    except Exception as exc:  # noqa: BLE001 - the engine's own read errors become one clear line
        if isinstance(exc, EvalStatsError) or not _engine_error(exc):
            raise
        raise EvalStatsError(engine_message(str(exc), label, engine)) from None
    finally:
        if side is not None:
            side.close()


def _header(path: str, file_type: str) -> list[str]:
    """The column names of one file as written (a CSV's first record, a Parquet file's schema), before DuckDB or
    Spark make a repeated name unique (``score``, ``score_1``)."""
    if "://" in path:
        return []  # a remote file: its engine reads the header
    if file_type == "parquet":

        try:
            return [str(n).strip() for n in pq.read_schema(path).names]
        except (OSError, ValueError):
            return []  # not Parquet after all: the engine's own message names the file
    with open(path, "rb") as fh:
        raw = fh.read(1 << 20)
    if compression(raw) or utf16(raw):
        return []  # compressed or UTF-16: the engine's own reading of the names stands
    head = raw.decode("utf-8-sig", errors="replace")
    first = head.split("\n", 1)[0]
    try:
        return [h.strip() for h in next(csv.reader(io.StringIO(head), delimiter=delimiter(first, path)), [])]
    except csv.Error:
        return []


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
    "the files of 'd' do not have the same columns: column 'model' is in a.parquet but not in b.parquet; a folder or glob is read as one table, so give files with the same columns (or analyze each file on its own)"
    """

    found = re.search(r'column "([^"]*)" was read from the original file "([^"]*)", but could not be found in '
                      r'file "([^"]*)"', text)
    if found:
        column, first, other = found.groups()
        return (f"the files of '{label}' do not have the same columns: column '{column}' is in "
                f"{os.path.basename(first)} but not in {os.path.basename(other)}; a folder or glob is read as one "
                "table, so give files with the same columns (or analyze each file on its own)")
    if "schema mismatch" in text:
        return (f"the files of '{label}' do not have the same columns; a folder or glob is read as one table, so "
                "give files with the same columns (or analyze each file on its own)")
    first_line = " ".join(text.split())[:300]
    return (f"{engine} could not read '{label}' ({first_line}); check that every file is a Parquet or CSV results "
            "table, or read one file with engine='memory' for a detailed message")


def analyze_file(path: Any, *, engine: str = "duckdb", spark: Any = None, connection: Any = None,
                 reading: dict | None = None, **settings: Any) -> Any:
    """:func:`sums_of` (with the reading choices ``reading``) then
    :func:`~evalstats_core.analysis.analyze_sums` with ``settings`` (baseline, confidence, ...)."""

    if settings.pop("wild_bootstrap", False):
        raise EvalStatsError(f"the wild bootstrap {NOT_FROM_SUMS.format(engine=engine)}")
    sums = sums_of(path, engine=engine, spark=spark, connection=connection, **(reading or {}))
    return analyze_sums(sums, **settings)


def exponent_of(big: float) -> int:
    """The power of two every score is divided by when the largest is huge or tiny (as the in-memory path)."""

    return rescale_exponent(np.array([big])) if math.isfinite(big) else 0


def server_path(name: str, environ: dict | None = None) -> str:
    """The path of ``name`` (a file or folder, relative to the server's data folder) for the workbench to analyze
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
    path = os.path.realpath(os.path.join(base, name))  # every link resolved before the check, for every engine

    def outside(p: str) -> bool:
        return os.path.commonpath([base, p]) != base

    if outside(path):
        raise EvalStatsError(f"{name!r} leads outside the server's data folder; only files inside it can be read")
    if not os.path.exists(path):
        raise EvalStatsError(f"{name!r} is not in the server's data folder; check the name")
    if not os.path.isdir(path):
        _check_regular(path)  # a FIFO or a device would block the session: refused before any read
    else:
        _files(path, within=base)  # only regular files, every one resolved inside the folder
    return path


#: The reader's note when scores were written as words (``_read.read_table``).
WORDED = "words such as true/false and yes/no were read as 1/0"


def _roles(side: Any, label: str, limits: Limits, o: dict) -> tuple[dict, Any]:
    """The column roles, found by the in-memory reader on the first rows (its checks and messages too)."""

    sample = side.sample(q_sample())
    if sample.num_rows == 0:
        raise EvalStatsError(f"{label} has a header but no data rows; add one row per answer")
    given = {"question": o["question_col"], "model": o["model_col"], "score": o["score_col"],
             "cluster": o["cluster_col"]}
    names = [str(c) for c in sample.schema.names]  # SQL needs the names as the engine calls them
    header = _header(side.files[0], "csv") if side.file_type == "csv" else []
    if header and len(header) != len(names):  # e.g. DuckDB's sniffer gave up on a ragged row: one column
        engine = "spark" if isinstance(side, _Spark) else "duckdb"
        shown = ", ".join(repr(h) for h in header[:6]) + (" ..." if len(header) > 6 else "")
        raise EvalStatsError(f"the {engine} engine reads {len(names)} column(s) in {label} where its header has "
                             f"{len(header)} ({shown}); a row has more or fewer fields than the header, or the "
                             "separator is unclear: read it in memory (engine='memory') for the row at fault")
    opened = opened_arrow(sample.rename_columns(header) if header else sample, label, limits)
    if header:  # the reader sees the CSV's own names (an empty one is '(unnamed column 4)', not DuckDB's
        # 'column3' or Spark's '_c3') and names a row by its line, as the in-memory reader of a CSV does
        opened = dataclasses.replace(opened, where=lambda i: f"row {int(i) + 2} of {label}")
    else:
        header = [n.strip() for n in names]
    records = read_table(None, label, ".parquet", limits, opened=opened, format=o["format"], given=given,
                         ignore_cols=o["ignore_cols"])
    raw = dict(zip(header, names, strict=True))  # the reader strips names; SQL needs them as the engine has them
    lay = records.layout
    roles = {"format": lay["format"], "question": raw[lay["question_col"]],
             "model": raw.get(lay["model_col"] or ""), "score": raw.get(lay["score_col"] or ""),
             "cluster": raw.get(records.cluster_name or "") if records.cluster_name else None,
             "models": [raw[c] for c in lay["model_cols"]]}
    return roles, records


def _refuse_labels(records: Any, label: str, side: Any) -> None:
    """Refuse a column that the in-memory path would read as human labels (found by its name): the judge
    correction needs the rows. Left alone only when the sampled rows hold a value that is no label, which makes
    the in-memory path leave it alone too (``human_labels.NotLabels``)."""
    col = human_name(records.unused)
    if col is None:
        return
    try:
        parse_labels(records.unused[col], f"{label}, column {col!r}")
    except NotLabels:
        return
    engine = "spark" if isinstance(side, _Spark) else "duckdb"
    raise EvalStatsError(f"column {col!r} of {label} holds human labels (found by its name), and the judge correction "
                         f"by them {NOT_FROM_SUMS.format(engine=engine)}; or rename the column to analyze the "
                         "judge's scores alone")


def _unread_clusters(side: Any, source: str, roles: dict, records: Any, o: dict) -> str | None:
    """:func:`~evalstats_core._records.unread_clusters` on the file's count of clusters (one SQL count)."""
    if roles["cluster"] is None or o["cluster_col"] is not None:
        return None  # no cluster column, or one the user chose: always read
    (n,), = side.run(f"SELECT COUNT(DISTINCT c) FROM ({source}) src")
    return unread_clusters(records.cluster_name or "cluster", int(n), False)


def q_sample() -> int:
    return SAMPLE_ROWS


def aggregate(side: Any, label: str, limits: Limits, o: dict) -> Any:
    """The :class:`~evalstats_core.sums.FileSums` of the file behind ``side`` (an engine wrapper)."""

    roles, records = _roles(side, label, limits, o)
    if o.get("human_labels"):
        _refuse_labels(records, label, side)
    types = side.types()
    kinds = {c: q.kind_of(types.get(c, "VARCHAR")) for c in [roles["question"], roles["model"], roles["cluster"],
                                                             roles["score"], *roles["models"]] if c}
    d = side.dialect
    for role in ("question", "model", "cluster"):
        col = roles[role]
        odd = side.run(q.odd_float_sql(d, side.from_, col, side.order)) if col and kinds.get(col) == "float" else []
        if odd:
            raise EvalStatsError(f"{side.where(odd[0][0])} has the {role} id {float(odd[0][1])!r} in column '{col}' "
                                 "of floating-point numbers, which the SQL engines write differently from the "
                                 "in-memory reader (1e+10, 1e-05); write the ids as text or whole numbers")
    source = q.source_sql(d, side.from_, roles, kinds, side.order)
    unread = _unread_clusters(side, source, roles, records, o)
    if unread is not None:  # a cluster column nobody chose, with too few clusters: the in-memory reader's rule
        roles["cluster"] = None
        source = q.source_sql(d, side.from_, roles, kinds, side.order)
        records = dataclasses.replace(records, notes=(*(n for n in records.notes if not n.endswith(CLUSTERED_ON)),
                                                      unread))
    clustered = roles["cluster"] is not None
    wide = roles["format"] == "wide"
    integer = tuple(x for x, col in (("q", roles["question"]), ("m", roles["model"])) if kinds.get(col) == "integer")
    side.keep("es_models", q.models_sql(f"({q.rows_sql(d, source, clustered, integer)})", wide))
    rows = side.run("SELECT m, j, first, off01, off0100, top, q_miss, m_miss, fail, words, m_lo, m_hi FROM es_models")
    _check_rows(side, roles, records, rows)
    rows.sort(key=lambda row: row[1])
    names = [roles["models"][int(row[0])] if wide else str(row[0]) for row in rows]
    look_alike(names, label)
    spaces = [spaces_note("model name", roles["model"], row[10], row[11], names[i]) for i, row in enumerate(rows)
              if not wide and row[10] is not None and row[10] != row[11]][:SPACES_NOTES]  # the in-memory reader's
    if len(names) > limits.max_models:
        raise EvalStatsError(f"{label} has {len(names):,} distinct values in its model column '{roles['model']}', "
                             f"more than the limit of {limits.max_models:,}; {Limits.how_to_raise('max_models')}")
    pivot = len(names) <= q.PIVOT_MODELS
    if pivot:  # one row per question with every model's score, straight from the rows: the pairs in one pass
        if clustered:  # the clusters' labels ranked once, so the per-question grouping keeps numbers (issue 44.2)
            side.keep("es_clusters", q.clusters_sql(source))
        side.keep("es_questions", q.pivot_sql(source, "es_models", len(names), "es_clusters" if clustered else None))
        stats = side.run(q.pivot_stats_sql("es_questions", len(names)))[0]
        per_model = [stats[3 * j:3 * j + 3] for j in range(len(names))]
    else:
        side.keep("es_cells", q.cells_sql(source, clustered))
        side.keep("es_questions", q.question_sql("es_cells"))
        got = {str(m): row for m, *row in side.run("SELECT m, SUM(CASE WHEN k > 0 THEN 1 ELSE 0 END), MAX(k), "
                                                   "MAX(ABS(total / k)) FROM es_cells GROUP BY m")}
        per_model = [got[str(row[0])] for row in rows]
    warnings = [] if kinds.get(roles["question"]) == "integer" else _label_checks(side, label, records)
    found = [(row[0], row[2], n, row[3], row[4], row[5], k, big)
             for row, (n, k, big) in zip(rows, per_model, strict=True)]
    for name, row in zip(names, found, strict=True):
        if row[2] < 2:
            raise EvalStatsError(f"model '{name}' has a score for only one question in {label}; every model needs "
                                 "scores on at least two questions (remove the model or add its answers)")
    if o["duplicates"] == "error" and max(int(row[6]) for row in found) > 1:
        raise EvalStatsError(f"{label} has several rows for one question and model; with duplicates='error' each "
                             "(question, model) must appear once (or read them as resamples, the default)")
    # the layout's words; a sample's counts are not, nor whether its scores were words (decided over every row)
    notes = spaces + [n for n in records.notes if "empty cell" not in n and n != WORDED
                      and "differ only in spaces around them" not in n]  # the sample's: the whole file's above
    score_cols = [roles["score"]] if roles["score"] else roles["models"]
    if any(row[9] for row in rows) or any(types.get(c, "").upper() == "BOOLEAN" for c in score_cols):
        notes.append(WORDED)
    synthetic, codes = _scale_stand_ins(found)

    _, binary = scales(synthetic, codes, pd.Index(names, dtype="str"), label, o["mixed_scales"], notes, warnings,
                       wide=wide)
    hundred = not any(row[3] == 0 for row in found) and all(row[4] == 0 for row in found)
    scale = " / 100" if hundred and any(row[3] for row in found) else ""
    big = max((row[7] for row in found if row[7] is not None), default=0.0)
    exponent = exponent_of(float(big or 0.0) / (100.0 if scale else 1.0))
    if exponent:  # huge or tiny scores: every score divided by 2^exponent (exact), as the in-memory path does
        scale += f" / {float(2.0 ** exponent)!r}"
    questions = _questions(side, label, ranked=pivot and clustered)
    if pivot and clustered:  # numbered by rank (es_clusters): placed by an array, no dict of labels (issue 44.2)
        labels, sizes, place = _ranked_clusters(side)
        g_of: dict = {}
    else:
        clusters = side.run("SELECT c, COUNT(*), MIN(first) FROM es_questions GROUP BY c") if clustered else []
        clusters.sort(key=lambda row: row[2])
        g_of = {row[0]: i for i, row in enumerate(clusters)} if clustered else {"": 0}
        labels = [str(row[0]) for row in clusters]
        sizes = np.array([row[1] for row in clusters] if clustered else [questions], dtype=np.int64)
        place = _placer(g_of)
    m_of = {str(row[0]): j for j, row in enumerate(found)}
    if pivot:
        complete = all(int(row[2]) == questions for row in found)  # every model answered every question
        models, acc, partial = _from_pivot(side, len(names), clustered, place, len(sizes), scale, complete)
        k_rows = [(names[int(j)], k, n) for j, k, n in side.run(q.pivot_k_sql("es_questions", len(names)))]
    else:
        models = _model_rows(side, q.model_sql("es_cells", scale, clustered), m_of, g_of)
        acc = _joined_pairs(side, q.pair_sql("es_cells", scale, clustered), m_of, g_of)
        partial = side.run("SELECT COUNT(*) FROM (SELECT q FROM es_cells WHERE k > 0 GROUP BY q "
                           f"HAVING COUNT(*) < {len(names)}) x")[0][0]
        k_rows = [(names[m_of[str(m)]], k, n) for m, k, n in side.run(q.k_sql("es_cells"))]
    model_sums = []
    for j, name in enumerate(names):
        r = models[j]
        ks = sorted((int(k), int(n)) for m, k, n in k_rows if m == name)
        model_sums.append(ModelSums(name, r["count"], r["mean"], r["m2"], r["not01"],
                                    np.array([k for k, _ in ks], dtype=np.int64),
                                    np.array([n for _, n in ks], dtype=np.int64),
                                    math.ldexp(r["lo"], exponent), math.ldexp(r["hi"], exponent)))  # unscaled
    pairs = _finish_pairs(acc, names, len(sizes), model_sums)
    answered = [int(k) for _, k, n in k_rows if n]
    if answered and max(answered) > 1:  # runs averaged: the reader's note, from the whole file's k histogram
        notes.append(resamples_note(min(answered), max(answered)))
    if partial:
        notes.append(f"{partial} of {questions} questions were answered by only some models; each comparison "
                     "uses the questions both models answered")
    notes.append("scores are binary (0/1)" if binary else "scores are continuous")
    notes.append(f"computed by the {side.dialect.name} engine from sums per model, pair and cluster (the rows "
                 "never entered Python)")
    lay = records.layout
    return FileSums(
        name=label, models=tuple(names), clusters=tuple(labels) if clustered else None,
        cluster_col=records.cluster_name if clustered else None, cluster_sizes=sizes,
        score_kind="binary" if binary else "continuous", n_questions=int(questions), exponent=int(exponent),
        model_sums=tuple(model_sums), pair_sums=tuple(PairSums(**p) for p in pairs), format=lay["format"],
        question_col=lay["question_col"], model_col=lay["model_col"], score_col=lay["score_col"],
        notes=tuple(n for n in notes if n), reading=(), warnings=tuple(warnings))


def _label_checks(side: Any, label: str, records: Any) -> list[str]:
    """The in-memory validator's two checks of the question ids, over every distinct id of the file (exact
    aggregates of ``es_questions``, :func:`~evalstats_core.engine_sql.runs_sql` and
    :func:`~evalstats_core.engine_sql.scores_sql`), with its words: the warning that ids look like runs of
    another question, or the refusal of ids that look like scores (not made when they look like runs)."""

    ids, numbers, fractions = side.run(q.scores_sql("es_questions"))[0]
    if ids >= 4:  # runs_in_ids: fewer than four ids are never runs
        runs, bases, first = side.run(q.runs_sql("es_questions"))[0]
        runs, bases = int(runs or 0), int(bases or 0)
        if runs >= max(2, ids // 5) and runs <= 20 * bases:  # 'task.0'..'task.999' are ids, not runs of 'task'
            qid, base = side.run(f"SELECT q, REGEXP_EXTRACT(q, '{q.RUN_ID}', 1) FROM es_questions "
                                 f"WHERE first = {int(first)}")[0]
            return [runs_warning((str(qid), str(base), runs))]
    if ids and numbers == ids and fractions:
        first4 = [row[0] for row in side.run("SELECT q FROM es_questions ORDER BY first LIMIT 4")]
        raise EvalStatsError(scores_in_question_col(first4, int(ids), records.layout["question_col"], label))
    return []


def _scale_stand_ins(found: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """A few scores per model with the same scale verdict as all of its scores (not 0/1, not 0/100, largest
    magnitude), so the in-memory scale check gives its verdict and its words."""
    values, codes = [], []
    for j, (_, _, _, off01, off0100, top, _, _) in enumerate(found):
        top = float(top or 0.0)
        if not off01:
            pick = [top]  # 0 or 1
        elif not off0100:
            pick = [100.0]
        else:
            pick = [top] if top not in (0.0, 1.0, 100.0) else [top, 0.5]
        values += pick
        codes += [j] * len(pick)
    return np.array(values, dtype=np.float64), np.array(codes, dtype=np.int64)


def _check_rows(side: Any, roles: dict, records: Any, rows: list[tuple]) -> None:
    """Every row's checks, made over the whole file by :func:`~evalstats_core.engine_sql.rows_sql` (per model:
    the first row with no question id, no model name, a failing score or cluster), in the in-memory reader's
    words: the first failing row of the first failing check."""
    lay = records.layout
    score_col = lay["score_col"] or "a model column"
    words = {"no score": f"has no score in column '{score_col}'; every row needs a score (scores must be numbers, "
                         "true/false or 0/1): fill it in or delete the row",
             "not a number": f"has a score in column '{score_col}' that is not a number; scores must be numbers, "
                             "true/false or 0/1",
             "infinite": f"has an infinite score in column '{score_col}'; scores must be finite numbers: fix or delete "
                         "that row",
             "no cluster": f"has no cluster in column '{records.cluster_name}'; every row needs one: fill it in or "
                           "delete the row"}
    for at, what, header in ((6, "question id", lay["question_col"]), (7, "model name", lay["model_col"])):
        first = min((row[at] for row in rows if row[at] is not None), default=None)
        if header is not None and first is not None:
            raise EvalStatsError(f"{side.where(first)} has no {what} in column '{header}'; every row needs one (NA, "
                                 "N/A, NaN, null and None mean missing in every column): fill it in or delete the row")
    fail = min((row[8] for row in rows if row[8] is not None), default=None)
    if fail is not None:
        row, code = divmod(int(fail), 8)
        raise EvalStatsError(f"{side.where(row)} {words[q.FAILS[code]]}")


def _questions(side: Any, label: str, ranked: bool = False) -> int:
    """The number of questions of ``es_questions``; refuses one in two clusters (``ranked``: the pivot keeps the
    clusters' ranks, :func:`~evalstats_core.engine_sql.pivot_sql`)."""
    c, c_max = ("ci", "ci_max") if ranked else ("c", "c_max")
    n, split = side.run(f"SELECT COUNT(*), SUM(CASE WHEN {c} <> {c_max} THEN 1 ELSE 0 END) FROM es_questions")[0]
    if split:
        qid, a, b = side.run(
            "SELECT e.q, z.c, w.c FROM es_questions e JOIN es_clusters z ON e.ci = z.ci JOIN es_clusters w "
            "ON e.ci_max = w.ci WHERE e.ci <> e.ci_max ORDER BY e.first LIMIT 1" if ranked else
            "SELECT q, c, c_max FROM es_questions WHERE c <> c_max ORDER BY first LIMIT 1")[0]
        raise EvalStatsError(f"question '{qid}' is in cluster '{a}' and in cluster '{b}' in {label}; each question "
                             "must belong to one cluster")
    if n < 2:
        raise EvalStatsError(f"{label} has only {n} question; the statistics need at least two questions (and a few "
                             "hundred for trustworthy intervals)")
    return int(n)


def _empty(g: int) -> dict:
    nan, zf, zi = np.full(g, math.nan), np.zeros(g), np.zeros(g, dtype=np.int64)
    return {"count": zi.copy(), "mean": nan.copy(), "m2": zf.copy(), "not01": zi.copy()}


def _model_rows(side: Any, sql: str, m_of: dict, g_of: dict) -> list[dict]:
    g = len(g_of)
    out = [{**_empty(g), "lo": math.nan, "hi": math.nan, "n": 0} for _ in m_of]
    for m, c, n, mean, m2, not01, lo, hi in side.run(sql):
        r, i = out[m_of[str(m)]], g_of[c]
        r["count"][i], r["mean"][i], r["m2"][i], r["not01"][i] = n, mean, m2, not01
        r["lo"] = lo if r["n"] == 0 else min(r["lo"], lo)
        r["hi"] = hi if r["n"] == 0 else max(r["hi"], hi)
        r["n"] += n
    return out


_PAIR_KEYS = ("count", "mean_model", "mean_baseline", "m2_model", "m2_baseline", "m2_diff", "comoment", "only_model",
              "only_baseline", "not01", "s3_diff")
_COUNTS = ("count", "only_model", "only_baseline", "not01")


def _new_pair(g: int) -> dict:
    return {k: (np.zeros(g, np.int64) if k in _COUNTS else np.full(g, math.nan) if k.startswith("mean")
                else np.zeros(g)) for k in _PAIR_KEYS} | {"diff_min": math.nan, "diff_max": math.nan}


def _add(p: dict, x: int, vals: tuple, lo: Any, hi: Any) -> None:
    """One cluster's values into a pair's arrays (an empty cluster leaves the defaults: count 0, means NaN)."""
    if not vals[0]:
        return
    for k, v in zip(_PAIR_KEYS, vals, strict=True):
        p[k][x] = v
    p["diff_min"] = lo if math.isnan(p["diff_min"]) else min(p["diff_min"], lo)
    p["diff_max"] = hi if math.isnan(p["diff_max"]) else max(p["diff_max"], hi)


def _joined_pairs(side: Any, sql: str, m_of: dict, g_of: dict) -> dict:
    """Per pair ``(j, i)``, ``j > i``, from the self-join (:func:`~evalstats_core.engine_sql.pair_sql`), oriented
    from the engine's text order."""
    acc: dict[tuple[int, int], dict] = {}
    for ma, mb, c, n, mean_a, mean_b, m2_a, m2_b, m2_d, co, only_a, only_b, not01, d_lo, d_hi, s3 in side.run(sql):
        a, b = m_of[str(ma)], m_of[str(mb)]
        flip = a < b  # the engine's a is the later model unless its text sorts first
        key = (b, a) if flip else (a, b)
        if key not in acc:  # not setdefault(key, _new_pair(...)): that allocates G-sized arrays on every row
            acc[key] = _new_pair(len(g_of))
        p = acc[key]
        vals = (n, mean_b, mean_a, m2_b, m2_a, m2_d, co, only_b, only_a, not01, -s3) if flip else (
            n, mean_a, mean_b, m2_a, m2_b, m2_d, co, only_a, only_b, not01, s3)
        _add(p, g_of[c], vals, *((-d_hi, -d_lo) if flip else (d_lo, d_hi)))
    return acc


def _ranked_clusters(side: Any) -> tuple[list[str], np.ndarray, Any]:
    """The clusters of the pivot (``es_questions``, numbered ``ci`` by :func:`~evalstats_core.engine_sql.clusters_sql`)
    in the order they first appear: their labels, sizes, and a function placing fetched ranks at their index."""
    v = side.columns("SELECT z.c AS c, a.n AS n, a.f AS f, a.ci AS ci FROM (SELECT ci, COUNT(*) AS n, MIN(first) AS f "
                     "FROM es_questions GROUP BY ci) a JOIN es_clusters z ON a.ci = z.ci")
    order = np.argsort(v["f"], kind="stable")
    ranks = v["ci"][order].astype(np.int64)
    index = np.zeros(int(ranks.max()) + 1 if len(ranks) else 1, dtype=np.int64)
    index[ranks] = np.arange(len(ranks))
    return [str(c) for c in v["c"][order].tolist()], v["n"][order].astype(np.int64), \
        lambda g: index[np.asarray(g).astype(np.int64)]


def _placer(g_of: dict) -> Any:
    """A function placing fetched cluster labels at their index in ``g_of``."""
    return lambda g: np.fromiter((g_of[c] for c in g.tolist()), dtype=np.int64, count=len(g))


def _from_pivot(side: Any, n_models: int, clustered: bool, place: Any, g: int, scale: str,
                complete: bool = False) -> tuple[list[dict], dict, int]:
    """Every model's and pair's sums per cluster from one pass over the pivot (``es_questions``), fetched as one
    array per column, :data:`FETCH_ROWS` clusters at a time (:func:`_batches`), and placed by cluster index
    (``place``, no Python loop over clusters; ``g`` clusters)."""
    sql, _ = q.pivot_sums_sql("es_questions", n_models, clustered, scale, complete, key="ci")
    models = [{**_empty(g), "lo": math.nan, "hi": math.nan, "n": 0} for _ in range(n_models)]
    acc: dict[tuple[int, int], dict] = {(j, i): _new_pair(g) for j in range(n_models) for i in range(j)}
    partial = 0
    for v in _batches(side, sql):
        x = place(v["g"])
        for j, r in enumerate(models):
            n = v[f"n_{j}"].astype(np.int64)
            has = n > 0
            at = x[has]
            r["count"][at], r["mean"][at], r["m2"][at] = n[has], v[f"mean_{j}"][has], v[f"m2_{j}"][has]
            r["not01"][at] = v[f"not01_{j}"][has].astype(np.int64)
            if has.any():
                lo, hi = float(v[f"lo_{j}"][has].min()), float(v[f"hi_{j}"][has].max())
                r["lo"] = lo if math.isnan(r["lo"]) else min(r["lo"], lo)
                r["hi"] = hi if math.isnan(r["hi"]) else max(r["hi"], hi)
            r["n"] += int(n.sum())
        for (j, i), p in acc.items():
            k = f"{j}_{i}"
            has = v[f"count_{k}"] > 0
            at = x[has]
            for key in _PAIR_KEYS:
                p[key][at] = v[f"{key}_{k}"][has].astype(p[key].dtype)
            if has.any():
                lo, hi = float(v[f"d_lo_{k}"][has].min()), float(v[f"d_hi_{k}"][has].max())
                p["diff_min"] = lo if math.isnan(p["diff_min"]) else min(p["diff_min"], lo)
                p["diff_max"] = hi if math.isnan(p["diff_max"]) else max(p["diff_max"], hi)
        partial += int(np.nansum(v["partial"])) if len(v["partial"]) else 0
    return models, acc, partial


#: Rows of per-cluster sums fetched at once (issue 44.2): with many clusters (750,000 string ids) one fetch held
#: the whole result twice over (the engine's and numpy's) beside the arrays it is placed in.
FETCH_ROWS = 1 << 17


def _batches(side: Any, sql: str) -> Any:
    """The result of ``sql`` as dicts of one array per column, at most :data:`FETCH_ROWS` rows each
    (``side.batches``: DuckDB through a numbered temporary table, Spark one partition at a time)."""
    return side.batches(sql, FETCH_ROWS)


def _finish_pairs(acc: dict, names: list[str], g: int, model_sums: list) -> list[dict]:
    """Every pair ``j > i`` (model = names[j], baseline = names[i]) in the order of ``FileSums.pair_sums``."""
    out = []
    for j in range(len(names)):
        for i in range(j):
            p = acc.get((j, i)) or _new_pair(g)
            if p["not01"].any():  # discordant counts mean something only for 0/1 scores (as file_sums keeps them)
                p["only_model"] = np.zeros(g, np.int64)
                p["only_baseline"] = np.zeros(g, np.int64)
            shared = int(p["count"].sum())
            left_out = int(model_sums[j].count.sum() + model_sums[i].count.sum()) - 2 * shared
            s3 = p.pop("s3_diff")  # the raw sum of cubes of d: centred on each cluster's mean of d
            n = p["count"].astype(np.float64)
            mu = np.where(n > 0, p["mean_model"] - p["mean_baseline"], 0.0)
            m3 = np.where(n > 0, s3 - 3.0 * mu * p["m2_diff"] - n * mu * mu * mu, 0.0)
            out.append({"model": names[j], "baseline": names[i], **p, "n_left_out": left_out, "m3_diff": m3})
    return out
