"""No axis repeats a tick label ("59% 60% 60% 61%"): every page's charts, at their defaults and at settings
that squeeze an axis (large n, narrow ranges), rendered to SVG by vl-convert (offline), with each axis's
labels read back from the SVG."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest
import vl_convert as vlc
from conftest import run_page

from evalstats_app.chapters import available, page_by_slug

SQUEEZED = [("problem", {"problem_n": "1000", "problem_share": "1.0"}),
            ("small_n", {"one_model_n": "2000", "one_model_acc": "0.6", "one_model_lab_n": "1000"}),
            ("clustering", {"clustering_k": "300", "clustering_m": "40", "clustering_icc": "0.0"}),
            ("paired", {"paired_n": "2000", "paired_rho": "0.85"}),
            ("resampling", {"resampling_pool_n": "200", "resampling_alpha": "5.0", "resampling_beta": "5.0"}),
            ("power", {"power_n": "10000000", "power_delta": "0.001"}),
            ("verdict", {"verdict_rho_math": "0.95", "verdict_rho_humaneval": "0.95", "verdict_rho_mgsm": "0.95"})]
CASES = [(p.slug, {}) for p in available()] + [c for c in SQUEEZED if page_by_slug(c[0]) in available()]


NUMERIC = re.compile(r"^[−+-]?[\d.,]+[%kKM]?$")


def _specs(at):
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        if chart.proto.datasets:  # Streamlit ships the data beside the spec, as Arrow
            spec["datasets"] = {**spec.get("datasets", {}), **{
                d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.proto.datasets}}
        yield spec


def axis_labels(svg: str) -> list[list[str]]:
    """Each axis's visible tick labels, in the order drawn (Vega hides overlapping ones with opacity 0)."""
    return [re.findall(r'opacity="1"[^>]*>([^<>]+)</text>', group)
            for group in re.findall(r'class="[^"]*role-axis-label"[^>]*>(.*?)</g>', svg, re.S)]


def test_the_reader_finds_a_repeated_label():
    spec = {"data": {"values": [{"x": 0.595}, {"x": 0.605}]}, "mark": "point",
            "encoding": {"x": {"field": "x", "type": "quantitative", "scale": {"domain": [0.59, 0.61]},
                               "axis": {"format": ".0%", "tickCount": 8, "labelOverlap": False}}}}
    labels = axis_labels(vlc.vegalite_to_svg(spec))[0]
    assert len(labels) != len(set(labels))  # the bug this test guards against, reproduced


@pytest.mark.parametrize(("slug", "query"), CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)])
def test_no_axis_repeats_a_tick_label(slug, query):
    at = run_page(page_by_slug(slug).path, query=query)
    for i, spec in enumerate(_specs(at)):
        for labels in axis_labels(vlc.vegalite_to_svg(spec)):
            # numeric labels only: a band axis may name a category twice on purpose (chapter 8's analyses)
            labels = [t for t in labels if NUMERIC.match(t)]
            assert len(labels) == len(set(labels)), f"{slug} chart {i}: {labels}"
