"""Clustered scores in [0, 1] that are not 0/1 near the ceiling (issue 20): the quasi-binomial rule.

The coverage tests fail on the old code (CR2's t, or at least the cluster means' interval: 87-89% at 80%
and 68-70% at 95% with two clusters, 80% at 90% with three); the vectorised intervals behind the coverage
tables are checked against ``summarize`` and ``analyze``, and unbounded scores keep their old interval.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.bounded_means import within_dispersion
from evalstats_core.clustering import summarize
from evalstats_core.data import load
from evalstats_core.edge_coverage import clustered_mean_intervals, draw_cluster_scores
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.vocabulary import INTERVAL_LABELS


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        return fn(*args, **kwargs)


def covered(iv, mean):
    return float(np.mean((iv[0] <= mean) & (mean <= iv[1])))


def test_two_clusters_of_partial_credit_at_80_percent_keep_their_level_in_summarize():
    """100 + 100 partial-credit scores at 80%, ICC 0.3, through ``summarize`` itself: t covered 89%."""
    gen = np.random.default_rng(2041)
    sz = np.array([100.0, 100.0])
    labels = np.repeat([0, 1], 100)
    hits = 0
    for _ in range(300):
        r = np.clip(gen.beta(0.8 * 7 / 3, 0.2 * 7 / 3, 2), 1e-9, 1 - 1e-9)[labels]  # ICC 0.3
        s = quiet(summarize, gen.beta(2 * r, 2 * (1 - r)), labels)
        hits += s.ci_low <= 0.8 <= s.ci_high
        assert 0.0 <= s.ci_low <= s.ci_high <= 1.0
    assert hits / 300 >= 0.93
    assert sz.sum() == 200


@pytest.mark.parametrize(("sizes", "mean", "icc", "kind"), [
    ((100, 100), 0.95, 0.2, "partial"),  # t 68%
    ((500, 500), 0.95, 0.3, "k3"),  # the mean of 3 runs: t 59%
    ((60, 60, 60), 0.9, 0.2, "k3"),  # t 80%
    ((300, 300, 300), 0.9, 0.2, "q5"),  # 5 runs of a question's own rate: t 81%
    ((900, 50, 50), 0.9, 0.3, "narrow"),  # one big cluster: the cluster means' interval 81%
])
def test_bounded_scores_near_the_ceiling_keep_their_level(sizes, mean, icc, kind):
    gen = np.random.default_rng(2042)
    sz = np.asarray(sizes, dtype=np.float64)
    means, m2 = draw_cluster_scores(sz, mean, icc, 1000, gen, kind=kind)
    iv = clustered_mean_intervals(means, sz, m2=m2)
    old = clustered_mean_intervals(means, sz)["default"]  # the rule before: t, or at least the cluster means'
    assert covered(old, mean) < 0.92  # the design is hard for the old default
    assert covered(iv["default"], mean) >= 0.93, covered(iv["default"], mean)
    assert np.all((iv["default"][0] >= 0.0) & (iv["default"][1] <= 1.0))


def test_vectorised_bounded_intervals_equal_summarize_and_analyze():
    gen = np.random.default_rng(2043)
    seen = set()
    for sizes in ((500, 500), (900, 50, 50), (300, 300, 300), (200,) * 5, (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)):
        sz = np.asarray(sizes, dtype=np.float64)
        labels = np.repeat(np.arange(sz.size), sizes)
        for mean in (0.5, 0.9, 0.97):
            r = np.clip(gen.beta(mean * 5, (1 - mean) * 5, sz.size), 1e-3, 1 - 1e-3)[labels]
            x = gen.beta(3 * r, 3 * (1 - r))
            means = np.bincount(labels, weights=x) / sz
            m2 = np.bincount(labels, weights=(x - means[labels]) ** 2)
            got = clustered_mean_intervals(means[None], sz, m2=m2[None])["default"]
            s = quiet(summarize, x, labels)
            seen.add(s.interval)
            assert (s.ci_low, s.ci_high) == pytest.approx((got[0][0], got[1][0]), abs=1e-9)
            frame = pd.DataFrame({"question": np.arange(x.size), "cluster": labels, "score": x, "model": "m"})
            a = quiet(analyze, load(frame, cluster_col="cluster"))  # chosen: 2-4 found by name are not read (46.6)
            assert (a.models[0].ci_low, a.models[0].ci_high) == pytest.approx((s.ci_low, s.ci_high), abs=1e-12)
            assert a.models[0].interval == (INTERVAL_LABELS[s.interval] if s.interval != "normal"
                                            else "CR2 t (Satterthwaite df)")
    assert {"quasi-binomial", "cluster-means"} <= seen


def test_unbounded_and_unclustered_scores_keep_their_interval():
    gen = np.random.default_rng(2044)
    labels = np.repeat(np.arange(3), 300)
    x = np.clip(gen.beta(9, 1, 900) + 0.05 * (labels == 0), 0.0, 1.0)
    inside = quiet(summarize, x, labels)
    assert inside.interval == "quasi-binomial"
    for scale in (1.5, 100.0):  # beyond [0, 1]: the scale's bounds are unknown, CR2's t as before
        out = quiet(summarize, x * scale, labels)
        t = quiet(summarize, x * scale, labels, interval="normal")
        assert out.interval == "normal" and (out.ci_low, out.ci_high) == (t.ci_low, t.ci_high)
    shifted = quiet(summarize, x - 0.5, labels)  # in [-0.5, 0.5]: not known to be bounded either
    assert shifted.interval == "normal"
    plain = quiet(summarize, x)  # no clusters: t, as before
    assert plain.interval == "normal"


def test_within_dispersion_is_one_for_0_1_and_one_over_k_for_k_runs():
    gen = np.random.default_rng(2045)
    labels = np.repeat(np.arange(4), 250)
    rates = np.array([0.6, 0.7, 0.8, 0.9])[labels]

    def phi(x):
        m = x.mean()
        sums = np.bincount(labels, weights=x - m)
        return within_dispersion(x.size, m, sums, np.bincount(labels).astype(float), float(((x - m) ** 2).sum()))

    assert phi((gen.random(1000) < rates).astype(float)) == pytest.approx(1.0, abs=1e-12)
    for k in (3, 5):
        assert phi(gen.binomial(k, rates) / k) == pytest.approx(1 / k, rel=0.1)
    assert phi(np.full(1000, 0.5) + 0.1 * (labels == 0)) == pytest.approx(0.0, abs=1e-12)  # all at their mean
