"""Every export says the same thing and stays inert: one vocabulary (McNemar's exact p in every format, '—'
with clusters), one escaper per target tested with hostile model names on every caption, label, header
and export, a self-contained HTML page, 16:9 slide figures, and output paths that never follow a link."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.escape import csv_safe, escape_html, escape_markdown, escape_streamlit
from evalstats_core.report import csv_tables, render
from evalstats_core.vocabulary import Formatter, signed_zero_free

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

HOSTILE = [
    "![pixel](http://127.0.0.1:9/track.png)",  # an image a viewer's browser would fetch
    "[click](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    "=HYPERLINK(\"http://x\",\"y\")",
    "@SUM(1)",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "a|b\\c`d`",
    "$x$ :red[y] :material/home:",
    "\\input{/etc/passwd} & % # _ { } ~ ^",
    "line\nbreak",
]


def hostile_analysis(clusters: bool = False):
    rng = np.random.default_rng(1)
    n = 120
    difficulty = rng.random(n)
    names = HOSTILE[:6] + ["plain"]
    rows = [["question"] + (["cluster"] if clusters else []) + names]
    for i in range(n):
        rows.append([f"q{i}"] + ([f"c{i % 12}"] if clusters else [])
                    + [str(int(difficulty[i] < 0.4 + 0.05 * j)) for j in range(len(names))])
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return analyze(load(out.getvalue().encode(), name="<b>file</b>.csv"))


# ------------------------------------------------------------------------------------------ escapers
@pytest.mark.parametrize("name", HOSTILE)
def test_escapers_leave_no_active_markup(name):
    md = escape_markdown(name)
    assert "\n" not in md and not re.search(r"(?<!\\)[\[\]|`<]", md.replace("\\\\", ""))
    assert not re.search(r"!\[[^\]]*\]\(", md)  # no image syntax survives, so nothing is fetched
    st_md = escape_streamlit(name)
    assert not re.search(r"(?<!\\)[\[\]:$<]", st_md.replace("\\\\", ""))
    h = escape_html(name)
    assert "<" not in h and ">" not in h and '"' not in h
    cell = csv_safe(name)
    assert cell[:1] not in ("=", "+", "-", "@")


def test_one_formatter_never_prints_minus_zero():
    f = Formatter(percent=True, decimals=1)
    for x in (-1e-12, -0.0004, 0.0, -0.0):
        assert f.num(x, signed=True) == "0.0%" and f.diff(x) == "0.0 pt"
    assert signed_zero_free(-0.0, 1) == "0.0" and f.bounded(-0.3, 1.4) == \
        "(0.0%, 100.0%), clipped; computed (-30.0%, 140.0%)"


# ------------------------------------------------------------------------- hostile names in every export
def test_markdown_report_neutralises_hostile_names():
    md = render(hostile_analysis(), "markdown")
    assert not re.search(r"(?<!\\)\]\(", md) and not re.search(r"(?<!\\)<img", md)  # no link, image or tag
    tables, current = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    assert len(tables) == 2
    for rows in tables:  # every row keeps its cell count: no name breaks a table
        counts = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(counts) == 1, rows


def test_csv_headers_and_cells_are_defused_everywhere():
    a = hostile_analysis()
    for name, body in csv_tables(a).items():
        for row in csv.reader(io.StringIO(body)):
            for cell in row:
                assert cell[:1] not in ("=", "+", "@") and not re.match(r"-[^\d.]", cell), (name, cell)
    from evalstats_app.workbench_sections import _csv
    from evalstats_core.breakdown import disagreements
    from evalstats_core.data import question_scores

    table = question_scores(load(_hostile_bytes()))
    frame = disagreements(table, HOSTILE[3], HOSTILE[4])
    header = next(csv.reader(io.StringIO(_csv(frame))))
    assert all(h[:1] not in ("=", "+", "-", "@") for h in header), header  # model names in the header row


def _hostile_bytes() -> bytes:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["question", HOSTILE[3], HOSTILE[4]])
    for i in range(30):
        w.writerow([f"q{i}", i % 2, (i // 2) % 2])
    return out.getvalue().encode()


def test_html_report_is_self_contained_and_escaped():
    a = hostile_analysis()
    page = render(a, "html")
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page.lower()
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?([^"' >]+)""", page, re.IGNORECASE)
    assert not [r for r in refs if re.match(r"(?:https?:)?//", r)], refs  # no network reference at all
    assert "<img" not in page and "onerror" not in page.replace("onerror=alert", "") or "&lt;img" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;b&gt;file&lt;/b&gt;.csv" in page
    assert "<svg" in page  # the charts are inline
    for head in ("In short", "Models", "Comparisons", "Verdicts", "Methods", "Reproduce"):
        assert f"<h2>{head}</h2>" in page


