"""Readers at the floor (issue 44.3): an Inspect archive's directory is read once and released after reading; the
JSON depth bound (a cut-down scan) equals a readable character-by-character count on tricky text."""

import io
import json
import random
import zipfile

import pytest
from hostile_files import inspect_eval

from evalstats_core import _sniff
from evalstats_core._bounded import MAX_JSON_DEPTH, _depth, parse_json
from evalstats_core.data import load
from evalstats_core.errors import EvalStatsError


def _slow_depth(text: str) -> int:
    """The deepest [ / { nesting outside strings, one character at a time (escapes skip the next character)."""
    deepest = level = 0
    inside = escaped = False
    for ch in text:
        if inside:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                inside = False
        elif ch == '"':
            inside = True
        elif ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def _value(rng: random.Random, depth: int = 0):
    pieces = ["\\", '"', "[", "]", "{", "}", "a", "\n", "é", "\\\\", '\\"', '"]']
    r = rng.random()
    if depth > 7 or r < 0.3:
        return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
    if r < 0.6:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {"".join(rng.choice(pieces) for _ in range(3)): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def test_depth_equals_the_readable_count():
    """Quoted brackets, escaped quotes and backslashes before a closing quote, in 3,000 seeded documents and on
    JSON lines (the level runs on across lines)."""
    rng = random.Random(44)
    docs = [json.dumps(_value(rng), ensure_ascii=rng.random() < 0.5) for _ in range(3000)]
    assert max(_slow_depth(d) for d in docs) >= 6
    for doc in docs:
        assert _depth(doc.encode()) == _slow_depth(doc), doc
    lines = "\n".join(docs[:50])
    assert _depth(lines.encode()) == _slow_depth(lines)


def test_too_deep_is_refused_and_the_limit_is_not():
    ok, deep = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, '["[[[\\"", ' + "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1) + "]"
    assert parse_json(ok.encode(), "ok.json") is not None
    with pytest.raises(EvalStatsError, match="levels deep"):
        parse_json(deep.encode(), "deep.json")


def test_inspect_archive_directory_is_read_once_and_released(monkeypatch):
    samples = [{"id": i, "epoch": 1, "scores": {"match": {"value": "C" if i % 3 else "I"}}} for i in range(40)]
    data = inspect_eval(samples)
    reads = []
    original = zipfile.ZipFile._RealGetContents

    def counted(self):
        reads.append(1)
        return original(self)

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", counted)
    ds = load(data, name="log.eval")
    assert ds.n_questions == 40 and len(reads) == 1  # the sniffer's, the bundle check's and the reader's: one
    assert _sniff._LAST_ZIP is None  # the reader released it: no upload stays held
    reads.clear()
    zipfile.ZipFile(io.BytesIO(data))
    assert len(reads) == 1  # the counter counts
