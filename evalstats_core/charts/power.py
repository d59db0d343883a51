"""Charts of chapter 7, "Power calculator": questions needed against the effect, and power against n.

==============================  ====================================================================
``effect_chart(curve, evals)``  questions needed for each effect (log scale), common evals as
                                labelled lines, the region beyond the largest eval shaded
``power_chart(curve, evals)``   power to detect the chosen effect against n (log scale), the target
                                power and the required n as dashed rules, common evals as dots
``null_alternative_chart(pic)`` the test's two distributions, alpha and power shaded; effect, n and
                                rho dragged in the browser
==============================  ====================================================================

Both draw the columns they are given (computed by ``evalstats_core.lessons.power``); none asks Vega to
aggregate anything. Effects are proportions and are labelled in percentage points. The picture shifts the
core's standard normal curve by ``lam = delta sqrt(n / V(rho))`` in the browser, the formula of
``lessons.power.Picture`` (its power, ``Phi(lam - z) + Phi(-lam - z)``, is printed with Vega's
``cumulativeNormal``, the same normal CDF as ``scipy.special.ndtr``; tests/test_power_picture.py holds the two
to the core's ``power_at``).
"""

from __future__ import annotations

import copy
import functools
import itertools
import math

import altair as alt
import pandas as pd

from ._base import PALETTE

__all__ = ["PrevalidatedLayer", "effect_chart", "power_chart"]

CURVE, MARK, EVAL, BAND = PALETTE[0], PALETTE[3], "#777777", "#999999"
NULL_COLOR, ALT_COLOR = "#777777", PALETTE[0]


def picture_expressions(pic) -> dict[str, str]:
    """The Vega expressions of the picture, from its parameters ``effect`` (points), ``logn`` and ``rho``:
    ``v`` the per-question variance, ``lam`` the alternative's shift, ``power`` (Miller 2024, Eq. 9 inverted)."""
    sd = math.sqrt(pic.var_a * pic.var_b)
    v = f"({pic.deff!r} * ({pic.var_a + pic.var_b!r} - 2 * rho * {sd!r}) + {pic.answer_term!r})"
    lam = f"(effect / 100 * sqrt(pow(10, logn) / max({v}, 1e-12)))"
    z = repr(pic.z_crit)
    return {"v": v, "lam": lam, "power": f"(cumulativeNormal({lam} - {z}) + cumulativeNormal(-{lam} - {z}))"}


def null_alternative_chart(pic, *, height: int = 260) -> alt.LayerChart:
    """The null N(0, 1) and the alternative N(lam, 1) of ``difference / SE``, the rejection region beyond
    ``±z`` shaded under the null (alpha) and under the alternative (power), with three sliders under the
    chart (effect in points, n on a log scale, the correlation rho) that redraw it in the browser.

    ``pic`` is :func:`evalstats_core.lessons.power.picture`; the curves are its ``null`` density, the
    alternative drawn as the same curve shifted by ``lam``.
    """
    effect = alt.param(name="effect", value=pic.effect_pts,
                       bind=alt.binding_range(min=0.5, max=15, step=0.5, name="Drag effect (points): "))
    logn = alt.param(name="logn", value=round(pic.log10_n, 6),  # the plan's n exactly, until dragged
                     bind=alt.binding_range(min=1, max=5, step=0.01, name="Drag n (log10 questions): "))
    rho = alt.param(name="rho", value=round(pic.rho, 2),
                    bind=alt.binding_range(min=-0.5, max=0.95, step=0.01, name="Drag ρ: "))
    e = picture_expressions(pic)
    z = pic.z_crit
    x = alt.X("x:Q", title="Test statistic: difference / SE", scale=alt.Scale(domain=[-4, 10], nice=False))
    y = alt.Y("density:Q", title=None, axis=alt.Axis(labels=False, ticks=False, grid=False))
    base = alt.Chart(pic.grid).transform_calculate(lam=e["lam"])
    null = base.transform_calculate(density="datum.null")
    alt_curve = base.transform_calculate(
        density=f"exp(-pow(datum.x - datum.lam, 2) / 2) / {math.sqrt(2 * math.pi)!r}")
    layers = [
        alt_curve.transform_filter(f"abs(datum.x) >= {z!r}").transform_filter("datum.x > 0").mark_area(
            color=ALT_COLOR, opacity=0.45).encode(x=x, y=y),  # power (the upper tail; the lower is below 1e-6)
        null.transform_filter(f"datum.x >= {z!r}").mark_area(color="#d55e00", opacity=0.6).encode(x=x, y=y),
        null.transform_filter(f"datum.x <= -{z!r}").mark_area(color="#d55e00", opacity=0.6).encode(x=x, y=y),
        null.mark_line(color=NULL_COLOR, strokeWidth=2).encode(x=x, y=y),
        alt_curve.mark_line(color=ALT_COLOR, strokeWidth=2).encode(x=x, y=y),
        alt.Chart(pd.DataFrame({"x": [-z, z]})).mark_rule(color="#d55e00", strokeDash=[4, 3]).encode(x="x:Q"),
    ]
    label = alt.Chart(pd.DataFrame({"x": [10.0]})).transform_calculate(
        text=(f"'n = ' + format(pow(10, logn), ',.0f') + ', effect ' + format(effect, '.1f') + ' points, ρ = ' "
              f"+ format(rho, '.2f') + ': power ' + format({e['power']}, '.0%') + ', α = {2 * (1 - _phi(z)):.0%}'"))
    # top right, where the curves are low at the start (the alternative moves right as power grows)
    layers.append(label.mark_text(align="right", baseline="top", fontSize=13, fontWeight="bold", color=ALT_COLOR).encode(
        x=alt.X("x:Q"), y=alt.value(2), text=alt.Text("text:N")))
    return alt.layer(*layers).add_params(effect, logn, rho).properties(height=height)


