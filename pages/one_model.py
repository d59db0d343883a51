"""Chapter 2 · One model's error bars: Atlas step by step, reruns, a CI calculator, binary vs
continuous scores, and the small-N lab."""

import streamlit as st

from evalstats_app import page_keys, shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import one_model as charts
from evalstats_core.lessons import one_model as lesson

LAB_NS = (3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000)
content = shell.page_setup("one_model")
state = shell.UrlState(
    {"one_model_rerun_seed": 1, "one_model_acc": 0.9, "one_model_n": 50, "one_model_lab_n": 10,
     "one_model_uniform": True, "one_model_theta": 0.9, "one_model_lab_seed": 1, "one_model_task_draw": 1},
    bounds={"one_model_acc": (0.0, 1.0), "one_model_n": (5, 2000), "one_model_theta": (0.0, 1.0),
            "one_model_rerun_seed": (0, 2**31 - 1), "one_model_lab_seed": (0, 2**31 - 1),
            "one_model_task_draw": (1, 10_000)},
    choices={"one_model_lab_n": LAB_NS},
)


# Each cached function returns the core's numbers together with their (pure) charts, so a rerun that
# revisits a setting rebuilds nothing.
@st.cache_data(max_entries=4, show_spinner=False)
def _atlas():
    steps, binary = lesson.atlas_steps(), lesson.binary_vs_continuous()
    atlas = compile_spec(charts.atlas_chart(steps.table, mean=steps.mean, sd=steps.sd, ci_low=steps.ci_low, ci_high=steps.ci_high))
    return steps, binary, atlas, compile_spec(charts.binary_chart(binary.frame))


@st.cache_data(max_entries=64, show_spinner=False)
def _reruns(means: tuple[float, ...], seed: int):
    runs = lesson.rerun_history_frame(means)
    tasks = compile_spec(charts.rerun_tasks_chart(lesson.rerun_tasks_frame(seed, len(means))))
    return runs, compile_spec(charts.rerun_chart(runs)), tasks, lesson.rerun_notes(runs)


@st.cache_data(max_entries=64, show_spinner=False)
def _calculator(accuracy: float, n: int):
    calc, curve = lesson.ci_calculator(accuracy, n), lesson.halfwidth_grid(accuracy)
    bars, rules = lesson.sampling_grid(accuracy)
    return (calc, curve, compile_spec(charts.calculator_chart(calc)), compile_spec(charts.halfwidth_drag_chart(curve, n=n)),
            compile_spec(charts.sampling_drag_chart(bars, rules, accuracy=accuracy, n=n)))


@st.cache_data(max_entries=64, show_spinner=False)
def _lab(n: int, theta: float | None, seed: int):
    lab = lesson.small_n_lab(n, theta, reps=20_000, rng=seed)
    by_n = lesson.coverage_by_n((3, 10, 30, 100, 300, 1000), theta, reps=20_000, rng=seed)
    possible = compile_spec(charts.possible_intervals_chart(lesson.possible_intervals(n))) if n <= 30 else None
    arrivals = lesson.lab_intervals(n, theta, count=100, rng=seed)
    return (lab, by_n, compile_spec(charts.coverage_chart(lab.frame, confidence=lab.confidence)),
            compile_spec(charts.coverage_curve_chart(by_n, confidence=lab.confidence, n=n)), possible,
            arrivals, compile_spec(charts.arrivals_chart(arrivals)), lesson.lab_sentences(lab))


@st.cache_data(max_entries=64, show_spinner=False)
def _one_task(draw: int):
    runs = lesson.one_task_runs(draw)
    return runs, compile_spec(charts.one_task_chart(runs)), lesson.one_task_sentence(runs)


def _next_draw() -> None:
    st.session_state["one_model_task_draw"] = min(st.session_state["one_model_task_draw"] + 1, 10_000)


def pct(x: float, digits: int = 1) -> str:
    return shell.pct(x, digits, typographic=True)


