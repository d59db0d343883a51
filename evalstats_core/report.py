"""Reports of an :class:`~evalstats_core.analysis.Analysis`: paper-format tables, verdicts, methods, JSON.

=======================  ======================================================================
``render``               the whole report as ``"markdown"``, ``"latex"``, ``"csv"``, ``"json"`` or ``"html"``
``models_table``         per-model "mean (SE)" with questions and clusters (paper Tables 2-3)
``comparisons_table``    "difference (SE)", 95% CI, correlation per pair (paper Table 5)
``models_csv``           the numbers behind the tables as CSV (spreadsheet-safe, headers too)
``comparisons_csv``
``csv_tables``           every CSV table, one per file (the workbench zips them; the CLI writes a folder)
``verdicts``             one plain-words sentence per pair, carrying its caveats (:mod:`.report_words`)
``methods_paragraph``    which estimators were used, with citations
``method_line``          the same in one line, for a figure's subtitle
``json_document``        the fixed-key JSON document (``to_json`` serialises it)
=======================  ======================================================================

Words and labels come from :mod:`evalstats_core.vocabulary` (one name per method and test, one number
formatter: levels in percent, differences in points); user text goes through the one escaper of its
target (:mod:`evalstats_core.escape`): Markdown, LaTeX, HTML, CSV (cells and headers). LaTeX is set by
:mod:`evalstats_core.report_latex`, HTML by :mod:`evalstats_core.report_html`, the workbench's tables by
:mod:`evalstats_core.report_display`.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from . import report_passk
from .analysis import Analysis, PairResult
from .errors import EvalStatsError
from .escape import csv_safe, escape_latex, escape_markdown
from .report_display import (
    COMMAND,
    MATRIX_FROM,
    clipped_note,
    comparisons_details,
    comparisons_display,
    differences_frame,
    leader_frame,
    matrix_frame,
    mcnemar_display,
    model_intervals,
    models_display,
    names_elided,
    quote_label,
    quote_path,
    settings,
    settings_document,
)
from .report_latex import LONGTABLE_ROWS, latex_pairs, latex_report, latex_table
from .report_words import benchmark, method_line, methods_paragraph, summary_lines, verdicts, version
from .vocabulary import (
    ADJUST_LABELS,
    INTERVAL_METHODS,
    NONE,
    SE_METHODS,
    TESTS,
    Formatter,
    fmt_df,
    fmt_p,
    fmt_r,
    level,
    reference,
)

__all__ = ["render", "models_table", "comparisons_table", "models_csv", "comparisons_csv", "csv_tables", "verdicts",
           "method_line", "methods_paragraph", "json_document", "to_json", "FORMATS", "Formatter",
           "INTERVAL_METHODS", "SE_METHODS", "model_intervals", "models_display", "comparisons_display",
           "comparisons_details", "differences_frame", "mcnemar_display", "settings_document", "MATRIX_FROM",
           "matrix_frame", "leader_frame", "clipped_note", "quote_label", "escape_markdown", "escape_latex",
           "csv_safe", "version", "benchmark", "quote_path", "COMMAND", "LONGTABLE_ROWS", "summary_lines"]

FORMATS = ("markdown", "latex", "csv", "json", "html")


# ---------------------------------------------------------------------------------------------- tables
def _model_rows(analysis: Analysis, st: Formatter) -> tuple[list[str], list[list[str]]]:
    head = ["Model", "Questions"]
    if analysis.clustered:
        head.append("Clusters")
    show_k = any(m.k_max > 1 for m in analysis.models)
    if show_k:
        head.append("Answers per question")
    head += ["Mean (SE)", f"{level(analysis.confidence)} CI"]
    if analysis.clustered:
        head += ["Naive SE", "Design effect"]
    rows = []
    for m in analysis.models:
        row = [m.model, f"{m.n:,}"]
        if analysis.clustered:
            row.append(f"{m.n_clusters:,}")
        if show_k:
            row.append(str(m.k) if m.k_min == m.k_max else f"{m.k_min}-{m.k_max}")
        row += [f"{st.num(m.mean)} ({st.num(m.se)})", st.bounded(m.ci_low, m.ci_high)]
        if analysis.clustered:
            row += [st.num(m.se_naive), fmt_r(m.deff)]
        rows.append(row)
    return head, rows


def _pair_rows(analysis: Analysis, st: Formatter) -> tuple[list[str], list[list[str]]]:
    unit = ", points" if st.percent else ""
    head = ["Model", "Baseline", f"Model − Baseline (SE){unit}", f"{level(analysis.confidence)} CI{unit}",
            "Correlation", "df", "Questions", "p", f"p ({ADJUST_LABELS[analysis.adjust]})"]
    binary = any(c.only_model is not None for c in analysis.comparisons)
    if binary:
        head.append(TESTS["mcnemar_exact"])
    if analysis.wild_bootstrap:
        head.append(TESTS["wild"])
    rows = []
    for c in analysis.comparisons:
        row = [c.model, c.baseline, f"{st.num(c.diff, signed=True, unit=False)} ({st.num(c.se, unit=False)})",
               st.bounded(c.ci_low, c.ci_high, diff=True), fmt_r(c.correlation),
               fmt_df(c.df), f"{c.n:,}", fmt_p(c.p_value), fmt_p(c.p_adjusted)]
        if binary:
            row.append(NONE if c.mcnemar_p is None else fmt_p(c.mcnemar_p))
        if analysis.wild_bootstrap:
            row.append(fmt_p(c.wild_p_value))
        rows.append(row)
    return head, rows


def _markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(escape_markdown(h) for h in head) + " |",
             "|" + "|".join(" --- " if i < 2 else " ---: " for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(escape_markdown(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def models_table(analysis: Analysis, fmt: str = "markdown") -> str:
    """Per-model table in the paper's "mean (SE)" format (Tables 2-3): ``"markdown"`` or ``"latex"``."""
    if fmt == "latex":
        return latex_table(analysis, columns=("model", "n", "clusters", "mean", "se", "deff"))
    if fmt == "markdown":
        return _markdown(*_model_rows(analysis, Formatter(analysis)))
    raise EvalStatsError(f"fmt ({fmt!r}) must be 'markdown' or 'latex'; for CSV use models_csv()")


