"""The house's layers, guarded (issue 19.6): the core never imports streamlit, only the chart builders import
Altair, the data layer spells no command-line flag, no core module holds a page's URL or widget keys, and
the data layer has no import circle. Issue 38: no import circle in the whole tree, imports point down a floor,
and each import inside a function says why it is there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "evalstats_core"
#: The data layer: reading files, logs and DataFrames into a Dataset.
DATA_LAYER = ("data", "_read", "_records",
              "_sniff", "_bounded", "bundle", "limits", "importers/__init__", "importers/inspect_log",
              "importers/lm_eval", "importers/promptfoo")


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports (absolute names; relative imports resolved against the package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.add(name)
            out |= {f"{name}.{a.name}" for a in node.names}
    return out


def _strings(path: Path) -> list[str]:
    """The string literals of a file that are not docstrings (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


def test_core_never_imports_streamlit():
    bad = [str(p.relative_to(ROOT)) for p in _modules(CORE) if any(m.split(".")[0] == "streamlit" for m in _imports(p))]
    assert bad == []


def test_only_the_chart_builders_import_altair():
    files = _modules(CORE) + _modules(ROOT / "evalstats_app") + _modules(ROOT / "pages") + [ROOT / "app.py"]
    bad = [str(p.relative_to(ROOT)) for p in files
           if any(m.split(".")[0] == "altair" for m in _imports(p)) and "charts" not in p.relative_to(CORE.parent).parts]
    assert bad == []


def _cli_flags() -> set[str]:
    import argparse

    from evalstats_core.cli import build_parser

    flags: set[str] = set()
    parsers = [build_parser()]
    while parsers:
        p = parsers.pop()
        for action in p._actions:
            flags |= {s for s in action.option_strings if s.startswith("--")}
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
    return flags - {"--help"}


@pytest.mark.parametrize("module", DATA_LAYER)
def test_the_data_layer_spells_no_command_line_flag(module):
    """Flag spellings live where the command line is written (cli.py, flags.py); the data
    layer names the keyword (``ignore_cols=``) and asks :func:`evalstats_core.flags.flag` for the option."""
    flags = _cli_flags()
    assert {"--ignore-col", "--max-mb", "--duplicates"} <= flags  # the test sees the real parser
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(flags, key=len, reverse=True))) + r")(?![\w-])")
    found = sorted({m for s in _strings(CORE / f"{module}.py") for m in pattern.findall(s)})
    assert found == [], f"{module}.py spells {found}"


def _page_keys() -> set[str]:
    keys: set[str] = set()
    listed: set[str] = set()
    for f in _modules(ROOT / "pages") + _modules(ROOT / "evalstats_app") + [ROOT / "app.py"]:
        src = f.read_text(encoding="utf-8")
        keys |= set(re.findall(r'key=f?"([a-z][a-z0-9_]+)"', src))  # widget keys (also the URL's)
        listed |= set(re.findall(r'"([a-z]+_[a-z0-9_]+)":\s*[(\d"\-]', src))  # UrlState defaults and bounds
    prefixes = {k.split("_")[0] for k in keys if "_" in k}  # a page's keys share its prefix (power_, analyze_)
    return keys | {k for k in listed if k.split("_")[0] in prefixes}


def test_no_core_module_holds_a_pages_url_keys():
    keys = _page_keys()
    assert {"power_delta", "power_n"} <= keys  # the test sees the power page's keys
    bad = {str(p.relative_to(ROOT)): sorted(set(_strings(p)) & keys) for p in _modules(CORE)}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_data_layer_has_no_import_circle():
    """Module-level and lazy imports among the data layer's modules form no cycle (_extra <-> data was one)."""
    names = {m: "evalstats_core." + m.replace("/", ".").removesuffix(".__init__") for m in DATA_LAYER}
    graph = {names[m]: {n for n in _imports(CORE / f"{m}.py") if n in names.values()} - {names[m]} for m in DATA_LAYER}
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if seen.get(node) == 1:
            pytest.fail("import circle: " + " -> ".join([*path, node]))
        if seen.get(node) == 2:
            return
        seen[node] = 1
        for nxt in graph[node]:
            visit(nxt, [*path, node])
        seen[node] = 2

    for node in graph:
        visit(node, [])


# ------------------------------------------------------------------ the whole house: circles and inner imports
PACKAGES = ("evalstats_core", "evalstats_app")
#: The one import allowed to run back up into a circle (issue 38): a notebook asks a result object for its view
#: (``_repr_html_``, ``Analysis.chart``), and the views are report tables and charts two floors up.
NOTEBOOK_HOOK = ("evalstats_core._results", "evalstats_core.display")
#: Imports inside functions in the two packages, at most (issue 38: 511 before, 203 when this was written, 114 once
#: every import that no start-up path, the workbench page's import included, needed inside a function moved to the
#: top; 115 with the live class's optional psycopg, which had hidden behind importlib; 113 once the table reader's
#: modules became one, data.py importing it once per function). Each one carries a comment saying
#: why (:func:`test_every_import_inside_a_function_says_why`): an optional dependency (duckdb, pyspark, Inspect AI,
#: zstandard, vl-convert), a heavy one (pandas, pyarrow, scipy.optimize, altair) or a module kept off a start-up path.
MAX_INNER_IMPORTS = 113


