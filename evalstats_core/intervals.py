"""One model's uncertainty: standard errors and intervals for a mean score.

==========================  ===================================================================
``score_kind(scores)``      ``"binary"`` (every score 0 or 1) or ``"continuous"``: which SE applies
``is_binary(scores)``       the same test as a bool
``se_clt(scores)``          sample SD / sqrt(n): any scores (partial credit, F1, probabilities)
``se_bernoulli(...)``       sqrt(p(1-p)/n): genuinely 0/1 scores only
``normal_ci(mean, se)``     mean +/- z * SE, the large-n interval for any estimate with an SE
``interval_from_se(...)``   mean +/- t(df) * SE (z when df is None): an interval from a reported SE
``proportion_ci(k, n)``     one interval for k successes out of n (wald, wilson, clopper_pearson,
                            bayes)
``proportion_ci_arrays``    the same, vectorised over arrays of k and n (simulations, charts)
==========================  ===================================================================

Which to use: with hundreds of 0/1-scored questions every method agrees. With fewer than a few hundred,
or an accuracy near 0% or 100%, use ``wilson`` or ``bayes`` (Bowyer et al. 2025); ``wald`` (the CLT
interval) is kept because the app teaches how it fails.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from scipy.special import betaincinv, chdtri

from ._clusters import t_crit
from ._results import Interval
from ._validate import as_scores, check_confidence, check_finite, check_positive_int, z_for
from .errors import EvalStatsError
from .vocabulary import INTERVAL_LABELS, normal_label

__all__ = [
    "PROPORTION_METHODS",
    "interval_from_se",
    "is_binary",
    "normal_ci",
    "proportion_ci",
    "proportion_ci_arrays",
    "score_kind",
    "se_bernoulli",
    "se_clt",
    "se_range",
]


# ---------------------------------------------------------------------------------------------------
# which standard error applies
# ---------------------------------------------------------------------------------------------------


def is_binary(scores: Any) -> bool:
    """True when every score is exactly 0 or 1 (so the Bernoulli SE applies).

    Examples
    --------
    >>> is_binary([0, 1, 1.0]), is_binary([0, 0.5, 1])
    (True, False)
    """
    arr = as_scores(scores)
    return bool(np.all((arr == 0.0) | (arr == 1.0)))


def score_kind(scores: Any) -> Literal["binary", "continuous"]:
    """Classify scores as ``"binary"`` (all 0 or 1) or ``"continuous"`` (anything else).

    Notes
    -----
    The kind decides the standard error. For genuinely 0/1 scores the Bernoulli SE
    ``sqrt(p(1-p)/n)`` (Miller 2024, Eq. 2) and the CLT SE ``sd/sqrt(n)`` (Eq. 1) agree up to the
    factor ``sqrt(n/(n-1))``, and the proportion intervals of :func:`proportion_ci` apply.
    For continuous scores (partial credit, F1, next-token probabilities, averages of resamples)
    only the CLT SE is right: ``p(1-p)`` is the *largest* variance a score in [0, 1] with mean p can
    have, so the Bernoulli formula on fractional scores gives intervals that are too wide. The Llama 3
    report made exactly this mistake (Miller 2024, Sec. 2.1).

    Examples
    --------
    >>> score_kind([1, 0, 1]), score_kind([0.2, 0.9, 1.0])
    ('binary', 'continuous')
    """
    return "binary" if is_binary(scores) else "continuous"


# ---------------------------------------------------------------------------------------------------
# standard errors and the normal interval
# ---------------------------------------------------------------------------------------------------


def se_clt(scores: Any) -> float:
    """Standard error of the mean score from the Central Limit Theorem: sample SD / sqrt(n).

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per question, any real values; at least 2.

    Returns
    -------
    float
        ``sqrt(sum((s_i - mean)^2) / (n (n-1)))``.

    Notes
    -----
    Use this for any score type; for 0/1 scores :func:`se_bernoulli` is the textbook special case.
    It assumes independent questions: for questions grouped in passages use the clustered SE
    (``evalstats_core.clustering``); for several answers per question, average them first.

    References
    ----------
    Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, Eq. 1.

    Examples
    --------
    >>> round(se_clt([0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]), 4)
    0.0613
    """
    arr = as_scores(scores, min_n=2)
    shifted = arr - arr[0]  # same SD; exactly 0 for constant scores, and no cancellation near 1
    return float(np.std(shifted, ddof=1) / math.sqrt(arr.size))  # Miller 2024, Eq. 1


def se_bernoulli(scores_or_mean: Any, n: int | None = None) -> float:
    """Standard error of an accuracy from 0/1 scores: ``sqrt(p(1-p)/n)``.

    Parameters
    ----------
    scores_or_mean : array_like of 0/1, shape (n,), or float
        Either the 0/1 scores themselves (then leave ``n`` out), or an accuracy ``p`` in [0, 1]
        together with ``n``.
    n : int, optional
        Number of questions, when the first argument is an accuracy.

    Returns
    -------
    float

    Notes
    -----
    Only for genuinely binary scores; on fractional scores it overstates the SE (see
    :func:`score_kind`), so passing non-0/1 scores raises and names :func:`se_clt` instead. The
    normal interval built on it, :func:`normal_ci` or ``proportion_ci(interval="wald")``, is poor below
    a few hundred questions or near 0%/100%; prefer Wilson or Bayes there.

    References
    ----------
    Miller 2024, arXiv:2411.00640, Eq. 2.

    Examples
    --------
    >>> round(se_bernoulli(0.655, 5000), 4)
    0.0067
    """
    if n is None:
        arr = as_scores(scores_or_mean)
        off = np.flatnonzero((arr != 0.0) & (arr != 1.0))
        if off.size:
            i = int(off[0])
            raise EvalStatsError(
                f"se_bernoulli needs 0/1 scores but scores[{i}] is {float(arr[i])!r}; "
                "for partial-credit or averaged scores use se_clt(scores)"
            )
        p, size = float(arr.mean()), arr.size
    else:
        if np.ndim(scores_or_mean) != 0:
            raise EvalStatsError(
                "se_bernoulli takes either 0/1 scores or (mean, n), not an array together with n; "
                "drop n to pass scores"
            )
        p = check_finite(scores_or_mean, "mean")
        if not 0.0 <= p <= 1.0:
            raise EvalStatsError(f"mean ({scores_or_mean!r}) must be an accuracy between 0 and 1")
        size = check_positive_int(n, "n")
    return math.sqrt(p * (1.0 - p) / size)  # Miller 2024, Eq. 2


def _mean_and_se(mean: float, se: float) -> tuple[float, float]:
    """The checked estimate and standard error of :func:`normal_ci` and :func:`interval_from_se`."""
    m = check_finite(mean, "mean")
    s = check_finite(se, "se")
    if s < 0.0:
        raise EvalStatsError(f"se ({se!r}) must not be negative")
    return m, s


def normal_ci(mean: float, se: float, *, confidence: float = 0.95) -> Interval:
    """Normal-approximation interval ``mean +/- z * se``.

    Parameters
    ----------
    mean : float
        The estimate (a mean score, a difference of means, ...).
    se : float
        Its standard error (>= 0).
    confidence : float, default 0.95
        Two-sided confidence level; ``z`` is the ``(1+confidence)/2`` normal quantile (1.96).

    Returns
    -------
    Interval
        ``(mean - z se, mean + z se)``; not clipped to [0, 1].

    Notes
    -----
    The right interval when the estimate is approximately normal: hundreds of independent questions,
    or a clustered / paired SE with enough clusters. For a 0/1 accuracy from few questions use
    :func:`proportion_ci` with ``interval="wilson"`` or ``"bayes"`` instead.

    References
    ----------
    Miller 2024, arXiv:2411.00640, Eq. 3.

    Examples
    --------
    >>> low, high = normal_ci(0.655, 0.0067)
    >>> round(low, 3), round(high, 3)
    (0.642, 0.668)
    """
    m, s = _mean_and_se(mean, se)
    half = z_for(confidence) * s  # Miller 2024, Eq. 3
    return Interval(m - half, m + half)


def interval_from_se(mean: float, se: float, *, df: float | None = None, confidence: float = 0.95) -> Interval:
    """Interval ``mean +/- t_df * se`` from an estimate and its standard error (normal when ``df`` is None).

    Use it when all you have is a mean and an SE, such as the numbers a report prints, a paired SE from a
    formula, or a clustered SE with its degrees of freedom; with per-question scores, :func:`summarize`
    and :func:`compare` compute the SE and its df themselves.

    Parameters
    ----------
    mean : float
        The estimate (a mean score, a difference of means, ...).
    se : float
        Its standard error (>= 0).
    df : float or None, default None
        Degrees of freedom of the t quantile: questions minus one, clusters minus one, or a
        Satterthwaite df (need not be whole). None or ``inf``: the normal quantile, as :func:`normal_ci`.
    confidence : float, default 0.95
        Two-sided confidence level.

    Returns
    -------
    Interval
        ``(mean - q se, mean + q se)`` with ``q`` the ``(1+confidence)/2`` quantile of t(df); not clipped.

    Notes
    -----
    Student's t allows for an SE that was itself estimated from the data; with few questions or few
    clusters its quantile is well above 1.96 (2.262 on 9 df), with thousands it is 1.96 to two decimals.

    References
    ----------
    Miller 2024, arXiv:2411.00640, Eq. 3 (the normal interval) and Sec. 2.2 (t for small samples).

    Examples
    --------
    MGSM in Miller (2024, Table 5): a gap of -2.7 points, paired SE 1.79 points, 250 clusters.

    >>> low, high = interval_from_se(-0.027, 0.0179, df=249)
    >>> round(100 * low, 1), round(100 * high, 1)
    (-6.2, 0.8)
    >>> interval_from_se(0.655, 0.0067) == normal_ci(0.655, 0.0067)
    True
    """
    if df is None:
        return normal_ci(mean, se, confidence=confidence)
    try:
        dof = float(df)
    except (TypeError, ValueError):
        raise EvalStatsError(f"df ({df!r}) must be a number of degrees of freedom such as 9, or None") from None
    if not dof > 0.0:  # also refuses NaN
        raise EvalStatsError(f"df ({df!r}) must be positive (questions or clusters minus one); use None for z")
    m, s = _mean_and_se(mean, se)

    half = t_crit(check_confidence(confidence), dof) * s  # Student's t interval on df degrees of freedom
    return Interval(m - half, m + half)


# ---------------------------------------------------------------------------------------------------
# intervals for a proportion
# ---------------------------------------------------------------------------------------------------

# Their arguments checked: the interval's name, the Beta prior, the success / trial counts, each refused with one
# message naming the bad value (_proportion_checks.py until issue 38 merged it back: it served proportion_ci
# and proportion_ci_arrays only).

#: The proportion interval methods.
PROPORTION_METHODS: tuple[str, ...] = ("wald", "wilson", "clopper_pearson", "bayes")

# names people reach for that we spell differently; the error message points to ours
_METHOD_HINTS = {
    "normal": "'wald' (the normal / CLT interval)",
    "clt": "'wald' (the normal / CLT interval)",
    "exact": "'clopper_pearson' (the exact interval)",
    "beta": "'clopper_pearson' (statsmodels calls it 'beta'); for the Beta posterior use 'bayes'",
    "jeffreys": "'bayes' with prior=(0.5, 0.5)",
    "wilsoncc": "'wilson' (no continuity correction is offered)",
}

def _check_method(interval: Any) -> str:
    if isinstance(interval, str) and interval in PROPORTION_METHODS:
        return interval
    valid = ", ".join(repr(m) for m in PROPORTION_METHODS)
    msg = f"interval ({interval!r}) must be one of {valid}"
    if isinstance(interval, str):
        key = interval.strip().lower().replace("-", "_")
        if key in PROPORTION_METHODS:
            msg += f"; interval names are lowercase, use {key!r}"
        elif key in _METHOD_HINTS:
            msg += f"; use {_METHOD_HINTS[key]}"
    raise EvalStatsError(msg)


def _check_prior(prior: Any) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise EvalStatsError(f"prior ({prior!r}) must be two numbers (a, b), e.g. (1.0, 1.0)") from None
    if not (a > 0.0 and b > 0.0 and math.isfinite(a) and math.isfinite(b)):
        raise EvalStatsError(
            f"prior ({prior!r}) must be two positive finite numbers (a, b); (1, 1) is uniform"
        )
    return a, b


def _as_counts(successes: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    """Broadcast ``successes`` and ``n`` to float64 arrays of whole numbers with 0 <= k <= n, n >= 1."""
    arrays = []
    for value, name in ((successes, "successes"), (n, "n")):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise EvalStatsError(f"{name} ({value!r}) must be whole numbers") from None
        bad = ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            i = _first(bad)
            raise EvalStatsError(f"{_label(name, arr, i)} ({float(arr[i])!r}) must be a whole number")
        arrays.append(arr)
    try:
        k, size = np.broadcast_arrays(*arrays)
    except ValueError:
        raise EvalStatsError(
            f"successes (shape {arrays[0].shape}) and n (shape {arrays[1].shape}) do not broadcast"
        ) from None

    def show(name: str, i: tuple[int, ...]) -> str:
        arr = k if name == "successes" else size
        return f"{_label(name, arrays[name == 'n'], i)} ({int(arr[i])})"

    if (size < 1).any():
        i = _first(size < 1)
        raise EvalStatsError(f"{show('n', i)} must be at least 1")
    if (k < 0).any():
        i = _first(k < 0)
        raise EvalStatsError(f"{show('successes', i)} must not be negative")
    if (k > size).any():
        i = _first(k > size)
        raise EvalStatsError(f"{show('successes', i)} must not be greater than {show('n', i)}")
    return k, size


def _first(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (``()`` for a 0-d mask)."""
    return tuple(int(j) for j in np.argwhere(mask)[0])


