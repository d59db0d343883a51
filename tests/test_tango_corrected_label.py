"""Without clusters Tango's interval for a paired 0/1 difference is continuity-corrected from one discordant answer
on (min(1, discordant / 10) answers, :func:`evalstats_core.pair_proportions.continuity_correction`): its label says
so where the numbers are corrected, and only there, the same in the API's gate footer, the CLI and the workbench."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, no_exceptions, run_page
from test_page_analyze import text_of

from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.gating import gate
from evalstats_core.pair_proportions import continuity_correction, paired_proportion_ci

CORRECTED = "Tango score (discordant answers, continuity-corrected)"
PLAIN = "Tango score (discordant answers)"


def pair_file(only_cand: int, only_base: int, n: int = 30) -> bytes:
    """``n`` questions: ``only_cand`` right for the candidate alone, ``only_base`` for the baseline alone, the
    rest right (even rows) or wrong (odd rows) for both."""
    rows = ["question,base,cand"]
    for i in range(n):
        base, cand = (0, 1) if i < only_cand else (1, 0) if i < only_cand + only_base else (1 - i % 2,) * 2
        rows.append(f"q{i},{base},{cand}")
    return ("\n".join(rows) + "\n").encode()


def _footer(markdown: str) -> str:
    (line,) = [r for r in markdown.splitlines() if r.startswith("Paired on")]
    return line


@pytest.mark.parametrize("only_cand, only_base", [(2, 1), (0, 1), (7, 5)])
def test_the_gate_says_corrected_where_its_interval_is(only_cand, only_base):
    """1-12 discordant answers: 0.1-1 answer of correction. The footer names the corrected interval, and the
    gate's interval is Tango's with that correction, not without it."""
    g = gate(load(pair_file(only_cand, only_base), name="r.csv"), baseline="base", candidate="cand", margin=0.02)
    cc = continuity_correction(only_cand, only_base)
    assert 0.0 < cc <= 1.0
    assert (g.ci_low, g.ci_high) == pytest.approx(tuple(paired_proportion_ci(only_cand, only_base, 30, correction=cc)),
                                                  abs=1e-12)
    assert (g.ci_low, g.ci_high) != pytest.approx(tuple(paired_proportion_ci(only_cand, only_base, 30)), abs=1e-6)
    assert g.interval == CORRECTED
    assert f"({CORRECTED} interval)" in _footer(g.markdown())


def test_with_no_discordant_answer_nothing_is_corrected_and_the_label_says_nothing():
    g = gate(load(pair_file(0, 0), name="r.csv"), baseline="base", candidate="cand", margin=0.02)
    assert continuity_correction(0, 0) == 0.0
    assert (g.ci_low, g.ci_high) == pytest.approx(tuple(paired_proportion_ci(0, 0, 30)), abs=1e-12)
    assert g.interval == PLAIN and f"({PLAIN} interval)" in _footer(g.markdown())


def test_clustered_pairs_are_never_labelled_corrected():
    """With clusters the rule has no continuity correction (effective counts instead)."""
    rows = ["question,cluster,base,cand"] + [f"q{i},c{i % 6},{(i // 3) % 2},{(i // 2) % 2}" for i in range(60)]
    a = analyze(question_scores(load(("\n".join(rows) + "\n").encode(), name="c.csv")))
    (c,) = a.comparisons
    assert c.n_clusters == 6 and "continuity" not in c.interval and "Tango score" in c.interval


def test_the_cli_and_the_workbench_print_the_same_label(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(pair_file(2, 1))
    run = [sys.executable, "-m", "evalstats_core"]
    out = subprocess.run([*run, "gate", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "2pt"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 3 and f"({CORRECTED} interval)" in _footer(out.stdout), out.stdout + out.stderr
    doc = json.loads(subprocess.run([*run, "analyze", str(path), "--format", "json"], capture_output=True, text=True,
                                    cwd=ROOT, timeout=120).stdout)
    assert [c["interval"] for c in doc["comparisons"]] == [CORRECTED]
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": "r.csv", "data": path.read_bytes()}
    at.run()
    no_exceptions(at)
    assert [c.interval for c in at.session_state[LAST_KEY].comparisons] == [CORRECTED]
    assert f"95% CI · {CORRECTED} · paired" in text_of(at)  # the differences chart's method line
