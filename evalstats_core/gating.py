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
from statistics import NormalDist
from types import SimpleNamespace
from typing import Any

import numpy as np

from ._clusters import clt_se, t_crit
from ._gate_result import EXIT_CODES, MOST_NEEDED, GateResult
from ._validate import check_confidence, check_finite, check_probability
from .analysis import analyze, analyze_sums, plain_paired_se
from .bounded_reach import comparison_reach, reach_sentence
from .data import Dataset, question_scores
from .errors import EvalStatsError
from .human_labels import detect_human_col
from .passk import check_ks, pass_at_section
from .power import sample_size, sample_size_t
from .sums import FileSums
from .vocabulary import INTERVAL_LABELS, normal_label

__all__ = ["GateResult", "gate", "gate_pass_at_k", "EXIT_CODES", "parse_margin", "MOST_NEEDED", "CLUSTERED_PASS_SHARE",
           "CLUSTERED_SCORE_PASS_SHARE", "TWO_CLUSTERS"]

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
