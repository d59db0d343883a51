"""Reference: the recommendations, what Llama 3 got wrong, the cheat sheet of formulas, how to cite.

Not a Learn chapter: no settings and no previous/next links; two quiz questions (recommendations, cheat sheet).
"""

import streamlit as st

from evalstats_app import shell
from evalstats_app.chapters import available, page_by_slug
from evalstats_core.lessons import reference as lesson

content = shell.page_setup("reference")


@st.cache_data(max_entries=1, show_spinner=False)
def _drop():
    return lesson.llama3_drop()


st.markdown(content["intro"])
for section in ("reporting", "comparing", "designing", "right_now"):
    st.markdown(content[section])

st.markdown(content["llama"])
drop = _drop()
a, b, c = st.columns(3)
a.metric(f"Bernoulli SE at {drop.score:g} F1", f"{drop.se_bernoulli:.2f}",
         help="sqrt(p(1-p)/n) with p = 0.871 and n = 9,622: Llama 3's formula, meant for 0/1 scores")
b.metric("Naive CLT SE", f"{drop.se_naive:.2f}", help="Miller 2024, Table 4: questions treated as independent")
c.metric("Clustered SE", f"{drop.se_clustered:.2f}", help="Miller 2024, Table 4: 588 passage clusters (Eq. 4)")
st.markdown(
    f"DROP, {drop.n_questions:,} questions in {drop.n_clusters} passages, standard errors in F1 points: the "
    f"clustered SE is **{drop.ratio:.2f}×** the naive one (Table 4), a design effect of {drop.deff:.1f}, so "
    f"the eval is worth about **{drop.n_eff:,.0f}** independent questions; it is {drop.ratio_bernoulli:.1f}× the "
    f"Bernoulli SE. A 95% interval of ±{drop.halfwidth_bernoulli:.2f} points on the Bernoulli SE becomes "
    f"±{drop.halfwidth_clustered:.2f} points once clustering is accounted for.")
st.markdown(content["llama_after"])

st.markdown(content["cheatsheet"])
pages = available()
for formula in content.meta.get("formula", []):
    with st.container(border=True):
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.markdown(f"**{formula['scenario']}**")
        left.latex(formula["latex"])
        chapter = page_by_slug(formula["slug"])
        if chapter in pages:
            right.page_link(chapter.path, label=chapter.title, icon=chapter.icon)
        right.caption(formula["source"])

st.markdown(content["quiz_intro"])
shell.quizzes(content)

st.markdown(content["cite"])
