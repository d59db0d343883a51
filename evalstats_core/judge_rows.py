""":func:`~evalstats_core.judge.ppi_mean` for many evals at once (rows), for coverage simulations and the lab.

==============================  =====================================================================
``ppi_rows(f, h, lab, codes)``  row-wise ``(estimate, se, df, lam, ci_low, ci_high)``: each row one
                                eval, the same numbers :func:`~evalstats_core.judge.ppi_mean` gives it alone
``human_only(y, groups, level)`` the human labels' own summary (``summarize``), or None
``human_only_counts(...)``      the same rule for rows of unclustered 0/1 labels, by their counts
``pair_human_only(ya, yb, ...)`` the labelled rows' own paired interval of A - B (``compare``), or None
``HUMAN_ONLY``                  what the corrected interval does when the human labels alone give a narrower one
==============================  =====================================================================

The cluster codes are shared by all rows (the simulated designs fix the clusters and draw the labelled
subset afresh). Without clusters the CR2 standard error with singleton clusters is the two-sample
variance and its Bell-McCaffrey df is Welch's; with clusters the K x K matrices of the df are built for
every row at once (K is small in simulations). Tests check every number against the one-eval code.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy.special import stdtrit

from ._clusters import hat_complement
from ._results import Comparison, Summary
from .clustering import summarize
from .comparison import compare
from .errors import EvalStatsError, EvalStatsWarning
from .judge_interval import effective_floor, pair_count_terms, small_count_terms

__all__ = ["ppi_rows", "ppi_pair_rows", "human_only", "human_only_counts", "pair_human_only", "HUMAN_ONLY"]

#: Issue 39's criterion, held per eval: the corrected interval of a model (``lam="auto"``) is never wider than
#: the human labels' own interval (``summarize`` on the labelled rows alone, as the judge section shows it). PPI++
#: with ``lam = 0`` *is* the human labels alone, so where their own interval is the narrower one the estimate
#: is theirs: ``lam = 0``, their mean, SE, df and interval. It happens where the judge tells the humans little
#: (a judge no better than chance, or few labels near 0%/100% in few clusters), where the t arms and the 0/1
#: small-count terms of the corrected interval are wider than Wilson's (or the clustered 0/1 rule's) interval
#: on the labels alone. Before: 5 of issue 39's 72 grid cells were up to 3% wider on average
#: (``bench/results/judge39_grid_2000.txt``); after: none, coverage in ``bench/results/judge39_grid_human.txt``.
HUMAN_ONLY = "the human labels alone give the narrower interval: lam = 0"


def human_only(y: np.ndarray, groups: Any, level: float) -> Summary | None:
    """``summarize`` of the human labels ``y`` alone (``groups`` their clusters or None), as the judge section shows
    it; None when they give no interval of their own (e.g. every label in one cluster)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        try:
            return summarize(y, groups, confidence=level)
        except EvalStatsError:
            return None


def pair_human_only(ya: np.ndarray, yb: np.ndarray, groups: Any, level: float) -> Comparison | None:
    """The labelled rows' own paired interval of A - B (``compare`` of the labels ``ya``, ``yb`` on the questions
    labelled for both, ``groups`` their clusters or None: the paired rule the analysis would use on them alone,
    e.g. Tango's for 0/1), or None when they give none (e.g. every label in one cluster)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        try:
            return compare(ya, yb, groups, confidence=level)
        except EvalStatsError:
            return None


def _narrower(s: Summary | Comparison | None, low: float, high: float) -> bool:
    """Whether the human labels' own interval ``s`` is narrower than ``(low, high)`` (and has a width)."""
    return s is not None and np.isfinite(s.ci_low) and np.isfinite(s.ci_high) and 0 < s.ci_high - s.ci_low < high - low


def _row_mean(x: np.ndarray, mask: np.ndarray, count: np.ndarray) -> np.ndarray:
    return np.where(mask, x, 0.0).sum(1) / np.maximum(count, 1)