def _phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))
POINTS_LABELS = "format(datum.value * 100, '.0f')"  # 0.05 -> "5"


class PrevalidatedLayer(alt.LayerChart):
    """An ``alt.LayerChart`` that serialises itself once and then serves that Vega-Lite dict.

    Streamlit calls ``to_dict()`` on every rerun, and Altair's conversion (copies, jsonschema validation,
    Arrow datasets) costs more than everything else the power page does, even when the chart came from
    the cache. The builders below call :meth:`freeze` on what they return: the spec is computed once,
    with the data inline (Streamlit reads inline ``datasets``) and without theme defaults, and later
    ``to_dict()`` calls return a copy of it. Any derived chart (``.properties(...)``, as the PNG/SVG
    export does) is a fresh object and serialises normally. ``tests/test_lessons_power.py`` checks the
    frozen dict against a full, validated ``to_dict(validate=True)``.
    """

    @classmethod
    def of(cls, layers: list, *, height: int) -> PrevalidatedLayer:
        """Layer ``layers`` and freeze. Our layers carry no params, no shared data and no sizes, so the
        merging ``alt.LayerChart.__init__`` does (deep copies of every layer) is skipped."""
        chart = cls(height=height)
        chart.layer = list(layers)
        return chart.freeze()

    def freeze(self) -> PrevalidatedLayer:
        """Compute and keep the spec (no validation; the tests validate the same structure)."""
        with alt.theme.enable("none"):
            spec = super().to_dict(validate=False)
        object.__setattr__(self, "_frozen", spec)  # a plain attribute, not a Vega-Lite property
        return self

    def to_dict(self, validate: bool = False, **kwargs):  # noqa: D102 - see class docstring
        frozen = self.__dict__.get("_frozen")
        if frozen is not None and not validate and not kwargs:
            return copy.deepcopy(frozen)
        return super().to_dict(validate=validate, **kwargs)


def _unchecked(builder):
    """Build with Altair's validation-at-instantiation off (``debug_mode(False)``): it is most of a
    builder's cost, and the tests validate the finished specs."""
    @functools.wraps(builder)
    def build(*args, **kwargs):
        with alt.utils.schemapi.debug_mode(False):
            return builder(*args, **kwargs)
    return build


def _rows(frame: pd.DataFrame | dict) -> alt.Data:
    """Small annotation data inline, as plain Python values: Streamlit converts every DataFrame of a
    chart to Arrow on each rerun, which costs more than the few rows of a label are worth."""
    cols = frame if isinstance(frame, dict) else {c: frame[c].tolist() for c in frame.columns}
    keys = list(cols)
    return alt.Data(values=[dict(zip(keys, vals, strict=True)) for vals in zip(*(cols[k] for k in keys), strict=True)])


