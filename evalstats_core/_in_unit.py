"""Whether every score lies in [0, 1], as the interval rules near a bound ask it (private).

:func:`~evalstats_core._estimate.summary_from_moments` and :func:`~evalstats_core._estimate.comparison_from_moments`
take it as ``in_unit``. The analysis knows the answer from its sums (``InUnit(sums.unit01)``). ``summarize`` and
``compare`` would need a scan of the scores for it, so they hand over the scan (``InUnit(check=...)``), which
runs only when a rule near 0% or 100% may apply: inside
:func:`~evalstats_core.bounded_unclustered.bounded_mean_t_interval` or
:func:`~evalstats_core.bounded_unclustered.bounded_pair_interval`, after their cheaper tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["InUnit", "NOT_IN_UNIT"]


@dataclass(frozen=True, slots=True)
class InUnit:
    """Whether every score (of both models, for a pair) lies in [0, 1]: known, or checked when asked.

    Attributes
    ----------
    known : bool, default False
        True when the caller knows that every score lies in [0, 1].
    check : callable or None, default None
        When ``known`` is False: ``check()`` is True when every score lies in [0, 1], run only by :meth:`holds`.
        None: the scores are not in [0, 1], or the caller does not say (the rules near a bound do not apply).
    """

    known: bool = False
    check: Callable[[], bool] | None = None

    @property
    def possible(self) -> bool:
        """Known to hold, or still to be checked: a rule near a bound may apply (:meth:`holds` decides)."""
        return self.known or self.check is not None

    def holds(self) -> bool:
        """Whether every score lies in [0, 1], running ``check`` when it is not known."""
        return self.known or (self.check is not None and bool(self.check()))


NOT_IN_UNIT = InUnit()  # the default: no rule near a bound
