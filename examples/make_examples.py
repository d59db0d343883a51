"""Regenerate the bundled example results files (deterministic: fixed numpy seeds).

    python examples/make_examples.py            # rewrites the seven CSVs beside this script

==============================  ==============================================================
``atlas_breeze.csv``            the 10 travel tasks of "Is That Improvement Real?" (wide form,
                                continuous scores; the worked Atlas/Breeze numbers)
``multilingual_clustered.csv``  an MGSM-like eval: 250 source questions x 10 languages = 2,500
                                questions in 250 clusters, 0/1 scores, 3 models (long form)
``synthetic_resampled.csv``     400 questions x 3 models x 5 answers per question, 0/1 scores
                                (long form; resamples to be averaged, never pooled)
``coding_12_repos.csv``         a SWE-bench-Verified-like coding eval: 500 issues in 12 repositories
                                of very unequal size (django 231 ... flask 1), 15 models, 0/1
                                "resolved" scores (wide form, ``cluster`` = repository)
``chat_5_sources.csv``          an AlpacaEval-like chat eval: 805 prompts from 5 source sets
                                (helpful_base, koala, oasst, selfinstruct, vicuna), 6 models, 0/1
                                win-vs-reference judgements (wide form, ``cluster`` = source set)
``code_samples.csv``            a HumanEval-like code eval for pass@k: 164 problems in 8 topics of unequal
                                size, 3 models, 10 sampled solutions a problem numbered in ``attempt``
                                (long form, 0/1 "passed the tests"; read with --resample-col attempt)
``judged_3_models.csv``         an LLM-judged eval: 2,000 questions x 3 models, the judge's 0/1 verdict
                                in ``score`` and a human's on a random 15% in ``human`` (long form; made
                                by ``make_judged_example.py``, which says how and keeps the truth)
==============================  ==============================================================

The clustered and resampled files come from a latent-ability model: each question has a difficulty
(shared by every model, which makes the models' scores correlated), each cluster adds a common shift
to its questions' difficulty (within-cluster correlation), and a model answers correctly with
probability ``logistic(ability_m - difficulty_i)``.

The two few-cluster files (12 and 5 clusters, the designs of issue 9's oracle and coverage tests)
add a model-by-cluster shift, so that a *difference* between two models is clustered too, and set
each model's ability so that its expected accuracy (over clusters and questions, by Gauss-Hermite
quadrature) is a chosen value; the realised accuracies scatter around it, as a real eval's would.
All names (models, issue ids) are invented; only the cluster sizes copy the public benchmarks.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# Seed 004 ("Is That Improvement Real?"), Part 2 table: Atlas and Breeze on the same 10 tasks.
ATLAS = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]
BREEZE = [0.89, 0.58, 0.74, 0.56, 0.94, 0.35, 0.80, 0.59, 0.88, 0.53]

LANGUAGES = ("bn", "de", "es", "fr", "ja", "ru", "sw", "te", "th", "zh")

# SWE-bench Verified: issues per repository (500 in all), as "owner__repo" prefixes of instance ids.
REPOS = {"django__django": 231, "sympy__sympy": 75, "sphinx-doc__sphinx": 44, "matplotlib__matplotlib": 34,
         "scikit-learn__scikit-learn": 32, "astropy__astropy": 22, "pydata__xarray": 22, "pytest-dev__pytest": 19,
         "pylint-dev__pylint": 10, "psf__requests": 8, "mwaskom__seaborn": 2, "pallets__flask": 1}
# Target expected accuracies of 15 invented coding agents (20% ... 75%).
CODERS = {"pelican-7b": 0.20, "heron-13b": 0.24, "ibis-34b": 0.28, "egret-mini": 0.32, "stork-70b": 0.36,
          "crane-v1": 0.40, "crane-v2": 0.44, "kite-lite": 0.48, "kite-pro": 0.52, "osprey-1": 0.56,
          "osprey-2": 0.60, "gannet-x": 0.64, "merlin-agent": 0.68, "harrier-agent": 0.72, "condor-max": 0.75}
# AlpacaEval: prompts per source set (805 in all).
SOURCES = {"helpful_base": 129, "koala": 156, "oasst": 188, "selfinstruct": 252, "vicuna": 80}
# Target expected win rates against the reference answer of 6 invented chat models.
CHATTERS = {"quill-base": 0.12, "quill-chat": 0.35, "lark-small": 0.42, "lark-large": 0.55,
            "wren-instruct": 0.63, "wren-dpo": 0.82}


def _expit(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _write(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def atlas_breeze() -> list[list[object]]:
    return [[f"Q{i + 1}", a, b] for i, (a, b) in enumerate(zip(ATLAS, BREEZE, strict=True))]


def multilingual(rng: np.random.Generator) -> list[list[object]]:
    """250 clusters x 10 languages, 3 models; cluster SD 1.6 and question SD 0.9 on the logit scale."""
    n_clusters, models = 250, {"Galleon": 1.70, "Dreadnought": 1.90, "Frigate": 1.30}
    cluster_shift = rng.normal(0.0, 1.6, n_clusters)  # (C,) shared by a source question's translations
    difficulty = np.repeat(cluster_shift, len(LANGUAGES)) + rng.normal(0.0, 0.9, n_clusters * len(LANGUAGES))
    rows = []
    for name, ability in models.items():
        correct = rng.random(difficulty.size) < _expit(ability - difficulty)  # (n,) one answer each
        for i, ok in enumerate(correct):
            c = i // len(LANGUAGES)
            rows.append([f"mgsm-{c + 1:03d}-{LANGUAGES[i % len(LANGUAGES)]}", name, int(ok), f"mgsm-{c + 1:03d}"])
    return rows


def resampled(rng: np.random.Generator) -> list[list[object]]:
    """400 questions, 3 models, K = 5 answers per (question, model) drawn at each question's own p."""
    n, k, models = 400, 5, {"base-7b": 0.35, "chat-7b": 0.45, "chat-13b": 0.60}
    difficulty = rng.normal(0.0, 1.5, n)  # (n,) shared across models
    rows = []
    for name, ability in models.items():
        p = _expit(ability - difficulty + rng.normal(0.0, 0.5, n))  # (n,) per-question accuracy
        answers = rng.random((n, k)) < p[:, None]  # (n, K) resamples
        for i in range(n):
            rows.extend([f"item-{i + 1:04d}", name, int(a)] for a in answers[i])
    return rows


