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
from typing import Any

__all__ = ["corrected_analysis", "corrected_gate", "correction_note"]


def correction_note(section: Any) -> str:
    """"estimates, intervals, verdicts and the ranking are corrected by human labels (...)"."""
    counts = sorted({(e.n_labeled, e.n_total) for _, e, _ in section.models})
    labelled = "; ".join(f"{n:,} of {t:,} questions" for n, t in counts)
    return (f"judge-scored file with human labels ({section.source}: {labelled}): every estimate, interval, verdict "
            "and the ranking below are the judge's scores corrected by the human labels (prediction-powered "
            "inference, PPI++); the judge's own numbers are in the judge section")


def _limits(e: Any) -> str:
    """How the interval differs from ``estimate -/+ t se`` (0/1 scores: the small-count limits)."""
    asymmetric = abs((e.ci_high - e.estimate) - (e.estimate - e.ci_low)) > 1e-12 * max(1.0, e.ci_high - e.ci_low)
    return "; small-count limits for 0/1 scores, asymmetric" if asymmetric else ""


def corrected_analysis(analysis: Any, section: Any) -> Any:
    """``analysis`` with the corrected numbers wherever labels exist (others unchanged), carrying ``section``
    as ``Analysis.judge`` so every report format (JSON, Markdown, LaTeX, CSV) adds the judge's blocks."""
    from ._clusters import t_p_value
    from .analysis import _adjust

    by_model = {m: e for m, e, _ in section.models}
    models = tuple(
        dataclasses.replace(m, mean=e.estimate, se=e.se, ci_low=e.ci_low, ci_high=e.ci_high, df=e.df,
                            deff=math.nan, n_eff=math.nan,
                            interval=f"t (PPI++ corrected by {e.n_labeled:,} human labels{_limits(e)})")
        if (e := by_model.get(m.model)) is not None else m
        for m in analysis.models)
    by_pair = {(m, b): e for m, b, e in section.comparisons}
    pairs = []
    for c in analysis.comparisons:
        e = by_pair.get((c.model, c.baseline))
        if e is None:
            pairs.append(c)
            continue
        z = e.estimate / e.se if e.se > 0 else math.nan
        pm, pb = by_model.get(c.model), by_model.get(c.baseline)
        pairs.append(dataclasses.replace(
            c, diff=e.estimate, se=e.se, ci_low=e.ci_low, ci_high=e.ci_high, df=e.df, z=z,
            p_value=t_p_value(z, e.df), se_paired=e.se, mcnemar_statistic=None, mcnemar_chi2_p=None,
            mcnemar_p=None, wild_p_value=None, only_model=None, only_baseline=None,
            mean_model=pm.estimate if pm else c.mean_model, mean_baseline=pb.estimate if pb else c.mean_baseline))
    adjusted = _adjust([p.p_value for p in pairs], analysis.adjust)
    pairs = tuple(dataclasses.replace(p, p_adjusted=a) for p, a in zip(pairs, adjusted, strict=True))
    return dataclasses.replace(analysis, models=models, comparisons=pairs,
                               warnings=(correction_note(section), *analysis.warnings), judge=section)


def corrected_gate(result: Any, section: Any) -> Any:
    """The gate's decision from the corrected difference candidate - baseline (unchanged without labels)."""
    from ._clusters import t_p_value
    from .gating import EXIT_CODES

    e = next((e for m, b, e in section.comparisons if (m, b) == (result.candidate, result.baseline)), None)
    if e is None:
        return result
    if e.ci_low > -result.margin:
        verdict = "pass"
    elif e.ci_high < 0.0:
        verdict = "regression"
    else:
        verdict = "inconclusive"
    z = e.estimate / e.se if e.se > 0 else math.nan
    by_model = {m: est for m, est, _ in section.models}
    return dataclasses.replace(
        result, verdict=verdict, exit_code=EXIT_CODES[verdict], diff=e.estimate, se=e.se, df=e.df, ci_low=e.ci_low,
        ci_high=e.ci_high, p_value=t_p_value(z, e.df), n_needed=None, skewed=None, pass_confidence=None, pass_low=None, two_clusters=None,
        mean_baseline=by_model[result.baseline].estimate if result.baseline in by_model else result.mean_baseline,
        mean_candidate=by_model[result.candidate].estimate if result.candidate in by_model else result.mean_candidate)


def gate_with_labels(dataset: Any, result: Any, *, human_col: str | None = None, labels: Any = None,
                     method: str = "cr2", use_clusters: bool = True, labels_all_models: bool = False,
                     notes: list | None = None) -> tuple[Any, str | None]:
    """``(gate result, note)``: corrected when the file (or ``labels``) has human labels, else ``(result, None)``.
    ``labels_all_models`` and ``notes`` as :func:`~evalstats_core.judge_io.section_for`."""
    from .analysis import analyze
    from .judge_io import section_for

    a = analyze(dataset, baseline=result.baseline, confidence=result.confidence, method=method,
                use_clusters=use_clusters, adjust="none", interval="normal")
    section = section_for(dataset, a, human_col=human_col, labels=labels, labels_all_models=labels_all_models,
                          notes=notes)
    if section is None or not any((m, b) == (result.candidate, result.baseline) for m, b, _ in section.comparisons):
        return result, None
    judge_diff = result.diff
    corrected = corrected_gate(result, section)
    e = next(e for m, b, e in section.comparisons if (m, b) == (result.candidate, result.baseline))
    return corrected, (f"Decided on the judge's scores corrected by human labels ({section.source}: {e.n_labeled:,} "
                       f"of {e.n_total:,} questions labelled for both models; prediction-powered inference, PPI++). "
                       f"The judge alone gave {100 * judge_diff:+.1f} points ({100 * result.ci_low:+.1f} to "
                       f"{100 * result.ci_high:+.1f}).")
