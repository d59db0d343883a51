"""The chapter frame on every Learn page, through AppTest: title, promise, a "what to notice" box, each
quiz locking once checked (right and wrong) with the chapter's score, "Try it on data", and previous/next links.
Also: metrics whose delta is an annotation (a formula value, a verdict) show no up/down arrow."""

import pytest
from conftest import no_exceptions, run_page
from streamlit.proto.Metric_pb2 import Metric
from streamlit.testing.v1.errors import AppTestError

from evalstats_app.chapters import LEARN, neighbours
from evalstats_app.content import load_content


@pytest.fixture(scope="module", params=[p.slug for p in LEARN])
def chapter(request):
    slug = request.param
    return slug, run_page(f"pages/{slug}.py")


def test_title_promise_and_notice(chapter):
    """The page opens with its chapter title and promise and has at least one "What to notice" box."""
    slug, at = chapter
    no_exceptions(at)
    content = load_content(slug)
    assert at.title[0].value == content.title
    assert any(m.value == f"*{content.promise}*" for m in at.markdown)
    assert any(i.value.startswith("**What to notice**") for i in at.info)


def test_quizzes_lock_once_checked_and_keep_score(chapter):
    """Each quiz: nothing shown before "Check"; a checked answer locks (radio disabled, no Check button) and
    its verdict stays when another option is picked afterwards; the footer keeps the score.

    Quiz 0 is answered wrongly (the error names the right option), the others rightly ("Correct.")."""
    slug, at = chapter
    quizzes = load_content(slug).quizzes
    assert quizzes, f"{slug} has no quiz"
    total = len(quizzes)
    assert any(c.value.endswith(f"Score: {total} questions to answer.") for c in at.caption)
    for i, q in enumerate(quizzes):
        key = f"{slug}_quiz{i}"
        assert not any(q.explanation in e.value for e in [*at.success, *at.error])
        assert not at.radio(key=f"{key}_choice").disabled
        pick = (q.answer + 1) % len(q.options) if i == 0 else q.answer
        at.radio(key=f"{key}_choice").set_value(q.options[pick]).run()
        at.button(key=f"{key}_check").click().run()
        no_exceptions(at)
        radio = at.radio(key=f"{key}_choice")
        assert radio.disabled and radio.value == q.options[pick]
        assert not any(b.key == f"{key}_check" for b in at.button)
        wrong = [e for e in at.error if f"**{q.options[q.answer]}**" in e.value and q.explanation in e.value]
        right = [s for s in at.success if s.value == f"Correct. {q.explanation}"]
        assert (len(wrong), len(right)) == ((1, 0) if i == 0 else (0, 1))
        # a locked quiz takes no other pick: the browser cannot click it (disabled), and a value forced
        # into the session snaps back to the checked pick with the same verdict
        other = (pick + 1) % len(q.options)
        with pytest.raises(AppTestError, match="disabled"):
            at.radio(key=f"{key}_choice").set_value(q.options[other])
        at.session_state[f"{key}_choice"] = q.options[other]
        at.run()
        no_exceptions(at)
        assert at.radio(key=f"{key}_choice").value == q.options[pick]
        assert any(s.value == f"Correct. {q.explanation}" for s in at.success) == (i > 0)
        assert not any(s.value == f"Correct. {q.explanation}" for s in at.success) == (i == 0)
    scores = [c.value for c in at.caption if "Score:" in c.value]
    assert scores == [f":material/scoreboard: Score: {total - 1} of {total} correct."]


def test_check_without_a_pick_asks_for_one():
    """"Check my answer" with nothing picked asks for a pick and locks nothing."""
    at = run_page("pages/problem.py")
    at.button(key="problem_quiz0_check").click().run()
    no_exceptions(at)
    assert any(w.value == "Pick an answer first." for w in at.warning)
    assert not at.radio(key="problem_quiz0_choice").disabled
    assert any(b.key == "problem_quiz0_check" for b in at.button)


