"""Human labels validated like scores (issue 46): on the judge's scale, a model per label (or an explicit
``labels_all_models``), no silent truncation, no FIFO read; each case once silently wrong."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalstats_core import human_labels
from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsError
from evalstats_core.judge_io import section_for

ROOT = Path(__file__).resolve().parents[1]


def _results(tmp_path: Path, human=None, n: int = 40, wide: bool = False, scores=(0, 1)) -> Path:
    """A two-model file (A, B) with judge scores from ``scores``; ``human(q, m)`` the label text, or None."""
    rng = np.random.default_rng(7)
    path = tmp_path / "r.csv"
    if wide:
        lines = ["question,A,B" + (",human" if human else "")]
        for q in range(n):
            a, b = rng.choice(scores, 2)
            lines.append(f"q{q},{a},{b}" + (f",{human(q, None)}" if human else ""))
    else:
        lines = ["question,model,score" + (",human" if human else "")]
        for q in range(n):
            for m in "AB":
                lines.append(f"q{q},{m},{rng.choice(scores)}" + (f",{human(q, m)}" if human else ""))
    path.write_text("\n".join(lines) + "\n")
    return path


def _section(path: Path, ignore_cols: tuple = (), **kw):
    ds = load(str(path), ignore_cols=ignore_cols)
    return section_for(ds, analyze(ds), table=question_scores(ds), **kw)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalstats_core", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


@pytest.mark.parametrize(("label", "found"), [(lambda q, m: "" if q % 2 else 100 * (q % 4 == 0), "values found 0, 100"),
                                               (lambda q, m: "" if q % 2 else (-1, 1)[q % 4 == 0], "values found -1, 1"),
                                               (lambda q, m: "" if q % 2 else 1 + q % 10, "values found 1, 3, 5, 7, 9")])
def test_labels_off_a_01_judge_are_refused_naming_column_values_and_scale(tmp_path, label, found):
    """0/100, -1/+1 and 1-10 labels beside 0/1 judge scores: refused, not read as numbers on its scale."""
    path = _results(tmp_path, label)
    with pytest.raises(EvalStatsError, match="not on the judge's scale") as err:
        _section(path)
    text = str(err.value)
    assert "column 'human'" in text and found in text and "scale expected 0/1" in text


def test_01_labels_beside_a_01_judge_are_read():
    """The house example (0/1 judge, 0/1 labels) still reads its 300 labels."""
    ds = load(str(ROOT / "examples" / "judged_3_models.csv"))
    section = section_for(ds, analyze(ds))
    assert section is not None and section.models[0][1].n_labeled == 300


def test_fractional_judge_takes_labels_between_0_and_1_only(tmp_path):
    """A judge scoring 0 to 1 takes labels 0 to 1 (0.5 included); 7 is refused."""
    path = _results(tmp_path, lambda q, m: "" if q % 2 else (0, 0.5, 1)[q % 3], scores=(0, 0.25, 0.5, 1))
    assert _section(path).models
    path = _results(tmp_path, lambda q, m: "" if q % 2 else (0, 7)[q % 4 == 0], scores=(0, 0.25, 0.5, 1))
    with pytest.raises(EvalStatsError, match=r"values found 0, 7, scale expected 0 to 1"):
        _section(path)


def test_a_judge_on_1_to_10_takes_labels_on_1_to_10_not_0_1(tmp_path):
    path = _results(tmp_path, lambda q, m: "" if q % 2 else 1 + q % 10, scores=tuple(range(1, 11)))
    assert _section(path).models
    path = _results(tmp_path, lambda q, m: "" if q % 2 else q % 4 == 0, scores=tuple(range(1, 11)))
    with pytest.raises(EvalStatsError, match="values found 0, 1, scale expected the judge's, whose scores run from 1"):
        _section(path)


def test_a_labels_file_without_a_model_column_needs_labels_all_models(tmp_path):
    """Once every comparison read '0.0 (CI 0.0 to 0.0)': the same label was set on both sides."""
    path = _results(tmp_path)
    labels = tmp_path / "l.csv"
    labels.write_text("question,human\n" + "".join(f"q{q},{q % 3 == 0:d}\n" for q in range(0, 40, 2)))
    with pytest.raises(EvalStatsError, match="has no model column.*labels_all_models=True"):
        _section(path, labels=str(labels))
    section = _section(path, labels=str(labels), labels_all_models=True)
    assert section.comparisons and section.models
    out = _cli("gate", str(path), "--baseline", "A", "--candidate", "B", "--labels", str(labels))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "no model column" in out.stderr and "--labels-all-models" in out.stderr and "Traceback" not in out.stderr
    out = _cli("gate", str(path), "--baseline", "A", "--candidate", "B", "--labels", str(labels), "--labels-all-models")
    assert out.returncode in (0, 1, 3) and "corrected by human labels" in out.stdout, out.stderr


def test_a_wide_files_label_column_needs_labels_all_models(tmp_path):
    """A wide file's label column (left out of the models) holds one label per question for every model."""
    path = _results(tmp_path, lambda q, m: "" if q % 2 else q % 4 == 0, wide=True)
    with pytest.raises(EvalStatsError, match="one label per question for all its models"):
        _section(path, ("human",), human_col="human")
    assert _section(path, ("human",), human_col="human", labels_all_models=True).models


