"""LaTeX that compiles into a paper as it is: booktabs tables that fit the page.

=====================  ==================================================================================
``latex_report``       the report: one compact table, the verdicts and the methods paragraph
``latex_table``        one table of chosen :data:`COLUMNS` (one row per model)
``latex_pairs``        the pairwise table (one row per comparison)
``COLUMNS``            the columns ``--columns`` can choose; :data:`DEFAULT_COLUMNS` is the compact one
=====================  ==================================================================================

The compact default -- model, n, mean [CI], difference from the baseline [CI] in points, adjusted p --
fits an 11 pt ``article``. It is set as ``table*`` by default: in a one-column paper that is an ordinary
float, in a two-column paper it spans both columns, so the same file fits either without an overfull box
(``wide=False`` gives a ``table`` that must fit one column). More than :data:`LONGTABLE_ROWS` models
make a ``longtable`` (one-column papers only). The tables use ``tabularx`` so a long model name wraps instead of running into the
margin, ``booktabs`` rules, and a true minus sign (``$-$``) for negative numbers; differences of 0-1 scores
are in percentage points. Needs ``\\usepackage{booktabs,tabularx}``.
"""

from __future__ import annotations

import re
from typing import Any

from .analysis import Analysis, PairResult
from .errors import EvalStatsError
from .escape import escape_latex, latex_cell
from .report_words import benchmark, judge_method, methods_paragraph, verdicts
from .vocabulary import ADJUST_LABELS, NONE, Formatter, fmt_df, fmt_p, fmt_r, level, se_method_label

__all__ = ["latex_report", "latex_table", "latex_pairs", "COLUMNS", "DEFAULT_COLUMNS", "LONGTABLE_ROWS"]

#: Column key -> what it shows (``--columns`` takes a comma-separated list of these keys).
COLUMNS = {
    "model": "the model's name",
    "n": "questions",
    "clusters": "clusters (clustered analyses)",
    "mean": "mean score with its confidence interval",
    "se": "standard error of the mean",
    "deff": "design effect (clustered analyses)",
    "diff": "difference from the baseline with its confidence interval, in points",
    "p": "unadjusted p of the difference",
    "p_adj": "adjusted p of the difference (the one to quote)",
    "mcnemar": "McNemar exact p (0/1 scores without clusters)",
    "wild": "wild cluster bootstrap p (with --wild-bootstrap)",
}
DEFAULT_COLUMNS = ("model", "n", "mean", "diff", "p_adj")
_RIGHT = "r"
_NAME = re.compile(r"([-_/.:]|\\_)")


def _breakable(text: str, run: int) -> str:
    r"""Escaped text with ``\allowbreak`` after separators and inside runs of ``run`` letters or digits, so a
    long name wraps in its column instead of running into the margin (inserted before escaping, so no
    LaTeX command is split)."""
    chunks = re.findall(rf"[A-Za-z0-9]{{1,{run}}}|[-_/.:]|[^A-Za-z0-9\-_/.:]+", text)
    out = []
    for i, chunk in enumerate(chunks):
        out.append(latex_cell(chunk))
        nxt = chunks[i + 1] if i + 1 < len(chunks) else ""
        prev = chunks[i - 1][-1:] if i else ""
        sign = chunk == "-" and not prev.isalnum()
        decimal = chunk in ".:," and prev.isdigit() and nxt[:1].isdigit()
        separator = not chunk[:1].isalnum() and not chunk[-1:].isspace() and not sign and not decimal
        if nxt and not nxt[:1].isspace() and (separator or (len(chunk) == run and chunk.isalnum()
                                                           and nxt[:1].isalnum())):
            out.append(r"\allowbreak{}")
    return "".join(out)


def _name_cell(text: str) -> str:
    r"""A model name that may wrap (see :func:`_breakable`)."""
    return _breakable(text, 10)


def _num(text: str) -> str:
    """A number cell: our own numbers, with a true minus and math-mode symbols."""
    return latex_cell(text)


def _reference(analysis: Analysis) -> str:
    return analysis.baseline or analysis.models[0].model


def _against(analysis: Analysis, model: str, ref: str) -> tuple[PairResult | None, float]:
    """The comparison of ``model`` with ``ref`` and its orientation (+1: model - ref as stored)."""
    for c in analysis.comparisons:
        if (c.model, c.baseline) == (model, ref):
            return c, 1.0
        if (c.model, c.baseline) == (ref, model):
            return c, -1.0
    return None, 1.0


