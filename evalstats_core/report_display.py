"""The workbench's tables and chart frames: the same numbers as the exports, printed by the same
:class:`~evalstats_core.vocabulary.Formatter` with the same labels (:mod:`evalstats_core.vocabulary`).

Levels (a model's mean) print in percent for 0-1 scores, differences in percentage points; a pair's
p-value to quote is the adjusted one (:func:`comparisons_display`), the others are in
:func:`comparisons_details`.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from typing import TYPE_CHECKING, Any

from ._results import rejects
from .analysis import Analysis, _data_frame
from .escape import NAME_CAP, elide, elide_words
from .flags import OPTIONS, analysis_flags, reading_flags
from .report_words import version
from .vocabulary import ADJUST_LABELS, NONE, TESTS, Formatter, fmt_df, fmt_p, fmt_r, level

if TYPE_CHECKING:  # frames are built by _data_frame, which imports pandas when a display is asked for
    import pandas as pd

__all__ = ["model_intervals", "clipped_note", "models_display", "comparisons_display", "comparisons_details",
           "differences_frame", "mcnemar_display", "settings_document", "MATRIX_FROM", "matrix_frame",
           "leader_frame", "quote_label", "names_elided"]


def names_elided(analysis: Analysis) -> Analysis:
    """``analysis`` as a report shows it: every user string longer than :data:`~evalstats_core.escape.NAME_CAP`
    characters (model, file, column and cluster names; any such run in a note or warning) elided by the one
    :func:`~evalstats_core.escape.elide`, so a report and its charts cost what short names cost (issue 46). The
    same object when no string is that long (every usual file); the JSON and CSV exports keep the names whole."""

    names = tuple(dict.fromkeys(x for x in (*(m.model for m in analysis.models), analysis.name, analysis.source,
                                            analysis.question_col, analysis.model_col, analysis.score_col,
                                            analysis.cluster_col) if x is not None and len(x) > NAME_CAP))
    texts = (*analysis.notes, *analysis.warnings, *analysis.reading)
    if not names and not any(len(t) > NAME_CAP and elide_words(t) != t for t in texts):
        return analysis

    def cut(x: str | None) -> str | None:
        return None if x is None else elide(x)

    def words(xs: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(elide_words(x, names) for x in xs)

    return dataclasses.replace(
        analysis, models=tuple(dataclasses.replace(m, model=elide(m.model)) for m in analysis.models),
        comparisons=tuple(dataclasses.replace(c, model=elide(c.model), baseline=elide(c.baseline))
                          for c in analysis.comparisons),
        baseline=cut(analysis.baseline), name=elide(analysis.name), source=cut(analysis.source),
        question_col=cut(analysis.question_col), model_col=cut(analysis.model_col),
        score_col=cut(analysis.score_col), cluster_col=cut(analysis.cluster_col), notes=words(analysis.notes),
        warnings=words(analysis.warnings), reading=words(analysis.reading))


# ------------------------------------------------------------------------------------------ one model
def model_intervals(analysis: Analysis) -> pd.DataFrame:
    """Each model's interval as the analysis computed it (``analyze(..., interval=...)``), as a frame.

    The interval rule lives in :func:`~evalstats_core.analysis.analyze` (the command line uses the same
    one), so the page, the exports and the CLI show the same interval.

    Returns
    -------
    DataFrame
        One row per model: ``model, estimate, se, ci_low, ci_high, interval`` (the method's label).
    """
    rows = [{"model": m.model, "estimate": m.mean, "se": m.se, "ci_low": m.ci_low, "ci_high": m.ci_high,
             "interval": m.interval} for m in analysis.models]
    return _data_frame(rows, columns=["model", "estimate", "se", "ci_low", "ci_high", "interval"])


def clipped_note(analysis: Analysis, intervals: pd.DataFrame) -> str | None:
    """The sentence under the models chart when an interval of a 0-1 score runs past 0% or 100% (the chart
    draws it clipped, with a triangle); None when none does or the scores are on another scale."""
    if analysis.unit != "percent":
        return None
    cut = intervals[(intervals["ci_low"] < 0.0) | (intervals["ci_high"] > 1.0)]
    if not len(cut):
        return None
    f = Formatter(analysis)
    which = "; ".join(f"{r.model} {f.num(r.ci_low)} to {f.num(r.ci_high)}" for r in cut.itertuples())
    return (f"Drawn clipped at the bound (triangle): {which}. A mean score cannot leave 0%-100%, but an "
            "interval of the form estimate ± t × SE does not know that; with few questions or clusters it "
            "can run past. The table keeps the computed ends: an interval this wide says the data cannot pin "
            "the score down.")


def models_display(analysis: Analysis, intervals: pd.DataFrame) -> pd.DataFrame:
    """The per-model table in the paper's format: mean (SE), interval, n, clusters, K, deff, n_eff."""
    f = Formatter(analysis)
    level_ci = f"{level(analysis.confidence)} CI"
    by_model = intervals.set_index("model")
    rows = []
    for m in analysis.models:
        iv = by_model.loc[m.model]
        row = {"Model": m.model, "Mean (SE)": f"{f.num(m.mean)} ({f.num(m.se)})",
               level_ci: f.bounded(iv["ci_low"], iv["ci_high"]), "Questions": f"{m.n:,}"}
        if analysis.clustered:
            row["Clusters"] = f"{m.n_clusters:,}"
        row["K"] = str(m.k) if m.k_min == m.k_max else f"{m.k_min}-{m.k_max}"
        if analysis.clustered:
            row["Naive SE"] = f.num(m.se_naive)
            row["Design effect"] = fmt_r(m.deff)
            row["Effective n"] = f"{m.n_eff:,.0f}" if math.isfinite(m.n_eff) else "n/a"
        row["Interval"] = iv["interval"]
        rows.append(row)
    return _data_frame(rows)


# ---------------------------------------------------------------------------------------------- pairs
def quote_label(analysis: Analysis) -> str:
    """The header of the one p-value to quote: the adjusted p with several comparisons, else the p."""
    if len(analysis.comparisons) > 1 and analysis.adjust != "none":
        return f"p ({ADJUST_LABELS[analysis.adjust]})"
    return "p"


def _diff_heads(analysis: Analysis, f: Formatter) -> tuple[str, str]:
    unit = ", points" if f.percent else ""
    return f"Model − Baseline (SE){unit}", f"{level(analysis.confidence)} CI{unit}"


def comparisons_display(analysis: Analysis) -> pd.DataFrame:
    """The pairwise table a presenter reads: difference (SE) and interval in points, and the one p-value to
    quote (:func:`quote_label`); the other tests and numbers are in :func:`comparisons_details`."""
    f = Formatter(analysis)
    head_diff, head_ci = _diff_heads(analysis, f)
    quote = quote_label(analysis)
    rows = []
    for c in analysis.comparisons:
        rows.append({
            "Model": c.model, "Baseline": c.baseline,
            head_diff: f"{f.num(c.diff, signed=True, unit=False)} ({f.num(c.se, unit=False)})",
            head_ci: f.bounded(c.ci_low, c.ci_high, diff=True),
            quote: fmt_p(c.p_adjusted if quote != "p" else c.p_value),
        })
    return _data_frame(rows)


def comparisons_details(analysis: Analysis) -> pd.DataFrame:
    """Everything else per pair (paper Table 5): correlation, df, unadjusted and adjusted p, McNemar exact p
    (:data:`~evalstats_core.vocabulary.NONE` with clusters), wild bootstrap p, unpaired SE, pairing saved."""
    f = Formatter(analysis)
    unit = ", points" if f.percent else ""
    binary = any(c.only_model is not None for c in analysis.comparisons)
    rows = []
    for c in analysis.comparisons:
        saved = 1.0 - c.se / c.se_unpaired if analysis.paired and c.se_unpaired > 0 else math.nan
        row = {"Model": c.model, "Baseline": c.baseline, "Correlation": fmt_r(c.correlation), "df": fmt_df(c.df),
               "p": fmt_p(c.p_value), f"p ({ADJUST_LABELS[analysis.adjust]})": fmt_p(c.p_adjusted)}
        if binary:
            row[TESTS["mcnemar_exact"]] = NONE if c.mcnemar_p is None else fmt_p(c.mcnemar_p)
        if analysis.wild_bootstrap:
            row[TESTS["wild"]] = fmt_p(c.wild_p_value)
        row[f"Unpaired SE{unit}"] = f.num(c.se_unpaired, unit=False)
        row["Pairing saved"] = _saved(saved)
        row["Questions"] = f"{c.n:,}"
        rows.append(row)
    return _data_frame(rows)


def _saved(saved: float) -> str:
    """How much smaller the paired SE is than the unpaired one, in words (pairing can also cost)."""
    if not math.isfinite(saved):
        return "n/a"
    if abs(saved) < 0.005:
        return "nothing"
    return f"{saved:.0%} of the SE" if saved > 0 else f"nothing (SE {-saved:.0%} larger)"


def differences_frame(analysis: Analysis) -> pd.DataFrame:
    """One row per comparison for the forest plot: ``label, estimate, ci_low, ci_high, significant``."""
    alpha = 1.0 - analysis.confidence
    return _data_frame({
        "label": [f"{c.model} − {c.baseline}" for c in analysis.comparisons],
        "estimate": [c.diff for c in analysis.comparisons],
        "ci_low": [c.ci_low for c in analysis.comparisons],
        "ci_high": [c.ci_high for c in analysis.comparisons],
        "significant": [rejects(c.p_adjusted, alpha) for c in analysis.comparisons],
    })


def mcnemar_display(analysis: Analysis) -> pd.DataFrame:
    """McNemar per binary pair: discordant counts b (only model right), c (only baseline right), the exact p
    and the chi-square p (labelled as such); with clusters both are :data:`~evalstats_core.vocabulary.NONE`
    (the test assumes independent questions), as in every export."""
    rows = []
    for c in analysis.comparisons:
        if c.only_model is None:
            continue
        clustered = c.n_clusters is not None
        rows.append({"Model": c.model, "Baseline": c.baseline, "Only model right (b)": c.only_model,
                     "Only baseline right (c)": c.only_baseline,
                     TESTS["mcnemar_exact"]: NONE if c.mcnemar_p is None else fmt_p(c.mcnemar_p),
                     "χ² = (b − c)² / (b + c)": NONE if clustered or c.mcnemar_statistic is None
                     else fmt_r(c.mcnemar_statistic, 2),
                     TESTS["mcnemar_chi2"]: NONE if clustered else fmt_p(c.mcnemar_chi2_p)})
    return _data_frame(rows)


# ------------------------------------------------------------------------------------------- settings
def settings_document(analysis: Analysis, *, interval_method: str | None = None, file_name: str) -> dict[str, Any]:
    """The settings that reproduce the analysis: the report's settings (command included) and the file name.

    ``command`` is the exact ``evalbars analyze`` call (with ``file_name`` as the path); it
    carries the interval (``--interval``) and standard-error (``--cluster-se``) choices, so the command
    line's numbers are the page's.
    """
    doc = settings(analysis)
    doc["interval_method"] = interval_method or analysis.interval
    doc["file"] = file_name
    return doc


# ------------------------------------------------------------------------------------------ many models
#: From this many models the pairwise view is a matrix (and a forest plot against the leader).
MATRIX_FROM = 8


def matrix_frame(analysis: Analysis) -> pd.DataFrame:
    """Both orientations of every comparison for :func:`~evalstats_core.charts.analyze.difference_matrix`:
    ``row, column, estimate`` (``row - column``), ``significant`` (adjusted test)."""
    alpha = 1.0 - analysis.confidence
    rows = []
    for c in analysis.comparisons:
        sig = rejects(c.p_adjusted, alpha)
        rows.append({"row": c.model, "column": c.baseline, "estimate": c.diff, "significant": sig})
        rows.append({"row": c.baseline, "column": c.model, "estimate": -c.diff, "significant": sig})
    return _data_frame(rows, columns=["row", "column", "estimate", "significant"])


def leader_frame(analysis: Analysis, leader: str) -> pd.DataFrame:
    """Every model's difference from ``leader`` (``model - leader``), oriented from the all-pairs results,
    for the forest plot against the leader: ``label, estimate, ci_low, ci_high, significant``."""
    alpha = 1.0 - analysis.confidence
    rows = []
    for c in analysis.comparisons:
        if leader not in (c.model, c.baseline):
            continue
        sign = 1.0 if c.model != leader else -1.0
        other = c.model if c.model != leader else c.baseline
        low, high = (c.ci_low, c.ci_high) if sign > 0 else (-c.ci_high, -c.ci_low)
        rows.append({"label": f"{other} − {leader}", "estimate": sign * c.diff, "ci_low": low, "ci_high": high,
                     "significant": rejects(c.p_adjusted, alpha)})
    frame = _data_frame(rows, columns=["label", "estimate", "ci_low", "ci_high", "significant"])
    return frame.sort_values("estimate", ascending=False, kind="stable").reset_index(drop=True)  # closest first


#: The command the reports print (``python -m evalstats_core`` runs the same).
COMMAND = "evalbars"



def settings(analysis: Analysis) -> dict[str, Any]:
    """Everything needed to reproduce the analysis, including the command line."""

    cmd = [f"{COMMAND} analyze", analysis.source or quote_path(analysis.name)]  # source: quoted paths
    if analysis.format in ("long", "wide"):  # a results table: its layout and roles (harness logs: their importers)
        roles = (("format", analysis.format), ("question_col", analysis.question_col),
                 ("model_col", analysis.model_col), ("score_col", analysis.score_col),
                 ("cluster_col", analysis.cluster_col))
        cmd += reading_flags((k, v) for k, v in roles if v is not None)
    cmd += list(analysis.reading)  # --ignore-col, --runs-in-ids, --duplicates ...: how the file was read
    cmd += analysis_flags({"baseline": analysis.baseline, "confidence": analysis.confidence,
                           "adjust": analysis.adjust, "paired": analysis.paired, "use_clusters": analysis.clustered,
                           "method": analysis.method, "interval": analysis.interval,
                           "wild_bootstrap": analysis.wild_bootstrap, "n_boot": analysis.n_boot,
                           "seed": analysis.seed})
    if analysis.pass_at is not None:  # pass@k asked for: the command asks for the same k
        cmd.append(f"{OPTIONS['pass_at']} {','.join(map(str, analysis.pass_at.ks))}")
    return {
        "file": analysis.name, "format": analysis.format, "question_col": analysis.question_col,
        "model_col": analysis.model_col, "score_col": analysis.score_col, "cluster_col": analysis.cluster_col,
        "confidence": analysis.confidence, "baseline": analysis.baseline, "paired": analysis.paired,
        "clustered": analysis.clustered, "adjust": analysis.adjust, "se_method": analysis.method,
        "cluster_se": analysis.method,
        "interval": analysis.interval, "wild_bootstrap": analysis.wild_bootstrap,
        "n_boot": analysis.n_boot if analysis.wild_bootstrap else None,
        "seed": analysis.seed if analysis.wild_bootstrap else None, "score_kind": analysis.score_kind,
        "n_questions": analysis.n_questions, "n_clusters": analysis.n_clusters, "notes": list(analysis.notes),
        "command": " ".join(cmd), "evalstats_version": version(),
    }



def _quote(text: str) -> str:
    return shlex.quote(str(text))



def quote_path(path: str) -> str:
    """A file name for a shell command line: quoted, and ``./`` before a name starting with ``-`` (else the
    command would read it as an option).

    >>> print(quote_path("-x.csv"), quote_path("my file.csv"))
    ./-x.csv 'my file.csv'
    """
    path = str(path)
    return _quote("./" + path if path.startswith("-") else path)
