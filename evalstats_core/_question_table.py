"""Question-level scores: :class:`QuestionTable`, the questions x models matrix every statistic runs on, and
:func:`question_scores`, which reduces a :class:`~evalstats_core.data.Dataset` to it (resamples averaged).
Both public from :mod:`evalstats_core.data`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._records import Dataset, cell_sums, scatter
from .errors import EvalStatsError


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
