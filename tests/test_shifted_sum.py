"""``_clusters.centred`` shifts and sums the scores leaf by leaf: the same doubles as one shift and numpy's sum."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats_core import _clusters
from evalstats_core._clusters import centred


def _plain(arr: np.ndarray) -> tuple[np.ndarray, float]:
    """The two-step form: every score shifted by the first, numpy's sum of that, then the mean taken off."""
    shift = float(arr[0])
    resid = arr - shift
    offset = float(resid.sum()) / arr.size
    resid -= offset
    return resid, shift + offset


@pytest.mark.parametrize("seed", range(6))
def test_centred_equals_one_shift_and_numpys_sum_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = [1, 7, 8, 9, 129, _clusters._LEAF, _clusters._LEAF + 1, 3 * _clusters._LEAF + 5,
             int(rng.integers(100_000, 1_500_000))]
    for n in sizes:
        for scale in (1.0, 1e6, 1e-3):
            base = rng.random(n) * scale + rng.choice([0.0, 0.5, -3.0])
            for arr in (base, np.repeat(base, 2)[::2]):  # contiguous, and a strided view (a table's column)
                got, mean = centred(arr, "scores")
                want, want_mean = _plain(arr)
                assert mean == want_mean
                assert got.tobytes() == want.tobytes()


def test_the_leaves_split_where_numpy_does() -> None:
    """A sum whose leaves were cut anywhere else than numpy's halves would differ in the last bits here."""
    rng = np.random.default_rng(11)
    arr = rng.standard_normal(1_000_003) * 1e8
    out = np.empty(arr.size)
    assert _clusters._shifted_sum(arr, 0.25, out, 0, arr.size) == (arr - 0.25).sum()
    naive = sum(float((arr[i:i + _clusters._LEAF] - 0.25).sum()) for i in range(0, arr.size, _clusters._LEAF))
    assert naive != (arr - 0.25).sum()  # the order matters at this size: the test can fail


def test_non_finite_scores_are_named() -> None:
    arr = np.zeros(200_000)
    arr[150_000] = np.inf
    with pytest.raises(Exception, match=r"scores\[150000\] is inf"):
        centred(arr, "scores")
