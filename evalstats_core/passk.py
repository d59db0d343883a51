"""pass@k: the chance that at least one of k sampled answers to a question passes, with honest error bars.

=========================  ===========================================================================
:func:`pass_at_k`          one model: the unbiased estimator (Chen et al. 2021) averaged over questions,
                           with its CR2 interval over questions (clustered when clusters are given)
:func:`pass_at_k_compare`  two models at the same k, paired by question: the difference and its interval
:func:`pass_at_k_plan`     how many questions, and how many samples a question, for a target half-width
:func:`pass_at_section`    every model and pair of a results file at several k (``analyze(pass_at=...)``)
:func:`pass_at_plans`      :func:`pass_at_k_plan` for every model of a results file (``evalbars plan``)
:func:`question_pass_at`   the per-question estimates ``1 - C(n - c, k) / C(n, k)`` (the kernel of the above)
:func:`largest_k`          whether a file offers pass@k, and the largest k it can take
=========================  ===========================================================================

Use these when a file holds several sampled answers (0 fail, 1 pass) to each question -- the resample column
numbers them -- and the question asked is "does the model solve it within k tries?" (code and maths evals). For
the mean score of the answers (pass@1) :func:`~evalstats_core.analysis.analyze` gives the same number.

What pass@k estimates: for a question the model solves with probability ``p`` on one try, pass@k is ``1 - (1 -
p)^k``, and the benchmark's pass@k is its mean over questions. From ``n >= k`` samples with ``c`` passes the
unbiased estimate is ``1 - C(n - c, k) / C(n, k)``: the share of the ``C(n, k)`` subsets of k samples in which
at least one passes (Chen et al. 2021, Eq. 1). Two shortcuts are wrong: counting a question as solved when any of
its ``n`` samples passed estimates pass@n, which over-states pass@k for every ``k < n``; and ``1 - (1 - c/n)^k``
under-states it on average (the function is concave in ``p``).

The per-question estimates are independent across questions (or clusters of questions), so the mean's standard
error is the CR2 one over questions (:func:`~evalstats_core._clusters.cr2_se_df`, the one CR2 kernel): it holds
both the spread between questions and the sampling variation of each question's ``n`` samples, with a t reference on
the Bell-McCaffrey degrees of freedom (n - 1 without clusters: the one-sample t-test). Intervals are clipped to
[0, 1] (differences to [-1, 1]).

References
----------
Chen, Tworek, Jun et al. 2021, "Evaluating Large Language Models Trained on Code", arXiv:2107.03374, Sec. 2.1,
Eq. 1 and Fig. 3 (the numerically stable product).
Bell & McCaffrey 2002, Survey Methodology 28(2); Pustejovsky & Tipton 2018, JBES 36(4) (CR2).
Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, Eq. 9 (questions for a target precision).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy

from ._clusters import check_n_clusters, codes_and_sizes, cr2_se_df, sign_flip_p, t_crit, t_p_value
from ._results import Interval
from ._validate import check_confidence, check_finite
from .data import Dataset, QuestionTable, question_scores
from .errors import EvalStatsError
from .escape import elide

__all__ = ["PassAtK", "PassAtKComparison", "PassAtKPlan", "PlanOption", "ModelPassAt", "PairPassAt", "PassAtSection",
           "ModelPlan", "PassAtPlans", "pass_at_k", "pass_at_k_compare", "pass_at_k_plan", "pass_at_plans",
           "pass_at_section", "question_pass_at", "check_ks", "largest_k"]

#: The most questions a plan names; past this it says no practical number would do.
MOST_QUESTIONS = 10**9


@dataclass(frozen=True, slots=True)
class PassAtK:
    """One model's pass@k over questions.

    Attributes
    ----------
    k : int
        Tries counted.
    estimate : float
        Mean over questions of ``1 - C(n - c, k) / C(n, k)`` (unbiased for the benchmark's pass@k).
    se : float
        CR2 standard error over questions (clustered when clusters were given).
    ci : Interval
        ``estimate -/+ t(df) * se`` at ``confidence``, clipped to [0, 1].
    df : float
        Bell-McCaffrey degrees of freedom (``n_questions - 1`` without clusters).
    n_questions, n_samples : int
        Questions, and samples (answers) a question.
    n_clusters : int or None
        Clusters (None when the questions were taken as independent).
    any_of_n : float
        The naive share of questions with any of their ``n_samples`` samples passing: pass@n, not pass@k (it
        over-states pass@k for every ``k < n_samples``), given for contrast.
    confidence : float
        Level of ``ci``.
    """

    k: int
    estimate: float
    se: float
    ci: Interval
    df: float
    n_questions: int
    n_samples: int
    n_clusters: int | None
    any_of_n: float
    confidence: float


@dataclass(frozen=True, slots=True)
class PassAtKComparison:
    """``pass@k(model) - pass@k(baseline)`` on the questions both answered, paired by question.

    Attributes
    ----------
    k : int
        Tries counted.
    estimate : float
        Mean over shared questions of the difference of the two per-question estimates.
    se, df : float
        Its CR2 standard error over questions (clustered when clusters were given) and degrees of freedom.
    ci : Interval
        ``estimate -/+ t(df) * se``, clipped to [-1, 1].
    p_value : float
        Two-sided p of ``estimate / se`` on t(df); with a standard error of 0 and a difference that is not, the
        exact sign-flip p ``2 / 2^G`` over the G questions (clusters); 1 when every difference is 0.
    n_questions : int
        Shared questions.
    n_clusters : int or None
        Clusters among them (None when not clustered).
    confidence : float
        Level of ``ci``.
    estimate_model, estimate_baseline : float
        Each model's pass@k on the shared questions (``estimate`` is their difference).
    """

    k: int
    estimate: float
    se: float
    ci: Interval
    df: float
    p_value: float
    n_questions: int
    n_clusters: int | None
    confidence: float
    estimate_model: float = math.nan
    estimate_baseline: float = math.nan


@dataclass(frozen=True, slots=True)
class PlanOption:
    """One way to reach the target: ``samples`` a question on ``questions`` questions, ``total`` samples in all."""

    samples: int
    questions: int
    total: int


@dataclass(frozen=True, slots=True)
class PassAtKPlan:
    """How many questions, and samples a question, give pass@k a target half-width (:func:`pass_at_k_plan`).

    Attributes
    ----------
    k : int
        Tries counted.
    half_width, confidence : float
        The target: the interval's half-width at this level.
    half_width_now : float
        The half-width of the pilot's own interval.
    between : float
        Variance of the questions' true pass@k (the part more samples a question cannot remove).
    within : float
        Mean sampling variance of a question's estimate at the pilot's ``n`` samples (plug-in).
    design_effect : float
        The pilot's CR2 variance over the independent-questions one (1 without clusters).
    options : tuple of PlanOption
        One per candidate number of samples a question, fewest samples first.
    cheapest : PlanOption
        The option with the fewest samples in all.
    """

    k: int
    half_width: float
    confidence: float
    half_width_now: float
    between: float
    within: float
    design_effect: float
    options: tuple[PlanOption, ...]
    cheapest: PlanOption


@dataclass(frozen=True, slots=True)
class ModelPlan:
    """One model's plan: the model's own questions and samples are its pilot."""

    model: str
    plan: PassAtKPlan


@dataclass(frozen=True, slots=True)
class PassAtPlans:
    """The plan of every model of a results file for one k and target (:func:`pass_at_plans`)."""

    k: int
    half_width: float
    confidence: float
    n_samples: int
    clustered: bool
    models: tuple[ModelPlan, ...]

    def model(self, name: str) -> PassAtKPlan:
        """The plan of model ``name``."""
        for m in self.models:
            if m.model == name:
                return m.plan
        raise EvalStatsError(f"no model named {name!r}; models are: {', '.join(m.model for m in self.models)}")


@dataclass(frozen=True, slots=True)
class ModelPassAt:
    """One model of a file at every k asked for: ``results[i]`` is at ``PassAtSection.ks[i]``."""

    model: str
    results: tuple[PassAtK, ...]


@dataclass(frozen=True, slots=True)
class PairPassAt:
    """One pair of a file at every k asked for (``model - baseline``)."""

    model: str
    baseline: str
    results: tuple[PassAtKComparison, ...]


@dataclass(frozen=True, slots=True)
class PassAtSection:
    """pass@k of every model and pair of a results file (``Analysis.pass_at``; every report prints it)."""

    ks: tuple[int, ...]
    models: tuple[ModelPassAt, ...]
    comparisons: tuple[PairPassAt, ...]
    n_samples: int
    clustered: bool
    confidence: float

    def model(self, name: str) -> ModelPassAt:
        """The pass@k of model ``name``."""
        for m in self.models:
            if m.model == name:
                return m
        raise EvalStatsError(f"no model named {name!r}; models are: {', '.join(m.model for m in self.models)}")


# ------------------------------------------------------------------------------------------- the estimator
def question_pass_at(n: int, passes: Any, k: int) -> np.ndarray:
    """Per-question unbiased pass@k ``1 - C(n - c, k) / C(n, k)`` for ``c`` in ``passes`` (shape ``(m,)``), float64.

    Computed as Chen et al.'s (2021, Fig. 3) product ``1 - prod_{j = n - c + 1}^{n} (1 - k / j)``, never through
    the binomial coefficients themselves (which overflow a float past n = 1,029): the ratios for every ``c`` in
    ``0 .. n`` are one cumulative product, then looked up. ``n - c < k`` gives exactly 1 (every k-subset holds a
    pass).

    >>> question_pass_at(5, [0, 1, 2, 5], 2).tolist()
    [0.0, 0.4, 0.7, 1.0]
    """
    if k == 1:  # the product is (n - c) / n: pass@1 is c / n, the mean of the answers (the analysis's own number)
        return np.asarray(passes, dtype=np.float64) / n
    j = np.arange(n, 0, -1, dtype=np.float64)  # (n,) j = n, n-1, ..., 1
    factors = np.maximum(1.0 - k / j, 0.0)  # Chen et al. Fig. 3: 1 - k/j; 0 once j <= k (then C(n - c, k) = 0)
    ratio = np.concatenate(([1.0], np.cumprod(factors)))  # (n + 1,) C(n - c, k) / C(n, k) for c = 0 .. n
    return 1.0 - ratio[np.asarray(passes, dtype=np.intp)]  # Chen et al. Eq. 1, per question


def _pass_counts(scores_per_sample: Any, k: int, name: str = "scores_per_sample") -> tuple[np.ndarray, int]:
    """``(passes of each question (m,), samples a question n)`` of a questions x samples 0/1 table; bad input named."""
    if isinstance(scores_per_sample, np.ndarray):
        rows = scores_per_sample
    else:
        try:
            rows = list(scores_per_sample)
        except TypeError:
            raise EvalStatsError(f"{name} must be one row of sample scores per question (got "
                                 f"{type(scores_per_sample).__name__})") from None
        lengths = [len(r) if hasattr(r, "__len__") else 1 for r in rows]
        if len(set(lengths)) > 1:
            most = max(set(lengths), key=lengths.count)
            i = next(i for i, n in enumerate(lengths) if n != most)
            raise EvalStatsError(f"{name}[{i}] has {lengths[i]} samples but most questions have {most}: pass@k needs "
                                 "the same number of samples for every question; drop that question or sample it "
                                 f"{most} times")
    try:
        arr = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EvalStatsError(f"{name} must be 0/1 numbers, one row of samples per question: {exc}") from None
    if arr.ndim != 2:
        raise EvalStatsError(f"{name} must be a table of questions x samples (got shape {arr.shape}); pass one row "
                             "of 0/1 sample scores per question")
    bad = ~((arr == 0.0) | (arr == 1.0))
    if bad.any():
        i, s = (int(x) for x in np.argwhere(bad)[0])
        raise EvalStatsError(f"{name}[{i}][{s}] is {float(arr[i, s])!r}: pass@k needs each sample scored 0 (fail) or 1 "
                             "(pass); threshold the scores first")
    m, n = arr.shape
    if m < 2:
        raise EvalStatsError(f"{name} has {m} question(s); pass@k's interval needs at least 2")
    _check_k_fits(k, n, f"question {name}[0]")
    return arr.sum(axis=1).astype(np.intp), n


def _check_k(k: Any) -> int:
    try:
        kk = int(k)
    except (TypeError, ValueError):
        raise EvalStatsError(f"k ({k!r}) must be a whole number >= 1, the tries counted") from None
    if kk != k or kk < 1:
        raise EvalStatsError(f"k ({k!r}) must be a whole number >= 1, the tries counted")
    return kk


def _whole_numbers(text: str, what: str, example: str) -> list[int]:
    """The whole numbers of ``"1,5,10"``; the message names the text as written and its first part that is not one
    (issue 46: ``1,,x`` was echoed as '1,x')."""
    numbers = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        try:
            numbers.append(int(part))
        except ValueError:
            raise EvalStatsError(f"{what} ({elide(text)!r}) must be whole numbers separated by commas, and "
                                 f"{elide(part)!r} is not one; write e.g. {example}") from None
    return numbers


def check_ks(ks: Any) -> tuple[int, ...]:
    """Several k as a sorted tuple of distinct whole numbers >= 1 (``"1,5,10"`` is read too)."""
    if isinstance(ks, str):
        ks = _whole_numbers(ks, "pass_at=", "1,5,10")
    elif isinstance(ks, int | np.integer):
        ks = [ks]
    out = tuple(sorted({_check_k(k) for k in ks}))
    if not out:
        raise EvalStatsError("pass_at is empty: name at least one k, e.g. 1,5,10")
    return out


def _check_k_fits(k: int, n: int, where: str) -> None:
    if k > n:
        raise EvalStatsError(f"k ({k}) must not be greater than the samples a question ({n}): {where} has {n} "
                             f"samples; ask for k of at most {n}, or collect at least {k} samples a question")


def _mean_interval(values: np.ndarray, clusters: Any, confidence: float, lo: float, hi: float
                   ) -> tuple[float, float, float, Interval, int | None, float]:
    """``(mean, se, df, interval, clusters or None, t)`` of per-question values: the one CR2 kernel over questions
    (singleton clusters without labels: the one-sample t-test)."""
    n = values.size
    if clusters is None:
        codes, sizes, n_clusters = np.arange(n), np.ones(n), None
    else:
        codes, n_clusters, sizes = codes_and_sizes(clusters, n)
        check_n_clusters(n_clusters)
    mean = float(values.mean())
    sums = np.bincount(codes, weights=values - mean, minlength=sizes.size)  # (G,) residual sums per cluster
    se, df = cr2_se_df(sums, sizes, n)  # CR2: Bell & McCaffrey Eq. 8, Satterthwaite df
    if clusters is None:
        df = n - 1.0  # singletons: the kernel's df is n - 1 up to rounding; the one-sample t-test's, exactly
    t = t_crit(confidence, df)
    ci = Interval(max(lo, mean - t * se), min(hi, mean + t * se))
    return mean, float(se), float(df), ci, n_clusters, t


def _one(passes: np.ndarray, n: int, k: int, clusters: Any, confidence: float) -> PassAtK:
    est = question_pass_at(n, passes, k)
    mean, se, df, ci, g, _ = _mean_interval(est, clusters, confidence, 0.0, 1.0)
    return PassAtK(k=k, estimate=mean, se=se, ci=ci, df=df, n_questions=int(passes.size), n_samples=n, n_clusters=g,
                   any_of_n=float(np.mean(passes > 0)), confidence=confidence)


def _diff(passes_a: np.ndarray, n_a: int, passes_b: np.ndarray, n_b: int, k: int, clusters: Any,
          confidence: float) -> PassAtKComparison:
    ea, eb = question_pass_at(n_a, passes_a, k), question_pass_at(n_b, passes_b, k)
    d = ea - eb  # (m,) paired by question
    _, se, df, _, g, t = _mean_interval(d, clusters, confidence, -1.0, 1.0)
    mean_a, mean_b = float(ea.mean()), float(eb.mean())
    mean = mean_a - mean_b  # the difference of the two means, as the analysis prints it
    ci = Interval(max(-1.0, mean - t * se), min(1.0, mean + t * se))
    if se > 0.0:
        p = t_p_value(mean / se, df)
    else:  # every question (cluster) moved by the same amount: the exact sign-flip p, or 1 when nothing moved
        p = 1.0 if mean == 0.0 else sign_flip_p(d.size if g is None else g)
    return PassAtKComparison(k=k, estimate=mean, se=se, ci=ci, df=df, p_value=float(p), n_questions=int(d.size),
                             n_clusters=g, confidence=confidence, estimate_model=mean_a, estimate_baseline=mean_b)


def pass_at_k(scores_per_sample: Any, k: int, /, *, clusters: Any = None, confidence: float = 0.95) -> PassAtK:
    """A model's pass@k over questions, with its CR2 interval.

    Parameters
    ----------
    scores_per_sample : array-like, shape (n_questions, n_samples)
        0 (fail) or 1 (pass) for each sampled answer, one row per question; every question has the same number of
        samples ``n >= k``.
    k : int
        Tries counted (1 <= k <= n).
    clusters : array-like, shape (n_questions,), optional
        Cluster label of each question (a passage, a repository): the standard error is then clustered.
    confidence : float, default 0.95
        Level of the interval.

    Returns
    -------
    PassAtK

    Notes
    -----
    Per question, ``1 - C(n - c, k) / C(n, k)`` with ``c`` passes (Chen et al. 2021, Eq. 1), unbiased for ``1 -
    (1 - p)^k``; their mean, and its CR2 standard error over questions with a t(df) interval (see the module
    docstring). Use :func:`pass_at_k_compare` for two models on the same questions (paired: narrower than two
    separate intervals), and :func:`pass_at_section` for a whole results file.

    Examples
    --------
    >>> r = pass_at_k([[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 0, 0]], 2)
    >>> round(r.estimate, 4), round(r.se, 4), r.df
    (0.5, 0.2041, 3.0)
    """
    kk = _check_k(k)
    level = check_confidence(confidence)
    passes, n = _pass_counts(scores_per_sample, kk)
    return _one(passes, n, kk, clusters, level)


def pass_at_k_compare(model: Any, baseline: Any, k: int, /, *, clusters: Any = None,
                      confidence: float = 0.95) -> PassAtKComparison:
    """``pass@k(model) - pass@k(baseline)`` paired by question, with its CR2 interval and p-value.

    Parameters
    ----------
    model, baseline : array-like, shape (n_questions, n_samples)
        Each model's 0/1 sample scores, rows in the same question order (the numbers of samples of the two may
        differ; each must be at least ``k``).
    k : int
        Tries counted.
    clusters : array-like, shape (n_questions,), optional
        Cluster label of each question.
    confidence : float, default 0.95

    Returns
    -------
    PassAtKComparison

    Notes
    -----
    The difference of the two per-question estimates is unbiased for the difference of the benchmark's pass@k;
    its mean's CR2 standard error pairs the models on each question (the paired SE of Miller 2024, Eq. 7, and
    clustered, Eq. 8, on these estimates).

    Examples
    --------
    >>> a = [[1, 1, 0], [0, 1, 0], [1, 1, 1], [0, 0, 0]]
    >>> b = [[1, 0, 0], [0, 0, 0], [1, 1, 0], [0, 0, 0]]
    >>> r = pass_at_k_compare(a, b, 2)
    >>> round(r.estimate, 4), r.n_questions
    (0.25, 4)
    """
    kk = _check_k(k)
    level = check_confidence(confidence)
    pa, na = _pass_counts(model, kk, "model")
    pb, nb = _pass_counts(baseline, kk, "baseline")
    if pa.size != pb.size:
        raise EvalStatsError(f"model has {pa.size} questions and baseline {pb.size}: pass the same questions, in the "
                             "same order, for both")
    return _diff(pa, na, pb, nb, kk, clusters, level)


# ---------------------------------------------------------------------------------------------------- plan
def _sampling_moments(p: np.ndarray, n: int, k: int) -> np.ndarray:
    """Variance of the per-question estimate at ``n`` samples for each success chance in ``p`` (shape ``(m,)``):
    exact, by summing over the binomial count of passes."""
    c = np.arange(n + 1, dtype=np.float64)  # (n + 1,)
    est = question_pass_at(n, np.arange(n + 1), k)  # (n + 1,)
    pp = p[:, None]  # (m, 1)
    logpmf = gammaln(n + 1.0) - gammaln(c + 1.0) - gammaln(n - c + 1.0) + xlogy(c, pp) + xlog1py(n - c, -pp)
    pmf = np.exp(logpmf)  # (m, n + 1) Binomial(n, p) probabilities
    mean = pmf @ est
    return np.maximum(pmf @ (est * est) - mean * mean, 0.0)


def pass_at_k_plan(scores_per_sample: Any, k: int, half_width: float, /, *, samples: Sequence[int] | None = None,
                   clusters: Any = None, confidence: float = 0.95) -> PassAtKPlan:
    """How many questions, and how many samples a question, give pass@k an interval of half-width ``half_width``.

    Parameters
    ----------
    scores_per_sample : array-like, shape (n_questions, n_samples)
        A pilot: 0/1 sample scores, one row per question (as :func:`pass_at_k`).
    k : int
        Tries counted.
    half_width : float
        The target half-width of the interval, in the estimate's units (0.02 = 2 points).
    samples : sequence of int, optional
        The samples a question to consider (each >= k). Default: k, 2k, 5k, 10k and the pilot's own number.
    clusters : array-like, optional
        Cluster labels of the pilot's questions; the plan then carries the pilot's design effect.
    confidence : float, default 0.95

    Returns
    -------
    PassAtKPlan
        One option per number of samples, with the questions it needs and the samples in all; ``cheapest`` has the
        fewest samples in all.

    Notes
    -----
    A question's estimate varies for two reasons: questions differ (variance ``B`` of their true pass@k, which
    only more questions reduce) and each question's ``n`` samples are a random sample (``W(n)``, which more samples
    reduce). ``W(n)`` is the mean over the pilot's questions of the exact variance of the estimator under
    Binomial(n, c/n_pilot) (a plug-in), ``B`` the pilot's variance of the estimates less ``W(n_pilot)`` (at least
    0). Then ``N(n) = D (B + W(n)) (t / h)^2`` questions (Miller 2024, Eq. 9 for one mean, with the pilot's design
    effect ``D``; ``t`` on ``N - 1`` degrees of freedom, found by iterating). Once ``W(n)`` is small next to
    ``B``, more samples a question buy nothing: ``cheapest`` says where.

    Examples
    --------
    >>> pilot = [[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 1, 0]]
    >>> plan = pass_at_k_plan(pilot, 2, 0.05)
    >>> [(o.samples, o.questions) for o in plan.options]
    [(2, 341), (4, 232), (10, 182), (20, 167)]
    """
    kk = _check_k(k)
    level = check_confidence(confidence)
    h = _check_half_width(half_width)
    passes, n0 = _pass_counts(scores_per_sample, kk)
    return _plan(passes, n0, kk, h, samples, clusters, level)


def _check_half_width(half_width: Any) -> float:
    h = check_finite(half_width, "half_width")
    if not 0.0 < h < 1.0:
        raise EvalStatsError(f"half_width ({half_width!r}) must be between 0 and 1, e.g. 0.02 for 2 points")
    return h


def _plan(passes: np.ndarray, n0: int, kk: int, h: float, samples: Sequence[int] | None, clusters: Any,
          level: float) -> PassAtKPlan:
    """:func:`pass_at_k_plan` on checked arguments: ``passes`` (shape ``(m,)``) of ``n0`` samples a question."""
    now = _one(passes, n0, kk, clusters, level)
    est = question_pass_at(n0, passes, kk)
    m = est.size
    p_hat = passes / n0
    within0 = float(_sampling_moments(p_hat, n0, kk).mean())
    total = float(est.var(ddof=1))
    between = max(total - within0, 0.0)
    iid_var = total / m
    deff = 1.0 if clusters is None or iid_var == 0.0 else now.se**2 / iid_var
    wanted = sorted({kk, 2 * kk, 5 * kk, 10 * kk, n0} if samples is None else {_check_k(s) for s in samples})
    for s in wanted:
        _check_k_fits(kk, s, "the plan")
    options = []
    for s in wanted:
        v = deff * (between + float(_sampling_moments(p_hat, s, kk).mean()))
        options.append(PlanOption(samples=s, questions=(q := _questions(v, h, level)), total=q * s))
    return PassAtKPlan(k=kk, half_width=h, confidence=level, half_width_now=(now.ci.high - now.ci.low) / 2.0,
                       between=between, within=within0, design_effect=deff, options=tuple(options),
                       cheapest=min(options, key=lambda o: (o.total, o.samples)))


def _questions(var: float, h: float, confidence: float) -> int:
    """The fewest questions N with ``t(N - 1) * sqrt(var / N) <= h`` (at least 2)."""
    if var <= 0.0:
        return 2
    n = max(2, math.ceil(var * (t_crit(confidence, math.inf) / h) ** 2))
    for _ in range(50):  # t on N - 1 df: a fixed point reached in a few steps
        nxt = max(2, math.ceil(var * (t_crit(confidence, n - 1) / h) ** 2))
        if nxt == n or nxt > MOST_QUESTIONS:
            break
        n = nxt
    return min(n, MOST_QUESTIONS)


# ---------------------------------------------------------------------------------------------- whole file
def _table_counts(table: QuestionTable, j: int, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(answered mask (Q,), passes of the answered questions (m,), samples a question)`` of model ``j``."""
    model = table.models[j]
    answered = table.answered[:, j]
    counts = table.k[answered, j]
    if counts.size < 2:
        raise EvalStatsError(f"model {model!r} answered {counts.size} question(s) in {table.name}; pass@k's "
                             "interval needs at least 2")
    values, freq = np.unique(counts, return_counts=True)
    n = int(values[np.argmax(freq)])
    if values.size > 1:
        i = int(np.flatnonzero(answered)[np.flatnonzero(counts != n)[0]])
        raise EvalStatsError(f"model {model!r} has {int(table.k[i, j])} samples of question {str(table.questions[i])!r} "
                             f"but {n} of most questions in {table.name}: pass@k needs the same number of samples "
                             f"for every question; drop that question or sample it {n} times")
    if k > n:
        i = int(np.flatnonzero(answered)[0])
        raise EvalStatsError(f"k ({k}) must not be greater than the samples a question ({n}): model {model!r} has {n} "
                             f"samples of question {str(table.questions[i])!r} in {table.name}; ask for k of at most {n} (pass_at=), "
                             f"or collect at least {k} samples a question")
    passes = np.rint(table.scores[answered, j] * n).astype(np.intp)  # c = mean of the n 0/1 answers times n
    return answered, passes, n


