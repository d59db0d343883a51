"""One vocabulary: the labels of methods, tests and columns, and the one number formatter.

Every surface (the reports in :mod:`evalstats_core.report`, the command line, the workbench, the gate,
the chart exports) reads its words from here, so a method or a test has one name everywhere.

=========================  ===============================================================================
``INTERVAL_LABELS``        one label per proportion interval method (``--interval``)
``INTERVAL_METHODS``       every ``--interval`` choice with its label (the workbench's menu)
``SE_METHODS``             every ``--cluster-se`` choice with its label
``ADJUST_LABELS``          one label per multiple-comparison adjustment (``--adjust``)
``TESTS``                  one label per test whose p-value is reported
``COLUMNS``                what each JSON / CSV field of a comparison or a model means
``normal_label``           the label of the t / normal interval of a standard-error method
``se_method_label``        the standard error in words (``"CR2 (clustered on 'passage')"``)
``reference``              ``"t"`` or ``"normal"``: the distribution a statistic is read against
``Formatter``              how the numbers of one analysis print (levels in percent, differences in points)
``fmt_p``, ``fmt_r``,      p-values, correlations, degrees of freedom as every table prints them
``fmt_df``, ``level``
``UNRESOLVED``             the verdict of a gap whose interval holds 0, in every chapter
``AVOIDED``, ``PAPER_PHRASES``  words the teaching prose never uses in its own voice, and the quotes that may
=========================  ===============================================================================

Examples
--------
>>> TESTS["mcnemar_exact"]
'McNemar exact p'
>>> fmt_p(0.0004), fmt_r(-0.001), fmt_df(float("inf"))
('<0.001', '0.00', '∞')
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["UNRESOLVED", "AVOIDED", "PAPER_PHRASES", "INTERVAL_LABELS", "INTERVAL_METHODS", "SE_METHODS", "ADJUST_LABELS", "TESTS", "COLUMNS", "NONE",
           "normal_label", "se_method_label", "reference", "Formatter", "fmt_p", "fmt_r", "fmt_df", "level",
           "signed_zero_free"]

#: One label per proportion interval method, everywhere (page, exports, CLI).
INTERVAL_LABELS = {"wilson": "Wilson", "clopper-pearson": "Clopper-Pearson (exact)",
                   "bayes": "Bayes (uniform prior)",
                   "korn-graubard": ("Korn-Graubard (effective-n Clopper-Pearson, at least the logit CR2 and the "
                                     "beta-binomial likelihood intervals)"),
                   "quasi-binomial": ("quasi-binomial (scores in [0, 1]: Korn-Graubard on the quasi-binomial "
                                      "effective n, at least the logit CR2 and the beta-binomial likelihood intervals)"),
                   "cluster-means": ("cluster means (under two clusters' worth of information; at least CR2 t, and "
                                     "for scores in [0, 1] on the logit scale too and near 0% or 100% Korn-Graubard)"),
                   "tango": "Tango score (discordant answers)",
                   # without clusters, with a discordant answer: min(1, discordant / 10) answers of Edwards's
                   # continuity correction (pair_proportions.continuity_correction) moved the interval
                   "tango-corrected": "Tango score (discordant answers, continuity-corrected)",
                   "tango-effective": ("Tango score (discordant answers, effective n; at least the discordant cells' "
                                       "logit CR2 MOVER interval)"),
                   # clustered 0/1 pairs where t's skewness error is above the gate's room (issue 45)
                   "t-score": ("CR2 t (Satterthwaite df); an end where the disagreements' skewness is too large for t "
                               "at least the Tango score end (effective n, MOVER union)"),
                   "quasi-binomial-t": ("t (n - 1 df), near 0% or 100% at least Korn-Graubard on the quasi-binomial "
                                        "effective n (scores in [0, 1])"),
                   "t-tango": ("paired t (n - 1 df), near 0% or 100% at least Tango score on quasi-binomial counts "
                               "(scores in [0, 1])"),
                   "none": "no interval (standard error 0)"}

#: Interval methods for one model's mean (the command line's ``--interval`` choices, same rule):
#: ``auto`` is, for 0/1 scores with fewer than 100 expected failures (on the effective number of
#: questions with clusters), Wilson / Clopper-Pearson / Korn-Graubard (one model), else the t (or normal)
#: interval, and Tango for every pair of 0/1 scores (at every count); for clustered scores in [0, 1] that
#: are not 0/1 the same rule on quasi-binomial counts (:mod:`~evalstats_core.bounded_means`), without clusters
#: near 0% or 100% t widened to it (:mod:`~evalstats_core.bounded_unclustered`); with under
#: two clusters' worth of information at least the cluster means' one
#: (:func:`~evalstats_core.proportions.binary_mean_interval`).
INTERVAL_METHODS: dict[str, str] = {
    "auto": "auto (score or exact interval near 0% or 100% for 0/1 scores and scores in [0, 1], else t)",
    "normal": "t (normal with CR1)",
    # the methods one can ask for; Korn-Graubard, cluster means and Tango are what ``auto`` picks
    **{k: INTERVAL_LABELS[k] for k in ("wilson", "clopper-pearson", "bayes")},
}

#: Standard-error methods (the command line's ``--cluster-se``; JSON/CSV ``se_method``).
SE_METHODS: dict[str, str] = {
    "cr2": "CR2 + Satterthwaite t (default)",
    "cr1": "CR1 + normal (the paper's Eq. 1-8)",
}

#: One label per multiple-comparison adjustment, everywhere (page headers, exports, verdicts, CLI).
ADJUST_LABELS = {"holm": "Holm", "bh": "Benjamini–Hochberg", "none": "unadjusted"}

#: One label per reported test. McNemar's exact p is the McNemar p everywhere; the chi-square p
#: appears only where it is labelled as such.
TESTS = {
    "paired": "p",
    "mcnemar_exact": "McNemar exact p",
    "mcnemar_chi2": "McNemar χ² p (no continuity correction)",
    "wild": "Wild bootstrap p",
}

#: The verdict of a gap whose interval holds 0, in every chapter and on every chart: not "a tie", not
#: "inside the noise", but a question these data cannot settle (chapter 7's power says how likely they were to).
UNRESOLVED = "unresolved"

#: Words the teaching prose (content/*.md, the chapters' pages, lessons and charts) never uses in its own voice,
#: with the word it uses instead: a verdict is :data:`UNRESOLVED`; a random quantity is *sampled* or *simulated*;
#: the variance of one sampled answer is *answer variance*; a chart *shows*. tests/test_vocabulary_words.py scans.
AVOIDED: dict[str, str] = {
    "draw": "unresolved (a verdict); sampled, simulated, picked (randomness); shown, plotted (a chart)",
    "tie": "unresolved (a verdict); concordant (a question both models got right, or both wrong)",
    "noise": "variance, answer variance, random error; imprecise or unstable for an estimate",
}

#: A paper's own phrase that holds an avoided word, quoted as the paper's (kept verbatim where it is quoted).
PAPER_PHRASES: tuple[str, ...] = ()

#: What a missing value prints as in a table (a McNemar p with clusters, an undefined correlation).
NONE = "—"

#: The fields of the JSON document and the CSV tables, in words (the README and ``--help`` quote these).
COLUMNS = {
    "diff": "mean(model) - mean(baseline) on the questions both answered (score units)",
    "se": "standard error of the difference (paired; clustered when clustered)",
    "se_method": "how the standard errors were computed: cr2 (CR2 with Satterthwaite df) or cr1 (CR1, normal)",
    "statistic": "diff / se, read against the distribution named in 'reference'",
    "reference": "'t' (Student t on 'df' degrees of freedom) or 'normal' (z)",
    "z": "the same number as 'statistic' (kept for one release; it is a t statistic when reference is 't')",
    "se_unpaired": "sqrt(SE_model^2 + SE_baseline^2) with each model's own SE (clustered: CR2 or CR1 of each "
                   "model): what the SE would be without pairing",
    "mcnemar_p": "McNemar exact p (two-sided binomial on the discordant questions); null with clusters or "
                 "for scores that are not 0/1",
    "p_value": "two-sided p of the paired test (t on df, or normal)",
    "p_adjusted": "p_value adjusted across the comparisons (Holm by default)",
    "wild_p_value": "wild cluster bootstrap p (restricted, null imposed), when requested",
    "interval": "the label of the interval method of the model's mean",
}


def normal_label(method: str, clustered: bool) -> str:
    """The label of the t / normal interval of ``method`` (one wording everywhere).

    >>> normal_label("cr2", True), normal_label("cr1", False)
    ('CR2 t (Satterthwaite df)', 'CLT normal (z)')
    """
    if method == "cr2":
        return "CR2 t (Satterthwaite df)" if clustered else "t (n - 1 df)"
    return "CR1 normal" if clustered else "CLT normal (z)"


def se_method_label(method: str, cluster_col: str | None = None, n_clusters: int | None = None) -> str:
    """The standard error in words, as the figures' method line and the gate print it.

    >>> se_method_label("cr2", "passage", 12)
    "CR2 t, clustered on 'passage' (12 clusters)"
    >>> se_method_label("cr1")
    'normal (z)'
    """
    if cluster_col is None:
        return "t (n - 1 df)" if method == "cr2" else "normal (z)"
    base = "CR2 t" if method == "cr2" else "CR1 normal"
    count = f" ({n_clusters:,} clusters)" if n_clusters is not None else ""
    return f"{base}, clustered on '{cluster_col}'{count}"


def reference(df: float) -> str:
    """``"normal"`` for infinite degrees of freedom, else ``"t"``."""
    return "normal" if math.isinf(df) else "t"


def level(confidence: float) -> str:
    """A confidence level as printed: ``"95%"``, ``"99.9%"``; never "0%" or "100%" for a level strictly between
    (issue 46: ``--confidence 0.99999`` printed "100% CI").

    >>> level(0.95), level(0.999), level(0.99999), level(1e-5)
    ('95%', '99.9%', '99.999%', '0.001%')
    """
    pct = 100 * confidence
    for digits in range(2, 15):
        shown = round(pct, digits)
        if 0 < shown < 100 or not 0 < pct < 100:
            return f"{shown:g}%"
    return f"{pct:.3g}%"


def fmt_p(p: float | None) -> str:
    """A p-value as every table prints it: three decimals, ``<0.001``, ``n/a`` when undefined."""
    if p is None or not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def fmt_r(x: float | None, digits: int = 2) -> str:
    """A correlation or ratio to ``digits`` decimals ("0.00", never "-0.00"); "n/a" when undefined."""
    return f"{round(x, digits) + 0.0:.{digits}f}" if x is not None and math.isfinite(x) else "n/a"


def fmt_df(df: float) -> str:
    """Degrees of freedom as shown: one decimal, or '∞' for the normal reference."""
    return "∞" if math.isinf(df) else "n/a" if math.isnan(df) else f"{df:,.1f}"


def minus(text: str) -> str:
    """A formatted number with a true minus sign (U+2212) for the hyphen: ``"-0.06"`` -> ``"−0.06"``.

    >>> minus("-0.06")
    '−0.06'
    """
    return text.replace("-", "\u2212")


def signed_points(x: float, digits: int = 1) -> str:
    """A share as signed percentage points with a true minus sign: ``-0.0123`` -> ``"−1.2"``.

    >>> signed_points(-0.0123), signed_points(0.05, 2)
    ('−1.2', '+5.00')
    """
    return minus(f"{100 * x:+.{digits}f}")


def signed_zero_free(value: float, decimals: int, *, signed: bool = False) -> str:
    """``value`` to ``decimals`` places; a value that rounds to zero prints ``0.0`` (never ``-0.0``/``+0.0``).

    >>> signed_zero_free(-1e-9, 1, signed=True), signed_zero_free(-0.04, 1), signed_zero_free(2.0, 1, signed=True)
    ('0.0', '0.0', '+2.0')
    """
    if round(value, decimals) == 0.0:
        return f"{0.0:.{decimals}f}"
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


class Formatter:
    """How to print the numbers of one analysis: the one formatter of the page, every export and the gate.

    Levels of 0-1 scores print in percent ("63.6%"), differences and standard errors of differences in
    percentage points ("+2.2 points", :meth:`diff`); other scales in raw units. As many decimals as the
    smallest SE needs for one significant digit; a value that rounds to zero prints unsigned ("0.0").

    Parameters
    ----------
    analysis : Analysis, optional
        Sets the unit and the decimals from its standard errors.
    percent : bool, optional
        Without an analysis: print 0-1 scores as percent (default True).
    decimals : int, optional
        Without an analysis: decimals (default 1).
    """

    def __init__(self, analysis: Any = None, *, percent: bool = True, decimals: int = 1) -> None:
        if analysis is None:
            self.percent, self.decimals = bool(percent), int(decimals)
            return
        self.percent = analysis.unit == "percent"
        ses = [m.se for m in analysis.models] + [c.se for c in analysis.comparisons]
        positive = [s for s in ses if s > 0 and math.isfinite(s)]
        smallest = min(positive) * (100.0 if self.percent else 1.0) if positive else 1.0
        self.decimals = int(min(6, max(1, -math.floor(math.log10(smallest)))))  # SE to >= 1 significant digit

    def num(self, x: float | None, *, signed: bool = False, unit: bool = True) -> str:
        """A level ("63.6%") or, with ``unit=False``, the bare number in the same scale ("63.6")."""
        if x is None or not math.isfinite(x):
            return "n/a"
        v = 100.0 * x if self.percent else x
        return signed_zero_free(v, self.decimals, signed=signed) + ("%" if self.percent and unit else "")

    def diff(self, x: float | None, *, signed: bool = True) -> str:
        """A difference (or its SE) in points: "+2.2 pt" for 0-1 scores, else the raw number."""
        text = self.num(x, signed=signed, unit=False)
        return text + " pt" if self.percent and text != "n/a" else text

    def interval(self, low: float, high: float, *, signed: bool = False) -> str:
        """``(low, high)`` as the tables print an interval of levels."""
        return f"({self.num(low, signed=signed)}, {self.num(high, signed=signed)})"

    def diff_interval(self, low: float, high: float) -> str:
        """An interval of a difference in points: ``(-1.2, +3.4) pt``."""
        inner = f"({self.num(low, signed=True, unit=False)}, {self.num(high, signed=True, unit=False)})"
        return inner + (" pt" if self.percent else "")

    def bounded(self, low: float, high: float, *, diff: bool = False) -> str:
        """An interval as a table shows it: for 0-1 scores clipped to the scale (0% to 100% for a level,
        -100 to +100 points for a difference) with the computed ends stated beside it when they run past.

        >>> Formatter().bounded(-2.427, 3.927)
        '(0.0%, 100.0%), clipped; computed (-242.7%, 392.7%)'
        """
        def show(lo: float, hi: float) -> str:
            if diff:
                return f"({self.num(lo, signed=True, unit=False)}, {self.num(hi, signed=True, unit=False)})"
            return self.interval(lo, hi)

        lo_b, hi_b = (-1.0, 1.0) if diff else (0.0, 1.0)
        if not self.percent or not (low < lo_b or high > hi_b):
            return show(low, high)
        return f"{show(max(low, lo_b), min(high, hi_b))}, clipped; computed {show(low, high)}"

    def points(self, x: float) -> str:
        """A difference in words: '5.0 points' (percentage points) or '0.52'."""
        return f"{self.num(abs(x), unit=False)} points" if self.percent else self.num(abs(x))
