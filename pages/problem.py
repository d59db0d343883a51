"""Chapter 1 · The problem: Galleon vs Dreadnought, error bars, and the super-population."""

import streamlit as st

from evalstats_app import shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import problem as charts
from evalstats_core.lessons import problem as lesson

content = shell.page_setup("problem")
state = shell.UrlState(
    {"problem_errorbars": False, "problem_reveal": False, "problem_n": 164, "problem_share": 0.5,
     "problem_seed": 1},
    bounds={"problem_n": (20, 1000), "problem_share": (0.0, 1.0), "problem_seed": (0, 2**31 - 1)},
)


# The cached functions return the core's numbers with their (pure) charts: a revisit rebuilds nothing.
@shell.shared(max_entries=4, show_spinner=False)
def _reported():
    scores, diffs = lesson.score_intervals(), lesson.differences()
    return (lesson.reported_table(), scores, diffs, compile_spec(charts.scores_chart(scores, error_bars=False)),
            compile_spec(charts.scores_chart(scores, error_bars=True)), compile_spec(charts.differences_chart(diffs)))


@shell.shared(max_entries=64, show_spinner=False)
def _superpopulation(n: int, share: float, seed: int):
    demo = lesson.superpopulation_demo(0.655, share, n, reps=2000, rng=seed)
    return demo, compile_spec(charts.superpopulation_chart(demo.histogram, accuracy=demo.accuracy, se_total=demo.se_total))


def pct(x: float, digits: int = 1) -> str:
    return shell.pct(x, digits, typographic=True)


def signed(x: float) -> str:
    return shell.pct(x, 1, typographic=True, signed=True)


table, scores, diffs, bare_chart, bars_chart, diffs_chart = _reported()
shell.prose(content["intro"])
bare = table.assign(galleon=table["galleon"].map(pct), dreadnought=table["dreadnought"].map(pct),
                    difference=table["difference"].map(signed), n=table["n"].map("{:,}".format))
bare.columns = ["Eval", "Questions", "Galleon", "Dreadnought", "Galleon − Dreadnought"]
st.table(bare.set_index("Eval"))
st.caption(content["table_caption"])

# ---- error bars -------------------------------------------------------------------------------
shell.prose(content["errorbars"])
# Each interactive section is a fragment: its controls rerun that section only (in the app; AppTest
# reruns the whole script). Each writes the URL itself, since a fragment rerun skips the end.
@st.fragment
def error_bars_section() -> None:
    bars = st.toggle("Show 95% error bars", key="problem_errorbars")
    if bars:
        for row in scores[scores["model"] == "Galleon"].head(2).itertuples():
            st.latex(rf"\text{{{row.eval}}}:\ \mathrm{{SE}} = \sqrt{{\frac{{{row.estimate:.3f} \times "
                     rf"{1 - row.estimate:.3f}}}{{{row.n}}}}} = {pct(row.se, 2)}, \qquad "
                     rf"{pct(row.estimate)} \pm 1.96 \times {pct(row.se, 2)} = "
                     rf"({pct(row.ci_low)},\ {pct(row.ci_high)})".replace("%", r"\%"))
        shell.prose(content["errorbars_after"])
    he = scores.iloc[2]
    shell.chart(bars_chart if bars else bare_chart,
                ("Each model's accuracy with its 95% interval: on HumanEval Galleon's 83.6% spans "
                 f"{pct(he.ci_low)} to {pct(he.ci_high)}, while on MATH the intervals are about 1.3 points "
                 "each side." if bars else
                 "Reported accuracies only: Dreadnought is ahead on HumanEval and MGSM, Galleon on MATH."),
                name="problem_scores")
    if bars:
        shown = scores.assign(
            estimate=scores["estimate"].map(pct), se=scores["se"].map(lambda v: pct(v, 2)),
            ci=[f"({pct(lo)}, {pct(hi)})" for lo, hi in zip(scores["ci_low"], scores["ci_high"], strict=True)],
            n=scores["n"].map("{:,}".format))[["eval", "model", "n", "estimate", "se", "ci"]]
        shown.columns = ["Eval", "Model", "Questions", "Accuracy", "SE", "95% CI"]
        st.table(shown.set_index(["Eval", "Model"]))

    state.sync()


