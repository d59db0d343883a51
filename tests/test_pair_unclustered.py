"""Paired 0/1 scores without clusters: Tango's score interval at every count of discordant answers (gate5).

The old rule switched to the paired t interval from 100 discordant answers on; by exact enumeration of the
discordant counts its interval lay wholly below the truth in 3.0% of files at 3,000 questions with
P(only A) = 0.055 and P(only B) = 0.005, so a gate at a 5-point margin passed a candidate truly 5 points
worse 3.0% of the time, against the 2.5% a non-inferiority test promises
(``bench/bench_pair_edges.py --unclustered``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from scipy.stats import multinomial
from scipy.stats import t as student

from evalstats_core.comparison import compare
from evalstats_core.pair_proportions import continuity_correction, paired_proportion_ci


def pair_from_counts(only_a: int, only_b: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 scores of A and B on ``n`` questions: ``only_a`` right for A alone, ``only_b`` for B alone, the rest
    wrong for both (the paired interval depends on the discordant counts and ``n`` only)."""
    a = np.zeros(n)
    b = np.zeros(n)
    a[:only_a] = 1.0
    b[only_a:only_a + only_b] = 1.0
    return a, b


def test_the_gate_at_its_margin_false_passes_at_most_2_5_percent_with_many_discordant_answers():
    """Exact: every (b, c) within 7 SDs of 3,000 questions at P(only base) = 0.055, P(only cand) = 0.005, the
    candidate truly 5 points worse; the gate at a 5-point margin passes when compare(cand, base)'s lower end
    is above -0.05 (:func:`~evalstats_core.gating.gate`). Old rule (t from 100 discordant): 3.00%."""
    n, pb, pc, margin = 3000, 0.055, 0.005, 0.05
    span = [np.arange(max(0, int(n * p - 7 * np.sqrt(n * p))), int(n * p + 7 * np.sqrt(n * p)) + 1) for p in (pb, pc)]
    bs, cs = (v.ravel() for v in np.meshgrid(*span, indexing="ij"))
    prob = multinomial.pmf(np.stack([bs, cs, n - bs - cs], 1), n, [pb, pc, 1.0 - pb - pc])
    assert prob.sum() > 1 - 1e-6 and prob[bs + cs >= 100].sum() > 0.999  # nearly all >= 100 discordant
    passed = covered = 0.0
    for b, c, w in zip(bs, cs, prob, strict=True):
        base, cand = pair_from_counts(int(b), int(c), n)
        r = compare(cand, base)
        assert r.interval == "tango"
        passed += w * (r.ci_low > -margin)
        covered += w * (r.ci_low <= -margin <= r.ci_high)
    assert passed <= 0.025 and covered >= 0.94, (passed, covered)
    # the old default (the paired t interval, still there with interval="normal", from 100 discordant on) fails
    d = (cs - bs) / n
    t_low = d - student.ppf(0.975, n - 1) * np.sqrt(((bs + cs) - n * d * d) / (n * (n - 1.0)))
    old_low = np.where(bs + cs >= 100, t_low, paired_proportion_ci(cs.astype(float), bs.astype(float), float(n))[0])
    assert prob[old_low > -margin].sum() > 0.029


def test_tango_at_any_count_and_t_when_asked_for():
    base, cand = pair_from_counts(400, 300, 3000)
    auto, normal = compare(cand, base), compare(cand, base, interval="normal")
    assert auto.interval == "tango" and normal.interval == "normal"
    assert (auto.ci_low, auto.ci_high) == pytest.approx(tuple(paired_proportion_ci(300, 400, 3000, correction=1.0)),
                                                        abs=1e-15)
    t = student.ppf(0.975, 2999) * normal.se
    assert (normal.ci_low, normal.ci_high) == pytest.approx((-100 / 3000 - t, -100 / 3000 + t), rel=1e-12)
    # with 700 discordant answers Tango's interval and t's agree to within 1% of the width, and the continuity
    # correction adds about one answer's worth (1/n) on each side (the cost of one rule is small)
    tango = paired_proportion_ci(300, 400, 3000)
    assert tango[1] - tango[0] == pytest.approx(normal.ci_high - normal.ci_low, rel=0.01)
    assert auto.ci_high - auto.ci_low == pytest.approx(tango[1] - tango[0] + 2 / 3000, rel=0.002)


def exact_misses(n: int, only_a: float, only_b: float, lower_end: Any) -> tuple[float, float]:
    """Exact (every pair of discordant counts within 9 SDs) probability that the interval of A - B lies wholly
    above the truth and wholly below it, ``lower_end(b, c)`` giving ``(low, high)`` for each count pair."""
    span = [np.arange(0, min(n, int(n * p + 9 * np.sqrt(n * p) + 10)) + 1) for p in (only_a, only_b)]
    bs, cs = (v.ravel() for v in np.meshgrid(*span, indexing="ij"))
    bs, cs = bs[bs + cs <= n], cs[bs + cs <= n]
    prob = multinomial.pmf(np.stack([bs, cs, n - bs - cs], 1), n, [only_a, only_b, 1.0 - only_a - only_b])
    assert prob.sum() > 1 - 1e-9
    low, high = lower_end(bs, cs)
    truth = only_a - only_b
    return float(prob[low > truth].sum()), float(prob[high < truth].sum())


