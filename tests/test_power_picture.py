"""Chapter 7's picture of the test (issue 40): the null and the alternative distributions with alpha and power
shaded, the effect, n and rho dragged in the browser. The browser's formula (a Vega expression built by the
chart) is held to the core's power_at at many settings, evaluated here with the same normal CDF."""

from __future__ import annotations

import math

import pytest
from conftest import no_exceptions, run_page
from scipy.special import ndtr

from evalstats_core import power as core
from evalstats_core.charts import compile_spec
from evalstats_core.charts import power as charts
from evalstats_core.lessons import power as lesson


def _browser_power(pic, effect: float, logn: float, rho: float) -> float:
    """The chart's power expression evaluated with Python's math (the names Vega's expression language uses)."""
    expr = charts.picture_expressions(pic)["power"]
    names = {"sqrt": math.sqrt, "pow": math.pow, "max": max, "cumulativeNormal": ndtr,
             "effect": effect, "logn": logn, "rho": rho}
    return float(eval(expr, {"__builtins__": {}}, names))  # noqa: S307 - our own expression, built by the chart


@pytest.mark.parametrize(("effect", "logn", "rho"), [(3.0, math.log10(198), 1 / 3), (1.0, 3.0, 0.0), (5.0, 2.0, 0.9),
                                                    (0.5, 4.5, -0.5), (10.0, 1.0, 0.5)])
@pytest.mark.parametrize("settings", [dict(omega2=1 / 9), dict(omega2=0.05, sigma2_a=1 / 6, sigma2_b=1 / 6, k_a=4, k_b=2,
                                                                   deff=3.53, alpha=0.01)])
def test_the_browsers_power_is_the_cores(effect, logn, rho, settings):
    """At every (effect, n, rho) the reader can drag to, the printed power is core.power_at's."""
    deff = settings.pop("deff", 1.0)
    p = lesson.plan(0.03, n=198, deff=deff, **settings)
    pic = lesson.picture(p)
    omega2 = pic.var_a + pic.var_b - 2 * rho * math.sqrt(pic.var_a * pic.var_b)
    want = core.power_at(10**logn, effect / 100, omega2=deff * omega2, sigma2_a=p.sigma2_a, sigma2_b=p.sigma2_b,
                         k_a=p.k_a, k_b=p.k_b, alpha=p.alpha)
    assert _browser_power(pic, effect, logn, rho) == pytest.approx(float(want), abs=1e-12)


def test_the_picture_starts_at_the_plan():
    """The picture opens at the plan's effect, n and the rho that gives its omega^2; its power is the plan's."""
    p = lesson.plan(0.03, omega2=1 / 9, n=198)
    pic = lesson.picture(p)
    assert pic.rho == pytest.approx(1 / 3) and pic.effect_pts == 3.0 and 10**pic.log10_n == pytest.approx(198)
    assert pic.power == pytest.approx(p.power_at_n, abs=1e-12)
    assert _browser_power(pic, pic.effect_pts, pic.log10_n, pic.rho) == pytest.approx(p.power_at_n, abs=1e-12)
    assert pic.grid["null"].sum() * 0.05 == pytest.approx(1.0, abs=1e-3)  # a density on -4..10


def test_the_chart_binds_effect_n_and_rho_and_shades_alpha_and_power():
    spec = compile_spec(charts.null_alternative_chart(lesson.picture(lesson.plan(0.03, omega2=1 / 9, n=198))))
    params = {q["name"]: q for q in spec["params"]}
    assert set(params) == {"effect", "logn", "rho"} and all("bind" in q for q in params.values())
    assert [q["value"] for q in (params["effect"], params["rho"])] == [3.0, 0.33]
    areas = [layer for layer in spec["layer"] if (layer.get("mark") or {}).get("type") == "area"]
    assert len(areas) == 3  # power under the alternative, alpha's two tails under the null


def test_chapter_seven_shows_the_picture_starting_at_its_plan():
    """The page serves the picture (its spec cached without the effect, n and target power) starting at the
    plan's effect, n and rho; a new n moves the start, not the cached curves."""
    from test_chart_ticks import _specs

    def start(at) -> dict:
        spec = next(s for s in _specs(at) if {"effect", "logn", "rho"} <= {q.get("name") for q in s.get("params", [])})
        return {q["name"]: q["value"] for q in spec["params"]}

    at = run_page("pages/power.py")
    no_exceptions(at)
    assert any(c.value.startswith("The test at n = 198 and an effect of 3.0 points") and "24% of the time" in c.value
               for c in at.caption)
    assert start(at) == {"effect": 3.0, "logn": round(math.log10(198), 6), "rho": 0.33}
    at.number_input(key="power_n").set_value(2000).run()
    assert start(at)["logn"] == round(math.log10(2000), 6)
