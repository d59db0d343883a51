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
    assert [h.value for h in at.subheader] == ["Learn", "Analyze", "Reference"]


def test_chapter_registry_paths_exist():
    """Every page in the registry has a script and a content file or is the workbench."""
    from conftest import ROOT
    for page in PAGES:
        assert (ROOT / page.path).name.endswith(".py")


def test_reading_time_counts_main_path_and_quizzes_at_the_stated_pace():
    """Words = non-"deeper" sections + quiz questions, options and explanations; minutes = ceil(words / 200)."""
    from evalstats_app.content import WORDS_PER_MINUTE, Content, Quiz, main_path_words, reading_minutes

    c = Content("x", "X", "", sections={"intro": "one two three", "deeper_proof": "not " * 500,
                                        "notice": "four $a + b$", "deeper": "skip me"},
                quizzes=(Quiz("is it?", ("yes", "no way"), 0, "because so"),))
    assert main_path_words(c) == 3 + 4 + 2 + 1 + 2 + 2  # "four $a + b$" is four tokens
    assert WORDS_PER_MINUTE == 200
    assert reading_minutes(c) == 1  # at least one minute
    long = Content("y", "Y", "", sections={"intro": "w " * 401})
    assert reading_minutes(long) == 3 and reading_minutes(long, wpm=401) == 1


def test_home_shows_each_chapters_reading_time():
    """Every Learn chapter's card carries its computed reading time, in the order of the chapters."""
    from evalstats_app.chapters import LEARN, available
    from evalstats_app.content import load_content, reading_minutes

    at = run_page()
    times = [c.value for c in at.caption if c.value.startswith(":material/schedule:")]
    learn = [p for p in LEARN if p in available()]
    expected = {f":material/schedule: {reading_minutes(load_content(p.slug))} min read" for p in learn}
    assert len(times) == len(learn) and set(times) == expected
    assert any("at 200 words a minute" in c.value for c in at.caption)
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
