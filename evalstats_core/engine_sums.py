"""From a file's SQL aggregates to :class:`~evalstats_core.sums.FileSums` (private; see :mod:`evalstats_core.engine`).

:func:`aggregate` finds the column roles on a sample with the in-memory reader, keeps one row per (question,
model) in the engine (``es_cells``), checks the whole file from it with the reader's words, and assembles the
per-model and per-pair sums in the order the in-memory path uses (models by first appearance, or column order
in a wide file; clusters by first appearance).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import engine_sql as q
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["aggregate"]

#: The reader's note when scores were written as words (``_table.read_table``).
WORDED = "words such as true/false and yes/no were read as 1/0"


def _roles(side: Any, label: str, limits: Limits, o: dict) -> tuple[dict, Any]:
    """The column roles, found by the in-memory reader on the first rows (its checks and messages too)."""
    from ._table import opened_arrow, read_table

    sample = side.sample(q_sample())
    if sample.num_rows == 0:
        raise EvalStatsError(f"{label} has a header but no data rows; add one row per answer")
    given = {"question": o["question_col"], "model": o["model_col"], "score": o["score_col"],
             "cluster": o["cluster_col"]}
    records = read_table(None, label, ".parquet", limits, opened=opened_arrow(sample, label, limits),
                         format=o["format"], given=given, ignore_cols=o["ignore_cols"])
    raw = {str(c).strip(): str(c) for c in sample.schema.names}  # the reader strips names; SQL needs them as written
    lay = records.layout
    roles = {"format": lay["format"], "question": raw[lay["question_col"]],
             "model": raw.get(lay["model_col"] or ""), "score": raw.get(lay["score_col"] or ""),
             "cluster": raw.get(records.cluster_name or "") if records.cluster_name else None,
             "models": [raw[c] for c in lay["model_cols"]]}
    return roles, records


def q_sample() -> int:
    from .engine import SAMPLE_ROWS

    return SAMPLE_ROWS


def aggregate(side: Any, label: str, limits: Limits, o: dict) -> Any:
    """The :class:`~evalstats_core.sums.FileSums` of the file behind ``side`` (an engine wrapper)."""
    from ._checks import resamples_note, scales
    from .sums import FileSums, ModelSums, PairSums

    roles, records = _roles(side, label, limits, o)
    types = side.types()
    kinds = {c: q.kind_of(types.get(c, "VARCHAR")) for c in [roles["question"], roles["model"], roles["cluster"],
                                                             roles["score"], *roles["models"]] if c}
    d = side.dialect
    source = q.source_sql(d, side.from_, roles, kinds, side.order)
    clustered = roles["cluster"] is not None
    wide = roles["format"] == "wide"
    integer = tuple(x for x, col in (("q", roles["question"]), ("m", roles["model"])) if kinds.get(col) == "integer")
    side.keep("es_models", q.models_sql(f"({q.rows_sql(d, source, clustered, integer)})", wide))
    rows = side.run("SELECT m, j, first, off01, off0100, top, q_miss, m_miss, fail, words FROM es_models")
    _check_rows(side, roles, records, rows)
    rows.sort(key=lambda row: row[1])
    names = [roles["models"][int(row[0])] if wide else str(row[0]) for row in rows]
    if len(names) > limits.max_models:
        raise EvalStatsError(f"{label} has {len(names):,} distinct values in its model column '{roles['model']}', "
                             f"more than the limit of {limits.max_models:,}; {Limits.how_to_raise('max_models')}")
    pivot = len(names) <= q.PIVOT_MODELS
    if pivot:  # one row per question with every model's score, straight from the rows: the pairs in one pass
        side.keep("es_questions", q.pivot_sql(source, "es_models", len(names)))
        stats = side.run(q.pivot_stats_sql("es_questions", len(names)))[0]
        per_model = [stats[3 * j:3 * j + 3] for j in range(len(names))]
    else:
        side.keep("es_cells", q.cells_sql(source, clustered))
        side.keep("es_questions", q.question_sql("es_cells"))
        got = {str(m): row for m, *row in side.run("SELECT m, SUM(CASE WHEN k > 0 THEN 1 ELSE 0 END), MAX(k), "
                                                   "MAX(ABS(total / k)) FROM es_cells GROUP BY m")}
        per_model = [got[str(row[0])] for row in rows]
    warnings = [] if kinds.get(roles["question"]) == "integer" else _label_checks(side, label, records)
    found = [(row[0], row[2], n, row[3], row[4], row[5], k, big)
             for row, (n, k, big) in zip(rows, per_model, strict=True)]
    for name, row in zip(names, found, strict=True):
        if row[2] < 2:
            raise EvalStatsError(f"model '{name}' has a score for only one question in {label}; every model needs "
                                 "scores on at least two questions (remove the model or add its answers)")
    if o["duplicates"] == "error" and max(int(row[6]) for row in found) > 1:
        raise EvalStatsError(f"{label} has several rows for one question and model; with duplicates='error' each "
                             "(question, model) must appear once (or read them as resamples, the default)")
    # the layout's words; a sample's counts are not, nor whether its scores were words (decided over every row)
    notes = [n for n in records.notes if "empty cell" not in n and n != WORDED]
    score_cols = [roles["score"]] if roles["score"] else roles["models"]
    if any(row[9] for row in rows) or any(types.get(c, "").upper() == "BOOLEAN" for c in score_cols):
        notes.append(WORDED)
    synthetic, codes = _scale_stand_ins(found)
    import pandas as pd

    _, binary = scales(synthetic, codes, pd.Index(names, dtype="str"), label, o["mixed_scales"], notes, warnings,
                       wide=wide)
    hundred = not any(row[3] == 0 for row in found) and all(row[4] == 0 for row in found)
    scale = " / 100" if hundred and any(row[3] for row in found) else ""
    from .engine import exponent_of

    big = max((row[7] for row in found if row[7] is not None), default=0.0)
    exponent = exponent_of(float(big or 0.0) / (100.0 if scale else 1.0))
    if exponent:  # huge or tiny scores: every score divided by 2^exponent (exact), as the in-memory path does
        scale += f" / {float(2.0 ** exponent)!r}"
    questions = _questions(side, label)
    clusters = side.run("SELECT c, COUNT(*), MIN(first) FROM es_questions GROUP BY c") if clustered else []
    clusters.sort(key=lambda row: row[2])
    g_of = {row[0]: i for i, row in enumerate(clusters)} if clustered else {"": 0}
    sizes = np.array([row[1] for row in clusters] if clustered else [questions], dtype=np.int64)
    m_of = {str(row[0]): j for j, row in enumerate(found)}
    if pivot:
        complete = all(int(row[2]) == questions for row in found)  # every model answered every question
        models, acc, partial = _from_pivot(side, len(names), clustered, g_of, scale, complete)
        k_rows = [(names[int(j)], k, n) for j, k, n in side.run(q.pivot_k_sql("es_questions", len(names)))]
    else:
        models = _model_rows(side, q.model_sql("es_cells", scale, clustered), m_of, g_of)
        acc = _joined_pairs(side, q.pair_sql("es_cells", scale, clustered), m_of, g_of)
        partial = side.run("SELECT COUNT(*) FROM (SELECT q FROM es_cells WHERE k > 0 GROUP BY q "
                           f"HAVING COUNT(*) < {len(names)}) x")[0][0]
        k_rows = [(names[m_of[str(m)]], k, n) for m, k, n in side.run(q.k_sql("es_cells"))]
    model_sums = []
    for j, name in enumerate(names):
        r = models[j]
        ks = sorted((int(k), int(n)) for m, k, n in k_rows if m == name)
        model_sums.append(ModelSums(name, r["count"], r["mean"], r["m2"], r["not01"],
                                    np.array([k for k, _ in ks], dtype=np.int64),
                                    np.array([n for _, n in ks], dtype=np.int64),
                                    math.ldexp(r["lo"], exponent), math.ldexp(r["hi"], exponent)))  # unscaled
    pairs = _finish_pairs(acc, names, len(g_of), model_sums)
    answered = [int(k) for _, k, n in k_rows if n]
    if answered and max(answered) > 1:  # runs averaged: the reader's note, from the whole file's k histogram
        notes.append(resamples_note(min(answered), max(answered)))
    if partial:
        notes.append(f"{partial} of {questions} questions were answered by only some models; each comparison "
                     "uses the questions both models answered")
    notes.append("scores are binary (0/1)" if binary else "scores are continuous")
    notes.append(f"computed by the {side.dialect.name} engine from sums per model, pair and cluster (the rows "
                 "never entered Python)")
    lay = records.layout
    return FileSums(
        name=label, models=tuple(names), clusters=tuple(str(row[0]) for row in clusters) if clustered else None,
        cluster_col=records.cluster_name if clustered else None, cluster_sizes=sizes,
        score_kind="binary" if binary else "continuous", n_questions=int(questions), exponent=int(exponent),
        model_sums=tuple(model_sums), pair_sums=tuple(PairSums(**p) for p in pairs), format=lay["format"],
        question_col=lay["question_col"], model_col=lay["model_col"], score_col=lay["score_col"],
        notes=tuple(n for n in notes if n), reading=(), warnings=tuple(warnings))


def _label_checks(side: Any, label: str, records: Any) -> list[str]:
    """The in-memory validator's two checks of the question ids, over every distinct id of the file (exact
    aggregates of ``es_questions``, :func:`~evalstats_core.engine_sql.runs_sql` and
    :func:`~evalstats_core.engine_sql.scores_sql`), with its words: the warning that ids look like runs of
    another question, or the refusal of ids that look like scores (not made when they look like runs)."""
    from ._checks import runs_warning, scores_in_question_col

    ids, numbers, fractions = side.run(q.scores_sql("es_questions"))[0]
    if ids >= 4:  # runs_in_ids: fewer than four ids are never runs
        runs, bases, first = side.run(q.runs_sql("es_questions"))[0]
        runs, bases = int(runs or 0), int(bases or 0)
        if runs >= max(2, ids // 5) and runs <= 20 * bases:  # 'task.0'..'task.999' are ids, not runs of 'task'
            qid, base = side.run(f"SELECT q, REGEXP_EXTRACT(q, '{q.RUN_ID}', 1) FROM es_questions "
                                 f"WHERE first = {int(first)}")[0]
            return [runs_warning((str(qid), str(base), runs))]
    if ids and numbers == ids and fractions:
        first4 = [row[0] for row in side.run("SELECT q FROM es_questions ORDER BY first LIMIT 4")]
        raise EvalStatsError(scores_in_question_col(first4, int(ids), records.layout["question_col"], label))
    return []


def _scale_stand_ins(found: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """A few scores per model with the same scale verdict as all of its scores (not 0/1, not 0/100, largest
    magnitude), so the in-memory scale check gives its verdict and its words."""
    values, codes = [], []
    for j, (_, _, _, off01, off0100, top, _, _) in enumerate(found):
        top = float(top or 0.0)
        if not off01:
            pick = [top]  # 0 or 1
        elif not off0100:
            pick = [100.0]
        else:
            pick = [top] if top not in (0.0, 1.0, 100.0) else [top, 0.5]
        values += pick
        codes += [j] * len(pick)
    return np.array(values, dtype=np.float64), np.array(codes, dtype=np.int64)


def _check_rows(side: Any, roles: dict, records: Any, rows: list[tuple]) -> None:
    """Every row's checks, made over the whole file by :func:`~evalstats_core.engine_sql.rows_sql` (per model:
    the first row with no question id, no model name, a failing score or cluster), in the in-memory reader's
    words: the first failing row of the first failing check."""
    lay = records.layout
    score_col = lay["score_col"] or "a model column"
    words = {"no score": f"has no score in column '{score_col}'; every row needs a score (scores must be numbers, "
                         "true/false or 0/1): fill it in or delete the row",
             "not a number": f"has a score in column '{score_col}' that is not a number; scores must be numbers, "
                             "true/false or 0/1",
             "infinite": f"has an infinite score in column '{score_col}'; scores must be finite numbers: fix or delete "
                         "that row",
             "no cluster": f"has no cluster in column '{records.cluster_name}'; every row needs one: fill it in or "
                           "delete the row"}
    for at, what, header in ((6, "question id", lay["question_col"]), (7, "model name", lay["model_col"])):
        first = min((row[at] for row in rows if row[at] is not None), default=None)
        if header is not None and first is not None:
            raise EvalStatsError(f"{side.where(first)} has no {what} in column '{header}'; every row needs one (NA, "
                                 "N/A, NaN, null and None mean missing in every column): fill it in or delete the row")
    fail = min((row[8] for row in rows if row[8] is not None), default=None)
    if fail is not None:
        row, code = divmod(int(fail), 8)
        raise EvalStatsError(f"{side.where(row)} {words[q.FAILS[code]]}")


def _questions(side: Any, label: str) -> int:
    n, split = side.run("SELECT COUNT(*), SUM(CASE WHEN c <> c_max THEN 1 ELSE 0 END) FROM es_questions")[0]
    if split:
        qid, a, b = side.run("SELECT q, c, c_max FROM es_questions WHERE c <> c_max ORDER BY first LIMIT 1")[0]
        raise EvalStatsError(f"question '{qid}' is in cluster '{a}' and in cluster '{b}' in {label}; each question "
                             "must belong to one cluster")
    if n < 2:
        raise EvalStatsError(f"{label} has only {n} question; the statistics need at least two questions (and a few "
                             "hundred for trustworthy intervals)")
    return int(n)


def _empty(g: int) -> dict:
    nan, zf, zi = np.full(g, math.nan), np.zeros(g), np.zeros(g, dtype=np.int64)
    return {"count": zi.copy(), "mean": nan.copy(), "m2": zf.copy(), "not01": zi.copy()}


def _model_rows(side: Any, sql: str, m_of: dict, g_of: dict) -> list[dict]:
    g = len(g_of)
    out = [{**_empty(g), "lo": math.nan, "hi": math.nan, "n": 0} for _ in m_of]
    for m, c, n, mean, m2, not01, lo, hi in side.run(sql):
        r, i = out[m_of[str(m)]], g_of[c]
        r["count"][i], r["mean"][i], r["m2"][i], r["not01"][i] = n, mean, m2, not01
        r["lo"] = lo if r["n"] == 0 else min(r["lo"], lo)
        r["hi"] = hi if r["n"] == 0 else max(r["hi"], hi)
        r["n"] += n
    return out


_PAIR_KEYS = ("count", "mean_model", "mean_baseline", "m2_model", "m2_baseline", "m2_diff", "comoment", "only_model",
              "only_baseline", "not01", "s3_diff")
_COUNTS = ("count", "only_model", "only_baseline", "not01")


def _new_pair(g: int) -> dict:
    return {k: (np.zeros(g, np.int64) if k in _COUNTS else np.full(g, math.nan) if k.startswith("mean")
                else np.zeros(g)) for k in _PAIR_KEYS} | {"diff_min": math.nan, "diff_max": math.nan}


def _add(p: dict, x: int, vals: tuple, lo: Any, hi: Any) -> None:
    """One cluster's values into a pair's arrays (an empty cluster leaves the defaults: count 0, means NaN)."""
    if not vals[0]:
        return
    for k, v in zip(_PAIR_KEYS, vals, strict=True):
        p[k][x] = v
    p["diff_min"] = lo if math.isnan(p["diff_min"]) else min(p["diff_min"], lo)
    p["diff_max"] = hi if math.isnan(p["diff_max"]) else max(p["diff_max"], hi)


def _joined_pairs(side: Any, sql: str, m_of: dict, g_of: dict) -> dict:
    """Per pair ``(j, i)``, ``j > i``, from the self-join (:func:`~evalstats_core.engine_sql.pair_sql`), oriented
    from the engine's text order."""
    acc: dict[tuple[int, int], dict] = {}
    for ma, mb, c, n, mean_a, mean_b, m2_a, m2_b, m2_d, co, only_a, only_b, not01, d_lo, d_hi, s3 in side.run(sql):
        a, b = m_of[str(ma)], m_of[str(mb)]
        flip = a < b  # the engine's a is the later model unless its text sorts first
        key = (b, a) if flip else (a, b)
        if key not in acc:  # not setdefault(key, _new_pair(...)): that allocates G-sized arrays on every row
            acc[key] = _new_pair(len(g_of))
        p = acc[key]
        vals = (n, mean_b, mean_a, m2_b, m2_a, m2_d, co, only_b, only_a, not01, -s3) if flip else (
            n, mean_a, mean_b, m2_a, m2_b, m2_d, co, only_a, only_b, not01, s3)
        _add(p, g_of[c], vals, *((-d_hi, -d_lo) if flip else (d_lo, d_hi)))
    return acc


