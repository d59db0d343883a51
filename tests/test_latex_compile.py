"""The LaTeX export compiles with pdflatex (Debian's texlive-latex-recommended) and the PDF says what the
tables say: names with LaTeX specials, math-mode "<0.001", and a longtable past one page."""

from __future__ import annotations

import os
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


def compile_text(tmp_path, body: str) -> str:
    doc = "\n".join([r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage{booktabs}",
                     r"\usepackage{longtable}", r"\begin{document}", body, r"\end{document}", ""])
    (tmp_path / "report.tex").write_text(doc, encoding="utf-8")
    proc = subprocess.run([PDFLATEX or "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    out = subprocess.run([PDFTOTEXT or "pdftotext", "-layout", "report.pdf", "-"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    return out.stdout


def many_models(n_models: int, n_q: int = 400, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n_q)
    names = ["gpt_4 & co", "50% model", "<b>x</b> | y", "Llama#3 {8B}"] + [f"model-{i}" for i in range(n_models - 4)]
    cols = {name: (difficulty < 0.3 + 0.4 * j / n_models).astype(int) for j, name in enumerate(names)}
    rows = ["question," + ",".join(f'"{n}"' if "," in n else n for n in cols)]
    rows += [f"q{i}," + ",".join(str(cols[n][i]) for n in cols) for i in range(n_q)]
    return ("\n".join(rows) + "\n").encode()


def test_latex_report_compiles_and_reads_back(tmp_path):
    res = analyze(load(many_models(10), name="many.csv"))
    assert len(res.comparisons) == 45 > LONGTABLE_ROWS  # the comparisons table is a longtable
    tex = render(res, "latex")
    assert r"\begin{longtable}" in tex and r"$<$0.001" in tex and r"\textless{}b\textgreater{}" in tex
    text = compile_text(tmp_path, tex)
    for needle in ("gpt_4 & co", "50% model", "<b>x</b> | y", "Llama#3 {8B}", "<0.001"):
        assert needle in text, needle
    assert "¡" not in text  # "<" in text mode with the OT1 default font prints as an inverted "!"
    assert text.count("Model Baseline") >= 2  # the longtable repeats its header on the next page