def test_cli_html_has_no_network_and_the_command(tmp_path):
    out = tmp_path / "r.html"
    proc = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", str(EXAMPLES / "atlas_breeze.csv"),
                           "--format", "html", "-o", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)
    assert "evalbars analyze" in page and "Breeze" in page


# --------------------------------------------------------------------------- one vocabulary, four formats
@pytest.mark.parametrize("clustered", [False, True])
def test_mcnemar_p_is_the_exact_p_in_every_format(clustered):
    a = hostile_analysis(clusters=clustered)
    c = a.comparisons[0]
    doc = json.loads(render(a, "json"))
    rows = list(csv.DictReader(io.StringIO(render(a, "csv", table="comparisons"))))
    md = render(a, "markdown")
    html_page = render(a, "html")
    if clustered:
        assert doc["comparisons"][0]["mcnemar_p"] is None and rows[0]["mcnemar_p"] == ""
        assert "| — |" in md and "<td>—</td>" in html_page
    else:
        from scipy.stats import binomtest

        exact = binomtest(c.only_model, c.only_model + c.only_baseline).pvalue
        assert doc["comparisons"][0]["mcnemar_p"] == pytest.approx(exact)
        assert float(rows[0]["mcnemar_p"]) == pytest.approx(exact)
        shown = f"{exact:.3f}" if exact >= 0.001 else "<0.001"
        assert "McNemar exact p" in md and shown in md
    assert "McNemar p |" not in md  # the chi-square p never appears under an unlabelled "McNemar p"


# ------------------------------------------------------------------------------------------- slides
def test_slide_preset_is_16_9_with_short_title_method_line_and_points():
    from evalstats_core.charts.analyze import differences_chart
    from evalstats_core.charts.slide import slide_png, slide_spec, slide_svg
    from evalstats_core.report import differences_frame, method_line

    a = analyze(load(EXAMPLES / "multilingual_clustered.csv"))
    line = method_line(a, what="comparisons")
    chart = differences_chart(differences_frame(a), title="multilingual: differences in points", subtitle=line)
    spec = slide_spec(chart)
    assert (spec["width"], spec["height"]) == (960, 540) and spec["autosize"]["type"] == "fit"
    png = slide_png(chart)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (1920, 1080)
    svg = slide_svg(chart)
    texts = [re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]
    joined = " ".join(texts)
    # the method line names the interval drawn: this file's clustered 0/1 pairs (many disagreements spread over 250
    # clusters) are read on CR2 t by the 0/1 rule since issue 45 (before: Tango's score interval on effective counts)
    assert "multilingual: differences in points" in texts and "CR2 t, clustered on 'cluster'" in joined
    assert "(250 clusters)" in joined
    assert "Difference, points" in joined and "%" not in " ".join(t for t in texts if re.fullmatch(r"[−+\-\d.%]+", t))
    ticks = [t for t in texts if re.fullmatch(r"[−+\-]?\d+(\.\d+)?%?", t)]
    assert ticks and all(len(t) <= 4 for t in ticks)  # one label per tick, never two run together


# ---------------------------------------------------------------------------------------- output paths
def test_csv_folder_output_never_follows_a_symlink(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    out = tmp_path / "tables"
    out.mkdir()
    os.symlink(target, out / "models.csv")
    proc = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", str(EXAMPLES / "atlas_breeze.csv"),
                           "--format", "csv", "-o", str(out) + "/"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 2 and target.read_text() == "keep me"
    errors = [x for x in proc.stderr.strip().splitlines() if not x.startswith("evalbars: warning:")]
    assert len(errors) == 1 and errors[0].startswith("evalbars: error:") and "symbolic link" in errors[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "linked")  # the folder itself a link: nothing is written where it points
    for out in (str(tmp_path / "linked") + "/", str(tmp_path / "linked")):
        proc = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", str(EXAMPLES / "atlas_breeze.csv"),
                               "--format", "csv", "-o", out], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert proc.returncode == 2 and "is a symbolic link" in proc.stderr and not list(elsewhere.iterdir())


