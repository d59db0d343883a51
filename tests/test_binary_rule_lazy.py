"""The clustered 0/1 rule of one model (:func:`evalstats_core.proportions.binary_mean_interval`) takes the per-cluster
wins and ``few_clusters_worth`` as functions (issue 25): the same interval as with the values, and the wins made only
where the rule reads them (not at all for a large file, where t is right)."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats_core.cluster_means import few_clusters_worth
from evalstats_core.proportions import binary_mean_interval


def design(n_clusters: int, per: int, accuracy: float, seed: int):
    rng = np.random.default_rng(seed)
    sizes = np.full(n_clusters, float(per))
    wins = rng.binomial(per, np.clip(accuracy + rng.normal(0.0, 0.05, n_clusters), 0.0, 1.0)).astype(np.float64)
    n = float(sizes.sum())
    mean = float(wins.sum()) / n
    s = wins - sizes * mean
    se = float(np.sqrt((s * s).sum())) / n
    return mean, se, int(n), float(n_clusters - 1), sizes, wins


@pytest.mark.parametrize(("n_clusters", "per", "accuracy"), [(10_000, 25, 0.6), (12, 10, 0.97), (3, 40, 0.9),
                                                              (2, 30, 0.95), (40, 5, 0.99)])
def test_functions_give_the_values_interval(n_clusters: int, per: int, accuracy: float) -> None:
    mean, se, n, df, sizes, wins = design(n_clusters, per, accuracy, 1)
    asked = []

    def lazy_wins() -> np.ndarray:
        asked.append("wins")
        return wins

    def lazy_few() -> bool:
        asked.append("few")
        return few_clusters_worth(sizes)

    want = binary_mean_interval(mean, se, n, df, sizes, successes=wins, few_worth=few_clusters_worth(sizes))
    got = binary_mean_interval(mean, se, n, df, sizes, successes=lazy_wins, few_worth=lazy_few)
    assert got == want
    if n_clusters == 10_000:  # t is right on 250,000 questions: the wins are never made
        assert want is None and "wins" not in asked
    else:
        assert want is not None and "wins" in asked
