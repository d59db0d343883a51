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

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from .chapters import available, neighbours, page_by_slug
from .content import Content, Quiz, load_content

__all__ = [
    "page_setup", "sidebar", "prose", "deeper", "notice", "quiz", "chapter_footer", "UrlState", "seed_control", "chart",
    "download_table", "pct",
]

SECTIONS = ("Learn", "Analyze", "Reference")


def sidebar() -> None:
    """The one shared sidebar: Home, then Learn / Analyze / Reference, as st.page_link."""
    with st.sidebar:
        st.page_link("app.py", label="evalstats home", icon=":material/home:")
        pages = available()
        for section in SECTIONS:
            in_section = [p for p in pages if p.section == section]
            if in_section:
                st.caption(section.upper())
            for page in in_section:
                st.page_link(page.path, label=page.title, icon=page.icon)


def page_setup(slug: str | None, *, layout: str = "wide") -> Content | None:
    """Configure the page, draw the sidebar and (for a chapter) its title and one-line promise."""
    title = page_by_slug(slug).title if slug else "evalstats"
    # An emoji favicon is drawn by the page itself (a data: URL); a ":material/..." page icon would be
    # fetched from the internet (tests/browser/test_docs_browser.py checks that no request leaves the host).
    st.set_page_config(page_title=f"{title} · evalstats" if slug else "evalstats",
                       page_icon="📊", layout=layout)
    sidebar()
    if slug is None:
        return None
    content = load_content(slug)
    st.title(content.title)
    if content.promise:
        st.markdown(f"*{content.promise}*")
    return content


_DISPLAY = re.compile(r"^\$\$(.+?)\$\$\s*$", re.MULTILINE | re.DOTALL)


def prose(markdown: str) -> None:
    """Chapter Markdown with its display formulas drawn full size and centred.

    A formula written alone on its lines as ``$$ ... $$`` would render inline-sized and left-aligned
    inside ``st.markdown``; each such block is drawn with ``st.latex`` between the text around it.
    """
    parts = _DISPLAY.split(markdown)
    for i, part in enumerate(parts):
        if i % 2:
            st.latex(part.strip())
        elif part.strip():
            st.markdown(part.strip())


def deeper(content: Content, name: str, label: str) -> None:
    """A "Go deeper" expander holding the section ``name`` (a ``deeper_*`` section of the content file).

    Derivations live here, off the main path; the reading time on the home page counts only the
    main path (sections whose names do not start with ``deeper``).
    """
    with st.expander(f"Go deeper: {label}", icon=":material/school:"):
        prose(content[name])


def notice(markdown: str, *, title: str = "What to notice") -> None:
    """The "what to notice" box that closes each lesson section."""
    st.info(f"**{title}**\n\n{markdown}", icon=":material/visibility:")


def quiz(q: Quiz, *, key: str) -> None:
    """A multiple-choice question; the answer and its explanation are revealed on submit."""
    with st.container(border=True):
        st.markdown(f"**Quiz.** {q.question}")
        choice = st.radio("Your answer", list(q.options), index=None, key=f"{key}_choice",
                          label_visibility="collapsed")
        if st.button("Check my answer", key=f"{key}_check"):
            st.session_state[f"{key}_done"] = True
        if st.session_state.get(f"{key}_done"):
            if choice is None:
                st.warning("Pick an answer first.")
            elif list(q.options).index(choice) == q.answer:
                st.success(f"Correct. {q.explanation}")
            else:
                st.error(f"Not quite: the answer is **{q.options[q.answer]}**. {q.explanation}")


def chapter_footer(content: Content) -> None:
    """Quizzes, then links to the previous and next chapters."""
    for i, q in enumerate(content.quizzes):
        quiz(q, key=f"{content.slug}_quiz{i}")
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


def pct(x: float, digits: int = 1, *, typographic: bool = False) -> str:
    """``0.636`` -> ``"63.6%"``; ``typographic`` writes negatives with a true minus sign (U+2212)."""
    text = f"{x:.{digits}%}"
    return text.replace("-", "\u2212") if typographic else text


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

def chart(altair_chart: Any, summary: str, *, name: str, key: str | None = None) -> None:
    """Show an Altair chart, its one-sentence summary, and PNG / SVG downloads.

    The PNG and SVG are rendered by vl-convert only when a download button is clicked (Streamlit
    calls the ``data`` callable on click), so moving a slider never pays for the conversion.
    """
    from evalstats_core.charts import compile_spec, to_png, to_svg

    # Compiling an Altair chart costs tens of ms (and validating it more), on every rerun. Pages pass
    # the dict that a cached function compiled once (charts.compile_spec); an Altair chart still works.
    spec = compile_spec(altair_chart)
    st.vega_lite_chart(spec=spec, width="stretch", key=key)
    st.caption(summary)
    a, b, _ = st.columns([1, 1, 4])
    a.download_button("PNG", data=lambda: to_png(spec), file_name=f"{name}.png",
                      mime="image/png", key=f"{name}_png", icon=":material/download:", on_click="ignore")
    b.download_button("SVG", data=lambda: to_svg(spec), file_name=f"{name}.svg",
                      mime="image/svg+xml", key=f"{name}_svg", icon=":material/download:",
                      on_click="ignore")


def download_table(label: str, data: Callable[[], str | bytes] | str | bytes, *, file_name: str,
                   mime: str, key: str) -> None:
    """A download button for an export (Markdown, LaTeX, CSV, JSON)."""
    st.download_button(label, data=data, file_name=file_name, mime=mime, key=key,
                       icon=":material/download:", on_click="ignore")
