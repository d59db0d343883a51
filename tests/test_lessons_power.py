"""evalstats_core.lessons.power and evalstats_core.charts.power: the calculator's numbers and charts."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core import power as core
from evalstats_core.charts import power as charts
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import power as lesson

# ---- oracle: statsmodels' normal power for a one-sample (paired) z-test --------------------------


@pytest.mark.parametrize("delta, omega2, s_a, s_b, k, deff, alpha, power", [
    (0.03, 1 / 9, 0.0, 0.0, 1, 1.0, 0.05, 0.8),
    (0.05, 0.2, 1 / 6, 0.1, 4, 2.5, 0.01, 0.9),
    (0.10, 0.05, 0.25, 0.25, 1, 1.0, 0.10, 0.7),
])
def test_plan_matches_statsmodels(delta, omega2, s_a, s_b, k, deff, alpha, power):
    """n, MDE and power agree with statsmodels NormalIndPower(ratio=0) on effect size delta/sqrt(V)."""
    from statsmodels.stats.power import NormalIndPower

    p = lesson.plan(delta, omega2=omega2, sigma2_a=s_a, sigma2_b=s_b, k_a=k, k_b=k, alpha=alpha, power=power,
                    deff=deff, n=300)
    var = deff * omega2 + s_a / k + s_b / k
    assert p.variance == pytest.approx(var)
    sm = NormalIndPower()
    # sm.solve_power(effect_size=delta / sqrt(V), alpha=alpha, power=power, ratio=0) counts both rejection
    # tails, Eq. 9 only the near one, so Eq. 9's n is a hair larger (0.02% at alpha = 0.1, power = 0.7)
    sm_n = sm.solve_power(effect_size=delta / math.sqrt(var), alpha=alpha, power=power, ratio=0)
    assert sm_n * (1 - 1e-8) <= p.n_required <= sm_n * (1 + 5e-4)  # 1e-8: the solver's tolerance
    # sm.power(effect_size=delta / sqrt(V), nobs1=300, alpha=alpha, ratio=0)
    assert p.power_at_n == pytest.approx(sm.power(effect_size=delta / math.sqrt(var), nobs1=300, alpha=alpha,
                                                  ratio=0), abs=1e-9)
    mde_sm = sm.solve_power(nobs1=300, alpha=alpha, power=power, ratio=0) * math.sqrt(var)
    assert p.mde == pytest.approx(mde_sm, rel=1e-4)


# ---- the seeds' worked numbers -------------------------------------------------------------------


def test_worked_examples_are_969_13_3_and_7_6():
    """Miller 2024 Sec. 5: 969 questions for 3 points; MDE 13.3% (K = 1) and 7.6% (K = 10) at n = 198."""
    ex = lesson.worked_examples()
    assert math.ceil(ex[0].value) == 969 and ex[0].shown == "969 questions"
    assert ex[1].shown == "13.3%" and ex[1].value == pytest.approx(0.1327, abs=5e-5)
    assert ex[2].shown == "7.6%" and ex[2].value == pytest.approx(0.0757, abs=5e-5)
    assert [e.paper for e in ex[:3]] == ["969", "13.2%", "7.5%"]
    for e in ex:  # plain keywords in the core; the page's widget keys are spelled on the app side
        assert not any(k.startswith("power_") for k in e.settings)


def test_chapter_seven_and_chapter_eight_agree_on_mgsm():
    """Issue 40: chapter 7 said MGSM had 99% power for 3 points ("Big enough"), chapter 8 39%. Its worked example
    loads chapter 8's omega^2 and clustering and gives chapter 8's power; its evals table clusters MGSM too."""
    from evalstats_core.lessons import verdict

    ex = lesson.worked_examples()[3]
    s = ex.settings
    eight = verdict.verdict_steps().set_index(["eval", "step"]).loc[("MGSM", "clustered"), "power"]
    assert ex.value == pytest.approx(eight, rel=1e-9) and 0.35 < ex.value < 0.45
    assert ex.shown == f"{eight:.0%} power" and ex.paper == f"chapter 8: {eight:.0%}"
    assert s["deff"] == pytest.approx(1.88**2) and s["n"] == 2500 and f"{s['omega2']:.3f}" in ex.title
    p = lesson.plan(0.03, omega2=1 / 9)  # the page's default scenario: MGSM no longer counts as 2,500 independent
    row = lesson.evals_frame(p).set_index("eval").loc["MGSM"]
    assert row["n"] == pytest.approx(2500 / 1.88**2) and row["power"] < 0.8 and not row["enough"]


def test_worked_settings_reproduce_through_plan():
    """Feeding an example's settings back through plan gives its value (the Load button's contract)."""
    s = lesson.worked_examples()[2].settings
    p = lesson.plan(s["delta"], omega2=s["omega2"], sigma2_a=s["sigma2_a"], sigma2_b=s["sigma2_b"], k_a=s["k_a"],
                    k_b=s["k_b"], alpha=s["alpha"], power=s["power"], deff=s["deff"], n=s["n"])
    assert lesson.fmt_points(p.mde) == "7.6 points"


def test_sentences_carry_the_numbers():
    """The plain sentences state the rounded-up n, the MDE in points and the smallest eval big enough."""
    p = lesson.plan(0.03, omega2=1 / 9, sigma2_a=1 / 6, sigma2_b=1 / 6, n=198)
    assert "you need 3,876 questions" in p.sentence_n  # 4 x 968.997 (sigma^2 = 1/6 each: V = 4/9)
    assert "The smallest common eval that large is MATH (5,000)" in p.sentence_n
    assert p.sentence_mde.startswith("With 198 questions you can reliably detect differences of 13.3 points")
    tiny = lesson.plan(0.005, omega2=1 / 9)
    assert not tiny.feasible and "no common eval" in tiny.sentence_n and tiny.smallest_enough == ""


def test_resolve_variances_modes():
    """direct passes omega^2 through; variances uses omega2_from; preset takes all three from PRESETS."""
    assert lesson.resolve_variances("direct", omega2=0.2, sigma2_a=0.1, sigma2_b=0.0) == (0.2, 0.1, 0.0)
    om, sa, sb = lesson.resolve_variances("variances", omega2=9.0, sigma2_a=0.1, sigma2_b=0.2,
                                          var_a=1 / 12, var_b=1 / 12, rho=1 / 3)
    assert om == pytest.approx(1 / 9) and (sa, sb) == (0.1, 0.2)
    assert lesson.resolve_variances("preset", omega2=9.0, sigma2_a=9.0, sigma2_b=9.0, preset="binary") == (
        pytest.approx(1 / 9), pytest.approx(1 / 6), pytest.approx(1 / 6))
    assert lesson.PRESETS["binary_unrelated"].omega2 == pytest.approx(1 / 6)
    assert lesson.PRESETS["binary_close"].omega2 == pytest.approx(1 / 30)
    with pytest.raises(EvalStatsError, match="bogus"):
        lesson.resolve_variances("bogus", omega2=0.1, sigma2_a=0, sigma2_b=0)
    with pytest.raises(EvalStatsError, match="nope"):
        lesson.resolve_variances("preset", omega2=0.1, sigma2_a=0, sigma2_b=0, preset="nope")


def test_design_effect_multiplies_only_omega2():
    """Appendix C: deff scales omega^2, not the sigma^2/K part."""
    base = lesson.plan(0.03, omega2=0.1, sigma2_a=0.2, sigma2_b=0.2, k_a=2, k_b=2)
    clus = lesson.plan(0.03, omega2=0.1, sigma2_a=0.2, sigma2_b=0.2, k_a=2, k_b=2, deff=3.0)
    assert clus.variance - base.variance == pytest.approx(2 * 0.1)
    assert clus.n_required / base.n_required == pytest.approx(clus.variance / base.variance)


def test_frames_shapes_and_monotonicity():
    """effect_frame falls with the effect, power_frame rises with n, evals_frame lists the seven evals."""
    p = lesson.plan(0.03, omega2=1 / 9)
    ef = lesson.effect_frame(p)
    assert list(ef.columns) == ["effect", "n_required"] and len(ef) == 120
    assert (np.diff(ef["n_required"]) < 0).all()
    assert ef["effect"].max() == pytest.approx(0.30)
    pf = lesson.power_frame(p)
    assert list(pf.columns) == ["n", "power"] and (np.diff(pf["power"]) >= 0).all()
    assert (np.diff(pf["power"][pf["power"] < 0.999]) > 0).all()
    assert pf["n"].min() == pytest.approx(10) and pf["n"].max() >= 4 * p.n_required
    ev = lesson.evals_frame(p)
    assert dict(zip(ev["eval"], ev["questions"], strict=True)) == {"HumanEval": 164, "GPQA Diamond": 198, "GSM8K": 1319,
                                               "MGSM": 2500, "MATH": 5000, "DROP": 9622, "MMLU": 14042}
    assert list(ev["enough"]) == list(ev["n"] >= p.n_required)


def test_formatters():
    assert lesson.fmt_points(0.1327333) == "13.3 points"
    assert lesson.fmt_n(968.9975) == "969" and lesson.fmt_n(14041.2) == "14,042"


# ---- properties -----------------------------------------------------------------------------------

inputs = st.fixed_dictionaries({
    "delta": st.floats(0.005, 0.4), "omega2": st.floats(0.001, 1.0), "sigma2_a": st.floats(0.0, 0.25),
    "sigma2_b": st.floats(0.0, 0.25), "k_a": st.integers(1, 50), "k_b": st.integers(1, 50),
    "alpha": st.floats(0.001, 0.3), "power": st.floats(0.5, 0.99), "deff": st.floats(1.0, 20.0),
    "n": st.integers(2, 200_000),
})


@settings(max_examples=60, deadline=None)
@given(inputs)
def test_plan_is_self_consistent(kw):
    """ceil(n_required) questions detect delta; the MDE of n has the target power (plus at most the
    far tail, alpha/2); an eval whose MDE is below delta is flagged big enough."""
    p = lesson.plan(**kw)
    at_need = lesson.plan(**(kw | {"n": max(math.ceil(p.n_required), 2)}))
    assert at_need.mde <= p.delta * (1 + 1e-9)
    achieved = float(core.power_at(p.n, p.mde, **p.kwargs()))
    assert p.power - 1e-9 <= achieved <= p.power + p.alpha / 2
    if p.mde <= p.delta:
        assert p.power_at_n >= p.power - 1e-9
    ev = lesson.evals_frame(p)
    assert ev["enough"][ev["mde"] <= p.delta * (1 - 1e-9)].all()
    assert not ev["enough"][ev["power"] < p.power].any()


# ---- charts ---------------------------------------------------------------------------------------


def _spec(chart) -> dict:
    return chart.to_dict()


def _layers(spec: dict) -> list[dict]:
    return spec["layer"]


def _all_rows(spec: dict) -> list[dict]:
    """Every data row of a layered spec: named datasets and inline layer values."""
    rows = [r for data in spec.get("datasets", {}).values() for r in data]
    return rows + [r for layer in spec["layer"] for r in layer.get("data", {}).get("values", [])]


def test_effect_chart_marks_infeasible_zone_and_every_eval():
    """The band starts at MMLU's 14,042; each eval has a dashed rule and a label; y is log."""
    p = lesson.plan(0.03, omega2=1 / 9)
    ev = lesson.evals_frame(p)
    spec = _spec(charts.effect_chart(lesson.effect_frame(p), ev, delta=p.delta, n_required=p.n_required))
    text = json.dumps(spec)
    assert "ci0" not in text and "extent" not in text
    rows = _all_rows(spec)
    band = next(r for r in rows if "y1" in r)
    assert band["y0"] == 14042
    labels = {r["label"] for r in rows if "label" in r}
    # a clustered eval's label names its questions and what they are worth (issue 40: MGSM 2,500, worth 708)
    assert labels == {f"{e} {n:,}" + (f" (worth {n / lesson.EVAL_DEFF[e]:,.0f})" if e in lesson.EVAL_DEFF else "")
                      for e, n in lesson.EVALS}
    assert "MGSM 2,500 (worth 707)" in labels and "DROP 9,622 (worth 1,034)" in labels
    assert any("Infeasible: more questions than MMLU (14,042)" == r.get("text") for r in rows)
    assert any(layer.get("encoding", {}).get("y", {}).get("scale", {}).get("type") == "log"
               for layer in _layers(spec))


