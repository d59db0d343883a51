"""Chapter 7 · Power calculator: questions needed for an effect, and the effect a given eval can detect.

URL / widget units: ``power_delta`` is a proportion (0.03 = 3 percentage points); ``power_alpha`` and
``power_power`` are probabilities; variances (``power_omega2``, ``power_sigma2_*``, ``power_var_*``) are
on the squared score scale; ``power_k_*`` and ``power_n`` are counts; ``power_deff`` is a ratio >= 1.
"""

import streamlit as st

from evalstats_app import page_keys, shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import power as charts
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import power as lesson

content = shell.page_setup("power")
state = shell.UrlState(
    {"power_delta": 0.03, "power_alpha": 0.05, "power_power": 0.8, "power_omega_mode": "direct",
     "power_omega2": 1 / 9, "power_var_a": 1 / 12, "power_var_b": 1 / 12, "power_rho": 1 / 3,
     "power_preset": "binary", "power_sigma2_a": 0.0, "power_sigma2_b": 0.0, "power_k_a": 1, "power_k_b": 1,
     "power_deff": 1.0, "power_n": 198},
    bounds={"power_delta": (0.001, 0.5), "power_alpha": (0.001, 0.5), "power_power": (0.5, 0.99),
            "power_omega2": (0.0, 1.0), "power_var_a": (0.0, 0.25), "power_var_b": (0.0, 0.25),
            "power_rho": (-1.0, 1.0), "power_sigma2_a": (0.0, 0.25), "power_sigma2_b": (0.0, 0.25),
            "power_k_a": (1, 1000), "power_k_b": (1, 1000), "power_deff": (1.0, 100.0), "power_n": (2, 10_000_000)},
    choices={"power_omega_mode": lesson.OMEGA_MODES, "power_preset": tuple(lesson.PRESETS)},
)
MODES = {"direct": "Type it in", "variances": "From two variances and a correlation", "preset": "Preset"}


@shell.shared(max_entries=64, show_spinner=False)
def _calculate(delta, alpha, power, omega2, sigma2_a, sigma2_b, k_a, k_b, deff, n):
    """The plan, the evals table and both charts: a revisited setting rebuilds nothing."""
    p = lesson.plan(delta, omega2=omega2, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b,
                    alpha=alpha, power=power, deff=deff, n=n)
    evals, curve = lesson.evals_frame(p), lesson.power_frame(p)
    return (p, evals, compile_spec(charts.effect_chart(lesson.effect_frame(p), evals, delta=p.delta, n_required=p.n_required)),
            compile_spec(charts.power_chart(curve, evals, target_power=p.power, n_required=p.n_required,
                                            grid=lesson.power_grid(p, curve), effect=p.delta)))


@shell.shared(max_entries=64, show_spinner=False)
def _picture_spec(alpha, sigma2_a, sigma2_b, k_a, k_b, deff, var_a, var_b):
    """The null/alternative picture's spec: it depends only on these (the effect, n and rho are its own
    parameters, set per rerun), so moving the effect, n or the target power rebuilds nothing."""
    p = lesson.plan(0.03, omega2=var_a + var_b, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b,
                    alpha=alpha, deff=deff)
    return compile_spec(charts.null_alternative_chart(lesson.picture(p, var_a=var_a, var_b=var_b)))


def _picture(delta, alpha, power, omega2, sigma2_a, sigma2_b, k_a, k_b, deff, n, var_a, var_b):
    """The picture at this plan: the cached spec with its effect, n and rho starting where the plan is."""
    p = lesson.plan(delta, omega2=omega2, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b, alpha=alpha,
                    power=power, deff=deff, n=n)
    pic = lesson.picture(p, var_a=var_a, var_b=var_b)
    spec = _picture_spec(alpha, sigma2_a, sigma2_b, k_a, k_b, deff, var_a, var_b)
    for name, value in (("effect", pic.effect_pts), ("logn", round(pic.log10_n, 6)), ("rho", round(pic.rho, 2))):
        spec = shell.with_param(spec, name, value)
    return pic, spec


