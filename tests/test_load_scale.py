"""Issue 25 (load): the small-file command line imports no scipy.stats (scipy.special only, issue 38), and the CSV row budget counts data rows
(not the header line) and refuses a file with too many lines before reading all of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalstats_core.data import load
from evalstats_core.errors import EvalStatsError
from evalstats_core.limits import Limits

ROOT = Path(__file__).resolve().parent.parent

_PROBE = """
import sys
from evalstats_core.cli import main
assert main(["analyze", sys.argv[1], "-f", "json", "-o", sys.argv[2]]) in (0, None)
heavy = sorted(m for m in ("scipy", "scipy.special", "scipy.stats") if m in sys.modules)
print(",".join(heavy) or "none")
"""


def _small_csv(path: Path, n_questions: int = 1000, models: tuple[str, ...] = ("model-a", "model-b")) -> None:
    lines = ["question,model,score"]
    lines += [f"q{i},{m},{(i * 7 + j * 3) % 5 > 1:d}" for i in range(n_questions) for j, m in enumerate(models)]
    path.write_text("\n".join(lines) + "\n")


def test_small_file_cli_path_imports_no_scipy_stats(tmp_path):
    """A 1,000-question 2-model CSV analysed by the CLI imports scipy.special (its t, normal and binomial tails)
    but never scipy.stats (another ~0.5 s of start-up)."""
    src = tmp_path / "small.csv"
    _small_csv(src)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _PROBE, str(src), str(tmp_path / "out.json")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "scipy,scipy.special"
    assert (tmp_path / "out.json").stat().st_size > 0


def _rows_csv(path: Path, n_rows: int, trailing_newline: bool = True) -> None:
    body = "\n".join(f"q{i // 2},{'ab'[i % 2]},{i % 3 % 2}" for i in range(n_rows))
    path.write_text("question,model,score\n" + body + ("\n" if trailing_newline else ""))


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_a_file_of_exactly_the_row_budget_loads(tmp_path, trailing_newline):
    """The header line is not a data row: 1,000 rows load under a 1,000-row budget (they were refused)."""
    path = tmp_path / "exact.csv"
    _rows_csv(path, 1000, trailing_newline)
    ds = load(path, limits=Limits(max_rows=1000))
    assert len(ds.frame) == 1000  # every answer row read


def test_one_row_over_the_budget_is_refused(tmp_path):
    path = tmp_path / "over.csv"
    _rows_csv(path, 1001)
    with pytest.raises(EvalStatsError, match=r"over\.csv has about 1,001 lines, more than the limit of 1,000"):
        load(path, limits=Limits(max_rows=1000))


def test_too_many_lines_refused_before_the_whole_file_is_read(tmp_path, monkeypatch):
    """A file with far more lines than the budget is refused after the first block: the bytes after it are
    never read (here: a file object that fails past the first 16 MB)."""
    import evalstats_core._read as read

    path = tmp_path / "huge.csv"
    _rows_csv(path, 20_000)
    monkeypatch.setattr(read, "_BLOCK_SIZE", 4096)
    reads = []
    real_open = open

    def counting_open(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        if str(file) == str(path):
            original = fh.read
            fh.read = lambda n=-1: reads.append(n) or original(n)  # type: ignore[method-assign]
        return fh

    monkeypatch.setattr("builtins.open", counting_open)
    with pytest.raises(EvalStatsError, match="more than the limit of 1,000 scores"):
        load(path, limits=Limits(max_rows=1000))
    assert len(reads) < 5 and all(n == 4096 for n in reads)  # a few blocks, never the whole file


def test_json_lines_depth_agrees_with_the_parsed_depth():
    """The depth of lm-eval's fast path (and _depth on each line) against the nesting of what ``json.loads``
    parses, across block edges (steps of 1 to 64 bytes), with brackets, quotes and backslashes inside strings.
    (Before issue 44.3 the oracle was a regular expression that _depth replaced; the parser is independent.)"""
    import json
    import random

    import evalstats_core._bounded as bounded

    rng = random.Random(2)

    def doc(k):
        if k == 0:
            return rng.choice(['a[{\\"', "\\\\", 1, "x]}", "\\[", '"', "é[ü"])
        if rng.random() < 0.5:
            return [doc(k - 1) for _ in range(rng.randint(0, 3))]
        return {f"k{i}{{": doc(k - 1) for i in range(rng.randint(0, 3))}

    def parsed_depth(value) -> int:
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        return 0 if children is None else 1 + max((parsed_depth(c) for c in children), default=0)

    cases = [[json.dumps(doc(rng.randint(0, 7)), ensure_ascii=False) for _ in range(rng.randint(1, 4))]
             for _ in range(150)]
    for step in (1, 2, 3, 7, 64):
        bounded._STEP, saved = step, bounded._STEP
        try:
            got = [bounded.json_lines_depth("\n".join(lines).encode()) for lines in cases]
        finally:
            bounded._STEP = saved
        want = [max(parsed_depth(json.loads(line)) for line in lines) for lines in cases]
        assert got == want
        assert [max(bounded._depth(line.encode()) for line in lines) for lines in cases] == want


def test_question_labels_are_no_per_question_objects_when_short():
    """Issue 25 (memory): short question ids are a fixed-width text array (4 bytes a character, no Python str per
    question); long ones stay an object array; both hold the same labels, and the scores are unchanged."""
    import numpy as np

    from evalstats_core.data import question_scores

    body = "question,model,score\n" + "".join(f"q{i},{m},{(i + j) % 3 > 0:d}\n" for i in range(50)
                                              for j, m in enumerate("AB"))
    short = question_scores(load(body.encode(), name="s.csv"))
    assert short.questions.dtype.kind == "U" and short.questions.tolist() == [f"q{i}" for i in range(50)]
    long_ids = body.replace("\nq", "\nquestion-number-")  # 17 characters and more
    wide = question_scores(load(long_ids.encode(), name="l.csv"))
    assert wide.questions.dtype == object and wide.questions[3] == "question-number-3"
    np.testing.assert_array_equal(short.scores, wide.scores)
    assert np.isnan(question_scores(load(b"question,model,score\nq1,A,1\nq2,A,0\nq1,B,1\nq3,B,0\n",
                                         name="p.csv")).scores).sum() == 2  # unanswered cells stay NaN
