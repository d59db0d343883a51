"""Reading results files: detect the layout, validate every cell, and reduce to question-level scores.

=====================  ============================================================================
``load``               read a CSV or Parquet results file (long or wide form) into a :class:`Dataset`
``load_many``          several files (one per model, or harness logs) read and validated once
``question_scores``    one score per (question, model): resamples averaged, K recorded, cluster codes
``Dataset``            the validated tidy frame ``question, model, score[, cluster]`` and what was inferred
``QuestionTable``      the questions x models matrix the statistics run on
``prepare``            a file read once into what an analysis and the workbench use (:class:`Prepared`)
``file_columns``       a file's header without its body (the uploader's column choices)
``extra_columns``      the columns an analysis did not use, one value per question (the guardrails)
=====================  ============================================================================

Two layouts are understood. **Long form** has one row per answer: ``question, model, score[, cluster]``.
**Wide form** has one row per question and one column per model: ``question[, cluster], <model 1>, ...``.
Column roles are found by name (case-insensitive synonyms such as ``question_id``, ``system``,
``correct``, ``passage``) unless given explicitly. Several rows for the same (model, question) are
*resamples*: :func:`question_scores` averages them into one score per question, never pooling them
(Miller 2024, arXiv:2411.00640, Sec. 3.1). Every problem a user can fix raises
:class:`~evalstats_core.errors.EvalStatsError` naming the file, the line (the header is line 1), the
column, the value and the fix. The user's file is only ever opened for reading.

This module is the public home of them all; :class:`Dataset` is defined in :mod:`evalstats_core._records` (the
validator makes it), the readers are :mod:`evalstats_core._read` and :mod:`evalstats_core.importers`.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _sniff
from ._json_records import is_records, records_table
from ._records import Dataset, Records, cell_sums, concat, scatter
from ._records import validate as _fields
from ._sniff import delimiter, is_parquet
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["Dataset", "QuestionTable", "load", "load_many", "validate", "question_scores", "Prepared", "prepare",
           "file_columns", "extra_columns"]


# ------------------------------------------------------------ load
_READINGS = {"duplicates": ("resamples", "error"), "mixed_scales": ("error", "allow")}


def _check_choices(duplicates: str, mixed_scales: str) -> None:
    for key, value in (("duplicates", duplicates), ("mixed_scales", mixed_scales)):
        if value not in _READINGS[key]:
            raise EvalStatsError(f"{key} ({value!r}) must be {_READINGS[key][0]!r} or {_READINGS[key][1]!r}")


def _read_one(data: bytes | None, label: str, ext: str, path: Any, limits: Limits, o: dict,
              opened: Any = None) -> Records:
    """Detect what ``data`` is and read it with its reader (a harness importer or the table reader); ``opened``:
    a large CSV file read from the disk (:func:`evalstats_core._read.open_path`), ``data`` None."""
    from ._read import read_small, read_table  # kept off the page's import (warm_up)

    given = {"question": o.get("question_col"), "model": o.get("model_col"), "score": o.get("score_col"),
             "cluster": o.get("cluster_col")}
    if opened is not None:
        return read_table(None, label, ext, limits, opened=opened, format=o.get("format"), given=given,
                          ignore_cols=tuple(o.get("ignore_cols") or ()), resample_col=o.get("resample_col"))

    kind = _sniff.detect(data)
    if kind is None and data[:4] == b"PK\x03\x04" and label.lower().endswith(".eval"):
        kind = "inspect_eval"  # a damaged .eval: its importer says so (not "an Excel workbook")
    if kind is not None:
        from .importers import import_records  # a harness's logs only: kept off the CSV start-up

        try:
            return import_records(data, label, kind, metric=o.get("metric"), filter=o.get("harness_filter"),
                                  model=o.get("model_name"), path=path, cluster=o.get("cluster_col"), limits=limits,
                                  results=o.get("results"))
        except EvalStatsError:
            raise
        except (RecursionError, UnicodeError, AttributeError, TypeError, KeyError, IndexError, OverflowError,
                ValueError) as exc:  # a log of a shape no importer expects: one message, never a traceback
            raise EvalStatsError(f"{label} could not be read as {_sniff.FORMATS.get(kind, 'a harness log')} "
                                 f"({type(exc).__name__}: {str(exc)[:120]}); give the file the harness wrote, "
                                 "unchanged") from None
    if is_records(data):  # JSON Lines or a JSON list of records: a table of text columns, read as a CSV is
        return _read_records(data, label, path, limits, o)
    if ext == ".bundle":  # an analysis bundle: its data (the settings are the workbench's to apply)
        from .bundle import read_bundle  # an analysis bundle only

        data, ext = read_bundle(data, limits).data, ".parquet"
    else:  # a CSV of a few MB: the stdlib's reader, no pyarrow or pandas (None: anything it does not take)
        records = read_small(data, label, ext, limits, format=o.get("format"), given=given,
                             ignore_cols=tuple(o.get("ignore_cols") or ()), resample_col=o.get("resample_col"))
        if records is not None:
            return records

    return read_table(data, label, ext, limits, format=o.get("format"), given=given,
                      ignore_cols=tuple(o.get("ignore_cols") or ()), resample_col=o.get("resample_col"))


def _read_records(data: bytes, label: str, path: Any, limits: Limits, o: dict) -> Records:
    """JSON records (:mod:`evalstats_core._json_records`) through the table reader: a CSV's roles and errors,
    its words for JSON ("keys", "record")."""
    from ._read import opened_arrow, read_table  # kept off the page's import (warm_up)
    table, notes, resample = records_table(data, label, limits, metric=o.get("metric"), model=o.get("model_name"),
                                           path=path)
    given = {"question": o.get("question_col"), "model": o.get("model_col"), "score": o.get("score_col"),
             "cluster": o.get("cluster_col")}
    try:
        records = read_table(None, label, ".parquet", limits, opened=opened_arrow(table, label, limits),
                             format=o.get("format"), given=given, ignore_cols=tuple(o.get("ignore_cols") or ()),
                             resample_col=o.get("resample_col") or resample)
    except EvalStatsError as exc:
        words = str(exc).replace("(columns: ", "(keys found: ").replace("data row ", "record ")
        raise EvalStatsError(words) from None
    return dataclasses.replace(records, file_type="jsonl", notes=(*notes, *records.notes))


def load(source: Any, *, format: str | None = None, question_col: str | None = None,
         model_col: str | None = None, score_col: str | None = None, cluster_col: str | None = None,
         name: str | None = None, limits: Limits | None = None, duplicates: str = "resamples",
         mixed_scales: str = "error", ignore_cols: tuple[str, ...] = (), runs_in_ids: bool = False,
         resample_col: str | None = None, metric: str | None = None, harness_filter: str | None = None,
         model_name: str | None = None) -> Dataset:
    """Read and validate a results file (CSV or Parquet; long or wide form).

    Parameters
    ----------
    source : str, os.PathLike, bytes, file-like, DataFrame or Arrow table
        A path, the file's bytes (e.g. an upload), an open file, or a pandas/polars DataFrame or pyarrow Table
        (read with the same column rules as a Parquet file; polars is recognised by ``to_arrow``). Parquet is recognised by the
        extension ``.parquet``/``.pq`` or its ``PAR1`` magic bytes; anything else is read as UTF-8 CSV
        (``;`` and tab separators are recognised from the header line).
    format : {"long", "wide", None}
        Long form is one row per answer (``question, model, score[, cluster]``); wide form one row per
        question and one column per model. None detects it: long when a model column is found.
    question_col, model_col, score_col, cluster_col : str, optional
        Column names that override detection by name (case-insensitive synonyms such as
        ``question_id``/``item``/``task``, ``system``/``agent``, ``correct``/``accuracy``,
        ``group``/``passage``/``category``).
    name : str, optional
        File name to use in messages (defaults to the path's base name or ``"uploaded file"``).
    limits : Limits, optional
        Budgets for bytes, scores and models (default :meth:`Limits.from_env`), checked from the file's
        metadata and header before the body is read.
    duplicates : {"resamples", "error"}
        Several rows for one (question, model): averaged as resamples (the default; rows with different
        scores are named in ``warnings``), or an error naming the rows. In a harness log the same rule applies
        to a (question, model, epoch) given on several rows (a sample logged twice), with a note naming the count.
    mixed_scales : {"error", "allow"}
        Models whose scores lie on different scales (0-1, 0-10, 0-100, larger) are an error naming them
        (a 0/1 model against a 0/100 one, or a token count read as a model); "allow" keeps them with a warning.
    ignore_cols : tuple of str
        Columns that play no role (e.g. ``n_tokens`` in a wide file, which would otherwise be a model).
    runs_in_ids : bool, default False
        Question ids such as ``1.1``, ``1.2`` are runs of question ``1`` (when ``1`` is an id too, or several
        ids share the prefix): read them as resamples of it. Without it such ids are kept as questions and
        a warning says how many look like runs, so the choice is always the user's.
    resample_col : str, optional
        A column numbering the runs (epoch, sample index): it plays no other role, and the rows it tells
        apart are resamples of their (question, model).
    metric, harness_filter, model_name : str, optional
        For a harness log (recognised by its content, see :mod:`evalstats_core.importers`): the lm-eval
        metric or Inspect scorer, the lm-eval filter, and the model's name when the log cannot say it.

    Returns
    -------
    Dataset

    Notes
    -----
    Scores may be numbers on any scale (0/1 is binary, and so is 0/100, read as 0/1; a 1-10 judge score is
    continuous), ``true``/``false`` or ``yes``/``no`` in any case; every model must use the same scale.
    ``NA``, ``N/A``, ``NaN``, ``null``, ``None`` and empty cells mean missing in every column. Several rows for one (model, question) are resamples. In
    wide form an empty cell means the model did not answer that question; in long form every row needs
    a score. Questions answered by only some models are kept (see ``notes``): paired comparisons then
    use the questions both models answered.

    Examples
    --------
    >>> ds = load(b"question,model,score\\nq1,A,1\\nq2,A,0\\nq1,B,1\\nq2,B,1\\n", name="tiny.csv")
    >>> ds.models, ds.format, ds.score_kind
    (('A', 'B'), 'long', 'binary')
    """
    from ._read import arrow_of, opened_arrow, read_table, source_of  # kept off the page's import (warm_up)
    o = {k: v for k, v in locals().items() if k not in ("source", "name", "limits")}
    _check_choices(duplicates, mixed_scales)
    limits = limits or Limits.from_env()

    table = None if isinstance(source, str | bytes | bytearray | memoryview | os.PathLike) else arrow_of(source)
    if table is not None:  # a DataFrame or an Arrow table: the same column rules as a Parquet file
        label = name or "DataFrame"
        given = {"question": question_col, "model": model_col, "score": score_col, "cluster": cluster_col}
        records = read_table(None, label, ".parquet", limits, opened=opened_arrow(table, label, limits),
                             format=format, given=given, ignore_cols=tuple(ignore_cols), resample_col=resample_col)
        return validate(records, o)

    data, label, ext, opened = source_of(source, name, limits)
    path = source if isinstance(source, str | os.PathLike) else None
    records = _read_one(data, label, ext, path, limits, o, opened)
    del data, opened  # the reader holds what it needs
    _release_arrow()
    return validate(records, o)


def _release_arrow() -> None:
    """Hand the reader's freed Arrow buffers back to the system: Arrow's allocator (mimalloc or jemalloc)
    keeps them for its own next use otherwise, a third of a 3e6-row CSV's peak (issue 25)."""
    pa = sys.modules.get("pyarrow")  # None: the small-CSV reader never imported it
    if pa is None:
        return

    pa.default_memory_pool().release_unused()


def validate(records: Records, options: dict[str, Any]) -> Dataset:
    """The one validator: a reader's records (and the reading options, as :func:`load` takes them) to a
    :class:`Dataset` (see :mod:`evalstats_core._records` for the rules)."""
    return Dataset(**_fields(records, options))


def load_many(sources: list[Any], *, metric: str | None = None, harness_filter: str | None = None,
              limits: Limits | None = None, duplicates: str = "resamples", mixed_scales: str = "error",
              model_names: Mapping[str, str] | None = None, **roles: Any) -> Dataset:
    """Several results files or harness logs (one per model, as harnesses write them) joined on the question.

    Each source (a path, bytes, or ``(name, bytes)``) is read as :func:`load` would (harness logs by their
    importer; results files with the column ``roles``, e.g. ``question_col=``); a (model, question) may
    appear in one file only. Questions answered by only some models are kept and reported (each comparison
    then uses the questions both answered). The files' records are joined and validated once.

    Parameters
    ----------
    model_names : mapping of str to str, optional
        Source name (a path as given, its base name, or an upload's name) -> the model name for that file, for
        harness logs that do not say it or say it wrongly (``NAME=PATH`` on the command line).

    Examples
    --------
    >>> a = b"question,model,score\\nq1,A,1\\nq2,A,0\\nq3,A,1\\n"
    >>> b = b"question,model,score\\nq1,B,1\\nq2,B,1\\n"
    >>> ds = load_many([a, b])
    >>> ds.models, ds.n_questions
    (('A', 'B'), 3)
    """
    from ._read import source_of  # kept off the page's import (warm_up)
    if not sources:
        raise EvalStatsError("no files given; name one results file or harness log per model")
    _check_choices(duplicates, mixed_scales)
    o = {"metric": metric, "harness_filter": harness_filter, "duplicates": duplicates,
         "mixed_scales": mixed_scales, **roles}
    limits = limits or Limits.from_env()
    given_names = dict(model_names or {})
    if len(sources) == 1 and not given_names:
        one = sources[0]
        name, one = (str(one[0]), one[1]) if isinstance(one, tuple) else (None, one)
        return load(one, name=name, limits=limits, **o)
    from .importers.lm_eval import name_runs, pair_results  # lm-eval's samples only

    sources, named, docs = pair_results(sources)

    parts = []
    for k, source in enumerate(sources):
        given, source = (str(source[0]), source[1]) if isinstance(source, tuple) else (
            f"file {k + 1}" if isinstance(source, bytes) else None, source)
        data, label, ext, opened = source_of(source, given, limits)
        path = source if isinstance(source, str | os.PathLike) else None
        key = next((x for x in (given, path and os.fspath(path), label) if x in given_names), None)
        model = given_names.pop(key) if key is not None else named.get(label)
        parts.append(_read_one(data, label, ext, path, limits, {**o, "model_name": model, "results": docs.get(label)},
                               opened))
    if given_names:
        raise EvalStatsError(f"model names were given for {', '.join(map(repr, given_names))}, which is not among "
                             "the files; give NAME=PATH with the path as written")
    if not parts:
        raise EvalStatsError("only lm-eval results files were given; add the samples_<task>_<date>.jsonl files")
    parts = name_runs(parts)
    names = [p.name for p in parts]
    label = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more file{'s' if len(names) > 2 else ''}"
    return validate(concat(parts, label) if len(parts) > 1 else parts[0], {**o, "model_name": None})


# ---------------------------------------------------------------------------------------------- prepare
@dataclass(frozen=True, slots=True)
class Prepared:
    """A loaded file ready for analysis.

    Attributes
    ----------
    dataset : Dataset
        From :func:`evalstats_core.data.load`.
    table : QuestionTable
        Its question-level scores (resamples averaged).
    extra_clusters : dict of str -> numpy.ndarray
        Unused cluster-like columns (see :func:`extra_columns`), for the guardrails.
    text_columns : dict of str -> numpy.ndarray
        Unused text columns, one value per question (see :func:`extra_columns`), for the disagreements.
    """

    dataset: Dataset
    table: QuestionTable
    extra_clusters: dict
    text_columns: dict = None  # type: ignore[assignment]


def prepare(source: Any, name: str | None = None, **options: Any) -> Prepared:
    """Read ``source`` once and reduce it to question level, with the columns the analysis did not use.

    ``source`` is what :func:`load` takes (a path, bytes or an open file), or a list of them (each a path,
    bytes or ``(name, bytes)``) for :func:`load_many`; ``options`` are their keyword arguments (column
    roles, ``metric``, ``harness_filter``, ``ignore_cols``...). The unused columns come from the same parse
    (``Dataset.extra``), so the file is read once. Every problem with the file raises
    :class:`~evalstats_core.errors.EvalStatsError` with the loader's message.

    Examples
    --------
    >>> p = prepare(b"question,model,score,batch\\nq1,A,1,x\\nq2,A,0,x\\nq3,A,1,y\\nq4,A,1,y\\n", "t.csv")
    >>> p.table.models, sorted(p.extra_clusters)
    (('A',), ['batch'])
    """
    if isinstance(source, list):
        dataset = load_many(source, **options)
    else:
        if "ignore_cols" in options:
            options["ignore_cols"] = tuple(options["ignore_cols"])
        dataset = load(source, name=name, **options)
    table = question_scores(dataset)
    clusters, texts = extra_columns(dataset, table)  # the unused columns, from the same parse
    return Prepared(dataset, table, clusters, texts)


# ------------------------------------------------------------ question-level scores
@dataclass(frozen=True, slots=True)
class QuestionTable:
    """Question-level scores: one number per (question, model), the input of every statistic.

    Attributes
    ----------
    name : str
        The file name (for reports).
    models : tuple of str
        Column order of the matrices.
    questions : numpy.ndarray, shape (n_questions,)
        Question labels (text: fixed-width ``str_`` when all are short, else object), in order of first appearance.
    scores : numpy.ndarray, shape (n_questions, n_models)
        Mean of each (question, model) cell's answers; NaN where the model did not answer.
    k : numpy.ndarray of int64, shape (n_questions, n_models)
        Answers averaged in each cell (0 where not answered).
    answered : numpy.ndarray of bool, shape (n_questions, n_models)
        True where the model answered the question.
    cluster_codes : numpy.ndarray of int64, shape (n_questions,), or None
        Cluster of each question as an integer code ``0 .. n_clusters - 1``.
    clusters : numpy.ndarray, shape (n_clusters,), or None
        Cluster labels, indexed by code.
    n_clusters : int or None
        Number of clusters.
    cluster_col : str or None
        The file's cluster column.
    score_kind : str
        ``"binary"`` or ``"continuous"`` for the raw answers (averaged resamples may be fractional).
    format, question_col, model_col, score_col : str or None
        How the file was read (``Dataset``'s roles), so an analysis of the table reports them.
    notes : tuple of str
        The loader's notes on the file (``Dataset.notes``).
    reading : tuple of str
        Command-line options that repeat how the file was read (``Dataset.reading``).
    """

    name: str
    models: tuple[str, ...]
    questions: np.ndarray
    scores: np.ndarray
    k: np.ndarray
    answered: np.ndarray
    cluster_codes: np.ndarray | None
    clusters: np.ndarray | None
    n_clusters: int | None
    cluster_col: str | None
    score_kind: str
    format: str | None = None
    question_col: str | None = None
    model_col: str | None = None
    score_col: str | None = None
    notes: tuple[str, ...] = ()
    reading: tuple[str, ...] = ()


def question_scores(dataset: Dataset) -> QuestionTable:
    """Average each (question, model) cell's answers into one score; compute cluster codes once.

    Parameters
    ----------
    dataset : Dataset
        From :func:`load`.

    Returns
    -------
    QuestionTable
        ``scores`` has shape (n_questions, n_models), NaN where a model did not answer.

    Notes
    -----
    With K answers to question i, the question's score is their mean, s_i = (1/K) sum_k s_ik; the
    standard error is then computed across the n question-level means, never across the n*K answers,
    which are correlated within a question (Miller 2024, arXiv:2411.00640, Sec. 3.1). Vectorised: the
    answers are added into the flat cell index ``question * n_models + model`` a chunk of rows at a time
    (in row order, as ``np.bincount`` adds them), so no temporary the size of the file is made (issue 25).
    """

    if not isinstance(dataset, Dataset):
        raise EvalStatsError(f"question_scores needs a Dataset from load(), not a {type(dataset).__name__}")
    tidy = dataset.tidy  # codes and labels: the frame (pandas) is never built here
    q, q_labels = tidy["question"]
    questions = _labels(q_labels)
    n_q, n_m = questions.size, len(dataset.models)
    k, scores = cell_sums(q, tidy["model"][0], np.asarray(tidy["score"], dtype=np.float64), n_q, n_m)
    answered = k > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        scores /= k  # s_i = mean of the K answers (in place)
    scores[~answered] = np.nan
    codes = clusters = n_clusters = None
    if "cluster" in tidy:
        c_codes, c_labels = tidy["cluster"]
        codes = scatter(np.empty(n_q, dtype=np.int64), q, c_codes)
        clusters = np.asarray(c_labels, dtype=object)
        n_clusters = int(clusters.size)
    del q
    for arr in (questions, scores, k, answered, codes, clusters):
        if arr is not None:
            arr.flags.writeable = False
    return QuestionTable(
        name=dataset.name, models=dataset.models, questions=questions, scores=scores, k=k,
        answered=answered, cluster_codes=codes, clusters=clusters, n_clusters=n_clusters,
        cluster_col=dataset.cluster_col, score_kind=dataset.score_kind, format=dataset.format,
        question_col=dataset.question_col, model_col=dataset.model_col, score_col=dataset.score_col,
        notes=tuple(dataset.notes), reading=tuple(dataset.reading),
    )


def _labels(index: Any, chunk: int = 1 << 16) -> np.ndarray:
    """Question labels (a pandas Index, or the small-CSV reader's object array) as a numpy text array:
    fixed-width unicode when every label is short (no Python object per label, issue 25), else object; filled
    a chunk at a time so no n-sized object array exists even briefly."""
    if isinstance(index, np.ndarray):
        width = max(map(len, index), default=1)
    else:
        width = int(index.str.len().max()) if len(index) else 1
    out = np.empty(len(index), dtype=f"U{max(width, 1)}" if width <= _SHORT_LABEL else object)
    for start in range(0, len(index), chunk):
        out[start:start + chunk] = np.asarray(index[start:start + chunk], dtype=object)
    return out


_SHORT_LABEL = 16  # characters: 4 bytes each in a "U" array, less than a str object (~50 B) and its pointer


# ------------------------------------------------------------ a file's header, and the columns an analysis did not use
def file_columns(data: bytes, name: str) -> tuple[str, ...]:
    """Column names of a CSV or Parquet file, or the keys of JSON records (empty when they cannot be read).

    Only the header is read (the Parquet schema, or the first CSV line), so this is cheap for any
    file size; JSON records are read whole (within the byte budget), as their keys are what the loader's
    table has (FastChat's and HELM's given their roles). The loader gives the precise error for an
    unreadable file.
    """
    try:
        if is_records(data):
            return tuple(records_table(data, name, Limits.from_env())[0].column_names)
        if is_parquet(data, name):
            import pyarrow.parquet as pq  # heavy: a Parquet file only

            return tuple(str(c).strip() for c in pq.read_schema(io.BytesIO(data)).names)
        head = data[: 1 << 16]
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        text = head.decode("utf-8", errors="strict" if len(data) <= len(head) else "ignore").lstrip("\r\n")
        first = text.split("\n", 1)[0]
        row = next(csv.reader(io.StringIO(first), delimiter=delimiter(first, name)), [])
        return tuple(h.strip() for h in row)
    except Exception:  # noqa: BLE001 - a header we cannot read: the loader reports why
        return ()


#: At most this many text columns (a prompt, a reference answer) are kept for the disagreement list.
TEXT_COLUMNS = 3


def extra_columns(dataset: Any, table: Any) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Columns the analysis did not use, in one read: cluster-like ones, and text ones (e.g. the prompt).

    The columns come from the loader's one parse of the file (``Dataset.unused``, one value per row of
    ``Dataset.frame``); nothing is read again. ``dataset`` is a ``Dataset`` and ``table`` its ``QuestionTable``
    (duck-typed: this module imports nothing of :mod:`evalstats_core.data`, so the two never import each other).
    Cluster-like: one integer label per question (below). Text: up to :data:`TEXT_COLUMNS` other columns,
    each question's first value (object array, shape ``(table.questions.size,)``), for the list of
    questions two models disagree on.


    A column qualifies when it has a value on every row, the same value on every row of a question,
    and between 2 and ``n_questions / 2`` distinct values (so that some questions share a group).

    Returns
    -------
    dict of column name -> numpy.ndarray of int64, shape (table.questions.size,)
    """
    used = {dataset.question_col, dataset.model_col, dataset.score_col, dataset.cluster_col, *dataset.model_cols}
    extra = getattr(dataset, "unused", None) or {}  # the loader kept them from its one parse: no second read
    cand = [c for c in extra if c and c not in used]
    if not cand:
        return {}, {}
    import pandas as pd  # lazy: the command line loads data.py (and this module) without pandas

    questions = dataset.frame["question"].astype(str).to_numpy(dtype=object)
    cols = {dataset.question_col: questions, **{c: extra[c] for c in cand}}
    n_q = table.questions.size
    q_index = pd.Index(table.questions.astype(str)).get_indexer(cols[dataset.question_col].astype(str))
    keep = q_index >= 0  # wide-form rows without any score were dropped by the loader
    q_index = q_index[keep]
    out: dict[str, np.ndarray] = {}
    texts: dict[str, np.ndarray] = {}
    first = np.full(n_q, -1, dtype=np.int64)
    first[q_index[::-1]] = np.arange(q_index.size)[::-1]  # each question's first row in the file
    for c in cand:
        values = cols[c][keep]
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        if len(texts) < TEXT_COLUMNS and len(uniques) > n_q // 2:  # varies like an id: a text column
            texts[c] = np.where(first >= 0, values[np.maximum(first, 0)], None).astype(object)
        if (codes < 0).any() or not 2 <= len(uniques) <= n_q // 2:
            continue
        per_q = np.full(n_q, -1, dtype=np.int64)
        per_q[q_index] = codes
        if (per_q < 0).any() or not np.array_equal(per_q[q_index], codes):
            continue  # a question without a value, or a question in two groups
        out[c] = per_q
    return out, texts
