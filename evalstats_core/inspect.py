"""Metrics for Inspect AI: our CR2 + Satterthwaite standard error and interval inside ``inspect eval``.

=====================  ==========================================================================
``cr2_stderr(...)``    the standard error of the mean (CR2 with ``cluster=``; the plain CLT SE without)
``cr2_ci(...)``        the interval of the mean: ``ci_low``, ``ci_high`` and its degrees of freedom ``df``
:func:`sample_scores`  the per-sample table the metrics summarize (epochs averaged), for checking
=====================  ==========================================================================

Use them where Inspect's own ``stderr()`` goes, in a task or a scorer::

    from evalstats_core.inspect import cr2_ci, cr2_stderr

    @task
    def my_eval():
        return Task(dataset=..., solver=..., scorer=match(), epochs=5,
                    metrics=[accuracy(), cr2_stderr(cluster="subject"), cr2_ci(cluster="subject")])

``inspect eval`` then writes ``cr2_stderr``, ``ci_low``, ``ci_high`` and ``df`` into the log's results
and shows them in ``inspect view``. The numbers are those of :func:`evalstats_core.summarize` on the same
scores: each sample's epochs are averaged first (epochs are resamples of one question, never independent
questions: Miller 2024, arXiv:2411.00640, Section 3), then the mean gets a cluster-robust CR2 standard
error with a t interval on Bell-McCaffrey (Satterthwaite) degrees of freedom when ``cluster`` names a
sample-metadata key, else the CLT standard error with a t interval on ``n - 1`` degrees of freedom.
Inspect's own ``stderr(cluster=...)`` is the CR1-style SE with a ``C / (C - 1)`` correction, and its
``ci(cluster=...)`` a t interval on ``C - 1`` degrees of freedom. With clusters of equal size these agree
with ours (CR2 then equals that SE and the Satterthwaite df is ``C - 1``); with few, unequal clusters the
Satterthwaite df falls below ``C - 1`` (and CR2's SE moves a little), so the interval widens to keep its
level (Pustejovsky and Tipton 2018; Imbens and Kolesár 2016).

inspect-ai is optional: this module imports without it; asking for a metric without it raises
``ImportError`` saying ``pip install inspect-ai``. Tested with inspect-ai 0.3.285 (``requirements-dev.txt``).
An undefined result (fewer than two samples, one cluster) is ``nan``, never 0. A metric never raises inside
``inspect eval``: a score value that is not one finite number or grade (None, a dict, a list, NaN, an
infinity), a sample without its cluster, or anything else that stops the computation makes it ``nan``, with
the reason logged as below.

What the statistics have to say beyond the numbers (few clusters, a standard error of 0) goes through
Inspect's own channel: Python's ``logging`` (logger ``evalstats_core.inspect``), which Inspect shows as a log
line and keeps in the eval log, each message once per process. Never a raw ``warnings`` line (file path and
source line) in Inspect's progress display.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._validate import check_confidence
from .clustering import summarize
from .errors import EvalStatsError

__all__ = ["cr2_ci", "cr2_stderr", "sample_scores"]  # noqa: F822 - the metrics are made on first use (__getattr__)

LOGGER = logging.getLogger(__name__)
_SAID: set[str] = set()  # each message once per process: Inspect computes a metric once per scorer and reducer

INSTALL = ("evalstats_core.inspect needs inspect-ai, which is not installed: pip install inspect-ai "
           "(tested with 0.3.285)")


def sample_scores(scores: Sequence[Any], cluster: str | None = None,
                  to_float: Callable[[Any], float] | None = None) -> tuple[np.ndarray, list[Any] | None]:
    """One score per sample (its epochs averaged) and the sample's cluster, from Inspect ``SampleScore``s.

    Parameters
    ----------
    scores : sequence of inspect_ai.scorer.SampleScore, length (n_samples * n_epochs)
        What Inspect passes a metric declared with ``scores="unreduced"``: one per sample per epoch.
    cluster : str, optional
        The sample-metadata key holding each sample's cluster (e.g. ``"subject"``).
    to_float : callable, optional
        Maps a score value to a number; default Inspect's ``value_to_float()`` (C/P/I/N = 1/0.5/0/0).

    Returns
    -------
    means : numpy.ndarray, shape (n_samples,)
        Each sample's mean over its epochs, in the order the samples first appear.
    clusters : list or None
        Each sample's cluster label (``None`` when ``cluster`` is not given).

    Raises
    ------
    EvalStatsError
        A sample without the cluster key, or whose epochs name different clusters; a score value that is not a
        number or a grade (None, a dict, a list, bytes) or that converts to NaN or an infinity. The metrics
        never raise: they log the message and return ``nan``.
    """
    if to_float is None:
        from inspect_ai.scorer import value_to_float  # optional dependency (Inspect AI)

        to_float = value_to_float()
    total: dict[Any, float] = {}
    count: dict[Any, int] = {}
    label: dict[Any, Any] = {}
    for row, s in enumerate(scores):
        key = s.sample_id if s.sample_id is not None else ("row", row)  # no id: its own sample
        total[key] = total.get(key, 0.0) + _number(s.score.value, s.sample_id, to_float)
        count[key] = count.get(key, 0) + 1
        if cluster is not None:
            meta = s.sample_metadata or {}
            value = meta.get(cluster)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                raise EvalStatsError(f"sample {s.sample_id!r} has no metadata key {cluster!r} to cluster on; "
                                     f"give every sample metadata[{cluster!r}], or leave out cluster=")
            if isinstance(value, dict | list | set):
                raise EvalStatsError(f"sample {s.sample_id!r} has metadata[{cluster!r}] = {str(value)[:60]}, not a "
                                     "cluster label; give each sample one label (text or a number)")
            if label.setdefault(key, value) != value:
                raise EvalStatsError(f"sample {s.sample_id!r} names two clusters ({label[key]!r} and {value!r}) "
                                     "in its epochs; a sample must lie in one cluster")
    means = np.array([total[k] / count[k] for k in total], dtype=float)  # resamples averaged (Miller 2024, Sec. 3)
    return means, ([label[k] for k in total] if cluster is not None else None)


def _number(value: Any, sample_id: Any, to_float: Callable[[Any], float]) -> float:
    """A score value as a finite number (Inspect's grades C/P/I/N, numbers, booleans, numeric text), or an
    :class:`EvalStatsError` naming the sample and the value."""
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    if value is None or isinstance(value, dict | list | tuple | set | bytes):
        per_key = " (a dict of scores: give metrics per key, e.g. metrics={'key': [cr2_stderr()]})" if isinstance(
            value, dict) else ""
        raise EvalStatsError(f"sample {sample_id!r} has score value {shown}, which is not a number or a grade"
                             f"{per_key}; the scorer must give one number (or C/P/I/N) per sample")
    try:
        number = float(to_float(value))
    except (TypeError, ValueError, OverflowError) as exc:
        raise EvalStatsError(f"sample {sample_id!r} has score value {shown}, which to_float cannot read ({exc}); "
                             "give one number (or C/P/I/N) per sample") from None
    if not math.isfinite(number):
        raise EvalStatsError(f"sample {sample_id!r} has score value {shown} ({number}), which is not a finite "
                             "number; the scorer must give one finite number (or C/P/I/N) per sample")
    return number


def _say(text: str) -> None:
    """``text`` on Inspect's channel (logging), once per process."""
    if text not in _SAID:
        _SAID.add(text)
        LOGGER.warning("evalstats %s: %s", "cr2 metric", text)


def _summary_or_nan(scores: Sequence[Any], cluster: str | None, confidence: float,
                    to_float: Callable[[Any], float] | None) -> Any:
    """:func:`_summary`, or None (the metric is ``nan``) with the reason logged: a metric never raises inside
    ``inspect eval`` (issue 46: odd score values raised uncaught tracebacks there)."""
    try:
        return _summary(scores, cluster, confidence, to_float)
    except Exception as exc:  # noqa: BLE001 - never a traceback in the eval: the message is logged, the value nan
        what = str(exc) if isinstance(exc, EvalStatsError) else f"unexpected {type(exc).__name__}: {exc}"
        _say(f"{what}; the metric is nan")
        return None


def _summary(scores: Sequence[Any], cluster: str | None, confidence: float,
             to_float: Callable[[Any], float] | None) -> Any:
    """``summarize`` of the per-sample means with CR2, or None where it is undefined (< 2 samples, 1 cluster)."""

    means, clusters = sample_scores(scores, cluster, to_float)
    if len(means) < 2 or (clusters is not None and len(set(clusters)) < 2):
        return None
    with warnings.catch_warnings(record=True) as caught:  # said through logging (Inspect's channel), below
        warnings.simplefilter("always")
        result = summarize(means, clusters, confidence=confidence, method="cr2")
    for w in caught:
        _say(str(w.message))
    return result


def _build() -> dict[str, Any]:
    """Define the metrics with Inspect's ``@metric`` (called on first use, so inspect-ai stays optional)."""
    try:
        from inspect_ai.scorer import Metric, metric  # optional dependency (Inspect AI)
    except ImportError as exc:
        raise ImportError(INSTALL) from exc

    @metric(scores="unreduced")
    def cr2_stderr(cluster: str | None = None, to_float: Callable[[Any], float] | None = None) -> Metric:
        """Standard error of the mean: CR2 with ``cluster`` (a sample-metadata key), else the CLT SE.

        Each sample's epochs are averaged first (resamples of one question), then
        :func:`evalstats_core.summarize` gives the SE (Pustejovsky and Tipton 2018; Miller 2024, Eq. 1).
        """

        def compute(scores: list[Any]) -> float:
            s = _summary_or_nan(scores, cluster, 0.95, to_float)
            return math.nan if s is None else s.se

        return compute

    @metric(scores="unreduced")
    def cr2_ci(cluster: str | None = None, confidence: float = 0.95,
               to_float: Callable[[Any], float] | None = None) -> Metric:
        """Interval of the mean, ``mean -/+ t(df) * se``: ``ci_low``, ``ci_high`` and ``df`` in the log.

        With ``cluster``: CR2 SE and Bell-McCaffrey (Satterthwaite) degrees of freedom; without: the
        one-sample t interval on ``n - 1``. Epochs are averaged per sample first.
        """

        check_confidence(confidence)

        def compute(scores: list[Any]) -> dict[str, float]:
            s = _summary_or_nan(scores, cluster, confidence, to_float)
            if s is None:
                return {"ci_low": math.nan, "ci_high": math.nan, "df": math.nan}
            return {"ci_low": s.ci_low, "ci_high": s.ci_high, "df": s.df}

        return compute

    return {"cr2_stderr": cr2_stderr, "cr2_ci": cr2_ci}


_BUILT: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    if name in ("cr2_stderr", "cr2_ci"):
        if not _BUILT:
            _BUILT.update(_build())
        return _BUILT[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
