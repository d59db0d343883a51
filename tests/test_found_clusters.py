"""A cluster column nobody chose is read only when it can carry a clustered SE (issue 46): one rule
(``_records.unread_clusters``) for the API, the command line, the DuckDB engine and the workbench; a choice by the
user is always honoured; and the gate's "would tell" plan never names fewer units than the file has."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import no_exceptions, run_page

import evalstats_core as es
from evalstats_core._records import FOUND_CLUSTERS
from evalstats_core.cli import main
from evalstats_core.errors import UNREAD_CLUSTERS


def _gain_file(seed: int, n_cat: int, n: int = 400, gain: float = 0.04) -> pd.DataFrame:
    """Paired 0/1 answers, the candidate truly ``gain`` better on every question, and a ``category`` column with
    ``n_cat`` values that has nothing to do with how the questions were drawn."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.3, 0.8, n)
    u = rng.random(n)
    return pd.DataFrame({"question": [f"q{i}" for i in range(n)], "category": [f"c{c}" for c in rng.integers(0, n_cat, n)],
                         "base": (u < p).astype(int), "cand": (u < p + gain).astype(int)})


def _unread(ds) -> list[str]:
    return [n for n in ds.notes if " found by its name but not used: " in n]


def test_a_three_value_category_is_not_read_by_default_and_is_read_when_chosen():
    frame = _gain_file(1, 3)
    ds = es.load(frame)
    assert ds.cluster_col is None and ds.n_clusters is None and not es.analyze(ds).clustered
    (note,) = _unread(ds)
    assert note.startswith("cluster column 'category' found by its name but not used: 3 clusters are too few")
    assert note.endswith("choose cluster_col='category'")
    assert note.code == UNREAD_CLUSTERS  # what the workbench reads, not the wording
    assert not any(n.endswith("standard errors are clustered on it") for n in ds.notes)
    chosen = es.load(frame, cluster_col="category")
    assert chosen.n_clusters == 3 and es.analyze(chosen).clustered and not _unread(chosen)


@pytest.mark.parametrize("n_cat", [1, 2, FOUND_CLUSTERS - 1, FOUND_CLUSTERS, 8])
def test_the_threshold_is_one_number(n_cat):
    ds = es.load(_gain_file(2, n_cat, n=200))
    assert (ds.n_clusters is None) == (n_cat < FOUND_CLUSTERS)
    assert bool(_unread(ds)) == (n_cat < FOUND_CLUSTERS)


def test_the_gate_reads_the_file_as_if_the_column_were_not_there():
    """Before: with the 3-value column read as clusters the gate passed 0-69% of true +4-point gains (95% without
    it). Now the default gate decides as on the file without the column, on every one of these seeded files."""
    for seed in range(12):
        frame = _gain_file(100 + seed, 3)
        default = es.gate(es.load(frame), baseline="base", candidate="cand", margin="2pt")
        plain = es.gate(es.load(frame.drop(columns="category")), baseline="base", candidate="cand", margin="2pt")
        assert default.n_clusters is None
        assert (default.verdict, default.ci_low, default.ci_high) == (plain.verdict, plain.ci_low, plain.ci_high)


def test_the_command_line_says_which_flag_reads_it(tmp_path, capsys):
    path = tmp_path / "r.csv"
    _gain_file(3, 3).to_csv(path, index=False)
    assert main(["analyze", str(path)]) == 0
    out = capsys.readouterr().out
    assert "3 clusters are too few" in out and "choose --cluster-col category" in out
    assert main(["analyze", str(path), "--cluster-col", "category", "-f", "json"]) == 0
    assert '"n_clusters": 3' in capsys.readouterr().out


def test_the_duckdb_engine_follows_the_same_rule(tmp_path):
    pytest.importorskip("duckdb")
    from evalstats_core.engine import sums_of

    path = tmp_path / "r.csv"
    _gain_file(4, 3).to_csv(path, index=False)
    default, memory = sums_of(str(path)), es.load(str(path))
    assert default.cluster_col is None and default.clusters is None
    assert _unread(default) == _unread(memory) and len(_unread(memory)) == 1
    assert sums_of(str(path), cluster_col="category").cluster_col == "category"


def test_the_workbench_defaults_to_no_clusters_says_why_and_reads_the_column_when_chosen():
    from evalstats_app.workbench import INJECT_KEY, LAST_KEY

    data = _gain_file(5, 3).to_csv(index=False).encode()
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": "r.csv", "data": data}
    at.run()
    no_exceptions(at)
    assert not at.session_state[LAST_KEY].clustered
    shown = "\n".join([m.value for m in at.markdown] + [t.value for t in at.text]).replace("\\", "")
    assert "3 clusters are too few" in shown and "'Cluster column': category" in shown
    at.selectbox(key="analyze_cluster_col").set_value("category").run()
    no_exceptions(at)
    assert at.session_state[LAST_KEY].clustered and at.session_state[LAST_KEY].n_clusters == 3


_TELL = re.compile(r"About ([\d,]+) (clusters|questions) like these.*against ([\d,]+) here")


def test_the_would_tell_plan_never_names_fewer_units_than_the_file_has():
    """Seeded files of 2-8 chosen clusters, 0/1 and continuous: before, 10 of 274 sentences named no more units
    than the file had ("About 1 clusters ... against 2 here"); now none does."""
    told = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        g_n, m = int(rng.integers(2, 9)), int(rng.integers(5, 60))
        lab = np.repeat(np.arange(g_n), m)
        p = np.clip(0.6 + rng.normal(0, 0.15, g_n)[lab], 0.05, 0.95)
        if seed % 2:
            a, b = (rng.random(lab.size) < p).astype(float), (rng.random(lab.size) < p + 0.02).astype(float)
        else:
            a = np.clip(p + rng.normal(0, 0.2, lab.size), 0, 1)
            b = np.clip(p + 0.02 + rng.normal(0, 0.2, lab.size), 0, 1)
        frame = pd.DataFrame({"question": [f"q{i}" for i in range(lab.size)], "cluster": [f"c{x}" for x in lab],
                              "A": a, "B": b})
        g = es.gate(es.load(frame, cluster_col="cluster"), baseline="B", candidate="A", margin="2pt")
        found = _TELL.search(g.headline())
        if found:
            told += 1
            assert int(found.group(1).replace(",", "")) > int(found.group(3).replace(",", "")), (seed, g.headline())
    assert told > 60
