"""Paired 0/1 scores without clusters: Tango's score interval at every count of discordant answers (gate5).

The old rule switched to the paired t interval from 100 discordant answers on; by exact enumeration of the
discordant counts its interval lay wholly below the truth in 3.0% of files at 3,000 questions with
P(only A) = 0.055 and P(only B) = 0.005, so a gate at a 5-point margin passed a candidate truly 5 points
worse 3.0% of the time, against the 2.5% a non-inferiority test promises
(``bench/bench_pair_edges.py --unclustered``).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multinomial
from scipy.stats import t as student

from evalstats_core.comparison import compare
from evalstats_core.pair_proportions import paired_proportion_ci


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
    assert (auto.ci_low, auto.ci_high) == pytest.approx(tuple(paired_proportion_ci(300, 400, 3000)), abs=1e-15)
    t = student.ppf(0.975, 2999) * normal.se
    assert (normal.ci_low, normal.ci_high) == pytest.approx((-100 / 3000 - t, -100 / 3000 + t), rel=1e-12)
    # with 700 discordant answers the two agree to within 1% of the width (the cost of one rule is small)
    assert auto.ci_high - auto.ci_low == pytest.approx(normal.ci_high - normal.ci_low, rel=0.01)
