"""One answer everywhere (issue 42): a pairwise file gives the same numbers and labels from the API
(``pairwise_analysis``), the command line (``evalbars pairwise FILE --format json``) and the workbench (AppTest, the
file injected as an upload and the controls driven by key); a bad file is one line on stderr (exit 2) and one error
box on the page, with the same message."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from conftest import ROOT, no_exceptions, run_page

from evalstats_app.option_words import esc
from evalstats_app.workbench import INJECT_KEY
from evalstats_app.workbench_pairwise import LAST_PAIRWISE_KEY
from evalstats_core.pairwise import pairwise_analysis
from evalstats_core.pairwise_data import load_battles
from evalstats_core.pairwise_report import ratings_display, win_rates_display

EXAMPLE = ROOT / "examples" / "pairwise_battles.tsv"
ARENA = ROOT / "tests" / "fixtures" / "pairwise" / "arena_hard_v01_judgment.jsonl"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalstats_core", "pairwise", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def _page(name: str, data: bytes):
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": name, "data": data}
    at.run(timeout=180)
    no_exceptions(at)
    return at


@pytest.mark.parametrize("path, anchor", [(EXAMPLE, "Frigate"), (ARENA, None)], ids=["long", "arena_hard"])
def test_the_api_the_command_line_and_the_workbench_give_the_same_numbers(path, anchor):
    """Confidence 90%, 200 resamples, seed 3 (and an anchor model): every key of the JSON document is equal, and the
    page's tables are the report's tables."""
    api = pairwise_analysis(load_battles([str(path)]), confidence=0.9, anchor=anchor, n_boot=200, seed=3)
    args = [str(path.relative_to(ROOT)), "--format", "json", "--confidence", "0.9", "--n-boot", "200", "--seed", "3"]
    proc = _cli(*args, *(["--anchor", anchor] if anchor else []))
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    doc = api.to_dict()
    assert cli["file"] == str(path.relative_to(ROOT))
    for key in ("ratings", "win_rates", "separation", "battles", "prompts", "scale", "anchor", "ties", "notes",
                "bootstrap", "confidence"):
        assert cli[key] == doc[key], key

    at = _page(path.name, path.read_bytes())
    at.select_slider(key="analyze_pw_confidence").set_value(0.9).run(timeout=180)
    at.number_input(key="analyze_pw_n_boot").set_value(200).run(timeout=180)
    at.number_input(key="analyze_pw_seed").set_value(3).run(timeout=180)
    if anchor:
        at.selectbox(key="analyze_pw_anchor").set_value(anchor).run(timeout=180)
    no_exceptions(at)
    page = at.session_state[LAST_PAIRWISE_KEY].to_dict()
    for key in ("ratings", "win_rates", "separation", "battles", "prompts", "anchor", "notes", "bootstrap",
                "confidence"):
        assert page[key] == cli[key], key
    frames = [d.value.reset_index(drop=True) for d in at.dataframe]
    ratings = next(f for f in frames if "rating" in f.columns)
    rates = next(f for f in frames if "win rate" in f.columns)
    pd.testing.assert_frame_equal(ratings, ratings_display(api))
    pd.testing.assert_frame_equal(rates, win_rates_display(api))


def test_a_bad_file_is_one_line_on_stderr_and_one_error_on_the_page(tmp_path):
    bad = b"prompt,model_a,model_b,winner\np1,x,y,a\np2,x,y,maybe\n"
    path = tmp_path / "bad.csv"
    path.write_bytes(bad)
    proc = _cli(str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "row 3: column 'winner' is 'maybe'" in lines[0] and "write a (model_a won)" in lines[0]
    at = _page("bad.csv", bad)
    message = lines[0].removeprefix("evalbars: error: ").replace(str(path), "bad.csv")
    assert [e.value for e in at.error] == [esc(message)]