def test_few_discordant_answers_miss_at_most_2_5_percent_on_each_side():
    """Exact enumeration through ``compare``: 200 questions, A alone right on 2.3% of them and B alone on 0.3%
    (about 5 discordant answers). Tango's interval without the continuity correction lay wholly above the
    truth in 5.2% of files (A claimed better by more than it is), the corrected one in at most 2.5%; the other
    side stays below 2.5% too (``bench/bench_pair_edges.py --unclustered``)."""
    n, pa, pb = 200, 0.023, 0.003

    def default(bs: np.ndarray, cs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = [compare(*pair_from_counts(int(b), int(c), n)) for b, c in zip(bs, cs, strict=True)]
        assert {r.interval for r in out} == {"tango"}
        return np.array([r.ci_low for r in out]), np.array([r.ci_high for r in out])

    above, below = exact_misses(n, pa, pb, default)
    assert above <= 0.025 and below <= 0.025, (above, below)
    old_above, _ = exact_misses(n, pa, pb, lambda b, c: paired_proportion_ci(b.astype(float), c.astype(float), n))
    assert old_above > 0.05  # the old rule: Tango's score interval without a correction


def test_the_gate_on_20_questions_false_passes_at_most_2_5_percent():
    """Exact: 20 questions, the base alone right on 24.5% and the candidate alone on 19.5% (truly 5 points
    worse); the gate at a 5-point margin passes when ``compare(cand, base)``'s lower end is above -0.05. Tango
    without the correction: 3.04%; with it at most 2.5%."""
    n, p_base, p_cand, margin = 20, 0.245, 0.195, 0.05

    def gate_ends(bs: np.ndarray, cs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # A = base, B = cand
        out = [compare(*pair_from_counts(int(b), int(c), n)[::-1]) for b, c in zip(bs, cs, strict=True)]
        return -np.array([r.ci_high for r in out]), -np.array([r.ci_low for r in out])  # A - B = -(cand - base)

    assert p_base - p_cand == pytest.approx(margin)  # the truth is the margin: base - cand's high end below it
    _, passed = exact_misses(n, p_base, p_cand, gate_ends)  # <=> cand - base's low end above -margin: a pass
    assert passed <= 0.025, passed
    _, old = exact_misses(n, p_base, p_cand, lambda b, c: paired_proportion_ci(b.astype(float), c.astype(float), n))
    assert old > 0.03


def corrected_oracle(b: int, c: int, n: int, cc: float) -> tuple[float, float]:
    """The continuity-corrected score interval by brute force: the constrained MLE of P(only B) by numerical
    maximisation of the multinomial likelihood (not Tango's closed form), the numerator moved ``cc`` towards 0,
    the ends by Brent's method."""
    z = stats.norm.ppf(0.975)

    def z_stat(delta: float) -> float:
        lo, hi = max(0.0, -delta) + 1e-12, (1.0 - delta) / 2.0 - 1e-12

        def negll(q: float) -> float:
            cells, counts = np.array([q + delta, q, 1.0 - 2.0 * q - delta]), np.array([b, c, n - b - c])
            return -float(np.sum(np.where(counts > 0, counts * np.log(np.maximum(cells, 1e-300)), 0.0)))

        q = optimize.minimize_scalar(negll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}).x
        num = b - c - n * delta
        return float(np.sign(num) * max(abs(num) - cc, 0.0) / np.sqrt(n * (2.0 * q + delta * (1.0 - delta))))

    d = (b - c) / n
    low = -1.0 if z_stat(-1.0 + 1e-9) <= z else optimize.brentq(lambda x: z_stat(x) - z, -1.0 + 1e-9, d, xtol=1e-13)
    high = 1.0 if z_stat(1.0 - 1e-9) >= -z else optimize.brentq(lambda x: z_stat(x) + z, d, 1.0 - 1e-9, xtol=1e-13)
    return low, high


@pytest.mark.parametrize("b,c,n", [(0, 0, 30), (3, 1, 200), (12, 3, 40), (0, 4, 20), (30, 25, 400), (5, 0, 12)])
def test_the_corrected_interval_equals_a_brute_force_one(b, c, n):
    cc = continuity_correction(b, c)
    assert cc == min(1.0, (b + c) / 10)
    base, cand = pair_from_counts(b, c, n)
    r = compare(base, cand)
    assert (r.ci_low, r.ci_high) == pytest.approx(corrected_oracle(b, c, n, cc), abs=2e-6)
    assert (r.ci_low, r.ci_high) == pytest.approx(tuple(paired_proportion_ci(b, c, n, correction=cc)), abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 60))
def test_the_corrected_interval_excludes_zero_exactly_when_edwards_test_rejects(b, c, rest):
    """One answer: the interval excludes 0 exactly when p < 0.05, and p is McNemar's chi-square with the
    numerator |b - c| less the correction (Edwards's from 10 discordant answers on)."""
    n = b + c + rest
    if n < 2:  # compare needs two questions for a standard error
        return
    base, cand = pair_from_counts(b, c, n)
    r = compare(base, cand)
    assert -1.0 <= r.ci_low <= (b - c) / n <= r.ci_high <= 1.0 and r.ci_high > r.ci_low
    if b + c:
        cc = min(1.0, (b + c) / 10)
        assert r.p_value == pytest.approx(stats.chi2.sf(max(abs(b - c) - cc, 0.0) ** 2 / (b + c), 1), rel=1e-9)
        if abs(r.p_value - 0.05) > 1e-9:
            assert (r.p_value < 0.05) == (r.ci_low > 0.0 or r.ci_high < 0.0)
