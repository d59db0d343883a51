"""The results workbench (pages/analyze.py) through AppTest: examples, every control, bad files, the URL,
and the page's numbers against the command line's JSON on the same file."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest
from conftest import ROOT, no_exceptions, run_page

from evalstats_app import workbench as wb
from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core import report

PAGE = "pages/analyze.py"
_UNESCAPE = re.compile(r"\\(.)")


def text_of(at) -> str:
    """All Markdown, caption, alert and metric text of the page, Markdown escapes removed."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error]
    parts += [w.value for w in at.warning] + [s.value for s in at.success] + [i.value for i in at.info]
    parts += [f"{m.label} {m.value}" for m in at.metric] + [t.value for t in at.text]
    return _UNESCAPE.sub(r"\1", "\n".join(parts)).replace("**", "")


def table(at, first_column: str):
    """The first dataframe whose first column is ``first_column``."""
    for df in at.dataframe:
        if df.value.columns[0] == first_column:
            return df.value
    raise AssertionError(f"no table starting with {first_column!r}: {[list(d.value.columns) for d in at.dataframe]}")


def pair_table(at):
    """The pairwise (Table 5) numbers: the comparisons table (difference and interval in points, the p to quote)
    side by side with its Details table (correlation, df, every p, unpaired SE, pairing saved)."""
    import pandas as pd

    shown = [d.value for d in at.dataframe if any(c.startswith("Model − Baseline (SE)") for c in d.value.columns)][0]
    details = [d.value for d in at.dataframe if "Pairing saved" in d.value.columns][0]
    extra = details[[c for c in details.columns if c not in shown.columns]]
    return pd.concat([shown.reset_index(drop=True), extra.reset_index(drop=True)], axis=1)


def inject(at, name: str, data: bytes):
    at.session_state[INJECT_KEY] = {"name": name, "data": data}
    return at.run()


@pytest.fixture(scope="module")
def atlas():
    at = run_page(PAGE)
    no_exceptions(at)
    return at


# ------------------------------------------------------------------------------------------ examples
def test_opens_on_atlas_breeze_with_honest_numbers_and_the_seed_s_with_cr1(atlas):
    """The page opens on Atlas/Breeze with the paired t-test (10 tasks: p 0.059, an interval across zero);
    the paper's CR1/z setting shows the seed's worked numbers."""
    models = table(atlas, "Model")
    assert list(models["95% CI"]) == ["(49.7%, 77.5%)", "(54.8%, 82.4%)"]  # t(9): scipy ttest_1samp
    row = pair_table(atlas).iloc[0]
    assert row["95% CI, points"] == "(-0.2, +10.2)" and row["p"] == "0.059" and row["df"] == "9.0"
    assert ("Breeze and Atlas cannot be told apart: Breeze - Atlas = +5.0 points (95% CI -0.2 to 10.2, an interval "
            "that includes zero; p 0.059); with 10 questions the standard error rests on 9.0 degrees of freedom: it is "
            "within 0.55x to 1.45x of the true one (95%), which the t interval allows for.") in text_of(atlas)
    atlas.selectbox(key="analyze_cluster_se").set_value("cr1").run()
    models = table(atlas, "Model")
    assert list(models["Model"]) == ["Atlas", "Breeze"]
    assert list(models["Mean (SE)"]) == ["63.6% (6.1%)", "68.6% (6.1%)"]  # seed 004: 63.6%, SE 0.0613
    assert models["95% CI"][0] == "(51.6%, 75.6%)"  # seed 004: 51.6% to 75.6%
    row = pair_table(atlas).iloc[0]
    assert row["Model − Baseline (SE), points"] == "+5.0 (2.3)"  # paired SE 0.0232
    assert row["95% CI, points"] == "(+0.5, +9.5)"
    assert row["Unpaired SE, points"] == "8.6"  # naive SE 0.0864
    assert row["Pairing saved"] == "73% of the SE"  # seed 004: "the paired SE is 73% smaller"
    assert row["Correlation"] == "0.93"
    assert row["df"] == "∞" and row["p"] == "0.031"
    text = text_of(atlas)
    assert ("Breeze beats Atlas by 5.0 points (95% CI 0.5 to 9.5; p 0.031); with only 10 questions the normal "
            "interval is narrower than it should be (t on 9 degrees of freedom would be 15% wider).") in text
    assert "wide form" in text and "continuous" in text and "10 questions, 2 models" in text


def test_atlas_guardrails_and_plan(atlas):
    """With the paper's z (CR1), guardrails flag the small n and the overlap trap; the plan gives the MDE
    and the power link."""
    atlas.selectbox(key="analyze_cluster_se").set_value("cr1").run()
    warnings = [w.value for w in atlas.warning]
    assert any("CLT interval at small n" in w for w in warnings)
    assert any("Overlapping intervals" in w for w in warnings)
    text = text_of(atlas)
    assert "Minimum detectable effect (this eval) 7.3 pts" in text  # t on 9 df (z: 6.5)
    link = atlas.get("page_link")
    assert any("power calculator" in (pl.proto.label or "") for pl in link)


@pytest.mark.parametrize("slug, models, needle", [
    ("multilingual", ["Galleon", "Dreadnought", "Frigate"], "250 clusters in column 'cluster', of 10 questions each"),
    ("synthetic", ["base-7b", "chat-7b", "chat-13b"], "5 answers per question and model"),
])
def test_each_bundled_example(slug, models, needle):
    """Each example loads, names its structure, and fills every section."""
    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value(slug).run()
    no_exceptions(at)
    assert not at.error
    assert list(table(at, "Model")["Model"]) == models
    text = text_of(at)
    assert needle in text
    assert "Order" in table(at, "Order").columns[0]
    assert len(at.get("download_button")) >= 11  # 2 charts x (PNG, SVG) + 7 exports
    if slug == "multilingual":
        assert "Design effect" in table(at, "Model").columns
        assert len(table(at, "Model").columns) and not table(at, "Model")["Clusters"].eq("").any()
        assert "Only model right (b)" in [c for d in at.dataframe for c in d.value.columns]
    else:
        assert any("Resamples pooled" in w.value for w in at.warning)
        assert "Answers per question K" in [c for d in at.dataframe for c in d.value.columns]