def _ability(target: float, sd: float) -> float:
    """``a`` with ``E[logistic(a + Z)] = target`` for ``Z ~ N(0, sd^2)`` (Gauss-Hermite, 80 nodes; bisection)."""
    x, w = np.polynomial.hermite_e.hermegauss(80)  # probabilists' nodes: weight exp(-x^2/2)
    w = w / w.sum()
    lo, hi = -20.0, 20.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if float(w @ _expit(mid + sd * x)) < target else (lo, mid)
    return 0.5 * (lo + hi)


def few_clusters(rng: np.random.Generator, sizes: dict[str, int], models: dict[str, float], *,
                 sd_cluster: float, sd_question: float, sd_model_cluster: float,
                 question_id) -> list[list[object]]:
    """Wide rows ``[question, cluster, score per model]`` of a latent-ability model with few clusters.

    ``logit P(correct) = ability_m + u_g + v_i + w_mg``: a cluster shift ``u_g ~ N(0, sd_cluster^2)``
    and a question shift ``v_i ~ N(0, sd_question^2)`` shared by every model, and a model-by-cluster
    shift ``w_mg ~ N(0, sd_model_cluster^2)``. ``ability_m`` makes the expected accuracy the target.
    """
    names = list(sizes)
    n_g = np.array(list(sizes.values()))  # (G,)
    g = np.repeat(np.arange(n_g.size), n_g)  # (n,) cluster of each question
    sd_total = float(np.sqrt(sd_cluster**2 + sd_question**2 + sd_model_cluster**2))
    ability = np.array([_ability(t, sd_total) for t in models.values()])  # (M,)
    u = rng.normal(0.0, sd_cluster, n_g.size)  # (G,)
    v = rng.normal(0.0, sd_question, g.size)  # (n,)
    w = rng.normal(0.0, sd_model_cluster, (n_g.size, ability.size))  # (G, M)
    p = _expit(ability[None, :] + (u[g] + v)[:, None] + w[g])  # (n, M)
    correct = (rng.random(p.shape) < p).astype(int)  # (n, M)
    ids = [question_id(names[gi], j) for gi, size in enumerate(n_g) for j in range(size)]
    return [[ids[i], names[g[i]], *correct[i].tolist()] for i in range(g.size)]


