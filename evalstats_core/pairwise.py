"""Pairwise preferences: win rates and Bradley–Terry ratings with intervals clustered by prompt.

=============================  ======================================================================================
:func:`pairwise_analysis`      every pair's win rate, every model's rating, its rank and the battles to separate
                               neighbours, in one pass (the command line, the workbench and the API call it)
:func:`win_rates`              each pair's win rate (a tie counts half) with a CR2 interval clustered by prompt
:func:`bradley_terry`          maximum-likelihood ratings (no penalty) with the sandwich covariance clustered by prompt
:func:`arena_bootstrap`        Chatbot Arena's percentile bootstrap (battles resampled with replacement, seeded)
:func:`battles_to_separate`    how many battles of the same mix would separate two models
:func:`simulate_battles`       seeded battles with a known truth and prompt effects (coverage checks, chapter 4)
=============================  ======================================================================================

**Why cluster by prompt.** A judge (or a person) that reads one prompt judges every pair of answers to it with the
same taste, and a hard prompt trips several models at once: battles on one prompt are not independent. Arena-Hard
even writes two games per prompt and counts a strong verdict three times. Treating each battle as independent (the
model-based standard error, or the Chatbot Arena bootstrap that resamples battles) then understates the
uncertainty; the intervals here resample, in effect, prompts (Cameron & Miller 2015, Sec. II).

**Scale and anchor.** Ratings are on the Elo scale of Chatbot Arena: 400 points are 10-to-1 odds, i.e.
``rating = 400/ln(10) * theta`` (173.7 points per unit of the logit ``theta``), and
``P(i beats j) = 1 / (1 + 10^((r_j - r_i)/400))``. The anchor is the mean: the ratings average 1000
(``anchor=None``); ``anchor="model"`` fixes that model at 1000 instead (Arena-Hard fixes its baseline). Only
differences are identified, so a model's standard error is that of its distance from the anchor.

**A tie** (the two answers judged alike) counts half a win for each model, in the win rates and in the fit (the
likelihood of a battle with outcome ``y`` is ``p^y (1-p)^(1-y)``, ``y = 1/2``), as Chatbot Arena's
``compute_mle_elo`` does by doubling the battles and scoring a tie as one win each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import expit, log_expit, ndtri

from ._clusters import cluster_codes, cr2_se_df, t_crit, t_p_value
from ._validate import check_probability
from .errors import EvalStatsError
from .multiple import holm
from .pairwise_data import Battles, battles_from_rows, codes
from .ranking import rank_models

__all__ = ["SCALE", "CENTRE", "BattleFit", "Rating", "WinRate", "Separation", "PairwiseResult", "pairwise_analysis",
           "win_rates", "bradley_terry", "arena_bootstrap", "battles_to_separate", "simulate_battles", "SCALE_WORDS",
           "TIE_WORDS"]

#: Elo points per unit of the logit (400 points = 10-to-1 odds, as Chatbot Arena's ``SCALE=400, BASE=10``).
SCALE = 400.0 / math.log(10.0)
#: Where the anchor sits: the mean rating (or the anchor model's) is 1000, Chatbot Arena's ``INIT_RATING``.
CENTRE = 1000.0
SCALE_WORDS = "Elo scale: 400 points are 10-to-1 odds (rating = 400/ln 10 x logit, 173.7 points per logit unit)"
TIE_WORDS = "a tie counts half a win for each model, in the win rates and in the Bradley-Terry fit"
_TOL = 1e-13  # Newton steps below this (logit units) end the fit: the ratings agree with statsmodels to 1e-8
_MAX_ITER = 200


# ------------------------------------------------------------------------------------------------- result types
@dataclass(frozen=True, slots=True)
class Rating:
    """One model's Bradley–Terry rating.

    ``rating`` on the Elo scale (:data:`SCALE`); ``se`` the sandwich standard error clustered by prompt, ``ci_low``/
    ``ci_high`` its t interval (``prompts - 1`` degrees of freedom); ``se_plain`` the model-based (inverse
    information) standard error that treats every battle as independent; ``boot_low``/``boot_high`` Chatbot Arena's
    percentile bootstrap interval (nan when not run); ``rank`` 1 + the models surely above it and ``worst_rank`` the
    models minus those surely below (Holm-adjusted tests of every difference); ``group`` the letters of the models it
    cannot be told apart from (two models share a letter when their difference is not significant); ``battles`` the
    battles it fought."""

    model: str
    rating: float
    se: float
    ci_low: float
    ci_high: float
    se_plain: float
    boot_low: float
    boot_high: float
    rank: int
    worst_rank: int
    group: str
    battles: int


@dataclass(frozen=True, slots=True)
class WinRate:
    """How often ``model`` beat ``opponent`` in their battles (a tie counts half): ``rate`` over ``n`` battles on
    ``prompts`` prompts, ``se`` the CR2 standard error clustered by prompt with Satterthwaite ``df``, and the t
    interval clipped to [0, 1] (``ci_low``/``ci_high`` nan when it has no width to give: every battle on one
    prompt, or every battle the same way)."""

    model: str
    opponent: str
    rate: float
    n: int
    prompts: int
    se: float
    df: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True, slots=True)
class Separation:
    """Two neighbours in the rating order: ``difference`` (Elo points, ``model`` minus ``opponent``) with its clustered
    ``se`` and p-value, and ``battles_needed``, the battles of this file's mix at which the interval of the
    difference would exclude 0 with 80% power if the difference is what was measured (None when it is 0)."""

    model: str
    opponent: str
    difference: float
    se: float
    p_value: float
    battles_needed: int | None


@dataclass(frozen=True, slots=True)
class BattleFit:
    """The maximum-likelihood Bradley–Terry fit: ``models``, ``ratings`` (Elo scale, anchored), ``covariance`` (the
    sandwich clustered by prompt, Elo points squared, shape (m, m)), ``plain_covariance`` (inverse information),
    ``theta`` (logits, the first model at 0), ``df`` (prompts - 1), ``iterations`` of Newton's method."""

    models: tuple[str, ...]
    ratings: np.ndarray
    covariance: np.ndarray
    plain_covariance: np.ndarray
    theta: np.ndarray
    df: float
    n_prompts: int
    iterations: int
    anchor: str | None = None


