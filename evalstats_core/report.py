"""Reports of an :class:`~evalstats_core.analysis.Analysis`: paper-format tables, verdicts, methods, JSON.

=======================  ======================================================================
``render``               the whole report as ``"markdown"``, ``"latex"``, ``"csv"`` or ``"json"``
``models_table``         per-model "mean (SE)" with questions and clusters (paper Tables 2-3)
``comparisons_table``    "difference (SE)", 95% CI, correlation per pair (paper Table 5)
``models_csv``           the numbers behind the tables as CSV (spreadsheet-safe)
``comparisons_csv``
``csv_tables``           every CSV table, one per file (the workbench zips them; the CLI writes a folder)
``verdicts``             one plain-words sentence per pair, carrying its caveats
``methods_paragraph``    which estimators were used, with citations
``method_line``          the same in one line, for a figure's subtitle
``json_document``        the fixed-key JSON document (``to_json`` serialises it)
=======================  ======================================================================

Model names come from users' files: Markdown escapes pipes, backslashes and angle brackets, LaTeX
escapes its special characters, CSV cells that a spreadsheet would run as a formula (starting with
``= + - @``, tab or carriage return) get a leading single quote, and no output is ever HTML.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any

import pandas as pd

from .analysis import ADJUST_LABELS, INTERVAL_LABELS, SMALL_DF, SMALL_N, Analysis, PairResult
from .errors import EvalStatsError

__all__ = ["render", "models_table", "comparisons_table", "models_csv", "comparisons_csv", "csv_tables", "verdicts", "method_line",
           "methods_paragraph", "json_document", "to_json", "FORMATS", "Formatter", "INTERVAL_METHODS",
           "SE_METHODS", "model_intervals", "models_display", "comparisons_display", "differences_frame",
           "mcnemar_display", "settings_document", "MATRIX_FROM", "matrix_frame", "leader_frame", "clipped_note"]

FORMATS = ("markdown", "latex", "csv", "json")
_MD_SPECIAL = str.maketrans({"\\": "\\\\", "|": "\\|", "`": "\\`", "[": "\\[", "]": "\\]", "\n": " ",
                             "\r": " "})
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # only "<" that could open an HTML tag needs escaping
_TEX_SPECIAL = str.maketrans({"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                              "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                              "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                              "|": r"\textbar{}", "–": "--", "−": "-", "\n": " ", "\r": " "})
#: Tables longer than this many rows are set as a ``longtable`` (it breaks across pages; a float does not).
LONGTABLE_ROWS = 30
_ADJUST_NAME = ADJUST_LABELS


def version() -> str:
    """The evalstats version recorded in reports (``"unknown"`` when not installed as a package)."""
    import evalstats_core

    found = getattr(evalstats_core, "__version__", None)
    if found:
        return str(found)
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as _version

        return _version("evalbars")  # the distribution name (see pyproject.toml)
    except (PackageNotFoundError, ValueError):
        return "unknown"


# ----------------------------------------------------------------------------------------------- escaping
def escape_markdown(text: Any) -> str:
    """Escape user text for Markdown: pipes, backslashes, backticks, brackets and tag-opening ``<``.

    Newlines become spaces, so a name cannot break a table row; no HTML can get through.
    """
    return _MD_TAG.sub(r"\\<", str(text).translate(_MD_SPECIAL))


def escape_latex(text: Any) -> str:
    """Escape LaTeX's special characters in user text (``< > |`` too: pdfLaTeX's default font has none)."""
    return str(text).translate(_TEX_SPECIAL)


def _latex_cell(text: str) -> str:
    """A table cell for LaTeX: user text escaped; our own ``<0.001`` and ``∞`` set in math mode."""
    if text == "<0.001":
        return r"$<$0.001"
    return escape_latex(text).replace("∞", r"$\infty$")


def csv_safe(cell: Any) -> Any:
    """Neutralise a text cell that a spreadsheet would read as a formula (prefix a single quote).

    Numbers are returned unchanged (``-0.05`` is a number, not a formula); text starting with
    ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (OWASP CSV injection).
    """
    if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + cell
    return cell


# --------------------------------------------------------------------------------------------- numbers
class Formatter:
    """How to print the numbers of one analysis, the one formatter of the page, Markdown, LaTeX and text.

    Percent points for scores in [0, 1], else raw units; as many decimals as the smallest SE needs for
    one significant digit; a value that rounds to zero prints unsigned ("0.0%", never "-0.0%" or "+0.0%").
    """

    def __init__(self, analysis: Analysis) -> None:
        self.percent = analysis.unit == "percent"
        ses = [m.se for m in analysis.models] + [c.se for c in analysis.comparisons]
        positive = [s for s in ses if s > 0 and math.isfinite(s)]
        smallest = min(positive) * (100.0 if self.percent else 1.0) if positive else 1.0
        self.decimals = int(min(6, max(1, -math.floor(math.log10(smallest)))))  # SE to >= 1 significant digit

    def num(self, x: float | None, *, signed: bool = False, unit: bool = True) -> str:
        if x is None or not math.isfinite(x):
            return "n/a"
        v = 100.0 * x if self.percent else x
        if round(v, self.decimals) == 0.0:  # a rounding-level difference (e.g. -1e-16) prints as 0.0,
            text = f"{0.0:.{self.decimals}f}"  # never "-0.0" or "+0.0"
        else:
            text = f"{v:+.{self.decimals}f}" if signed else f"{v:.{self.decimals}f}"
        return text + ("%" if self.percent and unit else "")

    def interval(self, low: float, high: float, *, signed: bool = False) -> str:
        """``(low, high)`` as the tables print an interval."""
        return f"({self.num(low, signed=signed)}, {self.num(high, signed=signed)})"

    def points(self, x: float) -> str:
        """A difference in words: '5.0 points' (percentage points) or '0.52'."""
        return f"{self.num(abs(x), unit=False)} points" if self.percent else self.num(abs(x))


def _p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _r(x: float | None, digits: int = 2) -> str:
    """A correlation or ratio to ``digits`` decimals ("0.00", never "-0.00"); "n/a" when undefined."""
    return f"{round(x, digits) + 0.0:.{digits}f}" if x is not None and math.isfinite(x) else "n/a"


# ---------------------------------------------------------------------------------------------- tables
def _model_rows(analysis: Analysis, st: Formatter) -> tuple[list[str], list[list[str]]]:
    level = f"{round(100 * analysis.confidence, 2):g}%"
    head = ["Model", "Questions"]
    if analysis.clustered:
        head.append("Clusters")
    show_k = any(m.k_max > 1 for m in analysis.models)
    if show_k:
        head.append("Answers per question")
    head += ["Mean (SE)", f"{level} CI"]
    if analysis.clustered:
        head += ["Naive SE", "Design effect"]
    rows = []
    for m in analysis.models:
        row = [m.model, f"{m.n:,}"]
        if analysis.clustered:
            row.append(f"{m.n_clusters:,}")
        if show_k:
            row.append(str(m.k) if m.k_min == m.k_max else f"{m.k_min}-{m.k_max}")
        row += [f"{st.num(m.mean)} ({st.num(m.se)})", st.interval(m.ci_low, m.ci_high)]
        if analysis.clustered:
            row += [st.num(m.se_naive), _r(m.deff)]
        rows.append(row)
    return head, rows


def _pair_rows(analysis: Analysis, st: Formatter) -> tuple[list[str], list[list[str]]]:
    level = f"{round(100 * analysis.confidence, 2):g}%"
    head = ["Model", "Baseline", "Model - Baseline (SE)", f"{level} CI", "Correlation", "df", "Questions", "p",
            f"p ({_ADJUST_NAME[analysis.adjust]})"]
    mcn = any(c.mcnemar_p_value is not None for c in analysis.comparisons)
    if mcn:
        head.append("McNemar p")
    rows = []
    for c in analysis.comparisons:
        row = [c.model, c.baseline, f"{st.num(c.diff, signed=True)} ({st.num(c.se)})",
               st.interval(c.ci_low, c.ci_high, signed=True), _r(c.correlation),
               _df(c.df), f"{c.n:,}", _p(c.p_value), _p(c.p_adjusted)]
        if mcn:
            row.append(_p(c.mcnemar_p_value))
        rows.append(row)
    return head, rows


def _markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(escape_markdown(h) for h in head) + " |",
             "|" + "|".join(" --- " if i < 2 else " ---: " for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(escape_markdown(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def _latex(head: list[str], rows: list[list[str]], caption: str) -> str:
    """A booktabs table; past :data:`LONGTABLE_ROWS` rows a ``longtable`` that repeats its header."""
    spec = "ll" + "r" * (len(head) - 2)
    body = [" & ".join(_latex_cell(x) for x in r) + r" \\" for r in rows]
    header = " & ".join(_latex_cell(h) for h in head) + r" \\"
    if len(rows) > LONGTABLE_ROWS:
        return "\n".join([rf"\begin{{longtable}}{{{spec}}}", rf"\caption{{{escape_latex(caption)}}} \\",
                          r"\toprule", header, r"\midrule", r"\endfirsthead", r"\toprule", header, r"\midrule",
                          r"\endhead", r"\bottomrule", r"\endlastfoot", *body, r"\end{longtable}"])
    return "\n".join([r"\begin{table}[t]", r"\centering", rf"\caption{{{escape_latex(caption)}}}",
                      rf"\begin{{tabular}}{{{spec}}}", r"\toprule", header, r"\midrule", *body,
                      r"\bottomrule", r"\end{tabular}", r"\end{table}"])


def models_table(analysis: Analysis, fmt: str = "markdown") -> str:
    """Per-model table in the paper's "mean (SE)" format (Tables 2-3): ``"markdown"`` or ``"latex"``."""
    head, rows = _model_rows(analysis, Formatter(analysis))
    if fmt == "latex":
        return _latex(head, rows, f"Mean score (standard error) on {analysis.name}")
    if fmt == "markdown":
        return _markdown(head, rows)
    raise EvalStatsError(f"fmt ({fmt!r}) must be 'markdown' or 'latex'; for CSV use models_csv()")


