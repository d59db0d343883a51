"""An analysis downloaded from the workbench (a .zip of its data and settings), opened again by the uploader:
its data become the source, its settings are applied once after checking them against the page's own
choices and bounds (:mod:`evalstats_core.bundle` reads the archive within the budgets)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evalstats_core.bundle import read_bundle
from evalstats_core.errors import EvalStatsError

from . import workbench_passk
from .workbench import BOUNDS, BUNDLED, CHOICES, DEFAULTS, Source, esc


def open_bundle(source: Source, where) -> Source:
    """An uploaded analysis bundle becomes its Parquet data; its settings are applied once, checked
    against the page's own choices and bounds (anything else is ignored, with a note)."""

    if not source.table:
        return source
    try:
        bundle = read_bundle(source.data)
    except EvalStatsError as exc:
        where.error(f"**{esc(source.name)} cannot be opened.** {esc(exc)}", icon=":material/error:")
        return source
    if bundle is None:
        return source
    opened = Source(bundle.data, bundle.name.rsplit(".", 1)[0] + ".parquet", "bundle:" + source.key, True)
    if st.session_state.get("_analyze_bundle_applied") != opened.key:
        skipped = []
        for key, value in bundle.settings.items():
            if key == "command":  # for people reading settings.json; the page does not need it
                continue
            if (key in BUNDLED and valid(key, value)) or (key in workbench_passk.BUNDLED
                                                          and workbench_passk.valid(key, value)):
                st.session_state[key] = value
            else:
                skipped.append(key)
        st.session_state["_analyze_bundle_applied"] = opened.key
        st.session_state["_analyze_bundle_note"] = (
            f"Opened the analysis of {esc(bundle.name)} with its settings"
            + (f" (ignored: {esc(', '.join(map(str, skipped[:5])))})" if skipped else "") + ".")
    where.caption(st.session_state.get("_analyze_bundle_note", ""))
    return opened


def valid(key: str, value: Any) -> bool:
    """A bundled setting the page can take: one of its choices, within its bounds, or of its type."""
    if key in CHOICES:
        return value in CHOICES[key]
    if key in BOUNDS:
        lo, hi = BOUNDS[key]
        return isinstance(value, int | float) and not isinstance(value, bool) and lo <= value <= hi
    default = DEFAULTS[key]
    return isinstance(value, type(default)) and (not isinstance(default, bool) or isinstance(value, bool))
