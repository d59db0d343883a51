"""Reference: the recommendations, what Llama 3 got wrong, the cheat sheet of formulas, how to cite.

Not a Learn chapter: no settings and no previous/next links; two quiz questions (recommendations, cheat sheet).
"""

import streamlit as st

from evalstats_app import shell
from evalstats_app.chapters import available, page_by_slug
from evalstats_core.lessons import reference as lesson

content = shell.page_setup("reference")


@shell.shared(max_entries=1, show_spinner=False)
def _drop():
    return lesson.llama3_drop()


st.markdown(content["intro"])
for section in ("reporting", "comparing", "designing", "right_now"):
    st.markdown(content[section])

st.markdown(content["llama"])
drop = _drop()
st.markdown(f"**One model's scores: Table 3's Galleon at {drop.score:g} F1 on DROP.**")
a, b, _ = st.columns(3)
a.metric(f"Bernoulli SE at {drop.score:g} F1", f"{drop.se_bernoulli:.2f}",
         help="sqrt(p(1-p)/n) with p = 0.871 and n = 9,622: Llama 3's formula, meant for 0/1 scores; on these "
              "scores the naive CLT SE can only be at or below it")
b.metric("Its clustered SE (Table 3)", f"{drop.score_clustered_se:.1f}",
         help="Miller 2024, Table 3: the same model's SE with its 588 passage clusters")
st.markdown(
    f"On one model's scores the Bernoulli SE is a ceiling: Galleon's naive SE is at most "
    f"**{drop.se_bernoulli:.2f}** points, and the clustered SE, **{drop.score_clustered_se:.1f}**, is "
    f"{drop.score_clustered_se / drop.se_bernoulli:.1f}× that ceiling. The generous formula still misses "
    "the passages.")
st.markdown("**A real model's scores: Table 4's DROP measurement** (a different model from the 87.1, so its "
            "naive SE is not bounded by the 0.34 above).")
a, b, c = st.columns(3)
a.metric("Naive CLT SE", f"{drop.se_naive:.2f}", help="Miller 2024, Table 4: questions treated as independent")
b.metric("Clustered SE", f"{drop.se_clustered:.2f}", help="Miller 2024, Table 4: 588 passage clusters (Eq. 4)")
c.metric("Clustered / naive", f"{drop.ratio:.2f}×", help="Miller 2024, Table 4")
st.markdown(
    f"DROP, {drop.n_questions:,} questions in {drop.n_clusters} passages, standard errors in F1 points: the "
    f"clustered SE is **{drop.ratio:.2f}×** the naive one (Table 4), a design effect of {drop.deff:.1f}, so "
    f"the eval is worth about **{drop.n_eff:,.0f}** independent questions. A 95% interval of "
    f"±{drop.halfwidth_naive:.2f} points on the naive SE becomes ±{drop.halfwidth_clustered:.2f} points "
    "once clustering is accounted for.")
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
