"""Pairwise preferences (issue 42): the readers of the three formats, the Bradley–Terry fit against statsmodels, the
bootstrap against an independent re-implementation of Chatbot Arena's procedure, win rates against the house's CR2
kernel, coverage by a seeded simulation with prompt effects, and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from evalstats_core import examples
from evalstats_core._clusters import t_crit
from evalstats_core.clustering import summarize
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons.paired import BATTLE_COVERAGE, BATTLE_DESIGN, prompt_battles
from evalstats_core.pairwise import (
    CENTRE,
    SCALE,
    arena_bootstrap,
    battles_to_separate,
    bradley_terry,
    pairwise_analysis,
    simulate_battles,
    win_rates,
)
from evalstats_core.pairwise_data import (
    battles_from_rows,
    load_battles,
    pairwise_kind,
    read_battles,
)

FIX = Path(__file__).resolve().parent / "fixtures" / "pairwise"
EXAMPLE = examples.path("pairwise_battles.tsv")


def _frame(battles) -> pd.DataFrame:
    return pd.DataFrame({"prompt": battles.prompts, "model_a": battles.model_a, "model_b": battles.model_b,
                         "y": battles.outcome})


def _arena_mle_elo(df: pd.DataFrame, models: tuple[str, ...]) -> np.ndarray:
    """Chatbot Arena's ``compute_mle_elo``, re-implemented with statsmodels: the battles doubled, a tie scored as one
    win for A and one for B, rows ``+ln 10`` at A and ``-ln 10`` at B, a logistic regression with no intercept and no
    penalty, ``400 * coef + 1000``; then centred on the mean (our anchor). The first model's column is dropped
    (statsmodels has no penalty to pin the level)."""
    index = {m: i for i, m in enumerate(models)}
    doubled = pd.concat([df, df], ignore_index=True)
    n, p = len(doubled), len(models)
    x = np.zeros((n, p))
    x[np.arange(n), doubled["model_a"].map(index)] = math.log(10)
    x[np.arange(n), doubled["model_b"].map(index)] = -math.log(10)
    y = (doubled["y"] == 1.0).to_numpy(dtype=float)
    tie = (doubled["y"] == 0.5).to_numpy().copy()
    tie[n // 2:] = False  # one tie => one A win (first copy) + one B win (second copy)
    y[tie] = 1.0
    fit = sm.Logit(y, x[:, 1:]).fit(method="newton", tol=1e-13, maxiter=100, disp=False)
    elo = 400.0 * np.concatenate([[0.0], fit.params]) + 1000.0
    return elo - elo.mean() + CENTRE


# ------------------------------------------------------------------------------------------------ the formats
def test_the_long_format_reads_a_b_and_ties_half():
    b = read_battles(b"prompt,model_a,model_b,winner\np1,x,y,a\np1,y,x,TIE\np2,x,y,b\n", "f.csv")
    assert b.models == ("x", "y") and b.outcome == (1.0, 0.5, 0.0) and b.prompts == ("p1", "p1", "p2")
    arena = read_battles(json.dumps([{"question_id": "q", "model_a": "x", "model_b": "y", "winner": "model_b"},
                                     {"question_id": "q", "model_a": "x", "model_b": "y",
                                      "winner": "tie (bothbad)"}]).encode(), "clean_battle.json")
    assert arena.outcome == (0.0, 0.5) and arena.kind == "long"


def test_alpaca_eval_annotations_as_alpaca_eval_reads_them():
    """generator_1's outcome is 2 - preference; null is left out; the win rate is AlpacaEval's mean(preference - 1)."""
    data = (FIX / "alpaca_eval_annotations.json").read_bytes()
    assert pairwise_kind(data) == "alpaca_eval"
    b = read_battles(data, "annotations.json")
    prefs = [r["preference"] for r in json.loads(data) if r["preference"] is not None]
    assert len(b) == len(prefs) == 9 and b.model_a[0] == "gpt4_1106_preview"
    assert np.allclose(b.outcome, [2.0 - p for p in prefs])
    assert "left out" in b.notes[0]
    w = {(x.model, x.opponent): x for x in win_rates(b)}
    assert w[("Mixtral-8x7B-Instruct-v0.1", "gpt4_1106_preview")].rate == pytest.approx(np.mean(prefs) - 1.0, abs=1e-15)
    # two models: the fit's odds are the mean outcome's (the likelihood equation sum(y - p) = 0)
    fit = bradley_terry(b)
    gap = (fit.ratings[1] - fit.ratings[0]) / SCALE
    assert 1.0 / (1.0 + math.exp(-gap)) == pytest.approx(np.mean(prefs) - 1.0, abs=1e-12)


def test_arena_hard_v01_games_are_read_with_the_baseline_first_then_swapped():
    data = (FIX / "arena_hard_v01_judgment.jsonl").read_bytes()
    assert pairwise_kind(data) == "arena_hard"
    b = read_battles(data, "llama.jsonl")
    # per question, the model's outcomes as Arena-Hard's show_result counts them (A>>B three times, null left out):
    # q0 0,0; q1 1 x 6; q2 1/2,1/2; q3 1,1; q4 0; q5 0 x 3, 0
    assert len(b) == 17 and set(b.models) == {"gpt-4-0314", "llama-3-70b-instruct"}
    model_out = [y if a == "llama-3-70b-instruct" else 1.0 - y for a, y in zip(b.model_a, b.outcome, strict=True)]
    assert sum(model_out) == 9.0
    assert b.model_a[0] == "gpt-4-0314" and b.outcome[0] == 1.0  # game 0: A is the baseline, "A>B": it won
    assert any("null" in n for n in b.notes) and any("gpt-4-0314" in n and "assumed" in n for n in b.notes)
    named = read_battles(data, "llama.jsonl", baseline="my-base", strong_weight=1)
    assert "my-base" in named.models and len(named) == 11


def test_arena_hard_v2_names_its_baseline_and_reads_reversed_labels():
    b = read_battles((FIX / "arena_hard_v2_judgment.jsonl").read_bytes(), "qwen.jsonl", strong_weight=1)
    assert set(b.models) == {"o3-mini-2025-01-31", "qwen3-235b"} and not any("assumed" in n for n in b.notes)
    # "B<A" in game 0 (A = baseline) is a baseline win; "A<<B" in game 1 (A = model) is a baseline win
    assert b.outcome[-2:] == (1.0, 0.0) and b.model_a[-1] == "qwen3-235b"


def test_several_files_are_joined(tmp_path):
    one = tmp_path / "one.csv"
    one.write_text("prompt,model_a,model_b,winner\np1,x,y,a\np2,x,y,b\n")
    b = load_battles([str(one), str(FIX / "arena_hard_v01_judgment.jsonl")])
    assert len(b) == 19 and b.kind == "long+arena_hard" and "1 more file" in b.name
    assert any(n.startswith(f"{FIX / 'arena_hard_v01_judgment.jsonl'}: 1 game(s) whose score is null") for n in b.notes)


@pytest.mark.parametrize("text, words", [
    (b"prompt,model_a,model_b,winner\np1,x,y,a\np2,x,y,c\n", ["row 3", "'winner'", "'c'", "write a"]),
    (b"prompt,model_a,model_b,winner\np1,x,x,a\n", ["row 2", "both 'x'", "drop the row"]),
    (b"prompt,model_a,model_b,winner\n,x,y,a\n", ["row 2", "'prompt' is empty", "give every battle its prompt"]),
    (b'[{"instruction": "i", "generator_1": "x", "generator_2": "y", "preference": 3}]',
     ["record 1", "'preference' is 3", "1.5"]),
    (b'{"question_id": "q", "model": "m", "games": [{"score": "A>C"}, {"score": "A=B"}]}\n',
     ["line 1, games[0]", "'A>C'", "A>>B"]),
    (b"question,model,score\nq1,x,1\n", ["not a pairwise file", "prompt, model_a, model_b, winner"]),
])
def test_bad_input_is_one_message_naming_the_place_the_value_and_the_fix(text, words):
    with pytest.raises(EvalStatsError) as err:
        read_battles(text, "f")
    assert all(w in str(err.value) for w in words), str(err.value)


def test_a_model_that_never_lost_has_no_finite_rating():
    rows = [{"prompt": f"p{i}", "model_a": "x", "model_b": "y", "winner": "a"} for i in range(4)]
    rows += [{"prompt": "q", "model_a": "y", "model_b": "z", "winner": "a"},
             {"prompt": "r", "model_a": "y", "model_b": "z", "winner": "b"}]
    with pytest.raises(EvalStatsError, match=r"'y', 'z' won no battle .* against 'x'"):
        bradley_terry(rows)


# ------------------------------------------------------------------------------------------------ oracles
@pytest.mark.parametrize("anchor", [None, "Frigate"])
def test_ratings_equal_a_statsmodels_logistic_regression_to_1e_8(anchor):
    """The example (900 battles, 12% ties) fitted by statsmodels' Logit on Chatbot Arena's doubled battles."""
    battles = load_battles([str(EXAMPLE)])
    fit = bradley_terry(battles, anchor=anchor)
    expected = _arena_mle_elo(_frame(battles), fit.models)
    if anchor:
        expected = expected - expected[fit.models.index(anchor)] + CENTRE
    assert np.max(np.abs(fit.ratings - expected)) < 1e-8


def test_the_sandwich_and_plain_covariances_equal_statsmodels_cluster_and_nonrobust():
    """On the rows ``e_A - e_B`` (first model dropped) and y in {0, 1/2, 1}: statsmodels GLM Binomial's cluster
    covariance (its CR1 factor G/(G-1) only, ``df_correction=False``) and its model-based one."""
    battles = load_battles([str(EXAMPLE)])
    fit = bradley_terry(battles)
    index = {m: i for i, m in enumerate(fit.models)}
    df = _frame(battles)
    x = np.zeros((len(df), len(fit.models)))
    x[np.arange(len(df)), df["model_a"].map(index)] = 1.0
    x[np.arange(len(df)), df["model_b"].map(index)] = -1.0
    groups = pd.factorize(df["prompt"])[0]
    glm = sm.GLM(df["y"].to_numpy(), x[:, 1:], family=sm.families.Binomial())
    robust = glm.fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": True, "df_correction": False},
                     tol=1e-13)
    g = groups.max() + 1
    # statsmodels' cluster correction is G/(G-1) * (N-1)/(N-K); ours is G/(G-1) alone (Stata's ml, vce(cluster))
    n, k = len(df), x.shape[1] - 1
    ours = fit.covariance / SCALE**2
    t = np.eye(len(fit.models)) - 1.0 / len(fit.models)
    free = np.zeros_like(ours)
    free[1:, 1:] = np.asarray(robust.cov_params()) / ((n - 1) / (n - k))
    assert np.allclose(ours, t @ free @ t.T, atol=1e-12, rtol=1e-8)
    plain = np.zeros_like(ours)
    plain[1:, 1:] = np.asarray(glm.fit(tol=1e-13).cov_params())
    assert np.allclose(fit.plain_covariance / SCALE**2, t @ plain @ t.T, atol=1e-12, rtol=1e-8)
    assert fit.df == g - 1


def test_the_bootstrap_is_chatbot_arenas_procedure_on_the_same_seed():
    """``DataFrame.sample(frac=1.0, replace=True, random_state=rng)`` and ``compute_mle_elo`` (statsmodels), 30
    rounds on a seeded 300-battle file: the same percentiles."""
    battles = simulate_battles([1000, 1040, 960, 1010], n_prompts=60, per_prompt=5, copy=0.4, even=0.1, rng=3,
                               names=("w", "x", "y", "z"))
    low, high, failed = arena_bootstrap(battles, n_boot=30, seed=11)
    assert failed == 0
    rng = np.random.default_rng(11)
    df = _frame(battles)
    rows = [_arena_mle_elo(df.sample(frac=1.0, replace=True, random_state=rng), battles.models) for _ in range(30)]
    lo, hi = np.percentile(rows, [2.5, 97.5], axis=0)
    assert np.max(np.abs(low - lo)) < 1e-7 and np.max(np.abs(high - hi)) < 1e-7


def test_win_rates_are_the_house_cr2_mean_clustered_by_prompt():
    battles = load_battles([str(EXAMPLE)])
    df = _frame(battles)
    for w in win_rates(battles)[:6]:
        mine = df[(df.model_a == w.model) & (df.model_b == w.opponent)]
        theirs = df[(df.model_a == w.opponent) & (df.model_b == w.model)]
        y = np.concatenate([mine.y.to_numpy(), 1.0 - theirs.y.to_numpy()])
        s = summarize(y, clusters=np.concatenate([mine.prompt, theirs.prompt]), interval="normal")
        assert w.rate == pytest.approx(s.mean, abs=1e-14) and w.n == len(y)
        assert w.se == pytest.approx(s.se, rel=1e-12) and w.df == pytest.approx(s.df, rel=1e-12)
        assert w.ci_low == pytest.approx(max(0.0, s.ci_low), abs=1e-12)


# ------------------------------------------------------------------------------------------------ properties
def test_a_swapped_file_gives_the_same_ratings_and_mirrored_win_rates():
    battles = load_battles([str(EXAMPLE)])
    swapped = battles_from_rows([{"prompt": p, "model_a": b, "model_b": a, "winner": {1.0: "b", 0.0: "a", 0.5: "tie"}[y]}
                                 for p, a, b, y in zip(battles.prompts, battles.model_a, battles.model_b,
                                                       battles.outcome, strict=True)])
    one, two = bradley_terry(battles), bradley_terry(swapped)
    order = [two.models.index(m) for m in one.models]
    assert np.allclose(one.ratings, two.ratings[order], atol=1e-9)
    assert np.allclose(one.covariance, two.covariance[np.ix_(order, order)], atol=1e-9)


def test_battles_needed_follow_the_normal_power_formula():
    assert battles_to_separate(20.0, 10.0, 1000) == math.ceil(1000 * ((1.959963985 + 0.841621234) * 10 / 20) ** 2)
    assert battles_to_separate(0.0, 10.0, 1000) is None
    res = pairwise_analysis(load_battles([str(EXAMPLE)]), n_boot=0)
    s = res.separation[0]
    needed = battles_to_separate(s.difference, s.se, res.n_battles)
    assert s.battles_needed == needed and needed > res.n_battles  # the closest pair is not separated yet
    assert res.ratings[0].rank == res.ratings[1].rank == 1 and res.ratings[0].group == res.ratings[1].group


def test_the_document_carries_the_named_keys():
    res = pairwise_analysis(load_battles([str(EXAMPLE)]), n_boot=20, seed=1)
    doc = res.to_dict()
    assert {"model", "rating", "se", "ci"} <= set(doc["ratings"][0])
    assert {"model", "opponent", "rate", "n", "ci"} <= set(doc["win_rates"][0])
    assert "400" in doc["scale"] and "1000" in doc["anchor"] and "half" in doc["ties"]
    json.dumps(doc, allow_nan=False)
    r = doc["ratings"][0]
    crit = t_crit(0.95, res.n_prompts - 1)
    assert r["ci"] == pytest.approx([r["rating"] - crit * r["se"], r["rating"] + crit * r["se"]], abs=1e-9)


def test_clustered_intervals_cover_with_prompt_effects_where_the_plain_ones_do_not():
    """400 seeded files of 3 models (true Elo 1000, 1050, 950), 60 prompts of 8 battles; a battle repeats its
    prompt's verdict on that pair with probability 0.7 (a judge's taste), so every battle's win chance is still the
    Bradley–Terry one. Measured (2,000 files): ratings 94.6-95.4%, win rates 94.3%, the plain (model-based) rating
    interval 82%."""
    d = BATTLE_DESIGN  # chapter 4's design, whose coverage the chapter quotes (BATTLE_COVERAGE)
    true, names = np.array(d["ratings"]), d["names"]
    truth = true - true.mean() + CENTRE
    rng = np.random.default_rng(2026)
    hits = np.zeros(3)
    plain = np.zeros(3)
    rate_hits = []
    reps = 400
    for _ in range(reps):
        b = simulate_battles(true, n_prompts=d["n_prompts"], per_prompt=d["per_prompt"], copy=d["copy"], rng=rng,
                             names=names)
        fit = bradley_terry(b)
        idx = [fit.models.index(n) for n in names]
        est = fit.ratings[idx]
        hits += np.abs(est - truth) <= t_crit(0.95, fit.df) * np.sqrt(np.diag(fit.covariance))[idx]
        plain += np.abs(est - truth) <= 1.959964 * np.sqrt(np.diag(fit.plain_covariance))[idx]
        for w in win_rates(b)[::2]:
            p = 1.0 / (1.0 + 10.0 ** ((true[names.index(w.opponent)] - true[names.index(w.model)]) / 400.0))
            rate_hits.append(w.ci_low <= p <= w.ci_high)
    assert np.all(hits / reps >= 0.93), hits / reps
    assert np.mean(rate_hits) >= 0.93, np.mean(rate_hits)
    assert np.all(plain / reps <= 0.88), plain / reps


def test_the_chapter_shows_the_clustered_se_above_the_independent_one_and_says_so():
    """Chapter 4's table: every model's SE clustered by prompt exceeds the one that treats battles as independent,
    and the sentence quotes the coverage this file's simulation holds (clustered >= 93%, independent <= 88%)."""
    frame, sentence = prompt_battles()
    clustered = frame["SE, battles clustered by prompt"].astype(float)
    plain = frame["SE if battles were independent"].astype(float)
    assert (clustered > plain).all() and list(frame["model"])[0] == "Breeze"
    assert BATTLE_COVERAGE[0] >= 0.93 and BATTLE_COVERAGE[1] <= 0.88
    assert f"{BATTLE_COVERAGE[0]:.0%}" in sentence and f"{BATTLE_COVERAGE[1]:.0%}" in sentence
    assert "480 battles over 60 prompts" in sentence


