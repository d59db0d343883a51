"""Chapter 9's computations: the vectorised lab equals ppi_mean draw by draw; the sentences quote their tables."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evalstats_core import ppi_mean, summarize
from evalstats_core.judge_rows import ppi_rows
from evalstats_core.lessons import judge as lesson
from evalstats_core.lessons.judge import _ppi_rows


@pytest.mark.parametrize(("n_total", "n_labels", "sens", "spec"), [(250, 30, 0.97, 0.47), (1000, 200, 0.6, 0.99)])
def test_vectorised_lab_equals_ppi_mean_and_summarize(n_total, n_labels, sens, spec):
    y, f, lab = lesson.lab_draws(n_total, n_labels, sens, spec, reps=5, rng=4)
    est, low, high = _ppi_rows(y, f, lab, 0.95)
    for r in range(5):
        e = ppi_mean(f[r], np.where(lab[r], y[r], np.nan))
        assert est[r] == pytest.approx(e.estimate, abs=1e-12)
        assert (low[r], high[r]) == pytest.approx((e.ci_low, e.ci_high), rel=1e-9)
    s = summarize(f[0], interval="normal")  # the lab's judge-only interval is the t one (issue 20: auto may pick Wilson)
    assert s.ci_high - s.mean == pytest.approx(
        2 * float(lesson.stdtrit(n_total - 1, 0.975)) * f[0].std(ddof=1) / np.sqrt(n_total) / 2)


@pytest.mark.parametrize(("n_labels", "sens", "spec", "selected"),
                         [(200, 0.97, 0.83, False), (30, 0.6, 0.5, False), (30, 0.99, 0.99, True), (100, 0.9, 0.9, True)])
def test_lab_counts_equal_the_rows_on_every_draw(n_labels, sens, spec, selected):
    """The lab's count form (issue 40 item 9) against judge_rows.ppi_rows on the arrays, all 200 draws, including
    the draws where the human labels alone are narrower (a judge near chance)."""
    y, f, lab = lesson.lab_draws(500, n_labels, sens, spec, reps=200, rng=[0, 1], selected=selected)
    got = _ppi_rows(y, f, lab, 0.95)
    est, _, _, lam, low, high = ppi_rows(f, y, lab, level=0.95)
    for a, b in zip(got, (est, low, high), strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    if (sens, spec) == (0.6, 0.5):
        assert (lam == 0).sum() >= 20  # the human-only rows are exercised


def test_biased_judge_loses_coverage_and_the_corrected_holds():
    frame = lesson.coverage_lab(0.97, 0.47, 200)
    judge = frame[frame["kind"] == "judge only"]
    corr = frame[frame["kind"] == "corrected"]
    assert judge["coverage"].max() < 0.05
    assert corr["coverage"].between(0.9, 0.99).all()


def _pcts(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"(\d+(?:\.\d)?)%", text)]


@pytest.mark.parametrize(("sens", "spec", "labels"), [(0.97, 0.47, 30), (0.9, 0.9, 200), (0.99, 0.99, 100),
                                                      (0.6, 0.5, 240), (0.5, 0.3, 60)])
def test_coverage_sentence_quotes_its_table(sens, spec, labels):
    frame = lesson.coverage_lab(sens, spec, labels)
    text = lesson.coverage_sentence(frame)
    judge = frame[frame["kind"] == "judge only"].set_index("n_total")
    corr = frame[frame["kind"] == "corrected"].set_index("n_total")
    assert f"{100 * judge['bias'].mean():+.1f} points" in text
    assert f"{100 * judge.loc[250, 'coverage']:.0f}%" in text and f"{100 * judge.loc[8000, 'coverage']:.0f}%" in text
    assert f"covers {100 * corr['coverage'].min():.0f}% to {100 * corr['coverage'].max():.0f}%" in text
    assert f"{100 * corr.loc[8000, 'half_width']:.1f} points at 8,000" in text
    assert ("more questions only narrow it around the wrong value" in text) == (abs(100 * judge["bias"].mean()) >= 0.5)


@pytest.mark.parametrize("bias", [0.0, 0.1, 0.2, 0.3])
@pytest.mark.parametrize("labels", [30, 120, 240])
def test_flip_sentence_reads_the_panel(bias, labels):
    frame = lesson.flip_panel(bias, labels)
    text = lesson.flip_sentence(frame)
    by = frame.set_index("kind")
    nums = [float(x.replace("−", "-")) for x in re.findall(r"[−+]\d+\.\d", text)]
    j, c = by.loc["judge only"], by.loc["corrected"]
    expect = [round(100 * v, 1) for v in (j.estimate, j.ci_low, j.ci_high, c.estimate, c.ci_low, c.ci_high,
                                         frame["truth"].iloc[0])]
    assert nums == pytest.approx(expect, abs=0.051)

    def verdict(lo, hi):
        return "A ahead" if lo > 0 else "B ahead" if hi < 0 else "unresolved"

    vj, vc = verdict(j.ci_low, j.ci_high), verdict(c.ci_low, c.ci_high)
    assert f"{vj}. Corrected" in text and text.count(vc) >= 1
    assert ("verdict flips" in text) == (vj != vc)


def test_flip_grows_with_the_bias():
    ests = [lesson.flip_panel(b, 200).set_index("kind").loc["judge only", "estimate"] for b in (0.0, 0.1, 0.2, 0.3)]
    assert all(a > b for a, b in zip(ests, ests[1:], strict=False))
    corr = {lesson.flip_panel(b, 200).set_index("kind").loc["corrected", "estimate"] for b in (0.0, 0.3)}
    assert max(corr) - min(corr) < 0.03  # the humans' labels do not care about the judge's bias


def test_budget_sentence_numbers():
    from evalstats_core import labels_needed

    text = lesson.budget_sentence(0.9, 0.8)
    b = labels_needed(0.03, n_total=8000, sensitivity=0.9, specificity=0.8, pass_rate=0.7)
    assert f"passes {100 * (0.9 * 0.7 + 0.2 * 0.3):.1f}%" in text
    assert f"needs {b.with_judge:,} labels" in text and f"alone need {b.without_judge:,}" in text


@pytest.mark.parametrize("selected", [False, True])
def test_lab_labels_the_rows_smallest_keys(selected):
    """The labelled questions are each row's n_labels smallest sampling keys (the readable full sort, redrawn
    from the same seed, against the lab's partition)."""
    n_total, n_labels, reps = 400, 37, 6
    _, judge, lab = lesson.lab_draws(n_total, n_labels, 0.9, 0.7, reps=reps, rng=5, selected=selected)
    gen = np.random.default_rng(5)
    gen.random((reps, n_total)), gen.random((reps, n_total))  # truth and judge draws, as lab_draws makes them
    keys = gen.random((reps, n_total))
    if selected:
        keys = -np.log1p(-keys) / np.where(judge == 1.0, 1.0, lesson.SELECTED_WEIGHT)
    for r in range(reps):
        expected = np.zeros(n_total, dtype=bool)
        expected[np.argsort(keys[r])[:n_labels]] = True
        assert (lab[r] == expected).all() and lab[r].sum() == n_labels
