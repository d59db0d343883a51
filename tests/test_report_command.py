"""The reproducible command (``settings.command``) against the real command-line parser: parsed back, it gives
the analysis's settings, layout and column roles; its spellings and defaults are flags.py's (one list), which
agree with ``analyze``'s defaults and the parser's."""

from __future__ import annotations

import dataclasses
import inspect
import shlex

import pytest

from evalstats_core.analysis import analyze
from evalstats_core.cli import build_parser
from evalstats_core.data import load
from evalstats_core.examples import path
from evalstats_core.flags import ANALYSIS_DEFAULTS, OPTIONS
from evalstats_core.report import settings


def _parsed(command: str):
    """``command`` (``evalbars analyze ...``) parsed by the command line's own parser."""
    words = shlex.split(command)
    assert words[:2] == ["evalbars", "analyze"]
    return build_parser().parse_args(words[1:])


def _settings_of(args) -> dict:
    """The analysis settings the parsed arguments ask for, each read where the parser keeps the option that
    flags.OPTIONS names for it (a switch turns its default over: ``--unpaired`` is ``paired=False``)."""
    dest = {s: action.dest for action in build_parser()._subparsers._group_actions[0].choices["analyze"]._actions
            for s in action.option_strings}
    out = {}
    for key, default in ANALYSIS_DEFAULTS.items():
        value = getattr(args, dest[OPTIONS[key]])
        out[key] = default != bool(value) if isinstance(default, bool) else value
    return out


def _settings_in(a) -> dict:
    """The same settings as the analysis records them (its ``clustered`` is ``use_clusters``)."""
    return {"baseline": a.baseline, "confidence": a.confidence, "adjust": a.adjust, "paired": a.paired,
            "use_clusters": a.clustered, "method": a.method, "interval": a.interval,
            "wild_bootstrap": a.wild_bootstrap, "n_boot": a.n_boot, "seed": a.seed}


@pytest.fixture(scope="module")
def mgsm():
    return analyze(load(path("multilingual_clustered.csv")))


CHANGES = [{}, {"baseline": "Galleon"}, {"baseline": "-a model", "confidence": 0.9}, {"adjust": "bh"},
           {"adjust": "none", "paired": False}, {"clustered": False}, {"method": "cr1", "interval": "wilson"},
           {"interval": "clopper-pearson", "confidence": 0.999}, {"wild_bootstrap": True},
           {"wild_bootstrap": True, "n_boot": 499, "seed": 7}, {"n_boot": 499, "seed": 7}]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: " ".join(f"{k}={v}" for k, v in c.items()) or "defaults")
def test_the_command_parses_back_to_the_analysis_settings(mgsm, change):
    """Parsed by the real parser, the command asks for every setting of the analysis: a flag of flags.py
    renamed (with the parser) but spelled the old way here would not parse, or would parse to another value."""
    a = dataclasses.replace(mgsm, **change)
    args = _parsed(settings(a)["command"])
    want = _settings_in(a)
    if not a.wild_bootstrap:  # without the bootstrap its draws and seed are not written: the parser's defaults
        want.update(n_boot=ANALYSIS_DEFAULTS["n_boot"], seed=ANALYSIS_DEFAULTS["seed"])
    assert _settings_of(args) == want


@pytest.mark.parametrize("fmt, roles", [
    ("long", ("question", "model", "score", "cluster")),
    ("wide", ("q id", None, None, "it's")),
    ("long", ("-q", "-m", "--score", "-")),  # names starting with '-': --flag=value, never read as an option
])
def test_the_layout_and_column_roles_parse_back(mgsm, fmt, roles):
    a = dataclasses.replace(mgsm, format=fmt, question_col=roles[0], model_col=roles[1], score_col=roles[2],
                            cluster_col=roles[3])
    args = _parsed(settings(a)["command"])
    assert (args.layout, args.question_col, args.model_col, args.score_col, args.cluster_col) == (fmt, *roles)


def test_a_harness_log_names_no_layout_or_roles(mgsm):
    """Files read by their importers (harness logs) are not tables: the command gives no layout or roles."""
    a = dataclasses.replace(mgsm, format="jsonl", question_col="doc_id")
    args = _parsed(settings(a)["command"])
    assert (args.layout, args.question_col) == (None, None)


def test_defaults_are_analyzes_and_the_parsers_and_the_command_leaves_them_out(mgsm):
    """flags.ANALYSIS_DEFAULTS are analyze()'s defaults and the parser's; an analysis at them adds no option
    after the reading, and each one changed adds its own flag, spelled as flags.OPTIONS spells it."""
    signature = inspect.signature(analyze).parameters
    assert {k: signature[k].default for k in ANALYSIS_DEFAULTS} == ANALYSIS_DEFAULTS
    assert _settings_of(build_parser().parse_args(["analyze", "f.csv"])) == ANALYSIS_DEFAULTS
    at_defaults = dataclasses.replace(mgsm, format="jsonl", reading=())
    assert settings(at_defaults)["command"] == "evalbars analyze multilingual_clustered.csv"
    changed = {"baseline": "Galleon", "confidence": 0.9, "adjust": "bh", "paired": False, "use_clusters": False,
               "method": "cr1", "interval": "wilson", "wild_bootstrap": True}
    field = {"use_clusters": "clustered"}
    for key, value in changed.items():
        extra = settings(dataclasses.replace(at_defaults, **{field.get(key, key): value}))["command"].split()[3:]
        assert extra[0] == OPTIONS[key], key
    for key in ("n_boot", "seed"):
        a = dataclasses.replace(at_defaults, wild_bootstrap=True, **{key: 499})
        assert settings(a)["command"].split()[3:] == [OPTIONS["wild_bootstrap"], OPTIONS[key], "499"]
