"""A one-page, self-contained HTML report for a review that has no app.

:func:`html_report` writes the tables, the charts as inline SVG (rendered by vl-convert, no browser), the
verdicts, the warnings, the methods paragraph and the command that reproduces the analysis, in one file
with its style inline: no script, no font, no image and no link that would make a viewer's browser fetch
anything. Every string from the user's files (model names, file and column names) is HTML-escaped by the
one escaper of that target (:func:`~evalstats_core.escape.escape_html`); the SVG's text is escaped by the
renderer as XML.
"""

from __future__ import annotations

import re

from . import report_passk
from .analysis import Analysis
from .charts import analyze as charts
from .charts import to_svg
from .escape import escape_html
from .judge_io import report_frame, section_intro, verdict_sentences
from .report_display import (
    comparisons_details,
    comparisons_display,
    differences_frame,
    model_intervals,
    models_display,
    names_elided,
    settings,
)
from .report_words import benchmark, method_line, methods_paragraph, summary_lines, verdicts, version

__all__ = ["html_report", "charts_svg"]

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222;max-width:1100px;margin:2em auto;
padding:0 1em}h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-variant-numeric:tabular-nums}th,td{padding:.25em .7em;
border-bottom:1px solid #e5e5e5;text-align:right;vertical-align:top;white-space:nowrap}th:first-child,td:first-child,th:nth-child(2),
td:nth-child(2){text-align:left;white-space:normal}th{border-bottom:2px solid #999}.lead{color:#555}code{background:#f4f4f4;
padding:.4em .6em;display:block;white-space:pre-wrap;word-break:break-all}.figure svg{max-width:100%;height:auto}
details{margin:.6em 0}summary{cursor:pointer;color:#555}
"""
_DANGEROUS = re.compile(r"<\s*(script|foreignObject|image|iframe|object|embed|link|style)\b", re.IGNORECASE)


def _table(frame) -> str:
    head = "".join(f"<th>{escape_html(c)}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td>{escape_html(v)}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _clean_svg(svg: str) -> str:
    """The SVG as vl-convert wrote it, minus its XML prolog; refused if it holds anything active or remote."""
    svg = re.sub(r"^\s*<\?xml[^>]*>\s*", "", svg)
    if _DANGEROUS.search(svg) or re.search(r"(?:href|src)\s*=\s*[\"']?\s*(?:https?:|//|data:|javascript:)", svg,
                                            re.IGNORECASE):
        return "<p>(chart left out: its SVG referred to something outside this file)</p>"
    return svg


def charts_svg(analysis: Analysis) -> list[tuple[str, str]]:
    """The report's charts as ``(caption, svg)``: the models' intervals and, with comparisons, the differences.

    Rendering needs vl-convert; a failure (e.g. under a memory cap) leaves the chart out with a sentence
    instead of failing the report.
    """
    out = []
    name = benchmark(analysis)
    percent = analysis.unit == "percent"
    jobs = [("models", lambda: charts.models_chart(model_intervals(analysis), percent=percent,
                                                   confidence=analysis.confidence),
             f"{name}: each model's mean", method_line(analysis))]
    if analysis.comparisons:
        jobs.append(("differences", lambda: charts.differences_chart(differences_frame(analysis), percent=percent,
                                                                     confidence=analysis.confidence,
                                                                     paired=analysis.paired),
                     f"{name}: differences" + (" in points" if percent else ""),
                     method_line(analysis, what="comparisons")))
    for _, build, title, subtitle in jobs:
        try:
            out.append((title, _clean_svg(to_svg(build(), title=title, subtitle=subtitle))))
        except (MemoryError, RuntimeError, ValueError, OSError) as exc:
            out.append((title, f"<p>(chart left out: it could not be drawn here: {escape_html(type(exc).__name__)})</p>"))
    return out


def html_report(analysis: Analysis, *, charts: bool = True) -> str:
    """The whole report as one self-contained HTML page (see the module docstring); user strings longer than
    :data:`~evalstats_core.escape.NAME_CAP` characters are elided (:func:`names_elided`)."""
    analysis = names_elided(analysis)

    name = benchmark(analysis)
    says = verdicts(analysis)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
             f"<title>Results: {escape_html(name)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>Results: {escape_html(name)}</h1>",
             f'<p class="lead">{escape_html(analysis.name)} · {escape_html(method_line(analysis, what="comparisons"))}</p>']
    parts += ["<h2>In short</h2>"] + [f"<p>{escape_html(line)}</p>" for line in summary_lines(analysis)]
    parts += ["<h2>Models</h2>", _table(models_display(analysis, model_intervals(analysis)))]
    if analysis.judge is not None:  # human labels: the judge's own, the humans' and the corrected intervals
        parts += ["<h2>Judge corrected by human labels</h2>", f"<p>{escape_html(section_intro(analysis.judge))}</p>",
                  _table(report_frame(analysis.judge))]
        parts += ["<ul>"] + [f"<li>{escape_html(v)}</li>" for v in verdict_sentences(analysis.judge)] + ["</ul>"]
    if analysis.pass_at is not None:
        parts += report_passk.html(analysis.pass_at)
    if analysis.comparisons:
        parts += ["<h2>Comparisons</h2>", _table(comparisons_display(analysis)),
                  "<details><summary>Details: correlation, df, every p-value, unpaired SE</summary>",
                  _table(comparisons_details(analysis)), "</details>", "<h2>Verdicts</h2><ul>"]
        parts += [f"<li>{escape_html(v)}</li>" for v in says] + ["</ul>"]
    if charts:
        for title, svg in charts_svg(analysis):
            parts.append(f'<figure class="figure" aria-label="{escape_html(title)}">{svg}</figure>')
    if analysis.warnings:
        parts += ["<h2>Warnings</h2><ul>"] + [f"<li>{escape_html(w)}</li>" for w in analysis.warnings] + ["</ul>"]
    parts += ["<h2>Methods</h2>", f"<p>{escape_html(methods_paragraph(analysis))}</p>"]
    if analysis.notes:
        parts += ["<h2>How the file was read</h2><ul>"] + [f"<li>{escape_html(n)}</li>" for n in analysis.notes]
        parts.append("</ul>")
    parts += ["<h2>Reproduce</h2>", f"<code>{escape_html(settings(analysis)['command'])}</code>",
              f'<p class="lead">evalbars {escape_html(version())}</p>', "</body></html>", ""]
    return "\n".join(parts)
