"""Coverage of the paired 0/1 comparison with clusters near the ceiling, vectorised over simulated files.

=============================  ========================================================================
:func:`draw_pair_cells`        per-cluster counts (only A right, only B right, both right) of many
                               simulated paired evals: cluster-varying disagreement, direction and
                               accuracy (:class:`PairDesign`)
:func:`pair_intervals`         the paired intervals from those counts: the CR2 t interval, the default
                               rule (:func:`~evalstats_core.pair_proportions.binary_pair_interval`) and the
                               candidates it was chosen among, ``(low, high)`` arrays each
:func:`pair_design_table`      coverage, tail misses and width of each interval on each design
=============================  ========================================================================

The same arithmetic as :func:`~evalstats_core.comparison.compare` on 0/1 scores with cluster labels
(``tests/test_pair_edges.py`` checks equality to 1e-9 on drawn files), thousands of times faster, for
the coverage tables of ``bench/bench_pair_edges.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import stdtrit

from ._clusters import cr2_se, cr2_weights
from .pair_proportions import (
    binary_pair_intervals,
    cell_mover_interval,
    disagreement_df,
    discordant_cells,
    pair_effective_scale,
    pair_t,
    worst_case_interval,
)
from .pair_proportions import paired_proportion_ci as tango
from .proportions import FAILURES_FOR_T

__all__ = ["PairDesign", "draw_pair_cells", "pair_design_table", "pair_intervals"]


@dataclass(frozen=True)
class PairDesign:
    """A clustered paired eval of two 0/1 models near the ceiling.

    Cluster ``g`` has a disagreement rate ``delta_g ~ Beta`` (mean ``disagree``, ICC ``icc_disagree``), a
    share ``pi_g ~ Beta`` of the disagreements won by A (mean ``a_share``, ICC ``icc_share``: the
    direction varies between clusters) and an accuracy ``r_g ~ Beta`` on the agreed questions (mean
    ``agree_right``, ICC ``icc_right``). The true difference is ``disagree (2 a_share - 1)``.
    """

    sizes: tuple[int, ...]
    disagree: float
    a_share: float
    agree_right: float
    icc_disagree: float
    icc_share: float = 0.0
    icc_right: float = 0.1
    label: str = ""

    @classmethod
    def at(cls, sizes: Any, top: float, gap: float, kappa: float, icc_disagree: float, icc_share: float = 0.0,
           icc_right: float = 0.1, label: str = "") -> PairDesign:
        """A design by accuracies: the better model at ``top``, the other ``gap`` below, and the other
        right on a share ``kappa`` of the better one's errors (``kappa`` small: strongly correlated models)."""
        only_worse = kappa * (1.0 - top)
        only_better = only_worse + gap
        disagree = only_better + only_worse
        agree_right = (top - only_better) / (1.0 - disagree)
        return cls(tuple(int(s) for s in sizes), disagree, only_better / disagree, agree_right, icc_disagree,
                   icc_share, icc_right, label)

    @property
    def truth(self) -> float:
        return self.disagree * (2.0 * self.a_share - 1.0)

    @property
    def accuracies(self) -> tuple[float, float]:
        both = (1.0 - self.disagree) * self.agree_right
        return both + self.disagree * self.a_share, both + self.disagree * (1.0 - self.a_share)

    @property
    def icc_difference(self) -> float:
        """ICC of the question-level difference ``a - b``: between-cluster over total variance."""
        d, s = self.disagree, self.a_share
        var_d = self.icc_disagree * d * (1.0 - d)
        var_s = self.icc_share * s * (1.0 - s)
        second = (var_d + d * d) * (4.0 * var_s + (2.0 * s - 1.0) ** 2)  # E[(delta (2 pi - 1))^2]
        total = d - self.truth**2
        return (second - self.truth**2) / total if total > 0 else math.nan


def _rates(gen: np.random.Generator, shape: tuple[int, int], mean: float, icc: float) -> np.ndarray:
    if icc <= 0.0 or mean <= 0.0 or mean >= 1.0:
        return np.full(shape, mean)
    phi = 1.0 / icc - 1.0
    return gen.beta(mean * phi, (1.0 - mean) * phi, size=shape)


def draw_pair_cells(design: PairDesign, reps: int, gen: np.random.Generator) -> tuple[np.ndarray, ...]:
    """``(only_a, only_b, both)`` counts per cluster, each shape ``(reps, G)``."""
    sizes = np.asarray(design.sizes, dtype=np.int64)
    shape = (reps, sizes.size)
    disc = gen.binomial(sizes, _rates(gen, shape, design.disagree, design.icc_disagree))
    only_a = gen.binomial(disc, _rates(gen, shape, design.a_share, design.icc_share))
    both = gen.binomial(sizes - disc, _rates(gen, shape, design.agree_right, design.icc_right))
    return only_a.astype(np.float64), (disc - only_a).astype(np.float64), both.astype(np.float64)


