"""The shell in a real browser: direct links work on a fresh server, the sidebar is ours."""

from _pw import PAGE_TIMEOUT_MS, shot, wait_ready


def test_home_sidebar_lists_sections(server, page):
    """The home page shows the shared sidebar with Learn / Analyze / Reference, not Streamlit's own list."""
    page.goto(server + "/")
    wait_ready(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("LEARN").wait_for()
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0
    assert page.get_by_role("heading", name="evalstats").first.is_visible()
    shot(page, "home")


def test_chapter_url_opened_first_on_a_fresh_server(browser):
    """A chapter's own URL, the first request a new server sees, shows that chapter and our sidebar."""
    from conftest import streamlit_server

    with streamlit_server() as base:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.goto(base + "/clustering")
        wait_ready(page)
        page.get_by_role("heading", name="3 · Clustering").wait_for()
        sidebar = page.locator('[data-testid="stSidebar"]')
        for label in ("LEARN", "ANALYZE", "REFERENCE", "1 · The problem", "Analyze your results"):
            sidebar.get_by_text(label, exact=True).wait_for()
        assert page.locator('[data-testid="stSidebarNav"]').count() == 0  # Streamlit's own list is hidden
        shot(page, "fresh_server_clustering")
        context.close()