def test_locked_answer_and_score_survive_a_page_switch():
    """Answer on one chapter, visit the home page and come back: still locked, same verdict, same score;
    the home page shows the chapter as visited with its quiz progress."""
    at = run_page("pages/paired.py")
    q = load_content("paired").quizzes[0]
    at.radio(key="paired_quiz0_choice").set_value(q.options[q.answer]).run()
    at.button(key="paired_quiz0_check").click().run()
    total = len(load_content("paired").quizzes)
    at.switch_page("app.py").run()
    no_exceptions(at)
    captions = [c.value for c in at.caption]
    assert any(f"quiz 1 of {total} correct, {total - 1} to go" in c for c in captions), captions
    assert any("This session: 1 of " in c and "chapters visited" in c for c in captions)
    at.switch_page("pages/clustering.py").run()
    at.switch_page("pages/paired.py").run()
    no_exceptions(at)
    radio = at.radio(key="paired_quiz0_choice")
    assert radio.disabled and radio.value == q.options[q.answer]
    assert any(s.value == f"Correct. {q.explanation}" for s in at.success)
    assert any(c.value.endswith(f"Score: 1 of {total} correct ({total - 1} still to answer).") for c in at.caption)
    at.switch_page("app.py").run()
    assert any("This session: 2 of " in c.value for c in at.caption)
    assert any(":material/visibility: visited" in c.value for c in at.caption)  # clustering: no quiz answered


def test_try_it_links_open_the_workbench_with_valid_settings(chapter):
    """Each chapter with a TRY_IT entry ends with "Try it on data" -> the workbench, with its example and
    settings in the link; every key is a workbench URL setting and every value one it accepts."""
    from evalstats_app import workbench as wb
    from evalstats_app.chapters import TRY_IT
    from evalstats_app.shell import _parse
    from evalstats_app.workbench_bundle import valid as _valid

    slug, at = chapter
    links = [p.proto for p in at.main.get("page_link") if p.proto.label == "Try it on data"]
    entry = TRY_IT.get(slug)
    if entry is None:
        assert not links
        return
    assert len(links) == 1 and links[0].page == "analyze"
    assert dict(p.split("=", 1) for p in links[0].query_string.split("&")) == entry.query_params()
    assert entry.example in wb.CHOICES["analyze_example"]
    for key, text in entry.query_params().items():
        assert key in wb.DEFAULTS, key
        assert _valid(key, _parse(text, wb.DEFAULTS[key])), (key, text)
    assert any(c.value == entry.reason for c in at.caption)


def test_try_it_link_opens_the_example_with_its_settings():
    """Following the power chapter's link: the workbench opens on its example with its settings."""
    from evalstats_app.chapters import TRY_IT

    entry = TRY_IT["power"]
    at = run_page("pages/analyze.py", query=entry.query_params())
    no_exceptions(at)
    assert at.session_state["analyze_example"] == entry.example
    for key, text in entry.settings:
        assert float(at.session_state[key]) == float(text), key


def test_a_chapter_without_try_it_entry_shows_no_link(monkeypatch):
    """A missing mapping simply shows no link (the rest of the footer stays)."""
    from evalstats_app import chapters

    monkeypatch.delitem(chapters.TRY_IT, "problem")
    at = run_page("pages/problem.py")
    no_exceptions(at)
    labels = [p.proto.label for p in at.main.get("page_link")]
    assert "Try it on data" not in labels and "2a · One model's error bars →" in labels


def test_previous_and_next_links(chapter):
    """The footer links to the previous and next Learn chapters (the last one to the workbench)."""
    slug, at = chapter
    prev, nxt = neighbours(slug)
    links = {p.proto.label: p.proto.page for p in at.main.get("page_link")}
    if prev is not None:
        assert links[f"← {prev.title}"] == prev.slug  # the URL path Streamlit gives pages/<slug>.py
    else:
        assert not any(label.startswith("←") for label in links)
    if nxt is not None:
        assert links[f"{nxt.title} →"] == nxt.slug
    else:
        assert links["Analyze your own results →"] == "analyze"


