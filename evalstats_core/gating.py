"""A regression gate for CI: is the candidate model shown not worse than the baseline?

=====================  ==============================================================================
:func:`gate`           the paired comparison ``candidate - baseline`` and its pass / fail / can't-tell
:func:`gate_pass_at_k` the same rules on ``pass@k(candidate) - pass@k(baseline)`` (:mod:`~evalstats_core.passk`)
``GateResult``         the verdict, its exit code, the numbers behind it and a Markdown summary
``EXIT_CODES``         ``{"pass": 0, "regression": 1, "inconclusive": 3}`` (2 is bad input, from the CLI)
=====================  ==============================================================================

The gate uses exactly the workbench's comparison (:func:`~evalstats_core.analysis.analyze`: paired on
the shared questions, clustered on the file's cluster column, CR2 with Satterthwaite degrees of freedom
by default) and reads its interval for ``D = candidate - baseline``:

* **pass** (exit 0): the whole interval lies above ``-margin`` -- the candidate is shown not worse by
  more than the margin (a non-inferiority test at level ``(1 - confidence) / 2``; Wellek 2010, ch. 1).
  With clusters, read on the CR2 t interval, the lower end of the stricter interval at one-sided level
  ``CLUSTERED_PASS_SHARE * (1 - confidence) / 2`` (the 96% interval at the default 95%) must lie above
  ``-margin`` too: CR2 with Satterthwaite df, the best small-sample t there is (equal to clubSandwich), has
  its own second-order error, and on its 95% end alone passed 2.6-2.9% of files whose true drop was the
  margin on 7 of 9 clustered designs of scores that are not 0/1 (4-40 clusters; 2.5-2.7% with 60-160),
  against the 2.5% promised; on the 96% end 1.4-2.3% (2.0-2.2% with 60-160). The price: 1-4 points fewer
  passes when the two models are equal, 0-7 at a true gain of one margin (``bench/bench_gate14_clusters.py``,
  100,000 files a design). A clustered 0/1 pair read on the score rule (Tango on effective counts with the MOVER
  union), or read on CR2 t with an end at the score rule's (``pair_proportions.t_or_score_ends``), needs its own
  stricter end, the rule's interval at one-sided ``CLUSTERED_SCORE_PASS_SHARE * (1 -
  confidence) / 2`` (the 98.5% interval at 95%): on MMLU's 57 subjects at 97-99% accuracy with the disagreements
  bunched in a few subjects, drops of exactly the margin passed 1.0-3.9% of files on the 95% end (issue 45
  measured 5.73% through ``gate``), and pass 0.05-1.95% with it (2,000 files a design, Monte Carlo SE 0.35
  points; ``bench/results/zeroone_gate_after_2000.txt``, ``..._before_2000.txt``). The price there: a candidate
  truly one margin better passes 60-80% of the time instead of 65-83%, an equal one 12-37% instead of 28-55%.
  On the 44 held-out designs of ``bench/bench_zeroone.py --quick`` (12-60 clusters, 55-99% accuracy; 400 files
  each, SE 0.78 points) the gate's false pass is at most 3.25% (one design, 60 x 20 equal clusters at 75%, where
  the rule reads CR2 t) and below 2.5% on the other 43 (``bench/results/zeroone_tscore_400.txt``); that design
  at 10,000 files passes 1.86% (SE 0.13 points; ``bench/results/zeroone_gate_60x20_10000.txt``): the 3.25% was
  Monte Carlo noise. On the ceiling designs above the end-by-end reading leaves the false pass as it was
  (0.05-1.95%, ``zeroone_gate_tscore_2000.txt``). On two clusters it never passes (:data:`TWO_CLUSTERS`: the
  clustered SE then rests on one number; with one cluster five times the other, 2.4-2.7% of drops at the
  margin passed even at the 96% end, against 5-11% of files with no drop or a gain).
* **regression** (exit 1): the whole interval lies below 0 -- the candidate is significantly worse (and,
  with a margin, worse by more than the data can excuse: with ``margin > 0`` a significant drop that
  stays within the margin passes, and the summary says so).
* **inconclusive** (exit 3): neither; the summary says how many questions (clusters, when clustered)
  like these would tell, with 80% power if the true difference were the observed one (Miller 2024,
  arXiv:2411.00640, Eq. 9, with the variance of this file's differences, clustered when clustered), or
  that no number up to :data:`MOST_NEEDED` would. Also where the data cannot bound the difference: a
  standard error of 0 with no score interval, or (skew11) scores in [0, 1] near a bound, unclustered, too
  skewed for their number of questions, whose interval's lower end Hall's capped correction leaves
  unreliable (:mod:`~evalstats_core.bounded_reach`: that end continued at the correction's rate reaches
  ``-margin``); the summary then names the reason and the fix.

The margin is in points of the score scale: :func:`parse_margin` reads ``2pt``, ``2%`` (both 2
percentage points of a 0-1 score) or ``0.02`` (score units) and echoes the unit back; a margin as large
as the scale itself (``--margin 5`` on 0/1 scores), or as the baseline's whole mean above the scale's floor
(it would pass a candidate that scores the floor on every question), infinite, NaN or negative is refused.

Use it as one step of a pipeline: ``evalbars gate results.csv --baseline main --candidate pr-123
--margin 1pt``; the Markdown on stdout can be posted as a pull-request comment.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from types import SimpleNamespace
from typing import Any

import numpy as np

from ._clusters import clt_se, t_crit
from ._validate import check_confidence, check_finite, check_probability
from .analysis import SE_RATIO_FLAG, analyze, analyze_sums, below_plain_sentence, plain_paired_se
from .bounded_reach import comparison_reach, reach_sentence
from .data import Dataset, question_scores
from .errors import EvalStatsError
from .escape import escape_markdown
from .human_labels import detect_human_col
from .passk import check_ks, pass_at_section
from .power import sample_size, sample_size_t
from .sums import FileSums
from .vocabulary import INTERVAL_LABELS, level, normal_label, se_method_label, signed_zero_free

__all__ = ["GateResult", "gate", "gate_pass_at_k", "EXIT_CODES", "parse_margin", "MOST_NEEDED", "CLUSTERED_PASS_SHARE",
           "CLUSTERED_SCORE_PASS_SHARE", "TWO_CLUSTERS"]

# The gate's result and its words (_gate_result.py until issue 38 merged it back: one concern, the gate).

#: The exit code of each verdict (2 is bad input, from the command line).
EXIT_CODES = {"pass": 0, "regression": 1, "inconclusive": 3}
#: The most questions (or clusters) the plan ever names; past this it says no practical number would tell.
MOST_NEEDED = 1e9


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
        0, 1 or 3 (see :data:`~evalstats_core.gating.EXIT_CODES`).
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
        at the boundary). On a judge-scored file decided on corrected numbers (``needed_unit`` ``"labels"``):
        questions labelled for both models that would tell (None: labelling every question would not).
    method : str
        ``"cr2"`` or ``"cr1"``.
    percent : bool
        Scores lie in [0, 1] (numbers print as percent and points).
    name : str
        The results file.
    needed_unit : str
        What :attr:`n_needed` counts: ``"questions"``, or ``"clusters"`` when clustered, or ``"labels"``
        (questions labelled for both models) when the judge's scores were corrected by human labels.
    n_labeled : int or None
        With ``needed_unit`` ``"labels"``: the questions labelled for both models here. None otherwise.
    wild_p_value : float or None
        The wild cluster bootstrap p of the difference, when asked for (a cross-check, not the decision).
    margin_given : str or None
        The margin as the user wrote it (echoed back with its unit).
    se_plain : float or None
        When clustered: the plain paired SE (questions as independent), to flag a clustered SE below it.
    unbounded : str or None
        Why the data cannot bound the difference (a zero standard error that no score interval
        replaced: every shared question, or every cluster, has the same score difference); the verdict
        is then inconclusive whatever the interval says. None otherwise.
    interval : str or None
        The interval the decision read, in the one vocabulary's words (the comparison's ``interval``:
        ``"t (n - 1 df)"``, ``"Tango score (discordant answers)"``, ...); the summary's footer names it.
    skewed : str or None
        Why a pass would rest on an unreliable lower end (scores in [0, 1] too skewed for their number of
        questions: :func:`~evalstats_core.bounded_reach.reach_sentence`); the verdict is then inconclusive
        although the interval lies above ``-margin``. None otherwise.
    pass_confidence, pass_low : float or None
        Clustered, on the CR2 t interval: the level of the stricter interval a pass needs (``1 -
        CLUSTERED_PASS_SHARE * (1 - confidence)``, 0.96 at the default) and its lower end. A pass needs it above
        ``-margin`` as well (on the ``confidence`` interval's end alone CR2 + Satterthwaite passes slightly more
        than ``(1 - confidence) / 2`` of drops at the margin); when only the ``confidence`` interval's end is above
        ``-margin`` the verdict is inconclusive and the summary says why. None otherwise.
    uncorrected : str or None
        On a judge-scored file, why the pair's difference could not be corrected by human labels (too few
        questions labelled for both models) and how many labels it needs; the verdict is then inconclusive and
        no difference is reported (the judge's own is biased). None otherwise.
    judge_note : str or None
        On a judge-scored file with human labels (``human_col=``, ``labels=``, or a column found by its name, as
        the command line's ``--human-col`` / ``--labels``): what decided (the corrected difference, how many labels)
        and what the judge alone gave; the last paragraph of :meth:`markdown`. None without labels.
    label_notes : tuple of str
        What the labels' reading left out and why (e.g. a column named ``label`` that holds no labels); the
        command line prints each as a note on stderr.
    two_clusters : str or None
        Why a pass was withheld on two clusters (:data:`~evalstats_core.gating.TWO_CLUSTERS`); the verdict is then
        inconclusive although both lower ends lie above ``-margin``. None otherwise.
    pass_at : int or None
        The k of a gate on pass@k (:func:`~evalstats_core.gating.gate_pass_at_k`): the means are then each model's
        pass@k on the shared questions and the difference theirs. None for the gate on the mean score.
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
    needed_unit: str = "questions"
    wild_p_value: float | None = None
    margin_given: str | None = None
    se_plain: float | None = None
    unbounded: str | None = None
    interval: str | None = None
    skewed: str | None = None
    pass_confidence: float | None = None
    pass_low: float | None = None
    two_clusters: str | None = None
    uncorrected: str | None = None
    judge_note: str | None = None
    label_notes: tuple[str, ...] = ()
    pass_at: int | None = None
    n_labeled: int | None = None

    def _num(self, x: float, *, signed: bool = False, points: bool = False, bare: bool = False, digits: int = 1) -> str:
        """A score (``65.0%``), a difference (``+2.2 points``) or a bare number in the same units; a value that
        rounds to zero prints ``0.0`` (never ``-0.0``). ``digits``: decimals of a percent (1), or significant
        digits beyond two of another score (3 in all)."""

        if not math.isfinite(x):
            return "n/a"
        if not self.percent:
            text = f"{x:.{2 + digits}g}"
            return "0" if text in ("0", "-0") else (f"{x:+.{2 + digits}g}" if signed else text)
        text = signed_zero_free(100.0 * x, digits, signed=signed)
        return text if bare else text + (" points" if points else "%")

    def _digits(self, bound: float, *values: float) -> int:
        """The fewest digits (1 to 4) of :meth:`_num` at which each of ``values`` prints unlike ``bound``."""
        for digits in (1, 2, 3):
            b = self._num(bound, digits=digits)
            if all(self._num(v, digits=digits) != b for v in values):
                return digits
        return 4

    def margin_words(self, respell: Callable[[str], str] | None = None) -> str:
        """The margin with its unit, echoing what was written as the API takes it: ``2.0 points (margin='2pt')``.

        ``respell`` puts the option in a surface's words: :func:`~evalstats_core.flags.for_cli` gives the
        command line's ``2.0 points (--margin 2pt)``.
        """
        text = self._num(self.margin, points=True)
        if not self.margin_given:
            return text
        option = f"margin='{self.margin_given}'"
        return f"{text} ({option if respell is None else respell(option)})"

    def reason(self) -> str:
        """One line: what was decided and why, from the interval's ends and the margin."""
        lo, hi = self._num(self.ci_low, signed=True, points=True), self._num(self.ci_high, signed=True, points=True)
        bound = self._num(-self.margin, signed=True, points=True)
        level = self._level(self.confidence)
        if self.uncorrected is not None:
            return f"INCONCLUSIVE (exit 3): {self.candidate} - {self.baseline} is {self.uncorrected}."
        if self.two_clusters is not None:
            return (f"INCONCLUSIVE (exit 3): the {level} interval's lower end, {lo}, is above {bound} (minus the "
                    f"margin), but {self.two_clusters}.")
        if self.pass_low is not None and (self.verdict == "pass" or self.held_at_pass_level):  # both ends named
            digits = self._digits(-self.margin, self.ci_low, self.pass_low)
            lo, bound, plo = (self._num(x, signed=True, points=True, digits=digits)
                              for x in (self.ci_low, -self.margin, self.pass_low))
            strict = self._level(self.pass_confidence)
            if self.verdict == "pass":
                return (f"PASS (exit 0): the {level} interval's lower end, {lo}, and the {strict} interval's, {plo}, "
                        f"which a pass needs with clusters, are above {bound} (minus the margin), so {self.candidate} "
                        f"is not worse than {self.baseline} by more than the margin.")
            return (f"INCONCLUSIVE (exit 3): the {level} interval's lower end, {lo}, is above {bound} (minus the "
                    f"margin), but with clusters a pass needs the {strict} interval's lower end above it, and that is "
                    f"{plo}, so the data can rule out neither a drop beyond the margin nor no drop.")
        if self.verdict == "pass":
            return (f"PASS (exit 0): the {level} interval's lower end, {lo}, is above {bound} (minus the margin), "
                    f"so {self.candidate} is not worse than {self.baseline} by more than the margin.")
        if self.verdict == "regression":
            return (f"REGRESSION (exit 1): the {level} interval's upper end, {hi}, is below 0 and its lower end, "
                    f"{lo}, at or below {bound}: {self.candidate} is worse than {self.baseline}.")
        if self.skewed is not None:
            return (f"INCONCLUSIVE (exit 3): the {level} interval's lower end, {lo}, is above {bound} (minus the "
                    "margin), but with scores this skewed that end is unreliable, so the data can rule out neither a "
                    "drop beyond the margin nor no drop.")
        return (f"INCONCLUSIVE (exit 3): the {level} interval ({lo} to {hi}) reaches below {bound} and above 0, "
                "so the data can rule out neither a drop beyond the margin nor no drop.")

    def decided(self, verdict: str, **changes: object) -> GateResult:
        """This result with another ``verdict`` and its exit code (:data:`EXIT_CODES`), and ``changes``: how the
        judge's corrected gate (:func:`~evalstats_core.judge_apply.corrected_gate`) restates the decision."""
        return dataclasses.replace(self, verdict=verdict, exit_code=EXIT_CODES[verdict], **changes)

    @property
    def held_at_pass_level(self) -> bool:
        """The interval's lower end is above ``-margin`` but the stricter one a clustered pass needs
        (:attr:`pass_low`) is not: inconclusive for that alone."""
        return (self.verdict == "inconclusive" and self.skewed is None and self.unbounded is None
                and self.two_clusters is None and self.pass_low is not None
                and self.ci_low > -self.margin >= self.pass_low)

    @staticmethod
    def _level(confidence: float | None) -> str:
        return level(confidence) if confidence is not None else "n/a"

    def _pass_level_words(self) -> str:
        """Why a clustered pass needs the stricter interval's end, with that end."""
        digits = self._digits(-self.margin, self.pass_low)
        bound, plo = (self._num(x, signed=True, points=True, digits=digits) for x in (-self.margin, self.pass_low))
        if self.interval in (INTERVAL_LABELS["tango-effective"], INTERVAL_LABELS["t-score"]):  # the score rule's end
            # (gating.CLUSTERED_SCORE_PASS_SHARE; a clustered 0/1 pair on the score rule, or an end of t at it)
            return (f"With clusters a pass needs the {self._level(self.pass_confidence)} interval's lower end above "
                    f"{bound}, and it is {plo}: on the {self._level(self.confidence)} interval's end alone, 0/1 scores "
                    "whose disagreements sit in a few clusters passed up to 6.3% of files whose true drop was the "
                    f"margin in simulation (MMLU's 57 subjects at 97-99% accuracy), above the "
                    f"{self._level((1 - self.confidence) / 2)} the gate allows.")
        return (f"With clusters a pass needs the {self._level(self.pass_confidence)} interval's lower end above "
                f"{bound}, and it is {plo}: on the {self._level(self.confidence)} interval's end alone, CR2 with "
                "Satterthwaite df passed up to 2.9% of files whose true drop was the margin in simulation (4 to 160 "
                f"clusters), above the {self._level((1 - self.confidence) / 2)} the gate allows.")

    def headline(self, respell: Callable[[str], str] | None = None) -> str:
        """One sentence: the verdict in words with the interval it rests on (``respell``: as for
        :meth:`margin_words`)."""
        level = self._level(self.confidence)
        ci = (f"{level} CI for {self.candidate} - {self.baseline}: {self._num(self.ci_low, signed=True, bare=True)} "
              f"to {self._num(self.ci_high, signed=True, points=True)}")
        margin = self.margin_words(respell)
        if self.uncorrected is not None:
            return (f"INCONCLUSIVE: the human labels cannot correct the judge's scores of {self.candidate} - "
                    f"{self.baseline} ({self.uncorrected}).")
        if self.verdict == "pass":
            extra = (f"; it is significantly lower, but by less than the {margin} margin"
                     if self.ci_high < 0 else "")
            return (f"PASS: {self.candidate} is not worse than {self.baseline} by more than {margin} ({ci}){extra}.")
        if self.verdict == "regression":
            return f"REGRESSION: {self.candidate} is significantly worse than {self.baseline} ({ci})."
        tell = (f"No interval: {self.unbounded}, so the data cannot bound the difference."
                if self.unbounded is not None else
                self.skewed[:1].upper() + self.skewed[1:] + "." if self.skewed is not None else
                self._pass_level_words() + " " + self._tell() if self.held_at_pass_level else
                self.two_clusters[:1].upper() + self.two_clusters[1:] + "." if self.two_clusters is not None else
                ("The difference has standard error 0 here (" + ("every cluster has the same mean difference"
                 if self.n_clusters is not None else "every shared question has the same score difference")
                 + "): the interval comes from the discordant answers, and there is no variance to plan a "
                 "number of questions with.") if (self.n_needed is None and self.se == 0.0
                                                  and self.needed_unit != "labels") else self._tell())
        return (f"INCONCLUSIVE: the data cannot tell whether {self.candidate} is worse than {self.baseline} "
                f"({ci}). {tell}")

    def _tell(self) -> str:
        units = self.needed_unit
        if units == "labels":  # decided on the judge's scores corrected by human labels: more labels would tell
            return self._tell_labels()
        have = self.n_clusters if units == "clusters" and self.n_clusters is not None else self.n
        if self.n_needed is None:
            return (f"No number of {units} up to {MOST_NEEDED:,.0f} would tell: the observed difference "
                    f"({self._num(self.diff, signed=True, points=True)}) is (practically) on the boundary.")
        each = (f" (of about {self.n / self.n_clusters:,.1f} questions each)"
                if units == "clusters" and self.n_clusters else "")
        return (f"About {math.ceil(self.n_needed):,} {units} like these{each} would tell (80% power if the true "
                f"difference is the observed {self._num(self.diff, signed=True, points=True)}), against "
                f"{have:,} here.")

    def _tell_labels(self) -> str:
        """The corrected gate's plan: questions labelled for both models that would tell (80% power if the true
        corrected difference is the observed one), against those labelled here; or why no number of labels would."""
        diff = self._num(self.diff, signed=True, points=True)
        if self.n_needed is None and max(self.diff + self.margin, -self.diff) <= 0.0:
            return (f"No number of human labels would tell: the corrected difference ({diff}) is (practically) on the "
                    "boundary.")
        if self.n_needed is None and (self.n_labeled or 0) < 3:
            return (f"Only {self.n_labeled or 0:,} questions are labelled for both models: too few to plan how many "
                    "would tell; label more of them.")
        if self.n_needed is None:
            return (f"Labelling all {self.n:,} questions for both models would not tell (80% power if the true "
                    f"corrected difference is the observed {diff}): more questions, judged and labelled, would.")
        return (f"About {math.ceil(self.n_needed):,} questions labelled for both models (of {self.n:,}) would tell "
                f"(80% power if the true corrected difference is the observed {diff}), against "
                f"{self.n_labeled or 0:,} here.")

    def markdown(self, respell: Callable[[str], str] | None = None) -> str:
        """A short Markdown summary for a CI log or a pull-request comment (``respell``: as for
        :meth:`margin_words`; the command line passes :func:`~evalstats_core.flags.for_cli`)."""
        level = self._level(self.confidence)
        how = se_method_label(self.method, "the cluster column" if self.n_clusters is not None else None)
        how = (how.replace("clustered on 'the cluster column'", "clustered") + f", {self.df:.1f} df"
               if math.isfinite(self.df) else how)
        if self.interval in INTERVAL_LABELS.values() or (self.interval or "").startswith("t (PPI++"):
            # a score interval, not the t / normal one; or the judge's scores corrected by human labels
            how = f"{self.interval} interval" + (", clustered" if self.n_clusters is not None else "")
        design = (f"{self.n:,} shared questions in {self.n_clusters:,} clusters" if self.n_clusters is not None
                  else f"{self.n:,} shared questions")
        p = self._p(self.p_value)
        rows = [
            f"## evalbars gate: {escape_markdown(self.candidate)} vs {escape_markdown(self.baseline)}"
            + ("" if self.pass_at is None else f", pass@{self.pass_at}"),
            "",
            f"**{escape_markdown(self.headline(respell))}**",
            "",
            "### Gate",
            "",
            escape_markdown(self.reason()),
            "",
            "| | mean | |" if self.pass_at is None else f"| | pass@{self.pass_at} | |",
            "| --- | ---: | --- |",
            f"| {escape_markdown(self.baseline)} (baseline) | {self._num(self.mean_baseline)} | |",
            f"| {escape_markdown(self.candidate)} (candidate) | {self._num(self.mean_candidate)} | |",
            f"| difference | {self._num(self.diff, signed=True, points=True)} | {level} CI "
            f"{self._num(self.ci_low, signed=True, bare=True)} to {self._num(self.ci_high, signed=True, points=True)}"
            f", p = {p}" + (f"; wild bootstrap p = {self._p(self.wild_p_value)} (a cross-check)"
                             if self.wild_p_value is not None else "") + " |",
            *([f"| | | {self._level(self.pass_confidence)} CI lower end "
               f"{self._num(self.pass_low, signed=True, points=True, digits=2)} (with clusters a pass needs it above "
               f"{self._num(-self.margin, signed=True, points=True, digits=2)}) |"]
              if self.pass_low is not None else []),
            "",
            *self._below_plain(),
            f"Paired on {design} ({how}); margin {escape_markdown(self.margin_words(respell))}"
            + (f"; {self.n_left_out:,} questions answered by only one model were left out" if self.n_left_out
               else "") + f". File: {escape_markdown(self.name)}. Exit code {self.exit_code} "
            "(0 pass, 1 regression, 3 inconclusive, 2 bad input).",
            "",
            *([escape_markdown(self.judge_note), ""] if self.judge_note else []),
        ]
        return "\n".join(rows)

    def _below_plain(self) -> list[str]:
        """A note (and a blank line) when the clustered SE the decision rests on is below the plain paired SE."""

        if self.se_plain is None or not (self.se * SE_RATIO_FLAG < self.se_plain):
            return []


        c = type("Pair", (), {"model": self.candidate, "baseline": self.baseline, "se": self.se,
                              "n_clusters": self.n_clusters})
        return [f"Note: {escape_markdown(below_plain_sentence(c, self.se_plain, self.percent))}", ""]

    @staticmethod
    def _p(p: float | None) -> str:
        return f"{p:.3g}" if p is not None and math.isfinite(p) else "n/a"