def comparisons_table(analysis: Analysis, fmt: str = "markdown") -> str:
    """Pairwise table in the paper's Table 5 format: difference (SE), CI, correlation, p-values."""
    head, rows = _pair_rows(analysis, Formatter(analysis))
    if fmt == "latex":
        return _latex(head, rows, f"Paired differences on {analysis.name}")
    if fmt == "markdown":
        return _markdown(head, rows)
    raise EvalStatsError(f"fmt ({fmt!r}) must be 'markdown' or 'latex'; for CSV use comparisons_csv()")


_MODEL_KEYS = ("model", "n", "n_clusters", "k", "mean", "se", "ci_low", "ci_high", "se_naive", "deff", "df",
               "method", "interval")
_PAIR_KEYS = ("model", "baseline", "n", "diff", "se", "ci_low", "ci_high", "z", "p_value", "p_adjusted",
              "correlation", "se_unpaired", "df", "method", "mcnemar_p", "wild_p_value", "interval")


def _csv(keys: tuple[str, ...], items: Any) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(keys)
    for item in items:
        cells = [getattr(item, k) for k in keys]
        writer.writerow([csv_safe(c) if isinstance(c, str) else
                         ("" if c is None or (isinstance(c, float) and not math.isfinite(c)) else repr(c))
                         for c in cells])
    return out.getvalue()


