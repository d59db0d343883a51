"""The 0/1 pair rule of many pairs at once (:mod:`evalstats_core.pair_proportions`) equals the scalar rule bit for bit:
Tango's interval, the MOVER's p and the whole rule, on random counts (zero cells, all agree, one question), alone
and in batches larger than the k-section's small-array limit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core._estimate import pair_rules
from evalstats_core.pair_proportions import (
    _cells,
    binary_pair_interval,
    binary_pair_intervals,
    cell_mover_p,
    cell_mover_ps,
    continuity_correction,
    discordant_cells,
    paired_proportion_ci,
    tango_intervals,
)


def same(x: float, y: float) -> bool:
    """Equal to the last bit (nan equals nan)."""
    return (math.isnan(x) and math.isnan(y)) or x == y


def random_counts(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(only_a, only_b, n)``: whole and effective (real) counts, zero cells, all agree, n = 1, large n."""
    n = rng.choice([1.0, 2.0, 3.0, 10.0, 30.0, 1000.0, 1e6, 1e7], size) * rng.choice([1.0, 1.0, 0.37], size)
    b = np.floor(rng.random(size) * (n + 1)) * (rng.random(size) < 0.8)
    c = np.floor(rng.random(size) * (n - b + 1)) * (rng.random(size) < 0.8)
    agree = rng.random(size) < 0.1
    b[agree] = c[agree] = 0.0
    real = rng.random(size) < 0.3  # effective counts (scaled by n*/n) are real numbers
    scale = rng.uniform(0.05, 1.0, size)
    b, c, n = np.where(real, b * scale, b), np.where(real, c * scale, c), np.where(real, n * scale, n)
    return np.minimum(b, n), np.minimum(c, np.maximum(n - b, 0.0)), n


@pytest.mark.parametrize("confidence", [0.95, 0.8, 0.999])
def test_tango_intervals_equal_the_scalar_interval(confidence: float) -> None:
    rng = np.random.default_rng(25)
    b, c, n = random_counts(rng, 400)
    low, high = tango_intervals(b, c, n, confidence=confidence)  # 800 brackets: past the small-array limit
    for i in range(b.size):
        want = paired_proportion_ci(float(b[i]), float(c[i]), float(n[i]), confidence=confidence)
        alone = tango_intervals(b[i : i + 1], c[i : i + 1], n[i : i + 1], confidence=confidence)
        assert (low[i], high[i]) == tuple(want) == (alone[0][0], alone[1][0]), (b[i], c[i], n[i])


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_tango_intervals_with_a_continuity_correction_equal_the_scalar_interval(confidence: float) -> None:
    """The unclustered rule's correction (min(1, discordant / 10); 0 at no discordant answer): batched (800
    brackets, and 4 pairs: the float steps ahead) and one pair alone, bit for bit."""
    rng = np.random.default_rng(31)
    b, c, n = random_counts(rng, 400)
    cc = continuity_correction(b, c)
    assert (cc == 0.0).any() and ((cc > 0.0) & (cc < 1.0)).any() and (cc == 1.0).any()
    low, high = tango_intervals(b, c, n, confidence=confidence, correction=cc)
    few = tango_intervals(b[:4], c[:4], n[:4], confidence=confidence, correction=cc[:4])
    for i in range(b.size):
        want = paired_proportion_ci(float(b[i]), float(c[i]), float(n[i]), confidence=confidence,
                                    correction=float(cc[i]))
        alone = tango_intervals(b[i : i + 1], c[i : i + 1], n[i : i + 1], confidence=confidence,
                                correction=cc[i : i + 1])
        assert (low[i], high[i]) == tuple(want) == (alone[0][0], alone[1][0]), (b[i], c[i], n[i], cc[i])
        if i < 4:
            assert (few[0][i], few[1][i]) == tuple(want)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10**5), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_tango_intervals_with_a_correction_property(n: int, fa: float, fb: float, k: float) -> None:
    b = math.floor(fa * n)
    c = math.floor(fb * (n - b))
    low, high = tango_intervals([b], [c], [n], correction=[k])
    assert (low[0], high[0]) == tuple(paired_proportion_ci(b, c, n, correction=k))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**7), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.booleans())
def test_tango_intervals_property(n: int, fa: float, fb: float, whole: bool) -> None:
    b = math.floor(fa * n) if whole else fa * n
    c = math.floor(fb * (n - b)) if whole else fb * (n - b)
    low, high = tango_intervals([b], [c], [n])
    assert (low[0], high[0]) == tuple(paired_proportion_ci(b, c, n))


