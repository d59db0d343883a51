"""The sums of a 0/1 table without groups in plain floats (private): :func:`~evalstats_core.sums.file_sums`'s
fixed cost at any size, where the per-group arrays hold one element each."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["binary_table_one"]


def binary_table_one(names: tuple[str, ...], gram: np.ndarray, count: np.ndarray, runs: list[tuple],
                     model_sums: Any, pair_sums: Any) -> tuple[list, list]:
    """:func:`~evalstats_core.sums._binary_table_sums` for one group of ``n > 0`` questions: every model's and
    pair's fields from the Gram matrix ``gram`` (shape ``(m, m, 1)``) with the same IEEE operations in the same
    order as :func:`~evalstats_core._sums_groups.binary_moments` and
    :func:`~evalstats_core._sums_groups.binary_pair_moments` (so the same doubles), in Python floats instead of
    a dozen numpy calls on arrays of one element; the one-element arrays are made once per model and shared by
    its pairs, as there. ``runs``: each model's ``(k_values, k_counts)``; ``model_sums``, ``pair_sums``: the
    classes."""
    n = int(count[0])
    n_m = gram.shape[0]
    g = gram[:, :, 0].tolist()  # exact integers as floats
    ones = [g[j][j] for j in range(n_m)]
    means = [np.array([o / n]) for o in ones]  # binary_moments: ones / count, ones * (count - ones) / count
    m2s = [np.array([o * (n - o) / n]) for o in ones]
    zero = np.zeros(1, np.int64)
    models = [model_sums(names[j], count, means[j], m2s[j], zero, *runs[j], float(not ones[j] < n),
                         float(ones[j] != 0.0)) for j in range(n_m)]
    pairs = []
    for j in range(n_m):
        for i in range(j):
            both, oa, ob = g[j][i], ones[j], ones[i]
            only_a, only_b = oa - both, ob - both  # binary_pair_moments, element by element
            disc, net = only_a + only_b, only_a - only_b
            co, m2d = (both * n - oa * ob) / n, (disc * n - net * net) / n
            a_any, b_any = only_a != 0.0, only_b != 0.0
            lo, hi = -1.0, 1.0  # as _binary_table_sums
            if not (a_any and b_any):
                agree = disc < n  # some question where d = 0
                lo = -1.0 if b_any else (0.0 if agree else 1.0)
                hi = 1.0 if a_any else (0.0 if agree else -1.0)
            mu = net / n  # binary_diff_m3, in floats
            pairs.append(pair_sums(names[j], names[i], count, means[j], means[i], m2s[j], m2s[i], np.array([m2d]),
                                   np.array([co]), np.array([int(only_a)], np.int64),
                                   np.array([int(only_b)], np.int64), zero, lo, hi, 0,
                                   np.array([net - 3.0 * mu * disc + 2.0 * n * (mu * mu * mu)])))
    return models, pairs
