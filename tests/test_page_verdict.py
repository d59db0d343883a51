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


RHO_KEYS = {"MATH": "verdict_rho_math", "HumanEval": "verdict_rho_humaneval", "MGSM": "verdict_rho_mgsm"}


def rho_param(at, key):
    v = at.query_params.get(key)
    return None if v is None else float(v[0] if isinstance(v, list) else v)


def test_opens_on_the_papers_verdict():
    """Table 5's correlations, the paper's conclusion, 'unresolved' with chapter 7's power, Table 5's SEs."""
    at = run_page(PATH)
    no_exceptions(at)
    assert at.title[0].value == "8 · The verdict"
    for name, key in RHO_KEYS.items():
        assert at.slider(key=key).value == verdict.PAPER_RHO[name]
    table = at.table[0].value
    assert list(table["Verdict"]) == ["Galleon ahead", "unresolved", "unresolved"]
    assert list(table["Table 5 SE (pts)"]) == ["0.7", "2.1", "1.7"]
    steps = verdict.verdict_steps()
    final = steps[steps["step"] == "small_sample"].set_index("eval")
    assert list(table["Power for 3 pts"]) == [f"{p:.0%}" for p in final["power"]]
    text = text_of(at)
    assert "Only MATH is resolved; HumanEval and MGSM are unresolved: their intervals hold 0" in text
    assert " noise" not in text.split("### The verdict")[1].split("### Connections")[0]
    assert f"164 questions have {final.loc['HumanEval', 'power']:.0%} power to resolve a real 3-point gap" in text
    assert "the unpaired SE of the difference is 0.96% and at ρ = 0.50 the paired one is 0.68%" in text
    assert "(+1.2, +3.8) points" in text
    assert "Changed since chapter 1 under '4 · + small-sample t': **MGSM**." in text
    assert "Table 5 prints 0.50 for MATH, 0.64 for HumanEval and 0.37 for MGSM" in text
    assert "never printed" not in text
    assert len(at.get("vega_lite_chart")) == 1


@pytest.mark.parametrize("label", LABELS)
def test_each_step_shows_its_rows(label):
    at = run_page(PATH)
    at.select_slider(key="verdict_step").set_value(label).run()
    no_exceptions(at)
    steps = verdict.verdict_steps()
    expect = steps[steps["label"] == label]
    assert list(at.table[0].value["Verdict"]) == list(expect["verdict"])
    assert chart_rows(at) == 3 * (LABELS.index(label) + 1)
    written = at.query_params.get("verdict_step")
    if label == LABELS[-1]:  # the default stays out of the URL
        assert written is None
    else:
        assert written in (label, [label])


def test_one_benchmarks_rho_moves_only_its_row():
    """The issue's case: HumanEval at 0.64 must not move MGSM (one slider drove all three and turned MGSM
    'Dreadnought ahead'); HumanEval at 0.9 resolves HumanEval alone."""
    at = run_page(PATH)
    at.slider(key="verdict_rho_humaneval").set_value(0.9).run()
    no_exceptions(at)
    table = at.table[0].value
    assert list(table["Verdict"]) == ["Galleon ahead", "Dreadnought ahead", "unresolved"]
    assert rho_param(at, "verdict_rho_humaneval") == 0.9
    assert rho_param(at, "verdict_rho_mgsm") is None  # still Table 5's: out of the URL


def test_all_high_rhos_resolve_everything():
    at = run_page(PATH)
    for key in RHO_KEYS.values():
        at.slider(key=key).set_value(0.9)
    at.run()
    no_exceptions(at)
    assert list(at.table[0].value["Verdict"]) == ["Galleon ahead", "Dreadnought ahead", "Dreadnought ahead"]
    assert "All three gaps are resolved at these correlations." in text_of(at)


def test_a_link_reopens_the_scenario():
    at = run_page(PATH, query={"verdict_rho_math": "0.0", "verdict_rho_humaneval": "0.0", "verdict_rho_mgsm": "0.0",
                               "verdict_step": LABELS[1]})
    no_exceptions(at)
    assert at.slider(key="verdict_rho_mgsm").value == 0.0
    assert at.select_slider(key="verdict_step").value == LABELS[1]
    # unpaired = paired at rho 0: nothing changes since chapter 1
    assert "every verdict is still chapter 1's" in text_of(at)


def test_a_bad_link_is_clamped_not_crashed():
    at = run_page(PATH, query={"verdict_rho_mgsm": "7", "verdict_step": "nonsense"})
    no_exceptions(at)
    assert at.slider(key="verdict_rho_mgsm").value == 0.95
    assert at.select_slider(key="verdict_step").value == LABELS[-1]
