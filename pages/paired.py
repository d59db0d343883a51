"""Chapter 4 · Paired vs unpaired: Atlas vs Breeze, covariance, the correlation sweep, McNemar."""

import streamlit as st

from evalstats_app import shell
from evalstats_app.shell import minus
from evalstats_core.charts import compile_spec
from evalstats_core.charts import paired as charts
from evalstats_core.lessons import paired as lesson

content = shell.page_setup("paired")
CELLS = {"paired_both": 3000, "paired_only_a": 275, "paired_only_b": 150, "paired_neither": 1575}
state = shell.UrlState(
    {"paired_rects": True, "paired_y": "Breeze", "paired_rho": 0.5, "paired_n": 200, "paired_seed": 1, **CELLS},
    bounds={"paired_rho": lesson.SWEEP_RANGE, "paired_n": (20, 2000), "paired_seed": (0, 2**31 - 1),
            **{key: (0, 100_000) for key in CELLS}},
    choices={"paired_y": ("Breeze", "Atlas")},
)


@shell.shared(max_entries=2, show_spinner=False)
def _atlas_breeze():
    """The worked example and its fixed charts (Altair building is not free: build once)."""
    ab = lesson.atlas_breeze()
    return ab, {"agents": compile_spec(charts.agents_chart(ab.scores, ab.means)),
                "differences": compile_spec(charts.differences_chart(ab.table, mean=ab.paired.diff)),
                "comparison": compile_spec(charts.comparison_chart(ab.comparisons))}


@shell.shared(max_entries=8, show_spinner=False)
def _scatter(rects: bool, partner: str):
    ab = lesson.atlas_breeze()
    if partner == "Atlas":  # Atlas against itself: the rectangles are squares and their mean is the variance
        points = lesson.covariance_rectangles(ab.table["atlas"], ab.table["atlas"], ab.table["task"])
        spec = charts.scatter_chart(points, rects=rects, mean_a=ab.summary_a.mean, mean_b=ab.summary_a.mean,
                                    labels=("Atlas", "Atlas"))
    else:
        spec = charts.scatter_chart(ab.rects, rects=rects, mean_a=ab.summary_a.mean, mean_b=ab.summary_b.mean)
    return compile_spec(spec), lesson.deviation_products(partner)


@shell.shared(max_entries=64, show_spinner=False)
def _sweep(rho: float, n: int, seed: int):
    sw = lesson.correlation_sweep(rho, n, seed=seed)
    return sw, compile_spec(charts.correlation_chart(sw.curve, sw.simulated, current=rho))


@shell.shared(max_entries=64, show_spinner=False)
def _mcnemar(both: int, only_a: int, only_b: int, neither: int):
    mc = lesson.mcnemar_lesson(both, only_a, only_b, neither)
    return mc, compile_spec(charts.mcnemar_table_chart(mc.table))


def pct(x: float, digits: int = 1, *, signed: bool = False) -> str:
    return shell.pct(x, digits, typographic=True, signed=signed)


def ci(c) -> str:
    return f"[{pct(c.ci_low)}, {pct(c.ci_high)}]"


def p_text(p: float) -> str:
    return "undefined" if p != p else (f"{p:.2g}" if p < 0.001 else f"{p:.3f}")


ab, fixed = _atlas_breeze()
un, pa = ab.unpaired, ab.paired
verdict = dict(zip(ab.comparisons["method"], ab.comparisons["verdict"], strict=True))
shell.prose(content["intro"])

# ---- the data and the unpaired comparison --------------------------------------------------------
shell.prose(content["data_intro"])
table = ab.table.assign(diff=ab.table["diff"].map(lambda v: minus(f"{v:+.2f}"))).rename(columns={"task": "Task", "description": "Description", "atlas": "Atlas",
                                 "breeze": "Breeze", "diff": "Atlas − Breeze", "winner": "Won by"})
st.dataframe(table, hide_index=True, width="stretch",
             column_config={"Atlas": st.column_config.NumberColumn(format="%.2f"),
                            "Breeze": st.column_config.NumberColumn(format="%.2f"),
                            "Atlas − Breeze": st.column_config.TextColumn(alignment="right")})  # text: a true minus