# Metrics whose delta is a note beside the number, not a change: an arrow would mislead (e.g. an "up"
# arrow beside "73% smaller than unpaired").
ANNOTATIONS = {
    "clustering": ("Clustered SE", "Design effect", "Effective n"),
    "paired": ("Unpaired 95% CI", "Paired SE", "Paired 95% CI", "p-value (paired)", "SE reduction"),
    "resampling": ("SE at the best K",),
    "temperature": ("Var(x): between questions", "E[σ²]: within a question", "Var(x) at T → 0"),
}


def test_annotation_deltas_have_no_arrow(chapter):
    """Deltas that annotate a metric carry no arrow; signed changes (e.g. "+5.4 points vs T = 1") keep theirs."""
    slug, at = chapter
    labels = ANNOTATIONS.get(slug, ())
    by_label = {m.label: m for m in at.metric}
    for label in labels:
        m = by_label[label]
        assert m.proto.delta, label
        assert m.proto.direction == Metric.MetricDirection.NONE, label
    if slug == "temperature":
        signed = next(m for m in at.metric if m.label.startswith("Eval score at"))
        assert signed.proto.direction == Metric.MetricDirection.UP  # +5.4 points at T = 0.5


# One link per scenario that sets EVERY setting of the page away from its default (widgets that a mode
# hides get their own scenario). Values are (URL text, value the widget must take).
SCENARIOS = [
    ("problem", {"problem_errorbars": ("1", True), "problem_reveal": ("1", True), "problem_n": ("300", 300),
                 "problem_share": ("0.25", 0.25), "problem_seed": ("5", 5)}),
    ("one_model", {"one_model_task_draw": ("5", 5), "one_model_rerun_seed": ("3", 3)}),
    # part 2 of chapter 2 keeps the chapter's one_model_* keys (links made before the split still work)
    ("small_n", {"one_model_acc": ("0.8", 0.8), "one_model_n": ("300", 300), "one_model_lab_n": ("30", 30),
                 "one_model_uniform": ("0", False), "one_model_theta": ("0.7", 0.7), "one_model_lab_seed": ("4", 4)}),
    ("clustering", {"clustering_icc": ("0.5", 0.5), "clustering_m": ("5", 5), "clustering_k": ("25", 25),
                    "clustering_seed": ("3", 3)}),
    ("clustering", {"clustering_fc_preset": ("custom", "custom"), "clustering_fc_g": ("8", 8),
                    "clustering_fc_imbalance": ("0.3", 0.3), "clustering_fc_icc": ("0.2", 0.2),
                    "clustering_fc_seed": ("4", 4)}),
    ("paired", {"paired_rects": ("0", False), "paired_y": ("Atlas", "Atlas"), "paired_rho": ("0.7", 0.7), "paired_n": ("400", 400),
                "paired_seed": ("2", 2), "paired_both": ("100", 100), "paired_only_a": ("30", 30),
                "paired_only_b": ("10", 10), "paired_neither": ("60", 60)}),
    ("resampling", {"resampling_alpha": ("2.0", 2.0), "resampling_beta": ("3.0", 3.0), "resampling_k": ("6", 6),
                    "resampling_pool_n": ("100", 100), "resampling_pool_k": ("10", 10),
                    "resampling_seed": ("9", 9), "resampling_calls": ("5000", 5000),
                    "resampling_capped": ("0", False), "resampling_questions": ("1000", 1000),
                    "resampling_cost_q": ("2.0", 2.0), "resampling_mde_n": ("300", 300)}),
    ("temperature", {"temperature_dist": ("uniform", "uniform"), "temperature_range": ("0.1,0.8", (0.1, 0.8)),
                     "temperature_t": ("0.3", 0.3)}),
    ("temperature", {"temperature_dist": ("beta", "beta"), "temperature_alpha": ("2.0", 2.0),
                     "temperature_beta": ("1.5", 1.5), "temperature_t": ("0.2", 0.2)}),
    ("power", {"power_delta": ("0.04", 0.04), "power_alpha": ("0.1", 0.1), "power_power": ("0.9", 0.9),
               "power_omega_mode": ("variances", "variances"), "power_var_a": ("0.1", 0.1),
               "power_var_b": ("0.05", 0.05), "power_rho": ("0.6", 0.6), "power_sigma2_a": ("0.02", 0.02),
               "power_sigma2_b": ("0.03", 0.03), "power_k_a": ("3", 3), "power_k_b": ("2", 2),
               "power_deff": ("1.5", 1.5), "power_n": ("500", 500)}),
    ("power", {"power_omega2": ("0.2", 0.2)}),  # direct entry is the default mode
    ("power", {"power_omega_mode": ("preset", "preset"), "power_preset": ("binary_close", "binary_close")}),
    ("verdict", {"verdict_rho_math": ("0.8", 0.8), "verdict_rho_humaneval": ("0.3", 0.3), "verdict_rho_mgsm": ("0.6", 0.6),
                 "verdict_step": ("2 · Paired", "2 · Paired")}),
    ("judge", {"judge_sens": ("0.9", 0.9), "judge_spec": ("0.8", 0.8), "judge_labels": ("120", 120),
               "judge_bias": ("0.1", 0.1), "judge_selected": ("1", True)}),
]


