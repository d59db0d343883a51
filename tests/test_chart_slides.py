"""Every chapter's charts export as a 16:9 slide (issue 24: PNG exports were banners, 4120x794): the PNG
the chart's download button makes (outputs' preset, charts.slide) is 1920x1080 for every single-view
chart; a chart of side-by-side panels keeps its panels' own size but is never a banner (at most 16:9)."""

from __future__ import annotations

import struct

import pytest
from conftest import run_page
from test_chart_ticks import _specs

from evalstats_app.chapters import page_by_slug
from evalstats_core.charts.slide import slide_png

CHAPTERS = ["problem", "one_model", "small_n", "clustering", "paired", "resampling", "temperature", "power", "verdict"]


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])  # IHDR width, height


@pytest.mark.slow
@pytest.mark.parametrize("slug", CHAPTERS)
def test_every_chart_exports_as_a_slide(slug):
    at = run_page(page_by_slug(slug).path)
    specs = list(_specs(at))
    assert specs, slug
    for i, spec in enumerate(specs):
        width, height = png_size(slide_png(spec, title="t", subtitle="s"))
        if any(k in spec for k in ("facet", "hconcat", "vconcat", "concat")) or "facet" in str(spec.get("encoding", {})):
            assert width / height <= 16 / 9 + 0.01, f"{slug} chart {i}: a banner {width}x{height}"
        else:
            assert (width, height) == (1920, 1080), f"{slug} chart {i}: {width}x{height}"
