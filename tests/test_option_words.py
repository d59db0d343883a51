"""One vocabulary for the options a message names: the core (API) says ``question_col=``, the command line
``--question-col`` (:func:`evalstats_core.flags.for_cli`), the workbench the control that sets it
(:func:`evalstats_app.option_words.for_workbench`); a notebook or workbench user never reads a flag they cannot
type, and the command line still exits 2 with one line on stderr."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, no_exceptions, run_page
from test_layers import CORE, _cli_flags, _modules, _strings

from evalstats_app.option_words import CLUSTER_LABEL, CONTROLS, for_workbench
from evalstats_app.workbench import INJECT_KEY, LAST_KEY
from evalstats_core import cli
from evalstats_core.data import load
from evalstats_core.errors import EvalStatsError
from evalstats_core.flags import OPTIONS, for_cli
from evalstats_core.limits import Limits

#: where the command line is written (its parser, its printer, its reading options, its engine switch, this
#: vocabulary), and the LaTeX ``--columns`` help (report_latex.py), which prints a command line on purpose;
#: ``settings.command`` (report.py) takes its spellings from flags.py, so report.py is held to the rule
COMMAND_LINE = {"cli.py", "flags.py", "report_latex.py"}


@pytest.mark.parametrize("path", [p for p in _modules(CORE) if p.name not in COMMAND_LINE],
                         ids=lambda p: str(p.relative_to(CORE)))
def test_no_core_message_spells_a_command_line_flag(path):
    flags = _cli_flags()
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(flags, key=len, reverse=True))) + r")(?![\w-])")
    found = sorted({m for s in _strings(path) for m in pattern.findall(s)})
    assert found == [], f"{path.name} spells {found}: name the keyword (question_col=) and let flags.for_cli spell it"


def test_the_gates_messages_name_the_api_keywords(tmp_path, capsys):
    """A margin of 5 on 0/1 scores is refused with the API's fix (margin='5pt') in the API and the command line's
    (--margin 5pt) on the CLI."""
    from evalstats_core.gating import gate

    rows = "question,base,cand\n" + "".join(f"q{i},{i % 2},{(i // 2) % 2}\n" for i in range(40))
    with pytest.raises(EvalStatsError) as err:
        gate(load(rows.encode(), name="g.csv"), baseline="base", candidate="cand", margin=5)
    assert "write margin='5pt'" in str(err.value) and "--" not in str(err.value)
    path = tmp_path / "g.csv"
    path.write_text(rows)
    assert cli.main(["gate", str(path), "--baseline", "base", "--candidate", "cand", "--margin", "5"]) == 2
    stderr = capsys.readouterr().err
    assert len(stderr.strip().splitlines()) == 1 and "write --margin 5pt" in stderr


def test_every_option_a_message_may_name_is_an_option_of_the_command_line():
    flags = _cli_flags()
    assert set(OPTIONS.values()) <= flags, set(OPTIONS.values()) - flags


def test_every_control_the_workbench_names_is_a_label_on_its_pages():
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "evalstats_app").glob("workbench*.py"))
    source = source.replace("CLUSTER_LABEL", repr(CLUSTER_LABEL))  # a label the pages take from option_words
    for key, label in CONTROLS.items():
        assert label.strip("'") in source, (key, label)


@pytest.mark.parametrize("core, cli_words, page_words", [
    ("pass question_col=", "pass --question-col", "pass 'Question column'"),
    ("choose duplicates='error' to stop", "choose --duplicates error to stop",
     "choose 'Several rows for one question and model are': an error (duplicated rows) to stop"),
    ("leave it out with ignore_cols=('n tokens',)", "leave it out with --ignore-col 'n tokens'",
     "leave it out with 'Columns to leave out': n tokens"),
    ("read them with runs_in_ids=True", "read them with --runs-in-ids",
     "read them with 'Read question ids like 1.1, 1.2 as runs of question 1'"),
    ("(use_clusters=False)", "(--no-clusters)", "('Cluster column': (none))"),
    ("(method='cr2')", "(--cluster-se cr2)", "('Standard errors': CR2 + Satterthwaite t (default))"),
    ("raise it with limits=Limits(max_rows=...) or", "raise it with --max-rows or",
     "raise it with the server's settings or"),
    ("(engine='memory')", "(--engine memory)", "(engine='memory')"),  # no control on the page: the API's words
    ("with labels_all_models=True (it", "with --labels-all-models (it",  # asked of the reader: where to set it
     "with --labels-all-models on the command line, which this page does not offer (it"),
    ("model 'x=y' and use_clusters=True", "model 'x=y' and use_clusters=True", "model 'x=y' and use_clusters=True"),
])
def test_each_surface_respells_the_core_words(core, cli_words, page_words):
    assert for_cli(core) == cli_words
    assert for_workbench(core) == page_words


MISSING_QUESTION = b"prompt,output\nhello,1\nbye,0\n"


def test_a_missing_column_is_named_in_each_surfaces_words(tmp_path, capsys):
    """The API names the keyword, the CLI its flag (exit 2, one stderr line), the workbench its control (one
    st.error), and none of them another surface's spelling."""
    with pytest.raises(EvalStatsError) as err:
        load(MISSING_QUESTION, name="bad.csv")
    api = str(err.value)
    assert "choose it with question_col=" in api and "--" not in api
    path = tmp_path / "bad.csv"
    path.write_bytes(MISSING_QUESTION)
    assert cli.main(["analyze", str(path)]) == 2
    out, stderr = capsys.readouterr()
    lines = stderr.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0] == f"evalbars: error: {for_cli(api)}"
    assert "choose it with --question-col" in lines[0] and "question_col=" not in lines[0]
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": "bad.csv", "data": MISSING_QUESTION}
    at.run()
    no_exceptions(at)
    assert len(at.error) == 1 and LAST_KEY not in at.session_state
    shown = re.sub(r"\\(.)", r"\1", at.error[0].value)
    assert "choose it with 'Question column'" in shown and "question_col=" not in shown and "--" not in shown


