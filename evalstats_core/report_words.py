"""The words of a report: one verdict per pair, the methods paragraph, the one-line method of a figure.

Read by every export (:mod:`evalstats_core.report`), the workbench and the chart exports, so a result is
said the same way everywhere; labels come from :mod:`evalstats_core.vocabulary`.
"""

from __future__ import annotations

import math
import re
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

import evalstats_core

from ._clusters import t_crit
from ._results import excludes_zero, rejects
from .analysis import SMALL_DF, SMALL_N, Analysis, PairResult
from .intervals import se_range
from .vocabulary import ADJUST_LABELS, INTERVAL_LABELS, Formatter, fmt_p, se_method_label
from .vocabulary import level as pct

__all__ = ["verdicts", "methods_paragraph", "method_line", "judge_method", "version", "benchmark", "summary_lines"]


def version() -> str:
    """The evalbars version recorded in reports (``"unknown"`` when not installed as a package)."""
    found = getattr(evalstats_core, "__version__", None)
    if found:
        return str(found)
    try:
        return _version("evalbars")  # the distribution name (see pyproject.toml)
    except (PackageNotFoundError, ValueError):
        return "unknown"


# ------------------------------------------------------------------------------------------------ words
def few_df_words(what: str, df: float, confidence: float = 0.95) -> str:
    """What is true of an interval on few degrees of freedom, instead of "fragile".

    >>> few_df_words("3 clusters", 1.1)
    "with 3 clusters the standard error rests on 1.1 degrees of freedom, about one cluster's worth of information: it is within 0.04x to 2.19x of the true one (95%), which the t interval allows for"
    """
    lo, hi = se_range(df, confidence)
    worth = ", about one cluster's worth of information" if "cluster" in what and df < 1.5 else ""
    return (f"with {what} the standard error rests on {df:.1f} degrees of freedom{worth}: it is within {lo:.2f}x to "
            f"{hi:.2f}x of the true one ({pct(confidence)}), which the t interval allows for")


def _verdict(c: PairResult, analysis: Analysis, st: Formatter) -> str:
    level = pct(analysis.confidence)
    alpha = 1.0 - analysis.confidence
    adjusted = len(analysis.comparisons) > 1 and analysis.adjust != "none"
    adj = f"adjusted p ({ADJUST_LABELS[analysis.adjust]}) {fmt_p(c.p_adjusted)}" if adjusted else f"p {fmt_p(c.p_value)}"
    ci = f"{level} CI {st.num(c.ci_low, unit=False)} to {st.num(c.ci_high, unit=False)}"
    pts = " points" if st.percent else ""
    if math.isnan(c.diff) and math.isnan(c.se):  # withheld (a judged pair with too few labels): its reason
        return f"{c.model} - {c.baseline}: {c.interval}."
    if not (math.isfinite(c.ci_low) and math.isfinite(c.ci_high)) or (c.se == 0.0 and c.ci_low == c.ci_high):
        same = ("have the same mean score difference in every cluster" if c.n_clusters is not None else
                "differ by the same amount on every shared question")
        exact = re.sub(r"(\.\d*?)0+$", r"\1", st.num(c.diff, signed=True, unit=False)).rstrip(".")  # exact: no pad
        text = (f"{c.model} and {c.baseline} {same} ({exact}{pts}), so no interval can be estimated from these "
                "questions")
        if math.isfinite(c.p_value):
            text += f"; the exact sign-flip test gives p {fmt_p(c.p_value)}" + (f" ({adj})" if adjusted else "")
        return text + "."
    raw_sig = excludes_zero(c.ci_low, c.ci_high)
    sig = rejects(c.p_adjusted, alpha) if adjusted else raw_sig
    if sig:
        win, lose = (c.model, c.baseline) if c.diff > 0 else (c.baseline, c.model)
        lo, hi = (c.ci_low, c.ci_high) if c.diff > 0 else (-c.ci_high, -c.ci_low)
        text = (f"{win} beats {lose} by {st.points(c.diff)} ({level} CI {st.num(lo, unit=False)} to "
                f"{st.num(hi, unit=False)}; {adj})")
    elif raw_sig:  # significant alone, not after the adjustment: lead with the adjusted result
        text = (f"{c.model} and {c.baseline} cannot be told apart after {ADJUST_LABELS[analysis.adjust]} "
                f"adjustment for {len(analysis.comparisons)} comparisons (adjusted p {fmt_p(c.p_adjusted)}; "
                f"unadjusted {fmt_p(c.p_value)}): {c.model} - {c.baseline} = "
                f"{st.num(c.diff, signed=True, unit=False)}{pts} ({ci}, unadjusted)")
    else:
        text = (f"{c.model} and {c.baseline} cannot be told apart: {c.model} - {c.baseline} = "
                f"{st.num(c.diff, signed=True, unit=False)}{pts} ({ci}, an interval that includes zero; {adj})")
    caveats = []
    units = c.n_clusters if c.n_clusters is not None else c.n
    what = f"{c.n_clusters} clusters" if c.n_clusters is not None else f"{c.n} questions"
    score_interval = c.interval in INTERVAL_LABELS.values() and c.interval != INTERVAL_LABELS["t-tango"]  # Tango's
    if analysis.method == "cr2" and c.df < SMALL_DF and not score_interval and c.se > 0.0:
        caveats.append(few_df_words(what, c.df, analysis.confidence))
    elif analysis.method == "cr1" and units < SMALL_N:
        caveats.append(f"with only {what} the normal interval is narrower than it should be (t on "
                       f"{units - 1} degrees of freedom would be "
                       f"{100 * (t_crit(analysis.confidence, units - 1) / t_crit(analysis.confidence, math.inf) - 1):.0f}"
                       "% wider)" if c.n_clusters is None else f"with only {what} the CR1 interval is optimistic")
    if c.wild_p_value is not None:
        caveats.append(f"wild cluster bootstrap p {fmt_p(c.wild_p_value)}")
    if c.n_left_out:
        caveats.append(f"{c.n_left_out} questions answered by only one of them are left out")
    return text + ("; " + "; ".join(caveats) if caveats else "") + "."


