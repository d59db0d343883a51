"""Chapter 5's sentences against the numbers beside them, with the controls swept to their extremes: the
MDE sentence quotes the metrics (and the paper's printed values only at its n = 198), the budget note
names the best K the metric shows and whole questions, and no raw ASCII formula reaches the page."""

import itertools
import json
import re

import pytest
from conftest import no_exceptions, run_page

SWEEP = list(itertools.product([(0.2, 0.2), (1.0, 1.0), (5.0, 0.2)], [1, 20], [20, 198, 2000],
                               [(200, True, 0.0), (20_000, False, 2.0), (2000, True, 20.0)]))


@pytest.mark.parametrize(("shape", "k", "mde_n", "budget"), SWEEP[::3] + [SWEEP[4]])
def test_sentences_match_the_numbers(shape, k, mde_n, budget):
    calls, capped, cost = budget
    at = run_page("pages/resampling.py", query={
        "resampling_alpha": repr(shape[0]), "resampling_beta": repr(shape[1]), "resampling_k": str(k),
        "resampling_mde_n": str(mde_n), "resampling_calls": str(calls), "resampling_capped": "1" if capped else "0",
        "resampling_cost_q": repr(cost)})
    no_exceptions(at)
    metric = {m.label: m.value for m in at.metric}
    texts = [m.value for m in at.markdown] + [i.value for i in at.info]
    mde = next(t for t in texts if "ten answers per question take the minimum detectable effect" in t)
    assert f"At n = {mde_n:,}," in mde
    assert f"from {metric['MDE at K = 1']} to {metric['MDE at K = 10']}" in mde
    assert f"a floor of {metric['Floor, K = ∞']}" in mde
    assert ("The paper prints 13.2% and 7.5%" in mde) == (mde_n == 198)

    note = next(t for t in texts if t.startswith(("Only ", "With no fixed cost", "K* =")))
    best = metric["Best answers per question"]  # "K = 4"
    if note.startswith("K* ="):
        assert f"is {best.split('= ')[1]}, with" in note
    elif note.startswith("Only "):
        assert f"{best} gives the smallest SE" in note
    else:
        assert best == "K = 1"
    assert not re.search(r"\d\.0 questions", note)

    page = " ".join(texts) + " ".join(c.value for c in at.caption)
    # LaTeX (\\sqrt{...}, \\sigma^2) is fine; ASCII formula text is not
    assert not re.search(r"(?<!\\)\bsqrt\(|(?<!\\)\bsigma\^2|E\[sigma", page)

    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    drag = next(p for p in spec["params"] if p["name"] == "drag_k")
    assert drag["value"] == k  # the curve's marker starts at the page's K