#: With clusters (the CR2 t interval, Satterthwaite df) a pass needs the lower end of the interval whose one-sided
#: error is this share of the gate's ``(1 - confidence) / 2``: 2% for 2.5%, the 96% interval's lower end at the
#: default 95%. CR2 + Satterthwaite (= clubSandwich) passed 2.6-2.9% of files whose true drop was the margin on the
#: 95% end alone, on clustered scores that are not 0/1 with 4 to 160 clusters (its own second-order error); on the
#: 96% end 1.4-2.3% (bench/bench_gate14_clusters.py, 40,000-100,000 files a design).
CLUSTERED_PASS_SHARE = 0.8
#: With clusters, a 0/1 pair read on the score rule (Tango on effective counts with the MOVER union,
#: :func:`~evalstats_core.pair_proportions.binary_pair_interval`) passes only if the rule's interval at one-sided
#: level ``CLUSTERED_SCORE_PASS_SHARE * (1 - confidence) / 2`` (the 98.5% interval at the default 95%) also lies above
#: ``-margin``: on the 95% end alone, drops of exactly the margin passed 5.1-6.3% of files on MMLU's 57 subjects at
#: 97-99% accuracy (ICC 0.1-0.3 of the disagreement rate; issue 45 measured 5.73% through ``gate``), where the
#: disagreements sit in a few subjects and a file that misses them shows too small a drop
#: (``bench/bench_zeroone.py``, ``bench/results/zeroone_gate_*.txt``).
CLUSTERED_SCORE_PASS_SHARE = 0.3
#: Why the gate never passes on two clusters (the CR2 t interval): the clustered SE then rests on one number.
TWO_CLUSTERS = ("with 2 clusters the clustered standard error rests on a single number (how far apart the two "
                "clusters' differences lie), so no interval from it can rule out a drop beyond the margin: in "
                "simulation, with one cluster five times the other, such passes came 2.4-2.7% of the time when the "
                "true drop was the margin and only 5-11% when there was none or a gain; a pass needs 3 clusters or "
                "more")