def test_effect_chart_separates_close_labels():
    """Labels sit under their lines, except where the next line down is too close (GPQA Diamond, MMLU)."""
    # ~100 px per decade: 198 is 8 px above 164 and 14,042 is 16 px above 9,622, closer than 18 px
    assert charts._label_above([164, 198, 1319, 5000, 9622, 14042], px_per_decade=100) == [
        False, True, False, False, False, True]
    # issue 40: MGSM (worth 707), DROP (worth 1,034) and GSM8K 1,319 within ~28 px: by the rule alone DROP's label
    # went above its line, onto GSM8K's line and label; now DROP's goes below (between DROP and MGSM), GSM8K's above
    assert charts._label_above([164, 198, 707, 1034, 1319, 5000, 14042], px_per_decade=102) == [
        False, True, False, False, True, False, False]
    assert charts._aligns([164, 198, 1319, 9622, 14042], min_ratio=1.8) == [
        "right", "left", "center", "right", "left"]


def test_power_chart_has_target_and_required_rules():
    """The target power and the required n are drawn; the required-n rule is dropped when off the axis."""
    p = lesson.plan(0.03, omega2=1 / 9)
    ev = lesson.evals_frame(p)
    spec = _spec(charts.power_chart(lesson.power_frame(p), ev, target_power=0.8, n_required=p.n_required))
    rows = _all_rows(spec)
    assert any(r.get("y") == 0.8 == r.get("y2") and r.get("x") == 10.0 for r in rows)  # target, full width
    assert any(r.get("x") == r.get("x2") == p.n_required and (r["y"], r["y2"]) == (0.0, 1.0) for r in rows)
    assert any(r.get("text") == "969 needed" and r.get("power") == 0.02 for r in rows)
    off = _spec(charts.power_chart(lesson.power_frame(p), ev, target_power=0.8, n_required=1e9))
    off_rows = _all_rows(off)
    assert not any("needed" in str(r.get("text", "")) for r in off_rows)
    assert not any(r.get("x") == 1e9 for r in off_rows)


