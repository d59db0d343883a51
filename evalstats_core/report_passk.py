"""pass@k in every report format: the JSON blocks, the Markdown, LaTeX and HTML tables, the CSV table, and the rows
the workbench shows, all from one :class:`~evalstats_core.passk.PassAtSection` with one formatter.

==================  ==============================================================================
:func:`add_json`    ``models[].pass_at`` and ``comparisons[].pass_at`` (``[{k, estimate, se, ci, df}]``)
:func:`rows`        the two tables as plain rows (header, then one row per model or pair and k)
:func:`markdown`    the section of the Markdown report
:func:`latex`       the section of the LaTeX report (booktabs)
:func:`html`        the section of the HTML report
:func:`csv_table`   ``pass_at.csv``: every number at full precision
:func:`sentence`    one plain-words sentence that says what pass@k is and what the naive count would say
:func:`chart_frame` the tidy frame :func:`evalstats_core.charts.passk.pass_at_chart` draws
:func:`summary`     the chart's one-sentence summary
:func:`plan_rows`   a plan (:func:`~evalstats_core.passk.pass_at_plans`) as rows: each model's pilot and cheapest
                    option, then every option (``evalbars plan`` and the workbench print these)
:func:`plan_markdown`, :func:`plan_json`  the plan as ``evalbars plan`` prints it
:func:`plan_report` ``evalbars plan``: a file's plans (:func:`~evalstats_core.passk.pass_at_plans`) in one format
==================  ==============================================================================
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from .analysis import _data_frame
from .escape import csv_safe, escape_html, escape_latex, escape_markdown
from .passk import PassAtPlans, PassAtSection, pass_at_plans
from .vocabulary import Formatter, fmt_df, fmt_p, level

__all__ = ["add_json", "rows", "markdown", "latex", "html", "csv_table", "sentence", "chart_frame", "summary", "CSV_KEYS",
           "plan_rows", "plan_sentence", "plan_markdown", "plan_json", "plan_report"]

#: The columns of ``pass_at.csv``: one row per model and k, then one per pair and k (``baseline`` empty for a model).
CSV_KEYS = ("model", "baseline", "k", "estimate", "se", "ci_low", "ci_high", "df", "p_value", "n_questions",
            "n_samples", "n_clusters", "any_of_n")


def _clean(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _block(r: Any) -> dict[str, Any]:
    out = {"k": r.k, "estimate": _clean(r.estimate), "se": _clean(r.se), "ci": [_clean(r.ci.low), _clean(r.ci.high)],
           "df": _clean(r.df), "n": r.n_questions}
    if hasattr(r, "p_value"):
        out["p_value"] = _clean(r.p_value)
    else:
        out["n_samples"], out["any_of_n"] = r.n_samples, _clean(r.any_of_n)
    return out


def add_json(doc: dict[str, Any], section: PassAtSection) -> None:
    """Add ``pass_at`` to every model and comparison of the JSON document ``doc`` and its ``settings``."""
    by_model = {m.model: m for m in section.models}
    for entry in doc["models"]:
        entry["pass_at"] = [_block(r) for r in by_model[entry["model"]].results]
    by_pair = {(p.model, p.baseline): p for p in section.comparisons}
    for entry in doc["comparisons"]:
        pair = by_pair.get((entry["model"], entry["baseline"]))
        if pair is not None:
            entry["pass_at"] = [_block(r) for r in pair.results]
    doc["settings"]["pass_at"] = list(section.ks)


def _formatter(section: PassAtSection) -> Formatter:
    """Percent, with as many decimals as the smallest standard error needs for one significant digit (the
    report's rule, :class:`~evalstats_core.vocabulary.Formatter`)."""
    ses = [r.se for m in (*section.models, *section.comparisons) for r in m.results if r.se > 0 and math.isfinite(r.se)]
    smallest = 100.0 * min(ses) if ses else 1.0
    return Formatter(percent=True, decimals=int(min(6, max(1, -math.floor(math.log10(smallest))))))


def rows(section: PassAtSection) -> tuple[list[list[str]], list[list[str]]]:
    """The models' table and the comparisons' table as rows of text, each starting with its header."""
    f = _formatter(section)
    ci = f"{level(section.confidence)} CI"
    models = [["Model", "k", "pass@k", "SE", ci, "df", f"any of {section.n_samples} (naive)"]]
    for m in section.models:
        for r in m.results:
            models.append([m.model, str(r.k), f.num(r.estimate), f.diff(r.se, signed=False),
                           f.interval(r.ci.low, r.ci.high), fmt_df(r.df), f.num(r.any_of_n)])
    pairs = [["Comparison", "k", "difference", "SE", ci, "df", "p"]]
    for p in section.comparisons:
        for r in p.results:
            pairs.append([f"{p.model} − {p.baseline}", str(r.k), f.diff(r.estimate), f.diff(r.se, signed=False),
                          f.diff_interval(r.ci.low, r.ci.high), fmt_df(r.df), fmt_p(r.p_value)])
    return models, (pairs if len(pairs) > 1 else [])


def sentence(section: PassAtSection) -> str:
    """What the section's numbers are, in one paragraph (every format prints it)."""
    clustered = "clustered by the file's clusters, " if section.clustered else ""
    return (f"pass@k is the chance that at least one of k sampled answers to a question passes, averaged over "
            f"questions: Chen et al. (2021)'s unbiased estimate 1 - C(n - c, k) / C(n, k) from each question's n = "
            f"{section.n_samples} samples with c passes, with a CR2 standard error over questions ({clustered}t on "
            f"Bell-McCaffrey degrees of freedom); differences are paired by question. The naive count of questions "
            f"with any of their {section.n_samples} samples passing is pass@{section.n_samples}, which over-states "
            f"pass@k for every smaller k. pass@1 is each model's mean with its standard error; its interval here is "
            f"the plain t one, which the models table may widen near 0% or 100%.")


def _md_table(table: list[list[str]]) -> list[str]:
    head, *body = table
    out = ["| " + " | ".join(escape_markdown(h) for h in head) + " |", "| --- | " + "---: | " * (len(head) - 1)]
    out[1] = out[1].rstrip()
    return out + ["| " + " | ".join(escape_markdown(c) for c in row) + " |" for row in body]


def markdown(section: PassAtSection) -> str:
    """The ``## pass@k`` section of the Markdown report."""
    models, pairs = rows(section)
    out = ["## pass@k", "", escape_markdown(sentence(section)), "", *_md_table(models), ""]
    if pairs:
        out += ["### pass@k comparisons", "", *_md_table(pairs), ""]
    return "\n".join(out)


def _latex_table(table: list[list[str]], caption: str) -> list[str]:
    head, *body = table
    cols = "l" + "r" * (len(head) - 1)
    out = [r"\begin{table}[t]", r"\centering", rf"\caption{{{escape_latex(caption)}}}", rf"\begin{{tabular}}{{{cols}}}",
           r"\toprule", " & ".join(escape_latex(h) for h in head) + r" \\", r"\midrule"]
    out += [" & ".join(escape_latex(c) for c in row) + r" \\" for row in body]
    return out + [r"\bottomrule", r"\end{tabular}", r"\end{table}"]


def latex(section: PassAtSection) -> str:
    """The pass@k tables for the LaTeX report (booktabs, as the report's own table)."""
    models, pairs = rows(section)
    out = ["", "% pass@k: " + sentence(section).replace("\n", " "), *_latex_table(models, "pass@k of each model")]
    if pairs:
        out += _latex_table(pairs, "pass@k differences, paired by question")
    return "\n".join(out) + "\n"


def _html_table(table: list[list[str]]) -> str:
    head, *body = table
    out = ["<table><thead><tr>" + "".join(f"<th>{escape_html(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{escape_html(c)}</td>" for c in row) + "</tr>" for row in body]
    return "".join(out) + "</tbody></table>"


def html(section: PassAtSection) -> list[str]:
    """The parts of the HTML report's pass@k section."""
    models, pairs = rows(section)
    out = ["<h2>pass@k</h2>", f"<p>{escape_html(sentence(section))}</p>", _html_table(models)]
    if pairs:
        out += ["<h3>pass@k comparisons</h3>", _html_table(pairs)]
    return out


def csv_table(section: PassAtSection) -> str:
    """``pass_at.csv``: every model and pair at every k, at full precision (empty where undefined)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_KEYS)
    for m in section.models:
        for r in m.results:
            w.writerow([csv_safe(m.model), "", r.k, r.estimate, r.se, r.ci.low, r.ci.high, r.df, "", r.n_questions,
                        r.n_samples, "" if r.n_clusters is None else r.n_clusters, r.any_of_n])
    for p in section.comparisons:
        for r in p.results:
            w.writerow([csv_safe(p.model), csv_safe(p.baseline), r.k, r.estimate, r.se, r.ci.low, r.ci.high, r.df,
                        r.p_value, r.n_questions, "", "" if r.n_clusters is None else r.n_clusters, ""])
    return buf.getvalue()


def chart_frame(section: PassAtSection) -> Any:
    """One row per model and k: ``model, k, estimate, ci_low, ci_high, any_of_n`` (a pandas DataFrame)."""
    rows_ = [(m.model, r.k, r.estimate, r.ci.low, r.ci.high, r.any_of_n) for m in section.models for r in m.results]
    return _data_frame(rows_, columns=["model", "k", "estimate", "ci_low", "ci_high", "any_of_n"])


def summary(section: PassAtSection) -> str:
    """The chart's one sentence: the best model at the largest k asked for, and what the naive count says."""
    f = _formatter(section)
    k = section.ks[-1]
    best = max(section.models, key=lambda m: m.results[-1].estimate)
    r = best.results[-1]
    text = (f"pass@k of each model at k = {', '.join(map(str, section.ks))} with {level(section.confidence)} "
            f"intervals; highest at k = {k}: {best.model} at {f.num(r.estimate)} ({f.num(r.ci.low)} to "
            f"{f.num(r.ci.high)}).")
    if k < section.n_samples:
        text += (f" The hollow points at the right are the naive share of questions with any of their "
                 f"{section.n_samples} samples passing ({f.num(r.any_of_n)} for {best.model}): pass@"
                 f"{section.n_samples}, above pass@{k}.")
    return text


# ---------------------------------------------------------------------------------------------------- plan
def _plan_formatter(plans: PassAtPlans) -> Formatter:
    """Points with the decimals the target half-width needs (at least one)."""
    return Formatter(percent=True, decimals=int(min(6, max(1, -math.floor(math.log10(100.0 * plans.half_width))))))


def plan_rows(plans: PassAtPlans) -> tuple[list[list[str]], list[list[str]]]:
    """Each model's pilot and cheapest option, then every option, as rows of text each starting with its header."""
    f = _plan_formatter(plans)
    pilot = [["Model", "Half-width now", "Design effect", "Cheapest: samples a question", "Questions",
              "Samples in all"]]
    options = [["Model", "Samples a question", "Questions", "Samples in all"]]
    for m in plans.models:
        p, c = m.plan, m.plan.cheapest
        pilot.append([m.model, f.points(p.half_width_now), f"{p.design_effect:.2f}", str(c.samples),
                      f"{c.questions:,}", f"{c.total:,}"])
        options += [[m.model, str(o.samples), f"{o.questions:,}", f"{o.total:,}"] for o in p.options]
    return pilot, options


def plan_sentence(plans: PassAtPlans) -> str:
    """What the plan's numbers are, in plain words."""
    f = _plan_formatter(plans)
    clustered = " with the file's design effect (its clusters)" if plans.clustered else ""
    return (f"Questions, and samples a question, for pass@{plans.k}'s {level(plans.confidence)} interval to reach "
            f"a half-width of {f.points(plans.half_width)}, each model's questions and {plans.n_samples} samples a "
            f"question as the pilot{clustered}: the spread between questions only more questions reduce, a "
            f"question's sampling variance more samples reduce too (Miller 2024, Eq. 9, t on the questions' degrees "
            f"of freedom). The cheapest option needs the fewest samples in all.")


def plan_markdown(plans: PassAtPlans) -> str:
    """``evalbars plan``'s Markdown: the sentence and both tables."""
    pilot, options = plan_rows(plans)
    return "\n".join([f"## Plan for pass@{plans.k}", "", escape_markdown(plan_sentence(plans)), "",
                      *_md_table(pilot), "", "### Every option", "", *_md_table(options), ""])


def plan_json(plans: PassAtPlans) -> dict[str, Any]:
    """``evalbars plan --format json``: every number at full precision."""
    def option(o: Any) -> dict[str, int]:
        return {"samples": o.samples, "questions": o.questions, "total": o.total}

    return {"k": plans.k, "half_width": plans.half_width, "confidence": plans.confidence,
            "n_samples": plans.n_samples, "clustered": plans.clustered,
            "models": [{"model": m.model, "half_width_now": _clean(m.plan.half_width_now),
                        "between": m.plan.between, "within": m.plan.within, "design_effect": m.plan.design_effect,
                        "cheapest": option(m.plan.cheapest), "options": [option(o) for o in m.plan.options]}
                       for m in plans.models]}


def plan_report(data: Any, k: Any, half_width: float, *, samples: Any = None, use_clusters: bool = True,
                confidence: float = 0.95, fmt: str = "markdown") -> str:
    """``evalbars plan``'s output: :func:`~evalstats_core.passk.pass_at_plans` of ``data``, as Markdown or JSON."""
    plans = pass_at_plans(data, k, half_width, samples=samples, use_clusters=use_clusters, confidence=confidence)
    return json.dumps(plan_json(plans), indent=2) + "\n" if fmt == "json" else plan_markdown(plans)
