"""The shared frame of every page: sidebar, chapter header and footer, quizzes, URL state, seeded
simulations and charts with downloads.

A chapter page reads top to bottom::

    content = shell.page_setup("one_model")          # sidebar, title, promise
    state = shell.UrlState({"one_model_n": 100, ...})  # widgets start from the URL or defaults
    st.markdown(content["intro"])
    n = st.slider("Questions", 10, 1000, key="one_model_n")   # no value=: it comes from state
    result = cached_core_call(n)
    shell.chart(builder(result), "One sentence saying what the chart shows.", name="ci_width")
    shell.notice(content["notice"])
    state.sync()                                       # mirror the settings into the URL
    shell.chapter_footer(content)                      # quiz + previous/next links
"""

from __future__ import annotations

import hashlib
import math
import pickle
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st
from streamlit import dataframe_util

from evalstats_core._memory import GIVE_BACK_SECONDS, give_back
from evalstats_core.charts import compile_spec, to_svg
from evalstats_core.charts.slide import slide_png
from evalstats_core.escape import elide_spec
from evalstats_core.vocabulary import minus

from . import course
from .chapters import FORWARD, PAGES, TRY_IT, available, neighbours, page_by_slug
from .content import Content, load_content
from .course import optional
from .notes import parts
from .presenter import PRESENT_WIDGET, presenting, styles
from .presenter import toggle as toggle_present
from .quiz import progress, quiz, quiz_score, remember, reset_all_button

__all__ = [
    "page_setup", "sidebar", "prose", "notes_link", "deeper", "LAND", "site_root", "notice", "quiz", "quizzes", "quiz_score", "try_it", "chapter_footer", "progress",
    "optional", "presenting", "UrlState", "seed_control", "chart", "whole_labels", "settings_line", "download_table", "pct", "minus",
    "with_param", "shared",
]

SECTIONS = ("Learn", "Analyze", "Reference", "Teach")


def sidebar() -> None:
    """The one shared sidebar: Home, then Learn / Analyze / Reference / Teach, as st.page_link; then the
    presenter-mode switch."""
    with st.sidebar:
        st.page_link("app.py", label="evalstats home", icon=":material/home:")
        pages = available()
        for section in SECTIONS:
            in_section = [p for p in pages if p.section == section]
            if in_section:
                st.caption(section.upper())
            for page in in_section:
                st.page_link(page.path, label=page.title, icon=page.icon)
        st.divider()
        st.session_state[PRESENT_WIDGET] = presenting()
        st.toggle("Presenter mode", key=PRESENT_WIDGET, on_change=toggle_present,
                  help="One section per screen in large type; move with the arrow keys, PageUp/PageDown or "
                       "n/p. The link gets ?present=1.")


@st.cache_resource(show_spinner=False)
def _memory_returner() -> threading.Thread:
    """One thread per server that hands freed memory back to the system every
    :data:`~evalstats_core._memory.GIVE_BACK_SECONDS` (:func:`~evalstats_core._memory.give_back`): when a session
    ends, Streamlit clears its caches, but glibc's heap and pyarrow's pool would keep the freed pages of its uploads
    for the process's next use (issue 46: +426-457 MB after three sessions' 40 MB uploads)."""

    def loop() -> None:
        while True:
            time.sleep(GIVE_BACK_SECONDS)
            give_back()

    thread = threading.Thread(target=loop, name="evalstats-give-back", daemon=True)
    thread.start()
    return thread


def page_setup(slug: str | None, *, layout: str = "wide") -> Content | None:
    """Configure the page, draw the sidebar and (for a chapter) its title and one-line promise."""
    _memory_returner()
    if slug in FORWARD:  # a link made before the page's sections moved: open the page that holds them
        target, keys = FORWARD[slug]
        if any(key in st.query_params for key in keys):
            st.switch_page(page_by_slug(target).path, query_params=st.query_params.to_dict())
    title = page_by_slug(slug).title if slug else "evalstats"
    # An emoji favicon is drawn by the page itself (a data: URL); a ":material/..." page icon would be
    # fetched from the internet (tests/browser/test_docs_browser.py checks that no request leaves the host).
    st.set_page_config(page_title=f"{title} · evalstats" if slug else "evalstats",
                       page_icon="📊", layout=layout)
    st.session_state[_STATES] = []  # this run's UrlStates register here (chart exports name the settings)
    st.session_state[_PAGE] = slug
    st.session_state[_EXPORTS] = {}
    styles()
    sidebar()
    remember()  # the quiz cookie: reader id and answers, so a reload keeps them
    if slug is None:
        return None
    visited = progress()["visited"]
    if slug not in visited:
        visited.append(slug)
    content = load_content(slug)
    st.title(content.title)
    if content.promise:
        st.markdown(f"*{content.promise}*")
    course.header(content)  # learning objectives and the measured time on screen
    _land(slug)
    return content