_MARGIN = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(pt|pts|points?|%|)\s*", re.IGNORECASE)


def parse_margin(text: str) -> tuple[float, str]:
    """Read a margin as written: ``"2pt"``/``"2 points"``/``"2%"`` (percentage points) or ``"0.02"`` (score units).

    Returns the number and its unit, ``"points"`` or ``"score"``; the scale check (a margin larger than the
    scale allows is refused) needs the scores, so :func:`gate` makes it.

    >>> parse_margin("2pt"), parse_margin("2%"), parse_margin("0.02")
    ((2.0, 'points'), (2.0, 'points'), (0.02, 'score'))
    >>> parse_margin("-1")
    Traceback (most recent call last):
    ...
    evalstats_core.errors.EvalStatsError: margin '-1' must be a drop >= 0 written as 2pt, 2% or 0.02 (score units)
    """
    found = _MARGIN.fullmatch(str(text))
    value = float(found.group(1)) if found else math.nan
    if not found or not math.isfinite(value):
        raise EvalStatsError(f"margin {text!r} must be a drop >= 0 written as 2pt, 2% or 0.02 (score units)")
    return value, ("points" if found.group(2) else "score")


def gate(data: Any, *, baseline: str, candidate: str, margin: float | str = 0.0, confidence: float = 0.95,
         method: str = "cr2", use_clusters: bool = True, power: float = 0.8, wild_bootstrap: bool = False,
         n_boot: int = 9999, seed: int = 0, human_col: str | None = None, labels: Any = None,
         labels_all_models: bool = False) -> GateResult:
    """Decide whether ``candidate`` is shown not worse than ``baseline`` (see the module docstring).

    Parameters
    ----------
    data : Dataset, QuestionTable or FileSums
        From :func:`~evalstats_core.data.load`, or a file's sums (:func:`~evalstats_core.engine.sums_of`:
        files larger than memory; the wild bootstrap then needs the rows and is refused).
    baseline, candidate : str
        Model names as written in the file.
    margin : float or str, default 0
        The drop you tolerate: a number in score units (0.01 = 1 point for 0/1 scores), or text as
        :func:`parse_margin` reads it (``"1pt"``, ``"1%"``, ``"0.01"``); >= 0 and smaller than the scale
        (refused otherwise: a margin of 5 on 0/1 scores would pass any drop).
    confidence : float, default 0.95
        Level of the two-sided interval the gate reads.
    method : {"cr2", "cr1"}, default "cr2"
        Standard errors, as in :func:`~evalstats_core.analysis.analyze`.
    use_clusters : bool, default True
        Cluster on the file's cluster column when it has one.
    power : float, default 0.8
        Power for the "questions that would tell" when inconclusive.
    wild_bootstrap : bool, default False
        Add the wild cluster bootstrap p of the difference as a cross-check (``n_boot`` draws, ``seed``), as
        in :func:`~evalstats_core.analysis.analyze`; the decision still reads the interval.
    human_col : str, optional
        The column of human labels of a judge-scored file (default: a column named ``human``, ``gold`` or
        ``label``, as the command line's ``--human-col``); the gate then decides on the judge's scores corrected
        by them (PPI++) and says so in :attr:`~GateResult.judge_note`. For harness logs: the human scorer.
    labels : str, bytes or path, optional
        Human labels in a separate CSV joined on the question (and model) id (the command line's ``--labels``).
    labels_all_models : bool, default False
        Labels without a model column grade every model's answer (``--labels-all-models``).

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
    level, given, value, unit, power = _checked_args(margin, confidence, power, baseline, candidate)

    sums = data if isinstance(data, FileSums) else None  # a file's sums (the duckdb / spark engines)
    table = question_scores(data) if isinstance(data, Dataset) else data
    _check_roles(table, baseline, candidate)
    if sums is not None:

        if wild_bootstrap:
            raise EvalStatsError("the wild bootstrap needs the rows, which a file's sums do not keep; gate a file "
                                 "that fits in memory (engine='memory') for it")
        res = analyze_sums(sums, baseline=baseline, confidence=level, method=method, use_clusters=use_clusters,
                           adjust="none", interval="auto")
    else:
        res = analyze(table, baseline=baseline, confidence=level, method=method, use_clusters=use_clusters,
                      adjust="none", interval="auto", wild_bootstrap=wild_bootstrap, n_boot=n_boot, seed=seed)
    percent = res.unit == "percent"
    c = next(p for p in res.comparisons if p.model == candidate)
    m = _margin_on_scale(value, unit, given, percent, table, (baseline, candidate), c.mean_baseline)
    unbounded = _unbounded(c)
    if unbounded is not None or not (math.isfinite(c.ci_low) and math.isfinite(c.ci_high)):
        verdict = "inconclusive"  # the data cannot bound the difference: never a pass on no information
    elif c.ci_low > -m:
        verdict = "pass"
    elif c.ci_high < 0.0:
        verdict = "regression"
    else:
        verdict = "inconclusive"
    skewed = _skewed(c, sums if sums is not None else table, m, level) if verdict == "pass" else None
    if skewed is not None:
        verdict = "inconclusive"  # the pass would rest on a lower end the scores' skewness makes unreliable
    strict = _stricter(c, level) if unbounded is None else None
    two = TWO_CLUSTERS if verdict == "pass" and strict is not None and c.n_clusters == 2 else None
    share = _rule_pass_share(c)
    if verdict == "pass" and strict is None and unbounded is None and share is not None:  # its own stricter end
        score_level = 1.0 - share * (1.0 - level)
        again = (analyze_sums(sums, baseline=baseline, confidence=score_level, method=method,
                              use_clusters=use_clusters, adjust="none", interval="auto") if sums is not None else
                 analyze(table, baseline=baseline, confidence=score_level, method=method, use_clusters=use_clusters,
                         adjust="none", interval="auto"))
        strict = (score_level, next(p for p in again.comparisons if p.model == candidate).ci_low)
    if verdict == "pass" and strict is not None and (two is not None or not strict[1] > -m):
        verdict = "inconclusive"  # CR2's end alone passes slightly more than (1 - level) / 2 of drops at the margin
    needed = (_needed(c, m, level, power, strict, method)
              if verdict == "inconclusive" and skewed is None and two is None else None)
    plain = None
    if c.n_clusters is not None:

        plain = plain_paired_se(table, candidate, baseline) if sums is None else _plain_from_sums(sums, candidate,
                                                                                                 baseline)
    result = GateResult(
        baseline=baseline, candidate=candidate, verdict=verdict, exit_code=EXIT_CODES[verdict], diff=c.diff,
        se=c.se, df=c.df, ci_low=c.ci_low, ci_high=c.ci_high, p_value=c.p_value, mean_baseline=c.mean_baseline,
        mean_candidate=c.mean_model, n=c.n, n_left_out=c.n_left_out, n_clusters=c.n_clusters, margin=m,
        confidence=level, n_needed=needed, method=method, percent=percent, name=res.name,
        needed_unit="clusters" if c.n_clusters is not None else "questions", wild_p_value=c.wild_p_value,
        margin_given=given.strip() if given is not None else None, se_plain=plain, unbounded=unbounded,
        interval=c.interval, skewed=skewed, pass_confidence=None if strict is None else strict[0],
        pass_low=None if strict is None else strict[1], two_clusters=two,
    )
    return _with_labels(data, result, human_col, labels, labels_all_models, use_clusters)


def gate_pass_at_k(data: Any, *, baseline: str, candidate: str, k: int, margin: float | str = 0.0,
                   confidence: float = 0.95, use_clusters: bool = True, power: float = 0.8) -> GateResult:
    """:func:`gate`'s decision on pass@k: is ``candidate``'s pass@k shown not worse than ``baseline``'s?

    Parameters
    ----------
    data : Dataset or QuestionTable
        A file of 0/1 answers with several samples a question (as :func:`~evalstats_core.passk.pass_at_section`).
    baseline, candidate : str
        Model names as written in the file.
    k : int
        Tries counted.
    margin, confidence, use_clusters, power
        As for :func:`gate` (the margin in points of pass@k).

    Returns
    -------
    GateResult
        With :attr:`~GateResult.pass_at` set: the means are each model's pass@k on the shared questions.

    Notes
    -----
    The difference is :func:`~evalstats_core.passk.pass_at_k_compare`'s (paired by question, CR2 over questions or
    clusters, t on Bell-McCaffrey df), and the rules are :func:`gate`'s: a pass needs the interval's lower end above
    ``-margin`` (with clusters the stricter :data:`CLUSTERED_PASS_SHARE` end too, never on two clusters), a
    regression its upper end below 0; a standard error of 0 bounds nothing (inconclusive); an inconclusive file gets
    the questions (clusters) that would tell. The rows' wild bootstrap, human labels and the skewness rule of scores
    near a bound are not applied here.

    Examples
    --------
    >>> from evalstats_core.data import load
    >>> rows = "question,model,score\\n" + "".join(f"q{q},{m},{int((q * 7 + r * 3 + j) % 5 < 3)}\\n"
    ...     for q in range(300) for j, m in enumerate(("old", "new")) for r in range(4))
    >>> g = gate_pass_at_k(load(rows.encode(), name="s.csv"), baseline="old", candidate="new", k=2, margin="5pt")
    >>> g.verdict, g.pass_at
    ('pass', 2)
    """
    level, given, value, unit, power = _checked_args(margin, confidence, power, baseline, candidate)
    if isinstance(data, FileSums):
        raise EvalStatsError("pass@k needs each question's samples, which a file's sums do not keep; gate a file "
                             "that fits in memory (engine='memory') on pass@k")
    table = question_scores(data) if isinstance(data, Dataset) else data
    models = _check_roles(table, baseline, candidate)
    if len(check_ks(k)) != 1:
        raise EvalStatsError(f"k ({k!r}) must be one whole number >= 1: the gate decides on one pass@k at a time")
    section = pass_at_section(table, k, pairs=[(candidate, baseline)], use_clusters=use_clusters, confidence=level)
    r = section.comparisons[0].results[0]
    i, j = models.index(candidate), models.index(baseline)
    n_left_out = int((table.answered[:, i] ^ table.answered[:, j]).sum())
    c = SimpleNamespace(model=candidate, baseline=baseline, diff=r.estimate, se=r.se, df=r.df, ci_low=r.ci.low,
                        ci_high=r.ci.high, n=r.n_questions, n_clusters=r.n_clusters,
                        interval=normal_label("cr2", r.n_clusters is not None))  # the pair as the gate's rules read it
    m = _margin_on_scale(value, unit, given, True, table, (baseline, candidate), r.estimate_baseline)
    unbounded = _unbounded(c)
    if unbounded is not None:
        verdict = "inconclusive"  # a zero-width interval bounds nothing
    elif c.ci_low > -m:
        verdict = "pass"
    elif c.ci_high < 0.0:
        verdict = "regression"
    else:
        verdict = "inconclusive"
    strict = _stricter(c, level) if unbounded is None else None
    two = TWO_CLUSTERS if verdict == "pass" and strict is not None and c.n_clusters == 2 else None
    if verdict == "pass" and strict is not None and (two is not None or not strict[1] > -m):
        verdict = "inconclusive"  # as gate(): CR2's end alone passes slightly more than (1 - level) / 2 at the margin
    needed = _needed(c, m, level, power, strict) if verdict == "inconclusive" and two is None else None
    return GateResult(
        baseline=baseline, candidate=candidate, verdict=verdict, exit_code=EXIT_CODES[verdict], diff=c.diff,
        se=c.se, df=c.df, ci_low=c.ci_low, ci_high=c.ci_high, p_value=r.p_value, mean_baseline=r.estimate_baseline,
        mean_candidate=r.estimate_model, n=c.n, n_left_out=n_left_out, n_clusters=c.n_clusters, margin=m,
        confidence=level, n_needed=needed, method="cr2", percent=True, name=table.name,
        needed_unit="clusters" if c.n_clusters is not None else "questions",
        margin_given=given.strip() if given is not None else None, unbounded=unbounded, interval=c.interval,
        pass_confidence=None if strict is None else strict[0], pass_low=None if strict is None else strict[1],
        two_clusters=two, pass_at=section.ks[0])


def _checked_args(margin: float | str, confidence: float, power: float, baseline: str,
                  candidate: str) -> tuple[float, str | None, float, str, float]:
    """The gate's arguments checked (both gates): the level, the margin as given (text) or None, its value and
    unit, and the power."""
    level = check_confidence(confidence)
    given = margin if isinstance(margin, str) else None
    value, unit = parse_margin(margin) if given is not None else (check_finite(margin, "margin"), "score")
    if value < 0:
        raise EvalStatsError(f"margin ({margin!r}) must be >= 0: the drop you tolerate, e.g. 1pt for 1 point")
    power = check_probability(power, "power")
    if baseline == candidate:
        raise EvalStatsError(f"baseline and candidate are both {baseline!r}; name two different models")
    return level, given, value, unit, power


def _check_roles(table: Any, baseline: str, candidate: str) -> tuple[str, ...]:
    """The table's models, once the baseline and the candidate are found among them."""
    models = getattr(table, "models", ())
    for role, name in (("baseline", baseline), ("candidate", candidate)):
        if name not in models:
            raise EvalStatsError(f"{role} {name!r} is not a model in {getattr(table, 'name', 'the data')}; its "
                                 f"models are: {', '.join(repr(x) for x in models)} (names must match exactly)")
    return models