def verdicts(analysis: Analysis) -> list[str]:
    """One plain-words sentence per comparison, e.g. "Breeze beats Atlas by 5.0 points (95% CI 0.5 to 9.5)"."""
    st = Formatter(analysis)
    return [_verdict(c, analysis, st) for c in analysis.comparisons]


def methods_paragraph(analysis: Analysis) -> str:
    """A paragraph naming the estimators used and their sources, for a paper's methods section."""
    z = pct(analysis.confidence)
    cr2 = analysis.method == "cr2"
    k = any(m.k_max > 1 for m in analysis.models)
    parts = ["Each model's score is the mean of its question-level scores"
             + (" (the several answers to each question were first averaged into one score; resamples are "
                "not pooled)" if k else "") + "."]
    if analysis.clustered and cr2:
        parts.append(f"Standard errors are cluster-robust, clustered on '{analysis.cluster_col}' "
                     f"({analysis.n_clusters:,} clusters): the bias-reduced CR2 estimator (Bell & McCaffrey 2002) "
                     "with a t reference on Satterthwaite degrees of freedom (Pustejovsky & Tipton 2018, J. "
                     "Business & Economic Statistics 36(4)), which stays closer to the nominal level with few or "
                     "unequal clusters than CR1 with a normal reference (Imbens & Kolesar 2016, Rev. Econ. Stat. "
                     "98(4)); the naive CLT standard error (Miller 2024, arXiv:2411.00640, Eq. 1) "
                     "and the design effect are shown beside them.")
    elif analysis.clustered:
        parts.append(f"Standard errors are cluster-robust, clustered on '{analysis.cluster_col}' "
                     f"({analysis.n_clusters:,} clusters): the CR1 sandwich estimator of Miller (2024, "
                     "arXiv:2411.00640, Eq. 4) with the C/(C-1) small-sample factor of Cameron & Miller "
                     "(2015, J. Human Resources 50(2)); the naive CLT standard error (Eq. 1) and the design "
                     "effect are shown beside them.")
    else:
        parts.append("Standard errors follow the central limit theorem: the sample standard deviation of "
                     "the question scores over the square root of n (Miller 2024, arXiv:2411.00640, Eq. 1).")
    if cr2:
        parts.append(f"{z} confidence intervals are the estimate plus or minus a t quantile times the standard "
                     "error, on " + ("Satterthwaite degrees of freedom" if analysis.clustered else
                                     "n - 1 degrees of freedom (the one-sample and paired t-tests)") + ".")
    else:
        parts.append(f"{z} confidence intervals are normal: estimate plus or minus z times the standard error "
                     "(Eq. 3).")
    labels = sorted({m.interval for m in analysis.models
                     if not m.interval.startswith(("t ", "CR", "CLT", "cluster means", "quasi-binomial"))})
    if labels:
        parts.append("For 0/1 answers each model's interval is "
                     + (f"the {labels[0]} interval" if len(labels) == 1 else "by " + ", ".join(labels))
                     + (" (chosen automatically when fewer than 100 failures, effective ones with clusters, are "
                        "expected: Wilson 1927, Clopper & Pearson 1934, Korn & Graubard 1998, Survey Methodology "
                        "24(2); with clusters at least as wide as the logit-scale CR2 interval)" if analysis.interval == "auto" else "") + ".")
    if any(m.interval.startswith("quasi-binomial") for m in analysis.models):
        parts.append("For clustered scores in [0, 1] that are not 0/1, near 0% or 100% the interval is the 0/1 rule "
                     "on quasi-binomial counts (each cluster's sum of scores as successes out of its questions: a "
                     "score in [0, 1] varies at most as a 0/1 one, Bhatia & Davis 2000; Papke & Wooldridge 1996): "
                     "Korn & Graubard's interval on the effective number of questions, at least as wide as the "
                     "logit-scale CR2 and the beta-binomial likelihood intervals.")
    bounded = {INTERVAL_LABELS["quasi-binomial-t"], INTERVAL_LABELS["t-tango"]}
    if any(r.interval in bounded for r in (*analysis.models, *analysis.comparisons)):
        parts.append("For scores in [0, 1] that are not 0/1, without clusters, near 0% or 100% (the skewness "
                     "|1 - 2p| / sqrt(n* p (1 - p)) of a binomial mean on n* = n / phi trials above 0.1, phi the "
                     "quasi-binomial dispersion: a score in [0, 1] varies at most as a 0/1 one) the t interval is "
                     "widened to Korn & Graubard's interval on 0.9 n* for one model (fully from a skewness of 0.2) "
                     "and, for a pair (fully from 0.12), to Tango's score interval on 0.9 of the quasi-binomial "
                     "discordance counts and Hall's skewness-corrected t (its p the largest of the three tests'), "
                     "from a skewness of 0.03 also to Hall's t on three times the difference's own sample skewness "
                     "where it points the way the counts do, "
                     "and kept inside [0, 1] (McCullagh & Nelder 1989, Sec. 9.2; Korn & Graubard 1998; Tango 1998; "
                     "Hall 1992).")
    if any(m.interval.startswith("cluster means") for m in analysis.models):
        parts.append("Where the clusters hold under two clusters' worth of information (two clusters, or one "
                     "holding most questions: Kish's effective number of clusters below 2) the interval is at "
                     "least the cluster means' interval, exact for normal cluster means of equal variance (for "
                     "scores in [0, 1] on the raw and the empirical-logit scale), and never narrower than the t interval: "
                     "CR2's variance assumes independent questions, and when one large cluster differs from the "
                     "rest it is far too small.")
    tango = sorted({c.interval for c in analysis.comparisons if c.interval.startswith("Tango")})
    if tango:
        parts.append("Paired differences of 0/1 scores use Tango's score interval and test on the discordant "
                     "counts (Tango 1998, Statistics in Medicine 17(8)), without clusters with a continuity "
                     "correction of min(1, discordant/10) answers (Edwards 1948), with clusters on counts shrunk for the design effect and for the few clusters the "
                     "disagreements may rest on (the smallest of the design's df, the effective number of "
                     "clusters holding the variance or the disagreements, and the number of clusters with a "
                     "disagreement less one), and at least as wide as the interval combining the two discordant "
                     "cells' logit-scale CR2 intervals (MOVER: Newcombe 1998, Zou & Donner 2008).")
    if analysis.comparisons:
        how = ("paired: the standard error of the per-question differences on the questions both models "
               "answered (Eq. 7" + (", clustered as in Eq. 8)" if analysis.clustered else ")")) if analysis.paired \
            else "unpaired: the two standard errors combined in quadrature (Eq. 5)" \
            + ((", with the Satterthwaite degrees of freedom of the two-group CR2 model (as clubSandwich)"
                if analysis.clustered else ", with Welch-Satterthwaite degrees of freedom") if cr2 else "")
        parts.append(f"Comparisons are {how}, with two-sided {'t' if cr2 else 'normal'} p-values")
        if len(analysis.comparisons) < 2:
            pass
        elif analysis.adjust == "holm":
            parts[-1] += (f", adjusted across the {len(analysis.comparisons)} comparisons with Holm's step-down "
                          "method (Holm 1979)")
        elif analysis.adjust == "bh":
            parts[-1] += (f", adjusted across the {len(analysis.comparisons)} comparisons with the "
                          "Benjamini–Hochberg procedure (1995)")
        parts[-1] += "."
        if any(c.se == 0.0 and c.diff != 0.0 for c in analysis.comparisons):
            parts.append("Where every shared question differs by the same amount the standard error is zero and "
                         "the p-value is the exact sign-flip (randomisation) test.")
        if any(c.only_model is not None for c in analysis.comparisons):
            parts.append("For 0/1 scores McNemar's exact test (two-sided binomial p on the questions only one model "
                         "got right; Agresti 2013, Sec. 11.1) is reported as a check"
                         + ("; with clusters it is not, as it assumes independent questions." if analysis.clustered
                            else "."))
        if analysis.wild_bootstrap:
            parts.append(f"As a cross-check, each paired comparison also has a restricted wild cluster bootstrap "
                         f"p-value (null imposed; Webb six-point weights with 12 or fewer clusters, Rademacher "
                         f"otherwise; every weight vector when there are at most {analysis.n_boot:,}, else "
                         f"{analysis.n_boot:,} draws with seed {analysis.seed}; Cameron, Gelbach & Miller 2008; "
                         "Webb 2023; MacKinnon, Nielsen & Webb 2023).")
    if not cr2:
        parts.append("With fewer than a few hundred questions, normal intervals can be too narrow; for 0/1 scores "
                     "Wilson or Bayesian intervals are safer (Bowyer et al., ICML 2025, arXiv:2503.01747).")
    judged = judge_method(analysis)
    if judged is not None:
        parts.append(f"The scores are an LLM judge's; every number above is corrected by human labels on a random "
                     f"subset ({judged.split(', t')[0]}): the prediction-powered (PPI++) estimate lam * "
                     "mean(judge, unlabelled) + mean(human - lam * judge, labelled) with its CR2 standard error and a t "
                     "reference on Satterthwaite degrees of freedom (Angelopoulos et al. 2023, Science 382; Angelopoulos, "
                     "Duchi & Zrnic 2023, arXiv:2311.01453); for 0/1 scores each arm carries the Jeffreys limits of the "
                     "judge's false-pass and false-fail shares among the labelled answers (MOVER: Zou & Donner 2008), so "
                     "an interval can be asymmetric and never has zero width. The rules above for the standard error "
                     "and the 0/1 intervals apply to the judge's own scores, which are not reported; the comparisons' "
                     "p-values are the corrected differences' t tests, adjusted as stated.")
    ver = version()
    parts.append("Computed with evalbars" + ("." if ver == "unknown" else f" {ver}."))
    return " ".join(parts)


