"""The command line, run as a real subprocess: every bad input exits 2 with one line on stderr naming the
file, row, column and value (never a traceback, never touching the file); JSON equals analyze();
the examples run in every format; --help answers without importing numpy, pandas or scipy."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HEADER = b"question,model,score\n"

# name -> (file bytes, extra arguments, substrings the one-line message must contain)
BAD: dict[str, tuple[bytes | None, list[str], list[str]]] = {
    "missing file": (None, [], ["does not exist", "results.csv"]),
    "empty file": (b"", [], ["results.csv is empty"]),
    "header only": (HEADER, [], ["results.csv has a header but no data rows"]),
    "missing column": (b"question,model,points\nq1,A,1\nq2,A,0\n", [], ["could not find the score column",
                                                                          "results.csv", "--score-col"]),
    "unknown --score-col": (HEADER + b"q1,A,1\nq2,A,0\n", ["--score-col", "pts"],
                            ["column 'pts' (given as the score column) is not in results.csv"]),
    "duplicated column": (b"question,model,score,score\nq1,A,1,1\n", [], ["two columns named 'score'"]),
    "non-numeric score": (HEADER + b"".join(b"q%d,A,1\n" % i for i in range(15)) + b"q99,A,abc\n", [],
                          ["row 17 of results.csv has score 'abc' in column 'score'",
                           "scores must be numbers, true/false or 0/1"]),
    "missing score": (HEADER + b"q1,A,1\nq2,A,\n", [], ["row 3 of results.csv has no score in column 'score'"]),
    "NaN score": (HEADER + b"q1,A,1\nq2,A,0\nq3,A,NaN\n", [], ["row 4 of results.csv has no score"]),
    "infinite score": (HEADER + b"q1,A,1\nq2,A,inf\n", [], ["row 3 of results.csv has score 'inf' in column 'score'",
                                                            "finite"]),
    "one question": (HEADER + b"q1,A,1\nq1,B,0\n", [], ["results.csv has only 1 question ('q1')"]),
    "model with one question": (HEADER + b"q1,A,1\nq2,A,0\nq1,B,1\n", [],
                                ["model 'B' has a score for only one question in results.csv"]),
    "ragged row": (HEADER + b"q1,A,1\nq2,A,0,7\n", [], ["row 3 of results.csv has 4 fields but the header has 3",
                                                         "'q2,A,0,7'"]),
    "not UTF-8": ("question,model,score\nq1,A,1\nq2,Ren\xe9,1\n".encode("latin-1"), [],
                  ["results.csv is not UTF-8", "line 3", "0xe9", "re-save it as UTF-8"]),
    "binary junk": (bytes(range(256)) * 8, [], ["results.csv contains binary data and is not a CSV file"]),
    "excel workbook": (b"PK\x03\x04" + bytes(200), [], ["Excel"]),
    "bad baseline": (HEADER + b"q1,A,1\nq2,A,0\nq1,B,1\nq2,B,1\n", ["--baseline", "C"],
                     ["baseline 'C' is not a model in results.csv", "'A', 'B'"]),
    "bad confidence": (HEADER + b"q1,A,1\nq2,A,0\n", ["--confidence", "95"], ["confidence '95' must be between 0 and 1"]),
    "bad format option": (HEADER + b"q1,A,1\nq2,A,0\n", ["--format", "rtf"], ["argument --format/-f: invalid choice"]),
    "bad cluster-se": (HEADER + b"q1,A,1\nq2,A,0\n", ["--cluster-se", "cr3"], ["argument --cluster-se: invalid choice"]),
    "bad interval": (HEADER + b"q1,A,1\nq2,A,0\n", ["--interval", "exact"], ["argument --interval: invalid choice"]),
    "bad n-boot": (HEADER + b"q1,A,1\nq2,A,0\n", ["--n-boot", "10"], ["--n-boot '10' must be between 99"]),
    "output onto input": (HEADER + b"q1,A,1\nq2,A,0\n", ["--output", "{file}"], ["is the input file"]),
    "inconsistent cluster": (b"question,model,score,cluster\nq1,A,1,x\nq2,A,0,y\nq1,B,1,y\nq2,B,1,y\n", [],
                             ["question 'q1' is in cluster 'x' on row 2 of results.csv but in cluster 'y' on row 4"]),
}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "evalstats_core", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=120)


@pytest.fixture(scope="module")
def bad_runs(tmp_path_factory):
    """Run every bad-input case once (a few at a time); record the exit code, output and file hash."""
    folders = {name: tmp_path_factory.mktemp("bad") for name in BAD}  # mktemp is not thread-safe: make them first

    def one(name):
        data, extra, _ = BAD[name]
        folder = folders[name]
        path = folder / "results.csv"
        if data is not None:
            path.write_bytes(data)
        before = hashlib.sha256(data).hexdigest() if data is not None else None
        args = [a.replace("{file}", str(path)) for a in extra]
        proc = run("analyze", str(path), *args, cwd=folder)
        after = hashlib.sha256(path.read_bytes()).hexdigest() if data is not None else None
        return name, (proc, before, after, sorted(p.name for p in folder.iterdir()))

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(one, BAD))


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_exits_2_with_one_clear_line(bad_runs, name):
    """Exit code 2, nothing on stdout, one line on stderr with the expected facts, no traceback."""
    proc, before, after, files = bad_runs[name]
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("evalbars: error: ") and "Traceback" not in proc.stderr
    for part in BAD[name][2]:
        assert part in lines[0]
    assert before == after  # the input file is never modified
    if before is not None:
        assert files == ["results.csv"]  # and nothing else was written


def test_json_output_equals_analyze():
    """The JSON numbers are exactly analyze()'s (floats round-trip through JSON)."""
    proc = run("analyze", str(EXAMPLES / "multilingual_clustered.csv"), "--format", "json", "--baseline", "Galleon")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    res = analyze(load(EXAMPLES / "multilingual_clustered.csv"), baseline="Galleon")
    for got, m in zip(doc["models"], res.models, strict=True):
        assert got == {"model": m.model, "n": m.n, "n_clusters": m.n_clusters, "k": m.k, "mean": m.mean, "se": m.se,
                       "ci": [m.ci_low, m.ci_high], "se_naive": m.se_naive, "deff": m.deff, "df": m.df,
                       "se_method": "cr2", "method": "cr2", "interval": "CR2 t (Satterthwaite df)"}
    for got, c in zip(doc["comparisons"], res.comparisons, strict=True):
        assert got == {"model": c.model, "baseline": "Galleon", "n": c.n, "diff": c.diff, "se": c.se,
                       "se_method": "cr2", "statistic": c.z, "reference": "t",
                       "ci": [c.ci_low, c.ci_high], "z": c.z, "p_value": c.p_value, "p_adjusted": c.p_adjusted,
                       "correlation": c.correlation, "se_unpaired": c.se_unpaired, "df": c.df, "method": "cr2",
                       "mcnemar_p": None, "wild_p_value": None,  # clustered: no exact McNemar
                       "interval": c.interval}
    assert doc["warnings"] == list(res.warnings)
    assert doc["settings"]["baseline"] == "Galleon" and doc["settings"]["cluster_col"] == "cluster"