#: The URL key of the heading a lesson-plan link lands on (``?at=<anchor>``).
LAND = "at"


def _plan_anchors(slug: str) -> set[str]:
    """The headings of ``slug`` that the lesson plan links to: the only values ``?at=`` may take."""
    meta = load_content("teach").meta
    return {s["anchor"] for s in (*meta.get("step", []), *meta.get("second", [])) if s["slug"] == slug and s["anchor"]}


def _land(slug: str) -> None:
    """A lesson-plan link's ``?at=<anchor>``: scroll to that heading once the page has stopped growing (charts
    take their height after the first paint, so an early scroll lands a screen short). The anchor must be one
    the plan names for this page, so no text from the URL reaches the script; the key is then dropped."""
    anchor = st.query_params.get(LAND)
    if anchor is None:
        return
    del st.query_params[LAND]
    if anchor in _plan_anchors(slug):
        with st.container(key="evalstats_land"):
            st.html(_LAND_JS.replace("ANCHOR", anchor), unsafe_allow_javascript=True)


# Poll every 150 ms until the heading is there and the page's height has held for 3 polls (or 9 s), then
# bring the heading to the top.
_LAND_JS = """<style>.st-key-evalstats_land{display:none !important}</style><script>
(() => {
  const doc = window.parent && window.parent.document ? window.parent.document : document;
  let last = -1, still = 0, tries = 0;
  const tick = () => {
    tries += 1;
    const el = doc.getElementById('ANCHOR');
    const box = doc.querySelector('[data-testid="stMain"]');
    const height = box ? box.scrollHeight : 0;
    still = el && height === last ? still + 1 : 0;
    last = height;
    if (el && (still >= 3 || tries >= 60)) { el.scrollIntoView({block: 'start'}); return; }
    if (tries < 60) setTimeout(tick, 150);
  };
  setTimeout(tick, 150);
})();
</script>"""