def judge_method(analysis: Analysis) -> str | None:
    """The method of a judge-scored analysis corrected by human labels, with the label counts, e.g. ``"PPI++
    (judge corrected by 300 human labels), t"``; None when the numbers are not corrected (``Analysis.judge``)."""
    section = analysis.judge
    if section is None:
        return None
    counts = sorted({e.n_labeled for _, e, _ in section.models})
    labels = ("no" if not counts else f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}-{counts[-1]:,}")
    held = len(section.refused)
    return (f"PPI++ (judge corrected by {labels} human labels{'' if len(counts) <= 1 else ' a model'}), t"
            + (f"; {held} number{'' if held == 1 else 's'} withheld (too few labels)" if held else ""))


def method_line(analysis: Analysis, *, what: str = "models") -> str:
    """One line naming how the numbers were made, for a figure's subtitle (so an exported PNG stands alone).

    E.g. ``"95% CI · CR2 t, clustered on 'repository' (12 clusters) · paired · Holm-adjusted · 500
    questions"``; ``what="models"`` leaves out the comparison settings.
    """
    level = f"{pct(analysis.confidence)} CI"
    se = se_method_label(analysis.method, analysis.cluster_col if analysis.clustered else None,
                         analysis.n_clusters if analysis.clustered else None)
    # the intervals drawn: their label when every model has the same kind (Wilson, t, ...), or when every
    # comparison has the same score interval (Tango's: no t behind it); else the standard error's method
    if what == "models":
        labels = sorted({m.interval for m in analysis.models})
    else:
        labels = sorted({c.interval for c in analysis.comparisons})
        labels = labels if labels and labels[0] in INTERVAL_LABELS.values() else []
    if len(labels) == 1:
        where = (f", clustered on '{analysis.cluster_col}' ({analysis.n_clusters:,} clusters)"
                 if analysis.clustered else "")
        se = labels[0] + where
    judged = judge_method(analysis)
    if judged is not None:  # the judge's scores corrected by human labels: that is the method, whatever the rows say
        se = judged + (f", clustered on '{analysis.cluster_col}' ({analysis.n_clusters:,} clusters)"
                       if analysis.clustered else "")
    parts = [level, se]
    if what != "models":
        parts.append("paired" if analysis.paired else "unpaired")
        if len(analysis.comparisons) > 1 and analysis.adjust != "none":
            parts.append(f"{ADJUST_LABELS[analysis.adjust]}-adjusted")
    parts.append(f"{analysis.n_questions:,} questions")
    return " · ".join(parts)