# ------------------------------------------------------------------------------------------ controls
def test_every_analysis_control_moves_the_numbers():
    """Confidence, interval method, baseline, adjustment and pairing each change what is shown."""
    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value("multilingual").run()
    at.select_slider(key="analyze_confidence").set_value(0.9).run()
    assert "90% CI" in table(at, "Model").columns
    at.selectbox(key="analyze_baseline").set_value("Frigate").run()
    pairs = pair_table(at)
    assert set(pairs["Baseline"]) == {"Frigate"} and len(pairs) == 2
    at.selectbox(key="analyze_adjust").set_value("bh").run()
    assert "p (Benjamini–Hochberg)" in pair_table(at).columns
    at.toggle(key="analyze_paired").set_value(False).run()
    pairs = pair_table(at)
    assert (pairs["Pairing saved"] == "n/a").all()
    at.selectbox(key="analyze_cluster_col").set_value("(none)").run()
    no_exceptions(at)
    assert "Clusters" not in table(at, "Model").columns
    assert any("Clusters left unused" in w.value and "'cluster'" in w.value for w in at.warning)
    assert at.session_state[LAST_KEY].clustered is False


def test_interval_method_wilson_on_small_binary_file():
    """On independent 0/1 scores, the interval method switches between Wilson and the CLT interval."""
    rows = "question,A,B\n" + "".join(f"q{i},{int(i % 3 != 0)},{int(i % 4 != 0)}\n" for i in range(40))
    at = run_page(PAGE)
    inject(at, "small.csv", rows.encode())
    no_exceptions(at)
    assert table(at, "Model")["Interval"][0] == "Wilson"  # auto: Wilson below 300 questions
    at.selectbox(key="analyze_method").set_value("normal").run()
    clt = table(at, "Model")["95% CI"][0]
    assert table(at, "Model")["Interval"][0] == "t (n - 1 df)"
    at.selectbox(key="analyze_method").set_value("clopper-pearson").run()
    assert table(at, "Model")["95% CI"][0] != clt


def test_interval_menu_offers_what_can_be_asked_for():
    """The workbench's interval menu is the CLI's ``--interval`` choices, and each runs on a 0/1 file: the
    labels ``auto`` may pick (Korn-Graubard, two cluster means, Tango) are outcomes, not choices."""
    from evalstats_core.cli import build_parser

    choices = next(a for a in build_parser()._subparsers._group_actions[0].choices["analyze"]._actions
                   if a.dest == "interval").choices
    rows = "question,A,B\n" + "".join(f"q{i},{int(i % 3 != 0)},{int(i % 4 != 0)}\n" for i in range(40))
    at = run_page(PAGE)
    inject(at, "small.csv", rows.encode())
    menu = at.selectbox(key="analyze_method").options
    assert len(menu) == len(choices) == len(report.INTERVAL_METHODS)
    for method in report.INTERVAL_METHODS:
        at.selectbox(key="analyze_method").set_value(method).run()
        no_exceptions(at)
        assert not at.error
        assert table(at, "Model")["95% CI"][0]


def test_plan_controls_and_reported_mode():
    """The plan's pair, effect, alpha and power move the numbers; the reported mode gives intervals."""
    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value("synthetic").run()
    before = text_of(at)
    at.number_input(key="analyze_delta").set_value(5.0).run()
    assert "Questions for 5.0 pts" in text_of(at) and text_of(at) != before
    at.slider(key="analyze_power").set_value(0.9).run()
    at.number_input(key="analyze_alpha").set_value(0.01).run()
    at.selectbox(key="analyze_plan_pair").set_value("chat-13b − chat-7b").run()
    no_exceptions(at)
    assert "chat-13b and chat-7b detects a true difference" in text_of(at)
    assert "90% power at α = 0.01" in text_of(at)
    at.radio(key="analyze_mode").set_value("reported").run()
    no_exceptions(at)
    shown = table(at, "Model")
    assert list(shown["Accuracy (SE)"]) == ["83.6% (2.89%)", "86.7% (2.65%)"]  # seed 000: SE 2.89% at n=164
    text = text_of(at)
    assert "includes 0, so these numbers alone do not separate them" in text
    assert "McNemar's test" in text
    at.selectbox(key="analyze_reported_method").set_value("wald").run()
    assert table(at, "Model")["95% CI"][0] == "(77.9%, 89.3%)"  # seed 000: HumanEval (77.9%, 89.3%)



def test_verdict_icons_follow_the_adjusted_test_and_link_needs_an_effect_the_power_page_takes():
    """A pair whose raw CI excludes 0 but is not significant after Holm gets the "help" icon, like the
    forest plot's colour; an effect beyond the power page's range replaces the link with a caption."""
    data = b"question,A,B,C\n" + b"".join(
        f"q{i},{int(i % 3 != 0)},{int(i % 4 != 0)},{int(i % 2 == 0)}\n".encode() for i in range(60))
    at = run_page(PAGE)
    inject(at, "icons.csv", data)
    no_exceptions(at)
    a = at.session_state[LAST_KEY]
    raw_only = [c for c in a.comparisons if (c.ci_low > 0 or c.ci_high < 0) and c.p_adjusted >= 0.05]
    assert len(raw_only) == 1
    verdicts = [m.value for m in at.markdown if m.value.startswith(":material/")
                and ("beats" in m.value or "cannot be told apart" in m.value)]
    assert len(verdicts) == 3 and all(v.startswith(":material/help:") for v in verdicts), verdicts
    assert any("power calculator" in (pl.proto.label or "") for pl in at.get("page_link"))
    at.number_input(key="analyze_delta").set_value(80.0).run()
    no_exceptions(at)
    assert not any("power calculator" in (pl.proto.label or "") for pl in at.get("page_link"))
    assert any("takes effects from 0.1 to 50 points" in c.value for c in at.caption)


