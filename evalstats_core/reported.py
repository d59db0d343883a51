"""What can (and cannot) be said from reported numbers alone: accuracy and n, or accuracy and SE.

==========================  ========================================================================
:func:`analyze_reported`    intervals for each model and unpaired comparisons of every pair
``ReportedAnalysis``        the two tables plus the sentences on what is and is not knowable
:func:`paired_se_bounds`    the range the paired SE of two binary accuracies could take
==========================  ========================================================================

A paper's table often gives only "65.5% on 5,000 questions". From that much we can still compute an
interval for each model (Wilson, or any proportion interval, when the scores were 0/1 and the
questions independent) and an *unpaired* comparison of two models (Miller 2024, arXiv:2411.00640,
Eqs. 5-6). The paired comparison, the score correlation, clustering and resampling all need the
per-question scores; so does McNemar's test. For two 0/1 accuracies on the same ``n`` questions the
paired SE is bounded by how often the models could disagree (:func:`paired_se_bounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ._results import excludes_zero
from ._validate import check_confidence, z_for
from .errors import EvalStatsError
from .intervals import PROPORTION_METHODS, proportion_ci
from .vocabulary import INTERVAL_LABELS
from .vocabulary import level as pct

__all__ = ["ReportedAnalysis", "analyze_reported", "paired_se_bounds", "REPORTED_COLUMNS"]

#: Columns of the input table (n and se may be missing, but not both).
REPORTED_COLUMNS: tuple[str, ...] = ("model", "accuracy", "n", "se")
_METHOD_NAMES = {"wilson": "Wilson", "wald": "Wald (CLT)", "clopper_pearson": "Clopper-Pearson",
                 "bayes": INTERVAL_LABELS["bayes"]}  # one label for Bayes, the report's

CANNOT_SAY: tuple[str, ...] = (
    "The paired comparison: it needs each question's score from both models (Miller 2024, Eq. 7). "
    "When the models answered the same questions, the unpaired interval shown here is usually too wide.",
    "The correlation between the models' scores, and so how much pairing would save.",
    "McNemar's test: it needs the count of questions only one of the two models got right.",
    "Whether the questions come in clusters (passages, languages): a reported SE that ignored them is "
    "too small, and nothing in the numbers reveals it.",
    "Whether several answers per question were pooled, and how much of the variance resampling could remove.",
)


@dataclass(frozen=True, slots=True)
class ReportedAnalysis:
    """Intervals and unpaired comparisons from reported accuracies.

    Attributes
    ----------
    models : pandas.DataFrame
        One row per model: ``model, estimate, se, ci_low, ci_high, n, se_source, method``
        (``se_source`` is "reported" or "Bernoulli from n"; ``method`` names the interval).
    comparisons : pandas.DataFrame
        One row per pair ``a, b``: ``diff = a - b, se, ci_low, ci_high, z, p_value`` (unpaired),
        and ``paired_se_low, paired_se_high`` (the range of the paired SE when both accuracies are 0/1
        on the same n questions; NaN otherwise).
    can_say : tuple of str
        Plain-words statements the numbers support.
    cannot_say : tuple of str
        What cannot be said without per-question data.
    confidence : float
        Confidence level of every interval.
    """

    models: pd.DataFrame
    comparisons: pd.DataFrame
    can_say: tuple[str, ...]
    cannot_say: tuple[str, ...]
    confidence: float


#: the largest n taken: a billion questions (no benchmark has more; 1e308 would overflow the interval)
MAX_N = 10**9
#: the smallest SE taken, in the table's units: below it an interval is a point (denormals, 1e-320)
MIN_SE = 1e-9


def _number(value: Any) -> float:
    """float(value), with None/NaN/"" as NaN; non-numbers raise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        raise EvalStatsError(f"{value!r} is not a number; type digits such as 65.5") from None


