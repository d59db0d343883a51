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


def test_the_pivot_groups_clusters_by_their_rank(files, monkeypatch):
    """Issue 44.2: the per-question grouping keeps no smallest/largest label string (DuckDB holds those states
    outside its memory limit: 6e7 rows of 750,000 string-id clusters passed 5 GB), and the per-cluster sums group
    by the cluster's rank; the labels, their order and sizes are the in-memory reader's."""
    from evalstats_core.data import load, question_scores
    from evalstats_core.sums import file_sums

    kept = {}
    original = engine._Duck.keep

    def spy(self, name, sql):
        kept[name] = sql
        return original(self, name, sql)

    monkeypatch.setattr(engine._Duck, "keep", spy)
    path = str(files["clustered"])
    got = sums_of(path, connection=_one_thread())
    assert "MIN(x.c)" not in kept["es_questions"] and "MIN(u.ci)" in kept["es_questions"]
    assert "GROUP BY ci" in kept["es_fetch"]
    memory = file_sums(question_scores(load(path)))
    assert got.clusters == memory.clusters and np.array_equal(got.cluster_sizes, memory.cluster_sizes)
    assert sorted(got.clusters) != list(got.clusters)  # first-appearance order, not the ranks' order


def test_each_connection_spills_to_a_folder_of_its_own(tmp_path):
    """Two connections never share DuckDB's spill files (named by block size alone, so two processes spilling into
    one folder overwrote each other's blocks)."""
    a, b = duckdb_connection(temp_directory=str(tmp_path)), duckdb_connection(temp_directory=str(tmp_path))
    folders = [c.execute("SELECT current_setting('temp_directory')").fetchone()[0] for c in (a, b)]
    assert folders[0] != folders[1]
    assert all(f.startswith(str(tmp_path) + "/evalstats-duckdb-") for f in folders)
