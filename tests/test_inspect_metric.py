"""evalstats_core.inspect: our CR2 metrics run inside an offline ``inspect eval`` and land in its log.

A task of 24 samples in 4 subjects runs 3 epochs with a solver that calls no model (the ``mockllm``
provider is named but never asked: a plain ``generate()`` would download a tokenizer). The log is read
back with Inspect's own reader, and the metric values stored there must equal
:func:`evalstats_core.summarize` on the per-sample epoch means read from the same log's samples.
Marked ``slow`` by tests/conftest.py (an Inspect run takes a few seconds); skipped where inspect-ai is not installed.
"""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys

import pytest

from evalstats_core import summarize

# 4 clusters: the few-clusters caution is expected here
pytestmark = [pytest.mark.filterwarnings("ignore::evalstats_core.errors.EvalStatsWarning"),
              pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None,
                                 reason="inspect-ai is not installed; pip install -r requirements-dev.txt")]

SUBJECTS = ("algebra", "geometry", "history", "physics")


def _subject(i: int) -> str:
    """Unequal clusters of 3, 5, 7 and 9 samples (with equal sizes CR2's SE equals the C/(C-1) CR1 SE)."""
    return SUBJECTS[(i >= 3) + (i >= 8) + (i >= 15)]


def _task(metrics, subject=None):
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, Target, scorer
    from inspect_ai.solver import Generate, TaskState, solver

    @solver
    def canned():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            skill = (int(state.sample_id) * 5 + state.epoch * 7 + int(state.sample_id) // 6 * 3) % 10
            state.output = ModelOutput.from_content(model=str(state.model), content=f"skill {skill}")
            state.metadata["skill"] = skill
            return state

        return solve

    @scorer(metrics=[])
    def graded():
        async def score(state: TaskState, target: Target) -> Score:
            skill = state.metadata["skill"]
            return Score(value=CORRECT if skill >= 6 else PARTIAL if skill == 5 else INCORRECT)

        return score

    samples = [Sample(id=i, input=f"Q{i}?", target="yes", metadata={"subject": (subject or _subject)(i)})
               for i in range(24)]
    return Task(dataset=MemoryDataset(samples, name="offline"), solver=canned(), scorer=graded(), epochs=3,
                metrics=metrics)


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import accuracy, stderr

    from evalstats_core.inspect import cr2_ci, cr2_stderr

    metrics = [accuracy(), stderr(cluster="subject"), cr2_stderr(), cr2_stderr(cluster="subject"),
               cr2_ci(cluster="subject", confidence=0.9)]
    folder = tmp_path_factory.mktemp("inspect_logs")
    logs = inspect_eval(_task(metrics), model="mockllm/model", log_dir=str(folder), display="none")
    assert logs[0].status == "success", logs[0].error
    return read_eval_log(logs[0].location)


def _per_sample(log):
    """Each sample's epoch mean and subject, read from the log's samples (C/P/I = 1/0.5/0)."""
    values = {"C": 1.0, "P": 0.5, "I": 0.0}
    rows: dict[int, list[float]] = {}
    subject = {}
    for s in log.samples:
        rows.setdefault(s.id, []).append(values[s.scores["graded"].value])
        subject[s.id] = s.metadata["subject"]
    ids = sorted(rows)
    assert all(len(rows[i]) == 3 for i in ids)  # 3 epochs each
    return [sum(rows[i]) / 3 for i in ids], [subject[i] for i in ids]


def _metrics(log) -> dict:
    """Every metric of the run by its key in the log (Inspect keeps unreduced metrics in a second score)."""
    return {k: v for s in log.results.scores for k, v in s.metrics.items()}


def test_log_holds_our_cr2_numbers(log):
    means, subjects = _per_sample(log)
    metrics = _metrics(log)
    clustered = summarize(means, subjects, method="cr2")
    plain = summarize(means)
    at90 = summarize(means, subjects, method="cr2", confidence=0.9)
    assert metrics["accuracy"].value == pytest.approx(plain.mean, abs=1e-12)  # Inspect's own mean agrees
    assert metrics["cr2_stderr"].value == pytest.approx(plain.se, rel=1e-12)
    assert metrics["cr2_stderr2"].value == pytest.approx(clustered.se, rel=1e-12)
    assert metrics["ci_low"].value == pytest.approx(at90.ci_low, rel=1e-12)
    assert metrics["ci_high"].value == pytest.approx(at90.ci_high, rel=1e-12)
    assert metrics["df"].value == pytest.approx(at90.df, rel=1e-12)
    assert 1 < at90.df < 3  # 4 subjects: Satterthwaite df well below n - 1 = 23
    # Inspect's CR1-style SE (C/(C-1) correction) differs from CR2: the test can tell them apart
    assert not math.isclose(metrics["stderr"].value, clustered.se, rel_tol=1e-6)


def test_epochs_are_averaged_before_the_se(log):
    """The SE is that of 24 sample means, not of 72 epoch scores pooled as if independent."""
    values = {"C": 1.0, "P": 0.5, "I": 0.0}
    pooled = summarize([values[s.scores["graded"].value] for s in log.samples])
    assert pooled.n == 72
    assert not math.isclose(_metrics(log)["cr2_stderr"].value, pooled.se, rel_tol=1e-6)


def test_undefined_results_are_nan_and_missing_clusters_are_named(caplog):
    """Issue 46 changed the missing cluster from a raise (a traceback inside inspect eval) to nan and a log line
    naming it; sample_scores, the function, still raises it."""
    from inspect_ai.scorer import SampleScore, Score

    import evalstats_core.inspect as metrics
    from evalstats_core.errors import EvalStatsError
    from evalstats_core.inspect import cr2_ci, cr2_stderr, sample_scores

    one = [SampleScore(score=Score(value=1.0), sample_id=1, sample_metadata={"g": "a"})]
    assert math.isnan(cr2_stderr()(one))
    two_one_cluster = one + [SampleScore(score=Score(value=0.0), sample_id=2, sample_metadata={"g": "a"})]
    assert all(math.isnan(v) for v in cr2_ci(cluster="g")(two_one_cluster).values())
    metrics._SAID.clear()
    with caplog.at_level("WARNING", logger="evalstats_core.inspect"):
        assert math.isnan(cr2_stderr(cluster="topic")(two_one_cluster))
    assert any("no metadata key 'topic'" in r.getMessage() for r in caplog.records)
    with pytest.raises(EvalStatsError, match="no metadata key 'topic'"):
        sample_scores(two_one_cluster, "topic")
    with pytest.raises(EvalStatsError, match="confidence"):
        cr2_ci(confidence=95)


@pytest.mark.parametrize("odd", [math.nan, None, "not a grade", {"a": 1.0}, math.inf, -math.inf, [1, 0], True,
                                 "nan", b"1"])
def test_odd_score_values_never_raise_inside_the_metric(odd, caplog):
    """Issue 46: odd score values raised uncaught tracebacks in the metric. Each gives a number or nan, never an
    exception; a value that is not one finite number or grade gives nan and a log line naming the sample."""
    from inspect_ai.scorer import SampleScore, Score

    import evalstats_core.inspect as metrics

    scores = [SampleScore(score=Score(value=float(i % 2)), sample_id=i, sample_metadata={"g": "abc"[i % 3]})
              for i in range(12)]
    odd_label = [*scores[:7], SampleScore(score=Score(value=1.0), sample_id=7, sample_metadata={"g": {"x": 1}}),
                 *scores[8:]]
    # model_construct: a value Score's own validation refuses (None, bytes) can still reach a metric from a log
    scores[5] = SampleScore(score=Score.model_construct(value=odd), sample_id=5, sample_metadata={"g": "c"})
    metrics._SAID.clear()
    with caplog.at_level("WARNING", logger="evalstats_core.inspect"):
        se = metrics.cr2_stderr()(scores)
        ci = metrics.cr2_ci()(scores)
        assert math.isnan(metrics.cr2_stderr(cluster="g")(odd_label))
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "evalstats_core.inspect")
    assert "metadata['g']" in said  # a dict is no cluster label
    if odd is True or odd == "not a grade" or odd == "nan":  # booleans are 1/0; Inspect reads unknown text as 0
        assert math.isfinite(se) and math.isfinite(ci["ci_low"])
    else:
        assert math.isnan(se) and all(math.isnan(v) for v in ci.values())
        assert "sample 5 has score value" in said and "the metric is nan" in said


