"""Reading results files: detect the layout, validate every cell, and reduce to question-level scores.

=====================  ============================================================================
``load``               read a CSV or Parquet results file (long or wide form) into a :class:`Dataset`
``question_scores``    one score per (question, model): resamples averaged, K recorded, cluster codes
``Dataset``            the validated tidy frame ``question, model, score[, cluster]`` and what was inferred
``QuestionTable``      the questions x models matrix the statistics run on
=====================  ============================================================================

Two layouts are understood. **Long form** has one row per answer: ``question, model, score[, cluster]``.
**Wide form** has one row per question and one column per model: ``question[, cluster], <model 1>, ...``.
Column roles are found by name (case-insensitive synonyms such as ``question_id``, ``system``,
``correct``, ``passage``) unless given explicitly. Several rows for the same (model, question) are
*resamples*: :func:`question_scores` averages them into one score per question, never pooling them
(Miller 2024, arXiv:2411.00640, Sec. 3.1). Every problem a user can fix raises
:class:`~evalstats_core.errors.EvalStatsError` naming the file, the line (the header is line 1), the
column, the value and the fix. The user's file is only ever opened for reading.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._columns import (
    categorical,
    check_name,
    find_roles,
    label_codes,
    question_clusters,
    score_values,
    wide_cells,
)
from ._extra import extra_columns, file_columns
from ._read import open_file, read_source
from .errors import EvalStatsError
from .limits import Limits, estimate

__all__ = ["Dataset", "QuestionTable", "load", "question_scores", "Prepared", "prepare", "file_columns",
           "extra_columns"]


@dataclass(frozen=True, slots=True)
class Dataset:
    """A validated results file in tidy form.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per answer: ``question`` and ``model`` (categorical, labels as text), ``score`` (float64,
        finite), and ``cluster`` (categorical) when a cluster column is used.
    name : str
        The file name used in messages and reports.
    format : str
        ``"long"`` or ``"wide"``: the layout that was read.
    file_type : str
        ``"csv"`` or ``"parquet"``.
    question_col, model_col, score_col, cluster_col : str or None
        The columns of the file that played each role (``model_col``/``score_col`` are None in wide form).
    model_cols : tuple of str
        Wide form: the columns read as models (empty in long form).
    models : tuple of str
        Model names in order of first appearance.
    score_kind : str
        ``"binary"`` when every score is 0 or 1, else ``"continuous"``.
    n_rows, n_questions : int
        Answers read; distinct questions.
    k_min, k_max, k_typical : int
        Answers per (model, question) that was answered: smallest, largest and most common. K > 1 means
        resamples, which :func:`question_scores` averages.
    n_clusters : int or None
        Distinct clusters (None without a cluster column).
    cluster_size_min, cluster_size_max : int or None
        Questions per cluster, smallest and largest.
    cluster_size_mean : float or None
        Mean questions per cluster.
    reading : tuple of str
        Command-line options that repeat the reading choices (``--ignore-col``, ``--runs-in-ids``, ...).
    extra : dict or None
        The file's other columns from the same parse (at most 20): ``{"__question__": question id of each
        row, column: its text on each row}``; None for harness logs (their importers keep no others).
    notes : tuple of str
        What was inferred (layout, columns, coding of true/false, partial coverage), in plain words.
    warnings : tuple of str
        What the reader should check (repeated rows with different scores, mixed scales allowed).
    """

    frame: pd.DataFrame
    name: str
    format: str
    file_type: str
    question_col: str
    model_col: str | None
    score_col: str | None
    cluster_col: str | None
    model_cols: tuple[str, ...]
    models: tuple[str, ...]
    score_kind: str
    n_rows: int
    n_questions: int
    k_min: int
    k_max: int
    k_typical: int
    n_clusters: int | None
    cluster_size_min: int | None
    cluster_size_max: int | None
    cluster_size_mean: float | None
    notes: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    reading: tuple[str, ...] = ()
    extra: dict | None = None


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
        Question labels (text), in order of first appearance.
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



# ------------------------------------------------------------------------------------------------- load
def load(source: Any, *, format: str | None = None, question_col: str | None = None,
         model_col: str | None = None, score_col: str | None = None, cluster_col: str | None = None,
         name: str | None = None, limits: Limits | None = None, duplicates: str = "resamples",
         mixed_scales: str = "error", ignore_cols: tuple[str, ...] = (), runs_in_ids: bool = False,
         resample_col: str | None = None, metric: str | None = None, harness_filter: str | None = None,
         model_name: str | None = None) -> Dataset:
    """Read and validate a results file (CSV or Parquet; long or wide form).

    Parameters
    ----------
    source : str, os.PathLike, bytes or file-like
        A path, the file's bytes (e.g. an upload), or an open file. Parquet is recognised by the
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
        scores are named in ``warnings``), or an error naming the rows.
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
    if duplicates not in ("resamples", "error"):
        raise EvalStatsError(f"duplicates ({duplicates!r}) must be 'resamples' or 'error'")
    if mixed_scales not in ("error", "allow"):
        raise EvalStatsError(f"mixed_scales ({mixed_scales!r}) must be 'error' or 'allow'")
    limits = limits or Limits.from_env()
    data, label, ext = read_source(source, name, limits)
    from .importers import detect

    kind = detect(data)
    if kind is not None:  # a harness log: its own importer, then the same validation as any results file
        path = source if isinstance(source, str | os.PathLike) else None
        return _load_frames([_import(data, label, path, metric, harness_filter, model_name, cluster_col)], label,
                            limits=limits, duplicates=duplicates, mixed_scales=mixed_scales,
                            reading=_harness_flags(metric, harness_filter, model_name, cluster_col), file_type=kind)
    if not data or data.isspace():
        raise EvalStatsError(f"{label} is empty; it needs a header line and one line per answer")
    opened = open_file(data, label, ext, limits)
    del data  # the parser holds what it needs
    header = opened.header
    given = {"question": question_col, "model": model_col, "score": score_col, "cluster": cluster_col}
    if resample_col is not None:
        if resample_col not in header:
            raise EvalStatsError(f"resample column {resample_col!r} is not a column of {label}; its columns are: "
                                 f"{', '.join(repr(h) for h in header[:20])}")
        ignore_cols = (*tuple(ignore_cols), resample_col)
    roles = find_roles(header, format, given, label, tuple(ignore_cols))
    if roles["format"] == "wide":
        _check_wide_budget(header, roles, opened.n_rows, label, limits)
    text_cols = [roles[r] for r in ("question", "model", "cluster") if roles.get(r) is not None]
    used = [roles[r] for r in ("question", "model", "score", "cluster") if roles.get(r) is not None]
    # the other columns (a prompt, a group the user did not name) come from the same parse, as text
    extra = [i for i in range(len(header))
             if i not in used and i not in roles["models"] and header[i] != resample_col][:_EXTRA_COLUMNS]
    table = opened.parse(text_cols + extra, used + list(roles["models"]) + extra)
    if table.num_rows == 0:
        raise EvalStatsError(f"{label} has a header but no data rows; add one row per answer")
    where, notes = opened.where, []
    qi, ci = roles["question"], roles["cluster"]
    q_codes, q_labels = label_codes(table.column(qi), "question id", header[qi], where)
    extra_cols = _extra_text(table, extra, header, np.asarray(q_labels, dtype=object)[q_codes])
    c_codes, c_labels = label_codes(table.column(ci), "cluster", header[ci], where) if ci is not None else (None, None)
    if roles["format"] == "long":
        mi, si = roles["model"], roles["score"]
        m_codes, m_labels = label_codes(table.column(mi), "model name", header[mi], where, strict=True)
        if m_labels.size > limits.max_models:
            raise EvalStatsError(
                f"{label} has {m_labels.size:,} distinct values in its model column '{header[mi]}', more than the "
                f"limit of {limits.max_models:,}; is '{header[mi]}' really the model column (--model-col)? If it "
                f"is, analyse fewer models at a time, or {Limits.how_to_raise('max_models')}")
        score, worded = score_values(table.column(si), header[si], where, missing_ok=False)
        rows = None
        notes.append(f"long form: question column '{header[qi]}', model column '{header[mi]}', "
                     f"score column '{header[si]}'")
    else:
        rows, m_codes, m_labels, score, worded = wide_cells(table, roles, header, where, label, notes)
        q_codes = q_codes[rows]
        c_codes = None if c_codes is None else c_codes[rows]
        used = np.unique(q_codes)
        if used.size < q_labels.size:  # rows where no model has a score
            remap = np.full(q_labels.size, -1, dtype=np.int64)
            remap[used] = np.arange(used.size)
            q_codes, q_labels = remap[q_codes], q_labels[used]
    runs = _runs_in_ids(q_labels)
    _question_col_looks_like_scores(q_labels, header[qi], label, runs is not None)
    if runs is not None and runs_in_ids:
        stripped, n_runs = runs
        new_codes, q_labels = pd.factorize(np.asarray(stripped, dtype=object)[q_codes])
        q_codes, q_labels = new_codes.astype(np.int64), pd.Index(q_labels)
        notes.append(f"question ids such as '{n_runs[0]}' were read as runs of their question ('{n_runs[1]}'): "
                     f"{n_runs[2]:,} ids became runs of {q_labels.size:,} questions")
    elif runs is not None:
        warns_runs = (f"{runs[1][2]:,} question ids look like runs of another question (e.g. '{runs[1][0]}' of "
                      f"'{runs[1][1]}'); they are counted as separate questions, which makes the standard errors too "
                      "small if they are repeated runs: read them as runs with runs_in_ids=True (--runs-in-ids, or "
                      "the workbench's checkbox)")
    if resample_col is not None:
        notes.append(f"resample column '{resample_col}': rows it tells apart are runs of the same question")
    if ci is not None:
        notes.append(f"cluster column '{header[ci]}': standard errors are clustered on it")
    if roles["ignored"]:
        notes.append(f"ignored column(s): {', '.join(roles['ignored'])}")
    if worded:
        notes.append("words such as true/false and yes/no were read as 1/0")

    def row_where(i: int) -> str:
        return where(int(i) if rows is None else int(rows[i]))

    n_q, n_m = q_labels.size, m_labels.size
    if n_q < 2:
        raise EvalStatsError(f"{label} has only {n_q} question ('{q_labels[0]}'); the statistics need at least two "
                             "questions (and a few hundred for trustworthy intervals)")
    counts = np.bincount(q_codes * n_m + m_codes, minlength=n_q * n_m).reshape(n_q, n_m)  # (n_q, n_m)
    per_model = (counts > 0).sum(axis=0)
    for j in np.flatnonzero(per_model < 2):
        raise EvalStatsError(f"model '{m_labels[j]}' has a score for only one question in {label}; every model "
                             "needs scores on at least two questions (remove the model or add its answers)")
    partial = int(((counts > 0).sum(axis=1) < n_m).sum())
    if partial:
        notes.append(f"{partial} of {n_q} questions were answered by only some models; each comparison uses "
                     "the questions both models answered")
    cells = counts[counts > 0]
    k_typical = int(np.bincount(cells).argmax())
    warnings: list[str] = []
    if runs is not None and not runs_in_ids:
        warnings.append(warns_runs)
    if cells.max() > 1 and not runs_in_ids and resample_col is None:
        _repeated(q_codes, m_codes, score, counts, q_labels, m_labels, row_where, duplicates, label, warnings)
        notes.append(f"{int(cells.min())}-{int(cells.max())} answers per question and model (resamples); they "
                     "are averaged into one score per question, never pooled")
    score, binary = _scales(score, m_codes, m_labels, label, mixed_scales, notes, warnings,
                            wide=roles["format"] == "wide")
    frame = {"question": categorical(q_codes, q_labels), "model": categorical(m_codes, m_labels),
             "score": score}
    n_clusters = size_min = size_max = size_mean = None
    if ci is not None:
        frame["cluster"], sizes = question_clusters(q_codes, q_labels, c_codes, c_labels, row_where)
        n_clusters, size_min, size_max = int(sizes.size), int(sizes.min()), int(sizes.max())
        size_mean = float(n_q / n_clusters)
    notes.append("scores are binary (0/1)" if binary else "scores are continuous")
    return Dataset(
        frame=pd.DataFrame(frame), name=label, format=roles["format"], file_type=opened.file_type,
        question_col=header[qi], model_col=None if roles["model"] is None else header[roles["model"]],
        score_col=None if roles["score"] is None else header[roles["score"]],
        cluster_col=None if ci is None else header[ci], model_cols=tuple(header[k] for k in roles["models"]),
        models=tuple(str(m) for m in m_labels), score_kind="binary" if binary else "continuous",
        n_rows=int(score.size), n_questions=int(n_q), k_min=int(cells.min()), k_max=int(cells.max()),
        k_typical=k_typical, n_clusters=n_clusters, cluster_size_min=size_min, cluster_size_max=size_max,
        cluster_size_mean=size_mean, notes=tuple(notes), warnings=tuple(warnings),
        reading=_reading_flags(duplicates, mixed_scales, ignore_cols, runs_in_ids, resample_col),
        extra=extra_cols,
    )


