"""The sufficient statistics of a results file, written once as SQL that runs on DuckDB and on Spark SQL.

=========================  ==================================================================================
:class:`Dialect`           what differs between engines: quoting a column name, keeping a table
:func:`source_sql`         the answers of a long or wide table as ``q, m, s, c, r`` (question, model, score
                           expression, cluster, row order), from the file's own columns
:func:`cells_sql`          one row per (question, model): runs averaged, and every check of the rows as counts
:func:`model_sql`,         per (model, cluster) and per (pair, cluster) on shared questions: COUNT, AVG,
:func:`pair_sql`           VAR_POP * COUNT, COVAR_POP * COUNT, discordant counts (the fields of ``FileSums``)
=========================  ==================================================================================

Only standard aggregates are used (``COUNT``, ``SUM``, ``AVG``, ``MIN``, ``MAX``, ``VAR_POP``, ``COVAR_POP``,
``CASE``, ``TRY_CAST``), so the same text runs on DuckDB and on Spark SQL; the two differ only in how an
identifier is quoted and how a table is kept (:class:`Dialect`). Labels are compared as trimmed text, as the
in-memory reader compares them. No user text is ever put in the SQL: column names are quoted identifiers
(with the quote character doubled) and models of a wide file are numbered, so a file cannot inject SQL.

References
----------
Chan, Golub & LeVeque 1983, "Algorithms for computing the sample variance", Am. Stat. 37(3) (the pairwise /
streaming updates behind ``VAR_POP`` and ``COVAR_POP`` in both engines).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Dialect", "DUCKDB", "SPARK", "source_sql", "cells_sql", "question_sql", "model_sql", "k_sql",
           "pair_sql", "rows_sql", "models_sql", "clusters_sql", "pivot_sql", "pivot_stats_sql", "pivot_k_sql",
           "pivot_sums_sql",
           "PIVOT_MODELS", "kind_of", "runs_sql", "scores_sql", "RUN_ID", "DECIMAL", "FAILS", "MISSING", "TRUE_WORDS", "FALSE_WORDS"]

#: Words read as a missing value, true (1) and false (0): the in-memory reader's (``_records``).
MISSING = ("", "na", "n/a", "nan", "null", "none")
TRUE_WORDS = ("true", "yes", "t", "y", "pass", "passed")
FALSE_WORDS = ("false", "no", "f", "n", "fail", "failed")


@dataclass(frozen=True)
class Dialect:
    """How one engine quotes a column name (``quote``) and spells the text type (``text``)."""

    name: str
    quote: str
    text: str

    def ident(self, name: str) -> str:
        """``name`` as a quoted identifier (the quote character doubled inside)."""
        return f"{self.quote}{name.replace(self.quote, self.quote * 2)}{self.quote}"


DUCKDB = Dialect("duckdb", '"', "VARCHAR")
SPARK = Dialect("spark", "`", "STRING")


_NUMBER = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "BOOLEAN",
                     "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "INT", "LONG", "SHORT", "BYTE",
                     "REAL"})


_INTEGER = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
                      "INT", "LONG", "SHORT", "BYTE"})


_FLOAT = frozenset({"FLOAT", "DOUBLE", "REAL"})


def kind_of(type_name: str) -> str:
    """``"integer"`` for an integer column type of either engine (``BIGINT``, ``int``), ``"float"`` for a binary
    floating-point one (``DOUBLE``, ``float``), ``"number"`` for another numeric or boolean one
    (``decimal(10,2)``, ``BOOLEAN``), else ``"text"``."""
    head = type_name.upper().split("(")[0].strip()
    return ("integer" if head in _INTEGER else "float" if head in _FLOAT else "number" if head in _NUMBER
            else "text")


def _words(words: tuple[str, ...]) -> str:
    return ", ".join(f"'{w}'" for w in words)  # fixed ASCII words of ours, never user text


def _label(d: Dialect, col: str, kind: str = "text") -> str:
    """A label column as text, trimmed; an integer column as it is (its values and its texts are one to one,
    and grouping a billion integers is much cheaper than grouping their texts)."""
    if kind == "integer":
        return d.ident(col)
    x = d.ident(col)
    if kind == "float":  # a whole number as Arrow writes it ('1', not DuckDB's and Spark's '1.0'): ids 1, 1.1, 1.2
        # and -0.0 as '-0' (Arrow's text; 0.0 and -0.0 are two ids in memory); ids Arrow would write otherwise
        # (1e+10, 1e-05) are refused first (:func:`odd_float_sql`)
        return (f"TRIM(CASE WHEN {x} = 0 AND CAST({x} AS {d.text}) LIKE '-%' THEN '-0' "
                f"WHEN {x} = FLOOR({x}) AND ABS({x}) < 1e15 THEN CAST(CAST({x} AS BIGINT) AS {d.text}) "
                f"ELSE CAST({x} AS {d.text}) END)")
    return f"TRIM(CAST({x} AS {d.text}))"


def odd_float_sql(d: Dialect, relation: str, col: str, order: str) -> str:
    """The first row (``r``, and its value ``v``) of the floating-point label column ``col`` whose text the engines
    would write differently from the in-memory reader (Arrow: ``1e+10``, ``1e-05``; DuckDB ``10000000000``,
    ``1e-05``; Spark ``1.0E10``): every number but a whole one below 1e10 in magnitude, or a fraction between
    0.001 and 1e7 in magnitude (where the three agree); NaN and NULL are the missing-label check's."""
    x = d.ident(col)
    plain = f"(({x} = FLOOR({x}) AND ABS({x}) < 1e10) OR (ABS({x}) >= 0.001 AND ABS({x}) < 1e7))"
    return (f"SELECT {order} AS r, {x} AS v FROM {relation} WHERE {x} IS NOT NULL AND NOT ISNAN({x}) "
            f"AND NOT {plain} ORDER BY r LIMIT 1")


