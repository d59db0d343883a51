"""Presenter mode (``?present=1``) and the print stylesheet: static CSS and one static script, no user text.

``presenting()`` says whether the mode is on (the URL, or switched on earlier in the session);
``styles()`` draws the print stylesheet always and, in the mode, the presenter CSS, the script that moves
one section per key press and the exit button; ``toggle()`` is the sidebar switch's callback.
"""

from __future__ import annotations

import streamlit as st

__all__ = ["PRESENT_WIDGET", "presenting", "styles", "toggle"]

_PRESENT = "_evalstats_present"          # the mode, kept across page switches within the session
PRESENT_WIDGET = "evalstats_present"    # the sidebar toggle
_PRESENT_EXIT = "evalstats_present_exit"  # the button that leaves the mode (the sidebar is hidden then)

_PRINT_CSS = """<style>
/* Display formulas: never clipped at the top (tall fractions), and on a phone a long one wraps at its
   relations and operators, then scrolls sideways rather than being cut off. */
[data-testid="stMain"] .katex-display { overflow-y: visible; padding-top: 0.25em; }
@media (max-width: 640px) {
  [data-testid="stMain"] .katex-display { overflow-x: auto; overflow-y: hidden; padding-bottom: 0.2em; }
  [data-testid="stMain"] .katex-display > .katex { white-space: normal; }
  /* charts of side-by-side panels keep their panels' width: they scroll sideways instead of being cut */
  [data-testid="stMain"] [data-testid="stVegaLiteChart"] { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
  /* tables in smaller type with narrow cells, so chapter 8's eight columns fit 390 px ("Verdict" and "Power" were
     cut off); a table still wider scrolls sideways instead of being clipped */
  [data-testid="stMain"] [data-testid="stTable"] { overflow-x: auto; }
  [data-testid="stMain"] [data-testid="stTable"] table { font-size: 0.7rem; }
  [data-testid="stMain"] [data-testid="stTable"] th, [data-testid="stMain"] [data-testid="stTable"] td {
    padding: 0.25rem 0.15rem; }
}
@media print {
  @page { margin: 12mm 11mm; }
  html { font-size: 13px !important; }
  [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
  [data-testid="stToolbar"], [data-testid="stDecoration"], [data-testid="stStatusWidget"],
  [data-testid="stElementToolbar"], [data-testid="stButton"], [data-testid="stDownloadButton"],
  [data-testid="stPageLink"], [data-testid="stBaseButton-headerNoPadding"], .stButton, .stDownloadButton,
  .st-key-evalstats_present_exit, .st-key-evalstats_present_js, .st-key-evalstats_try_it,
  [class*="st-key-noprint_"] { display: none !important; }
  html, body, .stApp, [data-testid="stApp"], [data-testid="stAppViewContainer"], [data-testid="stMain"],
  [data-testid="stMainBlockContainer"] {
    height: auto !important; min-height: 0 !important; overflow: visible !important; position: static !important;
  }
  .stApp, [data-testid="stApp"], [data-testid="stAppViewContainer"], [data-testid="stMain"] { background: #fff !important; }
  [data-testid="stMain"] * { color: #111 !important; }
  [data-testid="stMainBlockContainer"] { max-width: none !important; padding: 0 !important; }
  .katex-display { overflow: visible !important; }
  .vega-bindings, [data-testid="stVegaLiteChart"] details { display: none !important; }
  [data-testid="stVegaLiteChart"] { zoom: 0.72; }
  .katex-display > .katex { white-space: normal !important; }
  .katex-display > .katex > .katex-html { display: block; max-width: 100%; }
  [data-testid="stHorizontalBlock"] { flex-wrap: wrap !important; }
  [data-testid="stColumn"] { min-width: 9rem !important; }
  h1, h2, h3, h4 { break-after: avoid; page-break-after: avoid; }
  /* a slider prints as its label and its value, not as a track and a knob */
  [data-testid="stSlider"] [data-testid="stSliderTickBar"],
  [data-testid="stSlider"] [role="group"] > div > div:first-child { display: none !important; }
  [data-testid="stSlider"] [role="group"] > div { height: auto !important; background: none !important; }
  [data-testid="stSlider"] [role="group"] > div > div[data-rac] {
    position: static !important; transform: none !important; display: inline-block !important; width: auto !important;
    height: auto !important; background: none !important; border: 0 !important; box-shadow: none !important;
    margin-right: 1.5em; }
  [data-testid="stSlider"] [data-testid="stSliderThumbValue"] { position: static !important; font-weight: 600; }
  /* a quiz's options stay on one page with their question's box */
  [data-testid="stSlider"], [data-testid="stRadio"], [class*="st-key-"][class*="_quiz"][class*="_box"] {
    break-inside: avoid; page-break-inside: avoid; }
  [data-testid="stVegaLiteChart"], [data-testid="stAlert"], .katex-display, [data-testid="stMetric"],
  [data-testid="stExpander"], [data-testid="stTable"], [data-testid="stDataFrame"], pre, li {
    break-inside: avoid; page-break-inside: avoid;
  }
}
</style>"""

