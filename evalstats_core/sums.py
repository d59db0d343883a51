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
or interval choice is recomputed from the kept sums without touching the rows. The classes' docstrings
spell out each field and the aggregate that makes it.

Unclustered files have one group (``G = 1``) holding every question; a clustered file analyzed without
clusters merges its groups exactly (:meth:`FileSums.merged`).

The private module beside this one holds the parts: the per-group kernels of :func:`file_sums` (the 0/1
answer patterns' Gram matrices among them) and the 0/1 moments (:func:`binary_moments`, :func:`binary_pair_moments`)
in :mod:`~evalstats_core._sums_groups`; the centring
(:func:`centre`) there too, so the estimators read it from the ground floor; the merging
algebra lives here, at the end (the (co-)moment and third-moment updates of :meth:`FileSums.merged`, after Chan,
Golub & LeVeque 1983), and :class:`Labels`, the cluster labels made into strings on first use.
The public names among them are importable from here.

References
----------
Chan, T. F., Golub, G. H. & LeVeque, R. J. (1983). Algorithms for computing the sample variance: analysis and
recommendations. *The American Statistician* 37(3), 242-247.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ._clusters import clt_se, rescale_exponent
from ._sums_groups import (
    Patterns,
    _Column,
    _Groups,
    _nan_empty,
    _ratio,
    binary_diff_m3,
    binary_moments,
    binary_pair_moments,
    centre,
    runs_histograms,
)

if TYPE_CHECKING:
    from .data import QuestionTable

__all__ = ["FileSums", "ModelSums", "PairSums", "binary_moments", "binary_pair_moments", "centre", "file_sums"]


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
    m3_diff : ndarray of float64, shape (G,), or None
        Centred sum of cubes ``sum (d_i - mean_d,g)^3`` of ``d = model - baseline`` within each cluster (its sign
        flips with the pair; None where a source does not keep it).
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
    m3_diff: np.ndarray | None = None


@dataclass(frozen=True, slots=True, eq=False)
class FileSums:
    """The sufficient statistics of one results file.

    Attributes
    ----------
    name : str
        File name.
    models : tuple of str
        Model names, in file order.
    clusters : tuple of str, or None
        The ``G`` cluster labels indexing every per-cluster array; None when the file has no cluster
        column (then ``G = 1``: one group holding every question). From :func:`file_sums` a
        :class:`Labels`: the tuple, made when first read (it compares as the tuple).
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
    #: the SQL engine's reading warnings, as ``Dataset.warnings`` (empty from :func:`file_sums`)
    warnings: tuple[str, ...] = ()
    #: what the estimators derive from these sums and reuse at any confidence level, adjustment or interval
    #: (the merged sums, CR2 weights per cluster-size vector, per-model and per-pair moments); not compared
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def unit01(self) -> bool:
        """Every answered question score lies in [0, 1] (reports then print percent and points)."""
        if "unit01" not in self.memo:
            answered = [m for m in self.model_sums if m.count.any()]
            lo, hi = [m.minimum for m in answered], [m.maximum for m in answered]
            # rescaled scores (an exponent) are far outside [0, 1]
            self.memo["unit01"] = not self.exponent and bool(lo) and min(lo) >= 0.0 and max(hi) <= 1.0
        return self.memo["unit01"]

    def pair(self, j: int, b: int) -> PairSums:
        """``models[j] - models[b]`` (either order): the stored pair, flipped when ``j < b``."""
        if j == b:
            raise ValueError("a pair needs two different models")
        hi, lo = max(j, b), min(j, b)
        p = self.pair_sums[hi * (hi - 1) // 2 + lo]
        if j > b:
            return p
        return PairSums(model=p.baseline, baseline=p.model, count=p.count, mean_model=p.mean_baseline,
                        mean_baseline=p.mean_model, m2_model=p.m2_baseline, m2_baseline=p.m2_model,
                        m2_diff=p.m2_diff, comoment=p.comoment, only_model=p.only_baseline,
                        only_baseline=p.only_model, not01=p.not01, diff_min=-p.diff_max, diff_max=-p.diff_min,
                        n_left_out=p.n_left_out, m3_diff=None if p.m3_diff is None else -p.m3_diff)

    def merged(self) -> FileSums:
        """The same file with its clusters merged into one group (the sums of an unclustered analysis).

        Merging is exact algebra (Chan, Golub & LeVeque 1983): ``m2 = sum_g m2_g + sum_g n_g (m_g - m)^2``,
        and likewise for the co-moment with the product of the two deviations.
        """
        if self.clusters is None:
            return self
        if "merged" not in self.memo:
            self.memo["merged"] = self._merge()
        return self.memo["merged"]

    def plain_paired_se(self, j: int, b: int) -> float:
        """The paired SE of ``models[j] - models[b]`` with every question independent: ``sd(d) / sqrt(n)``
        over the shared questions (nan with fewer than two), in the scores' own units."""

        if self.clusters is None:
            p = self.pair(j, b)
            n, m2d = int(p.count[0]), p.m2_diff
        else:  # the merged pair's n and m2_diff alone (the whole merge is made when asked for)
            hi, lo = max(j, b), min(j, b)
            n, m2d = self._merged_diff(hi * (hi - 1) // 2 + lo)
        return math.ldexp(clt_se(float(m2d[0]), n), self.exponent) if n > 1 else math.nan

    def _merged_diff(self, k: int) -> tuple[int, np.ndarray]:
        """``(n, m2_diff)`` of :meth:`merged`'s ``pair_sums[k]``, kept in :attr:`memo` (the merge reads it too)."""
        key = ("merged-diff", k)
        if key not in self.memo:
            p = self.pair_sums[k]
            n, _, da = centre(p.count, p.mean_model)
            _, _, db = centre(p.count, p.mean_baseline)
            dd = da - db
            self.memo[key] = (n, _within_plus(p.m2_diff, p.count, dd, dd))
        return self.memo[key]

    def _merge(self) -> FileSums:
        one = np.ones(1, dtype=np.int64)
        kept: dict[tuple[int, ...], Any] = {}  # by the identity of arrays self holds: a pair over every question
        # shares its models' count, mean and m2 arrays, so their centring and squares are made once per model

        def centred(count: np.ndarray, mean: np.ndarray) -> tuple[int, float, np.ndarray]:
            key = (id(count), id(mean))  # arrays self holds: a model's centring once, whatever pairs read it
            if key not in kept:
                kept[key] = centre(count, mean)
            return kept[key]

        def squares(m2: np.ndarray, count: np.ndarray, dev: np.ndarray) -> np.ndarray:
            key = (id(m2), id(count), id(dev))  # dev: held in kept
            if key not in kept:
                kept[key] = _within_plus(m2, count, dev, dev)
            return kept[key]

        models = []
        for m in self.model_sums:
            n, mean, dev = centred(m.count, m.mean)
            models.append(ModelSums(m.model, one * n, np.array([mean]), squares(m.m2, m.count, dev),
                                    m.not01.sum(keepdims=True), m.k_values, m.k_counts, m.minimum, m.maximum))
        pairs = []
        for k, p in enumerate(self.pair_sums):
            n, ma, da = centred(p.count, p.mean_model)
            _, mb, db = centred(p.count, p.mean_baseline)
            pairs.append(PairSums(
                p.model, p.baseline, one * n, np.array([ma]), np.array([mb]), squares(p.m2_model, p.count, da).copy(),
                squares(p.m2_baseline, p.count, db).copy(), self._merged_diff(k)[1],
                _within_plus(p.comoment, p.count, da, db), p.only_model.sum(keepdims=True),
                p.only_baseline.sum(keepdims=True), p.not01.sum(keepdims=True), p.diff_min, p.diff_max,
                p.n_left_out, _merged_m3(p, da - db)))
        return FileSums(self.name, self.models, None, None, one * self.n_questions, self.score_kind,
                        self.n_questions, self.exponent, tuple(models), tuple(pairs), self.format,
                        self.question_col, self.model_col, self.score_col, self.notes, self.reading, self.warnings)


def file_sums(table: QuestionTable) -> FileSums:
    """The :class:`FileSums` of a question table, in one vectorised pass per model and per pair.

    Parameters
    ----------
    table : QuestionTable
        From :func:`~evalstats_core.data.question_scores`.

    Returns
    -------
    FileSums

    Notes
    -----
    Per model, the group counts and sums come from one ``np.bincount`` over the file's cluster codes (plain
    sums without clusters); 0/1 columns use integer counts (exact), others are shifted by their first score
    and centred on their group means (two passes, no cancellation). Per pair on shared questions, the
    co-moment and the sum of squares of the difference are dots of the residual columns (0/1 pairs: the
    count of questions both got right, one dot). Questions some model left out are masked.
    """
    scores, answered = table.scores, table.answered
    n_q, n_m = scores.shape
    codes = table.cluster_codes
    n_groups = 1 if codes is None else int(table.n_clusters or 0)
    groups = _Groups(codes, n_groups)
    full = np.ones(n_m, bool) if answered.all() else answered.all(axis=0)  # (n_m,); a full table in one pass
    k_hist = runs_histograms(table.k)  # k = 0: not answered (dropped below)
    # 0/1 answers, one run each: the question scores are 0/1 (no pass to check, min and max from the counts)
    known01 = [table.score_kind == "binary" and k_hist[j].size <= 2 for j in range(n_m)]
    lims = [(math.nan, math.nan) if known01[j] or not answered[:, j].any() else
            (float(np.min(scores[:, j])), float(np.max(scores[:, j]))) if full[j] else
            (float(np.min(scores[answered[:, j], j])), float(np.max(scores[answered[:, j], j]))) for j in range(n_m)]
    exponent = rescale_exponent([abs(v) for lim in lims for v in lim if math.isfinite(v)])
    if exponent:
        scores = np.ldexp(scores, -exponent)
    patterns = Patterns.of(scores, codes, n_groups) if all(known01) and full.all() else None
    sizes = (np.array([n_q], dtype=np.int64) if codes is None else patterns.sizes() if patterns is not None
             else np.bincount(codes, minlength=n_groups).astype(np.int64))
    if patterns is not None:
        models, pairs = _binary_table_sums(table.models, patterns, sizes, k_hist)
    else:
        cols = [_Column(groups, scores[:, j], answered[:, j], bool(full[j]), sizes, not known01[j])
                for j in range(n_m)]
        models = []
        for j, c in enumerate(cols):
            values, counts = _runs(k_hist[j])
            lo, hi = lims[j]
            if known01[j] and c.count.any():
                lo, hi = float((c.ones < c.count).sum() == 0), float(c.ones.any())
            models.append(ModelSums(table.models[j], c.count, c.mean, c.m2, c.not01, values, counts, lo, hi))
        pairs = [_pair_sums(groups, cols[j], cols[i], table.models[j], table.models[i])
                 for j in range(n_m) for i in range(j)]
    return FileSums(
        name=table.name, models=tuple(table.models),
        clusters=None if codes is None else _labels(table.clusters),
        cluster_col=None if codes is None else table.cluster_col, cluster_sizes=sizes,
        score_kind=table.score_kind, n_questions=int(n_q), exponent=int(exponent), model_sums=tuple(models),
        pair_sums=tuple(pairs), format=table.format, question_col=table.question_col, model_col=table.model_col,
        score_col=table.score_col, notes=tuple(table.notes), reading=tuple(table.reading))


def _runs(hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(k_values, k_counts)`` of a runs histogram (``np.bincount`` of the runs table's column), k = 0 dropped."""
    values = np.flatnonzero(hist)
    values = values[values > 0]
    return values.astype(np.int64), hist[values].astype(np.int64)


def _binary_table_sums(names: tuple[str, ...], patterns: Any, count: np.ndarray,
                       k_hist: list[np.ndarray]) -> tuple[list[ModelSums], list[PairSums]]:
    """Every model's and pair's sums of a table of 0/1 answers that every model answered, from the per-group
    Gram matrix of :class:`~evalstats_core._sums_groups.Patterns`: the same element-wise arithmetic as
    :class:`~evalstats_core._sums_groups._Column` and :func:`_pair_sums`, done once over the stacked models
    ``(m, G)`` and pairs ``(P, G)`` instead of once per model and pair (the rows are views; a pair holds its
    models' own ``mean`` and ``m2`` arrays, as there)."""
    gram = patterns.gram  # (m, m, G)
    n_m, g = gram.shape[0], gram.shape[2]
    runs: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    for h in k_hist:  # every model answered alike (the usual file): one histogram, its arrays shared
        if h.tobytes() not in runs:
            runs[h.tobytes()] = _runs(h)
    model_runs = [runs[h.tobytes()] for h in k_hist]
    diag = np.arange(n_m)
    ones = gram[diag, diag]  # (m, G) each model's ones per group
    per = count.astype(np.float64)  # the same counts (below 2^53) as floats: no int-to-float cast in every operation
    mean, m2 = binary_moments(ones, per)
    mean, m2 = list(mean), list(m2)  # one view per row, held by the model and its pairs alike
    zero = np.zeros(g, np.int64)
    used = bool(count.any())
    lows = (~(ones < count).any(axis=1)).tolist()  # no group with a wrong answer: the smallest score is 1
    highs = ones.any(axis=1).tolist()
    models = []
    for j in range(n_m):
        lo, hi = (float(lows[j]), float(highs[j])) if used else (math.nan, math.nan)
        models.append(ModelSums(names[j], count, mean[j], m2[j], zero, *model_runs[j], lo, hi))
    jj = np.array([j for j in range(n_m) for i in range(j)], dtype=np.intp)
    ii = np.array([i for j in range(n_m) for i in range(j)], dtype=np.intp)
    only_a, only_b, co, m2d = binary_pair_moments(gram[jj, ii], ones[jj], ones[ii], per)
    m3d = binary_diff_m3(only_a, only_b, per)
    a_any, b_any = only_a.any(axis=1).tolist(), only_b.any(axis=1).tolist()
    agree = ((only_a + only_b) < per).any(axis=1).tolist()  # some question where d = 0
    only_a, only_b = only_a.astype(np.int64), only_b.astype(np.int64)
    pairs = []
    for p, (j, i) in enumerate(zip(jj.tolist(), ii.tolist(), strict=True)):
        lo, hi = -1.0, 1.0  # d = a - b takes -1 and 1 when both models have questions only they got right
        if not (a_any[p] and b_any[p]):
            lo = -1.0 if b_any[p] else (0.0 if agree[p] else 1.0)
            hi = 1.0 if a_any[p] else (0.0 if agree[p] else -1.0)
        pairs.append(PairSums(names[j], names[i], count, mean[j], mean[i], m2[j], m2[i], m2d[p], co[p],
                              only_a[p], only_b[p], zero, lo, hi, 0, m3d[p]))
    return models, pairs


def _labels(clusters: np.ndarray) -> Labels:
    """The cluster labels, as a tuple of str made on first use (:class:`Labels`)."""
    return Labels(np.asarray(clusters))


def _pair_sums(groups: _Groups, a: _Column, b: _Column, model: str, baseline: str) -> PairSums:
    """``a - b`` on the questions both answered (see :func:`file_sums`)."""
    g = groups.g
    if a.full and b.full:
        count, zero = a.count, np.zeros(g, np.int64)
        if a.binary and b.binary:  # 0/1: the co-moment and discordant counts from one dot
            both = np.rint(groups.dot(a.x, b.x))
            only_a, only_b, co, m2d = binary_pair_moments(both, a.ones, b.ones, count)
            lo, hi = -1.0, 1.0  # d = a - b takes -1 and 1 when both models have questions only they got right
            if not (only_a.any() and only_b.any()):
                agree = bool(((only_a + only_b) < count).any())  # some question where d = 0
                lo = -1.0 if only_b.any() else (0.0 if agree else 1.0)
                hi = 1.0 if only_a.any() else (0.0 if agree else -1.0)
            return PairSums(model, baseline, count, a.mean, b.mean, a.m2, b.m2, m2d, co,
                            only_a.astype(np.int64), only_b.astype(np.int64), zero, lo, hi, 0,
                            binary_diff_m3(only_a, only_b, count))
        ra, rb = a.resid(), b.resid()
        co = groups.dot(ra, rb)
        rd = ra - rb
        m2d = groups.dot(rd, rd)
        fa, fb = a.frac, b.frac
        not01 = (b.not01 if fa is None or a.binary else a.not01 if fb is None or b.binary
                 else np.rint(groups.sum(fa | fb)).astype(np.int64))
        d = a.x - b.x
        return PairSums(model, baseline, count, a.mean, b.mean, a.m2, b.m2, m2d, co, zero, zero, not01,
                        float(d.min()), float(d.max()), 0, groups.dot(rd, rd * rd))
    shared = a.mask & b.mask
    n_shared = int(np.count_nonzero(shared))
    left_out = int(np.count_nonzero(a.mask | b.mask)) - n_shared
    count = groups.count(shared)
    if n_shared == 0:
        nan, zero, zf = np.full(g, np.nan), np.zeros(g, np.int64), np.zeros(g)
        return PairSums(model, baseline, count, nan, nan, zf, zf, zf, zf, zero, zero, zero, math.nan, math.nan,
                        left_out, zf)
    first = int(np.argmax(shared))
    res, means = [], []
    for col in (a, b):
        x0 = float(col.x[first])
        y = np.where(shared, col.x - x0, 0.0)
        ybar = _ratio(groups.sum(y), count)
        y -= groups.take(ybar)
        y[~shared] = 0.0
        res.append(y)
        means.append(_nan_empty(x0 + ybar, count))
    ra, rb = res
    rd = ra - rb
    xa, xb = a.x[shared], b.x[shared]
    d = xa - xb
    frac = shared & (((a.x != 0.0) & (a.x != 1.0)) | ((b.x != 0.0) & (b.x != 1.0)))
    not01 = np.rint(groups.sum(frac)).astype(np.int64)
    zero = np.zeros(g, np.int64)
    only_a = only_b = zero
    if not not01.any():
        only_a = np.rint(groups.sum(shared & (a.x == 1.0) & (b.x == 0.0))).astype(np.int64)
        only_b = np.rint(groups.sum(shared & (a.x == 0.0) & (b.x == 1.0))).astype(np.int64)
    return PairSums(model, baseline, count, means[0], means[1], groups.dot(ra, ra), groups.dot(rb, rb),
                    groups.dot(rd, rd), groups.dot(ra, rb), only_a, only_b, not01, float(d.min()), float(d.max()),
                    left_out, groups.dot(rd, rd * rd))



def _merged_m3(p: PairSums, dd: np.ndarray) -> np.ndarray | None:
    """The merged centred sum of cubes of ``d`` (Chan, Golub & LeVeque's update for the third moment):
    ``sum_g m3_g + 3 sum_g dd_g m2_g + sum_g n_g dd_g^3``, ``dd_g`` the group's mean of ``d`` less the overall."""
    if p.m3_diff is None:
        return None
    return np.array([float(p.m3_diff.sum()) + 3.0 * float(p.m2_diff @ dd) + float(p.count @ dd ** 3)])


def _within_plus(within: np.ndarray, count: np.ndarray, dev_a: np.ndarray, dev_b: np.ndarray) -> np.ndarray:
    """One group's centred (co-)moment: the within-group sums plus ``sum_g n_g dev_a,g dev_b,g``."""
    return np.array([float(within.sum()) + float(count @ (dev_a * dev_b))])


def two_model_sums(table: QuestionTable, model: str, baseline: str) -> FileSums:
    """The unclustered :class:`~evalstats_core.sums.FileSums` of ``model`` and ``baseline`` alone (models 0 and 1):
    one pass over those two columns of a question table."""

    cols = [list(table.models).index(model), list(table.models).index(baseline)]
    return file_sums(replace(table, models=(model, baseline), scores=table.scores[:, cols], k=table.k[:, cols],
                             answered=table.answered[:, cols], cluster_codes=None, clusters=None, n_clusters=None,
                             cluster_col=None))


# ------------------------------------------------------------ cluster labels made into Python strings on first use
class Labels(Sequence):
    """A tuple of str made from an array of labels on first use; compares, hashes and prints as that tuple."""

    __slots__ = ("_arr", "_tuple")

    def __init__(self, arr: np.ndarray) -> None:
        self._arr, self._tuple = arr, None

    def as_tuple(self) -> tuple[str, ...]:
        """The labels as a tuple of str (Python strings straight from a str array)."""
        if self._tuple is None:
            arr = self._arr
            self._tuple = (tuple(arr.tolist()) if arr.dtype.kind == "U" else tuple(map(str, arr.tolist()))
                           if arr.dtype.kind == "O" else tuple(str(c) for c in arr))
        return self._tuple

    def __len__(self) -> int:
        return len(self._arr) if self._tuple is None else len(self._tuple)

    def __getitem__(self, i: Any) -> Any:
        return self.as_tuple()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_tuple())

    def __eq__(self, other: object) -> bool:
        return self.as_tuple() == (other.as_tuple() if isinstance(other, Labels) else other)

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return repr(self.as_tuple())

    def __reduce__(self) -> tuple:
        return tuple, (self.as_tuple(),)  # pickled (a cache) as the plain tuple