def test_rating_scale_file_plans_without_a_power_link():
    """Scores on a 1-10 scale are planned in score units; the power link (0-1 scores) is replaced by a caption."""
    data = b"question,A,B\n" + b"".join(f"q{i},{1 + i % 10},{1 + (i * 7) % 10}\n".encode() for i in range(50))
    at = run_page(PAGE)
    inject(at, "ratings.csv", data)
    no_exceptions(at)
    assert at.session_state[LAST_KEY].unit == "score"
    assert "Effect to detect (score units)" == at.number_input(key="analyze_delta").label
    assert not any("power calculator" in (pl.proto.label or "") for pl in at.get("page_link"))
    assert any("works on scores between 0 and 1" in c.value for c in at.caption)

def test_role_controls_recover_from_an_unrecognised_header():
    """A file whose columns are not recognised shows the error; choosing the roles by hand fixes it."""
    data = b"prompt,system,points\np1,A,1\np2,A,0\np3,A,1\np1,B,0\np2,B,1\np3,B,1\n"
    at = run_page(PAGE)
    inject(at, "odd.csv", data)
    no_exceptions(at)
    assert at.error and "could not find the question column" in at.error[0].value
    at.selectbox(key="analyze_format").set_value("long")
    at.selectbox(key="analyze_question_col").set_value("prompt")
    at.selectbox(key="analyze_model_col").set_value("system")
    at.selectbox(key="analyze_score_col").set_value("points").run()
    no_exceptions(at)
    assert not at.error
    assert list(table(at, "Model")["Model"]) == ["A", "B"]
    assert report.settings(at.session_state[LAST_KEY])["command"].endswith(
        "--layout long --question-col prompt --model-col system --score-col points --no-clusters")


# ---------------------------------------------------------------------------------------- bad files
BAD_FILES = {
    "empty": (b"", "is empty"),
    "header only": (b"question,model,score\n", "no data rows"),
    "missing columns": (b"prompt,output\nhello,1\nbye,0\n", "could not find the question column"),
    "long form without a score column": (b"question,model\nq1,A\nq2,A\n", "could not find the score column"),
    "non-numeric score": (b"question,model,score\nq1,A,1\nq2,A,good\nq1,B,0\nq2,B,1\n", "'good'"),
    "missing score": (b"question,model,score\nq1,A,1\nq2,A,\nq1,B,0\nq2,B,1\n", "no score"),
    "ragged rows": (b"question,model,score\nq1,A,1\nq2,A,0,7\nq1,B,0\nq2,B,1\n", "fields"),
    "wrong encoding": ("question,model,score\nq1,Modèle,1\nq2,Modèle,0\n".encode("latin-1"), "UTF-8"),
    "model with one question": (b"question,model,score\nq1,A,1\nq2,A,0\nq1,B,1\n", "only one question"),
    "binary junk": (bytes(range(256)) * 4, "binary"),
    "excel file": (b"PK\x03\x04" + b"\x00" * 64, "Excel"),
}


@pytest.fixture(scope="module")
def session():
    """One page session shared by the bad-file cases (each case leaves it back on the example)."""
    return run_page(PAGE)


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_gives_an_error_and_the_page_stays_usable(session, case):
    """Every bad file gives st.error with the engine's message; no traceback; the example still works after."""
    data, needle = BAD_FILES[case]
    at = session
    inject(at, f"{case.replace(' ', '_')}.csv", data)
    no_exceptions(at)
    assert len(at.error) == 1, [e.value for e in at.error]
    assert needle in _UNESCAPE.sub(r"\1", at.error[0].value)
    assert LAST_KEY not in at.session_state
    assert at.radio(key="analyze_mode").value == "results"  # the controls are still there
    del at.session_state[INJECT_KEY]
    at.run()
    no_exceptions(at)
    assert not at.error and list(table(at, "Model")["Model"]) == ["Atlas", "Breeze"]


def test_user_text_is_shown_as_text_not_markup():
    """Model and column names with Markdown, HTML and LaTeX characters are escaped, never rendered."""
    data = ("question,**bold** <b>x</b>,[link](http://evil),$x^2$\n"
            + "".join(f"q{i},{i % 2},{(i + 1) % 2},{int(i % 3 == 0)}\n" for i in range(12))).encode()
    at = run_page(PAGE)
    inject(at, "<script>.csv", data)
    no_exceptions(at)
    for el in list(at.markdown) + list(at.warning) + list(at.caption):
        raw = el.value
        assert "**bold**" not in raw and "](http" not in raw and "<b>" not in raw and "<script>" not in raw
        assert "$x^2$" not in raw
    assert "**bold** <b>x</b>" in list(table(at, "Model")["Model"])  # exact text in the dataframe


# ------------------------------------------------------------------------------------------- URL
def test_settings_restore_from_the_url():
    """Example, confidence, method, baseline and adjustment come back from the query string."""
    at = run_page(PAGE, query={"analyze_example": "multilingual", "analyze_confidence": "0.9",
                               "analyze_method": "wilson", "analyze_baseline": "Galleon", "analyze_adjust": "bh",
                               "analyze_delta": "2.5"})
    no_exceptions(at)
    assert at.selectbox(key="analyze_example").value == "multilingual"
    assert at.select_slider(key="analyze_confidence").value == 0.9
    assert at.selectbox(key="analyze_method").value == "wilson"
    assert at.selectbox(key="analyze_baseline").value == "Galleon"
    assert at.selectbox(key="analyze_adjust").value == "bh"
    assert at.number_input(key="analyze_delta").value == 2.5
    a = at.session_state[LAST_KEY]
    assert (a.baseline, a.confidence, a.adjust) == ("Galleon", 0.9, "bh")