def test_a_budget_is_named_as_the_api_sets_it_and_the_cli_spells_it(tmp_path, capsys):
    rows = "question,model,score\n" + "".join(f"q{i},{m},{i % 2}\n" for i in range(40) for m in "AB")
    with pytest.raises(EvalStatsError) as err:
        load(rows.encode(), name="r.csv", limits=Limits(max_rows=10))
    assert "limits=Limits(max_rows=...)" in str(err.value) and "EVALSTATS_MAX_ROWS" in str(err.value)
    path = tmp_path / "r.csv"
    path.write_text(rows)
    assert cli.main(["analyze", str(path), "--max-rows", "10"]) == 2
    stderr = capsys.readouterr().err
    assert "raise it with --max-rows or the environment variable EVALSTATS_MAX_ROWS" in stderr
    assert "Limits(" not in stderr


def test_the_cli_prints_reading_warnings_with_its_flags(tmp_path, capsys):
    rows = "question,model,score\n" + "".join(f"q{i},A,{i % 2}\nq{i},B,{(i // 3) % 2}\n" for i in range(24))
    path = tmp_path / "r.csv"
    path.write_text(rows + "q0,A,1\n")
    assert cli.main(["analyze", str(path)]) == 0
    stderr = capsys.readouterr().err
    assert "choose --duplicates error to stop on them" in stderr and "duplicates='error'" not in stderr


def test_the_workbench_shows_reading_warnings_with_its_controls():
    rows = "question,model,score\n" + "".join(f"q{i},A,{i % 2}\nq{i},B,{(i // 3) % 2}\n" for i in range(24))
    at = run_page("pages/analyze.py")
    at.session_state[INJECT_KEY] = {"name": "r.csv", "data": (rows + "q0,A,1\n").encode()}
    at.run()
    no_exceptions(at)
    shown = [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning if "different scores" in w.value]
    assert len(shown) == 1
    assert "choose 'Several rows for one question and model are': an error (duplicated rows) to stop" in shown[0]

