"""A compiled chart reused for new numbers: the Vega-Lite dict of a layout, compiled once per shape.

Compiling an Altair chart costs tens of milliseconds (building the chart objects, copying them, sanitising
the frames), on every new confidence level or adjustment of the workbench, though only the numbers and a
few strings change. :func:`filled` compiles a layout once per *shape* (every input that decides the layout's
structure: the caller's key, which strings are empty), with placeholder strings, and then fills in the
strings, the data and (when the caller gives it) the height of each call: the same dict as compiling the
chart itself, its datasets named by the caller (``models``, ``ends``...) instead of by a hash of their
values (tests/test_chart_template.py compares the two on every builder that uses it).

A layout passed here reads nothing of its frames but what the key names (columns, row counts, a sort
order): its frames only feed the datasets.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
from altair.utils.data import to_values

from ._base import compile_spec

__all__ = ["filled"]

_TEMPLATES: OrderedDict = OrderedDict()
_LOCK = threading.Lock()
_MAX = 64


def _token(name: str) -> str:
    return f"\u27e6{name}\u27e7"  # ⟦name⟧: no builder writes it on its own


def _walk(obj: Any, text: Callable[[str], str], rename: Mapping[str, str]) -> Any:
    """A copy of the JSON-like ``obj`` with every string passed through ``text`` and every data reference
    ``{"name": old}`` renamed by ``rename``."""
    if isinstance(obj, dict):
        out = {k: _walk(v, text, rename) for k, v in obj.items()}
        if isinstance(out.get("name"), str) and len(out) == 1 and out["name"] in rename:
            out["name"] = rename[out["name"]]
        return out
    if isinstance(obj, list):
        return [_walk(v, text, rename) for v in obj]
    return text(obj) if isinstance(obj, str) else obj


def _template(key: tuple, layout: Callable[[dict], Any], strings: Mapping[str, str | None],
              frames: Mapping[str, pd.DataFrame]) -> dict:
    """The layout compiled with placeholder strings, its frames' datasets renamed to the caller's names."""
    tokens = {k: (_token(k) if v else v) for k, v in strings.items()}
    spec = compile_spec(layout(tokens))
    datasets = spec.get("datasets", {})
    rename = {}
    for name, frame in frames.items():
        values = to_values(frame)["values"]  # the rows as Altair writes them into a spec
        found = [old for old, rows in datasets.items() if rows == values and old not in rename]
        if len(frame) and found:  # an empty frame draws no layer (the caller's key says so)
            rename[found[0]] = name
    spec = _walk(spec, lambda s: s, rename)
    spec["datasets"] = {rename.get(old, old): rows for old, rows in datasets.items()}
    return spec


def filled(key: tuple, layout: Callable[[dict], Any], strings: Mapping[str, str | None],
           frames: Mapping[str, pd.DataFrame], *, height: int | None = None) -> dict:
    """``compile_spec(layout(strings))`` from a template compiled once per ``key``.

    Parameters
    ----------
    key : tuple
        Everything that decides the layout's structure besides ``strings``: the frames' columns, their row
        counts, sort orders, flags. Two calls with equal keys must give layouts that differ only in the
        strings and the frames' values.
    layout : callable
        Called with a dict like ``strings`` (its values placeholders) and returns the Altair chart, drawing
        the ``frames`` of this call (the template's frames are the first call's).
    strings : mapping
        Text the layout writes into the chart whole or within longer text (titles, an axis title); an empty
        one is passed as it is (it may change the layout: the key includes which are empty).
    frames : mapping
        Each dataset the layout draws, by the name it takes in the spec.
    height : int, optional
        The chart's height (the spec's top-level ``height``), when it is the one thing the number of rows
        changes in the layout: the key then leaves the row counts out, and every count shares one template
        (tests/test_chart_template.py compares the result with compiling the chart itself, count by count).
    """
    full = (key, tuple((k, bool(v)) for k, v in strings.items()), tuple(frames))
    with _LOCK:
        spec = _TEMPLATES.get(full)
        if spec is not None:
            _TEMPLATES.move_to_end(full)
    if spec is None:
        spec = _template(full, layout, strings, frames)
        with _LOCK:
            _TEMPLATES[full] = spec
            while len(_TEMPLATES) > _MAX:
                _TEMPLATES.popitem(last=False)
    swap = {_token(k): v for k, v in strings.items() if v}

    def text(s: str) -> str:
        if "\u27e6" in s:
            for token, value in swap.items():
                s = s.replace(token, value)
        return s

    out = _walk({k: v for k, v in spec.items() if k != "datasets"}, text, {})
    datasets = dict(spec.get("datasets", {}))
    for name, frame in frames.items():
        if name in datasets:
            datasets[name] = to_values(frame)["values"]
    out["datasets"] = datasets
    if height is not None:
        out["height"] = height
    return out