sa, sb = ab.summary_a, ab.summary_b
shell.chart(fixed["agents"],
            f"Atlas averages {pct(sa.mean)} (95% CI {pct(sa.ci_low)} to {pct(sa.ci_high)}) and Breeze "
            f"{pct(sb.mean)} ({pct(sb.ci_low)} to {pct(sb.ci_high)}): the intervals overlap almost entirely.",
            name="paired_agents")
shell.prose(content["naive"])
st.latex(rf"\mathrm{{SE}}_{{A-B}} = \sqrt{{{sa.se:.4f}^2 + {sb.se:.4f}^2}} = {un.se:.4f}, \qquad "
         rf"{un.diff:+.3f} \pm 1.96 \times {un.se:.4f} = [{un.ci_low * 100:.1f}\%,\ {un.ci_high * 100:.1f}\%]")
a, b, c = st.columns(3)
a.metric("Difference (Atlas − Breeze)", pct(un.diff, signed=True))
b.metric("Unpaired SE", f"{un.se:.4f}")
c.metric("Unpaired 95% CI", ci(un), delta=verdict["unpaired"], delta_color="off", delta_arrow="off")
shell.notice(content["naive_notice"])

# ---- the paired comparison ---------------------------------------------------------------------
shell.prose(content["differences"])
shell.chart(fixed["differences"],
            f"Per-task differences Atlas − Breeze: Breeze wins {ab.b_wins} of {pa.n} tasks; "
            f"the mean difference is {minus(f'{pa.diff:+.3f}')} and the differences' SD is only {ab.sd_diff:.3f}.",
            name="paired_differences")
shell.prose(content["paired"])
st.latex(rf"\mathrm{{SE}}_{{\text{{paired}}}} = \frac{{{ab.sd_diff:.4f}}}{{\sqrt{{{pa.n}}}}} = {pa.se:.4f}, \qquad "
         rf"{pa.diff:+.3f} \pm 1.96 \times {pa.se:.4f} = [{pa.ci_low * 100:.1f}\%,\ {pa.ci_high * 100:.1f}\%]")
a, b, c = st.columns(3)
a.metric("Paired SE", f"{pa.se:.4f}", delta=f"{ab.se_reduction:.0%} smaller than unpaired", delta_color="off",
         delta_arrow="off")
b.metric("Paired 95% CI", ci(pa), delta=verdict["paired"], delta_color="off", delta_arrow="off")
c.metric("p-value (paired)", p_text(pa.p_value), delta=f"unpaired: {p_text(un.p_value)}", delta_color="off",
         delta_arrow="off")
shell.chart(fixed["comparison"],
            f"The same {minus(f'{pa.diff * 100:+.1f}')}-point difference: unpaired SE {un.se:.4f}, 95% CI {ci(un)}, crosses zero; "
            f"paired SE {pa.se:.4f}, 95% CI {ci(pa)}, lies entirely below zero.",
            name="paired_comparison")
shell.notice(content["paired_notice"])

# ---- both ways: the seed's z and the paired t-test ----------------------------------------------
shell.prose(content["both_ways"])
pt = ab.paired_t
a, b = st.columns(2)
a.metric("Normal z (the paper's)", f"p = {p_text(pa.p_value)}", delta=f"95% CI {ci(pa)}", delta_color="off",
         delta_arrow="off")
b.metric(f"Paired t-test ({pt.df:.0f} df)", f"p = {p_text(pt.p_value)}", delta=f"95% CI {ci(pt)}",
         delta_color="off", delta_arrow="off")
st.latex(rf"t = \frac{{{pa.diff:+.3f}}}{{{pa.se:.4f}}} = {pa.z:.2f}, \qquad "
         rf"p_z = {p_text(pa.p_value)}, \qquad p_{{t({pt.df:.0f})}} = {p_text(pt.p_value)}")
