"""Tango's k-section from the statistic's threshold (:func:`evalstats_core._tango_fast.threshold_path`) is the numpy
k-section, every step's bracket to the last bit: on drawn whole and effective counts, 1 to 1e9 questions, with and without a
continuity correction, at several confidence levels; it is taken at the sizes it is for (1e5 questions and more), and
where it cannot tell (a flat statistic, few questions) it says so and the slower path answers, the same numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core import _pair_batch, _tango_fast
from evalstats_core._pair_batch import _STEPS, _tango_path, _tango_steps, _z_float
from evalstats_core._tango_fast import threshold_path
from evalstats_core._validate import z_for
from evalstats_core.pair_proportions import paired_proportion_ci


def counts(n: float, fa: float, fb: float, whole: bool) -> tuple[float, float, float]:
    b = math.floor(fa * n) if whole else fa * n
    c = math.floor(fb * (n - b)) if whole else fb * (n - b)
    return float(b), float(c), float(n)


def numpy_path(b: float, c: float, n: float, cc: float, aim: float, lo: float, hi: float) -> list[tuple[float, float]]:
    """The brackets of the k-section in numpy, step by step (the reference's trial points and operations)."""
    one = np.ones(1)
    path = [(lo, hi)]
    for _ in range(_STEPS):
        got = _tango_steps(b * one, c * one, n * one, aim * one, lo * one, hi * one, cc * one if cc else None, 1)
        lo, hi = float(got[0][0]), float(got[1][0])
        path.append((lo, hi))
    return path


def both_brackets(b: float, c: float, n: float, cc: float, confidence: float):
    z, d = z_for(confidence), (b - c) / n
    for aim, edge in ((z, -1.0), (-z, 1.0)):
        lo, hi = min(d, edge), max(d, edge)
        yield (b, c, n, cc, aim, lo, hi), threshold_path(b, c, n, cc, aim, lo, hi)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([1.0, 7.0, 30.0, 1000.0, 1e4, 1e5, 1e6, 1e7, 1e9]), st.floats(0.05, 1.0),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.booleans(), st.booleans(),
       st.sampled_from([0.95, 0.9, 0.99, 0.8]))
def test_the_path_is_the_numpy_ksections(n: float, scale: float, fa: float, fb: float, whole: bool,
                                          corrected: bool, confidence: float) -> None:
    """Where it answers, every bracket is the numpy k-section's, step by step (and so the interval's ends)."""
    b, c, size = counts(math.floor(n * scale) or 1.0 if whole else n * scale, fa, fb, whole)
    cc = min(1.0, (b + c) / 10.0) if corrected else 0.0
    for args, got in both_brackets(b, c, size, cc, confidence):
        if got is not None:
            assert got == numpy_path(*args), args


@pytest.mark.parametrize("seed", range(3))
def test_the_path_is_the_float_paths(seed: int) -> None:
    """Where it answers, the brackets are those of the path of first steps and error-bounded last steps."""
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = float(rng.choice([1e4, 1e5, 1e6, 1e7]))
        b, c, size = counts(n, rng.random() * 0.4, rng.random() * 0.4, bool(rng.random() < 0.5))
        cc = float(rng.choice([0.0, 1.0, 0.3]))
        for args, got in both_brackets(b, c, size, cc, 0.95):
            path = _tango_path(*args)
            if got is not None and len(path) > _STEPS:
                assert got == path, args


def test_it_is_taken_at_scale_and_equals_the_interval() -> None:
    """From 1e5 questions up, the usual pairs (5-20% of questions only one model got right) are answered here, with
    the interval's ends (all but a root close to 0, where the band spans many tiny doubles: 2 of 120 ends)."""
    rng = np.random.default_rng(7)
    answered = 0
    for n in (1e5, 1e6, 1e7):
        for _ in range(20):
            b, c, size = counts(n, rng.uniform(0.05, 0.2), rng.uniform(0.05, 0.2), True)
            cc = min(1.0, (b + c) / 10.0)
            z = z_for(0.95)
            ends = []
            for (_, _, _, _, aim, _, _), got in both_brackets(b, c, size, cc, 0.95):
                answered += got is not None
                edge = -1.0 if aim > 0 else 1.0
                if got is not None:
                    lo, hi = got[-1]
                    ends.append(edge if _z_float(b, c, size, edge, cc) * -edge <= z else 0.5 * (lo + hi))
            if len(ends) == 2:
                assert tuple(ends) == tuple(paired_proportion_ci(b, c, size, correction=cc)), (b, c, size)
    assert answered >= 115  # of 120 ends


def test_a_flat_statistic_is_left_to_the_slower_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """With 10 questions the high end's band between the sure points holds too many doubles: None there, and the
    ends (that one by the path of first steps and the numpy steps) are still the interval's."""
    b, c, size = 2.0, 3.0, 10.0
    assert [got is None for _, got in both_brackets(b, c, size, 1.0, 0.95)] == [False, True]
    taken = []
    monkeypatch.setattr(_pair_batch, "threshold_path", lambda *a: taken.append(a) or threshold_path(*a))
    got = _pair_batch._tango_ends(b, c, size, 0.95, 1.0)
    assert len(taken) == 2 and got == tuple(paired_proportion_ci(b, c, size, correction=1.0))


def test_the_usual_pair_takes_no_numpy_and_no_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 1e6 questions both ends come from the threshold: neither the path of first steps nor numpy is called."""
    want = tuple(paired_proportion_ci(110006.0, 60115.0, 1e6, correction=1.0))

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("slower path called")

    monkeypatch.setattr(_pair_batch, "_tango_path", fail)
    monkeypatch.setattr(_pair_batch, "_tango_steps", fail)
    assert _pair_batch._tango_ends(110006.0, 60115.0, 1e6, 0.95, 1.0) == want


def test_trial_points_at_most() -> None:
    """The count of trial points at most ``t`` is the count of the trial points themselves."""
    rng = np.random.default_rng(3)
    for _ in range(2000):
        lo = float(rng.uniform(-1, 1))
        width = float(rng.choice([1.0, 1e-6, 1e-12, 1e-15, 3e-17, 0.0])) * float(rng.random())
        t = lo + width * float(rng.uniform(-0.1, 1.1))
        want = sum(lo + width * (k / 64) <= t for k in range(1, 64))
        assert _tango_fast._at_most(t, lo, width) == want


def test_a_batch_with_one_slower_end_is_the_scalar_interval() -> None:
    """When one end of a batch is left to the slower path and the other is not, the k-section goes on from the
    same step for both (the brackets after each step, not only the last): no agreement on 658,601 effective
    questions is the scalar interval (the bug of a first draft that handed over only the last bracket)."""
    from evalstats_core._pair_batch import tango_intervals

    b, c, n = np.zeros(1), np.zeros(1), np.array([658601.0170134857])
    low, high = tango_intervals(b, c, n, confidence=0.999)
    assert (float(low[0]), float(high[0])) == tuple(paired_proportion_ci(0.0, 0.0, float(n[0]), confidence=0.999))
