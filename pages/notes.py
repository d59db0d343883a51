"""Speaker notes: a chapter's prose screen by screen, for the teacher's own window while presenter mode
projects the chapter (issue 40). ``notes?notes_chapter=<slug>``; the lesson plan and each chapter in presenter
mode link here. The screens come from evalstats_app.notes (the page's prose in the order the page draws it);
this page only lays them out, with the chapter's objectives and its steps in the lesson plan. Opened beside a
presenting tab of the same browser, it follows the projector: the chapter it shows and the heading at its top.
"""

import json

import streamlit as st

from evalstats_app import shell
from evalstats_app.chapters import LEARN, page_by_slug
from evalstats_app.content import load_content
from evalstats_app.notes import screens
from evalstats_app.pacing import chapter_time

# Follow the projector: the presenter's tab (presenter._PRESENT_JS) says which chapter and heading it shows; this
# window opens that chapter's notes, and scrolls its screen to the top. Static text: the chapters' slugs, no input.
FOLLOW_JS = r"""<style>.st-key-notes_follow{display:none !important}</style><script>
(() => {
  if (!('BroadcastChannel' in window)) return;
  const win = window.parent || window, doc = win.document;
  const SLUGS = SLUG_LIST, CURRENT = 'CURRENT_SLUG';
  const channel = new BroadcastChannel('evalstats_notes');
  channel.onmessage = (ev) => {
    const m = ev.data || {};
    if (!SLUGS.includes(m.slug)) return;
    if (m.slug !== CURRENT) { win.location.search = '?notes_chapter=' + m.slug; return; }
    const want = String(m.title || '').trim();
    const hs = Array.from(doc.querySelectorAll('[data-testid="stMain"] h3'));
    const hit = want ? hs.find(h => h.textContent.trim().replace(/^\d+\. /, '') === want) : hs[0];
    const title = doc.querySelector('[data-testid="stMain"] h1');
    if (hit) hit.scrollIntoView({block: 'start'});
    else if (title && want && title.textContent.includes(want)) title.scrollIntoView({block: 'start'});
  };
  channel.postMessage({ask: true});
})();
</script>"""

shell.page_setup(None)
slugs = [p.slug for p in LEARN]
state = shell.UrlState({"notes_chapter": slugs[0]}, choices={"notes_chapter": slugs})
slug = st.sidebar.selectbox("Speaker notes of", slugs, key="notes_chapter", format_func=lambda s: page_by_slug(s).title)
content = load_content(slug)
st.title(f"Speaker notes · {content.title}")
st.caption("For your screen, not the projector. In presenter mode the chapter projects its headings, formulas, "
           "charts, controls and what to notice; the paragraphs below are what it leaves out, screen by screen, "
           "in the order the chapter shows them. A numbered title is a heading on the slide (the presenter's keys stop "
           "there); a line marks a paragraph that opens on its own bold title, which is not projected. Opened beside "
           "a presenting tab of this browser, this window follows it: the chapter it projects, and the heading at "
           "the top of its screen.")
st.page_link(page_by_slug(slug).path, label=f"Project {content.title}", icon=":material/slideshow:",
             query_params={"present": "1"})

objectives = content.meta.get("objectives") or []
timing = chapter_time(slug)
if objectives:
    st.markdown(f"**{content.meta.get('objectives_heading', 'After this chapter you can')}**\n\n"
                + "\n".join(f"- {line}" for line in objectives))
if timing is not None:
    st.caption(f":material/schedule: About {timing.minutes} min read alone: {timing.describe()}.")
plan = load_content("teach").meta
for name, label in (("step", "90-minute class"), ("second", "second session")):
    for i, step in enumerate(plan.get(name, []), 1):
        if step["slug"] == slug:
            st.info(f"**Lesson plan, {label}, step {i} ({step['minutes']} min): {step['heading']}.** "
                    f"{step['do']}\n\n**Ask the class:** {step['ask']}", icon=":material/school:")

number = 0
for screen in screens(slug):
    if screen.projected:
        number += 1
        st.subheader(f"{number}. {screen.title}", anchor=False)
    elif screen.title:  # a paragraph's bold lead-in, not a heading on the slide: the paragraph shows it
        st.divider()
    else:
        st.subheader("Opening (the title and the promise)", anchor=False)
    for kind, text in screen.parts:
        if kind == "formula":
            st.latex(text)
        else:
            st.markdown(text)
    if not screen.parts:
        st.caption("Nothing to read here: the slide carries it.")

with st.container(key="notes_follow"):
    st.html(FOLLOW_JS.replace("SLUG_LIST", json.dumps(slugs)).replace("CURRENT_SLUG", slug),
            unsafe_allow_javascript=True)
i = slugs.index(slug)
left, right = st.columns(2)
if i > 0:
    left.page_link("pages/notes.py", label=f"← {page_by_slug(slugs[i - 1]).title}",
                   query_params={"notes_chapter": slugs[i - 1]})
if i + 1 < len(slugs):
    right.page_link("pages/notes.py", label=f"{page_by_slug(slugs[i + 1]).title} →",
                    query_params={"notes_chapter": slugs[i + 1]})
state.sync()