def _url_keys(slug: str) -> set[str]:
    """The keys the page hands to shell.UrlState (read from its source, so a new setting joins the check)."""
    import re
    from pathlib import Path

    source = Path(f"pages/{slug}.py").read_text()
    block = source[source.index("UrlState("):source.index("bounds=", source.index("UrlState("))]
    keys = set(re.findall(r'"([a-z][a-z0-9_]+)"\s*:', block))  # the defaults' keys (2b's are one_model_*)
    if "**CELLS" in block:  # the paired page spreads its McNemar cells in from a dict
        keys |= set(re.findall(rf'"({slug}_[a-z0-9_]+)"\s*:', source[source.index("CELLS = "):source.index("state =")]))
    if "RHO_KEYS.items()" in block:  # the verdict page names one correlation per benchmark of its lesson
        from evalstats_core.lessons.verdict import PAPER_RHO

        keys |= {f"{slug}_rho_{name.lower()}" for name in PAPER_RHO}
    return keys


@pytest.mark.parametrize("slug", sorted({p.slug for p in LEARN}))
def test_scenarios_cover_every_url_setting(slug):
    """Together the scenarios below set every setting each chapter mirrors into the URL."""
    covered = set().union(*(set(s) for page, s in SCENARIOS if page == slug))
    assert covered == _url_keys(slug)


@pytest.mark.parametrize("slug, settings", SCENARIOS, ids=[f"{s}-{i}" for i, (s, _) in enumerate(SCENARIOS)])
def test_a_link_restores_every_setting(slug, settings):
    """A link carrying every setting opens the page with each widget at that value and keeps them in the URL."""
    at = run_page(f"pages/{slug}.py", query={k: text for k, (text, _) in settings.items()})
    no_exceptions(at)
    at.run()  # a second rerun must not fall back to the defaults
    no_exceptions(at)
    for key, (text, value) in settings.items():
        shown = at.session_state[key]
        if isinstance(value, float):
            assert shown == pytest.approx(value), key
        elif isinstance(value, tuple):
            assert tuple(shown) == pytest.approx(value), key
        else:
            assert shown == value, key
        url = at.query_params.get(key)
        url = url[0] if isinstance(url, list) else url
        assert url is not None and _same(url, text), key


def _same(url: str, text: str) -> bool:
    """Equal as URL values: the page may write 2.0 as '2.0' and 0.1 as '0.1'."""
    try:
        return [float(a) for a in url.split(",")] == [float(b) for b in text.split(",")]
    except ValueError:
        return url == text
