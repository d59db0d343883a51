"""The sufficient statistics of a results file: every number :func:`~evalstats_core.analysis.analyze` needs.

=====================  ==========================================================================
:class:`FileSums`      per model and per pair, per cluster: counts, means, centred sums of squares,
                       co-moments, discordant counts; the file's metadata
:class:`ModelSums`     one model's per-cluster sums over the questions it answered
:class:`PairSums`      one pair's per-cluster sums over the questions both models answered
:func:`file_sums`      the sums of a :class:`~evalstats_core.data.QuestionTable`, in one vectorised pass
=====================  ==========================================================================

Every field is a GROUP BY aggregate (COUNT, SUM, AVG, VAR_POP * COUNT, COVAR_POP * COUNT, MIN, MAX,
COUNT ... FILTER) of the question-level scores, so a SQL engine (DuckDB, Spark) computes the same
:class:`FileSums` for files larger than memory; the estimators
(:func:`~evalstats_core.analysis.analyze_sums`) read nothing else, so a new confidence level, adjustment
or interval choice is recomputed from the kept sums without touching the rows. ``CONTRACT.md`` at the
top of the worktree (and :class:`FileSums`' docstring) spell out each field.

Unclustered files have one group (``G = 1``) holding every question; a clustered file analysed without
clusters merges its groups exactly (:meth:`FileSums.merged`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FileSums", "ModelSums", "PairSums", "file_sums"]


@dataclass(frozen=True, slots=True, eq=False)
class ModelSums:
    """One model's sums per cluster over the questions it answered (K > 1 runs averaged per question first).

    Attributes
    ----------
    model : str
        The model's name.
    count : ndarray of int64, shape (G,)
        Answered questions in each cluster (0: the model answered none there).
    mean : ndarray of float64, shape (G,)
        Mean question score in each cluster (``nan`` where ``count`` is 0).
    m2 : ndarray of float64, shape (G,)
        Centred sum of squares ``sum (s_i - mean_g)^2`` in each cluster (``VAR_POP * COUNT``; 0 where
        ``count`` is 0 or 1).
    not01 : ndarray of int64, shape (G,)
        Answered questions whose (averaged) score is not exactly 0 or 1.
    k_values, k_counts : ndarray of int64, shape (L,)
        The histogram of runs per answered question: ``k_counts[i]`` questions had ``k_values[i]`` runs
        (``k_values`` ascending, every count positive).
    minimum, maximum : float
        Smallest and largest answered question score (``nan`` when the model answered nothing).
    """

    model: str
    count: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    not01: np.ndarray
    k_values: np.ndarray
    k_counts: np.ndarray
    minimum: float
    maximum: float


@dataclass(frozen=True, slots=True, eq=False)
class PairSums:
    """``model`` against ``baseline``: sums per cluster over the questions both answered.

    Attributes
    ----------
    model, baseline : str
        The difference is ``model - baseline``.
    count : ndarray of int64, shape (G,)
        Shared questions (both models answered) in each cluster.
    mean_model, mean_baseline : ndarray of float64, shape (G,)
        The two models' mean scores on the shared questions of each cluster (``nan`` where ``count`` is 0).
    m2_model, m2_baseline, m2_diff : ndarray of float64, shape (G,)
        Centred sums of squares of the model's scores, the baseline's, and of ``d = model - baseline``,
        within each cluster over the shared questions.
    comoment : ndarray of float64, shape (G,)
        ``sum (a_i - mean_a,g)(b_i - mean_b,g)`` within each cluster (``COVAR_POP * COUNT``).
    only_model, only_baseline : ndarray of int64, shape (G,)
        Shared questions with model = 1 and baseline = 0, and the reverse (exact comparisons; meaningful
        when ``not01`` is 0 everywhere).
    not01 : ndarray of int64, shape (G,)
        Shared questions where either score is not exactly 0 or 1.
    diff_min, diff_max : float
        Smallest and largest ``d`` over the shared questions (equal: every question moved alike).
    n_left_out : int
        Questions answered by exactly one of the two models.
    """

    model: str
    baseline: str
    count: np.ndarray
    mean_model: np.ndarray
    mean_baseline: np.ndarray
    m2_model: np.ndarray
    m2_baseline: np.ndarray
    m2_diff: np.ndarray
    comoment: np.ndarray
    only_model: np.ndarray
    only_baseline: np.ndarray
    not01: np.ndarray
    diff_min: float
    diff_max: float
    n_left_out: int


@dataclass(frozen=True, slots=True, eq=False)
class FileSums:
    """The sufficient statistics of one results file (see ``CONTRACT.md``).

    Attributes
    ----------
    name : str
        File name.
    models : tuple of str
        Model names, in file order.
    clusters : tuple of str, or None
        The ``G`` cluster labels indexing every per-cluster array; None when the file has no cluster
        column (then ``G = 1``: one group holding every question).
    cluster_col : str or None
        The file's cluster column.
    cluster_sizes : ndarray of int64, shape (G,)
        Questions in each cluster (answered by any model).
    score_kind : str
        ``"binary"`` or ``"continuous"`` for the raw answers.
    n_questions : int
        Distinct questions in the file.
    exponent : int
        Every score in these sums is ``score * 2**-exponent`` (0 unless a score's magnitude lies outside
        ``[2^-400, 2^400]``; see :func:`evalstats_core._clusters.rescale_exponent`).
    model_sums : tuple of ModelSums
        One per model, in ``models`` order.
    pair_sums : tuple of PairSums
        One per pair ``i < j`` with ``model = models[j]``, ``baseline = models[i]``, in the order
        ``(0,1), (0,2), (1,2), (0,3), ...`` (``j`` outer, ``i`` inner); :meth:`pair` orients them.
    format, question_col, model_col, score_col : str or None
        How the file was read.
    notes, reading : tuple of str
        The loader's notes and the command-line options that repeat the reading.
    """

    name: str
    models: tuple[str, ...]
    clusters: tuple[str, ...] | None
    cluster_col: str | None
    cluster_sizes: np.ndarray
    score_kind: str
    n_questions: int
    exponent: int
    model_sums: tuple[ModelSums, ...]
    pair_sums: tuple[PairSums, ...]
    format: str | None = None
    question_col: str | None = None
    model_col: str | None = None
    score_col: str | None = None
    notes: tuple[str, ...] = ()
    reading: tuple[str, ...] = ()


def file_sums(table):  # type: ignore[no-untyped-def]
    """The :class:`FileSums` of a :class:`~evalstats_core.data.QuestionTable` (one vectorised pass)."""
    raise NotImplementedError("file_sums: being written (see CONTRACT.md)")