def ppi_rows(f: np.ndarray, h: np.ndarray, lab: np.ndarray, codes: Any = None, *, level: float = 0.95,
             small_counts: bool = True) -> tuple[np.ndarray, ...]:
    """Row-wise PPI++ with the variance-optimal ``lam`` (``ppi_mean(..., lam="auto")`` per row), the human labels
    alone where their own interval is narrower (:data:`HUMAN_ONLY`; with ``small_counts``, as ``ppi_mean``).

    Parameters
    ----------
    f, h, lab : ndarray, shape (rows, n_total)
        Judge scores, human labels (read only where ``lab``; anything elsewhere) and the labelled mask.
        Every row needs at least 2 labelled and 2 unlabelled questions.
    codes : ndarray of int, shape (n_total,), optional
        Cluster codes 0..K-1 shared by the rows; None for independent questions.
    level : float
        Confidence level.
    small_counts : bool
        Apply the 0/1 small-count terms (as ``ppi_mean``; ``ppi_compare`` does not). Rows whose judge
        and human scores are not all 0/1 never get them.

    Returns
    -------
    estimate, se, df, lam, ci_low, ci_high : ndarray, shape (rows,)
    """
    f, h, lab = np.asarray(f, dtype=float), np.where(lab, h, 0.0), np.asarray(lab, dtype=bool)
    unl = ~lab
    n, big_n = lab.sum(1).astype(float), unl.sum(1).astype(float)
    fl, yl, fu = _row_mean(f, lab, n), _row_mean(h, lab, n), _row_mean(f, unl, big_n)
    cov = _row_mean((h - yl[:, None]) * (f - fl[:, None]), lab, n)
    var_f = f.var(1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(np.where(var_f > 0, cov / ((1.0 + n / big_n) * var_f), 0.0), 0.0, 1.0)
    z = np.where(lab, h - lam[:, None] * f, lam[:, None] * f)
    zl, zu = _row_mean(z, lab, n), _row_mean(z, unl, big_n)
    est = lam * fu + zl
    e = z - np.where(lab, zl[:, None], zu[:, None])
    s_l2 = _row_mean(e * e, lab, n - 1)
    s_u2 = _row_mean(e * e, unl, big_n - 1)
    if codes is None:
        v_l, v_u = s_l2 / n, s_u2 / big_n
        var = v_l + v_u
        with np.errstate(divide="ignore", invalid="ignore"):
            df = np.where(var > 0, var**2 / (v_l**2 / (n - 1) + v_u**2 / (big_n - 1)), n - 1.0)
        se = np.sqrt(var)
    else:
        se, df = _cr2_rows(e, lab, np.asarray(codes), n, big_n, s_l2, s_u2)
    t = np.where(se > 0, stdtrit(df, 0.5 + level / 2.0), 0.0)
    lo2 = hi2 = (t * se) ** 2
    if small_counts:
        zero_one = np.all((f == 0) | (f == 1), axis=1) & np.all(~lab | (h == 0) | (h == 1), axis=1)
        d_lo, d_hi = small_count_terms(h, f, lab, level)
        lo2, hi2 = lo2 + np.where(zero_one, d_lo, 0.0), hi2 + np.where(zero_one, d_hi, 0.0)
    low, high = est - np.sqrt(np.maximum(lo2, 0.0)), est + np.sqrt(np.maximum(hi2, 0.0))
    if small_counts and codes is not None:  # clustered 0/1 near a bound: the effective-count floor (ppi_interval)
        f_low, f_high = effective_floor(est, np.where(zero_one, se, 0.0), df, level, low, high)
        low, high = np.where(zero_one, f_low, low), np.where(zero_one, f_high, high)
    if small_counts:  # a model's interval never wider than the human labels' own (HUMAN_ONLY): one eval at a time
        est, se, df, lam, low, high = (np.array(x, dtype=float) for x in (est, se, df, lam, low, high))
        groups = None if codes is None else np.asarray(codes)
        by_count = zero_one if groups is None else np.zeros(f.shape[0], dtype=bool)
        if by_count.any():  # unclustered 0/1 labels: by their counts
            parts = (est[by_count], se[by_count], df[by_count], lam[by_count], low[by_count], high[by_count])
            got = human_only_counts(h[by_count].sum(1), n[by_count], level, *parts)
            for x, v in zip((est, se, df, lam, low, high), got, strict=True):
                x[by_count] = v
        for r in np.flatnonzero(~by_count):
            row = lab[r]
            s = human_only(h[r, row], None if groups is None else groups[row], level)
            if _narrower(s, low[r], high[r]):
                est[r], se[r], df[r], lam[r], low[r], high[r] = s.mean, s.se, s.df, 0.0, s.ci_low, s.ci_high
    return est, se, df, lam, low, high


def human_only_counts(ones: Any, labels: Any, level: float, est: np.ndarray, se: np.ndarray, df: np.ndarray,
                      lam: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, ...]:
    """:data:`HUMAN_ONLY` for rows of unclustered 0/1 labels given by their counts (``ones`` of ``labels``):
    copies of ``est, se, df, lam, low, high`` where each row whose labels' own interval is narrower takes their
    summary. That summary depends on the labels only through the two counts, so it is made once per pair (the
    judge lab's 1,200 rows hold about 100 pairs), on the labels in one order (equal to a row's own to rounding)."""
    ones, labels = np.asarray(ones).astype(int), np.asarray(labels).astype(int)
    out = [np.array(x, dtype=float) for x in (est, se, df, lam, low, high)]
    for k, m in set(zip(ones.tolist(), labels.tolist(), strict=True)):
        s = human_only(np.r_[np.ones(k), np.zeros(m - k)], None, level)
        if s is None or not (np.isfinite(s.ci_low) and np.isfinite(s.ci_high)) or s.ci_high <= s.ci_low:
            continue
        rows = (ones == k) & (labels == m) & (s.ci_high - s.ci_low < out[5] - out[4])
        for x, v in zip(out, (s.mean, s.se, s.df, 0.0, s.ci_low, s.ci_high), strict=True):
            x[rows] = v
    return tuple(out)


def ppi_pair_rows(fa: np.ndarray, ya: np.ndarray, fb: np.ndarray, yb: np.ndarray, lab: np.ndarray,
                  codes: Any = None, *, level: float = 0.95) -> tuple[np.ndarray, ...]:
    """Row-wise :func:`~evalstats_core.judge.ppi_compare` of A - B, labels on the same questions (``lab``):
    :func:`ppi_rows` of the differences, each arm widened by
    :func:`~evalstats_core.judge_interval.pair_count_terms` where every score is 0/1, then the labelled
    rows' own paired interval where it is narrower (:func:`pair_human_only`, :data:`HUMAN_ONLY`; all arrays
    ``(rows, n_total)``). Returns
    ``estimate, se, df, lam, ci_low, ci_high``."""
    fa, fb = np.asarray(fa, dtype=float), np.asarray(fb, dtype=float)
    ya, yb, lab = np.where(lab, ya, 0.0), np.where(lab, yb, 0.0), np.asarray(lab, dtype=bool)
    est, se, df, lam, _, _ = ppi_rows(fa - fb, ya - yb, lab, codes, level=level, small_counts=False)
    t = np.where(se > 0, stdtrit(df, 0.5 + level / 2.0), 0.0)
    arm2 = (t * se) ** 2
    zero_one = np.ones(est.shape, dtype=bool)
    for x in (fa, fb, ya, yb):
        zero_one &= np.all((x == 0) | (x == 1), axis=1)
    d_lo, d_hi = pair_count_terms(ya, fa, yb, fb, lab, level)
    low = est - np.sqrt(arm2 + np.where(zero_one, d_lo, 0.0))
    high = est + np.sqrt(arm2 + np.where(zero_one, d_hi, 0.0))
    groups = None if codes is None else np.asarray(codes)
    for r in range(est.shape[0]):  # HUMAN_ONLY for the pair: never wider than the labelled rows' own paired interval
        row = lab[r]
        c = pair_human_only(ya[r, row], yb[r, row], None if groups is None else groups[row], level)
        if _narrower(c, low[r], high[r]):
            est[r], se[r], df[r], lam[r], low[r], high[r] = c.diff, c.se, c.df, 0.0, c.ci_low, c.ci_high
    return est, se, df, lam, low, high


def _cr2_factor(sizes: np.ndarray, total: np.ndarray) -> np.ndarray:
    share = hat_complement(sizes, total[:, None])  # CR2's I - H_gg on each part's constant direction
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(share > 0, 1.0 / (total[:, None] * np.sqrt(np.where(share > 0, share, 1.0))), 0.0)


def _cr2_rows(e: np.ndarray, lab: np.ndarray, codes: np.ndarray, n: np.ndarray, big_n: np.ndarray,
              s_l2: np.ndarray, s_u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise ``judge._cr2_two_means`` (CR2 SE; Bell-McCaffrey df under the working cluster-effect model)."""
    k = int(codes.max()) + 1
    onehot = np.zeros((codes.size, k))
    onehot[np.arange(codes.size), codes] = 1.0
    unl = ~lab
    a, b = unl @ onehot, lab @ onehot
    c, d = _cr2_factor(a, big_n), _cr2_factor(b, n)
    total = d * (np.where(lab, e, 0.0) @ onehot) + c * (np.where(unl, e, 0.0) @ onehot)
    se = np.sqrt((total * total).sum(1))
    s_l, s_u = np.sqrt(s_l2)[:, None], np.sqrt(s_u2)[:, None]
    diag = s_l2[:, None] * d * d * b + s_u2[:, None] * c * c * a
    q = s_l / np.sqrt(n)[:, None] * b * d
    p = s_u / np.sqrt(big_n)[:, None] * a * c
    # the working intra-cluster correlation of the scaled residuals (judge._working_icc)
    scale = np.where(lab, s_l, s_u)
    use = scale > 0
    r = np.where(use, e / np.where(use, scale, 1.0), 0.0)
    sums, squares, sizes = r @ onehot, (r * r) @ onehot, use @ onehot
    pairs = (sizes * sizes).sum(1) - sizes.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(pairs > 0, ((sums * sums).sum(1) - squares.sum(1)) / pairs, 0.0)
    rho = np.clip(np.nan_to_num(rho), 0.0, 0.99)[:, None, None]
    eye = np.eye(k)
    alpha = s_u * c * a + s_l * d * b
    big_a = (eye * alpha[:, None, :] - a[:, :, None] * (s_u * c * a / big_n[:, None])[:, None, :]
             - b[:, :, None] * (s_l * d * b / n[:, None])[:, None, :])
    base = eye * diag[:, None, :] - p[:, :, None] * p[:, None, :] - q[:, :, None] * q[:, None, :]
    bmat = (1.0 - rho) * base + rho * np.einsum("rij,rik->rjk", big_a, big_a)
    tr_b = np.trace(bmat, axis1=1, axis2=2)
    tr_b2 = (bmat * bmat).sum((1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(tr_b2 > 0, tr_b * tr_b / tr_b2, n - 1.0)
    return se, df