def _with_labels(data: Any, result: GateResult, human_col: str | None, labels: Any, labels_all_models: bool,
                 use_clusters: bool) -> GateResult:
    """``result`` decided on the judge's scores corrected by human labels when the file (or ``labels``) has them,
    as the command line decides (:func:`~evalstats_core.judge_apply.gate_with_labels`); else ``result``."""


    if not isinstance(data, Dataset):  # a file's sums or a QuestionTable keep no label column
        if human_col is not None or labels is not None:
            raise EvalStatsError("human labels (human_col=, labels=) need the rows of the file: give the Dataset "
                                 "from load() (a file's sums from an engine keep no labels)")
        return result

    if human_col is None and labels is None and detect_human_col(data) is None:
        return result  # no labels: nothing to correct (and no second analysis)
    # the judge's modules (scipy.optimize): only when human labels exist
    from .judge_apply import gate_with_labels

    notes: list[str] = []
    corrected, note = gate_with_labels(data, result, human_col=human_col, labels=labels, method=result.method,
                                       use_clusters=use_clusters, labels_all_models=labels_all_models, notes=notes)
    return dataclasses.replace(corrected, judge_note=note, label_notes=tuple(notes))


def _skewed(c: Any, data: Any, margin: float, level: float) -> str | None:
    """Why a pass of a pair of [0, 1] scores near a bound, unclustered, rests on a lower end that Hall's capped
    correction leaves unreliable (:func:`~evalstats_core.bounded_reach.comparison_reach` at or below ``-margin``),
    or None."""

    r = comparison_reach(data, c, level)
    return reach_sentence(r, c.model, c.baseline, margin) if r is not None and r.reach <= -margin else None


