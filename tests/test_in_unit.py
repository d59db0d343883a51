"""InUnit: whether every score lies in [0, 1], known or checked only near a bound (evalstats_core._in_unit)."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats_core._estimate import comparison_from_moments, summary_from_moments
from evalstats_core._in_unit import NOT_IN_UNIT, InUnit
from evalstats_core.bounded_unclustered import bounded_mean_t_interval, bounded_pair_interval
from evalstats_core.clustering import summarize
from evalstats_core.comparison import compare


class Counter:
    """A check that counts how often it ran."""

    def __init__(self, answer: bool) -> None:
        self.answer, self.calls = answer, 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.answer


def test_known_and_unknown() -> None:
    """Known answers need no check; the default says no rule near a bound applies."""
    assert not NOT_IN_UNIT.possible and not NOT_IN_UNIT.holds()
    assert InUnit(True).possible and InUnit(True).holds()
    assert not InUnit(False).possible and not InUnit(False).holds()


@pytest.mark.parametrize("answer", [True, False])
def test_check_runs_when_asked(answer: bool) -> None:
    """A check makes the rule possible; holds() runs it and returns its answer."""
    check = Counter(answer)
    unit = InUnit(check=check)
    assert unit.possible and check.calls == 0
    assert unit.holds() is answer and check.calls == 1


def _moments(x: np.ndarray) -> tuple[int, float, float]:
    return x.size, float(x.mean()), float(((x - x.mean()) ** 2).sum())


def test_summary_checks_only_near_a_bound() -> None:
    """Mid-range scores keep t without a scan of the scores; near 100% the check decides the rule."""
    mid = np.linspace(0.3, 0.7, 40)
    n, mu, ss = _moments(mid)
    check = Counter(True)
    s = summary_from_moments(n, mu, np.zeros(1), np.ones(1), ss, binary=False, clustered=False, confidence=0.95,
                             method="cr2", interval="auto", in_unit=InUnit(check=check))
    assert check.calls == 0 and s.interval == "normal"
    high = np.r_[np.ones(36), [0.9, 0.8, 0.95, 0.5]]
    n, mu, ss = _moments(high)
    kinds = {}
    for answer in (True, False):
        check = Counter(answer)
        kinds[answer] = summary_from_moments(n, mu, np.zeros(1), np.ones(1), ss, binary=False, clustered=False,
                                             confidence=0.95, method="cr2", interval="auto",
                                             in_unit=InUnit(check=check)).interval
        assert check.calls == 1
    assert kinds == {True: "quasi-binomial-t", False: "normal"}
    assert summarize(high).interval == "quasi-binomial-t"  # summarize hands over the same check


def test_comparison_checks_only_near_a_bound() -> None:
    """The pair's rule near a bound runs the check once, and follows its answer."""
    a = np.r_[np.ones(36), [0.9, 0.8, 0.95, 0.5]]
    b = np.r_[np.ones(30), [0.9, 0.8, 0.95, 0.5, 0.6, 0.7, 0.4, 0.2, 0.9, 0.5]]
    n, ma, ssa = _moments(a)
    _, mb, ssb = _moments(b)
    d = a - b
    squares = (ssa, ssb, float(((d - d.mean()) ** 2).sum()), float((a - ma) @ (b - mb)))
    kinds = {}
    for answer in (True, False):
        check = Counter(answer)
        kinds[answer] = comparison_from_moments((n, n), (ma, mb), (np.zeros(1), np.zeros(1)), np.ones(1), squares,
                                                None, paired=True, clustered=False, confidence=0.95, method="cr2",
                                                interval="auto", in_unit=InUnit(check=check)).interval
        assert check.calls == 1
    assert kinds == {True: "t-tango", False: "normal"}
    assert compare(a, b).interval == "t-tango"


def _near_ceiling() -> tuple[tuple, tuple]:
    """One model's and a pair's arguments of the public rules near 100%, where the rule applies."""
    a = np.r_[np.ones(36), [0.9, 0.8, 0.95, 0.5]]
    b = np.r_[np.ones(30), [0.9, 0.8, 0.95, 0.5, 0.6, 0.7, 0.4, 0.2, 0.9, 0.5]]
    n, ma, ssa = _moments(a)
    _, mb, ssb = _moments(b)
    se = (ssa / (n * (n - 1))) ** 0.5
    d = a - b
    squares = (ssa, ssb, float(((d - d.mean()) ** 2).sum()), float((a - ma) @ (b - mb)))
    sd = (squares[2] / (n * (n - 1))) ** 0.5
    diff = ma - mb
    return ((ma, se, n, ssa, (ma - 2.02 * se, ma + 2.02 * se)),
            (ma, mb, squares, n, (diff - 2.02 * sd, diff + 2.02 * sd, 0.2)))


def test_public_bounded_rules_take_in_unit() -> None:
    """bounded_mean_t_interval / bounded_pair_interval take in_unit=InUnit(...) as the rest of the core: the
    default is InUnit(True), a check runs once, and its answer decides."""
    one, pair = _near_ceiling()
    assert bounded_mean_t_interval(*one) == bounded_mean_t_interval(*one, in_unit=InUnit(True))
    assert bounded_mean_t_interval(*one)[2] == "quasi-binomial-t"
    assert bounded_pair_interval(*pair) == bounded_pair_interval(*pair, in_unit=InUnit(True))
    assert bounded_pair_interval(*pair)[3] == "t-tango"
    for answer in (True, False):
        check = Counter(answer)
        got = bounded_mean_t_interval(*one, in_unit=InUnit(check=check))
        assert check.calls == 1 and (got is not None) is answer
        check = Counter(answer)
        got = bounded_pair_interval(*pair, in_unit=InUnit(check=check))
        assert check.calls == 1 and got[3] == ("t-tango" if answer else "normal")
    assert bounded_mean_t_interval(*one, in_unit=InUnit(False)) is None
    assert bounded_pair_interval(*pair, in_unit=NOT_IN_UNIT)[3] == "normal"


@pytest.mark.parametrize("old", [True, False, lambda: True])
def test_public_bounded_rules_reject_the_old_forms_clearly(old) -> None:
    """A bool or a function (the old ``bounded=`` forms) passed as in_unit: one TypeError naming InUnit, also where
    the rule does not apply (mid-range scores)."""
    one, pair = _near_ceiling()
    with pytest.raises(TypeError, match=r"in_unit takes InUnit\(known, check\).*InUnit\(True\)"):
        bounded_mean_t_interval(*one, in_unit=old)
    with pytest.raises(TypeError, match=r"in_unit takes InUnit\(known, check\).*InUnit\(True\)"):
        bounded_pair_interval(*pair, in_unit=old)
    with pytest.raises(TypeError, match="bounded"):
        bounded_mean_t_interval(*one, bounded=old)
    mid = np.linspace(0.3, 0.7, 40)
    n, mu, ss = _moments(mid)
    se = (ss / (n * (n - 1))) ** 0.5
    with pytest.raises(TypeError, match=r"in_unit takes InUnit"):
        bounded_mean_t_interval(mu, se, n, ss, (mu - 2.02 * se, mu + 2.02 * se), in_unit=old)