def test_unknown_baseline_in_url_falls_back_to_all_pairs():
    """A baseline that is not a model of the file is ignored (every pair is compared)."""
    at = run_page(PAGE, query={"analyze_baseline": "NoSuchModel"})
    no_exceptions(at)
    assert at.selectbox(key="analyze_baseline").value == "(all pairs)"


# ------------------------------------------------------------------------------- same as the CLI
def _cli_json(file_path, command: str) -> dict:
    args = shlex.split(command)[2:]  # drop "evalbars analyze", keep the flags after FILE (or after --example NAME)
    args = args[2:] if args[0] == "--example" else args[1:]
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", str(file_path), *args,
                          "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("slug, changes", [
    ("atlas_breeze", {}),
    ("multilingual", {"analyze_confidence": 0.9, "analyze_adjust": "bh", "analyze_baseline": "Frigate"}),
    ("synthetic", {"analyze_paired": False}),
    ("atlas_breeze", {"analyze_cluster_se": "cr1", "analyze_method": "normal"}),
    ("multilingual", {"analyze_method": "bayes", "analyze_wild": True}),
])
def test_page_numbers_equal_the_command_line_json(slug, changes):
    """The analysis the page shows, and its tables, equal `evalbars analyze FILE --format json`."""
    from evalstats_app.examples import EXAMPLES, EXAMPLES_DIR
    from evalstats_core.report import Formatter

    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value(slug).run()
    for key, value in changes.items():
        widget = {"analyze_confidence": at.select_slider, "analyze_paired": at.toggle,
                  "analyze_wild": at.toggle}.get(key, at.selectbox)
        widget(key=key).set_value(value).run()
    no_exceptions(at)
    analysis = at.session_state[LAST_KEY]
    command = report.settings(analysis)["command"]
    cli = _cli_json(EXAMPLES_DIR / EXAMPLES[slug].file, command)
    page = json.loads(json.dumps(report.json_document(analysis)))
    # the page's command and the CLI's name the example alike (--example NAME, never a path); every option the same
    assert command.startswith(f"evalbars analyze --example {slug} ") and str(EXAMPLES_DIR) not in command
    assert cli["settings"].pop("command") == command
    page["settings"].pop("command")
    assert page == cli  # same numbers, same settings
    fmt = Formatter(analysis)
    shown = table(at, "Model")
    for row, m in zip(shown.itertuples(index=False), cli["models"], strict=False):
        assert row[0] == m["model"]
        assert row[1] == f"{fmt.num(m['mean'])} ({fmt.num(m['se'])})"
    pairs = pair_table(at)
    for row, c in zip(pairs.itertuples(index=False), cli["comparisons"], strict=False):
        assert (row[0], row[1]) == (c["model"], c["baseline"])
        assert row[2] == f"{fmt.num(c['diff'], signed=True, unit=False)} ({fmt.num(c['se'], unit=False)})"
        assert row[3] == fmt.bounded(*c["ci"], diff=True)


