"""Student t quantile ``evalstats_core._quantiles.t_ppf`` (pure Python) against ``scipy.special.stdtrit`` (C).

Two parts, both in one run:

* **accuracy**: the largest ``|ours - scipy|`` in units in the last place of scipy's value, over a grid of
  ``p`` in ``(1e-12, 1 - 1e-12)`` (log-spaced tails plus the upper points of two-sided levels 0.5-0.9999) and
  ``df`` from 0.5 to 1e12 (integers, and fractional ones as Satterthwaite gives: 3.7, 11.2, ...), per band of
  ``df`` and over the two-sided levels alone; and the same for ``t_cdf`` against ``scipy.special.stdtr``.
* ``--truth``: ours and scipy's against ``mpmath`` to 40 digits on the same grid, to tell whose error a
  difference is (scipy's ``stdtrit`` is off by hundreds of ulps near ``p = 1/2``, e.g. ``p = 0.499``).
* **speed**: microseconds per call, ours and scipy's scalar call, at the levels the core uses (0.95, 0.99 two
  sided) for several ``df``; times are process CPU time, best of ``--repeat``.

Run: ``python bench/bench_quantiles.py [--repeat 7] [--truth] [--module path/to/_quantiles.py]`` (``--module`` times
and checks another copy of the file, e.g. ``git show main:evalstats_core/_quantiles.py > /tmp/old.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BANDS = {
    "0.5-1": [0.5, 0.63, 0.7, 0.9, 1.0],
    "1-5": [1.3, 1.5, 2.0, 2.5, 3.0, 3.7, 4.0, 4.7, 5.0],
    "5-30": [5.5, 6.0, 7.25, 9.0, 10.0, 11.2, 15.0, 19.6, 24.0, 29.3],
    "30-1e3": [31.0, 47.5, 64.0, 99.0, 100.0, 211.7, 500.0, 999.0],
    "1e3-1e5": [1000.5, 3333.3, 9999.0, 1e4, 31622.8, 99999.0],
    "1e5-1e12": [1e5, 123456.7, 999999.0, 1e6, 1e7, 3.3e8, 1e9, 1e10, 1e11, 1e12],
}
LEVELS = [0.5, 0.6, 0.68, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9999]


def grid_p() -> tuple[list[float], list[float]]:
    """(all p, the two-sided levels' upper and lower points)."""
    tails = [10.0 ** (-e / 4.0) for e in range(4, 49)]  # 0.56 .. 1e-12
    tails += [0.3, 0.4, 0.45, 0.49, 0.499]
    two = [0.5 + c / 2.0 for c in LEVELS] + [0.5 - c / 2.0 for c in LEVELS]
    return sorted(set(tails + [1.0 - t for t in tails] + two)), two


def load(module: str | None):
    if module is None:
        from evalstats_core import _quantiles
        return _quantiles
    spec = importlib.util.spec_from_file_location("quantiles_other", module)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ulps(got: float, want: float) -> float:
    if got == want:
        return 0.0
    return abs(got - want) / math.ulp(want)


def accuracy(q) -> None:
    from scipy.special import stdtr, stdtrit
    ps, two = grid_p()
    print(f"accuracy: max |ours - scipy| in ulps of scipy's value ({len(ps)} p in (1e-12, 1-1e-12), "
          f"{sum(map(len, BANDS.values()))} df in 0.5-1e12)")
    print(f"  {'df band':10s} {'t_ppf all p':>12s} {'t_ppf levels':>13s} {'worst (p, df)':>28s} {'t_cdf':>8s}")
    worst_all = 0.0
    for band, dfs in BANDS.items():
        m_all = m_two = m_cdf = 0.0
        where = None
        for df in dfs:
            for p in ps:
                u = ulps(q.t_ppf(p, df), float(stdtrit(df, p)))
                if u > m_all:
                    m_all, where = u, (p, df)
                if p in two:
                    m_two = max(m_two, u)
            for t in (-300.0, -40.0, -8.0, -3.0, -2.0, -1.0, -0.3, 0.3, 1.0, 2.0, 8.0):
                want = float(stdtr(df, t))
                if want > 1e-290:
                    m_cdf = max(m_cdf, ulps(q.t_cdf(t, df), want))
        worst_all = max(worst_all, m_all)
        print(f"  {band:10s} {m_all:12.1f} {m_two:13.1f} {str(where):>28s} {m_cdf:8.1f}")
    print(f"  overall t_ppf max: {worst_all:.1f} ulps")


def truth(p: float, df: float, guess: float) -> float:
    """The t quantile to 40 digits by ``mpmath`` (root of its regularized incomplete beta, from ``guess``)."""
    import mpmath as mp
    mp.mp.dps = 40
    tail = mp.mpf(p) if p < 0.5 else 1 - mp.mpf(p)
    n = mp.mpf(df)
    x = mp.findroot(lambda x: mp.betainc(n / 2, mp.mpf(1) / 2, 0, n / (n + x * x), regularized=True) / 2 - tail,
                    mp.mpf(abs(guess)))
    return float(x) if p > 0.5 else -float(x)


def accuracy_truth(q) -> None:
    """Ours and scipy's against mpmath on the same grid (which of the two the differences above come from)."""
    from scipy.special import stdtrit
    ps, two = grid_p()
    print("accuracy against mpmath (40 digits): max ulps, all p / two-sided levels")
    print(f"  {'df band':10s} {'ours all':>9s} {'ours lev':>9s} {'scipy all':>10s} {'scipy lev':>10s}")
    for band, dfs in BANDS.items():
        m = [0.0, 0.0, 0.0, 0.0]
        for df in dfs:
            for p in ps:
                s = float(stdtrit(df, p))
                t = truth(p, df, s)
                for k, v in ((0, q.t_ppf(p, df)), (2, s)):
                    u = ulps(v, t)
                    m[k] = max(m[k], u)
                    if p in two:
                        m[k + 1] = max(m[k + 1], u)
        print(f"  {band:10s} {m[0]:9.1f} {m[1]:9.1f} {m[2]:10.1f} {m[3]:10.1f}")


def speed(q, repeat: int) -> None:
    from scipy.special import stdtrit
    clock = time.process_time
    print("speed: us per call, best of", repeat, "(CPU time); p = 0.975 and 0.995")
    print(f"  {'df':>10s} {'ours':>8s} {'scipy':>8s} {'ratio':>7s}")
    for df in (1.0, 2.0, 3.7, 4.0, 11.2, 29.0, 99.0, 999.0, 9999.0, 999999.0, 1e12):
        best_o = best_s = math.inf
        n = 200
        for _ in range(repeat):
            t0 = clock()
            for _ in range(n):
                q.t_ppf(0.975, df)
                q.t_ppf(0.995, df)
            best_o = min(best_o, (clock() - t0) / (2 * n))
            t0 = clock()
            for _ in range(n):
                stdtrit(df, 0.975)
                stdtrit(df, 0.995)
            best_s = min(best_s, (clock() - t0) / (2 * n))
        print(f"  {df:10g} {best_o * 1e6:8.2f} {best_s * 1e6:8.2f} {best_o / best_s:7.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--module", help="another copy of _quantiles.py to check and time")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--truth", action="store_true", help="also against mpmath (about a minute)")
    args = ap.parse_args()
    q = load(args.module)
    print(f"module: {q.__file__}; load average {os.getloadavg()[0]:.2f}")
    accuracy(q)
    if args.truth:
        accuracy_truth(q)
    if not args.no_speed:
        speed(q, args.repeat)


if __name__ == "__main__":
    main()
