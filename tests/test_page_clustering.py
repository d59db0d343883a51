"""Chapter 3 · Clustering, through AppTest: every control by key, the paper's numbers, the live warning,
the URL."""

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import clustering as lesson

PAGE = "pages/clustering.py"


def metrics(at) -> dict[str, tuple[str, str]]:
    return {m.label: (m.value, m.delta) for m in at.metric}


def text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.latex]
    return " ".join(parts)


def warnings_text(at) -> str:
    return " ".join(w.value for w in at.warning)


@pytest.fixture(scope="module")
def default_page():
    return run_page(PAGE)


def test_default_page_renders_every_section(default_page):
    """Title, promise, the four simulator metrics, six charts (the intervals beside the sliders; the design-effect one follows its own drag), notices and the quizzes."""
    at = default_page
    no_exceptions(at)
    assert at.title[0].value == "3 · Clustering"
    assert set(metrics(at)) == {"Naive SE", "Clustered SE", "Design effect", "Effective n"}
    assert len(at.get("vega_lite_chart")) == 6
    body = text(at)
    for section in ("A clustered eval you can shape", "Few and unequal clusters", "The real numbers",
                    "The block bootstrap", "When to cluster"):
        assert section in body
    assert len(at.radio) == 2  # the two quiz questions
    assert warnings_text(at) == ""  # 100 clusters: no few-clusters warning


def test_paper_numbers_appear(default_page):
    """DROP 3.05x, RACE-H 1.10x and MGSM 1.88x with their clusters and questions."""
    table = next(t.value for t in default_page.table if "Ratio" in t.value.columns)
    assert list(table["Ratio"]) == ["3.05x", "1.10x", "1.88x"]
    assert list(table["Clusters"]) == ["588", "1,045", "250"]
    assert list(table["Questions"]) == ["9,622", "3,498", "2,500"]
    assert list(table["SE clustered"]) == ["1.34", "0.51%", "1.62%"]
    assert list(table["SE naive"]) == ["0.44", "0.46%", "0.86%"]
    captions = " ".join(c.value for c in default_page.caption)
    assert "DROP 3.05x, RACE-H 1.10x, MGSM 1.88x" in captions


def test_default_simulation_numbers_match_the_lesson(default_page):
    """The metrics show the lesson's numbers for the default settings (100 clusters of 10, rho 0.30)."""
    sim = lesson.simulate_eval(100, 10, 0.3, seed=lesson.DEFAULT_SEED)
    shown = metrics(default_page)
    assert shown["Naive SE"][0] == f"{sim.naive.se:.2%}"
    assert shown["Clustered SE"][0] == f"{sim.clustered.se:.2%}"
    assert shown["Design effect"] == (f"{sim.clustered.deff:.2f}", "formula 1 + (m−1)ρ: 3.70")
    assert shown["Effective n"][1] == "formula n / DEFF: 270"
    cov = lesson.coverage(100, 10, 0.3, seed=lesson.DEFAULT_SEED)
    assert cov.reps == 1000
    assert f"Over 1,000 simulated evals (100 clusters of 10, ρ = 0.30), the naive 95% interval covered the true 70% " \
           f"in {cov.naive:.1%}" in text(default_page)
    intervals = default_page.table[0].value
    assert list(intervals.index) == ["naive (CLT)", "clustered (CR1)", "block bootstrap"]
    assert intervals.loc["clustered (CR1)", "95% interval"] == f"{sim.clustered.ci_low:.1%} to {sim.clustered.ci_high:.1%}"
    assert intervals.loc["block bootstrap", "95% interval"] == f"{sim.bootstrap.ci_low:.1%} to {sim.bootstrap.ci_high:.1%}"


@pytest.mark.parametrize("query", [{}, {"clustering_icc": "0.5"}, {"clustering_m": "3", "clustering_k": "40"},
                                   {"clustering_icc": "0.05", "clustering_seed": "7"}])
def test_clustered_over_naive_ratio_agrees_with_the_printed_ses(query):
    """Issue 24: "1.78x the naive SE" came from unrounded SEs while 2.43% and 1.37% were printed beside it
    (2.43 / 1.37 = 1.77). The ratio is the quotient of the two numbers the reader sees."""
    shown = metrics(run_page(PAGE, query=query))
    naive, clustered = (float(shown[label][0].rstrip("%")) for label in ("Naive SE", "Clustered SE"))
    assert shown["Clustered SE"][1] == f"{clustered / naive:.2f}x the naive SE", (query, shown)


def test_icc_slider_moves_the_design_effect():
    at = run_page(PAGE)
    at.slider(key="clustering_icc").set_value(0.5).run()
    no_exceptions(at)
    assert metrics(at)["Design effect"][1] == "formula 1 + (m−1)ρ: 5.50"
    assert "1 + (10-1)\\times0.50 = 5.50" in text(at)