def comparisons_table(analysis: Analysis, fmt: str = "markdown") -> str:
    """Pairwise table in the paper's Table 5 format: difference (SE), CI, correlation, p-values."""
    if fmt == "latex":
        return latex_pairs(analysis)
    if fmt == "markdown":
        return _markdown(*_pair_rows(analysis, Formatter(analysis)))
    raise EvalStatsError(f"fmt ({fmt!r}) must be 'markdown' or 'latex'; for CSV use comparisons_csv()")


#: The CSV columns (see :data:`~evalstats_core.vocabulary.COLUMNS`); ``z`` and ``method`` are kept for one
#: release beside ``statistic`` and ``se_method``.
_MODEL_KEYS = ("model", "n", "n_clusters", "k", "mean", "se", "ci_low", "ci_high", "se_naive", "deff", "df",
               "se_method", "method", "interval")
_PAIR_KEYS = ("model", "baseline", "n", "diff", "se", "se_method", "ci_low", "ci_high", "statistic", "reference",
              "z", "p_value", "p_adjusted", "correlation", "se_unpaired", "df", "method", "mcnemar_p", "wild_p_value",
              "interval")


def csv_text(keys: tuple[str, ...] | list[str], rows: Any) -> str:
    """CSV with a header row: every text cell and header through :func:`csv_safe`; numbers in full precision
    (``repr``), empty where undefined."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_safe(str(k)) for k in keys])
    for cells in rows:
        writer.writerow([csv_safe(c) if isinstance(c, str) else
                         ("" if c is None or (isinstance(c, float) and not math.isfinite(c)) else repr(c))
                         for c in cells])
    return out.getvalue()


def _cells(item: Any, keys: tuple[str, ...]) -> list[Any]:
    extra = {"se_method": getattr(item, "method", None), "statistic": getattr(item, "z", None)}
    if hasattr(item, "z"):
        extra["reference"] = reference(item.df)
    return [extra[k] if k in extra else getattr(item, k) for k in keys]


def models_csv(analysis: Analysis) -> str:
    """One row per model with the full-precision numbers (empty cell where undefined)."""
    return csv_text(_MODEL_KEYS, (_cells(m, _MODEL_KEYS) for m in analysis.models))


def comparisons_csv(analysis: Analysis) -> str:
    """One row per comparison with the full-precision numbers (empty cell where undefined)."""
    return csv_text(_PAIR_KEYS, (_cells(c, _PAIR_KEYS) for c in analysis.comparisons))


# ------------------------------------------------------------------------------------------------- JSON
def _clean(x: Any) -> Any:
    """JSON-safe value: NaN and infinities become None (JSON has no NaN)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _model_doc(m: Any) -> dict[str, Any]:
    return {"model": m.model, "n": m.n, "n_clusters": m.n_clusters, "k": m.k, "mean": _clean(m.mean),
            "se": _clean(m.se), "ci": [_clean(m.ci_low), _clean(m.ci_high)], "se_naive": _clean(m.se_naive),
            "deff": _clean(m.deff), "df": _clean(m.df), "se_method": m.method, "method": m.method,
            "interval": m.interval}