def _missing(text: str) -> str:
    """True when the text ``text`` is null or a missing-value word."""
    return f"({text} IS NULL OR LOWER({text}) IN ({_words(MISSING)}))"


def _score(d: Dialect, col: str, kind: str) -> tuple[str, str, str, str]:
    """(score expression, 'no score here' condition, 'not a score' condition, 'a true/false word' condition) of
    column ``col``.

    ``kind`` is ``"number"`` (numeric or boolean column) or ``"text"`` (numbers, true/false words, missing words).
    """
    x = d.ident(col)
    if kind in ("number", "integer", "float"):
        return f"CAST({x} AS DOUBLE)", f"({x} IS NULL OR ISNAN(CAST({x} AS DOUBLE)))", "FALSE", "FALSE"
    t = f"LOWER(TRIM(CAST({x} AS {d.text})))"
    value = (f"CASE WHEN {t} IN ({_words(TRUE_WORDS)}) THEN 1.0 WHEN {t} IN ({_words(FALSE_WORDS)}) THEN 0.0 "
             f"WHEN {_missing(t)} THEN NULL ELSE TRY_CAST({t} AS DOUBLE) END")
    bad = (f"(NOT {_missing(t)} AND {t} NOT IN ({_words(TRUE_WORDS + FALSE_WORDS)}) "
           f"AND TRY_CAST({t} AS DOUBLE) IS NULL)")
    return value, _missing(t), bad, f"({t} IN ({_words(TRUE_WORDS + FALSE_WORDS)}))"