def _stricter(c: Any, level: float) -> tuple[float, float] | None:
    """``(level, lower end)`` of the stricter interval a clustered pass needs (:data:`CLUSTERED_PASS_SHARE`), for a
    comparison read on the CR2 t interval (Satterthwaite df); None otherwise."""

    if c.n_clusters is None or not c.se > 0.0 or c.interval != normal_label("cr2", True):
        return None
    strict = 1.0 - CLUSTERED_PASS_SHARE * (1.0 - level)
    return strict, c.diff - t_crit(strict, c.df) * c.se


def _rule_pass_share(c: Any) -> float | None:
    """The one-sided share of ``(1 - confidence) / 2`` at which a clustered 0/1 pair's rule is read again for a pass:
    :data:`CLUSTERED_SCORE_PASS_SHARE` on the score rule (Tango on effective counts, the MOVER union) and where an
    end of CR2 t reads it (``pair_proportions.t_or_score_ends``); None otherwise (CR2 t itself: :func:`_stricter`)."""
    if c.n_clusters is None:
        return None
    return CLUSTERED_SCORE_PASS_SHARE if c.n_clusters is not None and c.interval in (
        INTERVAL_LABELS["tango-effective"], INTERVAL_LABELS["t-score"]) else None


#: A margin within this fraction of the largest drop possible is as large as it (it prints as the same number of
#: points: ``0.999999`` is "100.0 points"), and refused with it.
_SAME_AS_LIMIT = 1e-3