steps, binary, atlas_chart, binary_chart = _atlas()
st.markdown(content["intro"])

# ---- one task, many outcomes (seed 004) ----------------------------------------------------------
shell.prose(content["one_task"])
@st.fragment
def one_task_section() -> None:
    left, right = st.columns([1, 3], vertical_alignment="bottom")
    left.button("Run the task 12 times again", key="one_model_task_rerun", icon=":material/replay:",
                on_click=_next_draw)
    draw = int(right.number_input("Draw", min_value=1, max_value=10_000, step=1, key="one_model_task_draw"))
    runs, chart, sentence = _one_task(draw)
    shell.chart(chart, sentence, name="one_model_one_task")
    state.sync()


one_task_section()

# ---- the worked example ------------------------------------------------------------------------
st.markdown(content["data"])
table = steps.table.assign(score=steps.table["score"].map("{:.2f}".format),
                           deviation=steps.table["deviation"].map("{:+.3f}".format).str.replace("-", "−"),
                           squared=steps.table["squared"].map("{:.4f}".format))
table.columns = ["Q", "Task", "Score sᵢ", "sᵢ − s̄", "(sᵢ − s̄)²"]
st.table(table.set_index("Q"))
st.markdown(content["steps"])
rows = lesson.atlas_rows(steps, pct)
for section, formula, label, value in rows:
    st.markdown(content[section])
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.latex(formula)
    right.metric(label, value)
shell.chart(atlas_chart, lesson.atlas_sentence(steps), name="one_model_atlas")
st.markdown(content["both_ways"])
z_col, t_col = st.columns(2)
z_col.metric(f"Normal z = {steps.z:.2f} (the paper's)", f"[{pct(steps.ci_low)}, {pct(steps.ci_high)}]")
t_col.metric(f"Student's t = {steps.t:.3f} on {steps.df:.0f} df (evalstats' default)",
             f"[{pct(steps.t_low)}, {pct(steps.t_high)}]")
st.markdown(lesson.both_ways_sentence(steps))
shell.notice("\n".join(f"- {note}" for note in lesson.atlas_notes(steps)))

# ---- run the eval again ------------------------------------------------------------------------
st.markdown(content["rerun"])
# Each interactive section is a fragment: moving its controls reruns that section only (in the app;
# AppTest reruns the whole script). Each writes the URL itself, since a fragment rerun skips the end.
@st.fragment
def rerun_section() -> None:
    seed_col, run_col, reset_col = st.columns([2, 1, 1], vertical_alignment="bottom")
    rerun_seed = int(seed_col.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1,
                                           key="one_model_rerun_seed"))
    history = st.session_state.get("one_model_history")
    if history is None or history["seed"] != rerun_seed:
        history = {"seed": rerun_seed, "means": [lesson.rerun_atlas(rerun_seed, 1).mean]}
    if run_col.button("Run the eval again", key="one_model_rerun", icon=":material/replay:", type="primary"):
        history = {"seed": rerun_seed,
                   "means": [*history["means"], lesson.rerun_atlas(rerun_seed, len(history["means"]) + 1).mean]}
    if reset_col.button("Start over", key="one_model_reset", icon=":material/restart_alt:"):
        history = {"seed": rerun_seed, "means": history["means"][:1]}
    st.session_state["one_model_history"] = history
    runs, runs_chart, tasks_chart, notes = _reruns(tuple(history["means"]), rerun_seed)
    last = runs.iloc[-1]
    a, b = st.columns(2)
    a.metric(f"Mean of run {int(last['run'])}", pct(last["mean"]), delta_color="off",
             delta=f"{(last['mean'] - runs['mean'].iloc[0]) * 100:+.1f} points vs run 1" if len(runs) > 1 else None)
    b.metric("Runs inside run 1's 95% CI", f"{int(runs['inside'].sum())} of {len(runs)}")
    left, right = st.columns([3, 2])
    with left:
        shell.chart(runs_chart, lesson.rerun_sentence(runs, steps), name="one_model_reruns")
    with right, st.container(key="noprint_one_model_rerun_tasks"):  # an on-screen exploration, not for a handout
        shell.chart(tasks_chart, f"Run {len(runs)}'s ten task scores, with where each was in the run before (faint).",
                    name="one_model_rerun_tasks")
    shell.notice("\n".join(f"- {note}" for note in notes))
    state.sync()


