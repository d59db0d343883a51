"""file_sums of a 0/1 table without groups gives, element by element, the doubles of the same table stacked as two
groups, and the lazily made cluster labels behave as the tuple they stand for."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from evalstats_core._sums_groups import Patterns
from evalstats_core.sums import Labels, ModelSums, PairSums, _binary_table_sums, _labels, centre, file_sums


def _tables():
    rng = np.random.default_rng(5)
    yield np.array([[1.0, 1.0], [1.0, 1.0]])  # every answer right: no discordant question
    yield np.array([[0.0, 0.0, 0.0]] * 3)  # every answer wrong
    yield np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])  # a always right, b always wrong: d = 1 everywhere
    yield np.array([[0.0, 1.0]])  # one question
    yield np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # both orders of disagreement
    for m in (2, 3, 5):
        for n in (2, 7, 101, 5000):
            yield (rng.random((n, m)) < rng.random(m)).astype(np.float64)


def _fields(s):
    return [getattr(s, f) for f in s.__slots__]


@pytest.mark.parametrize("scores", list(_tables()))
def test_one_group_equals_the_first_of_two(scores):
    """One group against the same Gram matrix stacked twice (two equal groups): the array kernels' arithmetic is
    element by element, so the first group's doubles are the one group's."""
    n, m = scores.shape
    names = tuple(f"m{j}" for j in range(m))
    k_hist = [np.bincount(np.ones(n, dtype=np.int64))] * m
    gram = Patterns.of(scores, None, 1).gram
    one = np.array([n], dtype=np.int64)
    models, pairs = _binary_table_sums(names, Patterns(gram, None), one, k_hist)
    twice = Patterns(np.concatenate([gram, gram], axis=2), None)
    models2, pairs2 = _binary_table_sums(names, twice, np.array([n, n], dtype=np.int64), k_hist)
    assert len(pairs) == len(pairs2) == m * (m - 1) // 2
    for got, want in zip(models + pairs, models2 + pairs2, strict=True):
        assert type(got) is type(want) and type(got) in (ModelSums, PairSums)
        for g, w in zip(_fields(got), _fields(want), strict=True):
            if isinstance(w, np.ndarray) and w.shape[-1:] == (2,) and w.ndim == 1 and g.shape == (1,):
                assert g.dtype == w.dtype and g.tobytes() == w[:1].tobytes()  # bit for bit
            elif isinstance(w, np.ndarray):
                assert np.array_equal(g, w)
            else:
                assert g == w or (g != g and w != w)
    for p in pairs:  # a pair holds its models' own mean and m2 arrays (the estimators' memo keys on them)
        a, b = models[names.index(p.model)], models[names.index(p.baseline)]
        assert p.mean_model is a.mean and p.m2_baseline is b.m2


def test_centre_one_group_floats():
    for n, mean in ((1, 0.0), (7, 3 / 7), (500_000, 0.31), (3, -0.0), (2, 1e300)):
        got = centre(np.array([n]), np.array([mean]))
        used = np.array([True])  # the array formula of centre, written out
        m = np.where(used, np.array([mean]), 0.0)
        ref = float(m[0])
        overall = ref + float(np.array([n]) @ (m - ref)) / n
        assert got[0] == n and repr(got[1]) == repr(overall)
        assert got[2].tobytes() == np.where(used, m - overall, 0.0).tobytes()


def test_labels_are_the_tuple():
    for arr, want in ((np.array(["c0", "c1"]), ("c0", "c1")), (np.array([3, 1]), ("3", "1")),
                      (np.array(["x", 2], dtype=object), ("x", "2"))):
        lab = _labels(arr)
        assert isinstance(lab, Labels) and len(lab) == len(want) and bool(lab)
        assert lab == want and want == lab and not (lab != want) and lab != want[:1]
        assert list(lab) == list(want) and lab[0] == want[0] and lab[-1:] == want[-1:] and want[1] in lab
        assert hash(lab) == hash(want) and repr(lab) == repr(want)
        assert pickle.loads(pickle.dumps(lab)) == want and type(pickle.loads(pickle.dumps(lab))) is tuple
    assert not _labels(np.array([], dtype=str)) and len(_labels(np.array([], dtype=str))) == 0


def test_file_sums_labels_made_on_first_read():
    from evalstats_core.data import load, question_scores

    t = question_scores(load(b"question,cluster,A,B\n1,p,1,0\n2,q,0,0\n3,p,1,1\n4,r,0,1\n", name="c.csv",
                                 cluster_col="cluster"))  # chosen: 3 clusters found by name are not read (46.6)
    s = file_sums(t)
    assert s.clusters._tuple is None and len(s.clusters) == 3  # the length without the strings
    assert s.clusters == tuple(str(c) for c in t.clusters) and s.clusters._tuple is not None
