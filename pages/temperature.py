"""Chapter 6 · The temperature trap: lowering T turns answer noise into difficulty spread, and can
move the score; the paper's two worked examples."""

import streamlit as st

from evalstats_app import shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import temperature as charts
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import temperature as lesson

content = shell.page_setup("temperature")
state = shell.UrlState(
    {"temperature_dist": "paper2", "temperature_range": (0.2, 0.9), "temperature_alpha": 0.5,
     "temperature_beta": 0.5, "temperature_t": 0.5},
    bounds={"temperature_range": (0.0, 1.0), "temperature_alpha": (0.2, 5.0), "temperature_beta": (0.2, 5.0),
            "temperature_t": (0.0, 1.0)},
    choices={"temperature_dist": tuple(lesson.DISTRIBUTIONS)},
)


@shell.shared(max_entries=64, show_spinner=False)
def _view(kind: str, t: float, low: float, high: float, alpha: float, beta: float):
    v = lesson.temperature_view(kind, t, low=low, high=high, alpha=alpha, beta=beta)
    return v, compile_spec(charts.histogram_chart(v.histogram, t=t)), compile_spec(charts.mean_chart(v.curve, t=t)), compile_spec(charts.variance_chart(v.curve, t=t))


@shell.shared(max_entries=1, show_spinner=False)
def _temperature_examples():  # a name unique across pages: the cache keys on name and source
    return lesson.worked_examples()


def temp(t: float) -> str:
    return "T → 0" if t == 0 else f"T = {t:.2f}"


shell.prose(content["intro"])
shell.prose(content["model"])
c1, c2 = st.columns(2)
kind = c1.selectbox("Difficulty distribution", tuple(lesson.DISTRIBUTIONS), format_func=lesson.DISTRIBUTIONS.get,
                    key="temperature_dist")
low, high = state.defaults["temperature_range"]
alpha, beta = state.defaults["temperature_alpha"], state.defaults["temperature_beta"]
if kind == "uniform":
    low, high = c1.slider("Range of x at T = 1 (a, b)", 0.0, 1.0, step=0.01, key="temperature_range")
elif kind == "beta":
    a_col, b_col = c1.columns(2)
    alpha = a_col.slider("Shape α", 0.2, 5.0, step=0.1, key="temperature_alpha")
    beta = b_col.slider("Shape β", 0.2, 5.0, step=0.1, key="temperature_beta")
t = c2.slider("Temperature T", 0.0, 1.0, step=0.01, key="temperature_t")
try:
    view, hist_chart, mean_chart, var_chart = _view(kind, t, low, high, alpha, beta)
except EvalStatsError as exc:
    st.error(f"{exc}. Move a and b apart.")
    st.stop()

m1, m2, m3, m4 = st.columns(4)
m1.metric(f"Eval score at {temp(t)}", f"{view.mean:.1%}", delta=f"{100 * view.bias:+.1f} points vs T = 1", delta_color="off")
m2.metric("Var(x): between questions", f"{view.var_x:.4f}", delta=f"{view.var_ratio:.2f}× the T = 1 value",
          delta_color="off", delta_arrow="off")
m3.metric("E[σ²]: within a question", f"{view.mean_sigma2:.4f}", delta=f"T = 1: {view.mean_sigma2_t1:.4f}",
          delta_color="off", delta_arrow="off")
m4.metric("Var(x) at T → 0", f"{view.limits.var_x_t0:.4f}", delta=f"mean {view.limits.mean_t0:.1%}",
          delta_color="off", delta_arrow="off")
shell.chart(hist_chart, f"{view.name} at {temp(t)}: {view.end_share:.0%} of the questions sit in the two end bins "
            f"(x_T below 5% or above 95%), against {view.end_share_t1:.0%} at T = 1.",
            name="temperature_histogram")
shell.notice(content["hist_notice"])

shell.prose(content["curves"])
between = 0.0 < t < 1.0  # name the chosen T only when it is not one of the two ends
shell.chart(mean_chart, f"The eval score of {view.name} is {view.mean_t1:.1%} at T = 1"
            + (f", {view.mean:.1%} at {temp(t)}" if between else "")
            + f" and {view.limits.mean_t0:.1%} at T → 0.", name="temperature_mean")
shell.chart(var_chart, f"Var(x) goes from {view.var_x_t1:.4f} at T = 1" + (f" to {view.var_x:.4f} at {temp(t)}" if between else "")
            + f" to {view.limits.var_x_t0:.4f} at T → 0, while E[σ²] falls from {view.mean_sigma2_t1:.4f}"
            + (f" to {view.mean_sigma2:.4f}" if between else "") + " to 0.", name="temperature_variance")
shell.notice(lesson.limits_sentence(view) + "\n\n" + content["curves_notice"])

shell.prose(content["resample"])
k_table = view.k_table
st.table({"": [f"at {temp(x)}" for x in k_table["temperature"].unique()],
          **{f"K = {k}": [f"{v:.4f}" for v in k_table.loc[k_table["k"] == k, "variance"]] for k in ("1", "10", "∞")}})

shell.prose(content["worked"])
examples = _temperature_examples()
st.table({"Difficulty at T = 1": [w.name for w in examples],
          "Eval score, T = 1 → T → 0": [w.mean for w in examples],
          "Var(x), T = 1 → T → 0": [w.var_x for w in examples],
          "Var(x) grows": [f"{w.limits.var_x_ratio:.2f}×" for w in examples]})

shell.notice(content["notice"], title="The lesson")
state.sync()
shell.chapter_footer(content)
