"""Chapter 8 · The verdict: Galleon vs Dreadnought redone paired, clustered and with the small-sample t."""

import streamlit as st

from evalstats_app import shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import verdict as charts
from evalstats_core.lessons import verdict as lesson

content = shell.page_setup("verdict")
LABELS = [s.label for s in lesson.STEPS]
state = shell.UrlState(
    {"verdict_rho": 0.5, "verdict_step": LABELS[-1]},
    bounds={"verdict_rho": (0.0, 0.95)},
    choices={"verdict_step": LABELS},
)


@st.cache_data(max_entries=64, show_spinner=False)
def _steps(rho: float, upto: str):
    steps = lesson.verdict_steps(rho)
    shown = steps[steps["label"].isin(LABELS[:LABELS.index(upto) + 1])]
    return steps, shown, compile_spec(charts.steps_chart(shown)), lesson.conclusion(steps)


def pts(x: float, digits: int = 1) -> str:
    return f"{100 * x:+.{digits}f}".replace("-", "−")


shell.prose(content["intro"])
shell.prose(content["steps"])
left, right = st.columns(2)
upto = left.select_slider("Analyses shown", options=LABELS, key="verdict_step")
rho = right.slider("Correlation between the models' answers ρ", 0.0, 0.95, step=0.05, key="verdict_rho",
                   format="%.2f")
steps, shown, chart, sentences = _steps(rho, upto)

last = shown[shown["label"] == upto]
flips = [r.eval for r in last.itertuples()
         if r.verdict != steps[(steps["eval"] == r.eval) & (steps["step"] == "unpaired")].iloc[0].verdict]
summary = (f"At ρ = {rho:.2f}, under '{upto}': "
           + "; ".join(f"{r.eval} {pts(r.diff)} points, interval ({pts(r.ci_low)}, {pts(r.ci_high)}), {r.verdict}"
                       for r in last.itertuples()) + ".")
shell.chart(chart, summary, name="verdict_steps", title="Galleon − Dreadnought under each analysis")
table = last.assign(diff=last["diff"].map(pts), se=last["se"].map(lambda v: f"{100 * v:.2f}"),
                    ci=[f"({pts(lo)}, {pts(hi)})" for lo, hi in zip(last["ci_low"], last["ci_high"], strict=True)],
                    multiplier=last["multiplier"].map("{:.3f}".format))[["eval", "diff", "se", "multiplier", "ci", "verdict"]]
table.columns = ["Eval", "Diff (pts)", "SE (pts)", "×", "Interval", "Verdict"]
st.table(table.set_index("Eval"))
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
    f"{100 * math_unpaired.se:.2f}% and at ρ = {rho:.2f} the paired one is {100 * math_paired.se:.2f}%: the "
    f"interval on the 2.5-point gap becomes ({pts(math_paired.ci_low)}, {pts(math_paired.ci_high)}) points. "
    "(The paper rounds both SEs to 0.67% and prints 0.95% and, at ρ = 0.5, 0.67%.)")
shell.prose(content["clustered"])
shell.prose(content["small"])

shell.prose(content["conclusion"])
for sentence in sentences:
    st.markdown(f"- {sentence}")
shell.notice(content["notice"])
shell.prose(content["connections"])

state.sync()
shell.chapter_footer(content)
