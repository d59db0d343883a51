"""Charts of pairwise preferences: a forest of ratings (the interval clustered by prompt beside Chatbot Arena's
bootstrap) and a matrix of win rates. Each builder draws the frame the core computed
(:func:`evalstats_core.pairwise_report.ratings_frame`, :func:`~evalstats_core.pairwise_report.win_matrix_frame`);
nothing is aggregated in the browser."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ._base import PALETTE

__all__ = ["ratings_forest", "win_matrix", "CLUSTERED", "BOOTSTRAP"]

CLUSTERED = "clustered by prompt"
BOOTSTRAP = "Arena bootstrap (battles)"


def ratings_forest(frame: pd.DataFrame, *, level: str = "95%") -> alt.LayerChart:
    """One row per model (best on top): its rating, the interval clustered by prompt (thick) and Chatbot Arena's
    bootstrap interval (thin, below it). ``frame`` has ``model, rating, ci_low, ci_high, boot_low, boot_high``."""
    order = list(frame["model"])
    long = pd.concat([
        pd.DataFrame({"model": frame["model"], "rating": frame["rating"], "low": frame["ci_low"],
                      "high": frame["ci_high"], "interval": CLUSTERED}),
        pd.DataFrame({"model": frame["model"], "rating": frame["rating"], "low": frame["boot_low"],
                      "high": frame["boot_high"], "interval": BOOTSTRAP}),
    ], ignore_index=True).dropna(subset=["low", "high"])
    color = alt.Color("interval:N", scale=alt.Scale(domain=[CLUSTERED, BOOTSTRAP], range=[PALETTE[0], PALETTE[7]]),
                      legend=alt.Legend(title=None, orient="top", labelLimit=0))
    y = alt.Y("model:N", sort=order, title=None, axis=alt.Axis(labelOverlap=False, labelLimit=0))
    tooltip = [alt.Tooltip("model:N"), alt.Tooltip("interval:N"), alt.Tooltip("rating:Q", format=".1f"),
               alt.Tooltip("low:Q", format=".1f"), alt.Tooltip("high:Q", format=".1f")]
    rules = alt.Chart(long).mark_rule().encode(
        y=y, yOffset=alt.YOffset("interval:N", sort=[CLUSTERED, BOOTSTRAP]),
        x=alt.X("low:Q", title=f"Rating (Elo scale) with {level} intervals", scale=alt.Scale(zero=False)),
        x2="high:Q", color=color, strokeWidth=alt.condition(alt.datum.interval == CLUSTERED, alt.value(4),
                                                            alt.value(2)),
        tooltip=tooltip)
    points = alt.Chart(frame).mark_point(filled=True, size=90, color=PALETTE[0]).encode(
        y=y, x="rating:Q", tooltip=[alt.Tooltip("model:N"), alt.Tooltip("rating:Q", format=".1f")])
    # Streamlit fits the legend and the axis inside the height: room for both beside the rows
    return alt.layer(rules, points).properties(height=46 * len(order) + 90)


def win_matrix(frame: pd.DataFrame) -> alt.LayerChart:
    """Rows: the model; columns: its opponent; each cell the share of their battles the row's model won (a battle
    judged even counts half), coloured from 0% to 100% around 50%. ``frame`` has ``model, opponent, rate, n, ci_low,
    ci_high, label``; pairs that never met are left blank."""
    order = list(dict.fromkeys(list(frame["model"]) + list(frame["opponent"])))
    base = alt.Chart(frame).encode(
        y=alt.Y("model:N", sort=order, title="model", axis=alt.Axis(labelLimit=0)),
        x=alt.X("opponent:N", sort=order, title="against", axis=alt.Axis(labelAngle=-30, labelLimit=0)))
    tooltip = [alt.Tooltip("model:N"), alt.Tooltip("opponent:N"), alt.Tooltip("rate:Q", format=".1%"),
               alt.Tooltip("ci_low:Q", format=".1%"), alt.Tooltip("ci_high:Q", format=".1%"),
               alt.Tooltip("n:Q", title="battles")]
    cells = base.mark_rect().encode(
        color=alt.Color("rate:Q", scale=alt.Scale(domain=[0, 0.5, 1], range=["#D55E00", "#f7f7f7", "#0072B2"]),
                        legend=alt.Legend(title="won", format=".0%")),
        tooltip=tooltip)
    text = base.mark_text(fontSize=12).encode(text="label:N", tooltip=tooltip)
    side = max(120, 56 * len(order))
    names = max((len(str(m)) for m in order), default=4)
    # Streamlit fits the axes' labels and the legend inside the width and height: room for them beside the cells
    return alt.layer(cells, text).properties(width=side + 7 * min(names, 30) + 110,
                                             height=side + 6 * min(names, 30) + 40)
