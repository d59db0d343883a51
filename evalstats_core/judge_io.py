"""Human labels into an analysis, and the judge-corrected numbers out of it (CLI, JSON, Markdown, LaTeX, CSV).

==============================  =====================================================================
``detect_human_col(dataset)``   the file's human-label column by name (human, gold, label...), or None
``human_matrix(...)``           the labels as a (questions x models) array, NaN where unlabelled
``labels_file_matrix(...)``     the same from a separate labels file joined on question and model id
                                (these three read and validate in :mod:`evalstats_core.human_labels`)
``judge_section(...)``          every model's :func:`~evalstats_core.judge.ppi_mean` and agreement, and
                                every comparison's :func:`~evalstats_core.judge.ppi_compare`
``add_to_report(text, ...)``    the rendered report with the judge section (JSON: a ``judge`` object per
                                model and comparison, ``agreement`` per model)
==============================  =====================================================================
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ._results import excludes_zero
from .data import question_scores
from .errors import EvalStatsError, EvalStatsWarning
from .escape import escape_latex, escape_markdown
from .human_labels import (  # noqa: F401 - the labels' reader, re-exported (the workbench, tests)
    HUMAN_NAMES,
    NotLabels,
    check_scale,
    detect_human_col,
    human_matrix,
    labels_file_matrix,
)
from .judge_strata import ppi_compare_stratified, ppi_stratified, selection_check

__all__ = ["HUMAN_NAMES", "JudgeSection", "detect_human_col", "human_matrix", "labels_file_matrix",
           "judge_section", "Uncorrected", "human_scorers", "chart_subtitle", "add_to_report", "add_json_blocks", "report_frame", "section_intro", "judge_json", "verdict_sentences", "section_for", "intervals_frame",
           "model_sentence", "agreement_frame", "budget_frame"]

@dataclass(frozen=True, slots=True)
class JudgeSection:
    """The judge-corrected results of one analysis.

    ``models``: ``(model, JudgeEstimate, Agreement)`` per model with labels; ``comparisons``:
    ``(model, baseline, JudgeEstimate)`` per comparison with labels on both; ``source``: where the
    labels came from (``"column 'human'"`` or ``"labels.csv"``).
    """

    models: tuple
    comparisons: tuple
    source: str
    budgets: dict = None  # type: ignore[assignment]  # model -> LabelBudget (target: today's half-width)
    refused: tuple = ()  # Uncorrected per model and comparison with too few labels: no number is shown
    column: str | None = None  # the file's column the labels came from (None: a scorer or a labels file)
    named: str | None = None  # human_col as a command must name it (a scorer, or a column not found by its name)
    selection: tuple = ()  # sentences: labels that look chosen by the judge's verdict (or by cluster)
    pair_budgets: dict = None  # type: ignore[assignment]  # (model, baseline) -> LabelBudget of the difference

    @property
    def n_labels(self) -> int:
        """Human labels read: labelled answers over every model (corrected or not)."""
        return (sum(e.n_labeled for _, e, _ in self.models)
                + sum(u.n_labeled for u in self.refused if u.baseline is None))


#: Fewest human labels (for a pair: questions labelled for both models) the correction needs.
MIN_CORRECTED = 2
#: The half-width a refused number's label count is planned for when nothing is corrected to take it from.
DEFAULT_TARGET = 0.05


@dataclass(frozen=True, slots=True)
class Uncorrected:
    """A model (``baseline`` None) or a comparison whose judge scores cannot be corrected: too few labels.

    ``n_labeled`` human labels (for a pair: questions labelled for both models) of ``n_total`` questions;
    ``needed``: labels for an interval of ``half_width`` by :func:`~evalstats_core.judge_budget.labels_needed`
    (None: not even every question reaches it); ``basis`` what the plan rests on. No number of the judge is
    reported in its place (:attr:`line` says why and what it needs).
    """

    model: str
    baseline: str | None
    n_labeled: int
    n_total: int
    needed: int | None
    half_width: float
    basis: str

    @property
    def what(self) -> str:
        return self.model if self.baseline is None else f"{self.model} - {self.baseline}"

    @property
    def reason(self) -> str:
        """Why there is no number, and the labels it needs (without the model's name)."""
        if self.baseline is None:
            have = f"{self.n_labeled:,} of {self.n_total:,} answers labelled by a human"
            least = f"at least {MIN_CORRECTED}"
        else:
            have = f"{self.n_labeled:,} of {self.n_total:,} questions labelled for both models"
            least = f"at least {MIN_CORRECTED} such questions"
        plan = (f"about {self.needed:,} for an interval of ±{100 * self.half_width:.1f} points"
                if self.needed is not None else f"labelling every question does not reach ±{100 * self.half_width:.1f} points")
        return (f"not corrected: {have}; the correction needs {least}, {plan} ({self.basis}); the judge's own "
                "number is not reported")

    @property
    def line(self) -> str:
        return f"{self.what}: {self.reason}"


def judge_section(analysis: Any, table: Any, human: np.ndarray, source: str) -> JudgeSection:
    """Every model's corrected estimate and agreement, every comparison's corrected difference; a model with
    fewer than :data:`MIN_CORRECTED` labels (a pair with fewer questions labelled for both) is refused
    (:class:`Uncorrected`, with the labels it needs), never given the judge's number."""
    # the judge's modules (scipy.optimize): only when human labels exist
    from .judge import ppi_compare, ppi_mean
    from .judge_agree import judge_agreement
    from .judge_budget import labels_needed

    codes = table.cluster_codes if analysis.clustered else None
    index = {m: i for i, m in enumerate(table.models)}
    models, pairs, budgets, short, short_pairs, chosen, flagged = [], [], {}, [], [], [], {}
    pair_budgets: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for m in analysis.models:
            j = index[m.model]
            rows = table.answered[:, j]
            k = int(np.count_nonzero(~np.isnan(human[rows, j])))
            if k < MIN_CORRECTED:
                short.append((m.model, k, int(rows.sum())))
                continue
            cl = None if codes is None else codes[rows]
            est = ppi_mean(table.scores[rows, j], human[rows, j], clusters=cl, confidence=analysis.confidence)
            sel = selection_check(table.scores[rows, j], human[rows, j], clusters=cl)
            if sel.flagged or sel.by_cluster:
                chosen.append(sel.sentence(m.model, clustered=cl is not None))
            if sel.flagged:  # labels chosen by the verdict: the stratified estimate stays unbiased
                stratified = ppi_stratified(table.scores[rows, j], human[rows, j], confidence=analysis.confidence,
                                            clusters=cl)
                if stratified is not None:
                    est, flagged[m.model] = _as_estimate(est, stratified), True
            models.append((m.model, est, judge_agreement(table.scores[rows, j], human[rows, j],
                                                        confidence=analysis.confidence)))
            budgets[m.model] = labels_needed(max(est.half_width, 1e-9), n_total=max(est.n_total, 3),
                                             judge=table.scores[rows, j], human=human[rows, j], clusters=cl,
                                             confidence=analysis.confidence) if est.n_labeled >= 3 else None
        for c in analysis.comparisons:
            a, b = index[c.model], index[c.baseline]
            rows = table.answered[:, a] & table.answered[:, b]
            ha, hb = human[rows, a], human[rows, b]
            k = int(np.count_nonzero(~np.isnan(ha - hb)))
            if k < MIN_CORRECTED:
                short_pairs.append((c.model, c.baseline, k, int(rows.sum())))
                continue
            cl = None if codes is None else codes[rows]
            est = ppi_compare(table.scores[rows, a], ha, table.scores[rows, b], hb, clusters=cl,
                              confidence=analysis.confidence)
            if flagged.get(c.model) or flagged.get(c.baseline):
                stratified = ppi_compare_stratified(table.scores[rows, a], ha, table.scores[rows, b], hb,
                                                    confidence=analysis.confidence, clusters=cl)
                if stratified is None:
                    chosen.append(f"{c.model} - {c.baseline}: labels chosen by the judge's verdict, but some pair of "
                                  "verdicts has no question labelled for both models, so the difference stays the "
                                  "PPI++ one and may be biased; label a random subset of the questions")
                else:
                    est = _as_estimate(est, stratified)
            pairs.append((c.model, c.baseline, est))
            if est.n_labeled >= 3:  # the label plan of the difference itself (the corrected gate's "would tell")
                pair_budgets[(c.model, c.baseline)] = labels_needed(
                    max(est.half_width, 1e-9), n_total=max(est.n_total, 3),
                    judge=table.scores[rows, a] - table.scores[rows, b], human=ha - hb, clusters=cl,
                    confidence=analysis.confidence)
        refused = _refused(short, short_pairs, models, pairs, budgets, table, human, analysis.confidence,
                           labels_needed)
    return JudgeSection(tuple(models), tuple(pairs), source, budgets, refused, selection=tuple(chosen),
                        pair_budgets=pair_budgets)


def _as_estimate(est: Any, s: Any) -> Any:
    """The PPI estimate ``est`` with the stratified numbers ``s`` in place (its judge-only and human-only intervals
    kept; ``lam`` nan: within a verdict the judge's score is constant)."""
    return replace(est, estimate=s.estimate, se=s.se, df=s.df, ci_low=s.ci_low, ci_high=s.ci_high, lam=math.nan,
                   stratified=True)


def _target(estimates: list) -> float:
    """The half-width a refused number is planned for: the corrected ones' median, else :data:`DEFAULT_TARGET`."""
    widths = [e.half_width for e in estimates if math.isfinite(e.half_width) and e.half_width > 0]
    return float(np.median(widths)) if widths else DEFAULT_TARGET


def _refused(short: list, short_pairs: list, models: list, pairs: list, budgets: dict, table: Any,
             human: np.ndarray, confidence: float, labels_needed: Any) -> tuple:
    """:class:`Uncorrected` for each model and pair with too few labels, with the labels it needs."""
    if not short and not short_pairs:
        return ()
    index = {m: i for i, m in enumerate(table.models)}
    answered = table.answered & ~np.isnan(human)
    pool_f, pool_h = table.scores[answered], human[answered]  # the same judge's labelled answers, every model

    def plan(model: str, hw: float) -> tuple[int | None, str]:
        own = budgets.get(model)
        if own is not None:
            b = own.for_target(hw)
            return (b.with_judge if b.with_judge is not None else b.without_judge), "planned from its labels"
        j = index[model]
        f = table.scores[table.answered[:, j], j]
        n = max(int(f.size), 3)
        if pool_h.size >= 3:
            b = labels_needed(hw, n_total=n, judge=np.concatenate([f, pool_f]),
                              human=np.concatenate([np.full(f.size, np.nan), pool_h]), confidence=confidence)
            basis = "planned from the judge's agreement on the other labelled answers"
        else:
            rate = float(np.clip(np.mean(f), 0.05, 0.95)) if f.size and np.all((f == 0) | (f == 1)) else 0.5
            b = labels_needed(hw, n_total=n, sensitivity=0.5, specificity=0.5, pass_rate=rate,
                              confidence=confidence)
            basis = "planned for the humans alone: no labels yet show how well the judge agrees"
        need = b.with_judge if b.with_judge is not None else b.without_judge
        return (None if need is None or need > n else max(int(need), MIN_CORRECTED)), basis

    out = []
    hw = _target([e for _, e, _ in models])
    for model, k, n in short:
        need, basis = plan(model, hw)
        out.append(Uncorrected(model, None, k, n, need, hw, basis))
    hw = _target([e for _, _, e in pairs])
    for model, base, k, n in short_pairs:
        (na, basis), (nb, _) = plan(model, hw), plan(base, hw)
        need = None if na is None or nb is None else max(na, nb)
        out.append(Uncorrected(model, base, k, n, need, hw, basis.replace("planned", "planned per model")))
    return tuple(out)


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def judge_json(est: Any) -> dict:
    """The ``judge`` object: ``estimate, se, ci, df, lam, n_labeled, n_total, judge_only, human_only``."""
    return {"stratified": est.stratified, "estimate": _num(est.estimate), "se": _num(est.se), "ci": [_num(est.ci_low), _num(est.ci_high)],
            "df": _num(est.df), "lam": _num(est.lam), "n_labeled": est.n_labeled, "n_total": est.n_total,
            "judge_only": [_num(est.judge_only.low), _num(est.judge_only.high)],
            "human_only": [_num(est.human_only.low), _num(est.human_only.high)]}


def refused_json(u: Uncorrected) -> dict:
    """The ``judge`` object of a model or comparison that could not be corrected (no number in its place)."""
    return {"corrected": False, "n_labeled": u.n_labeled, "n_total": u.n_total, "labels_needed": u.needed,
            "half_width": _num(u.half_width), "reason": u.reason}


def agreement_json(a: Any) -> dict:
    """The ``agreement`` object of a model."""
    return {"n": a.n, "accuracy": _num(a.accuracy), "sensitivity": _num(a.sensitivity),
            "specificity": _num(a.specificity), "kappa": _num(a.kappa),
            "kappa_ci": [_num(a.kappa_ci.low), _num(a.kappa_ci.high)], "weighted_kappa": _num(a.weighted_kappa),
            "spearman": _num(a.spearman), "true_pass": a.true_pass, "false_pass": a.false_pass,
            "false_fail": a.false_fail, "true_fail": a.true_fail}


def verdict_sentences(section: JudgeSection) -> list[str]:
    """One sentence per comparison, read from the corrected interval (or why it has none)."""
    out = [f"{u.line}." for u in section.refused if u.baseline is not None]
    for model, base, est in section.comparisons:
        lo, hi = 100 * est.ci_low, 100 * est.ci_high
        if excludes_zero(est.ci_low, est.ci_high):
            who = model if est.estimate > 0 else base
            verdict = f"{who} is ahead by the human-corrected estimate"
        else:
            verdict = f"the human-corrected interval includes 0: {model} and {base} cannot be told apart"
        out.append(f"{model} - {base}: {100 * est.estimate:+.1f} points, interval ({lo:+.1f}, {hi:+.1f}) from "
                   f"{est.n_labeled:,} labelled questions (judge alone: {100 * (est.judge_mean):+.1f}); {verdict}")
    return out


def _rows(section: JudgeSection) -> list[list[str]]:
    rows = []
    for model, est, agr in section.models:
        rows.append([model, f"{100 * est.estimate:.1f}", f"{100 * est.ci_low:.1f} to {100 * est.ci_high:.1f}",
                     f"{100 * est.judge_only.low:.1f} to {100 * est.judge_only.high:.1f}",
                     f"{100 * est.human_only.low:.1f} to {100 * est.human_only.high:.1f}",
                     f"{est.n_labeled:,} / {est.n_total:,}", f"{est.lam:.2f}", f"{agr.kappa:.2f}"])
    for u in section.refused:  # no number: the judge's alone would be biased
        if u.baseline is None:
            need = f"needs {MIN_CORRECTED}+" + (f" (~{u.needed:,})" if u.needed is not None else "")
            rows.append([u.model, "not corrected", need, "", "", f"{u.n_labeled:,} / {u.n_total:,}", "", ""])
    return rows


_HEAD = ["model", "corrected %", "corrected CI", "judge-only CI", "human-only CI", "labelled", "lambda", "kappa"]


def add_json_blocks(doc: dict, section: JudgeSection) -> dict:
    """``doc`` (a report's JSON document) with a ``judge`` object per model and comparison with labels,
    ``agreement`` per model, and ``settings.human_labels``; changed in place and returned."""
    by_model = {m: (e, a) for m, e, a in section.models}
    by_pair = {(m, b): e for m, b, e in section.comparisons}
    refused = {(u.model, u.baseline): u for u in section.refused}
    for row in doc["models"]:
        if row["model"] in by_model:
            e, a = by_model[row["model"]]
            row["judge"], row["agreement"] = {"corrected": True, **judge_json(e)}, agreement_json(a)
        elif (row["model"], None) in refused:
            row["judge"] = refused_json(refused[(row["model"], None)])
    for row in doc["comparisons"]:
        if (row["model"], row["baseline"]) in by_pair:
            row["judge"] = {"corrected": True, **judge_json(by_pair[(row["model"], row["baseline"])])}
        elif (row["model"], row["baseline"]) in refused:
            row["judge"] = refused_json(refused[(row["model"], row["baseline"])])
    doc["settings"]["human_labels"] = section.source
    return doc


def section_intro(section: JudgeSection) -> str:
    """The paragraph that opens the judge section of every report format."""
    which = ("Every estimate, interval, verdict and ranking above is the judge's score corrected by them" if
             not section.refused else "Every number above is the judge's score corrected by them, or withheld "
             "where too few labels exist to correct it (the judge's alone would be biased)")
    return (f"Human labels from {section.source}. {which}: the prediction-powered (PPI++) estimate lam * mean(judge, unlabelled) + "
            "mean(human - lam * judge, labelled), with the CR2 standard error of its influence values and "
            "Satterthwaite degrees of freedom (Angelopoulos et al. 2023); for 0/1 scores a model's interval widens "
            "each arm by the Jeffreys limits of the judge's false-pass and false-fail shares among the labelled "
            "questions (MOVER, Zou & Donner 2008), so it can be asymmetric. Where the human labels alone give the "
            "narrower interval (a judge that tells them little), the number is theirs (lam = 0)."
            f"{_stratified_words(section)} The judge's own intervals are in the judge-only column.")


def _stratified_words(section: JudgeSection) -> str:
    """The intro's sentence on estimates stratified by the judge's verdict (empty when none is)."""
    chosen = [e for _, e, _ in section.models] + [e for _, _, e in section.comparisons]
    if not any(e.stratified for e in chosen):
        return ""
    robust = (", with the CR2 variance over the clusters" if any(e.stratified and e.clustered for e in chosen)
              else "")
    return (" Where the labels look chosen by the judge's verdict (see the warnings), the estimate is stratified "
            "by the verdict instead: the labels' mean within the judge's passes and within its fails, weighted by "
            f"their counts{robust}.")


def report_frame(section: JudgeSection) -> Any:
    """The judge table of the reports (Markdown, LaTeX, HTML) as a frame: one row per model, as text."""
    import pandas as pd  # heavy: only for a judge's table

    return pd.DataFrame(_rows(section), columns=_HEAD)


def add_to_report(text: str, fmt: str, section: JudgeSection, *, table: str = "models", wide: bool = True) -> str:
    """The report ``text`` (as :func:`~evalstats_core.report.render` made it) with the judge section (LaTeX:
    :func:`latex_section`, ``wide`` as the report's tables)."""

    if fmt == "json":
        doc = add_json_blocks(json.loads(text), section)
        return json.dumps(doc, indent=2, allow_nan=False, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return _csv(section, table) if table in ("judge", "judge_models") else text
    rows = _rows(section)
    if fmt == "markdown":
        out = ["", "## Judge corrected by human labels", "", escape_markdown(section_intro(section)),
               "",
               "| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
        out += ["| " + " | ".join(escape_markdown(c) for c in r) + " |" for r in rows] + [""]
        out += [f"- {escape_markdown(s)}" for s in verdict_sentences(section)]
        return text.rstrip("\n") + "\n" + "\n".join(out) + "\n"
    return text.rstrip("\n") + "\n\n" + latex_section(section, wide=wide) + "\n"


def latex_section(section: JudgeSection, *, wide: bool = True) -> str:
    """The judge table as a LaTeX float that fits a one-column page and a two-column one (``table*``; ``wide=False``:
    ``table``, one column of two), with its caption, then the comparisons' sentences. Needs booktabs and tabularx."""

    lines = []
    for model, est, _ in section.models:
        lines.append(" & ".join([
            escape_latex(model), f"{100 * est.estimate:.1f} [{100 * est.ci_low:.1f}, {100 * est.ci_high:.1f}]",
            f"[{100 * est.judge_only.low:.1f}, {100 * est.judge_only.high:.1f}]",
            f"[{100 * est.human_only.low:.1f}, {100 * est.human_only.high:.1f}]", f"{est.n_labeled:,}",
            f"{est.lam:.2f}"]) + r" \\")
    for u in section.refused:
        if u.baseline is None:  # no number: the judge's alone would be biased
            need = f", needs about {u.needed:,}" if u.needed is not None else ""
            lines.append(escape_latex(u.model) + r" & \multicolumn{3}{l}{" + escape_latex(f"not corrected{need}")
                         + f"}} & {u.n_labeled:,} & \\\\")
    n_total = max([e.n_total for _, e, _ in section.models] + [u.n_total for u in section.refused] + [0])
    level = next((f"{round(100 * e.confidence, 2):g}%" for _, e, _ in section.models), "95%")
    caption = escape_latex(f"Judge scores corrected by human labels ({section.source}; of {n_total:,} questions): "
                           f"the PPI++ estimate with its {level} interval, beside the judge's own and the human "
                           "labels' alone (percent); ") + r"$\lambda$ is the judge's weight"
    env = "table*" if wide else "table"
    spec = r">{\raggedright\arraybackslash}X" + "rrrrr"
    head = r"Model & Corrected [CI] & Judge only & Human only & Labels & $\lambda$ \\"
    out = [f"% judge corrected by human labels from {escape_latex(section.source)}", rf"\begin{{{env}}}[t]",
           r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}", rf"\caption{{{caption}}}",
           rf"\begin{{tabularx}}{{\linewidth}}{{{spec}}}", r"\toprule", head, r"\midrule", *lines, r"\bottomrule",
           r"\end{tabularx}", rf"\end{{{env}}}"]
    sentences = verdict_sentences(section)
    if sentences:
        out += [r"\begin{itemize}"] + [rf"\item {escape_latex(x)}" for x in sentences] + [r"\end{itemize}"]
    return "\n".join(out)


def _csv(section: JudgeSection, table: str) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["model", "baseline", "estimate", "se", "ci_low", "ci_high", "df", "lam", "n_labeled", "n_total",
                "judge_only_low", "judge_only_high", "human_only_low", "human_only_high", "corrected",
                "labels_needed"])
    items = [(m, "", e) for m, e, _ in section.models] + list(section.comparisons)
    for m, b, e in items:
        w.writerow([_safe(m), _safe(b), e.estimate, e.se, e.ci_low, e.ci_high, e.df, e.lam, e.n_labeled, e.n_total,
                    e.judge_only.low, e.judge_only.high, e.human_only.low, e.human_only.high, "true", ""])
    for u in section.refused:  # no number in place of the corrected one: the judge's alone would be biased
        w.writerow([_safe(u.model), _safe(u.baseline or ""), "", "", "", "", "", "", u.n_labeled, u.n_total,
                    "", "", "", "", "false", "" if u.needed is None else u.needed])
    return buf.getvalue()


def _safe(cell: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    return "'" + cell if cell[:1] in ("=", "+", "-", "@") else cell


def scorer_matrix(human: Any, table: Any, scorer: str = "the human scorer") -> np.ndarray:
    """Human labels from a second reading of the same logs (``human``: a Dataset read with the human scorer as
    the metric), aligned to ``table`` by question and model; NaN where the human scorer gave no score. Checked
    on the judge's scale as a column of labels is (:func:`~evalstats_core.human_labels.check_scale`), naming the
    first sample off it."""
    import pandas as pd  # heavy: only when labels are read


    other = question_scores(human)
    out = np.full(table.scores.shape, np.nan)
    qi = pd.Index(other.questions.astype(str)).get_indexer(table.questions.astype(str))
    for j, m in enumerate(table.models):
        if m not in other.models:
            continue
        k = other.models.index(m)
        ok = qi >= 0
        out[ok, j] = np.where(other.answered[qi[ok], k], other.scores[qi[ok], k], np.nan)
    if not np.isfinite(out).any():
        raise EvalStatsError(f"the human scorer's scores match no question and model of {table.name}")
    out = np.where(table.answered, out, np.nan)
    k = len(table.models)
    check_scale(out, np.where(table.answered, table.scores, np.nan), f"{table.name}, {scorer}",
                cell=lambda i: f"sample {str(table.questions[i // k])!r} of model {table.models[i % k]!r}")
    return out


def section_for(dataset: Any, analysis: Any, *, human_col: str | None = None, labels: Any = None,
                labels_name: str | None = None, table: Any = None, human_loader: Any = None,
                notes: list | None = None, labels_all_models: bool = False) -> JudgeSection | None:
    """The judge section of ``analysis`` when labels exist (``human_col``, a labels file, or a column found
    by name); None otherwise. This is the one call the CLI and the workbench make.

    Labels without a model (a labels file with no model column, a wide file's column) are refused for two or
    more models unless ``labels_all_models`` says each question's label grades every model's answer
    (:mod:`evalstats_core.human_labels`). A column found only by its name that holds no labels at all (e.g.
    categories) is left alone with a note in ``notes``; labels off the judge's scale are refused.

    For harness logs (no columns of their own) ``human_col`` names the human scorer, and ``human_loader(name)``
    reads the same logs again with that scorer as the metric (Inspect logs with two scorers).
    """

    harness = dataset.file_type not in ("csv", "parquet")  # a harness log: its scorers can be the human labels
    if labels is None and human_col is not None and harness and human_col not in (dataset.extra or {}):
        if human_loader is None:
            raise EvalStatsError(f"{dataset.name} has no columns of its own; name the human scorer with human_col= "
                                 "on the harness logs, or give the labels in a file with labels=")
        table = question_scores(dataset) if table is None else table
        return replace(judge_section(analysis, table, scorer_matrix(human_loader(human_col), table, f"scorer '{human_col}'"),
                                     f"scorer '{human_col}'"), named=human_col)
    found = False
    if labels is None:
        found = human_col is None
        human_col = human_col or detect_human_col(dataset)
        if human_col is None:
            return None
    table = question_scores(dataset) if table is None else table
    if labels is not None:
        name = labels_name or (labels if isinstance(labels, str) else "labels file")
        return judge_section(analysis, table, labels_file_matrix(labels, table, name,
                                                                 labels_all_models=labels_all_models), name)
    try:
        human = human_matrix(dataset, table, human_col, labels_all_models=labels_all_models)
    except NotLabels as exc:
        if not found:  # named by the user: their column must be read, or they hear why not
            raise
        if notes is not None:  # only found by its name (e.g. a 'label' column of categories): the file reads as before
            notes.append(f"column '{human_col}' was not read as human labels ({exc}); name the labels with "
                         "human_col= if they are elsewhere")
        return None
    named = None if found or human_col == detect_human_col(dataset) else human_col
    return replace(judge_section(analysis, table, human, f"column '{human_col}'"), column=human_col, named=named)


_OTHERS = re.compile(r"scorer '[^']*' \(others: ([^)]*)\)")


def human_scorers(dataset: Any) -> list[str]:
    """The scorers of harness logs other than the one read as the scores (Inspect logs with a judge scorer and a
    human one): each can be the human labels (``section_for(..., human_col=name, human_loader=...)``)."""
    out: list[str] = []
    for note in getattr(dataset, "notes", ()) or ():
        for group in _OTHERS.findall(note):
            out += [x for x in group.split(", ") if x and x not in out]
    return out


def chart_subtitle(section: JudgeSection) -> str:
    """The judge chart's subtitle: the method and the labels (e.g. "95% intervals · corrected: PPI++ with 300
    human labels per model (column 'human') · judge only · human labels only")."""
    counts = sorted({e.n_labeled for _, e, _ in section.models})
    labels = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}-{counts[-1]:,}" if counts else "no"
    level = next((f"{round(100 * e.confidence, 2):g}%" for _, e, _ in section.models), "95%")
    method = ("stratified by the judge's verdict" if any(e.stratified for _, e, _ in section.models) else "PPI++")
    return (f"{level} intervals · corrected: {method} with {labels} human labels per model ({section.source}) · "
            "judge only · human labels only")


def intervals_frame(section: JudgeSection, *, comparisons: bool = False) -> Any:
    """Tidy ``label, kind, estimate, ci_low, ci_high``: each model's (or comparison's) three intervals."""
    import pandas as pd  # heavy: only for the judge's chart frame

    items = ([(f"{m} - {b}", e) for m, b, e in section.comparisons] if comparisons
             else [(m, e) for m, e, _ in section.models])
    rows = []
    for label, e in items:
        hm = e.human_mean
        rows += [(label, "judge only", e.judge_mean, *e.judge_only), (label, "human only", hm, *e.human_only),
                 (label, "corrected", e.estimate, e.ci_low, e.ci_high)]
    return pd.DataFrame(rows, columns=["label", "kind", "estimate", "ci_low", "ci_high"])


def more_labels(est: Any) -> int:
    """The label count the sentence quotes: twice today's, at most every question."""
    return int(min(est.n_total, max(2 * est.n_labeled, est.n_labeled + 1)))


def model_sentence(model: str, est: Any, budget: Any) -> str:
    """"The judge over-states Atlas by 12.3 points; 600 labels bring the interval to +/-3.1", from the numbers."""
    gap = 100 * (est.judge_mean - est.estimate)
    if abs(gap) < 0.05:
        first = f"The judge's mean for {model} equals the corrected one"
    else:
        first = f"The judge {'over' if gap > 0 else 'under'}-states {model} by {abs(gap):.1f} points"
    now = f"{est.n_labeled:,} labels give ±{100 * est.half_width:.1f}"
    n2 = more_labels(est)
    if n2 <= est.n_labeled:
        return f"{first}; every question is labelled ({now})."
    return f"{first}; {now}, {n2:,} labels would bring the interval to ±{100 * float(budget.half_width_at(n2)):.1f}."


def agreement_frame(section: JudgeSection) -> Any:
    """One row per model: the confusion table, sensitivity, specificity and kappa."""
    import pandas as pd  # heavy: only for the judge's table

    rows = [(m, a.n, a.true_pass, a.false_pass, a.false_fail, a.true_fail, a.accuracy, a.sensitivity,
             a.specificity, a.kappa, a.kappa_ci.low, a.kappa_ci.high) for m, _, a in section.models]
    return pd.DataFrame(rows, columns=["model", "labelled", "judge pass, human pass", "judge pass, human fail",
                                       "judge fail, human pass", "judge fail, human fail", "accuracy",
                                       "sensitivity", "specificity", "kappa", "kappa_low", "kappa_high"])


def budget_frame(section: JudgeSection, budgets: dict, half_width: float) -> Any:
    """Labels needed per model for ``half_width`` with the judge and without it."""
    import pandas as pd  # heavy: only for the labels table

    rows = [(m, e.n_labeled, budgets[m].with_judge, budgets[m].without_judge, e.n_total)
            for m, e, _ in section.models]
    return pd.DataFrame(rows, columns=["model", "labelled now", f"needed with judge (±{100 * half_width:.1f})",
                                       f"needed without (±{100 * half_width:.1f})", "questions"])
