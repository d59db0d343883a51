"""Chapter 2's sentences (both parts, pages/one_model.py and pages/small_n.py) against the numbers beside them, with the lab's controls swept to their extremes:
the sentence above the coverage chart quotes the table's coverages, names Wald's failures only when the
table has them, and words Wilson's width from the actual ratio; the quiz quotes the calculator."""

import itertools
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_app.content import load_content
from evalstats_core.lessons import one_model as lesson

SWEEP = list(itertools.product([3, 10, 1000], [None, 0.0, 0.02, 0.5, 1.0]))


def _pct(s: str) -> float:
    return float(s.rstrip("%")) / 100


@pytest.mark.parametrize(("n", "theta"), SWEEP)
def test_lab_sentence_matches_the_lab_table(n, theta):
    query = {"one_model_lab_n": str(n), "one_model_uniform": "1" if theta is None else "0"}
    if theta is not None:
        query["one_model_theta"] = repr(theta)
    at = run_page("pages/small_n.py", query=query)
    no_exceptions(at)
    table = next(t.value for t in at.table if "Actual coverage" in t.value.columns)
    sentence = next(m.value for m in at.markdown if m.value.startswith(f"At N = {n:,} with"))
    wald, wilson = table.loc["Wald (CLT)"], table.loc["Wilson"]
    assert f"interval contains the truth in {wald['Actual coverage']}" in sentence
    assert f"Wilson contains it in {wilson['Actual coverage']}" in sentence
    zero, outside = _pct(wald["Zero-width intervals"]), _pct(wald["Reaching outside [0, 1]"])
    assert ("zero width" in sentence.split("Wilson")[0]) == (zero > 0)
    assert ("reach past" in sentence) == (outside > 0)
    if zero > 0:
        assert f"{wald['Zero-width intervals']} of its intervals have zero width" in sentence
    w_wald, w_wilson = float(wald["Mean width"]), float(wilson["Mean width"])
    if w_wald == 0:
        assert "every Wald interval has zero width" in sentence
    else:
        ratio = w_wilson / w_wald
        m = re.search(r"intervals (\d+\.\d) times as wide as Wald's", sentence)
        if abs(ratio - 1) < 0.1 - 0.002:  # "about as wide" only when the widths are within 10%
            assert "about as wide as Wald's" in sentence
        elif ratio > 1.1 + 0.002:
            assert m and abs(float(m.group(1)) - ratio) < 0.06
        if "barely wider" in sentence or "about as wide" in sentence:
            assert abs(ratio - 1) < 0.1 + 0.002
    widths = table["Mean width"].astype(float)  # shown to 3 decimals: ties are possible
    if "pays with the widest" in sentence:
        assert widths["Clopper-Pearson"] == widths.max()
    else:
        assert widths["Clopper-Pearson"] <= widths.max()
        exact = lesson.small_n_lab(n, theta, reps=20_000, rng=1).frame.set_index("label")["mean_width"]
        assert exact.idxmax() != "Clopper-Pearson"


@pytest.mark.parametrize(("n", "theta"), SWEEP)
def test_arrivals_caption_counts_the_cores_misses(n, theta):
    frame = lesson.lab_intervals(n, theta, count=100, rng=1)
    for m in ("wald", "wilson"):
        rows = frame[frame["method"] == m]
        assert list(rows["misses"]) == list((~rows["hit"]).cumsum())
        assert ((rows["ci_low"] <= rows["truth"]) & (rows["truth"] <= rows["ci_high"])).tolist() == rows["hit"].tolist()


def test_no_static_note_claims_wilson_is_barely_wider():
    """The claim that contradicted N = 3 is gone from the prose; the computed sentence replaces it."""
    text = " ".join(t for slug in ("one_model", "small_n") for t in load_content(slug).sections.values())
    assert "barely wider" not in text


def test_quiz_quotes_the_calculators_interval():
    """The first quiz's 180/200 intervals are the calculator's, to the tenth of a point."""
    calc = lesson.ci_calculator(0.9, 200).set_index("method")
    quiz = load_content("one_model").quizzes[0].explanation
    for m in ("wald", "wilson"):
        lo, hi = (f"{100 * calc.loc[m, c]:.1f}%" for c in ("ci_low", "ci_high"))
        assert f"{lo} to {hi}" in quiz, (m, lo, hi)


def test_one_task_runs_and_their_sentence():
    """Seed 004's task run 12 times: draws are reproducible, scores stay in [0, 1] around the ability, and the
    sentence quotes this batch's range, mean and the average move since the previous batch."""
    import numpy as np

    a, b = lesson.one_task_runs(3), lesson.one_task_runs(3)
    assert a.equals(b)
    now, before = a[a["batch"] == "this batch"], a[a["batch"] == "previous batch"]
    assert len(now) == len(before) == 12 and now["score"].between(0, 1).all()
    assert now["mean"].iloc[0] == pytest.approx(now["score"].mean())
    assert before["score"].tolist() == lesson.one_task_runs(2).query("batch == 'this batch'")["score"].tolist()
    s = lesson.one_task_sentence(a)
    assert f"between {now['score'].min():.2f} and {now['score'].max():.2f}" in s
    assert f"their mean, {now['mean'].iloc[0]:.3f}," in s
    moved = np.abs(now["score"].to_numpy() - before["score"].to_numpy()).mean()
    assert f"moved by {moved * 100:.1f} points" in s
    assert ("above" in s) == (now["mean"].iloc[0] > 0.83)
    assert "previous batch" not in lesson.one_task_sentence(lesson.one_task_runs(1)) and "moved" not in lesson.one_task_sentence(lesson.one_task_runs(1))