def test_cluster_size_slider_moves_the_design_effect():
    at = run_page(PAGE)
    at.slider(key="clustering_m").set_value(40).run()
    no_exceptions(at)
    assert metrics(at)["Design effect"][1] == f"formula 1 + (m−1)ρ: {1 + 39 * 0.3:.2f}"
    assert "100 clusters of 40 questions (4,000 in all)" in text(at)


def test_warning_appears_live_below_30_clusters_and_goes_away():
    """Moving the cluster slider to 29 shows the few-clusters warning; back to 30 hides it."""
    at = run_page(PAGE)
    at.slider(key="clustering_k").set_value(29).run()
    no_exceptions(at)
    assert "Fewer than 30 clusters" in warnings_text(at)
    assert "This eval has 29." in warnings_text(at)
    at.slider(key="clustering_k").set_value(30).run()
    assert warnings_text(at) == ""


def test_seed_input_and_rerun_button_draw_a_new_eval():
    at = run_page(PAGE)
    before = metrics(at)["Clustered SE"][0]
    at.button(key="clustering_seed_rerun").click().run()
    no_exceptions(at)
    assert at.number_input(key="clustering_seed").value == lesson.DEFAULT_SEED + 1
    sim = lesson.simulate_eval(100, 10, 0.3, seed=lesson.DEFAULT_SEED + 1)
    assert metrics(at)["Clustered SE"][0] == f"{sim.clustered.se:.2%}"
    at.number_input(key="clustering_seed").set_value(lesson.DEFAULT_SEED).run()
    assert metrics(at)["Clustered SE"][0] == before


def test_settings_are_written_to_the_url():
    at = run_page(PAGE)
    at.slider(key="clustering_k").set_value(200).run()
    at.slider(key="clustering_icc").set_value(0.1).run()
    assert at.query_params["clustering_k"] == "200"
    assert at.query_params["clustering_icc"] == "0.1"
    at.slider(key="clustering_k").set_value(100).run()  # back to the default: dropped from the URL
    assert "clustering_k" not in at.query_params


def test_url_restores_every_setting():
    """A link with the settings reopens the same scenario, warning included."""
    at = run_page(PAGE, query={"clustering_k": "25", "clustering_icc": "0.5", "clustering_m": "5",
                               "clustering_seed": "7"})
    no_exceptions(at)
    assert at.slider(key="clustering_k").value == 25
    assert at.slider(key="clustering_icc").value == 0.5
    assert at.slider(key="clustering_m").value == 5
    assert at.number_input(key="clustering_seed").value == 7
    assert "This eval has 25." in warnings_text(at)
    sim = lesson.simulate_eval(25, 5, 0.5, seed=7)
    assert metrics(at)["Clustered SE"][0] == f"{sim.clustered.se:.2%}"


def test_out_of_range_url_values_are_clamped():
    at = run_page(PAGE, query={"clustering_k": "2", "clustering_icc": "7"})
    no_exceptions(at)
    assert at.slider(key="clustering_k").value == 5
    assert at.slider(key="clustering_icc").value == 0.9


def test_quiz_answers_are_checked():
    """The design-effect quiz: 'About 360' is right (2,000 / 5.5); a wrong pick shows the right one."""
    at = run_page(PAGE)
    at.radio(key="clustering_quiz0_choice").set_value("About 360")
    at.button(key="clustering_quiz0_check").click().run()
    no_exceptions(at)
    assert any("Correct" in s.value and "5.5" in s.value for s in at.success)
    at.radio(key="clustering_quiz1_choice").set_value("By language (10 clusters)")
    at.button(key="clustering_quiz1_check").click().run()
    assert any("By source problem (250 clusters)" in e.value for e in at.error)


# ---------------------------------------------------------------------------- few and unequal clusters


def fc_caption(at) -> str:
    return next(c.value for c in at.caption if "Monte Carlo" in c.value)


def notices(at) -> str:
    return " ".join(i.value for i in at.info)


def test_few_clusters_default_is_the_dominant_cluster_preset(default_page):
    """The preset's numbers are the lesson's; CR1 + z falls short and CR2 comes close, in the caption and
    the notice built from the numbers; the G and share sliders are disabled under the preset."""
    at = default_page
    fc = lesson.few_clusters("dominant", 12, 0.46, 0.1, seed=1)
    r = fc.result
    assert r.sizes == (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)
    cap = fc_caption(at)
    assert "12 clusters of sizes 231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1; ρ = 0.10" in cap
    for m, name in (("cr1_z", "CR1 + z"), ("cr1_t", "CR1 + t"), ("wild", "wild bootstrap")):
        assert f"{r.coverage[m]:.1%} ({name})" in cap
    assert f"{r.coverage['cr2']:.1%} (CR2, {r.cr2_df:.1f} df)" in cap
    assert r.coverage["cr1_z"] < 0.9 and r.coverage["cr2"] > 0.92
    body = notices(at)
    assert f"**{r.coverage['cr1_z']:.1%}** of 1,000 simulated evals: it covers too rarely" in body
    assert f"Its degrees of freedom are **{r.cr2_df:.1f}**, not 11" in body
    assert at.slider(key="clustering_fc_g").disabled and at.slider(key="clustering_fc_imbalance").disabled
    assert not at.slider(key="clustering_fc_icc").disabled