@shell.shared(max_entries=1, show_spinner=False)
def _worked():
    return lesson.worked_examples()


def _load(settings: dict) -> None:
    st.session_state.update(page_keys.power_widgets(settings))


def controls() -> dict:
    """The scenario's widgets; returns the resolved inputs of the calculation."""
    test, noise, evl = st.columns([1, 1.4, 1], gap="large")
    with test:
        st.markdown("**The test**")
        delta = st.number_input("Effect to detect (0.03 = 3 points)", 0.001, 0.5, step=0.005, format="%.3f",
                                key="power_delta")
        st.caption(f"= {lesson.fmt_points(delta)}")
        alpha = st.number_input("Alpha (false-positive rate)", 0.001, 0.5, step=0.01, format="%.3f",
                                key="power_alpha")
        power = st.slider("Power", 0.5, 0.99, step=0.01, key="power_power")
    with noise:
        st.markdown("**The variances**")
        mode = st.radio("ω² (variance of the question-level difference)", lesson.OMEGA_MODES,
                        format_func=MODES.get, horizontal=True, key="power_omega_mode")
        if mode == "direct":
            st.number_input("ω²", 0.0, 1.0, step=0.01, format="%.4f", key="power_omega2")
        elif mode == "variances":
            a, b, r = st.columns(3)
            a.number_input("Var(x_A)", 0.0, 0.25, step=0.005, format="%.4f", key="power_var_a")
            b.number_input("Var(x_B)", 0.0, 0.25, step=0.005, format="%.4f", key="power_var_b")
            r.slider("Correlation ρ", -1.0, 1.0, step=0.01, key="power_rho")
            st.caption(content["omega_variances"])
        else:
            st.selectbox("Preset", tuple(lesson.PRESETS), format_func=lambda k: lesson.PRESETS[k].label,
                         key="power_preset")
            st.caption(content["omega_presets"])
        a, b = st.columns(2)
        if mode != "preset":
            a.number_input("σ²_A (model A's answer variance)", 0.0, 0.25, step=0.01, format="%.4f", key="power_sigma2_a")
            b.number_input("σ²_B (model B's answer variance)", 0.0, 0.25, step=0.01, format="%.4f", key="power_sigma2_b")
        k_a = a.number_input("K_A (answers per question)", 1, 1000, step=1, key="power_k_a")
        k_b = b.number_input("K_B (answers per question)", 1, 1000, step=1, key="power_k_b")
    with evl:
        st.markdown("**The eval**")
        deff = st.number_input("Design effect (1 = independent questions)", 1.0, 100.0, step=0.1,
                               format="%.2f", key="power_deff")
        n = st.number_input("Questions in your eval (n)", 2, 10_000_000, step=1, key="power_n")
    try:
        omega2, s_a, s_b = lesson.resolve_variances(
            mode, omega2=state.get("power_omega2"), sigma2_a=state.get("power_sigma2_a"),
            sigma2_b=state.get("power_sigma2_b"), var_a=state.get("power_var_a"),
            var_b=state.get("power_var_b"), rho=state.get("power_rho"), preset=state.get("power_preset"))
    except EvalStatsError as exc:
        st.error(str(exc))
        return {}
    noise.caption(f"In use: ω² = {omega2:.4f}, σ²_A = {s_a:.4f}, σ²_B = {s_b:.4f}")
    return dict(delta=delta, alpha=alpha, power=power, omega2=omega2, sigma2_a=s_a, sigma2_b=s_b,
                k_a=k_a, k_b=k_b, deff=deff, n=n)


for section in ("intro", "formula", "controls"):
    shell.prose(content[section])
shell.deeper(content, "deeper_formula", "what ω² and σ² are")
with st.container(border=True):
    inputs = controls()
try:
    result = _calculate(**inputs) if inputs else None
except EvalStatsError as exc:
    st.error(str(exc))
    result = None

