"""What the README shows and promises: its first image shows an answer, and the app asks nothing of the internet.

The README opens with ``docs/screenshot.png``: the workbench's chart of each model's mean with its
clustered 95% interval, on the bundled multilingual example (an answer, not prose). A test run never
writes it (no test writes a tracked file): ``test_readme_hero_shows_an_answer`` takes the same picture
into the ignored ``tests/screenshots/hero.png`` and checks it; ``bash scripts/hero.sh`` (run on purpose,
when the page's look changes) runs that test with ``EVALSTATS_HERO_OUT=docs/screenshot.png`` to remake
the README's image.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from urllib.parse import urlparse

from _pw import PAGE_TIMEOUT_MS, ROOT, SHOTS, wait_charts, wait_ready
from PIL import Image

SCREENSHOT = ROOT / "docs" / "screenshot.png"
PAD = 12  # px of page around the chart in the picture


def hero_png(server: str, browser) -> bytes:
    """The workbench's first results chart (each model's mean and interval, its title, legend and summary
    sentence) on the bundled multilingual example, as PNG bytes at twice the pixel density."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=2)
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(server + "/analyze?analyze_example=multilingual")
        wait_ready(page)
        wait_charts(page, 2)
        chart = page.locator('[data-testid="stVegaLiteChart"]').first
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(700)  # let the chart's entry transitions finish
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        clip = {"x": box["x"] - PAD, "y": box["y"] - PAD, "width": box["width"] + 2 * PAD,
                "height": box["height"] + 2 * PAD}
        return page.screenshot(clip=clip)
    finally:
        context.close()


def test_readme_hero_shows_an_answer(server, browser):
    """The README's picture is a chart with every model of the example on it, written to an ignored folder
    (or, from scripts/hero.sh only, to docs/screenshot.png)."""
    png = hero_png(server, browser)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    assert width >= 1200 and 300 <= height < width  # the chart's width at 2x, wider than tall: one chart
    assert len(image.getcolors(1 << 24) or ()) > 50  # drawn, not blank
    out = Path(os.environ.get("EVALSTATS_HERO_OUT") or SHOTS / "hero.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(png)


def test_no_request_leaves_the_machine(server, page, browser):
    """Home, a chapter, presenter mode and the workbench, in the light and the dark palette, load everything
    (scripts, fonts, the favicon) from the server."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    for path, charts in (("/", 0), ("/clustering", 1), ("/one_model?present=1", 1),
                         ("/analyze?analyze_example=atlas_breeze", 1)):
        page.goto(server + path)
        wait_ready(page)
        wait_charts(page, charts)
    icon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\").href")
    assert icon.startswith("data:image/svg+xml"), icon  # the emoji favicon, drawn in the page
    dark = browser.new_context(viewport={"width": 390, "height": 900}, color_scheme="dark")
    try:
        other = dark.new_page()
        other.set_default_timeout(PAGE_TIMEOUT_MS)
        other.on("request", lambda r: requests.append(r.url))
        for path, charts in (("/", 0), ("/paired?present=1", 1)):
            other.goto(server + path)
            wait_ready(other)
            wait_charts(other, charts)
    finally:
        dark.close()
    assert len(requests) > 10
    outside = sorted({u for u in requests if urlparse(u).scheme not in ("data", "blob")
                      and urlparse(u).hostname != "127.0.0.1"})
    assert not outside, outside


def test_screenshot_path_is_the_readmes():
    readme = (ROOT / "README.md").read_text()
    assert "docs/screenshot.png" in readme.split("\n## ")[0]  # the README opens with it
    contributing = (ROOT / "CONTRIBUTING.md").read_text()
    assert "scripts/hero.sh" in contributing  # and CONTRIBUTING says how it is remade
    assert "EVALSTATS_HERO_OUT=docs/screenshot.png" in (ROOT / "scripts" / "hero.sh").read_text()
