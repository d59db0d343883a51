"""The reading choices in Chromium: an lm-eval group uploaded as several files shows its cluster choice (the
importer's own: the group's subtasks, as on the command line) and the command line's interval."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from _pw import SHOTS, wait_ready

from evalstats_app.option_words import CLUSTER_LABEL

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "fixtures" / "lm_eval" / "org__model-a"


def test_an_lm_eval_group_shows_its_clusters_and_the_cli_interval(server, page):
    """Two subtasks of group 'quiz' and their results file: 'task' has 2 values, too few to cluster on by default
    (issue 46.6), and the page says so; chosen in the 'Cluster column' box, the few-clusters cost shows beside it with the
    CLI's numbers for --cluster-col task."""
    samples = sorted(FOLDER.glob("samples_quiz_[ah][li]*.jsonl"))
    files = [*samples, *FOLDER.glob("results_*.json")]
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", *map(str, samples), "--cluster-col", "task",
                          "--format", "json"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    cli = json.loads(out.stdout)
    (model,) = cli["models"]
    low, high = (f"{100 * x:.1f}%" for x in model["ci"])
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files([str(p) for p in files])
    page.get_by_text("cluster column 'task' found by its name but not used: 2 clusters are too few").first.wait_for(
        timeout=60_000)
    wait_ready(page)
    choice = page.locator('[data-testid="stSelectbox"]').filter(has_text=CLUSTER_LABEL).first
    box = page.get_by_role("combobox", name=CLUSTER_LABEL, exact=True)  # the label the notes name
    box.click()
    box.fill("task")
    page.get_by_role("option", name="task", exact=True).click()
    wait_ready(page)
    cost = page.get_by_text("What clustering on 2 clusters").first
    cost.wait_for(timeout=60_000)
    assert f"{low} to {high}" in cost.inner_text() and model["n_clusters"] == 2
    assert page.locator('[data-testid="stException"]').count() == 0
    page.set_viewport_size({"width": 1400, "height": 2400})
    choice.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "reading_lm_eval_group.png"))