def _label_above(sizes: list[float], *, px_per_decade: float, min_px: float = 18.0, offset_px: float = 8.0,
                 label_px: float = 13.0) -> list[bool]:
    """For labels of horizontal lines at ``sizes`` (ascending, log axis): True puts a label above its
    line. Labels go below their line unless the next line down is closer than ``min_px`` pixels (the
    label would cross it); then above. Close pairs (HumanEval 164 / GPQA Diamond 198) part ways.

    When that rule still lets two labels (``label_px`` high, centred ``offset_px`` off their lines) cross each
    other or a line, as three close lines do (MGSM worth 707, DROP worth 1,034, GSM8K 1,319: DROP's label sat on
    GSM8K's), the placement with the fewest crossings is taken, the rule's own among equals (at most 2^8
    placements for the chapter's eight evals)."""
    rule = []
    for i, size in enumerate(sizes):
        gap = math.log10(size / sizes[i - 1]) * px_per_decade if i > 0 else math.inf
        rule.append(gap < min_px)
    lines = [math.log10(size) * px_per_decade for size in sizes]

    def crossings(above: tuple[bool, ...]) -> int:
        centres = [y + (offset_px if up else -offset_px) for y, up in zip(lines, above, strict=True)]
        labels = sum(abs(a - b) < label_px for i, a in enumerate(centres) for b in centres[i + 1:])
        ruled = sum(abs(c - y) < label_px / 2 for i, c in enumerate(centres) for j, y in enumerate(lines) if i != j)
        return labels + ruled

    if len(sizes) > 12 or crossings(tuple(rule)) == 0:
        return rule
    best = min(itertools.product((False, True), repeat=len(sizes)),
               key=lambda above: (crossings(above), sum(a != r for a, r in zip(above, rule, strict=True))))
    return list(best)


def _aligns(sizes: list[float], *, min_ratio: float) -> list[str]:
    """Horizontal alignment for labels of dots at x = ``sizes`` (ascending, log axis): of a close pair
    the left dot's label goes to its left ("right"), the right dot's to its right ("left")."""
    out = []
    for i, size in enumerate(sizes):
        if i + 1 < len(sizes) and sizes[i + 1] / size < min_ratio:
            out.append("right")
        elif i > 0 and size / sizes[i - 1] < min_ratio:
            out.append("left")
        else:
            out.append("center")
    return out


@_unchecked
def effect_chart(curve: pd.DataFrame, evals: pd.DataFrame, *, delta: float, n_required: float,
                 height: int = 480) -> PrevalidatedLayer:
    """Questions needed against the effect to detect, with common evals and the infeasible zone.

    Parameters
    ----------
    curve : DataFrame
        ``effect`` (proportion), ``n_required`` (questions), one row per grid point.
    evals : DataFrame
        ``eval``, ``n`` (questions in its test split); the largest sets the infeasible zone.
    delta, n_required : float
        The chosen effect and the questions it needs (drawn as a dot).

    Notes
    -----
    Encodings are explicit channel objects (never shorthand strings or ``alt.value``), which keeps
    building the chart to a few milliseconds: a page rerun pays for it on every slider move.
    """
    x_max = float(curve["effect"].max())
    largest = evals.loc[evals["n"].idxmax()]
    y_top = 10.0 ** math.ceil(math.log10(max(2 * float(largest["n"]), 2 * n_required, 100.0)))
    y_scale = alt.Scale(type="log", domain=[10, y_top], clamp=True)
    px_per_decade = max(height - 70, 100) / math.log10(y_top / 10.0)  # plot height / decades shown
    shift = 10.0 ** (8.0 / px_per_decade)  # a label's centre sits ~8 px above or below its line
    ev = evals.sort_values("n")
    above = _label_above(ev["n"].tolist(), px_per_decade=px_per_decade)
    # a clustered eval sits at its size in independent questions (``n``), labelled with both
    questions = ev["questions"] if "questions" in ev.columns else ev["n"]
    ev = ev.assign(label=[f"{e} {int(q):,}" + (f" (worth {n:,.0f})" if round(n) < q else "")
                          for e, q, n in zip(ev["eval"], questions, ev["n"], strict=True)], x=x_max,
                   label_y=[n * shift if up else n / shift for n, up in zip(ev["n"], above, strict=True)])
    band = alt.Chart(_rows({"x0": [0.0], "x1": [x_max], "y0": [float(largest["n"])], "y1": [y_top]})
                     ).mark_rect(color=BAND, opacity=0.22).encode(
        x=alt.X("x0:Q"), x2=alt.X2("x1:Q"), y=alt.Y("y0:Q", scale=y_scale), y2=alt.Y2("y1:Q"))
    band_label = alt.Chart(_rows({
        "x": [x_max], "y": [math.sqrt(float(largest["n"]) * y_top)],
        "text": [f"Infeasible: more questions than {largest['eval']} ({int(largest['n']):,})"]})
    ).mark_text(align="right", dx=-6, fontSize=12, fontWeight="bold", color="#777777").encode(
        x=alt.X("x:Q"), y=alt.Y("y:Q", scale=y_scale), text=alt.Text("text:N"))
    ev = _rows(ev[["eval", "n", "label", "x", "label_y"]])
    rules = alt.Chart(ev).mark_rule(color=EVAL, strokeDash=[3, 3], strokeWidth=1).encode(
        y=alt.Y("n:Q", scale=y_scale))
    labels = alt.Chart(ev).mark_text(align="right", baseline="middle", dx=-4, fontSize=11, color="#777777").encode(
        x=alt.X("x:Q"), y=alt.Y("label_y:Q", scale=y_scale), text=alt.Text("label:N"))
    line = alt.Chart(_rows(curve[["effect", "n_required"]])).mark_line(color=CURVE, strokeWidth=3, clip=True).encode(
        x=alt.X("effect:Q", title="Effect to detect (percentage points)", scale=alt.Scale(domain=[0, x_max], nice=False),
                axis=alt.Axis(labelExpr=POINTS_LABELS, tickCount=8)),
        y=alt.Y("n_required:Q", scale=y_scale, title="Questions needed (log scale)",
                axis=alt.Axis(format=",.0f", values=[10 ** k for k in range(1, int(math.log10(y_top)) + 1)])),
        tooltip=[alt.Tooltip("effect:Q", title="effect", format=".1%"),
                 alt.Tooltip("n_required:Q", title="questions", format=",.0f")])
    dot = alt.Chart(_rows({"effect": [delta], "n_required": [n_required],
                                  "text": [f"{math.ceil(n_required):,}"]}))
    you = dot.mark_point(filled=True, size=140, color=MARK, opacity=1).encode(
        x=alt.X("effect:Q"), y=alt.Y("n_required:Q", scale=y_scale),
        tooltip=[alt.Tooltip("effect:Q", title="your effect", format=".1%"),
                 alt.Tooltip("n_required:Q", title="questions needed", format=",.0f")])
    you_label = dot.mark_text(align="left", dx=9, dy=-9, fontSize=13, fontWeight="bold", color=MARK).encode(
        x=alt.X("effect:Q"), y=alt.Y("n_required:Q", scale=y_scale), text=alt.Text("text:N"))
    return PrevalidatedLayer.of([band, rules, labels, band_label, line, you, you_label], height=height)