@pytest.mark.parametrize("command", [["--format", "markdown"], ["--format", "html"], ["--format", "json"],
                                     ["--format", "latex"], ["--format", "csv"], ["gate"]])
def test_every_output_refuses_a_symlink_and_a_file_that_is_not_regular(tmp_path, capsys, command):
    """-o through a symlink (issue 46: HTML, Markdown, JSON and LaTeX wrote through it), into a FIFO (it would
    hang), onto a device or a folder: one line, exit 2, nothing written; a regular file is written."""
    from evalstats_core.cli import main

    args = (["gate", str(EXAMPLES / "atlas_breeze.csv"), "--baseline", "Atlas", "--candidate", "Breeze"]
            if command == ["gate"] else ["analyze", str(EXAMPLES / "atlas_breeze.csv"), *command])
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    os.symlink(target, tmp_path / "link.out")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.out")  # a link to a file not yet made: not made
    os.mkfifo(tmp_path / "pipe.out")
    for out, kind in (("link.out", "a symbolic link"), ("dangling.out", "a symbolic link"),
                      ("pipe.out", "a named pipe (FIFO)"), (os.devnull, "a device")):
        capsys.readouterr()
        assert main([*args, "-o", str(tmp_path / out)]) == 2
        errors = [x for x in capsys.readouterr().err.splitlines() if not x.startswith("evalbars: warning:")]
        assert len(errors) == 1 and errors[0].startswith("evalbars: error:") and f"is {kind}" in errors[0], errors
    assert target.read_text() == "keep me" and not (tmp_path / "nowhere").exists()
    assert main([*args, "-o", str(tmp_path / "report.out")]) in (0, 3)  # atlas_breeze's gate is inconclusive
    assert len((tmp_path / "report.out").read_text()) > 100


