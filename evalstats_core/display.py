"""Results in a notebook: rich tables for Jupyter and the workbench's charts from an analysis.

========================  ======================================================================
:func:`analysis_html`     ``Analysis._repr_html_``: the workbench's models and comparisons tables, verdicts,
                          warnings (every cell escaped)
:func:`analysis_markdown` ``Analysis._repr_markdown_``: the command line's Markdown report, as it prints it
:func:`result_html`       ``Summary`` / ``Comparison._repr_html_``: one row of the result's numbers
:func:`result_markdown`   ``Summary`` / ``Comparison._repr_markdown_``
:func:`chart`             ``Analysis.chart(kind)``: the Altair chart the workbench draws (``models``,
                          ``differences``, ``matrix``)
:func:`models_frame`      the models chart's frame: intervals, "cannot be told apart from the leader", letters
========================  ======================================================================

Jupyter shows ``_repr_html_`` where it renders HTML (and ``_repr_markdown_`` elsewhere), so
``analyze(load("results.csv"))`` as the last line of a cell prints the tables. Altair is imported only
when a chart is asked for: the statistics never import it.
"""

from __future__ import annotations

import html
import math
from dataclasses import fields
from typing import Any

import pandas as pd

from . import report
from .errors import EvalStatsError
from .ranking import rank_models
from .report import differences_frame, escape_markdown, matrix_frame, method_line, model_intervals, render
from .vocabulary import level

__all__ = ["CHARTS", "analysis_html", "analysis_markdown", "chart", "models_frame", "result_html",
           "result_markdown"]

#: The charts :func:`chart` draws, as the workbench draws them.
CHARTS = ("models", "differences", "matrix")


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _html_table(frame: pd.DataFrame) -> str:
    """``frame`` as an HTML table, every header and cell escaped."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_esc(v)}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def analysis_html(analysis: Any) -> str:
    """The analysis as HTML: the workbench's tables (same labels, same numbers), verdicts and warnings."""
    parts = [f"<h4>Results: {_esc(analysis.name)}</h4>",
             f"<p>{_esc(report.method_line(analysis))}</p>",
             _html_table(report.models_display(analysis, report.model_intervals(analysis)))]
    if analysis.comparisons:
        parts.append(_html_table(report.comparisons_display(analysis)))
        parts.append("<ul>" + "".join(f"<li>{_esc(v)}</li>" for v in report.verdicts(analysis)) + "</ul>")
    if analysis.warnings:
        parts.append("<p><strong>Warnings</strong></p><ul>"
                     + "".join(f"<li>{_esc(w)}</li>" for w in analysis.warnings) + "</ul>")
    return "<div>" + "".join(parts) + "</div>"


def analysis_markdown(analysis: Any) -> str:
    """The analysis as the command line's Markdown report (``evalbars analyze FILE``)."""
    return render(analysis, "markdown")


def _number(x: Any, decimals: int) -> str:
    if isinstance(x, float):
        return "n/a" if math.isnan(x) else ("inf" if math.isinf(x) else f"{x:.{decimals}f}")
    return str(x)


def _result_row(result: Any) -> tuple[list[str], list[str]]:
    """(header, cells) of a Summary or Comparison: the numbers a reader needs, decimals from the SE."""
    names = [f.name for f in fields(result)]
    wanted = [k for k in ("n", "n_clusters", "mean", "mean_a", "mean_b", "diff", "se", "ci_low", "ci_high", "df",
                          "p_value", "method") if k in names]
    se = getattr(result, "se", float("nan"))
    decimals = int(min(6, max(3, 1 - math.floor(math.log10(se))))) if se > 0 and math.isfinite(se) else 4
    cells = [_number(getattr(result, k), 4 if k == "p_value" else 1 if k == "df" else decimals) for k in wanted]
    return wanted, cells


