"""Few clusters: the analysis says what clustering costs, with the clustered and unclustered intervals that
two analyses (clustered and not) give, in the sentence the command line and the workbench print."""

import math
from pathlib import Path

import pytest

from evalstats_core.analysis import (  # cluster_cost merged here (issue 38)
    FEW_CLUSTERS,
    analyze,
    clustering_cost,
)
from evalstats_core.data import load, question_scores

DESIGNS = Path(__file__).parent / "fixtures" / "cr2_designs"


@pytest.mark.parametrize("file, interval", [("tiny_3.csv", "auto"), ("two_clusters.csv", "auto"),
                                            ("tiny_3.csv", "normal"), ("continuous_6.csv", "auto")])
def test_cost_is_the_clustered_and_the_unclustered_analysis_side_by_side(file, interval):
    ds = load(DESIGNS / file)
    clustered = analyze(ds, interval=interval)
    plain = analyze(ds, interval=interval, use_clusters=False)
    costs = clustering_cost(question_scores(ds), clustered.models, confidence=0.95, method="cr2", interval=interval)
    few = [m for m in clustered.models if m.n_clusters is not None and m.n_clusters < FEW_CLUSTERS]
    assert [c.model for c in costs] == [m.model for m in few]
    sentence = [w for w in clustered.warnings if w.startswith("what clustering on")]
    assert len(sentence) == (1 if few else 0)
    for c, m in zip(costs, few, strict=True):
        other = next(p for p in plain.models if p.model == m.model)
        assert c.clustered == (m.ci_low, m.ci_high) and c.df == m.df
        assert c.unclustered == pytest.approx((other.ci_low, other.ci_high), abs=0, rel=1e-12)
        assert c.ratio > 1.0  # few clusters: the clustered interval is the wider one here
        words = f"{100 * m.ci_low:.1f}% to {100 * m.ci_high:.1f}%"  # the sentence quotes the numbers beside it
        if ds.score_kind == "binary":
            assert words in sentence[0] and f"{100 * other.ci_low:.1f}% to {100 * other.ci_high:.1f}%" in sentence[0]
            assert f"{m.df:.1f} df" in sentence[0]
        if "Wilson" in other.interval:
            assert math.isinf(c.unclustered_df)


def test_no_cost_sentence_with_many_clusters():
    root = Path(__file__).parent.parent / "examples"
    a = analyze(load(root / "multilingual_clustered.csv"))
    assert a.clustered and a.n_clusters >= FEW_CLUSTERS
    assert not any(w.startswith("what clustering on") for w in a.warnings)