def test_module_imports_without_inspect_and_says_how_to_install():
    code = ("import sys; sys.modules['inspect_ai'] = None\n"
            "import evalstats_core.inspect as m\n"
            "try:\n    m.cr2_stderr\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "pip install inspect-ai" in out.stdout


def test_equal_clusters_agree_with_inspects_own_t_interval(tmp_path):
    """With 4 clusters of 6 samples, CR2 equals Inspect's C/(C-1) clustered SE and the Satterthwaite df is
    C - 1, so our interval must equal Inspect's ``ci(cluster=...)``: an independent implementation."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.scorer import ci

    from evalstats_core.inspect import cr2_ci

    task = _task([ci(level=0.95, cluster="subject"), cr2_ci(cluster="subject")], subject=lambda i: SUBJECTS[i // 6])
    (log,) = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="none")
    metrics = _metrics(log)
    assert metrics["df"].value == pytest.approx(3.0, rel=1e-9)
    assert metrics["ci_low"].value == pytest.approx(metrics["lower"].value, rel=1e-9)
    assert metrics["ci_high"].value == pytest.approx(metrics["upper"].value, rel=1e-9)


def test_cautions_go_to_logging_never_to_warnings(caplog):
    """A caution of the statistics (here: few clusters) reaches Inspect through logging, once, and no raw
    ``warnings`` line (which Inspect's display prints with its file path and source line) escapes."""
    import warnings

    from inspect_ai.scorer import SampleScore, Score

    import evalstats_core.inspect as metrics

    scores = [SampleScore(score=Score(value=float(i % 3 == 0)), sample_id=i, sample_metadata={"g": "abc"[i % 3]})
              for i in range(12)]
    metrics._SAID.clear()
    with warnings.catch_warnings(record=True) as escaped, caplog.at_level("WARNING", logger="evalstats_core.inspect"):
        warnings.simplefilter("always")
        for _ in range(3):  # as Inspect computes a metric more than once
            metrics.cr2_stderr(cluster="g")(scores)
            metrics.cr2_ci(cluster="g")(scores)
    assert not escaped, [str(w.message) for w in escaped]
    said = [r.getMessage() for r in caplog.records if r.name == "evalstats_core.inspect"]
    assert said and len(said) == len(set(said)) and all("cluster" in m for m in said), said
