"""evalstats_core: the statistics of LLM evaluations, in pure Python (it never imports streamlit).

Contents, by module (each module's docstring tells when to use which function):

=================  =================================================================================
``intervals``      one model: CLT and Bernoulli SEs, normal and proportion intervals
``clustering``     ``summarize``; cluster-robust SE (CR2 by default, CR1 on request), design effect, ICC, block bootstrap
``comparison``     ``compare`` (unpaired / paired / clustered), McNemar's test
``wild``           wild cluster bootstrap: p-value and interval of a mean or paired difference
``judge``          an LLM judge's scores corrected by a few human labels (PPI++); agreement; label budget
``pairwise``       pairwise preferences: win rates and Bradley-Terry ratings clustered by prompt (``pairwise_data`` reads them)
``multiple``       Holm and Benjamini-Hochberg adjusted p-values for many comparisons
``variance``       the K curve (what K answers per question buy) and budget allocation
``decomposition``  Var(x) and E[sigma^2] estimated from resampled answers (optionally clustered)
``power``          Eq. 9/10 sample size, MDE, power curves; their clustered versions
``pilot``          omega2, sigma2_a, sigma2_b estimated from two models' pilot scores
``difficulty``     difficulty distributions (uniform, Beta) with closed-form Var(x) and E[sigma^2]
``temperature``    the temperature trap: what lowering the sampling temperature does to the variance
``simulate``       seeded generators: clustered, paired and resampled synthetic evals
``coverage``       how often intervals cover: small-N proportions, pooled and naive SEs
``cluster_coverage``  coverage with few and unequal clusters: CR1 + z, CR1 + t, CR2, wild bootstrap
``data``           reading results files (long/wide, CSV/Parquet), validation, question-level scores
``reading``        ``ReadingOptions``: every reading choice as one value (the CLI's flags, the workbench's widgets)
``analysis``       one pass from a loaded file to every model summary and pairwise comparison
``sums``           a file's sufficient statistics (``file_sums``), from which ``analyze_sums`` recomputes all
``engine``         files larger than memory: ``sums_of`` / ``analyze_file`` in SQL (DuckDB, or Spark SQL)
``guardrails``     the workbench's checks: what a naive analysis of this file would get wrong
``ranking``        the workbench's ranks: which models the pairwise tests can tell apart
``reported``       the workbench's reported-numbers mode: accuracy with n or SE, no file
``planning``       the workbench's next-run planning: MDE now, questions or answers needed
``passk``          pass@k (Chen et al.'s unbiased estimator) with CR2 intervals, paired differences and a plan
``report``         paper-format tables (Markdown, LaTeX, CSV, JSON), verdicts, methods paragraph
``gating``         the CI regression gate: candidate shown not worse (exit 0), worse (1), can't tell (3)
``charts``         Altair chart builders (tidy frame in, chart out) and PNG/SVG export
``lessons``        per-chapter compositions for the app's pages (worked examples, scenarios)
``display``        notebooks: rich tables (``_repr_html_``) and ``Analysis.chart(...)``, the workbench's charts
``examples``       the bundled example files by name: ``examples.path("multilingual")``
``inspect``        Inspect AI metrics ``cr2_stderr`` / ``cr2_ci`` for ``@task(metrics=[...])`` (optional)
``cli``            ``evalbars analyze FILE`` and ``gate FILE --baseline A --candidate B``
=================  =================================================================================

Every bad input raises :class:`EvalStatsError` (a ``ValueError``). Public names are imported lazily so
that ``import evalstats_core`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from ._results import Interval
from .errors import EvalStatsError, EvalStatsWarning

# public name -> submodule that defines it (imported on first use)
_PUBLIC: dict[str, str] = {
    "pairwise_analysis": "pairwise", "PairwiseResult": "pairwise", "bradley_terry": "pairwise",
    "win_rates": "pairwise", "arena_bootstrap": "pairwise", "battles_to_separate": "pairwise",
    "read_battles": "pairwise_data", "load_battles": "pairwise_data", "Battles": "pairwise_data",
    "ppi_mean": "judge",
    "ppi_compare": "judge",
    "JudgeEstimate": "judge",
    "judge_agreement": "judge_agree",
    "Agreement": "judge_agree",
    "labels_needed": "judge_budget",
    "LabelBudget": "judge_budget",
    "summarize": "clustering",
    "Summary": "clustering",
    "compare": "comparison",
    "Comparison": "comparison",
    "mcnemar": "comparison",
    "McNemar": "comparison",
    "mcnemar_from_counts": "comparison",
    "wild_cluster_bootstrap": "wild",
    "wild_compare": "wild",
    "WildBootstrap": "wild",
    "holm": "multiple",
    "benjamini_hochberg": "multiple",
    "icc": "clustering",
    "design_effect": "clustering",
    "effective_n": "clustering",
    "cluster_bootstrap_ci": "clustering",
    "BootstrapCI": "clustering",
    "proportion_ci": "intervals",
    "proportion_ci_arrays": "intervals",
    "PROPORTION_METHODS": "intervals",
    "se_clt": "intervals",
    "se_bernoulli": "intervals",
    "normal_ci": "intervals",
    "interval_from_se": "intervals",
    "is_binary": "intervals",
    "score_kind": "intervals",
    "coverage_experiment": "coverage",
    "CoverageResult": "coverage",
    "pooling_coverage": "coverage",
    "PoolingCoverage": "coverage",
    "clustering_coverage": "coverage",
    "ClusteringCoverage": "coverage",
    "few_clusters_coverage": "cluster_coverage",
    "FewClustersCoverage": "cluster_coverage",
    "clustered_binary_eval": "simulate",
    "ClusteredScores": "simulate",
    "paired_scores": "simulate",
    "PairedScores": "simulate",
    "resampled_answers": "simulate",
    "rerun_scores": "simulate",
    "sample_size": "power",
    "mde": "power",
    "power_at": "power",
    "power_curve": "power",
    "PowerCurve": "power",
    "clustered_sample_size": "power",
    "clustered_mde": "power",
    "omega2_from": "power",
    "pilot_estimates": "pilot",
    "PilotEstimates": "pilot",
    "resampling_decomposition": "decomposition",
    "ResamplingDecomposition": "decomposition",
    "estimator_variance": "variance",
    "variance_reduction": "variance",
    "resampling_curve": "variance",
    "ResamplingCurve": "variance",
    "budget_allocation": "variance",
    "BudgetAllocation": "variance",
    "Guardrail": "guardrails",
    "rank_models": "ranking", "Ranking": "ranking", "letter_display": "ranking",
    "analyze_reported": "reported", "ReportedAnalysis": "reported", "paired_se_bounds": "reported",
    "plan_pair": "planning", "PairPlan": "planning", "answers_needed": "planning",
    "UniformDifficulty": "difficulty",
    "BetaDifficulty": "difficulty",
    "temperature_scale": "temperature",
    "temperature_limits": "temperature",
    "TemperatureLimits": "temperature",
    "temperature_curve": "temperature",
    "TemperatureCurve": "temperature",
    "temperature_histogram": "temperature",
    "TemperatureHistogram": "temperature",
    "load": "data",
    "ReadingOptions": "reading",
    "Dataset": "data",
    "QuestionTable": "data",
    "question_scores": "data",
    "analyze": "analysis",
    "Analysis": "analysis",
    "ModelResult": "analysis",
    "PairResult": "analysis",
    "analyze_sums": "analysis",
    "FileSums": "sums",
    "ModelSums": "sums",
    "PairSums": "sums",
    "file_sums": "sums",
    "sums_of": "engine",
    "analyze_file": "engine",
    "render": "report",
    "to_json": "report",
    "json_document": "report",
    "verdicts": "report",
    "methods_paragraph": "report",
    "pass_at_k": "passk", "pass_at_k_compare": "passk", "pass_at_k_plan": "passk", "pass_at_section": "passk",
    "PassAtK": "passk", "PassAtKComparison": "passk", "PassAtKPlan": "passk", "PassAtSection": "passk",
    "pass_at_plans": "passk", "PassAtPlans": "passk",
    "gate": "gating",
    "GateResult": "gating",
}

__all__ = ["EvalStatsError", "EvalStatsWarning", "Interval", *sorted(_PUBLIC)]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'evalstats_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public surface (``__all__``) and the version: not this module's own imports (``Any``,
    ``importlib``, ``annotations``) nor the submodules imported so far."""
    return sorted({*__all__, "__version__"})
