"""gate13 (issue 20): candidate extensions of the unclustered bounded-pair gate (skew11's reach + the sampled step).

Reuses ``bench/bench_skewed_pairs.py`` (its generator, design sets and summaries) and adds gate candidates to its
``intervals``; each is the lower end the gate would read (its pass: lower end above ``-gap``):

``gate11b``  today's gate: ``tan`` (the lower end continued past Hall's cap at Hall's rate there, to the skewness the
             quasi-binomial counts ask for) on the ``sampled`` interval.
``gate13``   the same reach, to the larger (more negative) of the skewness the counts ask for and the one the sample
             skewness step asks for before its cap (``SAMPLE_FACTOR`` x the mean difference's sample skewness, tapered,
             in the counts' direction): where the sampled step is capped the gate also does not trust the end.

    nice -n 5 .venv/bin/python bench/bench_gate13.py --heldout2 --reps 8000 --seed 1128 [--truth 0]
    nice -n 5 .venv/bin/python bench/bench_gate13.py --why --reps 40000 --seed 5   # what the false passes look like
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bench_skewed_pairs as bsp  # noqa: E402

from evalstats_core.bounded_reach import hall_rate  # noqa: E402
from evalstats_core.bounded_unclustered import SKEW_START  # noqa: E402

_BASE = bsp.intervals


def sampled_request(d, ma, mb, va, vb, counts, start=0.03, factor=3.0):
    """The skewness the sampled step asks for before its cap (vectorised ``sample_skewness`` without the clip)."""
    n = d.shape[1]
    vd = d.var(1)
    m3 = ((d - d.mean(1)[:, None]) ** 3).mean(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        samp = np.where(vd > 0, m3 / np.maximum(vd, 1e-300) ** 1.5 / math.sqrt(n), 0.0)
    g = np.maximum(bsp.skewness(ma, va / n), bsp.skewness(mb, vb / n))
    v = np.clip((g - start) / (SKEW_START - start), 0.0, 1.0)
    sign = np.sign(bsp.difference_skewness(*counts))
    return sign * np.maximum(0.0, sign * samp) * factor * v


def intervals(a, b, level=0.95):
    out = _BASE(a, b, level)
    n, d, ma, mb, va, vb, cov, vd = bsp.moments(a, b)
    t = stats.t.ppf(0.5 + level / 2, n - 1)
    counts = bsp.effective_counts(ma, mb, va, vb, cov, vd, n)
    asked, cap = bsp.hall_request(n, ma, mb, va, vb, counts, t, level)
    s_asked = sampled_request(d, ma, mb, va, vb, counts)
    se = np.sqrt(vd * n / (n - 1) / n)
    rate = hall_rate(cap, float(t))
    low = out["sampled"][0]
    both = np.minimum(asked, s_asked)
    out["gate13"] = (low - rate * np.maximum(0.0, -both - cap) * se, out["sampled"][1])
    return out


def why(rng, reps):
    """The held-out 2 designs 32 and 33 (and 44, 20 for contrast): the true skewness of d and of its mean, how often
    the counts' and the sample's skewness requests go past Hall's cap, and what the files that pass falsely look
    like (the reach needs a file that shows its skewness)."""
    for se2, re, pb, n in ((0.8, 0.7, 0.985, 12), (0.8, 0.7, 0.985, 20), (0.8, 0.9, 0.985, 12), (0.3, 0.9, 0.985, 12)):
        gap = 0.02
        big = bsp.latent(rng, 1, 2_000_000, pb - gap, pb, se2, re, "continuous")
        g = float(stats.skew((big[0] - big[1])[0]))
        a, b = bsp.latent(rng, reps, n, pb - gap, pb, se2, re, "continuous")
        out = intervals(a, b)
        fp = out["gate11b"][0] > -gap
        ma, mb, va, vb = a.mean(1), b.mean(1), a.var(1), b.var(1)
        d = a - b
        cov = ((a - ma[:, None]) * (b - mb[:, None])).mean(1)
        t = stats.t.ppf(0.975, n - 1)
        counts = bsp.effective_counts(ma, mb, va, vb, cov, d.var(1), n)
        asked, cap = bsp.hall_request(n, ma, mb, va, vb, counts, t, 0.95)
        s_asked = sampled_request(d, ma, mb, va, vb, counts)
        small = d.min(1) > -0.1  # no question where A lost 10 points or more
        print(f"continuous var {se2} re {re} pb {pb} n {n}: skewness of d {g:.2f}, of its mean {g / math.sqrt(n):.2f}"
              f" (Hall's cap {cap:.3f}); files where the counts ask beyond the cap {100 * np.mean(asked < -cap):.0f}%, the"
              f" sample {100 * np.mean(s_asked < -cap):.0f}%; gate11b false pass {100 * fp.mean():.2f}% "
              f"(MC SE {100 * math.sqrt(fp.mean() * (1 - fp.mean()) / reps):.2f}); among those files: counts ask beyond"
              f" the cap {100 * np.mean(asked[fp] < -cap):.0f}%, the sample {100 * np.mean(s_asked[fp] < -cap):.0f}%, "
              f"no question lost >= 10 points {100 * np.mean(small[fp]):.0f}% (all files {100 * np.mean(small):.0f}%),"
              f" median observed difference {100 * np.median(d[fp].mean(1)):+.2f} points (truth {-100 * gap:+.0f})",
              flush=True)


bsp.intervals = intervals
bsp.SHOWN = ("t", "rule", "sampled", "gate11b", "gate13")

if __name__ == "__main__":
    if "--why" in sys.argv:
        why(np.random.default_rng(int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 5),
            int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 40000)
        raise SystemExit(0)
    raise SystemExit(bsp.main())