st.caption(f"Same difference and SE, two reference distributions: with z the interval {ci(pa)} excludes 0 "
           f"(p = {p_text(pa.p_value)}); with t({pt.df:.0f}) it is {ci(pt)} and crosses 0 (p = {p_text(pt.p_value)}). "
           f"If the true gap were the observed {abs(pa.diff):.0%} and the differences as spread as here, about "
           f"{ab.tasks_needed_t} tasks would give this t-test 80% power at the 5% level ({ab.tasks_needed} by the "
           "paper's z formula, Miller 2024, Eq. 9; chapter 7).")
shell.notice(content["both_ways_notice"], title="What to conclude from 10 tasks")

# ---- scatter and covariance --------------------------------------------------------------------
shell.prose(content["scatter_intro"])


@st.fragment
def scatter() -> None:
    """The scatter, its toggle and the formulas beside it: a fragment, so the toggle reruns only this part,
    and the formulas follow the partner shown (Var(a) and rho = 1 against Atlas itself)."""
    left, right = st.columns([3, 2], gap="large")
    left.toggle("Show covariance rectangles", key="paired_rects")
    partner = left.radio("Plot Atlas against", ("Breeze", "Atlas"), key="paired_y", horizontal=True,
                         format_func={"Breeze": "Breeze (rectangles)", "Atlas": "itself (squares)"}.get)
    chart, products = _scatter(st.session_state["paired_rects"], partner)
    summary, after = lesson.products_sentences(ab, partner, products)
    with left:
        shell.chart(chart, summary, name="paired_scatter", width="content")
        shown = products.assign(**{c: products[c].map(lambda v: "" if v != v else minus(f"{v:+.3f}"))
                                   for c in ("atlas_dev", "partner_dev")},
                                product=products["product"].map(lambda v: minus(f"{v:+.4f}")))
        shown.columns = ["Task", "Atlas − mean (x)", f"{partner} − mean (y)", "Product"]
        with st.expander("Table of deviation products", expanded=partner == "Atlas"):
            st.table(shown.set_index("Task"))
        st.markdown(after)
    with right:
        for formula in lesson.covariance_formulas(ab, partner):
            st.latex(formula)
    state.sync()


scatter()
shell.prose(content["covariance"])
a, b, c = st.columns(3)
a.metric("Correlation ρ", f"{pa.correlation:.2f}")
b.metric("Variance removed by pairing", f"{pa.variance_removed:.0%}")
c.metric("SE reduction", f"{ab.se_reduction:.0%}", delta=f"{un.se:.4f} → {pa.se:.4f}", delta_color="off",
         delta_arrow="off")
shell.notice(content["covariance_notice"].replace("{positive}", str(ab.positive_rectangles)).replace("{n}", str(pa.n)))

# ---- seed 000's leaderboard example -------------------------------------------------------------
ex = lesson.leaderboard_example(0.5)
shell.prose(content["leaderboard"])
# the SEs inside the roots to three decimals, so the printed inputs give the printed result (to two
# decimals, 0.67 and 0.68 make 0.95, not the 0.96 beside them)
se_g, se_d = f"{ex['se_g'] * 100:.3f}", f"{ex['se_d'] * 100:.3f}"
st.latex(rf"\mathrm{{SE}}_{{\text{{unpaired}}}} = \sqrt{{{se_g}^2 + {se_d}^2}} = {ex['unpaired'] * 100:.2f}\%")
st.latex(rf"\mathrm{{SE}}_{{\text{{paired}}}} = \sqrt{{{se_g}^2 + {se_d}^2 - 2(0.5)({se_g})({se_d})}}"
         rf" = {ex['paired'] * 100:.2f}\%")
st.markdown(lesson.leaderboard_sentence(ex))

# ---- the correlation sweep (optional: a lab on the formula above) --------------------------------


