"""Chapter 8 · The verdict: Galleon vs Dreadnought redone paired, clustered and with the small-sample t,
at each benchmark's correlation from the paper's Table 5 (or the reader's "what if")."""

import streamlit as st

from evalstats_app import shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import verdict as charts
from evalstats_core.lessons import verdict as lesson
from evalstats_core.vocabulary import signed_points

content = shell.page_setup("verdict")
LABELS = [s.label for s in lesson.STEPS]
RHO_KEYS = {name: f"verdict_rho_{name.lower()}" for name in lesson.PAPER_RHO}
state = shell.UrlState(
    {**{key: lesson.PAPER_RHO[name] for name, key in RHO_KEYS.items()}, "verdict_step": LABELS[-1]},
    bounds=dict.fromkeys(RHO_KEYS.values(), (0.0, 0.95)),
    choices={"verdict_step": LABELS},
)


@shell.shared(max_entries=64, show_spinner=False)
def _steps(rhos: tuple[tuple[str, float], ...], upto: str):
    steps = lesson.verdict_steps(dict(rhos))
    shown = steps[steps["label"].isin(LABELS[:LABELS.index(upto) + 1])]
    return (steps, shown, compile_spec(charts.steps_chart(shown)), lesson.conclusion(steps),
            lesson.notices(steps))


pts = signed_points


shell.prose(content["intro"])
shell.prose(content["steps"])
upto = st.select_slider("Analyses shown", options=LABELS, key="verdict_step")
st.markdown("**What if ρ were different for this benchmark?** Each slider starts at the correlation the "
            "paper's Table 5 prints for that benchmark.")
rhos = {}
for column, (name, key) in zip(st.columns(len(RHO_KEYS)), RHO_KEYS.items(), strict=True):
    rhos[name] = column.slider(f"ρ on {name} (Table 5: {lesson.PAPER_RHO[name]:.2f})", 0.0, 0.95, step=0.01,
                               key=key, format="%.2f")
steps, shown, chart, sentences, notes = _steps(tuple(rhos.items()), upto)

last = shown[shown["label"] == upto]
first = steps[steps["step"] == lesson.STEPS[0].key].set_index("eval")
flips = [r.eval for r in last.itertuples() if r.verdict != first.loc[r.eval, "verdict"]]
at = ", ".join(f"{name} {r:.2f}" for name, r in rhos.items())
summary = (f"At ρ = {at}, under '{upto}': "
           + "; ".join(f"{r.eval} {pts(r.diff)} points, interval ({pts(r.ci_low)}, {pts(r.ci_high)}), {r.verdict}"
                       for r in last.itertuples()) + ".")
shell.chart(chart, summary, name="verdict_steps", title="Galleon − Dreadnought under each analysis")
table = last.assign(
    diff=last["diff"].map(pts), se=last["se"].map(lambda v: f"{100 * v:.2f}"),
    paper_se=last["paper_se"].map(lambda v: f"{100 * v:.1f}"),
    ci=[f"({pts(lo)}, {pts(hi)})" for lo, hi in zip(last["ci_low"], last["ci_high"], strict=True)],
    multiplier=last["multiplier"].map("{:.3f}".format), power=last["power"].map("{:.0%}".format),
)[["eval", "diff", "se", "paper_se", "multiplier", "ci", "verdict", "power"]]
table.columns = ["Eval", "Diff (pts)", "SE (pts)", "Table 5 SE (pts)", "Multiplier (z or t)", "Interval", "Verdict",
                 f"Power for {100 * lesson.DETECT:g} pts"]
st.table(table.set_index("Eval"))
mgsm = lesson.power_scenario("MGSM", rho=rhos["MGSM"])
st.caption("Table 5 prints the paper's paired SE at its own correlations, clustered on MGSM (rounded to 0.1). "
           "Multiplier: the interval is the difference ± multiplier × SE, z = 1.96 up to step 3 and Student's t "
           "on the questions' (or clusters') degrees of freedom at step 4. Power: chapter 7's chance that this "
           f"analysis resolves a real {100 * lesson.DETECT:g}-point gap, with ω² = n × SE² of the paired difference "
           f"(MGSM: {mgsm['omega2']:.3f}) and MGSM's design effect 1.88² = {mgsm['deff']:.2f}, the settings of "
           "chapter 7's worked example *Chapter 8's MGSM*.")
st.markdown(lesson.table5_note(rhos))
if flips:
    st.markdown(f"Changed since chapter 1 under '{upto}': **{', '.join(flips)}**.")
else:
    st.markdown(f"Under '{upto}' every verdict is still chapter 1's.")

math_unpaired = steps[(steps["eval"] == "MATH") & (steps["step"] == "unpaired")].iloc[0]
math_paired = steps[(steps["eval"] == "MATH") & (steps["step"] == "paired")].iloc[0]
shell.prose(content["paired"])
st.markdown(
    f"On MATH Galleon's SE is {100 * math_paired.se_g:.2f}% and Dreadnought's {100 * math_paired.se_d:.2f}%, "
    f"so the unpaired SE of the difference is "
    f"{100 * math_unpaired.se:.2f}% and at ρ = {math_paired.rho:.2f} the paired one is {100 * math_paired.se:.2f}%: "
    f"the interval on the 2.5-point gap becomes ({pts(math_paired.ci_low)}, {pts(math_paired.ci_high)}) points. "
    "(The paper rounds both SEs to 0.67% and prints 0.95% and, at ρ = 0.5, 0.67%.)")
shell.prose(content["clustered"])
shell.prose(content["small"])

shell.prose(content["conclusion"])
for sentence in sentences:
    st.markdown(f"- {sentence}")
shell.notice("\n".join(f"- {note}" for note in notes))
shell.prose(content["connections"])

state.sync()
shell.chapter_footer(content)
