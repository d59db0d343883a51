"""What clustering on a handful of clusters costs: the clustered interval beside the unclustered one.

With fewer than :data:`FEW_CLUSTERS` clusters the clustered standard error rests on a few cluster means: CR2
with Satterthwaite degrees of freedom stays honest but its t reference has very few degrees of freedom, so
the interval can be several times wider than the one that treats the questions as independent. Neither
answer is hidden: :func:`clustering_cost` puts the two side by side (degrees of freedom and widths), and
:func:`~evalstats_core.analysis.analyze` adds its sentence to the warnings, so the command line and the
workbench print the same numbers (issue 19).

References
----------
Cameron & Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference", J. Human Resources 50(2),
Sec. VI (few clusters). Pustejovsky & Tipton 2018, JBES 36(4) (CR2 and its degrees of freedom).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ._estimate import scaled, summary_from
from ._in_unit import InUnit
from .errors import CLUSTERING_COST, Note
from .intervals import _model_interval
from .sums import FileSums, file_sums
from .vocabulary import normal_label

__all__ = ["COST_PREFIX", "FEW_CLUSTERS", "ClusterCost", "clustering_cost", "cost_sentence"]

#: below this many clusters the default analysis shows what clustering costs
FEW_CLUSTERS = 5
#: how the cost sentence starts (the workbench shows it beside the models' table)
COST_PREFIX = "what clustering on"


@dataclass(frozen=True, slots=True)
class ClusterCost:
    """One model's interval clustered and unclustered.

    Attributes
    ----------
    model : str
    n_clusters : int
    df : float
        Degrees of freedom of the clustered interval.
    clustered : tuple of float
        ``(low, high)`` of the clustered interval (the one the analysis reports).
    unclustered : tuple of float
        ``(low, high)`` of the same model's interval with the questions treated as independent (the
        analysis' own interval rule, e.g. Wilson for few 0/1 answers).
    unclustered_df : float
        Degrees of freedom of the unclustered interval (``inf`` for a proportion interval or a normal one).
    """

    model: str
    n_clusters: int
    df: float
    clustered: tuple[float, float]
    unclustered: tuple[float, float]
    unclustered_df: float

    @property
    def ratio(self) -> float:
        """Clustered width over unclustered width."""
        wide = self.unclustered[1] - self.unclustered[0]
        return (self.clustered[1] - self.clustered[0]) / wide if wide > 0 else math.inf


def clustering_cost(table: Any, rows: Any, *, confidence: float, method: str, interval: str) -> list[ClusterCost]:
    """Each clustered model's interval next to its unclustered interval, when the clusters are few.

    Parameters
    ----------
    table : FileSums or QuestionTable
        The sums of the file the analysis ran on (or its question-level scores).
    rows : sequence of ModelResult
        The analysis' models (clustered ones have ``n_clusters``).
    confidence, method, interval
        As given to :func:`~evalstats_core.analysis.analyze`; the unclustered interval uses the same rule.

    Returns
    -------
    list of ClusterCost
        Empty unless some model is clustered on fewer than :data:`FEW_CLUSTERS` clusters.
    """
    if not any(r.n_clusters is not None and r.n_clusters < FEW_CLUSTERS for r in rows):
        return []  # no model on few clusters (the usual file): no merge, no sums
    sums = table if isinstance(table, FileSums) else file_sums(table)
    one = sums.merged()  # every question its own cluster
    out = []
    for ms, r in zip(one.model_sums, rows, strict=True):
        if r.n_clusters is None or r.n_clusters >= FEW_CLUSTERS:
            continue
        s = scaled(summary_from(ms.count, ms.mean, ms.m2, binary=not ms.not01.any(), clustered=False,
                                confidence=confidence, method=method,
                                interval="auto" if interval == "auto" else "normal", in_unit=InUnit(sums.unit01)),
                   sums.exponent)  # analyze's rule (unclustered scores in [0, 1] near a bound: bounded_unclustered)
        k_max = int(ms.k_values.max())
        proportion = sums.score_kind == "binary" and k_max == 1
        low, high, label = _model_interval(s, "resampled" if k_max > 1 else sums.score_kind, interval,
                                           proportion, method, False, confidence)
        normal = label.startswith(normal_label(method, False))  # else a proportion interval (no df)
        df = float(s.df) if normal and method == "cr2" else math.inf
        out.append(ClusterCost(r.model, int(r.n_clusters), float(r.df), (float(r.ci_low), float(r.ci_high)),
                               (float(low), float(high)), df))
    return out


def cost_sentence(costs: list[ClusterCost], cluster_col: str | None, *, percent: bool, shown: int = 3) -> str | None:
    """One sentence for the report and the page: the clustered and unclustered intervals of the first
    ``shown`` models, with their degrees of freedom and widths (points for 0-1 scores)."""
    if not costs:
        return None

    def num(x: float) -> str:
        return f"{100.0 * x:.1f}%" if percent else f"{x:.3g}"

    def width(a: float, b: float) -> str:
        return f"{100.0 * (b - a):.1f} points" if percent else f"{b - a:.3g}"

    parts = []
    for c in costs[:shown]:
        un_df = "" if math.isinf(c.unclustered_df) else f" on {c.unclustered_df:.0f} df"
        parts.append(f"{c.model}: {num(c.clustered[0])} to {num(c.clustered[1])} ({width(*c.clustered)} wide, "
                     f"{c.df:.1f} df) clustered, against {num(c.unclustered[0])} to {num(c.unclustered[1])} "
                     f"({width(*c.unclustered)}{un_df}) unclustered")
    more = f"; and {len(costs) - shown} more model{'s' if len(costs) - shown > 1 else ''}" if len(costs) > shown else ""
    few = min(c.n_clusters for c in costs)
    return Note(f"{COST_PREFIX} {few} clusters (column '{cluster_col}') costs: " + "; ".join(parts) + more
                + f". The clustered interval treats the {few} clusters as a sample of many possible ones, and so few "
                "leave few degrees of freedom; if they are the fixed set you care about (these clusters, not others "
                "like them), the unclustered interval answers for them (use_clusters=False)", CLUSTERING_COST)