def _rows(table: Any, percent: bool) -> list[tuple[str, float, float, float]]:
    frame = pd.DataFrame(table)
    missing = [c for c in ("model", "accuracy") if c not in frame.columns]
    if missing:
        raise EvalStatsError(f"the table needs the columns {', '.join(REPORTED_COLUMNS)}; missing: {', '.join(missing)}")
    scale = 100.0 if percent else 1.0
    unit = "%" if percent else ""
    rows, seen = [], set()
    for i, rec in enumerate(frame.to_dict("records")):
        name = rec.get("model")
        acc = _number(rec.get("accuracy"))
        n = _number(rec.get("n"))
        se = _number(rec.get("se"))
        blank_name = name is None or (isinstance(name, float) and math.isnan(name)) or not str(name).strip()
        if blank_name and math.isnan(acc) and math.isnan(n) and math.isnan(se):
            continue  # an empty row left in the editor
        if blank_name:
            raise EvalStatsError(f"row {i + 1} has no model name; type one or delete the row")
        name = str(name).strip()
        if name in seen:
            raise EvalStatsError(f"model {name!r} appears twice; give each model one row")
        seen.add(name)
        if math.isnan(acc) or not 0.0 <= acc <= scale:
            raise EvalStatsError(f"the accuracy of {name!r} ({acc!r}) must be between 0 and {scale:g}{unit}")
        if not math.isnan(n) and (not 2 <= n <= MAX_N or n != math.floor(n)):
            raise EvalStatsError(f"n of {name!r} ({n:g}) must be a whole number of questions from 2 to {MAX_N:,}; "
                                 "type the number of questions the benchmark has")
        if not math.isnan(se) and not MIN_SE <= se <= scale / 2.0:
            raise EvalStatsError(f"the SE of {name!r} ({se:g}) must be between {MIN_SE:g} and {scale / 2.0:g}{unit} "
                                 "(an accuracy's SE is at most half its scale); leave it empty to use n")
        if math.isnan(n) and math.isnan(se):
            raise EvalStatsError(f"{name!r} needs n (number of questions) or an SE; fill in one of them")
        rows.append((name, acc / scale, n, se / scale))
    if not rows:
        raise EvalStatsError("the table is empty; add one row per model with its accuracy and n (or SE)")
    return rows


def paired_se_bounds(acc_a: float, acc_b: float, n: int) -> tuple[float, float]:
    """Smallest and largest paired SE two 0/1 accuracies on the same ``n`` questions allow.

    Notes
    -----
    With ``d_i = a_i - b_i`` in {-1, 0, 1}, the share of discordant questions ``q = P(d != 0)`` gives
    ``Var(d) = q - (p_a - p_b)^2``; ``q`` can be as small as ``|p_a - p_b|`` (one model's right answers
    contain the other's) and as large as ``min(p_a + p_b, 2 - p_a - p_b)``. With the ``n/(n-1)``
    correction of Miller 2024, Eq. 7: ``SE = sqrt((q - (p_a - p_b)^2) / (n - 1))``.
    """
    d = acc_a - acc_b
    q_low = abs(d)
    q_high = min(acc_a + acc_b, 2.0 - acc_a - acc_b)
    low = math.sqrt(max(q_low - d * d, 0.0) / (n - 1))  # Miller Eq. 7 with Var(d) = q - d^2
    high = math.sqrt(max(q_high - d * d, 0.0) / (n - 1))
    return low, high


