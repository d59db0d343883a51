"""Chapter 9 page (pages/judge.py) through AppTest: every control by key, the sentences, the URL, the link."""

from conftest import no_exceptions, run_page

from evalstats_core.lessons import judge as lesson

PATH = "pages/judge.py"


def test_opens_on_a_biased_judge():
    at = run_page(PATH)
    no_exceptions(at)
    assert at.title[0].value == "9 · The judge is an instrument"
    captions = [c.value for c in at.caption]
    frame = lesson.coverage_lab(0.97, 0.47, 200)
    assert lesson.coverage_sentence(frame) in captions
    assert lesson.flip_sentence(lesson.flip_panel(0.25, 200)) in captions
    assert "The verdict flips" in lesson.flip_sentence(lesson.flip_panel(0.25, 200))
    assert any(m.value == lesson.budget_sentence(0.97, 0.47) for m in at.markdown)


def test_controls_move_every_number():
    at = run_page(PATH)
    at.slider(key="judge_sens").set_value(0.9).run()
    at.slider(key="judge_spec").set_value(0.9).run()
    at.slider(key="judge_labels").set_value(100).run()
    at.slider(key="judge_bias").set_value(0.0).run()
    no_exceptions(at)
    captions = [c.value for c in at.caption]
    assert lesson.coverage_sentence(lesson.coverage_lab(0.9, 0.9, 100)) in captions
    assert lesson.flip_sentence(lesson.flip_panel(0.0, 100)) in captions
    assert at.query_params["judge_labels"] in ("100", ["100"])


def test_try_it_opens_the_judged_example():
    at = run_page(PATH)
    links = [el for el in at.get("page_link") if el.proto.label == "Try it on data"]
    assert len(links) == 1
    assert "judged" in str(links[0].proto)  # the link carries analyze_example=judged
