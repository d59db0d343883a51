"""The results workbench in a real browser: upload a CSV, read the tables and verdicts, download every
export, move a control, and recover from a bad file."""

from __future__ import annotations

import json

import pytest
from _pw import SHOTS, shot, step_slider, wait_charts, wait_ready

CSV = ("question,model,score\n"
       + "".join(f"q{i:03d},alpha,{int(i % 5 != 0)}\nq{i:03d},beta,{int(i % 3 != 0)}\nq{i:03d},gamma,{int(i % 2 == 0)}\n"
                 for i in range(120)))


@pytest.fixture
def upload_file(tmp_path):
    path = tmp_path / "my_results.csv"
    path.write_text(CSV, encoding="utf-8")
    return path


def _upload(page, server, path) -> None:
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_text("my_results.csv", exact=False).first.wait_for()
    page.get_by_text("alpha, beta, gamma").first.wait_for()
    wait_ready(page)
    wait_charts(page, 2)


def tall_shot(page, name: str, height: int = 7000) -> None:
    """Screenshot the whole page: Streamlit scrolls inside its own container, so grow the viewport first."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(1500)
    wait_charts(page, 2)
    shot(page, name)


def wait_tables(page, count: int) -> None:
    """Wait until ``count`` dataframes have drawn (they load lazily and show grey placeholders first)."""
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=\"stDataFrame\"] canvas').length >= {count}")
    page.wait_for_timeout(300)


def test_default_example_draws_tables_and_charts(server, page):
    """Opening /analyze shows the Atlas/Breeze example: both charts, the verdict, the guardrails."""
    page.goto(server + "/analyze")
    wait_ready(page)
    wait_charts(page, 2)
    page.get_by_text("Breeze and Atlas cannot be told apart: Breeze - Atlas = +5.0 points (95% CI -0.2 to 10.2, "
                     "an interval that includes zero; p 0.059); with 10 questions the standard error rests on 9.0 "
                     "degrees of freedom: it is within 0.55x to 1.45x of the true one (95%), which the t interval "
                     "allows for.").wait_for()
    page.get_by_text("Checks passed").first.wait_for()  # the small-n check is among them: t on 9 df
    wait_tables(page, 3)
    tall_shot(page, "analyze_default")
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(0).screenshot(path=str(SHOTS / "analyze_models_chart.png"))
    charts.nth(1).screenshot(path=str(SHOTS / "analyze_differences_chart.png"))


def test_upload_shows_tables_and_verdicts(server, page, upload_file):
    """set_input_files on the uploader analyses the file: inferred structure, tables and verdicts appear."""
    _upload(page, server, upload_file)
    page.get_by_text("Read 360 scores from my_results.csv").first.wait_for()  # the status box beside the uploader
    page.get_by_text("scores are binary").first.wait_for()
    page.get_by_text("120 questions, 3 models").first.wait_for()
    page.get_by_text("beats").first.wait_for()
    for name in ("alpha", "beta", "gamma"):
        assert page.get_by_text(name).count() >= 1
    assert page.locator('[data-testid="stDataFrame"]').count() >= 4  # models, pairs, McNemar, ranking
    assert page.locator('[data-testid="stException"]').count() == 0
    wait_tables(page, 4)
    tall_shot(page, "analyze_uploaded", 8000)


EXPORTS = {
    "Report (Markdown)": ("my_results_report.md", lambda t: "| Model |" in t and "## Verdicts" in t),
    "Tables (LaTeX)": ("my_results_tables.tex", lambda t: r"\begin{tabularx}" in t and "alpha" in t),
    "Models (CSV)": ("my_results_models.csv", lambda t: t.startswith("model,n,n_clusters") and "gamma" in t),
    "Comparisons (CSV)": ("my_results_comparisons.csv", lambda t: t.startswith("model,baseline,n,diff")),
    "Report (JSON)": ("my_results_report.json", lambda t: len(json.loads(t)["models"]) == 3),
    "Settings (JSON)": ("my_results_settings.json",
                        lambda t: json.loads(t)["command"].startswith("evalbars analyze my_results.csv")),
    "Command (shell)": ("my_results_analyze.sh", lambda t: "evalbars analyze my_results.csv" in t),
}


def test_controls_redraw_the_results_and_leave_the_page_around_them(server, page, upload_file):
    """A new confidence level and a new adjustment redraw the results (the controls and results are one fragment:
    only that part reruns), the URL follows each, and the reading controls above and the notes below stay."""
    _upload(page, server, upload_file)
    step_slider(page, page.get_by_role("slider", name="Confidence level"), "ArrowLeft", 1)
    page.get_by_text("Each model's mean with its 90% interval").first.wait_for()
    assert "analyze_confidence=0.9" in page.url
    page.locator('[data-testid="stSelectbox"]').filter(has_text="p-value adjustment").click()
    page.get_by_role("option", name="Benjamini–Hochberg (false discovery rate)", exact=True).click()
    page.wait_for_function("() => location.href.includes('analyze_adjust=bh')")
    wait_ready(page)
    page.get_by_text("Benjamini–Hochberg adjustment, α = 0.1").first.wait_for()  # the ranking, at 90%
    wait_charts(page, 2)
    assert "analyze_confidence=0.9" in page.url
    page.get_by_text("alpha, beta, gamma").first.wait_for()  # what was inferred from the file, above
    page.get_by_text("The rules this page follows").first.wait_for()  # the notes below
    shot(page, "analyze_controls_fragment")


def test_every_export_downloads(server, page, upload_file):
    """Each export button downloads a file with the expected name and content; each chart as PNG and SVG."""
    _upload(page, server, upload_file)
    for label, (name, check) in EXPORTS.items():
        with page.expect_download() as info:
            page.get_by_role("button", name=label).click()
        download = info.value
        assert download.suggested_filename == name
        text = open(download.path(), encoding="utf-8").read()
        assert check(text), (label, text[:300])
    for chart in ("analyze_models", "analyze_differences"):
        for kind, magic in (("PNG", b"\x89PNG"), ("SVG", b"<svg")):
            button = page.locator(f'[class*="st-key-{chart}_{kind.lower()}"] button')
            with page.expect_download() as info:
                button.click()
            assert info.value.suggested_filename == f"{chart}.{kind.lower()}"
            with open(info.value.path(), "rb") as fh:
                assert fh.read()[:4] == magic
    wait_ready(page)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_power_slider_moves_the_plan(server, page):
    """ArrowRight on the plan's power slider raises the number of questions needed, and the URL follows."""
    page.goto(server + "/analyze?analyze_example=synthetic")
    wait_ready(page)
    wait_charts(page, 2)
    box = page.locator('[data-testid="stMetric"]').filter(has_text="Questions for 3.0 pts").first
    before = box.locator('[data-testid="stMetricValue"]').inner_text()
    # one press at a time, each waiting for its rerun (five presses at once lost one under load: 0.84)
    step_slider(page, page.get_by_role("slider", name="Power"), "ArrowRight", 5)
    page.wait_for_function(
        """(before) => {
            const box = [...document.querySelectorAll('[data-testid="stMetric"]')]
                .find(b => b.innerText.includes('Questions for 3.0 pts'));
            return box && !box.innerText.includes(before);
        }""", arg=before)
    wait_ready(page)
    after = box.locator('[data-testid="stMetricValue"]').inner_text()
    assert int(after.replace(",", "")) > int(before.replace(",", ""))
    assert "analyze_power=0.85" in page.url
    wait_tables(page, 4)
    shot(page, "analyze_synthetic_power")