#: At most this many unused columns are kept (as text) from the parse, for the guardrails and the disagreements.
_EXTRA_COLUMNS = 20


def _extra_text(table: Any, extra: list[int], header: list[str], row_questions: np.ndarray) -> dict:
    """The unused columns as text per file row, with each row's question id (see ``Dataset.extra``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out: dict[str, np.ndarray] = {"__question__": row_questions}
    for i in extra:
        col = pc.utf8_trim_whitespace(pc.cast(table.column(i), pa.string()))
        out[header[i]] = col.to_numpy(zero_copy_only=False)
    return out


def _import(data: bytes, label: str, path: Any, metric: str | None, harness_filter: str | None,
            model_name: str | None, cluster: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    from .importers import import_log

    return import_log(data, label, metric=metric, filter=harness_filter, model=model_name, path=path,
                      cluster=cluster)


def _harness_flags(metric: str | None, harness_filter: str | None, model_name: str | None,
                   cluster: str | None = None) -> tuple[str, ...]:
    import shlex

    flags = [f"--metric {shlex.quote(metric)}"] if metric else []
    flags += [f"--cluster-col {shlex.quote(cluster)}"] if cluster else []
    flags += [f"--filter {shlex.quote(harness_filter)}"] if harness_filter else []
    flags += [f"--model-name {shlex.quote(model_name)}"] if model_name else []
    return tuple(flags)


def _load_frames(parts: list[tuple[pd.DataFrame, list[str]]], label: str, *, limits: Limits | None,
                 duplicates: str, mixed_scales: str, reading: tuple[str, ...] = (), file_type: str = "joined",
                 names: list[str] | None = None) -> Dataset:
    """Tidy frames (``question, model, score, epoch[, cluster]``), one per file, joined on the question and
    read by the ordinary path (Parquet in memory): the same checks and notes as any results file."""
    import dataclasses
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    notes: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    for k, (frame, more) in enumerate(parts):
        notes += more
        where = names[k] if names else label
        for q, m in set(zip(frame["question"].astype(str), frame["model"].astype(str), strict=True)):
            if (q, m) in seen and seen[q, m] != where:  # the same answers twice: a file given twice, or a clash
                raise EvalStatsError(f"model {m!r} answers question {q!r} in both {seen[q, m]} and {where}; give "
                                     "each (model, question) in one file only (e.g. one file per model, or per task)")
            seen[q, m] = where
    with_cluster = [("cluster" in f.columns) for f, _ in parts]
    frames = [f for f, _ in parts]
    if any(with_cluster) and not all(with_cluster):
        frames = [f.drop(columns=["cluster"], errors="ignore") for f in frames]
        notes.append("only some files name a cluster for each question, so the analysis is not clustered")
    named = {f.attrs.get("cluster_name") for f in frames}
    joined = pd.concat(frames, ignore_index=True)
    cluster = "cluster"
    if len(named) == 1 and None not in named and "cluster" in joined.columns:  # e.g. Inspect's 'subject' key
        wanted = str(next(iter(named)))
        if wanted not in joined.columns and wanted not in ("question", "model", "score", "epoch"):
            joined, cluster = joined.rename(columns={"cluster": wanted}), wanted
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(joined.astype({"question": str, "model": str}), preserve_index=False), buf)
    ds = load(buf.getvalue(), name=label, format="long", question_col="question", model_col="model",
              score_col="score", cluster_col=cluster if cluster in joined.columns else None,
              resample_col="epoch", limits=limits, duplicates=duplicates, mixed_scales=mixed_scales)
    kept = [n for n in ds.notes if not n.startswith("resample column")]
    # format names the importer (or "joined"): the columns above are ours, so no layout or column flags repeat it
    return dataclasses.replace(ds, notes=tuple(notes + kept), file_type=file_type, format=file_type,
                               reading=tuple(reading))


def _pair_lm_eval_results(sources: list[Any]) -> tuple[list[Any], dict[str, str]]:
    """Uploaded lm-eval ``results_<date>.json`` files name the model of the samples files of the same run
    (the same date): they are taken out of the list and their model names kept for those files."""
    from .importers import detect
    from .importers.lm_eval import date_of, model_of_results

    models_by_name: dict[str, str] = {}
    by_date: dict[str, list[str]] = {}
    rest = []
    for source in sources:
        if isinstance(source, tuple) and detect(source[1]) == "lm_eval_results":
            date, model = date_of(source[0]), model_of_results(source[1])
            if date and model:
                by_date.setdefault(date, []).append(model)
            continue
        rest.append(source)
    for source in rest:
        if isinstance(source, tuple):
            date = date_of(source[0])
            if date in by_date and len(set(by_date[date])) == 1:  # one model ran on that date: unambiguous
                models_by_name[str(source[0])] = by_date[date][0]
    return rest, models_by_name


def load_many(sources: list[Any], *, metric: str | None = None, harness_filter: str | None = None,
              limits: Limits | None = None, duplicates: str = "resamples", mixed_scales: str = "error",
              **roles: Any) -> Dataset:
    """Several results files or harness logs (one per model, as harnesses write them) joined on the question.

    Each source (a path, bytes, or ``(name, bytes)``) is read as :func:`load` would (harness logs by their
    importer; results files with the column ``roles``, e.g. ``question_col=``); a (model, question) may
    appear in one file only. Questions answered by only some
    models are kept and reported (each comparison then uses the questions both answered), never paired.

    Examples
    --------
    >>> a = b"question,model,score\\nq1,A,1\\nq2,A,0\\nq3,A,1\\n"
    >>> b = b"question,model,score\\nq1,B,1\\nq2,B,1\\n"
    >>> ds = load_many([a, b])
    >>> ds.models, ds.n_questions
    (('A', 'B'), 3)
    """
    from .importers import detect

    if not sources:
        raise EvalStatsError("no files given; name one results file or harness log per model")
    if len(sources) == 1:
        one = sources[0]
        name, one = (str(one[0]), one[1]) if isinstance(one, tuple) else (None, one)
        return load(one, name=name, metric=metric, harness_filter=harness_filter, limits=limits,
                    duplicates=duplicates, mixed_scales=mixed_scales, **roles)
    limits = limits or Limits.from_env()
    parts, names = [], []
    sources, models_by_name = _pair_lm_eval_results(sources)
    kinds: list[str | None] = []
    for k, source in enumerate(sources):
        given = None if not isinstance(source, bytes) else f"file {k + 1}"
        if isinstance(source, tuple):  # (name, bytes): an upload keeps its file name
            given, source = str(source[0]), source[1]
        data, label, _ = read_source(source, given, limits)
        names.append(label)
        kinds.append(detect(data))
        if kinds[-1] is not None:
            path = source if isinstance(source, str | os.PathLike) else None
            parts.append(_import(data, label, path, metric, harness_filter, models_by_name.get(label),
                                 roles.get("cluster_col")))
        else:
            ds = load(data, name=label, limits=limits, duplicates=duplicates, mixed_scales=mixed_scales, **roles)
            frame = ds.frame.astype({"question": str, "model": str}).copy()
            frame["epoch"] = frame.groupby(["question", "model"], sort=False).cumcount()
            parts.append((frame, [f"{label}: {n}" for n in ds.notes[:1]]))
    if not parts:
        raise EvalStatsError("only lm-eval results files were given; add the samples_<task>_<date>.jsonl files")
    label = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more file{'s' if len(names) > 2 else ''}"
    return _load_frames(parts, label, limits=limits, duplicates=duplicates, mixed_scales=mixed_scales,
                        reading=_harness_flags(metric, harness_filter, None, roles.get("cluster_col")), names=names,
                        file_type=kinds[0] if len(set(kinds)) == 1 and kinds[0] else "joined")


def _reading_flags(duplicates: str, mixed_scales: str, ignore_cols: tuple, runs_in_ids: bool,
                   resample_col: str | None) -> tuple[str, ...]:
    """The command-line options that repeat these reading choices (for ``settings.command``)."""
    import shlex

    flags = []
    if duplicates != "resamples":
        flags.append(f"--duplicates {duplicates}")
    if mixed_scales != "error":
        flags.append(f"--mixed-scales {mixed_scales}")
    flags += [f"--ignore-col {shlex.quote(str(c))}" for c in ignore_cols if c != resample_col]
    if resample_col is not None:
        flags.append(f"--resample-col {shlex.quote(str(resample_col))}")
    if runs_in_ids:
        flags.append("--runs-in-ids")
    return tuple(flags)


def _question_col_looks_like_scores(q_labels: Any, col: str, label: str, has_runs: bool) -> None:
    """Question ids that read as scores (fractions between 0 and 1) are questioned, not used."""
    values = pd.to_numeric(pd.Series([str(x) for x in q_labels]), errors="coerce")
    if values.isna().any() or has_runs:
        return
    fractions = bool(((values >= 0) & (values <= 1)).all() and (values != values.round()).any())
    if fractions:
        shown = ", ".join(str(x) for x in list(q_labels)[:4])
        raise EvalStatsError(
            f"the question column '{col}' of {label} holds numbers that look like scores ({shown}"
            f"{', ...' if values.size > 4 else ''}: {values.size} distinct); choose the column that names the "
            "questions (question_col= / --question-col), and leave other columns out (ignore_cols= / --ignore-col)")


_RUN_ID = re.compile(r"^(.+)\.(\d+)$")


def _runs_in_ids(q_labels: Any) -> tuple[list[str], tuple[str, str, int]] | None:
    """Question ids that look like runs of another question (``1.1``, ``1.2`` of ``1``), or None.

    An id ``<base>.<digits>`` counts when ``<base>`` is itself an id, or at least two ids share that base;
    the pattern must cover at least a fifth of the ids, with at most 20 runs per question on average (so
    ``gsm8k.0`` .. ``gsm8k.999`` stay questions). Returns every id with its run suffix stripped (the
    others unchanged) and an example ``(id, base, count)`` for the message.
    """
    labels = [str(x) for x in q_labels]
    if len(labels) < 4:
        return None
    found = [_RUN_ID.match(x) for x in labels]
    bases = [m.group(1) if m else None for m in found]
    known = set(labels)
    per_base: dict[str, int] = {}
    for b in bases:
        if b is not None:
            per_base[b] = per_base.get(b, 0) + 1
    is_run = [b is not None and (b in known or per_base[b] >= 2) for b in bases]
    n = sum(is_run)
    n_bases = len({b for b, r in zip(bases, is_run, strict=True) if r})
    if n < max(2, len(labels) // 5) or n > 20 * n_bases:  # 'task.0'..'task.999' are ids, not runs of 'task'
        return None
    first = is_run.index(True)
    stripped = [b if r else x for x, b, r in zip(labels, bases, is_run, strict=True)]
    return stripped, (labels[first], bases[first], n)


def _check_wide_budget(header: list[str], roles: dict, n_rows: int, label: str, limits: Limits) -> None:
    """A wide file's model count and score count, from the header and the row count, before the body is read."""
    n_models = len(roles["models"])
    if n_models > limits.max_models:
        raise EvalStatsError(
            f"{label} has {n_models:,} columns that would be models in wide form, more than the limit of "
            f"{limits.max_models:,}; is the file transposed (one row per model and one column per question)? "
            "Then transpose it (one row per question, one column per model) or write it in long form (question, "
            f"model, score); if it really holds that many models, {Limits.how_to_raise('max_models')}")
    if n_rows * n_models > limits.max_rows:
        cells = n_rows * n_models
        raise EvalStatsError(
            f"{label} has {n_rows:,} rows x {n_models:,} model columns = up to {cells:,} scores, more than the "
            f"limit of {limits.max_rows:,} ({estimate(cells)} of memory to analyse); analyse fewer models or "
            f"questions at a time, or {Limits.how_to_raise('max_rows')}")
    for i in roles["models"]:
        check_name(header[i], "model name", f"the header (column {i + 1}) of {label}")