@st.fragment
def sweep() -> None:
    """The correlation slider and its simulation (a fragment: moving it reruns only this part)."""
    left, right = st.columns(2)
    rho = left.slider("Correlation between the models' answers", *lesson.SWEEP_RANGE, step=0.05, format="%.2f",
                      key="paired_rho")
    n = right.slider("Questions", 20, 2000, step=10, key="paired_n")
    seed = shell.seed_control("paired_seed")
    sw, chart = _sweep(rho, n, seed)
    cur = sw.current
    shell.chart(chart, f"With {n} questions the unpaired SE stays at {sw.formula_unpaired:.2%} while the paired SE "
                f"falls with the correlation; at ρ = {rho:.2f} the formula gives {sw.formula_paired:.2%} and a "
                f"simulated eval gave {cur.se_paired:.2%}.", name="paired_correlation")
    a, b, c = st.columns(3)
    a.metric("Simulated eval: measured correlation", f"{cur.correlation:.2f}")
    b.metric("Simulated eval: unpaired → paired SE", f"{cur.se_unpaired:.2%} → {cur.se_paired:.2%}")
    c.metric("Simulated eval: variance removed", f"{cur.variance_removed:.0%}")
    state.sync()


with shell.optional("How much does pairing buy? A correlation lab", keys=("paired_rho", "paired_n", "paired_seed"),
                    why="A simulation of the formula above over every correlation; the lesson stands without it."):
    shell.prose(content["sim_intro"])
    sweep()
    shell.notice(content["sim_notice"])

# ---- McNemar -----------------------------------------------------------------------------------


@st.fragment
def mcnemar() -> None:
    """The editable 2x2 table and McNemar's test (a fragment: editing a cell reruns only this part)."""
    cols = st.columns(4)
    labels = ["a: both right", "b: only A right", "c: only B right", "d: both wrong"]
    cells = [col.number_input(label, min_value=0, max_value=100_000, step=1, key=key)
             for col, label, key in zip(cols, labels, CELLS, strict=True)]
    mc, chart = _mcnemar(*cells)
    r = mc.result
    shell.prose(content["mcnemar_formula"])
    shell.prose(content["deeper_mcnemar"])  # the exact test (inline: this is already an optional section)
    if mc.discordant == 0:
        st.warning("No discordant questions (b + c = 0): the models never disagree, so the statistic is undefined.")
    else:
        st.latex(rf"\chi^2 = \frac{{({r.only_a} - {r.only_b})^2}}{{{r.only_a} + {r.only_b}}} = "
                 rf"\frac{{{mc.numerator:,}}}{{{r.discordant:,}}} = {r.statistic:.2f}".replace(",", "{,}"))
    a, b, c, d = st.columns(4)
    a.metric("McNemar χ²", "undefined" if r.statistic != r.statistic else f"{r.statistic:.2f}")
    b.metric("p-value (χ², 1 df)", p_text(r.p_value))
    c.metric("p-value (exact binomial)", p_text(r.p_exact))
    d.metric("Paired z² on the same answers", "undefined" if mc.paired_z_squared != mc.paired_z_squared
             else f"{mc.paired_z_squared:.2f}")
    share = f" ({mc.share_discordant:.1%})" if mc.n else ""
    shell.chart(chart, f"Of {mc.n:,} questions only the {mc.discordant:,} discordant ones{share} enter the test: "
                f"{r.only_a:,} went to A alone and {r.only_b:,} to B alone.", name="paired_mcnemar")
    shell.notice("\n\n".join([*lesson.mcnemar_sentences(mc), content["mcnemar_notice"]]))
    state.sync()


with shell.optional("Right-or-wrong scores: McNemar's test", keys=tuple(CELLS),
                    why="The paired test for 0/1 scores, from the questions the models disagree on."):
    shell.prose(content["mcnemar_intro"])
    mcnemar()

# ---- preferences: battles on one prompt (optional) -----------------------------------------------


@shell.shared(max_entries=1, show_spinner=False)
def _battles():
    return lesson.prompt_battles()


with shell.optional("Preferences: battles on one prompt",
                    why="Why a judge's verdicts on one prompt are not independent, and what that does to ratings."):
    shell.prose(content["battles"])
    battle_table, battle_sentence = _battles()
    st.dataframe(battle_table, hide_index=True)
    st.markdown(battle_sentence)
    shell.notice(content["battles_notice"])

shell.notice(content["notice"], title="What to take away")
state.sync()
shell.chapter_footer(content)
