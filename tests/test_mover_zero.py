"""The MOVER's p of a clustered 0/1 pair is 0.0 without its k-section when t's tail is 0.0 wherever the k-section
could put its root (:func:`evalstats_core._pair_batch._underflows`, issue 25): the same p as the scalar rule
(:func:`~evalstats_core.pair_mover.cell_mover_p`) to the last bit, on pairs far apart and near each other, and at
1e6 questions the clearly separated pair takes no numpy k-section at all."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalstats_core import _pair_batch as _mover_batch  # _mover_batch merged into _pair_batch
from evalstats_core._pair_batch import cell_mover_ps
from evalstats_core._quantiles import t_sf, t_sf_zero_beyond
from evalstats_core.pair_mover import _cells, cell_mover_p


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
def test_the_p_is_the_scalar_rules_with_and_without_the_shortcut(seed: int) -> None:
    """Far apart (p underflows), close (p of 1e-3 to 1), and in between (p of 1e-200): each p alone and in a batch of
    up to 8 pairs (the size at which the float paths are taken) is the scalar rule's, bit for bit; the shortcut is
    taken on the pairs far apart, and only there."""
    rng = np.random.default_rng(seed)
    taken = []
    real = _mover_batch._underflows

    def spy(*args: float) -> bool:
        taken.append(real(*args))
        return taken[-1]

    cells, dfs, want = [], [], []
    for n_clusters, per, pa, pb in [(400, 100, 0.05, 0.15), (2000, 50, 0.04, 0.2), (200, 40, 0.1, 0.11),
                                    (60, 30, 0.1, 0.14), (3000, 80, 0.08, 0.081), (1000, 100, 0.1, 0.13),
                                    (10_000, 25, 0.05, 0.2), (500, 200, 0.2, 0.1)]:
        a, b, sizes = separated(rng, n_clusters, per, pa, pb)
        df = float(n_clusters - 1) * 0.8
        cells.append(_cells(a, b, sizes))
        dfs.append(df)
        want.append(cell_mover_p(a, b, sizes, df))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_mover_batch, "_underflows", spy)
        got = cell_mover_ps(cells, np.array(dfs))
        alone = [float(cell_mover_ps([c], np.array([v]))[0]) for c, v in zip(cells, dfs, strict=True)]
    for x, y, z in zip(got, want, alone, strict=True):
        assert float(x) == y == z, (x, y, z)
    assert any(taken) and not all(taken)
    assert all(y == 0.0 for y, t in zip(want, taken[: len(want)], strict=True) if t)
    assert any(0.0 < y < 1e-100 for y in want)  # a tiny p that is not 0 is still found by the k-section


def test_a_clearly_separated_pair_at_scale_takes_no_ksection(monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 clusters of 50 questions, 4% against 20% discordant: p = 0.0, found without numpy's k-section (this
    failed before the shortcut: the k-section ran 6 steps of 63 trial points)."""
    rng = np.random.default_rng(5)
    a, b, sizes = separated(rng, 10_000, 50, 0.04, 0.2)
    cells, df = _cells(a, b, sizes), 4110.1
    want = cell_mover_p(a, b, sizes, df)

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the k-section ran")

    monkeypatch.setattr(_mover_batch, "_mover_ksection", fail)
    assert want == 0.0 and float(cell_mover_ps([cells], np.array([df]))[0]) == 0.0


@pytest.mark.parametrize("df", [30.0, 1661.9, 4110.1, 1e6])
def test_a_tail_said_to_be_zero_is_zero_beyond(df: float) -> None:
    """Where it says the tail is 0.0 from ``t`` on, ``t_sf`` is 0.0 at ``t`` and at every larger point tried; just
    a little below the smallest such ``t`` the tail is not 0."""
    grid = np.geomspace(1.5, 1e12, 3000)
    said = [bool(t_sf_zero_beyond(float(t), df)) for t in grid]
    assert any(said)
    first = said.index(True)
    assert all(said[first:])  # once true, true beyond
    assert all(t_sf(float(t), df) == 0.0 for t in grid[first:])
    # a little below it the tail is not yet 0 (the test leaves 15 of room in the log of the tail: not a loose one)
    assert t_sf(float(grid[first]) / math.exp(40.0 / df + 0.05), df) > 0.0


def test_it_cannot_tell_outside_its_branch() -> None:
    assert not t_sf_zero_beyond(0.5, 100.0) and not t_sf_zero_beyond(50.0, math.inf)
    assert not t_sf_zero_beyond(math.inf, 100.0) and not t_sf_zero_beyond(100.0, 1.0)
