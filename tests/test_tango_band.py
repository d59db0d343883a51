"""Tango's interval without numpy (:func:`evalstats_core._pair_batch._tango_rule`, the last k-section steps by
:mod:`evalstats_core._tango_band`) equals the scalar rule and the numpy k-section bit for bit, and the error bound
it rests on holds: on drawn whole and effective counts, tiny to 1e9 questions, one-sided and balanced
disagreements, at several confidence levels."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core import _pair_batch, _tango_band
from evalstats_core._pair_batch import _tango_ends, _tango_rule, _z_float, binary_pair_intervals
from evalstats_core.pair_proportions import binary_pair_interval, continuity_correction, paired_proportion_ci


def same(x: float, y: float) -> bool:
    """Equal to the last bit (nan equals nan)."""
    return (math.isnan(x) and math.isnan(y)) or x == y


def counts(n: float, fa: float, fb: float, whole: bool) -> tuple[float, float, float]:
    b = math.floor(fa * n) if whole else fa * n
    c = math.floor(fb * (n - b)) if whole else fb * (n - b)
    return float(b), float(c), float(n)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([1.0, 2.0, 7.0, 30.0, 1000.0, 1e5, 1e6, 1e7, 1e9]), st.floats(0.5, 1.0),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.booleans(), st.sampled_from([0.95, 0.9, 0.99, 0.8]))
def test_the_float_rule_is_the_scalar_rule(n: float, scale: float, fa: float, fb: float, whole: bool,
                                           confidence: float) -> None:
    """The rule without clusters for one pair (ends, corrected p), as the scalar rule and the numpy k-section."""
    b, c, size = counts(n * scale if not whole else math.floor(n * scale) or 1.0, fa, fb, whole)
    got = _tango_rule(b, c, size, confidence)
    want = binary_pair_interval(b, c, size, 0.01, 0.01, size - 1.0, None, confidence=confidence)
    cc = float(continuity_correction(b, c))
    ends = paired_proportion_ci(b, c, size, confidence=confidence, correction=cc)
    assert got is not None and got[3] == want[3] == "tango"
    assert all(same(x, y) for x, y in zip(got[:3], want[:3], strict=True)), (b, c, size, got, want)
    assert (got[0], got[1]) == tuple(ends)


@settings(max_examples=300, deadline=None)
@given(st.floats(1.0, 1e8), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.booleans(), st.sampled_from([0.95, 0.9, 0.99]))
def test_the_float_ends_without_a_correction_are_tangos(n: float, fa: float, fb: float, whole: bool,
                                                        confidence: float) -> None:
    """The clustered rule's Tango ends (effective counts, real numbers; no correction) in floats, as the scalar."""
    b, c, size = counts(math.floor(n) if whole else n, fa, fb, whole)
    assert _tango_ends(b, c, size, confidence, 0.0) == tuple(paired_proportion_ci(b, c, size, confidence=confidence))


@pytest.mark.parametrize("seed", range(4))
def test_few_pairs_in_floats_equal_the_arrays(seed: int) -> None:
    """Up to four pairs take the float rule, more the arrays: the same numbers either way."""
    rng = np.random.default_rng(seed)
    n = rng.choice([50.0, 1000.0, 1e6], 12)
    b = np.floor(rng.random(12) * n * 0.3)
    c = np.floor(rng.random(12) * (n - b) * 0.3)
    many = binary_pair_intervals(b, c, n, [0.01] * 12, [0.01] * 12, n - 1.0, None)
    for i in range(0, 12, 3):
        few = binary_pair_intervals(b[i:i + 3], c[i:i + 3], n[i:i + 3], [0.01] * 3, [0.01] * 3, n[i:i + 3] - 1, None)
        assert all(all(same(x, y) for x, y in zip(f[:3], m[:3], strict=True)) and f[3] == m[3]
                   for f, m in zip(few, many[i:i + 3], strict=True))


def exact_z(b: float, c: float, n: float, x: float, cc: float) -> Decimal | None:
    """Tango's statistic to 60 digits from the doubles' exact values (None where its variance is not positive)."""
    with localcontext() as ctx:
        ctx.prec = 60
        db, dc, dn, dx, dk = (Decimal(v) for v in (b, c, n, x, cc))
        w = -db - dc + (2 * dn - db + dc) * dx
        s = w * w + 8 * dn * dc * dx * (1 - dx)
        var = dn * (2 * ((s.sqrt() if s > 0 else Decimal(0)) - w) / (4 * dn) + dx * (1 - dx))
        num = db - dc - dn * dx
        if cc:
            num = Decimal(1).copy_sign(num) * max(abs(num) - dk, Decimal(0)) if num else num
        return num / var.sqrt() if var > 0 else None


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([20.0, 300.0, 1e4, 1e6, 1e8]), st.floats(0.0, 0.5), st.floats(0.0, 0.5), st.booleans(),
       st.floats(-0.9, 0.9), st.sampled_from([1e-12, 1e-9, 1e-7]), st.sampled_from([0.0, 0.4, 1.0]))
def test_the_error_bound_holds(n: float, fa: float, fb: float, whole: bool, x: float, width: float,
                               cc: float) -> None:
    """Over a narrow bracket the computed statistic lies within the bound of its exact value (at the ends and
    the middle; the exact value to 60 digits); the bound is checked at half its size (it carries a factor 2)."""
    b, c, size = counts(n, fa, fb, whole)
    lo, hi = x, x + width * (1.0 + abs(x))
    bound = _tango_band.z_error_bound(b, c, size, lo, hi, cc)
    if bound is None:
        return
    for at in (lo, 0.5 * (lo + hi), hi):
        exact = exact_z(b, c, size, at, cc)
        if exact is not None:
            assert abs(Decimal(_z_float(b, c, size, at, cc)) - exact) <= Decimal(bound) / 2, (b, c, size, at)


def test_the_band_finishes_the_usual_pair_without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 1e6 questions every k-section step is taken in floats (the numpy steps are not called), and the answer
    is the numpy k-section's."""
    want = binary_pair_interval(110006.0, 60115.0, 1e6, 0.001, 0.001, 1e6 - 1, None)

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("numpy k-section called")

    monkeypatch.setattr(_pair_batch, "_tango_steps", fail)
    assert _tango_rule(110006.0, 60115.0, 1e6, 0.95) == want