def test_one_model_needs_no_model_column(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("question,model,score\n" + "".join(f"q{q},A,{q % 2}\n" for q in range(20)))
    labels = tmp_path / "l.csv"
    labels.write_text("question,human\n" + "".join(f"q{q},{q % 3 == 0:d}\n" for q in range(10)))
    assert _section(path, labels=str(labels)).models


def test_a_labels_file_over_the_limit_is_refused_never_cut(tmp_path, monkeypatch):
    """The reader read the first 64 MB and parsed them as the whole file; now the limit is in the message."""
    path = _results(tmp_path)
    labels = tmp_path / "l.csv"
    labels.write_text("question,model,human\n" + "".join(f"q{q},A,{q % 2}\n" for q in range(40)))
    monkeypatch.setattr(human_labels, "MAX_LABEL_BYTES", 200)
    with pytest.raises(EvalStatsError, match=r"larger than the limit of 0 MB \(200 bytes\)"):
        _section(path, labels=str(labels))
    monkeypatch.setattr(human_labels, "MAX_LABEL_BYTES", labels.stat().st_size)
    assert _section(path, labels=str(labels)).models  # exactly at the limit: read whole


def test_the_limit_message_names_64_mb():
    with pytest.raises(EvalStatsError, match=r"limit of 64 MB \(67,108,864 bytes\)"):
        human_labels.read_labels_bytes(b"x" * (human_labels.MAX_LABEL_BYTES + 1), "l.csv")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_as_labels_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "labels.csv"
    os.mkfifo(fifo)
    with pytest.raises(EvalStatsError, match="named pipe"):
        human_labels.read_labels_bytes(str(fifo), "labels.csv")


def test_a_found_column_off_scale_is_refused_not_skipped(tmp_path):
    """A column named 'human' whose numbers are on another scale is refused (it is meant as labels); a column of
    words found only by its name is still left alone with a note."""
    path = _results(tmp_path, lambda q, m: "" if q % 2 else 100 * (q % 4 == 0))
    with pytest.raises(EvalStatsError, match="not on the judge's scale"):
        _section(path, notes=[])
    path = _results(tmp_path, lambda q, m: ("easy", "hard")[q % 2])
    notes: list[str] = []
    assert _section(path, notes=notes) is None and "not read as human labels" in notes[0]


def test_a_labels_file_with_two_label_columns_named_alike_is_refused(tmp_path):
    """pandas read the second 'human' as 'human.1' and the first was taken without a word."""
    path = _results(tmp_path)
    labels = tmp_path / "l.csv"
    labels.write_text("question,model,human,Human\n" + "".join(f"q{q},A,{q % 2},1\n" for q in range(10)))
    with pytest.raises(EvalStatsError, match=r"l.csv has two columns named 'Human' \(columns 3 and 4\)"):
        _section(path, labels=str(labels))


def test_0_100_labels_beside_0_100_scores_are_read_as_the_scores_are(tmp_path):
    """Scores all 0 or 100 are read as 0/1; labels 0/100 beside them are on the same scale, read alike."""
    path = tmp_path / "h.csv"
    path.write_text("question,model,score,human\n" + "".join(
        f"q{i},{m},{100 * ((i + len(m) + i // 3) % 2)},{'' if i % 2 else 100 * (i % 4 == 0)}\n"
        for i in range(40) for m in ("A", "BB")))
    hundred = _section(path)
    path.write_text(path.read_text().replace(",100\n", ",1\n"))
    assert hundred.models[0][1] == _section(path).models[0][1]  # 0/100 labels read as the 0/1 ones


def test_the_command_repeats_the_labels_file_and_labels_all_models(tmp_path):
    """settings.command reruns to the same corrected numbers (it left out --labels, and so the correction)."""
    import json
    import shlex

    path = _results(tmp_path)
    labels = tmp_path / "l.csv"
    labels.write_text("question,human\n" + "".join(f"q{q},{q % 3 == 0:d}\n" for q in range(0, 40, 2)))
    out = _cli("analyze", str(path), "--labels", str(labels), "--labels-all-models", "-f", "json")
    doc = json.loads(out.stdout)
    command = doc["settings"]["command"]
    assert f"--labels {labels} --labels-all-models" in command
    again = _cli(*shlex.split(command)[1:], "-f", "json")
    assert again.returncode == 0 and json.loads(again.stdout)["models"] == doc["models"]


def test_an_inspect_human_scorer_off_the_judge_s_scale_is_refused_naming_the_sample():
    """Issue 46: a harness log's human scorer is checked on the judge's scale as a column is: the fixture's 1-10
    'rating' beside its 0/1 'match' judge is refused in one line naming the scorer, the values, the first sample
    off the scale with its value, and the fix; in the API, the command line (exit 2, one stderr line) and the
    workbench (one error box)."""
    import dataclasses

    from evalstats_core.data import load_many
    from evalstats_core.reading import ReadingOptions

    fix = ROOT / "tests" / "fixtures" / "inspect"
    files = [fix / "model-a.json", fix / "model-b_zstd.eval"]
    data = load_many([str(f) for f in files])
    opts = ReadingOptions()

    def loader(name: str):
        return dataclasses.replace(opts, metric=name).load([str(f) for f in files])

    with pytest.raises(EvalStatsError) as info:
        section_for(data, analyze(data), human_col="rating", human_loader=loader)
    message = str(info.value)
    assert "scorer 'rating': the labels are not on the judge's scale" in message
    assert "(the first: sample '1' of model 'mockllm/model-a', 5)" in message
    assert "scale expected 0 to 1 (as the judge's scores); give labels as numbers from 0 to 1" in message
    out = subprocess.run([sys.executable, "-m", "evalstats_core", "analyze", *map(str, files), "--human-col", "rating"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert message in out.stderr
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import no_exceptions, run_page

    from evalstats_app.workbench import INJECT_KEY

    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"files": [(f.name, f.read_bytes()) for f in files]}
    at.run()
    at.selectbox(key="judge_human_col").set_value("scorer 'rating'").run()
    no_exceptions(at)
    (box,) = [e.value for e in at.error if "human labels" in e.value]
    assert "the labels are not on the judge" in box and "sample '1' of model 'mockllm/model-a'" in box.replace("\\", "")
