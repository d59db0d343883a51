"""Small shared result types. Module-specific result dataclasses live beside their functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # numpy is not imported at run time: ``import evalstats_core`` stays fast
    import numpy as np

__all__ = ["Interval", "excludes_zero", "notebook_view", "scalar_or_array"]


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

