"""The gate's result and its words (private to :mod:`evalstats_core.gating`, which re-exports both names):
:class:`GateResult` -- the verdict, its exit code, the numbers behind it, the one-line reason, the headline and
the Markdown summary -- and :data:`MOST_NEEDED`, the most questions (or clusters) its plan ever names.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .analysis import SE_RATIO_FLAG, below_plain_sentence
from .escape import escape_markdown
from .vocabulary import INTERVAL_LABELS, level, se_method_label, signed_zero_free

__all__ = ["GateResult", "MOST_NEEDED", "EXIT_CODES"]

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
