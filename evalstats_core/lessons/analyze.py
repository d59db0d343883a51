"""Pure helpers of the results workbench (``pages/analyze.py``): examples, file columns, display tables.

==============================  ===================================================================
``EXAMPLES``                    the bundled example files, by slug
``example_bytes(slug)``         the bytes and file name of an example
``file_columns(data, name)``    the header of a CSV or Parquet file, without reading its body
``unused_columns(...)``         columns the analysis did not use that group questions (cluster-like)
``prepare(data, name, ...)``    load + question-level scores + cluster-like unused columns, in one call
``INTERVAL_METHODS``            interval methods offered for one model's mean
``model_intervals(...)``        each model's interval by the chosen method (Wilson etc. for 0/1 data)
``models_display(...)``         the per-model table in the paper's "mean (SE)" format
``comparisons_display(...)``    the pairwise table in the paper's Table 5 format, with unpaired SE
``differences_frame(...)``      tidy frame of the differences for the forest plot
``mcnemar_display(...)``        McNemar's discordant counts and test per binary pair
``with_file_roles(...)``        an analysis of a QuestionTable, labelled with how its file was read
``settings_document(...)``      the JSON settings and the shell command that reproduce the analysis
==============================  ===================================================================

Every number comes from :func:`evalstats_core.analysis.analyze` (the same call as the command line)
or from :mod:`evalstats_core.intervals`; this module only arranges and formats them.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import INTERVAL_LABELS, Analysis
from ..data import Dataset, QuestionTable
from ..errors import EvalStatsError
from ..report import _Style

__all__ = [
    "EXAMPLES", "Example", "example_bytes", "file_columns", "unused_columns", "INTERVAL_METHODS",
    "model_intervals", "models_display", "comparisons_display", "differences_frame", "mcnemar_display",
    "settings_document", "Formatter", "Prepared", "prepare", "with_file_roles",
]

_TOP = Path(__file__).resolve().parents[2]
# examples/ at the repository root in a checkout; evalstats_app/site/examples in an installed wheel
# (a path only: the core never imports the app).
EXAMPLES_DIR = (_TOP / "evalstats_app" / "site" / "examples"
                if (_TOP / "evalstats_app" / "site" / "examples").is_dir() else _TOP / "examples")


@dataclass(frozen=True, slots=True)
class Example:
    """A bundled results file: ``label`` for the picker, ``file`` in ``examples/``, one-line ``blurb``."""

    label: str
    file: str
    blurb: str


EXAMPLES: dict[str, Example] = {
    "atlas_breeze": Example("Atlas vs Breeze (10 tasks, continuous)", "atlas_breeze.csv",
                            "two travel agents on the same 10 tasks, scores between 0 and 1 (wide form)"),
    "multilingual": Example("Multilingual, clustered (250 clusters of 10, binary, 3 models)",
                            "multilingual_clustered.csv",
                            "250 source questions asked in 10 languages; right/wrong scores (long form)"),
    "synthetic": Example("Synthetic benchmark, resampled (5 answers per question)", "synthetic_resampled.csv",
                         "400 questions, 3 models, each question answered 5 times (long form)"),
}

#: Interval methods for one model's mean (the command line's ``--interval`` choices, same rule):
#: ``auto`` is Wilson for 0/1 scores on fewer than 300 independent questions, else the t (or normal)
#: interval; the proportion methods apply only to 0/1 scores with one answer per independent question.
INTERVAL_METHODS: dict[str, str] = {
    "auto": "auto (Wilson below 300 questions)",
    "normal": "t (normal with CR1)",
    **INTERVAL_LABELS,  # one label per method: the same words as the table and the exports
}

#: Standard-error methods (the command line's ``--cluster-se``).
SE_METHODS: dict[str, str] = {
    "cr2": "CR2 + Satterthwaite t (default)",
    "cr1": "CR1 + normal (the paper's Eq. 1-8)",
}


def example_bytes(slug: str) -> tuple[bytes, str]:
    """The bytes and file name of the bundled example ``slug`` (a key of :data:`EXAMPLES`)."""
    if slug not in EXAMPLES:
        raise EvalStatsError(f"example {slug!r} does not exist; choose one of {', '.join(EXAMPLES)}")
    path = EXAMPLES_DIR / EXAMPLES[slug].file
    return path.read_bytes(), path.name


def _is_parquet(data: bytes, name: str) -> bool:
    return name.lower().endswith((".parquet", ".pq")) or data[:4] == b"PAR1"


def _delimiter(first_line: str, name: str) -> str:
    """The separator as the loader picks it: tab for .tsv, else comma, else tab or semicolon if present."""
    delimiter = "\t" if name.lower().endswith(".tsv") else ","
    if delimiter not in first_line:
        delimiter = next((d for d in ("\t", ";") if d in first_line), delimiter)
    return delimiter


def file_columns(data: bytes, name: str) -> tuple[str, ...]:
    """Column names of a CSV or Parquet file (empty when the header cannot be read).

    Only the header is read (the Parquet schema, or the first CSV line), so this is cheap for any
    file size; the loader gives the precise error for an unreadable file.
    """
    try:
        if _is_parquet(data, name):
            import pyarrow.parquet as pq

            return tuple(str(c).strip() for c in pq.read_schema(io.BytesIO(data)).names)
        head = data[: 1 << 16]
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        text = head.decode("utf-8", errors="strict" if len(data) <= len(head) else "ignore").lstrip("\r\n")
        first = text.split("\n", 1)[0]
        row = next(csv.reader(io.StringIO(first), delimiter=_delimiter(first, name)), [])
        return tuple(h.strip() for h in row)
    except Exception:  # noqa: BLE001 - a header we cannot read: the loader reports why
        return ()


def _read_text_columns(data: bytes, name: str, columns: list[str]) -> dict[str, np.ndarray]:
    """The named columns as arrays of stripped strings (object dtype)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _is_parquet(data, name):
        import pyarrow.parquet as pq

        table = pq.read_table(io.BytesIO(data), columns=columns)
    else:
        import pyarrow.csv as pacsv

        first = data[:65536].decode("utf-8", errors="ignore").lstrip("\ufeff\r\n").split("\n", 1)[0]
        table = pacsv.read_csv(
            io.BytesIO(data),
            parse_options=pacsv.ParseOptions(delimiter=_delimiter(first, name)),
            convert_options=pacsv.ConvertOptions(include_columns=columns,
                                                 column_types={c: pa.string() for c in columns},
                                                 strings_can_be_null=True))
    out = {}
    for c in columns:
        col = pc.utf8_trim_whitespace(pc.cast(table.column(c), pa.string()))
        out[c] = col.to_numpy(zero_copy_only=False)
    return out