def source_sql(d: Dialect, relation: str, roles: dict, kinds: dict[str, str], order: str) -> str:
    """The answers as ``q, m, s, c, r, nos, bad, wd``: question and model (trimmed text; a wide file's model is the
    column's number), score (NULL where there is none), cluster (NULL without a cluster column), the row's place
    in the file ``r``, and flags for a missing (``nos``), unreadable (``bad``) or worded (``wd``: true/false,
    yes/no ... read as 1/0) score.

    ``roles``: ``format``, ``question``, ``model``, ``score``, ``cluster`` (column names) and ``models``
    (a wide file's model columns); ``kinds``: column -> ``"number"`` or ``"text"``; ``order``: the SQL
    expression of the row's place (e.g. the row number).
    """
    q = _label(d, roles["question"], kinds.get(roles["question"], "text"))
    c = (_label(d, roles["cluster"], kinds.get(roles["cluster"], "text")) if roles.get("cluster")
         else "CAST(NULL AS " + d.text + ")")
    if roles["format"] == "long":
        s, nos, bad, wd = _score(d, roles["score"], kinds[roles["score"]])
        m = _label(d, roles["model"], kinds.get(roles["model"], "text"))
        # the model name as written (text only: a number's text is the label's own), for the spellings that
        # trimming made one (rows_sql's m_lo, m_hi)
        mr = f"CAST({d.ident(roles['model'])} AS {d.text})" if kinds.get(roles["model"], "text") == "text" else m
        return (f"SELECT {q} AS q, {m} AS m, {mr} AS mr, {s} AS s, {c} AS c, {order} AS r, "
                f"{nos} AS nos, {bad} AS bad, {wd} AS wd FROM {relation}")
    parts = []
    base = f"SELECT {q} AS es_q, {c} AS es_c, {order} AS es_r, * FROM {relation}"
    for j, col in enumerate(roles["models"]):
        s, nos, bad, wd = _score(d, col, kinds[col])
        parts.append(f"SELECT es_q AS q, CAST({j} AS {d.text}) AS m, CAST({j} AS {d.text}) AS mr, {s} AS s, "
                     f"es_c AS c, es_r AS r, FALSE AS nos, "
                     f"{bad} AS bad, {wd} AS wd "
                     f"FROM w WHERE NOT {nos}")  # an empty cell: the model did not answer
    return f"WITH w AS ({base}) " + " UNION ALL ".join(parts)


#: What a row can fail, by the code in the low 3 bits of ``fail`` (``fail = row * 8 + code``).
FAILS = ("no score", "not a number", "infinite", "no cluster")


def _fail(clustered: bool) -> str:
    """The first check a row fails as ``r * 8 + code`` (:data:`FAILS`), NULL when it passes them all."""
    inf = "1.7976931348623157e308"
    no_cluster = f"WHEN c IS NULL THEN r * 8 + {FAILS.index('no cluster')}" if clustered else ""
    return (f"CASE WHEN nos THEN r * 8 + {FAILS.index('no score')} WHEN bad THEN r * 8 + {FAILS.index('not a number')} "
            f"WHEN ABS(s) > {inf} THEN r * 8 + {FAILS.index('infinite')} {no_cluster} END")


def cells_sql(source: str, clustered: bool = True) -> str:
    """One row per (question, model) of ``source`` (:func:`source_sql`): the answers ``k``, their score total,
    where the cell first appears and its cluster (lowest and highest label: they differ when a question lies in
    two clusters). Used above :data:`PIVOT_MODELS` models only (the rows' checks are :func:`rows_sql`'s)."""
    return f"""
SELECT q, m, COUNT(s) AS k, SUM(s) AS total, MIN(r) AS first, MIN(c) AS c, MAX(c) AS c_max
FROM ({source}) src GROUP BY q, m"""


def rows_sql(d: Dialect, source: str, clustered: bool, integer: tuple[str, ...] = ()) -> str:
    """Per model, in one pass over the rows with a handful of groups: where it first appears, its answers not 0/1
    and not 0/100, the largest magnitude (the scale checks), and the first row with no question id, no model
    name, or a failing score or cluster (``row * 8 + code``, :data:`FAILS`), how many scores were words
    (``words``), and the smallest and largest spelling of its name as written (``m_lo``, ``m_hi``: they differ
    when trimming made two names one). Columns named in ``integer``
    (``"q"``, ``"m"``) hold integers: only NULL is missing there (no text to compare per row)."""
    def missing(col: str) -> str:
        return f"{col} IS NULL" if col in integer else _missing(f"CAST({col} AS {d.text})")
    return f"""
SELECT m, MIN(r) AS first, SUM(CASE WHEN s <> 0 AND s <> 1 THEN 1 ELSE 0 END) AS off01,
  SUM(CASE WHEN s <> 0 AND s <> 100 THEN 1 ELSE 0 END) AS off0100, MAX(ABS(s)) AS top,
  MIN(CASE WHEN {missing("q")} THEN r END) AS q_miss, MIN(CASE WHEN {missing("m")} THEN r END) AS m_miss,
  MIN({_fail(clustered)}) AS fail, SUM(CASE WHEN wd THEN 1 ELSE 0 END) AS words, MIN(mr) AS m_lo, MAX(mr) AS m_hi
FROM ({source}) src GROUP BY m"""


