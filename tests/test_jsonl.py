"""JSON records as users have them: a ``.jsonl`` file (one object a line) or a ``.json`` list of objects is read
as a results table, with a CSV's roles, numbers and errors (the error names the keys it found); FastChat's
MT-Bench single-answer judgments and HELM's per-instance predictions are recognised by their keys.

The fixtures are written here, small: the FastChat records carry the keys of
``data/mt_bench/model_judgment/gpt-4_single.jsonl`` (question_id, model, judge, user_prompt, judgment, score,
turn, tstamp; score -1 when the judge gave no rating), the HELM ones those of a run's
``display_predictions.json`` (instance_id, train_trial_index, predicted_text, stats, perturbation)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.cli import main
from evalstats_core.data import file_columns, load
from evalstats_core.errors import EvalStatsError
from evalstats_core.report import json_document

RNG = np.random.default_rng(41)
PLAIN = [{"question": f"q{q}", "model": m, "score": int(RNG.random() < p), "subject": f"s{q % 6}"}
         for q in range(60) for m, p in (("A", 0.75), ("B", 0.5))]


def _numbers(doc: dict) -> tuple:
    return doc["models"], doc["comparisons"]


def _jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_plain_jsonl_and_a_json_list_read_as_the_csv_does(tmp_path):
    """The same records as JSON Lines, as a JSON list and as a CSV give the same numbers and roles."""
    csv = tmp_path / "r.csv"
    csv.write_text("question,model,score,subject\n" + "".join(f"{r['question']},{r['model']},{r['score']},"
                                                              f"{r['subject']}\n" for r in PLAIN))
    (tmp_path / "r.json").write_text(json.dumps(PLAIN))
    docs = [json_document(analyze(load(p), baseline="B"))
            for p in (csv, _jsonl(tmp_path / "r.jsonl", PLAIN), tmp_path / "r.json")]
    assert _numbers(docs[1]) == _numbers(docs[0]) == _numbers(docs[2])
    assert docs[1]["models"][0]["n_clusters"] == 6 and load(tmp_path / "r.json").format == "long"  # 'subject'
    assert load(tmp_path / "r.jsonl").cluster_col == "subject" == load(csv).cluster_col  # the same synonyms
    assert file_columns((tmp_path / "r.jsonl").read_bytes(), "r.jsonl") == ("question", "model", "score", "subject")


def test_words_numbers_and_nulls_are_cells_as_in_a_csv(tmp_path):
    records = [{"id": i, "system": s, "correct": v} for i in range(8)
               for s, v in (("x", i % 2 == 0), ("y", None if i == 3 else "yes" if i % 3 else "no"))]
    with pytest.raises(EvalStatsError, match=r"record 8 of w\.jsonl has no score in column 'correct'"):
        load(_jsonl(tmp_path / "w.jsonl", records))
    records[7]["correct"] = "yes"
    data = load(_jsonl(tmp_path / "w.jsonl", records))
    assert data.models == ("x", "y") and data.score_kind == "binary"


def test_the_error_names_the_keys_it_found(tmp_path):
    path = _jsonl(tmp_path / "k.jsonl", [{"prompt_no": i, "who": "A", "ok": True} for i in range(4)])
    with pytest.raises(EvalStatsError, match=r"could not find the question column in k\.jsonl "
                                             r"\(keys found: 'prompt_no', 'who', 'ok'\)"):
        load(path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q1", "model": "A", "score": 1}\n{"question": "q2", "model": \n')
    with pytest.raises(EvalStatsError, match=r"bad\.jsonl is not JSON Lines: line 2"):
        load(bad)
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"results": {"acc": 0.5}, "config": {}}, indent=2))
    with pytest.raises(EvalStatsError, match=r"one JSON object \(keys: 'results', 'config'\), not records"):
        load(one)
    (tmp_path / "nums.json").write_text("[1, 2]")
    with pytest.raises(EvalStatsError):  # a list of numbers: not records (read as text, refused)
        load(tmp_path / "nums.json")


def _fastchat(score_of) -> list[dict]:
    return [{"question_id": q, "model": m, "judge": ["gpt-4", "single-v1" if t == 1 else "single-v1-multi-turn"],
             "user_prompt": "[Instruction] ...", "judgment": "... Rating: [[x]]", "score": score_of(q, m, t),
             "turn": t, "tstamp": 1700000000.0} for q in range(81, 101) for m in ("vicuna-13b", "llama-13b")
            for t in (1, 2)]


def test_fastchat_mt_bench_judgments(tmp_path):
    """Each turn is a question, clustered on its question_id; a score of -1 is left out as FastChat does."""
    records = _fastchat(lambda q, m, t: -1 if (q, m, t) == (85, "llama-13b", 2) else (q * 7 + t * 3 + len(m)) % 10 + 1)
    data = load(_jsonl(tmp_path / "gpt-4_single.jsonl", records))
    assert set(data.models) == {"vicuna-13b", "llama-13b"} and data.cluster_col == "cluster"
    assert any("score -1" in n for n in data.notes)
    result = analyze(data)
    for m in result.models:  # FastChat's show_result: the mean of the scores that are not -1
        kept = [r["score"] for r in records if r["model"] == m.model and r["score"] != -1]
        assert m.mean == pytest.approx(np.mean(kept), rel=1e-12) and m.n == len(kept) and m.n_clusters == 20
    pairwise = [{"question_id": 81, "model_1": "a", "model_2": "b", "g1_winner": "model_1", "g2_winner": "tie",
                 "judge": ["gpt-4", "pair-v2"], "turn": 1}]
    with pytest.raises(EvalStatsError, match="pairwise judgments"):
        load(_jsonl(tmp_path / "gpt-4_pair.jsonl", pairwise))


def _helm(n: int = 30) -> list[dict]:
    rows = [{"instance_id": f"id{i}", "train_trial_index": 0, "predicted_text": " B",
             "stats": {"exact_match": float(i % 4 != 0), "num_output_tokens": 1.0}} for i in range(n)]
    rows.append({"instance_id": "id1", "train_trial_index": 0, "predicted_text": " b",
                 "perturbation": {"name": "robustness"}, "stats": {"exact_match": 0.0}})
    return rows


def test_helm_per_instance_predictions(tmp_path):
    """HELM: question = instance_id, score = stats.exact_match, model = the run folder's model=, perturbed out."""
    run = tmp_path / "mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt-4"
    run.mkdir()
    (run / "display_predictions.json").write_text(json.dumps(_helm()))
    data = load(run / "display_predictions.json")
    (m,) = analyze(data).models
    assert (data.models, m.n, m.mean) == (("openai_gpt-4",), 30, pytest.approx(22 / 30))
    assert any("perturbed" in n for n in data.notes) and any("'exact_match'" in n for n in data.notes)
    loose = tmp_path / "display_predictions.json"
    loose.write_text(json.dumps(_helm()))
    with pytest.raises(EvalStatsError, match="do not name their model"):
        load(loose)
    assert load(loose, model_name="gpt-4").models == ("gpt-4",)
    with pytest.raises(EvalStatsError, match=r"its stats are: exact_match, num_output_tokens"):
        load(loose, model_name="gpt-4", metric="f1_score")


def test_the_command_line_reads_jsonl_and_refuses_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _jsonl(tmp_path / "r.jsonl", PLAIN)
    assert main(["analyze", "r.jsonl", "--baseline", "B", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["model"] for m in doc["models"]] == ["A", "B"] and doc["settings"]["command"].startswith(
        "evalbars analyze r.jsonl --layout long")
    _jsonl(tmp_path / "k.jsonl", [{"prompt_no": 1, "who": "A", "ok": 1}])
    assert main(["analyze", "k.jsonl"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "keys found: 'prompt_no', 'who', 'ok'" in err[0] and "--question-col" in err[0]