def test_one_model_file_and_parquet_upload(session):
    """A one-model file shows its table and says there is nothing to compare; a wide Parquet file with a
    cluster column is read and clustered."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    at = session
    inject(at, "one.csv", b"question,only\n" + b"".join(f"q{i},{i % 2}\n".encode() for i in range(30)))
    no_exceptions(at)
    assert not at.error and list(table(at, "Model")["Model"]) == ["only"]
    assert any("nothing to compare" in i.value for i in at.info)
    buf = io.BytesIO()
    pq.write_table(pa.table({"question": [f"q{i}" for i in range(50)], "cluster": [f"c{i // 5}" for i in range(50)],
                             "A": [i % 2 for i in range(50)], "B": [(i // 2) % 2 for i in range(50)]}), buf)
    inject(at, "r.parquet", buf.getvalue())
    no_exceptions(at)
    assert not at.error
    assert "(PARQUET, wide form, 100 scores)" in text_of(at) and "10 clusters in column 'cluster'" in text_of(at)
    assert at.session_state[LAST_KEY].clustered and at.session_state[LAST_KEY].n_clusters == 10
    del at.session_state[INJECT_KEY]
    at.run()


@pytest.mark.parametrize("example, kind", [("coding_12_repos.csv", "Korn-Graubard"), ("multilingual_clustered.csv", None)])
def test_the_interval_caption_names_the_intervals_the_table_shows(session, example, kind):
    """With clusters and 0/1 scores the caption says which interval each model got, as the Interval column
    does (it used to say every interval was the clustered t one beside a Korn-Graubard row)."""
    at = inject(session, example, (ROOT / "examples" / example).read_bytes())
    no_exceptions(at)
    caption = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("This file has clusters")]
    kinds = set(at.session_state[LAST_KEY].models[i].interval for i in range(len(at.session_state[LAST_KEY].models)))
    assert len(caption) == 1, caption
    if kind is None:
        assert all(k.startswith("CR2 t") for k in kinds) and "every interval here is the clustered t" in caption[0]
    else:
        assert any(k.startswith(kind) for k in kinds) and all(k in caption[0] for k in kinds)
    del session.session_state[INJECT_KEY]
    session.run()


def test_design_effect_below_one_is_explained_on_the_page():
    """Clusters whose questions disagree more than chance (or few clusters' noise) give a design effect
    below 1 and an effective n above n: the page says why, beside the table."""
    rows = "question,model,score,cluster\n" + "".join(
        f"q{i},{m},{(i + (m == 'B')) % 2},c{i // 2}\n" for i in range(40) for m in "AB")  # 0,1 in each pair
    at = run_page(PAGE)
    inject(at, "neg.csv", rows.encode())
    no_exceptions(at)
    a = at.session_state[LAST_KEY]
    assert a.clustered and all(m.deff < 1 for m in a.models)
    infos = [i.value.replace("\\", "") for i in at.info]  # the page escapes Markdown
    assert any(i.startswith("Design effect below 1 for A (") and "negative within-cluster correlation" in i
               for i in infos), infos


def test_why_section_clusters_and_disagreements():
    """The per-cluster shares and the disagreement list follow the chosen pair and match the core."""
    from evalstats_core.breakdown import cluster_breakdown, disagreements

    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value("multilingual").run()
    no_exceptions(at)
    at.selectbox(key="analyze_why_pair").set_value("Frigate − Galleon").run()
    no_exceptions(at)
    shares = [d.value for d in at.dataframe if "Share of the difference" in d.value.columns][0]
    tb = at.session_state[LAST_KEY]
    assert len(shares) == 250  # one row per cluster
    from evalstats_app import examples
    from evalstats_core.data import prepare

    data, name = examples.example_bytes("multilingual")
    table = prepare(data, name).table
    ref = cluster_breakdown(table, "Frigate", "Galleon")
    assert list(shares["Cluster"]) == list(ref["cluster"])
    assert shares["Share of the difference"][0] == f"{ref['share'][0]:.0%}"
    dis = disagreements(table, "Frigate", "Galleon")
    assert f"{len(dis):,} of 2,500 shared questions" in text_of(at) and tb.clustered
    shown = [d.value for d in at.dataframe if "diff" in d.value.columns][0]  # the top of the list, not all of it
    assert len(dis) > 500 and len(shown) == 500 and list(shown["question"]) == list(dis["question"][:500])
    assert f"The 500 largest gaps of {len(dis):,}" in text_of(at)
    keys = {b.proto.label for b in at.get("download_button")}
    assert {"Clusters (CSV)", "Disagreements (CSV)"} <= keys


def test_disagreements_limit_is_the_top_of_the_whole_list():
    """``limit`` gives the first rows of the full list (largest gap first, file order among ties) and counts all."""
    import numpy as np

    from evalstats_core.breakdown import disagreements
    from evalstats_core.data import load, question_scores

    rng = np.random.default_rng(3)
    body = "".join(f"q{i},{a:.2f},{b:.2f}\n" for i, (a, b) in enumerate(rng.integers(0, 4, (300, 2)) / 3))
    t = question_scores(load(("question,A,B\n" + body).encode()))
    full = disagreements(t, "A", "B")
    for k in (1, 7, 50, len(full), len(full) + 5):
        top = disagreements(t, "A", "B", limit=k)
        assert top.attrs["total"] == full.attrs["total"] == len(full)
        assert top.equals(full.head(k).reset_index(drop=True))


def test_many_models_get_a_matrix_and_a_leader_forest():
    """From 8 models the all-pairs view is a heat map plus every model against the leader."""
    rows = "question," + ",".join(f"m{j}" for j in range(9)) + "\n" + "".join(
        f"q{i}," + ",".join(str(int((i * 7 + j * 13) % 100 < 40 + 3 * j)) for j in range(9)) + "\n" for i in range(300))
    at = run_page(PAGE)
    inject(at, "nine.csv", rows.encode())
    no_exceptions(at)
    specs = [c.proto.spec for c in at.get("vega_lite_chart")]
    assert any("every pairwise difference" in s for s in specs) and any("every model against the leader" in s
                                                                         for s in specs)
    assert not any("Differences between models" in s for s in specs)
    assert all("95% CI" in s for s in specs if "Every" in s)  # the method line is the subtitle


def test_zip_of_csv_tables_equals_the_command_line_folder(tmp_path):
    """The page's ZIP holds one CSV per table, byte for byte what `analyze -f csv -o DIR/` writes."""
    import io
    import zipfile

    from evalstats_app.examples import EXAMPLES_DIR
    from evalstats_app.workbench_sections import _zip

    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value("multilingual").run()
    at.selectbox(key="analyze_cluster_se").set_value("cr1").run()
    analysis = at.session_state[LAST_KEY]
    blob = _zip(report.csv_tables(analysis))
    assert any(b.proto.label == "All tables (ZIP of CSV)" for b in at.get("download_button"))
    cmd = shlex.split(report.settings(analysis)["command"])
    assert cmd[2:4] == ["--example", "multilingual"]  # the example by name, then every option
    cmd = cmd[4:]
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze",
                          str(EXAMPLES_DIR / "multilingual_clustered.csv"), *cmd, "-f", "csv", "-o",
                          str(tmp_path) + "/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        assert sorted(zf.namelist()) == ["comparisons.csv", "models.csv"]
        for name in zf.namelist():
            assert zf.read(name).decode() == (tmp_path / name).read_text()


def test_downloaded_analysis_reopens_exactly():
    """A downloaded analysis (Parquet data + settings in a .zip) opened with the uploader shows the same
    analysis: the same numbers and settings, including non-default ones; bad settings are ignored."""
    from evalstats_app import workbench as wb
    from evalstats_app.examples import EXAMPLES_DIR
    from evalstats_core.bundle import make_bundle, read_bundle
    from evalstats_core.data import load

    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value("multilingual").run()
    at.select_slider(key="analyze_confidence").set_value(0.9).run()
    at.selectbox(key="analyze_cluster_se").set_value("cr1").run()
    at.selectbox(key="analyze_baseline").set_value("Frigate").run()
    at.selectbox(key="analyze_method").set_value("bayes").run()
    no_exceptions(at)
    before = report.json_document(at.session_state[LAST_KEY])
    assert any(b.proto.label.startswith("Download this analysis") for b in at.get("download_button"))
    settings = {k: at.session_state[k] for k in wb.BUNDLED}
    settings["analyze_adjust"] = "<script>"  # not one of the page's choices: ignored, with a note
    blob = make_bundle(load(EXAMPLES_DIR / "multilingual_clustered.csv"), settings)
    assert read_bundle(blob).settings["analyze_confidence"] == 0.9

    fresh = run_page(PAGE)
    inject(fresh, "multilingual_clustered_analysis.zip", blob)
    no_exceptions(fresh)
    after = report.json_document(fresh.session_state[LAST_KEY])
    assert after["models"] == before["models"] and after["comparisons"] == before["comparisons"]
    assert fresh.selectbox(key="analyze_cluster_se").value == "cr1"
    assert fresh.selectbox(key="analyze_adjust").value == "holm"
    assert "ignored: analyze\\_adjust" in text_of(fresh) or "ignored: analyze_adjust" in text_of(fresh)


@pytest.mark.parametrize("slug, changes", [
    ("atlas_breeze", {}),
    ("multilingual", {"analyze_cluster_se": "cr1", "analyze_method": "wilson", "analyze_confidence": 0.9}),
    ("synthetic", {"analyze_paired": False, "analyze_adjust": "bh"}),
])
def test_every_text_export_prints_the_page_s_numbers(slug, changes):
    """Markdown and LaTeX tables, the CSV and the JSON carry the same means, SEs and intervals as the page's
    tables, character for character (one formatter), whatever the interval, SE method, level or pairing."""
    at = run_page(PAGE)
    at.selectbox(key="analyze_example").set_value(slug).run()
    for key, value in changes.items():
        widget = {"analyze_confidence": at.select_slider, "analyze_paired": at.toggle}.get(key, at.selectbox)
        widget(key=key).set_value(value).run()
    no_exceptions(at)
    a = at.session_state[LAST_KEY]
    level = f"{round(100 * a.confidence):g}% CI"
    md, tex = report.render(a, "markdown"), report.render(a, "latex")
    for row in table(at, "Model").itertuples(index=False):
        cells = dict(zip(table(at, "Model").columns, row, strict=True))
        assert f"| {cells['Mean (SE)']} | {cells[level]} |" in md
        # LaTeX's compact table: the same mean and interval, without the % signs (the caption names the unit)
        mean = cells["Mean (SE)"].split("%")[0]
        low, high = (x.strip(" (%)") for x in cells[level].split(", clipped")[0].split(", "))
        assert f"{mean} [{low}, {high}]".replace("-", "$-$") in tex
    for row in pair_table(at).itertuples(index=False):
        cells = dict(zip(pair_table(at).columns, row, strict=True))
        assert f"| {cells['Model − Baseline (SE), points']} | {cells[level + ', points']} |" in md
    models_csv = {m.model: m for m in a.models}
    for got in report.json_document(a)["models"]:
        assert got["ci"] == [models_csv[got["model"]].ci_low, models_csv[got["model"]].ci_high]


def test_session_gone_follows_the_runtime(monkeypatch):
    """The workbench's stop check asks Streamlit's runtime whether this session is still connected."""
    from types import SimpleNamespace

    import streamlit.runtime as rt
    import streamlit.runtime.scriptrunner as sr

    from evalstats_app.workbench import session_gone

    assert session_gone() is None  # no server (bare mode, AppTest): nothing to check
    active = {"abc"}
    monkeypatch.setattr(rt, "exists", lambda: True)
    monkeypatch.setattr(rt, "get_instance", lambda: SimpleNamespace(is_active_session=lambda sid: sid in active))
    monkeypatch.setattr(sr, "get_script_run_ctx", lambda suppress_warning=False: SimpleNamespace(session_id="abc"))
    gone = session_gone()
    assert gone() is False
    active.clear()  # the tab closed: Streamlit drops the session from its active map at once
    assert gone() is True


def test_disagreements_carry_the_file_s_text_column():
    """A wide file with a prompt column: leave it out of the models, and the disagreement list shows each
    question's prompt beside its id."""
    rows = "question,prompt,A,B\n" + "".join(f"q{i},What is {i} + {i}?,{i % 2},{(i // 2) % 2}\n" for i in range(40))
    at = run_page(PAGE)
    inject(at, "prompts.csv", rows.encode())
    no_exceptions(at)
    assert at.error and "column 'prompt'" in at.error[0].value  # read as a model: the page says which column
    at.multiselect(key="analyze_ignore_cols").select("prompt").run()  # leave it out
    no_exceptions(at)
    assert not at.error and list(table(at, "Model")["Model"]) == ["A", "B"]
    shown = [d.value for d in at.dataframe if "prompt" in d.value.columns][0]
    assert len(shown) == 20 and shown["prompt"][0] == f"What is {int(shown['question'][0][1:])} + " \
        f"{int(shown['question'][0][1:])}?"


def test_error_error_fix_changes_no_setting_the_user_did_not_touch():
    """Two unreadable files in a row, then a good one: every control is where the user left it."""
    at = run_page(PAGE)
    changes = {"analyze_confidence": 0.9, "analyze_cluster_se": "cr1", "analyze_paired": False,
               "analyze_adjust": "bh", "analyze_method": "normal", "analyze_wild": False, "analyze_alpha": 0.01,
               "analyze_power": 0.9, "analyze_delta": 5.0}
    kinds = {"analyze_confidence": at.select_slider, "analyze_paired": at.toggle, "analyze_wild": at.toggle,
             "analyze_alpha": at.number_input, "analyze_delta": at.number_input, "analyze_power": at.slider}
    for key, value in changes.items():
        kinds.get(key, at.selectbox)(key=key).set_value(value).run()
    inject(at, "bad1.csv", b"question,model,score\nq1,A,great\nq2,A,1\nq1,B,0\nq2,B,1\n")
    assert at.error
    inject(at, "bad2.csv", b"only one column\n1\n")
    assert at.error
    good = "question,A,B\n" + "".join(f"q{i},{i % 2},{(i // 2) % 2}\n" for i in range(40))
    inject(at, "good.csv", good.encode())
    no_exceptions(at)
    assert not at.error
    for key, value in changes.items():
        assert kinds.get(key, at.selectbox)(key=key).value == value, key
    a = at.session_state[LAST_KEY]
    assert (a.confidence, a.method, a.paired, a.adjust, a.interval) == (0.9, "cr1", False, "bh", "normal")


def test_runs_in_ids_are_offered_never_applied_silently():
    """Ids 1, 1.1, 1.2, 1.3, 2, ... (runs written into the id): a warning and a checkbox; ticking it reads
    them as 4 runs of 15 questions, and the command line it exports does the same."""
    rows = "question,A,B\n" + "".join(f"{q}{('.' + str(r)) if r else ''},{(q + r) % 2},{(q * r) % 2}\n"
                                      for q in range(1, 16) for r in range(4))
    at = run_page(PAGE)
    inject(at, "runs.csv", rows.encode())
    no_exceptions(at)
    assert at.session_state[LAST_KEY].n_questions == 60  # not applied on its own
    assert any("look like runs" in w.value for w in at.warning)
    at.checkbox(key="analyze_runs_in_ids").check().run()
    no_exceptions(at)
    a = at.session_state[LAST_KEY]
    assert a.n_questions == 15 and a.models[0].k == 4
    assert "--runs-in-ids" in report.settings(a)["command"]


def test_harness_logs_upload_one_or_several():
    """An Inspect .eval on its own, then two models' logs at once (one per model): read by their importer,
    joined on the question, epochs averaged; the scorer can be chosen."""
    fix = ROOT / "tests" / "fixtures" / "inspect"
    at = run_page(PAGE)
    inject(at, "model-a_deflate.eval", (fix / "model-a_deflate.eval").read_bytes())
    no_exceptions(at)
    assert not at.error and at.session_state[LAST_KEY].models[0].model == "mockllm/model-a"
    at.session_state[INJECT_KEY] = {"files": [("model-a_deflate.eval", (fix / "model-a_deflate.eval").read_bytes()),
                                              ("model-b_zstd.eval", (fix / "model-b_zstd.eval").read_bytes())]}
    at.run()
    no_exceptions(at)
    a = at.session_state[LAST_KEY]
    assert [m.model for m in a.models] == ["mockllm/model-a", "mockllm/model-b"] and a.models[0].k == 2
    # Inspect's 'subject' metadata has 3 values: found by its name, too few to read by default (issue 46), said so
    assert "read by the" in text_of(at) and not a.clustered and "3 clusters are too few" in text_of(at)
    at.text_input(key="analyze_metric").input("rating").run()
    no_exceptions(at)
    assert at.session_state[LAST_KEY].score_kind == "continuous"
    at.text_input(key="analyze_metric").input("nope").run()
    assert at.error and "its scorers are" in at.error[0].value
    at.text_input(key="analyze_metric").input("").run()
    # the cluster: the importer's 'subject', none, or another metadata key the samples have
    box = at.selectbox(key="analyze_harness_cluster")
    assert box.value == wb.AUTO_CLUSTER and {"subject", "skill"} <= set(box.options)
    box.select(wb.NO_CLUSTER).run()
    no_exceptions(at)
    assert not at.error and not at.session_state[LAST_KEY].clustered
    at.selectbox(key="analyze_harness_cluster").select("subject").run()
    a = at.session_state[LAST_KEY]
    assert a.clustered and a.n_clusters == 3 and "--cluster-col subject" in report.settings(a)["command"]
    at.selectbox(key="analyze_harness_cluster").select("skill").run()  # varies across epochs: named, not silent
    assert at.error and "each question must belong to one cluster" in at.error[0].value
    assert at.selectbox(key="analyze_harness_cluster").value == "skill"  # the choice stays for the user to change


def test_a_million_row_upload_is_parsed_once(monkeypatch):
    """Upload to drawn results reads the file's body once: roles, unused columns (for the guardrails and the
    disagreement list) and scores all come from one parse (pyarrow's CSV readers, whole-file or streaming,
    are opened once for the body; a file larger than the first block may add one type probe, which reads
    only the columns whose type is guessed, from the first block: issue 25)."""
    import numpy as np
    import pyarrow.csv as pacsv

    calls = []
    for reader in ("read_csv", "open_csv"):
        real = getattr(pacsv, reader)

        def spy(*a, real=real, **k):
            only = getattr(k.get("convert_options"), "include_columns", None)
            calls.append(1 if not only else ("probe", tuple(only)))
            return real(*a, **k)

        monkeypatch.setattr(pacsv, reader, spy)
    n_q = 250_000
    rng = np.random.default_rng(0)
    body = "\n".join(f"q{i},{m},{int(x)},g{i // 50},note {i}" for i, row in
                     enumerate(rng.random((n_q, 4)) < 0.6) for m, x in zip("ABCD", row, strict=True))
    data = ("question,model,score,doc,note\n" + body + "\n").encode()
    at = run_page(PAGE, timeout=300)
    calls.clear()  # the example the page opens on
    inject(at, "million.csv", data)
    no_exceptions(at)
    a = at.session_state[LAST_KEY]
    assert a.n_questions == n_q and len(a.models) == 4
    assert "column 'doc' groups the questions" in text_of(at).replace("\\", "")  # found in the same parse
    probes = [c for c in calls if c != 1]
    assert calls.count(1) == 1, f"the body was parsed {calls.count(1)} times"
    assert probes in ([], [("probe", ("score",))]), probes  # the first block's guessed column only


def test_a_new_confidence_or_adjustment_is_computed_from_the_kept_sums(monkeypatch):
    """After an upload, moving the confidence level, the adjustment or the interval never reads the rows
    again: no new file_sums, no analyze() over the question table; the numbers are analyze()'s all the same."""
    import numpy as np

    from evalstats_core import analysis as an
    from evalstats_core import gating, judge_apply, plan_pilots
    from evalstats_core import sums as sums_mod
    from evalstats_core.data import prepare

    rng = np.random.default_rng(7)
    body = "".join(f"q{i},{m},{int(x)},c{i // 4}\n" for i, row in enumerate(rng.random((400, 3)) < 0.6)
                   for m, x in zip("ABC", row, strict=True))
    data = ("question,model,score,cluster\n" + body).encode()
    at = run_page(PAGE)
    inject(at, "kept_sums.csv", data)
    no_exceptions(at)
    calls = []
    real_sums, real_analyze = sums_mod.file_sums, an.analyze
    # patched where they are looked up: since issue 38 the workbench (and analysis, gating, ...)
    # import both at their tops, so a patch of sums.file_sums or analysis.analyze alone never saw the page's calls
    for module in (sums_mod, an, wb):  # cluster_cost merged into analysis (issue 38)
        monkeypatch.setattr(module, "file_sums", lambda t: calls.append("file_sums") or real_sums(t))
    for module in (an, gating, judge_apply, plan_pilots, wb):
        monkeypatch.setattr(module, "analyze", lambda *a, **k: calls.append("analyze") or real_analyze(*a, **k))
    at.select_slider(key="analyze_confidence").set_value(0.9).run()
    at.selectbox(key="analyze_adjust").set_value("bh").run()
    at.selectbox(key="analyze_method").set_value("normal").run()
    no_exceptions(at)
    assert calls == [], f"a control change went back to the rows: {calls}"
    shown = at.session_state[LAST_KEY]
    ref = real_analyze(prepare(data, "kept_sums.csv").table, confidence=0.9, adjust="bh", interval="normal")
    assert shown.confidence == 0.9 and shown.adjust == "bh" and shown.clustered
    for got, want in zip(shown.models + shown.comparisons, ref.models + ref.comparisons, strict=True):
        assert got.se == pytest.approx(want.se, rel=1e-12) and got.ci_low == pytest.approx(want.ci_low, rel=1e-12)
    assert [c.p_adjusted for c in shown.comparisons] == pytest.approx([c.p_adjusted for c in ref.comparisons],
                                                                      rel=1e-12)


def test_the_bundled_example_is_read_once_per_server_and_an_upload_once_per_session(monkeypatch):
    """A second visitor opening the workbench gets the example prepared by the first (one read per server);
    a file a visitor uploads is read for that session only: another session reads it itself. (AppTest runs
    every script as one session, "test session id": each visitor here gets a session id of its own.)"""
    from streamlit.testing.v1 import local_script_runner as lsr

    from evalstats_app import workbench_reading
    from evalstats_core.reading import ReadingOptions

    workbench_reading._prepare.shared.clear()  # a fresh server: earlier tests opened the example already
    visitor = {"sid": "first visitor"}
    init = lsr.LocalScriptRunner.__init__

    def as_visitor(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._session_id = visitor["sid"]

    monkeypatch.setattr(lsr.LocalScriptRunner, "__init__", as_visitor)
    calls = []
    real = ReadingOptions.prepare
    monkeypatch.setattr(ReadingOptions, "prepare", lambda self, files: calls.append(files[0][0]) or real(self, files))
    data = b"question,A,B\n" + b"".join(b"q%d,%d,%d\n" % (i, i % 2, i % 3 > 0) for i in range(30))
    for sid in ("first visitor", "second visitor"):
        visitor["sid"] = sid
        no_exceptions(run_page(PAGE, {"analyze_example": "multilingual"}))
        no_exceptions(inject(run_page(PAGE), "private.csv", data))
    assert calls.count("multilingual_clustered.csv") == 1, calls
    assert calls.count("private.csv") == 2, calls


def test_a_jsonl_upload_reads_as_records_with_its_keys_as_columns():
    """A plain JSON Lines upload (one object a line) is a results table: its keys are the column choices and the
    numbers are the CSV's; a file without a question key is refused naming the keys it has."""
    import json as _json

    rows = [{"question": f"q{q}", "model": m, "score": int((q * 7 + len(m)) % 3 != 0)} for q in range(40)
            for m in ("A", "Bee")]
    body = "".join(_json.dumps(r) + "\n" for r in rows).encode()
    at = run_page(PAGE)
    inject(at, "runs.jsonl", body)
    no_exceptions(at)
    assert not at.error
    a = at.session_state[LAST_KEY]
    csv = "question,model,score\n" + "".join(f"{r['question']},{r['model']},{r['score']}\n" for r in rows)
    from evalstats_core.analysis import analyze
    from evalstats_core.data import load as load_file

    same = analyze(load_file(csv.encode(), name="runs.csv"))
    assert sorted((m.model, m.mean, m.se) for m in a.models) == sorted((m.model, m.mean, m.se) for m in same.models)
    inject(at, "bad.jsonl", b'{"prompt_no": 1, "who": "A", "ok": true}\n{"prompt_no": 2, "who": "A", "ok": false}\n')
    no_exceptions(at)
    shown = " ".join(e.value for e in at.error).replace("\\", "")  # Markdown-escaped on the page
    assert at.error and "keys found: 'prompt_no', 'who', 'ok'" in shown


def test_the_note_on_an_unread_cluster_names_the_box_the_harness_logs_show():
    """Issue 46: the note on a cluster key too few to read by default says "choose 'Cluster column': subject", and
    the box for harness logs carries that label (one label, option_words.CLUSTER_LABEL; it was 'Cluster')."""
    from evalstats_app.option_words import CLUSTER_LABEL

    fix = ROOT / "tests" / "fixtures" / "inspect"
    at = run_page(PAGE)
    at.session_state[INJECT_KEY] = {"files": [("model-a_deflate.eval", (fix / "model-a_deflate.eval").read_bytes()),
                                              ("model-b_zstd.eval", (fix / "model-b_zstd.eval").read_bytes())]}
    at.run()
    no_exceptions(at)
    named = re.findall(r"'([^']+)': subject", text_of(at))
    assert named and set(named) == {CLUSTER_LABEL}, named
    assert at.selectbox(key="analyze_harness_cluster").label == CLUSTER_LABEL