def models_csv(analysis: Analysis) -> str:
    """One row per model with the full-precision numbers (empty cell where undefined)."""
    return _csv(_MODEL_KEYS, analysis.models)


def comparisons_csv(analysis: Analysis) -> str:
    """One row per comparison with the full-precision numbers (empty cell where undefined)."""
    return _csv(_PAIR_KEYS, analysis.comparisons)


# ------------------------------------------------------------------------------------------------ words
def _verdict(c: PairResult, analysis: Analysis, st: Formatter) -> str:
    level = f"{round(100 * analysis.confidence, 2):g}%"
    alpha = 1.0 - analysis.confidence
    adjusted = len(analysis.comparisons) > 1 and analysis.adjust != "none"
    adj = f"adjusted p ({_ADJUST_NAME[analysis.adjust]}) {_p(c.p_adjusted)}" if adjusted else f"p {_p(c.p_value)}"
    ci = f"{level} CI {st.num(c.ci_low, unit=False)} to {st.num(c.ci_high, unit=False)}"
    pts = " points" if st.percent else ""
    if not (math.isfinite(c.ci_low) and math.isfinite(c.ci_high)) or (c.se == 0.0 and c.ci_low == c.ci_high):
        same = ("have the same mean score difference in every cluster" if c.n_clusters is not None else
                "differ by the same amount on every shared question")
        text = (f"{c.model} and {c.baseline} {same} ({st.num(c.diff, signed=True)}), so no interval can be "
                "estimated from these questions")
        if math.isfinite(c.p_value):
            text += f"; the exact sign-flip test gives p {_p(c.p_value)}" + (f" ({adj})" if adjusted else "")
        return text + "."
    raw_sig = c.ci_low > 0 or c.ci_high < 0
    sig = (math.isfinite(c.p_adjusted) and c.p_adjusted < alpha) if adjusted else raw_sig
    if sig:
        win, lose = (c.model, c.baseline) if c.diff > 0 else (c.baseline, c.model)
        lo, hi = (c.ci_low, c.ci_high) if c.diff > 0 else (-c.ci_high, -c.ci_low)
        text = (f"{win} beats {lose} by {st.points(c.diff)} ({level} CI {st.num(lo, unit=False)} to "
                f"{st.num(hi, unit=False)}; {adj})")
    elif raw_sig:  # significant alone, not after the adjustment: lead with the adjusted result
        text = (f"{c.model} and {c.baseline} cannot be told apart after {_ADJUST_NAME[analysis.adjust]} "
                f"adjustment for {len(analysis.comparisons)} comparisons (adjusted p {_p(c.p_adjusted)}; "
                f"unadjusted {_p(c.p_value)}): {c.model} - {c.baseline} = "
                f"{st.num(c.diff, signed=True, unit=False)}{pts} ({ci}, unadjusted)")
    else:
        text = (f"{c.model} and {c.baseline} cannot be told apart: {c.model} - {c.baseline} = "
                f"{st.num(c.diff, signed=True, unit=False)}{pts} ({ci}, an interval that includes zero; {adj})")
    caveats = []
    units = c.n_clusters if c.n_clusters is not None else c.n
    what = f"{c.n_clusters} clusters" if c.n_clusters is not None else f"{c.n} questions"
    if analysis.method == "cr2" and c.df < SMALL_DF:  # t on few degrees of freedom: honest but fragile
        caveats.append(f"with {what} this is fragile")
    elif analysis.method == "cr1" and units < SMALL_N:
        caveats.append(f"with {what} this is fragile" if c.n_clusters is None else
                       f"with only {what} the CR1 interval is optimistic")
    if c.wild_p_value is not None:
        caveats.append(f"wild cluster bootstrap p {_p(c.wild_p_value)}")
    if c.n_left_out:
        caveats.append(f"{c.n_left_out} questions answered by only one of them are left out")
    return text + ("; " + "; ".join(caveats) if caveats else "") + "."