def _label(name: str, original: np.ndarray, index: tuple[int, ...]) -> str:
    """``name`` for a scalar input, ``name[i, j]`` (index in the broadcast shape) for an array."""
    return name if original.ndim == 0 else f"{name}[{', '.join(map(str, index))}]"



def proportion_ci(
    successes: int,
    n: int,
    *,
    interval: str = "wilson",
    confidence: float = 0.95,
    prior: tuple[float, float] = (1.0, 1.0),
    clip: bool = False,
) -> Interval:
    """Interval for an accuracy from ``successes`` correct answers out of ``n`` questions.

    Parameters
    ----------
    successes : int
        Number of questions answered correctly, ``0 <= successes <= n``.
    n : int
        Number of questions, ``>= 1``.
    interval : {"wilson", "wald", "clopper_pearson", "bayes"}, default "wilson"
        ``wald``: ``p +/- z sqrt(p(1-p)/n)``, the CLT interval. It can leave [0, 1] and has zero
        width at 0/n and n/n; it is not clipped unless ``clip=True``.
        ``wilson``: the score interval, inverting the normal test with the SE at the tested value.
        ``clopper_pearson``: the exact interval from Beta quantiles; never under-covers, often wide.
        ``bayes``: the equal-tailed credible interval of the posterior ``Beta(a+k, b+n-k)``, with the
        lower end 0 at k = 0 and the upper end 1 at k = n (as Clopper-Pearson), so that an accuracy of
        exactly 0% or 100% is covered.
    confidence : float, default 0.95
        Two-sided confidence (or credible) level.
    prior : (float, float), default (1.0, 1.0)
        Beta prior ``(a, b)`` for ``interval="bayes"``; the uniform Beta(1, 1) by default, (0.5, 0.5)
        gives the Jeffreys interval. Ignored by the other intervals.
    clip : bool, default False
        Clip the interval to [0, 1] (only ever changes ``wald``).

    Returns
    -------
    Interval
        ``(low, high)`` as plain floats.

    Notes
    -----
    With ``p = k/n`` and ``z`` the normal quantile:

    * Wald: ``p +/- z sqrt(p(1-p)/n)`` (Miller 2024, Eq. 2-3).
    * Wilson: ``(p + z^2/2n +/- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` (Wilson 1927).
    * Clopper-Pearson: ``[B(a/2; k, n-k+1), B(1-a/2; k+1, n-k)]``, B the Beta quantile, with the
      lower end 0 at k = 0 and the upper end 1 at k = n (Clopper & Pearson 1934).
    * Bayes: ``[B(a/2; a0+k, b0+n-k), B(1-a/2; a0+k, b0+n-k)]`` (Bowyer et al. 2025), with the
      lower end 0 at k = 0 and the upper end 1 at k = n: the equal-tailed posterior interval at 10/10
      is (0.764, 0.998) and would never cover a true accuracy of 100%.

    With fewer than a few hundred questions Wald under-covers badly; use Wilson or Bayes
    (Bowyer et al. 2025; Brown, Cai & DasGupta 2001). For many intervals at once use
    :func:`proportion_ci_arrays`.

    References
    ----------
    Wilson 1927, JASA 22(158), 209-212. Clopper & Pearson 1934, Biometrika 26(4), 404-413.
    Brown, Cai & DasGupta 2001, Statistical Science 16(2), 101-133, Sec. 2 and 4.
    Bowyer, Aitchison & Ivanova 2025, arXiv:2503.01747, Sec. 3 ("Beta-Binomial model").

    Examples
    --------
    >>> low, high = proportion_ci(3, 10)
    >>> round(low, 4), round(high, 4)
    (0.1078, 0.6032)
    >>> proportion_ci(0, 10, interval="wald")
    Interval(low=0.0, high=0.0)
    """
    for value, name in ((successes, "successes"), (n, "n")):
        if np.ndim(value) != 0:
            raise EvalStatsError(
                f"{name} must be a single whole number (got shape {np.shape(value)}); "
                "use proportion_ci_arrays for many intervals at once"
            )
    low, high = proportion_ci_arrays(
        successes, n, interval=interval, confidence=confidence, prior=prior, clip=clip
    )
    return Interval(float(low), float(high))