def _binary_table(data: Dataset | QuestionTable, use_clusters: bool, caller: str) -> tuple[QuestionTable, Any]:
    """The file's question table (0/1 answers) and its cluster codes when clustered (None otherwise)."""
    table = question_scores(data) if isinstance(data, Dataset) else data
    if not isinstance(table, QuestionTable):
        raise EvalStatsError(f"{caller} needs a Dataset from load() (or a QuestionTable), not a "
                             f"{type(data).__name__}")
    if table.score_kind != "binary":
        raise EvalStatsError(f"pass@k needs every answer scored 0 (fail) or 1 (pass); {table.name} has other scores: "
                             "threshold them first, or drop pass@k")
    return table, (table.cluster_codes if use_clusters and (table.n_clusters or 0) >= 2 else None)


def _clusters_of(codes: Any, mask: np.ndarray) -> Any:
    """The cluster codes of the questions in ``mask``, or None without clusters or with fewer than two among them."""
    if codes is None:
        return None
    sub = codes[mask]
    return sub if np.unique(sub).size >= 2 else None


def pass_at_section(data: Dataset | QuestionTable, ks: Any, /, *, pairs: Sequence[tuple[str, str]] = (),
                    use_clusters: bool = True, confidence: float = 0.95) -> PassAtSection:
    """pass@k of every model, and of every ``(model, baseline)`` pair in ``pairs``, at each k of ``ks``.

    Parameters
    ----------
    data : Dataset or QuestionTable
        A results file whose answers are 0/1 and whose resample column numbers several samples a question (the
        same number for every question of a model).
    ks : int, sequence of int, or str
        The k asked for (``"1,5,10"`` is read too).
    pairs : sequence of (str, str)
        The comparisons ``model - baseline``, in the order they are to be reported (the analysis's).
    use_clusters : bool, default True
        Cluster on the file's cluster column when it has one (with at least two clusters among a model's
        questions, as :func:`~evalstats_core.analysis.analyze` decides).
    confidence : float, default 0.95

    Returns
    -------
    PassAtSection

    Examples
    --------
    >>> from evalstats_core.data import load
    >>> rows = "question,model,resample,score\\n" + "".join(
    ...     f"q{q},A,{r},{int((q + r) % 3 == 0)}\\n" for q in range(6) for r in range(4))
    >>> s = pass_at_section(load(rows.encode(), name="s.csv"), "1,2")
    >>> [(r.k, round(r.estimate, 4)) for r in s.models[0].results]
    [(1, 0.3333), (2, 0.6111)]
    """
    level = check_confidence(confidence)
    want = check_ks(ks)
    table, codes = _binary_table(data, use_clusters, "pass_at_section")
    counts = {m: _table_counts(table, j, max(want)) for j, m in enumerate(table.models)}

    def clusters_of(mask: np.ndarray) -> Any:
        return _clusters_of(codes, mask)

    models = []
    for m, (mask, passes, n) in counts.items():
        cl = clusters_of(mask)
        models.append(ModelPassAt(m, tuple(_one(passes, n, k, cl, level) for k in want)))
    comps = []
    for model, baseline in pairs:
        (ma, pa, na), (mb, pb, nb) = counts[model], counts[baseline]
        both = ma & mb
        if int(both.sum()) < 2:
            raise EvalStatsError(f"models {model!r} and {baseline!r} share {int(both.sum())} question(s) in "
                                 f"{table.name}; a paired pass@k comparison needs at least two")
        sa, sb = both[ma], both[mb]  # the shared questions among each model's answered ones
        cl = clusters_of(both)
        comps.append(PairPassAt(model, baseline, tuple(_diff(pa[sa], na, pb[sb], nb, k, cl, level) for k in want)))
    n_all = {n for _, _, n in counts.values()}
    return PassAtSection(ks=want, models=tuple(models), comparisons=tuple(comps),
                         n_samples=min(n_all), clustered=codes is not None, confidence=level)