def test_a_file_name_starting_with_a_dash_reruns_from_the_printed_command(tmp_path):
    (tmp_path / "-results.csv").write_bytes((EXAMPLES / "atlas_breeze.csv").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", "--format", "json", "--",
                            "-results.csv"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    command = json.loads(first.stdout)["settings"]["command"]
    assert command.startswith("evalbars analyze ./-results.csv")
    import shlex

    args = shlex.split(command)[1:]
    again = subprocess.run([sys.executable, "-m", "evalstats_core", *args, "--format", "json"], capture_output=True,
                           text=True, cwd=tmp_path, env=env, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["comparisons"] == json.loads(first.stdout)["comparisons"]


def test_every_message_says_evalbars():
    proc = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", "no-such-file.csv"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("evalbars: error:")
    helptext = subprocess.run([sys.executable, "-m", "evalstats_core", "--help"], capture_output=True, text=True,
                              cwd=ROOT, timeout=120).stdout
    assert "usage: evalbars" in helptext and "python -m evalstats_core" not in helptext


def test_a_t_interval_at_n_2_is_shown_clipped_with_its_computed_ends():
    """Two questions: the t interval runs far past 0% and 100%; every table shows it clipped and states the
    computed ends (issue 22.9), the chart draws it clipped, LaTeX marks it and gives the ends under the table."""
    from evalstats_core.report import clipped_note, model_intervals, models_display, models_table

    a = analyze(load(b"question,A,B\nq1,1,0\nq2,0,0\n", name="two.csv"), interval="normal")
    m = a.models[0]
    assert m.ci_low < 0 and m.ci_high > 1
    cell = models_display(a, model_intervals(a)).iloc[0]["95% CI"]
    assert cell.startswith("(0.0%, 100.0%), clipped; computed (") and f"{100 * m.ci_low:.1f}%" in cell
    assert cell in models_table(a)
    assert clipped_note(a, model_intervals(a)) is not None
    tex = render(a, "latex")
    assert r"\textsuperscript{*}" in tex and "computed:" in tex


def test_difference_matrix_is_in_points():
    from evalstats_core.charts.analyze import difference_matrix
    from evalstats_core.report import matrix_frame

    a = analyze(load(EXAMPLES / "multilingual_clustered.csv"))
    spec = difference_matrix(matrix_frame(a), order=[m.model for m in a.models]).to_dict()
    text = json.dumps(spec, ensure_ascii=False)
    assert "row − column, points" in text and '".1%"' not in text


def test_workbench_captions_and_markdown_escape_hostile_names_with_clusters():
    """Issue 21.5: model names in the clustered 'why' caption (and every other caption, verdict and summary)
    reach Streamlit escaped: no image, link, directive or math survives."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import no_exceptions, run_page

    from evalstats_app.workbench import INJECT_KEY

    names = ["![p](http://127.0.0.1:9/x.png)", "[a](http://e) :red[b] $x$"]
    rows = ["question,cluster," + ",".join('"' + n.replace('"', '""') + '"' for n in names)]
    rows += [f"q{i},c{i % 12},{int(i % 3 != 0)},{int(i % 4 != 0)}" for i in range(120)]
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": "hostile.csv", "data": ("\n".join(rows) + "\n").encode()}
    at.run()
    no_exceptions(at)
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    joined = "\n".join(texts)
    assert "Each cluster's share of the paired difference" in joined  # the clustered 'why' caption is there
    for text in texts:
        assert not re.search(r"(?<!\\)!(?<!\\)\[", text) and not re.search(r"(?<!\\)\]\(http", text), text
        assert not re.search(r"(?<!\\):red(?<!\\)\[", text), text


def test_an_svg_export_under_an_address_space_cap_never_kills_the_process():
    """Under `ulimit -v` V8 aborts the whole process when it cannot reserve its heap (it killed the app's
    server); the export then renders in a child and a failure comes back as a message."""
    import shutil

    if shutil.which("bash") is None:
        pytest.skip("needs bash for ulimit")
    code = ("import altair as alt, pandas as pd\n"
            "from evalstats_core.charts import to_svg\n"
            "from evalstats_core.charts._render import capped\n"
            "assert capped()\n"
            "try:\n"
            "    svg = to_svg(alt.Chart(pd.DataFrame({'a': [1, 2]})).mark_point().encode(x='a'))\n"
            "    print('drawn' if svg.lstrip().startswith('<svg') else 'bad')\n"
            "except ValueError as exc:\n"
            "    print('message:', exc)\n")
    proc = subprocess.run(["bash", "-c", f"ulimit -v 4000000; exec {sys.executable} -c \"$0\"", code],
                          capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.strip()
    assert out == "drawn" or out.startswith("message: the chart could not be drawn here"), out


def test_workbench_chart_exports_carry_the_method_line_shown_on_screen():
    """Issue 22.6: the exported subtitle is the method line the chart shows (CR2, clusters), never 'default
    settings'; the title is short and names the benchmark; the differences are in points."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import no_exceptions, run_page

    from evalstats_app.shell import _EXPORTS

    at = run_page("pages/analyze.py")
    at.selectbox(key="analyze_example").set_value("multilingual").run()
    no_exceptions(at)
    exports = at.session_state[_EXPORTS]
    for name in ("analyze_models", "analyze_differences"):
        svg = exports[name]()
        texts = " ".join(re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S))
        assert "CR2" in texts and "clustered on 'cluster'" in texts and "default settings" not in texts, name
        assert "multilingual_clustered.csv:" in texts
    diff_texts = re.findall(r"<text[^>]*>(.*?)</text>", exports["analyze_differences"](), re.S)
    assert any("Difference, points" in t for t in diff_texts)
    assert not any(re.fullmatch(r"[−+\-]?\d+(\.\d+)?%", t) for t in diff_texts)  # no '%' on the difference axis


def test_a_figure_s_method_line_names_the_interval_it_draws():
    """The differences figure's subtitle names Tango's score interval when every comparison uses it (0/1
    answers), not the t the standard error would give; t where the pairs use t (scores that are not 0/1)."""
    from evalstats_core.data import question_scores
    from evalstats_core.report import method_line

    rng = np.random.default_rng(1)
    rows = "question,alpha,beta\n" + "".join(
        f"q{i:03d},{int(rng.random() < .8)},{int(rng.random() < .67)}\n" for i in range(120))
    a = analyze(question_scores(load(rows.encode(), name="binary.csv")))
    assert {c.interval for c in a.comparisons} == {"Tango score (discordant answers, continuity-corrected)"}
    assert method_line(a, what="comparisons").split(" · ")[1] == "Tango score (discordant answers, continuity-corrected)"
    assert method_line(a, what="models").split(" · ")[1] == "Wilson"
    cont = analyze(question_scores(load(Path(__file__).parents[1] / "examples" / "atlas_breeze.csv")))
    assert method_line(cont, what="comparisons").split(" · ")[1] == "t (n - 1 df)"