rerun_section()

# ---- the CI calculator -------------------------------------------------------------------------
st.markdown(content["calculator"])
shell.deeper(content, "deeper_methods", "the four intervals")
@st.fragment
def calculator_section() -> None:
    left, right = st.columns(2)
    accuracy = left.slider("Accuracy", 0.0, 1.0, step=0.005, key="one_model_acc", format="%.3f")
    n = right.slider("Questions n", 5, 2000, step=1, key="one_model_n")
    calc, curve, calc_chart, halfwidth_chart, sampling_chart = _calculator(accuracy, n)
    k = int(calc["k"].iloc[0])
    st.markdown(f"**{k} correct out of {n}** ({pct(k / n)}):")
    shown = calc.assign(interval=[f"[{pct(lo)}, {pct(hi)}]" for lo, hi in zip(calc["ci_low"], calc["ci_high"], strict=True)],
                        half=calc["half_width"].map(lambda v: f"±{v * 100:.1f} points"),
                        outside=calc["outside"].map({True: "yes", False: "no"}))[["label", "interval", "half", "outside"]]
    shown.columns = ["Method", "95% interval", "Half-width", "Leaves [0, 1]?"]
    st.table(shown.set_index("Method"))
    shell.chart(calc_chart, lesson.calculator_sentence(calc, k, n), name="one_model_calculator")
    st.markdown(content["halfwidth_drag"])
    shell.chart(sampling_chart, f"If the true accuracy were {pct(accuracy)}, the observed accuracy of runs of n "
                "questions would spread like this (exact binomial); the vermillion bar is the 95% Wald range.",
                name="one_model_sampling")
    shell.chart(halfwidth_chart, lesson.halfwidth_sentence(curve, accuracy), name="one_model_halfwidth")
    state.sync()


calculator_section()
shell.notice(content["notice_calculator"])

# ---- binary vs continuous ----------------------------------------------------------------------
st.markdown(content["binary"])
left, right = st.columns(2)
left.latex(rf"\mathrm{{SE}}_{{\mathrm{{CLT}}}} = \sqrt{{\frac{{s^2}}{{n}}}} = \sqrt{{\frac{{{binary.variance:.4f}}}"
           rf"{{{binary.n}}}}} = {binary.se_clt:.4f}")
right.latex(rf"\mathrm{{SE}}_{{\mathrm{{Bern}}}} = \sqrt{{\frac{{\bar s(1-\bar s)}}{{n}}}} = "
            rf"\sqrt{{\frac{{{binary.bernoulli_variance:.4f}}}{{{binary.n}}}}} = {binary.se_bernoulli:.4f}")
bf = binary.frame
shell.chart(binary_chart,
            f"Same mean {binary.mean:.3f}: the CLT interval is [{pct(bf.ci_low[0])}, {pct(bf.ci_high[0])}], the "
            f"Bernoulli one [{pct(bf.ci_low[1])}, {pct(bf.ci_high[1])}], {binary.ratio:.1f} times as wide.",
            name="one_model_binary")
shell.notice(content["notice_binary"])

