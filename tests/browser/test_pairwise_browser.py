"""The practitioner's walk with pairwise preferences in Chromium: upload examples/pairwise_battles.tsv in the
workbench and see the ratings forest and the win-rate matrix drawn, with the core's numbers in the tables."""

from __future__ import annotations

from pathlib import Path

from _pw import SHOTS, wait_charts, wait_mounted, wait_ready

from evalstats_core.pairwise import pairwise_analysis
from evalstats_core.pairwise_data import load_battles

ROOT = Path(__file__).resolve().parents[2]
BATTLES = ROOT / "examples" / "pairwise_battles.tsv"
MODELS = ("Dreadnought", "Galleon", "Frigate", "Corvette")


def _chart_with(page, text: str) -> str:
    """A JavaScript list of the drawn charts whose SVG holds ``text`` (an axis title) and every model's name."""
    return (f"""Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]'))
        .filter(c => c.textContent.includes({text!r}) && {list(MODELS)!r}.every(m => c.textContent.includes(m)))""")


def test_upload_battles_and_see_ratings_and_win_rates(server, page):
    """After the upload: the Ratings, Neighbours and Win rates sections, a forest with every model and a win-rate
    matrix with every model, no exception; the leader's rating on the page is the core's."""
    page.set_viewport_size({"width": 1400, "height": 3400})
    page.goto(server + "/analyze")
    wait_ready(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(BATTLES))
    page.get_by_role("heading", name="Ratings").wait_for(timeout=60_000)
    wait_ready(page)
    page.get_by_role("heading", name="Win rates").wait_for()
    wait_charts(page, 2)
    wait_mounted(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    for title in ("Rating (Elo scale)", "against"):  # the forest's axis, the matrix's
        page.wait_for_function(f"() => {_chart_with(page, title)}.length >= 1")
    top = pairwise_analysis(load_battles([BATTLES]), n_boot=0).ratings[0]  # the fit (no bootstrap needed)
    page.get_by_text(f"{top.model} is rated highest at {top.rating:.1f}", exact=False).first.wait_for()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "pairwise_workbench.png"), full_page=True)
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()
        charts.nth(i).screenshot(path=str(SHOTS / f"pairwise_chart_{i}.png"))