def test_charts_render_to_svg():
    """Both charts export (vl-convert) without error."""
    from evalstats_core.charts import to_svg

    p = lesson.plan(0.02, omega2=0.2, sigma2_a=0.1, sigma2_b=0.1, deff=2.0)
    ev = lesson.evals_frame(p)
    assert to_svg(charts.effect_chart(lesson.effect_frame(p), ev, delta=p.delta, n_required=p.n_required)
                  .properties(width=600)).startswith("<svg")
    assert to_svg(charts.power_chart(lesson.power_frame(p), ev, target_power=p.power, n_required=p.n_required)
                  .properties(width=600)).startswith("<svg")


@pytest.mark.parametrize("delta, kw", [(0.03, {}), (0.005, {"sigma2_a": 0.25, "sigma2_b": 0.25, "deff": 5.0}),
                                       (0.4, {"omega2": 0.01})])
def test_chart_specs_validate_against_the_vega_lite_schema(delta, kw):
    """The builders skip Altair's validation for speed, so the full jsonschema check runs here."""
    import altair as alt

    p = lesson.plan(delta, **({"omega2": 1 / 9} | kw))
    ev = lesson.evals_frame(p)
    built = [charts.effect_chart(lesson.effect_frame(p), ev, delta=p.delta, n_required=p.n_required),
             charts.power_chart(lesson.power_frame(p), ev, target_power=p.power, n_required=p.n_required)]
    for chart in built:
        assert isinstance(chart, alt.LayerChart)
        chart.to_dict(validate=True)  # raises SchemaValidationError on an invalid spec
        exported = chart.properties(background="white")  # what the PNG/SVG export does first
        assert isinstance(exported, charts.PrevalidatedLayer)
        exported.to_dict(validate=True)


