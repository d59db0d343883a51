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

A number that changes with the setting and stands alone in the spec (a dragged parameter's start, a slider's
end, a scale's domain end) is a *value*: the layout writes its placeholder (a tiny float no chart draws, so
Altair's checks on numbers pass) where the number goes, and the fill puts the number itself in its place. A
number inside an expression or decided by the data's shape belongs in the key.
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


def _value_token(i: int) -> float:
    return (i + 1) * 7.0e-300  # the i-th value's placeholder: a float no builder draws


def _walk(obj: Any, text: Callable[[str], Any], rename: Mapping[str, str],
          numbers: Mapping[float, Any] | None = None) -> Any:
    """A copy of the JSON-like ``obj`` with every string passed through ``text``, every float found in
    ``numbers`` replaced by its entry, and every data reference ``{"name": old}`` renamed by ``rename``."""
    if isinstance(obj, dict):
        out = {k: _walk(v, text, rename, numbers) for k, v in obj.items()}
        if isinstance(out.get("name"), str) and len(out) == 1 and out["name"] in rename:
            out["name"] = rename[out["name"]]
        return out
    if isinstance(obj, list):
        return [_walk(v, text, rename, numbers) for v in obj]
    if isinstance(obj, str):
        return text(obj)
    if numbers and type(obj) is float and obj in numbers:
        return numbers[obj]
    return obj


def _template(key: tuple, layout: Callable[[dict], Any], strings: Mapping[str, str | None],
              frames: Mapping[str, pd.DataFrame], values: Mapping[str, Any]) -> dict:
    """The layout compiled with placeholder strings and values, its frames' datasets renamed to the caller's
    names."""
    tokens = {k: (_token(k) if v else v) for k, v in strings.items()}
    tokens |= {k: _value_token(i) for i, k in enumerate(values)}
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
           frames: Mapping[str, pd.DataFrame], *, height: int | None = None,
           values: Mapping[str, Any] | None = None) -> dict:
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
    values : mapping, optional
        Numbers the layout writes whole where a number goes (a parameter's start, a slider's end, a domain's
        end), by name; the layout is called with their placeholders (floats), which the fill replaces by the
        values themselves. A value never sits inside text (an expression): such a number goes in the key.
    """
    values = dict(values or {})
    full = (key, tuple((k, bool(v)) for k, v in strings.items()), tuple(frames), tuple(values))
    with _LOCK:
        spec = _TEMPLATES.get(full)
        if spec is not None:
            _TEMPLATES.move_to_end(full)
    if spec is None:
        spec = _template(full, layout, strings, frames, values)
        with _LOCK:
            _TEMPLATES[full] = spec
            while len(_TEMPLATES) > _MAX:
                _TEMPLATES.popitem(last=False)
    swap = {_token(k): v for k, v in strings.items() if v}
    numbers = {_value_token(i): v for i, v in enumerate(values.values())}

    def text(s: str) -> str:
        if "\u27e6" in s:
            for token, value in swap.items():
                s = s.replace(token, value)
        return s

    out = _walk({k: v for k, v in spec.items() if k != "datasets"}, text, {}, numbers)
    datasets = dict(spec.get("datasets", {}))
    for name, frame in frames.items():
        if name in datasets:
            datasets[name] = to_values(frame)["values"]
    out["datasets"] = datasets
    if height is not None:
        out["height"] = height
    return out