def question_sql(cells: str) -> str:
    """Per question: its cluster (twice: a question in two clusters has two) and where it first appears."""
    return f"SELECT q, MIN(c) AS c, MAX(c_max) AS c_max, MIN(first) AS first FROM {cells} GROUP BY q"


def _s(scale: str, p: str = "") -> str:
    """The question-level score of a cell of table alias ``p`` (the mean of its runs), then ``scale`` (a
    division such as ``/ 100``, or an empty string)."""
    return f"({p}total / {p}k {scale})"


def model_sql(cells: str, scale: str, clustered: bool) -> str:
    """Per (model, cluster): COUNT, AVG, VAR_POP * COUNT, answers not 0/1, MIN, MAX of the question scores."""
    c = "c" if clustered else "''"
    s = _s(scale)
    return f"""
SELECT m, {c} AS g, COUNT(*) AS n, AVG(s) AS mean, VAR_POP(s) * COUNT(*) AS m2,
  SUM(CASE WHEN s <> 0 AND s <> 1 THEN 1 ELSE 0 END) AS not01, MIN(s) AS lo, MAX(s) AS hi
FROM (SELECT m, c, {s} AS s FROM {cells} WHERE k > 0) x GROUP BY m, {c}"""


def k_sql(cells: str) -> str:
    """Per model: how many answered questions had each number of runs ``k``."""
    return f"SELECT m, k, COUNT(*) AS n FROM {cells} WHERE k > 0 GROUP BY m, k"


def pair_sql(cells: str, scale: str, clustered: bool) -> str:
    """Per (pair of models, cluster), over the questions both answered: the fields of ``PairSums``. A pair comes
    once, as ``a.m > b.m`` in the engine's text order (the caller orients it)."""
    c = "a.c" if clustered else "''"
    sa, sb = _s(scale, "a."), _s(scale, "b.")
    return f"""
SELECT ma, mb, g, COUNT(*) AS n, AVG(x) AS mean_a, AVG(y) AS mean_b, VAR_POP(x) * COUNT(*) AS m2_a,
  VAR_POP(y) * COUNT(*) AS m2_b, VAR_POP(x - y) * COUNT(*) AS m2_d, COVAR_POP(x, y) * COUNT(*) AS co,
  SUM(CASE WHEN x = 1 AND y = 0 THEN 1 ELSE 0 END) AS only_a, SUM(CASE WHEN x = 0 AND y = 1 THEN 1 ELSE 0 END) AS only_b,
  SUM(CASE WHEN (x <> 0 AND x <> 1) OR (y <> 0 AND y <> 1) THEN 1 ELSE 0 END) AS not01,
  MIN(x - y) AS d_lo, MAX(x - y) AS d_hi, SUM((x - y) * (x - y) * (x - y)) AS s3_d
FROM (SELECT a.m AS ma, b.m AS mb, {c} AS g, {sa} AS x, {sb} AS y
      FROM {cells} a JOIN {cells} b ON a.q = b.q AND a.m > b.m WHERE a.k > 0 AND b.k > 0) p
GROUP BY ma, mb, g"""


#: Up to this many models the pairs come from one pass over a per-question pivot (:func:`pivot_sql`); above it,
#: from a self-join of the cells (:func:`pair_sql`), whose SQL does not grow with the number of pairs.
PIVOT_MODELS = 16


def models_sql(rows: str, wide: bool) -> str:
    """The models of :func:`rows_sql` (a handful of rows) with their number ``j`` in the file's order: first
    appearance (a wide file: its column's number)."""
    order = "CAST(m AS INTEGER)" if wide else "first"
    return f"SELECT x.*, ROW_NUMBER() OVER (ORDER BY {order}) - 1 AS j FROM {rows} x"


def clusters_sql(source: str) -> str:
    """Every cluster label of ``source`` (:func:`source_sql`) with its rank ``ci`` in the labels' order, for
    :func:`pivot_sql`."""
    return (f"SELECT c, ROW_NUMBER() OVER (ORDER BY c) AS ci FROM (SELECT DISTINCT c FROM ({source}) x "
            "WHERE c IS NOT NULL) d")


