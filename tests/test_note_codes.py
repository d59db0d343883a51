"""A caution carries a code the page reads instead of its wording (issue 38): the code survives the dataset, the
cache's pickling and JSON, and the text is unchanged wherever a string goes."""

from __future__ import annotations

import json
import pickle

from evalstats_core.data import load
from evalstats_core.errors import RUNS_IN_IDS, Note


def test_a_note_is_its_text_with_a_code() -> None:
    """Equality, repr and JSON see the text; pickling (Streamlit's cache) keeps the code."""
    note = Note("3 question ids look like runs", RUNS_IN_IDS)
    assert note == "3 question ids look like runs" and repr(note) == repr("3 question ids look like runs")
    assert json.dumps([note]) == json.dumps(["3 question ids look like runs"])
    back = pickle.loads(pickle.dumps(note))
    assert back == note and back.code == RUNS_IN_IDS


def test_ids_that_look_like_runs_carry_their_code() -> None:
    """The page offers to read ids like 1.1, 1.2 as runs of question 1 by this code, not by the warning's words."""
    rows = ["question,model,score"] + [f"{q}.{r},{m},{(q + r) % 2}" for q in range(1, 6) for r in (1, 2)
                                       for m in ("a", "b")]
    ds = load("\n".join(rows).encode(), name="runs.csv")
    codes = [getattr(w, "code", None) for w in ds.warnings]
    assert RUNS_IN_IDS in codes, ds.warnings
