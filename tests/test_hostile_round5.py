"""Issue 46, item 3: the fresh attack's findings, one test each (CLI exit 2 and one stderr line; the API's
EvalStatsError; the workbench's one error box). The tally is in bench/results/hostile_round5_issue46.txt."""

import gzip
import json
import unicodedata

import numpy as np
import pytest
from conftest import no_exceptions, run_page

import evalstats_core as es
from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core import cli
from evalstats_core.pairwise_data import load_battles


def _long(rows) -> str:
    return "question,model,score\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def _base(n: int = 40) -> list:
    rng = np.random.default_rng(46)
    return [(f"q{i}", m, int(rng.random() < p)) for i in range(n) for m, p in (("A", 0.5), ("B", 0.7))]


def _run(argv, capsys):
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own refusals exit
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _refused(argv, capsys, *words):
    code, out, err = _run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("evalbars: error: "), err
    assert "unexpected" not in err and "Traceback" not in err and out == ""
    for w in words:
        assert w in err, (w, err)
    return err


def test_a_3_mb_field_is_one_line_not_the_csv_modules_error(tmp_path, capsys):
    """A score of 3 million digits (Arrow reads it as inf; finding its row re-scans the file with Python's csv module,
    whose 128 kB field limit raised 'unexpected Error: field larger than field limit')."""
    path = tmp_path / "bigfield.csv"
    path.write_text(_long(_base()[:-1]) + "q39,B," + "1" * 3_000_000 + "\n")
    _refused(["analyze", path], capsys, "row 81 of bigfield.csv", "finite")


def test_a_score_too_long_to_show_is_elided_in_the_message(tmp_path, capsys):
    """A 1 MB word as a score: the message names the row, elided, not a 1 MB line."""
    path = tmp_path / "word.csv"
    path.write_text(_long(_base()[:-1]) + "q39,B," + "x" * 1_000_000 + "\n")
    err = _refused(["analyze", path], capsys, "row 81 of word.csv", "more characters")
    assert len(err) < 1_000


@pytest.mark.parametrize("name", ["hugeint.jsonl", "hugeint.json"])
def test_an_integer_of_5000_digits_in_json_is_one_line(tmp_path, capsys, name):
    """Python's json refuses integers over 4,300 digits with its own advice (sys.set_int_max_str_digits): a JSON
    Lines record and a JSON list say which file (and line) instead."""
    records = [{"question": q, "model": m, "score": s} for q, m, s in _base()]
    text = [json.dumps(r) for r in records]
    text[2] = text[2].replace('"score": ', '"score": ' + "9" * 5000 + " + 0 * ").split(" + 0 * ")[0] + "}"
    path = tmp_path / name
    path.write_text("\n".join(text) if name.endswith("jsonl") else "[" + ",".join(text) + "]")
    err = _refused(["analyze", path], capsys, name, "too long to read")
    assert "set_int_max_str_digits" not in err
    if name.endswith("jsonl"):
        assert "line 3" in err


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("size", [1e-200, 1e200])
def test_models_10_to_the_100_apart_are_refused_on_every_engine(tmp_path, capsys, engine, size):
    """A model of scores near 1e-200 beside a 0/1 model (no option needed) or near 1e200 beside it (mixed scales
    allowed) got a standard error of 0 and no interval: refused in one line on both engines."""
    rng = np.random.default_rng(7)
    rows = [r for i in range(40) for r in ((f"q{i}", "A", size * (1 + 0.1 * rng.random())),
                                            (f"q{i}", "B", int(rng.random() < 0.7)))]
    path = tmp_path / "apart.csv"
    path.write_text(_long(rows))
    _refused(["analyze", "--mixed-scales", "allow", "--engine", engine, path], capsys, "differ in size by more than",
             "'A'", "'B'", "rescale")


def test_models_less_than_10_to_the_100_apart_keep_their_intervals(tmp_path, capsys):
    """Near the bound (1e-99 beside 0/1) each model keeps a standard error above 0 and its interval: B's is the one
    it has on its own."""
    rng = np.random.default_rng(7)
    rows = [r for i in range(40) for r in ((f"q{i}", "A", 1e-99 * (1 + 0.1 * rng.random())),
                                            (f"q{i}", "B", int(rng.random() < 0.7)))]
    both, alone = tmp_path / "near.csv", tmp_path / "alone.csv"
    both.write_text(_long(rows))
    alone.write_text(_long([r for r in rows if r[1] == "B"] + [(f"q{i}", "C", i % 2) for i in range(40)]))
    code, out, err = _run(["analyze", "--format", "json", both], capsys)
    assert code == 0, err
    models = {m["model"]: m for m in json.loads(out)["models"]}
    assert models["A"]["se"] > 0 and None not in models["A"]["ci"]
    code, out2, _ = _run(["analyze", "--format", "json", alone], capsys)
    b_alone = next(m for m in json.loads(out2)["models"] if m["model"] == "B")
    assert models["B"]["ci"] == pytest.approx(b_alone["ci"], rel=1e-12)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_two_model_names_that_print_the_same_are_refused(tmp_path, capsys, engine):
    """'modél' with é as one character and as e + a combining accent: two models a report would show as one model
    beating itself; refused, both spellings shown escaped."""
    nfc, nfd = unicodedata.normalize("NFC", "modél"), unicodedata.normalize("NFD", "modél")
    path = tmp_path / "nfd.csv"
    path.write_text(_long([(q, nfc if m == "A" else nfd, s) for q, m, s in _base()]), encoding="utf-8")
    _refused(["analyze", "--engine", engine, path], capsys, "look the same", "mod\\xe9l", "mode\\u0301l")


