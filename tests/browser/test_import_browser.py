"""Real files in, in Chromium: two models' lm-eval samples files, two Inspect .eval logs (deflate and zstd),
and a wide file with an extra text column left out by the user."""

from __future__ import annotations

from pathlib import Path

from _pw import SHOTS, wait_charts, wait_ready

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def _upload(page, server, paths, expect: str) -> None:
    """Upload ``paths`` and wait until the page shows ``expect`` (the example's page is there before)."""
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files([str(p) for p in paths])
    page.get_by_text(expect).first.wait_for(timeout=60_000)
    wait_ready(page)


def _shot(page, name: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 2200})
    page.wait_for_timeout(800)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_lm_eval_samples_file_with_its_results_file(server, page):
    """A samples file uploaded with the results_*.json of its run: the lm-eval importer takes the model's name
    from it; a second model's samples file is named by hand (one file on its own)."""
    folder = FIX / "lm_eval" / "org__model-a"
    files = [*sorted(folder.glob("samples_quiz_history_*.jsonl")), *sorted(folder.glob("results_*.json"))]
    _upload(page, server, files, "org/model-a")
    page.get_by_text("read by the lm-evaluation-harness importer").first.wait_for()
    wait_charts(page, 1)
    assert page.locator('[data-testid="stException"]').count() == 0
    _shot(page, "import_lm_eval")


def test_inspect_eval_logs(server, page):
    """An Inspect .eval (deflate) and one in zstd: two models paired, epochs averaged; the 'subject' key found
    by its name has 3 values, too few to cluster on by default (issue 46.6), and the page says so."""
    _upload(page, server, [FIX / "inspect" / "model-a_deflate.eval", FIX / "inspect" / "model-b_zstd.eval"],
            "model-a_deflate.eval and 1 more file")
    page.get_by_text("mockllm/model-a, mockllm/model-b").first.wait_for()
    page.get_by_text("cluster column 'subject' found by its name but not used: 3 clusters are too few").first.wait_for()
    wait_charts(page, 2)
    assert page.locator('[data-testid="stException"]').count() == 0
    _shot(page, "import_inspect")


def test_wide_file_with_a_text_column(server, page, tmp_path):
    """A 'reference output' column stops the analysis with a clear message until the user leaves it out."""
    path = tmp_path / "with_reference.csv"
    path.write_text("question,reference output,A,B\n" + "".join(
        f"q{i},the answer is {i},{i % 2},{(i // 2) % 2}\n" for i in range(40)))
    _upload(page, server, [path], "with_reference.csv cannot be analyzed")
    assert "reference output" in page.locator('[data-testid="stAlertContentError"]').first.inner_text()
    page.locator('[data-testid="stMultiSelect"]').first.click()  # "Columns to leave out", the page's only one
    page.keyboard.type("reference")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    wait_ready(page)
    page.get_by_text("2 models (A, B)").first.wait_for()
    wait_charts(page, 2)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("could not be read").count() == 0  # the read status follows the fix
    assert page.get_by_text("Read 80 scores from with_reference.csv").count() == 1
    _shot(page, "import_wide_text_column")
