"""pass@k on every surface (issue 42): one file through the API, the command line (JSON and every other format) and
the workbench gives the same numbers; bad input on the command line is exit 2 and one line on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalstats_core import analyze, load, pass_at_k, pass_at_k_compare, report_passk
from evalstats_core._clusters import t_crit
from evalstats_core.charts.passk import pass_at_chart
from evalstats_core.cli import main
from evalstats_core.flags import for_cli
from evalstats_core.gating import gate_pass_at_k

ROOT = Path(__file__).resolve().parent.parent


def _file(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray], list[str]]:
    """A clustered code eval: 30 problems in 6 topics, 3 models, 8 samples a problem (resample column 'run')."""
    rng = np.random.default_rng(42)
    topics = [f"topic-{q % 6}" for q in range(30)]
    samples = {m: (rng.random((30, 8)) < rng.beta(a, 2, 30)[:, None]).astype(int)
               for m, a in (("alpha", 1.0), ("beta", 2.0), ("gamma", 3.0))}
    rows = ["question,topic,model,run,score"] + [
        f"p{q:02d},{topics[q]},{m},{r},{x[q, r]}" for m, x in samples.items() for q in range(30) for r in range(8)]
    path = tmp_path / "code.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path, samples, topics


def cli(*args: str, capsys) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_line_json_equals_the_api(tmp_path, capsys):
    """models[].pass_at and comparisons[].pass_at = pass_at_k / pass_at_k_compare on the same samples, exactly."""
    path, samples, topics = _file(tmp_path)
    code, out, err = cli("analyze", str(path), "--resample-col", "run", "--pass-at", "1,5,8", "-f", "json",
                         capsys=capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["settings"]["pass_at"] == [1, 5, 8] and "--pass-at 1,5,8" in doc["settings"]["command"]
    for entry in doc["models"]:
        want = [pass_at_k(samples[entry["model"]], k, clusters=topics) for k in (1, 5, 8)]
        assert [b["k"] for b in entry["pass_at"]] == [1, 5, 8]
        for got, r in zip(entry["pass_at"], want, strict=True):
            assert (got["estimate"], got["se"], got["ci"], got["df"]) == (r.estimate, r.se, list(r.ci), r.df)
            assert r.n_clusters == 6
        assert entry["pass_at"][0]["estimate"] == entry["mean"]  # pass@1 is the model's mean
    pairs = [(c["model"], c["baseline"]) for c in doc["comparisons"]]
    assert pairs == [("beta", "alpha"), ("gamma", "alpha"), ("gamma", "beta")]
    for entry in doc["comparisons"]:
        want = [pass_at_k_compare(samples[entry["model"]], samples[entry["baseline"]], k, clusters=topics)
                for k in (1, 5, 8)]
        for got, r in zip(entry["pass_at"], want, strict=True):
            assert (got["k"], got["estimate"], got["se"], got["ci"], got["df"], got["p_value"]) == (
                r.k, r.estimate, r.se, list(r.ci), r.df, r.p_value)


@pytest.mark.parametrize("fmt, needles", [
    ("markdown", ["## pass@k", "| gamma | 5 |", "### pass@k comparisons", "gamma − alpha"]),
    ("latex", [r"\caption{pass@k of each model}", r"\toprule", "gamma"]),
    ("html", ["<h2>pass@k</h2>", "<td>gamma</td>", "<h3>pass@k comparisons</h3>"]),
])
def test_every_report_format_prints_the_section(tmp_path, capsys, fmt, needles):
    path, samples, topics = _file(tmp_path)
    code, out, err = cli("analyze", str(path), "--resample-col", "run", "--pass-at", "1,5", "-f", fmt, capsys=capsys)
    assert code == 0, err
    for n in needles:
        assert n in out
    r = pass_at_k(samples["gamma"], 5, clusters=topics)
    if fmt != "latex":  # the formatter's percent: the same digits as the JSON's estimate
        assert f"{100 * r.estimate:.1f}%" in out


def test_csv_table_and_folder(tmp_path, capsys):
    path, samples, topics = _file(tmp_path)
    code, out, err = cli("analyze", str(path), "--resample-col", "run", "--pass-at", "2", "-f", "csv",
                         "--table", "pass_at", capsys=capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("model,baseline,k,estimate,se,ci_low,ci_high,df,p_value")
    first = lines[1].split(",")
    r = pass_at_k(samples["alpha"], 2, clusters=topics)
    assert first[:8] == ["alpha", "", "2", repr(r.estimate), repr(r.se), repr(r.ci.low), repr(r.ci.high), repr(r.df)]
    assert len(lines) == 1 + 3 + 3
    folder = tmp_path / "out"
    code, _, err = cli("analyze", str(path), "--resample-col", "run", "--pass-at", "2", "-f", "csv", "-o",
                       f"{folder}/", capsys=capsys)
    assert code == 0, err
    assert (folder / "pass_at.csv").read_text(encoding="utf-8") == out


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "evalstats_core", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


@pytest.mark.parametrize("rows, extra, needle", [
    ("q1,A,1,1\nq1,A,2,0\nq2,A,1,0\nq2,A,2,1\n", ["--pass-at", "1,3"],
     "k (3) must not be greater than the samples a question (2): model 'A' has 2 samples of question 'q1' in bad.csv; "
     "ask for k of at most 2 (--pass-at), or collect at least 3 samples a question"),
    ("q1,A,1,1\nq1,A,2,0\nq2,A,1,0\nq3,A,1,1\nq3,A,2,1\n", ["--pass-at", "1"],
     "model 'A' has 1 samples of question 'q2' but 2 of most questions in bad.csv: pass@k needs the same number of "
     "samples for every question; drop that question or sample it 2 times"),
    ("q1,A,1,1\nq1,A,2,0\nq2,A,1,0\nq2,A,2,1\n", ["--pass-at", "1,x"], "--pass-at ('1,x') must be whole numbers"),
    ("q1,A,1,1\nq1,A,2,0.5\nq2,A,1,0\nq2,A,2,1\n", ["--pass-at", "1"], "pass@k needs every answer scored 0 (fail)"),
])
def test_bad_input_is_exit_2_and_one_line(tmp_path, rows, extra, needle):
    path = tmp_path / "bad.csv"
    path.write_text("question,model,run,score\n" + rows, encoding="utf-8")
    proc = _run("analyze", str(path), "--resample-col", "run", *extra)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalbars: error: "), proc.stderr
    assert needle in lines[0]


def test_the_same_file_through_load_and_analyze(tmp_path):
    """The API on the file (analyze(pass_at=...)) equals the arrays' numbers."""
    path, samples, topics = _file(tmp_path)
    res = analyze(load(path, resample_col="run"), pass_at=[5])
    assert res.pass_at.model("beta").results[0] == pass_at_k(samples["beta"], 5, clusters=topics)


