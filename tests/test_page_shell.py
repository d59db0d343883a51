"""The shell's cross-page pieces through AppTest: exported charts carry a title and the page's settings,
presenter mode (?present=1) and its switch, the print stylesheet on every page."""

from conftest import no_exceptions, run_page

from evalstats_app import shell
from evalstats_core.charts import to_svg


def test_chapter_chart_svg_names_its_title_and_the_links_settings():
    """A chapter's chart export (rendered lazily: a callable) carries the summary's first sentence as its
    title and the settings that differ from the defaults (here n = 300, acc = 0.8) in its subtitle."""
    at = run_page("pages/small_n.py", query={"one_model_n": "300", "one_model_acc": "0.8"})
    no_exceptions(at)
    exports = at.session_state["_evalstats_exports"]
    assert exports and all(callable(f) for f in exports.values())
    name, render = next(iter(exports.items()))
    svg = render()
    assert svg.startswith("<svg") and "evalstats · 2b · Accuracy at small N" in svg
    assert "n = 300" in svg and "acc = 0.8" in svg
    assert "lab_n" not in svg  # a setting at its default is not named
    assert any(d.proto.label == "SVG" for d in at.main.get("download_button"))


def test_exported_svg_carries_title_and_subtitle():
    """to_svg(title=, subtitle=): both texts in the SVG; without them the chart exports as before."""
    import altair as alt
    import pandas as pd

    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_line().encode(x="x:Q", y="y:Q")
    svg = to_svg(chart, title="Wider intervals at small n.",
                 subtitle="evalstats · 2 · One model's error bars · n = 300, acc = 0.8")
    assert "Wider intervals at small n." in svg
    assert "n = 300, acc = 0.8" in svg
    assert "Wider" not in to_svg(chart)


def test_settings_line_on_defaults_says_so():
    at = run_page("pages/one_model.py")
    svg = next(iter(at.session_state["_evalstats_exports"].values()))()
    assert "default settings" in svg
    assert shell._first_sentence("The **SE** falls as $1/n$. Then more.") == "The SE falls as 1/n."


def test_first_sentence_title():
    assert shell._first_sentence("At 95.4% the interval holds. It widens.") == "At 95.4% the interval holds."
    assert shell._first_sentence("no full stop") == "no full stop"


def test_present_mode_hides_nothing_but_adds_exit_and_stays_across_pages():
    """?present=1: the exit button is on the page and the toggle is on; switching pages keeps the mode
    (and ?present=1 in the URL); the exit button leaves it."""
    at = run_page("pages/clustering.py", query={"present": "1"})
    no_exceptions(at)
    assert any(b.key == "evalstats_present_exit" for b in at.button)
    assert at.toggle(key="evalstats_present").value is True
    at.switch_page("pages/power.py").run()
    no_exceptions(at)
    assert at.query_params.get("present") in ("1", ["1"])
    assert any(b.key == "evalstats_present_exit" for b in at.button)
    at.button(key="evalstats_present_exit").click().run()
    no_exceptions(at)
    assert not any(b.key == "evalstats_present_exit" for b in at.button)
    assert "present" not in at.query_params
    assert at.toggle(key="evalstats_present").value is False
    at.toggle(key="evalstats_present").set_value(True).run()
    assert any(b.key == "evalstats_present_exit" for b in at.button)
    assert at.query_params.get("present") in ("1", ["1"])


def test_no_presenter_by_default_and_print_css_everywhere():
    """Without ?present=1 there is no exit button; the print stylesheet is on the home page and a chapter."""
    for path in (None, "pages/problem.py"):
        at = run_page(path)
        no_exceptions(at)
        assert not any(b.key == "evalstats_present_exit" for b in at.button)
        htmls = [h.proto.body for h in at.get("html")]
        assert any("@media print" in h for h in htmls)
        assert not any("scroll-snap-type" in h for h in htmls)


def test_presenter_mode_projects_headings_and_moves_the_prose_to_speaker_notes():
    """Issue 40: in presenter mode a screen shows the heading, the chart, its controls and what to notice; the
    chapter's paragraphs (objectives and timing too) are not on the projected page at all but in its speaker
    notes, a second window (pages/notes.py, linked below the fold), and outside the mode the same paragraph is
    on the page as before."""
    from evalstats_app.content import load_content

    intro = next(p.strip() for p in load_content("clustering")["sim_intro"].split("\n\n") if not p.startswith("#"))
    heading = next(p.strip() for p in load_content("clustering")["sim_intro"].split("\n\n") if p.startswith("#"))
    plain = run_page("pages/clustering.py")
    assert any(intro[:60] in m.value for m in plain.markdown)
    at = run_page("pages/clustering.py", query={"present": "1"})
    no_exceptions(at)
    assert not [e for e in at.expander if e.label == "Speaker notes"]
    everywhere = " ".join(m.value for m in at.markdown)
    assert intro[:60] not in everywhere and "After this chapter you can" not in everywhere
    assert [c for c in at.caption if "(notes?notes_chapter=clustering)" in c.value]
    notes = run_page("pages/notes.py", query={"notes_chapter": "clustering"})
    no_exceptions(notes)
    shown = " ".join(m.value for m in notes.markdown)
    assert intro[:60] in shown and "After this chapter you can" in shown
    outside: list[str] = []

    def walk(node) -> None:  # the main column's markdown outside every expander: what is projected
        if getattr(node, "type", "") == "expander":
            return
        if getattr(node, "type", "") == "markdown":
            outside.append(node.value)
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at.main)
    assert not any(intro[:60] in v for v in outside)
    assert any(v.startswith("**How typical is this eval?**") for v in outside)  # the counter stays projected
    assert heading in outside  # the heading a plan link lands on stays on the slide
