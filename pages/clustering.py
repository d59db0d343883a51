"""Chapter 3 · Clustering: naive vs clustered SE, design effect, coverage, the paper's numbers."""

import streamlit as st

from evalstats_app import shell
from evalstats_app.shell import pct
from evalstats_core.charts import clustering as charts
from evalstats_core.charts import compile_spec
from evalstats_core.lessons import clustering as lesson

content = shell.page_setup("clustering")
state = shell.UrlState(
    {"clustering_icc": 0.3, "clustering_m": 10, "clustering_k": 100, "clustering_seed": lesson.DEFAULT_SEED,
     "clustering_fc_preset": "dominant", "clustering_fc_g": 12, "clustering_fc_imbalance": 0.46,
     "clustering_fc_icc": 0.1, "clustering_fc_seed": 1},
    bounds={"clustering_icc": (0.0, 0.9), "clustering_m": (1, 40), "clustering_k": (5, 300),
            "clustering_seed": (0, 2**31 - 1), "clustering_fc_g": (2, 60), "clustering_fc_imbalance": (0.0, 0.9),
            "clustering_fc_icc": (0.0, 0.5), "clustering_fc_seed": (0, 2**31 - 1)},
    choices={"clustering_fc_preset": tuple(lesson.FEW_CLUSTERS_PRESETS)},
)


@shell.shared(max_entries=64, show_spinner=False)
def _simulate(k: int, m: int, icc: float, seed: int):
    """One simulated eval and its two charts (built once per setting, filled into templates compiled once:
    charts._template)."""
    sim = lesson.simulate_eval(k, m, icc, seed=seed)
    return (sim, charts.cluster_strip_spec(sim.bars, overall=sim.naive.mean),
            charts.intervals_spec(sim.intervals, truth=sim.truth))


@shell.shared(max_entries=64, show_spinner=False)
def _coverage(k: int, m: int, icc: float, seed: int):
    cov = lesson.coverage(k, m, icc, seed=seed)
    return cov, charts.coverage_spec(cov.frame)


@shell.shared(max_entries=64, show_spinner=False)
def _few_clusters(preset: str, g: int, share: float, icc: float, seed: int):
    fc = lesson.few_clusters(preset, g, share, icc, seed=seed)
    return fc, compile_spec(charts.few_clusters_chart(fc.frame))


@shell.shared(max_entries=64, show_spinner=False)
def _deff(m: int, icc: float):
    return charts.deff_drag_spec(lesson.deff_grid(), m=m, icc=icc)  # filled into a template compiled once


@shell.shared(max_entries=1, show_spinner=False)
def _paper():
    paper = lesson.paper_table()
    return paper, compile_spec(charts.paper_ratios(paper))


def num(x: float, fmt: str = ".2f") -> str:
    return "undefined" if x != x else format(x, fmt)


UNIT = {"%": "%", "points": ""}  # DROP's SEs are F1 points, printed without a unit as in the paper


def times(x: float) -> str:
    return "undefined" if x != x else f"{x:.2f}x"


shell.prose(content["intro"])
shell.prose(content["sim_intro"])


