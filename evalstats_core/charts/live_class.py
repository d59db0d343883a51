"""The live class's chart: how many students chose each option of the question on the presenter's screen.

``answer_counts(frame, revealed=...)`` takes one row per option, in the question's own order, with columns
``option`` (the option's words), ``count`` (answers) and ``right`` (whether it is the right answer; all False for
a question without one) and returns horizontal bars with the count written at each bar's end. Before the reveal
every bar is blue; after it the right answer's bar turns bluish green, the others grey, and its label carries a
check mark (so the answer does not rest on colour alone). Long options wrap at ``WRAP`` characters.

``with_counts(spec, counts)`` puts new counts into a compiled chart (``compile_spec(answer_counts(...))`` of the
same question and reveal): the presenter redraws the chart every second, and building and compiling the Altair
chart anew took about 70 ms of the server's CPU each time; the filled dict equals the compiled one.
"""

from __future__ import annotations

import copy
import hashlib
import json
import textwrap
from collections.abc import Sequence

import altair as alt
import pandas as pd

from ._base import PALETTE

__all__ = ["WRAP", "answer_counts", "with_counts"]

WRAP = 44
_BLUE, _GREEN, _GREY = PALETTE[0], PALETTE[2], PALETTE[7]


def answer_counts(frame: pd.DataFrame, *, revealed: bool = False) -> alt.LayerChart:
    """Bars of answers per option (``frame``: ``option``, ``count``, ``right``; one row per option, in order)."""
    rows = frame.reset_index(drop=True)
    shown = rows.assign(
        label=[("✓ " if revealed and right else "") + "\n".join(textwrap.wrap(str(text), WRAP) or [""])
               for text, right in zip(rows["option"], rows["right"], strict=True)],
        shade=["right answer" if revealed and right else ("other" if revealed else "answers") for right in rows["right"]],
    )
    top = int(shown["count"].max()) if len(shown) else 0
    lines = sum(max(1, label.count("\n") + 1) for label in shown["label"])
    y = alt.Y("label:N", sort=list(shown["label"]), title=None,
              axis=alt.Axis(labelExpr="split(datum.label, '\\n')", labelLimit=0, labelFontSize=14, ticks=False))
    x = alt.X("count:Q", title="Answers", scale=alt.Scale(domain=[0, max(4, top + 1)]),
              axis=alt.Axis(tickMinStep=1, format="d"))
    colour = alt.Color("shade:N", legend=None,
                       scale=alt.Scale(domain=["answers", "right answer", "other"], range=[_BLUE, _GREEN, _GREY]))
    base = alt.Chart(shown).encode(y=y, x=x)
    bars = base.mark_bar(cornerRadiusEnd=3).encode(color=colour, tooltip=[alt.Tooltip("option:N", title="Option"),
                                                                           alt.Tooltip("count:Q", title="Answers")])
    counts = base.mark_text(align="left", dx=6, fontSize=16, fontWeight="bold").encode(text="count:Q")
    return alt.layer(bars, counts).properties(height=max(160, 34 * lines + 24 * len(shown)))


def with_counts(spec: dict, counts: Sequence[int]) -> dict:
    """A copy of ``spec`` (the compiled :func:`answer_counts` of one question and reveal) with ``counts`` per option.

    What changes with the counts is changed as Altair would: each row's ``count``, the x axis's domain
    ``[0, max(4, top + 1)]``, and the dataset's name (the hash of its rows, Altair's own ``_dataset_name``).
    """
    out = copy.deepcopy(spec)
    ((name, rows),) = out["datasets"].items()
    if len(rows) != len(counts):
        raise ValueError(f"{len(counts)} counts for a chart of {len(rows)} options")
    for row, n in zip(rows, counts, strict=True):
        row["count"] = int(n)
    top = max((int(n) for n in counts), default=0)
    for layer in out["layer"]:
        layer["encoding"]["x"]["scale"]["domain"] = [0, max(4, top + 1)]
    renamed = "data-" + hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()[:32]
    out["datasets"] = {renamed: rows}
    out["data"] = {"name": renamed}
    return out
