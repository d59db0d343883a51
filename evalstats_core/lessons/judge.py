"""Chapter 9, "The judge is an instrument": a judge's errors, what human labels fix, and a flipped verdict.

==============================  =====================================================================
``coverage_lab(...)``           coverage of the judge-only and the corrected (PPI++) 95% intervals as
                                the number of judged questions grows (vectorised, seeded)
``coverage_sentence(frame)``    the sentence under the lab, built from its table (with labels chosen by
                                the judge: PPI's bias and the stratified estimate's coverage)
``flip_panel(...)``             one seeded comparison whose judge is more lenient with model B: the
                                difference as the judge sees it, from the humans alone, and corrected
``flip_sentence(frame)``        the sentence under the panel, built from its table
==============================  =====================================================================

The lab draws ``reps`` evals per size: truth Bernoulli(``pass_rate``), the judge passes a true pass
with probability ``sensitivity`` and a true fail with probability ``1 - specificity``, and humans label
a random ``n_labels`` of the questions. The corrected interval is :func:`~evalstats_core.judge.ppi_mean`'s
without clusters, computed for all replications at once from each draw's counts (``_ppi_rows``); tests check
it against :func:`~evalstats_core.judge_rows.ppi_rows` and ``ppi_mean`` draw by draw.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from .._validate import check_confidence
from ..errors import EvalStatsError
from ..judge import ppi_compare
from ..judge_budget import labels_needed, ppi_count_parts
from ..judge_interval import jeffreys_limits
from ..judge_rows import human_only_counts
from ..judge_sim import judged_eval
from .problem import UNRESOLVED

__all__ = ["SIZES", "SELECTED_WEIGHT", "budget_sentence", "coverage_lab", "coverage_sentence", "flip_panel", "flip_sentence",
           "lab_draws"]

#: Numbers of judged questions in the lab.
SIZES = (250, 500, 1000, 2000, 4000, 8000)


#: With "labels chosen by the judge", a judge fail is this many times as likely to be labelled as a judge pass.
SELECTED_WEIGHT = 4.0


def lab_draws(n_total: int, n_labels: int, sensitivity: float, specificity: float, *, pass_rate: float = 0.7,
              reps: int = 200, rng=None, selected: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(truth, judge, labelled)`` arrays of shape (reps, n_total): seeded draws of the lab's evals. ``selected``:
    the ``n_labels`` are drawn with a judge fail :data:`SELECTED_WEIGHT` times as likely as a pass (weighted
    sampling without replacement, by exponential keys), as when humans audit the judge's fails first."""
    gen = np.random.default_rng(rng)
    truth = gen.random((reps, n_total)) < pass_rate
    u = gen.random((reps, n_total))
    judge = np.where(truth, u < sensitivity, u < 1 - specificity)
    keys = gen.random((reps, n_total))
    if selected:  # Efraimidis & Spirakis 2006: the n smallest Exp(1) / w are a weighted sample without replacement
        keys = -np.log1p(-keys) / np.where(judge, 1.0, SELECTED_WEIGHT)
    # the n_labels smallest keys of each row: a partition finds the same set as a full sort (the keys are
    # continuous draws), at a third of its cost (the chapter's slider step, issue 44.4)
    smallest = np.argpartition(keys, n_labels - 1, axis=1)[:, :n_labels]
    labelled = np.zeros((reps, n_total), dtype=bool)
    np.put_along_axis(labelled, smallest, True, axis=1)
    return truth.astype(float), judge.astype(float), labelled