def analyze_reported(table: Any, *, interval: str = "wilson", confidence: float = 0.95,
                     percent: bool = True) -> ReportedAnalysis:
    """Intervals and unpaired comparisons from reported accuracy with n (or SE) per model.

    Parameters
    ----------
    table : DataFrame or mapping with columns ``model, accuracy, n, se``
        One row per model. ``accuracy`` in percent (``percent=True``) or as a proportion; ``n`` the
        number of questions; ``se`` the reported standard error (same unit as ``accuracy``). A row
        needs ``n`` or ``se``; when both are given the reported SE is used. Empty rows are skipped.
    interval : {"wilson", "wald", "clopper_pearson", "bayes"}, default "wilson"
        Interval for rows with ``n`` and no SE (the accuracy is taken to be k/n with
        ``k = round(accuracy * n)``, i.e. 0/1 scores on independent questions).
    confidence : float, default 0.95
    percent : bool, default True
        Whether ``accuracy`` and ``se`` are in percent.

    Returns
    -------
    ReportedAnalysis

    Notes
    -----
    Bernoulli SE from n: ``sqrt(p (1 - p) / n)`` (Miller 2024, Eq. 2). Unpaired difference:
    ``SE = sqrt(SE_a^2 + SE_b^2)``, ``z = diff / SE``, two-sided normal p (Eqs. 5-6).

    Examples
    --------
    >>> r = analyze_reported({"model": ["Galleon", "Dreadnought"], "accuracy": [65.5, 63.0],
    ...                       "n": [5000, 5000], "se": [None, None]})
    >>> round(float(r.models.se[0]) * 100, 2), round(float(r.comparisons.se[0]) * 100, 2)
    (0.67, 0.96)
    """
    confidence = check_confidence(confidence)
    if interval not in PROPORTION_METHODS:
        raise EvalStatsError(f"interval ({interval!r}) must be one of {', '.join(PROPORTION_METHODS)}")
    z = z_for(confidence)
    rows = _rows(table, percent)
    recs = []
    for name, p, n, se in rows:
        if math.isnan(se):
            se_m = math.sqrt(p * (1.0 - p) / n)  # Miller Eq. 2 (Bernoulli)
            if interval == "wald":
                low, high = p - z * se_m, p + z * se_m  # Miller Eq. 3 with the reported accuracy itself
            else:
                k = int(round(p * n))  # the reported accuracy is k/n up to its rounding
                low, high = proportion_ci(k, int(n), interval=interval, confidence=confidence)
            source, how = "Bernoulli from n", interval
        else:
            se_m = se
            low, high = p - z * se, p + z * se  # Miller Eq. 3
            source, how = "reported", "normal"
        recs.append({"model": name, "estimate": p, "se": se_m, "ci_low": low, "ci_high": high,
                     "n": int(n) if not math.isnan(n) else None, "se_source": source, "method": how})
    models = pd.DataFrame(recs)
    models["n"] = models["n"].astype("Int64")
    comps = []
    for i in range(len(recs)):
        for j in range(i + 1, len(recs)):
            a, b = recs[i], recs[j]
            diff = a["estimate"] - b["estimate"]
            se = math.hypot(a["se"], b["se"])  # Miller Eq. 5 (unpaired)
            zval = diff / se if se > 0 else math.nan
            p = float(2.0 * ndtr(-abs(zval))) if se > 0 else math.nan  # Miller Eq. 6
            lo_p = hi_p = math.nan
            if a["n"] is not None and a["n"] == b["n"] and a["se_source"] == b["se_source"] == "Bernoulli from n":
                lo_p, hi_p = paired_se_bounds(a["estimate"], b["estimate"], a["n"])
            comps.append({"a": a["model"], "b": b["model"], "diff": diff, "se": se,
                          "ci_low": diff - z * se, "ci_high": diff + z * se, "z": zval, "p_value": p,
                          "paired_se_low": lo_p, "paired_se_high": hi_p})
    comparisons = pd.DataFrame(comps, columns=["a", "b", "diff", "se", "ci_low", "ci_high", "z", "p_value",
                                               "paired_se_low", "paired_se_high"])
    return ReportedAnalysis(models, comparisons, _can_say(models, comparisons, confidence), CANNOT_SAY,
                            confidence)


def _can_say(models: pd.DataFrame, comps: pd.DataFrame, confidence: float) -> tuple[str, ...]:
    level = pct(confidence)
    out = []
    for rec in models.itertuples():
        out.append(f"{rec.model}: {rec.estimate:.1%} ({level} CI {rec.ci_low:.1%} to {rec.ci_high:.1%}, "
                   f"{'reported SE' if rec.se_source == 'reported' else _METHOD_NAMES[rec.method] + ' interval from n'}).")
    for rec in comps.itertuples():
        if not np.isfinite(rec.p_value):
            continue
        if excludes_zero(rec.ci_low, rec.ci_high):
            lead, lag = (rec.a, rec.b) if rec.diff > 0 else (rec.b, rec.a)
            out.append(f"{lead} is ahead of {lag} by {abs(rec.diff) * 100:.1f} points even without pairing "
                       f"(unpaired {level} CI {rec.ci_low * 100:+.1f} to {rec.ci_high * 100:+.1f}); "
                       "pairing could only narrow that interval if the scores are positively correlated.")
        else:
            msg = (f"{rec.a} vs {rec.b}: the unpaired {level} CI ({rec.ci_low * 100:+.1f} to "
                   f"{rec.ci_high * 100:+.1f} points) includes 0, so these numbers alone do not separate them")
            if np.isfinite(rec.paired_se_low):
                zc = z_for(confidence)
                lo_w, hi_w = zc * rec.paired_se_low * 100, zc * rec.paired_se_high * 100
                msg += (f"; with per-question data the paired CI would be ±{lo_w:.1f} to ±{hi_w:.1f} points wide, "
                        "depending on how often they disagree")
            out.append(msg + ".")
    return tuple(out)
