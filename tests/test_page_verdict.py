"""Chapter 8 page (pages/verdict.py) through AppTest: both controls by key, the worked numbers, the URL."""

import pytest
from conftest import no_exceptions, run_page

from evalstats_core.lessons import verdict

PATH = "pages/verdict.py"
LABELS = [s.label for s in verdict.STEPS]


def chart_rows(at) -> int:
    """Rows of the largest dataset the page sent with its chart (Streamlit ships them as Arrow)."""
    import pyarrow as pa

    proto = at.get("vega_lite_chart")[0].proto
    return max(pa.ipc.open_stream(d.data.data).read_all().num_rows for d in proto.datasets)


def text_of(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    parts += [t.value.to_string() for t in at.table]
    return "\n".join(parts)


def test_opens_on_the_papers_verdict():
    at = run_page(PATH)
    no_exceptions(at)
    assert at.title[0].value == "8 · The verdict"
    table = at.table[0].value
    assert list(table["Verdict"]) == ["Galleon ahead", "could be noise", "could be noise"]
    assert table.loc["MGSM", "Interval"] == "(−5.8, +0.4)"
    text = text_of(at)
    assert "Only MATH is a real difference; HumanEval and MGSM are noise." in text
    assert "the unpaired SE of the difference is 0.96% and at ρ = 0.50 the paired one is 0.68%" in text
    assert "(+1.2, +3.8) points" in text
    assert "Changed since chapter 1 under '4 · + small-sample t': **MGSM**." in text
    assert len(at.get("vega_lite_chart")) == 1


@pytest.mark.parametrize("label", LABELS)
def test_each_step_shows_its_rows(label):
    at = run_page(PATH)
    at.select_slider(key="verdict_step").set_value(label).run()
    no_exceptions(at)
    steps = verdict.verdict_steps(0.5)
    expect = steps[steps["label"] == label]
    assert list(at.table[0].value["Verdict"]) == list(expect["verdict"])
    assert chart_rows(at) == 3 * (LABELS.index(label) + 1)
    written = at.query_params.get("verdict_step")
    if label == LABELS[-1]:  # the default stays out of the URL
        assert written is None
    else:
        assert written in (label, [label])


def test_rho_moves_the_verdicts_and_the_url():
    at = run_page(PATH)
    at.slider(key="verdict_rho").set_value(0.9).run()
    no_exceptions(at)
    assert list(at.table[0].value["Verdict"]) == ["Galleon ahead", "Dreadnought ahead", "Dreadnought ahead"]
    assert "All three gaps are real differences at this correlation." in text_of(at)
    assert float(at.query_params["verdict_rho"][0] if isinstance(at.query_params["verdict_rho"], list)
                 else at.query_params["verdict_rho"]) == 0.9


def test_a_link_reopens_the_scenario():
    at = run_page(PATH, query={"verdict_rho": "0.0", "verdict_step": LABELS[1]})
    no_exceptions(at)
    assert at.slider(key="verdict_rho").value == 0.0
    assert at.select_slider(key="verdict_step").value == LABELS[1]
    # unpaired = paired at rho 0: nothing changes since chapter 1
    assert "every verdict is still chapter 1's" in text_of(at)


def test_a_bad_link_is_clamped_not_crashed():
    at = run_page(PATH, query={"verdict_rho": "7", "verdict_step": "nonsense"})
    no_exceptions(at)
    assert at.slider(key="verdict_rho").value == 0.95
    assert at.select_slider(key="verdict_step").value == LABELS[-1]