@dataclass(frozen=True, slots=True)
class PairwiseResult:
    """Everything :func:`pairwise_analysis` found, with :meth:`to_dict` the document the command line prints."""

    ratings: tuple[Rating, ...]
    win_rates: tuple[WinRate, ...]
    separation: tuple[Separation, ...]
    confidence: float
    n_battles: int
    n_prompts: int
    kind: str
    name: str
    anchor: str | None
    n_boot: int
    seed: int
    boot_failed: int
    notes: tuple[str, ...] = ()
    covariance: tuple[tuple[float, ...], ...] = field(default=(), repr=False)

    @property
    def models(self) -> tuple[str, ...]:
        """The models, best rating first."""
        return tuple(r.model for r in self.ratings)

    def anchor_words(self) -> str:
        return (f"model {self.anchor!r} is fixed at {CENTRE:.0f}" if self.anchor else
                f"the ratings average {CENTRE:.0f}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: ``ratings = [{model, rating, se, ci, ...}]``, ``win_rates = [{model, opponent, rate,
        n, ci, ...}]``, ``separation``, the scale, the anchor and the notes (nan as None)."""
        def num(x: float) -> float | None:
            return float(x) if x is not None and math.isfinite(x) else None

        def ci(lo: float, hi: float) -> list | None:
            return [num(lo), num(hi)] if math.isfinite(lo) and math.isfinite(hi) else None

        return {
            "file": self.name, "format": self.kind, "battles": self.n_battles, "prompts": self.n_prompts,
            "models": len(self.ratings), "confidence": self.confidence,
            "scale": SCALE_WORDS, "anchor": self.anchor_words(), "ties": TIE_WORDS,
            "interval": (f"sandwich (CR1) covariance clustered by prompt, t with {self.n_prompts - 1} df; win rates: "
                         "CR2 clustered by prompt with Satterthwaite df"),
            "ratings": [{"model": r.model, "rating": num(r.rating), "se": num(r.se), "ci": ci(r.ci_low, r.ci_high),
                         "se_plain": num(r.se_plain), "bootstrap_ci": ci(r.boot_low, r.boot_high), "rank": r.rank,
                         "ranks": [r.rank, r.worst_rank], "group": r.group, "battles": r.battles}
                        for r in self.ratings],
            "win_rates": [{"model": w.model, "opponent": w.opponent, "rate": num(w.rate), "n": w.n,
                           "prompts": w.prompts, "se": num(w.se), "df": num(w.df), "ci": ci(w.ci_low, w.ci_high)}
                          for w in self.win_rates],
            "separation": [{"model": s.model, "opponent": s.opponent, "difference": num(s.difference),
                            "se": num(s.se), "p_value": num(s.p_value), "battles_needed": s.battles_needed}
                           for s in self.separation],
            "bootstrap": {"method": "Chatbot Arena: battles resampled with replacement, ratings refitted, percentile "
                                    "interval", "n_boot": self.n_boot, "seed": self.seed,
                          "resamples_without_a_fit": self.boot_failed},
            "notes": list(self.notes),
        }


# ------------------------------------------------------------------------------------------------- the fit
def _as_battles(battles: Any) -> Battles:
    if isinstance(battles, Battles):
        return battles
    return battles_from_rows(battles)


def _pair_sums(a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int,
               weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The battles summed by ordered pair: ``(pa, pb, count, wins)`` over the pairs that met, ``wins`` the sum of A's
    outcomes (``weights``: how many times each battle counts, e.g. a bootstrap resample's). The likelihood, its
    gradient and its information depend on the battles only through these sums, so the fit costs O(m^2) a step."""
    key = a * m + b
    count = np.bincount(key, weights=weights, minlength=m * m)
    wins = np.bincount(key, weights=y if weights is None else weights * y, minlength=m * m)
    met = np.flatnonzero(count)
    return met // m, met % m, count[met].astype(np.float64), wins[met]


