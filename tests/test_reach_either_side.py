"""The analysis' warning that a pair too skewed for its questions has an unreliable end (issue 20, skew11) is given
whichever way the file's pair is listed: analysed without a baseline, the capped file's pair is B - A (B leads), and
its unreliable end is the upper one, read as the lower end of A - B; the warning is the one the analysis with
baseline B gives, and the workbench shows it above the verdicts."""

from __future__ import annotations

import pandas as pd
from test_gate_skewed import _capped_file

import evalstats_core as es
from evalstats_core.bounded_reach import REACH_START


def _analysis(a, b, **kw):
    frame = pd.DataFrame({"question": [f"q{i}" for i in range(a.size)], "A": a, "B": b})
    return es.analyze(es.question_scores(es.load(frame)), **kw)


def _notes(res) -> list[str]:
    return [w for w in res.warnings if w.startswith(REACH_START)]


def test_without_a_baseline_the_pair_listed_b_minus_a_still_warns_of_a_minus_bs_lower_end():
    a, b = _capped_file()
    free, based = _analysis(a, b), _analysis(a, b, baseline="B")
    assert [(c.model, c.baseline) for c in free.comparisons] == [("B", "A")]
    assert len(_notes(based)) == 1 and "to bound A - B from below" in _notes(based)[0]
    assert _notes(free) == _notes(based)
    swapped = _analysis(b, a)  # the same scores with the names swapped: the note names B - A
    assert len(_notes(swapped)) == 1 and "to bound B - A from below" in _notes(swapped)[0]


def test_a_pair_whose_cap_binds_on_neither_side_has_no_such_warning():
    import numpy as np
    from test_bounded_pair_cap import _continuous

    a, b = _continuous(np.random.default_rng(3), 1, 100, 0.7, 0.7, 0.95)
    assert _notes(_analysis(a[0], b[0])) == []


def test_the_workbench_shows_the_warning_above_the_verdicts():
    """The upload's page shows the analysis' note as a warning (it was in the analysis but on no surface of the
    page before); the example, whose pair is not capped, shows none."""
    from conftest import no_exceptions, run_page
    from test_page_analyze import _UNESCAPE, PAGE, inject

    a, b = _capped_file()
    note = _notes(_analysis(a, b))[0]
    at = run_page(PAGE)
    assert not [w for w in at.warning if "too skewed for" in w.value]
    data = pd.DataFrame({"question": [f"q{i}" for i in range(10)], "A": a, "B": b}).to_csv(index=False).encode()
    inject(at, "skewed_pair.csv", data)
    no_exceptions(at)
    shown = [_UNESCAPE.sub(r"\1", w.value) for w in at.warning if "too skewed for" in w.value]  # Markdown-escaped
    assert shown == [note[0].upper() + note[1:] + "."]