@_unchecked
def power_chart(curve: pd.DataFrame, evals: pd.DataFrame, *, target_power: float, n_required: float,
                height: int = 400, grid: pd.DataFrame | None = None, effect: float | None = None
                ) -> PrevalidatedLayer:
    """Power to detect the chosen effect against the number of questions.

    Parameters
    ----------
    curve : DataFrame
        ``n`` (questions), ``power`` (in [0, 1]), one row per grid point (log-spaced).
    evals : DataFrame
        ``eval``, ``n``, ``power`` (each common eval's power), drawn as labelled dots.
    target_power, n_required : float
        The target power (horizontal rule) and the questions needed to reach it (vertical rule).
    grid, effect : optional
        ``lessons.power.power_grid`` (``effect_pts, n, power``) and the effect (a proportion) where its
        curve starts, rounded to the grid: a second,
        dashed curve that the chart's own "Drag effect" input swaps in the browser, with no rerun.
    """
    n_lo, n_hi = float(curve["n"].min()), float(curve["n"].max())
    x_scale = alt.Scale(type="log", domain=[n_lo, n_hi], nice=False)
    y_scale = alt.Scale(domain=[0, 1])
    ticks = [v for v in (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000,
                         10_000_000, 30_000_000, 100_000_000) if n_lo <= v <= n_hi]
    line = alt.Chart(_rows(curve[["n", "power"]])).mark_line(color=CURVE, strokeWidth=3).encode(
        x=alt.X("n:Q", scale=x_scale, title="Questions in the eval (log scale)", axis=alt.Axis(format=",.0f", values=ticks)),
        y=alt.Y("power:Q", scale=y_scale, title="Power", axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        tooltip=[alt.Tooltip("n:Q", title="questions", format=",.0f"), alt.Tooltip("power:Q", format=".1%")])
    rules = {"x": [n_lo], "x2": [n_hi], "y": [target_power], "y2": [target_power]}  # the target power
    layers = [line]
    if n_lo <= n_required <= n_hi:  # and the questions that reach it
        rules = {"x": [n_lo, n_required], "x2": [n_hi, n_required], "y": [target_power, 0.0],
                 "y2": [target_power, 1.0]}
        layers.append(alt.Chart(_rows({"n": [n_required], "power": [0.02], "text": [f"{math.ceil(n_required):,} needed"]})
                                ).mark_text(align="left", baseline="bottom", dx=5, fontSize=12, fontWeight="bold",
                                            color=MARK).encode(
            x=alt.X("n:Q", scale=x_scale), y=alt.Y("power:Q", scale=y_scale), text=alt.Text("text:N")))
    layers.insert(0, alt.Chart(_rows(rules)).mark_rule(color=MARK, strokeDash=[6, 4], strokeWidth=2).encode(
        x=alt.X("x:Q", scale=x_scale), x2=alt.X2("x2:Q"), y=alt.Y("y:Q", scale=y_scale), y2=alt.Y2("y2:Q")))
    order = sorted(range(len(evals)), key=lambda i: float(evals["n"].iloc[i]))
    names = [str(evals["eval"].iloc[i]) for i in order]
    sizes = [float(evals["n"].iloc[i]) for i in order]
    powers = [float(evals["power"].iloc[i]) for i in order]
    step = 10.0 / max(height - 60, 100)  # ~10 px in power units: labels above low dots, below high ones
    label_y = [p + step if p < 0.85 else p - step for p in powers]
    aligns = _aligns(sizes, min_ratio=1.8)
    # a centred label next to the required-n rule would be crossed by it: move it to the rule's far side
    aligns = [("left" if n > n_required else "right") if a == "center" and max(n, n_required) / min(n, n_required) < 1.8
              else a for a, n in zip(aligns, sizes, strict=True)]
    layers.append(alt.Chart(_rows({"eval": names, "n": sizes, "power": powers})).mark_point(
        filled=True, size=80, color=PALETTE[1], opacity=1, stroke="#777777", strokeWidth=0.6).encode(
        x=alt.X("n:Q", scale=x_scale), y=alt.Y("power:Q", scale=y_scale),
        tooltip=[alt.Tooltip("eval:N"), alt.Tooltip("n:Q", title="questions", format=","),
                 alt.Tooltip("power:Q", format=".1%")]))
    for align in ("right", "center", "left"):
        idx = [i for i, a in enumerate(aligns) if a == align]
        if idx:
            layers.append(alt.Chart(_rows({"eval": [names[i] for i in idx], "n": [sizes[i] for i in idx],
                                           "label_y": [label_y[i] for i in idx]})).mark_text(
                align=align, baseline="middle", dx={"left": 4, "right": -4}.get(align, 0), fontSize=11,
                color="#777777").encode(x=alt.X("n:Q", scale=x_scale), y=alt.Y("label_y:Q", scale=y_scale),
                                        text=alt.Text("eval:N")))
    if grid is not None:
        efx = sorted(set(float(v) for v in grid["effect_pts"]))
        start = min(efx, key=lambda v: abs(v - (100 * effect if effect is not None else efx[0])))
        # the drag grid (60 effects x ~50 n) goes into the frozen spec's datasets by name: through Altair's
        # serialisation its ~3,000 rows cost about 1 s a build on this machine, most of a slider step
        here = alt.Chart(alt.NamedData(name="drag_grid")).transform_filter(
            "abs(datum.effect_pts - drag_effect) < 0.01")
        layers.append(here.mark_line(color=MARK, strokeWidth=2, strokeDash=[5, 3]).encode(
            x=alt.X("n:Q", scale=x_scale), y=alt.Y("power:Q", scale=y_scale),
            tooltip=[alt.Tooltip("effect_pts:Q", title="effect (points)"),
                     alt.Tooltip("n:Q", title="questions", format=",.0f"), alt.Tooltip("power:Q", format=".1%")]))
        layers.append(here.transform_filter("datum.mid").transform_calculate(
            text="'dragged: ' + format(datum.effect_pts, '.1f') + ' points'").mark_text(
            align="left", baseline="middle", dx=8, fontSize=12, fontWeight="bold", color=MARK).encode(
            x=alt.X("n:Q", scale=x_scale), y=alt.Y("power:Q", scale=y_scale), text="text:N"))
        chart = PrevalidatedLayer.of(layers, height=height)
        chart._frozen.setdefault("datasets", {})["drag_grid"] = _rows(grid[["effect_pts", "n", "power", "mid"]]).values
        chart._frozen["params"] = [{"name": "drag_effect", "value": start, "bind": {
            "input": "range", "min": efx[0], "max": efx[-1], "step": round(efx[1] - efx[0], 6),
            "name": "Drag effect (points): "}}]
        return chart
    return PrevalidatedLayer.of(layers, height=height)
