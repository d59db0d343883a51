"""Estimate Var(x) and E[sigma^2] from an eval whose questions were answered several times.

A question's score is ``s_i = x_i + eps_i``: ``x_i`` is the conditional mean (how easy the question is
for the model) and ``eps_i`` the sampling noise with variance ``sigma_i^2``. With ``K > 1`` answers per
question both parts can be estimated from the data:

=================================  ===============================================================
``resampling_decomposition``       Var(x) and E[sigma^2] (optionally cluster-adjusted) from answers
``ResamplingDecomposition``        the estimates, with ``variance(k)``, ``se(k)`` and ``curve(k)``
=================================  ===============================================================

What the two numbers imply for K (the K curve, a fixed budget) is in :mod:`evalstats_core.variance`;
the same estimates from a pilot of two models feed :func:`evalstats_core.pilot.pilot_estimates`.

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 3.1 and Appendix C (estimating
Var(x) and E[sigma^2] from data with K > 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import as_scores
from .errors import EvalStatsError
from .variance import ResamplingCurve, estimator_variance, resampling_curve

__all__ = ["ResamplingDecomposition", "resampling_decomposition"]


@dataclass(frozen=True, slots=True)
class ResamplingDecomposition:
    """Var(x) and E[sigma^2] estimated from several answers per question.

    Attributes
    ----------
    n : int
        Number of questions.
    k : float
        Answers per question; the harmonic mean ``1/mean(1/K_i)`` when K differs between questions
        (the K that makes ``E[sigma^2]/k`` the noise left in the question means).
    k_min, k_max : int
        Fewest and most answers to one question.
    n_clusters : int or None
        Number of clusters, or None when no clusters were given.
    mean : float
        The eval score: the average of the question means.
    var_means : float
        Observed variance of the question means (``ddof=1``; with clusters, the Appendix C cluster sum
        ``C/(C-1) * sum_c (sum_i (xbar_ic - mean))^2 / n``). Estimates ``Var(x) + E[sigma^2]/k``.
    mean_sigma2 : float
        E[sigma^2]: the within-question variances (``ddof=1``) averaged over questions with 2+ answers.
    var_x : float
        Var(x) (cluster-adjusted when clustered): ``var_means`` minus the noise ``mean(sigma_i^2/K_i)``,
        clipped at 0.
    var_x_unclipped : float
        The same before clipping (may be negative by chance).
    clipped : bool
        True when ``var_x_unclipped < 0`` and ``var_x`` was set to 0.
    note : str or None
        Plain-words remark (the clipping), or None.
    """

    n: int
    k: float
    k_min: int
    k_max: int
    n_clusters: int | None
    mean: float
    var_means: float
    mean_sigma2: float
    var_x: float
    var_x_unclipped: float
    clipped: bool
    note: str | None

    def variance(self, k: Any = None) -> float | np.ndarray:
        """Variance of the eval mean at ``k`` answers per question (default: the observed ``k``)."""
        return estimator_variance(
            self.k if k is None else k, var_x=self.var_x, mean_sigma2=self.mean_sigma2, n=self.n
        )

    def se(self, k: Any = None) -> float | np.ndarray:
        """Standard error of the eval mean at ``k`` answers per question (default: the observed ``k``)."""
        return np.sqrt(self.variance(k)) if np.ndim(k) else math.sqrt(self.variance(k))

    def curve(self, k: Any = range(1, 21)) -> ResamplingCurve:
        """The K curve for this eval's estimates and ``n`` (see :func:`resampling_curve`)."""
        return resampling_curve(k, var_x=self.var_x, mean_sigma2=self.mean_sigma2, n=self.n)


def _codes(values: Any, name: str, size: int) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 for any labels (np.unique order) and the number of groups."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size != size:
        raise EvalStatsError(f"{name} must be one label per score: got shape {arr.shape}, need ({size},)")
    if arr.dtype.kind in "iu" and arr.size and 0 <= arr.min() and arr.max() <= 4 * arr.size:
        # integer codes (a table's cluster codes): np.unique's inverse by counting, no sort (0.4 s at 3e6)
        present = np.bincount(arr) > 0  # (max + 1,)
        return (np.cumsum(present) - 1)[arr].astype(np.intp), int(present.sum())
    try:
        uniq, inv = np.unique(arr, return_inverse=True)
    except TypeError:
        missing = [i for i, v in enumerate(arr.tolist()) if v is None or v != v]  # error path only
        if missing:
            raise EvalStatsError(f"{name}[{missing[0]}] is missing; every score needs a label") from None
        raise EvalStatsError(
            f"{name} mixes label types that cannot be sorted; use all strings or all integers"
        ) from None
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise EvalStatsError(f"{name} contains NaN; every score needs a label")
    return inv.ravel().astype(np.intp), int(uniq.size)


def _between_variance(means: np.ndarray, cluster: np.ndarray | None) -> float:
    """ddof=1 variance of question means, or the clustered form of Appendix C with C/(C-1)."""
    n = means.size
    dev = means - means.mean()
    if cluster is None:
        return float(dev @ dev / (n - 1))
    totals = np.bincount(cluster, weights=dev)  # (C,) sum of deviations within each cluster
    c = totals.size
    return float(c / (c - 1) * (totals @ totals) / n)  # Appendix C cluster sum, CR1-style C/(C-1)