@st.fragment
def simulator() -> None:
    """Sliders, the simulated eval, coverage and the bootstrap: one fragment, so a slider move reruns
    only this part of the page."""
    c1, c2, c3 = st.columns(3)
    icc = c1.slider("Intra-cluster correlation ρ", 0.0, 0.9, step=0.05, format="%.2f", key="clustering_icc")
    m = c2.slider("Questions per cluster m", 1, 40, step=1, key="clustering_m")
    k = c3.slider("Number of clusters C", 5, 300, step=1, key="clustering_k")
    seed = shell.seed_control("clustering_seed")
    sim, strip, interval_chart = _simulate(k, m, icc, seed)
    naive, clus = sim.naive, sim.clustered
    if sim.warnings:  # the core flags fewer than 30 clusters
        st.warning(f"{content['few_clusters']} This eval has {k}.", icon=":material/warning:")
    strip_col, interval_col = st.columns([3, 2])
    with strip_col:
        shell.chart(strip, f"{k} clusters of {m} questions ({naive.n:,} in all) with ρ = {icc:.2f}, sorted by their "
                    f"accuracy: the lowest scores {sim.bars['accuracy'].min():.0%} and the highest "
                    f"{sim.bars['accuracy'].max():.0%}, around an overall {pct(naive.mean)}.",
                    name="clustering_clusters")
    cov, cov_chart = _coverage(k, m, icc, seed)  # cached; counts how typical the eval above is
    with interval_col:
        shell.chart(interval_chart, lesson.intervals_sentence(sim), name="clustering_intervals")
        st.markdown(lesson.typical_sentence(sim, cov))
    a, b, c, d = st.columns(4)
    a.metric("Naive SE", pct(naive.se, 2), help="CLT standard error: every question independent")
    # the ratio of the two SEs as printed beside it (2.43% / 1.37% is 1.77x; the unrounded SEs give 1.78x)
    shown_naive, shown_clus = round(naive.se * 100, 2), round(clus.se * 100, 2)
    b.metric("Clustered SE", pct(clus.se, 2), delta=f"{times(shown_clus / shown_naive if shown_naive else sim.ratio)} "
             "the naive SE", delta_color="off", delta_arrow="off")
    c.metric("Design effect", num(clus.deff), delta=f"formula 1 + (m−1)ρ: {sim.deff_theory:.2f}",
             delta_color="off", delta_arrow="off")
    d.metric("Effective n", num(clus.n_eff, ",.0f"), delta=f"formula n / DEFF: {sim.n_eff_theory:,.0f}",
             delta_color="off", delta_arrow="off")
    st.latex(rf"\mathrm{{DEFF}} = 1 + (m-1)\rho = 1 + ({m}-1)\times{icc:.2f} = {sim.deff_theory:.2f}"
             rf"\qquad \Big(\tfrac{{\mathrm{{SE}}_{{\text{{clustered}}}}}}{{\mathrm{{SE}}_{{\text{{naive}}}}}}\Big)^2"
             # six decimals: the printed SEs give the printed design effect (four gave 3.15 beside 3.17)
             rf" = \Big(\tfrac{{{clus.se:.6f}}}{{{naive.se:.6f}}}\Big)^2 = {num(clus.deff)}")
    st.caption(f"Measured intra-cluster correlation: {num(sim.icc_hat, '.3f')} (true {icc:.2f}); "
               f"{naive.n:,} questions are worth about {num(clus.n_eff, ',.0f')} independent ones. "
               "Kish 1965, Survey Sampling, Sec. 5.4.")
    notes = lesson.simulation_notes(sim)
    for note in notes:
        if not note.startswith("†"):
            st.markdown(note)
    shell.notice(content["sim_notice"])
    shell.prose(content["formulas"])
    shell.deeper(content, "deeper_formulas", "the two standard errors")
    shell.chart(_deff(m, icc), f"The design effect 1 + (m − 1)ρ: at m = {m} and ρ = {icc:.2f} it is "
                f"{sim.deff_theory:.2f}, so {naive.n:,} questions are worth about {sim.n_eff_theory:,.0f}.",
                name="clustering_deff")

    shell.prose(content["coverage_intro"])
    shell.chart(cov_chart, f"Over {cov.reps:,} simulated evals ({k} clusters of {m}, ρ = {icc:.2f}), the naive 95% "
                f"interval covered the true 70% in {pct(cov.naive)} of them and the clustered one in "
                f"{pct(cov.clustered)}.", name="clustering_coverage")
    shell.notice(content["coverage_notice"])

    shell.prose(content["bootstrap_intro"])
    boot, iv = sim.bootstrap, sim.intervals
    st.table(iv.assign(estimate=iv["estimate"].map(pct), se=iv["se"].map(lambda v: pct(v, 2)),
                       ci=[f"{pct(lo)} to {pct(hi)}" + (" †" if cut else "")
                           for lo, hi, cut in zip(iv["shown_low"], iv["shown_high"], iv["clipped"], strict=True)],
                       width=iv["width"].map(pct))[["method", "estimate", "se", "ci", "width"]]
             .set_axis(["Method", "Accuracy", "SE", "95% interval", "Width"], axis=1).set_index("Method"))
    st.caption(f"The same simulated eval, three ways; the bootstrap resampled its {boot.n_clusters} clusters "
               f"{boot.n_boot:,} times. The true accuracy is {pct(sim.truth, 0)}.")
    for note in notes:
        if note.startswith("†"):
            st.markdown(note)
    shell.notice(content["bootstrap_notice"])
    state.sync()


simulator()

