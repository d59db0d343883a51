"""The DuckDB engine fetches per-cluster sums in batches (issue 44.2): the sums and the analysis are the same,
to the last bit, whatever the batch size (one row, a few rows, everything at once).

DuckDB on one thread: its parallel sums of doubles may differ in the last bit from run to run (two analyses of
the same file on several threads gave two reprs in eight runs, before batching too)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from evalstats_core import engine
from evalstats_core.engine import analyze_file, duckdb_connection, sums_of


def _one_thread():
    con = duckdb_connection()
    con.execute("SET threads TO 1")
    return con


def _same(a, b, where: str = "") -> list[str]:
    """Fields of two results that differ at all (arrays bit for bit, NaN equal to NaN)."""
    if dataclasses.is_dataclass(a):
        return [d for f in dataclasses.fields(a) for d in _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")]
    if isinstance(a, tuple | list):
        if len(a) != len(b):
            return [where]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _same(x, y, f"{where}[{i}]")]
    if isinstance(a, np.ndarray):
        ok = a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        return [] if ok else [where]
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return []
    return [] if repr(a) == repr(b) else [where]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(44)
    d = tmp_path_factory.mktemp("batches")
    out = {}
    rows = []  # 3 models, 57 string-id clusters of unequal size, some answers missing, a second run on some
    for i in range(400):
        c = f"topic-{int(rng.integers(0, 57)):02d}"
        for m in ("alpha", "beta", "gamma"):
            if m == "gamma" and i % 11 == 0:
                continue
            for _ in range(2 if i % 17 == 0 else 1):
                rows.append(f"q{i},{m},{int(rng.random() < 0.55 + 0.1 * (m == 'beta'))},{c}")
    out["clustered"] = d / "clustered.csv"
    out["clustered"].write_text("question,model,score,cluster\n" + "\n".join(rows) + "\n")
    cont = [f"q{i},{m},{rng.normal(5, 2):.4f},c{i % 23}" for i in range(300) for m in ("a", "b")]
    out["continuous"] = d / "continuous.csv"
    out["continuous"].write_text("question,model,score,cluster\n" + "\n".join(cont) + "\n")
    return out


@pytest.mark.parametrize("name", ["clustered", "continuous"])
@pytest.mark.parametrize("rows", [1, 5, 10])
def test_batched_sums_and_analysis_equal_one_fetch(files, name, rows, monkeypatch):
    path = str(files[name])
    con = _one_thread()
    whole_sums, whole = sums_of(path, connection=con), analyze_file(path, connection=con)
    monkeypatch.setattr(engine, "FETCH_ROWS", rows)
    fetched = []
    original = engine._Duck.columns

    def counted(self, sql):
        fetched.append(sql)
        return original(self, sql)

    monkeypatch.setattr(engine._Duck, "columns", counted)
    batched_sums, batched = sums_of(path, connection=con), analyze_file(path, connection=con)
    assert sum("es_fetch" in s for s in fetched) > 2  # the batching path ran, in several fetches
    assert _same(batched_sums, whole_sums) == []
    assert repr(batched) == repr(whole)