def _repeated(q_codes: np.ndarray, m_codes: np.ndarray, score: np.ndarray, counts: np.ndarray, q_labels: pd.Index,
              m_labels: pd.Index, row_where, duplicates: str, label: str, warnings: list[str]) -> None:
    """Name (question, model) pairs given on several rows: a warning when their scores differ, or an error."""
    n_m = m_labels.size
    cell = q_codes * n_m + m_codes  # flat (question, model) index
    k = counts.ravel()
    s1 = np.bincount(cell, weights=score, minlength=k.size)
    s2 = np.bincount(cell, weights=score * score, minlength=k.size)
    multi = k > 1
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where(multi, s2 / np.maximum(k, 1) - (s1 / np.maximum(k, 1)) ** 2, 0.0)  # variance per cell
    scale = max(1.0, float(np.max(np.abs(score)))) ** 2
    differ = spread > 1e-9 * scale
    n_differ, n_multi = int(differ.sum()), int(multi.sum())
    first = int(np.flatnonzero(differ)[0]) if n_differ else int(np.flatnonzero(multi)[0])
    rows = np.flatnonzero(cell == first)[:2]
    example = (f"question '{q_labels[first // n_m]}' and model '{m_labels[first % n_m]}' on {row_where(rows[0])} "
               f"({score[rows[0]]:g}) and {row_where(rows[1])} ({score[rows[1]]:g})")
    if duplicates == "error":
        what = "with different scores" if n_differ else "with the same score"
        raise EvalStatsError(
            f"{n_multi:,} (question, model) pairs appear on more than one row of {label} ({n_differ:,} {what}), e.g. "
            f"{example}; remove the duplicated rows, or read them as resamples (duplicates='resamples', "
            "--duplicates resamples on the command line)")
    if n_differ:
        warnings.append(
            f"{n_differ:,} (question, model) pairs appear on several rows with different scores, e.g. {example}: "
            "they are read as resamples and averaged; if they are duplicated rows rather than repeated answers, "
            "the file is wrong: fix it, or choose duplicates='error' (--duplicates error) to stop on them")


