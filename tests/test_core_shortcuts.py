"""The core's speed shortcuts give the numbers of the full computation (issue 25).

A clustered 0/1 pair skips the interval rule's per-cluster work when ``t`` is sure (``_estimate._surely_t``):
on designs around the rule's threshold, where the disagreements bunch in few clusters so that the rule's own
degrees of freedom are small, every field of ``compare`` and ``analyze`` equals the one with the shortcut off,
and the shortcut does fire on some of them (else this test could not fail).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evalstats_core import _estimate
from evalstats_core.analysis import analyze
from evalstats_core.comparison import compare
from evalstats_core.data import QuestionTable


def _designs():
    rng = np.random.default_rng(25)
    for case in range(60):
        n_g = int(rng.choice([2, 3, 5, 8, 30, 200]))
        n = int(rng.choice([400, 2000, 20000]))
        codes = rng.integers(0, n_g, n)
        a = (rng.random(n) < 0.85).astype(float)
        flip = rng.random(n) < float(rng.choice([0.005, 0.02, 0.06, 0.2]))
        if case % 2:  # disagreements bunched in the first two clusters
            flip &= codes < 2
        b = np.where(flip, 1.0 - a, a)
        yield case, a, b, codes


def _tables():
    for case, a, b, codes in _designs():
        n_g = int(codes.max()) + 1
        scores = np.column_stack([a, b, np.where(np.arange(a.size) % 7 == 0, 1.0 - b, b)])
        yield QuestionTable(name=f"t{case}", models=("a", "b", "c"), questions=np.arange(a.size).astype(str),
                            scores=scores, k=np.ones(scores.shape, dtype=np.int64),
                            answered=np.ones(scores.shape, dtype=bool), cluster_codes=codes,
                            clusters=np.array([f"g{i}" for i in range(n_g)]), n_clusters=n_g, cluster_col="topic",
                            score_kind="binary")


@pytest.mark.parametrize("confidence", [0.95, 0.99, 0.8])
def test_the_clustered_pair_shortcut_changes_no_field(monkeypatch, confidence):
    fired = []
    real = _estimate._surely_t

    def spy(*args):
        out = real(*args)
        fired.append(out)
        return out

    warnings.simplefilter("ignore")
    with monkeypatch.context() as m:
        m.setattr(_estimate, "_surely_t", spy)
        fast = [repr(compare(a, b, codes, confidence=confidence)) for _, a, b, codes in _designs()]
        fast += [repr(analyze(t, confidence=confidence)) for t in _tables()]
    with monkeypatch.context() as m:
        m.setattr(_estimate, "_surely_t", lambda *args: False)
        full = [repr(compare(a, b, codes, confidence=confidence)) for _, a, b, codes in _designs()]
        full += [repr(analyze(t, confidence=confidence)) for t in _tables()]
    assert fast == full
    assert not all(fired)  # the full rule ran on some designs
    if confidence < 0.99:  # at 99% (t_1 = 63.7) these files are too small for the shortcut to be sure
        assert any(fired)  # the shortcut fired on some designs, so the equality above could fail


def test_the_shortcut_never_decides_a_zero_se():
    assert not _estimate._surely_t((500, 400), 0.0, 0.01, 0.95)
    assert not _estimate._surely_t((500, 400), 0.01, 0.0, 0.95)