def verdicts(analysis: Analysis) -> list[str]:
    """One plain-words sentence per comparison, e.g. "Breeze beats Atlas by 5.0 points (95% CI 0.5 to 9.5)"."""
    st = Formatter(analysis)
    return [_verdict(c, analysis, st) for c in analysis.comparisons]


def methods_paragraph(analysis: Analysis) -> str:
    """A paragraph naming the estimators used and their sources, for a paper's methods section."""
    z = f"{round(100 * analysis.confidence, 2):g}%"
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
    labels = sorted({m.interval for m in analysis.models if not m.interval.startswith(("t ", "CR", "CLT"))})
    if labels:
        parts.append("For 0/1 answers each model's interval is "
                     + (f"the {labels[0]} interval" if len(labels) == 1 else "by " + ", ".join(labels))
                     + (" (chosen automatically when fewer than 100 failures, effective ones with clusters, are "
                        "expected: Wilson 1927, Clopper & Pearson 1934, Korn & Graubard 1998, Survey Methodology "
                        "24(2))" if analysis.interval == "auto" else "") + ".")
    tango = sorted({c.interval for c in analysis.comparisons if c.interval.startswith("Tango")})
    if tango:
        parts.append("Paired differences of 0/1 scores with fewer than 100 discordant answers use Tango's score "
                     "interval and test on the discordant counts (Tango 1998, Statistics in Medicine 17(8)), "
                     "with clusters on design-effect-adjusted counts.")
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
        if any(c.mcnemar_p is not None for c in analysis.comparisons):
            parts.append("For 0/1 scores McNemar's test (exact binomial p, and the chi-square without continuity "
                         "correction) is reported as a check.")
        elif any(c.mcnemar_p_value is not None for c in analysis.comparisons):
            parts.append("For 0/1 scores McNemar's test (without continuity correction) is reported as a check.")
        if analysis.wild_bootstrap:
            parts.append(f"As a cross-check, each paired comparison also has a restricted wild cluster bootstrap "
                         f"p-value (null imposed; Webb six-point weights with 12 or fewer clusters, Rademacher "
                         f"otherwise; every weight vector when there are at most {analysis.n_boot:,}, else "
                         f"{analysis.n_boot:,} draws with seed {analysis.seed}; Cameron, Gelbach & Miller 2008; "
                         "Webb 2023; MacKinnon, Nielsen & Webb 2023).")
    if not cr2:
        parts.append("With fewer than a few hundred questions, normal intervals can be too narrow; for 0/1 scores "
                     "Wilson or Bayesian intervals are safer (Bowyer et al., ICML 2025, arXiv:2503.01747).")
    ver = version()
    parts.append("Computed with evalstats" + ("." if ver == "unknown" else f" {ver}."))
    return " ".join(parts)