def _margin_on_scale(value: float, unit: str, given: str | None, percent: bool, table: Any,
                     pair: tuple[str, str], mean_baseline: float) -> float:
    """The margin in score units, refused when it would let the gate pass any drop the scores allow.

    The check is made on the margin in score units (after ``2pt`` or ``0.02`` is read), against two limits:
    the scale's span (0/1 or [0, 1] scores: 1.0, 100 points; other scores, unbounded or not: the two models'
    smallest to largest score), and the largest drop the baseline can suffer, its mean above the scale's floor
    (0 for [0, 1] scores, else the smallest score of the two models): a margin that large passes a candidate
    that scores the floor on every question (issue 46: ``0.999999`` passed 0% against 59.7%). A margin within
    :data:`_SAME_AS_LIMIT` of a limit prints as it and is refused with it. A baseline already at the floor
    leaves no drop to pass, so any margin is harmless there.
    """
    shown = given if given is not None else repr(value)
    if unit == "points" and not percent:
        raise EvalStatsError(f"margin {shown!r} is in points, but these scores are not between 0 and 1; give it in "
                             "score units (e.g. margin=0.5)")
    m = value / 100.0 if unit == "points" else value
    if percent:
        span, floor, what = 1.0, 0.0, "0/1 scores span 1.0 (100 points)"
    elif hasattr(table, "model_sums"):  # a file's sums: each model's smallest and largest score
        ms = [table.model_sums[list(table.models).index(name)] for name in pair]
        floor = min(x.minimum for x in ms)
        span = max(x.maximum for x in ms) - floor
        what = f"these scores span {span:.3g}"
    else:
        cols = [list(table.models).index(name) for name in pair]
        vals = table.scores[:, cols][table.answered[:, cols]]
        floor = float(np.nanmin(vals)) if vals.size else 0.0
        span = float(np.nanmax(vals)) - floor if vals.size else 0.0
        what = f"these scores span {span:.3g}"

    def reaches(limit: float) -> bool:
        return m > 0 and limit > 0 and m >= limit * (1.0 - _SAME_AS_LIMIT)

    hint = f"; for {value:g} points write margin='{value:g}pt'" if percent and unit == "score" else ""
    if reaches(span) or (m > 0 and span <= 0):
        raise EvalStatsError(f"margin {shown!r} is larger than the scale allows ({what}): it would pass any drop"
                             f"{hint}")
    room = mean_baseline - floor  # the largest drop the baseline can suffer
    if reaches(room):
        room_words = f"{100 * room:.1f} points" if percent else f"{room:.3g}"
        floor_words = "0" if percent else f"{floor:.3g}"
        raise EvalStatsError(f"margin {shown!r} is as large as {pair[0]}'s whole mean above the scale's floor "
                             f"({room_words}): a candidate scoring {floor_words} on every question would pass; give a "
                             f"margin smaller than the drop you would accept (e.g. margin='1pt'){hint}")
    return m


