"""Chapter 5 · Resampling returns: the K curve and its floor, why resamples must not be pooled, a fixed
budget of model calls, and what K does to the minimum detectable effect."""

import streamlit as st

from evalstats_app import shell
from evalstats_app.shell import pct
from evalstats_core.charts import compile_spec
from evalstats_core.charts import resampling as charts
from evalstats_core.lessons import resampling as lesson

content = shell.page_setup("resampling")
state = shell.UrlState(
    {"resampling_alpha": 1.0, "resampling_beta": 1.0, "resampling_k": 4, "resampling_pool_n": 60,
     "resampling_pool_k": 5, "resampling_seed": 7, "resampling_calls": 2000, "resampling_capped": True,
     "resampling_questions": 500, "resampling_cost_q": 0.0, "resampling_mde_n": 198},
    bounds={"resampling_alpha": (0.2, 5.0), "resampling_beta": (0.2, 5.0), "resampling_k": (1, 20),
            "resampling_pool_n": (20, 200), "resampling_pool_k": (1, 20), "resampling_seed": (0, 2**31 - 1),
            "resampling_calls": (200, 20_000), "resampling_questions": (50, 5000), "resampling_cost_q": (0.0, 20.0),
            "resampling_mde_n": (20, 2000)},
)


@shell.shared(max_entries=64, show_spinner=False)
def _k_curve(k: int, alpha: float, beta: float):
    c = lesson.k_curve(k, alpha=alpha, beta=beta)
    return c, compile_spec(charts.k_curve_chart(c.frame, k=k, floor=c.floor))


@shell.shared(max_entries=64, show_spinner=False)
def _pooling(n: int, k: int, seed: int, alpha: float, beta: float):
    p = lesson.pooling_lesson(n, k, seed=seed, alpha=alpha, beta=beta)
    return p, compile_spec(charts.coverage_chart(p.coverage_frame, p.sim_frame)), compile_spec(charts.evals_chart(p.evals_frame, truth=p.true_mean))


@shell.shared(max_entries=64, show_spinner=False)
def _pass_at(n: int, k: int, seed: int, alpha: float, beta: float):
    return lesson.pass_at_lesson(n, k, seed=seed, alpha=alpha, beta=beta)


@shell.shared(max_entries=64, show_spinner=False)
def _budget(calls: int, cost_q: float, cap: int | None, alpha: float, beta: float):
    b = lesson.budget_lesson(calls, cost_question=cost_q, max_questions=cap, alpha=alpha, beta=beta)
    return b, compile_spec(charts.budget_chart(b.frame, k_best=b.result.k_best))


@shell.shared(max_entries=64, show_spinner=False)
def _mde(n: int, k: int):
    m = lesson.mde_lesson(n, k)
    return m, compile_spec(charts.mde_chart(m.frame, k=k, floor=m.mde_floor))


shell.prose(content["intro"])

# --- the K curve -----------------------------------------------------------------------------
shell.prose(content["k_intro"])
c1, c2, c3 = st.columns(3)
alpha = c1.slider("Difficulty shape α", 0.2, 5.0, step=0.1, key="resampling_alpha")
beta = c2.slider("Difficulty shape β", 0.2, 5.0, step=0.1, key="resampling_beta")
k = c3.slider("Answers per question (K)", 1, 20, key="resampling_k")
curve, k_chart = _k_curve(k, alpha, beta)
shape = "uniform on [0, 1]" if alpha == beta == 1.0 else f"Beta({alpha:g}, {beta:g})"
m1, m2, m3, m4 = st.columns(4)
m1.metric("Var(x): between questions", f"{curve.var_x:.4f}")
m2.metric("E[σ²]: within a question", f"{curve.mean_sigma2:.4f}")
m3.metric(f"Variance removed at K = {k}", pct(curve.reduction))
m4.metric("Most resampling can remove (K = ∞)", pct(1 - curve.floor))
shell.chart(k_chart, f"Difficulty {shape}: {k} answers per question leave {pct(curve.relative_variance)} of the "
            f"single-answer variance; no K goes below the floor of {pct(curve.floor)} set by Var(x).",
            name="resampling_k_curve")
shell.notice(content["k_notice"])

shell.prose(content["worked"])
table = curve.table
st.table({"Answers per question": [f"K = {v}" for v in table["k"]],
          "Uniform difficulty (paper)": table["paper_label"].tolist(), f"Your difficulty, {shape}": table["label"].tolist()})
shell.prose(content["next_token"])

# --- do not pool -----------------------------------------------------------------------------
shell.prose(content["pool_intro"])
c1, c2 = st.columns(2)
pool_n = c1.slider("Questions per eval (n)", 20, 200, step=10, key="resampling_pool_n")
pool_k = c2.slider("Answers per question (K)", 1, 20, key="resampling_pool_k")
seed = shell.seed_control("resampling_seed")
pool, cov_chart, evals = _pooling(pool_n, pool_k, seed, alpha, beta)
m1, m2, m3 = st.columns(3)
m1.metric("Pooled-answer intervals that cover", pct(pool.pooled_coverage),
          delta=f"{100 * (pool.pooled_coverage - 0.95):+.1f} points vs 95%")
