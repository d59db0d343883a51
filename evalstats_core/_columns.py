"""Columns of a results file: which column plays which role, and each column's cells read (private).

:func:`find_roles` finds the question, model, score and cluster columns from the header (explicit
names, else case-insensitive synonyms) and decides long or wide form. :func:`label_codes` and
:func:`score_values` turn one column into integer codes or float scores, naming the file row of the
first bad cell; :func:`wide_cells` melts the model columns of a wide file; :func:`question_clusters`
checks that every question lies in one cluster; :func:`unread_clusters` decides whether a cluster column
nobody chose is read (one rule for every reader, engine and surface).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ._cells import chunks, scatter
from .errors import EvalStatsError

if TYPE_CHECKING:  # imported where a column is parsed: find_roles, check_name and question_clusters need neither
    import pandas as pd
    import pyarrow as pa

__all__ = ["CLUSTERED_ON", "FOUND_CLUSTERS", "categorical", "check_name", "code_dtype", "distinct", "find_roles", "hidden_character", "label_codes", "question_clusters", "role_notes", "score_values",
           "tidy_frame", "unread_clusters", "wide_cells", "wide_notes"]

# Role -> accepted column names (normalised: lower case, spaces and dashes as "_"), in priority order.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "question": ("question", "question_id", "questionid", "qid", "id", "item", "item_id", "task", "task_id",
                 "sample_id", "sample", "example_id", "problem_id", "prompt_id", "doc_id"),
    "model": ("model", "model_name", "model_id", "system", "agent", "llm", "candidate"),
    "score": ("score", "correct", "is_correct", "accuracy", "acc", "result", "value", "passed", "pass",
              "reward", "grade", "exact_match", "em", "f1"),
    "cluster": ("cluster", "cluster_id", "group", "group_id", "passage", "passage_id", "category", "topic",
                "subject", "document", "context_id", "block"),
}
_TRUE = frozenset({"true", "yes", "t", "y", "pass", "passed"})
_FALSE = frozenset({"false", "no", "f", "n", "fail", "failed"})
_MISSING = frozenset({"", "na", "n/a", "nan", "null", "none"})
_SCORE_FIX = "scores must be numbers, true/false or 0/1"

#: How every reader's note on the cluster it found ends (a table's column, an Inspect metadata key, lm-eval's
#: subtask): the validator takes these notes back when :func:`unread_clusters` leaves the clusters unread.
CLUSTERED_ON = "standard errors are clustered on it"

#: A cluster column nobody chose (found by its name, an Inspect key named subject..., lm-eval's subtasks) is read
#: only with at least this many clusters. The gate never passes on 2 clusters (``gating.TWO_CLUSTERS``); on 3 or 4
#: the CR2 t interval has 1-3 Satterthwaite degrees of freedom, so a pass needs the difference 4.5-7 standard
#: errors above ``-margin`` (t at the 96% end): a ``category`` column of 2, 3 or 4 values unrelated to how the
#: questions were drawn, read by its name, made the gate pass 0%, 64% and 74% of true +4-point gains (margin 2
#: points, 400 paired questions) that it passes 100% of without it; with 5-8 values 88-92% (issue 46,
#: ``bench/bench_found_clusters.py``, 200 files a row, seed 46). Below this many, the clustered interval is also
#: the one the analysis sets beside the unclustered one (``cluster_cost.FEW_CLUSTERS``). A column the user chose
#: is always read.
FOUND_CLUSTERS = 5


# ----------------------------------------------------------------------------------------------- roles
def _norm(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def _find(header: list[str], wanted: str | None, role: str, label: str, taken: set[int]) -> int | None:
    """Index of the column for ``role``: the explicit name if given, else the first synonym present."""
    if wanted is not None:
        exact = [i for i, h in enumerate(header) if h == str(wanted).strip()]
        loose = [i for i, h in enumerate(header) if _norm(h) == _norm(str(wanted))]
        hit = exact or loose
        if not hit:
            raise EvalStatsError(
                f"column '{wanted}' (given as the {role} column) is not in {label}; its columns are: "
                f"{', '.join(repr(h) for h in header)}")
        if hit[0] in taken:
            raise EvalStatsError(f"column '{wanted}' cannot be the {role} column and another role at once")
        return hit[0]
    normed = [_norm(h) for h in header]
    for synonym in _SYNONYMS[role]:
        for i, h in enumerate(normed):
            if h == synonym and i not in taken:
                return i
    return None


def unique_names(header: list[str], label: str) -> None:
    """Refuse two columns whose names are one name (trimmed, any case, space or hyphen for underscore): which
    one a role means would be a guess. The in-memory reader and the SQL engines (on the file's own header, before
    DuckDB or Spark rename a repeat to ``score_1``) ask this one function."""
    seen: dict[str, int] = {}
    for i, h in enumerate(header):
        if h and _norm(h) in seen:
            raise EvalStatsError(f"{label} has two columns named '{h}' (columns {seen[_norm(h)] + 1} and {i + 1}); "
                                 "rename one so that every column name is different")
        seen[_norm(h)] = i


def find_roles(header: list[str], fmt: str | None, given: dict[str, str | None], label: str,
               ignore: tuple[str, ...] = ()) -> dict[str, Any]:
    if fmt not in (None, "long", "wide"):
        raise EvalStatsError(f"format ({fmt!r}) must be 'long', 'wide' or None (detect)")
    unique_names(header, label)
    if len(header) < 2:
        raise EvalStatsError(
            f"{label} has a single column ({header[0][:60]!r}); a results file needs question, model and score "
            "columns (long form) or a question column and one column per model (wide form)")
    taken: set[int] = set()
    for name in ignore:  # columns the user says are not models (e.g. n_tokens in a wide file)
        hit = [i for i, h in enumerate(header) if _norm(h) == _norm(str(name))]
        if not hit:
            raise EvalStatsError(f"column '{name}' (given to ignore) is not in {label}; its columns are: "
                                 f"{', '.join(repr(h) for h in header[:50])}")
        taken.update(hit)
    ignored_given = set(taken)
    roles: dict[str, Any] = {}
    for role in ("question", "cluster", "model", "score"):
        if role in ("model", "score") and fmt == "wide":
            if given[role] is not None:
                raise EvalStatsError(f"{role}_col does not apply to a wide file (one column per model)")
            continue
        idx = _find(header, given[role], role, label, taken)
        if idx is not None:
            taken.add(idx)
        roles[role] = idx
    if roles["question"] is None:
        raise EvalStatsError(
            f"could not find the question column in {label} (columns: {', '.join(repr(h) for h in header)}); "
            "name it 'question' or choose it with question_col=")
    long_form = fmt == "long" or (fmt is None and roles.get("model") is not None)
    if long_form:
        for role in ("model", "score"):
            if roles.get(role) is None:
                raise EvalStatsError(
                    f"could not find the {role} column in {label} (columns: {', '.join(repr(h) for h in header)}); "
                    f"name it '{role}' or choose it with {role}_col=")
        roles["models"] = []
    else:
        roles["model"] = roles["score"] = None
        roles["models"] = [i for i, h in enumerate(header) if i not in taken and h]
        if not roles["models"]:
            raise EvalStatsError(f"{label} has no model columns: in wide form every column other than the "
                                 "question and cluster columns holds one model's scores")
    roles["format"] = "long" if long_form else "wide"
    as_model = set(roles["models"])  # a set: a header can have 100,000 columns
    roles["ignored"] = [header[i] or f"(unnamed column {i + 1})" for i in range(len(header))
                        if (i not in taken or i in ignored_given) and i not in as_model]
    return roles


def role_notes(header: list[str], roles: dict[str, Any], worded: bool) -> list[str]:
    """The notes every table reader writes after its layout's: the cluster column, the ignored columns and
    scores written as words."""
    notes = []
    if roles.get("cluster") is not None:
        notes.append(f"cluster column '{header[roles['cluster']]}': {CLUSTERED_ON}")
    if roles["ignored"]:
        notes.append(f"ignored column(s): {', '.join(roles['ignored'])}")
    if worded:
        notes.append("words such as true/false and yes/no were read as 1/0")
    return notes


def unread_clusters(name: str, n_clusters: int, chosen: bool) -> str | None:
    """Why a cluster column is not read, as the one-line note that says so and how to read it; None to read it.

    Every reading (the in-memory validator, the DuckDB and Spark engines) asks this one function, so the command
    line, the API and the workbench agree. A column the user chose (``chosen``) is always read; one found by its
    name alone only with :data:`FOUND_CLUSTERS` clusters or more.

    Examples
    --------
    >>> unread_clusters("category", 3, chosen=True) is None, unread_clusters("category", 40, chosen=False) is None
    (True, True)
    >>> print(unread_clusters("category", 3, chosen=False))
    cluster column 'category' found by its name but not used: 3 clusters are too few for a clustered standard error (fewer than 5 leave it at most 3 degrees of freedom), so questions are treated as independent; to cluster on it anyway choose cluster_col='category'
    """
    if chosen or n_clusters >= FOUND_CLUSTERS:
        return None
    return (f"cluster column '{name}' found by its name but not used: {n_clusters} cluster"
            f"{'' if n_clusters == 1 else 's'} {'is' if n_clusters == 1 else 'are'} too few for a clustered standard "
            f"error (fewer than {FOUND_CLUSTERS} leave it at most 3 degrees of freedom), so questions are treated as "
            f"independent; to cluster on it anyway choose cluster_col='{name}'")


# ---------------------------------------------------------------------------------------------- values
# Characters that change how a name is shown without being seen: bidirectional controls (a right-to-left
# override reverses the rest of a paragraph) and zero-width characters ("\u200bA" looks like "A").
_INVISIBLE = {0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
              0x2060: "WORD JOINER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x00AD: "SOFT HYPHEN",
              0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK", 0x061C: "ARABIC LETTER MARK",
              0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING",
              0x202C: "POP DIRECTIONAL FORMATTING", 0x202D: "LEFT-TO-RIGHT OVERRIDE",
              0x202E: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE",
              0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE"}
_HIDDEN_RE = "[" + "".join(f"\\x{{{c:04x}}}" for c in _INVISIBLE) + r"\x{00}-\x{1f}\x{7f}-\x{9f}]"  # RE2
_HIDDEN_SOFT_RE = "[" + "".join(f"\\x{{{c:04x}}}" for c in _INVISIBLE) + r"\x{00}-\x{08}\x{0b}\x{0c}\x{0e}-\x{1f}\x{7f}-\x{9f}]"


def hidden_character(text: str) -> str | None:
    """``"U+202E (RIGHT-TO-LEFT OVERRIDE)"`` for the first invisible or control character of ``text``, or None.

    Examples
    --------
    >>> hidden_character("gpt\u202eA"), hidden_character("gpt-4")
    ('U+202E (RIGHT-TO-LEFT OVERRIDE)', None)
    """
    code = next((ord(ch) for ch in text if ord(ch) in _INVISIBLE or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F),
                None)
    if code is None:
        return None
    return f"U+{code:04X} ({_INVISIBLE.get(code, 'a control character')})"


def check_name(name: str, what: str, place: str) -> None:
    """Refuse a name with an invisible or control character (shown as written, it would mislead)."""
    hidden = hidden_character(name)
    if hidden is not None:
        shown = name.encode("unicode_escape").decode("ascii")
        raise EvalStatsError(
            f"{place} has the {what} '{shown}', which contains the invisible character {hidden}; names that "
            "differ only by such characters look identical and bidirectional controls reorder the text around "
            "them: remove it from the file")


def label_codes(col: pa.ChunkedArray, what: str, header: str, where: Callable[[int], str], *,
                strict: bool = False) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (order of first appearance) and labels of a text id column.

    One rule for missing labels: null, empty, or one of the missing-value words of the score column
    (``NA``, ``N/A``, ``NaN``, ``null``, ``None``, any case) is an error naming the row, never a label
    of its own (a null Parquet label must not be merged with another). Labels with bidirectional controls,
    zero-width or control characters are errors too (``strict=False`` lets a question id hold a tab or a
    line break).
    """
    import pandas as pd  # heavy: the Arrow reader's path, never the small-CSV reader's
    import pyarrow as pa
    import pyarrow.compute as pc

    from ._encode import Coded  # with pyarrow: the Arrow path only

    null_row = col.null_row if isinstance(col, Coded) else (
        int(np.flatnonzero(pc.is_null(col).to_numpy(zero_copy_only=False))[0]) if col.null_count else None)
    if null_row is not None:  # before encoding: a null index would read as the most negative int64
        raise EvalStatsError(f"{where(null_row)} has no {what} (null) in column '{header}'; every row needs one: "
                             "fill it in or delete the row")
    if isinstance(col, Coded):  # encoded piece by piece as the file was read (issue 25)
        codes, dictionary = col.codes, col.dictionary
    else:
        text = pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
        coded = pa.types.is_dictionary(col.type) and pa.types.is_string(col.type.value_type)  # from the CSV parser
        if not (text or coded):
            col = pc.cast(col, pa.string())
        enc = pc.dictionary_encode(col).combine_chunks()  # a coded column's chunks: one dictionary, first-seen order
        codes, dictionary = enc.indices.to_numpy(zero_copy_only=False), enc.dictionary  # int32 (issue 25)
    labels = pc.utf8_trim_whitespace(dictionary)  # trim the distinct values, not every row
    if not pc.all(pc.equal(labels, dictionary)).as_py():  # " a" and "a" are one label
        again = pc.dictionary_encode(labels)
        codes = again.indices.to_numpy(zero_copy_only=False).astype(np.int64)[codes]
        labels = again.dictionary  # still in order of first appearance in the file
    low = pc.utf8_lower(labels)
    empty = pc.or_(pc.is_null(labels), pc.is_in(low, pa.array(sorted(_MISSING)))).to_numpy(zero_copy_only=False)
    if empty.any():
        k = int(np.flatnonzero(empty)[0])
        i = int(np.flatnonzero(codes == k)[0])
        value = labels[k].as_py()
        shown = "an empty" if not value else f"a missing ('{value}')"
        raise EvalStatsError(f"{where(i)} has {shown} {what} in column '{header}'; every row needs one (NA, N/A, "
                             "NaN, null and None mean missing in every column): fill it in or delete the row")
    hidden = pc.match_substring_regex(labels, _HIDDEN_RE if strict else _HIDDEN_SOFT_RE).to_numpy(zero_copy_only=False)
    if hidden.any():
        k = int(np.flatnonzero(hidden)[0])
        check_name(labels[k].as_py(), what, where(int(np.flatnonzero(codes == k)[0])))
    return codes, pd.Index(labels.to_pandas(), dtype="str")


