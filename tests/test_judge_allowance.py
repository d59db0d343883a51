"""``bench/bench_judge_allowance.py`` (issue 23's corner): its split of a judge's exact coverage into tables with
and without a disagreement is the shipped interval's coverage, and what it says about the allowance on labels
without a disagreement holds on the two judges that bound it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_judge_allowance as ba  # noqa: E402
import bench_judge_exact_lib as je  # noqa: E402

LENIENT, NEAR = (0.99, 0.80, 0.7), (0.99, 0.99, 0.7)


@pytest.fixture(scope="module")
def split():
    return ba.Split(40, 2000, [LENIENT, NEAR, (0.80, 0.99, 0.3)])


def test_split_with_the_shipped_allowance_is_the_shipped_coverage(split):
    """The shipped allowances put back on the no-disagreement tables give ``ppi_mean``'s exact coverage (the bench's
    rows are computed on the interval as shipped); swapping the two sides does not."""
    cov = split.coverage(*ba.shipped_allowance(40))
    exact = [je.exact_coverage(je.shipped, *d, 40, 2000) for d in split.designs]
    np.testing.assert_allclose(cov, exact, atol=2e-5)
    lo, hi = ba.shipped_allowance(40)
    assert abs(split.coverage(hi, lo)[0] - exact[0]) > 0.005


def test_no_allowance_on_those_tables_fits_the_near_perfect_judge_only(split):
    """With no allowance at all on labels without a disagreement the near-perfect judge falls inside 93%-97% and
    the lenient one below 92%; with the least allowance that keeps these judges at 93% (any of the
    three families), the near-perfect judge stays above 98%."""
    zeros = np.zeros(41)
    cov = split.coverage(zeros, zeros)
    assert cov[1] < 0.97 and cov[0] < 0.92
    for family, params in ((lambda n, x: tuple(x * v for v in ba.shipped_allowance(n)), np.linspace(0, 1.5, 151)),
                           (ba.binomial_allowance, np.geomspace(0.5, 0.005, 200)),
                           (ba.poisson_allowance, np.geomspace(0.5, 0.005, 200))):
        x, cov = ba.smallest(split, family, params)
        assert 0.93 <= cov.min() < 0.935
        assert cov[1] > 0.98
