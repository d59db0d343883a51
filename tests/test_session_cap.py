"""The workbench's per-session cap on the files a session holds (issue 46, item 8), through AppTest.

A session keeps the readings of the files it read; their bytes are summed. A file that would take the sum past
the cap releases the earlier readings first; files over the cap on their own are refused with one error naming
the cap and the fix. The cap is set in one place (``workbench_reading.SESSION_MB``, ``EVALSTATS_SESSION_MB``).
"""

import gc

import numpy as np
from conftest import no_exceptions, run_page

from evalstats_app import workbench_reading as reading
from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core.data import Prepared

PAGE = "pages/analyze.py"


def _long(n_q: int, seed: int) -> bytes:
    """A long results file of ``n_q`` questions and two models (about 20 bytes a row)."""
    rng = np.random.default_rng(seed)
    rows = [f"q{i},{m},{int(v)}" for i in range(n_q) for m, v in zip("AB", rng.random(2) < (0.5, 0.6), strict=True)]
    return ("question,model,score\n" + "\n".join(rows) + "\n").encode()


def _inject(at, name, data):
    at.session_state[INJECT_KEY] = {"name": name, "data": data}
    return at.run()


def _live_readings(n_rows: int) -> int:
    """How many readings of a file with ``n_rows`` scores are alive in this process."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Prepared) and o.dataset.n_rows == n_rows)


def test_the_cap_is_set_in_one_place_and_read_from_the_environment(monkeypatch):
    """SESSION_MB by default; EVALSTATS_SESSION_MB overrides it; a value that is not a finite number is the default."""
    monkeypatch.delenv(reading.SESSION_ENV, raising=False)
    assert reading.session_cap() == reading.SESSION_MB * 2**20
    monkeypatch.setenv(reading.SESSION_ENV, "0.25")
    assert reading.session_cap() == 2**18
    for bad in ("lots", "nan", "inf", "0", "-5"):
        monkeypatch.setenv(reading.SESSION_ENV, bad)
        assert reading.session_cap() == reading.SESSION_MB * 2**20


def test_files_over_the_cap_are_refused_with_one_error_naming_the_cap_and_the_fix(monkeypatch):
    """A 0.3 MB file under a 0.25 MB cap: one error (the cap, its variable, the fix), no analysis, no exception."""
    monkeypatch.setenv(reading.SESSION_ENV, "0.25")
    data = _long(16_000, 1)
    assert len(data) > 2**18
    at = _inject(run_page(PAGE), "big.csv", data)
    no_exceptions(at)
    assert len(at.error) == 1, [e.value for e in at.error]
    message = at.error[0].value
    assert "big\\.csv" in message and "cap of 0.25 MB" in message
    assert f"{len(data) / 2**20:,.1f} MB" in message and "remove files from the uploader" in message
    assert "evalbars" in message and reading.SESSION_ENV in message
    assert LAST_KEY not in at.session_state


def test_several_files_are_summed(monkeypatch):
    """Two files of 0.16 MB each are under a 0.25 MB cap alone and over it together: refused together."""
    monkeypatch.setenv(reading.SESSION_ENV, "0.25")
    a, b = _long(8_000, 2), _long(8_000, 3)
    assert len(a) < 2**18 and len(b) < 2**18 < len(a) + len(b)
    at = run_page(PAGE)
    at.session_state[INJECT_KEY] = {"files": [("a.csv", a), ("b.csv", b)]}
    at.run()
    no_exceptions(at)
    assert len(at.error) == 1 and "cap of" in at.error[0].value
    assert LAST_KEY not in at.session_state


def test_a_new_file_past_the_cap_releases_the_earlier_readings(monkeypatch):
    """One visitor's uploads one after the other: under a 0.25 MB cap the second 0.16 MB file is analyzed and the
    first one's reading is released (no longer alive); under the default cap both are kept."""
    first, second = _long(8_000, 4), _long(8_001, 5)
    monkeypatch.setenv(reading.SESSION_ENV, "0.25")
    at = _inject(run_page(PAGE), "first.csv", first)
    no_exceptions(at)
    assert not at.error and LAST_KEY in at.session_state
    assert _live_readings(16_000) >= 1
    at = _inject(at, "second.csv", second)
    no_exceptions(at)
    assert not at.error and LAST_KEY in at.session_state
    assert list(at.session_state[reading.HELD_KEY].values()) == [len(second)]
    assert _live_readings(16_002) >= 1 and _live_readings(16_000) == 0

    monkeypatch.delenv(reading.SESSION_ENV)
    at = _inject(run_page(PAGE), "first.csv", first)
    at = _inject(at, "second.csv", second)
    no_exceptions(at)
    assert sorted(at.session_state[reading.HELD_KEY].values()) == sorted([len(first), len(second)])
    assert _live_readings(16_000) >= 1 and _live_readings(16_002) >= 1