_TASK = re.compile(r"(?:Inspect log|samples) of task '([^']+)'")


def benchmark(analysis: Analysis) -> str:
    """The benchmark's name for a title or a caption: the task named in the harness logs read (one task, or
    the tasks joined by commas), else the results file's name.

    >>> from types import SimpleNamespace as NS
    >>> benchmark(NS(notes=("a.eval: Inspect log of task 'gsm8k', model 'x', scorer 'match'",), name="a.eval"))
    'gsm8k'
    >>> benchmark(NS(notes=(), name="results.csv"))
    'results.csv'
    """
    tasks: list[str] = []
    for note in analysis.notes:
        for task in _TASK.findall(note):
            if task not in tasks:
                tasks.append(task)
    if not tasks:
        return analysis.name
    return ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")


def summary_lines(analysis: Analysis) -> list[str]:
    """Three lines a presenter reads first: who leads and at what level, how sure the lead over the runner-up
    is (the one p-value to quote), and by which method.

    The p-value to quote is the adjusted one when there are several comparisons, else the test's own.
    """
    f = Formatter(analysis)
    lev = pct(analysis.confidence)
    ranked = sorted((m for m in analysis.models if math.isfinite(m.mean)), key=lambda m: -m.mean)
    if not ranked:  # every number withheld (a judged file without enough labels): say so, name none
        return [f"No model has a score to report ({analysis.models[0].interval}).",
                "Method: " + method_line(analysis, what="models") + "."]
    top = ranked[0]
    lines = [f"{top.model} scores highest: {f.num(top.mean)} ({lev} CI {f.num(top.ci_low)} to {f.num(top.ci_high)}) "
             f"on {top.n:,} questions" + (f", of {len(ranked)} models." if len(ranked) > 1 else ".")
             + (f" {len(analysis.models) - len(ranked)} other model(s) have no score to rank (see the warnings)."
                if len(ranked) < len(analysis.models) else "")]
    if len(ranked) > 1:
        second = ranked[1]
        pair = next((c for c in analysis.comparisons if {c.model, c.baseline} == {top.model, second.model}), None)
        if pair is None:
            lines.append(f"{top.model} leads {second.model} by {f.points(top.mean - second.mean)}; the two were not "
                         "compared directly (compare every pair, or set the baseline to one of them).")
        else:
            sign = 1.0 if pair.model == top.model else -1.0
            lo, hi = (pair.ci_low, pair.ci_high) if sign > 0 else (-pair.ci_high, -pair.ci_low)
            adjusted = len(analysis.comparisons) > 1 and analysis.adjust != "none"
            p = pair.p_adjusted if adjusted else pair.p_value
            which = f"adjusted p ({ADJUST_LABELS[analysis.adjust]})" if adjusted else "p"
            sure = ("a lead the data support" if math.isfinite(p) and p < 1.0 - analysis.confidence
                    else "a lead the data cannot confirm")
            lines.append(f"Ahead of {second.model} by {f.points(sign * pair.diff)} ({lev} CI "
                         f"{f.num(lo, signed=True, unit=False)} to {f.num(hi, signed=True, unit=False)}"
                         f"{' points' if f.percent else ''}; {which} {fmt_p(p)}, the p-value to quote): {sure}.")
    lines.append("Method: " + method_line(analysis, what="comparisons" if analysis.comparisons else "models") + ".")
    return lines