def clustered_case(rng: np.random.Generator, n_pairs: int) -> tuple:
    """Arguments of the clustered rule for ``n_pairs`` pairs on one cluster-size vector, from drawn per-cluster
    cells (some pairs with no disagreement, or in one cluster only)."""
    g = int(rng.choice([2, 3, 7, 30, 400]))
    sizes = rng.integers(1, 60, g).astype(np.float64)
    n = float(sizes.sum())
    rows = []
    for p in range(n_pairs):
        rate = rng.choice([0.0, 0.02, 0.1, 0.4])
        only_a_g = rng.binomial(sizes.astype(int), rate * rng.uniform(0.2, 1.0)).astype(np.float64)
        only_b_g = np.minimum(rng.binomial(sizes.astype(int), rate * rng.uniform(0.2, 1.0)), sizes - only_a_g)
        if p % 5 == 3:  # disagreements in one cluster
            only_a_g[1:], only_b_g[1:] = 0.0, 0.0
        oa, ob = float(only_a_g.sum()), float(only_b_g.sum())
        d = (oa - ob) / n
        resid = (only_a_g - only_b_g) - sizes * d
        se_naive = float(rng.uniform(0.001, 0.05)) * (rng.random() < 0.95)
        se = se_naive * float(rng.uniform(0.5, 3.0)) * (rng.random() < 0.95)
        df = float(rng.uniform(0.5, g - 1.0 + 1e-9)) if g > 2 else 1.0
        rows.append((oa, ob, n, se, se_naive, df, sizes, resid, only_a_g + only_b_g))
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_binary_pair_intervals_equal_the_scalar_rule(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_pairs = int(rng.choice([1, 2, 6, 15]))
    clustered = seed % 3 != 0
    if clustered:
        rules = clustered_case(rng, n_pairs)
    else:
        b, c, n = random_counts(rng, n_pairs)
        rules = [(b[p], c[p], n[p], 0.01, 0.01, n[p] - 1.0, None, None, None) for p in range(n_pairs)]
    for confidence in (0.95, 0.9):
        got = pair_rules(rules, confidence)
        for rule, g in zip(rules, got, strict=True):
            want = binary_pair_interval(*rule[:7], confidence=confidence, resid_sums=rule[7], discordant=rule[8])
            assert g[3] == want[3] and all(same(x, y) for x, y in zip(g[:3], want[:3], strict=True)), (rule[:6], g,
                                                                                                      want)


def test_mixed_cluster_sizes_are_solved_apart() -> None:
    rng = np.random.default_rng(7)
    rules = clustered_case(rng, 3) + clustered_case(rng, 2) + [(3.0, 1.0, 40.0, 0.1, 0.1, 39.0, None, None, None)]
    got = pair_rules(rules, 0.95)
    for rule, g in zip(rules, got, strict=True):
        want = binary_pair_interval(*rule[:7], confidence=0.95, resid_sums=rule[7], discordant=rule[8])
        assert all(same(x, y) for x, y in zip(g[:3], want[:3], strict=True))


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_cell_mover_ps_equal_the_scalar_p(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cells, dfs, want = [], [], []
    for _ in range(150):
        (oa, ob, n, _, _, df, sizes, resid, disc), = clustered_case(rng, 1)
        a_g, b_g = discordant_cells(oa, ob, sizes, resid, disc)
        cells.append(_cells(a_g, b_g, sizes))
        dfs.append(max(df, 1.0))
        want.append(cell_mover_p(a_g, b_g, sizes, max(df, 1.0)))
    got = cell_mover_ps(cells, np.array(dfs))  # one batch (the k-section from the start)
    alone = [float(cell_mover_ps([c], np.array([v]))[0]) for c, v in zip(cells, dfs, strict=True)]  # steps ahead
    assert all(same(float(x), y) and same(z, y) for x, y, z in zip(got, want, alone, strict=True))
    assert np.isfinite(got).sum() >= 40  # the k-section ran on many of them


def test_batched_rule_on_one_pair_is_the_rule_without_clusters() -> None:
    (low, high, p, kind), = binary_pair_intervals([12.0], [3.0], [200.0], [0.02], [0.02], [199.0], None)
    want = binary_pair_interval(12.0, 3.0, 200, 0.02, 0.02, 199.0, None)
    assert (low, high, p, kind) == want and kind == "tango"