# ---- the small-N lab ---------------------------------------------------------------------------
shell.optional_part("part 2 of this chapter", content["part2"])
st.markdown(content["lab"])
@st.fragment
def lab_section() -> None:
    left, right = st.columns(2)
    lab_n = left.select_slider("Questions per eval, N", options=LAB_NS, key="one_model_lab_n")
    uniform = right.toggle("Draw the true accuracy uniformly for every eval", key="one_model_uniform")
    theta = right.slider("True accuracy (when fixed)", 0.0, 1.0, step=0.01, key="one_model_theta",
                         disabled=uniform)
    lab_seed = shell.seed_control("one_model_lab_seed")
    lab, by_n, coverage_chart, curve_chart, possible_chart, arrivals, arrivals_chart, sentences = _lab(
        lab_n, None if uniform else theta, lab_seed)
    res = lab.frame
    wald, wilson = res.iloc[0], res.iloc[1]
    truth = "a uniformly drawn true accuracy" if uniform else f"true accuracy {theta:.0%}"
    shown = res.assign(coverage=res["coverage"].map(pct), mean_width=res["mean_width"].map("{:.3f}".format),
                       zero_width=res["zero_width"].map(pct), outside=res["outside"].map(pct))
    shown = shown[["label", "coverage", "mean_width", "zero_width", "outside"]]
    shown.columns = ["Method", "Actual coverage", "Mean width", "Zero-width intervals", "Reaching outside [0, 1]"]
    st.table(shown.set_index("Method"))
    st.markdown(" ".join(sentences))
    shell.chart(coverage_chart,
                f"{lab.reps:,} simulated evals of N = {lab_n} with {truth}: Wald covers {pct(wald.coverage)}, "
                f"Wilson {pct(wilson.coverage)} (nominal 95%).", name="one_model_coverage")
    st.markdown(content["arrivals"])
    first = arrivals[arrivals["eval"] == arrivals["eval"].max()].set_index("method")
    summary = (f"The first {int(first.loc['wald', 'eval'])} of these evals one by one: Wald misses the truth "
               f"{int(first.loc['wald', 'misses'])} times, Wilson {int(first.loc['wilson', 'misses'])} times.")
    play = st.toggle("Play: intervals arrive one at a time", key="one_model_play")
    was = st.session_state.setdefault("_one_model_was_playing", play)
    if was != play:  # a timer is set when a fragment is defined: start or stop it with a whole-page rerun
        st.session_state["_one_model_was_playing"] = play
        st.rerun()

    # While playing, this small fragment reruns on a timer and sends the same chart with one more interval
    # shown; paused, the chart's own "Intervals shown" input is the reader's to drag (no rerun at all).
    @st.fragment(run_every=page_keys.ARRIVAL_SECONDS if play else None)
    def player() -> None:
        # read the switch now, not from the closure: a timer already running may outlive the pause
        shown = page_keys.next_arrival(st.session_state.get("one_model_shown", 20),
                                       playing=bool(st.session_state.get("one_model_play")),
                                       count=int(arrivals["eval"].max()))
        st.session_state["one_model_shown"] = shown
        shell.chart(shell.with_param(arrivals_chart, "shown", shown), summary, name="one_model_arrivals")

    with st.container(key="noprint_one_model_arrivals"):  # intervals arriving: for the screen, not a handout
        player()
    w3 = by_n[(by_n["method"] == "wald")]
    shell.chart(curve_chart,
                f"Wald's coverage runs from {pct(w3['coverage'].iloc[0])} at N = 3 to {pct(w3['coverage'].iloc[-1])} at "
                f"N = 1,000; {lesson.coverage_range_sentence(by_n)}", name="one_model_coverage_by_n")
    if possible_chart is not None:
        shell.chart(possible_chart,
                    f"All {lab_n + 1} intervals each method can give at N = {lab_n}: Wald shrinks to a point at 0/{lab_n} "
                    f"and {lab_n}/{lab_n} and spills outside [0, 1] next to them.", name="one_model_possible")
    state.sync()


lab_section()
shell.notice(content["notice_lab"])
shell.deeper(content, "deeper_edges", "true accuracies near 0% and 100%")
st.markdown(content["recommendation"])

state.sync()
shell.chapter_footer(content)