def _pair_doc(c: PairResult) -> dict[str, Any]:
    return {"model": c.model, "baseline": c.baseline, "n": c.n, "diff": _clean(c.diff), "se": _clean(c.se),
            "se_method": c.method, "ci": [_clean(c.ci_low), _clean(c.ci_high)], "statistic": _clean(c.z),
            "reference": reference(c.df), "z": _clean(c.z), "df": _clean(c.df), "p_value": _clean(c.p_value),
            "p_adjusted": _clean(c.p_adjusted), "correlation": _clean(c.correlation),
            "se_unpaired": _clean(c.se_unpaired), "method": c.method, "mcnemar_p": _clean(c.mcnemar_p),
            "wild_p_value": _clean(c.wild_p_value), "interval": c.interval}


def json_document(analysis: Analysis) -> dict[str, Any]:
    """The fixed-key document: ``models``, ``comparisons``, ``warnings``, ``settings`` (no NaN: null).

    A comparison's ``statistic`` is ``diff / se`` read against ``reference`` (``"t"`` on ``df``, or
    ``"normal"``); ``z`` is the same number, kept for one release; ``se_method`` names the standard error
    (``method`` is its old name); ``mcnemar_p`` is McNemar's exact p (null with clusters). The meaning of
    every field: :data:`~evalstats_core.vocabulary.COLUMNS`.
    """
    from .judge_io import add_json_blocks  # reads labels: off the page's import (warm_up)
    doc = {"models": [_model_doc(m) for m in analysis.models],
           "comparisons": [_pair_doc(c) for c in analysis.comparisons],
           "warnings": list(analysis.warnings), "settings": settings(analysis)}
    if analysis.judge is not None:  # human labels: a 'judge' object per model and comparison, 'agreement' per model
        add_json_blocks(doc, analysis.judge)
    if analysis.pass_at is not None:  # pass@k asked for: a 'pass_at' list per model and comparison
        report_passk.add_json(doc, analysis.pass_at)
    return doc


def to_json(analysis: Analysis, *, indent: int | None = 2) -> str:
    """:func:`json_document` as strict JSON text (``allow_nan=False``: a NaN could never slip through)."""
    return json.dumps(json_document(analysis), indent=indent, allow_nan=False, ensure_ascii=False)


# ----------------------------------------------------------------------------------------------- render
def _header_line(analysis: Analysis) -> str:
    parts = [f"{analysis.n_questions:,} questions"]
    if analysis.clustered:
        parts.append(f"{analysis.n_clusters:,} clusters (column '{analysis.cluster_col}')")
    models = f"{len(analysis.models)} model" + ("" if len(analysis.models) == 1 else "s")
    parts += [models, f"{analysis.score_kind} scores", f"{level(analysis.confidence)} confidence"]
    return ", ".join(parts)


