"""The workbench's judge section: when the file has human labels beside the judge's scores, each model's three
intervals (judge only, human only, corrected), a sentence computed from them, the agreement table and the budget.

Called from ``pages/analyze.py`` with one line; every number comes from ``evalstats_core.judge_io``.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from evalstats_app import shell
from evalstats_app.option_words import say
from evalstats_app.workbench import AnalysisSettings, esc
from evalstats_core.charts import compile_spec
from evalstats_core.charts.judge import three_intervals
from evalstats_core.errors import EvalStatsError
from evalstats_core.judge_apply import corrected_analysis
from evalstats_core.judge_io import (
    agreement_frame,
    budget_frame,
    chart_subtitle,
    detect_human_col,
    human_scorers,
    intervals_frame,
    model_sentence,
    section_for,
    verdict_sentences,
)
from evalstats_core.ranking import rank_models
from evalstats_core.reading import ReadingOptions

__all__ = ["judge_section", "corrected"]

NONE = "(no human labels)"
_PCT = st.column_config.NumberColumn(format="%.3f")


#: How a harness log's other scorer is offered as the human labels ("scorer 'rating'"), beside the columns.
SCORER = "scorer '{}'"


def _scorer_name(choice: str) -> str | None:
    """The scorer's name of a "scorer 'x'" choice; None for a column."""
    head, tail = SCORER.split("{}")
    return choice[len(head):-len(tail)] if choice.startswith(head) and choice.endswith(tail) else None


@st.cache_data(max_entries=16, show_spinner=False, scope="session", hash_funcs={AnalysisSettings: repr})
def _section(key: str, roles: tuple, opts: AnalysisSettings, column: str, _prepared, _analysis, _files=()):
    """The judge section for a column of the file, or for another scorer of the harness logs (read again with
    that scorer as the metric, as the command line's ``--human-col`` does)."""

    scorer = _scorer_name(column)
    loader = None
    if scorer is not None and _files and isinstance(roles, ReadingOptions):
        def loader(name: str):
            return dataclasses.replace(roles, metric=name).load(list(_files))
    try:
        return section_for(_prepared.dataset, _analysis, human_col=scorer or column, table=_prepared.table,
                           human_loader=loader)
    except EvalStatsError as exc:
        return str(exc)


def _choices(prepared) -> list[str]:
    """Every human-label source the command line reads: the file's columns (an Inspect log's metadata keys, per
    sample and model) and the harness logs' other scorers."""
    columns = [c for c in (prepared.dataset.extra or {}) if c != "__question__"]
    return columns + [SCORER.format(x) for x in human_scorers(prepared.dataset)]


@st.cache_data(max_entries=32, show_spinner=False)
def _spec(frame, title: str, subtitle: str = "") -> dict:
    return compile_spec(three_intervals(frame, title=title, subtitle=subtitle))


def _column(prepared) -> str | None:
    """The human-label column chosen on the page (or found by name before the choice exists); None for none."""
    columns = _choices(prepared)
    chosen = st.session_state.get("judge_human_col")
    if chosen is not None and chosen not in (NONE, *columns):
        chosen = None
    if chosen is None:
        chosen = detect_human_col(prepared.dataset)
    return None if chosen in (None, NONE) else chosen


@st.cache_data(max_entries=16, show_spinner=False, scope="session", hash_funcs={AnalysisSettings: repr})
def _corrected(key: str, roles: tuple, opts: AnalysisSettings, column: str, _prepared, _res, _files=()):
    section = _section(key, roles, opts, column, _prepared, _res.analysis, _files)
    everything = _section(key, roles, opts.with_baseline(None), column, _prepared, _res.all_pairs, _files)
    if isinstance(section, str) or isinstance(everything, str) or section is None or everything is None:
        return None
    if not (section.models or section.refused):
        return None
    analysis = corrected_analysis(_res.analysis, section)
    all_pairs = corrected_analysis(_res.all_pairs, everything)
    ranking = rank_models({m.model: m.mean for m in all_pairs.models},
                          [(c.model, c.baseline, c.p_adjusted, c.diff) for c in all_pairs.comparisons],
                          alpha=1.0 - all_pairs.confidence)
    return analysis, all_pairs, ranking


