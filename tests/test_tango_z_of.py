"""``_tango_band.z_of`` (Tango's statistic with its constants made once) gives ``_pair_batch._z_float``'s doubles."""

from __future__ import annotations

import math
import random

from evalstats_core._pair_batch import _z_float
from evalstats_core._tango_band import z_of


def test_z_of_is_z_float_to_the_bit():
    rng = random.Random(3)
    seen = 0
    for _ in range(20_000):
        n = float(rng.choice([1, 2, 10, 1000, 10**6, 10**9]))
        b = float(rng.randint(0, int(n)))
        c = float(rng.randint(0, int(n - b)))
        if rng.random() < 0.3:  # effective (scaled) counts
            b, c = b * rng.random(), c * rng.random()
        cc = rng.choice([0.0, 1.0, rng.random()])
        d = (b - c) / n
        for x in (-1.0, 1.0, 0.0, rng.uniform(-1.0, 1.0), d, math.nextafter(d, 2.0), math.nextafter(d, -2.0)):
            want, got = _z_float(b, c, n, x, cc), z_of(b, c, n, cc)(x)
            assert repr(got) == repr(want), (b, c, n, cc, x)
            seen += math.isfinite(want) and want != 0.0
    assert seen > 30_000  # mostly finite, nonzero statistics
