"""Chapter 1's sentences against the numbers beside them, with the super-population controls swept to
their extremes: the chart's sentence quotes the three metrics and says 'only' only when reruns on the same
questions really spread less."""

import itertools

import pytest
from conftest import no_exceptions, run_page


@pytest.mark.parametrize(("n", "share", "seed"), list(itertools.product(["20", "1000"], ["0.0", "0.5", "1.0"], ["1", "7"])))
def test_demo_sentence_matches_the_metrics(n, share, seed):
    at = run_page("pages/problem.py", query={"problem_n": n, "problem_share": share, "problem_seed": seed})
    no_exceptions(at)
    metric = {m.label: m.value for m in at.metric}
    fresh, same = metric["Spread, new questions each run"], metric["Spread, same questions each run"]
    caption = next(c.value for c in at.caption if c.value.startswith(f"With {n} questions"))
    assert f"spread by {fresh} (formula: {metric['SE from the formula']})" in caption
    assert same in caption
    as_number = {k: float(v.rstrip("%")) for k, v in (("fresh", fresh), ("same", same))}
    if "spread by only" in caption:
        assert as_number["same"] < as_number["fresh"]
    else:
        assert "about as much" in caption and as_number["same"] >= 0.9 * as_number["fresh"] - 0.01
    if share == "0.0":
        assert "spread by only" not in caption  # no question variance: the two reruns are the same kind