def site_root() -> str:
    """The app's address up to its pages (``http://host:8501/``), from the request; "" when unknown."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - no request context (bare script run)
        url = ""
    return url.rsplit("/", 1)[0] + "/" if "://" in url else ""


_DISPLAY = re.compile(r"^\$\$(.+?)\$\$\s*$", re.MULTILINE | re.DOTALL)


def prose(markdown: str, *, full: bool = False) -> None:
    """Chapter Markdown with its display formulas drawn full size and centred.

    A formula written alone on its lines as ``$$ ... $$`` would render inline-sized and left-aligned
    inside ``st.markdown``; each such block is drawn with ``st.latex`` between the text around it.

    In presenter mode the screen is a slide: headings (the plan's links land on them) and display formulas
    stay projected, and the paragraphs are left out; the teacher reads them in the notes view, a second
    window (``notes?notes_chapter=<slug>``, :mod:`evalstats_app.notes`, linked by :func:`notes_link`). ``full``
    draws everything even then (text inside a collapsed expander is not projected).
    """
    if presenting() and not full:
        for kind, text in parts(markdown):
            if kind == "formula":
                st.latex(text)
            elif kind == "heading":
                st.markdown(text)
        return
    for i, part in enumerate(_DISPLAY.split(markdown)):
        if i % 2:
            st.latex(part.strip())
        elif part.strip():
            st.markdown(part.strip())


def notes_link(slug: str, *, label: str = "Speaker notes", where: Any = None, key: str = "") -> None:
    """A link to chapter ``slug``'s speaker notes (the notes view), opened in a new window: Streamlit opens
    a Markdown link to another address in a new tab, which the teacher drags to their own screen. ``where``:
    a column or container to draw in (default: the page); ``key`` tells apart several links to one chapter."""
    # keyed evalstats_teacher_*: the teacher's, not the class's (pacing does not count it as projected reading)
    with (where or st).container(key=f"evalstats_teacher_notes_{key or slug}"):
        st.caption(f":material/speaker_notes: [{label}](notes?notes_chapter={slug}) opens in a new window: drag "
                   "it to your own screen, not the projector.")


def deeper(content: Content, name: str, label: str) -> None:
    """A "Go deeper" expander holding the section ``name`` (a ``deeper_*`` section of the content file).

    Derivations live here, off the main path; the reading time on the home page counts only the
    main path (sections whose names do not start with ``deeper``).
    """
    with st.expander(f"Go deeper (optional): {label}", icon=":material/school:"):
        prose(content[name], full=True)


def notice(markdown: str, *, title: str = "What to notice") -> None:
    """The "what to notice" box that closes each lesson section."""
    st.info(f"**{title}**\n\n{markdown}", icon=":material/visibility:")


def quizzes(content: Content) -> None:
    """Every quiz of ``content`` and, under them, the score so far (e.g. "Score: 2 of 3 correct")."""
    for i, q in enumerate(content.quizzes):
        quiz(q, key=f"{content.slug}_quiz{i}")
    if content.quizzes:
        total = len(content.quizzes)
        answered, correct = quiz_score(content.slug, total)
        if answered == 0:
            text = f"Score: {total} question{'s' if total > 1 else ''} to answer."
        else:
            text = f"Score: {correct} of {total} correct" + (
                "." if answered == total else f" ({total - answered} still to answer).")
        st.caption(f":material/scoreboard: {text}")
        reset_all_button(key=f"{content.slug}_quiz_reset_all")


def try_it(slug: str) -> None:
    """The chapter's "Try it on data" link: a bundled example in the workbench with matching settings
    (chapters.TRY_IT); nothing when the chapter has no entry or the workbench is not there."""
    entry = TRY_IT.get(slug)
    if entry is None or page_by_slug("analyze") not in available():
        return
    with st.container(border=True, key="evalstats_try_it"):
        st.page_link("pages/analyze.py", label="Try it on data", icon=":material/science:",
                     query_params=entry.query_params())
        st.caption(entry.reason)


def chapter_footer(content: Content) -> None:
    """"Check yourself" (quizzes and the score), "Do it in Python", "Try it on data", then links to the
    previous and next chapters."""
    if presenting():  # below the fold: the teacher's notes for this chapter, in a second window
        notes_link(content.slug, label="Speaker notes for this chapter")
    if content.quizzes:
        st.subheader("Check yourself", anchor="check-yourself")
    quizzes(content)
    course.python_block(content)
    try_it(content.slug)
    prev, nxt = neighbours(content.slug)
    left, right = st.columns(2)
    pages = available()
    if prev is not None and prev in pages:
        left.page_link(prev.path, label=f"← {prev.title}")
    if nxt is not None and nxt in pages:
        right.page_link(nxt.path, label=f"{nxt.title} →")
    elif nxt is None and page_by_slug("analyze") in pages:
        right.page_link("pages/analyze.py", label="Analyze your own results →")


# ---------------------------------------------------------------------------------------------
# URL state: every setting is mirrored into st.query_params so a link reopens the same scenario.

_WRITTEN = "_evalstats_url_written"
_STATES = "_evalstats_url_states"  # this run's UrlStates (reset by page_setup)
_PAGE = "_evalstats_page"          # this run's page slug (None on home)
_EXPORTS = "_evalstats_exports"    # this run's chart exports: SVG by name, PNG by name + ".png" (callables; reset by page_setup)


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return ",".join(_format(v) for v in value)
    return str(value)


def _parse(raw: str, default: Any) -> Any:
    """Parse ``raw`` to the type of ``default``; raise ValueError when it does not fit."""
    if isinstance(default, bool):
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    if isinstance(default, int):
        v = float(raw)
        if math.isnan(v):
            raise ValueError(raw)
        return v if math.isinf(v) else int(v)  # an infinity is clamped by the caller (or refused)
    if isinstance(default, float):
        v = float(raw)
        if not math.isfinite(v):
            raise ValueError(raw)
        return v
    if isinstance(default, (tuple, list)):
        items = raw.split(",") if raw else []
        if default and len(items) != len(default) and isinstance(default, tuple):
            raise ValueError(raw)
        proto = default[0] if default else ""
        return type(default)(_parse(item, proto) for item in items)
    return raw


class UrlState:
    """Start the page's widgets from the URL (or defaults) and mirror them back into it.

    Parameters
    ----------
    defaults : mapping of widget key -> default value (its type is the parse type).
    bounds : optional mapping key -> (low, high); URL values are clamped into it.
    choices : optional mapping key -> allowed values; a URL value outside them is ignored.

    Widgets must be created with ``key=`` and *without* ``value=``/``index=``: they take their value
    from ``st.session_state``, which this class fills. A URL value that does not parse is ignored.
    """

    def __init__(self, defaults: Mapping[str, Any], *, bounds: Mapping[str, tuple] | None = None,
                 choices: Mapping[str, Sequence] | None = None) -> None:
        self.defaults = dict(defaults)
        bounds = bounds or {}
        choices = choices or {}
        written: dict = st.session_state.get(_WRITTEN, {})
        self.notes: list[str] = []
        for key, default in self.defaults.items():
            raw = st.query_params.get(key)
            if raw is not None and (written.get(key) != raw or key not in st.session_state):
                try:
                    value = _parse(raw, default)
                except (TypeError, ValueError, OverflowError):
                    value = None
                if value is not None and key in bounds:
                    lo, hi = bounds[key]
                    if isinstance(value, tuple):
                        clamped = tuple(min(max(v, lo), hi) for v in value)
                    else:
                        clamped = min(max(value, lo), hi)
                        if isinstance(default, int) and not isinstance(default, bool):
                            clamped = int(clamped)
                    if clamped != value:
                        self.notes.append(f"{key}={raw[:40]} is outside {_format(lo)}–{_format(hi)}; "
                                          f"{_format(clamped)} is used")
                    value = clamped
                elif isinstance(value, float) and math.isinf(value):
                    value = None
                if value is not None and key in choices and value not in choices[key]:
                    value = None
                if value is not None:
                    st.session_state[key] = value
                    continue
                self.notes.append(f"{key}={raw[:40]} is not a valid value; the default {_format(default)} is used")
            if key not in st.session_state:
                st.session_state[key] = default
        if self.notes:  # a visible word, never a traceback, for a hand-edited or hostile link
            inert = re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&])", r"\\\1", "; ".join(self.notes))
            st.caption(":material/link: The link's settings were adjusted: " + inert + ".")
        states = st.session_state.get(_STATES)
        if isinstance(states, list):
            states.append(self)

    def get(self, key: str) -> Any:
        return st.session_state.get(key, self.defaults[key])

    def sync(self) -> None:
        """Write the settings that differ from their defaults into the URL (and drop the others)."""
        written = dict(st.session_state.get(_WRITTEN, {}))
        for key, default in self.defaults.items():
            value = st.session_state.get(key, default)
            if value != default:
                text = _format(value)
                written[key] = text
                if st.query_params.get(key) != text:
                    st.query_params[key] = text
            else:
                written.pop(key, None)
                if key in st.query_params:
                    del st.query_params[key]
        st.session_state[_WRITTEN] = written


def pct(x: float, digits: int = 1, *, typographic: bool = False, signed: bool = False) -> str:
    """``0.636`` -> ``"63.6%"``; ``typographic`` writes negatives with a true minus sign (U+2212), ``signed``
    puts a plus on positives (``"+2.5%"``)."""
    text = f"{x:{'+' if signed else ''}.{digits}%}"
    return minus(text) if typographic else text


def seed_control(key: str, *, label: str = "Seed") -> int:
    """A visible seed and a button that draws a fresh one (seed + 1). Same seed, same picture."""
    def bump() -> None:
        st.session_state[key] = int(st.session_state.get(key, 0)) + 1

    left, right = st.columns([2, 1], vertical_alignment="bottom")
    seed = left.number_input(label, min_value=0, max_value=2**31 - 1, step=1, key=key)
    right.button("Rerun simulation", key=f"{key}_rerun", on_click=bump, icon=":material/casino:")
    return int(seed)


# ---------------------------------------------------------------------------------------------
# Charts and tables with downloads.

def settings_line() -> str:
    """The current page's settings that differ from their defaults, for a chart's exported subtitle:
    ``"evalstats · 2b · Accuracy at small N · n = 300, acc = 0.8"`` (keys without their page's prefix)."""
    slug = st.session_state.get(_PAGE)
    head = "evalstats" + (f" · {page_by_slug(slug).title}" if slug else "")
    items = []
    for state in st.session_state.get(_STATES) or ():
        for key, default in state.defaults.items():
            value = state.get(key)
            if value != default:
                short = next((key.removeprefix(f"{p.slug}_") for p in PAGES if key.startswith(f"{p.slug}_")), key)
                items.append(f"{short} = {_format(value)}")
    return f"{head} · " + (", ".join(items) if items else "default settings")


def _first_sentence(text: str) -> str:
    plain = re.sub(r"[*_`$\\]", "", text).strip()
    match = re.match(r"(.+?[.!?])(\s|$)", plain, re.DOTALL)
    return " ".join((match.group(1) if match else plain).split())


#: A chart's datasets as the Arrow bytes Streamlit sends, by a digest of their rows: shared by every session of
#: the server and bounded (entries and bytes). Streamlit turns each dataset of a spec into a pandas frame and
#: then Arrow on every rerun (about 2-5 ms a dataset, 30 ms a rerun of chapter 2b); a slider step that shows a
#: chart already drawn (by this session or another) now pays a digest of its rows instead (0.01-0.5 ms).
_ARROW: OrderedDict[bytes, bytes] = OrderedDict()
_ARROW_LOCK = threading.Lock()
_ARROW_MAX_ENTRIES, _ARROW_MAX_BYTES = 2048, 64 * 2**20
_arrow_bytes = [0]


def _arrow(rows: list) -> bytes:
    """``dataframe_util.convert_anything_to_arrow_bytes(rows)`` (what ``st.vega_lite_chart`` does with a named
    dataset), from the bounded memo :data:`_ARROW` when the same rows were converted before."""
    # the digest of the rows' pickle (dumped only, never loaded: ten times faster than JSON on floats); equal
    # bytes mean equal rows, so a digest never stands for other rows
    digest = hashlib.blake2b(pickle.dumps(rows, protocol=5), digest_size=20).digest()
    with _ARROW_LOCK:
        data = _ARROW.get(digest)
        if data is not None:
            _ARROW.move_to_end(digest)
            return data
    data = dataframe_util.convert_anything_to_arrow_bytes(rows)
    with _ARROW_LOCK:
        if digest not in _ARROW:
            _ARROW[digest] = data
            _arrow_bytes[0] += len(data)
        while _ARROW and (len(_ARROW) > _ARROW_MAX_ENTRIES or _arrow_bytes[0] > _ARROW_MAX_BYTES):
            _arrow_bytes[0] -= len(_ARROW.popitem(last=False)[1])
    return data


def _with_arrow_datasets(spec: dict) -> dict:
    """A shallow copy of ``spec`` whose tabular datasets (lists of row dicts) are Arrow bytes (:func:`_arrow`);
    Streamlit passes bytes through as they are. Anything else (GeoJSON, an empty list) is left to Streamlit."""
    datasets = spec.get("datasets")
    if not isinstance(datasets, dict) or not datasets:
        return spec
    out = {}
    for name, rows in datasets.items():
        tabular = isinstance(rows, list) and rows and all(type(r) is dict for r in rows[:1]) \
            and not (rows[0].get("type") == "Feature" and "geometry" in rows[0])
        out[name] = _arrow(rows) if tabular else rows
    return {**spec, "datasets": out}


def chart(altair_chart: Any, summary: str, *, name: str, key: str | None = None, title: str | None = None,
          width: str = "stretch", subtitle: str | None = None, export: Callable[[], Any] | None = None) -> None:
    """Show an Altair chart, its one-sentence summary, and PNG (16:9 slide, 1920 x 1080) / SVG downloads.

    ``width="content"`` keeps the chart's own width (a square scatter whose axes must share one scale).

    The downloads carry ``title`` (default: the chart's own title, else the summary's first sentence)
    and ``subtitle`` (default: the chart's own, else a line naming the page's settings, :func:`settings_line`).
    They draw ``export()`` when given (a chart that names its settings inside it, built on click), else the
    chart shown. The PNG and SVG are rendered by vl-convert only when a download button is clicked
    (Streamlit calls the ``data`` callable on click), so moving a slider never pays for the conversion.
    """

    # Compiling an Altair chart costs tens of ms (and validating it more), on every rerun. Pages pass
    # the dict that a cached function compiled once (charts.compile_spec); an Altair chart still works.
    spec = compile_spec(altair_chart)
    st.vega_lite_chart(spec=_with_arrow_datasets(whole_labels(spec)), width=width, key=key)
    st.caption(summary)
    own = spec.get("title")
    own = own.get("text") if isinstance(own, dict) else own
    own = " ".join(own) if isinstance(own, list) else own
    heading = title or own or _first_sentence(summary)
    own_sub = spec.get("title", {}).get("subtitle") if isinstance(spec.get("title"), dict) else None
    # the method line the chart carries on screen is the export's subtitle (else the page's settings)
    subtitle = subtitle or (" ".join(own_sub) if isinstance(own_sub, list) else own_sub) or settings_line()

    def drawn() -> tuple[Any, str, str]:  # a long user name elided as the reports elide it (issue 46)
        chart_spec, (head, sub) = elide_spec(spec if export is None else compile_spec(export()), (heading, subtitle))
        return chart_spec, head, sub

    def svg() -> str:
        chart_spec, head, sub = drawn()
        return to_svg(chart_spec, title=head, subtitle=sub)

    def png() -> bytes:
        chart_spec, head, sub = drawn()
        return slide_png(chart_spec, title=head, subtitle=sub)

    exports = st.session_state.get(_EXPORTS)
    if isinstance(exports, dict):
        exports[name] = svg  # this run's SVG exports by chart name (the tests render one)
        exports[f"{name}.png"] = png
    # one row of buttons: a horizontal container is one message to the browser, columns are one per column
    # plus one (a rerun of a page with several charts sends and redraws every one of them)
    row = st.container(horizontal=True)
    # the PNG is sized for a 16:9 slide (1920 x 1080, outputs' preset charts.slide), not the on-screen banner
    row.download_button("PNG", data=png,
                        file_name=f"{name}.png", mime="image/png", key=f"{name}_png", icon=":material/download:",
                        on_click="ignore")
    row.download_button("SVG", data=svg, file_name=f"{name}.svg", mime="image/svg+xml", key=f"{name}_svg",
                        icon=":material/download:", on_click="ignore")


def shared(*, max_entries: int, show_spinner: bool | str = False) -> Callable:
    """A chapter's cache: ``st.cache_resource(max_entries=..., show_spinner=...)``, one result per setting for every
    session of the server, handed to each as the same objects.

    ``st.cache_data`` gives each hit a fresh unpickled copy: 3-8 ms a cached call on chapter 2b, on every slider
    step of every student (issue 44.4). The chapters' results (the core's frames and result objects, compiled
    chart specs) are only read by the pages, never changed in place (a page that needs a changed frame makes one:
    ``.assign``, :func:`with_param`), so one shared copy is safe.
    """
    return st.cache_resource(max_entries=max_entries, show_spinner=show_spinner)


def whole_labels(spec: dict) -> dict:
    """A compiled chart ``spec`` whose axis labels, legend labels and legend titles are never cut short with an
    ellipsis (Vega's default limits cut "Clopper-Pe…", "block boots…", "Deviations from the …" in presenter
    mode's large type) and whose category labels are never dropped as crowded (chapter 2a's Q2, Q4...); a
    chart's own limit or overlap rule still wins; a text mark without a colour takes the page's. A shallow copy:
    the cached spec is not changed (the PNG/SVG exports draw on white and keep their own colours)."""
    config = dict(spec.get("config") or {})
    config["axis"] = {"labelLimit": 0, **(config.get("axis") or {})}
    config["axisDiscrete"] = {"labelOverlap": False, **(config.get("axisDiscrete") or {})}
    config["legend"] = {"labelLimit": 0, "titleLimit": 0, **(config.get("legend") or {})}
    # a text mark with no colour of its own takes the page's text colour (SVG's currentColor), so it reads on the
    # dark theme too (it was black on black: chapter 8's benchmark names, chapter 3's coverage labels)
    config["text"] = {"color": "currentColor", **(config.get("text") or {})}
    return {**spec, "config": config}


def with_param(spec: dict, name: str, value: Any) -> dict:
    """A copy of a compiled chart ``spec`` whose top-level parameter ``name`` starts at ``value`` (e.g. how
    many of the coverage lab's intervals are shown while it plays)."""
    params = [dict(p, value=value) if p.get("name") == name else p for p in spec.get("params", [])]
    if not any(p.get("name") == name for p in params):
        raise KeyError(f"the chart has no parameter {name!r}")
    return {**spec, "params": params}


def download_table(label: str, data: Callable[[], str | bytes] | str | bytes, *, file_name: str,
                   mime: str, key: str) -> None:
    """A download button for an export (Markdown, LaTeX, CSV, JSON)."""
    st.download_button(label, data=data, file_name=file_name, mime=mime, key=key,
                       icon=":material/download:", on_click="ignore")
