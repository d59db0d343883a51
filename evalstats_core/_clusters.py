"""Private kernels shared by ``clustering`` and ``comparison`` (not part of the public API).

* :func:`scores_1d` turns user scores into finite float64 residuals and their mean (one ``sum``):
  :func:`float_scores` (a float64 view) then :func:`centred`; :func:`ones_if_binary` counts the ones
  of 0/1 scores (None for any other scores), so that they are summed as exact counts instead.
* :func:`cluster_codes` turns any cluster labels into integer codes, once: small non-negative
  integers are used as they are (``np.bincount`` needs nothing else), anything else (strings,
  large or negative integers, floats, pandas columns) goes through one ``pandas.factorize``.
* :func:`cr1_se` is the cluster-robust (CR1) standard error of a mean from per-cluster sums of
  residuals, and :func:`clt_se` the i.i.d. one from the sum of squared residuals.
* :func:`cr2_se_df` is the bias-reduced CR2 standard error of a mean with its Bell-McCaffrey
  (Satterthwaite) degrees of freedom, from the per-cluster sums of residuals and the cluster sizes: the one
  CR2 kernel (held against R's clubSandwich). Its parts serve every other caller (the judge, the planner,
  the pilot, the coverage lab, the MOVER): :func:`hat_complement` (the adjustment ``I - H_gg``),
  :func:`cr2_factors`, :func:`cr2_weights` (the factors and the df of the sizes alone), :func:`cr2_sum` and
  :func:`cr2_se` (any number of rows of residual sums at once).
* :func:`t_crit` and :func:`t_p_value` are the t(df) critical value and two-sided p-value (df = inf:
  the normal ones); :func:`sign_flip_p` is the exact randomisation p-value used when the SE is 0.
* :func:`check_method` validates ``method`` (``"cr2"`` or ``"cr1"``).
* :func:`check_n_clusters` rejects fewer than two clusters; :func:`few_clusters_notes` warns below
  :data:`MIN_CLUSTERS` (CR1) or :data:`MIN_CLUSTERS_CR2` (CR2).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri, stdtr, stdtrit

from .errors import EvalStatsError, EvalStatsWarning

__all__ = [
    "MIN_CLUSTERS", "MIN_CLUSTERS_CR2", "METHODS", "scores_1d", "float_scores", "centred", "ones_if_binary",
    "cluster_codes", "codes_and_sizes", "cluster_sizes", "cr1_se",
    "cr2_se_df", "cr2_se", "cr2_sum", "cr2_factors", "cr2_weights", "hat_complement", "clt_se", "t_crit", "t_p_value", "sign_flip_p", "check_method", "check_n_clusters",
    "few_clusters_notes", "is_binary", "plainly_scaled", "rescale_exponent",
]

#: Standard-error methods: ``"cr2"`` (CR2 / CLT SE with a t(df) reference, the default) and ``"cr1"``
#: (the paper's CR1 / CLT SE with a normal reference, Miller 2024 Eqs. 1-8).
METHODS = ("cr2", "cr1")

#: Below this many clusters the CR1 standard error is noticeably biased downward (Cameron & Miller
#: 2015, J. Human Resources 50(2), Sec. VI: "few clusters"); results then carry a warning.
MIN_CLUSTERS = 30

#: With CR2 and Satterthwaite degrees of freedom the interval keeps its level down to a handful of
#: clusters (Imbens & Kolesar 2016; Pustejovsky & Tipton 2018); below this many it is still valid but
#: wide, and the degrees of freedom say how little the clusters can tell.
MIN_CLUSTERS_CR2 = 10

# Integer labels up to this multiple of n are bincounted directly (the count array stays small).
_DIRECT_LABEL_FACTOR = 4
_DIRECT_LABEL_SLACK = 1 << 16


def scores_1d(values: Any, name: str) -> tuple[np.ndarray, float]:
    """Return ``(residuals s_i - mean, mean)`` of ``values`` as float64 ``(n,)``; reject bad input.

    Rejects non-numbers, wrong shapes, NaN and inf: :func:`float_scores` then :func:`centred`.
    """
    return centred(float_scores(values, name), name)


def float_scores(values: Any, name: str) -> np.ndarray:
    """``values`` as a one-dimensional float64 array (a view, not a copy, of float64 input)."""
    if np.iscomplexobj(values):  # float64 would drop the imaginary part without a word (issue 46)
        raise EvalStatsError(f"{name} are complex numbers; scores must be real numbers: pass their real part "
                             "(or their magnitude) yourself")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EvalStatsError(f"{name} must be numbers (got {type(values).__name__}): {exc}") from None
    if arr.ndim != 1:
        raise EvalStatsError(
            f"{name} must be one-dimensional (got shape {arr.shape}); pass one score per question"
        )
    return arr


def centred(arr: np.ndarray, name: str) -> tuple[np.ndarray, float]:
    """``(residuals arr_i - mean, mean)`` of a float64 ``(n,)`` array: one new array; reject NaN and inf.

    The sum is taken after shifting by the first score, so constant scores give a mean equal to that
    score and residuals that are exactly 0 (and large offsets lose no precision). The finiteness check is
    free: a sum is finite exactly when every term is finite, unless finite terms overflow, and only then do
    we look element by element.
    """
    if arr.size == 0:
        return arr.copy(), math.nan
    shift = float(arr[0])
    with np.errstate(over="ignore", invalid="ignore"):  # inf/nan are reported below, not warned
        resid = np.empty(arr.size)  # (n,) the shifted scores, centred in place below
        total = float(_shifted_sum(arr, shift, resid, 0, arr.size))
    if not math.isfinite(total):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise EvalStatsError(
                f"{name}[{i}] is {float(arr[i])!r}: every score must be a finite number; "
                "drop or fix that question"
            )
        raise EvalStatsError(f"{name} sum to {total!r} (overflow); rescale the scores, e.g. to [0, 1]")
    offset = total / arr.size
    resid -= offset
    return resid, shift + offset


_LEAF = 1 << 15  # scores shifted and summed while in cache (256 kB)


def _shifted_sum(arr: np.ndarray, shift: float, out: np.ndarray, lo: int, n: int) -> float:
    """``out[lo:lo + n] = arr[lo:lo + n] - shift`` and the sum of that, exactly ``out[lo:lo + n].sum()``.

    numpy sums a contiguous float64 array pairwise: halves of ``n // 2`` rounded down to a multiple of 8,
    recursively. Splitting the same way down to leaves of at most ``_LEAF`` scores, and letting numpy sum each
    leaf, gives the same double bit for bit (``tests/test_shifted_sum.py``), while each leaf is subtracted and
    summed while it is in cache: one pass over the scores instead of two."""
    if n <= _LEAF:
        leaf = out[lo:lo + n]
        np.subtract(arr[lo:lo + n], shift, out=leaf)
        return leaf.sum()
    half = n // 2
    half -= half % 8
    return _shifted_sum(arr, shift, out, lo, half) + _shifted_sum(arr, shift, out, lo + half, n - half)


_HEAD = 4096  # scores :func:`ones_if_binary` reads first


def ones_if_binary(arr: np.ndarray) -> int | None:
    """The number of ones when every value of the float64 array ``arr`` is exactly 0 or 1, else None.

    Two comparisons with a count each (no pass at all when the first score is neither 0 nor 1, nor for an
    empty array, nor over the whole array when one of its first :data:`_HEAD` scores is neither); the count of
    ones is the exact sum of 0/1 scores.
    """
    if arr.size == 0 or float(arr[0]) not in (0.0, 1.0):
        return None
    if arr.size > _HEAD:  # a score that is neither 0 nor 1 near the start decides it without a pass
        head = arr[:_HEAD]
        if int(np.count_nonzero(head == 1.0)) + int(np.count_nonzero(head == 0.0)) < _HEAD:
            return None
    ones = int(np.count_nonzero(arr == 1.0))
    if ones == arr.size or ones + int(np.count_nonzero(arr == 0.0)) == arr.size:
        return ones
    return None


#: Scores whose magnitude lies outside [2^-400, 2^400] are rescaled by a power of two (exact) before the
#: sums of squares, which would otherwise overflow (1e154^2 * n) or underflow (denormals^2 = 0) and give
#: a standard error of inf or 0.
_SAFE_EXPONENT = 400


def rescale_exponent(*arrays: Any) -> int:
    """``e`` such that ``x * 2^-e`` has magnitude near 1, when some score is huge or tiny; else 0.

    Zero when the largest ``|x|`` lies in ``[2^-400, 2^400]`` (scores in [0, 1], judge scales, ...); two
    reductions per array (max and min), no temporary.
    """
    big = 0.0
    for values in arrays:
        arr = np.asarray(values, dtype=np.float64)
        if arr.size:
            big = max(big, abs(float(arr.max())), abs(float(arr.min())))
    if not math.isfinite(big) or big == 0.0:
        return 0
    if big > 2.0**_SAFE_EXPONENT or big < 2.0**-_SAFE_EXPONENT:
        return math.frexp(big)[1]
    return 0


def plainly_scaled(means: list[float], squares: list[tuple[float, int]]) -> bool:
    """True when :func:`rescale_exponent` would certainly give 0, judged from the means and the centred sums
    of squares ``(ss, n)`` alone (no pass over the scores): the largest ``|x|`` of the residuals and the means
    lies in ``[2^-400, 2^400]`` because every ``|mean| <= 2^400``, every ``ss <= 2^800`` (so every ``|residual|
    <= 2^400``), and some ``|mean| >= 2^-400`` or some ``ss / n >= 2^-800``. False: ask :func:`rescale_exponent`.
    """
    top, low = 2.0**_SAFE_EXPONENT, 2.0**-_SAFE_EXPONENT
    if not all(math.isfinite(m) and abs(m) <= top for m in means):
        return False
    if not all(math.isfinite(ss) and ss <= top * top for ss, _ in squares):
        return False
    return any(abs(m) >= low for m in means) or any(n and ss / n >= low * low for ss, n in squares)


def is_binary(values: Any) -> bool:
    """True when every value is exactly 0 or 1."""
    arr = np.asarray(values, dtype=np.float64)
    return bool(np.all((arr == 0.0) | (arr == 1.0)))


def cluster_codes(clusters: Any, n: int, name: str = "clusters") -> tuple[np.ndarray, int]:
    """Return ``(codes, n_clusters)``: integer codes of shape ``(n,)`` and the number of distinct labels.

    Codes are non-negative and index ``np.bincount`` directly. For small non-negative integer labels
    the codes *are* the labels (unused values leave empty bins, which add nothing to a CR1 sum); every
    other kind of label is factorised once with ``pandas.factorize``. Missing labels (None/NaN) and
    a length different from the scores are errors.
    """
    codes, n_clusters, _ = codes_and_sizes(clusters, n, name)
    return codes, n_clusters


def codes_and_sizes(clusters: Any, n: int, name: str = "clusters") -> tuple[np.ndarray, int, np.ndarray]:
    """:func:`cluster_codes` and the sizes of every code bin (float64, empty bins 0), from one ``bincount``."""
    arr = _as_label_array(clusters)
    if arr is not None and arr.dtype.kind in "iub":
        if arr.ndim != 1 or arr.shape[0] != n:
            raise _shape_error(name, arr.shape, n)
        if n == 0:
            return arr.astype(np.intp), 0, np.zeros(0)
        hi = int(arr.max())
        if hi < _DIRECT_LABEL_FACTOR * n + _DIRECT_LABEL_SLACK:
            codes = arr if arr.dtype.kind != "u" or arr.dtype.itemsize < 8 else arr.astype(np.intp)
            try:
                sizes = np.bincount(codes)
            except ValueError:  # negative labels: factorised below
                sizes = None
            if sizes is not None:
                return codes, int(np.count_nonzero(sizes)), sizes.astype(np.float64)
    codes, n_clusters = _factorize(clusters if arr is None else arr, n, name)
    return codes, n_clusters, np.bincount(codes, minlength=n_clusters).astype(np.float64)


def _as_label_array(clusters: Any) -> np.ndarray | None:
    """A numpy view of integer-like labels, or ``None`` when the labels must be factorised as given."""
    if isinstance(clusters, np.ndarray):
        return clusters
    dtype = getattr(clusters, "dtype", None)
    if dtype is not None:  # pandas Series / Index / ExtensionArray: numpy-backed ints are cheap
        if isinstance(dtype, np.dtype) and dtype.kind in "iub":
            return np.asarray(clusters)
        return None
    try:
        first = clusters[0]
    except (TypeError, IndexError, KeyError):
        return None
    if not isinstance(first, int | np.integer | np.bool_):  # strings, tuples...: skip numpy's guess
        return None
    try:
        arr = np.asarray(clusters)
    except ValueError:  # ragged nested sequences
        return None
    if arr.ndim == 1 and arr.dtype.kind in "iub":
        return arr
    return None  # mixed values: factorised as Python objects


def _factorize(labels: Any, n: int, name: str) -> tuple[np.ndarray, int]:
    import pandas as pd  # lazy: only arbitrary labels need it

    if not hasattr(labels, "dtype"):  # a Python sequence: keep each item as it is (1 and "1" differ)
        try:
            items = labels if isinstance(labels, list | tuple) else list(labels)
        except TypeError:
            raise EvalStatsError(f"{name} must be a sequence of labels, one per question") from None
        labels = np.empty(len(items), dtype=object)
        try:
            labels[:] = items
        except ValueError:  # items that numpy would read as rows (tuples): keep them whole
            labels = pd.Series(items, dtype=object)
    shape = getattr(labels, "shape", (len(labels),))
    if len(shape) != 1 or shape[0] != n:
        raise _shape_error(name, shape, n)
    try:
        codes, uniques = pd.factorize(labels)
    except TypeError as exc:
        raise EvalStatsError(f"{name} must be hashable labels (strings or integers): {exc}") from None
    codes = np.asarray(codes)
    integer_labels = isinstance(labels, np.ndarray) and labels.dtype.kind in "iub"  # never missing
    if n and not integer_labels and codes.min() < 0:
        i = int(np.flatnonzero(codes < 0)[0])
        raise EvalStatsError(
            f"{name}[{i}] is missing (None/NaN): give every question a cluster label, "
            "e.g. its own question id if it belongs to no group"
        )
    return codes, len(uniques)


def _shape_error(name: str, shape: tuple, n: int) -> EvalStatsError:
    return EvalStatsError(
        f"{name} has shape {tuple(shape)} but there are {n} scores; pass one cluster label per question"
    )


def cr1_se(resid_sums: np.ndarray, n: int, n_clusters: int) -> float:
    """CR1 standard error of a mean from per-cluster sums of residuals ``resid_sums`` (shape ``(K,)``).

    ``sqrt( C/(C-1) * sum_c (sum_i (s_ic - mean))^2 ) / n``: the sandwich estimator of Miller 2024
    (arXiv:2411.00640, Eq. 4 and Appendix A) with the C/(C-1) small-sample factor of Cameron & Miller
    2015 (J. Human Resources 50(2), Sec. IIC), as Stata and statsmodels compute it.
    """
    c = n_clusters
    return math.sqrt(c / (c - 1) * float(resid_sums @ resid_sums)) / n  # CR1: Miller Eq. 4 with C/(C-1)


def cluster_sizes(codes: np.ndarray) -> np.ndarray:
    """Sizes ``n_g`` (float64, shape ``(K,)``) of every code bin, empty bins included (they are 0)."""
    return np.bincount(codes).astype(np.float64)


def hat_complement(sizes: Any, n: Any) -> Any:
    """``1 - n_g/n``: the block ``I - H_gg`` of an intercept-only model's hat matrix on cluster ``g``'s constant
    direction (Bell & McCaffrey 2002, Eq. 8), for sizes of any shape (``n`` broadcast against them). Every CR2
    adjustment in the package is a power of it: ``-1`` for the variance (:func:`cr2_factors`), ``-1/2`` for the
    residuals (the judge's two-part model)."""
    return 1.0 - sizes / n


def cr2_factors(sizes: Any, n: Any) -> Any:
    """The CR2 factors ``a_g = 1 / (1 - n_g/n)`` (:func:`hat_complement` inverted) of every bin of ``sizes``, empty
    ones included (their factor is 1, their residual sum 0)."""
    return 1.0 / hat_complement(sizes, n)


def cr2_weights(sizes: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """The CR2 factors ``a_g = 1 / (1 - n_g/n)`` of the non-empty clusters of ``sizes`` and the Satterthwaite
    degrees of freedom: everything of :func:`cr2_se_df` that depends on the cluster sizes alone (computed
    once per cluster-size vector and reused for every model, pair and confidence level)."""
    kept = sizes[sizes > 0.0]
    f = kept / n  # (C,) cluster shares f_g
    a = cr2_factors(kept, n)  # (C,) CR2 factors (I - H_gg)^-1 on the constant direction
    af2 = a * f * f
    denom = float(af2 @ (a * (1.0 - 2.0 * f))) + float(af2.sum()) ** 2  # tr(G^2) * n^2
    return a, 1.0 / denom  # Satterthwaite df = (tr G)^2 / tr(G^2), tr G = 1/n


def cr2_se_df(resid_sums: np.ndarray, sizes: np.ndarray, n: int,
              weights: tuple[np.ndarray, float] | None = None) -> tuple[float, float]:
    """CR2 standard error of a mean and its Bell-McCaffrey degrees of freedom.

    Parameters
    ----------
    resid_sums : ndarray, shape (K,)
        Per-cluster sums ``S_g`` of the residuals ``s_i - mean`` (empty bins hold 0).
    sizes : ndarray, shape (K,)
        Cluster sizes ``n_g`` in the same bins (0 for an empty bin); ``sum(sizes) == n``.
    n : int
        Number of scores.

    Notes
    -----
    For an intercept-only regression the hat matrix block of cluster ``g`` is ``(1/n) 1 1'``, so the
    CR2 adjustment ``(I - H_gg)^(-1/2)`` scales the cluster's residual sum by ``(1 - n_g/n)^(-1/2)``
    (Bell & McCaffrey 2002, Eq. 8; Pustejovsky & Tipton 2018, Eq. 6)::

        SE^2 = sum_g S_g^2 / (1 - n_g/n) / n^2

    The Satterthwaite degrees of freedom under the working model of independent, equal-variance
    scores (Bell & McCaffrey 2002, Sec. 4; Pustejovsky & Tipton 2018, Eq. 11) are
    ``(tr G)^2 / tr(G^2)`` with ``G_gh = w_g^(1/2) w_h^(1/2) (n_g [g = h] - n_g n_h / n)`` and
    ``w_g = 1 / (n^2 (1 - n_g/n))``. With ``f_g = n_g/n`` and ``a_g = 1/(1 - f_g)`` this is, in one
    pass over the clusters::

        df = 1 / ( sum_g a_g^2 f_g^2 (1 - 2 f_g) + (sum_g a_g f_g^2)^2 )

    Singleton clusters give ``SE = sd / sqrt(n)`` and ``df = n - 1``: the one-sample t-test.
    ``weights`` is :func:`cr2_weights` of ``sizes`` when kept (then ``sizes`` has no empty bin).
    """
    if weights is None:
        weights = cr2_weights(sizes, n)
        resid_sums = resid_sums[sizes > 0.0]
    a, df = weights
    se = math.sqrt(float(cr2_sum(resid_sums, a))) / n
    return se, df


def cr2_sum(resid_sums: np.ndarray, a: np.ndarray) -> Any:
    """``sum_g S_g^2 a_g`` over the last axis of ``resid_sums`` (shape ``(..., G)``): ``n^2`` times the CR2 variance
    of a mean, ``a`` the factors of the same bins (:func:`cr2_weights` or :func:`cr2_factors`)."""
    return (resid_sums * resid_sums) @ a  # CR2: Bell & McCaffrey Eq. 8, intercept only


def cr2_se(resid_sums: np.ndarray, a: np.ndarray, n: Any) -> np.ndarray:
    """:func:`cr2_se_df`'s standard error for many rows at once: ``sqrt(sum_g S_g^2 a_g) / n`` over the last axis
    of ``resid_sums`` (shape ``(..., G)``), ``a`` the factors of the same bins (:func:`cr2_weights` or
    :func:`cr2_factors`)."""
    return np.sqrt(cr2_sum(resid_sums, a)) / n


def t_crit(confidence: float, df: float) -> float:
    """Two-sided critical value of t(df), ``scipy.special.stdtrit`` (the normal one, ``ndtri``, when ``df`` is infinite)."""
    q = 0.5 + float(confidence) / 2.0
    return float(ndtri(q) if math.isinf(df) else stdtrit(float(df), q))


def t_p_value(t: float, df: float) -> float:
    """Two-sided p-value of ``t`` under t(df), ``scipy.special.stdtr`` (the normal's, ``ndtr``, when ``df`` is infinite);
    nan for nan."""
    if math.isnan(t):
        return math.nan
    return 2.0 * float(ndtr(-abs(t)) if math.isinf(df) else stdtr(float(df), -abs(t)))


def sign_flip_p(n_clusters: int) -> float:
    """Exact sign-flip p-value when every cluster's residual sum is 0 and the mean is not 0.

    Then each cluster's total is ``n_g * mean``, and of the ``2^G`` sign vectors only "all +" and
    "all -" reach ``|sum_g s_g T_g| >= |sum_g T_g|``: ``p = 2 / 2^G`` (Fisher's randomisation test;
    for 0/1 pairs it equals the exact McNemar p, e.g. 0.0625 for 5 of 5 questions).
    """
    return min(1.0, 2.0 ** (1 - int(n_clusters)))


def check_method(method: str) -> str:
    """``method`` if it is ``"cr2"`` or ``"cr1"``, else an EvalStatsError that names both."""
    if method not in METHODS:
        raise EvalStatsError(
            f"method ({method!r}) must be 'cr2' (CR2 with Satterthwaite degrees of freedom, the default) or "
            "'cr1' (the paper's CR1 / CLT standard error with a normal interval)"
        )
    return method


def clt_se(sum_sq_resid: float, n: int) -> float:
    """CLT standard error ``sqrt( sum (s_i - mean)^2 / (n (n-1)) )`` (Miller 2024, arXiv:2411.00640, Eq. 1)."""
    return math.sqrt(sum_sq_resid / (n * (n - 1)))  # sample sd (ddof=1) / sqrt(n)


def check_n_clusters(n_clusters: int) -> None:
    """Reject fewer than 2 clusters: a clustered standard error needs at least two."""
    if n_clusters < 2:
        raise EvalStatsError(
            f"clusters has {n_clusters} distinct label(s): a clustered standard error needs at least 2 "
            "clusters; pass clusters=None if the questions are independent, or a finer grouping"
        )


def few_clusters_notes(n_clusters: int, method: str = "cr2", df: float = math.inf, *,
                       stacklevel: int = 3) -> tuple[str, ...]:
    """``()`` with enough clusters; else the caution, also issued as an :class:`EvalStatsWarning`.

    With ``method="cr1"`` (normal reference) the caution starts below :data:`MIN_CLUSTERS`; with CR2
    and Satterthwaite df the interval holds its level, so the note only says how few clusters (and
    degrees of freedom) there are, below :data:`MIN_CLUSTERS_CR2`. The warning is attributed to the
    code that called the public function (``summarize``, ``compare``) which called this helper.
    """
    if method == "cr2":
        if n_clusters >= MIN_CLUSTERS_CR2:
            return ()
        tail = ("a check with wild_cluster_bootstrap is worthwhile" if n_clusters >= 6 else
                "with so few clusters the wild cluster bootstrap is no better (it covered less than CR2 in "
                "simulations with 2 clusters)")
        note = (
            f"only {n_clusters} clusters ({df:.1f} degrees of freedom): the CR2 interval accounts for this "
            f"and is wide; {tail}"
        )
    elif n_clusters >= MIN_CLUSTERS:
        return ()
    else:
        note = (
            f"only {n_clusters} clusters: with fewer than about {MIN_CLUSTERS} the CR1 standard error with a "
            "normal interval tends to be too small; use method='cr2' (the default), or compare with "
            "wild_cluster_bootstrap"
        )
    warnings.warn(note, EvalStatsWarning, stacklevel=stacklevel)
    return (note,)