def score_values(col: pa.ChunkedArray, header: str, where: Callable[[int], str], *, missing_ok: bool,
            hint: str = "") -> tuple[np.ndarray, bool]:
    """Scores as float64 (NaN = missing) and whether words such as true/false were read as 1/0."""
    import pandas as pd  # heavy: the Arrow reader's path, never the small-CSV reader's
    import pyarrow as pa
    import pyarrow.compute as pc

    from ._encode import Scores  # with pyarrow: the Arrow path only

    t = col.type
    worded = False
    if isinstance(col, Scores) and not pa.types.is_null(t):  # read as float64 piece by piece (issue 25)
        values, text, worded = col.values, None, pa.types.is_boolean(t)
    elif pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        values = pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False)
        text, worded = None, pa.types.is_boolean(t)
    elif pa.types.is_null(t):
        values, text = np.full(len(col.values) if isinstance(col, Scores) else len(col), np.nan), None
    else:
        text = pc.cast(col, pa.string()).to_pandas()
        low = text.str.strip().str.lower()
        values = pd.to_numeric(low, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
        yes, no = low.isin(_TRUE).to_numpy(), low.isin(_FALSE).to_numpy()
        worded = bool(yes.any() or no.any())
        values[yes], values[no] = 1.0, 0.0
        missing = (low.isna() | low.isin(_MISSING)).to_numpy()
        bad = np.isnan(values) & ~missing
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise EvalStatsError(f"{where(i)} has score {text.iloc[i]!r} in column '{header}'; {_SCORE_FIX}{hint}")
    inf = np.isinf(values)
    if inf.any():
        i = int(np.flatnonzero(inf)[0])
        shown = float(values[i]) if isinstance(col, Scores) else col[i].as_py()
        raise EvalStatsError(f"{where(i)} has score '{shown}' in column '{header}'; scores must be "
                             "finite numbers: fix or delete that row")
    if not missing_ok:
        nan = np.isnan(values)
        if nan.any():
            i = int(np.flatnonzero(nan)[0])
            shown = "empty or NaN" if text is None or not str(text.iloc[i]).strip() else repr(text.iloc[i])
            raise EvalStatsError(f"{where(i)} has no score in column '{header}' ({shown}); every row needs a "
                                 f"score ({_SCORE_FIX}): fill it in or delete the row")
    return values, worded


def categorical(codes: np.ndarray, labels: pd.Index) -> pd.Categorical:
    """Categorical from codes whose labels are distinct by construction (skips pandas' re-check).

    ``CategoricalDtype(labels)`` hashes every label again to check that they are distinct (a fifth of a
    1e7-row upload, issue 25); pandas' own fast path skips that, used where this pandas has it. Labels that are
    not an Index (the small-CSV reader's object arrays) become the text Index the Arrow reader gives.
    """
    import pandas as pd  # heavy: a DataFrame only when asked for

    if not isinstance(labels, pd.Index):
        labels = pd.Index(labels, dtype="str")
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    dtype = fast(labels, False) if fast is not None else pd.CategoricalDtype(labels)
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def tidy_frame(tidy: dict[str, Any]) -> pd.DataFrame:
    """``Dataset.tidy`` as the DataFrame ``Dataset.frame``: labelled columns categorical, no copy of the scores."""
    import pandas as pd  # heavy: a DataFrame only when asked for

    return pd.DataFrame({k: categorical(*v) if isinstance(v, tuple) else v for k, v in tidy.items()}, copy=False)


def wide_notes(question: str, models: list[str], blank: int) -> list[str]:
    """What a wide file's reading says: its question column and model columns, and the cells left empty."""
    notes = [f"wide form: question column '{question}', one column per model ({', '.join(map(repr, models))})"]
    return notes + ([f"{blank} empty cell(s) read as 'model did not answer this question'"] if blank else [])


def wide_cells(table: pa.Table, roles: dict[str, Any], header: list[str], where: Callable[[int], str],
                label: str, notes: list[str]) -> tuple[np.ndarray, np.ndarray, pd.Index, np.ndarray, bool]:
    """Melt the model columns: (file row, model code, model labels, score, words read) of every filled cell."""
    import pandas as pd  # heavy: a wide file on the Arrow path only

    mcols, qname = roles["models"], header[roles["question"]]
    grid = np.empty((table.num_rows, len(mcols)))  # (rows, models); NaN = not answered
    worded = False
    for j, k in enumerate(mcols):  # a loop over model columns, not rows
        hint = (f" (read as wide form: every column other than '{qname}' is a model; if '{header[k]}' is not a "
                f"model (a prompt, a reference answer), leave it out with ignore_cols=({header[k]!r},); if the file "
                "is long form, name its model column with model_col=)")
        grid[:, j], w = score_values(table.column(k), header[k], where, missing_ok=True, hint=hint)
        worded |= w
        if np.isnan(grid[:, j]).all():
            raise EvalStatsError(f"column '{header[k]}' of {label} has no scores; fill it in or delete the column "
                                 "(in wide form every column other than the question column is a model)")
    has = ~np.isnan(grid)
    rows, m_idx = np.nonzero(has)  # row-major: file row, then model column
    notes += wide_notes(qname, [header[k] for k in mcols], int(has.size - rows.size))
    labels = pd.Index([header[k] for k in mcols], dtype="str")
    return rows, m_idx.astype(np.int64), labels, grid[rows, m_idx], worded


def distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` (sorted distinct values) without the import of ``numpy.ma`` that numpy 2.4's
    ``unique`` makes (~35 ms, more than a small file's whole analysis: issue 25).

    >>> distinct(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    out = np.sort(np.asarray(values).ravel())
    return out[np.concatenate(([True], out[1:] != out[:-1]))] if out.size else out


def question_clusters(q_codes: np.ndarray, q_labels: pd.Index, c_codes: np.ndarray, c_labels: pd.Index,
                       where: Callable[[int], str]) -> tuple[tuple[np.ndarray, Any], np.ndarray]:
    """Check that each question lies in one cluster; return the cluster column (codes of each row and the
    labels of the clusters that kept a question: :func:`categorical` makes it a column) and the cluster sizes."""

    of_question = scatter(np.empty(q_labels.size, dtype=np.int64), q_codes, c_codes)  # any one row's cluster ...
    for rows in chunks(q_codes.size):  # ... then every row must agree with it (a chunk at a time: issue 25)
        clash = of_question[q_codes[rows]] != c_codes[rows]
        if clash.any():
            i = rows.start + int(np.flatnonzero(clash)[0])
            j = int(np.flatnonzero((q_codes == q_codes[i]) & (c_codes != c_codes[i]))[0])
            raise EvalStatsError(
                f"question '{q_labels[q_codes[i]]}' is in cluster '{c_labels[c_codes[i]]}' on {where(i)} but in "
                f"cluster '{c_labels[c_codes[j]]}' on {where(j)}; each question must belong to one cluster")
    used = distinct(of_question)  # clusters that kept a question
    remap = np.full(c_labels.size, -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    codes = np.empty(c_codes.size, dtype=code_dtype(used.size))  # the type pandas keeps them in: no copy later
    for rows in chunks(c_codes.size):
        codes[rows] = remap[c_codes[rows]]
    return (codes, c_labels[used]), np.bincount(remap[of_question])


def code_dtype(n: int) -> np.dtype:
    """The integer type pandas keeps the codes of ``n`` categories in (so that they are not copied again)."""
    return next(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64) if n < np.iinfo(t).max)