error_bars_section()

# ---- which differences survive -----------------------------------------------------------------
shell.prose(content["reveal"])
@st.fragment
def reveal_section() -> None:
    if st.toggle("Reveal which differences survive", key="problem_reveal"):
        shown = diffs.assign(
            diff=diffs["diff"].map(signed), se=diffs["se"].map(lambda v: pct(v, 2)),
            ci=[f"({signed(lo)}, {signed(hi)})" for lo, hi in zip(diffs["ci_low"], diffs["ci_high"], strict=True)],
            p_value=diffs["p_value"].map("{:.3f}".format), n=diffs["n"].map("{:,}".format),
        )[["eval", "n", "diff", "se", "ci", "p_value", "verdict"]]
        shown.columns = ["Eval", "Questions", "Galleon − Dreadnought", "SE (unpaired)", "95% CI", "p-value",
                         "Verdict"]
        st.table(shown.set_index("Eval"))
        math_row, he_row = diffs.iloc[0], diffs.iloc[1]
        shell.chart(diffs_chart,
                    (f"MATH's +2.5-point gap has an interval of ({signed(math_row.ci_low)}, {signed(math_row.ci_high)}), "
                     f"clear of zero; HumanEval's −3.1 points spans ({signed(he_row.ci_low)}, {signed(he_row.ci_high)}) "
                     "and is unresolved: zero lies inside it."),
                    name="problem_differences")
        st.markdown(f"With the per-question scores, the paired SE of HumanEval's difference would lie between "
                    f"{pct(he_row.paired_se_low, 2)} and {pct(he_row.paired_se_high, 2)}, depending on how often the "
                    f"two models disagree (against {pct(he_row.se, 2)} unpaired): the reported numbers cannot settle it.")
        shell.prose(content["reveal_after"])
        shell.notice(content["notice_problem"])

    state.sync()


reveal_section()

# ---- the key insight ---------------------------------------------------------------------------
shell.prose(content["insight"])
st.latex(r"s_i = x_i + \varepsilon_i, \qquad \mathrm{E}[\varepsilon_i \mid x_i] = 0, \quad "
         r"\mathrm{Var}(\varepsilon_i \mid x_i) = \sigma_i^2")
shell.prose(content["insight_after"])
st.latex(r"\mathrm{Var}(\bar s) = \frac{\mathrm{Var}(s)}{n} = "
         r"\frac{\mathrm{Var}(x) + \mathrm{E}[\sigma_i^2]}{n}")
st.caption("Miller 2024, arXiv:2411.00640, Sec. 2.1 (law of total variance).")

shell.prose(content["demo"])
@st.fragment
def demo_section() -> None:
    left, right = st.columns(2)
    n = left.slider("Questions per run", 20, 1000, step=1, key="problem_n")
    share = right.slider("Share of variance from question difficulty, Var(x)", 0.0, 1.0, step=0.05,
                         key="problem_share", format="%.2f")
    seed = shell.seed_control("problem_seed")
    demo, demo_chart = _superpopulation(n, share, seed)
    st.latex(rf"\mathrm{{Var}}(\bar s) = \frac{{{demo.var_x:.4f} + {demo.mean_sigma2:.4f}}}{{{n}}} = "
             rf"{demo.var_mean:.6f}, \qquad \mathrm{{SE}} = {pct(demo.se_total, 2)}".replace("%", r"\%"))
    a, b, c = st.columns(3)
    a.metric("SE from the formula", pct(demo.se_total, 2))
    b.metric("Spread, new questions each run", pct(demo.sd_fresh, 2))
    c.metric("Spread, same questions each run", pct(demo.sd_same, 2))
    shell.chart(demo_chart, lesson.demo_sentence(demo),
                name="problem_superpopulation")
    shell.notice("\n".join(f"- {note}" for note in lesson.demo_notes(demo)))
    state.sync()


demo_section()

state.sync()
shell.chapter_footer(content)
