"""The live class's chart: how many students chose each option of the question on the presenter's screen.

``answer_counts(frame, revealed=...)`` takes one row per option, in the question's own order, with columns
``option`` (the option's words), ``count`` (answers) and ``right`` (whether it is the right answer; all False for
a question without one) and returns horizontal bars with the count written at each bar's end. Before the reveal
every bar is blue; after it the right answer's bar turns bluish green, the others grey, and its label carries a
check mark (so the answer does not rest on colour alone). Long options wrap at ``WRAP`` characters.
"""

from __future__ import annotations

import textwrap

import altair as alt
import pandas as pd

from ._base import PALETTE

__all__ = ["WRAP", "answer_counts"]

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
