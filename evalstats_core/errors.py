"""The one exception type of evalstats.

Every problem with input that a user can fix (a bad value, a missing column, an unreadable file)
raises :class:`EvalStatsError`. It subclasses :class:`ValueError`, so code that already catches
``ValueError`` keeps working. Messages repeat the bad value and say how to fix it, e.g.
``"confidence (1.5) must be between 0 and 1 (exclusive); use e.g. 0.95"``.
"""

from __future__ import annotations

__all__ = ["EvalStatsError", "EvalStatsWarning", "Note", "RUNS_IN_IDS", "DEFF_BELOW_ONE", "CLUSTERING_COST",
           "SKEWED_LOWER_END", "UNREAD_CLUSTERS"]

#: The codes of the cautions a program reacts to (:class:`Note`), each with the function that writes it.
RUNS_IN_IDS = "runs-in-ids"  # question ids that look like runs of another question (_records.runs_warning)
DEFF_BELOW_ONE = "design-effect-below-1"  # a clustered SE below the naive one (analysis)
CLUSTERING_COST = "clustering-cost"  # what clustering on few clusters costs (analysis.clustering_cost)
SKEWED_LOWER_END = "skewed-lower-end"  # scores too skewed to bound a difference from below (bounded_reach)
UNREAD_CLUSTERS = "unread-clusters"  # a cluster column found by its name, too few clusters to read (_records.unread_clusters)


class EvalStatsError(ValueError):
    """Bad input to an evalstats function: the message names the value and the fix."""


class EvalStatsWarning(UserWarning):
    """A result that is computed but should be read with care (e.g. fewer than 30 clusters)."""


class Note(str):
    """A caution a user reads (a result's ``warnings``), carrying a stable ``code`` that a program reads instead of
    the wording: the workbench decides what to draw beside a warning by its code, so the words can change freely.

    It is the text itself everywhere a string goes (printing, equality, JSON, ``repr``); concatenating it gives a
    plain string (the code belongs to the whole caution).

    >>> w = Note("only 3 clusters", "few-clusters")
    >>> w == "only 3 clusters", w.code, repr(w)
    (True, 'few-clusters', "'only 3 clusters'")
    """

    code: str

    def __new__(cls, text: str, code: str) -> Note:
        note = super().__new__(cls, text)
        note.code = code
        return note

    def __reduce__(self) -> tuple:  # pickled (Streamlit's cache) with its code
        return (Note, (str(self), self.code))
