"""The reader protocol and its one validator (private): what every reader returns, the column rules every reader
follows, and the rules a reading must pass to become a :class:`Dataset`.

Every reader — the CSV/Parquet reader (:mod:`evalstats_core._read`), a DataFrame, each harness importer
(:mod:`evalstats_core.importers`) and the analysis bundle — returns one frozen :class:`Records`: one row per
answer (question, model, score, the resample it belongs to, its cluster), the columns the reading did not use by
name, and notes. :func:`validate` turns Records into a ``Dataset``'s fields; :func:`concat` joins the Records of
several files (no second parse, no round trip through a file). One module, because each part exists only for the
others: the readers find the columns' roles and read their cells by the same rules the validator checks.

==============================  ==================================================================================
:class:`Records`                the reader protocol; :func:`from_columns` builds it, :func:`concat` joins readings
:func:`find_roles`              which column is the question, model, score, cluster (explicit names, else
                                case-insensitive synonyms), long or wide form; :func:`label_codes` and
                                :func:`score_values` read one column's cells (naming the row of the first bad
                                cell); :func:`wide_cells` melts a wide file; :func:`unread_clusters` decides
                                whether a cluster column nobody chose is read (one rule for every reader)
:func:`cell_counts` ...         per-(question, model) cells of a long table, a chunk of rows at a time (issue 25:
                                the temporaries stay a few MB whatever the file's size)
:func:`runs_in_ids` ...         the rules a reading must pass: question ids that look like runs or scores, a wide
                                file's budget, rows repeated for one (question, model[, resample]), one scale for
                                every model
:func:`validate`                the one validator: every reading — a CSV or Parquet file, a DataFrame, a harness
                                log, several files joined — passes the same rules, one identity per question id
                                (logs of different tasks are never paired), at least two questions and two
                                answered per model, one cluster per question, the unused columns kept by name
:class:`Dataset`                the validated results file in tidy form; public as
                                :class:`evalstats_core.data.Dataset`
==============================  ==================================================================================

Imports neither pandas nor pyarrow at module level: the small-CSV reader's path needs neither.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import RUNS_IN_IDS, UNREAD_CLUSTERS, EvalStatsError, Note
from .escape import elide
from .flags import reading_flags
from .limits import Limits, estimate

if TYPE_CHECKING:  # pandas and pyarrow are imported where they are used: the small-CSV path needs neither
    import pandas as pd
    import pyarrow as pa

__all__ = ["Records", "from_columns", "concat", "CLUSTERED_ON", "FOUND_CLUSTERS", "categorical", "check_name",
           "code_dtype", "distinct", "find_roles", "hidden_character", "label_codes", "question_clusters",
           "role_notes", "score_values", "tidy_frame", "unread_clusters", "wide_cells", "wide_notes", "chunks",
           "cell_counts", "cell_sums", "scatter", "per_model_max", "per_model_any", "question_col_looks_like_scores",
           "scores_in_question_col", "runs_in_ids", "runs_warning", "check_wide_budget", "repeated", "scales",
           "factorize", "resamples_note", "validate", "same_questions", "Dataset", "look_alike", "spaces_note",
           "SPACES_NOTES"]


# ------------------------------------------------------------ the reader protocol: Records, built and joined
@dataclass(frozen=True, slots=True)
class Records:
    """One reading of one file (or several joined): one row per answer.

    Attributes
    ----------
    name, file_type : the file's name for messages, and what was read (``csv``, ``parquet``, ``lm_eval`` ...).
    q_codes, q_labels : question of each row, as codes into the labels (text: a pandas Index, or a numpy
        object array of str from the small-CSV reader, :func:`evalstats_core._read.read_small`).
    m_codes, m_labels : model of each row, likewise.
    score : float64 per row (finite; NaN never).
    resample : the run/epoch of each row (int64), or None when the reading has no run numbers.
    c_codes, c_labels, cluster_name : cluster of each row and the name it goes by (a column, a metadata key).
    identity : per row, what the question *is* beyond its id (task and dataset of an Inspect log, a
        promptfoo test's description and vars), or None; one id with two identities is refused in a join.
    unused : columns the reading did not use, by name, one text value per row.
    notes : what was chosen or inferred, in plain words.
    where : names the place of row ``i`` (``"row 7 of f.csv"``) for messages.
    layout : ``format``, ``question_col``, ``model_col``, ``score_col``, ``model_cols``, ``resample_col``.
    worded : scores were written as words (true/false) and read as 1/0.
    source_of : per row, the index of the file it came from (joins), or None.
    sources : the file names of a join.
    """

    name: str
    file_type: str
    q_codes: np.ndarray
    q_labels: pd.Index
    m_codes: np.ndarray
    m_labels: pd.Index
    score: np.ndarray
    where: Callable[[int], str]
    resample: np.ndarray | None = None
    c_codes: np.ndarray | None = None
    c_labels: pd.Index | None = None
    cluster_name: str | None = None
    identity: np.ndarray | None = None
    unused: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    layout: dict[str, Any] = field(default_factory=dict)
    worded: bool = False
    source_of: np.ndarray | None = None
    sources: tuple[str, ...] = ()


def _codes(values: Any) -> tuple[np.ndarray, pd.Index]:
    import pandas as pd  # heavy: the harness importers' path, never the small-CSV reader's

    codes, labels = pd.factorize(np.asarray(values, dtype=object))
    return codes.astype(np.int64), pd.Index(labels, dtype="str")


def from_columns(name: str, file_type: str, question: Sequence, model: Sequence, score: Sequence, *,
                 resample: Sequence | None = None, cluster: Sequence | None = None, cluster_name: str | None = None,
                 identity: Sequence | None = None, unused: dict[str, Sequence] | None = None,
                 notes: Sequence[str] = (), what: str = "sample") -> Records:
    """Records from per-row lists (an importer's output): ``what`` names a row in messages (``sample 3 of f``)."""
    q_codes, q_labels = _codes([str(q) for q in question])
    m_codes, m_labels = _codes([str(m) for m in model])
    c = None if cluster is None else _codes([str(x) for x in cluster])
    return Records(
        name=name, file_type=file_type, q_codes=q_codes, q_labels=q_labels, m_codes=m_codes, m_labels=m_labels,
        score=np.asarray(score, dtype=np.float64), where=lambda i: f"{what} {int(i) + 1} of {name}",
        resample=None if resample is None else np.asarray(resample, dtype=np.int64),
        c_codes=None if c is None else c[0], c_labels=None if c is None else c[1], cluster_name=cluster_name,
        identity=None if identity is None else np.asarray(identity, dtype=object),
        unused={k: np.asarray(v, dtype=object) for k, v in (unused or {}).items()}, notes=tuple(notes),
        layout={"format": file_type, "question_col": "question", "model_col": "model", "score_col": "score",
                "model_cols": ()})


def _labels(parts: list[Records], attr: str) -> tuple[np.ndarray, pd.Index]:
    """Codes and labels of ``attr`` (``q``, ``m`` or ``c``) over all parts, in order of first appearance."""
    values = np.concatenate([np.asarray(getattr(p, f"{attr}_labels"), dtype=object)[getattr(p, f"{attr}_codes")]
                             for p in parts])
    return _codes(values)


def _check_clashes(parts: list[Records]) -> None:
    """A (model, question) answered in two files is a file given twice or a clash: name both files."""
    import pandas as pd  # heavy: only when two files are joined

    cells = pd.concat([pd.DataFrame({"q": np.asarray(p.q_labels, dtype=object)[p.q_codes],
                                     "m": np.asarray(p.m_labels, dtype=object)[p.m_codes], "f": k}).drop_duplicates()
                       for k, p in enumerate(parts)], ignore_index=True)
    twice = cells.duplicated(["q", "m"], keep=False)
    if twice.any():  # vectorised: a join of large files is checked without a loop over its cells
        rows = cells[twice].sort_values("f", kind="stable")
        first = rows.iloc[0]
        other = rows[(rows["q"] == first["q"]) & (rows["m"] == first["m"])].iloc[1]
        raise EvalStatsError(f"model {first['m']!r} answers question {first['q']!r} in both {parts[first['f']].name} "
                             f"and {parts[other['f']].name}; give each (model, question) in one file only (e.g. one "
                             "file per model, or per task)")


def concat(parts: list[Records], label: str) -> Records:
    """Join the Records of several files on the question (no file is parsed again)."""
    _check_clashes(parts)
    notes = [n for p in parts for n in p.notes]
    q_codes, q_labels = _labels(parts, "q")
    m_codes, m_labels = _labels(parts, "m")
    clustered = [p.c_codes is not None for p in parts]
    c_codes = c_labels = cluster_name = None
    if all(clustered):
        c_codes, c_labels = _labels(parts, "c")
        named = {p.cluster_name for p in parts}
        cluster_name = next(iter(named)) if len(named) == 1 else "cluster"
    elif any(clustered):
        notes.append("only some files name a cluster for each question, so the analysis is not clustered")
    n = [p.score.size for p in parts]
    resample = (np.concatenate([p.resample if p.resample is not None else np.zeros(k, np.int64)
                                for p, k in zip(parts, n, strict=True)])
                if any(p.resample is not None for p in parts) else None)
    identity = (np.concatenate([p.identity if p.identity is not None else np.full(k, None, dtype=object)
                                for p, k in zip(parts, n, strict=True)])
                if any(p.identity is not None for p in parts) else None)
    names = [k for p in parts for k in p.unused]
    unused = {k: np.concatenate([p.unused.get(k, np.full(s, None, dtype=object)) for p, s in
                                 zip(parts, n, strict=True)]) for k in dict.fromkeys(names)}
    starts = np.cumsum([0, *n])
    source_of = np.repeat(np.arange(len(parts)), n)

    def where(i: int) -> str:
        k = int(source_of[i])
        return parts[k].where(int(i) - int(starts[k]))

    kinds = {p.file_type for p in parts}
    first = parts[0]
    layout = dict(first.layout) if len(kinds) == 1 else {**first.layout, "format": "joined"}
    return replace(first, name=label, file_type=kinds.pop() if len(kinds) == 1 else "joined", q_codes=q_codes,
                   q_labels=q_labels, m_codes=m_codes, m_labels=m_labels, score=np.concatenate([p.score for p in parts]),
                   where=where, resample=resample, c_codes=c_codes, c_labels=c_labels, cluster_name=cluster_name,
                   identity=identity, unused=unused, notes=tuple(notes), layout=layout,
                   worded=any(p.worded for p in parts), source_of=source_of, sources=tuple(p.name for p in parts))


# ------------------------------------------------------------ columns: which column plays which role, and each column's cells read
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
#: the one the analysis sets beside the unclustered one (``analysis.FEW_CLUSTERS``). A column the user chose
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


def _not_found(role: str, header: list[str], owner: dict[int, str], label: str) -> str:
    """Why no column was found for ``role``: none has one of its names, or the one that has is already given
    another role (issue 46: ``question_col='score'`` said "could not find the score column ...; name it 'score'")."""
    normed = [_norm(h) for h in header]
    held = next((i for synonym in _SYNONYMS[role] for i, h in enumerate(normed) if h == synonym and i in owner), None)
    if held is not None:
        return (f"no {role} column is left in {label}: column '{header[held]}' would be it, but it is given as "
                f"{owner[held]}; choose the {role} column with {role}_col=, or give that role another column")
    return (f"could not find the {role} column in {label} (columns: {', '.join(repr(h) for h in header)}); "
            f"name it '{role}' or choose it with {role}_col=")


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
    owner = dict.fromkeys(taken, "a column to ignore")
    roles: dict[str, Any] = {}
    for role in ("question", "cluster", "model", "score"):
        if role in ("model", "score") and fmt == "wide":
            if given[role] is not None:
                raise EvalStatsError(f"{role}_col does not apply to a wide file (one column per model)")
            continue
        idx = _find(header, given[role], role, label, taken)
        if idx is not None:
            taken.add(idx)
            owner[idx] = f"the {role} column"
        roles[role] = idx
    if roles["question"] is None:
        raise EvalStatsError(_not_found("question", header, owner, label))
    long_form = fmt == "long" or (fmt is None and roles.get("model") is not None)
    if long_form:
        for role in ("model", "score"):
            if roles.get(role) is None:
                raise EvalStatsError(_not_found(role, header, owner, label))
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


def unread_clusters(name: str, n_clusters: int, chosen: bool) -> Note | None:
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
    return Note(f"cluster column '{name}' found by its name but not used: {n_clusters} cluster"
                f"{'' if n_clusters == 1 else 's'} {'is' if n_clusters == 1 else 'are'} too few for a clustered "
                f"standard error (fewer than {FOUND_CLUSTERS} leave it at most 3 degrees of freedom), so questions are "
                f"treated as independent; to cluster on it anyway choose cluster_col='{name}'", UNREAD_CLUSTERS)


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


def spaces_note(what: str, header: str, low: str, high: str, label: str) -> str:
    """The note for a label that two spellings (``low`` and ``high``, the smallest and largest as text) became by
    trimming, one sentence for the in-memory reader and the SQL engines alike (issue 46)."""
    return (f"the {what}s {elide(low)!r} and {elide(high)!r} in column '{header}' differ only in spaces around them "
            f"and were read as one, '{elide(label)}'; if they are different, rename one in the file")


#: At most this many labels merged by trimming are named (a file with spaces around every name has none).
SPACES_NOTES = 3


def _spellings(index: np.ndarray, raw: Any, trimmed: Any, what: str, header: str) -> list[str]:
    """:func:`spaces_note` for each trimmed label (at most :data:`SPACES_NOTES`) that two or more spellings of ``raw``
    became (``index``: each raw label's trimmed label)."""
    out = []
    for k in np.flatnonzero(np.bincount(index.astype(np.int64)) > 1)[:SPACES_NOTES]:
        forms = sorted(raw[int(i)].as_py() for i in np.flatnonzero(index == k))
        out.append(spaces_note(what, header, forms[0], forms[-1], trimmed[int(k)].as_py()))
    return out


def label_codes(col: pa.ChunkedArray, what: str, header: str, where: Callable[[int], str], *,
                strict: bool = False, merged: list | None = None) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (order of first appearance) and labels of a text id column.

    One rule for missing labels: null, empty, or one of the missing-value words of the score column
    (``NA``, ``N/A``, ``NaN``, ``null``, ``None``, any case) is an error naming the row, never a label
    of its own (a null Parquet label must not be merged with another). Labels with bidirectional controls,
    zero-width or control characters are errors too (``strict=False`` lets a question id hold a tab or a
    line break). Labels are trimmed (``" a"`` and ``"a"`` are one label): ``merged``, when given, receives a sentence
    for each label that two or more spellings became (issue 46: 'A' and 'A ' were merged without a word).
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
        if merged is not None:
            merged += _spellings(again.indices.to_numpy(zero_copy_only=False), dictionary, again.dictionary, what,
                                 header)
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
            raise EvalStatsError(f"{where(i)} has score {elide(repr(text.iloc[i]))} in column '{header}'; "
                                 f"{_SCORE_FIX}{hint}")  # elided: a 3 MB cell is not a 3 MB message (issue 46)
    inf = np.isinf(values)
    if inf.any():
        i = int(np.flatnonzero(inf)[0])
        shown = float(values[i]) if isinstance(col, Scores) else col[i].as_py()
        raise EvalStatsError(f"{where(i)} has score '{elide(shown)}' in column '{header}'; scores must be "
                             "finite numbers: fix or delete that row")
    if not missing_ok:
        nan = np.isnan(values)
        if nan.any():
            i = int(np.flatnonzero(nan)[0])
            shown = "empty or NaN" if text is None or not str(text.iloc[i]).strip() else elide(repr(text.iloc[i]))
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


# ------------------------------------------------------------ per-(question, model) cells, a chunk of rows at a time (issue 25)
_CHUNK = 1 << 18  # rows per chunk: 2 MB of int64 cell indices


def chunks(n: int) -> Iterator[slice]:
    """Slices of ``range(n)``, a chunk of rows each."""
    for start in range(0, n, _CHUNK):
        yield slice(start, min(start + _CHUNK, n))


def _cells(q: np.ndarray, m: np.ndarray, n_m: int, rows: slice) -> np.ndarray:
    cell = np.multiply(q[rows], n_m, dtype=np.int64)
    cell += m[rows]
    return cell


def cell_counts(q: np.ndarray, m: np.ndarray, n_q: int, n_m: int) -> np.ndarray:
    """(n_q, n_m) int64: the rows of each (question, model) cell."""
    k = np.zeros(n_q * n_m, dtype=np.int64)
    for rows in chunks(q.size):
        np.add.at(k, _cells(q, m, n_m, rows), 1)
    return k.reshape(n_q, n_m)


def cell_sums(q: np.ndarray, m: np.ndarray, values: np.ndarray, n_q: int, n_m: int) -> tuple[np.ndarray, np.ndarray]:
    """(n_q, n_m) counts (int64) and sums (float64) of ``values`` per (question, model) cell."""
    k = np.zeros(n_q * n_m, dtype=np.int64)
    total = np.zeros(n_q * n_m)
    for rows in chunks(q.size):
        cell = _cells(q, m, n_m, rows)
        np.add.at(k, cell, 1)
        np.add.at(total, cell, values[rows])
    return k.reshape(n_q, n_m), total.reshape(n_q, n_m)


def scatter(out: np.ndarray, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``out[index] = values`` (the last row wins), without an int64 copy of a narrower ``index``."""
    for rows in chunks(index.size):
        out[index[rows].astype(np.intp, copy=False)] = values[rows]
    return out


def per_model_max(m: np.ndarray, values: np.ndarray, n_m: int) -> np.ndarray:
    """(n_m,) the largest ``|values|`` of each model's rows (0 for a model without rows)."""
    top = np.zeros(n_m)
    for rows in chunks(m.size):
        np.maximum.at(top, m[rows], np.abs(values[rows]))
    return top


def per_model_any(m: np.ndarray, mask: np.ndarray, n_m: int) -> np.ndarray:
    """(n_m,) bool: whether ``mask`` holds on any row of each model."""
    hit = np.zeros(n_m, dtype=bool)
    for rows in chunks(m.size):
        hit |= np.bincount(m[rows][mask[rows]], minlength=n_m) > 0
    return hit


# ------------------------------------------------------------ the rules a reading must pass
def resamples_note(fewest: int, most: int) -> str:
    """The note for several answers per (question, model): ``fewest``-``most`` of them, averaged."""
    return (f"{int(fewest)}-{int(most)} answers per question and model (resamples); they are averaged into one "
            "score per question, never pooled")

#: Up to this many values are coded by numpy's sort (no pandas import); larger arrays by pandas' hash table.
_SMALL = 1 << 20


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` of a numeric array without NaN: int64 codes in order of first appearance and the
    distinct values; by numpy's sort for a small array (the small-CSV path imports no pandas), else by pandas.

    >>> factorize(np.array([7, 3, 7, 5]))
    (array([0, 1, 0, 2]), array([7, 3, 5]))
    """
    values = np.asarray(values)
    if values.size > _SMALL:
        import pandas as pd  # heavy: a large column only

        codes, uniques = pd.factorize(values)
        return codes.astype(np.int64), np.asarray(uniques)
    uniques, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # distinct values in order of first appearance
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[inverse.reshape(-1)], uniques[order]


def _arrow_text(labels: Any) -> Any:
    """The labels as an Arrow string array (zero-copy from an Arrow-backed ``str`` Index), or None (also for the
    small-CSV reader's numpy labels, checked in Python without importing pyarrow)."""
    if isinstance(labels, np.ndarray):
        return None
    import pyarrow as pa  # heavy: an Arrow column only

    try:
        arr = pa.array(labels)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return None
    return arr if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type) else None


def _as_numbers(q_labels: Any) -> np.ndarray:
    """Every label read as a number as ``pd.to_numeric(errors="coerce")`` reads it (NaN when it is not one);
    by Arrow's cast when every label parses there, by pandas otherwise."""
    import pandas as pd  # heavy: the Arrow/pandas path only, never the small-CSV reader's
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = _arrow_text(q_labels)
    if arr is not None:
        try:
            return pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    return pd.to_numeric(pd.Series([str(x) for x in q_labels]), errors="coerce").to_numpy(dtype=np.float64)


def question_col_looks_like_scores(q_labels: Any, col: str, label: str, has_runs: bool) -> None:
    """Question ids that read as scores (fractions between 0 and 1) are questioned, not used.

    One id that is not a number settles it, so the first 64 are read first: ids such as ``q17`` never
    cost a pass over all of them (issue 25: this check was a quarter of a 1e7-row upload).
    """
    if has_runs:
        return
    if isinstance(q_labels, np.ndarray) and not _fractions(q_labels):
        return  # the small-CSV reader's labels: decided in Python; pandas only confirms (and words) a refusal
    import pandas as pd  # heavy: pandas only confirms

    head = pd.to_numeric(pd.Series([str(x) for x in q_labels[:64]]), errors="coerce")
    if head.isna().any():
        return
    values = _as_numbers(q_labels)
    if np.isnan(values).any():
        return
    fractions = bool(((values >= 0) & (values <= 1)).all() and (values != np.round(values)).any())
    if fractions:
        raise EvalStatsError(scores_in_question_col(list(q_labels[:4]), values.size, col, label))


def scores_in_question_col(first: list, n: int, col: str, label: str) -> str:
    """The refusal of a question column whose ``n`` distinct ids (the ``first`` four shown) look like scores;
    the in-memory check's words and the SQL engine's (one vocabulary)."""
    shown = ", ".join(str(x) for x in first)
    return (f"the question column '{col}' of {label} holds numbers that look like scores ({shown}"
            f"{', ...' if n > 4 else ''}: {n} distinct); choose the column that names the "
            "questions (question_col=), and leave other columns out (ignore_cols=)")


def runs_warning(example: tuple[str, str, int]) -> str:
    """The warning for question ids that look like runs: ``(id, base, count)`` as :func:`runs_in_ids` gives it."""
    return Note(f"{example[2]:,} question ids look like runs of another question (e.g. '{example[0]}' of "
                f"'{example[1]}'); they are counted as separate questions, which makes the standard errors "
                "too small if they are repeated runs: read them as runs with runs_in_ids=True", RUNS_IN_IDS)


def _fractions(labels: np.ndarray) -> bool:
    """Whether every label reads as a number (as Python reads it; a label with a character no number holds
    settles it) and they look like scores: all between 0 and 1, some not whole."""
    values = []
    for x in labels:
        text = str(x)
        if _NOT_NUMERIC.search(text):
            return False
        try:
            values.append(float(text))
        except ValueError:
            return False
    return all(0.0 <= v <= 1.0 for v in values) and any(v != round(v) for v in values)


_NOT_NUMERIC = re.compile(r"[^0-9eE.+\-\s]")  # a character that no number pandas reads holds (nor 'inf', 'nan')
#: ``<base>.<ASCII digits>``, the base any text (line breaks too): exactly what the SQL engine's pattern matches
#: (:func:`evalstats_core.engine_sql.runs_sql`; Python's ``\d`` would also take other scripts' digits)
_RUN_ID = re.compile(r"^(.+)\.([0-9]+)$", re.DOTALL)


def runs_in_ids(q_labels: Any) -> tuple[list[str], tuple[str, str, int]] | None:
    """Question ids that look like runs of another question (``1.1``, ``1.2`` of ``1``), or None.

    An id ``<base>.<digits>`` counts when ``<base>`` is itself an id, or at least two ids share that base;
    the pattern must cover at least a fifth of the ids, with at most 20 runs per question on average (so
    ``gsm8k.0`` .. ``gsm8k.999`` stay questions). Returns every id with its run suffix stripped (the
    others unchanged) and an example ``(id, base, count)`` for the message.
    """
    if len(q_labels) < 4:
        return None
    # every run id holds a '.': with fewer such ids than the pattern must cover, there are no runs (exact,
    # and one vectorised pass instead of a regex per id)
    arr = _arrow_text(q_labels)
    if arr is not None:
        import pyarrow.compute as pc  # heavy: an Arrow column only

        dotted = int(pc.sum(pc.match_substring(arr, ".")).as_py() or 0)
    else:
        dotted = sum("." in str(x) for x in q_labels)
    if dotted < max(2, len(q_labels) // 5):
        return None
    labels = [str(x) for x in q_labels]
    found = [_RUN_ID.match(x) for x in labels]
    bases = [m.group(1) if m else None for m in found]
    known = set(labels)
    per_base: dict[str, int] = {}
    for b in bases:
        if b is not None:
            per_base[b] = per_base.get(b, 0) + 1
    is_run = [b is not None and (b in known or per_base[b] >= 2) for b in bases]
    n = sum(is_run)
    n_bases = len({b for b, r in zip(bases, is_run, strict=True) if r})
    if n < max(2, len(labels) // 5) or n > 20 * n_bases:  # 'task.0'..'task.999' are ids, not runs of 'task'
        return None
    first = is_run.index(True)
    stripped = [b if r else x for x, b, r in zip(labels, bases, is_run, strict=True)]
    return stripped, (labels[first], bases[first], n)


def check_wide_budget(header: list[str], roles: dict, n_rows: int, label: str, limits: Limits) -> None:
    """A wide file's model count and score count, from the header and the row count, before the body is read."""
    n_models = len(roles["models"])
    if n_models > limits.max_models:
        raise EvalStatsError(
            f"{label} has {n_models:,} columns that would be models in wide form, more than the limit of "
            f"{limits.max_models:,}; is the file transposed (one row per model and one column per question)? "
            "Then transpose it (one row per question, one column per model) or write it in long form (question, "
            f"model, score); if it really holds that many models, {Limits.how_to_raise('max_models')}")
    if n_rows * n_models > limits.max_rows:
        cells = n_rows * n_models
        raise EvalStatsError(
            f"{label} has {n_rows:,} rows x {n_models:,} model columns = up to {cells:,} scores, more than the "
            f"limit of {limits.max_rows:,} ({estimate(cells)} of memory to analyze); analyze fewer models or "
            f"questions at a time, or {Limits.how_to_raise('max_rows')}")
    for i in roles["models"]:
        check_name(header[i], "model name", f"the header (column {i + 1}) of {label}")


def _distinct(a: float, b: float) -> tuple[str, str]:
    """Two scores with as many significant digits (6 to 17) as it takes to show that they differ.

    >>> _distinct(0.5, 0.5000001), _distinct(1.0, 1.0)
    (('0.5', '0.5000001'), ('1', '1'))
    """
    for digits in range(6, 18):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y or a == b:
            return x, y
    return repr(a), repr(b)


def repeated(q_codes: np.ndarray, m_codes: np.ndarray, score: np.ndarray, q_labels: pd.Index, m_labels: pd.Index,
             row_where, duplicates: str, label: str, warnings: list[str], notes: list[str],
             resample: np.ndarray | None = None, resample_name: str = "epoch") -> None:
    """Name (question, model) pairs given on several rows (with ``resample``: several rows of one (question,
    model, resample), i.e. a run given twice): a warning when their scores differ, or an error."""
    n_m = m_labels.size
    cell = np.multiply(q_codes, n_m, dtype=np.int64) + m_codes  # flat (question, model) index (codes may be int32)
    what = "(question, model) pairs"
    if resample is not None:
        r_codes, r_labels = factorize(resample)
        cell = cell * max(len(r_labels), 1) + r_codes
        what = f"(question, model, {resample_name}) triples"
    cell = factorize(cell)[0]  # dense: a huge flat index would make bincount allocate for nothing
    k = np.bincount(cell)
    multi = k > 1
    if not multi.any():
        return
    s1 = np.bincount(cell, weights=score, minlength=k.size)
    s2 = np.bincount(cell, weights=score * score, minlength=k.size)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        spread = np.where(multi, s2 / np.maximum(k, 1) - (s1 / np.maximum(k, 1)) ** 2, 0.0)  # variance per cell
    scale = max(1.0, float(np.max(np.abs(score)))) ** 2
    differ = spread > 1e-9 * scale
    n_differ, n_multi = int(differ.sum()), int(multi.sum())
    first = int(np.flatnonzero(differ)[0]) if n_differ else int(np.flatnonzero(multi)[0])
    rows = np.flatnonzero(cell == first)
    other = np.flatnonzero(score[rows] != score[rows[0]])  # show two rows that differ, when some do
    rows = rows[[0, int(other[0]) if n_differ and other.size else 1]]
    shown = _distinct(float(score[rows[0]]), float(score[rows[1]]))
    example = (f"question '{q_labels[q_codes[rows[0]]]}' and model '{m_labels[m_codes[rows[0]]]}' on "
               f"{row_where(rows[0])} ({shown[0]}) and {row_where(rows[1])} ({shown[1]})")
    if duplicates == "error":
        said = "with different scores" if n_differ else "with the same score"
        raise EvalStatsError(
            f"{n_multi:,} {what} appear on more than one row of {label} ({n_differ:,} {said}), e.g. "
            f"{example}; remove the duplicated rows, or read them as resamples (duplicates='resamples')")
    if resample is not None:
        notes.append(f"{n_multi:,} {what} appear on more than one row of {label} (a run given twice?): read as "
                     "resamples and averaged; choose duplicates='error' to stop on them")
    if n_differ:
        warnings.append(
            f"{n_differ:,} {what} appear on several rows with different scores, e.g. {example}: "
            "they are read as resamples and averaged; if they are duplicated rows rather than repeated answers, "
            "the file is wrong: fix it, or choose duplicates='error' to stop on them")


_SCALES = ((1.0, "0 to 1"), (10.0, "up to 10"), (100.0, "up to 100"))
#: The note of a file whose every score is 0 or 100, read as 0/1 (its labels may be 0/100 too: human_labels).
HUNDRED_NOTE = "every score is 0 or 100: read as binary 0/1 (100 = right), shown in percent"


#: The most orders of magnitude between two models' largest scores that one scale holds: the statistics put every
#: score on one scale (divided by a power of two, exact) and sum squares and cubes of its deviations, which fall
#: below the smallest float for a model 10^100 times smaller than another (issue 46: a model of scores near 1e-200
#: beside a 0/1 model, or a 0/1 model beside one near 1e200, was given a standard error of 0 and no interval).
SCALE_SPAN = 100


def _one_float_scale(top: np.ndarray, m_labels: pd.Index, label: str) -> None:
    """Refuse models whose largest scores are more than 10^:data:`SCALE_SPAN` apart (whatever ``mixed_scales``)."""
    j = np.flatnonzero(top > 0.0)
    if j.size < 2:
        return
    exponents = np.log10(top[j])
    hi, lo = j[int(np.argmax(exponents))], j[int(np.argmin(exponents))]
    if exponents.max() - exponents.min() > SCALE_SPAN:
        raise EvalStatsError(
            f"the models of {label} differ in size by more than 10^{SCALE_SPAN}: '{elide(m_labels[hi])}' scores up "
            f"to {top[hi]:.3g}, '{elide(m_labels[lo])}' only up to {top[lo]:.3g}; on one scale the smaller model's "
            "spread falls below what a floating-point number holds (its standard error would read 0): rescale the "
            "scores so that every model is on one scale, or analyze those models apart")


def look_alike(names: Any, label: str) -> None:
    """Refuse two model names that print the same: one text in two Unicode normalizations ('é' as one character,
    or 'e' and a combining accent), which a report would show as one model compared with itself (issue 46)."""
    seen: dict[str, str] = {}
    for name in names:
        key = unicodedata.normalize("NFC", str(name))
        if seen.setdefault(key, str(name)) != str(name):
            a, b = (elide(n).encode("unicode_escape").decode("ascii") for n in (seen[key], str(name)))
            raise EvalStatsError(f"{label} has two model names that look the same, '{elide(key)}' written two ways "
                                 f"('{a}' and '{b}': an accented letter as one character or as a letter and a "
                                 "combining accent); write the name one way throughout, or rename one model")


def scales(score: np.ndarray, m_codes: np.ndarray, m_labels: pd.Index, label: str, mixed: str, notes: list[str],
            warnings: list[str], *, wide: bool) -> tuple[np.ndarray, bool]:
    """Each model's scale; mixed scales are an error naming the models; binary 0/100 is read as 0/1.

    Returns the scores (0/100 divided by 100 when every model is binary on 0/100) and whether they are binary.
    """

    n_m = m_labels.size
    zero = score == 0.0  # per-model flags and maxima from bool masks, a chunk of rows at a time: no float
    off01 = per_model_any(m_codes, ~zero & (score != 1.0), n_m)  # weights or group-by copies (issue 25)
    off0100 = per_model_any(m_codes, ~zero & (score != 100.0), n_m)
    del zero
    top = per_model_max(m_codes, score, n_m)  # each model's largest |score| (0 for a model with no rows)
    magnitude = np.full(n_m, np.inf)  # smallest of 1, 10, 100 that bounds the model's |scores|; inf: larger
    for bound, _ in reversed(_SCALES):
        magnitude[top <= bound] = bound
    magnitude[~off0100 & off01] = 100.0  # binary 0/100
    magnitude[top == 0.0] = np.nan  # every score 0: fits any scale
    _one_float_scale(top, m_labels, label)
    kinds = distinct(magnitude[~np.isnan(magnitude)])
    if kinds.size > 1:
        def said(bound: float) -> str:
            names = [f"'{m_labels[j]}'" for j in np.flatnonzero(magnitude == bound)]
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            words = dict(_SCALES).get(bound, "above 100")
            return f"{shown} ({words})"
        groups = "; ".join(said(b) for b in kinds)
        fix = (" If a column is not a model (a token count, a latency), leave it out with ignore_cols=."
               if wide else "")
        message = (f"the models of {label} score on different scales: {groups}; a difference between them would "
                   "mix units (put every model on one scale, e.g. divide 0-100 scores by 100).{fix} If the scales "
                   "really are the same, choose mixed_scales='allow'").replace("{fix}", fix)
        if mixed == "error":
            raise EvalStatsError(message)
        warnings.append(message.split("; a difference")[0] + ": read as one scale because mixed scales were allowed")
    if not off01.any():
        return score, True
    if not off0100.any():
        notes.append(HUNDRED_NOTE)
        return score / 100.0, True
    return score, False


# ------------------------------------------------------------ the one validator: Records to a Dataset's fields
def _table_options(o: dict) -> list[tuple[str, Any]]:
    """The reading choices that differ from the defaults, in the order the command line writes them."""
    out: list[tuple[str, Any]] = []
    if o.get("duplicates", "resamples") != "resamples":
        out.append(("duplicates", o["duplicates"]))
    if o.get("mixed_scales", "error") != "error":
        out.append(("mixed_scales", o["mixed_scales"]))
    ignored = tuple(c for c in o.get("ignore_cols") or () if c != o.get("resample_col"))
    out += [("ignore_cols", ignored)] if ignored else []
    out += [("resample_col", o["resample_col"])] if o.get("resample_col") is not None else []
    out += [("runs_in_ids", True)] if o.get("runs_in_ids") else []
    return out


def _harness_options(o: dict) -> list[tuple[str, Any]]:
    keys = ("metric", "cluster_col", "harness_filter", "model_name")
    return [(k, o[k]) for k in keys if o.get(k)]


def validate(records: Records, options: dict[str, Any]) -> dict[str, Any]:
    """Records to the fields of a ``Dataset``: runs in ids, repeats, one scale, clusters, identities."""
    o, label, notes, warnings = options, records.name, list(records.notes), []
    q_codes, q_labels, m_codes, m_labels = records.q_codes, records.q_labels, records.m_codes, records.m_labels
    runs = runs_in_ids(q_labels)
    question_col_looks_like_scores(q_labels, records.layout.get("question_col") or "question", label, runs is not None)
    if runs is not None and o.get("runs_in_ids"):
        import pandas as pd  # heavy: run ids in question ids only

        stripped, n_runs = runs
        new_codes, q_labels = pd.factorize(np.asarray(stripped, dtype=object)[q_codes])
        q_codes, q_labels = new_codes.astype(np.int64), pd.Index(q_labels)
        notes.append(f"question ids such as '{n_runs[0]}' were read as runs of their question ('{n_runs[1]}'): "
                     f"{n_runs[2]:,} ids became runs of {q_labels.size:,} questions")
    elif runs is not None:
        warnings.append(runs_warning(runs[1]))
    if records.identity is not None:
        same_questions(q_codes, q_labels, records)
    n_q, n_m = q_labels.size, m_labels.size
    if n_q < 2:
        raise EvalStatsError(f"{label} has only {n_q} question ('{q_labels[0]}'); the statistics need at least two "
                             "questions (and a few hundred for trustworthy intervals)")
    look_alike(m_labels, label)
    counts = cell_counts(q_codes, m_codes, n_q, n_m)  # (n_q, n_m), a chunk of rows at a time (issue 25)
    for j in np.flatnonzero((counts > 0).sum(axis=0) < 2):
        raise EvalStatsError(f"model '{m_labels[j]}' has a score for only one question in {label}; every model "
                             "needs scores on at least two questions (remove the model or add its answers)")
    partial = int(((counts > 0).sum(axis=1) < n_m).sum())
    if partial:
        notes.append(f"{partial} of {n_q} questions were answered by only some models; each comparison uses "
                     "the questions both models answered")
    cells = counts[counts > 0]
    score, binary = _repeats_and_scales(records, q_codes, q_labels, cells, o, notes, warnings)
    # the tidy columns as codes and labels: Dataset.frame makes them a DataFrame when it is first asked for
    m_small = np.asarray(m_codes).astype(code_dtype(m_labels.size), copy=False)  # int8 for < 127 models (issue 25)
    tidy: dict[str, Any] = {"question": (q_codes, q_labels), "model": (m_small, m_labels), "score": score}
    if records.resample is not None:
        tidy["resample"] = records.resample
    clusters = _clusters(records, q_codes, q_labels, tidy, o, notes)
    notes.append("scores are binary (0/1)" if binary else "scores are continuous")
    return _dataset(records, tidy, notes, warnings, binary, cells, clusters, o)


def _repeats_and_scales(records: Records, q_codes: np.ndarray, q_labels: pd.Index, cells: np.ndarray, o: dict,
                        notes: list[str], warnings: list[str]) -> tuple[np.ndarray, bool]:
    table = records.file_type in ("csv", "parquet", "dataframe", "jsonl")
    if records.resample is not None and not table:  # harness epochs: a run given twice is the duplicate
        repeated(q_codes, records.m_codes, records.score, q_labels, records.m_labels, records.where,
                 o.get("duplicates", "resamples"), records.name, warnings, notes, resample=records.resample)
    elif cells.max() > 1 and not o.get("runs_in_ids") and records.resample is None:
        repeated(q_codes, records.m_codes, records.score, q_labels, records.m_labels, records.where,
                 o.get("duplicates", "resamples"), records.name, warnings, notes)
        notes.append(resamples_note(cells.min(), cells.max()))
    return scales(records.score, records.m_codes, records.m_labels, records.name, o.get("mixed_scales", "error"),
                  notes, warnings, wide=records.layout.get("format") == "wide")


def _clusters(records: Records, q_codes: np.ndarray, q_labels: pd.Index, tidy: dict, o: dict,
              notes: list[str]) -> tuple | None:
    """The cluster sizes (and ``tidy["cluster"]``), or None: no cluster column, or one nobody chose with too few
    clusters (:func:`~evalstats_core._records.unread_clusters`; its note replaces the reader's)."""
    if records.c_codes is None:
        return None
    column, sizes = question_clusters(q_codes, q_labels, records.c_codes, records.c_labels, records.where)
    unread = unread_clusters(records.cluster_name or "cluster", int(sizes.size), o.get("cluster_col") is not None)
    if unread is not None:
        notes[:] = [n for n in notes if not n.endswith(CLUSTERED_ON)] + [unread]
        return None
    tidy["cluster"] = column
    return int(sizes.size), int(sizes.min()), int(sizes.max()), float(q_labels.size / sizes.size)


def same_questions(q_codes: np.ndarray, q_labels: pd.Index, records: Records) -> None:
    """One question id, one question: a join of logs that say different things about an id is refused."""
    import pandas as pd  # heavy: joined logs only

    ident = pd.Series(records.identity).fillna("").to_numpy(dtype=object)
    codes, uniques = pd.factorize(ident)
    pairs = pd.DataFrame({"q": q_codes, "i": codes}).drop_duplicates()
    clash = pairs["q"].duplicated(keep=False)
    if not clash.any():
        return
    q = int(pairs.loc[clash, "q"].iloc[0])
    rows = [int(np.flatnonzero((q_codes == q) & (codes == i))[0]) for i in pairs.loc[pairs["q"] == q, "i"][:2]]
    a, b = (records.where(r) for r in rows)
    raise EvalStatsError(
        f"question '{q_labels[q]}' is not the same question in {a} ({uniques[codes[rows[0]]] or 'unnamed'}) and in "
        f"{b} ({uniques[codes[rows[1]]] or 'unnamed'}): these files are not answers to the same questions, so they "
        "cannot be paired; compare logs of one task (and one dataset) with each other")


def _dataset(r: Records, tidy: dict[str, Any], notes: list[str], warnings: list[str], binary: bool,
             cells: np.ndarray, clusters: tuple | None, o: dict) -> dict[str, Any]:
    table = r.file_type in ("csv", "parquet", "dataframe", "jsonl")
    roles = [(k, o[k]) for k in ("format", "question_col", "model_col", "score_col") if o.get(k) is not None]
    joined = roles if r.file_type == "joined" else []  # a single table's roles are written from its layout
    options = joined + _table_options(o) + ([] if table else _harness_options(o))
    unused = {k: v for k, v in r.unused.items() if k}
    n_clusters, size_min, size_max, size_mean = clusters or (None, None, None, None)
    lay = r.layout
    return dict(
        tidy=tidy, name=r.name, format=lay["format"] if table else r.file_type, file_type=r.file_type,
        question_col=lay["question_col"], model_col=lay["model_col"], score_col=lay["score_col"],
        cluster_col=r.cluster_name if clusters else None, model_cols=tuple(lay["model_cols"]),
        models=tuple(str(m) for m in r.m_labels), score_kind="binary" if binary else "continuous",
        n_rows=int(r.score.size), n_questions=int(len(tidy["question"][1])), k_min=int(cells.min()),
        k_max=int(cells.max()), k_typical=int(np.bincount(cells).argmax()), n_clusters=n_clusters,
        cluster_size_min=size_min, cluster_size_max=size_max, cluster_size_mean=size_mean, notes=tuple(notes),
        warnings=tuple(warnings), reading=reading_flags(options), options=tuple(options),
        # the question of each row only beside columns that need it (a judge's human labels): a per-row
        # object array is ~70 B a row of the loaded file's memory (issue 25)
        extra={"__question__": _question_of_rows(tidy["question"]), **unused} if unused else {},
        unused=unused, sources=r.sources or (r.name,))


def _question_of_rows(question: tuple[np.ndarray, Any]) -> np.ndarray:
    """The question id of every row as an object array of str (what ``frame["question"].astype(str)`` gives)."""
    codes, labels = question  # labels are text already (an Index of str, or the small reader's str objects)
    return np.asarray(labels, dtype=object)[codes]


# ------------------------------------------------------------ the validated results file
@dataclass(frozen=True, slots=True)
class Dataset:
    """A validated results file in tidy form.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per answer: ``question`` and ``model`` (categorical, labels as text), ``score`` (float64,
        finite), ``resample`` (int64: the run or epoch, when the reading has them) and ``cluster``
        (categorical) when a cluster column is used. Built from ``tidy`` when first asked for (and kept), so
        that an analysis that never needs it never imports pandas.
    tidy : dict
        The same columns as codes and labels: ``question``, ``model`` (and ``cluster``) as ``(codes of each
        row, labels)``, ``score`` (and ``resample``) as arrays; :func:`question_scores` reads these.
    name : str
        The file name used in messages and reports.
    format : str
        ``"long"`` or ``"wide"``: the layout that was read.
    file_type : str
        ``"csv"`` or ``"parquet"``.
    question_col, model_col, score_col, cluster_col : str or None
        The columns of the file that played each role (``model_col``/``score_col`` are None in wide form).
    model_cols : tuple of str
        Wide form: the columns read as models (empty in long form).
    models : tuple of str
        Model names in order of first appearance.
    score_kind : str
        ``"binary"`` when every score is 0 or 1, else ``"continuous"``.
    n_rows, n_questions : int
        Answers read; distinct questions.
    k_min, k_max, k_typical : int
        Answers per (model, question) that was answered: smallest, largest and most common. K > 1 means
        resamples, which :func:`question_scores` averages.
    n_clusters : int or None
        Distinct clusters (None without a cluster column).
    cluster_size_min, cluster_size_max : int or None
        Questions per cluster, smallest and largest.
    cluster_size_mean : float or None
        Mean questions per cluster.
    reading : tuple of str
        Command-line options that repeat the reading choices (written by :mod:`evalstats_core.flags`).
    extra : dict or None
        The file's other columns from the same parse (at most 20): ``{"__question__": question id of each
        row of ``frame``, column: its text on each row}`` (kept for older callers; see ``unused``).
    options : tuple of (str, object)
        The reading choices that differ from the defaults, as :func:`load` keywords and their values.
    unused : dict of str -> numpy.ndarray
        The columns no role used, by name (at most 20; an Inspect log's ``metadata.<key>``), one text value
        per row of ``frame``; :meth:`column` gets one by name.
    sources : tuple of str
        The names of the files read (several for :func:`load_many`).
    notes : tuple of str
        What was inferred (layout, columns, coding of true/false, partial coverage), in plain words.
    warnings : tuple of str
        What the reader should check (repeated rows with different scores, mixed scales allowed).
    """

    tidy: dict
    name: str
    format: str
    file_type: str
    question_col: str
    model_col: str | None
    score_col: str | None
    cluster_col: str | None
    model_cols: tuple[str, ...]
    models: tuple[str, ...]
    score_kind: str
    n_rows: int
    n_questions: int
    k_min: int
    k_max: int
    k_typical: int
    n_clusters: int | None
    cluster_size_min: int | None
    cluster_size_max: int | None
    cluster_size_mean: float | None
    notes: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    reading: tuple[str, ...] = ()
    extra: dict | None = None
    options: tuple[tuple[str, Any], ...] = ()
    unused: dict | None = None
    sources: tuple[str, ...] = ()
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # the frame, once built

    @property
    def frame(self) -> pd.DataFrame:
        """The tidy frame (see the class docstring), built on first use from :attr:`tidy` and kept."""
        if "frame" not in self._cache:

            self._cache["frame"] = tidy_frame(self.tidy)
        return self._cache["frame"]

    def column(self, name: str) -> np.ndarray:
        """An unused column of the file by name, one text value per row of :attr:`frame` (e.g. a ``human``
        label column for a judge), or an :class:`EvalStatsError` naming the columns there are.

        Examples
        --------
        >>> from evalstats_core.data import load
        >>> ds = load(b"question,model,score,human\\nq1,A,1,1\\nq2,A,0,1\\n", name="j.csv")
        >>> ds.column("human").tolist()
        ['1', '1']
        """
        unused = self.unused or {}
        if name not in unused:
            raise EvalStatsError(f"{self.name} has no unused column {name!r}; its unused columns are: "
                                 f"{', '.join(map(repr, unused)) or 'none'}")
        return unused[name]
