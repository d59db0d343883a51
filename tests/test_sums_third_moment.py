"""The third central moment of each pair's per-question difference in a file's sums (issue 20, skew11b):
``PairSums.m3_diff`` per cluster equals numpy's sum of cubed deviations on the shared questions, merges exactly
and flips its sign with the pair."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalstats_core as es
from evalstats_core.sums import file_sums


def _frame(rng: np.random.Generator, n: int, kind: str, clusters: int, missing: float) -> pd.DataFrame:
    cols = {}
    for name, p in (("A", 0.9), ("B", 0.85), ("C", 0.95)):
        x = (rng.random(n) < p).astype(float) if kind == "binary" else np.round(rng.beta(9 * p, 9 * (1 - p), n), 3)
        if missing:
            x[rng.random(n) < missing] = np.nan
        cols[name] = x
    df = pd.DataFrame({"question": [f"q{i}" for i in range(n)], **cols})
    if clusters:
        df.insert(1, "topic", [f"t{i % clusters}" for i in range(n)])
    return df


def _oracle(df: pd.DataFrame, a: str, b: str, clustered: bool) -> np.ndarray:
    shared = df[a].notna() & df[b].notna()
    d = (df[a] - df[b])[shared]
    keys = df["topic"][shared] if clustered else pd.Series(0, index=d.index)
    return d.groupby(keys).apply(lambda x: float(((x - x.mean()) ** 3).sum()))


@pytest.mark.parametrize("kind", ["binary", "partial"])
@pytest.mark.parametrize("clusters", [0, 7])
@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("n", [3, 40, 301])
def test_m3_diff_is_numpys_per_cluster_merged_and_flipped(kind, clusters, missing, n):
    df = _frame(np.random.default_rng(n + clusters), n, kind, clusters, missing)
    ds = es.load(df, cluster_col="topic") if clusters else es.load(df)
    fs = file_sums(es.question_scores(ds))
    for j, b in ((1, 0), (2, 0), (2, 1), (0, 2)):
        a_name, b_name = fs.models[j], fs.models[b]
        p = fs.pair(j, b)
        want = _oracle(df, a_name, b_name, bool(clusters))
        got = p.m3_diff[p.count > 0]
        assert got.size == len(want)
        labels = [str(c) for c in (fs.clusters or [0])]
        used = [lab for lab, c in zip(labels, p.count, strict=True) if c > 0]
        assert got == pytest.approx([want[lab if clusters else 0] for lab in used], abs=1e-12)
        m = fs.merged().pair(j, b).m3_diff
        whole = _oracle(df.assign(topic="one") if clusters else df, a_name, b_name, bool(clusters))
        assert m.shape == (1,) and m[0] == pytest.approx(float(whole.iloc[0]) if len(whole) else 0.0, abs=1e-12)
        assert fs.pair(b, j).m3_diff == pytest.approx(-p.m3_diff, abs=0.0)
