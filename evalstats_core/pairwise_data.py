"""Pairwise preference files in: battles of two models on one prompt, and who won.

=========================  ===================================================================================
:class:`Battles`           the battles of one or more files: prompt, model A, model B and A's outcome (1, 1/2, 0)
:func:`read_battles`       bytes of a pairwise file (any of the three formats below) to :class:`Battles`
:func:`load_battles`       the same from paths (several files are joined, e.g. Arena-Hard's one file per model)
:func:`battles_from_rows`  Python rows or a DataFrame of ``prompt, model_a, model_b, winner``
:func:`pairwise_kind`      which of the formats some bytes are (None: not a pairwise file)
=========================  ===================================================================================

Three formats are read, each as its own tool writes it:

``long``
    A table (CSV, TSV, JSON list or JSONL) with the columns ``prompt, model_a, model_b, winner``; ``winner`` is
    ``a``, ``b`` or ``tie`` (Chatbot Arena's battle files spell them ``model_a``, ``model_b``, ``tie`` and
    ``tie (bothbad)``: read too). The prompt column may be called ``question_id``, ``question`` or ``uid``.
``alpaca_eval``
    AlpacaEval's annotations (``annotations.json``: a JSON list of objects with ``instruction``,
    ``generator_1``, ``generator_2`` and ``preference``). ``preference`` is 1 (``generator_1`` preferred), 2
    (``generator_2``), 1.5 (neither; AlpacaEval's older files write 0) or, from its weighted annotators, any
    number between 1 and 2: ``generator_1``'s outcome is ``2 - preference``, so the win rate is AlpacaEval's own
    (``mean(preference - 1)`` for ``generator_2``). A missing preference (null) is left out, as AlpacaEval does.
``arena_hard``
    Arena-Hard's judgment files (``model_judgment/<judge>/<model>.jsonl``: one line per question with
    ``question_id`` (v0.1) or ``uid`` (v2), ``model`` and ``games``, two judgments with a ``score`` such as
    ``"A>B"``, ``"A>>B"``, ``"A=B"``, ``"B>A"``). The first game shows the baseline as assistant A, the second
    shows the model as A (``gen_judgment.py`` swaps them). The file does not name the baseline: give it
    (``baseline=``); without it Arena-Hard's own default is used (``gpt-4-0314`` for v0.1 files, by category
    for v2 files) and a note says so. As Arena-Hard's ``show_result.py``, a strong verdict (``>>``) counts as
    ``strong_weight`` battles (3) and a game whose score is null is left out.

A prompt is the cluster: every battle on one prompt shares it (:mod:`evalstats_core.pairwise` clusters by it).
Every problem is one :class:`~evalstats_core.errors.EvalStatsError` naming the file, the row (or line), the
column and the value, and the fix.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._bounded import head, parse_json
from ._pairwise_sniff import KINDS, pairwise_kind, pairwise_paths
from ._read import _decompress, open_regular
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["Battles", "read_battles", "load_battles", "battles_from_rows", "pairwise_kind", "file_kind", "KINDS",
           "ARENA_HARD_BASELINES", "STRONG_WEIGHT", "MAX_MODELS", "join_battles", "codes",
           "pairwise_paths"]

#: Arena-Hard's default baselines when a judgment file does not name one: v0.1 (``question_id``) and v2 by
#: ``category`` (``utils/judge_utils.py``, JUDGE_SETTINGS, and ``show_result.py`` of v0.1).
ARENA_HARD_BASELINES = {"v0.1": "gpt-4-0314", "hard_prompt": "o3-mini-2025-01-31", "coding": "o3-mini-2025-01-31",
                        "math": "o3-mini-2025-01-31", "creative_writing": "gemini-2.0-flash-001"}
#: The most models a pairwise analysis takes (raise it with max_models= or --max-models): the ranks' Holm tests and
#: letter groups grow faster than the square of the models (measured on 30,000 simulated battles with the default
#: 1,000 bootstrap resamples: bench numbers in the commit that set it).
MAX_MODELS = 100
#: Arena-Hard counts a strong verdict (``A>>B``) as this many battles (``show_result.py``, ``WEIGHT = 3``).
STRONG_WEIGHT = 3

_PROMPT_COLUMNS = ("prompt", "question_id", "question", "uid", "prompt_id")
_WINNERS = {"a": 1.0, "model_a": 1.0, "b": 0.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
# Arena-Hard's verdicts: A's outcome and whether the verdict is strong (show_result.py's label_to_score).
_VERDICTS = {"A>B": (1.0, False), "A>>B": (1.0, True), "A=B": (0.5, False), "A<B": (0.0, False),
             "A<<B": (0.0, True), "B>A": (0.0, False), "B>>A": (0.0, True), "B=A": (0.5, False),
             "B<A": (1.0, False), "B<<A": (1.0, True)}


@dataclass(frozen=True, slots=True)
class Battles:
    """Battles of two models on one prompt.

    Attributes
    ----------
    prompts, model_a, model_b : tuple of str, shape (n,)
        The prompt of each battle (its cluster) and the two models.
    outcome : tuple of float, shape (n,)
        Model A's outcome: 1 (A won), 0 (B won), 0.5 (neither: the two answers judged alike), or a weighted
        judge's preference in between (AlpacaEval's weighted annotators).
    kind : str
        The format read (a key of :data:`KINDS`; several kinds joined: ``"+"``-separated).
    name : str
        The file's name (several: the first and how many more).
    notes : tuple of str
        What the reading did that a user should know (left-out games, the baseline assumed).
    """

    prompts: tuple[str, ...]
    model_a: tuple[str, ...]
    model_b: tuple[str, ...]
    outcome: tuple[float, ...]
    kind: str = "long"
    name: str = ""
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.outcome)

    @property
    def models(self) -> tuple[str, ...]:
        """Every model, in order of first appearance."""
        return tuple(dict.fromkeys(m for pair in zip(self.model_a, self.model_b, strict=True) for m in pair))


def _fail(label: str, where: str, problem: str, fix: str) -> EvalStatsError:
    return EvalStatsError(f"{label}, {where}: {problem}; {fix}")


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def battles_from_rows(rows: Any, *, name: str = "battles") -> Battles:
    """Battles from rows of ``prompt, model_a, model_b, winner`` (dicts, or a pandas DataFrame).

    >>> b = battles_from_rows([{"prompt": "p1", "model_a": "x", "model_b": "y", "winner": "a"},
    ...                        {"prompt": "p1", "model_a": "y", "model_b": "x", "winner": "tie"}])
    >>> b.models, b.outcome
    (('x', 'y'), (1.0, 0.5))
    """
    if hasattr(rows, "to_dict") and hasattr(rows, "columns"):
        rows = rows.to_dict("records")
    return _long(list(rows), name, first_row=1)


def _long(records: list, label: str, first_row: int, what: str = "row") -> Battles:
    if not records:
        raise EvalStatsError(f"{label} holds no battles; give a file with one row per battle: prompt, model_a, "
                             "model_b, winner")
    if not isinstance(records[0], dict):
        raise EvalStatsError(f"{label}: {what} {first_row} is not a record with named fields; give one row per "
                             "battle with the columns prompt, model_a, model_b, winner")
    keys = {str(k).strip().lower(): k for k in records[0]}
    prompt_key = next((keys[c] for c in _PROMPT_COLUMNS if c in keys), None)
    missing = [c for c in ("model_a", "model_b", "winner") if c not in keys]
    if prompt_key is None:
        missing.insert(0, "prompt")
    if missing:
        raise EvalStatsError(f"{label} has no column {', '.join(repr(m) for m in missing)} (its columns: "
                             f"{', '.join(map(str, records[0]))}); a pairwise file needs prompt, model_a, model_b, "
                             "winner (the prompt may be called question_id)")
    prompts, a_models, b_models, out = [], [], [], []
    for i, rec in enumerate(records):
        where = f"{what} {i + first_row}"
        if not isinstance(rec, dict):
            raise _fail(label, where, "is not a record", "give one record per battle")
        prompt = _text(rec.get(prompt_key))
        a, b = _text(rec.get(keys["model_a"])), _text(rec.get(keys["model_b"]))
        winner = _text(rec.get(keys["winner"]))
        if prompt is None:
            raise _fail(label, where, f"column '{prompt_key}' is empty",
                        "give every battle its prompt (an id is enough): battles on one prompt are clustered")
        for col, model in (("model_a", a), ("model_b", b)):
            if model is None:
                raise _fail(label, where, f"column '{col}' is empty", "name both models of every battle")
        if a == b:
            raise _fail(label, where, f"model_a and model_b are both {a!r}",
                        "a battle is between two different models; drop the row")
        score = _WINNERS.get((winner or "").lower())
        if score is None:
            raise _fail(label, where, f"column 'winner' is {winner!r}",
                        "write a (model_a won), b (model_b won) or tie (neither)")
        prompts.append(prompt)
        a_models.append(a)
        b_models.append(b)
        out.append(score)
    return Battles(tuple(prompts), tuple(a_models), tuple(b_models), tuple(out), "long", label)


def _table_records(text: str, label: str) -> list[dict]:
    first = text.split("\n", 1)[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    return [dict(r) for r in reader]


def _json_lines(data: bytes, label: str) -> list:
    out = []
    for i, line in enumerate(data.splitlines(), 1):
        if line.strip():
            out.append(parse_json(line, f"{label}, line {i}", "JSON"))
    return out


def _alpaca(records: list, label: str) -> Battles:
    prompts, a_models, b_models, out = [], [], [], []
    skipped = 0
    for i, rec in enumerate(records):
        where = f"record {i + 1}"
        if not isinstance(rec, dict):
            raise _fail(label, where, "is not an object", "give AlpacaEval's annotations.json unchanged")
        pref = rec.get("preference")
        if pref is None or (isinstance(pref, float) and math.isnan(pref)):
            skipped += 1
            continue
        if isinstance(pref, bool) or not isinstance(pref, int | float):
            raise _fail(label, where, f"'preference' is {pref!r}",
                        "AlpacaEval writes 1 (generator_1 preferred), 2 (generator_2) or 1.5 (neither)")
        pref = 1.5 if pref == 0 else float(pref)  # AlpacaEval's older files write 0 for neither (metrics.py)
        if not 1.0 <= pref <= 2.0:
            raise _fail(label, where, f"'preference' is {pref!r}",
                        "AlpacaEval writes 1 (generator_1 preferred), 2 (generator_2) or 1.5 (neither), or a "
                        "weighted preference between 1 and 2")
        prompt, a, b = (_text(rec.get(k)) for k in ("instruction", "generator_1", "generator_2"))
        for col, value in (("instruction", prompt), ("generator_1", a), ("generator_2", b)):
            if value is None:
                raise _fail(label, where, f"'{col}' is missing or empty",
                            "give AlpacaEval's annotations.json unchanged (every record names its instruction "
                            "and both generators)")
        if a == b:
            raise _fail(label, where, f"generator_1 and generator_2 are both {a!r}",
                        "a preference is between two different models; drop the record")
        prompts.append(prompt)
        a_models.append(a)
        b_models.append(b)
        out.append(2.0 - pref)  # generator_1's outcome: 1 when preference is 1, 0 when it is 2
    notes = (f"{skipped} annotation(s) without a preference (null) were left out, as AlpacaEval does.",) \
        if skipped else ()
    if not out:
        raise EvalStatsError(f"{label} holds no annotation with a preference; give AlpacaEval's annotations.json "
                             "after the annotator ran")
    return Battles(tuple(prompts), tuple(a_models), tuple(b_models), tuple(out), "alpaca_eval", label, notes)


def _arena_hard(records: list, label: str, baseline: str | None, strong_weight: int) -> Battles:
    prompts, a_models, b_models, out = [], [], [], []
    skipped = 0
    assumed: set[str] = set()
    for i, rec in enumerate(records):
        where = f"line {i + 1}"
        if not isinstance(rec, dict):
            raise _fail(label, where, "is not a JSON object", "give Arena-Hard's judgment file unchanged")
        qid = _text(rec.get("question_id", rec.get("uid")))
        model = _text(rec.get("model"))
        games = rec.get("games")
        if qid is None:
            raise _fail(label, where, "has no 'question_id' (or 'uid')", "give Arena-Hard's judgment file unchanged")
        if model is None:
            raise _fail(label, where, "has no 'model'", "give Arena-Hard's judgment file unchanged")
        if not isinstance(games, list) or len(games) != 2:
            raise _fail(label, where, f"'games' is {_short(games)}",
                        "Arena-Hard writes two games per question (the second with the answers swapped)")
        base = _text(rec.get("baseline")) or baseline
        if base is None:
            key = "v0.1" if "question_id" in rec else str(rec.get("category") or "hard_prompt")
            base = ARENA_HARD_BASELINES.get(key)
            if base is None:
                raise _fail(label, where, f"category {key!r} has no known baseline",
                            "name the baseline model (baseline=)")
            assumed.add(base)
        if base == model:
            raise _fail(label, where, f"the model is the baseline {base!r}",
                        "name the baseline the judge compared against (baseline=)")
        for g, game in enumerate(games):
            score = game.get("score") if isinstance(game, dict) else None
            if score is None:
                skipped += 1
                continue
            verdict = _VERDICTS.get(str(score).strip())
            if verdict is None:
                raise _fail(label, f"{where}, games[{g}]", f"'score' is {score!r}",
                            "Arena-Hard writes A>>B, A>B, A=B, B>A or B>>A; give the judgment file unchanged")
            a_out, strong = verdict
            # game 0 shows the baseline as A and the model as B; game 1 swaps them (gen_judgment.py)
            pair = (base, model) if g == 0 else (model, base)
            for _ in range(strong_weight if strong else 1):
                prompts.append(qid)
                a_models.append(pair[0])
                b_models.append(pair[1])
                out.append(a_out)
    if not out:
        raise EvalStatsError(f"{label} holds no judged game; give Arena-Hard's judgment file after the judge ran")
    notes = []
    if skipped:
        notes.append(f"{skipped} game(s) whose score is null were left out, as Arena-Hard does.")
    if assumed:
        notes.append(f"The file does not name its baseline: Arena-Hard's default {', '.join(sorted(assumed))} was "
                     "assumed; name yours if it differs (baseline=).")
    if strong_weight != 1:
        notes.append(f"A strong verdict (A>>B) counts as {strong_weight} battles, as Arena-Hard's show_result.py "
                     "counts it; they share their prompt's cluster.")
    return Battles(tuple(prompts), tuple(a_models), tuple(b_models), tuple(out), "arena_hard", label, tuple(notes))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _decoded(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise EvalStatsError(f"{label} is not UTF-8 text: line {line} has the byte 0x{data[exc.start]:02x}; re-save "
                             "it as UTF-8") from None


def read_battles(data: bytes, name: str = "battles", *, baseline: str | None = None,
                 strong_weight: int = STRONG_WEIGHT, limits: Limits | None = None) -> Battles:
    """The battles of one pairwise file's bytes (the format is detected: :func:`pairwise_kind`).

    Parameters
    ----------
    data : bytes
        The file's contents; gzip, bz2, xz or zstd compressed, or one file in a ``.zip``, as a results file may be
        (decompressed within ``limits.max_bytes``).
    name : str
        The file's name, for messages.
    baseline : str, optional
        Arena-Hard's baseline model, when its judgment file does not name it.
    strong_weight : int, default 3
        How many battles a strong Arena-Hard verdict (``A>>B``) counts as (Arena-Hard's ``show_result.py``).
    limits : Limits, optional
        The byte budget of a compressed file's contents (default :class:`~evalstats_core.limits.Limits`).
    """
    if isinstance(strong_weight, bool) or not isinstance(strong_weight, int) or strong_weight < 1:
        raise EvalStatsError(f"strong_weight ({strong_weight!r}) must be a whole number of battles, at least 1; "
                             "Arena-Hard uses 3")
    # a compressed file (gzip, bz2, xz, zstd, a one-file .zip) through the results files' bounded reader
    data, _ = _decompress(bytes(data), name, os.path.splitext(name)[1].lower(), limits or Limits())
    kind = pairwise_kind(data, name)
    if kind is None:
        raise EvalStatsError(f"{name} is not a pairwise file: give a table with the columns prompt, model_a, "
                             "model_b, winner, AlpacaEval's annotations.json or an Arena-Hard judgment .jsonl")
    stripped = data.lstrip()
    if kind == "alpaca_eval":
        records = parse_json(data, name, "JSON") if stripped[:1] == b"[" else _json_lines(data, name)
        return _alpaca(records if isinstance(records, list) else [records], name)
    if kind == "arena_hard":
        records = _json_lines(data, name) if stripped[:1] == b"{" else parse_json(data, name, "JSON")
        return _arena_hard(records, name, baseline, strong_weight)
    if stripped[:1] == b"[":
        return _long(parse_json(data, name, "JSON"), name, first_row=1, what="record")
    if stripped[:1] == b"{":
        return _long(_json_lines(data, name), name, first_row=1, what="line")
    return _long(_table_records(_decoded(data, name), name), name, first_row=2)  # row 1 is the header


def file_kind(data: bytes, name: str = "") -> str | None:
    """:func:`pairwise_kind` of a file's contents, a compressed file's (gzip, bz2, xz, zstd, a one-file .zip) first
    MB decompressed; None for any other file."""
    return pairwise_kind(head(data, os.path.splitext(name)[1].lower()), name)


def _check_models(battles: Battles, max_models: int) -> Battles:
    """``battles``, or the one message when they hold more models than ``max_models``."""
    n = len(battles.models)
    if n > max_models:
        raise EvalStatsError(f"{battles.name} has battles among {n:,} models, more than the limit of {max_models:,} "
                             "models a pairwise analysis takes (its ranks grow faster than the square of the models); "
                             "keep the models you compare (e.g. the most-played), or raise the limit (max_models=)")
    return battles


def join_battles(parts: Sequence[Battles], *, max_models: int = MAX_MODELS) -> Battles:
    """Several files' battles as one (Arena-Hard writes one judgment file per model); more than ``max_models``
    models are refused."""
    if len(parts) == 1:
        return _check_models(parts[0], max_models)
    kinds = "+".join(dict.fromkeys(p.kind for p in parts))
    name = f"{parts[0].name} and {len(parts) - 1} more file" + ("s" if len(parts) > 2 else "")
    return _check_models(Battles(*(tuple(x for p in parts for x in getattr(p, f)) for f in (
        "prompts", "model_a", "model_b", "outcome")), kinds, name, tuple(f"{p.name}: {n}" for p in parts
                                                                        for n in p.notes)), max_models)  # each file's own notes


def load_battles(paths: Iterable[str], *, baseline: str | None = None, strong_weight: int = STRONG_WEIGHT,
                 limits: Limits | None = None, max_models: int = MAX_MODELS) -> Battles:
    """The battles of one or more pairwise files on disk (compressed too), joined (each at most ``limits.max_bytes``,
    after decompression; at most ``max_models`` models in all)."""
    limits = limits or Limits()
    if isinstance(paths, bytes | bytearray):
        raise EvalStatsError("load_battles reads files on disk: give it a list of paths, or give a file's bytes to "
                             "read_battles(data, name)")
    if isinstance(paths, str | os.PathLike):  # one path, not its characters (issue 46: "file 'b' does not exist")
        paths = [paths]
    parts = []
    for path in map(str, paths):
        with open_regular(path, "give a pairwise file (CSV, JSON or JSONL)") as fh:
            data = fh.read(limits.max_bytes + 1)
        if len(data) > limits.max_bytes:
            raise EvalStatsError(f"{path} is larger than {limits.max_bytes / 2**20:,.0f} MB; give a smaller file, "
                                 f"or {Limits.how_to_raise('max_bytes')}")
        parts.append(read_battles(data, path, baseline=baseline, strong_weight=strong_weight, limits=limits))
    if not parts:
        raise EvalStatsError("no pairwise file given; give at least one")
    return join_battles(parts, max_models=max_models)


def codes(battles: Battles) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]:
    """``(models, a, b, y)``: the models and each battle's integer codes and A's outcome (float64)."""
    models = battles.models
    index = {m: i for i, m in enumerate(models)}
    a = np.fromiter((index[m] for m in battles.model_a), dtype=np.intp, count=len(battles))
    b = np.fromiter((index[m] for m in battles.model_b), dtype=np.intp, count=len(battles))
    return models, a, b, np.asarray(battles.outcome, dtype=np.float64)
