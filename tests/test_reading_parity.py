"""Every fixture and example gives the same numbers as before the reader refactor (issue 19).

The baseline ``tests/fixtures/reading_baseline.json`` was written by ``tests/reading_cases.py`` from main
at 5ef305d, before the data layer was rebuilt on one reader protocol; regenerate it only when a change of
numbers is intended and explained.
"""

from __future__ import annotations

import json

import pytest
from reading_cases import FIX, cases, numbers, run

BASE = json.loads((FIX / "reading_baseline.json").read_text())


@pytest.mark.parametrize("name", sorted(BASE))  # the files that existed before the refactor (later ones have no "before")
def test_same_numbers_as_before(name: str) -> None:
    code, doc = run(cases()[name])
    want = BASE[name]
    assert code == want["code"], doc
    if code == 0:
        got = numbers(doc)
        assert got.keys() == want["numbers"].keys()
        for k, v in want["numbers"].items():
            assert got[k] == pytest.approx(v, rel=1e-12, abs=1e-15, nan_ok=True) if isinstance(v, float) else got[k] == v, k
