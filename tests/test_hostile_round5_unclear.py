"""Issue 46: the 'unclear' cases the round-5 attack left (bench/results/hostile_round5_issue46.txt), one test each:
one line naming the problem and the fix (CLI exit 2 and one stderr line; the API's EvalStatsError)."""

import json
import warnings

import numpy as np
import pytest
from test_hostile_round5 import _base, _long, _refused, _run  # the round's own CLI helpers

import evalstats_core as es
from evalstats_core.passk import check_ks


@pytest.fixture
def results(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(_long(_base()))
    return path


@pytest.mark.parametrize("command", [["analyze"], ["gate", "--baseline", "A", "--candidate", "B"]])
def test_the_results_file_given_as_its_own_labels_is_refused(results, capsys, command):
    """--labels results.csv read its 'score' column as human labels equal to the judge everywhere (a correction of
    nothing, reported as 'PPI++ (judge corrected by 40 human labels)')."""
    _refused([*command, "--labels", results, results], capsys, "equals the judge's score on every one of the 80",
             "results file itself", "--labels")


def test_labels_in_a_score_column_that_differ_from_the_judge_are_still_read(results, tmp_path, capsys):
    """A labels file whose label column is named 'score' is read as before when it is not the judge's scores."""
    labels = tmp_path / "labels.csv"
    labels.write_text("question,model,score\n" + "\n".join(f"q{i},{m},{(i + len(m)) % 2}" for i in range(20)
                                                           for m in "AB") + "\n")
    code, out, err = _run(["analyze", "--format", "json", "--labels", labels, results], capsys)
    assert code == 0, err
    assert json.loads(out)["settings"]["human_labels"] == str(labels)


@pytest.mark.parametrize("value", ["-1pt", "-2%", "-0.5", "-1 pt"])
def test_a_negative_margin_after_a_space_gets_the_margins_own_rule(results, capsys, value):
    """--margin -1pt was argparse's "expected one argument" (--margin=-1pt was refused by the margin's rule): the
    gate tests "not worse by more than the margin", so a margin below 0 is refused, said the same either way."""
    gate = ["gate", "--baseline", "A", "--candidate", "B"]
    spaced = _refused([*gate, "--margin", value, results], capsys, f"margin '{value}' must be a drop >= 0", "2pt")
    joined = _refused([*gate, f"--margin={value}", results], capsys)
    assert spaced == joined and "expected one argument" not in spaced


def test_a_negative_half_width_after_a_space_gets_its_own_rule(results, capsys):
    """The plan's --half-width -2pt likewise."""
    _refused(["plan", results, "--pass-at", "1", "--half-width", "-2pt"], capsys,
             "--half-width '-2pt' must be a half-width between 0 and 1")


def test_pass_at_names_the_value_as_written_and_its_bad_part(results, capsys):
    """--pass-at 1,,x echoed '1,x' (the empty part dropped): the message repeats '1,,x' and names 'x'."""
    err = _refused(["analyze", "--pass-at", "1,,x", results], capsys, "'1,,x'", "'x' is not one", "1,5,10")
    assert "'1,x'" not in err
    with pytest.raises(es.EvalStatsError, match=r"'5, two'.* 'two' is not one"):
        check_ks("5, two")
    assert check_ks("1,,5") == (1, 5)


@pytest.mark.parametrize("first, kind", [("null", "null"), ("3", "a number"), ('"x"', "a string"), ("true", "true")])
def test_json_lines_whose_first_line_is_not_an_object(tmp_path, capsys, first, kind):
    """A JSON Lines file whose first line is null was read as a CSV of a single column ('null')."""
    path = tmp_path / "null.jsonl"
    path.write_text(first + "\n" + "\n".join(json.dumps({"question": q, "model": m, "score": s})
                                             for q, m, s in _base()) + "\n")
    err = _refused(["analyze", path], capsys, f"record 1 of null.jsonl is {kind}, not a JSON object", "fix or remove")
    assert "single column" not in err and "NoneType" not in err


def test_a_csv_whose_header_is_one_word_is_still_a_csv(tmp_path, capsys):
    """Only a JSON value followed by an object line reads as JSON Lines: a one-column CSV keeps its message."""
    path = tmp_path / "one.csv"
    path.write_text("score\n1\n0\n")
    _refused(["analyze", path], capsys, "single column")


def test_the_same_scores_twice_give_p_1_on_every_surface(tmp_path, capsys):
    """compare(x, x) gave p nan with a Tango interval of nonzero width; the CLI printed "n/a" and Holm adjusted over
    the other comparisons only: a difference of 0 on every question is no evidence of a difference, p = 1 in the
    API (0/1 and continuous, clustered or not), the wild bootstrap, the report's p, Holm p and exact McNemar p."""
    rng = np.random.default_rng(46)
    binary, cont, clusters = (rng.random(40) < 0.6).astype(float), rng.random(40), np.repeat(np.arange(8), 5)
    for x in (binary, cont):
        for c in (None, clusters):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", es.EvalStatsWarning)  # 8 clusters: the few-clusters note
                got = es.compare(x, x, c)
            assert got.diff == 0.0 and got.se == 0.0 and got.p_value == 1.0, (x[:3], c)
    assert es.wild_compare(cont, cont, clusters, rng=1).p_value == 1.0
    path = tmp_path / "same.csv"
    path.write_text(_long([r for q, m, s in _base() for r in ([(q, m, s), (q, "C", s)] if m == "A" else [(q, m, s)])]))
    code, out, err = _run(["analyze", "--format", "json", path], capsys)
    assert code == 0, err
    pairs = {(c["model"], c["baseline"]): c for c in json.loads(out)["comparisons"]}
    same = pairs.get(("C", "A")) or pairs[("A", "C")]
    assert same["p_value"] == 1.0 and same["p_adjusted"] == 1.0 and same["mcnemar_p"] == 1.0
    others = [c for k, c in pairs.items() if c is not same]
    assert all(c["p_adjusted"] == pytest.approx(min(1.0, 3 * c["p_value"])) for c in others)  # Holm over all 3
    code, out, err = _run(["analyze", path], capsys)
    assert code == 0 and "| n/a |" not in out



def test_the_three_workbench_values_sent_by_a_link_are_said_and_replaced():
    """Confidence 1.5, power 1.0 and effect NaN: set in AppTest's session they reach the page already swapped (AppTest's
    emulated browser serializes a widget value outside its options or range as the first option or the minimum, before
    the page runs, so the page never sees them; a real browser sends only what its widgets hold). The one way a user
    sends them, a link, says what was used instead, for each of the three."""
    from conftest import no_exceptions, run_page

    at = run_page("pages/analyze.py", {"analyze_confidence": "1.5", "analyze_power": "1.0", "analyze_delta": "nan"})
    no_exceptions(at)
    (note,) = [c.value for c in at.caption if "link's settings were adjusted" in c.value]
    for key in ("analyze\\_confidence\\=1\\.5", "analyze\\_power\\=1\\.0", "analyze\\_delta\\=nan"):
        assert key in note, (key, note)
    assert (at.session_state["analyze_confidence"], at.session_state["analyze_power"],
            at.session_state["analyze_delta"]) == (0.95, 0.99, 3.0)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_two_names_that_differ_only_in_spaces_are_merged_with_a_note(tmp_path, capsys, engine):
    """'A' and 'A ' were read as one model without a word (names are trimmed: ' A' and 'A' are one model, as
    test_data pins): the note names both spellings, on both engines; a file padding every name says nothing."""
    rows = [(q, "A " if m == "A" and int(q[1:]) % 2 else m, s) for q, m, s in _base()]
    path = tmp_path / "spaces.csv"
    path.write_text(_long(rows))
    code, out, err = _run(["analyze", "--format", "json", "--engine", engine, path], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [m["model"] for m in doc["models"]] == ["A", "B"]
    notes = [n for n in doc["settings"]["notes"] if "differ only in spaces" in n]
    assert notes == ["the model names 'A' and 'A ' in column 'model' differ only in spaces around them and were read "
                     "as one, 'A'; if they are different, rename one in the file"]
    padded = tmp_path / "padded.csv"
    padded.write_text(_long([(q, f" {m}", s) for q, m, s in _base()]))
    code, out, err = _run(["analyze", "--format", "json", "--engine", engine, padded], capsys)
    assert code == 0 and not any("differ only in spaces" in n for n in json.loads(out)["settings"]["notes"])
