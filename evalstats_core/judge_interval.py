"""The judge-corrected interval of :func:`~evalstats_core.judge.ppi_mean`: ``t`` arms from the CR2 standard
error, with a small-count correction when the judge's and the humans' scores are both 0/1.

==============================  =====================================================================
``ppi_interval(...)``           ``(ci_low, ci_high)`` from the estimate, SE and df of ``ppi_fit``
``small_count_terms(...)``      row-wise additions to the squared arms (simulations use them)
``count_terms(...)``            the same from the labelled 2 x 2 table's counts (the label budget)
``jeffreys_limits(k, m, crit)`` Jeffreys limits of binomial proportions
==============================  =====================================================================
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import betaincinv, ndtr, ndtri, stdtrit

from ._clusters import t_crit

__all__ = ["ppi_interval", "effective_count_limits", "effective_floor", "EFFECTIVE_SKEW", "pair_count_terms", "small_count_terms", "count_terms", "jeffreys_limits"]


def ppi_interval(f: np.ndarray, h: np.ndarray, lab: np.ndarray, est: float, se: float, df: float,
                 level: float, *, small_counts: bool = True, clustered: bool = False) -> tuple[float, float]:
    """``(ci_low, ci_high)`` of :func:`~evalstats_core.judge.ppi_mean` from
    :func:`~evalstats_core.judge.ppi_fit`'s numbers.

    Graded scores (or ``small_counts=False``, as for a paired difference): ``est -/+ t(df) se``. Judge and
    human scores both 0/1: the same arms, each widened (or narrowed) by the small-count correction of the
    method of variance estimates recovery (MOVER; Zou & Donner 2008, Newcombe 2011). The rectifier
    ``mean_L(Y - lam f)`` splits, given the judge's verdicts on the labelled questions, into
    ``w1 (a - lam) + w0 b`` with ``a = P(Y=1 | f=1)`` (one minus the judge's false-pass share),
    ``b = P(Y=1 | f=0)`` (its false-fail share), ``w1``, ``w0`` the verdicts' shares among the ``n``
    labelled questions and ``m1``, ``m0`` their counts. Each of ``a``, ``b`` is a binomial proportion; the
    part of the arm its count explains, the Wald arm ``z sqrt(p(1-p)/m)``, is replaced by its Jeffreys
    limit at the same level::

        lower^2 = (t se)^2 + sum_{p in a, b} w^2 [(p - l_p)^2 - z^2 p (1 - p) / m]
        upper^2 = (t se)^2 + sum_{p in a, b} w^2 [(u_p - p)^2 - z^2 p (1 - p) / m]

    with ``z`` the normal quantile of ``level`` and ``(l_p, u_p)`` the equal-tailed Jeffreys limits
    (:func:`jeffreys_limits`) at ``level``. The t reference's extra width (few clusters, a small df) stays
    on the rest of the arm; a binomial limit already allows for its own small count. When no labelled
    question is a judge false pass (``a = 1``, easily the case with 40 labels and a lenient judge) the
    Wald arm of ``a`` is 0, and the interval's lower end reaches down by about ``w1 (1 - l_a)``; the
    correction vanishes as the counts grow. The interval is then asymmetric about ``est``; ``se`` stays
    the CR2 standard error of the estimate.

    Coverage (``bench/bench_judge_coverage.py``, 2,000 seeded evals a cell, 2,000 questions, true pass
    rate 0.7; ``bench/results/judge_coverage3_2000.txt``): with 40 labels and a judge of sensitivity
    0.99 and specificity 0.80 the plain t interval covers 89% (in about 8% of such evals no labelled
    question is a false pass and the estimate sits about 6 points high); this one 95%. Of the 60 cells
    (sensitivity 0.6-0.99, specificity 0.5-0.99, 40 to 1,000 labels, with and without 12 unequal
    clusters, and the paired difference) 59 cover between 93% and 97%. Taking the binomial limits at
    the level of t(df) instead, as an earlier version did, made them 99% limits when 12 clusters leave
    df near 5 and pushed two clustered cells above 97%.

    The one cell above 97% is the price of the lenient judge, not a tuning: a near-perfect judge
    (0.99 / 0.99) with 40 labels and independent questions covers 99%. In two evals out of three such a judge makes no error on any of
    the 40 labelled questions; but no false pass among some 30 labelled passes is also what a judge
    with a false-pass share of 8% shows in 8% of evals (0.92^30): the lenient judge above. An interval that
    covers the lenient judge 93% of the time must, on such labels, reach about 5 points down, which
    the near-perfect judge never needs. False passes and false fails are treated alike (swapping
    "pass" and "fail" reflects the interval; the bench's mirror cells show it), so on the same labels
    the interval also reaches up for false fails the labels may have missed, and the near-perfect
    judge's interval then misses on neither side. Zero-count limits at a lower level bring that cell
    below 97% only when the lenient judge falls below 92% (80% limits: 96% and 90%); the likelihood-ratio
    limits, narrower at a zero count, give 98% and 92% (``bench/bench_judge_zero_counts.py``). With 200
    labels every cell covers 94%-96%: label 100 or more questions when the judge may be lenient.

    Between the grid's points the over-coverage is wider than that one cell. Scanning sensitivity and
    specificity over {0.6, 0.8, 0.9, 0.93, 0.95, 0.97, 0.99} at true pass rates 0.3, 0.5 and 0.7 with
    40 labels (147 designs, ``bench/results/judge_zero_counts.txt``), this interval covers 94.8%-99.6%:
    never below 93%, above 97% in 44 designs, every one a judge with sensitivity and specificity both
    0.90 or more (the plain t interval: 79.9%-95.6%, 77 designs below 93%). Other treatments of few
    disagreements do no better there: a pseudo-count variance (the error shares as ``(x + 1/2) / (m +
    1)``, Jeffreys' posterior mean, or Agresti-Coull's ``(x + z^2/2) / (m + z^2)``: 2 designs below 93%
    and 53 above 97%, or none below and 101 above), Tango's score interval for the rectifier of classic
    PPI (a paired difference of proportions; none below, 77 above), the likelihood-ratio limits (4 and
    17) or Jeffreys limits at 70%-90% at a zero count (5-80 below). A two-point argument says why
    no rule that changes only the tables without a disagreement can: a judge with sensitivity 0.93 and specificity 0.99 at a true pass rate of 0.746 has the
    near-perfect judge's pass share, so given a labelled table without a disagreement (11% of its
    evals; the estimate then sits 3.7 points low) the data are distributed as the near-perfect judge's
    (67% of its evals, estimate on the truth). The upper arm on that table that keeps the near-perfect
    judge at 97% (about 2 points) leaves the other at 88%; the one that brings the other to 93% (4.6
    points) gives the near-perfect judge 98.8%. At the fewest labels the issue allows (30), the
    near-perfect judge covers 99.1% too, and with 12 unequal clusters 97.1%; between the grid's
    points with 40 labels, judges of 0.95 / 0.95 to 0.97 / 0.97 cover 97%-98% (95% with clusters)
    (``bench/results/judge_coverage3_2000.txt``, ``between`` rows; the grid's 60 cells are unchanged).

    Split by the disagreements the 40 labels show (``bench/bench_judge_strata.py``,
    ``bench/results/judge_strata.txt``), the near-perfect judge over-covers in every stratum: none (67%
    of evals) 99.2%, one false pass (8%) 99.9%, one false fail (19%) 97.8%, two (5%) 96.8%; the plain t
    interval there: 92.9%, 99.3%, 94.9%, 94.6%. The lenient judge (0.99 / 0.80) reaches 95% although its
    tables without a disagreement (6%) cover 72% and those with one false fail (2%) 12%, because its
    tables with two or more cover 98%. The over-coverage is not forced by the two-point argument alone:
    a mixed-integer program over the labelled tables (``bench/bench_judge_bound.py``) finds a
    deterministic interval that holds the estimate and puts 26 judges with the near-perfect judge's pass
    share (sensitivity and specificity 0.80-0.99, 40 labels) all at 93.0%-94.4%. That rule, fitted to
    those 26 points, covers as little as 83% for judges between them, so it is no replacement.

    Four constructions for ``theta = w1 a + w0 b`` built as a whole were checked with no Monte Carlo error
    (``bench/bench_judge_exact.py`` sums the exact distribution of the labelled table and the unlabelled judge
    passes; ``bench/results/judge_exact.txt``). At 40 labels of 2,000 (true pass rate 0.7) the lenient and the
    near-perfect judge cover: this interval 95.1% and 98.9%; the joint profile-likelihood interval (one
    chi-square(1) for ``w``, ``a`` and ``b``) 91.9% and 99.5%; equal-tailed posterior quantiles under Jeffreys
    priors 94.4% and 99.8% (quadrature: +/-0.3 points); Price & Bonett's (2004) adjusted Wald interval 98.1%
    and 100% (with 0.1-0.75 pseudo-successes instead of 1: 90.7%-96.6% and never below 99.4%); MOVER with
    Wilson limits 98.5% and 99.6%. None narrows the near-perfect judge's interval, because each allows on both
    sides for the errors its labels may have missed. Over 330 judges (sensitivity 0.6-0.99 x specificity
    0.5-0.99 x pass rates 0.3, 0.5, 0.7) this interval covers 94.8%-99.6% at 40 labels (68 above 97%) and
    94.3%-99.6% at 30 of 1,500 (95 above); the plain t interval 80.4%-95.6% (154 below 93%); Price & Bonett
    94.6%-100% (143 above); the profile likelihood 91.8%-99.5% over 49 judges at pass rate 0.7. The
    over-coverage is not forced, though: arms chosen freely per labelled table around the same estimate
    (``bench/bench_judge_arms.py``: L-BFGS on the coverage with the estimate taken as normal given the table,
    fitted to 605 judges at pass rates 0.3-0.7) cover 93.5%-96.4% there and 92.4%-95.8% on 400 judges between
    them that the fit never saw (3 below 93%); recomputed exactly, 93.8%-96.7% on 36 judges at pass rates
    0.35-0.65. Fitted to a coarser grid (three pass rates) the same search leaves 91.3%-97.4% between its
    points, and different fits move different tables (mostly a few common ones with at most one disagreement,
    e.g. one fit shrinks the lower arm after one false fail and no false pass from 6.8 to 2.3 points): a
    lookup table, not a formula. Finding a formula that behaves like these arms is what remains.

    Why the corner over-covers (``bench/bench_judge_floor.py``, ``bench/results/judge7_coverage_2000.txt``):
    not through a conservative guard, but through the few errors 30-40 labels can show. A 0.99 / 0.99 judge
    expects 0.4 errors among 40 labels, so 67% of its evals show none (74% at 30 labels); its estimate then
    sits within about a point of the truth, and those evals cover 99%-100%. The arms on labels without an
    error cannot be much shorter: a judge whose unseen false passes (or false fails) put the estimate ``x``
    off shows none of them among ``n`` labels in about ``exp(-n x)`` of its evals, so arms below about
    ``ln(1 / 0.07) / n`` (6.6 points at 40 labels, before the unlabelled noise) leave some judge with the
    same pass share (at another true pass rate) under 93%; they are about that long already (their squared
    small-count terms halved there, the lenient judge covers 91.7% and the near-perfect one still 98.7%). So
    the near-perfect judge reaches 97% only by missing in about 8% of its evals with one error or more
    (33%), whose estimate sits 2-3 points off; by the same count, arms after one error shorter than about
    ``ln(0.37 / 0.07) / n`` (4.2 points at 40 labels; a judge shows exactly one error of a kind in at most
    37% of its evals) leave some judge under 93%. The window between is narrow (the per-table fit above
    found 96.4%); this rough count (Poisson numbers of errors, ``lam = 1``) does not show it empty. Dropping
    the zero-count term of one kind of error once the labels show an error of the other kind (what those
    fits mostly do) leaves 31 judges above 97% instead of 68 at 40 labels, but two fall below 93% at 30
    labels; not shipped.

    The best allowance on labels without a disagreement, exactly (``bench/bench_judge_allowance.py``,
    ``bench/results/judge9_allowance.txt``; every other table as shipped). Over the 330 judges at 40 labels, the
    least allowance for unseen errors that keeps every judge at 93% leaves 66 above 97% and the near-perfect
    judge (pass rate 0.5) at 99.6% (at 30 labels: 91), whichever form it takes: the shipped one scaled (x 0.83),
    a per-class exact tail bound ``w (1 - a^(1/m))`` that follows the labels in the class the judge could err
    on (``a = 0.13``), or ``ln(1/a) / n`` whatever the class counts (``a = 0.14``). The three agree to 0.0002
    because a class of ``m = w n`` labels hides errors worth ``w x`` of the mean in ``(1 - x)^m``, about
    ``exp(-n w x)``, of evals: the class counts barely matter. Free numbers per class count, shrunk as far as
    the floor lets, leave 59 above 97% (70 at 30 labels). The near-perfect judge's tables with a disagreement
    cover 99.15%, so it reaches 97% only if those without one cover at most 95.9%; they cover 92.4% with no
    allowance at all and 99.8% with the least the floor accepts. A linear program over any arms on those tables,
    chosen per ``m1`` and per bin of 5 unlabelled judge passes and randomised where that helps, still puts the
    576 judges (sensitivity and specificity 0.85-0.99) whose labels can look like the near-perfect judge's at
    93.0%-96.4%; but randomising (or splitting the tables by something uninformative) mixes a long and a short
    arm on the same labels, so this shows only that an allowance kept on part of those tables could fit, not
    that a smooth, monotone one can: none of the above does.

    References
    ----------
    Zou & Donner 2008, "Construction of confidence limits about effect measures: a general approach",
    Statistics in Medicine 27(10). Newcombe 2011, "Propagating imprecision: combining confidence
    intervals from independent sources", Communications in Statistics - Theory and Methods 40(17).
    Brown, Cai & DasGupta 2001, "Interval estimation for a binomial proportion", Statistical Science
    16(2) (the Jeffreys interval). Price & Bonett 2004, "An improved confidence interval for a linear
    function of binomial proportions", Computational Statistics & Data Analysis 45(3).
    """
    t = t_crit(level, df) if se > 0 else 0.0
    lo2 = hi2 = (t * se) ** 2
    # the small-count terms also when se is 0 (every labelled answer agrees with a constant judge): the
    # Jeffreys limits of 0 of m errors, as the plain 0/1 rules give, never an interval of zero width
    if small_counts and _zero_one(h[lab]) and _zero_one(f):
        d_lo, d_hi = small_count_terms(h[None, :], f[None, :], lab[None, :], level)
        lo2, hi2 = lo2 + float(d_lo[0]), hi2 + float(d_hi[0])
        if clustered and se > 0:  # near 0% or 100% with clusters: at least the effective-count limits
            low, high = effective_floor(np.array([est]), np.array([se]), np.array([df]), level,
                                        np.array([est - math.sqrt(max(lo2, 0.0))]),
                                        np.array([est + math.sqrt(max(hi2, 0.0))]))
            return float(low[0]), float(high[0])
    return est - math.sqrt(max(lo2, 0.0)), est + math.sqrt(max(hi2, 0.0))


#: The effective-count floor applies where the binomial skewness ``|1 - 2p| / sqrt(n* p (1 - p))`` on the effective
#: number of questions exceeds this (clustered 0/1 near 0% or 100%; never at a pass rate of 0.5).
EFFECTIVE_SKEW = 0.2


def effective_floor(est: Any, se: Any, df: Any, level: float, low: Any, high: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` widened to at least :func:`effective_count_limits` where the effective binomial skewness
    exceeds :data:`EFFECTIVE_SKEW`; unchanged elsewhere (row-wise arrays)."""
    est, se, df = (np.asarray(x, dtype=float) for x in (est, se, df))
    ok = se > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        k_lo, k_hi, n_eff = effective_count_limits(est, np.where(ok, se, 1.0), df, level, counts=True)
        p = np.clip(est, 1e-12, 1 - 1e-12)
        skew = np.abs(1 - 2 * p) / np.sqrt(n_eff * p * (1 - p))
    use = ok & (skew > EFFECTIVE_SKEW)
    return np.where(use, np.minimum(low, k_lo), low), np.where(use, np.maximum(high, k_hi), high)


def effective_count_limits(est: Any, se: Any, df: Any, level: float, *, counts: bool = False) -> tuple[np.ndarray, ...]:
    """Clopper-Pearson limits on the effective number of questions (Korn & Graubard 1998), row-wise arrays.

    ``n* = p (1 - p) / se^2 * (z / t(df))^2`` with ``p`` the estimate and ``se`` its clustered (CR2) standard
    error, ``x* = p n*``; the limits are the Beta quantiles of Clopper & Pearson at ``(x*, n*)``. A clustered 0/1
    judge-corrected interval is at least this wide: near 0% or 100% the clustered mean is skewed, and the
    symmetric t arms missed on the far side (``bench/bench_judge39_grid.py``: a 0.99 / 0.99 judge at a true pass
    rate of 0.95, 300 labels of 1,000 in 12 unequal clusters, covered 89.5% with t arms; 94.7% with these limits
    taken as the floor, at 18% more width). ``counts=True`` adds ``n*`` (:func:`effective_floor` applies the limits only
    where the skewness on ``n*`` exceeds :data:`EFFECTIVE_SKEW`: at a pass rate of 0.5 they would only widen an
    interval that already covers).

    Korn & Graubard 1998, "Confidence intervals for proportions with small expected number of positive counts
    estimated from survey data", Survey Methodology 24(2).
    """

    a = (1.0 - level) / 2.0
    p = np.clip(np.asarray(est, dtype=float), 1e-12, 1 - 1e-12)
    se, df = np.asarray(se, dtype=float), np.asarray(df, dtype=float)
    n_eff = p * (1 - p) / np.maximum(se * se, 1e-300) * (ndtri(1 - a) / stdtrit(df, 1 - a)) ** 2
    x = p * n_eff
    low = betaincinv(np.maximum(x, 1e-12), n_eff - x + 1, a)  # Clopper & Pearson 1934 at the effective counts
    high = betaincinv(x + 1, np.maximum(n_eff - x, 1e-12), 1 - a)
    return (low, high, n_eff) if counts else (low, high)


def pair_count_terms(ya: np.ndarray, fa: np.ndarray, yb: np.ndarray, fb: np.ndarray, lab: np.ndarray,
                     level: float) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise ``(lower, upper)`` additions to the squared arms of a paired difference A - B of 0/1 scores.

    The difference's rectifier is A's minus B's, so its arms combine the two models' small-count terms
    (:func:`small_count_terms` on the questions labelled for both) as MOVER combines the limits of a
    difference (Newcombe 1998): the lower arm takes A's lower and B's upper term, the upper arm A's upper and
    B's lower. Only their positive part is added: the term widens an arm when few labelled answers show the
    judge's errors (all of them agreeing: the Jeffreys limits of 0 of ``m``), and never narrows the paired t
    interval, whose coverage the paired cells of ``bench/bench_judge_coverage.py`` hold.
    """
    a_lo, a_hi = small_count_terms(ya, fa, lab, level)
    b_lo, b_hi = small_count_terms(yb, fb, lab, level)
    return np.maximum(a_lo + b_hi, 0.0), np.maximum(a_hi + b_lo, 0.0)


def small_count_terms(y: np.ndarray, f: np.ndarray, lab: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise ``(lower, upper)`` additions to the squared arms of :func:`ppi_interval` (0/1 scores).

    ``y``, ``f``, ``lab``: (rows, questions) human labels (read where ``lab``), judge verdicts, labelled
    mask; ``level`` the confidence level. Returns ``sum_p w^2 ((p - l_p)^2 - z^2 p (1-p) / m)`` and
    ``sum_p w^2 ((u_p - p)^2 - z^2 p (1-p) / m)`` over ``p = P(Y=1 | f=1)`` and ``P(Y=1 | f=0)``.
    """
    n = lab.sum(1)
    counts = []
    for verdict in (1.0, 0.0):
        sel = lab & (f == verdict)
        counts += [np.where(sel, y, 0.0).sum(1), sel.sum(1)]
    return count_terms(*counts, n, level)


def count_terms(k1: Any, m1: Any, k0: Any, m0: Any, n: Any, level: float, *,
                limits: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`small_count_terms` from the labelled 2 x 2 table: ``k1`` human passes among the ``m1`` judge
    passes, ``k0`` among the ``m0`` judge fails, ``n = m1 + m0`` (arrays; the label budget plans with these).
    ``limits(k, m, z2)``: other binomial limits in place of :func:`jeffreys_limits` (the bench compares some)."""
    limits = jeffreys_limits if limits is None else limits
    z2 = t_crit(level, math.inf) ** 2
    n = np.asarray(n, dtype=float)
    d_lo, d_hi = np.zeros(n.shape), np.zeros(n.shape)
    for k, m in ((k1, m1), (k0, m0)):
        k, m = np.asarray(k, dtype=float), np.asarray(m, dtype=float)
        ok = m > 0
        mm = np.where(ok, m, 1)
        p = k / mm
        # the limits once per distinct (k, m): a complex key sorts in one pass (np.unique(axis=1) is ~8x slower)
        pairs, back = np.unique((k + 1j * mm).ravel(), return_inverse=True)
        low, high = (x[back.ravel()].reshape(k.shape) for x in limits(pairs.real, pairs.imag, z2))
        wald2 = z2 * p * (1.0 - p) / mm
        w2 = np.where(ok, (m / n) ** 2, 0.0)
        d_lo += w2 * ((p - low) ** 2 - wald2)
        d_hi += w2 * ((high - p) ** 2 - wald2)
    return d_lo, d_hi


def _zero_one(x: np.ndarray) -> bool:
    return bool(np.all((x == 0.0) | (x == 1.0)))


def jeffreys_limits(k: Any, m: Any, crit: Any) -> tuple[np.ndarray, np.ndarray]:
    """Jeffreys limits of binomial proportions ``k / m`` (arrays) at the two-sided level of a normal
    beyond ``sqrt(crit)``: the ``alpha/2`` and ``1 - alpha/2`` quantiles of Beta(k + 1/2, m - k + 1/2), the
    lower limit 0 when ``k = 0`` and the upper 1 when ``k = m`` (Brown, Cai & DasGupta 2001, Sec. 4.1.2).
    """

    k, m, crit = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (k, m, crit)))
    tail = ndtr(-np.sqrt(crit))  # alpha / 2
    a, b = k + 0.5, m - k + 0.5
    low = np.where(k == 0, 0.0, betaincinv(a, b, tail))
    high = np.where(k == m, 1.0, betaincinv(a, b, 1.0 - tail))
    return low, high