if result is not None:
    plan, evals, effect_chart, power_chart = result
    left, right = st.columns(2)
    left.metric("Questions needed", lesson.fmt_n(plan.n_required), help="Eq. 9, rounded up")
    left.markdown(plan.sentence_n)
    right.metric(f"Minimum detectable effect at n = {plan.n:,}", lesson.fmt_points(plan.mde), help="Eq. 10")
    right.markdown(plan.sentence_mde)
    st.caption(f"Per-question variance of the difference: DEFF·ω² + σ²_A/K_A + σ²_B/K_B = {plan.variance:.4f}")

    shell.prose(content["chart_n"])
    shell.chart(effect_chart,
                f"Questions needed against the effect: {lesson.fmt_n(plan.n_required)} for "
                f"{lesson.fmt_points(plan.delta)}; effects below {lesson.fmt_points(evals['mde'].iloc[-1])} need more than "
                f"{evals['eval'].iloc[-1]}'s {evals['n'].iloc[-1]:,} questions, the largest eval listed.",
                name="power_effect")
    shell.notice(lesson.effect_sentence(plan) + " " + content["chart_n_notice"])

    shell.prose(content["chart_power"])
    shell.chart(power_chart,
                f"Power to detect {lesson.fmt_points(plan.delta)}: {plan.power_at_n:.0%} with {plan.n:,} "
                f"questions, {plan.power:.0%} at {lesson.fmt_n(plan.n_required)}; HumanEval's 164 give "
                f"{evals['power'].iloc[0]:.0%}, MMLU's 14,042 give {evals['power'].iloc[-1]:.0%}; MGSM and DROP "
                "count at their clustered size.",
                name="power_curve")
    shell.notice(content["chart_power_notice"])

    shell.prose(content["picture"])
    var_a, var_b = ((st.session_state["power_var_a"], st.session_state["power_var_b"])
                    if st.session_state.get("power_omega_mode") == "variances" else (1 / 12, 1 / 12))
    pic, picture_chart = _picture(**inputs, var_a=var_a, var_b=var_b)
    shell.chart(picture_chart,
                f"The test at n = {plan.n:,} and an effect of {lesson.fmt_points(plan.delta)}: under no difference the "
                f"statistic follows the grey curve and lands beyond ±{pic.z_crit:.2f} (orange) {plan.alpha:.0%} of the "
                f"time; under the effect it follows the blue curve, beyond {pic.z_crit:.2f} {pic.power:.0%} of the time "
                f"(the power, shaded blue). ρ = {pic.rho:.2f} between the models' question scores gives this ω².",
                name="power_picture")
    shell.notice(content["picture_notice"])

    shell.prose(content["evals_table"])
    st.dataframe(evals.assign(mde=100 * evals["mde"], n=evals["n"].round()), hide_index=True, width="stretch",
                 column_config={
        "eval": "Eval", "questions": st.column_config.NumberColumn("Questions", format="localized"),
        "deff": st.column_config.NumberColumn("Design effect", format="%.2f"),
        "n": st.column_config.NumberColumn("Worth (independent)", format="localized"),
        "power": st.column_config.ProgressColumn(f"Power for {lesson.fmt_points(plan.delta)}", format="percent"),
        "mde": st.column_config.NumberColumn("Detectable effect (points)", format="%.1f"),
        "enough": st.column_config.CheckboxColumn("Big enough")})
    st.caption(content["sizes_source"])

shell.prose(content["clustered"])
shell.deeper(content, "deeper_clustered", "the clustered formula")
shell.prose(content["worked"])
for i, ex in enumerate(_worked()):
    a, b, c, d = st.columns([3, 1.3, 1, 0.8], vertical_alignment="center")
    a.markdown(ex.title)
    b.markdown(f"**{ex.shown}**")
    c.markdown(f"paper: {ex.paper}")
    d.button("Load", key=f"power_load{i}", on_click=_load, args=(ex.settings,), icon=":material/input:")
shell.prose(content["worked_notice"])
shell.notice(content["notice"])

state.sync()
shell.chapter_footer(content)