def test_compressed_labels_are_read_like_compressed_results(tmp_path, capsys):
    """A labels file as .csv.gz gives the numbers of the same labels uncompressed (it said "cannot be read as a
    CSV ('utf-8' codec can't decode byte 0x8b")); a truncated one is one line naming the compression."""
    results = tmp_path / "judged.csv"
    results.write_text(_long(_base()))
    labels = "question,model,human\n" + "\n".join(f"q{i},{m},{(i + len(m)) % 2}" for i in range(20) for m in "AB")
    plain, packed, cut = tmp_path / "labels.csv", tmp_path / "labels.csv.gz", tmp_path / "cut.csv.gz"
    plain.write_text(labels)
    packed.write_bytes(gzip.compress(labels.encode()))
    cut.write_bytes(gzip.compress(labels.encode())[:-12])
    code, expected, err = _run(["analyze", "--format", "json", "--labels", plain, results], capsys)
    assert code == 0, err
    code, got, err = _run(["analyze", "--format", "json", "--labels", packed, results], capsys)
    assert code == 0, err
    assert json.loads(got)["models"] == json.loads(expected)["models"]
    _refused(["analyze", "--labels", cut, results], capsys, "gzip-compressed", "decompress it yourself")


def test_a_seed_past_the_range_says_the_range(tmp_path, capsys):
    """--seed 2**200 is a non-negative whole number: the message names the range it is outside."""
    path = tmp_path / "ok.csv"
    path.write_text(_long(_base()))
    _refused(["analyze", "--wild-bootstrap", "--seed", 2**200, path], capsys, "from 0 to 2**63 - 1")


@pytest.mark.parametrize("option, words", [
    (["--question-col", "score"], ["no score column is left", "'score'", "given as the question column",
                                   "--score-col"]),
    (["--ignore-col", "question"], ["no question column is left", "given as a column to ignore",
                                    "--question-col"]),
])
def test_a_role_whose_column_was_given_another_role_says_so(tmp_path, capsys, option, words):
    """It said "could not find the score column ... (columns: 'question', 'model', 'score'); name it 'score'"."""
    path = tmp_path / "ok.csv"
    path.write_text(_long(_base()))
    err = _refused(["analyze", *option, path], capsys, *words)
    assert "could not find" not in err


def test_complex_scores_are_refused_not_cut_to_their_real_part():
    """NumPy casts complex to float64 by dropping the imaginary part (a warning at most): refused by the API."""
    with pytest.raises(es.EvalStatsError, match="complex numbers"):
        es.summarize(np.array([1 + 1j, 0j, 1, 0]))
    with pytest.raises(es.EvalStatsError, match="complex numbers"):
        es.compare(np.array([1 + 1j, 0j, 1, 0]), np.array([1, 0, 1, 1]))


def test_load_battles_takes_one_path_as_one_file(tmp_path):
    """load_battles('b.csv') read each character as a file ("file 'b' does not exist"); bytes are refused,
    naming read_battles."""
    path = tmp_path / "b.csv"
    path.write_text("prompt,model_a,model_b,winner\np1,x,y,model_a\np2,x,y,model_b\np3,y,x,model_a\n")
    assert load_battles(str(path)).models == load_battles([str(path)]).models
    assert len(load_battles(path)) == 3
    with pytest.raises(es.EvalStatsError, match="read_battles"):
        load_battles(path.read_bytes())


@pytest.mark.parametrize("name, data, words", [
    ("nfd.csv", _long([(q, unicodedata.normalize("NFC" if m == "A" else "NFD", "modél"), s) for q, m, s in _base()]),
     "look the same"),
    ("tiny.csv", _long([r for i in range(40) for r in ((f"q{i}", "A", 1e-200 * (1 + i % 3)), (f"q{i}", "B", i % 2))]),
     "differ in size"),
])
def test_the_workbench_shows_the_new_refusals_in_one_error_box(name, data, words):
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": name, "data": data.encode()}
    at.run()
    no_exceptions(at)
    assert len(at.error) == 1 and words in at.error[0].value
    assert LAST_KEY not in at.session_state


def test_a_chosen_cluster_column_of_one_value_never_says_it_clustered(tmp_path, capsys):
    """--cluster-col on a column with one value: the report said both "standard errors are clustered on it" and
    "has a single value, so the standard errors are not clustered"; only the second remains."""
    path = tmp_path / "one.csv"
    path.write_text("question,model,score,cluster\n" + "\n".join(f"{q},{m},{s},c" for q, m, s in _base()) + "\n")
    code, out, err = _run(["analyze", "--format", "json", "--cluster-col", "cluster", path], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["settings"]["clustered"] is False
    said = " ".join(doc["settings"]["notes"] + doc["warnings"])
    assert "has a single value" in said and "clustered on it" not in said


@pytest.mark.parametrize("confidence, shown", [("0.99999", "99.999%"), ("0.00001", "0.001%")])
def test_a_level_near_0_or_1_is_never_printed_as_0_or_100_percent(tmp_path, capsys, confidence, shown):
    """--confidence 0.99999 printed "100% CI" (rounded to two decimals of a percent) in every report line."""
    path = tmp_path / "ok.csv"
    path.write_text(_long(_base()))
    code, out, err = _run(["analyze", "--confidence", confidence, path], capsys)
    assert code == 0, err
    assert f"{shown} CI" in out and f"{shown} confidence" in out
    assert "100% CI" not in out and " 0% CI" not in out and "(0% CI" not in out