def _cell(key: str, m: Any, analysis: Analysis, f: Formatter, ref: str) -> str:
    if key == "model":
        return _name_cell(m.model)
    if key == "n":
        return f"{m.n:,}"
    if key == "clusters":
        return NONE if m.n_clusters is None else f"{m.n_clusters:,}"
    if key == "mean":
        lo, hi = max(m.ci_low, 0.0) if f.percent else m.ci_low, min(m.ci_high, 1.0) if f.percent else m.ci_high
        mark = r"\textsuperscript{*}" if (lo, hi) != (m.ci_low, m.ci_high) else ""
        return _num(f"{f.num(m.mean, unit=False)} [{f.num(lo, unit=False)}, {f.num(hi, unit=False)}]") + mark
    if key == "se":
        return _num(f.num(m.se, unit=False))
    if key == "deff":
        return _num(fmt_r(m.deff))
    c, sign = _against(analysis, m.model, ref)
    if c is None:
        return "---"
    if key == "diff":
        lo, hi = (c.ci_low, c.ci_high) if sign > 0 else (-c.ci_high, -c.ci_low)
        return _num(f"{f.num(sign * c.diff, signed=True, unit=False)} "
                    f"[{f.num(lo, signed=True, unit=False)}, {f.num(hi, signed=True, unit=False)}]")
    if key == "p":
        return _num(fmt_p(c.p_value))
    if key == "p_adj":
        return _num(fmt_p(c.p_adjusted))
    if key == "mcnemar":
        return NONE.replace("—", "---") if c.mcnemar_p is None else _num(fmt_p(c.mcnemar_p))
    return _num(fmt_p(c.wild_p_value))


def _head(key: str, analysis: Analysis, f: Formatter, ref: str) -> str:
    """Short headers (an ``r`` column does not wrap); the units and the baseline are in the caption."""
    lev = level(analysis.confidence).replace("%", r"\%")
    p_adj = (f"$p$ ({escape_latex(ADJUST_LABELS[analysis.adjust])})"
             if len(analysis.comparisons) > 1 and analysis.adjust != "none" else "$p$")
    return {
        "model": "Model", "n": "$n$", "clusters": "Clusters", "mean": f"Mean [{lev} CI]", "se": "SE",
        "deff": "Deff", "diff": rf"$\Delta$ [{lev} CI]", "p": "$p$", "p_adj": p_adj,
        "mcnemar": "McNemar $p$", "wild": "Wild $p$",
    }[key]


def _short(name: str, most: int = 24) -> str:
    return name if len(name) <= most else name[: most - 1] + "…"


def _check_columns(columns: Any) -> tuple[str, ...]:
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",") if c.strip()]
    columns = tuple(columns)
    bad = [c for c in columns if c not in COLUMNS]
    if bad or not columns:
        raise EvalStatsError(f"columns ({', '.join(map(repr, bad)) or 'none'}) must be chosen from "
                             f"{', '.join(COLUMNS)}, e.g. model,n,mean,diff,p_adj")
    return columns


#: Tables longer than this many rows are set as a ``longtable`` (it breaks across pages; a float does not).
LONGTABLE_ROWS = 30


def _float(spec: str, head: list[str], body: list[str], caption: str, label: str | None, wide: bool) -> str:
    header = " & ".join(head) + r" \\"
    if len(body) > LONGTABLE_ROWS:  # longtable: one-column papers only, needs \usepackage{longtable}
        spec = spec.replace("X", r"p{0.28\linewidth}")
        cap = rf"\caption{{{caption}}}" + (rf"\label{{{label}}}" if label else "") + r" \\"
        return "\n".join([r"{\small\setlength{\tabcolsep}{4pt}", rf"\begin{{longtable}}{{{spec}}}", cap,
                          r"\toprule", header, r"\midrule", r"\endfirsthead", r"\toprule", header, r"\midrule",
                          r"\endhead", r"\bottomrule", r"\endlastfoot", *body, r"\end{longtable}}"])
    env = "table*" if wide else "table"
    size, sep = (r"\small", "4pt") if len(head) <= 5 else (r"\footnotesize", "3pt")  # more columns: smaller type
    lines = [rf"\begin{{{env}}}[t]", r"\centering", size, rf"\setlength{{\tabcolsep}}{{{sep}}}",
             rf"\caption{{{caption}}}"]
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [rf"\begin{{tabularx}}{{\linewidth}}{{{spec}}}", r"\toprule", header, r"\midrule",
              *body, r"\bottomrule", r"\end{tabularx}", rf"\end{{{env}}}"]
    return "\n".join(lines)


def _label(label: str | None) -> str | None:
    if label is None:
        return None
    if not re.fullmatch(r"[A-Za-z0-9:._-]{1,80}", label):
        raise EvalStatsError(f"label ({label!r}) must be letters, digits and : . _ - (e.g. tab:results)")
    return label


