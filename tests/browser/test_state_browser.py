"""State survives errors in a real browser: two bad files in a row, then a good one, and every control the
user set is as they left it (issue 10: they used to come back at their minimum)."""

from __future__ import annotations

from _pw import wait_charts, wait_ready


def _upload(page, path, previous=None) -> None:
    """Upload ``path`` in place of ``previous`` (the uploader takes several files: remove the old one first)."""
    if previous is not None:
        page.get_by_role("button", name=f"Remove {previous.name}").click()
        # the rerun without the bad file has cleared its error: the next error waited for is the next file's
        page.locator('[data-testid="stAlertContentError"]').first.wait_for(state="detached")
        wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_text(path.name).first.wait_for()


def test_error_error_fix_keeps_every_setting(server, page, tmp_path):
    """Confidence, SE method, pairing, adjustment, interval and the plan's effect survive error -> error -> fix."""
    page.goto(server + "/analyze?analyze_confidence=0.9&analyze_cluster_se=cr1&analyze_paired=0"
                       "&analyze_adjust=bh&analyze_method=normal&analyze_delta=5.0&analyze_alpha=0.01")
    wait_ready(page)
    wait_charts(page, 2)
    before = page.evaluate("() => location.search")
    bad1, bad2, good = tmp_path / "bad1.csv", tmp_path / "bad2.csv", tmp_path / "good.csv"
    bad1.write_text("question,model,score\nq1,A,great\nq2,A,1\nq1,B,0\nq2,B,1\n")
    bad2.write_text("only one column\n1\n")
    good.write_text("question,A,B\n" + "".join(f"q{i},{i % 2},{(i // 2) % 2}\n" for i in range(40)))
    previous = None
    for path in (bad1, bad2):
        _upload(page, path, previous)
        page.locator('[data-testid="stAlertContentError"]').first.wait_for()
        previous = path
    _upload(page, good, previous)
    page.get_by_text("What was inferred from good.csv").first.wait_for()
    wait_charts(page, 2)
    after = page.evaluate("() => location.search")
    for setting in ("analyze_confidence=0.9", "analyze_cluster_se=cr1", "analyze_paired=0", "analyze_adjust=bh",
                    "analyze_method=normal", "analyze_delta=5.0", "analyze_alpha=0.01"):
        assert setting in before, before
        assert setting in after, (setting, after)
    assert page.get_by_text("90% CI").count() >= 1
