"""The corrected estimates take the judge's place: an Analysis (tables, verdicts, ranking) and a gate decision
computed from the PPI++ numbers of a :class:`~evalstats_core.judge_io.JudgeSection`, saying so in their warnings.

==================================  ================================================================
``corrected_analysis(a, section)``  every model and comparison with labels gets its corrected mean, SE,
                                    interval, df and p-value (re-adjusted across the comparisons)
``corrected_gate(g, section)``      the gate's verdict read from the corrected difference
``correction_note(section)``        the sentence that says the numbers are corrected, and by what
==================================  ================================================================
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist
from typing import Any

from ._clusters import t_p_value
from .analysis import _adjust, analyze
from .flags import reading_flags
from .judge_io import section_for

__all__ = ["corrected_analysis", "corrected_gate", "correction_note"]


def correction_note(section: Any) -> str:
    """What the numbers are: which are corrected by human labels (with their counts) and which are withheld."""
    counts = sorted({(e.n_labeled, e.n_total) for _, e, _ in section.models})
    labelled = "; ".join(f"{n:,} of {t:,} questions" for n, t in counts) or "too few on every model"
    models = [u for u in section.refused if u.baseline is None]
    pairs = [u for u in section.refused if u.baseline is not None]
    if not section.refused:
        return (f"judge-scored file with human labels ({section.source}: {labelled}): every estimate, interval, "
                "verdict and the ranking below are the judge's scores corrected by the human labels "
                "(prediction-powered inference, PPI++); the judge's own numbers are in the judge section")
    held = " and ".join(x for x in (f"{len(models)} model{'' if len(models) == 1 else 's'}" if models else "",
                                    f"{len(pairs)} comparison{'' if len(pairs) == 1 else 's'}" if pairs else "")
                        if x)
    return (f"judge-scored file with human labels ({section.source}: {labelled}): {len(section.models)} of "
            f"{len(section.models) + len(models)} models and {len(section.comparisons)} of "
            f"{len(section.comparisons) + len(pairs)} comparisons are the judge's scores corrected by the human "
            f"labels (prediction-powered inference, PPI++); {held} have too few labels to be corrected and show no "
            "number (the judge's own would be biased; each line below says how many labels it needs), and the "
            "ranking reads the corrected numbers only")


def _limits(e: Any) -> str:
    """How the interval differs from ``estimate -/+ t se`` (0/1 scores: the small-count limits)."""
    asymmetric = abs((e.ci_high - e.estimate) - (e.estimate - e.ci_low)) > 1e-12 * max(1.0, e.ci_high - e.ci_low)
    return "; small-count limits for 0/1 scores, asymmetric" if asymmetric else ""


_NAN = math.nan


def _robust(e: Any) -> str:
    """The stratified interval's variance with clusters: CR2 over them, t with Bell-McCaffrey df."""
    return f"CR2 t over {e.n_clusters:,} clusters, {e.df:.1f} df" if e.clustered else ""


def _model_label(e: Any) -> str:
    if e.stratified and e.clustered:
        return (f"stratified by the judge's verdict ({e.n_labeled:,} human labels chosen by it; {_robust(e)}"
                f"{_limits(e)})")
    if e.stratified:
        return (f"stratified by the judge's verdict ({e.n_labeled:,} human labels chosen by it; Jeffreys limits per "
                "verdict, MOVER)")
    return f"t (PPI++ corrected by {e.n_labeled:,} human labels{_limits(e)})"


def _pair_label(e: Any) -> str:
    if e.stratified and e.clustered:
        return (f"stratified by the two verdicts ({e.n_labeled:,} questions labelled for both, chosen by the judge's "
                f"verdict; {_robust(e)}{_limits(e)})")
    if e.stratified:
        return (f"stratified by the two verdicts ({e.n_labeled:,} questions labelled for both, chosen by the judge's "
                "verdict; Jeffreys limits per stratum, MOVER)")
    return f"t (PPI++ on the paired differences, corrected by {e.n_labeled:,} questions labelled for both{_limits(e)})"