def pass_at_plans(data: Dataset | QuestionTable, k: int, half_width: float, /, *, samples: Any = None,
                  use_clusters: bool = True, confidence: float = 0.95) -> PassAtPlans:
    """:func:`pass_at_k_plan` for every model of a results file, each model's questions and samples its pilot.

    Parameters
    ----------
    data : Dataset or QuestionTable
        A results file as for :func:`pass_at_section` (0/1 answers, the same number of samples a question).
    k : int
        Tries counted.
    half_width : float
        The target half-width of pass@k's interval (0.02 = 2 points).
    samples : int, sequence of int, or str, optional
        The samples a question to consider (``"10,20"`` is read too); default as :func:`pass_at_k_plan`'s.
    use_clusters : bool, default True
        Carry the file's design effect (its cluster column, as :func:`pass_at_section` clusters).
    confidence : float, default 0.95

    Returns
    -------
    PassAtPlans
        ``models[i].plan`` is exactly ``pass_at_k_plan(model's samples, k, half_width, clusters=...)``.

    Examples
    --------
    >>> from evalstats_core.data import load
    >>> rows = "question,model,resample,score\\n" + "".join(
    ...     f"q{q},A,{r},{int((q * r) % 5 < 2)}\\n" for q in range(12) for r in range(4))
    >>> plans = pass_at_plans(load(rows.encode(), name="s.csv"), 2, 0.1, samples="2,4")
    >>> [(o.samples, o.questions) for o in plans.model("A").options]
    [(2, 61), (4, 26)]
    """
    kk = _check_k(k)
    level = check_confidence(confidence)
    h = _check_half_width(half_width)
    wanted = None if samples is None else _check_samples(samples)
    table, codes = _binary_table(data, use_clusters, "pass_at_plans")
    models, n_all = [], set()
    for j, m in enumerate(table.models):
        mask, passes, n = _table_counts(table, j, kk)
        models.append(ModelPlan(m, _plan(passes, n, kk, h, wanted, _clusters_of(codes, mask), level)))
        n_all.add(n)
    return PassAtPlans(k=kk, half_width=h, confidence=level, n_samples=min(n_all), clustered=codes is not None,
                       models=tuple(models))


