"""One escaper per target: user text (model names, file names, column names) made inert.

=========================  ===============================================================================
``escape_markdown``        a Markdown file (GitHub, a PR comment): no table break, no link, no image, no HTML
``escape_streamlit``       Streamlit's Markdown (``st.markdown``/``st.caption``): also its ``:directives:``
                           and ``$math$``
``escape_html``            HTML text and attribute values
``escape_latex``           LaTeX text (pdfLaTeX's default font included)
``csv_safe``               a CSV cell or header that a spreadsheet would run as a formula gets a leading ``'``
``elide``                  user text longer than :data:`NAME_CAP` characters, shown by its ends (reports)
``elide_spec``             the same in a compiled chart (its rows, sorts, titles) before it is drawn to a file
=========================  ===============================================================================

Examples
--------
>>> escape_markdown("![x](http://h/i.png)")
'!\\\\[x\\\\](http://h/i.png)'
>>> escape_html('<img src="x">')
'&lt;img src=&quot;x&quot;&gt;'
>>> csv_safe("=HYPERLINK(1)"), csv_safe(-0.5)
("'=HYPERLINK(1)", -0.5)
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

__all__ = ["NAME_CAP", "elide", "elide_words", "elide_spec", "escape_markdown", "escape_streamlit", "escape_html", "escape_latex", "latex_cell", "csv_safe"]

# CommonMark lets a backslash escape any ASCII punctuation; these are the ones that open a link or an
# image (brackets), a table cell (pipe), code, math (GitHub's $), HTML ("<").
_MD_SPECIAL = str.maketrans({"\\": "\\\\", "|": "\\|", "`": "\\`", "[": "\\[", "]": "\\]",
                             "$": "\\$", "\n": " ", "\r": " "})
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])")  # only "<" that could open an HTML tag needs escaping
# Streamlit's Markdown adds :material/...: and :red[...] directives, emoji shortcodes and $...$ math.
_ST_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^&])")
_TEX_SPECIAL = str.maketrans({"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                              "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                              "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                              "|": r"\textbar{}", "–": "--", "−": "-", "\n": " ", "\r": " "})
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


#: The most characters of one user string (a model, file, column or cluster name, a question id) a report shows:
#: longer ones are elided in the middle (:func:`elide`). A 100,000-character model name made vl-convert measure
#: its label for 741 s in the HTML report (issue 46); elided, a report costs what a short name's does.
NAME_CAP = 120
_ELIDE_WORDS = re.compile(rf"\S{{{NAME_CAP + 1},}}")


def elide(text: Any, cap: int = NAME_CAP) -> str:
    """``text`` when it has at most ``cap`` characters, else its first and last characters around how many were
    left out and a short digest of the whole (two long names that differ only in the middle stay apart).

    >>> elide("gpt-4o")
    'gpt-4o'
    >>> elide("m" * 1000, cap=40)
    'mmmmmmmmmmmmmmmmmmmm…[970 more characters, #753892]…mmmmmmmmmm'
    """
    text = str(text)
    if len(text) <= cap:
        return text
    head, tail = cap // 2, cap // 4
    digest = hashlib.blake2s(text.encode("utf-8", "surrogatepass"), digest_size=3).hexdigest()
    return f"{text[:head]}…[{len(text) - head - tail:,} more characters, #{digest}]…{text[-tail:]}"


def elide_words(text: Any, names: tuple[str, ...] = ()) -> str:
    """A sentence with each of ``names`` longer than :data:`NAME_CAP`, and any other run of more than that many
    characters without a space, elided (:func:`elide`): in linear time.

    >>> elide_words("model " + "x" * 200 + " is best")[:22]
    'model xxxxxxxxxxxxxxxx'
    >>> len(elide_words("model " + "x" * 200 + " is best")) < 160
    True
    """
    text = str(text)
    for name in names:
        if len(name) > NAME_CAP and name in text:
            text = text.replace(name, elide(name))
    return _ELIDE_WORDS.sub(lambda m: elide(m.group(0)), text) if len(text) > NAME_CAP else text


def elide_spec(spec: Any, texts: tuple[str, ...] = ()) -> tuple[Any, tuple[str, ...]]:
    """A compiled chart ``spec`` (Vega-Lite as a dict) and its ``texts`` (a title, a subtitle) with every user string
    longer than :data:`NAME_CAP` elided (:func:`elide`), as the reports show it: the rows' long strings (in
    ``datasets`` or ``values``) are the names, elided wherever they occur (rows, sort orders, titles; keys too), so
    the chart stays consistent; any other run of more than :data:`NAME_CAP` characters without a space likewise
    (:func:`elide_words`). vl-convert then measures what a short name costs (a 100,000-character label took it
    minutes, issue 46). The same objects when nothing is that long.

    >>> spec = {"datasets": {"d": [{"model": "m" * 200, "x": 1}]}, "encoding": {"y": {"sort": ["m" * 200]}}}
    >>> out, (title,) = elide_spec(spec, ("best: " + "m" * 200,))
    >>> out["datasets"]["d"][0]["model"] == out["encoding"]["y"]["sort"][0] == elide("m" * 200)
    True
    >>> title == "best: " + elide("m" * 200)
    True
    """
    names: set[str] = set()

    def rows(node: Any, inside: bool) -> None:  # the strings of the chart's rows
        if isinstance(node, dict):
            for key, value in node.items():
                if inside and isinstance(key, str) and len(key) > NAME_CAP:
                    names.add(key)
                rows(value, inside or key in ("datasets", "values"))
        elif isinstance(node, list):
            for value in node:
                rows(value, inside)
        elif inside and isinstance(node, str) and len(node) > NAME_CAP:
            names.add(node)

    def long(node: Any) -> bool:
        if isinstance(node, dict):
            return any(long(k) or long(v) for k, v in node.items())
        if isinstance(node, list):
            return any(long(v) for v in node)
        return isinstance(node, str) and len(node) > NAME_CAP

    rows(spec, False)
    if not names and not long(spec) and not any(len(t) > NAME_CAP for t in texts):
        return spec, tuple(texts)
    ordered = tuple(sorted(names, key=len))  # a name inside a longer row label (a pair "A − B") goes first

    def cut(node: Any) -> Any:
        if isinstance(node, dict):
            return {cut(k): cut(v) for k, v in node.items()}
        if isinstance(node, list):
            return [cut(v) for v in node]
        return elide_words(node, ordered) if isinstance(node, str) and len(node) > NAME_CAP else node

    return cut(spec), tuple(elide_words(t, ordered) for t in texts)


def escape_markdown(text: Any) -> str:
    """Escape user text for a Markdown file: pipes, backslashes, backticks, brackets, ``$`` and
    tag-opening ``<``.

    Newlines become spaces, so a name cannot break a table row; no HTML, link or image can get through
    (``![x](url)`` loses its brackets, so no viewer fetches the URL).
    """
    return _MD_TAG.sub(r"\\<", str(text).translate(_MD_SPECIAL))


def escape_streamlit(text: Any) -> str:
    """User text made inert for ``st.markdown``/``st.caption``: every Markdown, LaTeX and directive
    character escaped; newlines become spaces."""
    return _ST_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ").replace("\r", " ")


def escape_html(text: Any) -> str:
    """HTML text or a quoted attribute value: ``& < > " '`` as entities."""
    return html.escape(str(text), quote=True)


def escape_latex(text: Any) -> str:
    """Escape LaTeX's special characters in user text (``< > |`` too: pdfLaTeX's default font has none)."""
    return str(text).translate(_TEX_SPECIAL)


def latex_cell(text: str) -> str:
    """A table cell for LaTeX: user text escaped; our own ``<0.001``, ``∞``, ``±``, ``—`` and a leading
    minus set as math (a text hyphen is not a minus sign)."""
    if text == "<0.001":
        return r"$<$0.001"
    out = escape_latex(text).replace("∞", r"$\infty$").replace("±", r"$\pm$").replace("—", "---")
    return re.sub(r"(?<![\w-])-(?=\d)", r"$-$", out)


def csv_safe(cell: Any) -> Any:
    """Neutralise a text cell (or header) that a spreadsheet would read as a formula (prefix ``'``).

    Numbers are returned unchanged (``-0.05`` is a number, not a formula); text starting with
    ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (OWASP CSV injection).
    """
    if isinstance(cell, str) and cell[:1] in _FORMULA:
        return "'" + cell
    return cell
