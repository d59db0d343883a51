"""The pages' URL and widget keys that the core must not know: the power chapter's keys and bounds (the
workbench's link into it, the worked examples' Load buttons) and chapter 1's arrival timer.

The core computes plans and worked examples in plain keywords (``delta``, ``alpha``, ``omega2`` ...); this
module spells them as the power page's widget keys (``power_*``), so a page's keys live on the app side.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LINK_DELTA_RANGE", "power_link", "power_widgets", "ARRIVAL_SECONDS", "next_arrival"]

#: Effects (score units) the power page accepts: its ``power_delta`` bounds in ``pages/power.py``. A link
#: with an effect outside them would open the page on a clamped effect, so the workbench does not offer it.
LINK_DELTA_RANGE: tuple[float, float] = (0.001, 0.5)


def power_widgets(settings: dict[str, Any]) -> dict[str, Any]:
    """A worked example's settings (:func:`evalstats_core.lessons.power.worked_examples`) as the power page's
    widget keys.

    Examples
    --------
    >>> power_widgets({"delta": 0.03, "n": 969})
    {'power_delta': 0.03, 'power_n': 969}
    """
    return {f"power_{k}": v for k, v in settings.items()}


def _short(x: float) -> str:
    """A float for a URL: 6 significant digits, no exponent surprises for typical values."""
    return f"{float(x):.6g}"


def power_link(plan: Any) -> dict[str, str]:
    """Query parameters that open the power chapter on this plan (keys ``power_*``).

    The power page (``pages/power.py``) defines the keys: ``power_delta, power_alpha, power_power``,
    ``power_omega_mode="direct"`` with ``power_omega2``, ``power_sigma2_a, power_sigma2_b, power_k_a,
    power_k_b`` and ``power_n`` (this file's questions). The clustered estimates already carry the
    design effect, so ``power_deff`` is left at its default of 1.
    """
    return {
        "power_omega_mode": "direct", "power_n": str(plan.n),
        "power_delta": _short(plan.delta), "power_alpha": _short(plan.alpha), "power_power": _short(plan.power),
        "power_omega2": _short(plan.omega2), "power_sigma2_a": _short(plan.sigma2_model),
        "power_sigma2_b": _short(plan.sigma2_baseline),
        "power_k_a": str(max(1, int(round(plan.k_model)))), "power_k_b": str(max(1, int(round(plan.k_baseline)))),
    }


#: Seconds between arrivals while the coverage lab plays.
ARRIVAL_SECONDS = 0.3


def next_arrival(shown: int, *, playing: bool, count: int = 100) -> int:
    """How many of the lab's intervals to show on the next tick: one more while playing (back to 1 after
    ``count``), unchanged while paused; always within 1..``count``."""
    shown = min(max(int(shown), 1), int(count))
    if not playing:
        return shown
    return 1 if shown >= count else shown + 1
