"""Chapter 2a · One model's error bars: one task run 12 times, Atlas step by step (z and t), reruns, and
binary vs continuous scores. Part 2 (the interval calculator and the small-N lab) is pages/small_n.py."""

import streamlit as st

from evalstats_app import shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import one_model as charts
from evalstats_core.lessons import one_model as lesson

content = shell.page_setup("one_model")  # a link with part 2's settings is forwarded to pages/small_n.py
state = shell.UrlState(
    {"one_model_rerun_seed": 1, "one_model_task_draw": 1},
    bounds={"one_model_rerun_seed": (0, 2**31 - 1), "one_model_task_draw": (1, 10_000)},
)


# Each cached function returns the core's numbers together with their (pure) charts, so a rerun that
# revisits a setting rebuilds nothing.
@shell.shared(max_entries=4, show_spinner=False)
def _atlas():
    steps, binary = lesson.atlas_steps(), lesson.binary_vs_continuous()
    atlas = compile_spec(charts.atlas_chart(steps.table, mean=steps.mean, sd=steps.sd, ci_low=steps.ci_low, ci_high=steps.ci_high))
    return steps, binary, atlas, compile_spec(charts.binary_chart(binary.frame))


@shell.shared(max_entries=64, show_spinner=False)
def _reruns(means: tuple[float, ...], seed: int):
    runs = lesson.rerun_history_frame(means)
    tasks = compile_spec(charts.rerun_tasks_chart(lesson.rerun_tasks_frame(seed, len(means))))
    return runs, compile_spec(charts.rerun_chart(runs)), tasks, lesson.rerun_notes(runs)


@shell.shared(max_entries=64, show_spinner=False)
def _one_task(draw: int):
    runs = lesson.one_task_runs(draw)
    return runs, compile_spec(charts.one_task_chart(runs)), lesson.one_task_sentence(runs)


def _next_draw() -> None:
    st.session_state["one_model_task_draw"] = min(st.session_state["one_model_task_draw"] + 1, 10_000)


def pct(x: float, digits: int = 1) -> str:
    return shell.pct(x, digits, typographic=True)


steps, binary, atlas_chart, binary_chart = _atlas()
shell.prose(content["intro"])

# ---- one task, many outcomes (seed 004) ----------------------------------------------------------
shell.prose(content["one_task"])
@st.fragment
def one_task_section() -> None:
    left, right = st.columns([3, 2], vertical_alignment="bottom")  # the button's label never clipped
    left.button("Run the task 12 times again", key="one_model_task_rerun", icon=":material/replay:",
                on_click=_next_draw)
    draw = int(right.number_input("Batch", min_value=1, max_value=10_000, step=1, key="one_model_task_draw"))
    runs, chart, sentence = _one_task(draw)
    shell.chart(chart, sentence, name="one_model_one_task")
    state.sync()


one_task_section()

# ---- the worked example ------------------------------------------------------------------------
shell.prose(content["data"])
table = steps.table.assign(score=steps.table["score"].map("{:.2f}".format),
                           deviation=steps.table["deviation"].map(lambda v: shell.minus(f"{v:+.3f}")),
                           squared=steps.table["squared"].map("{:.4f}".format))
table.columns = ["Q", "Task", "Score sᵢ", "sᵢ − s̄", "(sᵢ − s̄)²"]
st.table(table.set_index("Q"))
shell.prose(content["steps"])
rows = {section: rest for section, *rest in lesson.atlas_rows(steps, pct)}
# the sections named here, in order, so the speaker notes (evalstats_app.notes) read them without running the page
for section in ("step_mean", "step_variance", "step_sd", "step_se", "step_ci"):
    formula, label, value = rows[section]
    shell.prose(content[section])
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.latex(formula)
    right.metric(label, value)
shell.chart(atlas_chart, lesson.atlas_sentence(steps), name="one_model_atlas")
shell.prose(content["both_ways"])
z_col, t_col = st.columns(2)
z_col.metric(f"Normal z = {steps.z:.2f} (the paper's)", f"[{pct(steps.ci_low)}, {pct(steps.ci_high)}]")
t_col.metric(f"Student's t = {steps.t:.3f} on {steps.df:.0f} df (evalstats' default)",
             f"[{pct(steps.t_low)}, {pct(steps.t_high)}]")
st.markdown(lesson.both_ways_sentence(steps))
shell.notice("\n".join(f"- {note}" for note in lesson.atlas_notes(steps)))

# ---- run the eval again ------------------------------------------------------------------------
shell.prose(content["rerun"])
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

# ---- binary vs continuous ----------------------------------------------------------------------
shell.prose(content["binary"])
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

shell.prose(content["next"])

state.sync()
shell.chapter_footer(content)