def _module_files() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in _modules(ROOT / pkg):
            out[".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")] = f
    return out


def _import_graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports, at the top or inside a function (a package's own
    ``__init__`` not counted as imported by its submodules)."""
    mods = _module_files()
    graph: dict[str, set[str]] = {}
    for m, f in mods.items():
        graph[m] = set()
        for name in _imports(f):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != m and not (m.startswith(name + ".") and mods[name].name == "__init__.py"):
                graph[m].add(name)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_in_the_whole_tree():
    """No two modules of evalstats_core and evalstats_app reach each other through imports, imports inside
    functions counted, but through the one named notebook hook (``/work/shared/hooks/import_circles.py``'s count)."""
    graph = _import_graph()
    assert NOTEBOOK_HOOK[1] in graph[NOTEBOOK_HOOK[0]]  # the exception is real: drop it here when it goes
    graph[NOTEBOOK_HOOK[0]].discard(NOTEBOOK_HOOK[1])
    assert _circles(graph) == []


#: The floors of the house (CONTRIBUTING.md's Layout, /work/shared/ARCHITECTURE.md), lowest first, by module (without
#: ``evalstats_core.``): an import points to its own floor or one below. charts/* are on the reports' floor (the
#: pictures of the reports), lessons/* above them and evalstats_app above all; the package's ``__init__`` (the public
#: surface) on the reports' floor. A module named nowhere sits on the lowest floor its own imports allow (the highest
#: floor among the modules it imports), so a new module never adds an arrow of its own; an arrow from a lower floor
#: into it does count.
FLOORS = {
    0: "errors _results _validate vocabulary flags escape _clusters intervals cluster_means betabinomial proportions "
       "pair_proportions _ksection bounded_means bounded_unclustered _in_unit "
       "_sums_groups wild multiple cluster_bootstrap _estimate "
       "_power_inputs power_t clustering comparison judge_interval",  # types, kernels
    1: "data _read _sniff _bounded _records _encode "
       "_json_records importers importers.inspect_log importers.lm_eval importers.promptfoo "
       "bundle limits human_labels reading examples",  # data in
    2: "analysis sums engine engine_sql bounded_reach ranking inspect",  # one pass, sums and engines
    3: "planning power pilot plan_spread plan_pilots simulate coverage cluster_coverage edge_coverage pair_coverage "
       "difficulty temperature variance decomposition reported guardrails judge judge_agree judge_budget judge_io "
       "judge_rows judge_sim judge_strata",  # planning, power and simulation, the workbench's checks, the judge
    4: "report report_display report_html report_latex report_words display breakdown gating judge_apply "
       "cli _memory console __main__",  # words, reports, the gate, the CLI
}
#: Arrows that run back up a floor, at most (issue 38: 16 on f57f333, 4 when this was written, 1 once ``se_range``
#: moved beside the intervals and the centring beside the per-group sums): the notebook hook above.
MAX_UPWARD_ARROWS = 1


def _floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Every module's floor (:data:`FLOORS`; a module named nowhere on the highest floor of what it imports)."""
    named = {f"evalstats_core.{m}": k for k, names in FLOORS.items() for m in names.split()}
    out: dict[str, int] = {}

    def floor(m: str) -> int:
        if m not in out:
            if m in named:
                out[m] = named[m]
            elif m == "evalstats_core" or m.startswith("evalstats_core.charts"):
                out[m] = 4
            elif m.startswith("evalstats_core.lessons"):
                out[m] = 5
            elif m.startswith("evalstats_app"):
                out[m] = 6
            else:
                out[m] = max([floor(n) for n in graph[m]], default=0)
        return out[m]

    for m in graph:
        floor(m)
    return out


def _upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    floor = _floors(graph)
    return sorted((a, b) for a in graph for b in graph[a] if floor[b] > floor[a])


def test_few_arrows_run_back_up_a_floor():
    """Imports point down (imports inside functions counted): at most :data:`MAX_UPWARD_ARROWS` run back up, and
    every module :data:`FLOORS` names is still there."""
    graph = _import_graph()
    named = {f"evalstats_core.{m}" for names in FLOORS.values() for m in names.split()}
    assert named <= set(graph), sorted(named - set(graph))  # a module gone: take it out of FLOORS
    up = _upward(graph)
    assert (NOTEBOOK_HOOK[0], NOTEBOOK_HOOK[1]) in up  # the walk sees an arrow up
    assert len(up) <= MAX_UPWARD_ARROWS, up


def test_the_floor_check_finds_an_arrow_up():
    """The count can fail: a kernel importing the report is an arrow up; a module named nowhere adds none."""
    graph = {"evalstats_core._clusters": {"evalstats_core.report"}, "evalstats_core.report": set(),
             "evalstats_core.new": {"evalstats_core.report"}, "evalstats_app.x": {"evalstats_core.new"}}
    assert _upward(graph) == [("evalstats_core._clusters", "evalstats_core.report")]
    assert _floors(graph)["evalstats_core.new"] == 4


def test_the_circle_check_finds_a_circle():
    """The check above can fail: two modules importing each other (inside a function) are one circle."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]


def _says(line: str) -> bool:
    """The line carries a comment with words in it (a bare ``# noqa: F401`` says nothing)."""
    comment = line.partition("#")[2]
    return bool(re.sub(r"noqa(:\s*[A-Z]+\d+(,\s*[A-Z]+\d+)*)?", "", comment).strip(" -#"))


def _commented(lines: list[str], node: ast.stmt, above: ast.stmt | None) -> bool:
    """An import says why it is inside a function: a comment on its own lines or a comment line above it, or it
    follows right after an import that does (one comment for a group of imports, as ``import pyarrow as pa``
    then ``import pyarrow.compute as pc``)."""
    if any(_says(lines[i - 1]) for i in range(node.lineno, node.end_lineno + 1)):
        return True
    if node.lineno > 1 and lines[node.lineno - 2].strip().startswith("#") and _says(lines[node.lineno - 2]):
        return True
    return (isinstance(above, ast.Import | ast.ImportFrom) and above.end_lineno == node.lineno - 1
            and getattr(above, "commented", False))


def _inner_imports() -> list[tuple[str, int, str, bool]]:
    """Every import inside a function: (file, line, the line's text and the one above it, whether it carries
    a comment saying why, :func:`_commented`)."""
    out = []
    for f in _module_files().values():
        src = f.read_text(encoding="utf-8")
        lines = src.splitlines()
        seen = set()
        for fn in ast.walk(ast.parse(src)):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for block in ast.walk(fn):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    body = getattr(block, field, None)
                    if not isinstance(body, list):
                        continue
                    for above, node in zip([None, *body], body, strict=False):
                        if isinstance(node, ast.Import | ast.ImportFrom) and node.lineno not in seen:
                            seen.add(node.lineno)
                            node.commented = _commented(lines, node, above)
                            out.append((str(f.relative_to(ROOT)), node.lineno,
                                        "\n".join(lines[max(0, node.lineno - 2):node.end_lineno]), node.commented))
    return out


def test_imports_inside_functions_are_few():
    found = _inner_imports()
    assert 100 < len(found) <= MAX_INNER_IMPORTS, len(found)  # the walk sees them, and no new one came in


def test_every_import_inside_a_function_says_why():
    """Each import left inside a function carries a comment (on it, on the line above, or on the import of its
    group just above): an optional dependency, a heavy one kept off the command line's start-up, or a module
    only one rare path needs."""
    bare = [f"{f}:{line}: {text.splitlines()[-1].strip()}" for f, line, text, said in _inner_imports() if not said]
    assert bare == []


def test_the_comment_check_sees_a_bare_import():
    """The check above can fail: an import inside a function with no comment near it is found."""
    src = "def f():\n    x = 1\n    import json\n    import csv\n    return x\n"
    tree = ast.parse(src)
    body = tree.body[0].body
    assert not _commented(src.splitlines(), body[1], body[0])
    src = "def f():\n    import os  # noqa: F401\n"
    assert not _commented(src.splitlines(), ast.parse(src).body[0].body[0], None)  # a bare noqa says nothing
    src = "def f():\n    import json  # heavy\n    import csv\n"
    body = ast.parse(src).body[0].body
    body[0].commented = _commented(src.splitlines(), body[0], None)
    assert body[0].commented and _commented(src.splitlines(), body[1], body[0])


def test_contributing_names_every_module_once():
    """CONTRIBUTING.md's Layout names every module of the two packages in one line each, and no module that is gone."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("### Every module", 1)[1].split("```", 2)[1]
    listed = [line.split()[0] for line in section.splitlines() if line.strip()]
    tree = sorted(str(f.relative_to(ROOT)) for pkg in PACKAGES for f in _modules(ROOT / pkg)
                  if "site" not in f.relative_to(ROOT / pkg).parts)
    assert len(listed) == len(set(listed))  # once each
    assert sorted(listed) == tree
    assert all(len(line.split(maxsplit=1)) == 2 for line in section.splitlines() if line.strip())  # each says what it is
