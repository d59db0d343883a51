"""The LaTeX export compiles into a paper as it is: pdflatex on an 11 pt ``article``, one column and two
columns (``table*``), with no overfull box, and the PDF says what the tables say (names with LaTeX
specials, math-mode "<0.001", a true minus, a longtable past one page)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.report import LONGTABLE_ROWS, render

PDFLATEX, PDFTOTEXT = shutil.which("pdflatex"), shutil.which("pdftotext")
pytestmark = pytest.mark.skipif(
    (PDFLATEX is None or PDFTOTEXT is None) and os.environ.get("CI") != "true",
    reason="pdflatex/pdftotext not installed (Debian: texlive-latex-recommended poppler-utils); CI installs them")

HOSTILE = ["gpt_4 & co", "50% model", "<b>x</b> | y", "Llama#3 {8B}", r"\input{/etc/passwd}",
           "2026-11-25T17-06-50-00-00_quiz_very_long_model_name_without_spaces_at_all",
           "![img](http://127.0.0.1:9/x.png)", "=HYPERLINK(\"x\")", "~^$"]


def compile_text(tmp_path, body: str, *, two_column: bool = False) -> str:
    """Compile ``body`` in an 11 pt article; fail on an error or any overfull box; return the PDF's text."""
    cls = r"\documentclass[11pt" + (",twocolumn" if two_column else "") + "]{article}"
    doc = "\n".join([cls, r"\usepackage[T1]{fontenc}", r"\usepackage{booktabs,tabularx,longtable}",
                     r"\begin{document}", body, r"\end{document}", ""])
    (tmp_path / "report.tex").write_text(doc, encoding="utf-8")
    proc = subprocess.run([PDFLATEX or "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                           "report.tex"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    log = (tmp_path / "report.log").read_text(encoding="latin-1")
    overfull = re.findall(r"Overfull \\[hv]box \((.*?)\)", log)
    assert not overfull, f"overfull boxes: {overfull}"
    out = subprocess.run([PDFTOTEXT or "pdftotext", "-layout", "report.pdf", "-"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    return out.stdout


def many_models(n_models: int, n_q: int = 400, seed: int = 0, names: list[str] | None = None) -> bytes:
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n_q)
    names = (names or HOSTILE[:4]) + [f"model-{i}" for i in range(n_models - len(names or HOSTILE[:4]))]
    cols = {name: (difficulty < 0.3 + 0.4 * j / n_models).astype(int) for j, name in enumerate(names)}
    quote = lambda n: '"' + n.replace('"', '""') + '"'  # noqa: E731
    rows = ["question," + ",".join(quote(n) for n in cols)]
    rows += [f"q{i}," + ",".join(str(cols[n][i]) for n in cols) for i in range(n_q)]
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("two_column", [False, True])
def test_compact_report_fits_one_and_two_columns(tmp_path, two_column):
    res = analyze(load(many_models(len(HOSTILE) + 1, names=HOSTILE), name="hostile.csv"), baseline="model-0")
    tex = render(res, "latex")  # the default: the same file for a one- and a two-column paper
    assert r"\begin{table*}" in tex and r"\begin{tabularx}" in tex and r"\toprule" in tex
    assert r"$-$" in tex  # differences below the baseline with a true minus
    text = compile_text(tmp_path, tex, two_column=two_column)
    flat = re.sub(r"\s+", "", text)
    for needle in ("gpt_4 & co", "50% model", "<b>x</b> | y", "Llama#3 {8B}", r"\input{/etc/passwd}", "<0.001"):
        assert re.sub(r"\s+", "", needle) in flat, needle
    assert "percentage points" in text and "¡" not in text  # "<" in OT1 text mode prints as an inverted "!"
    assert "\u2212" in text  # the minus sign of math mode, not a hyphen


def test_columns_caption_and_label(tmp_path):
    res = analyze(load(many_models(5), name="m.csv"))
    tex = render(res, "latex", latex={"columns": "model,n,clusters,mean,se,diff,p,p_adj,mcnemar",
                                     "caption": "Results & more_", "label": "tab:main"})
    assert r"\caption{Results \& more\_}" in tex and r"\label{tab:main}" in tex and "McNemar $p$" in tex
    compile_text(tmp_path, tex, two_column=True)  # nine columns: table* across a two-column page
    narrow = render(res, "latex", latex={"columns": "model,n,mean,se,diff,p_adj", "wide": False})
    assert r"\begin{table}" in narrow
    compile_text(tmp_path, narrow)  # a one-column float in a one-column paper
    from evalstats_core.errors import EvalStatsError

    with pytest.raises(EvalStatsError, match="columns"):
        render(res, "latex", latex={"columns": "model,bogus"})
    with pytest.raises(EvalStatsError, match="label"):
        render(res, "latex", latex={"label": "x}\\input{y"})


def test_benchmark_name_from_the_harness_log_in_the_caption():
    from pathlib import Path

    logs = sorted(Path(__file__).parent.glob("fixtures/inspect/*.json"))[:1]
    if not logs:
        pytest.skip("no Inspect fixture")
    res = analyze(load(str(logs[0])))
    tex = render(res, "latex")
    task = re.search(r"task '([^']+)'", " ".join(res.notes)).group(1)
    caption = re.search(r"\\caption\{(.*)\}", tex).group(1)
    assert task.replace("_", r"\_") in caption and logs[0].name.replace("_", r"\_") not in caption


def test_long_table_breaks_across_pages(tmp_path):
    res = analyze(load(many_models(LONGTABLE_ROWS + 40), name="many.csv"), baseline="gpt_4 & co")
    tex = render(res, "latex")
    assert r"\begin{longtable}" in tex
    text = compile_text(tmp_path, tex)
    assert text.count("Model") >= 2  # the longtable repeats its header on the next page


@pytest.mark.parametrize("files", [["inspect/model-a_deflate.eval", "inspect/model-b_zstd.eval"],
                                   ["promptfoo/results.json"]])
@pytest.mark.parametrize("two_column", [False, True])
def test_harness_logs_compile_in_one_and_two_columns(tmp_path, files, two_column):
    from pathlib import Path

    from evalstats_core.data import load_many

    root = Path(__file__).parent / "fixtures"
    paths = [root / f for f in files]
    if not all(p.exists() for p in paths):
        pytest.skip("fixture missing")
    data = load_many([str(p) for p in paths]) if len(paths) > 1 else load(str(paths[0]))
    tex = render(analyze(data), "latex")
    compile_text(tmp_path, tex, two_column=two_column)


@pytest.mark.parametrize("two_column", [False, True])
def test_the_judge_table_is_a_float_that_fits(tmp_path, two_column):
    """Issue 39.6: the judge section's table is a float (table*, tabularx) that fits a one- and a two-column page,
    with a model that could not be corrected (a row that says so and no number)."""
    from evalstats_core.judge_apply import corrected_analysis
    from evalstats_core.judge_io import section_for

    rng = np.random.default_rng(6)
    n = 300
    rows = ["question,model,score,human"]
    for j, model in enumerate(["gpt_4 & co", "a-rather-long-model-name-v2", "few-labels"]):
        y = rng.random(n) < 0.4 + 0.2 * j
        f = np.where(y, rng.random(n) < 0.95, rng.random(n) < 0.3)
        keep = 1 if model == "few-labels" else 60
        rows += [f'q{i},"{model}",{int(f[i])},{int(y[i]) if i < keep else ""}' for i in range(n)]
    d = load(("\n".join(rows) + "\n").encode(), name="judged.csv")
    a = analyze(d)
    tex = render(corrected_analysis(a, section_for(d, a)), "latex")
    judge = tex.split("% judge corrected by human labels")[1]
    assert r"\begin{table*}" in judge and r"\begin{tabularx}{\linewidth}" in judge and r"\caption{" in judge
    assert "not corrected, needs about" in judge
    text = compile_text(tmp_path, tex, two_column=two_column)
    assert "Judge scores corrected by human labels" in text
