"""The workbench's compiled charts from a template (evalstats_core/charts/_template.py) are the charts
themselves: ``models_spec(...)`` equals ``compile_spec(models_chart(...))`` but for the datasets' names, for
every confidence level, title and set of numbers, including a template reused from an earlier call."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from evalstats_core.charts import _template, compile_spec
from evalstats_core.charts import analyze as charts


def canonical(spec: dict) -> dict:
    """``spec`` with its datasets named by the order they are first referenced (d0, d1...), so two specs that
    draw the same rows compare equal whatever their datasets are called."""
    names: dict[str, str] = {}

    def refs(obj):
        if isinstance(obj, dict):
            for k in sorted(obj):
                if k == "datasets":
                    continue
                v = obj[k]
                if k == "data" and isinstance(v, dict) and isinstance(v.get("name"), str):
                    names.setdefault(v["name"], f"d{len(names)}")
                refs(v)
        elif isinstance(obj, list):
            for v in obj:
                refs(v)

    refs(spec)

    def rename(obj):
        if isinstance(obj, dict):
            out = {k: rename(v) for k, v in obj.items() if k != "datasets"}
            if isinstance(obj.get("name"), str) and len(obj) == 1:
                out["name"] = names.get(obj["name"], obj["name"])
            return out
        if isinstance(obj, list):
            return [rename(v) for v in obj]
        return obj

    out = rename(spec)
    out["datasets"] = {names.get(k, k): v for k, v in spec.get("datasets", {}).items()}
    return out


def models(seed: int, n: int = 3, *, clipped: bool = False, extra: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    est = rng.uniform(0.15, 0.85, n)  # nothing clipped unless asked
    half = rng.uniform(0.01, 0.1, n)
    if clipped:
        est[0], half[0] = 0.98, 0.05
        est[-1], half[-1] = 0.01, 0.04
    frame = pd.DataFrame({"model": [f"m{i}" for i in range(n)], "estimate": est, "ci_low": est - half,
                          "ci_high": est + half, "se": half / 2})
    if extra:
        frame["tied"] = rng.random(n) < 0.5
        frame["group"] = ["a" if t else "b" for t in frame["tied"]]
    return frame


def differences(seed: int, n: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    est = rng.normal(0, 0.05, n)
    half = rng.uniform(0.01, 0.06, n)
    return pd.DataFrame({"label": [f"m{i} − m{i + 1}" for i in range(n)], "estimate": est, "ci_low": est - half,
                         "ci_high": est + half, "significant": np.abs(est) > half})


@pytest.fixture(autouse=True)
def fresh_templates():
    _template._TEMPLATES.clear()
    yield
    _template._TEMPLATES.clear()


CONFIDENCES = (0.95, 0.9, 0.99)
TITLES = (("Bench: mean score by model", "95% CI · CR2 t · 300 questions"), (None, None), ("Only a title", None))


@pytest.mark.parametrize("percent,clipped,extra", list(itertools.product((True, False), (False, True), (True, False))))
def test_models_spec_is_the_compiled_chart(percent, clipped, extra):
    for seed, confidence, (title, subtitle) in zip(range(6), CONFIDENCES * 2, TITLES * 2, strict=True):
        frame = models(seed, clipped=clipped, extra=extra)
        got = charts.models_spec(frame, percent=percent, confidence=confidence, title=title, subtitle=subtitle)
        want = compile_spec(charts.models_chart(frame, percent=percent, confidence=confidence, title=title,
                                                subtitle=subtitle))
        assert canonical(got) == canonical(want)
    assert len(_template._TEMPLATES) == 3  # one per set of empty titles: the numbers and the level reuse it


@pytest.mark.parametrize("percent", (True, False))
def test_differences_spec_is_the_compiled_chart(percent):
    for seed, confidence, paired, (title, subtitle) in zip(range(6), CONFIDENCES * 2, (True, False) * 3, TITLES * 2,
                                                           strict=True):
        frame = differences(seed)
        got = charts.differences_spec(frame, percent=percent, confidence=confidence, paired=paired, title=title,
                                      subtitle=subtitle)
        want = compile_spec(charts.differences_chart(frame, percent=percent, confidence=confidence, paired=paired,
                                                     title=title, subtitle=subtitle))
        assert canonical(got) == canonical(want)


def test_cluster_spec_is_the_compiled_chart():
    frame = pd.DataFrame({"cluster": ["x", "y", "z"], "n": [3, 4, 5], "share": [0.7, 0.5, -0.2]})
    for shares, subtitle in (([0.7, 0.5, -0.2], "95% CI"), ([0.6, 0.3, np.nan], "90% CI")):
        f = frame.assign(share=shares)
        got = charts.cluster_spec(f, title="Where a − b comes from", subtitle=subtitle)
        assert canonical(got) == canonical(compile_spec(charts.cluster_chart(f, title="Where a − b comes from",
                                                                             subtitle=subtitle)))


def test_a_new_shape_compiles_a_new_template():
    """A clipped end appearing changes the layout: never filled into the old template. More models change its
    height only, which the template fills in (one template for every number of models)."""
    for frame in (models(0, 3), models(1, 4), models(2, 4, clipped=True)):
        got = charts.models_spec(frame, title="t", subtitle="s")
        assert canonical(got) == canonical(compile_spec(charts.models_chart(frame, title="t", subtitle="s")))
    assert len(_template._TEMPLATES) == 2


@pytest.mark.parametrize("first", (1, 3, 8))
def test_one_template_serves_every_number_of_rows(first):
    """A template compiled for ``first`` models (or comparisons) gives, for every other count, the chart
    compiled for that count itself, with the workbench's titles and without (a first upload of a file with a
    new number of models compiles nothing)."""
    for title, subtitle in (("t", ""), ("t", "95% CI"), (None, None)):
        _template._TEMPLATES.clear()
        for n in (first, *range(1, 9)):
            for percent, extra in ((True, True), (False, False)):
                frame = models(n, n, extra=extra)
                got = charts.models_spec(frame, percent=percent, confidence=None, title=title, subtitle=subtitle)
                want = compile_spec(charts.models_chart(frame, percent=percent, confidence=None, title=title,
                                                        subtitle=subtitle))
                assert canonical(got) == canonical(want), (n, percent, extra, title, subtitle)
            frame = differences(n, n)
            got = charts.differences_spec(frame, confidence=None, title=title, subtitle=subtitle)
            want = compile_spec(charts.differences_chart(frame, confidence=None, title=title, subtitle=subtitle))
            assert canonical(got) == canonical(want), (n, title, subtitle)
        assert len(_template._TEMPLATES) == 3  # models twice (two sets of columns), differences once


def test_filled_specs_name_their_datasets_and_share_nothing():
    a = charts.models_spec(models(0), confidence=0.95, title="t", subtitle="95% CI")
    b = charts.models_spec(models(1), confidence=0.9, title="t", subtitle="90% CI")
    assert set(a["datasets"]) == {"models"} and a["data"] == {"name": "models"}
    assert a["datasets"]["models"] != b["datasets"]["models"]
    assert "95%" in str(a) and "90%" not in str(a) and "90%" in str(b) and "95%" not in str(b)
    b["layer"][0]["mark"]["type"] = "changed"  # a caller changing its copy leaves the template alone
    assert charts.models_spec(models(0), title="t", subtitle="s")["layer"][0]["mark"]["type"] != "changed"


def test_a_chart_without_its_level_names_no_level_and_stays_the_same_chart():
    """``confidence=None`` (the workbench's screen: the level is printed beside the chart) leaves the level out
    of the axis title; the template still gives the compiled chart, and two levels give one spec text."""
    import json

    for frame in (models(0), models(1)):
        got = charts.models_spec(frame, confidence=None, title="t")
        assert canonical(got) == canonical(compile_spec(charts.models_chart(frame, confidence=None, title="t")))
        assert "%" not in json.dumps(got["layer"][0]["encoding"]["x"]["title"])
    for frame in (differences(0), differences(1)):
        got = charts.differences_spec(frame, confidence=None, title="t")
        assert canonical(got) == canonical(compile_spec(charts.differences_chart(frame, confidence=None, title="t")))
    texts = {json.dumps({k: v for k, v in charts.models_spec(models(s), confidence=None, title="t").items()
                         if k != "datasets"}) for s in range(3)}
    assert len(texts) == 1  # new numbers: new data, the same spec