def corrected_analysis(analysis: Any, section: Any) -> Any:
    """``analysis`` with the corrected numbers wherever labels suffice and no number where they do not (the
    judge's own is never left in place: :class:`~evalstats_core.judge_io.Uncorrected` says what it needs),
    carrying ``section`` as ``Analysis.judge`` so every report format (JSON, Markdown, LaTeX, CSV) adds the
    judge's blocks."""

    by_model = {m: e for m, e, _ in section.models}
    refused = {(u.model, u.baseline): u for u in section.refused}
    models = []
    for m in analysis.models:
        e, u = by_model.get(m.model), refused.get((m.model, None))
        if e is not None:
            m = dataclasses.replace(m, mean=e.estimate, se=e.se, ci_low=e.ci_low, ci_high=e.ci_high, df=e.df,
                                    deff=math.nan, n_eff=math.nan, interval=_model_label(e))
        elif u is not None:
            m = dataclasses.replace(m, mean=_NAN, se=_NAN, ci_low=_NAN, ci_high=_NAN, df=_NAN, deff=_NAN,
                                    n_eff=_NAN, se_naive=_NAN, interval=u.reason)
        models.append(m)
    by_pair = {(m, b): e for m, b, e in section.comparisons}
    pairs = []
    for c in analysis.comparisons:
        e, u = by_pair.get((c.model, c.baseline)), refused.get((c.model, c.baseline))
        pm, pb = by_model.get(c.model), by_model.get(c.baseline)
        means = dict(mean_model=pm.estimate if pm else _NAN, mean_baseline=pb.estimate if pb else _NAN)
        if e is None:
            pairs.append(c if u is None else dataclasses.replace(
                c, diff=_NAN, se=_NAN, ci_low=_NAN, ci_high=_NAN, df=_NAN, z=_NAN, p_value=_NAN, correlation=_NAN,
                se_unpaired=_NAN, se_paired=_NAN, mcnemar_statistic=None, mcnemar_chi2_p=None, mcnemar_p=None,
                wild_p_value=None, only_model=None, only_baseline=None, interval=u.reason, **means))
            continue
        z = e.estimate / e.se if e.se > 0 else math.nan
        pairs.append(dataclasses.replace(
            c, diff=e.estimate, se=e.se, ci_low=e.ci_low, ci_high=e.ci_high, df=e.df, z=z,
            p_value=t_p_value(z, e.df), se_paired=e.se, mcnemar_statistic=None, mcnemar_chi2_p=None,
            mcnemar_p=None, wild_p_value=None, only_model=None, only_baseline=None, **means,
            interval=_pair_label(e)))
    adjusted = _adjust([p.p_value for p in pairs], analysis.adjust)
    pairs = tuple(dataclasses.replace(p, p_adjusted=a) for p, a in zip(pairs, adjusted, strict=True))
    lines = tuple(f"{u.line}" for u in section.refused)
    reading = analysis.reading
    if getattr(section, "named", None):  # a scorer or a column the command must name to read the same labels
        reading = (*reading, *reading_flags([("human_col", section.named)]))
    return dataclasses.replace(analysis, models=tuple(models), comparisons=pairs, notes=reading_notes(analysis, section),
                               reading=reading,
                               warnings=(correction_note(section), *lines, *getattr(section, "selection", ()),
                                         *analysis.warnings), judge=section)


_IGNORED = "ignored column(s): "


def reading_notes(analysis: Any, section: Any) -> tuple[str, ...]:
    """"How the file was read" with the human labels as used (and their count), never among the ignored columns."""
    notes = []
    for note in analysis.notes:
        if section.column is not None and note.startswith(_IGNORED):
            rest = [c for c in note[len(_IGNORED):].split(", ") if c != section.column]
            if rest:
                notes.append(_IGNORED + ", ".join(rest))
            continue
        notes.append(note)
    n_models = len(section.models) + sum(u.baseline is None for u in section.refused)
    notes.append(f"human labels: {section.source}, {section.n_labels:,} labelled answers over {n_models} "
                 f"model{'' if n_models == 1 else 's'}, used to correct the judge's scores (PPI++)")
    return tuple(notes)