def latex_table(analysis: Analysis, *, columns: Any = DEFAULT_COLUMNS, caption: str | None = None,
                label: str | None = None, wide: bool = True) -> str:
    """One booktabs table, one row per model, of the chosen :data:`COLUMNS`.

    ``caption`` is user text (escaped); the default names the benchmark (the harness log's task, else the
    file) and the method. An interval of a 0-1 score past 0% or 100% is shown clipped, with an asterisk
    and a note under the table giving the computed ends.
    """
    cols = _check_columns(columns)
    if not analysis.comparisons:
        cols = tuple(c for c in cols if c not in ("diff", "p", "p_adj", "mcnemar", "wild"))
    if not analysis.clustered:
        cols = tuple(c for c in cols if c not in ("clusters", "deff"))
    f = Formatter(analysis)
    ref = _reference(analysis)
    head = [_head(k, analysis, f, ref) for k in cols]
    body = [" & ".join(_cell(k, m, analysis, f, ref) for k in cols) + r" \\" for m in analysis.models]
    cut = [m for m in analysis.models if f.percent and (m.ci_low < 0.0 or m.ci_high > 1.0)] if "mean" in cols else []
    if cut:
        ends = "; ".join(f"{latex_cell(m.model)} {_num(f.num(m.ci_low, unit=False))} to "
                         f"{_num(f.num(m.ci_high, unit=False))}" for m in cut)
        body.append(r"\midrule")
        body.append(rf"\multicolumn{{{len(cols)}}}{{>{{\raggedright\arraybackslash}}X}}{{\footnotesize "
                    rf"\textsuperscript{{*}}Interval clipped to the score range; computed: {ends}.}} \\")
    spec = "".join(r">{\raggedright\arraybackslash}X" if k == "model" else _RIGHT for k in cols)
    if "model" not in cols:
        spec = spec[:-1] + r">{\raggedleft\arraybackslash}X"
    if caption is None:
        caption_tex = "Mean score" + (r" (\%)" if f.percent else "")
        if "diff" in cols:
            caption_tex += (f" and difference from {escape_latex(_short(ref, 40))} ($\\Delta$, "
                            + ("percentage points" if f.percent else "score units") + ")")
        if "mcnemar" in cols:
            caption_tex += "; McNemar $p$ is the exact test"
        caption_tex += escape_latex(f" on {benchmark(analysis)} ({level(analysis.confidence)} CI, {_how(analysis)})")
    else:
        caption_tex = escape_latex(caption)
    return _float(spec, head, body, caption_tex, _label(label), wide)


def _how(analysis: Analysis) -> str:
    se = se_method_label(analysis.method, analysis.cluster_col if analysis.clustered else None,
                         analysis.n_clusters if analysis.clustered else None)
    judged = judge_method(analysis)
    if judged is not None:  # a judge-scored file corrected by human labels: name that, not the judge's own t
        se = judged + (f", clustered on '{analysis.cluster_col}'" if analysis.clustered else "")
    if len(analysis.comparisons) > 1 and analysis.adjust != "none":
        se += f"; p {ADJUST_LABELS[analysis.adjust]}-adjusted"
    return se


def latex_pairs(analysis: Analysis, *, wide: bool = True) -> str:
    """The pairwise table: model, baseline, difference [CI] in points, adjusted p (one row per pair)."""
    f = Formatter(analysis)
    unit = "points" if f.percent else "score units"
    lev = level(analysis.confidence).replace("%", r"\%")
    head = ["Model", "Baseline", f"Difference, {unit} [{lev} CI]", "$p$",
            f"$p$ ({escape_latex(ADJUST_LABELS[analysis.adjust])})", "df"]
    body = []
    for c in analysis.comparisons:
        body.append(" & ".join([
            _name_cell(c.model), _name_cell(c.baseline),
            _num(f"{f.num(c.diff, signed=True, unit=False)} [{f.num(c.ci_low, signed=True, unit=False)}, "
                 f"{f.num(c.ci_high, signed=True, unit=False)}]"),
            _num(fmt_p(c.p_value)), _num(fmt_p(c.p_adjusted)), _num(fmt_df(c.df))]) + r" \\")
    spec = r">{\raggedright\arraybackslash}X>{\raggedright\arraybackslash}X" + "rrrr"
    caption = escape_latex(f"Paired differences on {benchmark(analysis)} ({_how(analysis)})")
    return _float(spec, head, body, caption, None, wide)


def latex_report(analysis: Analysis, *, columns: Any = DEFAULT_COLUMNS, caption: str | None = None,
                 label: str | None = None, wide: bool = True) -> str:
    """The report as LaTeX: the compact table (:func:`latex_table`), the verdicts and the methods paragraph.

    Paste it into a document that loads ``booktabs`` and ``tabularx``; it compiles with pdfLaTeX in a one-
    or two-column 11 pt article without an overfull box (``table*``; ``wide=False`` for a one-column float).
    """
    out = [f"% evalbars report for {escape_latex(benchmark(analysis))} ({escape_latex(analysis.name)})",
           r"% needs \usepackage{booktabs,tabularx} (and longtable for more than 30 models)",
           latex_table(analysis, columns=columns, caption=caption, label=label, wide=wide), ""]
    if analysis.comparisons:
        out += [r"\begin{itemize}"] + [rf"\item {_text(v)}" for v in verdicts(analysis)] + [r"\end{itemize}", ""]
    out += [_text(methods_paragraph(analysis)), ""]
    return "\n".join(out)


def _text(text: str) -> str:
    """Prose with user names in it: escaped, a minus before a number set as math; only a word longer than a
    line could hold (a long model or file name) gets break points."""
    words = [(_breakable(w, 16) if len(w) > 24 else latex_cell(w)) for w in text.split(" ")]
    return re.sub(r"(?<![\w-])-(?=\d)", r"$-$", " ".join(words))
