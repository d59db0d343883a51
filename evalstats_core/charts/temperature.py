"""Charts of chapter 6, "The temperature trap".

==================================  ================================================================
``histogram_chart(hist, t=...)``    share of questions in each bin of x_T at the chosen T, over the
                                    T = 1 histogram in grey: the uniform morphs into two spikes
``mean_chart(curve, t=...)``        the eval score E[x_T] against T, the T = 1 score as a reference
``variance_chart(curve, t=...)``    Var(x_T) (between questions), E[sigma_T^2] (within a question) and
                                    their sum against T, the chosen T marked
==================================  ================================================================

Every builder draws the columns it is given (computed by ``evalstats_core.lessons.temperature``);
nothing is aggregated by Vega. As in :mod:`evalstats_core.charts.resampling`, each chart's structure is
compiled from Altair once per process and a call only fills in its datasets, so a temperature slider
move costs milliseconds, not Altair's validation.
"""

from __future__ import annotations

from functools import lru_cache

import altair as alt
import numpy as np
import pandas as pd

from ._base import PALETTE, legend
from .resampling import SpecChart, fill

__all__ = ["histogram_chart", "mean_chart", "variance_chart"]

CURRENT, REFERENCE, MARK, GREY = PALETTE[0], "#BBBBBB", PALETTE[3], "#666666"
#: Variance components: name -> colour. Between questions is what resampling cannot remove.
COMPONENTS = {
    "Var(x_T): between questions": PALETTE[0],
    "E[σ²_T]: within a question": PALETTE[1],
    "total: one answer": "#777777",
}
#: Histogram series: the chosen temperature over the model as sampled.
SERIES = {"at your T": CURRENT, "at T = 1 (as sampled)": REFERENCE}


def _data(name: str) -> alt.Chart:
    return alt.Chart(alt.Data(name=name))


def _t_axis() -> alt.X:
    return alt.X("temperature:Q", title="Sampling temperature T", scale=alt.Scale(domain=[0, 1], nice=False),
                 axis=alt.Axis(values=[0, 0.2, 0.4, 0.6, 0.8, 1.0], format=".1f"))


def _t_label(t: float) -> str:
    return "T → 0 (greedy)" if t == 0 else f"T = {t:.2f}"


def _side(left: bool, gap: int = 10) -> dict:
    return {"align": "left", "dx": gap} if left else {"align": "right", "dx": -gap}