def corrected(prepared, res, key: str, roles: tuple, files: tuple = ()):
    """``res`` with the corrected analysis, comparisons and ranking when the file has human labels (and a
    sentence that says so); ``res`` unchanged otherwise. Every section below then reads the corrected numbers, and
    a model or pair with too few labels shows none. ``files``: the uploaded ``(name, bytes)``, read again when the
    labels are another scorer of the harness logs."""

    column = _column(prepared)
    if res is None or column is None:
        return res
    out = _corrected(key, roles, res.opts, column, prepared, res, files)
    if out is None:
        return res
    analysis, all_pairs, ranking = out
    st.info(esc(analysis.warnings[0][0].upper() + analysis.warnings[0][1:]) + ".", icon=":material/balance:")
    return dataclasses.replace(res, analysis=analysis, all_pairs=all_pairs, ranking=ranking)


def judge_section(prepared, res, key: str, roles: tuple, files: tuple = ()) -> None:
    """The section (nothing when the file has no other columns or scorers to read labels from)."""
    columns = _choices(prepared)
    if not columns:
        return
    detected = detect_human_col(prepared.dataset)
    options = [NONE, *columns]
    choice = st.selectbox("Human labels (a column blank where no human graded the answer, or another scorer of "
                          "the logs)", options, index=options.index(detected) if detected else 0,
                          key="judge_human_col")
    if choice == NONE:
        return
    section = _section(key, roles, res.opts, choice, prepared, res.analysis, files)
    if isinstance(section, str):
        if choice == detected:  # found by its name only (e.g. a 'label' column of categories): not an error
            st.info(f"Column {esc(choice)} was not read as human labels: {say(section)}", icon=":material/info:")
        else:
            st.error(f"**The human labels cannot be used.** {say(section)}", icon=":material/error:")
        return
    if section is None or not (section.models or section.refused):
        st.info("No model has two or more human labels in this column.", icon=":material/info:")
        return
    for u in section.refused:  # no number in place of the corrected one
        st.warning(esc(u.line[0].upper() + u.line[1:]) + ".", icon=":material/block:")
    if not section.models:
        return
    _show(section, res.analysis.name)


def _show(section, name: str) -> None:
    st.markdown("### The judge against the human labels")
    st.markdown(f"Human labels from {esc(section.source)}. The **corrected** estimate (prediction-powered, PPI++) "
                "combines the judge's verdict on every question with the humans' on the labelled ones; it is the "
                "number to report, and the tables above show it.")
    frame = intervals_frame(section)
    title, subtitle = f"Judge, humans, corrected: {name}", chart_subtitle(section)
    shell.chart(_spec(frame, title, subtitle), title=title, subtitle=subtitle,
                summary=" ".join(esc(model_sentence(m, e, section.budgets[m])) for m, e, _ in section.models
                         if section.budgets.get(m) is not None),
                name="analyze_judge")
    if section.comparisons:
        st.markdown("**Comparisons, corrected**")
        for s in verdict_sentences(section):
            st.markdown(f"- {esc(s)}")
    st.markdown("**Agreement with the humans** (labelled questions only)")
    st.dataframe(agreement_frame(section), hide_index=True, width="stretch",
                 column_config={c: _PCT for c in ("accuracy", "sensitivity", "specificity", "kappa", "kappa_low",
                                                  "kappa_high")})
    target = st.number_input("Target half-width (points)", min_value=0.2, max_value=50.0, value=2.0, step=0.5,
                             key="judge_target")
    budgets = {m: b.for_target(target / 100) for m, b in section.budgets.items() if b is not None}
    known = [row for row in section.models if row[0] in budgets]
    if known:
        sub = type(section)(tuple(known), (), section.source, budgets)
        st.dataframe(budget_frame(sub, budgets, target / 100), hide_index=True, width="stretch")
        st.caption("Human labels needed for the target with the judge's verdicts on every question (PPI++) and "
                   "without them. For 0/1 verdicts the count is the one whose corrected interval, as computed "
                   "above, has the target half-width on average (few labels show few judge errors, and the "
                   "interval then allows for the ones they missed). The humans-only count uses the rule of the "
                   "human-only interval above. " + _assumption(budgets) + " An empty cell means even labelling "
                   "all but two questions does not reach it.")


def _assumption(budgets: dict) -> str:
    """The plans' assumption about clusters (the same for every model of one analysis)."""
    return next(iter(budgets.values())).assumption