# ---- few and unequal clusters ------------------------------------------------------------------
FC_KEYS = ("clustering_fc_preset", "clustering_fc_g", "clustering_fc_imbalance", "clustering_fc_icc", "clustering_fc_seed")


@st.fragment
def few_clusters() -> None:
    """Preset or sizes, ICC and seed; the coverage of four intervals (one cached core call)."""
    presets = lesson.FEW_CLUSTERS_PRESETS
    preset = st.selectbox("Cluster sizes", tuple(presets), format_func=presets.get, key="clustering_fc_preset")
    custom = preset == "custom"
    c1, c2, c3 = st.columns(3)
    g = c1.slider("Number of clusters G", 2, 60, step=1, key="clustering_fc_g", disabled=not custom)
    share = c2.slider("Share of questions in the largest cluster", 0.0, 0.9, step=0.01, format="%.2f",
                      key="clustering_fc_imbalance", disabled=not custom,
                      help="The other clusters split the rest of the 500 questions equally; below 1/G "
                           "the clusters are equal.")
    icc = c3.slider("ICC ρ of the simulated evals", 0.0, 0.5, step=0.01, format="%.2f", key="clustering_fc_icc")
    seed = shell.seed_control("clustering_fc_seed")
    fc, fc_chart = _few_clusters(preset, g, share, icc, seed)
    r = fc.result
    sizes = ", ".join(str(v) for v in r.sizes)
    shell.chart(fc_chart, f"Over {r.reps:,} simulated evals ({r.n_clusters} clusters of sizes {sizes}; ρ = "
                f"{r.icc:.2f}), the 95% intervals covered the true 70% in {pct(r.coverage['cr1_z'])} (CR1 + z), "
                f"{pct(r.coverage['cr1_t'])} (CR1 + t), {pct(r.coverage['cr2'])} (CR2, {r.cr2_df:.1f} df) and "
                f"{pct(r.coverage['wild'])} (wild bootstrap) of them; the black lines are ±1.96 Monte Carlo "
                "standard errors.", name="clustering_few_clusters")
    shell.notice(fc.notice + "\n\n" + content["fc_notice_static"])
    state.sync()


with shell.optional("Lab: few and unequal clusters", keys=FC_KEYS,
                     why="Graduate level, off the main path: why the default is CR2 with Satterthwaite df."):
    shell.prose(content["fc_intro"])
    shell.prose(content["deeper_fc"])  # the four intervals' derivation (already in an optional section)
    few_clusters()

# ---- the paper's numbers -----------------------------------------------------------------------
shell.prose(content["paper_intro"])
paper, ratios = _paper()
shown = paper.assign(
    n_questions=paper["n_questions"].map("{:,}".format), n_clusters=paper["n_clusters"].map("{:,}".format),
    cluster_size=paper["cluster_size"].map("{:.1f}".format),
    se_clustered=[f"{v:.2f}{u}" for v, u in zip(paper["se_clustered"], paper["unit"].map(UNIT), strict=True)],
    se_naive=[f"{v:.2f}{u}" for v, u in zip(paper["se_naive"], paper["unit"].map(UNIT), strict=True)],
    deff=paper["deff"].map("{:.2f}".format), n_eff=paper["n_eff"].map("{:,.0f}".format),
    implied_icc=paper["implied_icc"].map("{:.2f}".format),
)[["eval", "n_questions", "n_clusters", "cluster_size", "se_clustered", "se_naive", "label", "deff", "n_eff",
   "implied_icc"]]
shown.columns = ["Eval", "Questions", "Clusters", "Questions per cluster", "SE clustered", "SE naive",
                 "Ratio", "Design effect", "Effective n", "Implied ICC"]
st.table(shown.set_index("Eval"))
st.caption("SEs and ratios as printed in Miller 2024, arXiv:2411.00640, Table 4 (DROP in F1 points). "
           "The ratios come from unrounded SEs, so 0.51 / 0.46 recomputes to 1.11, not the printed 1.10.")
drop = paper.iloc[0]
shell.chart(ratios, f"Clustered over naive SE: DROP {paper['label'][0]}, RACE-H {paper['label'][1]}, MGSM "
            f"{paper['label'][2]}; DROP's {drop.n_questions:,} questions are worth about {drop.n_eff:,.0f}.",
            name="clustering_paper")
shell.notice(content["paper_notice"])

shell.prose(content["when"])
shell.notice(content["notice"], title="What to take away")
state.sync()
shell.chapter_footer(content)