def _check_samples(samples: Any) -> tuple[int, ...]:
    """The plan's candidate samples a question, as whole numbers >= 1 (``"10,20"`` is read too)."""
    if isinstance(samples, str):
        samples = _whole_numbers(samples, "samples", "10,20,50")
    elif isinstance(samples, int | np.integer):
        samples = [samples]
    out = []
    for s in samples:
        if not isinstance(s, int | np.integer) or isinstance(s, bool) or s < 1:
            raise EvalStatsError(f"samples ({s!r}) must be whole numbers >= 1, the samples a question to plan for")
        out.append(int(s))
    out = tuple(sorted(set(out)))
    if not out:
        raise EvalStatsError("samples is empty: name at least one number of samples a question, e.g. 10,20")
    return out


def largest_k(data: Dataset | QuestionTable) -> int | None:
    """The largest k a file's pass@k can take (the fewest samples of any answered question), when every answer is
    0/1 and some question has at least two samples; None when pass@k does not apply to the file.

    >>> from evalstats_core.data import load
    >>> largest_k(load(b"question,model,score\\nq1,A,1\\nq1,A,0\\nq2,A,1\\nq2,A,1\\n", name="s.csv"))
    2
    """
    table = question_scores(data) if isinstance(data, Dataset) else data
    counts = table.k[table.answered]
    if table.score_kind != "binary" or counts.size == 0 or int(counts.max()) < 2:
        return None
    return int(counts.min())
