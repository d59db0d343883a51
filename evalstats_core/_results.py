"""Result types on the ground floor: ``Interval``, and the results of ``summarize`` (:class:`Summary`) and ``compare``
(:class:`Comparison`), which the estimators below :mod:`~evalstats_core.clustering` and
:mod:`~evalstats_core.comparison` build (both modules export them). Other result dataclasses live beside their
functions."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # numpy is not imported at run time: ``import evalstats_core`` stays fast
    import numpy as np

__all__ = ["Comparison", "Interval", "Summary", "excludes_zero", "notebook_view", "rejects", "scalar_or_array"]


class Interval(NamedTuple):
    """A two-sided interval ``(low, high)`` in the units of the estimate (plain floats)."""

    low: float
    high: float


def excludes_zero(low: float, high: float) -> bool:
    """Whether the interval ``(low, high)`` lies wholly on one side of 0: the one test of "significant" (a two-sided
    test at the interval's level rejects no difference exactly then); False when either end is nan.

    >>> excludes_zero(0.01, 0.05), excludes_zero(-0.05, -0.01), excludes_zero(-0.01, 0.05), excludes_zero(float("nan"), 1.0)
    (True, True, False, False)
    """
    return bool(low > 0 or high < 0)


def rejects(p: float, alpha: float) -> bool:
    """Whether a test's p-value rejects no difference at size ``alpha``: the one test of "significant" by a
    p-value (an adjusted one where comparisons are many); False when ``p`` is nan or infinite.

    >>> rejects(0.01, 0.05), rejects(0.05, 0.05), rejects(float("nan"), 0.05)
    (True, False, False)
    """
    return bool(math.isfinite(p) and p < alpha)


def scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    """A plain ``float`` for a 0-d result, else the array unchanged (vectorised functions' return)."""
    return float(arr) if arr.ndim == 0 else arr


def notebook_view(result: object, view: str, *args: object) -> object:
    """A result shown in a notebook (``_repr_html_``, ``_repr_markdown_``, ``Analysis.chart``): the view of
    :mod:`evalstats_core.display` named ``view`` (``result_html``, ``analysis_markdown``, ``chart``...).

    The result types live on the ground floor and their views two floors up (they are report tables and charts);
    this is the one import that runs back up, named in ``tests/test_layers.py``: a notebook asks the object
    itself, so the object must reach its view.
    """
    from . import (
        display,  # the notebook display hook: the one allowed import up a floor (tests/test_layers.py)
    )

    return getattr(display, view)(result, *args)


class _Shown:
    """What :class:`Summary` and :class:`Comparison` share beyond their fields: the interval as one value and the
    notebook's one-row table (the views live in :mod:`evalstats_core.display`). No fields and no slots of its own,
    so each dataclass keeps its own fields, ``repr`` and ``__slots__``."""

    __slots__ = ()

    @property
    def ci(self) -> Interval:
        """The interval as ``Interval(low, high)``."""
        return Interval(self.ci_low, self.ci_high)

    def _repr_html_(self) -> str:  # Jupyter: a one-row table
        return notebook_view(self, "result_html")

    def _repr_markdown_(self) -> str:
        return notebook_view(self, "result_markdown")


@dataclass(frozen=True, slots=True)
class Summary(_Shown):
    """One model's mean score and its uncertainty (all plain Python numbers).

    Attributes
    ----------
    n : int
        Number of questions (scores).
    n_clusters : int
        Number of distinct cluster labels; equal to ``n`` when no clusters were given (every question
        is its own cluster).
    mean : float
        Mean score ``s_bar``.
    se : float
        Standard error of the mean: cluster-robust (CR2, or CR1 with ``method="cr1"``) when clusters
        were given, else equal to ``se_naive``.
    ci_low, ci_high : float
        Interval at ``confidence``: ``mean -/+ t(df) * se`` (normal ``z`` when ``df`` is infinite; not
        clipped to [0, 1]) or, for 0/1 scores, the interval named by ``interval``; ``nan`` (no
        interval) when the SE is 0 and no score interval applies (every question, or every cluster, has
        the same mean) unless ``interval="normal"`` asked for the raw one.
    se_naive : float
        CLT standard error ``sd(ddof=1) / sqrt(n)``, which pretends the questions are independent.
    deff : float
        Design effect ``(se / se_naive)**2`` when clustered; exactly 1.0 without clusters (there is no
        design to correct for). With clusters and all scores equal, ``se_naive`` is 0 and the ratio is
        undefined: ``nan``, never a made-up 0 or 1.
    n_eff : float
        Effective number of independent questions ``n / deff``; ``nan`` when ``deff`` is ``nan`` or 0.
    clustered : bool
        True when ``se`` is the cluster-robust one (clusters were given).
    confidence : float
        Confidence level of the interval.
    warnings : tuple of str
        Cautions about this result (e.g. few clusters); also issued as
        :class:`~evalstats_core.errors.EvalStatsWarning`.
    df : float
        Degrees of freedom of the t reference: Bell-McCaffrey (Satterthwaite) with clusters, ``n - 1``
        without; ``inf`` for the normal reference of ``method="cr1"``.
    method : str
        ``"cr2"`` (default) or ``"cr1"``.
    interval : str
        ``"normal"`` (t or z), ``"wilson"``, ``"korn-graubard"`` (0/1 scores, see
        :func:`~evalstats_core.proportions.binary_mean_interval`), ``"cluster-means"`` (under two clusters'
        worth of information, :mod:`~evalstats_core.cluster_means`), ``"quasi-binomial-t"`` (scores in [0, 1]
        not all 0/1, unclustered, near 0% or 100%: :mod:`~evalstats_core.bounded_unclustered`) or ``"none"``
        (SE 0: no interval).
    """

    n: int
    n_clusters: int
    mean: float
    se: float
    ci_low: float
    ci_high: float
    se_naive: float
    deff: float
    n_eff: float
    clustered: bool = False
    confidence: float = 0.95
    warnings: tuple[str, ...] = ()
    df: float = math.inf
    method: str = "cr2"
    interval: str = "normal"


# fields of Comparison in score units (scaled back when huge or tiny scores were rescaled)
_SCORE_UNITS = ("mean_a", "mean_b", "diff", "se", "ci_low", "ci_high", "se_unpaired", "se_paired")



@dataclass(frozen=True, slots=True)
class Comparison(_Shown):
    """The difference ``mean(a) - mean(b)`` with its standard error and test (plain Python numbers).

    Attributes
    ----------
    n : int
        Number of questions of ``a`` (and of ``b`` when paired).
    n_b : int
        Number of questions of ``b`` (differs from ``n`` only when ``paired=False``).
    n_clusters : int
        Distinct cluster labels; ``n`` when no clusters were given.
    mean_a, mean_b : float
        The two mean scores.
    diff : float
        ``mean_a - mean_b`` (positive: A scored higher).
    se : float
        Standard error of ``diff`` used for the interval and test: ``se_paired`` when paired, else
        ``se_unpaired``.
    ci_low, ci_high : float
        Interval ``diff -/+ t(df) * se`` at ``confidence`` (normal ``z`` when ``df`` is infinite).
    z : float
        The test statistic ``diff / se`` (a t statistic when ``df`` is finite); ``+-inf`` when ``se``
        is 0 and ``diff`` is not, ``nan`` when both are 0.
    p_value : float
        Two-sided p-value of ``z`` under t(df) (normal when ``df`` is infinite). When ``se`` is 0 and
        ``diff`` is not, the exact randomisation p-value (sign flips of the questions or clusters when
        paired, label permutations when unpaired), never 0; ``nan`` when ``diff`` is 0 too.
    se_unpaired : float
        ``sqrt(SE_a^2 + SE_b^2)`` from each model's own (clustered, if clusters given) SE.
    se_paired : float
        SE of the per-question differences (CR2, or CR1, of the differences when clustered); ``nan``
        when ``paired=False``.
    correlation : float
        Pearson correlation of the two models' per-question scores; ``nan`` when unpaired or when one
        model's scores are all equal.
    variance_removed : float
        ``1 - se_paired^2 / se_unpaired^2``: the share of the unpaired variance that pairing removed
        (negative if the scores are negatively correlated); ``nan`` when unpaired or undefined.
    paired, clustered : bool
        How ``se`` was computed.
    confidence : float
        Confidence level of the interval.
    warnings : tuple of str
        Cautions (e.g. few clusters), also issued as ``EvalStatsWarning``.
    df : float
        Degrees of freedom of the t reference: ``n - 1`` paired, Bell-McCaffrey with clusters, Welch-
        Satterthwaite unpaired (Welch's t-test), and unpaired with clusters the Satterthwaite df of the
        two-group CR2 model as R's clubSandwich computes it; ``inf`` (normal) with ``method="cr1"``.
    method : str
        ``"cr2"`` (default) or ``"cr1"``.
    """

    n: int
    n_b: int
    n_clusters: int
    mean_a: float
    mean_b: float
    diff: float
    se: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    se_unpaired: float
    se_paired: float
    correlation: float
    variance_removed: float
    paired: bool = True
    clustered: bool = False
    confidence: float = 0.95
    warnings: tuple[str, ...] = ()
    df: float = math.inf
    method: str = "cr2"
    interval: str = "normal"
    only_a: int | None = None
    only_b: int | None = None
