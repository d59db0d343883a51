"""Chapter 7's sentences against the numbers beside them, with the controls swept to their extremes: the
questions-needed sentence quotes the metric and names the smallest listed eval that large (or says none
is); the effect sentence's counts are the core's and 'more than'/'fewer than' the largest eval follows them;
the MDE sentence quotes the eval size and the power in the table."""

import itertools
import math
import re

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import power as lesson
from evalstats_core.power import sample_size

SWEEP = list(itertools.product(["0.001", "0.03", "0.5"], ["0.0", "0.01", "1.0"], ["1.0", "100.0"],
                               ["0.5", "0.99"], ["2", "10000000"]))


@pytest.mark.parametrize(("delta", "omega2", "deff", "power", "n"), SWEEP[::4] + [SWEEP[5]])
def test_power_sentences_match_the_numbers(delta, omega2, deff, power, n):
    at = run_page("pages/power.py", query={"power_delta": delta, "power_omega2": omega2, "power_deff": deff,
                                           "power_power": power, "power_n": n, "power_sigma2_a": "0.0"})
    no_exceptions(at)
    texts = [m.value for m in at.markdown] + [i.value for i in at.info] + [e.value for e in at.error]
    if len(at.error):  # a refused scenario says why and shows no numbers to contradict
        assert not [m for m in at.metric if m.label == "Questions needed"]
        return
    needed = next(m.value for m in at.metric if m.label == "Questions needed")
    sentence_n = next(t for t in texts if t.startswith("To detect a true difference"))
    assert f"you need {needed} questions" in sentence_n
    need = math.inf if needed == "infinitely many" else int(needed.replace(",", ""))
    # issue 40: a clustered eval (MGSM, DROP) counts at its size over its design effect, as chapter 8 has it
    fits = [name for name, size in sorted(lesson.EVALS, key=lambda e: lesson.effective_size(*e))
            if lesson.effective_size(name, size) >= need]
    if fits:
        assert f"The smallest common eval that large is {fits[0]}" in sentence_n
    else:
        assert "That is more than" in sentence_n

    effect = next(t for t in texts if "Under your settings, at " in t)
    kw = dict(omega2=float(deff) * float(omega2), sigma2_a=0.0, sigma2_b=0.0, alpha=0.05, power=float(power))
    largest = lesson.LARGEST_EVAL[1]
    for pts, count in re.findall(r"(\d+) points? needs? ([\d,]+|infinitely many) questions", effect):
        core = float(sample_size(int(pts) / 100, **kw))
        assert count == lesson.fmt_n(core)
        side = re.search(rf"{pts} points? needs? [^(]*\((more|fewer) than", effect).group(1)
        assert (side == "more") == (core > largest)

    sentence_mde = next(t for t in texts if t.startswith("With ") and "reliably detect" in t)
    assert f"With {int(n):,} questions" in sentence_mde