def coding(rng: np.random.Generator) -> list[list[object]]:
    """500 issues in 12 repositories (SWE-bench Verified sizes), 15 agents; repository SD 0.6, issue SD 1.5."""
    numbers = rng.choice(np.arange(1000, 30000), size=sum(REPOS.values()), replace=False)  # invented issue numbers
    bounds = np.cumsum([0, *REPOS.values()])
    numbers = {repo: np.sort(numbers[lo:hi]) for repo, lo, hi in zip(REPOS, bounds[:-1], bounds[1:], strict=True)}
    return few_clusters(rng, REPOS, CODERS, sd_cluster=0.6, sd_question=1.5, sd_model_cluster=0.3,
                        question_id=lambda repo, j: f"{repo}-{numbers[repo][j]}")


def chat(rng: np.random.Generator) -> list[list[object]]:
    """805 prompts in 5 source sets (AlpacaEval sizes), 6 models; source SD 0.5, prompt SD 1.0."""
    return few_clusters(rng, SOURCES, CHATTERS, sd_cluster=0.5, sd_question=1.0, sd_model_cluster=0.3,
                        question_id=lambda src, j: f"{src}-{j + 1:03d}")


# Problems per topic of the pass@k example (164 in all, HumanEval's count) and its models' abilities (logit scale).
TOPICS = {"strings": 40, "lists": 32, "arithmetic": 28, "dicts": 20, "recursion": 16, "parsing": 12, "dates": 10,
          "regex": 6}
SAMPLERS = {"coder-s": -1.2, "coder-m": -0.3, "coder-l": 0.6}


def code_samples(rng: np.random.Generator, samples: int = 10) -> list[list[object]]:
    """164 problems in 8 topics, 3 models, ``samples`` solutions a problem: ``logit p = ability_m + u_topic + v_problem``
    (topic SD 0.7, problem SD 1.6, shared by the models), each solution passing with probability ``p``."""
    sizes = np.array(list(TOPICS.values()))
    g = np.repeat(np.arange(sizes.size), sizes)  # (n,) topic of each problem
    u = rng.normal(0.0, 0.7, sizes.size)  # (G,)
    v = rng.normal(0.0, 1.6, g.size)  # (n,)
    names = list(TOPICS)
    rows = []
    for model, ability in SAMPLERS.items():
        p = _expit(ability + u[g] + v)  # (n,)
        passed = rng.random((g.size, samples)) < p[:, None]  # (n, samples)
        for i in range(g.size):
            rows.extend([f"code/{i:03d}", names[g[i]], model, a + 1, int(passed[i, a])] for a in range(samples))
    return rows


def main(out: Path = HERE) -> None:
    """Write every example file into ``out`` (default: beside this script)."""
    _write(out / "atlas_breeze.csv", ["question", "Atlas", "Breeze"], atlas_breeze())
    _write(out / "multilingual_clustered.csv", ["question", "model", "score", "cluster"],
           multilingual(np.random.default_rng(20241101)))
    _write(out / "synthetic_resampled.csv", ["question", "model", "score"], resampled(np.random.default_rng(2411)))
    _write(out / "coding_12_repos.csv", ["question", "cluster", *CODERS], coding(np.random.default_rng(20250910)))
    _write(out / "chat_5_sources.csv", ["question", "cluster", *CHATTERS], chat(np.random.default_rng(20250905)))
    _write(out / "code_samples.csv", ["question", "topic", "model", "attempt", "score"],
           code_samples(np.random.default_rng(20211207)))
    _judged().main(out)  # judged_3_models.csv: its own script says how it is made


def _judged():
    """``make_judged_example.py`` beside this script (the LLM-judged example with human labels)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_judged_example", HERE / "make_judged_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
