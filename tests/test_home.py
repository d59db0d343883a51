"""The home page and the shared shell."""

from conftest import no_exceptions, run_page

from evalstats_app.chapters import PAGES


def test_home_renders_map_of_every_page():
    """The home page lists every chapter, the workbench and the reference."""
    at = run_page()
    no_exceptions(at)
    assert at.title[0].value == "evalstats"
    text = " ".join(m.value for m in at.markdown)
    assert "Where to start" in text
    assert [h.value for h in at.subheader] == ["Learn", "Analyze", "Reference", "Teach"]


def test_chapter_registry_paths_exist():
    """Every page in the registry has a script and a content file or is the workbench."""
    from conftest import ROOT
    for page in PAGES:
        assert (ROOT / page.path).name.endswith(".py")


def test_home_shows_each_chapters_measured_time():
    """Every Learn chapter's card carries the time measured from its page (evalstats_app.pacing), in the
    cards, and the note says how it is counted and adds them up."""
    from evalstats_app.chapters import LEARN, available
    from evalstats_app.pacing import chapter_time

    at = run_page()
    times = [c.value for c in at.caption if c.value.startswith(":material/schedule:")]
    learn = [p for p in LEARN if p in available()]
    expected = [f":material/schedule: about {chapter_time(p.slug).minutes} min" for p in learn]
    assert sorted(times) == sorted(expected)  # the cards sit in three columns
    total = sum(chapter_time(p.slug).minutes for p in learn)
    note = [c.value for c in at.caption if c.value.startswith("Times count what each chapter shows")]
    assert len(note) == 1 and "its words at 200 a minute" in note[0] and f"All chapters: about {total} min" in note[0]
    assert not any("This session" in c.value for c in at.caption)  # nothing visited yet


def test_home_shows_quiz_progress_after_answers():
    """Answers on two pages (one wrong) show up on the home page: per chapter and in total."""
    from evalstats_app.content import load_content

    at = run_page("pages/reference.py")
    ref = load_content("reference").quizzes
    at.radio(key="reference_quiz0_choice").set_value(ref[0].options[ref[0].answer]).run()
    at.button(key="reference_quiz0_check").click().run()
    at.switch_page("pages/temperature.py").run()
    q = load_content("temperature").quizzes
    at.radio(key="temperature_quiz1_choice").set_value(q[1].options[(q[1].answer + 1) % len(q[1].options)]).run()
    at.button(key="temperature_quiz1_check").click().run()
    at.switch_page("app.py").run()
    no_exceptions(at)
    captions = [c.value for c in at.caption]
    assert any(c.endswith(f"quiz 0 of {len(q)} correct, {len(q) - 1} to go") for c in captions), captions
    assert any(c == f":material/task_alt: quiz 1 of {len(ref)} correct, {len(ref) - 1} to go" for c in captions)
    assert any("Quizzes this session: 1 of 2 answered correctly" in c for c in captions)
