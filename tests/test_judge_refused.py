"""Issue 39.1: on a judge-scored file every model and pair says whether it is corrected, with its label count; one
with too few labels shows no number (never the judge's), with one line naming the labels it needs; the headline,
ranking and gate read corrected numbers only, and the gate is INCONCLUSIVE (exit 3) for a pair it cannot correct."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.judge_apply import corrected_analysis
from evalstats_core.judge_io import section_for
from evalstats_core.report import render, to_json

ROOT = Path(__file__).resolve().parents[1]

#: Judge pass rates far above the truth (lenient judge), so a judge number in place of a corrected one shows.
TRUE = {"alpha": 0.6, "beta": 0.5, "gamma": 0.19}


def _file(tmp_path: Path, gamma_labels: int) -> Path:
    """400 questions, a lenient judge; 40 random questions labelled for alpha and beta, ``gamma_labels`` for gamma."""
    rng = np.random.default_rng(39)
    n = 400
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, 40, replace=False)] = True
    g_lab = np.zeros(n, dtype=bool)
    g_lab[np.flatnonzero(lab)[:gamma_labels]] = True
    rows = ["question,model,score,human"]
    for model, p in TRUE.items():
        y = rng.random(n) < p
        f = np.where(y, rng.random(n) < 0.95, rng.random(n) < (0.9 if model == "gamma" else 0.3))
        has = g_lab if model == "gamma" else lab
        rows += [f"q{i},{model},{int(f[i])},{int(y[i]) if has[i] else ''}" for i in range(n)]
    path = tmp_path / "judged.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _corrected(path: Path):
    d = load(path)
    a = analyze(d)
    return corrected_analysis(a, section_for(d, a))


def test_a_model_with_one_label_shows_no_number_and_says_what_it_needs(tmp_path):
    a = _corrected(_file(tmp_path, 1))
    gamma = next(m for m in a.models if m.model == "gamma")
    assert all(math.isnan(x) for x in (gamma.mean, gamma.se, gamma.ci_low, gamma.ci_high))
    assert gamma.interval.startswith("not corrected: 1 of 400 answers labelled by a human")
    u = next(u for u in a.judge.refused if u.model == "gamma" and u.baseline is None)
    assert u.needed is not None and u.needed >= 2 and f"about {u.needed:,} for an interval" in u.line
    assert any(w.startswith("gamma: not corrected") for w in a.warnings)
    assert "every estimate, interval, verdict and the ranking below are" not in a.warnings[0]
    for c in a.comparisons:  # every pair with gamma: no number; the others corrected
        if "gamma" in (c.model, c.baseline):
            assert math.isnan(c.diff) and c.interval.startswith("not corrected: 1 of 400 questions labelled for both")
        else:
            assert c.interval.startswith("t (PPI++ on the paired differences")


def test_every_format_says_corrected_or_not_and_never_shows_the_judges_number(tmp_path):
    a = _corrected(_file(tmp_path, 0))
    doc = json.loads(to_json(a))
    for row in doc["models"]:
        assert row["judge"]["corrected"] is (row["model"] != "gamma")
        assert row["judge"]["n_labeled"] == (0 if row["model"] == "gamma" else 40)
    gamma = next(r for r in doc["models"] if r["model"] == "gamma")
    assert gamma["mean"] is None and gamma["ci"] == [None, None] and gamma["judge"]["labels_needed"] >= 2
    frame = load(tmp_path / "judged.csv").frame
    judge_mean = f"{100 * float(frame.loc[frame['model'] == 'gamma', 'score'].mean()):.1f}"
    for fmt in ("markdown", "latex", "html", "csv"):
        text = render(a, fmt)
        assert judge_mean not in text, fmt  # the lenient judge's 90% never appears as gamma's score
    md = render(a, "markdown")
    assert "gamma: not corrected: 0 of 400 answers labelled by a human" in md
    first = md.split("## In short")[1].splitlines()[2]
    assert first.startswith("alpha scores highest") and "1 other model(s) have no score to rank" in first


def test_the_cli_gate_is_inconclusive_with_the_label_count(tmp_path):
    path = _file(tmp_path, 1)
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "gate", str(path), "--baseline", "alpha",
                          "--candidate", "gamma"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "INCONCLUSIVE (exit 3): gamma - alpha is not corrected: 1 of 400 questions labelled for both" in out.stdout
    assert "n/a" in out.stdout.split("| difference |")[1].splitlines()[0]
    ok = subprocess.run([sys.executable, "-m", "evalstats_core", "gate", str(path), "--baseline", "alpha",
                         "--candidate", "beta"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "Decided on the judge's scores corrected by human labels" in ok.stdout


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_the_cli_refuses_the_same_numbers(tmp_path, fmt):
    path = _file(tmp_path, 1)
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", str(path), "-f", fmt],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    api = render(_corrected(path), fmt)
    if fmt == "json":
        cli, api = json.loads(out.stdout), json.loads(api)
        cli["settings"].pop("command", None), api["settings"].pop("command", None)
        assert cli["models"] == api["models"] and cli["comparisons"] == api["comparisons"]
    else:
        assert "gamma: not corrected: 1 of 400 answers labelled by a human" in out.stdout


def test_the_judge_csv_lists_the_refused_rows_without_numbers(tmp_path):
    from evalstats_core.judge_io import add_to_report

    a = _corrected(_file(tmp_path, 1))
    rows = add_to_report("", "csv", a.judge, table="judge").splitlines()
    head = rows[0].split(",")
    assert head[-2:] == ["corrected", "labels_needed"]
    gamma = next(r.split(",") for r in rows[1:] if r.startswith("gamma,,"))
    assert gamma[head.index("corrected")] == "false" and gamma[head.index("estimate")] == ""
    assert int(gamma[head.index("labels_needed")]) >= 2
