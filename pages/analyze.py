"""Analyze your results: the workbench. Load a results file, confirm its columns, and read each model's
error bars, the paired comparisons, an honest ranking, the guardrails and the plan for the next run."""

import streamlit as st

from evalstats_app import shell, workbench_judge, workbench_pairwise, workbench_passk, workbench_reported
from evalstats_app import workbench as wb
from evalstats_app import workbench_reading as reading
from evalstats_app import workbench_sections as sections
from evalstats_app import workbench_server as server

content = shell.page_setup("analyze")
state = shell.UrlState(wb.DEFAULTS, bounds=wb.BOUNDS, choices=wb.CHOICES)
wb.warm_up()  # the plan's solvers imported in the background, once per server


# The pair to explain and the plan's pair, effect, alpha and power change one section each: fragments, so
# moving them reruns that section only (in the app; AppTest reruns the whole script). The plan writes the
# URL itself, since a fragment rerun skips the end of the page.
@st.fragment
def why_part(source, prepared, roles_key, results) -> None:
    sections.why_section(content, source, prepared, roles_key, results)


@st.fragment
def plan_part(source, prepared, roles_key, results) -> None:
    sections.plan_section(content, source, prepared, roles_key, results)
    state.sync()


@st.fragment
def results_part(source, read) -> None:
    """The analysis controls and every result they change: moving one (a confidence level, an adjustment, an
    interval) reruns this part only, so the browser redraws the results, not the reading controls above them
    nor the notes and quizzes below (in the app; AppTest reruns the whole script)."""
    prepared, roles_key = read.prepared, read.options
    st.markdown("---")
    settings = wb.analysis_controls(prepared.table.models)
    base = wb.run(source, read, settings)
    files = source.files or ((source.name, source.data),)
    results = workbench_judge.corrected(prepared, base, source.key, roles_key, files)  # human labels: PPI++
    results = wb.corrected_key(base, results)
    if results is not None:
        st.session_state[wb.LAST_KEY] = results.analysis  # the analysis the page shows (corrected or not)
        sections.models_section(content, sections.design_of(wb.kept_sums(source, read)), results,
                                settings["method"])
        pass_at = workbench_passk.passk_section(content, source, read, results)  # several 0/1 samples: pass@k
        workbench_judge.judge_section(prepared, results, source.key, roles_key, files)
        sections.compare_section(content, results)
        why_part(source, prepared, roles_key, results)
        sections.rank_section(content, results)
        sections.guardrails_section(content, results)
        plan_part(source, prepared, roles_key, results)
        sections.export_section(content, prepared, results, settings["method"], pass_at=pass_at)
    state.sync()  # a rerun of this part skips the end of the page, where the URL is written


st.markdown(content["intro"])
mode = wb.mode_control(content)

if mode == "reported":
    workbench_reported.reported_section(content)
else:
    source = reading.source_controls(content)
    read = None if source.problem or source.path or source.pairwise else reading.roles_controls(content, source)
    if source.pairwise:  # battles of two models (prompt, model_a, model_b, winner; AlpacaEval; Arena-Hard)
        workbench_pairwise.pairwise_section(content, source)
    elif source.path:  # a folder or big table on the server: DuckDB's sums, the sections they give
        server.sql_sections(content, source)
    elif read is not None and read.prepared is not None:
        results_part(source, read)

shell.notice(content["notice"], title="The rules this page follows")
state.sync()
for i, q in enumerate(content.quizzes):
    shell.quiz(q, key=f"analyze_quiz{i}")
st.page_link("app.py", label="← All chapters", icon=":material/home:")