def test_rerun_button_moves_every_dot():
    at = run_page("pages/one_model.py")
    first = next(m.value for m in at.caption if m.value.startswith("This time the 12 runs"))
    at.button(key="one_model_task_rerun").click().run()
    no_exceptions(at)
    assert at.number_input(key="one_model_task_draw").value == 2
    second = next(m.value for m in at.caption if m.value.startswith("This time the 12 runs"))
    assert second != first and "moved by" in second
    assert second == lesson.one_task_sentence(lesson.one_task_runs(2))


@pytest.mark.parametrize("p", [0.0, 0.3, 0.9, 1.0])
def test_sampling_grid_is_the_exact_binomial(p):
    """Each n's bars are Binomial(n, p) probabilities (scipy), all but a sliver of the mass, with density x
    width = probability; the Wald rule is p +/- 1.96 sqrt(p(1-p)/n)."""
    import math

    from scipy import stats

    bars, rules = lesson.sampling_grid(p)
    for n in (20, 500, 1000):
        rows = bars[bars["n"] == n]
        assert rows["prob"].to_numpy() == pytest.approx(stats.binom.pmf(rows["k"], n, p))
        assert rows["prob"].sum() > 0.98
        assert (rows["density"] * (rows["acc_hi"] - rows["acc_lo"])).to_numpy() == pytest.approx(rows["prob"].to_numpy())
        r = rules.set_index("n").loc[n]
        half = stats.norm.ppf(0.975) * math.sqrt(p * (1 - p) / n)
        assert (r["low"], r["high"]) == pytest.approx((p - half, p + half))


@pytest.mark.parametrize(("accuracy", "n"), [(0.9, 50), (0.6, 2000), (0.5, 999), (0.5, 7), (0.0, 1000)])
def test_sampling_chart_opens_at_the_calculators_n(accuracy, n):
    """The sampling chart's drag starts at the calculator's n (it started at 40 under a table at n = 50:
    "n = 40: ±9.3 points" beside Wald ±8.3), and the chart stays under Altair's 5,000-row limit."""
    from evalstats_core.charts import compile_spec
    from evalstats_core.charts import one_model as charts

    bars, rules = lesson.sampling_grid(accuracy, n=n)
    spec = compile_spec(charts.sampling_drag_chart(bars, rules, accuracy=accuracy, n=n))
    assert next(p["value"] for p in spec["params"] if p["name"] == "drag_n_dist") == min(n, 1000)
    assert len(bars) < 5000


def test_next_arrival_counts_up_wraps_and_pauses():
    from evalstats_app.page_keys import next_arrival

    assert next_arrival(20, playing=True) == 21
    assert next_arrival(100, playing=True) == 1  # round again
    assert next_arrival(57, playing=False) == 57
    assert next_arrival(0, playing=False) == 1 and next_arrival(500, playing=False) == 100


def test_play_shows_one_more_interval_per_tick():
    """Each run of the playing fragment sends the arrivals chart with one more interval shown (the timer
    itself runs in the browser test); paused, the count stays where it was."""
    import json

    def shown(at):
        for c in at.get("vega_lite_chart"):
            spec = json.loads(c.proto.spec)
            for p in spec.get("params", []):
                if p.get("name") == "shown":
                    return p["value"]
        raise AssertionError("no arrivals chart")

    at = run_page("pages/small_n.py")
    assert shown(at) == 20
    at.toggle(key="one_model_play").set_value(True).run()
    no_exceptions(at)
    first = shown(at)
    at.run()
    assert shown(at) == first + 1
    at.toggle(key="one_model_play").set_value(False).run()
    paused = shown(at)
    at.run()
    assert shown(at) == paused


def test_rerun_caption_counts_its_runs_in_words():
    """'1 run(s) of the same ten tasks' read badly: one run is said as one, more as a count."""
    steps = lesson.atlas_steps()
    one = lesson.rerun_history_frame((steps.mean,))
    assert lesson.rerun_sentence(one, steps).startswith("1 run of the ten tasks so far, mean 63.6%")
    three = lesson.rerun_history_frame(tuple(lesson.rerun_atlas(1, i).mean for i in (1, 2, 3)))
    text = lesson.rerun_sentence(three, steps)
    assert text.startswith("3 runs of the same ten tasks") and "run(s)" not in text
    assert f"{int(three['inside'].sum())} inside run 1's interval" in text