def pivot_sql(source: str, models: str, n_models: int, clusters: str | None = None) -> str:
    """One row per question, straight from the rows (one grouping, no per-(question, model) table): its cluster
    (lowest and highest label), where it first appears, and per model ``j`` its answers ``k<j>`` and score
    ``s<j>``, the mean of its runs (NULL where the model did not answer).

    ``clusters`` (:func:`clusters_sql`'s table): the cluster as its lowest and highest rank ``ci``, ``ci_max``
    instead of the labels ``c``, ``c_max`` (issue 44.2: a smallest and a largest string per question are string
    states DuckDB holds outside its memory limit; with them 6e7 rows of 750,000 string-id clusters passed 5 GB;
    and 3e7 questions' labels are a large table to keep)."""
    cols = ", ".join(f"COUNT(CASE WHEN y.j = {j} THEN x.s END) AS k{j}, "
                     f"SUM(CASE WHEN y.j = {j} THEN x.s END) / COUNT(CASE WHEN y.j = {j} THEN x.s END) AS s{j}"
                     for j in range(n_models))
    if clusters is None:
        return (f"SELECT x.q AS q, MIN(x.c) AS c, MAX(x.c) AS c_max, MIN(x.r) AS first, {cols} "
                f"FROM ({source}) x JOIN {models} y ON x.m = y.m GROUP BY x.q")
    return (f"SELECT x.q AS q, MIN(u.ci) AS ci, MAX(u.ci) AS ci_max, MIN(x.r) AS first, {cols} "
            f"FROM ({source}) x JOIN {models} y ON x.m = y.m LEFT JOIN {clusters} u ON x.c = u.c GROUP BY x.q")


def pivot_stats_sql(pivot: str, n_models: int) -> str:
    """Per model ``j`` (columns in turn): questions answered, most runs of a question, largest |score|."""
    return "SELECT " + ", ".join(f"COUNT(s{j}), MAX(k{j}), MAX(ABS(s{j}))" for j in range(n_models)) + f" FROM {pivot}"


def pivot_k_sql(pivot: str, n_models: int) -> str:
    """Per model ``j``: how many answered questions had each number of runs ``k``."""
    each = " UNION ALL ".join(f"SELECT {j} AS j, k{j} AS k FROM {pivot}" for j in range(n_models))
    return f"SELECT j, k, COUNT(*) AS n FROM ({each}) x WHERE k > 0 GROUP BY j, k"


def pivot_sums_sql(pivot: str, n_models: int, clustered: bool, scale: str = "",
                   complete: bool = False, key: str = "c") -> tuple[str, list[str]]:
    """Per cluster, in one pass over the pivot: every model's fields of ``ModelSums`` and every pair's of
    ``PairSums`` (``j > i``: model ``j`` minus baseline ``i``, on the questions both answered); with the names
    of the columns (``n_0``, ``mean_0`` ..., ``count_1_0`` ...) and the questions some model left out; ``scale``
    as in :func:`model_sql`. ``complete``: every model answered every question, so a pair's shared questions are
    all of them and its count, means and m2 are the models' own aggregates, written identically (the engine
    computes an aggregate written twice once; no per-pair CASE). ``key``: the pivot's column naming the cluster
    (``ci``: the cluster's rank, a number, where :func:`pivot_sql` was given the clusters)."""
    exprs: list[tuple[str, str]] = []
    s = [f"(s{j}{scale})" for j in range(n_models)]
    for j in range(n_models):
        x = s[j]
        exprs += [(f"n_{j}", f"COUNT({x})"), (f"mean_{j}", f"AVG({x})"), (f"m2_{j}", f"VAR_POP({x}) * COUNT({x})"),
                  (f"not01_{j}", f"SUM(CASE WHEN {x} <> 0 AND {x} <> 1 THEN 1 ELSE 0 END)"),
                  (f"lo_{j}", f"MIN({x})"), (f"hi_{j}", f"MAX({x})")]
    for j in range(n_models):
        for i in range(j):
            a, b = (s[j], s[i]) if complete else (f"(CASE WHEN s{i} IS NOT NULL THEN {s[j]} END)",
                                                  f"(CASE WHEN s{j} IS NOT NULL THEN {s[i]} END)")
            k = f"{j}_{i}"
            exprs += [(f"count_{k}", f"COUNT({a})"), (f"mean_model_{k}", f"AVG({a})"),
                      (f"mean_baseline_{k}", f"AVG({b})"), (f"m2_model_{k}", f"VAR_POP({a}) * COUNT({a})"),
                      (f"m2_baseline_{k}", f"VAR_POP({b}) * COUNT({a})"),
                      (f"m2_diff_{k}", f"VAR_POP({a} - {b}) * COUNT({a})"),
                      (f"comoment_{k}", f"COVAR_POP({a}, {b}) * COUNT({a})"),
                      (f"only_model_{k}", f"SUM(CASE WHEN {a} = 1 AND {b} = 0 THEN 1 ELSE 0 END)"),
                      (f"only_baseline_{k}", f"SUM(CASE WHEN {a} = 0 AND {b} = 1 THEN 1 ELSE 0 END)"),
                      (f"not01_{k}", f"SUM(CASE WHEN ({a} <> 0 AND {a} <> 1) OR ({b} <> 0 AND {b} <> 1) THEN 1 ELSE 0 END)"),
                      (f"d_lo_{k}", f"MIN({a} - {b})"), (f"d_hi_{k}", f"MAX({a} - {b})"),
                      (f"s3_diff_{k}", f"SUM(({a} - {b}) * ({a} - {b}) * ({a} - {b}))")]
    some = " OR ".join(f"s{j} IS NULL" for j in range(n_models))
    exprs.append(("partial", f"SUM(CASE WHEN {some} THEN 1 ELSE 0 END)"))
    g = key if clustered else "''"
    names = ["g"] + [name for name, _ in exprs]
    body = ", ".join(f"{sql} AS {name}" for name, sql in exprs)
    return f"SELECT {g} AS g, {body} FROM {pivot} GROUP BY {g}", names


