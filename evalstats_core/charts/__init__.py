"""Altair chart builders: a tidy frame of numbers the core computed in, a chart out.

Shared pieces live here (palette, export, the forest plot used by several pages); chapter-specific
builders live in submodules named after their chapter (``charts.one_model``, ``charts.power``...).
Charts never ask Vega to aggregate intervals (no browser-side bootstrap or CI aggregates): they draw the
``estimate``, ``ci_low`` and ``ci_high`` columns they are given.
"""

from ._base import PALETTE, compile_spec, forest, to_png, to_svg, warm_up, with_export_config

__all__ = ["PALETTE", "compile_spec", "forest", "to_png", "to_svg", "warm_up", "with_export_config"]