def test_exports_escape_user_text_and_neutralise_formula_cells():
    """Model names from the file go through each target's one escaper; CSV text cells starting = + - @ get a '."""
    names = ("=HYPERLINK(1)", "<script>x</script>", "a|b_$c", "@sum")
    from evalstats_core.pairwise_report import csv_tables, render_pairwise

    res = pairwise_analysis(simulate_battles([1000, 1010, 990, 1000], n_prompts=40, per_prompt=6, rng=5, names=names),
                            n_boot=0)
    tables = csv_tables(res)
    assert "'=HYPERLINK(1)" in tables["ratings.csv"] and "'@sum" in tables["win_rates.csv"]
    assert "\n=HYPERLINK" not in tables["ratings.csv"] and ",@sum" not in tables["win_rates.csv"]
    html = render_pairwise(res, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    md = render_pairwise(res, "markdown")
    assert "a\\|b" in md and "a|b" not in md
    tex = render_pairwise(res, "latex")
    assert r"a\textbar{}b\_\$c" in tex and "<script>" not in tex


def test_the_charts_draw_the_frames_the_core_computed():
    from evalstats_core.charts.pairwise import BOOTSTRAP, CLUSTERED, ratings_forest, win_matrix
    from evalstats_core.pairwise_report import ratings_frame, win_matrix_frame

    res = pairwise_analysis(load_battles([str(EXAMPLE)]), n_boot=30, seed=2)
    spec = ratings_forest(ratings_frame(res)).to_dict()
    rows = [r for d in spec["datasets"].values() for r in d if "interval" in r]
    top = res.ratings[0]
    assert {(r["model"], r["interval"], r["low"], r["high"]) for r in rows if r["model"] == top.model} == {
        (top.model, CLUSTERED, top.ci_low, top.ci_high), (top.model, BOOTSTRAP, top.boot_low, top.boot_high)}
    cells = [r for d in win_matrix(win_matrix_frame(res)).to_dict()["datasets"].values() for r in d]
    assert len(cells) == len(res.win_rates) and {c["label"] for c in cells} >= {"52.0%", "48.0%"}


@pytest.mark.parametrize("name", ["alpaca_eval_annotations.json", "arena_hard_v01_judgment.jsonl"])
def test_analyze_and_gate_send_a_pairwise_file_to_evalbars_pairwise(name, capsys):
    """A pairwise file given to analyze (or gate) is refused with one line that names the command that reads it."""
    from evalstats_core.cli import main

    for argv in (["analyze", str(FIX / name)], ["gate", str(FIX / name), "--baseline", "a", "--candidate", "b"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "holds pairwise preferences" in err[0] and f"evalbars pairwise {FIX / name}" in err[0]


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst", ".zip"])
def test_analyze_sends_a_compressed_pairwise_file_to_evalbars_pairwise(suffix, tmp_path, capsys):
    """A compressed pairwise file is sniffed on its decompressed head (the bounded reader's), so analyze names
    ``evalbars pairwise`` for it as for the plain file; a compressed scores file gets no such hint."""
    import bz2
    import gzip
    import lzma
    import zipfile

    from evalstats_core.cli import main

    def write(src: Path, name: str) -> Path:
        path = tmp_path / (name + suffix)
        raw = src.read_bytes()
        if suffix == ".zip":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
                zf.writestr(name, raw)
        elif suffix == ".zst":
            zstandard = pytest.importorskip("zstandard")
            path.write_bytes(zstandard.ZstdCompressor().compress(raw))
        else:
            path.write_bytes({".gz": gzip, ".bz2": bz2, ".xz": lzma}[suffix].compress(raw))
        return path

    battles = write(EXAMPLE, "pairwise_battles.tsv")
    assert main(["analyze", str(battles)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds pairwise preferences" in err[0] and f"evalbars pairwise {battles}" in err[0]
    assert main(["pairwise", str(battles), "--n-boot", "20"]) == 0  # the command named reads it
    capsys.readouterr()
    scores = tmp_path / "scores.csv"  # a scores file without a question column: refused, but no pairwise hint
    scores.write_text("colour,size\nred,1\nblue,0\n", encoding="utf-8")
    other = write(scores, "scores.csv")
    assert main(["analyze", str(other)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pairwise" not in err[0]