#: A question id ``<base>.<digits>`` (``(?s)``: the base may hold a line break), group 1 the base: the in-memory
#: check's pattern (``_records._RUN_ID``), written without a backslash so that DuckDB's and Spark's string
#: literals read it alike.
RUN_ID = "(?s)^(.+)[.][0-9]+$"
#: A decimal number as ``pandas.to_numeric`` reads one (no ``inf``, ``nan``, hex or ``_``); any other id is no number.
DECIMAL = "^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"


def runs_sql(questions: str) -> str:
    """Over the distinct question ids of ``questions`` (``q`` text, ``first``): the ids that look like runs of
    another question, as ``_records.runs_in_ids`` decides — an id ``<base>.<digits>`` whose base is an id itself or
    shared by two ids — counted (``runs``), their distinct bases (``bases``) and where the first run appears."""
    base = f"REGEXP_EXTRACT(q, '{RUN_ID}', 1)"
    # each id once as a base itself and once as a possible run of its base, from one reading of ``questions``
    # (Spark loses a cached view's columns when one query reads it twice, by a self-join or a union)
    return f"""
WITH b AS (SELECT CASE WHEN run = 1 THEN {base} ELSE q END AS base, run, CASE WHEN run = 1 THEN first END AS first
           FROM {questions} CROSS JOIN (SELECT 0 AS run UNION ALL SELECT 1 AS run) two
           WHERE run = 0 OR {base} <> ''),
per AS (SELECT base, SUM(run) AS n, MAX(1 - run) AS known, MIN(first) AS first FROM b GROUP BY base)
SELECT SUM(n) AS runs, COUNT(*) AS bases, MIN(first) AS first FROM per WHERE n >= 2 OR (n = 1 AND known = 1)"""


def scores_sql(questions: str) -> str:
    """Over the distinct question ids of ``questions``: how many, how many are decimal numbers in [0, 1], and how
    many of those are not whole — the in-memory verdict 'these ids look like scores' is ``numbers == ids`` and
    ``fractions > 0`` (``_records.question_col_looks_like_scores``)."""
    v = "TRY_CAST(q AS DOUBLE)"
    unit = f"REGEXP_EXTRACT(q, '{DECIMAL}', 0) = q AND {v} >= 0 AND {v} <= 1"
    return (f"SELECT COUNT(*) AS ids, SUM(CASE WHEN {unit} THEN 1 ELSE 0 END) AS numbers, "
            f"SUM(CASE WHEN {unit} AND {v} <> FLOOR({v}) THEN 1 ELSE 0 END) AS fractions FROM {questions}")