# ------------------------------------------------------------------------------------------------ the gate
def test_the_gate_on_pass_at_k_reads_the_paired_interval(tmp_path, capsys):
    """gate_pass_at_k's verdict follows pass_at_k_compare's interval (clustered by topic: the stricter 96% end for a
    pass), and `evalbars gate --pass-at K` exits with its code and prints its numbers."""
    path, samples, topics = _file(tmp_path)
    ds = load(path, resample_col="run")
    for cand, base, k in (("gamma", "alpha", 5), ("alpha", "gamma", 5), ("gamma", "beta", 8)):
        g = gate_pass_at_k(ds, baseline=base, candidate=cand, k=k, margin="2pt")
        r = pass_at_k_compare(samples[cand], samples[base], k, clusters=topics)
        assert (g.diff, g.se, g.df, g.ci_low, g.ci_high, g.p_value) == (r.estimate, r.se, r.df, *r.ci, r.p_value)
        assert (g.mean_candidate, g.mean_baseline, g.n, g.n_clusters, g.pass_at) == (
            r.estimate_model, r.estimate_baseline, 30, 6, k)
        strict_low = r.estimate - t_crit(0.96, r.df) * r.se
        want = ("inconclusive" if r.se == 0.0 else  # gamma and beta both pass within 8 tries everywhere: unbounded
                "pass" if r.ci.low > -0.02 and strict_low > -0.02 else "regression" if r.ci.high < 0 else
                "inconclusive")
        assert g.verdict == want
        code, out, err = cli("gate", str(path), "--resample-col", "run", "--baseline", base, "--candidate", cand,
                             "--pass-at", str(k), "--margin", "2pt", capsys=capsys)
        assert code == g.exit_code, err
        assert out == g.markdown(respell=for_cli)
        assert f", pass@{k}" in out.splitlines()[0] and f"| | pass@{k} | |" in out
    assert (g.verdict, g.unbounded) == ("inconclusive", "every cluster has the same mean score difference (standard "
                                                        "error 0)")
    verdicts = {gate_pass_at_k(ds, baseline=b, candidate=c, k=5).verdict for c, b in (("gamma", "alpha"),
                                                                                     ("alpha", "gamma"))}
    assert verdicts == {"pass", "regression"}


def test_the_gate_on_pass_at_k_refuses_what_it_cannot_do(tmp_path):
    path, _, _ = _file(tmp_path)
    proc = _run("gate", str(path), "--resample-col", "run", "--baseline", "alpha", "--candidate", "beta",
                "--pass-at", "5", "--wild-bootstrap")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "--pass-at decides on each question's samples" in lines[0]
    proc = _run("gate", str(path), "--resample-col", "run", "--baseline", "alpha", "--candidate", "beta",
                "--pass-at", "1,5")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "must be one whole number >= 1" in lines[0]
    proc = _run("gate", str(path), "--resample-col", "run", "--baseline", "alpha", "--candidate", "beta",
                "--pass-at", "9")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "k (9) must not be greater than the samples" in lines[0]


def test_the_chart_draws_the_core_s_numbers(tmp_path):
    """The chart's rows are chart_frame's (estimate, ci_low, ci_high per model and k, and any_of_n in a last column);
    Vega aggregates nothing."""
    path, samples, topics = _file(tmp_path)
    s = analyze(load(path, resample_col="run"), pass_at=(1, 5)).pass_at
    frame = report_passk.chart_frame(s)
    assert frame[["estimate", "ci_low", "ci_high"]].values.tolist() == [
        [r.estimate, *r.ci] for m in s.models for r in m.results]
    spec = pass_at_chart(frame, n_samples=s.n_samples, confidence=s.confidence).to_dict()
    text = json.dumps(spec)
    assert "aggregate" not in text and "ci0" not in text and "any of 8 (naive)" in text
    rows = [row for data in spec["datasets"].values() for row in data]
    assert {(r["model"], r["estimate"]) for r in rows if r["x"] == "any of 8 (naive)"} == {
        (m.model, m.results[0].any_of_n) for m in s.models}
