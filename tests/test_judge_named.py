"""Issue 39.3: a judge-scored file's outputs name the method they used (PPI++ with its label count), not the judge's
own t or Tango: the method line (figure and slide subtitles), the LaTeX caption, the JSON ``interval`` of models and
comparisons, the methods paragraph, the HTML report, and "How the file was read" lists the human column as used."""

from __future__ import annotations

import json
from pathlib import Path

from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.judge_apply import corrected_analysis
from evalstats_core.judge_io import section_for
from evalstats_core.report import method_line, render

JUDGED = Path(__file__).resolve().parents[1] / "examples" / "judged_3_models.csv"


def _corrected():
    d = load(JUDGED)
    a = analyze(d)
    return analyze(d), corrected_analysis(a, section_for(d, a))


def test_every_output_names_ppi_and_the_labels():
    plain, a = _corrected()
    assert "PPI" not in method_line(plain) and "t (n - 1 df)" in method_line(plain)  # the judge's own file
    for what in ("models", "comparisons"):
        line = method_line(a, what=what)
        assert "PPI++ (judge corrected by 300 human labels), t" in line and "t (n - 1 df)" not in line
    tex = render(a, "latex")
    caption = next(x for x in tex.splitlines() if x.startswith(r"\caption"))
    assert "PPI++ (judge corrected by 300 human labels)" in caption and "n - 1 df" not in caption
    doc = json.loads(render(a, "json"))
    assert all(m["interval"].startswith("t (PPI++ corrected by 300 human labels") for m in doc["models"])
    assert all(c["interval"].startswith("t (PPI++ on the paired differences") and "Tango" not in c["interval"]
               for c in doc["comparisons"])
    html = render(a, "html")
    assert "PPI++ (judge corrected by 300 human labels)" in html and "prediction-powered (PPI++)" in html
    md = render(a, "markdown")
    assert "prediction-powered (PPI++) estimate" in md.split("## Methods")[1].split("##")[0]


def test_how_the_file_was_read_lists_the_human_column_as_used():
    plain, a = _corrected()
    assert "ignored column(s): human" in plain.notes
    assert not any(n.startswith("ignored column(s):") and "human" in n for n in a.notes)
    assert "human labels: column 'human', 900 labelled answers over 3 models, used to correct the judge's scores " \
           "(PPI++)" in a.notes