def corrected_gate(result: Any, section: Any) -> Any:
    """The gate's decision from the corrected difference candidate - baseline; INCONCLUSIVE (exit 3) when the
    pair has too few labels to be corrected (the judge's own difference never decides a judged file)."""

    key = (result.candidate, result.baseline)
    e = next((e for m, b, e in section.comparisons if (m, b) == key), None)
    by_model = {m: est for m, est, _ in section.models}
    means = dict(mean_baseline=by_model[result.baseline].estimate if result.baseline in by_model else math.nan,
                 mean_candidate=by_model[result.candidate].estimate if result.candidate in by_model else math.nan)
    if e is None:
        u = next(u for u in section.refused if (u.model, u.baseline) == key)
        return result.decided(
            "inconclusive", diff=math.nan, se=math.nan,
            df=math.nan, ci_low=math.nan, ci_high=math.nan, p_value=math.nan, n_needed=None, skewed=None,
            pass_confidence=None, pass_low=None, two_clusters=None, unbounded=None, wild_p_value=None,
            se_plain=None, uncorrected=u.reason, interval=None, **means)
    if e.ci_low > -result.margin:
        verdict = "pass"
    elif e.ci_high < 0.0:
        verdict = "regression"
    else:
        verdict = "inconclusive"
    z = e.estimate / e.se if e.se > 0 else math.nan
    plan = (section.pair_budgets or {}).get(key)
    needed = _labels_to_tell(e, result.margin, result.confidence, plan) if verdict == "inconclusive" else None
    return result.decided(  # the verdict's exit code is the gate's (gating.EXIT_CODES)
        verdict, diff=e.estimate, se=e.se, df=e.df, ci_low=e.ci_low,
        ci_high=e.ci_high, p_value=t_p_value(z, e.df), n_needed=needed, needed_unit="labels", n_labeled=e.n_labeled,
        skewed=None, pass_confidence=None, pass_low=None, two_clusters=None,
        interval="t (PPI++ on the paired differences)", **means)


#: The power the corrected gate's label plan is for (the plain gate's: 80%).
LABEL_PLAN_POWER = 0.8


def _labels_to_tell(e: Any, margin: float, confidence: float, plan: Any) -> int | None:
    """Questions labelled for both models that would tell, with 80% power if the true corrected difference is the
    observed one: the label plan of the difference (``plan``, :func:`~evalstats_core.judge_budget.labels_needed` on
    the paired differences) for the half-width ``gap z / (z + z_power)``, ``gap`` the distance from the estimate to
    the nearer decision (``-margin`` for a pass, 0 for a regression); never fewer than are labelled here (this many
    did not tell). None when no number of labels up to every question would tell, or without a plan."""
    gap = max(e.estimate + margin, -e.estimate)
    if plan is None or not gap > 0.0:
        return None
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    target = gap * z / (z + NormalDist().inv_cdf(LABEL_PLAN_POWER))
    need = plan.for_target(target).with_judge
    need = None if need is None else max(int(need), e.n_labeled + 1)
    return need if need is not None and need <= e.n_total else None


def _pair_section(section: Any, key: tuple) -> Any:
    return section is not None and (any((m, b) == key for m, b, _ in section.comparisons)
                                    or any((u.model, u.baseline) == key for u in section.refused))


def gate_with_labels(dataset: Any, result: Any, *, human_col: str | None = None, labels: Any = None,
                     method: str = "cr2", use_clusters: bool = True, labels_all_models: bool = False,
                     notes: list | None = None) -> tuple[Any, str | None]:
    """``(gate result, note)``: corrected when the file (or ``labels``) has human labels, else ``(result, None)``;
    INCONCLUSIVE with the labels it needs when the pair has too few to be corrected. ``labels_all_models`` and
    ``notes`` as :func:`~evalstats_core.judge_io.section_for`."""
    a = analyze(dataset, baseline=result.baseline, confidence=result.confidence, method=method,
                use_clusters=use_clusters, adjust="none", interval="normal")
    section = section_for(dataset, a, human_col=human_col, labels=labels, labels_all_models=labels_all_models,
                          notes=notes)
    key = (result.candidate, result.baseline)
    if not _pair_section(section, key):
        return result, None
    judge_diff = result.diff
    corrected = corrected_gate(result, section)
    e = next((e for m, b, e in section.comparisons if (m, b) == key), None)
    if e is None:
        u = next(u for u in section.refused if (u.model, u.baseline) == key)
        return corrected, (f"Not decided: a judge-scored file (human labels from {section.source}), and {u.line}.")
    return corrected, (f"Decided on the judge's scores corrected by human labels ({section.source}: {e.n_labeled:,} "
                       f"of {e.n_total:,} questions labelled for both models; prediction-powered inference, PPI++). "
                       f"The judge alone gave {100 * judge_diff:+.1f} points ({100 * result.ci_low:+.1f} to "
                       f"{100 * result.ci_high:+.1f}).")
