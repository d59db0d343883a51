"""Charts for chapter 1, "The problem": scores with and without error bars, the differences, and the
super-population simulation. Each builder takes a frame from :mod:`evalstats_core.lessons.problem`.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ._base import PALETTE, forest, legend

__all__ = ["VERDICT_COLORS", "differences_chart", "scores_chart", "superpopulation_chart"]

#: A surviving difference takes the colour of the model ahead (as in ``scores_chart``); an unresolved one (its interval holds 0) is grey.
VERDICT_COLORS: dict[str, str] = {
    "Galleon ahead": PALETTE[0],
    "Dreadnought ahead": PALETTE[1],
    "unresolved": PALETTE[7],
}


def scores_chart(frame: pd.DataFrame, *, error_bars: bool = False) -> alt.LayerChart:
    """Both models' accuracy on each benchmark as dots, optionally with their interval as a bar.

    Parameters
    ----------
    frame : tidy frame with ``eval, model, n, estimate, se, ci_low, ci_high`` (one row per pair).
    error_bars : draw the ``ci_low``-``ci_high`` bar behind each dot.
    """
    color = alt.Color("model:N", scale=alt.Scale(domain=list(dict.fromkeys(frame["model"])),
                                                 range=list(PALETTE[:2])),
                      legend=legend(title=None, orient="top"))
    tooltip = [alt.Tooltip("eval:N", title="Eval"), alt.Tooltip("model:N", title="Model"),
               alt.Tooltip("n:Q", title="Questions", format=","),
               alt.Tooltip("estimate:Q", title="Accuracy", format=".1%")]
    if error_bars:
        tooltip += [alt.Tooltip("se:Q", title="SE", format=".2%"),
                    alt.Tooltip("ci_low:Q", title="95% CI low", format=".1%"),
                    alt.Tooltip("ci_high:Q", title="95% CI high", format=".1%")]
    lo = float(frame["ci_low"].min()) - 0.02
    hi = float(frame["ci_high"].max()) + 0.02
    # one domain with or without the bars (both layers carry it), so toggling them does not move the axis
    x_scale = alt.Scale(domain=[math.floor(100 * max(lo, 0.0)) / 100, math.ceil(100 * min(hi, 1.0)) / 100],
                        zero=False, nice=False)
    base = alt.Chart(frame).encode(
        y=alt.Y("eval:N", sort=None, title=None),
        yOffset=alt.YOffset("model:N", sort=None),
        color=color,
        tooltip=tooltip,
    )
    points = base.mark_point(filled=True, size=120).encode(
        x=alt.X("estimate:Q", title="Accuracy" + (" with 95% CI" if error_bars else ""),
                scale=x_scale, axis=alt.Axis(format=".0%", tickMinStep=0.01)),
    )
    layers = [points]
    if error_bars:
        layers.insert(0, base.mark_rule(strokeWidth=3).encode(x=alt.X("ci_low:Q", scale=x_scale), x2="ci_high:Q"))
    return alt.layer(*layers).properties(height=alt.Step(26))


def differences_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Galleon minus Dreadnought per benchmark, with its interval and a dashed line at zero.

    ``frame`` has ``eval, diff, ci_low, ci_high, verdict`` (from ``lessons.problem.differences``).
    """
    chart = forest(frame, label="eval", estimate="diff", color="verdict", zero_line=True,
                   x_title="Galleon − Dreadnought with 95% CI (unpaired)", height_per_row=80)
    verdicts = alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICT_COLORS), range=list(VERDICT_COLORS.values())),
                         legend=legend(title=None, orient="top", labelLimit=400))
    for layer in chart.layer:  # verdict colours that match the models' colours, legend on top
        if getattr(layer.encoding, "color", alt.Undefined) is not alt.Undefined:
            layer.encoding.color = verdicts
    return chart


def superpopulation_chart(histogram: pd.DataFrame, *, accuracy: float, se_total: float,
                          z: float = 1.959964) -> alt.LayerChart:
    """Overlaid histograms of simulated eval means, and the interval ``accuracy +/- z * se_total``.

    Parameters
    ----------
    histogram : frame with ``kind, bin_low, bin_high, density`` (``SuperPopulation.histogram``).
    accuracy : the true mean, drawn as a solid rule.
    se_total : the formula SE ``sqrt((Var(x) + E[sigma^2]) / n)``; dashed rules at +/- z of it.
    """
    kinds = list(dict.fromkeys(histogram["kind"]))
    bars = alt.Chart(histogram).mark_rect(opacity=0.55).encode(
        x=alt.X("bin_low:Q", title="Eval mean (one simulated run)", axis=alt.Axis(format=".0%", tickMinStep=0.01),
                scale=alt.Scale(zero=False)),
        x2="bin_high:Q",
        y=alt.Y("density:Q", title="Density", stack=None),
        y2=alt.datum(0),
        color=alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=[PALETTE[2], PALETTE[0]]),
                        legend=legend(title=None, orient="top", labelLimit=400)),
        tooltip=[alt.Tooltip("kind:N", title="Rerun"), alt.Tooltip("bin_low:Q", format=".1%", title="From"),
                 alt.Tooltip("bin_high:Q", format=".1%", title="To"), alt.Tooltip("count:Q", title="Runs")],
    )
    marks = pd.DataFrame({
        "x": [accuracy - z * se_total, accuracy, accuracy + z * se_total],
        "what": ["true accuracy − 1.96 × formula SE", "true accuracy", "true accuracy + 1.96 × formula SE"],
        "dash": ["formula", "truth", "formula"],
    })
    rules = alt.Chart(marks).mark_rule(color="#777777", strokeWidth=1.5).encode(
        x="x:Q",
        strokeDash=alt.StrokeDash("dash:N", scale=alt.Scale(domain=["truth", "formula"],
                                                            range=[[1, 0], [5, 4]]), legend=None),
        tooltip=[alt.Tooltip("what:N", title=None), alt.Tooltip("x:Q", format=".1%", title="Value")],
    )
    return alt.layer(bars, rules).properties(height=260)