def resampling_decomposition(
    scores: Any, questions: Any = None, /, *, clusters: Any = None
) -> ResamplingDecomposition:
    """Estimate Var(x) and E[sigma^2] from an eval whose questions were answered several times.

    Parameters
    ----------
    scores : array_like
        Either an ``(n, K)`` array (row = question, column = answer; K >= 2, no missing values), or,
        with ``questions``, a 1-D array of N answer scores in long form (K may differ by question).
    questions : array_like, shape (N,), optional
        Question label of each score (long form). Questions with one answer add to ``var_means`` but
        not to ``mean_sigma2``; at least one question needs 2+ answers.
    clusters : array_like, optional
        Cluster label per question (wide form, shape (n,)) or per score (long form, shape (N,);
        constant within a question). Makes ``var_x`` the cluster-adjusted Var(x).

    Returns
    -------
    ResamplingDecomposition

    Notes
    -----
    Answers are first averaged to one score per question, ``xbar_i``; never pool the ``n*K`` answers
    (they are not independent). Then (Miller 2024, Appendix C)::

        sigma_i^2  = sum_k (s_ik - xbar_i)^2 / (K_i - 1)        within-question variance
        E[sigma^2] = mean_i sigma_i^2
        Var(x)     = var_ddof1(xbar) - mean_i(sigma_i^2 / K_i)   clipped at 0

    ``var_ddof1(xbar)`` has expectation ``Var(x) + E[sigma^2/K]``, so subtracting the estimated noise
    makes Var(x) unbiased; by chance it can fall below 0 (then 0 is reported, with a note). The paper
    plugs ``xbar_i`` in for ``x_i`` without this subtraction, which overstates Var(x) by ``E[sigma^2]/K``.
    With clusters the between part is the cluster sum of Appendix C (the Eq. 4 cross products) times
    ``C/(C-1)``, so that one question per cluster gives back the ddof=1 variance exactly; the noise
    term is unchanged because answers to different questions are independent.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 3.1 and Appendix C.

    Examples
    --------
    >>> d = resampling_decomposition([[1, 0], [1, 1], [0, 0], [1, 0]])
    >>> d.n, d.k, d.mean_sigma2
    (4, 2.0, 0.25)
    """
    if questions is None:
        arr = np.asarray(scores, dtype=np.float64)
        if arr.ndim != 2:
            raise EvalStatsError(
                f"scores has shape {arr.shape}: pass an (n, K) array (one row per question) "
                "or long-form scores with a questions array"
            )
        n, kk = arr.shape
        if kk < 2:
            raise EvalStatsError(
                f"scores has K={kk} answer per question; E[sigma^2] needs K >= 2 answers to each question"
            )
        if not np.isfinite(arr).all():
            raise EvalStatsError(
                "scores contains NaN or inf; for unequal numbers of answers pass long-form scores with a questions array"
            )
        flat = arr.ravel()
        q = np.repeat(np.arange(n, dtype=np.intp), kk)
        cl_size = n
    else:
        flat = as_scores(scores, "scores", min_n=2)
        q, n = _codes(questions, "questions", flat.size)
        cl_size = flat.size
    if n < 2:
        raise EvalStatsError(f"only {n} question(s): Var(x) needs at least 2 questions")

    counts = np.bincount(q, minlength=n).astype(np.float64)  # (n,) K_i
    means = np.bincount(q, weights=flat, minlength=n) / counts  # (n,) question means
    dev = flat - means[q]
    ss = np.bincount(q, weights=dev * dev, minlength=n)  # (n,) within sums of squares
    multi = counts >= 2
    if not multi.any():
        raise EvalStatsError(
            "every question has a single answer: E[sigma^2] needs at least one question answered twice"
        )
    sigma2_i = np.where(multi, ss / np.maximum(counts - 1.0, 1.0), 0.0)  # Appendix C: divide by K-1
    mean_sigma2 = float(sigma2_i[multi].mean())
    sigma2_i = np.where(multi, sigma2_i, mean_sigma2)  # single-answer questions borrow the average
    noise = float(np.mean(sigma2_i / counts))  # E[sigma^2 / K], the noise left in the question means

    cluster = None
    n_clusters = None
    if clusters is not None:
        c_all, n_clusters = _codes(clusters, "clusters", cl_size)
        if questions is None:
            cluster = c_all
        else:
            cluster = np.zeros(n, dtype=np.intp)
            cluster[q] = c_all
            if not np.array_equal(cluster[q], c_all):
                i = int(np.flatnonzero(cluster[q] != c_all)[0])
                raise EvalStatsError(
                    f"question {np.asarray(questions)[i]!r} appears in two clusters; every answer to a question "
                    "must carry that question's cluster"
                )
        if n_clusters < 2:
            raise EvalStatsError(
                f"clusters has {n_clusters} cluster: the clustered Var(x) needs at least 2 clusters"
            )

    var_means = _between_variance(means, cluster)
    raw = var_means - noise  # unbiased Var(x): observed variance minus E[sigma^2/K]
    clipped = raw < 0.0
    note = None
    if clipped:
        note = (
            f"Var(x) estimate was {raw:.3g} and is reported as 0: the question means vary no more than "
            "the answer noise alone makes them, so this sample cannot tell questions apart by difficulty"
        )
    return ResamplingDecomposition(
        n=int(n),
        k=float(1.0 / np.mean(1.0 / counts)),
        k_min=int(counts.min()),
        k_max=int(counts.max()),
        n_clusters=n_clusters,
        mean=float(means.mean()),
        var_means=var_means,
        mean_sigma2=mean_sigma2,
        var_x=max(raw, 0.0),
        var_x_unclipped=raw,
        clipped=bool(clipped),
        note=note,
    )
