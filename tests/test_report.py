"""report: paper-format tables (Tables 2, 3, 5), verdicts, methods, the JSON document, and escaping of
user text (Markdown pipes, LaTeX specials, CSV formula injection)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from evalstats_core import report
from evalstats_core.analysis import Analysis, ModelResult, PairResult, analyze
from evalstats_core.data import load
from evalstats_core.errors import EvalStatsError
from evalstats_core.report import (
    comparisons_csv,
    comparisons_table,
    csv_safe,
    escape_latex,
    escape_markdown,
    json_document,
    methods_paragraph,
    models_csv,
    models_table,
    render,
    to_json,
    verdicts,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def atlas():
    return analyze(load(EXAMPLES / "atlas_breeze.csv"))


@pytest.fixture(scope="module")
def atlas_cr1():
    return analyze(load(EXAMPLES / "atlas_breeze.csv"), method="cr1")


@pytest.fixture(scope="module")
def mgsm():
    return analyze(load(EXAMPLES / "multilingual_clustered.csv"))


def model_row(name, mean, se, n, clusters=None):
    return ModelResult(model=name, n=n, n_clusters=clusters, k=1, k_min=1, k_max=1, mean=mean, se=se,
                       ci_low=mean - 1.959964 * se, ci_high=mean + 1.959964 * se, se_naive=se, deff=1.0, n_eff=n,
                       df=math.inf, method="cr1", interval="CLT normal (z)")


def paper_math() -> Analysis:
    """Galleon vs Dreadnought on MATH as printed in the paper (Tables 2 and 5)."""
    diff, se = 0.025, 0.0067
    pair = PairResult(model="Galleon", baseline="Dreadnought", n=5000, n_left_out=0, n_clusters=None,
                      mean_model=0.655, mean_baseline=0.630, diff=diff, se=se, ci_low=diff - 1.959964 * se,
                      ci_high=diff + 1.959964 * se, z=diff / se, p_value=1.9e-4, p_adjusted=1.9e-4,
                      correlation=0.50, se_unpaired=0.0095, se_paired=se, mcnemar_statistic=None,
                      mcnemar_chi2_p=None, only_model=None, only_baseline=None)
    return Analysis(models=(model_row("Galleon", 0.655, 0.0067, 5000), model_row("Dreadnought", 0.630, 0.0067, 5000)),
                    comparisons=(pair,), warnings=(), notes=(), name="math.csv", confidence=0.95, baseline="Dreadnought",
                    paired=True, clustered=False, adjust="holm", score_kind="binary", n_questions=5000,
                    n_clusters=None, unit="percent")


def cells(markdown: str, row: int) -> list[str]:
    """Cells of a Markdown table row (0 = header), splitting on unescaped pipes."""
    line = markdown.splitlines()[row if row == 0 else row + 1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


# ---------------------------------------------------------------------------------- paper formats


def test_paper_table_2_and_5_cells():
    """MATH row of Tables 2 and 5: '65.5% (0.7%)', '+2.5% (0.7%)', '(+1.2%, +3.8%)', correlation 0.50."""
    a = paper_math()
    mt, ct = models_table(a), comparisons_table(a)
    assert cells(mt, 1)[:3] == ["Galleon", "5,000", "65.5% (0.7%)"]
    assert cells(mt, 2)[2] == "63.0% (0.7%)"
    # differences in percentage points (the unit in the header), levels in percent
    assert cells(ct, 0)[:5] == ["Model", "Baseline", "Model − Baseline (SE), points", "95% CI, points", "Correlation"]
    assert cells(ct, 1)[:5] == ["Galleon", "Dreadnought", "+2.5 (0.7)", "(+1.2, +3.8)", "0.50"]


def test_clustered_table_has_clusters_naive_se_and_design_effect(mgsm):
    """Table 3 format: questions, clusters, clustered mean (SE), plus the naive SE and the design effect."""
    mt = models_table(mgsm)
    assert cells(mt, 0) == ["Model", "Questions", "Clusters", "Mean (SE)", "95% CI", "Naive SE", "Design effect"]
    g = mgsm.model("Galleon")
    assert cells(mt, 1) == ["Galleon", "2,500", "250", f"{100 * g.mean:.1f}% ({100 * g.se:.1f}%)",
                            f"({100 * g.ci_low:.1f}%, {100 * g.ci_high:.1f}%)", f"{100 * g.se_naive:.1f}%",
                            f"{g.deff:.2f}"]
    header = cells(comparisons_table(mgsm), 0)
    assert "McNemar exact p" in header  # one label everywhere; with clusters the cell is "—", as JSON's null
    col = header.index("McNemar exact p")
    assert all(cells(comparisons_table(mgsm), i)[col] == "—" for i in (1, 2, 3))
    assert all(c["mcnemar_p"] is None for c in json.loads(to_json(mgsm))["comparisons"])


def test_raw_units_for_scores_outside_0_1():
    """A 1-10 judge scale is printed in its own units, without percent signs."""
    data = b"question,model,score\n" + b"".join(f"q{i},A,{i % 10 + 1}\nq{i},B,{(i * 3) % 10 + 1}\n".encode()
                                                 for i in range(40))
    res = analyze(load(data))
    assert res.unit == "score" and "%" not in models_table(res).split("\n", 2)[2]
    assert "points" not in verdicts(res)[0]


def test_latex_tables(atlas_cr1, atlas):
    tex = models_table(atlas_cr1, "latex")
    assert r"\begin{tabularx}{\linewidth}" in tex and r"\toprule" in tex
    assert r"Atlas & 10 & 63.6 [51.6, 75.6] & 6.1 \\" in tex
    assert r"\caption{Mean score (\%) on atlas\_breeze.csv (95\% CI, normal (z))}" in tex
    assert r"Breeze & Atlas & +5.0 [+0.5, +9.5] & 0.031" in comparisons_table(atlas_cr1, "latex")
    # the default t(9) interval: scipy.stats.ttest_rel(breeze, atlas).confidence_interval() = (-0.2%, +10.2%)
    assert r"Breeze & Atlas & +5.0 [$-$0.2, +10.2] & 0.059" in comparisons_table(atlas, "latex")
    with pytest.raises(EvalStatsError, match="models_csv"):
        models_table(atlas, "csv")


# --------------------------------------------------------------------------------------- verdicts


def test_verdict_significant_with_caveat(atlas_cr1, atlas):
    assert verdicts(atlas_cr1) == ["Breeze beats Atlas by 5.0 points (95% CI 0.5 to 9.5; p 0.031); with only 10 "
                                   "questions the normal interval is narrower than it should be (t on 9 degrees of "
                                   "freedom would be 15% wider)."]
    # the paired t-test on 10 tasks: p = 0.059, an interval that crosses zero
    assert verdicts(atlas) == ["Breeze and Atlas cannot be told apart: Breeze - Atlas = +5.0 points (95% CI -0.2 to "
                               "10.2, an interval that includes zero; p 0.059); with 10 questions the standard error "
                               "rests on 9.0 degrees of freedom: it is within 0.55x to 1.45x of the true one (95%), "
                               "which the t interval allows for."]


def test_verdict_not_significant_and_holm_caveat():
    res = analyze(load(EXAMPLES / "synthetic_resampled.csv"))
    v = verdicts(res)
    assert v[0].startswith("chat-7b and base-7b cannot be told apart: chat-7b - base-7b = +2.5 points (95% CI")
    assert "includes zero" in v[0]
    c = res.comparisons[2]  # chat-13b vs chat-7b: p = 0.030, Holm-adjusted 0.060
    assert c.p_value < 0.05 <= c.p_adjusted
    # the verdict leads with the adjusted result, never "beats" when the adjusted test says no
    assert v[2].startswith(f"chat-13b and chat-7b cannot be told apart after Holm adjustment for 3 comparisons "
                           f"(adjusted p {c.p_adjusted:.3f}; unadjusted {c.p_value:.3f}): chat-13b - chat-7b = +3.1 "
                           "points")
    assert "beats" not in v[2]


def test_verdict_losing_model_first_when_the_difference_is_negative(mgsm):
    v = verdicts(mgsm)
    c = mgsm.comparisons[1]  # Frigate - Galleon < 0
    assert c.diff < 0 and v[1].startswith(f"Galleon beats Frigate by {-100 * c.diff:.1f} points (95% CI "
                                          f"{-100 * c.ci_high:.1f} to {-100 * c.ci_low:.1f}; adjusted p (Holm) ")


def test_methods_paragraph_cites_its_sources(atlas, mgsm, atlas_cr1):
    plain, clustered = methods_paragraph(atlas), methods_paragraph(mgsm)
    for text in (plain, clustered):
        assert "Miller 2024, arXiv:2411.00640" in text or "Miller (2024, arXiv:2411.00640" in text
    assert "n - 1 degrees of freedom" in plain and "Cameron" not in plain
    for source in ("CR2", "Bell & McCaffrey 2002", "Pustejovsky & Tipton 2018", "Imbens & Kolesar 2016",
                   "Satterthwaite"):
        assert source in clustered
    assert "Holm" in clustered and "McNemar" in clustered
    cr1 = methods_paragraph(analyze(load(EXAMPLES / "multilingual_clustered.csv"), method="cr1"))
    assert "Cameron & Miller" in cr1 and "CR1" in cr1 and "normal" in cr1 and "Bowyer et al., ICML 2025" in cr1
    assert "Bowyer et al., ICML 2025" in methods_paragraph(atlas_cr1)


# ------------------------------------------------------------------------------------------- JSON


def test_json_document_keys_are_fixed(mgsm):
    doc = json.loads(to_json(mgsm))
    assert list(doc) == ["models", "comparisons", "warnings", "settings"]
    assert list(doc["models"][0]) == ["model", "n", "n_clusters", "k", "mean", "se", "ci", "se_naive", "deff", "df",
                                      "se_method", "method", "interval"]
    assert list(doc["comparisons"][0]) == ["model", "baseline", "n", "diff", "se", "se_method", "ci", "statistic",
                                           "reference", "z", "df", "p_value", "p_adjusted", "correlation",
                                           "se_unpaired", "method", "mcnemar_p", "wild_p_value", "interval"]
    assert doc["models"][0]["se_method"] == "cr2" and doc["settings"]["cluster_se"] == "cr2"
    c = doc["comparisons"][0]  # statistic = diff / se read against t on df; z kept (same number) for one release
    assert c["statistic"] == c["z"] == pytest.approx(c["diff"] / c["se"]) and c["reference"] == "t"
    assert doc["settings"]["interval"] == "auto"
    s = doc["settings"]
    for key in ("file", "format", "question_col", "model_col", "score_col", "cluster_col", "confidence", "baseline",
                "evalstats_version", "command"):
        assert key in s
    assert s["cluster_col"] == "cluster" and s["file"] == "multilingual_clustered.csv"
    assert doc["models"][0]["ci"] == [mgsm.models[0].ci_low, mgsm.models[0].ci_high]


def test_json_has_no_nan():
    """Undefined numbers (correlation of a constant model, z of identical models) are null, never NaN; the p of
    identical models is 1 (issue 46: a difference of 0 is no evidence of one; it was null)."""
    data = b"question,model,score\nq1,A,1\nq2,A,1\nq3,A,1\nq1,B,1\nq2,B,1\nq3,B,1\n"
    res = analyze(load(data))
    assert math.isnan(res.comparisons[0].correlation) and math.isnan(res.comparisons[0].z)

    def reject(name):
        raise AssertionError(f"invalid JSON constant {name}")

    doc = json.loads(to_json(res), parse_constant=reject)
    assert doc["comparisons"][0]["correlation"] is None and doc["comparisons"][0]["z"] is None
    assert json_document(res)["comparisons"][0]["p_value"] == 1.0


def test_settings_command_reproduces_the_analysis(mgsm):
    cmd = json_document(analyze(load(EXAMPLES / "multilingual_clustered.csv"), baseline="Galleon", adjust="bh",
                                confidence=0.9))["settings"]["command"]
    assert cmd.startswith("evalbars analyze multilingual_clustered.csv --layout long")
    for part in ("--cluster-col cluster", "--baseline Galleon", "--confidence 0.9", "--adjust bh"):
        assert part in cmd


# ------------------------------------------------------------------------------------ user text


def tricky(name_a: str, name_b: str) -> Analysis:
    data = f"question,model,score\nq1,{name_a},1\nq2,{name_a},0\nq3,{name_a},1\nq1,{name_b},0\nq2,{name_b},0\nq3,{name_b},1\n"
    return analyze(load(data.encode()))


@pytest.mark.parametrize("name", ["=cmd|' /C calc'!A0", "+SUM(1)", "-2+3", "@A1"])
def test_csv_formula_injection_is_neutralised(name):
    """Text cells starting with = + - @ get a leading quote; numbers (even negative) stay numbers."""
    res = tricky(name, "B")
    rows = list(csv.reader(io.StringIO(models_csv(res))))
    assert rows[1][0] == "'" + name
    pairs = list(csv.reader(io.StringIO(comparisons_csv(res))))
    assert pairs[1][:2] == ["B", "'" + name]
    assert float(pairs[1][3]) < 0 and not pairs[1][3].startswith("'")  # B - name = -1/3: a number


def test_csv_safe_leaves_harmless_cells():
    assert csv_safe("gpt-4") == "gpt-4" and csv_safe(-0.5) == -0.5 and csv_safe("") == ""
    assert csv_safe("\rx") == "'\rx" and csv_safe("\tx") == "'\tx"


def test_markdown_escapes_pipes_and_never_emits_html():
    res = tricky("a|b <script>x", "B")
    md = render(res, "markdown")
    assert re.search(r"(?<!\\)<script>", md) is None and r"\<script>" in md
    header = cells(models_table(res), 0)
    assert cells(models_table(res), 1)[0] == r"a\|b \<script>x" and len(cells(models_table(res), 1)) == len(header)
    assert escape_markdown("x\ny|z") == r"x y\|z"


def test_latex_escapes_specials():
    assert escape_latex(r"a_b&c%d$e#f{g}h~i^j\k") == (r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i"
                                                      r"\textasciicircum{}j\textbackslash{}k")
    tex = render(tricky("m_1&co", "B"), "latex")
    assert r"m\_1\&co" in tex and "m_1&co" not in tex


def test_one_model_has_no_comparison_sections():
    res = analyze(load(b"question,model,score\n" + b"".join(f"q{i},A,{i % 3 / 2}\n".encode() for i in range(50))))
    md = render(res, "markdown")
    assert res.comparisons == () and "## Models" in md and "## Comparisons" not in md and "## Verdicts" not in md
    assert "50 questions, 1 model, continuous scores" in md  # singular for one model
    assert "2 models," in render(analyze(load(EXAMPLES / "atlas_breeze.csv")), "markdown")
    assert json.loads(render(res, "json"))["comparisons"] == []


def test_render_formats(atlas):
    md = render(atlas, "markdown")
    for heading in ("# Results: atlas\\_breeze.csv", "## Models", "## Comparisons", "## Verdicts", "## Warnings",
                    "## Methods", "## How the file was read"):
        assert heading.replace("\\_", "_") in md.replace("\\_", "_")
    assert json.loads(render(atlas, "json"))["comparisons"][0]["model"] == "Breeze"
    assert render(atlas, "csv").startswith("model,n,n_clusters,k,mean,se,ci_low,ci_high,se_naive,deff,df,se_method,method,"
                                           "interval\n")
    assert "\\begin{itemize}" in render(atlas, "latex")
    assert render(atlas, "html").startswith("<!DOCTYPE html>")
    with pytest.raises(EvalStatsError, match="must be one of markdown, latex, csv, json, html"):
        render(atlas, "rtf")


def test_a_rounding_level_difference_never_prints_as_minus_zero():
    """Two models with the same scores differ by ~1e-16 at most; the tables say 0.0, not -0.0."""
    from evalstats_core.report import Formatter

    class _A:
        unit = "percent"
        models = ()
        comparisons = ()

    style = Formatter(_A())
    assert style.num(-1.1e-16) == "0.0%"
    assert style.num(-1.1e-16, signed=True) == "0.0%"  # a zero has no sign: neither "-0.0%" nor "+0.0%"
    assert style.num(0.0004, signed=True) == "0.0%"
    assert style.num(-0.004, signed=True) == "-0.4%"
    assert style.num(0.004, signed=True) == "+0.4%"


def test_page_markdown_latex_print_a_near_zero_difference_the_same_way():
    """One formatter: the workbench's table, the Markdown and the LaTeX export print the same difference and
    interval strings (issue 10: the page said "-0.0%" where Markdown said "+0.0%")."""
    from evalstats_core.data import load
    from evalstats_core.report import comparisons_display, comparisons_table

    # B = A +/- 0.1 alternately, and one question 1e-5 lower: a difference of -2.5e-7 beside an SE of ~1.6 points
    rows = "question,A,B\n" + "".join(
        f"q{i},0.5,{0.5 + (0.1 if i % 2 else -0.1) - (1e-5 if i == 3 else 0)}\n" for i in range(40))
    a = analyze(load(rows.encode(), name="z.csv"), adjust="bh")
    shown = comparisons_display(a).iloc[0]
    diff_cell, ci_cell = shown["Model − Baseline (SE), points"], shown["95% CI, points"]
    assert diff_cell.startswith("0.0") and "-0.0" not in diff_cell and "+0.0" not in diff_cell
    md, tex = comparisons_table(a, "markdown"), comparisons_table(a, "latex")
    assert diff_cell in md and ci_cell in md
    assert diff_cell.split(" (")[0] + " [" in tex and "$-$0.0" not in tex and "+0.0 [" not in tex
    label = "p (Benjamini–Hochberg)"  # one label per method: the page's header is the export's
    details = report.comparisons_details(a).iloc[0]
    assert label in details.index and label in md and "$p$ (Benjamini--Hochberg)" in tex


def test_csv_is_one_table_per_file_that_pandas_reads(mgsm, tmp_path):
    """Each CSV table (models, comparisons) is a file of its own with one header row."""
    import pandas as pd

    from evalstats_core.report import csv_tables

    files = csv_tables(mgsm)
    assert list(files) == ["models.csv", "comparisons.csv"]
    for name, body in files.items():
        (tmp_path / name).write_text(body)
        frame = pd.read_csv(tmp_path / name)
        assert len(frame) == (3 if name == "models.csv" else 3)
    models = pd.read_csv(tmp_path / "models.csv")
    assert models["se"].tolist() == [m.se for m in mgsm.models] and (models["method"] == "cr2").all()
    assert render(mgsm, "csv") == files["models.csv"]
    assert render(mgsm, "csv", table="comparisons") == files["comparisons.csv"]
    with pytest.raises(EvalStatsError, match="table"):
        render(mgsm, "csv", table="pairs")


def _few_clusters_file() -> bytes:
    """4 clusters of 3 questions: intervals that run past 100% (and below 0%) on CR2 t with ~2 df."""
    rows, q = ["question,cluster,A,B"], 0
    for c, sb in enumerate((1, 0, 1, 1)):
        for i in range(3):
            q += 1
            rows.append(f"q{q},c{c},{1 if (c != 3 or i == 0) else 0},{sb}")
    return "\n".join(rows).encode()


def test_intervals_past_the_bounds_are_drawn_clipped_and_said_so():
    """The models chart draws [0, 1] only, with a triangle at each clipped end; the note quotes the computed
    ends from the table; nothing is said when every interval fits."""
    from evalstats_core.charts.analyze import models_chart
    from evalstats_core.report import Formatter, clipped_note, model_intervals

    a = analyze(load(_few_clusters_file()), interval="normal")  # the raw t intervals (auto stays in [0, 1])
    iv = model_intervals(a)
    assert (iv["ci_high"] > 1).any()
    note = clipped_note(a, iv)
    f = Formatter(a)
    for r in iv.itertuples():
        if r.ci_low < 0 or r.ci_high > 1:
            assert f"{r.model} {f.num(r.ci_low)} to {f.num(r.ci_high)}" in note
    spec = models_chart(iv).to_dict()
    data = [row for rows in spec["datasets"].values() for row in rows]
    shown = [row for row in data if "shown_high" in row]
    assert shown and all(0.0 <= row["shown_low"] <= row["shown_high"] <= 1.0 for row in shown)
    ends = [row for row in data if "shape" in row]
    assert {(row["model"], row["at"]) for row in ends} >= {(r.model, 1.0) for r in iv.itertuples() if r.ci_high > 1}
    fine = analyze(load(EXAMPLES / "atlas_breeze.csv"))
    assert clipped_note(fine, model_intervals(fine)) is None
