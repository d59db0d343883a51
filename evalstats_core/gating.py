"""A regression gate for CI: is the candidate model shown not worse than the baseline?

=====================  ==============================================================================
:func:`gate`           the paired comparison ``candidate - baseline`` and its pass / fail / can't-tell
``GateResult``         the verdict, its exit code, the numbers behind it and a Markdown summary
``EXIT_CODES``         ``{"pass": 0, "regression": 1, "inconclusive": 3}`` (2 is bad input, from the CLI)
=====================  ==============================================================================

The gate uses exactly the workbench's comparison (:func:`~evalstats_core.analysis.analyze`: paired on
the shared questions, clustered on the file's cluster column, CR2 with Satterthwaite degrees of freedom
by default) and reads its interval for ``D = candidate - baseline``:

* **pass** (exit 0): the whole interval lies above ``-margin`` -- the candidate is shown not worse by
  more than the margin (a non-inferiority test at level ``(1 - confidence) / 2``; Wellek 2010, ch. 1).
* **regression** (exit 1): the whole interval lies below 0 -- the candidate is significantly worse (and,
  with a margin, worse by more than the data can excuse: with ``margin > 0`` a significant drop that
  stays within the margin passes, and the summary says so).
* **inconclusive** (exit 3): neither; the summary says how many questions like these would tell, with
  80% power if the true difference were the observed one (Miller 2024, arXiv:2411.00640, Eq. 9, with the
  variance of this file's differences, clustered when clustered).

Use it as one step of a pipeline: ``python -m evalstats_core gate results.csv --baseline main
--candidate pr-123 --margin 0.01``; the Markdown on stdout can be posted as a pull-request comment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import EvalStatsError

__all__ = ["GateResult", "gate", "EXIT_CODES"]

EXIT_CODES = {"pass": 0, "regression": 1, "inconclusive": 3}


@dataclass(frozen=True, slots=True)
class GateResult:
    """The gate's verdict on ``candidate - baseline`` and the numbers behind it.

    Attributes
    ----------
    baseline, candidate : str
        The two models.
    verdict : str
        ``"pass"``, ``"regression"`` or ``"inconclusive"``.
    exit_code : int
        0, 1 or 3 (see :data:`EXIT_CODES`).
    diff, se, df, ci_low, ci_high, p_value : float
        ``mean(candidate) - mean(baseline)`` on the shared questions, its SE, degrees of freedom
        (``inf``: normal), interval at ``confidence`` and two-sided p-value.
    mean_baseline, mean_candidate : float
        The means on the shared questions.
    n, n_left_out : int
        Shared questions, and questions only one of the two answered (left out).
    n_clusters : int or None
        Clusters among the shared questions (None when not clustered).
    margin, confidence : float
        The tolerated drop (score units) and the confidence level.
    n_needed : float or None
        When inconclusive: questions like these that would tell, with 80% power if the true difference
        were the observed one; None otherwise, or when no number can tell (observed difference exactly
        at the boundary).
    method : str
        ``"cr2"`` or ``"cr1"``.
    percent : bool
        Scores lie in [0, 1] (numbers print as percent and points).
    name : str
        The results file.
    unbounded : str or None
        Why the data cannot bound the difference (a zero standard error that no score interval
        replaced: every shared question, or every cluster, has the same score difference); the verdict
        is then inconclusive whatever the interval says. None otherwise.
    """

    baseline: str
    candidate: str
    verdict: str
    exit_code: int
    diff: float
    se: float
    df: float
    ci_low: float
    ci_high: float
    p_value: float
    mean_baseline: float
    mean_candidate: float
    n: int
    n_left_out: int
    n_clusters: int | None
    margin: float
    confidence: float
    n_needed: float | None
    method: str
    percent: bool
    name: str
    unbounded: str | None = None

    def _num(self, x: float, *, signed: bool = False, points: bool = False, bare: bool = False) -> str:
        """A score (``65.0%``), a difference (``+2.2 points``) or a bare number in the same units."""
        if not self.percent:
            return f"{x:+.3g}" if signed else f"{x:.3g}"
        text = f"{100.0 * x:+.1f}" if signed else f"{100.0 * x:.1f}"
        return text if bare else text + (" points" if points else "%")

    def headline(self) -> str:
        """One sentence: the verdict in words with the interval it rests on."""
        level = f"{round(100 * self.confidence, 2):g}%"
        ci = (f"{level} CI for {self.candidate} - {self.baseline}: {self._num(self.ci_low, signed=True, bare=True)} "
              f"to {self._num(self.ci_high, signed=True, points=True)}")
        margin = self._num(self.margin, points=True)
        if self.verdict == "pass":
            extra = (f"; it is significantly lower, but by less than the {margin} margin"
                     if self.ci_high < 0 else "")
            return (f"PASS: {self.candidate} is not worse than {self.baseline} by more than {margin} ({ci}){extra}.")
        if self.verdict == "regression":
            return f"REGRESSION: {self.candidate} is significantly worse than {self.baseline} ({ci})."
        tell = (f"No interval: {self.unbounded}, so the data cannot bound the difference."
                if self.unbounded is not None else
                ("The difference has standard error 0 here (" + ("every cluster has the same mean difference"
                 if self.n_clusters is not None else "every shared question has the same score difference")
                 + "): the interval comes from the discordant answers, and there is no variance to plan a "
                 "number of questions with.") if self.n_needed is None and self.se == 0.0 else
                "The observed difference sits exactly on the boundary: no number of questions can tell."
                if self.n_needed is None else
                f"About {math.ceil(self.n_needed):,} questions like these would tell (80% power if the true "
                f"difference is the observed {self._num(self.diff, signed=True, points=True)}), against "
                f"{self.n:,} here.")
        return (f"INCONCLUSIVE: the data cannot tell whether {self.candidate} is worse than {self.baseline} "
                f"({ci}). {tell}")

    def markdown(self) -> str:
        """A short Markdown summary for a CI log or a pull-request comment."""
        from .report import escape_markdown

        level = f"{round(100 * self.confidence, 2):g}%"
        how = (("CR2, t on " + f"{self.df:.1f} df") if self.method == "cr2" else "CR1, normal")
        design = (f"{self.n:,} shared questions in {self.n_clusters:,} clusters" if self.n_clusters is not None
                  else f"{self.n:,} shared questions")
        rows = [
            f"## evalstats gate: {escape_markdown(self.candidate)} vs {escape_markdown(self.baseline)}",
            "",
            f"**{escape_markdown(self.headline())}**",
            "",
            "| | mean | |",
            "| --- | ---: | --- |",
            f"| {escape_markdown(self.baseline)} (baseline) | {self._num(self.mean_baseline)} | |",
            f"| {escape_markdown(self.candidate)} (candidate) | {self._num(self.mean_candidate)} | |",
            f"| difference | {self._num(self.diff, signed=True, points=True)} | {level} CI "
            f"{self._num(self.ci_low, signed=True, bare=True)} to {self._num(self.ci_high, signed=True, points=True)}"
            ", p = "
            + (f"{self.p_value:.3g}" if math.isfinite(self.p_value) else "n/a") + " |",
            "",
            f"Paired on {design} ({how}); margin {self._num(self.margin, points=True)}"
            + (f"; {self.n_left_out:,} questions answered by only one model were left out" if self.n_left_out
               else "") + f". File: {escape_markdown(self.name)}. Exit code {self.exit_code} "
            "(0 pass, 1 regression, 3 inconclusive, 2 bad input).",
            "",
        ]
        return "\n".join(rows)


def gate(data: Any, *, baseline: str, candidate: str, margin: float = 0.0, confidence: float = 0.95,
         method: str = "cr2", use_clusters: bool = True, power: float = 0.8) -> GateResult:
    """Decide whether ``candidate`` is shown not worse than ``baseline`` (see the module docstring).

    Parameters
    ----------
    data : Dataset or QuestionTable
        From :func:`~evalstats_core.data.load`.
    baseline, candidate : str
        Model names as written in the file.
    margin : float, default 0
        The drop you tolerate, in score units (0.01 = 1 point for 0/1 scores); >= 0.
    confidence : float, default 0.95
        Level of the two-sided interval the gate reads.
    method : {"cr2", "cr1"}, default "cr2"
        Standard errors, as in :func:`~evalstats_core.analysis.analyze`.
    use_clusters : bool, default True
        Cluster on the file's cluster column when it has one.
    power : float, default 0.8
        Power for the "questions that would tell" when inconclusive.

    Returns
    -------
    GateResult

    Examples
    --------
    >>> from evalstats_core.data import load
    >>> rows = "question,old,new\\n" + "".join(f"q{i},{i % 2},{int(i % 2 or i % 3 == 0)}\\n" for i in range(300))
    >>> g = gate(load(rows.encode()), baseline="old", candidate="new")
    >>> g.verdict, g.exit_code
    ('pass', 0)
    """
    from ._validate import check_confidence, check_finite, check_probability
    from .analysis import analyze
    from .power import sample_size

    level = check_confidence(confidence)
    m = check_finite(margin, "margin")
    if m < 0:
        raise EvalStatsError(f"margin ({margin!r}) must be >= 0: the drop you tolerate, e.g. 0.01 for 1 point")
    power = check_probability(power, "power")
    if baseline == candidate:
        raise EvalStatsError(f"baseline and candidate are both {baseline!r}; name two different models")
    from .data import Dataset, question_scores

    table = question_scores(data) if isinstance(data, Dataset) else data
    models = getattr(table, "models", ())
    for role, name in (("baseline", baseline), ("candidate", candidate)):
        if name not in models:
            raise EvalStatsError(f"{role} {name!r} is not a model in {getattr(table, 'name', 'the data')}; its "
                                 f"models are: {', '.join(repr(x) for x in models)} (names must match exactly)")
    res = analyze(table, baseline=baseline, confidence=level, method=method, use_clusters=use_clusters,
                  adjust="none", interval="auto")
    c = next(p for p in res.comparisons if p.model == candidate)
    unbounded = _unbounded(c)
    if unbounded is not None or not (math.isfinite(c.ci_low) and math.isfinite(c.ci_high)):
        verdict = "inconclusive"  # the data cannot bound the difference: never a pass on no information
    elif c.ci_low > -m:
        verdict = "pass"
    elif c.ci_high < 0.0:
        verdict = "regression"
    else:
        verdict = "inconclusive"
    needed = None
    if verdict == "inconclusive":
        target = max(c.diff + m, -c.diff)  # the easier of "not worse" and "worse" at the observed difference
        if target > 0.0 and c.se > 0.0:
            omega2 = c.n * c.se * c.se  # per-question variance of the differences (clustered when clustered)
            needed = float(sample_size(target, omega2=omega2, alpha=1.0 - level, power=power))  # Eq. 9
    return GateResult(
        baseline=baseline, candidate=candidate, verdict=verdict, exit_code=EXIT_CODES[verdict], diff=c.diff,
        se=c.se, df=c.df, ci_low=c.ci_low, ci_high=c.ci_high, p_value=c.p_value, mean_baseline=c.mean_baseline,
        mean_candidate=c.mean_model, n=c.n, n_left_out=c.n_left_out, n_clusters=c.n_clusters, margin=m,
        confidence=level, n_needed=needed, method=method, percent=res.unit == "percent", name=res.name,
        unbounded=unbounded,
    )


def _unbounded(c: Any) -> str | None:
    """Why a zero-SE comparison's interval bounds nothing, or None (a score interval replaced it, or SE > 0).

    A zero standard error with the t interval is a zero-width interval: it says nothing about how far
    the difference could be from the observed one. Tango's score interval (paired 0/1 scores) does
    not have this problem, so only the t / normal intervals count here.
    """
    if c.se > 0.0 or c.interval.startswith("Tango"):
        return None
    if c.n_clusters is not None:
        return "every cluster has the same mean score difference (standard error 0)"
    return "every shared question has the same score difference (standard error 0)"
