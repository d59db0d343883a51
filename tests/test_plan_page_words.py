"""The workbench's plan says what its numbers are (issue 20): the questions needed are for the target power on
average over files like this one, the MDE holds if omega2 is as estimated, and the power calculator it links
to takes omega2 as known."""

from __future__ import annotations

from conftest import no_exceptions, run_page
from test_page_analyze import text_of


def test_the_plan_section_says_what_its_power_means():
    at = run_page("pages/analyze.py")
    no_exceptions(at)
    text = text_of(at)
    assert "That is 80% power on average over files like this one" in text
    assert "if ω² is what this file estimates" in text
    assert "as known (Eq. 9 with z): its questions needed are those of this estimate alone" in text