def _from_pivot(side: Any, n_models: int, clustered: bool, g_of: dict, scale: str,
                complete: bool = False) -> tuple[list[dict], dict, int]:
    """Every model's and pair's sums per cluster from one pass over the pivot (``es_questions``), fetched as one
    array per column and placed by cluster index (no Python loop over clusters)."""
    sql, _ = q.pivot_sums_sql("es_questions", n_models, clustered, scale, complete)
    v = side.columns(sql)
    g = len(g_of)
    x = np.fromiter((g_of[c] for c in v["g"].tolist()), dtype=np.int64, count=len(v["g"]))
    models = []
    for j in range(n_models):
        r = {**_empty(g), "lo": math.nan, "hi": math.nan}
        n = v[f"n_{j}"].astype(np.int64)
        has = n > 0
        at = x[has]
        r["count"][at], r["mean"][at], r["m2"][at] = n[has], v[f"mean_{j}"][has], v[f"m2_{j}"][has]
        r["not01"][at] = v[f"not01_{j}"][has].astype(np.int64)
        if has.any():
            r["lo"], r["hi"] = float(v[f"lo_{j}"][has].min()), float(v[f"hi_{j}"][has].max())
        r["n"] = int(n.sum())
        models.append(r)
    acc: dict[tuple[int, int], dict] = {}
    for j in range(n_models):
        for i in range(j):
            k = f"{j}_{i}"
            p = acc[(j, i)] = _new_pair(g)
            has = v[f"count_{k}"] > 0
            at = x[has]
            for key in _PAIR_KEYS:
                p[key][at] = v[f"{key}_{k}"][has].astype(p[key].dtype)
            if has.any():
                p["diff_min"], p["diff_max"] = float(v[f"d_lo_{k}"][has].min()), float(v[f"d_hi_{k}"][has].max())
    partial = int(np.nansum(v["partial"])) if len(v["partial"]) else 0
    return models, acc, partial


def _finish_pairs(acc: dict, names: list[str], g: int, model_sums: list) -> list[dict]:
    """Every pair ``j > i`` (model = names[j], baseline = names[i]) in the order of ``FileSums.pair_sums``."""
    out = []
    for j in range(len(names)):
        for i in range(j):
            p = acc.get((j, i)) or _new_pair(g)
            if p["not01"].any():  # discordant counts mean something only for 0/1 scores (as file_sums keeps them)
                p["only_model"] = np.zeros(g, np.int64)
                p["only_baseline"] = np.zeros(g, np.int64)
            shared = int(p["count"].sum())
            left_out = int(model_sums[j].count.sum() + model_sums[i].count.sum()) - 2 * shared
            s3 = p.pop("s3_diff")  # the raw sum of cubes of d: centred on each cluster's mean of d
            n = p["count"].astype(np.float64)
            mu = np.where(n > 0, p["mean_model"] - p["mean_baseline"], 0.0)
            m3 = np.where(n > 0, s3 - 3.0 * mu * p["m2_diff"] - n * mu * mu * mu, 0.0)
            out.append({"model": names[j], "baseline": names[i], **p, "n_left_out": left_out, "m3_diff": m3})
    return out
