"""Chapter 9's sentences against the numbers on screen, with the sliders swept to their extremes."""

import itertools

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import judge as lesson


@pytest.mark.parametrize(("sens", "spec", "labels", "bias"),
                         list(itertools.product([0.5, 0.99], [0.3, 0.99], [30, 240], [0.0, 0.3])))
def test_sentences_match_the_lab_and_panel(sens, spec, labels, bias):
    at = run_page("pages/judge.py", query={"judge_sens": repr(sens), "judge_spec": repr(spec),
                                           "judge_labels": str(labels), "judge_bias": repr(bias)})
    no_exceptions(at)
    captions = [c.value for c in at.caption]
    lab = lesson.coverage_lab(sens, spec, labels)
    assert lesson.coverage_sentence(lab) in captions
    panel = lesson.flip_panel(bias, labels)
    assert lesson.flip_sentence(panel) in captions
    assert any(m.value == lesson.budget_sentence(sens, spec) for m in at.markdown)