def unused_columns(data: bytes, name: str, dataset: Dataset, table: QuestionTable) -> dict[str, np.ndarray]:
    """Columns the analysis did not use that could be clusters (see :func:`extra_columns`)."""
    return extra_columns(data, name, dataset, table)[0]


#: At most this many text columns (a prompt, a reference answer) are kept for the disagreement list.
TEXT_COLUMNS = 3


def extra_columns(data: bytes, name: str, dataset: Dataset,
                  table: QuestionTable) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Columns the analysis did not use, in one read: cluster-like ones, and text ones (e.g. the prompt).

    Cluster-like: one integer label per question (below). Text: up to :data:`TEXT_COLUMNS` other columns,
    each question's first value (object array, shape ``(table.questions.size,)``), for the list of
    questions two models disagree on.


    A column qualifies when it has a value on every row, the same value on every row of a question,
    and between 2 and ``n_questions / 2`` distinct values (so that some questions share a group).

    Returns
    -------
    dict of column name -> numpy.ndarray of int64, shape (table.questions.size,)
    """
    used = {dataset.question_col, dataset.model_col, dataset.score_col, dataset.cluster_col, *dataset.model_cols}
    header = file_columns(data, name)
    cand = [c for c in header if c and c not in used]
    if not cand:
        return {}, {}
    extra = getattr(dataset, "extra", None)
    if extra is not None:  # the loader kept them from its one parse of the file
        cand = [c for c in cand if c in extra]
        cols = {dataset.question_col: extra["__question__"], **{c: extra[c] for c in cand}}
    else:
        try:
            cols = _read_text_columns(data, name, [dataset.question_col, *cand])
        except Exception:  # noqa: BLE001 - a guardrail must never break the page
            return {}, {}
    n_q = table.questions.size
    q_index = pd.Index(table.questions.astype(str)).get_indexer(cols[dataset.question_col].astype(str))
    keep = q_index >= 0  # wide-form rows without any score were dropped by the loader
    q_index = q_index[keep]
    out: dict[str, np.ndarray] = {}
    texts: dict[str, np.ndarray] = {}
    first = np.full(n_q, -1, dtype=np.int64)
    first[q_index[::-1]] = np.arange(q_index.size)[::-1]  # each question's first row in the file
    for c in cand:
        values = cols[c][keep]
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        if len(texts) < TEXT_COLUMNS and len(uniques) > n_q // 2:  # varies like an id: a text column
            texts[c] = np.where(first >= 0, values[np.maximum(first, 0)], None).astype(object)
        if (codes < 0).any() or not 2 <= len(uniques) <= n_q // 2:
            continue
        per_q = np.full(n_q, -1, dtype=np.int64)
        per_q[q_index] = codes
        if (per_q < 0).any() or not np.array_equal(per_q[q_index], codes):
            continue  # a question without a value, or a question in two groups
        out[c] = per_q
    return out, texts


@dataclass(frozen=True, slots=True)
class Prepared:
    """A loaded file ready for analysis.

    Attributes
    ----------
    dataset : Dataset
        From :func:`evalstats_core.data.load`.
    table : QuestionTable
        Its question-level scores (resamples averaged).
    extra_clusters : dict of str -> numpy.ndarray
        Unused cluster-like columns (see :func:`unused_columns`), for the guardrails.
    text_columns : dict of str -> numpy.ndarray
        Unused text columns, one value per question (see :func:`extra_columns`), for the disagreements.
    """

    dataset: Dataset
    table: QuestionTable
    extra_clusters: dict
    text_columns: dict = None  # type: ignore[assignment]


def prepare(data: bytes, name: str, *, format: str | None = None, question_col: str | None = None,
            model_col: str | None = None, score_col: str | None = None,
            cluster_col: str | None = None, duplicates: str = "resamples",
            ignore_cols: tuple[str, ...] = (), runs_in_ids: bool = False) -> Prepared:
    """Load ``data`` (a results file's bytes) with the given roles and reduce it to question level.

    The arguments are those of :func:`evalstats_core.data.load` (None: detect); every problem with the
    file raises :class:`~evalstats_core.errors.EvalStatsError` with the loader's message.
    """
    from ..data import load, question_scores

    dataset = load(data, format=format, question_col=question_col, model_col=model_col, score_col=score_col,
                   cluster_col=cluster_col, name=name, duplicates=duplicates, ignore_cols=tuple(ignore_cols),
                   runs_in_ids=runs_in_ids)
    table = question_scores(dataset)
    clusters, texts = extra_columns(data, name, dataset, table)  # one read of the unused columns
    return Prepared(dataset, table, clusters, texts)


# ---------------------------------------------------------------------------------------------- formatting
class Formatter(_Style):
    """Numbers as the report prints them (the report's own formatter, so page and exports agree to the
    character): percent points for scores in [0, 1], enough decimals for the SE."""

    def interval(self, low: float, high: float, *, signed: bool = False) -> str:
        return f"({self.num(low, signed=signed)}, {self.num(high, signed=signed)})"


def _p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _r(x: float | None, digits: int = 2) -> str:
    return f"{round(x, digits) + 0.0:.{digits}f}" if x is not None and math.isfinite(x) else "n/a"  # no "-0.00"


# ------------------------------------------------------------------------------------------ one model
def model_intervals(analysis: Analysis, table: QuestionTable | None = None, method: str | None = None) -> pd.DataFrame:
    """Each model's interval as the analysis computed it (``analyze(..., interval=...)``), as a frame.

    The interval rule lives in :func:`~evalstats_core.analysis.analyze` (the command line uses the same
    one), so the page, the exports and the CLI show the same interval. ``table`` and ``method`` are
    accepted for callers that still pass them; ``method`` must then equal ``analysis.interval``.

    Returns
    -------
    DataFrame
        One row per model: ``model, estimate, se, ci_low, ci_high, interval`` (the method's label).
    """
    if method is not None and method != analysis.interval:
        raise EvalStatsError(f"method ({method!r}) differs from the analysis' interval ({analysis.interval!r}); "
                             "run analyze(..., interval=method)")
    rows = [{"model": m.model, "estimate": m.mean, "se": m.se, "ci_low": m.ci_low, "ci_high": m.ci_high,
             "interval": m.interval} for m in analysis.models]
    return pd.DataFrame(rows, columns=["model", "estimate", "se", "ci_low", "ci_high", "interval"])


def models_display(analysis: Analysis, intervals: pd.DataFrame) -> pd.DataFrame:
    """The per-model table in the paper's format: mean (SE), interval, n, clusters, K, deff, n_eff."""
    f = Formatter(analysis)
    level = f"{round(100 * analysis.confidence, 2):g}% CI"
    by_model = intervals.set_index("model")
    rows = []
    for m in analysis.models:
        iv = by_model.loc[m.model]
        row = {"Model": m.model, "Mean (SE)": f"{f.num(m.mean)} ({f.num(m.se)})",
               level: f.interval(iv["ci_low"], iv["ci_high"]), "Questions": f"{m.n:,}"}
        if analysis.clustered:
            row["Clusters"] = f"{m.n_clusters:,}"
        row["K"] = str(m.k) if m.k_min == m.k_max else f"{m.k_min}-{m.k_max}"
        if analysis.clustered:
            row["Naive SE"] = f.num(m.se_naive)
            row["Design effect"] = _r(m.deff)
            row["Effective n"] = f"{m.n_eff:,.0f}" if math.isfinite(m.n_eff) else "n/a"
        row["Interval"] = iv["interval"]
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------- pairs
_ADJUST_NAME = {"holm": "Holm", "bh": "BH", "none": "unadjusted"}


def comparisons_display(analysis: Analysis) -> pd.DataFrame:
    """The pairwise table (paper Table 5): difference (SE), CI, correlation, p, adjusted p, unpaired SE."""
    f = Formatter(analysis)
    level = f"{round(100 * analysis.confidence, 2):g}% CI"
    rows = []
    for c in analysis.comparisons:
        saved = 1.0 - c.se / c.se_unpaired if analysis.paired and c.se_unpaired > 0 else math.nan
        rows.append({
            "Model": c.model, "Baseline": c.baseline,
            "Model − Baseline (SE)": f"{f.num(c.diff, signed=True)} ({f.num(c.se)})",
            level: f.interval(c.ci_low, c.ci_high, signed=True),
            "Correlation": _r(c.correlation), "df": _df(c.df), "p": _p(c.p_value),
            f"p ({_ADJUST_NAME[analysis.adjust]})": _p(c.p_adjusted),
            **({"Wild bootstrap p": _p(c.wild_p_value)} if analysis.wild_bootstrap else {}),
            "Unpaired SE": f.num(c.se_unpaired),
            "Pairing saved": _saved(saved),
            "Questions": f"{c.n:,}",
        })
    return pd.DataFrame(rows)


def _df(df: float) -> str:
    """Degrees of freedom as shown: one decimal, or '∞' for the normal reference."""
    return "∞" if math.isinf(df) else f"{df:,.1f}"


def _saved(saved: float) -> str:
    """How much smaller the paired SE is than the unpaired one, in words (pairing can also cost)."""
    if not math.isfinite(saved):
        return "n/a"
    if abs(saved) < 0.005:
        return "nothing"
    return f"{saved:.0%} of the SE" if saved > 0 else f"nothing (SE {-saved:.0%} larger)"


def differences_frame(analysis: Analysis) -> pd.DataFrame:
    """One row per comparison for the forest plot: ``label, estimate, ci_low, ci_high, significant``."""
    alpha = 1.0 - analysis.confidence
    return pd.DataFrame({
        "label": [f"{c.model} − {c.baseline}" for c in analysis.comparisons],
        "estimate": [c.diff for c in analysis.comparisons],
        "ci_low": [c.ci_low for c in analysis.comparisons],
        "ci_high": [c.ci_high for c in analysis.comparisons],
        "significant": [bool(math.isfinite(c.p_adjusted) and c.p_adjusted < alpha) for c in analysis.comparisons],
    })


def mcnemar_display(analysis: Analysis) -> pd.DataFrame:
    """McNemar per binary pair: discordant counts b (only model right), c (only baseline right), chi2, p."""
    rows = []
    for c in analysis.comparisons:
        if c.only_model is None:
            continue
        rows.append({"Model": c.model, "Baseline": c.baseline, "Only model right (b)": c.only_model,
                     "Only baseline right (c)": c.only_baseline,
                     "χ² = (b − c)² / (b + c)": _r(c.mcnemar_statistic, 2) if c.mcnemar_statistic is not None else "n/a",
                     "p": _p(c.mcnemar_p_value), "exact p": _p(c.mcnemar_p)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- settings
def with_file_roles(analysis: Analysis, dataset: Dataset) -> Analysis:
    """``analysis`` (run on ``question_scores(dataset)``) with the file's layout, columns and notes.

    :func:`~evalstats_core.analysis.analyze` records how the file was read only when it is given the
    Dataset; the workbench analyses the cached QuestionTable, so it adds them back here. The result is
    then identical to ``analyze(dataset, ...)`` (the command line's), settings and command included.
    """
    import dataclasses

    return dataclasses.replace(analysis, format=dataset.format, question_col=dataset.question_col,
                               model_col=dataset.model_col, score_col=dataset.score_col,
                               notes=tuple(dataset.notes), reading=tuple(dataset.reading))


def settings_document(analysis: Analysis, *, interval_method: str | None = None, file_name: str) -> dict[str, Any]:
    """The settings that reproduce the analysis: the report's settings (command included) and the file name.

    ``command`` is the exact ``python -m evalstats_core analyze`` call (with ``file_name`` as the path); it
    carries the interval (``--interval``) and standard-error (``--cluster-se``) choices, so the command
    line's numbers are the page's.
    """
    from ..report import settings

    doc = settings(analysis)
    doc["interval_method"] = interval_method or analysis.interval
    doc["file"] = file_name
    return doc


# ------------------------------------------------------------------------------------------ many models
#: From this many models the pairwise view is a matrix (and a forest plot against the leader).
MATRIX_FROM = 8


def matrix_frame(analysis: Analysis) -> pd.DataFrame:
    """Both orientations of every comparison for :func:`~evalstats_core.charts.analyze.difference_matrix`:
    ``row, column, estimate`` (``row - column``), ``significant`` (adjusted test)."""
    alpha = 1.0 - analysis.confidence
    rows = []
    for c in analysis.comparisons:
        sig = bool(math.isfinite(c.p_adjusted) and c.p_adjusted < alpha)
        rows.append({"row": c.model, "column": c.baseline, "estimate": c.diff, "significant": sig})
        rows.append({"row": c.baseline, "column": c.model, "estimate": -c.diff, "significant": sig})
    return pd.DataFrame(rows, columns=["row", "column", "estimate", "significant"])


def leader_frame(analysis: Analysis, leader: str) -> pd.DataFrame:
    """Every model's difference from ``leader`` (``model - leader``), oriented from the all-pairs results,
    for the forest plot against the leader: ``label, estimate, ci_low, ci_high, significant``."""
    alpha = 1.0 - analysis.confidence
    rows = []
    for c in analysis.comparisons:
        if leader not in (c.model, c.baseline):
            continue
        sign = 1.0 if c.model != leader else -1.0
        other = c.model if c.model != leader else c.baseline
        low, high = (c.ci_low, c.ci_high) if sign > 0 else (-c.ci_high, -c.ci_low)
        rows.append({"label": f"{other} − {leader}", "estimate": sign * c.diff, "ci_low": low, "ci_high": high,
                     "significant": bool(math.isfinite(c.p_adjusted) and c.p_adjusted < alpha)})
    frame = pd.DataFrame(rows, columns=["label", "estimate", "ci_low", "ci_high", "significant"])
    return frame.sort_values("estimate", ascending=False, kind="stable").reset_index(drop=True)  # closest first
