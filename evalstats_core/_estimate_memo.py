"""What the estimators read from per-group sums, each made once per :attr:`FileSums.memo
<evalstats_core.sums.FileSums.memo>` (private): the moments of one model's sums, the non-empty groups, the CR2
weights of each cluster-size vector and the CR2 standard errors.

=================  ==========================================================================================
``_moments``       ``(n, mean, S_g, total centred sum of squares)`` of one model's per-group sums
``_used``          the index of the non-empty groups and their sizes as floats
``_kept``          ``make()``, kept in the memo under a tag and the identity of the arrays it reads
``_moments_of``    :func:`_moments`, once per model
``_cr2_of``        :func:`~evalstats_core._clusters.cr2_se_df` of a model's residual sums, once per model
``_weights``       the CR2 weights and Satterthwaite df of one cluster-size vector, once per distinct vector
=================  ==========================================================================================

The estimators that read them (:func:`~evalstats_core._estimate.summary_from`,
:func:`~evalstats_core._estimate.comparison_from` and the rest) live in :mod:`evalstats_core._estimate`, which
imports these names (so ``_estimate._moments`` still names the same function). None depends on the confidence
level, adjustment or interval: a new setting reuses them all.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._clusters import cr2_se_df, cr2_weights
from ._sums_groups import _kept, centre_kept


def _moments(count: np.ndarray, mean: np.ndarray, m2: np.ndarray, used: Any = None,
             memo: dict | None = None) -> tuple[int, float, np.ndarray, float]:
    """``(n, mean, S_g of the used groups, total centred sum of squares)`` (``used``: the index of
    :func:`_used`, when known; ``memo``: where the centring is kept, shared with :meth:`FileSums.merged
    <evalstats_core.sums.FileSums.merged>`)."""
    n, overall, dev = centre_kept(memo, count, mean)
    if used is None:
        used = count > 0
    # (C,) residual sums S_g = n_g (mean_g - mean); with a memo from the kept float sizes (the same doubles as the cast)
    s = (count[used] if memo is None else _used(memo, count)[1]) * dev[used]
    ss = max(0.0, float(np.sum(m2[used])) + float(s @ dev[used]))
    return n, overall, s, ss


def _used(memo: dict | None, count: np.ndarray) -> tuple[Any, np.ndarray]:
    """``(index of the groups with count > 0, their sizes as float64)``, once per count vector in ``memo``; the
    index is ``...`` (every element, as a view: no copy) when no group is empty, the usual file."""
    def make() -> tuple[Any, np.ndarray]:
        used = count > 0
        index = ... if used.all() else used
        return index, count[index].astype(np.float64)

    return _kept(memo, (count,), make, "used")


def _moments_of(memo: dict | None, count: np.ndarray, mean: np.ndarray, m2: np.ndarray) -> tuple:
    """:func:`_moments`, once per model in ``memo``: a pair over every question reads its models' own sums."""
    return _kept(memo, (count, mean, m2), lambda: _moments(count, mean, m2, _used(memo, count)[0], memo),
                 "moments")


def _cr2_of(memo: dict | None, arrays: tuple[np.ndarray, ...], s: np.ndarray, sizes: np.ndarray, n: int,
            w: tuple[np.ndarray, float]) -> tuple[float, float]:
    """:func:`~evalstats_core._clusters.cr2_se_df` of a model's residual sums ``s`` (from its ``arrays``: count, mean,
    m2), once per model in ``memo``: its summary and its pairs over the same questions read it."""
    return _kept(memo, arrays, lambda: cr2_se_df(s, sizes, n, w), "cr2-se")


def _weights(memo: dict | None, sizes: np.ndarray, n: int) -> tuple[np.ndarray, float] | None:
    """The CR2 weights and Satterthwaite df of one cluster-size vector, once per distinct vector in ``memo``."""
    if memo is None or sizes.size < 2:  # one cluster: never clustered (and 1 / (1 - n/n) is no weight)
        return None
    # by n and about 64 of the sizes, evenly spaced (no hash of the whole vector: every model and pair of a full table
    # shares one), then compared element by element with the vectors kept under that key
    known = memo.setdefault(("cr2", n, sizes.size, sizes[::max(1, sizes.size // 64)].tobytes()), [])
    for kept, w in known:
        if kept is sizes or np.array_equal(kept, sizes):
            return w
    w = cr2_weights(sizes, n)
    known.append((sizes, w))
    return w