def result_html(result: Any) -> str:
    """A Summary or Comparison as a one-row HTML table (its confidence level in the caption)."""
    head, cells = _result_row(result)
    caption = f"{type(result).__name__} at {level(getattr(result, 'confidence', 0.95))} confidence"
    return (f"<table><caption>{_esc(caption)}</caption><thead><tr>" + "".join(f"<th>{_esc(h)}</th>" for h in head)
            + "</tr></thead><tbody><tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr></tbody></table>")


def result_markdown(result: Any) -> str:
    """A Summary or Comparison as a one-row Markdown table."""
    head, cells = _result_row(result)
    return ("| " + " | ".join(head) + " |\n|" + " --- |" * len(head) + "\n| "
            + " | ".join(escape_markdown(c) for c in cells) + " |\n")


def _ranking(analysis: Any) -> Any:
    """The workbench's ranking of an all-pairs analysis (None with a baseline or one model)."""
    if analysis.baseline is not None or len(analysis.models) < 2:
        return None

    return rank_models({m.model: m.mean for m in analysis.models},
                       [(c.model, c.baseline, c.p_adjusted, c.diff) for c in analysis.comparisons],
                       alpha=1.0 - analysis.confidence)


def models_frame(analysis: Any, ranking: Any = None) -> pd.DataFrame:
    """The models chart's frame: ``model, estimate, ci_low, ci_high``, ``tied`` and, with few groups, ``group``.

    ``tied`` marks the models that the adjusted pairwise tests cannot tell apart from the leader and
    ``group`` holds the compact letter display, both from ``ranking`` (a
    :class:`~evalstats_core.ranking.Ranking` of all pairs). Without one, an analysis of all pairs is
    ranked here; an analysis against one baseline has no ranking (every pair is not compared), so its
    frame has neither column.
    """
    intervals = model_intervals(analysis)
    ranking = ranking if ranking is not None else _ranking(analysis)
    if ranking is None:
        return intervals
    tied = {m for m, b in zip(ranking.models, ranking.best_rank, strict=False) if b == 1}
    frame = intervals.assign(tied=[m in tied for m in intervals["model"]])
    if len(ranking.groups) <= 3:  # a few letters read at a glance; long letter strings do not
        groups = dict(zip(ranking.models, ranking.letters, strict=False))
        frame = frame.assign(group=[groups.get(m, "") for m in intervals["model"]])
    return frame


def chart(analysis: Any, kind: str = "models") -> Any:
    """The Altair chart the workbench draws for ``analysis``: ``"models"``, ``"differences"`` or ``"matrix"``.

    Each carries the workbench's title and its method line as the subtitle. ``"matrix"`` needs an analysis
    of all pairs (no ``baseline``). Display it in a notebook, or ``chart.save("models.svg")``.
    """

    if kind not in CHARTS:
        raise EvalStatsError(f"chart kind {kind!r} is not one of {', '.join(CHARTS)}")
    from .charts import analyze as charts  # heavy: Altair, only when a chart is asked for

    percent = analysis.unit == "percent"
    if kind == "models":
        return charts.models_chart(models_frame(analysis), percent=percent, confidence=analysis.confidence,
                                   title=f"Mean score by model, {analysis.name}", subtitle=method_line(analysis))
    if not analysis.comparisons:
        raise EvalStatsError(f"{analysis.name} has one model: there is no {kind} chart; compare two models or more")
    line = method_line(analysis, what="comparisons")
    if kind == "differences":
        return charts.differences_chart(differences_frame(analysis), percent=percent, confidence=analysis.confidence,
                                        paired=analysis.paired, title=f"Differences between models, {analysis.name}",
                                        subtitle=line)
    if analysis.baseline is not None:
        raise EvalStatsError(f"the matrix chart needs every pair of models; analyze without baseline= "
                             f"(this analysis compares with {analysis.baseline!r})")
    return charts.difference_matrix(matrix_frame(analysis), order=list(_ranking(analysis).models), percent=percent,
                                    title=f"Every pairwise difference, {analysis.name}", subtitle=line)