def _plain_from_sums(sums: Any, model: str, baseline: str) -> float:
    """The paired SE with questions as independent, sd(d) / sqrt(n), from a file's sums (clusters merged)."""

    p = sums.merged().pair(list(sums.models).index(model), list(sums.models).index(baseline))
    n = int(p.count[0])
    return math.ldexp(clt_se(float(p.m2_diff[0]), n), sums.exponent) if n > 1 else math.nan


def _needed(c: Any, margin: float, level: float, power: float, strict: tuple[float, float] | None = None,
            method: str = "cr2") -> float | None:
    """Questions (clusters when clustered) like these that would tell, capped at :data:`MOST_NEEDED`: the fewer of
    those that would show "not worse" (at ``strict``'s level and lower end, the stricter interval a clustered pass
    needs, when given) and those that would show "worse", at the observed difference.

    The plan never names fewer units than an inconclusive file has (issue 46: "About 2 clusters ... would tell,
    against 2 here"). An interval read on t (CR2's Satterthwaite df, or ``n - 1``) is planned on t
    (:func:`~evalstats_core.power.sample_size_t`, the degrees of freedom growing as this file's do per unit), and
    each side's spread is the one its interval end shows, ``(diff - low) / q`` or ``(high - diff) / q`` with ``q``
    the interval's quantile, when that is wider than the standard error (a score interval, Tango or
    Korn-Graubard, reaches further than ``q * se``). Then a side that did not tell here has ``target <= q * spread``
    and its plan, ``(q + q_power)^2 spread^2 / target^2`` per unit, exceeds this file's units."""
    if not c.se > 0.0:
        return None
    units = c.n_clusters if c.n_clusters is not None else c.n  # independent units: clusters when clustered
    on_t = c.interval in (normal_label(method, True), normal_label(method, False)) and math.isfinite(c.df) and c.df > 0
    pass_level, pass_low = (level, c.ci_low) if strict is None else strict

    def spread(width: float, lv: float) -> float:  # the SE the interval end at level lv shows (never below se)
        q = t_crit(lv, c.df) if on_t else NormalDist().inv_cdf(0.5 + lv / 2.0)
        return max(c.se, width / q) if math.isfinite(width) else c.se

    def plan(target: float, lv: float, se: float) -> float:
        omega2 = units * se * se  # per-unit variance of the differences (clustered when clustered)
        if on_t:  # Eq. 9 with t quantiles on df(n) = (df + 1) n / units - 1
            return float(sample_size_t(target, omega2=omega2, alpha=1.0 - lv, power=power,
                                       df_per_question=(c.df + 1.0) / units))
        return float(sample_size(target, omega2=omega2, alpha=1.0 - lv, power=power))  # Eq. 9

    sides = ((c.diff + margin, pass_level, spread(c.diff - pass_low, pass_level)),
             (-c.diff, level, spread(c.ci_high - c.diff, level)))
    needed = min((plan(target, lv, se) for target, lv, se in sides if target > 0.0), default=math.inf)
    return needed if math.isfinite(needed) and needed <= MOST_NEEDED else None


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
