"""What the README shows and promises: its screenshot is made here, and the app asks nothing of the internet.

``docs/screenshot.png`` (the image the README opens with) is taken by
``test_readme_screenshot_is_current`` on every browser run: the workbench on the bundled multilingual
example. The file is rewritten only when its pixels change, so a run that changes the page leaves the
new screenshot in ``git status`` to commit, and a run that does not (a few antialiased pixels aside)
leaves the file alone.
"""

from __future__ import annotations

import io
from pathlib import Path
from urllib.parse import urlparse

from _pw import PAGE_TIMEOUT_MS, ROOT, wait_charts, wait_ready
from PIL import Image, ImageChops

SCREENSHOT = ROOT / "docs" / "screenshot.png"

# Scroll so that the first chart's top sits at ``top`` px; true once it was already there, with the
# same number of charts, at the previous poll (i.e. the layout above it has stopped moving).
_SETTLED = """(top) => {
    const charts = document.querySelectorAll('[data-testid="stVegaLiteChart"]');
    const chart = charts[0];
    if (!chart) return false;
    let box = chart.parentElement;
    while (box && !(box.scrollHeight > box.clientHeight + 1
                    && ['auto', 'scroll'].includes(getComputedStyle(box).overflowY))) box = box.parentElement;
    const scroller = box || document.scrollingElement;
    const off = chart.getBoundingClientRect().top - top;
    const state = `${charts.length}:${Math.round(scroller.scrollTop)}`;
    if (Math.abs(off) < 1 && window.__docsShotState === state) return true;
    scroller.scrollBy(0, off);
    window.__docsShotState = `${charts.length}:${Math.round(scroller.scrollTop)}`;
    return false;
}"""


def _changed_pixels(a: Image.Image, b: Image.Image) -> int:
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v else 0)
    return diff.histogram()[255]


def test_readme_screenshot_is_current(server, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        page.goto(server + "/analyze?analyze_example=multilingual")
        wait_ready(page)
        wait_charts(page, 2)
        page.get_by_text("Galleon").first.wait_for()
        # the first results chart (each model's mean with its error bar) 330 px below the top of the view:
        # scroll its scrolling ancestor until the chart stays put (charts and tables above it draw lazily)
        page.wait_for_function(_SETTLED, arg=330, polling=400, timeout=60_000)
        page.wait_for_timeout(700)  # let the charts' entry transitions finish
        page.wait_for_function(_SETTLED, arg=330, polling=400, timeout=60_000)
        png = page.screenshot(full_page=False)
    finally:
        context.close()
    new = Image.open(io.BytesIO(png)).convert("RGB")
    assert new.size == (1280, 860)
    assert len(new.getcolors(1 << 24) or ()) > 50  # a drawn page, not a blank one
    SCREENSHOT.parent.mkdir(exist_ok=True)
    if SCREENSHOT.exists():
        old = Image.open(SCREENSHOT).convert("RGB")
        if old.size == new.size and _changed_pixels(old, new) < 0.002 * new.size[0] * new.size[1]:
            return  # unchanged (up to a few antialiased pixels): leave the committed file alone
    SCREENSHOT.write_bytes(png)
    assert Image.open(SCREENSHOT).size == (1280, 860)


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
    assert Path(__file__).name in readme  # and says where it comes from