def cli(*args: str, capsys) -> tuple[int, str, str]:
    """Run the command line in-process (same code as ``python -m``): exit code, stdout, stderr."""
    from evalstats_core.cli import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_settings_command_reruns_to_the_same_numbers(tmp_path, capsys, monkeypatch):
    """The command recorded in settings, run again, gives the same document."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "atlas_breeze.csv").write_bytes((EXAMPLES / "atlas_breeze.csv").read_bytes())
    first = json.loads(cli("analyze", "atlas_breeze.csv", "-f", "json", "--confidence", "0.9", capsys=capsys)[1])
    cmd = first["settings"]["command"].split()[1:]  # drop "evalbars"
    assert cmd[:4] == ["analyze", "atlas_breeze.csv", "--layout", "wide"] and "--confidence" in cmd
    second = json.loads(cli(*cmd, "-f", "json", capsys=capsys)[1])
    assert second == first


def test_cluster_se_interval_and_the_paper_s_numbers(tmp_path, capsys, monkeypatch):
    """--cluster-se cr1 gives seed 004's z numbers; the default is the paired t-test; --interval picks the
    one-model interval with the workbench's rule, and the command in settings carries every option."""
    from scipy import stats

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ab.csv").write_bytes((EXAMPLES / "atlas_breeze.csv").read_bytes())
    cr1 = json.loads(cli("analyze", "ab.csv", "-f", "json", "--cluster-se", "cr1", capsys=capsys)[1])
    (c,) = cr1["comparisons"]
    assert [round(x, 3) for x in c["ci"]] == [0.005, 0.095] and round(c["p_value"], 3) == 0.031
    assert c["df"] is None and c["method"] == "cr1"  # df = inf is null in JSON
    assert "--cluster-se cr1" in cr1["settings"]["command"] and cr1["settings"]["cluster_se"] == "cr1"
    t2 = json.loads(cli("analyze", "ab.csv", "-f", "json", capsys=capsys)[1])
    (c,) = t2["comparisons"]
    ab = np.loadtxt(tmp_path / "ab.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    ref = stats.ttest_rel(ab[:, 1], ab[:, 0])
    assert c["p_value"] == pytest.approx(ref.pvalue, rel=1e-10) and c["df"] == 9.0
    assert c["ci"] == pytest.approx(list(ref.confidence_interval(0.95)), rel=1e-10)
    rows = "question,A,B\n" + "".join(f"q{i},{int(i % 3 != 0)},{int(i < 30)}\n" for i in range(30))
    (tmp_path / "b.csv").write_text(rows)
    for interval, label in (("auto", "Wilson"), ("bayes", "Bayes (uniform prior)"), ("normal", "t (n - 1 df)"),
                            ("clopper-pearson", "Clopper-Pearson (exact)")):
        doc = json.loads(cli("analyze", "b.csv", "-f", "json", "--interval", interval, capsys=capsys)[1])
        assert doc["models"][0]["interval"] == label and doc["settings"]["interval"] == interval
        cmd = doc["settings"]["command"].split()[1:]  # drop "evalbars"
        assert json.loads(cli(*cmd, "-f", "json", capsys=capsys)[1]) == doc  # the command reruns it exactly
    b = json.loads(cli("analyze", "b.csv", "-f", "json", "--interval", "bayes", capsys=capsys)[1])["models"][1]
    assert b["ci"][1] == 1.0  # 30/30: the Bayes interval keeps the boundary


def test_exact_mcnemar_p_in_the_json(tmp_path, capsys, monkeypatch):
    """Binary paired comparisons without clusters carry the exact McNemar p (scipy.stats.binomtest)."""
    from scipy import stats

    monkeypatch.chdir(tmp_path)
    rows = "question,A,B\n" + "".join(f"q{i},1,0\n" for i in range(5)) + "q5,1,1\nq6,0,0\n"
    (tmp_path / "m.csv").write_text(rows)
    (c,) = json.loads(cli("analyze", "m.csv", "-f", "json", capsys=capsys)[1])["comparisons"]
    assert c["mcnemar_p"] == pytest.approx(stats.binomtest(0, 5).pvalue) == 0.0625


def test_example_through_a_subprocess():
    """The clustered example end to end as a user runs it: Markdown report on stdout, nothing on stderr."""
    proc = run("analyze", str(EXAMPLES / "multilingual_clustered.csv"))
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("# Results: multilingual\\_clustered.csv") or \
        proc.stdout.startswith("# Results: multilingual_clustered.csv")
    assert "| Galleon | 2,500 | 250 |" in proc.stdout and "## Verdicts" in proc.stdout


@pytest.mark.parametrize("example", ["atlas_breeze.csv", "multilingual_clustered.csv", "synthetic_resampled.csv"])
def test_examples_in_every_format(example, tmp_path, capsys):
    """Each bundled example gives a report in every format, to stdout and with --output."""
    path = str(EXAMPLES / example)
    before = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    code, out, _ = cli("analyze", path, capsys=capsys)
    assert code == 0 and out.startswith("# Results: ") and "## Verdicts" in out and "## Methods" in out
    report = tmp_path / "report.tex"
    code, out, _ = cli("analyze", path, "--format", "latex", "--output", str(report), capsys=capsys)
    assert code == 0 and out == "" and r"\begin{tabularx}" in report.read_text(encoding="utf-8")
    code, out, _ = cli("analyze", path, "-f", "csv", "--adjust", "bh", capsys=capsys)
    assert code == 0 and out.startswith("model,n,n_clusters,k,mean,se,")
    code, out, _ = cli("analyze", path, "-f", "json", "--unpaired", capsys=capsys)
    assert code == 0 and json.loads(out)["settings"]["paired"] is False
    assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == before


def test_clustered_example_and_no_clusters(capsys):
    path = str(EXAMPLES / "multilingual_clustered.csv")
    with_c = json.loads(cli("analyze", path, "-f", "json", capsys=capsys)[1])
    without = json.loads(cli("analyze", path, "-f", "json", "--no-clusters", capsys=capsys)[1])
    assert {m["n_clusters"] for m in with_c["models"]} == {250}
    assert {m["n_clusters"] for m in without["models"]} == {None}
    assert all(a["se"] > 1.5 * b["se"] for a, b in zip(with_c["models"], without["models"], strict=True))


def test_warnings_go_to_stderr_for_csv_and_latex(capsys):
    code, _, err = cli("analyze", str(EXAMPLES / "atlas_breeze.csv"), "-f", "csv", capsys=capsys)
    assert code == 0 and err.startswith("evalbars: warning: only 10 independent questions at the fewest")


def test_column_overrides_and_layout(tmp_path, capsys):
    path = tmp_path / "odd.csv"
    path.write_text("qq,who,pts\nq1,A,3\nq2,A,5\nq3,A,4\nq1,B,4\nq2,B,7\nq3,B,4\n", encoding="utf-8")
    code, out, _ = cli("analyze", str(path), "-f", "json", "--question-col", "qq", "--model-col", "who",
                       "--score-col", "pts", capsys=capsys)
    doc = json.loads(out)
    assert doc["comparisons"][0]["diff"] == pytest.approx(1.0) and doc["settings"]["score_col"] == "pts"
    code, _, err = cli("analyze", str(EXAMPLES / "atlas_breeze.csv"), "--layout", "long", capsys=capsys)
    assert code == 2 and "could not find the model column" in err


def test_standard_input(monkeypatch, capsys):
    import io

    data = (EXAMPLES / "atlas_breeze.csv").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = cli("analyze", "-", "-f", "json", capsys=capsys)
    assert code == 0 and json.loads(out)["settings"]["file"] == "stdin"
    assert json.loads(out)["comparisons"][0]["diff"] == analyze(load(data)).comparisons[0].diff


def test_unexpected_errors_are_one_line(monkeypatch, capsys):
    """A bug deep inside still ends as one line and exit code 2, not a traceback."""
    import evalstats_core.report as report

    def boom(*_a, **_k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(report, "render", boom)
    code, out, err = cli("analyze", str(EXAMPLES / "atlas_breeze.csv"), capsys=capsys)
    assert code == 2 and out == "" and err == "evalbars: error: unexpected RuntimeError: kaboom (please report " \
        "this with the input file)\n"


def test_help_is_fast_and_imports_nothing_heavy():
    """--help lists the command with an example and never imports numpy, pandas or scipy."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "evalstats_core", "--help"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)
    assert proc.returncode == 0 and "analyze" in proc.stdout and "examples:" in proc.stdout
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "argparse" in imported
    assert not {m for m in imported if m.split(".")[0] in {"numpy", "pandas", "scipy", "pyarrow", "statsmodels"}}
    sub = run("analyze", "--help")
    assert sub.returncode == 0 and "wide form" in sub.stdout and "--baseline MODEL" in sub.stdout


def test_no_command_is_a_usage_error():
    proc = run()
    assert proc.returncode == 2 and "choose a command" in proc.stderr and "Traceback" not in proc.stderr


def test_csv_table_option_and_output_folder(tmp_path, capsys, monkeypatch):
    """--format csv prints one table (--table); -o DIR/ writes every table as its own file."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.csv").write_bytes((EXAMPLES / "multilingual_clustered.csv").read_bytes())
    code, out, _ = cli("analyze", "m.csv", "-f", "csv", "--table", "comparisons", capsys=capsys)
    assert code == 0 and out.startswith("model,baseline,n,diff,")
    code, _, _ = cli("analyze", "m.csv", "-f", "csv", "-o", "tables/", capsys=capsys)
    assert code == 0 and sorted(p.name for p in (tmp_path / "tables").iterdir()) == ["comparisons.csv", "models.csv"]
    assert len(pd.read_csv(tmp_path / "tables" / "models.csv")) == 3
    assert len(pd.read_csv(tmp_path / "tables" / "comparisons.csv")) == 3


def test_help_spells_analyze_as_the_command_does():
    """One spelling: the project's (and its command's) "analyze", never "analyse", in every --help."""
    for args in ([], ["analyze"], ["gate"]):
        out = subprocess.run([sys.executable, "-m", "evalstats_core", *args, "--help"], capture_output=True,
                             text=True, cwd=ROOT, timeout=60).stdout
        assert "analyze" in out.lower() and "analys" not in out.lower().replace("analysis", ""), out


def test_an_example_is_named_not_located_in_every_output(tmp_path, capsys, monkeypatch):
    """--example NAME is written back as --example NAME (settings.command, the HTML report's Reproduce box),
    never as the file's install path, and that command reruns to the same document from any folder."""
    import shlex

    monkeypatch.chdir(tmp_path)
    first = json.loads(cli("analyze", "--example", "multilingual", "-f", "json", capsys=capsys)[1])
    command = first["settings"]["command"]
    assert command.startswith("evalbars analyze --example multilingual ") and str(ROOT) not in command
    assert json.loads(cli(*shlex.split(command)[1:], "-f", "json", capsys=capsys)[1]) == first
    for fmt in ("markdown", "csv", "latex", "html"):
        out = cli("analyze", "--example=atlas_breeze", "-f", fmt, capsys=capsys)[1]
        assert str(ROOT) not in out and "examples/" not in out, fmt
    html = cli("analyze", "--example", "atlas_breeze", "-f", "html", capsys=capsys)[1]
    assert "evalbars analyze --example atlas_breeze" in html
    # the bundled file named by its path (as from a checkout) is the same example, written the same way
    named = json.loads(cli("analyze", str(EXAMPLES / "multilingual_clustered.csv"), "-f", "json", capsys=capsys)[1])
    assert named["settings"]["command"] == command