m2.metric("Question-mean intervals that cover", pct(pool.question_coverage))
m3.metric("Pooled SE / real SE", f"{pool.pooled_se / pool.true_se:.2f}",
          help="√(1 / design effect) of the K answers to a question")
st.caption(f"{pool.reps:,} simulated evals of {pool_n} questions × {pool_k} answers, seed {seed}. Monte Carlo 95% "
           f"intervals: pooled {pct(pool.pooled_mc[0])}–{pct(pool.pooled_mc[1])}, question means "
           f"{pct(pool.question_mc[0])}–{pct(pool.question_mc[1])}; predicted pooled coverage {pct(pool.predicted_pooled)}.")
shell.chart(cov_chart, f"At K = {pool_k} the pooled interval covered the true accuracy in {pct(pool.pooled_coverage)} of "
            f"{pool.reps:,} simulated evals and the question-mean interval in {pct(pool.question_coverage)}; the "
            "pooled line falls further below 95% with every extra answer.", name="resampling_coverage")
shell.chart(evals, f"{lesson.EXAMPLE_EVALS} simulated evals: the pooled interval missed the true accuracy "
            f"({pct(pool.true_mean)}) {pool.pooled_misses} times, the question-mean interval {pool.question_misses} times.",
            name="resampling_evals")
shell.notice(content["pool_notice"])

# --- pass@k ----------------------------------------------------------------------------------
shell.prose(content["passk"])
pk = _pass_at(pool_n, pool_k, seed, alpha, beta)
st.table({"k": pk.frame["k"].tolist(), "True pass@k": [pct(v) for v in pk.frame["truth"]],
          "Estimate (95% interval)": [f"{pct(e)} ({pct(lo)}–{pct(hi)})" for e, lo, hi in
                                      pk.frame[["estimate", "ci_low", "ci_high"]].itertuples(index=False)],
          f"Naive: any of the {pool_k} answers": [pct(v) for v in pk.frame["naive"]]})
st.caption(f"One simulated eval of {pool_n} questions × {pool_k} answers (seed {seed}): the naive count, "
           f"{pct(pk.naive)}, estimates pass@{pool_k} ({pct(pk.naive_truth)}), whatever k you meant.")

# --- a fixed budget --------------------------------------------------------------------------
with shell.optional("A fixed budget: more questions or more answers?",
                     keys=("resampling_calls", "resampling_capped", "resampling_questions", "resampling_cost_q"),
                     why="For planning a run under a fixed number of model calls; the lesson above stands without it."):
    shell.prose(content["budget_intro"])
    c1, c2, c3 = st.columns(3)
    calls = c1.slider("Model calls", 200, 20_000, step=100, key="resampling_calls")
    capped = c2.toggle("Only a fixed set of questions exists", key="resampling_capped")
    cap = c2.slider("Questions available", 50, 5000, step=50, key="resampling_questions", disabled=not capped)
    cost_q = c3.slider("Fixed cost per question (in calls)", 0.0, 20.0, step=0.5, key="resampling_cost_q")
    budget, b_chart = _budget(calls, cost_q, cap if capped else None, alpha, beta)
    best = budget.result
    m1, m2, m3 = st.columns(3)
    m1.metric("Best answers per question", f"K = {best.k_best}")
    m2.metric("Questions at the best K", f"{best.n_best:,.0f}")
    m3.metric("SE at the best K", pct(best.se_best, 2), delta=f"K = 1: {pct(budget.se_k1, 2)}",
              delta_color="off", delta_arrow="off")
    shell.chart(b_chart, f"{calls:,} model calls: K = {best.k_best} with {best.n_best:,.0f} questions gives the smallest "
                f"standard error, {pct(best.se_best, 2)}, against {pct(budget.se_k1, 2)} with one answer per question.",
                name="resampling_budget")
    st.markdown(best.note)
    shell.notice(content["budget_notice"])

# --- the minimum detectable effect -----------------------------------------------------------
shell.prose(content["mde_intro"])
mde_n = st.slider("Questions (n)", 20, 2000, step=1, key="resampling_mde_n")
mde, m_chart = _mde(mde_n, k)
m1, m2, m3, m4 = st.columns(4)
m1.metric("MDE at K = 1", pct(mde.mde_k1))
m2.metric("MDE at K = 10", pct(mde.mde_k10))
m3.metric(f"MDE at your K = {k}", pct(mde.mde_k))
m4.metric("Floor, K = ∞", pct(mde.mde_floor))
shell.chart(m_chart, f"With {mde_n} questions the minimum detectable effect falls from {pct(mde.mde_k1)} at K = 1 to "
            f"{pct(mde.mde_k10)} at K = 10, and never below {pct(mde.mde_floor)}, the floor set by ω² = 1/9.",
            name="resampling_mde")
shell.notice(lesson.mde_sentence(mde) + " " + content["mde_notice"])

shell.notice(content["notice"], title="The lesson")
state.sync()
shell.chapter_footer(content)