def pair_intervals(only_a: np.ndarray, only_b: np.ndarray, both: np.ndarray, sizes: Any,
                   confidence: float = 0.95) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The paired intervals of ``compare(a, b, clusters)`` (default ``interval="auto"``, CR2) and candidates.

    Returns ``{"t": ..., "old": ..., "previous": ..., "threshold": ..., "score": ..., "default": ...}``, each ``(low, high)``
    arrays of shape ``(reps,)``: the CR2 t interval; the rule before issue 20's second pass (Tango on counts
    scaled by ``1/deff`` and the design's df); the rule of that pass (the df also
    :func:`~evalstats_core.pair_proportions.variance_clusters` and Kish's count of the disagreements' clusters);
    the rule of the third pass (the df of :func:`~evalstats_core.pair_proportions.disagreement_df`, the union with
    :func:`~evalstats_core.pair_proportions.cell_mover_interval`, and the CR2 t interval from
    :data:`~evalstats_core.proportions.FAILURES_FOR_T` effective discordant answers on); the score rule (the
    same score interval and union at every count: no switch to t with clusters; issue 20's default); and the
    default, the production rule of issue 45 (:func:`~evalstats_core.pair_proportions.binary_pair_intervals` on the
    exact cells: CR2 t, or CR2 t end by end with the score rule's end where t's skewness error is large).
    """


    sizes = np.asarray(sizes, dtype=np.float64)
    n = float(sizes.sum())
    b, c = only_a.sum(1), only_b.sum(1)
    diff = (b - c) / n
    a, df = cr2_weights(sizes, n)  # every cluster non-empty
    t = float(stdtrit(df, 0.5 + confidence / 2))
    se = cr2_se(only_a - only_b - sizes * diff[:, None], a, n)
    ssd = (b + c) - n * diff * diff
    se_naive = np.sqrt(np.maximum(ssd, 0.0) / (n * (n - 1.0)))
    scale_ref = np.maximum(np.abs(diff), np.sqrt(np.maximum(ssd, 0.0) / n))
    se = np.where(se <= 1e-12 * np.maximum(scale_ref, 1e-300), 0.0, se)
    tt = (diff - t * se, diff + t * se)
    out = {"t": tt}
    resid = only_a - only_b - sizes * diff[:, None]
    disc = only_a + only_b
    nu_previous = disagreement_df(df, sizes, resid, disc, count_clusters=False, calibrated=False)
    for name in ("old", "previous", "threshold", "score"):
        if name == "old":
            scale = pair_effective_scale(se, se_naive, df, sizes, confidence=confidence)
        elif name == "previous":
            deff_scale = pair_effective_scale(se, se_naive, np.inf, sizes, confidence=confidence)
            scale = deff_scale * (pair_t(np.inf, confidence) / pair_t(nu_previous, confidence)) ** 2
        else:  # issue 20's rules with the df cap of their time (variance_clusters); the score rule's calibrated
            scale = pair_effective_scale(se, se_naive, df, sizes, resid, disc, confidence=confidence,
                                         calibrated=name == "score")
        bs, cs, ns = b * scale, c * scale, n * scale
        use = (bs + cs < FAILURES_FOR_T) | (name == "score")  # the score rule: no switch to t with clusters
        lo, hi = tango(bs, cs, ns, confidence=confidence)
        if name in ("threshold", "score"):  # the union with the MOVER
            nu = disagreement_df(df, sizes, resid, disc, calibrated=name == "score")
            m_lo, m_hi, _ = cell_mover_interval(*discordant_cells(b, c, sizes, resid, disc), sizes,
                                                pair_t(nu, confidence))
            lo, hi = np.minimum(lo, m_lo), np.maximum(hi, m_hi)
        if name == "score":  # never wider than the design's worst case (binary_pair_interval)
            w_lo, w_hi, _ = worst_case_interval(b, c, sizes, confidence=confidence)
            lo, hi = np.maximum(lo, w_lo), np.minimum(hi, w_hi)
        out[name] = (np.where(use, lo, tt[0]), np.where(use, hi, tt[1]))
    got = binary_pair_intervals(b, c, np.full(b.size, n), se, se_naive, np.full(b.size, df), sizes,
                                confidence=confidence, resid_sums=list(resid),
                                cells=[(only_a[r], only_b[r]) for r in range(b.size)])
    out["default"] = (np.array([g[0] for g in got]), np.array([g[1] for g in got]))
    return out


def pair_design_table(designs: list[PairDesign], reps: int, seed: int = 0,
                      names: tuple[str, ...] = ("t", "old", "previous", "threshold", "score", "default")) -> list[dict[str, Any]]:
    """Per design: coverage, share of draws whose low end is above the truth (``miss_low``; the gate's
    false pass at the margin) and whose high end is below it, and median width, of each interval."""
    rows = []
    for i, des in enumerate(designs):
        gen = np.random.default_rng([seed, i])
        ivs = pair_intervals(*draw_pair_cells(des, reps, gen), des.sizes)
        row: dict[str, Any] = {"design": des}
        for name in names:
            lo, hi = ivs[name]
            lo, hi = np.nan_to_num(lo, nan=np.inf), np.nan_to_num(hi, nan=-np.inf)  # no interval: a miss
            row[name] = (float(np.mean((lo <= des.truth) & (des.truth <= hi))), float(np.mean(lo > des.truth)),
                         float(np.mean(hi < des.truth)), float(np.median(hi - lo)))
        rows.append(row)
    return rows
