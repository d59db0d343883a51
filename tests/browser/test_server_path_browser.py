"""The workbench on a folder of the server (EVALSTATS_SERVER_DATA set for this test's own server): type the
folder's name, read DuckDB's tables and charts, move the confidence; a name outside the folder is refused."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _pw import press_slider, shot, wait_charts, wait_ready

LABEL = "Or a file or folder on this server"


@pytest.fixture(scope="module")
def data_server(tmp_path_factory):
    from conftest import streamlit_server

    root = tmp_path_factory.mktemp("server_data")
    (root / "runs").mkdir()
    rng = np.random.default_rng(3)
    for i in range(2):
        q = np.arange(i * 500, (i + 1) * 500)
        pq.write_table(pa.table({"question": np.repeat(q, 2).astype(str), "model": np.tile(["alpha", "beta"], 500),
                                 "score": (rng.random(1000) < np.tile([0.5, 0.7], 500)).astype(np.int8),
                                 "cluster": np.repeat(q // 10, 2)}), root / "runs" / f"part{i}.parquet")
    mp = pytest.MonkeyPatch()
    mp.setenv("EVALSTATS_SERVER_DATA", str(root))  # the server process inherits it
    try:
        with streamlit_server() as base:
            yield base
    finally:
        mp.undo()


def test_a_server_folder_is_analysed_by_duckdb_and_a_bad_name_refused(data_server, page):
    page.goto(data_server + "/analyze")
    wait_ready(page)
    box = page.get_by_role("textbox", name=LABEL)
    box.fill("runs")
    box.press("Enter")
    page.get_by_text("Aggregated by DuckDB").first.wait_for()
    page.get_by_text("1,000 questions, 2 models (alpha, beta), 100 clusters").first.wait_for()
    wait_ready(page)
    wait_charts(page, 2)
    page.get_by_text("beta beats alpha by").first.wait_for()
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="Confidence level").get_by_role("slider")
    press_slider(page, slider, "ArrowLeft", "() => location.href.includes('analyze_confidence=0.9')")
    wait_ready(page)
    page.get_by_text("(90% CI").first.wait_for()
    shot(page, "analyze_server_folder")
    box.fill("../runs")
    box.press("Enter")
    page.get_by_text("leads outside the server's data folder").first.wait_for()
    wait_ready(page)
    assert page.locator('[data-testid="stVegaLiteChart"]').count() == 0