def method_line(analysis: Analysis, *, what: str = "models") -> str:
    """One line naming how the numbers were made, for a figure's subtitle (so an exported PNG stands alone).

    E.g. ``"95% CI · CR2 t, clustered on 'repository' (12 clusters) · paired · Holm-adjusted · 500
    questions"``; ``what="models"`` leaves out the comparison settings.
    """
    level = f"{round(100 * analysis.confidence, 2):g}% CI"
    se = ("CR2 t" if analysis.method == "cr2" else "CR1 normal") if analysis.clustered else \
        ("t (n - 1 df)" if analysis.method == "cr2" else "normal (z)")
    if what == "models":
        labels = sorted({m.interval for m in analysis.models})
        se = labels[0] if len(labels) == 1 else se
    parts = [level, se + (f", clustered on '{analysis.cluster_col}' ({analysis.n_clusters:,} clusters)"
                          if analysis.clustered else "")]
    if what != "models":
        parts.append("paired" if analysis.paired else "unpaired")
        if len(analysis.comparisons) > 1 and analysis.adjust != "none":
            parts.append(f"{_ADJUST_NAME[analysis.adjust]}-adjusted")
    parts.append(f"{analysis.n_questions:,} questions")
    return " · ".join(parts)


# ------------------------------------------------------------------------------------------------- JSON
def _clean(x: Any) -> Any:
    """JSON-safe value: NaN and infinities become None (JSON has no NaN)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def settings(analysis: Analysis) -> dict[str, Any]:
    """Everything needed to reproduce the analysis, including the command line."""
    cmd = ["python -m evalstats_core analyze", analysis.source or _quote(analysis.name)]  # source: quoted paths
    table_file = analysis.format in ("long", "wide")  # harness logs and joined files: read by their importers
    if table_file:
        cmd.append(f"--layout {analysis.format}")
    for flag, value in (("--question-col", analysis.question_col), ("--model-col", analysis.model_col),
                        ("--score-col", analysis.score_col), ("--cluster-col", analysis.cluster_col)):
        if value is not None and table_file:
            cmd.append(f"{flag} {_quote(value)}")
    cmd += list(analysis.reading)  # --ignore-col, --runs-in-ids, --duplicates ...: how the file was read
    if analysis.baseline is not None:
        cmd.append(f"--baseline {_quote(analysis.baseline)}")
    if analysis.confidence != 0.95:
        cmd.append(f"--confidence {analysis.confidence!r}")
    if analysis.adjust != "holm":
        cmd.append(f"--adjust {analysis.adjust}")
    if not analysis.paired:
        cmd.append("--unpaired")
    if not analysis.clustered:
        cmd.append("--no-clusters")
    if analysis.method != "cr2":
        cmd.append(f"--cluster-se {analysis.method}")
    if analysis.interval != "auto":
        cmd.append(f"--interval {analysis.interval}")
    if analysis.wild_bootstrap:
        cmd.append("--wild-bootstrap")
        if analysis.n_boot != 9999:
            cmd.append(f"--n-boot {analysis.n_boot}")
        if analysis.seed != 0:
            cmd.append(f"--seed {analysis.seed}")
    return {
        "file": analysis.name, "format": analysis.format, "question_col": analysis.question_col,
        "model_col": analysis.model_col, "score_col": analysis.score_col, "cluster_col": analysis.cluster_col,
        "confidence": analysis.confidence, "baseline": analysis.baseline, "paired": analysis.paired,
        "clustered": analysis.clustered, "adjust": analysis.adjust, "cluster_se": analysis.method,
        "interval": analysis.interval, "wild_bootstrap": analysis.wild_bootstrap,
        "n_boot": analysis.n_boot if analysis.wild_bootstrap else None,
        "seed": analysis.seed if analysis.wild_bootstrap else None, "score_kind": analysis.score_kind,
        "n_questions": analysis.n_questions, "n_clusters": analysis.n_clusters, "notes": list(analysis.notes),
        "command": " ".join(cmd), "evalstats_version": version(),
    }


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(str(text))


def json_document(analysis: Analysis) -> dict[str, Any]:
    """The fixed-key document: ``models``, ``comparisons``, ``warnings``, ``settings`` (no NaN: null)."""
    models = [{"model": m.model, "n": m.n, "n_clusters": m.n_clusters, "k": m.k, "mean": _clean(m.mean),
               "se": _clean(m.se), "ci": [_clean(m.ci_low), _clean(m.ci_high)], "se_naive": _clean(m.se_naive),
               "deff": _clean(m.deff), "df": _clean(m.df), "method": m.method, "interval": m.interval}
              for m in analysis.models]
    pairs = [{"model": c.model, "baseline": c.baseline, "n": c.n, "diff": _clean(c.diff), "se": _clean(c.se),
              "ci": [_clean(c.ci_low), _clean(c.ci_high)], "z": _clean(c.z), "p_value": _clean(c.p_value),
              "p_adjusted": _clean(c.p_adjusted), "correlation": _clean(c.correlation),
              "se_unpaired": _clean(c.se_unpaired), "df": _clean(c.df), "method": c.method,
              "mcnemar_p": _clean(c.mcnemar_p), "wild_p_value": _clean(c.wild_p_value), "interval": c.interval}
             for c in analysis.comparisons]
    return {"models": models, "comparisons": pairs, "warnings": list(analysis.warnings),
            "settings": settings(analysis)}


def to_json(analysis: Analysis, *, indent: int | None = 2) -> str:
    """:func:`json_document` as strict JSON text (``allow_nan=False``: a NaN could never slip through)."""
    return json.dumps(json_document(analysis), indent=indent, allow_nan=False, ensure_ascii=False)


# ----------------------------------------------------------------------------------------------- render
def _header_line(analysis: Analysis) -> str:
    parts = [f"{analysis.n_questions:,} questions"]
    if analysis.clustered:
        parts.append(f"{analysis.n_clusters:,} clusters (column '{analysis.cluster_col}')")
    models = f"{len(analysis.models)} model" + ("" if len(analysis.models) == 1 else "s")
    parts += [models, f"{analysis.score_kind} scores", f"{round(100 * analysis.confidence, 2):g}% confidence"]
    return ", ".join(parts)


#: The CSV tables of a report, one per file (``--table`` on the command line).
CSV_TABLES = ("models", "comparisons")


def csv_tables(analysis: Analysis) -> dict[str, str]:
    """Every CSV table of the report, one per file: ``{"models.csv": ..., "comparisons.csv": ...}``.

    Each is a single table with one header row, so ``pandas.read_csv`` reads it as it is.
    """
    out = {"models.csv": models_csv(analysis)}
    if analysis.comparisons:
        out["comparisons.csv"] = comparisons_csv(analysis)
    return out


def render(analysis: Analysis, fmt: str = "markdown", *, table: str = "models") -> str:
    """The whole report: tables, verdicts, warnings and methods (``fmt`` one of :data:`FORMATS`).

    ``"csv"`` is one table per file: ``table`` picks it (``"models"`` or ``"comparisons"``); use
    :func:`csv_tables` for all of them.
    """
    if fmt == "json":
        return to_json(analysis) + "\n"
    if fmt == "csv":
        if table not in CSV_TABLES:
            raise EvalStatsError(f"table ({table!r}) must be one of {', '.join(CSV_TABLES)}")
        return models_csv(analysis) if table == "models" else comparisons_csv(analysis)
    if fmt == "markdown":
        out = [f"# Results: {escape_markdown(analysis.name)}", "", escape_markdown(_header_line(analysis)), "",
               "## Models", "", models_table(analysis, "markdown"), ""]
        if analysis.comparisons:
            out += ["## Comparisons", "", comparisons_table(analysis, "markdown"), "", "## Verdicts", ""]
            out += [f"- {escape_markdown(v)}" for v in verdicts(analysis)] + [""]
        if analysis.warnings:
            out += ["## Warnings", ""] + [f"- {escape_markdown(w)}" for w in analysis.warnings] + [""]
        out += ["## Methods", "", escape_markdown(methods_paragraph(analysis)), ""]
        if analysis.notes:
            out += ["## How the file was read", ""] + [f"- {escape_markdown(n)}" for n in analysis.notes] + [""]
        return "\n".join(out)
    if fmt == "latex":
        out = [f"% evalstats report for {escape_latex(analysis.name)}: {escape_latex(_header_line(analysis))}",
               "% needs \\usepackage{booktabs} (and \\usepackage{longtable} for long tables)",
               models_table(analysis, "latex"), ""]
        if analysis.comparisons:
            out += [comparisons_table(analysis, "latex"), ""]
            out += [r"\begin{itemize}"] + [rf"\item {escape_latex(v)}" for v in verdicts(analysis)] + [r"\end{itemize}", ""]
        out += [escape_latex(methods_paragraph(analysis)), ""]
        return "\n".join(out)
    raise EvalStatsError(f"format ({fmt!r}) must be one of {', '.join(FORMATS)}")


# ================================================================================= display tables
# The workbench's tables: the same numbers as the exports, printed by the same Formatter, as frames.

#: Interval methods for one model's mean (the command line's ``--interval`` choices, same rule):
#: ``auto`` is Wilson for 0/1 scores on fewer than 300 independent questions, else the t (or normal)
#: interval; the proportion methods apply only to 0/1 scores with one answer per independent question.
INTERVAL_METHODS: dict[str, str] = {
    "auto": "auto (Wilson below 300 questions)",
    "normal": "t (normal with CR1)",
    **INTERVAL_LABELS,  # one label per method: the same words as the table and the exports
}

#: Standard-error methods (the command line's ``--cluster-se``).
SE_METHODS: dict[str, str] = {
    "cr2": "CR2 + Satterthwaite t (default)",
    "cr1": "CR1 + normal (the paper's Eq. 1-8)",
}


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
    return pd.DataFrame(rows, columns=["model", "estimate", "se", "ci_low", "ci_high", "interval"])


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
    level = f"{round(100 * analysis.confidence, 2):g}% CI"
    by_model = intervals.set_index("model")
    rows = []
    for m in analysis.models:
        iv = by_model.loc[m.model]
        row = {"Model": m.model, "Mean (SE)": f"{f.num(m.mean)} ({f.num(m.se)})",
               level: f.interval(iv["ci_low"], iv["ci_high"]), "Questions": f"{m.n:,}"}
        if analysis.clustered:
            row["Clusters"] = f"{m.n_clusters:,}"
        row["K"] = str(m.k) if m.k_min == m.k_max else f"{m.k_min}-{m.k_max}"
        if analysis.clustered:
            row["Naive SE"] = f.num(m.se_naive)
            row["Design effect"] = _r(m.deff)
            row["Effective n"] = f"{m.n_eff:,.0f}" if math.isfinite(m.n_eff) else "n/a"
        row["Interval"] = iv["interval"]
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------- pairs
def comparisons_display(analysis: Analysis) -> pd.DataFrame:
    """The pairwise table (paper Table 5): difference (SE), CI, correlation, p, adjusted p, unpaired SE."""
    f = Formatter(analysis)
    level = f"{round(100 * analysis.confidence, 2):g}% CI"
    rows = []
    for c in analysis.comparisons:
        saved = 1.0 - c.se / c.se_unpaired if analysis.paired and c.se_unpaired > 0 else math.nan
        rows.append({
            "Model": c.model, "Baseline": c.baseline,
            "Model − Baseline (SE)": f"{f.num(c.diff, signed=True)} ({f.num(c.se)})",
            level: f.interval(c.ci_low, c.ci_high, signed=True),
            "Correlation": _r(c.correlation), "df": _df(c.df), "p": _p(c.p_value),
            f"p ({ADJUST_LABELS[analysis.adjust]})": _p(c.p_adjusted),
            **({"Wild bootstrap p": _p(c.wild_p_value)} if analysis.wild_bootstrap else {}),
            "Unpaired SE": f.num(c.se_unpaired),
            "Pairing saved": _saved(saved),
            "Questions": f"{c.n:,}",
        })
    return pd.DataFrame(rows)


def _df(df: float) -> str:
    """Degrees of freedom as shown: one decimal, or '∞' for the normal reference."""
    return "∞" if math.isinf(df) else f"{df:,.1f}"


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
    return pd.DataFrame({
        "label": [f"{c.model} − {c.baseline}" for c in analysis.comparisons],
        "estimate": [c.diff for c in analysis.comparisons],
        "ci_low": [c.ci_low for c in analysis.comparisons],
        "ci_high": [c.ci_high for c in analysis.comparisons],
        "significant": [bool(math.isfinite(c.p_adjusted) and c.p_adjusted < alpha) for c in analysis.comparisons],
    })


def mcnemar_display(analysis: Analysis) -> pd.DataFrame:
    """McNemar per binary pair: discordant counts b (only model right), c (only baseline right), chi2, p."""
    rows = []
    for c in analysis.comparisons:
        if c.only_model is None:
            continue
        rows.append({"Model": c.model, "Baseline": c.baseline, "Only model right (b)": c.only_model,
                     "Only baseline right (c)": c.only_baseline,
                     "χ² = (b − c)² / (b + c)": _r(c.mcnemar_statistic, 2) if c.mcnemar_statistic is not None else "n/a",
                     "p": _p(c.mcnemar_p_value), "exact p": _p(c.mcnemar_p)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- settings
def settings_document(analysis: Analysis, *, interval_method: str | None = None, file_name: str) -> dict[str, Any]:
    """The settings that reproduce the analysis: the report's settings (command included) and the file name.

    ``command`` is the exact ``python -m evalstats_core analyze`` call (with ``file_name`` as the path); it
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
        sig = bool(math.isfinite(c.p_adjusted) and c.p_adjusted < alpha)
        rows.append({"row": c.model, "column": c.baseline, "estimate": c.diff, "significant": sig})
        rows.append({"row": c.baseline, "column": c.model, "estimate": -c.diff, "significant": sig})
    return pd.DataFrame(rows, columns=["row", "column", "estimate", "significant"])


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
                     "significant": bool(math.isfinite(c.p_adjusted) and c.p_adjusted < alpha)})
    frame = pd.DataFrame(rows, columns=["label", "estimate", "ci_low", "ci_high", "significant"])
    return frame.sort_values("estimate", ascending=False, kind="stable").reset_index(drop=True)  # closest first