_SCALES = ((1.0, "0 to 1"), (10.0, "up to 10"), (100.0, "up to 100"))


def _scales(score: np.ndarray, m_codes: np.ndarray, m_labels: pd.Index, label: str, mixed: str, notes: list[str],
            warnings: list[str], *, wide: bool) -> tuple[np.ndarray, bool]:
    """Each model's scale; mixed scales are an error naming the models; binary 0/100 is read as 0/1.

    Returns the scores (0/100 divided by 100 when every model is binary on 0/100) and whether they are binary.
    """
    n_m = m_labels.size
    off01 = np.bincount(m_codes, weights=~((score == 0.0) | (score == 1.0)), minlength=n_m) > 0  # (n_m,)
    off0100 = np.bincount(m_codes, weights=~((score == 0.0) | (score == 100.0)), minlength=n_m) > 0
    top = pd.Series(np.abs(score)).groupby(m_codes).max().reindex(range(n_m), fill_value=0.0).to_numpy()
    magnitude = np.full(n_m, np.inf)  # smallest of 1, 10, 100 that bounds the model's |scores|; inf: larger
    for bound, _ in reversed(_SCALES):
        magnitude[top <= bound] = bound
    magnitude[~off0100 & off01] = 100.0  # binary 0/100
    magnitude[top == 0.0] = np.nan  # every score 0: fits any scale
    kinds = np.unique(magnitude[~np.isnan(magnitude)])
    if kinds.size > 1:
        def said(bound: float) -> str:
            names = [f"'{m_labels[j]}'" for j in np.flatnonzero(magnitude == bound)]
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            words = dict(_SCALES).get(bound, "above 100")
            return f"{shown} ({words})"
        groups = "; ".join(said(b) for b in kinds)
        fix = (" If a column is not a model (a token count, a latency), leave it out with ignore_cols= "
               "(--ignore-col on the command line)." if wide else "")
        message = (f"the models of {label} score on different scales: {groups}; a difference between them would "
                   "mix units (put every model on one scale, e.g. divide 0-100 scores by 100).{fix} If the scales "
                   "really are the same, pass mixed_scales='allow' (--mixed-scales allow)").replace("{fix}", fix)
        if mixed == "error":
            raise EvalStatsError(message)
        warnings.append(message.split("; a difference")[0] + ": read as one scale because mixed scales were allowed")
    if not off01.any():
        return score, True
    if not off0100.any():
        notes.append("every score is 0 or 100: read as binary 0/1 (100 = right), shown in percent")
        return score / 100.0, True
    return score, False


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
    which are correlated within a question (Miller 2024, arXiv:2411.00640, Sec. 3.1). Vectorised:
    one ``np.bincount`` over the flat cell index ``question * n_models + model``.
    """
    if not isinstance(dataset, Dataset):
        raise EvalStatsError(f"question_scores needs a Dataset from load(), not a {type(dataset).__name__}")
    frame = dataset.frame
    q = frame["question"].cat.codes.to_numpy().astype(np.int64)
    m = frame["model"].cat.codes.to_numpy().astype(np.int64)
    questions = frame["question"].cat.categories.to_numpy(dtype=object)
    n_q, n_m = questions.size, len(dataset.models)
    cell = q * n_m + m  # flat (question, model) index
    k = np.bincount(cell, minlength=n_q * n_m).reshape(n_q, n_m)
    total = np.bincount(cell, weights=frame["score"].to_numpy(dtype=np.float64), minlength=n_q * n_m)
    answered = k > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(answered, total.reshape(n_q, n_m) / k, np.nan)  # s_i = mean of the K answers
    codes = clusters = n_clusters = None
    if "cluster" in frame:
        codes = np.empty(n_q, dtype=np.int64)
        codes[q] = frame["cluster"].cat.codes.to_numpy().astype(np.int64)
        clusters = frame["cluster"].cat.categories.to_numpy(dtype=object)
        n_clusters = int(clusters.size)
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
