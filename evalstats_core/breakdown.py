"""Why a comparison comes out as it does: its clusters, and the questions the two models disagree on.

==========================  ===========================================================================
:func:`cluster_breakdown`   per cluster: questions, each model's mean, the pair's difference there and
                            the cluster's share of the overall paired difference
:func:`disagreements`       the shared questions on which two models score differently, largest first
:func:`top_clusters`        the clusters carrying most of the difference, the rest summed in one row
==========================  ===========================================================================

Both work on the question-level scores (:class:`~evalstats_core.data.QuestionTable`) and only on the
questions both models answered, as the comparison does. The overall paired difference is the weighted
sum of the clusters' differences, ``d = sum_g (n_g / n) d_g``, so a cluster's share ``n_g d_g / (n d)``
says how much of the result it carries (shares add up to 1; a negative share pulls the other way). With
few clusters, one cluster carrying most of the difference is the usual reason for a wide clustered
interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .data import QuestionTable
from .errors import EvalStatsError

__all__ = ["cluster_breakdown", "disagreements", "top_clusters"]


def _pair(table: QuestionTable, model: str, baseline: str) -> tuple[int, int, np.ndarray]:
    for name in (model, baseline):
        if name not in table.models:
            raise EvalStatsError(f"{name!r} is not a model in {table.name}; its models are: "
                                 f"{', '.join(repr(m) for m in table.models)}")
    if model == baseline:
        raise EvalStatsError(f"model and baseline are both {model!r}; choose two different models")
    i, j = table.models.index(model), table.models.index(baseline)
    rows = np.flatnonzero(table.answered[:, i] & table.answered[:, j])  # (n_shared,)
    if rows.size == 0:
        raise EvalStatsError(f"{model!r} and {baseline!r} share no question in {table.name}")
    return i, j, rows


def cluster_breakdown(table: QuestionTable, model: str, baseline: str) -> pd.DataFrame:
    """Per-cluster view of ``model - baseline`` on their shared questions.

    Parameters
    ----------
    table : QuestionTable
        Question-level scores with a cluster column.
    model, baseline : str
        The pair (difference ``model - baseline``).

    Returns
    -------
    DataFrame
        One row per cluster (largest first): ``cluster, n, <each model's mean on these questions>,
        diff, share``. ``share`` is ``n_g d_g / (n d)`` (nan when the overall difference is 0).

    Examples
    --------
    >>> from evalstats_core.data import load, question_scores
    >>> rows = "question,A,B,cluster\\n" + "".join(f"q{i},{int(i < 6)},0,{'x' if i < 8 else 'y'}\\n"
    ...                                         for i in range(12))
    >>> t = question_scores(load(rows.encode(), cluster_col="cluster"))  # two clusters: read when chosen
    >>> cluster_breakdown(t, "A", "B")[["cluster", "n", "diff", "share"]].to_dict("records")
    [{'cluster': 'x', 'n': 8, 'diff': 0.75, 'share': 1.0}, {'cluster': 'y', 'n': 4, 'diff': 0.0, 'share': 0.0}]
    """
    if table.cluster_codes is None or table.clusters is None:
        raise EvalStatsError(f"{table.name} has no cluster column; choose one to see the per-cluster view")
    i, j, rows = _pair(table, model, baseline)
    full = rows.size == table.scores.shape[0]  # every question shared: the columns as they are, no gathers
    codes = table.cluster_codes if full else table.cluster_codes[rows]  # (n,)
    n_g = np.bincount(codes, minlength=len(table.clusters)).astype(np.float64)  # (G,)
    used = n_g > 0
    out = {"cluster": [str(c) for c in np.asarray(table.clusters)[used]], "n": n_g[used].astype(np.int64)}
    for k, name in enumerate(table.models):
        both, col = (table.answered[:, k], table.scores[:, k]) if full else (table.answered[rows, k], table.scores[rows, k])
        if both.all():  # (1e7 rows: a gather of 3e6 scores is 0.1 s, the column as it is a few ms)
            sums, cnt = np.bincount(codes, weights=col, minlength=n_g.size), n_g
        else:
            sums = np.bincount(codes[both], weights=col[both], minlength=n_g.size)
            cnt = np.bincount(codes[both], minlength=n_g.size).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = (sums / cnt)[used]  # nan where the model answered none of the cluster's questions
    d = (table.scores[:, i] - table.scores[:, j]) if full else (table.scores[rows, i] - table.scores[rows, j])  # (n,)
    d_sum = np.bincount(codes, weights=d, minlength=n_g.size)  # (G,) n_g * d_g
    out["diff"] = d_sum[used] / n_g[used]
    total = float(d.sum())
    out["share"] = d_sum[used] / total if total != 0.0 else np.full(int(used.sum()), np.nan)  # n_g d_g / (n d)
    frame = pd.DataFrame(out)
    return frame.sort_values(["n", "cluster"], ascending=[False, True], kind="stable").reset_index(drop=True)


def disagreements(table: QuestionTable, model: str, baseline: str, *,
                  text: dict[str, np.ndarray] | None = None, limit: int | None = None) -> pd.DataFrame:
    """The shared questions on which ``model`` and ``baseline`` score differently, largest gap first.

    Parameters
    ----------
    text : dict of str -> array, shape (n_questions,), optional
        Text columns of the file (a prompt, a reference answer), one value per question, shown beside
        each question id.
    limit : int, optional
        Only the first ``limit`` rows (the largest gaps); ``frame.attrs["total"]`` says how many there are
        in all. A page shows the top of a list as long as the file without building all of it.

    Returns
    -------
    DataFrame
        ``question, [text columns,] [cluster,] <model>, <baseline>, diff`` (``model - baseline``); for 0/1
        scores these are the discordant questions that McNemar's test counts.

    Examples
    --------
    >>> from evalstats_core.data import load, question_scores
    >>> t = question_scores(load(b"question,A,B\\nq1,1,0\\nq2,1,1\\nq3,0,1\\n"))
    >>> disagreements(t, "A", "B")["question"].tolist()
    ['q1', 'q3']
    """
    i, j, rows = _pair(table, model, baseline)
    full = rows.size == table.scores.shape[0]  # every question shared: the columns as they are, no gathers
    d = (table.scores[:, i] - table.scores[:, j]) if full else (table.scores[rows, i] - table.scores[rows, j])
    keep = d != 0.0
    order = np.argsort(-np.abs(d[keep]), kind="stable")  # largest gap first, file order among ties
    sel = rows[keep][order[:limit]]
    out = {"question": [str(q) for q in np.asarray(table.questions)[sel]]}
    for name, values in (text or {}).items():
        out[name] = np.asarray(values[sel] if isinstance(values, np.ndarray) else np.asarray(values)[sel],
                               dtype=object)
    if table.cluster_codes is not None and table.clusters is not None:
        out["cluster"] = [str(c) for c in np.asarray(table.clusters)[table.cluster_codes[sel]]]
    out[model] = table.scores[sel, i]
    out[baseline] = table.scores[sel, j]
    out["diff"] = d[keep][order[:limit]]
    frame = pd.DataFrame(out)
    frame.attrs["total"] = int(keep.sum())
    return frame


def top_clusters(frame: pd.DataFrame, k: int = 20) -> pd.DataFrame:
    """The ``k`` clusters with the largest absolute share, and one row summing the others (for a chart).

    ``frame`` is :func:`cluster_breakdown`'s; the result has ``cluster, n, share``, biggest share first;
    the shares still add up to 1.

    >>> f = pd.DataFrame({"cluster": list("abcd"), "n": [1, 2, 3, 4], "share": [0.1, 0.6, 0.2, 0.1]})
    >>> top_clusters(f, 2).to_dict("records")
    [{'cluster': 'b', 'n': 2, 'share': 0.6}, {'cluster': 'c', 'n': 3, 'share': 0.2}, {'cluster': 'other 2 clusters', 'n': 5, 'share': 0.2}]
    """
    data = frame[["cluster", "n", "share"]]
    if len(data) <= k + 1:
        return data.reset_index(drop=True)
    order = np.argsort(-np.abs(data["share"].fillna(0.0).to_numpy()), kind="stable")
    top, rest = data.iloc[order[:k]], data.iloc[order[k:]]
    other = pd.DataFrame({"cluster": [f"other {len(rest):,} clusters"], "n": [int(rest["n"].sum())],
                          "share": [float(rest["share"].sum())]})
    return pd.concat([top, other], ignore_index=True)