_PRESENT_CSS = """<style>
html { font-size: 22px; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stSidebarCollapseButton"],
[data-testid="stExpandSidebarButton"], [data-testid="stHeader"] { display: none !important; }
[data-testid="stMain"]:focus, [data-testid="stMain"]:focus-visible,
[data-testid="stAppViewContainer"]:focus, [data-testid="stAppViewContainer"]:focus-visible { outline: none; }
/* Streamlit rings the focused scroll region with a sticky ::before (a grey 4 px box-shadow) once a key is
   pressed after a click on the page: on a projector that is a grey frame over the slide */
[data-testid="stMain"]::before, [data-testid="stAppViewContainer"]::before { box-shadow: none !important; outline: none !important; }
[data-testid="stMain"] h1, [data-testid="stMain"] h2, [data-testid="stMain"] h3 { scroll-margin-top: 1.2rem; }
[data-testid="stMain"] [data-testid="stElementContainer"]:has(h2),
[data-testid="stMain"] [data-testid="stElementContainer"]:has(h3) { margin-top: 2.5rem; }
[data-testid="stMainBlockContainer"] { max-width: 1280px; margin: 0 auto; padding-top: 2rem; }
/* display formulas at the large type: never clipped; a long one wraps at its operators, then scrolls */
[data-testid="stMain"] .katex-display { overflow-x: auto; overflow-y: visible; padding: 0.3em 0; }
[data-testid="stMain"] .katex-display > .katex { white-space: normal; }
/* charts laid out at 1/1.3 of the column and zoomed back: every text in them grows with the type */
[data-testid="stMain"] [data-testid="stVegaLiteChart"] { zoom: 1.3; max-width: calc(100% / 1.3); }
/* side-by-side columns holding a chart, a formula or a table stack, each at the full width */
[data-testid="stMain"] [data-testid="stHorizontalBlock"]:has([data-testid="stVegaLiteChart"], .katex-display,
  [data-testid="stTable"]) { flex-direction: column !important; }
[data-testid="stMain"] [data-testid="stHorizontalBlock"]:has([data-testid="stVegaLiteChart"], .katex-display,
  [data-testid="stTable"]) > [data-testid="stColumn"] { width: 100% !important; flex: 1 1 auto !important; }
/* no downloads on a projector */
[data-testid="stMain"] [data-testid="stDownloadButton"], [data-testid="stMain"] .stDownloadButton { display: none !important; }
.st-key-evalstats_present_exit { position: fixed; top: 0.6rem; right: 1rem; z-index: 1000000; width: auto !important; }
/* the exit button floats over the slide's right edge at 1280 px: faint until the pointer comes near it */
.st-key-evalstats_present_exit { opacity: 0.35; transition: opacity 0.2s; }
.st-key-evalstats_present_exit:hover, .st-key-evalstats_present_exit:focus-within { opacity: 1; }
.st-key-evalstats_present_js { display: none !important; }
@media (max-width: 640px) { .st-key-evalstats_present_exit { top: auto; bottom: 0.6rem; } }
@media print { [data-testid="stMain"] [data-testid="stElementContainer"]:has(h2),
  [data-testid="stMain"] [data-testid="stElementContainer"]:has(h3) { margin-top: 0; } }
</style>"""

