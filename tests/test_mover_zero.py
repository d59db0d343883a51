"""The MOVER's p of clustered 0/1 pairs, all at once (:func:`evalstats_core.pair_proportions.cell_mover_ps`), is the
scalar rule's (:func:`~evalstats_core.pair_proportions.cell_mover_p`) to the last bit, on pairs far apart (p of 0.0) and near
each other."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats_core.pair_proportions import _cells, cell_mover_p, cell_mover_ps


def separated(rng: np.random.Generator, n_clusters: int, per: int, pa: float, pb: float):
    """Per-cluster counts of the two discordant cells of ``n_clusters`` clusters of ``per`` questions, each cell's
    rate varying between clusters around ``pa`` / ``pb``."""
    sizes = np.full(n_clusters, float(per))
    ra = np.clip(pa * rng.uniform(0.5, 1.5, n_clusters), 0.0, 0.45)
    rb = np.clip(pb * rng.uniform(0.5, 1.5, n_clusters), 0.0, 0.45)
    a = rng.binomial(per, ra).astype(np.float64)
    b = rng.binomial(per, rb).astype(np.float64)
    return a, b, sizes


@pytest.mark.parametrize("seed", [0, 1])
def test_the_p_is_the_scalar_rules(seed: int) -> None:
    """Far apart (p underflows), close (p of 1e-3 to 1), and in between (p of 1e-200): each p alone and in a batch of
    up to 8 pairs is the scalar rule's, bit for bit."""
    rng = np.random.default_rng(seed)
    cells, dfs, want = [], [], []
    for n_clusters, per, pa, pb in [(400, 100, 0.05, 0.15), (2000, 50, 0.04, 0.2), (200, 40, 0.1, 0.11),
                                    (60, 30, 0.1, 0.14), (3000, 80, 0.08, 0.081), (1000, 100, 0.1, 0.13),
                                    (10_000, 25, 0.05, 0.2), (500, 200, 0.2, 0.1)]:
        a, b, sizes = separated(rng, n_clusters, per, pa, pb)
        df = float(n_clusters - 1) * 0.8
        cells.append(_cells(a, b, sizes))
        dfs.append(df)
        want.append(cell_mover_p(a, b, sizes, df))
    got = cell_mover_ps(cells, np.array(dfs))
    alone = [float(cell_mover_ps([c], np.array([v]))[0]) for c, v in zip(cells, dfs, strict=True)]
    for x, y, z in zip(got, want, alone, strict=True):
        assert float(x) == y == z, (x, y, z)
    assert any(y == 0.0 for y in want)  # a p that underflows
    assert any(0.0 < y < 1e-100 for y in want)  # a tiny p that is not 0 is still found by the k-section