def _ppi_rows(y: np.ndarray, f: np.ndarray, lab: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise ``(estimate, ci_low, ci_high)`` of ``ppi_mean`` for every replication (0/1, without clusters):
    PPI++ from each row's counts (:func:`~evalstats_core.judge_budget.ppi_count_parts`), then the human labels'
    own interval where it is narrower (:func:`~evalstats_core.judge_rows.human_only_counts`). The same numbers as
    :func:`~evalstats_core.judge_rows.ppi_rows` on the arrays to rounding, at a fraction of its time (the
    slider step, issue 40 item 9)."""
    judge, human = f == 1, y == 1
    n11, n10 = (lab & judge & human).sum(1), (lab & judge & ~human).sum(1)
    n01, n00 = (lab & ~judge & human).sum(1), (lab & ~judge & ~human).sum(1)
    passes = (~lab & judge).sum(1)
    est, low, high = ppi_count_parts(n11, n10, n01, n00, passes, n_total=f.shape[1], confidence=level)
    nan = np.full(est.shape, np.nan)  # the SE, df and lam are not read here
    est, _, _, _, low, high = human_only_counts(n11 + n01, n11 + n10 + n01 + n00, level, est, nan, nan, nan, low, high)
    return est, low, high


def _stratified_rows(y: np.ndarray, f: np.ndarray, lab: np.ndarray, level: float) -> tuple[np.ndarray, ...]:
    """Row-wise :func:`~evalstats_core.judge_strata.ppi_stratified` (0/1): ``(estimate, ci_low, ci_high)``, NaN
    where a verdict has no label."""
    z2 = float(stdtrit(np.inf, 0.5 + level / 2.0)) ** 2
    est, lo2, hi2 = 0.0, 0.0, 0.0
    ok = np.ones(f.shape[0], dtype=bool)
    means = []
    for verdict in (1.0, 0.0):
        cell = f == verdict
        w = cell.mean(1)
        m = (cell & lab).sum(1).astype(float)
        k = (cell & lab & (y == 1)).sum(1).astype(float)
        ok &= (m > 0) | (w == 0)
        p = k / np.maximum(m, 1)
        low, high = jeffreys_limits(k, np.maximum(m, 1), z2)
        est = est + w * p  # post-stratified mean: sum_s (N_s / N) mean_{L,s}(y)
        lo2, hi2 = lo2 + (w * (p - low)) ** 2, hi2 + (w * (high - p)) ** 2
        means.append((w, p))
    (w1, p1), (w0, p0) = means
    between = z2 * w1 * w0 * (p1 - p0) ** 2 / f.shape[1]  # the verdicts' shares vary too (judge_strata._combine)
    lo2, hi2 = lo2 + between, hi2 + between
    nan = np.where(ok, 0.0, np.nan)
    return est + nan, est - np.sqrt(lo2) + nan, est + np.sqrt(hi2) + nan


def coverage_lab(sensitivity: float, specificity: float, n_labels: int, *, pass_rate: float = 0.7,
                 sizes: tuple[int, ...] = SIZES, reps: int = 200, confidence: float = 0.95,
                 seed: int = 0, selected: bool = False) -> pd.DataFrame:
    """Coverage of the intervals at each size: columns ``n_total, kind, coverage, half_width, bias``.

    ``selected``: labels chosen by the judge's verdict (:func:`lab_draws`); the frame then adds the stratified
    estimate (kind ``"stratified"``), which such labels leave unbiased and PPI does not."""
    level = check_confidence(confidence)
    if not 2 <= n_labels <= min(sizes) - 2:
        raise EvalStatsError(f"n_labels ({n_labels}) must be between 2 and {min(sizes) - 2}")
    rows = []
    for i, n_total in enumerate(sizes):
        y, f, lab = lab_draws(n_total, n_labels, sensitivity, specificity, pass_rate=pass_rate, reps=reps,
                              rng=[seed, i], selected=selected)
        est, low, high = _ppi_rows(y, f, lab, level)
        jm = f.mean(1)
        jh = stdtrit(n_total - 1, 0.5 + level / 2) * f.std(1, ddof=1) / np.sqrt(n_total)
        rows.append((n_total, "judge only", float((np.abs(jm - pass_rate) <= jh).mean()), float(jh.mean()),
                     float(jm.mean() - pass_rate)))
        rows.append((n_total, "corrected", float(((low <= pass_rate) & (pass_rate <= high)).mean()),
                     float((high - low).mean() / 2),
                     float(est.mean() - pass_rate)))
        if selected:
            s_est, s_low, s_high = _stratified_rows(y, f, lab, level)
            rows.append((n_total, "stratified", float(np.nan_to_num((s_low <= pass_rate) & (pass_rate <= s_high)).mean()),
                         float(np.nanmean(s_high - s_low) / 2), float(np.nanmean(s_est) - pass_rate)))
    return pd.DataFrame(rows, columns=["n_total", "kind", "coverage", "half_width", "bias"])


def coverage_sentence(frame: pd.DataFrame) -> str:
    """What the lab shows, read from its table (first and last size, both intervals)."""
    judge = frame[frame["kind"] == "judge only"].set_index("n_total")
    corr = frame[frame["kind"] == "corrected"].set_index("n_total")
    lo, hi = int(judge.index.min()), int(judge.index.max())
    bias = 100 * judge["bias"].mean()
    if abs(bias) < 0.5:
        first = (f"This judge's errors cancel on average (its mean is off by {bias:+.1f} points), so its own interval "
                 f"covers {100 * judge.loc[lo, 'coverage']:.0f}% at {lo:,} questions and "
                 f"{100 * judge.loc[hi, 'coverage']:.0f}% at {hi:,}.")
    else:
        first = (f"The judge's mean is off by {bias:+.1f} points, so its interval covers the truth "
                 f"{100 * judge.loc[lo, 'coverage']:.0f}% of the time at {lo:,} questions and "
                 f"{100 * judge.loc[hi, 'coverage']:.0f}% at {hi:,}: more questions only narrow it around the "
                 "wrong value.")
    strat = frame[frame["kind"] == "stratified"].set_index("n_total")
    if len(strat):  # labels chosen by the judge: PPI is biased, the stratified estimate is not
        return (f"{first} With labels chosen by the judge (a judge fail {SELECTED_WEIGHT:g} times as likely to be "
                f"labelled), the PPI interval is off by {100 * corr['bias'].mean():+.1f} points and covers "
                f"{100 * corr['coverage'].min():.0f}% to {100 * corr['coverage'].max():.0f}%; stratified by the "
                f"judge's verdict it covers {100 * strat['coverage'].min():.0f}% to "
                f"{100 * strat['coverage'].max():.0f}%, with a half-width of {100 * strat.loc[hi, 'half_width']:.1f} "
                f"points at {hi:,} questions.")
    return (f"{first} The corrected interval covers {100 * corr['coverage'].min():.0f}% to "
            f"{100 * corr['coverage'].max():.0f}% at every size, with a half-width of "
            f"{100 * corr.loc[hi, 'half_width']:.1f} points at {hi:,} questions against the judge's "
            f"{100 * judge.loc[hi, 'half_width']:.1f}.")


def flip_panel(bias: float, n_labels: int, *, n_total: int = 2000, sensitivity: float = 0.9,
               specificity: float = 0.8, rates: tuple[float, float] = (0.70, 0.66), seed: int = 17,
               confidence: float = 0.95) -> pd.DataFrame:
    """A − B on one seeded eval where the judge passes B's wrong (longer) answers ``bias`` more often.

    Columns ``label, kind, estimate, ci_low, ci_high`` (one row each: judge only, human only,
    corrected) and ``truth`` (the realised true difference of the drawn answers).
    """
    spec_b = specificity - bias
    if not 0.0 <= spec_b <= 1.0:
        raise EvalStatsError(f"the bias ({bias}) must leave B's specificity ({spec_b:.2f}) between 0 and 1")
    a = judged_eval(n_total, n_labels, sensitivity=sensitivity, specificity=specificity, pass_rate=rates[0],
                    rng=[seed, 0])
    b = judged_eval(n_total, n_labels, sensitivity=sensitivity, specificity=spec_b, pass_rate=rates[1], rng=[seed, 1])
    hb = np.where(np.isnan(a.human), np.nan, b.truth)  # humans grade both models' answers to the same questions
    est = ppi_compare(a.judge, a.human, b.judge, hb, confidence=confidence)
    truth = float(a.truth.mean() - b.truth.mean())
    rows = [("A − B", "judge only", est.judge_mean, *est.judge_only),
            ("A − B", "human only", est.human_mean, *est.human_only),
            ("A − B", "corrected", est.estimate, est.ci_low, est.ci_high)]
    return pd.DataFrame(rows, columns=["label", "kind", "estimate", "ci_low", "ci_high"]).assign(truth=truth)


def _verdict(low: float, high: float) -> str:
    if low > 0:
        return "A ahead"
    if high < 0:
        return "B ahead"
    return UNRESOLVED  # chapters 1 and 8's word for an interval that holds 0


def flip_sentence(frame: pd.DataFrame) -> str:
    """The panel's verdicts, read from its table."""
    by = frame.set_index("kind")
    j, c = by.loc["judge only"], by.loc["corrected"]
    vj, vc = _verdict(j.ci_low, j.ci_high), _verdict(c.ci_low, c.ci_high)
    pts = lambda x: f"{100 * x:+.1f}".replace("-", "−")  # noqa: E731
    same = "The verdict stands" if vj == vc else "The verdict flips"
    return (f"The judge says A − B = {pts(j.estimate)} points ({pts(j.ci_low)} to {pts(j.ci_high)}): {vj}. "
            f"Corrected by the human labels: {pts(c.estimate)} ({pts(c.ci_low)} to {pts(c.ci_high)}): {vc}. "
            f"{same}; the true difference of these answers is {pts(frame['truth'].iloc[0])} points.")


def budget_sentence(sensitivity: float, specificity: float, *, pass_rate: float = 0.7, n_total: int = 8000,
                    half_width: float = 0.03) -> str:
    """How often this judge passes, and the labels a +/-``half_width`` interval needs with it and without it."""

    passes = sensitivity * pass_rate + (1 - specificity) * (1 - pass_rate)
    b = labels_needed(half_width, n_total=n_total, sensitivity=sensitivity, specificity=specificity,
                      pass_rate=pass_rate)
    with_judge = "no number of labels reaches it" if b.with_judge is None else f"{b.with_judge:,} labels"
    return (f"With a true pass rate of {100 * pass_rate:.0f}% this judge passes {100 * passes:.1f}% of the answers. "
            f"For an interval of ±{100 * half_width:g} points on {n_total:,} questions the corrected estimate needs "
            f"{with_judge}; the humans alone need {b.without_judge:,}.")
