"""The reference page in a real browser: formulas render, chapter links work, no chapter footer."""

from _pw import shot, wait_ready


def test_reference_page_renders_formulas_and_numbers(server, page):
    """Opening /reference shows the DROP figures, KaTeX formulas and the BibTeX blocks."""
    page.set_viewport_size({"width": 1400, "height": 7000})  # Streamlit scrolls inside; a tall view shows all
    page.goto(server + "/reference")
    wait_ready(page)
    page.locator(".katex").first.wait_for()
    page.locator('[data-testid="stMetricValue"]').nth(4).wait_for()
    assert page.locator('[data-testid="stMetricValue"]').all_inner_texts() == ["0.34", "0.8", "0.44", "1.34", "3.05×"]
    page.locator(".katex-display").nth(12).wait_for(state="attached")  # one st.latex per formula
    page.get_by_text("@article{cameron2015practitioner").wait_for(state="attached")
    page.wait_for_timeout(500)
    # no cheat-sheet formula fills its card's column to the edge (the df card was clipped at 1400 px)
    full = page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid="stColumn"] .katex-display'))
        .map(k => [k.textContent.slice(0, 30), Math.round(k.querySelector('.katex-html').getBoundingClientRect().width),
                   Math.round(k.closest('[data-testid="stColumn"]').getBoundingClientRect().width)])
        .filter(([, inner, col]) => inner >= col - 2)""")
    assert not full, full
    shot(page, "reference")


def test_reference_chapter_link_opens_power(server, page):
    """The cheat sheet's link to the power chapter opens that page."""
    page.goto(server + "/reference")
    wait_ready(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("link", name="7 · Power calculator").first.click()
    page.wait_for_url("**/power")
    wait_ready(page)
    page.get_by_role("heading", name="7 · Power calculator").first.wait_for()