def test_bad_upload_gives_error_and_page_recovers(server, page, tmp_path):
    """A file with a non-numeric score shows the engine's message; removing it brings back the example."""
    bad = tmp_path / "broken.csv"
    bad.write_text("question,model,score\nq1,A,1\nq2,A,great\nq1,B,0\nq2,B,1\n", encoding="utf-8")
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(bad))
    alert = page.locator('[data-testid="stAlertContentError"]').first
    alert.wait_for()
    assert "great" in alert.inner_text() and "scores must be numbers" in alert.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.set_viewport_size({"width": 1400, "height": 2400})
    page.wait_for_timeout(500)
    shot(page, "analyze_bad_file")
    page.get_by_role("button", name="Remove broken.csv").click()
    page.get_by_text("Breeze and Atlas cannot be told apart").wait_for()
    wait_ready(page)


def test_reported_numbers_mode(server, page):
    """The reported-numbers mode shows intervals, the unpaired comparison and what cannot be said."""
    page.goto(server + "/analyze?analyze_mode=reported")
    wait_ready(page)
    page.get_by_text("What cannot be said without per-question scores").wait_for()
    page.get_by_text("these numbers alone do not separate them", exact=False).first.wait_for()
    wait_tables(page, 3)  # the editor and the two result tables
    shot(page, "analyze_reported")


EVIL = "<b>=cmd|' /C calc'!A0</b>"


def test_hostile_model_names_show_as_text_and_csv_neutralises_formulas(server, page, tmp_path):
    """Model names with HTML and spreadsheet formulas show as literal text and the CSV export defuses '='."""
    path = tmp_path / "hostile.csv"
    rows = "".join(f'q{i},{EVIL},{int(i % 3 != 0)}\nq{i},"=HYPERLINK(""http://x"")",{int(i % 4 != 0)}\n'
                   for i in range(40))
    path.write_text("question,model,score\n" + rows, encoding="utf-8")
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    # this file, not the example (whose page also says "What was inferred"): then the page below is this file's
    page.get_by_text("What was inferred from hostile.csv").first.wait_for()
    wait_ready(page)
    wait_charts(page, 2)
    main = page.locator('[data-testid="stMain"]')
    assert main.locator('[data-testid="stMarkdownContainer"] b').count() == 0  # no tag was rendered
    assert EVIL in main.inner_text()  # the name is shown literally
    with page.expect_download() as info:
        page.get_by_role("button", name="Models (CSV)").click()
    lines = open(info.value.path(), encoding="utf-8").read().splitlines()
    assert any(line.startswith(EVIL + ",") for line in lines)  # starts with '<': not a formula, kept as is
    assert any(line.startswith('"\'=HYPERLINK(') for line in lines)  # '=' cell prefixed with a quote
    assert not any(line.startswith(("=", '"=')) for line in lines)