def _beat(pa: np.ndarray, pb: np.ndarray, count: np.ndarray, wins: np.ndarray, m: int) -> np.ndarray:
    """``B[i, j]``: ``i`` won (at least in part) a battle against ``j``."""
    beat = np.zeros((m, m), dtype=bool)
    beat[pa[wins > 0.0], pb[wins > 0.0]] = True  # A took something from B
    lost = wins < count
    beat[pb[lost], pa[lost]] = True  # B took something from A
    return beat


def _reach(pa: np.ndarray, pb: np.ndarray, count: np.ndarray, wins: np.ndarray, m: int) -> np.ndarray:
    """``R[i, j]``: a chain of battles leads from ``i`` to ``j``, each won (at least in part) by the earlier model."""
    reach = _beat(pa, pb, count, wins, m) | np.eye(m, dtype=bool)
    for k in range(m):  # transitive closure (Warshall)
        reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
    return reach


def _all_reach(pa: np.ndarray, pb: np.ndarray, count: np.ndarray, wins: np.ndarray, m: int) -> bool:
    """``_reach(...).all()`` without the closure: every model reaches every other exactly when all reach model 0 and
    model 0 reaches all (a search each way, a few matrix steps instead of ``m``; the bootstrap asks it per round)."""
    beat = _beat(pa, pb, count, wins, m)
    for edges in (beat, beat.T):
        seen = np.zeros(m, dtype=bool)
        seen[0] = True
        front = seen.copy()
        while front.any():
            front = edges[front].any(axis=0) & ~seen
            seen |= front
        if not seen.all():
            return False
    return True


def _unbeaten(models: tuple[str, ...], reach: np.ndarray) -> EvalStatsError | None:
    """None when the MLE exists (Ford 1957: every model reaches every other); else the message naming the groups."""
    if reach.all():
        return None
    i, _ = np.argwhere(~reach)[0]
    low = [models[k] for k in np.flatnonzero(reach[i])]
    high = [models[k] for k in range(len(models)) if not reach[i, k]]
    return EvalStatsError(
        f"{_names(low)} won no battle (and shared none) against {_names(high)}: the Bradley-Terry ratings have no "
        "finite maximum-likelihood value (the gap could be any size); add battles between these models, or leave "
        "out the models that never lost (or never won)")