def test_validation_is_restored_after_building():
    """Building a chart turns Altair's instantiation checks off only for its own duration."""
    import altair as alt

    p = lesson.plan(0.03, omega2=1 / 9)
    charts.effect_chart(lesson.effect_frame(p), lesson.evals_frame(p), delta=p.delta, n_required=p.n_required)
    assert alt.utils.schemapi.DEBUG_MODE is True
    with pytest.raises(alt.utils.schemapi.SchemaValidationError):
        alt.X("n:Q", scale=alt.Scale(type="not-a-scale"))


def test_frozen_spec_equals_a_fresh_validated_spec():
    """What the page serves from the frozen dict is exactly Altair's full, validated serialisation."""
    import pickle

    import altair as alt

    p = lesson.plan(0.02, omega2=0.2, sigma2_a=0.1, sigma2_b=0.1, deff=2.0)
    ev = lesson.evals_frame(p)
    for chart in (charts.effect_chart(lesson.effect_frame(p), ev, delta=p.delta, n_required=p.n_required),
                  charts.power_chart(lesson.power_frame(p), ev, target_power=p.power, n_required=p.n_required)):
        fresh = alt.layer(*chart.layer).properties(height=chart.height)
        with alt.theme.enable("none"):
            assert chart.to_dict() == fresh.to_dict(validate=True)
        served = chart.to_dict()
        served["layer"][0].clear()  # a caller mutating its copy does not touch the frozen spec
        assert chart.to_dict()["layer"][0]
        assert pickle.loads(pickle.dumps(chart)).to_dict() == chart.to_dict()  # st.cache_data round trip
