"""How the workbench says the options the core's messages name.

The core names an option by its keyword, as the API takes it (``question_col=``, ``duplicates='error'``;
:mod:`evalstats_core.flags`); the command line respells it as its flag (``--question-col``), and the workbench,
here, as the control that sets it (``'Question column'``), so a message on the page names something the reader
can click. A budget (``limits=Limits(max_rows=...)``) is the server's to set, in its environment, which the
message names beside it; an option the page has no control for (the SQL engine, a labels file, a margin) keeps
the API's words, unless a message asks the reader to set it (labels for every model): then it is the command
line's flag, said to be set there.
"""

from __future__ import annotations

from typing import Any

from evalstats_core.escape import escape_streamlit
from evalstats_core.flags import literal, respell
from evalstats_core.vocabulary import INTERVAL_METHODS, SE_METHODS

__all__ = ["CLUSTER_LABEL", "CONTROLS", "DUPLICATES", "NO_CLUSTER", "SCALES", "esc", "for_workbench", "say"]

#: the values of the page's choices, as its controls show them (the page's modules and the words below share them)
NO_CLUSTER = "(none)"
DUPLICATES = {"resamples": "resamples (averaged)", "error": "an error (duplicated rows)"}
SCALES = {"error": "an error (name the models)", "allow": "allowed (with a warning)"}


def esc(text: Any) -> str:
    """User text made inert for ``st.markdown``: the one Streamlit escaper (evalstats_core.escape)."""
    return escape_streamlit(text)


_RUNS = "'Read question ids like 1.1, 1.2 as runs of question 1'"
#: the label of the page's cluster choice, for files (a column) and harness logs (a metadata key, a column) alike:
#: the notes that name it ('Cluster column': task) then name the box the reader sees
CLUSTER_LABEL = "Cluster column"
#: keyword -> the control on the page that sets it (its label, quoted as the page shows it)
CONTROLS = {"question_col": "'Question column'", "model_col": "'Model column'", "score_col": "'Score column'",
            "cluster_col": f"'{CLUSTER_LABEL}'", "ignore_cols": "'Columns to leave out'",
            "resample_col": "'Resample column'", "runs_in_ids": _RUNS, "format": "'Layout'",
            "duplicates": "'Several rows for one question and model are'",
            "mixed_scales": "'Models on different scales (0-1 against 0-100) are'",
            "metric": "'Metric or scorer (harness logs)'", "harness_filter": "'Filter (lm-eval)'",
            "baseline": "'Compare'", "interval": "'Interval for one model'", "method": "'Standard errors'",
            "use_clusters": f"'{CLUSTER_LABEL}'", "human_col": "'Human labels'", "confidence": "'Confidence level'"}


def _values(key: str) -> dict[str, str]:
    """How the control of ``key`` shows each value ."""
    return {"duplicates": DUPLICATES, "mixed_scales": SCALES, "method": SE_METHODS, "interval": INTERVAL_METHODS,
            "use_clusters": {"False": NO_CLUSTER}}.get(key, {})


#: the options the page sets with a checkbox or as a choice of no clusters: ``runs_in_ids=True``, ``use_clusters=False``
_SWITCHES = frozenset({"runs_in_ids", "use_clusters"})
#: the budgets (``limits=Limits(max_rows=...)``): set where the server starts
_BUDGETS = ("max_rows", "max_bytes", "max_models", "max_pairs")


#: options with no control on the page whose message asks the reader to set them: said as the command line's flag,
#: with where to set it (the API's keyword means nothing on the page)
_ELSEWHERE = {"labels_all_models": "--labels-all-models on the command line, which this page does not offer"}


def for_workbench(message: str) -> str:
    """``message`` in the workbench's words: each option it names as the control that sets it.

    Examples
    --------
    >>> for_workbench("choose duplicates='error' to stop on them; or pass question_col=")
    "choose 'Several rows for one question and model are': an error (duplicated rows) to stop on them; or pass 'Question column'"
    """
    def spell(key: str, value: str | None) -> str | None:
        if key in _ELSEWHERE:
            return _ELSEWHERE[key]
        if key in _BUDGETS:
            return "the server's settings"
        control = CONTROLS.get(key)
        if control is None or (value in ("True", "False")) != (key in _SWITCHES) or (key, value) == ("use_clusters", "True"):
            return None  # no control, or a switch not as the page sets it (only use_clusters=False is a choice)
        if value is None or value == "True":
            return control
        shown = _values(key).get(literal(value), literal(value))
        return f"{control}: {shown}"
    return respell(message, spell)


def say(message: object) -> str:
    """A core message for ``st.error`` / ``st.warning``: in the workbench's words, made inert for Markdown."""
    return esc(for_workbench(str(message)))
