"""Chapter 3's sentences against the numbers beside them, with the simulator's controls swept to their
extremes: an effective n below the number of clusters (a measured design effect above m) always comes with
the sentence that says why, and only then; an interval past 0% or 100% is shown clipped with its mark and
the sentence that quotes the computed ends, and only then."""

import itertools
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_app.content import load_content

SWEEP = list(itertools.product([5, 300], [1, 10, 40], [0.0, 0.9], [1, 2]))


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.parametrize(("k", "m", "icc", "seed"), SWEEP)
def test_simulator_sentences_match_its_numbers(k, m, icc, seed):
    at = run_page("pages/clustering.py", query={"clustering_k": str(k), "clustering_m": str(m),
                                                "clustering_icc": repr(icc), "clustering_seed": str(seed)})
    no_exceptions(at)
    texts = [x.value for x in at.markdown]
    deff_text, n_eff_text = _metric(at, "Design effect"), _metric(at, "Effective n")
    overshoot = [t for t in texts if t.startswith("The measured design effect,")]
    if deff_text == "undefined":
        assert not overshoot
    else:
        deff, n_eff = float(deff_text), float(n_eff_text.replace(",", ""))
        if m > 1 and deff > m + 0.005:
            assert len(overshoot) == 1 and f"The measured design effect, {deff_text}," in overshoot[0]
            assert f"is above m = {m}" in overshoot[0] and f"below the {k} clusters" in overshoot[0]
        else:
            assert not overshoot
        if n_eff < k - 0.5 and m > 1:  # the contradiction the issue found is always explained
            assert overshoot

    table = next(t.value for t in at.table if "95% interval" in t.value.columns)
    marked = [i for i in table.index if table.loc[i, "95% interval"].endswith("†")]
    dagger = [t for t in texts if t.startswith("†")]
    assert bool(marked) == bool(dagger)
    for shown in table["95% interval"]:
        lo, hi = (float(v) for v in re.findall(r"(-?\d+\.\d)%", shown))
        assert 0.0 <= lo <= hi <= 100.0  # nothing past the bounds is drawn
    for method in marked:
        assert f"the {method} interval (".lower() in dagger[0].lower()
        lo, hi = (float(v) for v in re.search(rf"{re.escape(method)} interval \((-?\d+\.\d)% to (-?\d+\.\d)%\)",
                                               dagger[0], re.I).groups())
        assert lo < 0 or hi > 100


def test_quiz_no_longer_says_never_below_the_clusters_without_the_formula_caveat():
    quiz = load_content("clustering").quizzes[0].explanation
    assert "By the formula it can never fall below" in quiz and "overshoot" in quiz


@pytest.mark.parametrize(("k", "m", "icc"), [("5", "40", "0.9"), ("300", "1", "0.0"), ("30", "10", "0.3")])
def test_interval_picture_beside_the_sliders(k, m, icc):
    """Issue 24: chapter 3 had no interval picture beside its sliders. The chart beside the cluster strip
    draws the table's three intervals (the core's numbers) and its sentence quotes them."""
    from test_chart_ticks import _specs

    from evalstats_core.lessons import clustering as lesson

    at = run_page("pages/clustering.py", query={"clustering_k": k, "clustering_m": m, "clustering_icc": icc})
    no_exceptions(at)
    spec = next(s for s in _specs(at) if "Accuracy with 95% interval" in str(s))
    values = next(v for v in spec["datasets"].values() if v and "shown_low" in v[0])
    sim = lesson.simulate_eval(int(k), int(m), float(icc), seed=lesson.DEFAULT_SEED)  # the page opens at the default seed
    assert [round(v["shown_low"], 6) for v in values] == [round(x, 6) for x in sim.intervals["shown_low"]]
    sentence = lesson.intervals_sentence(sim)
    assert any(c.value == sentence for c in at.caption)
    assert f"{sim.intervals['ci_low'].iloc[0]:.1%} to {sim.intervals['ci_high'].iloc[0]:.1%}" in sentence
