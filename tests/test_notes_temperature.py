"""Chapter 6's sentences against the numbers beside them, with the controls swept to their extremes: the
limits sentence says the score 'stays' exactly when T = 1 and T -> 0 give the same mean on the page, quotes
the Var(x) the metrics show, and says 'grows' only when it grows; the histogram caption's end shares are
the core's."""

import itertools
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import temperature as lesson

SWEEP = ([("paper1", {}), ("paper2", {})]
         + [("uniform", {"temperature_range": r}) for r in ("0.0,1.0", "0.6,0.9", "0.0,0.4", "0.49,0.51")]
         + [("beta", {"temperature_alpha": a, "temperature_beta": b}) for a, b in (("0.2", "5.0"), ("5.0", "5.0"), ("0.2", "0.2"))])


@pytest.mark.parametrize(("kind", "extra", "t"), [(k, e, t) for (k, e), t in itertools.product(SWEEP, ["0.0", "0.5", "1.0"])])
def test_limits_sentence_matches_the_metrics(kind, extra, t):
    at = run_page("pages/temperature.py", query={"temperature_dist": kind, "temperature_t": t, **extra})
    no_exceptions(at)
    if len(at.error):
        return
    notice = next(i.value for i in at.info if "from T = 1 to T → 0" in i.value)
    sentence = next(p for p in notice.split("\n\n") if "from T = 1 to T → 0" in p)  # the computed paragraph
    box = next(m for m in at.metric if m.label == "Var(x) at T → 0")
    var_t0, mean_t0 = box.value, box.proto.delta.removeprefix("mean ")
    assert f"to {var_t0}" in sentence
    m = re.search(r"moves from ([\d.]+%) to ([\d.]+%)|stays at ([\d.]+%)", sentence)
    assert m
    if m.group(3):  # stays: T -> 0 keeps the T = 1 mean the page shows
        assert m.group(3) == mean_t0 and "measures a different quantity" not in sentence
    else:
        assert m.group(2) == mean_t0 and "measures a different quantity" in sentence
    if t == "1.0":  # the score metric is the T = 1 mean
        score = next(x for x in at.metric if x.label.startswith("Eval score at")).value
        assert (m.group(3) or m.group(1)) == score
    grows = re.search(r"Var\(x\) grows ([\d.]+) times, from ([\d.]+) to ([\d.]+)", sentence)
    if grows:
        assert float(grows.group(1)) >= 1 and float(grows.group(3)) >= float(grows.group(2)) - 1e-4
    else:
        assert "Var(x) shrinks" in sentence


def test_sentence_follows_the_core_for_both_paper_examples():
    """U[0, 1]: the mean stays at 50% and Var(x) triples; U[1/3, 1]: the mean moves 66.7% -> 75.0%, Var(x) x5.06."""
    u = lesson.limits_sentence(lesson.temperature_view("paper1", 0.5))
    assert "stays at 50.0%" in u and "grows 3.00 times" in u
    v = lesson.limits_sentence(lesson.temperature_view("paper2", 0.5))
    assert "moves from 66.7% to 75.0%" in v and "grows 5.06 times" in v
