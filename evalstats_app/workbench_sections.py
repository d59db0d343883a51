"""The result sections of the workbench (``pages/analyze.py``): each draws one part of the results
from numbers the core computed. Widgets and the cached analysis live in :mod:`evalstats_app.workbench`,
file reading in :mod:`evalstats_app.workbench_reading`, the reported-numbers mode in
:mod:`evalstats_app.workbench_reported`."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re
import textwrap
import zipfile
from typing import Any

import pandas as pd
import streamlit as st

from evalstats_app import shell, workbench_passk
from evalstats_app.option_words import say
from evalstats_app.page_keys import LINK_DELTA_RANGE, power_link
from evalstats_app.workbench import (
    ADJUST,
    Results,
    Source,
    bundle_settings,
    by_scope,
    esc,
    fix_choice,
)
from evalstats_app.workbench_charts import chart as _chart
from evalstats_app.workbench_charts import is_percent as _percent
from evalstats_core import report
from evalstats_core.breakdown import cluster_breakdown, disagreements, top_clusters
from evalstats_core.bundle import make_bundle
from evalstats_core.charts.slide import slide_png, slide_svg
from evalstats_core.data import Prepared
from evalstats_core.display import models_frame
from evalstats_core.errors import CLUSTERING_COST, DEFF_BELOW_ONE, SKEWED_LOWER_END, EvalStatsError
from evalstats_core.escape import elide_spec
from evalstats_core.planning import describe, pair_pilot, plan_from_pilot
from evalstats_core.report import csv_safe, method_line, summary_lines, verdicts
from evalstats_core.report_html import html_report
from evalstats_core.vocabulary import Formatter


@by_scope(st.cache_resource, max_entries=8, show_spinner=False)
def _pilot(key: str, roles: tuple, design: tuple, pair: tuple, _prepared: Prepared, _analysis):
    """The file's part of one pair's plan (:func:`~evalstats_core.planning.pair_pilot`: estimates, df, the
    calibration's Imhof inversions), kept as it is (``cache_resource``: it holds a function) while the effect,
    the test's size or the power change; the error's words when the pair cannot be planned."""
    try:
        return pair_pilot(_prepared.dataset, _prepared.table, _analysis, pair[0], pair[1])
    except EvalStatsError as exc:
        return str(exc)


@by_scope(st.cache_data, max_entries=32, show_spinner=False)
def _plan(key: str, roles: tuple, design: tuple, pair: tuple, delta: float, alpha: float, power: float,
          _prepared: Prepared, _analysis):
    """One pair's plan. ``design`` is :func:`plan_design`, all it reads of the analysis: a new confidence
    level, adjustment or one-model interval other than the normal one leaves the plan as it was, from the
    cache. A new effect, size or power reads the file's part from :func:`_pilot` (a first plan at 1e7 rows is
    about a second of CPU, a new value of these ~0.05 s)."""

    pilot = _pilot(key, roles, design, pair, _prepared, _analysis)
    if isinstance(pilot, str):
        return pilot
    try:
        return plan_from_pilot(pilot, delta=delta, alpha=alpha, power=power)
    except EvalStatsError as exc:
        return str(exc)


def plan_design(analysis) -> tuple:
    """What :func:`~evalstats_core.planning.plan_pair` reads of an analysis, the plan cache's key: clustered or
    not, the unit, the standard errors, and whether the comparisons are on the normal interval (``"normal"``)
    or on the pair rule (any other one-model choice: clustered 0/1 pairs under CR2 are then planned for
    Tango/MOVER's df)."""
    return analysis.clustered, analysis.unit, analysis.method, analysis.interval == "normal"


#: Model-name columns are shown whole (they wrap in a wide column instead of being cut off).
_NAMES = {name: st.column_config.TextColumn(name, width="medium", help="The whole name shows on hover")
          for name in ("Model", "Baseline")}


def summary_section(a) -> None:
    """Who is ahead of whom, by how much, how sure (the one p-value to quote) and by which method: first."""

    lines = summary_lines(a)
    with st.container(border=True, key="analyze_summary"):
        st.markdown("**In short**  \n" + "  \n".join(esc(line) for line in lines))


def _short_name(a) -> str:
    """The benchmark's name for a chart title: the harness log's task, else the file, at most 40 characters."""

    return textwrap.shorten(report.benchmark(a), 40, placeholder="…")


def design_of(sums) -> tuple[str, bool]:
    """What :func:`models_section` reads of the file: the score kind, and whether a question has several answers,
    from the file's kept sums (:class:`~evalstats_core.sums.FileSums`: no pass over the runs table on a rerun)."""
    k_max = max((int(m.k_values.max()) for m in sums.model_sums if len(m.k_values)), default=1)
    return sums.score_kind, k_max > 1


def _interval_caption(a) -> str:
    """Which interval each model got, read from the analysis (with clusters or several answers per question)."""
    kinds = sorted({m.interval for m in a.models})
    what = "clusters" if a.clustered else "several answers per question"
    if all(k.startswith(("t ", "CR", "CLT")) for k in kinds):
        return (f"This file has {what}: every interval here is the {'clustered' if a.clustered else 'per-question'} "
                "t (or normal) one.")
    return f"This file has {what}: the Interval column names each model's interval (here: " + "; ".join(kinds) + ")."


def models_section(content, design: tuple[str, bool], res: Results, method: str) -> None:
    """The three-line summary, then the table of each model (paper format) and the forest plot of means;
    ``design`` is :func:`design_of` the file's sums."""
    a = res.analysis
    summary_section(a)
    st.markdown(content["models"])
    intervals = report.model_intervals(a)
    st.dataframe(report.models_display(a, intervals), hide_index=True, width="stretch", column_config=_NAMES)

    for w in a.warnings:  # a design effect below 1 (effective n above n) is never shown without comment;
        if getattr(w, "code", None) in (DEFF_BELOW_ONE, CLUSTERING_COST):  # nor clustered intervals on few clusters
            st.info(esc(w[0].upper() + w[1:]), icon=":material/info:")
    if design[0] == "binary":
        st.markdown(content["method_help"])
        if a.clustered or design[1]:
            st.caption(esc(_interval_caption(a)))

    frame = models_frame(a, res.ranking)  # the frame Analysis.chart("models") draws in a notebook
    tied = set(frame.loc[frame["tied"], "model"])
    best = max(a.models, key=lambda m: m.mean)
    f = report.Formatter(a)
    low, high = frame.set_index("model").loc[best.model, ["ci_low", "ci_high"]]
    title = f"{_short_name(a)}: mean score by model"
    # the export's 16:9 figure is this chart with its level and method line inside (built on click)
    st.session_state["_slide_models"] = _chart(
        res, "models", frame, title, method_line(a),
        f"Each model's mean with its {a.confidence:.0%} interval, best first; in blue the "
        f"{len(tied)} model{'s' if len(tied) != 1 else ''} that cannot be told apart from the leader. "
        f"Highest: {esc(best.model)} at {f.num(best.mean)} ({f.num(low)} to {f.num(high)}).", name="analyze_models")
    clipped = report.clipped_note(a, intervals)
    if clipped:
        st.caption(esc(clipped))


def compare_section(content, res: Results) -> None:
    """Pairwise table (Table 5), McNemar, the forest plot of differences and the verdicts."""

    st.markdown(content["compare"])
    a = res.analysis
    if not a.comparisons:
        st.info("One model only: nothing to compare. Add a second model's scores to the file.")
        return
    st.dataframe(report.comparisons_display(a), hide_index=True, width="stretch", column_config=_NAMES)

    for w in a.warnings:  # a pair too skewed for its questions: its lower end is unreliable (the gate says so too)
        if getattr(w, "code", None) == SKEWED_LOWER_END:
            st.warning(esc(w[0].upper() + w[1:]) + ".", icon=":material/warning:")
    quote = report.quote_label(a)
    st.caption(f"Differences are in percentage points{'' if _percent(a) else ' (score units)'}. The p-value to "
               f"quote is **{esc(quote)}**" + (f", adjusted for the {len(a.comparisons)} comparisons" if quote != "p"
                                               else "") + "; the others are under Details.")
    with st.expander("Details: every p-value, correlation, degrees of freedom, unpaired SE, McNemar"):
        st.dataframe(report.comparisons_details(a), hide_index=True, width="stretch", column_config=_NAMES)
        mc = report.mcnemar_display(a)
        if len(mc):
            st.markdown(content["mcnemar"])
            st.dataframe(mc, hide_index=True, width="stretch")
            if a.clustered:
                st.caption("McNemar's test treats questions as independent; with clusters it is not computed "
                           "(—), as in every export: trust the clustered paired p-values.")

    diffs = report.differences_frame(a)
    sig = int(diffs["significant"].sum())
    how = "paired" if a.paired else "unpaired"
    line = method_line(a, what="comparisons")
    if len(a.models) >= report.MATRIX_FROM and a.baseline is None:
        order = tuple(res.ranking.models)
        _chart(res, "matrix", report.matrix_frame(a), f"{_short_name(a)}: every pairwise difference", line,
               f"Each cell is the row model minus the column model ({how}), models in rank order; a star "
               f"marks the {sig} of {len(diffs)} differences that are significant after adjustment.",
               name="analyze_matrix", order=order)
        leader = order[0]
        lead = report.leader_frame(a, leader)
        _chart(res, "leader", lead, f"{_short_name(a)}: every model against the leader", line,
               f"Each model minus {esc(leader)} with its {a.confidence:.0%} {how} interval: "
               f"{int(lead['significant'].sum())} of {len(lead)} are significantly below it.", name="analyze_leader")
    else:
        st.session_state["_slide_differences"] = _chart(
            res, "differences", diffs, f"{_short_name(a)}: differences" + (" in points" if _percent(a) else ""), line,
            f"Each difference with its {a.confidence:.0%} {how} interval against zero: {sig} of "
            f"{len(diffs)} comparisons are significant after adjustment.", name="analyze_differences")
    st.markdown("**Verdicts**")
    for significant, sentence in zip(diffs["significant"], verdicts(a), strict=False):
        # the icon follows the adjusted test, like the forest plot's colour (the sentence names both)
        icon = ":material/check_circle:" if significant else ":material/help:"
        st.markdown(f"{icon} {esc(sentence)}")


#: rows of a long table the page shows (its download has them all): a browser drawing a million-row table
#: for one glance is the slowest part of the page
SHOWN = 500


@by_scope(st.cache_resource, max_entries=4, show_spinner=False)
def _why(key: str, roles: tuple, use_clusters: bool, pair: tuple, _prepared: Prepared):
    """Per-cluster breakdown (None without clusters) and the first :data:`SHOWN` disagreements of one pair
    (``attrs["total"]`` counts them all). They depend on the file and the pair only (not on confidence or
    adjustment): kept as they are (``cache_resource``), never pickled on a rerun."""

    table = _prepared.table
    clusters = cluster_breakdown(table, *pair) if use_clusters and table.cluster_codes is not None else None
    return clusters, disagreements(table, *pair, text=_prepared.text_columns or None, limit=SHOWN)


@by_scope(st.cache_resource, max_entries=4, show_spinner=False)
def _why_table(key: str, roles: tuple, use_clusters: bool, pair: tuple, percent: bool, decimals: int,
               models: tuple, _clusters: pd.DataFrame) -> tuple[pd.DataFrame, Any]:
    """The first :data:`SHOWN` clusters of :func:`_why`'s breakdown as the page prints them (levels in
    percent, the difference in points, with ``decimals``), and the cluster with the largest share: the same
    for every confidence level, adjustment and interval, so formatted once (``cache_resource``: kept as is)."""

    f = Formatter(percent=percent, decimals=decimals)
    shown = _clusters.head(SHOWN).copy()  # the download has every cluster
    for col in [*models, "diff"]:
        if col in shown.columns:  # levels in percent, the difference in points
            shown[col] = [f.num(x, signed=col == "diff", unit=col != "diff") for x in shown[col]]
    shown["share"] = ["n/a" if not math.isfinite(x) else f"{x:.0%}" for x in shown["share"]]
    shown = shown.rename(columns={"cluster": "Cluster", "n": "Questions",
                                  "diff": f"{pair[0]} − {pair[1]}" + (", points" if percent else ""),
                                  "share": "Share of the difference"})
    return shown, _clusters.iloc[int(_clusters["share"].abs().fillna(0).to_numpy().argmax())]


def _all_disagreements(prepared: Prepared, pair: tuple) -> str:
    """Every disagreement of ``pair`` as CSV, built when the download is clicked (it can be as long as the file)."""

    return _csv(disagreements(prepared.table, *pair, text=prepared.text_columns or None))


def why_section(content, source: Source, prepared: Prepared, roles_key: tuple, res: Results) -> None:
    """Which clusters carry a difference, and the questions two models disagree on (downloadable)."""

    a = res.analysis
    if not a.comparisons:
        return
    st.markdown(content["why"])
    pairs = [(c.model, c.baseline) for c in a.comparisons]
    labels = [f"{m} − {b}" for m, b in pairs]
    fix_choice("analyze_why_pair", labels, labels[0])
    pair = pairs[labels.index(st.selectbox("Pair", labels, key="analyze_why_pair"))]
    clusters, disagree = _why(source.key, roles_key, res.opts.use_clusters, pair, prepared)
    f = report.Formatter(a)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{pair[0]}_vs_{pair[1]}")[:60]
    if clusters is not None and a.clustered:
        shown, top = _why_table(source.key, roles_key, res.opts.use_clusters, pair, _percent(a), f.decimals,
                                tuple(m.model for m in a.models), clusters)
        st.dataframe(shown, hide_index=True, width="stretch")
        if len(clusters) > len(shown):
            st.caption(f"The {len(shown):,} largest of {len(clusters):,} clusters; the CSV below has them all.")

        # the clusters' shares follow from the file and the pair only: one chart for every setting
        _chart(res, "clusters", lambda: top_clusters(clusters), f"Where {pair[0]} − {pair[1]} comes from",
               method_line(a, what="comparisons"),
               f"Each cluster's share of the paired difference {esc(pair[0])} − {esc(pair[1])}; the largest, "
               f"{esc(top['cluster'])} ({int(top['n'])} questions), carries "
               + ("n/a" if not math.isfinite(top["share"]) else f"{top['share']:.0%}") + " of it.",
               name="analyze_clusters", cache=(roles_key, res.opts.use_clusters, pair))
        shell.download_table("Clusters (CSV)", lambda: _csv(clusters), file_name=f"{stem}_clusters.csv",
                             mime="text/csv", key="analyze_dl_clusters")
    n_shared = next(c.n for c in a.comparisons if (c.model, c.baseline) == pair)
    st.markdown(f"**{disagree.attrs['total']:,} of {n_shared:,} shared questions** score differently for "
                f"{esc(pair[0])} and {esc(pair[1])}" + (" (the discordant questions McNemar's test counts)."
                                                         if prepared.table.score_kind == "binary" else "."))
    st.dataframe(disagree, hide_index=True, width="stretch")
    if disagree.attrs["total"] > len(disagree):
        st.caption(f"The {len(disagree):,} largest gaps of {disagree.attrs['total']:,}; the CSV below has them all.")
    shell.download_table("Disagreements (CSV)", lambda: _all_disagreements(prepared, pair), file_name=f"{stem}_disagreements.csv",
                         mime="text/csv", key="analyze_dl_disagree")


def _zip(files: dict[str, str]) -> bytes:
    """A ZIP of text files (each CSV table its own file, so any spreadsheet or pandas reads it)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    return buf.getvalue()


def _csv(frame: pd.DataFrame) -> str:
    """A frame as spreadsheet-safe CSV (formula-like text cells neutralised, every field quoted as needed)."""

    safe = frame.map(lambda v: csv_safe(v) if isinstance(v, str) else v)
    safe.columns = [csv_safe(str(c)) for c in frame.columns]  # headers carry model names: defused too
    return safe.to_csv(index=False)


def rank_section(content, res: Results) -> None:
    """Models in order, with groups that cannot be told apart."""
    st.markdown(content["rank"])
    r = res.ranking
    f = report.Formatter(res.all_pairs)
    frame = r.to_frame()
    frame["mean"] = [f.num(x) for x in frame["mean"]]
    frame.columns = ["Order", "Model", "Mean", "Group", "Possible ranks"]
    frame.insert(3, "Could be the best", ["yes" if b == 1 else "no" for b in r.best_rank])
    st.dataframe(frame, hide_index=True, width="stretch", column_config=_NAMES)
    adjust = ADJUST[res.all_pairs.adjust].split(" (")[0]
    n = len(res.all_pairs.comparisons)
    tests = "the one pairwise test" if n == 1 else f"all {n} pairwise tests"
    st.markdown(f"{esc(r.sentence())} (From {tests}, {adjust} adjustment, α = {r.alpha:.2g}.)")


def guardrails_section(content, res: Results) -> None:
    """What a naive analysis of this file would get wrong."""
    st.markdown(content["guardrails"])
    warn = [g for g in res.guards if g.status == "warn"]
    ok = [g for g in res.guards if g.status != "warn"]
    if not warn:
        st.success("No naive-analysis trap applies to this file.", icon=":material/verified:")
    for g in warn:
        st.warning(f"**{g.title}.** {esc(g.detail)}", icon=":material/warning:")
    with st.expander(f"Checks passed ({len(ok)})"):  # one paragraph each, one element (one message a rerun)
        st.markdown("\n\n".join(f":material/check: **{g.title}**: {esc(g.detail)}" for g in ok))


def plan_controls(res: Results) -> dict[str, Any]:
    """The pair, effect, alpha and power to plan for."""
    pairs = [(c.model, c.baseline) for c in res.analysis.comparisons]
    labels = [f"{m} − {b}" for m, b in pairs]
    fix_choice("analyze_plan_pair", labels, labels[0])
    unit = "points" if _percent(res.analysis) else "score units"
    row = st.container(horizontal=True)  # one message a rerun; columns send one per column plus one
    label = row.selectbox("Pair to plan for", labels, key="analyze_plan_pair")
    delta = row.number_input(f"Effect to detect ({unit})", min_value=0.01, max_value=100.0, step=0.5,
                             key="analyze_delta")
    alpha = row.number_input("α (test size)", min_value=0.001, max_value=0.5, step=0.01, format="%.3f",
                             key="analyze_alpha")
    power = row.slider("Power", 0.5, 0.99, step=0.01, key="analyze_power")
    scale = 100.0 if _percent(res.analysis) else 1.0  # points -> score units
    return {"pair": pairs[labels.index(label)], "delta": float(delta) / scale, "alpha": float(alpha),
            "power": float(power)}


def plan_section(content, source: Source, prepared: Prepared, roles_key: tuple, res: Results) -> None:
    """Minimum detectable effect, questions and answers needed, and a link into the power chapter."""

    st.markdown(content["plan"])
    if not res.analysis.comparisons:
        st.info("Planning compares two models; this file has one.")
        return
    ctl = plan_controls(res)
    plan = _plan(source.key, roles_key, plan_design(res.analysis), ctl["pair"], ctl["delta"], ctl["alpha"],
                 ctl["power"], prepared, res.analysis)
    if isinstance(plan, str):
        st.error(say(plan), icon=":material/error:")
        return
    pct = _percent(res.analysis)
    words = describe(plan, percent=pct)
    show = (lambda x: f"{100 * x:.1f} pts") if pct else (lambda x: f"{x:.3g}")
    row = st.container(horizontal=True)
    row.metric("Minimum detectable effect (this eval)", show(plan.mde))
    row.metric(f"Questions for {show(plan.delta)}", f"{math.ceil(plan.n_needed):,}")
    row.metric("Answers per question (this n)", "n/a" if plan.k_needed is None else f"{math.ceil(plan.k_needed)}")
    st.markdown("\n\n".join(esc(words[key]) for key in ("mde", "n", "k")))
    if plan.resampled:
        kf = plan.k_frame()
        st.dataframe(pd.DataFrame({"Answers per question K": kf["k"], "MDE with this n": [show(x) for x in kf["mde"]],
                                   f"Questions for {show(plan.delta)}": [f"{math.ceil(x):,}" for x in kf["n_needed"]]}),
                     hide_index=True, width="stretch")
    st.caption(f"Estimates from this file (Appendix C): ω² = {plan.omega2:.4g}, σ²_A = {plan.sigma2_model:.4g}, "
               f"σ²_B = {plan.sigma2_baseline:.4g}, K = {plan.k_model:g} / {plan.k_baseline:g}"
               + (f". {esc(plan.note[:1].upper() + plan.note[1:])}." if plan.note else "."))
    low, high = LINK_DELTA_RANGE
    if pct and low <= plan.delta <= high:
        st.page_link("pages/power.py", label="Open the power calculator with these numbers",
                     icon=":material/calculate:", query_params=power_link(plan))
        st.caption(f"The calculator takes ω² = {plan.omega2:.4g} as known (Eq. 9 with z): its questions needed are "
                   "those of this estimate alone, without the allowance above for how uncertain it is.")
    elif pct:
        st.caption(f"The power calculator takes effects from {100 * low:g} to {100 * high:g} points; choose an "
                   "effect in that range to open it with these numbers.")
    else:
        st.caption("The power calculator works on scores between 0 and 1; this file's scores are on another "
                   "scale, so the numbers above are the plan (no link).")


#: The session key of the analysis the exports carry (the page's, with the pass@k section it shows).
EXPORT_KEY = "_analyze_export"
#: The settings the downloaded analysis (.zip) carries, as the page made them (tests reopen them).
BUNDLE_KEY = "_analyze_bundle_settings"


def export_section(content, prepared: Prepared, res: Results, method: str, pass_at: Any = None) -> None:
    """Downloads of the tables, report, methods paragraph and the command that reproduces it; ``pass_at``: the
    pass@k section the page shows, which every export and the command carry (``--pass-at``)."""
    st.markdown(content["export"])
    a = res.analysis if pass_at is None else dataclasses.replace(res.analysis, pass_at=pass_at)
    st.session_state[EXPORT_KEY] = a
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", a.name.rsplit(".", 1)[0])[:60] or "results"
    doc = report.settings_document(a, file_name=a.name)
    # each row one horizontal container: one message to the browser, where columns send one per column plus
    # one (the page's 22 download buttons are re-sent on every control change)
    with st.container(horizontal=True):
        shell.download_table("Report (Markdown)", lambda: report.render(a, "markdown"),
                             file_name=f"{stem}_report.md", mime="text/markdown", key="analyze_dl_md")
        shell.download_table("Tables (LaTeX)", lambda: report.render(a, "latex"), file_name=f"{stem}_tables.tex",
                             mime="application/x-tex", key="analyze_dl_tex")
        shell.download_table("Models (CSV)", lambda: report.models_csv(a), file_name=f"{stem}_models.csv",
                             mime="text/csv", key="analyze_dl_models_csv")
        shell.download_table("Comparisons (CSV)", lambda: report.comparisons_csv(a),
                             file_name=f"{stem}_comparisons.csv", mime="text/csv", key="analyze_dl_pairs_csv")
    with st.container(horizontal=True):
        shell.download_table("Report (JSON)", lambda: report.to_json(a), file_name=f"{stem}_report.json",
                             mime="application/json", key="analyze_dl_json")
        shell.download_table("Settings (JSON)", json.dumps(doc, indent=2, ensure_ascii=False),
                             file_name=f"{stem}_settings.json", mime="application/json", key="analyze_dl_settings")
        shell.download_table("Command (shell)", f"#!/bin/sh\n# reproduces the workbench's analysis\n{doc['command']}\n",
                             file_name=f"{stem}_analyze.sh", mime="text/x-sh", key="analyze_dl_sh")
        shell.download_table("All tables (ZIP of CSV)", lambda: _zip(report.csv_tables(a)), file_name=f"{stem}_tables.zip",
                             mime="application/zip", key="analyze_dl_zip")
    _presenter_exports(a, stem)

    use_clusters = res.opts.use_clusters
    kept = {**bundle_settings(), **({} if pass_at is None else workbench_passk.bundle_settings(pass_at)),
            "command": doc["command"]}  # the pass@k section's k and plan too, so the reopened page shows them
    st.session_state[BUNDLE_KEY] = kept
    shell.download_table("Download this analysis (data + settings, .zip)",
                         lambda: make_bundle(prepared.dataset, kept, use_clusters=use_clusters),
                         file_name=f"{stem}_analysis.zip", mime="application/zip", key="analyze_dl_bundle")
    st.caption("The page's link carries these settings only, not your file. The downloaded analysis carries "
               "both: open the .zip with the uploader above to see exactly this analysis again.")
    st.markdown("**Methods paragraph**")
    st.text(report.methods_paragraph(a))
    st.markdown("**Reproduce with the command line**")
    st.code(doc["command"] + " --format json", language="bash")
    st.caption("Every export uses the interval, standard errors, confidence, adjustment and pairing shown "
               "above; the command reproduces them.")


def _presenter_exports(a, stem: str) -> None:
    """The one-page HTML report and the figures as 16:9 slides (1920 x 1080 PNG, SVG), the same charts as on
    screen; a renderer that fails (e.g. under a memory cap) leaves a message, never a dead server."""

    with st.container(horizontal=True):
        shell.download_table("Report (HTML, one page)", lambda: html_report(a), file_name=f"{stem}_report.html",
                             mime="text/html", key="analyze_dl_html")
        # each figure as :func:`_chart` returned it: built on click, with its level and method line inside
        for kind in ("models", "differences"):
            spec = st.session_state.get(f"_slide_{kind}")
            if not callable(spec):
                continue
            shell.download_table(f"{kind.capitalize()} figure, 16:9 (PNG)", _safe(lambda s=spec: slide_png(elide_spec(s())[0])),
                                 file_name=f"{stem}_{kind}_slide.png", mime="image/png", key=f"analyze_slide_{kind}_png")
            shell.download_table(f"{kind.capitalize()} figure, 16:9 (SVG)", _safe(lambda s=spec: slide_svg(elide_spec(s())[0])),
                                 file_name=f"{stem}_{kind}_slide.svg", mime="image/svg+xml",
                                 key=f"analyze_slide_{kind}_svg")


def _safe(render):
    """A download's data callable that turns a renderer failure into a short text file saying why."""
    def data():
        try:
            return render()
        except EvalStatsError as exc:
            return f"evalbars: the figure could not be drawn here: {exc}\n"
    return data
