"""A 16:9 export preset for slides: the same chart as on screen, sized to fill 1920 x 1080.

=====================  =========================================================================
``slide_spec``         the chart's Vega-Lite dict fitted to 960 x 540 (PNG at scale 2: 1920 x 1080)
``slide_svg``          that spec as an SVG (vector; 960 x 540 user units)
``slide_png``          that spec as a 1920 x 1080 PNG
``SLIDE``              ``(960, 540)``: the size in CSS pixels; ``SCALE`` = 2
=====================  =========================================================================

The title is short (one line: what and where, e.g. ``"gsm8k: differences from base"``) and the subtitle is
the method line as the screen shows it; axis labels never overlap at the ends (``labelOverlap`` and
``labelBound``) and the plot fills the slide (``autosize: fit``). Any builder's chart works: a chapter
can export its figures with the same preset.
"""

from __future__ import annotations

import copy
import textwrap
from typing import Any

from ._base import compile_spec
from ._render import render

__all__ = ["SLIDE", "SCALE", "slide_spec", "slide_svg", "slide_png"]

SLIDE = (960, 540)
SCALE = 2
_TITLE_CHARS, _SUBTITLE_CHARS = 80, 130


def slide_spec(chart: Any, *, title: str | None = None, subtitle: str | None = None) -> dict:
    """``chart`` (Altair chart or compiled dict) as a 16:9 spec: fitted to :data:`SLIDE`, larger type, the
    title on one line and the method line under it, axis labels that cannot collide."""

    spec = copy.deepcopy(compile_spec(chart))
    spec.pop("height", None)
    spec.pop("width", None)
    spec["width"], spec["height"] = SLIDE
    spec["autosize"] = {"type": "fit", "contains": "padding"}
    spec["background"] = "white"
    spec["padding"] = 24
    own = spec.get("title")
    own_text = own.get("text") if isinstance(own, dict) else own
    own_text = " ".join(own_text) if isinstance(own_text, list) else own_text
    own_sub = own.get("subtitle") if isinstance(own, dict) else None
    own_sub = " ".join(own_sub) if isinstance(own_sub, list) else own_sub
    text = title or own_text or ""
    sub = subtitle if subtitle is not None else own_sub
    block: dict[str, Any] = {"text": textwrap.shorten(text, _TITLE_CHARS, placeholder="…"), "anchor": "start",
                             "fontSize": 26, "color": "#222222", "offset": 14}
    if sub:
        block.update(subtitle=textwrap.wrap(sub, _SUBTITLE_CHARS)[:2], subtitleFontSize=16, subtitleColor="#555555")
    spec["title"] = block
    _drop_sizes(spec)  # the chart's own small axis type gives way to the slide's
    config = spec.setdefault("config", {})
    axis = config.setdefault("axis", {})
    axis.update(labelFontSize=16, titleFontSize=17, labelOverlap=True, labelBound=True, labelFlush=True)
    axis_y = config.setdefault("axisY", {})
    axis_y.update(labelLimit=360)
    config.setdefault("legend", {}).update(labelFontSize=15, labelLimit=600)
    return spec


def _drop_sizes(node: Any) -> None:
    """Remove per-encoding axis font sizes (set for a screen) so the slide's larger config applies."""
    if isinstance(node, dict):
        axis = node.get("axis")
        if isinstance(axis, dict):
            for key in ("labelFontSize", "titleFontSize"):
                axis.pop(key, None)
        for value in node.values():
            _drop_sizes(value)
    elif isinstance(node, list):
        for value in node:
            _drop_sizes(value)


def slide_svg(chart: Any, *, title: str | None = None, subtitle: str | None = None) -> str:
    """The 16:9 SVG of ``chart`` (see :func:`slide_spec`); rendered by vl-convert, no network."""

    return render(slide_spec(chart, title=title, subtitle=subtitle), "svg")


def slide_png(chart: Any, *, title: str | None = None, subtitle: str | None = None) -> bytes:
    """The 16:9 PNG of ``chart``: 1920 x 1080 pixels (960 x 540 at scale 2)."""

    return render(slide_spec(chart, title=title, subtitle=subtitle), "png", scale=SCALE)
