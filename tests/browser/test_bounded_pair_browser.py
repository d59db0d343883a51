"""The workbench in a real browser on a pair of partial-credit scores near 100% (issue 20, skew9): the Methods
paragraph the page shows says what the interval is (Tango on 0.9 of the quasi-binomial counts and Hall's
skewness-corrected t), and the comparison's ends are the API's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from _pw import SHOTS, wait_charts, wait_ready
from scipy.special import ndtr, ndtri

import evalstats_core as es


def _ceiling_pair(path) -> tuple[np.ndarray, np.ndarray]:
    """One file of the audit's partial credit (8 tests, latent variance 0.8, correlation 0.5) at 0.95 vs 0.97."""
    rng = np.random.default_rng(7)
    z1, z2 = rng.standard_normal(164), rng.standard_normal(164)
    out = []
    for p, e in ((0.95, z1), (0.97, 0.5 * z1 + math.sqrt(0.75) * z2)):
        out.append(rng.binomial(8, ndtr(float(ndtri(p) * math.sqrt(1.8)) + math.sqrt(0.8) * e)) / 8.0)
    pd.DataFrame({"question": [f"q{i}" for i in range(164)], "A": out[0], "B": out[1]}).to_csv(path, index=False)
    return out[0], out[1]


def _upload(page, server: str, path) -> None:
    """Open the workbench, upload ``path`` and wait until its file name, the run's end and both forests show."""
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_text(path.name, exact=False).first.wait_for()
    wait_ready(page)
    wait_charts(page, 2)


def test_the_methods_paragraph_on_the_page_names_the_pair_rule(server, page, tmp_path):
    path = tmp_path / "ceiling_pair.csv"
    a, b = _ceiling_pair(path)
    c = es.compare(a, b)
    assert c.interval == "t-tango"
    _upload(page, server, path)
    methods = page.get_by_text("Hall's skewness-corrected t", exact=False).first
    methods.wait_for()
    text = " ".join(methods.inner_text().split())
    assert ("for a pair (fully from 0.12), to Tango's score interval on 0.9 of the quasi-binomial discordance "
            "counts and Hall's skewness-corrected t") in text
    methods.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    methods.screenshot(path=str(SHOTS / "analyze_methods_bounded_pair.png"))
    body = " ".join(page.locator('[data-testid="stMain"]').inner_text().split())
    for end in (c.ci_low, c.ci_high):  # the comparison's ends in points, as the page prints them
        assert f"{abs(100 * end):.1f}" in body
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_pair_too_skewed_for_its_questions_shows_why_its_lower_end_is_unreliable(server, page, tmp_path):
    """Ten questions of continuous scores at 95% against 97% (skew11's capped file): the workbench shows the
    analysis' warning that the pair's lower end is unreliable, with the API's numbers, and no traceback."""
    import pandas as pd
    from test_gate_skewed import _capped_file

    from evalstats_core.bounded_reach import reach_of, reach_sentence
    from evalstats_core.sums import file_sums

    a, b = _capped_file()
    path = tmp_path / "skewed_pair.csv"
    pd.DataFrame({"question": [f"q{i}" for i in range(10)], "A": a, "B": b}).to_csv(path, index=False)
    c = es.compare(a, b)
    note = reach_sentence(reach_of(file_sums(es.question_scores(es.load(path))), "A", "B", c.ci_low), "A", "B")
    _upload(page, server, path)
    shown = page.get_by_text("too skewed for 10 shared questions", exact=False).first
    shown.wait_for()
    shown.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    shown.screenshot(path=str(SHOTS / "analyze_skewed_pair_warning.png"))
    text = " ".join(shown.inner_text().split())
    assert note.split(": the skewness")[1][:60] in text  # the numbers after the colon, as the API words them
    assert f"{100 * c.ci_low:+.1f} points" in text
    assert page.locator('[data-testid="stException"]').count() == 0