# Next / previous on PageDown / PageUp, ArrowRight / ArrowLeft and n / p (not while a widget has the focus).
# "Next" goes to the next heading when it is on this screen below its top fifth; otherwise it moves one
# screen on (less a margin, so no line is skipped) and stops at a heading it would pass. "Previous" mirrors it. So every
# block of a long section passes the screen. Registered once per browser tab; it acts only while the exit
# button is on the page.
_PRESENT_JS = """<script>
(() => {
  if (window.__evalstatsPresenter) return;
  window.__evalstatsPresenter = true;
  const doc = window.parent && window.parent.document ? window.parent.document : document;
  const active = () => doc.querySelector('.st-key-evalstats_present_exit') !== null;
  const scroller = () => {
    for (const sel of ['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]']) {
      const el = doc.querySelector(sel);
      if (el && el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== 'visible') return el;
    }
    return doc.scrollingElement;
  };
  const headings = () => Array.from(doc.querySelectorAll(
      '[data-testid="stMain"] h1, [data-testid="stMain"] h2, [data-testid="stMain"] h3'))
    .filter(h => !h.closest('[data-testid="stExpander"]') && h.getClientRects().length > 0);
  const TOP = 20;  // px kept above a heading brought to the top
  // The speaker notes (pages/notes.py) open in another window of this browser follow the slide: after each scroll
  // this tab says which page it shows and the heading at the top of its screen (the notes' FOLLOW_JS listens).
  const channel = 'BroadcastChannel' in window ? new BroadcastChannel('evalstats_notes') : null;
  let told = '', timer = 0;
  const tell = () => {
    if (!channel || !active()) return;
    const hs = headings().filter(h => h.getBoundingClientRect().top <= window.innerHeight * 0.3);
    const title = hs.length ? hs[hs.length - 1].textContent.trim() : '';
    const slug = (window.parent || window).location.pathname.split('/').pop();
    if (slug + '|' + title === told) return;
    told = slug + '|' + title;
    channel.postMessage({slug, title});
  };
  doc.addEventListener('scroll', () => { clearTimeout(timer); timer = setTimeout(tell, 250); }, true);
  setInterval(tell, 1000);  // a page switched within this tab, or a notes window opened after the last scroll
  if (channel) channel.onmessage = (ev) => { if (ev.data && ev.data.ask) { told = ''; tell(); } };
  const step = (dir) => {
    const box = scroller();
    const view = box === doc.scrollingElement ? window.innerHeight : box.clientHeight;
    const origin = box === doc.scrollingElement ? 0 : box.getBoundingClientRect().top;
    const screen = Math.max(100, Math.round(view * 0.85));
    const tops = headings().map(h => h.getBoundingClientRect().top - origin - TOP);
    let by;
    if (dir > 0) {
      // a heading already in the top fifth of the screen is not worth a press (the title on arrival)
      const next = tops.filter(t => t > Math.max(60, view * 0.2));
      by = next.length && next[0] <= screen ? next[0] : screen;
    } else {
      const prev = tops.filter(t => t < -60);
      const last = prev.length ? prev[prev.length - 1] : null;
      by = last !== null && last >= -screen ? last : -screen;
    }
    const before = box.scrollTop;
    box.scrollTop = before + by;
    return box.scrollTop !== before;
  };
  window.__evalstatsStep = step;
  const NEXT = ['PageDown', 'ArrowRight', 'n'], PREV = ['PageUp', 'ArrowLeft', 'p'];
  doc.addEventListener('keydown', (ev) => {
    if (!active() || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (t && t.closest && t.closest('input, textarea, select, [contenteditable="true"], [role="slider"], '
                                    + '[role="radiogroup"], [role="combobox"], [role="listbox"]')) return;
    const dir = NEXT.includes(ev.key) ? 1 : PREV.includes(ev.key) ? -1 : 0;
    if (dir !== 0) { ev.preventDefault(); step(dir); }
  }, true);
})();
</script>"""


def presenting() -> bool:
    """Whether presenter mode is on: ``?present=1`` in the URL, or switched on earlier in the session."""
    raw = st.query_params.get("present")
    if raw is not None:
        st.session_state[_PRESENT] = raw.lower() in ("1", "true", "yes", "on")
    return bool(st.session_state.get(_PRESENT, False))


def _set_present(on: bool) -> None:
    st.session_state[_PRESENT] = on
    if on:
        st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]


def toggle() -> None:
    _set_present(bool(st.session_state.get(PRESENT_WIDGET)))


def styles() -> None:
    """The print stylesheet always; presenter CSS, script and exit button when the mode is on."""
    st.html(_PRINT_CSS)
    if presenting():
        if st.query_params.get("present") != "1":
            st.query_params["present"] = "1"  # a page reached by a link keeps the mode in its URL
        st.html(_PRESENT_CSS)
        with st.container(key="evalstats_present_js"):
            st.html(_PRESENT_JS, unsafe_allow_javascript=True)
        st.button("Leave presenter mode", key=_PRESENT_EXIT, on_click=_set_present, args=(False,),
                  icon=":material/close_fullscreen:")