#: The CSV tables of a report, one per file (``--table`` on the command line).
CSV_TABLES = ("models", "comparisons")


def csv_tables(analysis: Analysis) -> dict[str, str]:
    """Every CSV table of the report, one per file: ``{"models.csv": ..., "comparisons.csv": ...}``.

    Each is a single table with one header row, so ``pandas.read_csv`` reads it as it is.
    """
    from .judge_io import add_to_report  # reads labels: off the page's import (warm_up)
    out = {"models.csv": models_csv(analysis)}
    if analysis.comparisons:
        out["comparisons.csv"] = comparisons_csv(analysis)
    if analysis.judge is not None:
        out["judge.csv"] = add_to_report("", "csv", analysis.judge, table="judge")
    if analysis.pass_at is not None:
        out["pass_at.csv"] = report_passk.csv_table(analysis.pass_at)
    return out


def render(analysis: Analysis, fmt: str = "markdown", *, table: str = "models",
           latex: dict[str, Any] | None = None) -> str:
    """The whole report: tables, verdicts, warnings and methods (``fmt`` one of :data:`FORMATS`).

    ``"csv"`` is one table per file: ``table`` picks it (``"models"`` or ``"comparisons"``); use
    :func:`csv_tables` for all of them. ``latex`` passes options to
    :func:`~evalstats_core.report_latex.latex_report` (``columns``, ``caption``, ``label``, ``wide``).
    """
    from .judge_io import add_to_report  # reads labels: off the page's import (warm_up)
    if fmt == "json":
        return to_json(analysis) + "\n"
    if fmt == "csv":
        if table == "pass_at":
            if analysis.pass_at is None:
                raise EvalStatsError("table='pass_at' needs pass@k: ask for it with pass_at=, e.g. 1,5,10")
            return report_passk.csv_table(analysis.pass_at)
        if table not in CSV_TABLES:
            raise EvalStatsError(f"table ({table!r}) must be one of {', '.join(CSV_TABLES)}")
        return models_csv(analysis) if table == "models" else comparisons_csv(analysis)
    if fmt == "html":
        from .report_html import html_report  # heavy: Altair and pandas, --format html only

        return html_report(analysis)
    if fmt in ("latex", "markdown"):  # reports for people: long names elided (JSON and CSV keep them whole)
        analysis = names_elided(analysis)
    if fmt in ("latex", "markdown") and analysis.judge is not None:  # the judge section after the report
        return add_to_report(_body(analysis, fmt, latex), fmt, analysis.judge, wide=(latex or {}).get("wide", True))
    return _body(analysis, fmt, latex)


def _body(analysis: Analysis, fmt: str, latex: dict | None) -> str:
    """The LaTeX or Markdown report without the judge section (its method line and caption name the judge's)."""
    if fmt == "latex":
        text = latex_report(analysis, **(latex or {}))
        return text if analysis.pass_at is None else text + report_passk.latex(analysis.pass_at)
    if fmt == "markdown":
        out = [f"# Results: {escape_markdown(benchmark(analysis))}", "", escape_markdown(_header_line(analysis)), "",
               "## In short", ""] + [f"{escape_markdown(line)}  " for line in summary_lines(analysis)]
        out += ["", "## Models", "", models_table(analysis, "markdown"), ""]
        if analysis.pass_at is not None:
            out += [report_passk.markdown(analysis.pass_at)]
        if analysis.comparisons:
            out += ["## Comparisons", "", comparisons_table(analysis, "markdown"), "", "## Verdicts", ""]
            out += [f"- {escape_markdown(v)}" for v in verdicts(analysis)] + [""]
        if analysis.warnings:
            out += ["## Warnings", ""] + [f"- {escape_markdown(w)}" for w in analysis.warnings] + [""]
        out += ["## Methods", "", escape_markdown(methods_paragraph(analysis)), ""]
        if analysis.notes:
            out += ["## How the file was read", ""] + [f"- {escape_markdown(n)}" for n in analysis.notes] + [""]
        return "\n".join(out)
    raise EvalStatsError(f"format ({fmt!r}) must be one of {', '.join(FORMATS)}")


