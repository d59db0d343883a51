"""Charts readable on both themes: every explicit colour a page's charts give to text, rules and axes
contrasts with the light background and with the dark one.

The app follows the viewer's light/dark preference, and Streamlit draws Vega-Lite charts on the theme's
background. A colour hard-coded for white paper ("#333" annotation text, a black rule) vanishes on the
dark background. Colours left unset take the theme's own (its first chart colour, its body text), so
only explicit colours are checked. Bar, area and point fills are not checked: they are read against
each other and the legend, not against the page. Text written on tiles of its own (a rect layer with a
fixed colour range, drawn under the text in the same layered chart) is read against those tiles, which
look the same on both themes, instead of against the page.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_page

from evalstats_app.chapters import available

LIGHT_BG = "#ffffff"
DARK_BG = "#0e1117"  # Streamlit's dark theme background
#: WCAG's minimum for large text and graphics (1.4.11 non-text contrast)
MIN_CONTRAST = 3.0
_CHECKED_MARKS = {"text", "rule"}
_COLOUR_KEYS = {"color", "fill", "stroke"}
_NAMED = {"black": "#000000", "white": "#ffffff", "gray": "#808080", "grey": "#808080"}


def _luminance(colour: str) -> float:
    h = _NAMED.get(colour.lower(), colour).lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _is_colour(value) -> bool:
    return isinstance(value, str) and (value.startswith("#") or value.lower() in _NAMED)


def _mark_type(node: dict):
    mark = node.get("mark")
    return mark.get("type") if isinstance(mark, dict) else mark


def _position(node: dict) -> tuple:
    enc = node.get("encoding") or {}
    return tuple((enc.get(ch) or {}).get("field") for ch in ("x", "y"))


def _tile_colours(layers: list) -> dict[tuple, tuple[str, ...]]:
    """The fixed colours of the rect tiles in a layered chart (their colour scale's range), by the
    (x, y) fields that place them: text placed by the same fields is written on those tiles."""
    tiles = {}
    for layer in layers:
        if isinstance(layer, dict) and _mark_type(layer) == "rect" and all(_position(layer)):
            scale = ((layer.get("encoding") or {}).get("color") or {}).get("scale") or {}
            colours = tuple(c for c in scale.get("range") or () if _is_colour(c))
            if colours:
                tiles[_position(layer)] = colours
    return tiles


def explicit_colours(spec: dict) -> list[tuple[str, str, tuple[str, ...]]]:
    """(where, colour, backgrounds) for every explicit colour on a text or rule mark, and on
    axis/legend/title text; the backgrounds are both themes' pages, or the tiles the text is written on."""
    found: list[tuple[str, str, tuple[str, ...]]] = []
    page = (LIGHT_BG, DARK_BG)

    def visit(node, path: str, tiles: dict | None = None) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                visit(item, f"{path}[{i}]", tiles)
            return
        if not isinstance(node, dict):
            return
        mark = node.get("mark")
        mark_type = _mark_type(node)
        if mark_type in _CHECKED_MARKS:
            on = (tiles or {}).get(_position(node), page) if mark_type == "text" else page
            if isinstance(mark, dict):
                found.extend((f"{path}.mark.{k}", v, on) for k, v in mark.items()
                             if k in _COLOUR_KEYS and _is_colour(v))
            for channel, enc in (node.get("encoding") or {}).items():
                if channel in _COLOUR_KEYS and isinstance(enc, dict) and _is_colour(enc.get("value")):
                    found.append((f"{path}.encoding.{channel}", enc["value"], on))
        for key, value in node.items():
            if key in ("datasets", "data", "values"):
                continue
            if key in ("axis", "axisX", "axisY", "legend", "title", "header") and isinstance(value, dict):
                found.extend((f"{path}.{key}.{k}", v, page) for k, v in value.items()
                             if k.lower().endswith("color") and _is_colour(v))
            visit(value, f"{path}.{key}", _tile_colours(value) if key == "layer" and isinstance(value, list) else None)

    visit(spec, "spec")
    return found


def test_contrast_arithmetic():
    """WCAG's own reference points: black on white is 21:1, a colour on itself 1:1, #777 on white 4.48:1."""
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#0e1117", "#0e1117") == pytest.approx(1.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#333", DARK_BG) < MIN_CONTRAST < contrast("#333", LIGHT_BG)


def test_the_walk_finds_hard_coded_text_and_rule_colours():
    spec = {"layer": [{"mark": {"type": "text", "color": "#333333"}},
                      {"mark": "rule", "encoding": {"color": {"value": "black"}}},
                      {"mark": {"type": "bar", "color": "#F0E442"}},
                      {"mark": "point", "encoding": {"y": {"axis": {"labelColor": "#222"}}}}]}
    assert sorted(c for _, c, _ in explicit_colours(spec)) == ["#222", "#333333", "black"]


def test_text_on_its_own_tiles_is_read_against_the_tiles():
    at = {"x": {"field": "col"}, "y": {"field": "row"}}
    tiles = {"mark": "rect", "encoding": {**at, "color": {"field": "k", "scale": {"range": ["#DDDDDD", "#0072B2"]}}}}
    spec = {"layer": [tiles, {"mark": {"type": "text", "color": "#111111"}, "encoding": at},
                      {"mark": {"type": "text", "color": "#222222"}, "encoding": {"x": {"field": "other"}}},
                      {"mark": {"type": "rule", "color": "#111"}, "encoding": at}]}
    found = {c: on for _, c, on in explicit_colours(spec)}
    assert found["#111111"] == ("#DDDDDD", "#0072B2")  # the tiles under the text
    assert found["#222222"] == (LIGHT_BG, DARK_BG)  # text placed elsewhere is read against the page
    assert found["#111"] == (LIGHT_BG, DARK_BG)  # a rule is still read against the page


PAGES = [p.path for p in available()]


@pytest.mark.parametrize("path", PAGES)
def test_every_chart_colour_reads_on_light_and_dark(path):
    at = run_page(path)
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    bad = [(where, colour, {bg: round(contrast(colour, bg), 2) for bg in on})
           for spec in specs for where, colour, on in explicit_colours(spec)
           if min(contrast(colour, bg) for bg in on) < MIN_CONTRAST]
    assert not bad, f"{path}: colours that vanish on one theme (where, colour, contrast on each background): {bad}"