def _names(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _information(a: np.ndarray, b: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """``X' diag(w) X`` for rows ``x = e_a - e_b`` (shape (m, m)): the Fisher information of the logits."""
    pair = np.bincount(a * m + b, weights=w, minlength=m * m).reshape(m, m)
    pair = pair + pair.T
    return np.diag(pair.sum(axis=1)) - pair


def _loglik(theta: np.ndarray, pa: np.ndarray, pb: np.ndarray, count: np.ndarray, wins: np.ndarray) -> float:
    d = theta[pa] - theta[pb]
    return float(wins @ log_expit(d) + (count - wins) @ log_expit(-d))  # sum of y log p + (1 - y) log(1 - p)


def _fit_theta(pa: np.ndarray, pb: np.ndarray, count: np.ndarray, wins: np.ndarray, m: int) -> tuple[np.ndarray, int]:
    """Logits maximising the Bradley–Terry likelihood with ``theta[0] = 0``, from the pair sums (:func:`_pair_sums`):
    Newton's method with step halving (the log-likelihood is concave; the caller has checked that the maximum
    exists)."""
    theta = np.zeros(m)
    ll = _loglik(theta, pa, pb, count, wins)
    for it in range(1, _MAX_ITER + 1):
        p = expit(theta[pa] - theta[pb])
        r = wins - count * p  # sum over the pair's battles of y - p
        grad = np.bincount(pa, weights=r, minlength=m) - np.bincount(pb, weights=r, minlength=m)
        info = _information(pa, pb, count * p * (1.0 - p), m)
        step = np.zeros(m)
        step[1:] = np.linalg.solve(info[1:, 1:], grad[1:])  # Newton: (X'WX) step = X'(y - p)
        t = 1.0
        while True:
            new = theta + t * step
            new_ll = _loglik(new, pa, pb, count, wins)
            if new_ll >= ll - 1e-12 * abs(ll) or t < 1e-8:
                break
            t /= 2.0
        theta, ll = new, new_ll
        if float(np.max(np.abs(t * step))) < _TOL:
            return theta, it
    return theta, _MAX_ITER


def _anchor_matrix(models: tuple[str, ...], anchor: str | None) -> np.ndarray:
    """The linear map from logits to anchored ratings' deviations (times :data:`SCALE`): the mean removed, or the
    anchor model's logit removed."""
    m = len(models)
    if anchor is None:
        return np.eye(m) - 1.0 / m
    if anchor not in models:
        raise EvalStatsError(f"anchor {anchor!r} is not one of the models ({_names(list(models))}); name one of "
                             "them, or leave it out to centre the ratings on their mean")
    t = np.eye(m)
    t[:, models.index(anchor)] -= 1.0
    return t


def bradley_terry(battles: Any, *, anchor: str | None = None) -> BattleFit:
    """Maximum-likelihood Bradley–Terry ratings with a sandwich covariance clustered by prompt.

    Parameters
    ----------
    battles : Battles, DataFrame or rows of ``prompt, model_a, model_b, winner``
        The battles (:mod:`evalstats_core.pairwise_data`).
    anchor : str, optional
        A model fixed at 1000; default: the ratings average 1000.

    Returns
    -------
    BattleFit

    Notes
    -----
    The model: ``P(A beats B) = expit(theta_A - theta_B)`` (Bradley & Terry 1952), fitted by maximum likelihood
    with no penalty, a battle with A's outcome ``y`` in [0, 1] contributing ``y log p + (1 - y) log(1 - p)``;
    this is a logistic regression without intercept on rows ``x = e_A - e_B`` (one model's column dropped), and
    equals statsmodels' ``Logit`` on Chatbot Arena's doubled battles to 1e-8 (``tests/test_pairwise.py``).
    The maximum exists when every model reaches every other through battles it won or shared (Ford 1957);
    otherwise an :class:`EvalStatsError` names the models that were never beaten.

    The covariance is the cluster-robust sandwich ``H^-1 (G/(G-1) sum_g s_g s_g') H^-1`` with ``H = X'WX`` the
    information, ``W = diag(p(1-p))`` and ``s_g = sum_{k in g} (y_k - p_k) x_k`` the score of prompt ``g``
    (Cameron & Miller 2015, J. Human Resources 50(2), Eq. 11 with the CR1 factor of Sec. IIC, as Stata's ``logit,
    vce(cluster)``); intervals use t with ``G - 1`` degrees of freedom (Sec. VI.B). The model-based covariance
    ``H^-1`` is kept as ``plain_covariance``, for comparison.

    Examples
    --------
    >>> rows = [{"prompt": f"p{i}", "model_a": a, "model_b": b, "winner": w} for i, (a, b, w) in
    ...         enumerate([("x", "y", "a"), ("x", "y", "a"), ("x", "y", "b"), ("y", "z", "a"), ("y", "z", "tie"),
    ...                    ("z", "x", "b"), ("z", "x", "a"), ("y", "z", "b")])]
    >>> fit = bradley_terry(rows)
    >>> [round(float(r), 1) for r in fit.ratings]
    [1044.8, 960.8, 994.3]
    """
    battles = _as_battles(battles)
    models, a, b, y = codes(battles)
    m = len(models)
    if m < 2:
        raise EvalStatsError(f"the battles name only {m} model(s); ratings need battles between at least two models")
    g, n_prompts = cluster_codes(list(battles.prompts), len(battles), "prompts")
    if n_prompts < 2:
        raise EvalStatsError(f"every battle is on one prompt ({battles.prompts[0]!r}); clustered intervals need "
                             "battles on at least two prompts")
    sums = _pair_sums(a, b, y, m)
    problem = _unbeaten(models, _reach(*sums, m))
    if problem is not None:
        raise problem
    theta, iterations = _fit_theta(*sums, m)
    p = expit(theta[a] - theta[b])
    r = y - p
    info = _information(a, b, p * (1.0 - p), m)[1:, 1:]
    bread = np.linalg.inv(info)
    scores = (np.bincount(g * m + a, weights=r, minlength=n_prompts * m)
              - np.bincount(g * m + b, weights=r, minlength=n_prompts * m)).reshape(n_prompts, m)[:, 1:]
    meat = n_prompts / (n_prompts - 1) * (scores.T @ scores)  # CR1: sum_g s_g s_g' times G/(G-1)
    free = np.zeros((m, m))
    free[1:, 1:] = bread @ meat @ bread  # sandwich, Cameron & Miller 2015 Eq. 11
    plain = np.zeros((m, m))
    plain[1:, 1:] = bread
    t = SCALE * _anchor_matrix(models, anchor)
    ratings = CENTRE + t @ theta
    return BattleFit(models, ratings, t @ free @ t.T, t @ plain @ t.T, theta, float(n_prompts - 1), n_prompts,
                     iterations, anchor)


def arena_bootstrap(battles: Any, *, n_boot: int = 1000, seed: int = 0, confidence: float = 0.95,
                    anchor: str | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Chatbot Arena's bootstrap interval of every rating: ``(low, high, failed)``, each of shape (m,), in the order
    of ``Battles.models``.

    Each of ``n_boot`` rounds draws ``n`` battles with replacement (``rng.choice(n, size=n, replace=True)`` from
    ``numpy.random.default_rng(seed)``, what ``DataFrame.sample(frac=1.0, replace=True, random_state=rng)`` draws),
    refits the ratings (:func:`bradley_terry`'s fit and anchor) and keeps them; the interval is their
    ``(1 - confidence)/2`` and ``(1 + confidence)/2`` percentiles (``numpy.percentile``). This is the procedure of
    Chatbot Arena's ``get_bootstrap_result`` (``battles.sample(frac=1.0, replace=True)`` then ``compute_mle_elo``;
    Chiang et al. 2024, arXiv:2403.04132, Sec. 5). A round whose battles have no finite fit (a model left out, or one
    that never lost) is counted in ``failed`` and left out of the percentiles.

    It treats battles as independent: with several battles per prompt it is too narrow, as the model-based interval
    is. ``bench/bench_pairwise_coverage.py`` (200 seeded files a design, ``bench/results/pairwise_coverage.txt``): 3
    models, 60 prompts of 8 battles, a judge repeating its verdict within a prompt with probability 0.7: this
    bootstrap covers 81.5%, the model-based interval 83.5%, the clustered one 95.2%; with independent battles all
    three cover 95.5-96.0%. It is here to compare with the clustered interval.
    """
    battles = _as_battles(battles)
    confidence = check_probability(confidence, "confidence")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 1:
        raise EvalStatsError(f"n_boot ({n_boot!r}) must be a whole number of resamples, at least 1; e.g. 1000")
    models, a, b, y = codes(battles)
    m, n = len(models), len(battles)
    t = SCALE * _anchor_matrix(models, anchor)
    rng = np.random.default_rng(seed)
    rows = np.full((int(n_boot), m), np.nan)
    failed = 0
    for k in range(int(n_boot)):
        idx = rng.choice(n, size=n, replace=True)
        sums = _pair_sums(a, b, y, m, weights=np.bincount(idx, minlength=n))  # each battle as often as it was drawn
        if not _all_reach(*sums, m):
            failed += 1
            continue
        theta, _ = _fit_theta(*sums, m)
        rows[k] = CENTRE + t @ theta
    if failed == n_boot:
        return np.full(m, np.nan), np.full(m, np.nan), failed
    lo, hi = np.nanpercentile(rows, [50.0 * (1.0 - confidence), 50.0 * (1.0 + confidence)], axis=0)
    return lo, hi, failed


# ------------------------------------------------------------------------------------------------- win rates
def win_rates(battles: Any, *, confidence: float = 0.95) -> tuple[WinRate, ...]:
    """Every pair's win rate in both directions, with a CR2 interval clustered by prompt.

    Notes
    -----
    For the battles of models ``i`` and ``j``, ``i``'s outcome is 1 (won), 1/2 (tie) or 0; the win rate is their
    mean and its standard error the CR2 one of a mean clustered by prompt, with Bell–McCaffrey (Satterthwaite)
    degrees of freedom (:func:`evalstats_core._clusters.cr2_se_df`, Pustejovsky & Tipton 2018, Eq. 6 and 11); the
    interval is the t interval clipped to [0, 1]. ``j``'s rate is ``1 - rate`` with the mirrored interval.

    >>> rows = [{"prompt": p, "model_a": "x", "model_b": "y", "winner": w} for p, w in
    ...         [("p1", "a"), ("p1", "a"), ("p2", "b"), ("p3", "a"), ("p3", "tie"), ("p4", "a")]]
    >>> w = win_rates(rows)[0]
    >>> w.model, w.opponent, round(w.rate, 3), w.n, w.prompts
    ('x', 'y', 0.75, 6, 4)
    """
    battles = _as_battles(battles)
    confidence = check_probability(confidence, "confidence")
    models, a, b, y = codes(battles)
    m = len(models)
    g, _ = cluster_codes(list(battles.prompts), len(battles), "prompts")
    lo_model, hi_model = np.minimum(a, b), np.maximum(a, b)
    y_lo = np.where(a == lo_model, y, 1.0 - y)  # the outcome of the pair's first model
    key = lo_model * m + hi_model
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    out: list[WinRate] = []
    for part in np.split(order, bounds):
        i, j = int(lo_model[part[0]]), int(hi_model[part[0]])
        yi, gi = y_lo[part], g[part]
        n = len(part)
        rate = float(yi.mean())
        _, local, sizes = np.unique(gi, return_inverse=True, return_counts=True)
        resid = np.bincount(local, weights=yi - rate)
        if len(sizes) < 2:
            se, df = math.nan, math.nan
        else:
            se, df = cr2_se_df(resid, sizes.astype(np.float64), n)
        if math.isfinite(se) and se > 0.0:
            half = t_crit(confidence, df) * se
            low, high = max(0.0, rate - half), min(1.0, rate + half)
        else:
            low = high = math.nan
        out.append(WinRate(models[i], models[j], rate, n, len(sizes), se, df, low, high))
        out.append(WinRate(models[j], models[i], 1.0 - rate, n, len(sizes), se, df,
                           1.0 - high if math.isfinite(high) else math.nan,
                           1.0 - low if math.isfinite(low) else math.nan))
    return tuple(out)


# ------------------------------------------------------------------------------------------------- planning
def battles_to_separate(difference: float, se: float, n_battles: int, *, confidence: float = 0.95,
                        power: float = 0.8) -> int | None:
    """Battles of the same mix at which a difference of ``difference`` would be separated from 0 with ``power``.

    Notes
    -----
    A standard error from ``n`` battles shrinks as ``1/sqrt(n)`` when more battles of the same mix are added (the
    same models, pairings and battles per prompt). The interval at level ``confidence`` excludes 0 with probability
    ``power`` when ``|d| / SE(N) = z_{(1+c)/2} + z_power``, so (the usual normal power formula, e.g. Chow, Shao &
    Wang 2008, Sec. 3.1.1)::

        N = n * ((z_{(1+c)/2} + z_power) * SE(n) / d)^2

    Returns None when the difference is 0 (no number of battles separates equal models).

    >>> battles_to_separate(20.0, 10.0, 1000)
    1963
    """
    confidence = check_probability(confidence, "confidence")
    power = check_probability(power, "power")
    if not math.isfinite(difference) or difference == 0.0 or not math.isfinite(se):
        return None
    z = float(ndtri(0.5 + confidence / 2.0) + ndtri(power))
    return int(math.ceil(n_battles * (z * se / difference) ** 2))  # N = n (z SE / d)^2


# ------------------------------------------------------------------------------------------------- one pass
def pairwise_analysis(battles: Any, *, confidence: float = 0.95, anchor: str | None = None, n_boot: int = 1000,
                      seed: int = 0) -> PairwiseResult:
    """Win rates, ratings, ranks and the battles needed to separate neighbours, from one set of battles.

    Parameters
    ----------
    battles : Battles, DataFrame or rows of ``prompt, model_a, model_b, winner``
    confidence : float, default 0.95
    anchor : str, optional
        A model fixed at 1000 (default: the ratings average 1000).
    n_boot : int, default 1000
        Rounds of Chatbot Arena's bootstrap (0: none).
    seed : int, default 0
        Seed of the bootstrap's generator.

    Examples
    --------
    >>> from evalstats_core import examples
    >>> from evalstats_core.pairwise_data import load_battles
    >>> res = pairwise_analysis(load_battles([examples.path("pairwise_battles.tsv")]), n_boot=0)
    >>> [(r.model, round(r.rating), r.rank) for r in res.ratings][:2]
    [('Dreadnought', 1053, 1), ('Galleon', 1041, 1)]
    """
    battles = _as_battles(battles)
    confidence = check_probability(confidence, "confidence")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 0:
        raise EvalStatsError(f"n_boot ({n_boot!r}) must be a whole number of resamples (0 for none); e.g. 1000")
    fit = bradley_terry(battles, anchor=anchor)
    models, m = fit.models, len(fit.models)
    se = np.sqrt(np.clip(np.diag(fit.covariance), 0.0, None))
    se_plain = np.sqrt(np.clip(np.diag(fit.plain_covariance), 0.0, None))
    crit = t_crit(confidence, fit.df)
    if n_boot:
        boot_low, boot_high, failed = arena_bootstrap(battles, n_boot=int(n_boot), seed=seed, confidence=confidence,
                                                      anchor=anchor)
    else:
        boot_low, boot_high, failed = np.full(m, np.nan), np.full(m, np.nan), 0

    # every difference tested once (t with G - 1 df on the clustered SE), Holm-adjusted, then ranked
    pairs, diffs, d_se = [], [], []
    for i in range(m):
        for j in range(i + 1, m):
            var = fit.covariance[i, i] + fit.covariance[j, j] - 2.0 * fit.covariance[i, j]
            pairs.append((i, j))
            diffs.append(float(fit.ratings[i] - fit.ratings[j]))
            d_se.append(math.sqrt(max(var, 0.0)))
    p_raw = [t_p_value(d / s, fit.df) if s > 0 else math.nan for d, s in zip(diffs, d_se, strict=True)]
    p_adj = holm(np.nan_to_num(p_raw, nan=1.0)) if pairs else np.zeros(0)
    ranking = rank_models({models[k]: float(fit.ratings[k]) for k in range(m)},
                          [(models[i], models[j], float(p), d) for (i, j), p, d in zip(pairs, p_adj, diffs, strict=True)],
                          alpha=1.0 - confidence)
    index = {name: k for k, name in enumerate(models)}
    fought = np.bincount(np.concatenate(codes(battles)[1:3]), minlength=m)
    ratings = []
    for pos, name in enumerate(ranking.models):
        k = index[name]
        ratings.append(Rating(name, float(fit.ratings[k]), float(se[k]), float(fit.ratings[k] - crit * se[k]),
                              float(fit.ratings[k] + crit * se[k]), float(se_plain[k]), float(boot_low[k]),
                              float(boot_high[k]), ranking.best_rank[pos], ranking.worst_rank[pos],
                              ranking.letters[pos], int(fought[k])))

    by_pair = {(i, j): (d, s, p) for (i, j), d, s, p in zip(pairs, diffs, d_se, p_raw, strict=True)}
    separation = []
    for upper, lower in zip(ratings, ratings[1:], strict=False):
        i, j = index[upper.model], index[lower.model]
        d, s, p = by_pair[(i, j)] if i < j else (-by_pair[(j, i)][0], *by_pair[(j, i)][1:])
        separation.append(Separation(upper.model, lower.model, d, s, p,
                                     battles_to_separate(d, s, len(battles), confidence=confidence)))
    rates = win_rates(battles, confidence=confidence)
    notes = list(battles.notes)
    flat = [w for w in rates[::2] if not math.isfinite(w.ci_low)]
    if flat:
        notes.append(f"{len(flat)} pair(s) have no win-rate interval: every battle went one way, or all were on one "
                     "prompt (e.g. " + f"{flat[0].model} vs {flat[0].opponent}); add battles on more prompts.")
    if fit.n_prompts < 30:
        notes.append(f"Only {fit.n_prompts} prompts: the clustered intervals rest on few clusters (t with "
                     f"{fit.n_prompts - 1} df); read them as rough.")
    if failed:
        notes.append(f"{failed} of {n_boot} bootstrap resamples had no finite fit (a model left out, or one that "
                     "never lost) and were left out of the bootstrap interval.")
    return PairwiseResult(tuple(ratings), rates, tuple(separation), confidence, len(battles), fit.n_prompts,
                          battles.kind, battles.name, anchor, int(n_boot), int(seed), failed, tuple(notes),
                          tuple(tuple(float(x) for x in row) for row in fit.covariance))


# ------------------------------------------------------------------------------------------------- simulation
def simulate_battles(ratings: Any, *, n_prompts: int, per_prompt: int, copy: float = 0.0, even: float = 0.0,
                     rng: Any = None, names: Any = None) -> Battles:
    """Seeded battles with a known truth and prompt effects: ``per_prompt`` battles on each of ``n_prompts`` prompts.

    Each battle's pair is drawn uniformly from all pairs (sides at random). A prompt has its own verdict on each
    pair, drawn from the Bradley–Terry probability of the true ``ratings`` (Elo scale); a battle repeats its
    prompt's verdict with probability ``copy`` and is judged afresh otherwise. Every battle's chance of a win is
    still the Bradley–Terry probability, so the true ratings are what the fit estimates; battles on one prompt agree
    more often than chance, as a judge's taste makes them. With probability ``even`` a battle is judged a tie
    (then the target is no longer exactly ``ratings``: leave it 0 for coverage).
    """
    rng = np.random.default_rng(rng)
    r = np.asarray(ratings, dtype=np.float64)
    m = r.size
    names = tuple(names) if names is not None else tuple(f"model {k + 1}" for k in range(m))
    iu, ju = np.triu_indices(m, 1)
    n = int(n_prompts) * int(per_prompt)
    prompt = np.repeat(np.arange(int(n_prompts)), int(per_prompt))
    pair = rng.integers(0, iu.size, size=n)
    p = expit((r[iu] - r[ju]) / SCALE)[pair]  # P(first of the pair wins)
    verdict = rng.random((int(n_prompts), iu.size)) < expit((r[iu] - r[ju]) / SCALE)  # the prompt's own verdict
    fresh = rng.random(n) < p
    y = np.where(rng.random(n) < copy, verdict[prompt, pair], fresh).astype(np.float64)
    y[rng.random(n) < even] = 0.5
    swap = rng.random(n) < 0.5
    a = np.where(swap, ju[pair], iu[pair])
    b = np.where(swap, iu[pair], ju[pair])
    y = np.where(swap, 1.0 - y, y)
    return Battles(tuple(f"p{k}" for k in prompt), tuple(names[k] for k in a), tuple(names[k] for k in b),
                   tuple(y.tolist()), "long", "simulated")