def test_few_clusters_custom_sliders_drive_the_experiment():
    at = run_page(PAGE)
    at.selectbox(key="clustering_fc_preset").set_value("custom").run()
    no_exceptions(at)
    assert not at.slider(key="clustering_fc_g").disabled
    at.slider(key="clustering_fc_g").set_value(40).run()
    at.slider(key="clustering_fc_imbalance").set_value(0.0).run()
    at.slider(key="clustering_fc_icc").set_value(0.05).run()
    no_exceptions(at)
    r = lesson.few_clusters("custom", 40, 0.0, 0.05, seed=1).result
    assert r.sizes == (13,) * 20 + (12,) * 20
    assert f"{r.coverage['cr2']:.1%} (CR2, {r.cr2_df:.1f} df)" in fc_caption(at)
    assert "are close to G − 1 = 39: the clusters are nearly equal" in notices(at)
    assert at.query_params["clustering_fc_preset"] == "custom"
    assert at.query_params["clustering_fc_g"] == "40"
    assert at.query_params["clustering_fc_imbalance"] == "0.0"
    assert at.query_params["clustering_fc_icc"] == "0.05"


def test_few_clusters_seed_reruns():
    at = run_page(PAGE)
    at.button(key="clustering_fc_seed_rerun").click().run()
    no_exceptions(at)
    assert at.number_input(key="clustering_fc_seed").value == 2
    assert at.query_params["clustering_fc_seed"] == "2"
    r = lesson.few_clusters("dominant", 12, 0.46, 0.1, seed=2).result
    assert f"{r.coverage['cr1_z']:.1%} (CR1 + z)" in fc_caption(at)


def test_few_clusters_url_restores_every_setting_and_clamps():
    at = run_page(PAGE, query={"clustering_fc_preset": "custom", "clustering_fc_g": "99",
                               "clustering_fc_imbalance": "0.3", "clustering_fc_icc": "0.2",
                               "clustering_fc_seed": "5"})
    no_exceptions(at)
    assert at.selectbox(key="clustering_fc_preset").value == "custom"
    assert at.slider(key="clustering_fc_g").value == 60  # clamped
    assert at.slider(key="clustering_fc_imbalance").value == 0.3
    assert at.slider(key="clustering_fc_icc").value == 0.2
    assert at.number_input(key="clustering_fc_seed").value == 5
    r = lesson.few_clusters("custom", 60, 0.3, 0.2, seed=5).result
    assert f"{r.coverage['cr2']:.1%} (CR2, {r.cr2_df:.1f} df)" in fc_caption(at)
    bad = run_page(PAGE, query={"clustering_fc_preset": "nonsense"})
    no_exceptions(bad)
    assert bad.selectbox(key="clustering_fc_preset").value == "dominant"


@pytest.mark.parametrize("query", [{}, {"clustering_icc": "0.05"}, {"clustering_icc": "0.6", "clustering_m": "5"},
                                   {"clustering_k": "25", "clustering_seed": "3"}])
def test_design_effect_formula_recomputes_from_its_printed_ses(query):
    """Issue 24 (instructor review): (0.0243 / 0.0137)² = 3.17 recomputes to 3.15. The SEs in the formula
    now carry the digits that give the printed design effect."""
    import re

    at = run_page("pages/clustering.py", query=query)
    no_exceptions(at)
    formula = next(x.value for x in at.latex if "DEFF" in x.value and "tfrac" in x.value)
    m = re.search(r"\\tfrac\{([\d.]+)\}\{([\d.]+)\}\\Big\)\^2 = ([\d.]+)", formula)
    assert m, formula
    clustered, naive, printed = (float(v) for v in m.groups())
    assert f"{(clustered / naive) ** 2:.2f}" == m.group(3), formula


def test_the_default_eval_is_the_typical_case_and_says_how_often(default_page):
    """Issue 40: the default eval's intervals cover the true 70% (as the clustered one does in ~94% of evals,
    so covering is the rule, not a lucky seed), and the counter under the chart gives both coverages."""
    sim = lesson.simulate_eval(100, 10, 0.3, seed=lesson.DEFAULT_SEED)
    cov = lesson.coverage(100, 10, 0.3, seed=lesson.DEFAULT_SEED)
    assert all(r.ci_low <= sim.truth <= r.ci_high for r in sim.intervals.itertuples())
    assert cov.clustered > 0.9 and cov.naive < 0.8  # covering is typical for the clustered interval only
    body = text(default_page)
    assert "3 of 3 cover the true 70%" in body and "none covers" not in body
    assert (f"Its naive interval covers the true 70% and its clustered one covers. Over 1,000 simulated evals at "
            f"these settings the naive interval covered in {cov.naive:.1%} of them and the clustered in "
            f"{cov.clustered:.1%}") in body
