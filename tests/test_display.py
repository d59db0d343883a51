"""Results in a notebook: rich tables (``_repr_html_`` / ``_repr_markdown_``) and the workbench's charts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalstats_core import compare, report, summarize
from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.errors import EvalStatsError


@pytest.fixture(scope="module")
def multilingual():
    return analyze(load("examples/multilingual_clustered.csv"))


def test_html_holds_the_workbench_tables_and_escapes_every_cell(tmp_path):
    path = tmp_path / "r.csv"
    rows = ["question,model,score"] + [f"q{i},{m},{(i * k) % 3 > 0:d}" for i in range(40)
                                       for k, m in ((1, "<b>bold</b>"), (2, "A&B"))]
    path.write_text("\n".join(rows) + "\n")
    a = analyze(load(str(path)))
    page = a._repr_html_()
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page and "A&amp;B" in page
    shown = report.models_display(a, report.model_intervals(a))
    for cell in shown.iloc[0].astype(str):
        assert cell.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in page
    for verdict in report.verdicts(a):
        assert verdict.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in page


def test_markdown_is_the_command_line_report(multilingual):
    assert multilingual._repr_markdown_() == report.render(multilingual, "markdown")


@pytest.mark.filterwarnings("ignore::evalstats_core.errors.EvalStatsWarning")  # 4 clusters, on purpose
def test_summary_and_comparison_show_their_numbers():
    s = summarize([1, 0, 1, 1, 0, 1, 1, 1], [1, 1, 2, 2, 3, 3, 4, 4])
    md = s._repr_markdown_()
    assert md.splitlines()[0] == "| n | n_clusters | mean | se | ci_low | ci_high | df | method |"
    cells = md.splitlines()[2].strip("| ").split(" | ")
    assert [float(c) for c in cells[2:6]] == pytest.approx([s.mean, s.se, s.ci_low, s.ci_high], abs=5e-4)
    assert "Summary at 95% confidence" in s._repr_html_()
    c = compare([1, 0, 1, 1, 0, 1], [0, 0, 1, 0, 0, 1])
    cells = c._repr_markdown_().splitlines()[2].strip("| ").split(" | ")
    head = c._repr_markdown_().splitlines()[0].strip("| ").split(" | ")
    assert float(cells[head.index("diff")]) == pytest.approx(c.diff, abs=5e-4)
    assert float(cells[head.index("p_value")]) == pytest.approx(c.p_value, abs=5e-5)


def test_models_chart_draws_the_analysis_numbers_and_the_ranking(multilingual):
    spec = multilingual.chart("models").to_dict()
    datasets = [rows for rows in spec.get("datasets", {}).values() if rows and "estimate" in rows[0]]
    drawn = {r["model"]: r for r in datasets[0]}
    for m in multilingual.models:
        assert drawn[m.model]["estimate"] == pytest.approx(m.mean)
        assert drawn[m.model]["ci_low"] == pytest.approx(m.ci_low)
    assert drawn["Dreadnought"]["tied"] and not drawn["Frigate"]["tied"]  # Dreadnought leads; Frigate is below
    assert "Mean score by model, multilingual_clustered.csv" in str(spec["title"])


def test_other_charts_and_their_refusals(multilingual):
    assert multilingual.chart("differences").to_dict()["title"]
    assert multilingual.chart("matrix").to_dict()["title"]
    with pytest.raises(EvalStatsError, match="not one of models, differences, matrix"):
        multilingual.chart("pie")
    against = analyze(load("examples/multilingual_clustered.csv"), baseline="Galleon")
    with pytest.raises(EvalStatsError, match="every pair"):
        against.chart("matrix")
    assert "tied" not in str(against.chart("models").to_dict())  # no ranking without every pair


def test_statistics_and_displays_do_not_import_altair():
    code = ("import sys\nimport evalstats_core.analysis, evalstats_core.clustering, evalstats_core.display\n"
            "from evalstats_core.analysis import analyze\nfrom evalstats_core.data import load\n"
            "a = analyze(load('examples/atlas_breeze.csv')); a._repr_html_(); a._repr_markdown_()\n"
            "print('altair' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
