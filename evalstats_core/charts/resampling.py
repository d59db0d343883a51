"""Charts of chapter 5, "Resampling returns".

==================================  ================================================================
``k_curve_chart(frame, ...)``       variance relative to K = 1 against K, the Var(x) floor (K = infinity,
                                    next-token probabilities) as a dashed line, the chosen K marked
``coverage_chart(curve, sim, ...)`` coverage of pooled-answer and question-mean intervals against K,
                                    the simulated coverage at the chosen K with its Monte Carlo interval
``evals_chart(frame, ...)``         a few simulated evals, each with both intervals; misses stand out
``budget_chart(frame, ...)``        SE of the eval mean against K for a fixed budget, the best K marked
``mde_chart(frame, ...)``           minimum detectable effect against K, K = 1 and 10 labelled, floor
``SpecChart``, ``fill``             a chart compiled from Altair once, refilled with data per call
==================================  ================================================================

Every builder draws the columns it is given (computed by ``evalstats_core.lessons.resampling``);
nothing is aggregated by Vega.

Speed: Altair spends 0.1-0.3 s validating and sanitising a layered chart, which Streamlit would pay on
every rerun. Here each chart's *structure* is an Altair chart whose layers read named datasets; it is
compiled to a Vega-Lite dict once per process (``functools.lru_cache``), and a builder call only fills
in the datasets (and any Vega parameters), returning a :class:`SpecChart`. ``SpecChart`` has what
``st.altair_chart`` and the PNG/SVG export use: ``to_dict()``, ``properties()`` and ``configure_*()``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import altair as alt
import pandas as pd

from ._base import PALETTE, legend

__all__ = ["SpecChart", "budget_chart", "coverage_chart", "evals_chart", "fill", "k_curve_chart", "mde_chart"]

CURVE, MARK, FLOOR, GREY = PALETTE[0], PALETTE[3], PALETTE[2], "#666666"
METHOD_COLOURS = {"pooled answers": PALETTE[3], "question means": PALETTE[0]}


# ---------------------------------------------------------------------------------------------------
# compiled templates
# ---------------------------------------------------------------------------------------------------
class SpecChart:
    """A Vega-Lite chart spec (a dict with its data inline) that behaves like an Altair chart where the
    app needs it: ``to_dict()`` returns a fresh copy, ``properties(...)`` and ``configure_<part>(...)``
    return a new ``SpecChart`` with the setting applied (used by the PNG/SVG export)."""

    __slots__ = ("spec",)

    def __init__(self, spec: dict) -> None:
        self.spec = spec

    def to_dict(self, *args: Any, **kwargs: Any) -> dict:
        return json.loads(json.dumps(self.spec))  # a deep copy: callers may mutate it

    def properties(self, **kwargs: Any) -> SpecChart:
        return SpecChart({**self.to_dict(), **kwargs})

    def __getattr__(self, name: str) -> Callable[..., SpecChart]:
        if name.startswith("configure_") and len(name) > len("configure_"):
            part = name[len("configure_"):]

            def configure(**kwargs: Any) -> SpecChart:
                spec = self.to_dict()
                spec.setdefault("config", {}).setdefault(part, {}).update(kwargs)
                return SpecChart(spec)

            return configure
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"SpecChart(datasets={sorted(self.spec.get('datasets', {}))})"


def _clean(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v  # JSON has no NaN/inf: null


def _records(data: pd.DataFrame | list[dict] | dict) -> list[dict]:
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, pd.DataFrame):
        return [{k: _clean(v) for k, v in r.items()} for r in data]
    cols = [str(c) for c in data.columns]
    values = [data[c].tolist() for c in data.columns]  # column-wise: far cheaper than to_dict("records")
    return [{c: _clean(v) for c, v in zip(cols, row, strict=True)} for row in zip(*values, strict=True)]


def fill(template: dict, datasets: dict[str, Any], params: dict[str, Any] | None = None) -> SpecChart:
    """A :class:`SpecChart` from a compiled ``template``, its named ``datasets`` and parameter values."""
    spec = {**template, "datasets": {name: _records(d) for name, d in datasets.items()}}
    if params:
        unknown = set(params) - {p["name"] for p in template.get("params", [])}
        if unknown:
            raise KeyError(f"template has no parameters {sorted(unknown)}")
        spec["params"] = [dict(p, value=params.get(p["name"], p.get("value"))) for p in template["params"]]
    return SpecChart(spec)


def _data(name: str) -> alt.Chart:
    return alt.Chart(alt.Data(name=name))


K_SCALE = alt.Scale(domain=[1, 20], nice=False)


def _k(title: str = "Answers per question (K)") -> alt.X:
    return alt.X("k:Q", title=title, scale=K_SCALE, axis=alt.Axis(values=[1, *range(2, 21, 2)], format="d"))


def _kx() -> alt.X:
    """K on the shared scale, for the other layers (without a domain, Vega-Lite would add zero)."""
    return alt.X("k:Q", scale=K_SCALE)


def _method_colour() -> alt.Color:
    return alt.Color("method:N", title=None, scale=alt.Scale(domain=list(METHOD_COLOURS),
                                                             range=list(METHOD_COLOURS.values())),
                     legend=legend(orient="bottom", labelLimit=320))


def _side(left: bool, gap: int = 10) -> dict:
    return {"align": "left", "dx": gap} if left else {"align": "right", "dx": -gap}


# ---------------------------------------------------------------------------------------------------
# the K curve
# ---------------------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _k_curve_template(height: int, label_left: bool) -> dict:
    y_scale = alt.Scale(domain=[0, 1])
    tooltip = [alt.Tooltip("k:Q", title="K"),
               alt.Tooltip("relative_variance:Q", title="variance vs K = 1", format=".1%"),
               alt.Tooltip("reduction:Q", title="reduction", format=".1%")]
    y = alt.Y("relative_variance:Q", scale=y_scale, title="Variance relative to K = 1", axis=alt.Axis(format=".0%", tickMinStep=0.01))
    base = _data("curve").encode(x=_k(), y=y, tooltip=tooltip)
    # the reader's own "Drag K" input moves the marker along the core's curve in the browser (no rerun)
    drag = alt.param(name="drag_k", value=4, bind=alt.binding_range(min=1, max=20, step=1, name="Drag K: "))
    at_you = _data("curve").transform_filter(alt.datum.k == drag).transform_calculate(
        text="'K = ' + datum.k + ': ' + format(datum.relative_variance, '.1%') + ' of the K = 1 variance'"
    ).encode(x=_kx(), y=alt.Y("relative_variance:Q", scale=y_scale))
    labels = [at_you.transform_filter(alt.datum.k <= 12 if left else alt.datum.k > 12).mark_text(
        dy=-14, fontSize=13, fontWeight="bold", color=MARK, **_side(left)).encode(text="text:N")
        for left in (True, False)]
    return alt.layer(
        _data("curve").mark_area(color=CURVE, opacity=0.12).encode(
            x=_kx(), y=alt.Y("relative_variance:Q", scale=y_scale), y2="floor:Q"),
        _data("floor").mark_rule(color=FLOOR, strokeDash=[6, 4], strokeWidth=2.5).encode(
            y=alt.Y("y:Q", scale=y_scale), tooltip=[alt.Tooltip("y:Q", title="floor, K = ∞", format=".1%")]),
        _data("floor").mark_text(align="right", baseline="top", dy=6, fontSize=12, fontWeight="bold",
                                 color=FLOOR).encode(x=_kx(), y=alt.Y("y:Q", scale=y_scale), text="text:N"),
        base.mark_line(color=CURVE, strokeWidth=3),
        base.mark_point(color=CURVE, filled=True, size=40),
        at_you.mark_point(color=MARK, filled=True, size=180, opacity=1).encode(tooltip=tooltip),
        *labels,
    ).add_params(drag).properties(height=height).to_dict()


def k_curve_chart(frame: pd.DataFrame, *, k: int, floor: float, height: int = 360) -> SpecChart:
    """Variance of the eval mean relative to K = 1, for K = 1..20, with the floor and the chosen K.

    Parameters
    ----------
    frame : DataFrame
        ``k``, ``relative_variance`` (V(K)/V(1)), ``reduction``; one row per K.
    k : int
        The chosen K, where the orange dot and its label start; the chart's own "Drag K" input moves
        them along the curve in the browser.
    floor : float
        ``Var(x)/(Var(x) + E[sigma^2])``: the relative variance at K = infinity.
    """
    if not (frame["k"] == k).any():
        raise ValueError(f"k ({k!r}) is not on the curve")
    text = f"floor {floor:.1%}: Var(x) alone (K = ∞, next-token probabilities)"
    return fill(_k_curve_template(height, True), {
        "curve": frame.assign(floor=floor), "floor": {"k": 20, "y": floor, "text": text}}, {"drag_k": int(k)})


# ---------------------------------------------------------------------------------------------------
# pooled vs question-level intervals
# ---------------------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _coverage_template(height: int, label_left: bool) -> dict:
    y_scale = alt.Scale(domain=[0, 1])
    colour = _method_colour()
    tooltip = [alt.Tooltip("method:N"), alt.Tooltip("k:Q", title="K"),
               alt.Tooltip("estimate:Q", title="simulated coverage", format=".1%"),
               alt.Tooltip("ci_low:Q", title="MC 95% low", format=".1%"),
               alt.Tooltip("ci_high:Q", title="MC 95% high", format=".1%")]
    sim = _data("sim").encode(x=_kx(), color=colour, tooltip=tooltip)
    return alt.layer(
        _data("nominal").mark_rule(color=GREY, strokeDash=[6, 4]).encode(y=alt.Y("y:Q", scale=y_scale)),
        _data("nominal").mark_text(align="right", baseline="bottom", dy=-5, color=GREY, fontSize=12).encode(
            x=_kx(), y=alt.Y("y:Q", scale=y_scale), text="text:N"),
        _data("curve").mark_line(strokeWidth=2.5, opacity=0.8).encode(
            x=_k(), y=alt.Y("coverage:Q", scale=y_scale, title="Coverage of the 95% intervals",
                            axis=alt.Axis(format=".0%", tickMinStep=0.01)), color=colour,
            tooltip=[alt.Tooltip("k:Q", title="K"), alt.Tooltip("method:N"),
                     alt.Tooltip("coverage:Q", title="predicted (large n)", format=".1%")]),
        sim.mark_rule(strokeWidth=3).encode(y=alt.Y("ci_low:Q", scale=y_scale), y2="ci_high:Q"),
        sim.mark_point(filled=True, size=150, opacity=1, stroke="#777777", strokeWidth=1).encode(
            y=alt.Y("estimate:Q", scale=y_scale)),
        sim.mark_text(fontSize=12, fontWeight="bold", baseline="bottom", dy=-6, **_side(label_left)).encode(
            y=alt.Y("estimate:Q", scale=y_scale), text="text:N"),
    ).properties(height=height).to_dict()


def coverage_chart(curve: pd.DataFrame, sim: pd.DataFrame, *, confidence: float = 0.95,
                   height: int = 360) -> SpecChart:
    """Coverage of the two intervals against K: predicted lines, simulated dots with Monte Carlo bars.

    Parameters
    ----------
    curve : DataFrame
        ``k, method, coverage``: predicted coverage of the pooled interval per K (the question-mean
        interval's is the nominal level, drawn as the dashed rule).
    sim : DataFrame
        ``method, k, estimate, ci_low, ci_high``: simulated coverage at the chosen K with its interval.
    confidence : float
        The nominal level, drawn as a dashed rule.
    """
    k = int(sim["k"].iloc[0])
    return fill(_coverage_template(height, k <= 15), {
        "curve": curve, "sim": sim.assign(text=sim["estimate"].map("{:.1%}".format)),
        "nominal": {"k": 20, "y": confidence, "text": f"promised {confidence:.0%}: question means keep it"}})


@lru_cache(maxsize=4)
def _evals_template(height: int) -> dict:
    colour = _method_colour()
    opacity = alt.Opacity("outcome:N", title=None, scale=alt.Scale(domain=["misses", "covers the truth"],
                                                                   range=[1.0, 0.3]),
                          legend=legend(orient="bottom", labelLimit=320))
    tooltip = [alt.Tooltip("eval:O", title="eval"), alt.Tooltip("method:N"),
               alt.Tooltip("estimate:Q", format=".1%"), alt.Tooltip("ci_low:Q", format=".1%"),
               alt.Tooltip("ci_high:Q", format=".1%"), alt.Tooltip("outcome:N")]
    base = _data("evals").encode(
        y=alt.Y("eval:O", title="Simulated eval", axis=alt.Axis(labels=False, ticks=False)),
        yOffset=alt.YOffset("method:N", scale=alt.Scale(domain=list(METHOD_COLOURS))),
        color=colour, opacity=opacity, tooltip=tooltip)
    x = alt.X("ci_low:Q", title="Accuracy, with 95% interval", axis=alt.Axis(format=".0%", tickMinStep=0.01), scale=alt.Scale(zero=False))
    return alt.layer(
        base.mark_rule(strokeWidth=3).encode(x=x, x2="ci_high:Q"),
        base.mark_tick(thickness=2, size=9).encode(x="estimate:Q"),
        _data("truth").mark_rule(color="#777777", strokeDash=[4, 3], strokeWidth=1.5).encode(
            x="truth:Q", tooltip=[alt.Tooltip("truth:Q", title="true accuracy", format=".1%")]),
    ).properties(height=height).to_dict()


def evals_chart(frame: pd.DataFrame, *, truth: float, height: int = 460) -> SpecChart:
    """Simulated evals, each with its pooled and question-level 95% interval; misses drawn solid.

    Parameters
    ----------
    frame : DataFrame
        ``eval, method, estimate, ci_low, ci_high, covers``.
    truth : float
        The true accuracy (a vertical dashed rule).
    """
    data = frame.assign(outcome=frame["covers"].map({True: "covers the truth", False: "misses"}))
    return fill(_evals_template(height), {"evals": data.drop(columns="covers"), "truth": {"truth": truth}})


# ---------------------------------------------------------------------------------------------------
# a fixed budget, and the minimum detectable effect
# ---------------------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _budget_template(height: int, label_left: bool) -> dict:
    tooltip = [alt.Tooltip("k:Q", title="K"), alt.Tooltip("n_questions:Q", title="questions", format=",.0f"),
               alt.Tooltip("calls_used:Q", title="answer calls", format=",.0f"),
               alt.Tooltip("se:Q", title="SE", format=".2%")]
    y = alt.Y("se:Q", title="Standard error of the eval score", axis=alt.Axis(format=".1%", tickMinStep=0.001),
              scale=alt.Scale(zero=False))
    base = _data("curve").encode(x=_k(), y=y, tooltip=tooltip)
    best = _data("best").encode(x=_kx(), y="se:Q")
    return alt.layer(
        base.mark_line(color=CURVE, strokeWidth=3),
        base.mark_point(color=CURVE, filled=True, size=40),
        best.mark_point(color=MARK, filled=True, size=220, opacity=1, shape="diamond").encode(tooltip=tooltip),
        best.mark_text(dy=18, fontSize=13, fontWeight="bold", color=MARK, **_side(label_left, 12)).encode(
            text="text:N"),
    ).properties(height=height).to_dict()


def budget_chart(frame: pd.DataFrame, *, k_best: int, height: int = 360) -> SpecChart:
    """SE of the eval mean against K when a fixed budget buys ``n = budget / (c_q + K)`` questions.

    Parameters
    ----------
    frame : DataFrame
        ``k, n_questions, se, is_best, calls_used``; one row per K.
    k_best : int
        The K with the smallest SE (marked and labelled).
    """
    best = frame.loc[frame["k"] == k_best]
    row = best.iloc[0]
    best = best.assign(text=f"best: K = {k_best}, {row['n_questions']:,.0f} questions, SE {row['se']:.2%}")
    return fill(_budget_template(height, k_best <= 12), {"curve": frame, "best": best})


@lru_cache(maxsize=4)
def _mde_template(height: int) -> dict:
    y_scale = alt.Scale(zero=True)
    tooltip = [alt.Tooltip("k:Q", title="K"), alt.Tooltip("mde:Q", title="MDE", format=".1%")]
    base = _data("curve").encode(
        x=_k("Answers per question for both models (K)"),
        y=alt.Y("mde:Q", scale=y_scale, title="Minimum detectable effect", axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        tooltip=tooltip)
    marked = _data("marked").encode(x=_kx(), y=alt.Y("mde:Q", scale=y_scale))
    return alt.layer(
        _data("floor").mark_rule(color=FLOOR, strokeDash=[6, 4], strokeWidth=2.5).encode(
            y=alt.Y("y:Q", scale=y_scale)),
        _data("floor").mark_text(align="right", baseline="top", dy=6, fontSize=12, fontWeight="bold",
                                 color=FLOOR).encode(x=_kx(), y=alt.Y("y:Q", scale=y_scale), text="text:N"),
        base.mark_line(color=CURVE, strokeWidth=3),
        base.mark_point(color=CURVE, filled=True, size=40),
        marked.mark_point(color=CURVE, filled=True, size=140, opacity=1).encode(tooltip=tooltip),
        marked.mark_text(align="left", dx=9, dy=-12, fontSize=13, fontWeight="bold", color=CURVE).encode(
            text="text:N"),
        _data("you").mark_point(color=MARK, filled=True, size=180, opacity=1, shape="diamond").encode(
            x=_kx(), y=alt.Y("mde:Q", scale=y_scale), tooltip=tooltip),
    ).properties(height=height).to_dict()


def mde_chart(frame: pd.DataFrame, *, k: int, floor: float, height: int = 360) -> SpecChart:
    """Minimum detectable effect against K, K = 1 and K = 10 labelled, the chosen K and the floor.

    Parameters
    ----------
    frame : DataFrame
        ``k, mde``; one row per K.
    k : int
        The chosen K (orange diamond).
    floor : float
        The MDE at K = infinity (omega^2 alone), a dashed rule.
    """
    marked = frame.loc[frame["k"].isin([1, 10])]
    marked = marked.assign(text=[f"K = {int(j)}: {m:.1%}" for j, m in zip(marked["k"], marked["mde"], strict=True)])
    return fill(_mde_template(height), {
        "curve": frame, "marked": marked, "you": frame.loc[frame["k"] == k],
        "floor": {"k": 20, "y": floor, "text": f"K = ∞ (ω² alone): {floor:.1%}"}})
