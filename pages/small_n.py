"""Chapter 2b · Accuracy at small N (part 2 of chapter 2): the interval calculator for k right out of n,
the half-width and sampling drags, and the small-N lab with intervals arriving one by one.

Its settings keep chapter 2's URL keys (``one_model_*``), so links made before the chapter was split open
the same scenario; pages/one_model.py forwards a link carrying them here (chapters.FORWARD).
"""

import streamlit as st

from evalstats_app import page_keys, shell
from evalstats_core.charts import compile_spec
from evalstats_core.charts import one_model as charts
from evalstats_core.lessons import small_n as lesson

LAB_NS = (3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000)
content = shell.page_setup("small_n")
state = shell.UrlState(
    {"one_model_acc": 0.9, "one_model_n": 50, "one_model_lab_n": 10, "one_model_uniform": True,
     "one_model_theta": 0.9, "one_model_lab_seed": 1},
    bounds={"one_model_acc": (0.0, 1.0), "one_model_n": (5, 2000), "one_model_theta": (0.0, 1.0),
            "one_model_lab_seed": (0, 2**31 - 1)},
    choices={"one_model_lab_n": LAB_NS},
)


@shell.shared(max_entries=64, show_spinner=False)
def _calculator(accuracy: float, n: int):
    calc, curve = lesson.ci_calculator(accuracy, n), lesson.halfwidth_grid(accuracy)
    bars, rules = lesson.sampling_grid(accuracy, n=n)
    # the three charts filled into templates compiled once (charts._template): 3-15 ms, not 17-80 ms each
    return (calc, curve, charts.calculator_spec(calc), charts.halfwidth_drag_spec(curve, n=n),
            charts.sampling_drag_spec(bars, rules, accuracy=accuracy, n=n))


@shell.shared(max_entries=64, show_spinner=False)
def _lab(n: int, theta: float | None, seed: int):
    lab = lesson.small_n_lab(n, theta, reps=20_000, rng=seed)
    by_n = lesson.coverage_by_n((3, 10, 30, 100, 300, 1000), theta, reps=20_000, rng=seed)
    possible = charts.possible_intervals_spec(lesson.possible_intervals(n)) if n <= 30 else None
    arrivals = lesson.lab_intervals(n, theta, count=100, rng=seed)
    return (lab, by_n, charts.coverage_spec(lab.frame, confidence=lab.confidence),
            compile_spec(charts.coverage_curve_chart(by_n, confidence=lab.confidence, n=n)), possible,
            arrivals, charts.arrivals_spec(arrivals), lesson.lab_sentences(lab))


def pct(x: float, digits: int = 1) -> str:
    return shell.pct(x, digits, typographic=True)


shell.prose(content["intro"])

# ---- the CI calculator -------------------------------------------------------------------------
shell.prose(content["calculator"])
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
    shell.prose(content["halfwidth_drag"])
    shell.chart(sampling_chart, f"If the true accuracy were {pct(accuracy)}, the observed accuracy of runs of n "
                "questions would spread like this (exact binomial); the vermillion bar is the 95% Wald range.",
                name="one_model_sampling")
    shell.chart(halfwidth_chart, lesson.halfwidth_sentence(curve, accuracy), name="one_model_halfwidth")
    state.sync()


calculator_section()
shell.notice(content["notice_calculator"])

# ---- the small-N lab ---------------------------------------------------------------------------
shell.prose(content["lab"])
@st.fragment
def lab_section() -> None:
    left, right = st.columns(2)
    lab_n = left.select_slider("Questions per eval, N", options=LAB_NS, key="one_model_lab_n")
    uniform = right.toggle("Pick the true accuracy uniformly at random for every eval", key="one_model_uniform")
    theta = right.slider("True accuracy (when fixed)", 0.0, 1.0, step=0.01, key="one_model_theta",
                         disabled=uniform)
    lab_seed = shell.seed_control("one_model_lab_seed")
    lab, by_n, coverage_chart, curve_chart, possible_chart, arrivals, arrivals_chart, sentences = _lab(
        lab_n, None if uniform else theta, lab_seed)
    res = lab.frame
    wald, wilson = res.iloc[0], res.iloc[1]
    truth = "a true accuracy picked uniformly at random" if uniform else f"true accuracy {theta:.0%}"
    shown = res.assign(coverage=res["coverage"].map(pct), mean_width=res["mean_width"].map("{:.3f}".format),
                       zero_width=res["zero_width"].map(pct), outside=res["outside"].map(pct))
    shown = shown[["label", "coverage", "mean_width", "zero_width", "outside"]]
    shown.columns = ["Method", "Actual coverage", "Mean width", "Zero-width intervals", "Reaching outside [0, 1]"]
    st.table(shown.set_index("Method"))
    st.markdown(" ".join(sentences))
    shell.chart(coverage_chart,
                f"{lab.reps:,} simulated evals of N = {lab_n} with {truth}: Wald covers {pct(wald.coverage)}, "
                f"Wilson {pct(wilson.coverage)} (nominal 95%).", name="one_model_coverage")
    shell.prose(content["arrivals"])
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
shell.prose(content["recommendation"])

state.sync()
shell.chapter_footer(content)
