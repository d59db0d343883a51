"""The sufficient statistics (issue 25): ``analyze_sums(file_sums(t))`` gives the per-slice numbers, and a new
confidence level, adjustment or interval choice is recomputed from the kept sums alone."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from evalstats_core.analysis import analyze, analyze_sums
from evalstats_core.clustering import summarize
from evalstats_core.comparison import compare
from evalstats_core.data import QuestionTable
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.sums import FileSums, file_sums

TOL = dict(rel=1e-12, abs=1e-13, nan_ok=True)


def table_of(scores: np.ndarray, answered: np.ndarray, k: np.ndarray, codes: np.ndarray | None,
             kind: str) -> QuestionTable:
    n_q, n_m = scores.shape
    scores = np.where(answered, scores, np.nan)
    k = np.where(answered, k, 0)
    n_c = None if codes is None else int(codes.max()) + 1
    return QuestionTable(
        name="t.csv", models=tuple(f"m{j}" for j in range(n_m)), questions=np.arange(n_q).astype(str),
        scores=scores, k=k.astype(np.int64), answered=answered, cluster_codes=codes,
        clusters=None if codes is None else np.array([f"c{i}" for i in range(n_c)], dtype=object),
        n_clusters=n_c, cluster_col=None if codes is None else "cluster", score_kind=kind)


@st.composite
def designs(draw):
    n_q = draw(st.integers(4, 40))
    n_m = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    binary = draw(st.booleans())
    k_max = draw(st.sampled_from([1, 1, 3]))
    k = rng.integers(1, k_max + 1, size=(n_q, n_m))
    if binary:  # K runs of 0/1 answers averaged per question
        p = rng.random(n_q)[:, None]
        scores = rng.binomial(k, p) / k
    else:
        scores = np.round(rng.normal(5.0, 2.0, size=(n_q, n_m)), draw(st.sampled_from([0, 1, 3])))
    missing = draw(st.sampled_from([0.0, 0.0, 0.15]))
    answered = rng.random((n_q, n_m)) >= missing
    clusters = draw(st.sampled_from(["none", "few", "singletons", "many"]))
    codes = None
    if clusters != "none":
        g = {"few": 3, "singletons": n_q, "many": max(2, n_q // 3)}[clusters]
        codes = np.arange(n_q) if clusters == "singletons" else rng.integers(0, g, n_q)
        _, codes = np.unique(codes, return_inverse=True)  # codes 0 .. G-1, every code used
    return table_of(scores, answered, k, codes, "binary" if binary else "continuous")


def _usable(t: QuestionTable) -> bool:
    a = t.answered
    per = a.sum(axis=0)
    shared = [int((a[:, i] & a[:, j]).sum()) for j in range(a.shape[1]) for i in range(j)]
    return bool(per.min() >= 2 and min(shared) >= 2)


def _slices(t: QuestionTable, *, confidence: float, method: str, interval: str, paired: bool):
    """The per-slice reference: summarize / compare on each model's and each pair's rows (the old path)."""
    rows, pairs = [], []
    codes = t.cluster_codes
    for j in range(len(t.models)):
        m = t.answered[:, j]
        cl = None if codes is None or np.unique(codes[m]).size < 2 else codes[m]
        rows.append(summarize(t.scores[m, j], cl, confidence=confidence, method=method,
                              interval="auto" if interval == "auto" else "normal"))
    for i in range(len(t.models)):  # analyze's order: every later model against each earlier one
        for j in range(i + 1, len(t.models)):
            both = t.answered[:, j] & t.answered[:, i]
            cl = None if codes is None or np.unique(codes[both]).size < 2 else codes[both]
            pairs.append(compare(t.scores[both, j], t.scores[both, i], cl, paired=paired, confidence=confidence,
                                 method=method, interval="normal" if interval == "normal" else "auto"))
    return rows, pairs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=designs(), method=st.sampled_from(["cr2", "cr1"]), interval=st.sampled_from(["auto", "normal"]),
       paired=st.booleans(), confidence=st.sampled_from([0.9, 0.95, 0.99]))
def test_sums_path_equals_per_slice_path(t, method, interval, paired, confidence):
    assume(_usable(t))
    res = analyze_sums(file_sums(t), confidence=confidence, method=method, interval=interval, paired=paired)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        rows, pairs = _slices(t, confidence=confidence, method=method, interval=interval, paired=paired)
    for r, s in zip(res.models, rows, strict=True):
        assert r.n == s.n
        for f in ("mean", "se", "se_naive", "df", "ci_low", "ci_high"):
            assert getattr(r, f) == pytest.approx(getattr(s, f), **TOL), (f, r, s)
        if r.n_clusters is not None:
            assert (r.n_clusters, r.deff) == (s.n_clusters, pytest.approx(s.deff, **TOL))
    for c, s in zip(res.comparisons, pairs, strict=True):
        assert c.n == s.n
        for f, g in (("mean_model", "mean_a"), ("mean_baseline", "mean_b"), ("diff", "diff"), ("se", "se"),
                     ("ci_low", "ci_low"), ("ci_high", "ci_high"), ("p_value", "p_value"), ("z", "z"),
                     ("se_unpaired", "se_unpaired"), ("se_paired", "se_paired"), ("correlation", "correlation"),
                     ("df", "df")):
            assert getattr(c, f) == pytest.approx(getattr(s, g), **TOL), (f, c, s)
        assert (c.only_model, c.only_baseline) == ((s.only_a, s.only_b) if paired else (None, None))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=designs())
def test_merged_sums_equal_the_sums_without_clusters(t):
    assume(t.cluster_codes is not None and _usable(t))
    flat = file_sums(table_of(t.scores, t.answered, t.k, None, t.score_kind))
    merged = file_sums(t).merged()
    for a, b in zip(merged.model_sums, flat.model_sums, strict=True):
        assert a.count.tolist() == b.count.tolist() and a.not01.tolist() == b.not01.tolist()
        assert a.mean[0] == pytest.approx(b.mean[0], **TOL) and a.m2[0] == pytest.approx(b.m2[0], rel=1e-11, abs=1e-11)
    for p, q in zip(merged.pair_sums, flat.pair_sums, strict=True):
        for f in ("count", "only_model", "only_baseline", "not01"):
            assert getattr(p, f).tolist() == getattr(q, f).tolist(), f
        for f in ("mean_model", "mean_baseline", "m2_model", "m2_baseline", "m2_diff", "comoment"):
            assert getattr(p, f)[0] == pytest.approx(getattr(q, f)[0], rel=1e-11, abs=1e-11), f
        assert (p.diff_min, p.diff_max, p.n_left_out) == (q.diff_min, q.diff_max, q.n_left_out)


def _fields_equal(a, b) -> None:
    assert len(a.models + a.comparisons) == len(b.models + b.comparisons)
    for x, y in zip(a.models + a.comparisons, b.models + b.comparisons, strict=True):
        for f in x.__slots__:
            u, v = getattr(x, f), getattr(y, f)
            assert u == v or (isinstance(u, float) and math.isnan(u) and math.isnan(v)), (f, u, v)
    assert a.warnings == b.warnings


@pytest.mark.parametrize("clustered", [False, True])
def test_new_settings_from_kept_sums_equal_a_fresh_analysis(clustered):
    rng = np.random.default_rng(3)
    n_q = 400
    scores = (rng.random((n_q, 3)) < [0.6, 0.65, 0.9]).astype(float)
    codes = rng.integers(0, 7, n_q) if clustered else None
    t = table_of(scores, np.ones((n_q, 3), bool), np.ones((n_q, 3), int), codes, "binary")
    kept = file_sums(t)
    for kw in (dict(confidence=0.9), dict(adjust="bh"), dict(interval="wilson"), dict(interval="normal"),
               dict(method="cr1", confidence=0.99), dict(baseline="m2", paired=False)):
        _fields_equal(analyze_sums(kept, **kw), analyze(t, **kw))


def test_a_model_with_no_answer_in_a_cluster_and_runs():
    """Empty (model, cluster) cells: count 0, mean nan, m2 0; K > 1: the histogram of runs."""
    scores = np.array([[1.0, 0.5], [0.0, 1.0], [1.0, 0.0], [0.5, 1.0], [1.0, 1.0], [0.0, 0.0]])
    answered = np.array([[1, 1], [1, 1], [1, 1], [1, 0], [1, 1], [1, 1]], bool)
    k = np.array([[1, 2], [1, 1], [1, 1], [2, 1], [1, 1], [1, 1]])
    codes = np.array([0, 0, 1, 1, 2, 2])
    t = table_of(scores, answered, k, codes, "binary")
    t2 = table_of(scores, answered, k, np.array([0, 0, 1, 2, 3, 3]), "binary")
    s = file_sums(t2)
    m1 = s.model_sums[1]
    assert m1.count.tolist() == [2, 1, 0, 2] and math.isnan(m1.mean[2]) and m1.m2[2] == 0.0
    assert m1.k_values.tolist() == [1, 2] and m1.k_counts.tolist() == [4, 1]
    assert s.model_sums[0].not01.tolist() == [0, 0, 1, 0]
    p = s.pair(1, 0)
    assert p.count.tolist() == [2, 1, 0, 2] and p.n_left_out == 1 and p.not01.tolist() == [1, 0, 0, 0]
    assert (p.diff_min, p.diff_max) == (-1.0, 1.0)  # d = (-0.5, 1, -1, 0, 0) on the shared rows
    flipped = s.pair(0, 1)
    assert (flipped.model, flipped.mean_model[0], flipped.diff_min) == ("m0", 0.5, -1.0)
    assert isinstance(s, FileSums) and file_sums(t).clusters == ("c0", "c1", "c2")


def test_huge_scores_are_rescaled_exactly():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(30, 2))
    t_small = table_of(base, np.ones((30, 2), bool), np.ones((30, 2), int), None, "continuous")
    t_huge = table_of(np.ldexp(base, 600), np.ones((30, 2), bool), np.ones((30, 2), int), None, "continuous")
    small, huge = analyze(t_small), analyze(t_huge)
    assert file_sums(t_huge).exponent > 400 and huge.unit == "score"
    for a, b in zip(small.models + small.comparisons, huge.models + huge.comparisons, strict=True):
        assert math.ldexp(a.se, 600) == pytest.approx(b.se, rel=1e-14)


def test_minimum_and_maximum_of_0_1_columns_from_the_counts():
    """0/1 answers with one run: min and max come from the counts (all right: both 1; all wrong: both 0)."""
    scores = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    t = table_of(scores, np.ones((3, 3), bool), np.ones((3, 3), int), np.array([0, 1, 1]), "binary")
    got = [(m.minimum, m.maximum) for m in file_sums(t).model_sums]
    assert got == [(1.0, 1.0), (0.0, 0.0), (0.0, 1.0)]
    assert file_sums(t).unit01
    cont = table_of(scores * 3.0, np.ones((3, 3), bool), np.ones((3, 3), int), None, "continuous")
    assert [(m.minimum, m.maximum) for m in file_sums(cont).model_sums] == [(3.0, 3.0), (0.0, 0.0), (0.0, 3.0)]
    assert not file_sums(cont).unit01


def test_kept_moments_and_cr2_weights_give_a_fresh_analysis_exactly():
    """What analyze_sums keeps in FileSums.memo (moments per model and pair, CR2 weights per count vector)
    gives, at every later setting, the numbers of sums computed afresh."""
    rng = np.random.default_rng(5)
    n_q = 600
    codes = rng.integers(0, 60, n_q)
    scores = rng.random(60)[codes][:, None] + rng.normal(0, 0.3, (n_q, 3))
    answered = np.ones((n_q, 3), bool)
    answered[rng.random(n_q) < 0.1, 2] = False  # the third model skips some questions: other sizes
    t = table_of(scores, answered, np.ones((n_q, 3), int), codes, "continuous")
    kept = file_sums(t)
    for kw in (dict(), dict(confidence=0.8), dict(method="cr1"), dict(adjust="bh", confidence=0.99),
               dict(baseline="m0", paired=False), dict(use_clusters=False, confidence=0.9)):
        _fields_equal(analyze_sums(kept, **kw), analyze_sums(file_sums(t), **kw))
    assert kept.memo and not file_sums(t).memo


@pytest.mark.parametrize("n_clusters", [None, 7])
def test_answer_patterns_give_the_per_column_sums_exactly(monkeypatch, n_clusters):
    """0/1 tables: the sums counted from the answer patterns (one bincount; the Gram matrix without clusters)
    equal the per-column and per-pair sums to the last bit."""
    from evalstats_core._sums_groups import Patterns

    rng = np.random.default_rng(11)
    n_q, n_m = 300, 4
    scores = (rng.random((n_q, n_m)) > np.linspace(0.2, 0.7, n_m)).astype(float)
    codes = None if n_clusters is None else rng.integers(0, n_clusters, n_q)
    table = table_of(scores, np.ones((n_q, n_m), bool), np.ones((n_q, n_m), np.int64), codes, "binary")
    assert Patterns.of(table.scores, codes, 1 if codes is None else table.n_clusters) is not None
    fast = file_sums(table)
    monkeypatch.setattr(Patterns, "of", classmethod(lambda cls, *args: None))  # the per-column path
    slow = file_sums(table)
    for x, y in zip(fast.model_sums + fast.pair_sums, slow.model_sums + slow.pair_sums, strict=True):
        for f in x.__slots__:
            u, v = getattr(x, f), getattr(y, f)
            assert np.array_equal(u, v, equal_nan=isinstance(u, np.ndarray) and u.dtype.kind == "f"), f


@pytest.mark.parametrize("n_clusters", [None, 9])
@pytest.mark.parametrize("n_q", [12, 400])
def test_summarize_and_compare_of_01_scores_read_the_sums_of_analyze(n_clusters, n_q):
    """0/1 scores: summarize and compare count ones (per cluster) and both-right, as file_sums does, so their
    means, SEs, df and intervals are analyze's to the last bit (a few ulps for the clustered co-moment, which
    analyze sums per cluster)."""
    rng = np.random.default_rng(n_q)
    scores = (rng.random((n_q, 3)) > np.array([0.3, 0.5, 0.8])).astype(float)
    codes = None if n_clusters is None else np.arange(n_q) % n_clusters
    t = table_of(scores, np.ones((n_q, 3), bool), np.ones((n_q, 3), np.int64), codes, "binary")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        res = analyze(t)
        for j, r in enumerate(res.models):
            s = summarize(scores[:, j], codes)
            assert (s.mean, s.se, s.df, s.ci_low, s.ci_high) == (r.mean, r.se, r.df, r.ci_low, r.ci_high), (j, s, r)
        pairs = [(j, i) for j in range(3) for i in range(j)]
        for (j, i), p in zip(pairs, sorted(res.comparisons, key=lambda p: (p.model, p.baseline)), strict=True):
            assert (p.model, p.baseline) == (f"m{j}", f"m{i}")
            c = compare(scores[:, j], scores[:, i], codes)
            assert (c.mean_a, c.mean_b, c.diff, c.se, c.se_unpaired, c.df, c.only_a, c.only_b) == (
                p.mean_model, p.mean_baseline, p.diff, p.se, p.se_unpaired, p.df, p.only_model, p.only_baseline)
            assert c.correlation == (p.correlation if codes is None else pytest.approx(p.correlation, rel=1e-14))
            assert (c.ci_low, c.ci_high) == ((p.ci_low, p.ci_high) if codes is None
                                             else (pytest.approx(p.ci_low, rel=1e-13), pytest.approx(p.ci_high, rel=1e-13)))


@pytest.mark.parametrize("k", [np.full((5, 3), 2), np.zeros((4, 2), np.int64), np.array([[1, 2], [1, 0], [3, 1]]),
                               np.empty((0, 2), np.int64)])
def test_runs_histograms_equal_bincount_of_every_column(k):
    """The runs histograms read from the table's smallest and largest value (every question answered alike)
    equal np.bincount of each column, dtype included; a table with varied runs takes the per-column path."""
    from evalstats_core._sums_groups import runs_histograms

    got = runs_histograms(k)
    assert len(got) == k.shape[1]
    for j, h in enumerate(got):
        want = np.bincount(k[:, j])
        assert h.dtype == want.dtype and np.array_equal(h, want)