def proportion_ci_arrays(
    successes: Any,
    n: Any,
    *,
    interval: str = "wilson",
    confidence: float = 0.95,
    prior: tuple[float, float] = (1.0, 1.0),
    clip: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`proportion_ci`: intervals for arrays of successes and question counts.

    Parameters
    ----------
    successes, n : array_like of int
        Broadcast against each other (e.g. ``successes=np.arange(n + 1)`` with a scalar ``n`` gives
        the interval for every possible outcome). ``0 <= successes <= n``, ``n >= 1``.
    interval, confidence, prior, clip
        As in :func:`proportion_ci`.

    Returns
    -------
    low, high : numpy.ndarray of float64
        Both of the broadcast shape of ``successes`` and ``n``.

    Examples
    --------
    >>> low, high = proportion_ci_arrays([0, 5, 10], 10, interval="clopper_pearson")
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.0, 0.187, 0.692], [0.308, 0.813, 1.0])
    """
    method = _check_method(interval)
    conf = check_confidence(confidence)
    k, size = _as_counts(successes, n)
    tail = (1.0 - conf) / 2.0
    if method == "wald":
        p = k / size
        half = z_for(conf) * np.sqrt(p * (1.0 - p) / size)  # Miller 2024, Eq. 2-3
        low, high = p - half, p + half
    elif method == "wilson":
        z2 = z_for(conf) ** 2
        p = k / size
        denom = 1.0 + z2 / size
        centre = (p + z2 / (2.0 * size)) / denom  # Wilson 1927: the score interval's centre
        half = math.sqrt(z2) / denom * np.sqrt(p * (1.0 - p) / size + z2 / (4.0 * size**2))
        # exact at the edges (k = 0 -> 0, k = n -> 1); clipping only removes rounding error
        low = np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(k == size, 1.0, np.clip(centre + half, 0.0, 1.0))
    elif method == "clopper_pearson":
        # Clopper & Pearson 1934: Beta(k, n-k+1) and Beta(k+1, n-k) quantiles; the parameters are
        # made safe (1) at the edges, where the bound is fixed at 0 or 1 instead
        low = np.where(k == 0, 0.0, betaincinv(np.maximum(k, 1.0), size - k + 1.0, tail))
        high = np.where(k == size, 1.0, betaincinv(k + 1.0, np.maximum(size - k, 1.0), 1.0 - tail))
    else:  # bayes
        a, b = _check_prior(prior)
        # Bowyer et al. 2025: posterior Beta(a+S, b+N-S); the boundary is kept at 0/n and n/n
        low = np.where(k == 0, 0.0, betaincinv(a + k, b + size - k, tail))
        high = np.where(k == size, 1.0, betaincinv(a + k, b + size - k, 1.0 - tail))
    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    if clip:
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    return low, high


def _model_interval(s: Any, kind: str, interval: str, proportion: bool, method: str,
                    clustered: bool, confidence: float) -> tuple[float, float, str]:
    """``(low, high, label)`` of one model's interval by the ``interval`` rule (see :data:`INTERVALS`)."""
    chosen = interval
    if interval == "auto":
        if s.interval != "normal":  # summarize applied the 0/1 rule
            return s.ci_low, s.ci_high, INTERVAL_LABELS[s.interval]
        chosen = "normal"
    if chosen == "normal":
        return s.ci_low, s.ci_high, normal_label(method, clustered)
    if not proportion:
        why = "clusters" if clustered else ("resamples" if kind == "resampled" else "scores not 0/1")
        return (s.ci_low, s.ci_high, f"{normal_label(method, clustered)}; {INTERVAL_LABELS[chosen]} needs "
                f"independent 0/1 answers ({why})")
    k = int(round(s.mean * s.n))  # 0/1 scores, one answer each: the count of right answers
    low, high = proportion_ci(k, s.n, interval=chosen.replace("-", "_"), confidence=confidence)
    return float(low), float(high), INTERVAL_LABELS[chosen]


def se_range(df: float, confidence: float = 0.95) -> tuple[float, float]:
    """How far an estimated SE on ``df`` degrees of freedom can be from the true one: the ratio
    ``SE_hat / SE`` lies in ``sqrt(chi2_{df, a/2} / df)`` to ``sqrt(chi2_{df, 1 - a/2} / df)`` with the
    given confidence (normal scores; Satterthwaite's approximation with clusters).

    >>> [round(x, 2) for x in se_range(3.0)]
    [0.27, 1.77]
    """
    tail = (1.0 - confidence) / 2.0
    return math.sqrt(float(chdtri(df, 1.0 - tail)) / df), math.sqrt(float(chdtri(df, tail)) / df)
