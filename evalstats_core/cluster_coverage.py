"""Coverage with few and unequal clusters: CR1 + z, CR1 + t(G-1), CR2 + Satterthwaite t, wild bootstrap.

=================================  ===============================================================
``few_clusters_coverage``          how often each 95% interval for the mean contains the true accuracy,
                                   for clusters of any sizes (e.g. one dominant cluster)
``unequal_sizes``                  cluster sizes with a given share of questions in the largest one
``DOMINANT_CLUSTER_SIZES``         a held-out-like design: 500 questions in 12 repositories, one of
                                   them holding 46% (the sizes of SWE-bench Verified's repositories)
=================================  ===============================================================

The scores are 0/1 with a cluster random effect (the model of
:func:`~evalstats_core.simulate.clustered_binary_eval`): cluster ``g`` has a latent accuracy
``r_g ~ Beta`` with mean ``mean`` and ``Var(r_g) = icc * mean (1 - mean)``, and its ``n_g`` questions
are correct independently with probability ``r_g``. Every estimator of the mean's standard error used
here depends on the data only through the per-cluster counts of correct answers, so one replication
is one row of ``G`` binomial draws and every method is a reduction over that row: all replications are
computed together.

Randomness comes only from ``rng``. Replications are drawn in chunks of 256, so a seed's first
chunks are the same however many replications follow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri, stdtrit

from ._clusters import cr2_se, cr2_weights
from ._validate import check_confidence, check_open_unit, check_positive_int, check_unit
from .errors import EvalStatsError
from .simulate import _cluster_rates

__all__ = [
    "DOMINANT_CLUSTER_SIZES",
    "FEW_CLUSTERS_METHODS",
    "FewClustersCoverage",
    "few_clusters_coverage",
    "unequal_sizes",
]

#: Questions per repository in SWE-bench Verified (500 tasks, 12 repositories; django holds 231):
#: a held-out-like design in which one cluster dominates.
DOMINANT_CLUSTER_SIZES = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)

#: The intervals compared, in display order.
FEW_CLUSTERS_METHODS = ("cr1_z", "cr1_t", "cr2", "wild")

#: Human-readable names of :data:`FEW_CLUSTERS_METHODS`.
METHOD_LABELS = {
    "cr1_z": "CR1 + z",
    "cr1_t": "CR1 + t(G-1)",
    "cr2": "CR2 + Satterthwaite t",
    "wild": "wild cluster bootstrap",
}

_CHUNK_CELLS = 1 << 20  # (replication, draw, cluster) cells per chunk of the wild bootstrap: ~8 MB
_REP_CHUNK = 256  # replications per chunk: fixed, so a seed's first r replications never change
_TIE = 1e-9  # |t*| must exceed |t| by more than _TIE * (1 + |t|) to count (as in wild.py)
_WEBB = np.array([-math.sqrt(1.5), -1.0, -math.sqrt(0.5), math.sqrt(0.5), 1.0, math.sqrt(1.5)])
_RADEMACHER = np.array([-1.0, 1.0])
_WEBB_MAX_CLUSTERS = 12  # Webb's six-point weights up to 12 clusters (MacKinnon, Nielsen & Webb 2023)


@dataclass(frozen=True, slots=True)
class FewClustersCoverage:
    """Coverage of four intervals for the mean with few or unequal clusters (see :func:`few_clusters_coverage`).

    Attributes
    ----------
    sizes : tuple of int
        Questions per cluster, as given.
    n, n_clusters : int
        Questions and clusters ``G``.
    icc, mean, confidence : float
        The simulation's settings: true intra-cluster correlation, true accuracy, nominal level.
    reps : int
        Simulated evals for the analytic intervals.
    wild_reps, n_boot : int
        Simulated evals and bootstrap draws per eval for the wild bootstrap (0, 0 when it was skipped).
    largest_share : float
        Share of the questions in the largest cluster.
    cr2_df : float
        Bell-McCaffrey (Satterthwaite) degrees of freedom of CR2; it depends on the sizes only.
    true_se : float
        The actual SD of the estimated mean, ``sqrt(mean (1-mean) (1 + icc (sum n_g^2 / n - 1)) / n)``.
    methods : tuple of str
        Keys of the dictionaries below, from :data:`FEW_CLUSTERS_METHODS`.
    coverage : dict of str to float
        Share of the simulated evals whose interval contains the true accuracy.
    mean_width : dict of str to float
        Mean width of each interval (``nan`` for the wild bootstrap: its interval is found by test
        inversion, which the experiment does not run; its coverage is the share of evals whose test of
        the true value does not reject, which is the same event).
    mc_se : dict of str to float
        Monte Carlo standard error of each coverage, ``sqrt(c (1 - c) / reps)``.
    """

    sizes: tuple[int, ...]
    n: int
    n_clusters: int
    icc: float
    mean: float
    confidence: float
    reps: int
    wild_reps: int
    n_boot: int
    largest_share: float
    cr2_df: float
    true_se: float
    methods: tuple[str, ...]
    coverage: dict[str, float]
    mean_width: dict[str, float]
    mc_se: dict[str, float]


def unequal_sizes(n: int, n_clusters: int, largest_share: float) -> tuple[int, ...]:
    """Cluster sizes: the largest cluster holds ``largest_share`` of ``n``, the rest share the remainder.

    Parameters
    ----------
    n : int
        Questions in all.
    n_clusters : int
        Clusters ``G`` (>= 2, at most ``n``).
    largest_share : float
        Share of the questions in the largest cluster; ``1/G`` gives equal clusters. Rounded to whole
        questions and clipped so that every other cluster keeps at least one question and none of them
        is larger than the largest.

    Returns
    -------
    tuple of int
        ``G`` sizes summing to ``n``, largest first (the others differ by at most one).

    Examples
    --------
    >>> unequal_sizes(500, 12, 0.462)
    (231, 25, 25, 25, 25, 25, 24, 24, 24, 24, 24, 24)
    >>> unequal_sizes(120, 4, 0.25)
    (30, 30, 30, 30)
    """
    total = check_positive_int(n, "n", minimum=2)
    g = check_positive_int(n_clusters, "n_clusters", minimum=2)
    if g > total:
        raise EvalStatsError(f"n_clusters ({g}) exceeds n ({total}); use at most one cluster per question")
    share = check_unit(largest_share, "largest_share")
    big = int(round(share * total))
    big = max(big, -(-total // g))  # no smaller than an equal share (rounded up)
    big = min(big, total - (g - 1))  # leave one question for each other cluster
    rest, extra = divmod(total - big, g - 1)
    return (big,) + tuple(rest + (i < extra) for i in range(g - 1))


def few_clusters_coverage(
    sizes: Any,
    icc: float,
    *,
    mean: float = 0.7,
    reps: int = 400,
    confidence: float = 0.95,
    wild: bool = True,
    wild_reps: int | None = None,
    n_boot: int = 199,
    rng: Any = None,
) -> FewClustersCoverage:
    """How often four 95% intervals for the mean contain the true accuracy, for clusters of given sizes.

    Parameters
    ----------
    sizes : sequence of int
        Questions per cluster (at least 2 clusters, each >= 1 question), e.g.
        :data:`DOMINANT_CLUSTER_SIZES` or :func:`unequal_sizes`.
    icc : float in [0, 1]
        True intra-cluster correlation of the 0/1 scores.
    mean : float in (0, 1), default 0.7
        True accuracy.
    reps : int, default 400
        Simulated evals for the three analytic intervals.
    confidence : float, default 0.95
    wild : bool, default True
        Also run the wild cluster bootstrap (the slowest column).
    wild_reps : int, optional
        Simulated evals for the wild bootstrap: the first ``wild_reps`` of the ``reps`` (default all).
    n_boot : int, default 199
        Bootstrap draws per simulated eval.
    rng : seed or numpy.random.Generator, optional

    Returns
    -------
    FewClustersCoverage

    Notes
    -----
    With per-cluster residual sums ``S_g = c_g - n_g p`` (``c_g`` correct answers, ``p`` the mean):

    * CR1 + z: ``SE^2 = G/(G-1) sum_g S_g^2 / n^2`` (Miller 2024, Eq. 4 and App. A; Cameron & Miller
      2015, Sec. IIC) and ``p -/+ z SE``: the paper's interval.
    * CR1 + t(G-1): the same SE with the t(G-1) critical value (Cameron & Miller 2015, Sec. VI.C).
    * CR2 + Satterthwaite t: ``SE^2 = sum_g S_g^2 / (1 - n_g/n) / n^2`` and t on the Bell-McCaffrey
      degrees of freedom (Bell & McCaffrey 2002; Imbens & Kolesar 2016; Pustejovsky & Tipton 2018),
      the default of :func:`~evalstats_core.clustering.summarize`.
    * Wild cluster bootstrap: the restricted wild cluster bootstrap-t test of ``mean == true value``
      with CR1 studentisation, Webb's six-point weights up to 12 clusters and Rademacher's above
      (Cameron, Gelbach & Miller 2008; MacKinnon, Nielsen & Webb 2023); the eval counts as covered when
      the test does not reject (``p > 1 - confidence``), which is when the test-inversion interval of
      :func:`~evalstats_core.wild.wild_cluster_bootstrap` contains the true value.

    When every cluster scores ``p`` (all ``S_g = 0``) the SE is 0 and only the wild bootstrap's
    p-value is not 0; the analytic intervals then have zero width and miss.

    Examples
    --------
    >>> res = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=200, n_boot=99, rng=1)
    >>> res.n, res.n_clusters, round(res.cr2_df, 2)
    (500, 12, 3.33)
    >>> res.coverage["cr1_z"] < res.coverage["cr2"]
    True
    """
    n_g = _check_sizes(sizes)
    rho = check_unit(icc, "icc")
    mu = check_open_unit(mean, "mean")
    total = check_positive_int(reps, "reps")
    level = check_confidence(confidence)
    if wild:
        w_total = total if wild_reps is None else check_positive_int(wild_reps, "wild_reps")
        if w_total > total:
            raise EvalStatsError(f"wild_reps ({w_total}) exceeds reps ({total}); pass at most reps")
        boot = check_positive_int(n_boot, "n_boot", minimum=9)
    else:
        w_total, boot = 0, 0
    gen = np.random.default_rng(rng)
    g = n_g.size
    n = int(n_g.sum())
    a, df = cr2_weights(n_g, n)  # (G,) CR2 factors (no cluster is empty) and the Satterthwaite df

    q = 0.5 + level / 2.0
    crit = {"cr1_z": float(ndtri(q)), "cr1_t": float(stdtrit(g - 1, q)), "cr2": float(stdtrit(df, q))}
    alpha = 1.0 - level
    weights = _WEBB if g <= _WEBB_MAX_CLUSTERS else _RADEMACHER
    hits = dict.fromkeys(FEW_CLUSTERS_METHODS, 0)
    widths = dict.fromkeys(("cr1_z", "cr1_t", "cr2"), 0.0)
    for start in range(0, total, _REP_CHUNK):
        r = min(_REP_CHUNK, total - start)
        counts = gen.binomial(n_g, _cluster_rates(gen, (r, g), mu, rho))  # (r, G) correct per cluster
        p = counts.sum(axis=1) / n  # (r,)
        resid = counts - n_g * p[:, None]  # (r, G) S_g
        ss = resid * resid
        se = {"cr1": np.sqrt(g / (g - 1) * ss.sum(axis=1)) / n, "cr2": cr2_se(resid, a, n)}
        err = np.abs(p - mu)
        for key, c in crit.items():
            s = se["cr2" if key == "cr2" else "cr1"]
            hits[key] += int(np.count_nonzero(err <= c * s))
            widths[key] += float(2.0 * c * s.sum())
        # the bootstrap draws come from their own stream, seeded every chunk whether or not it is
        # used, so turning wild on or off leaves the analytic columns unchanged
        w_seed = int(gen.integers(1 << 62))
        w_r = min(r, max(0, w_total - start))
        if w_r:
            w_gen = np.random.default_rng([w_seed, 1])
            p_val = _wild_p(counts[:w_r], n_g, mu, boot, weights, w_gen)
            hits["wild"] += int(np.count_nonzero(p_val > alpha))
    cover = {k: hits[k] / total for k in ("cr1_z", "cr1_t", "cr2")}
    width = {k: widths[k] / total for k in ("cr1_z", "cr1_t", "cr2")}
    methods: tuple[str, ...] = ("cr1_z", "cr1_t", "cr2")
    if w_total:
        methods += ("wild",)
        cover["wild"] = hits["wild"] / w_total
        width["wild"] = math.nan
    reps_of = {k: (w_total if k == "wild" else total) for k in methods}
    mc = {k: math.sqrt(cover[k] * (1.0 - cover[k]) / reps_of[k]) for k in methods}
    deff = 1.0 + rho * (float(n_g @ n_g) / n - 1.0)  # design effect of unequal clusters
    return FewClustersCoverage(
        sizes=tuple(int(s) for s in n_g), n=n, n_clusters=g, icc=rho, mean=mu, confidence=level,
        reps=total, wild_reps=w_total, n_boot=boot, largest_share=float(n_g.max() / n), cr2_df=df,
        true_se=math.sqrt(mu * (1.0 - mu) * deff / n), methods=methods, coverage=cover,
        mean_width=width, mc_se=mc,
    )


def _wild_p(
    counts: np.ndarray, n_g: np.ndarray, null: float, n_boot: int, weights: np.ndarray,
    gen: np.random.Generator,
) -> np.ndarray:
    """Restricted wild cluster bootstrap-t p-values of ``mean == null``, one per row of ``counts``.

    Under the null the residuals are ``s_i - null`` with cluster sums ``T_g = c_g - n_g null``; a draw
    multiplies cluster ``g``'s residuals by ``v_g``, so the bootstrap mean minus the null is
    ``D* = sum_g v_g T_g / n`` and its residual sums are ``v_g T_g - n_g D*``; ``t* = D* / SE*_CR1``.
    The p-value is the share of the ``n_boot`` draws with ``|t*| > |t|`` (ties never count).
    """
    r, g = counts.shape
    n = float(n_g.sum())
    k = g / (g - 1)
    p = counts.sum(axis=1) / n
    resid = counts - n_g * p[:, None]
    se = np.sqrt(k * np.einsum("rg,rg->r", resid, resid)) / n  # (r,)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(p - null) / se  # inf when se is 0 and p differs from the null
    bound = (1.0 + _TIE) * t + _TIE  # (r,)
    tt = counts - n_g * null  # (r, G) T_g
    exceed = np.zeros(r, dtype=np.int64)
    step = max(1, _CHUNK_CELLS // (r * g))
    for b0 in range(0, n_boot, step):
        b = min(step, n_boot - b0)
        v = weights[gen.integers(weights.size, size=(b, g))]  # (b, G) one weight vector per draw
        tv = tt[:, None, :] * v[None, :, :]  # (r, b, G) v_g T_g
        d = tv.sum(axis=2) / n  # (r, b) D*
        res = tv - n_g * d[:, :, None]  # (r, b, G) bootstrap residual sums
        se_b = np.sqrt(k * np.einsum("rbg,rbg->rb", res, res)) / n
        with np.errstate(divide="ignore", invalid="ignore"):
            t_b = np.abs(d) / se_b
        exceed += np.count_nonzero(t_b > bound[:, None], axis=1)  # nan (0/0) never counts
    return exceed / n_boot


def _check_sizes(sizes: Any) -> np.ndarray:
    try:
        arr = np.asarray(sizes)
    except (TypeError, ValueError):
        arr = np.asarray([], dtype=object)
    if arr.ndim != 1 or arr.size < 2 or arr.dtype.kind not in "iuf":
        raise EvalStatsError(
            f"sizes ({sizes!r}) must be a sequence of at least 2 cluster sizes, e.g. (50, 30, 20)"
        )
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise EvalStatsError(f"sizes ({sizes!r}) must be whole numbers of questions")
    out = arr.astype(np.int64)
    if out.min() < 1:
        raise EvalStatsError(
            f"sizes has a cluster of {int(out.min())} questions; every cluster needs at least 1"
        )
    return out