def test_nineteen_models_get_a_readable_matrix_and_a_one_page_leader_plot(server, page, tmp_path):
    """19 models with long names: the pairwise view is a heat map in rank order plus every model against the
    leader on one page; names are whole; both figures carry a title and the method line."""
    import numpy as np

    rng = np.random.default_rng(19)
    names = [f"FuseChat-{v}-7B-{t}" for v in ("VaRM", "SFT", "DPO", "ORPO") for t in ("a", "b", "c", "d", "e")][:19]
    ability = np.linspace(0.35, 0.75, 19)
    difficulty = rng.normal(size=600)
    lines = ["question," + ",".join(names)]
    for i, d in enumerate(difficulty):
        p = 1 / (1 + np.exp(-(np.log(ability / (1 - ability)) - d)))
        lines.append(f"q{i}," + ",".join(str(int(x)) for x in rng.random(19) < p))
    path = tmp_path / "nineteen.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_text("nineteen.csv", exact=False).first.wait_for()
    wait_ready(page)
    page.set_viewport_size({"width": 1400, "height": 9000})  # Streamlit draws charts as they scroll into view
    wait_charts(page, 3)
    page.wait_for_timeout(1000)
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    titles = [charts.nth(i).inner_text() for i in range(charts.count())]
    assert any("every pairwise difference" in t for t in titles) and any("against the leader" in t for t in titles)
    matrix = charts.filter(has_text="every pairwise difference").first
    leader = charts.filter(has_text="against the leader").first
    SHOTS.mkdir(parents=True, exist_ok=True)
    matrix.screenshot(path=str(SHOTS / "analyze_19_matrix.png"))
    leader.screenshot(path=str(SHOTS / "analyze_19_leader.png"))
    assert leader.bounding_box()["height"] < 1200  # the forest of 18 differences fits on one page
    assert page.locator('[data-testid="stException"]').count() == 0


def test_wild_bootstrap_toggle_adds_its_p_value(server, page):
    """On the clustered example, the wild cluster bootstrap toggle adds a p-value column beside the
    comparisons, and CR1 can be chosen to see the paper's numbers."""
    page.goto(server + "/analyze?analyze_example=multilingual")
    wait_ready(page)
    wait_charts(page, 2)
    page.get_by_text("Wild cluster bootstrap p-values").click()
    wait_ready(page)
    page.wait_for_function("() => location.href.includes('analyze_wild')")
    wait_tables(page, 3)
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.wait_for_timeout(800)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text("Standard errors").first.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "analyze_wild_toggle.png"), full_page=False)


def test_presenter_reads_the_summary_first_and_the_comparisons_fit_1280(server, page):
    """At 1280 px: the three-line summary comes before the tables, the comparisons table is not cut (the p to
    quote is on screen), and the 16:9 figure and the HTML report download."""
    page.set_viewport_size({"width": 1280, "height": 2400})
    page.goto(server + "/analyze?analyze_example=multilingual")
    wait_ready(page)
    wait_charts(page, 2)
    wait_tables(page, 2)
    summary = page.locator('[class*="st-key-analyze_summary"]')
    summary.get_by_text("the p-value to quote").wait_for()
    summary.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "analyze_presenter_summary_1280.png"), full_page=False)
    first_table = page.locator('[data-testid="stDataFrame"]').first
    assert summary.bounding_box()["y"] < first_table.bounding_box()["y"]
    pairs = page.locator('[data-testid="stDataFrame"]').nth(1)
    pairs.scroll_into_view_if_needed()
    box = pairs.bounding_box()
    assert box["x"] + box["width"] <= 1280
    widths = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].slice(0, 2)
        .map(d => { const s = d.querySelector('.dvn-scroller'); return s ? s.scrollWidth - s.clientWidth : 0; })""")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "analyze_presenter_1280.png"), full_page=False)
    assert widths[1] <= 1, widths  # no horizontal scroll: every column of the comparisons table is visible
    for label, magic in (("Report (HTML, one page)", b"<!DOCTYPE html>"), ("Models figure, 16:9 (PNG)", b"\x89PNG")):
        with page.expect_download() as info:
            page.get_by_role("button", name=label).click()
        with open(info.value.path(), "rb") as fh:
            assert fh.read()[: len(magic)] == magic
    assert page.locator('[data-testid="stException"]').count() == 0