@lru_cache(maxsize=4)
def _histogram_template(height: int) -> dict:
    title = alt.param(name="title_text", value="")
    colour = alt.Color("series:N", title=None, scale=alt.Scale(domain=list(SERIES), range=list(SERIES.values())),
                       legend=legend(orient="top", labelLimit=320))
    x = alt.X("bin_low:Q", title="x_T: chance of a correct answer at temperature T",
              scale=alt.Scale(domain=[0, 1], nice=False),
              axis=alt.Axis(format=".0%", values=[i / 10 for i in range(11)]))
    tooltip = [alt.Tooltip("label:N", title="at"), alt.Tooltip("bin_low:Q", title="from", format=".0%"),
               alt.Tooltip("bin_high:Q", title="to", format=".0%"), alt.Tooltip("share:Q", format=".1%")]
    bars = [_data(name).mark_rect(opacity=0.9).encode(  # grey T = 1 first, the chosen T drawn over it
        x=x, x2="bin_high:Q", y=alt.Y("share:Q", title="Share of questions", axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        y2=alt.datum(0), color=colour, tooltip=tooltip) for name in ("t1", "now")]
    return alt.layer(*bars).add_params(title).properties(
        height=height, title=alt.TitleParams(text=alt.ExprRef("title_text"), anchor="start", fontSize=14)).to_dict()


def histogram_chart(hist: pd.DataFrame, *, t: float, height: int = 380) -> SpecChart:
    """Histogram of the questions' x_T at ``t`` (blue, inset) over the T = 1 histogram (grey).

    Parameters
    ----------
    hist : DataFrame
        ``temperature, bin_low, bin_high, share``; rows for ``t`` and for 1.0.
    t : float
        The chosen temperature.
    """
    temp = hist["temperature"].to_numpy()
    low, high, share = (hist[c].to_numpy() for c in ("bin_low", "bin_high", "share"))

    def rows(at: float, series: str, label: str, inset: float) -> list[dict]:
        i = np.flatnonzero(temp == at)
        i = i[: np.searchsorted(low[i], low[i][-1], side="right")]  # one set of bins if rows repeat
        return [{"bin_low": a + inset, "bin_high": b - inset, "share": c, "series": series, "label": label}
                for a, b, c in zip(low[i].tolist(), high[i].tolist(), share[i].tolist(), strict=True)]

    pad = 0.2 * float(np.min(high - low))  # inset: the grey bars show around the blue
    return fill(_histogram_template(height), {"t1": rows(1.0, "at T = 1 (as sampled)", "T = 1", 0.0),
                                              "now": rows(t, "at your T", _t_label(t), pad)},
                params={"title_text": f"Where the questions' x_T lie at {_t_label(t)}"})


@lru_cache(maxsize=8)
def _mean_template(height: int, label_left: bool) -> dict:
    lo, hi = alt.param(name="y_lo", value=0.0), alt.param(name="y_hi", value=1.0)
    y_scale = alt.Scale(domain=[lo, hi], nice=False)
    tooltip = [alt.Tooltip("temperature:Q", title="T", format=".2f"),
               alt.Tooltip("mean:Q", title="eval score", format=".2%")]
    here = _data("here").encode(x="temperature:Q", y=alt.Y("mean:Q", scale=y_scale))
    return alt.layer(
        _data("ref").mark_rule(color=GREY, strokeDash=[6, 4]).encode(y=alt.Y("mean:Q", scale=y_scale)),
        _data("ref").mark_text(align="right", baseline="top", dx=-4, dy=5, color=GREY, fontSize=12).encode(
            x="temperature:Q", y=alt.Y("mean:Q", scale=y_scale), text="text:N"),
        _data("here").mark_rule(color=MARK, strokeWidth=1.5).encode(x="temperature:Q"),
        _data("curve").mark_line(color=CURRENT, strokeWidth=3).encode(
            x=_t_axis(), y=alt.Y("mean:Q", scale=y_scale, title="Eval score E[x_T]", axis=alt.Axis(format=".0%", tickMinStep=0.01)),
            tooltip=tooltip),
        here.mark_point(color=MARK, filled=True, size=160, opacity=1).encode(tooltip=tooltip),
        here.mark_text(dy=-14, fontSize=13, fontWeight="bold", color=MARK, **_side(label_left)).encode(text="text:N"),
    ).add_params(lo, hi).properties(height=height).to_dict()


def mean_chart(curve: pd.DataFrame, *, t: float, height: int = 360) -> SpecChart:
    """The eval score E[x_T] against T, with the T = 1 score dashed and the chosen T marked.

    Parameters
    ----------
    curve : DataFrame
        ``temperature, mean`` (and the variance columns), one row per T.
    t : float
        The chosen temperature (rule and dot).
    """
    temps, means = curve["temperature"].tolist(), curve["mean"].tolist()
    lo, hi = min(means), max(means)
    pad = max(0.05, 0.25 * (hi - lo))
    mean_one = means[temps.index(1.0)]
    mean_t = means[temps.index(t)]
    here = {"temperature": t, "mean": mean_t, "text": f"{_t_label(t)}: {mean_t:.1%}"}
    return fill(_mean_template(height, t < 0.6), {
        "curve": [{"temperature": x, "mean": m} for x, m in zip(temps, means, strict=True)], "here": here,
        "ref": {"mean": mean_one, "temperature": 1.0, "text": f"score at T = 1: {mean_one:.1%}"}},
        params={"y_lo": max(0.0, lo - pad), "y_hi": min(1.0, hi + pad)})


@lru_cache(maxsize=4)
def _variance_template(height: int) -> dict:
    colour = alt.Color("part:N", title=None, scale=alt.Scale(domain=list(COMPONENTS), range=list(COMPONENTS.values())),
                       legend=legend(orient="top", labelLimit=320, symbolType="stroke", symbolStrokeWidth=3))
    tooltip = [alt.Tooltip("temperature:Q", title="T", format=".2f"), alt.Tooltip("part:N", title="component"),
               alt.Tooltip("variance:Q", format=".4f")]
    y = alt.Y("variance:Q", title="Variance of a question's score", scale=alt.Scale(domain=[0, 0.26], nice=False),
              axis=alt.Axis(format=".2f"))
    return alt.layer(
        _data("t").mark_rule(color=MARK, strokeWidth=1.5).encode(x="temperature:Q"),
        _data("long").mark_line(strokeWidth=3).encode(
            x=_t_axis(), y=y, color=colour, tooltip=tooltip,
            strokeDash=alt.StrokeDash("part:N", scale=alt.Scale(domain=list(COMPONENTS), range=[[1, 0], [1, 0], [5, 4]]),
                                      legend=None)),
        _data("here").mark_point(filled=True, size=110, opacity=1, stroke="#777777", strokeWidth=0.8).encode(
            x="temperature:Q", y=alt.Y("variance:Q"), color=colour, tooltip=tooltip),
    ).properties(height=height).to_dict()


def variance_chart(curve: pd.DataFrame, *, t: float, height: int = 360) -> SpecChart:
    """Var(x_T), E[sigma_T^2] and their sum (the variance of one answer) against T, the chosen T marked.

    Parameters
    ----------
    curve : DataFrame
        ``temperature, var_x, mean_sigma2, total_variance``, one row per T.
    t : float
        The chosen temperature (rule and dots).
    """
    temps = curve["temperature"].tolist()
    long = [{"temperature": x, "part": part, "variance": v}
            for col, part in zip(("var_x", "mean_sigma2", "total_variance"), COMPONENTS, strict=True)
            for x, v in zip(temps, curve[col].tolist(), strict=True)]
    return fill(_variance_template(height), {"long": long, "here": [r for r in long if r["temperature"] == t],
                                             "t": {"temperature": t}})
