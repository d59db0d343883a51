"""The command line: ``evalbars analyze FILE`` (also ``python -m evalstats_core``), a thin shell over load ->
analyze -> render.

One module for the command line's one concern, in the order a run meets it: the parser (every subcommand's
arguments, checked as they are parsed), the arguments settled before anything heavy is imported (``--example
NAME`` becomes the bundled file's path; a FILE that does not exist is refused in milliseconds, with the message
the reader would give), the reading choices (the :class:`~evalstats_core.reading.ReadingOptions` the arguments
ask for, the options that repeat them in ``settings.command``, the files read within the budgets; shared with
the workbench through this module), ``--engine`` (which engine reads the file, and the analysis or gate from a
file's sums when it is DuckDB or Spark), and the commands.

Start-up stays fast: this module imports only the standard library and light modules at its top (``--help``
answers before numpy, pandas or scipy are loaded); the readers and the statistics are imported after the
arguments are parsed. Every bad input ends with exit code 2 and one line on stderr naming the file, row, column
and value; the input file is only ever read.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import glob
import os
import re
import shlex
import stat
import sys
import warnings
from typing import Any, NoReturn

from ._pairwise_sniff import pairwise_paths  # standard library only
from .errors import EvalStatsError, EvalStatsWarning
from .escape import escape_markdown  # standard library only (hashlib, html, re)
from .flags import for_cli  # light (re, shlex): no numpy before the arguments are parsed
from .flags import reading_flags as spell_flags
from .limits import Limits, check_pairs
from .vocabulary import INTERVAL_METHODS

__all__ = ["main", "build_parser"]


# ------------------------------------------------------------ the parser
PROG = "evalbars"  # one name: the installed command (``python -m evalstats_core`` runs the same)

_DESCRIPTION = """\
evalbars: error bars for LLM evaluations (Miller 2024, "Adding Error Bars to Evals").

Give it a results file with one score per question and model; it reports each model's mean with
its standard error and confidence interval, and every pairwise difference (paired, on the questions
both models answered) with its interval, p-value and correlation - the tables of the paper.
"""

_ANALYZE_DESCRIPTION = """\
Analyze a results file (CSV or Parquet) and print a report.

The file can be long form, one row per answer:

    question,model,score            (add a 'cluster' column for grouped questions)
    q1,gpt-a,1
    q1,gpt-b,0

or wide form, one row per question and one column per model:

    question,gpt-a,gpt-b
    q1,1,0

Scores can be 0/1, true/false, or numbers on any scale. Several rows for the same question and
model are resamples: they are averaged per question (never pooled). Column names are recognised
(question/id/item/task, model/system/agent, score/correct/accuracy, cluster/group/passage); use
the --*-col options when yours differ. A cluster column turns on clustered standard errors.
"""

_EXAMPLES = """\
examples:
  evalbars analyze results.csv
  evalbars analyze results.csv --baseline gpt-a --format json
  evalbars analyze mgsm.parquet --cluster-col source_id --format latex --caption "Results" -o table.tex
  evalbars analyze results.csv --format html -o report.html
  evalbars gate results.csv --baseline main --candidate pr-123 --margin 1pt
  evalbars plan code.csv --resample-col attempt --pass-at 5 --half-width 2pt

exit status: 0 on success, 2 when the input or the options cannot be used (one line on stderr says why);
gate: 0 pass, 1 regression, 3 inconclusive.
"""

_GATE_DESCRIPTION = """\
A regression gate for CI: is the candidate shown not worse than the baseline?

It compares the two models on the questions both answered, exactly as 'analyze' does (paired,
clustered on the file's cluster column, CR2 with Satterthwaite degrees of freedom), and reads the
interval for candidate - baseline:

  exit 0  pass: the whole interval lies above -margin (not worse by more than the margin); with
          clusters the 96% interval's lower end too (CR2 t alone passes up to 2.9% of drops at the
          margin, not 2.5%), and never on 2 clusters
  exit 1  regression: the whole interval lies below 0 (significantly worse)
  exit 3  inconclusive: the data cannot tell; the summary says how many questions would
  exit 2  the input or the options cannot be used (one line on stderr)

A Markdown summary (for a CI log or a pull-request comment) goes to stdout or --output.
"""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"evalbars: error: {message} (see '{self.prog} --help')\n")


def _bounded(flag: str, cast: type, ok, rule: str, example: str):
    """An argparse type: ``cast(text)`` that ``ok`` accepts, else one message naming the value and the rule."""
    def parse(text: str):
        try:
            value = cast(text)
        except ValueError:
            kind = "a whole number" if cast is int else "a number"
            raise argparse.ArgumentTypeError(f"{flag} {text!r} is not {kind}; use e.g. {example}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{flag} {text!r} must be {rule}, e.g. {example}")
        return value

    return parse


_confidence = _bounded("confidence", float, lambda v: 0.0 < v < 1.0, "between 0 and 1", "0.95")
_n_boot = _bounded("--n-boot", int, lambda v: 99 <= v <= 1_000_000, "between 99 and 1000000", "9999")
_seed = _bounded("--seed", int, lambda v: 0 <= v < 2**63, "a whole number from 0 to 2**63 - 1", "0")
def _margin(text: str) -> str:
    """``--margin`` as written (``2pt``, ``2%``, ``0.02``): its syntax checked here, its scale by the gate."""
    from .gating import parse_margin  # gating (numpy and the statistics): only when --margin is given

    try:
        parse_margin(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _positive(flag: str):
    def parse(text: str) -> int:
        try:
            value = int(float(text))
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{flag} {text!r} is not a whole number") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{flag} {text!r} must be at least 1")
        return value
    return parse


def _input_options(p: argparse.ArgumentParser) -> None:
    """Budgets and reading choices shared by analyze and gate (defaults: evalstats_core.limits)."""
    p.add_argument("--example", metavar="NAME",  # replaced by the file's path before parsing (expand_examples)
                   help="a bundled example in place of FILE: atlas_breeze, multilingual, synthetic or judged")
    p.add_argument("--duplicates", choices=("resamples", "error"), default="resamples",
                   help="several rows for one question and model: resamples (default: averaged; rows with different "
                        "scores are named on stderr) or error")
    p.add_argument("--mixed-scales", choices=("error", "allow"), default="error",
                   help="models scored on different scales (0-1 vs 0-100): error (default) or allow")
    p.add_argument("--ignore-col", action="append", default=[], metavar="C",
                   help="a column that is not a model or a role (e.g. n_tokens in a wide file); repeatable")
    p.add_argument("--metric", metavar="NAME",
                   help="harness logs: the lm-eval metric (acc, acc_norm, exact_match...) or the Inspect scorer "
                        "(default: the first the log lists)")
    p.add_argument("--filter", metavar="NAME", help="lm-eval logs: the filter (default: the task's first)")
    p.add_argument("--model-name", metavar="NAME",
                   help="a harness log's model name, when the log does not say it (one file; with several, give "
                        "NAME=PATH for each)")
    p.add_argument("--runs-in-ids", action="store_true",
                   help="question ids like 1.1, 1.2 are runs of question 1: average them as resamples")
    p.add_argument("--resample-col", metavar="C",
                   help="a column numbering the runs (epoch, sample): rows it tells apart are resamples")
    p.add_argument("--max-rows", type=_positive("--max-rows"), metavar="N",
                   help="most scores read (default 10000000, or $EVALSTATS_MAX_ROWS)")
    p.add_argument("--max-models", type=_positive("--max-models"), metavar="N",
                   help="most models (default 1000, or $EVALSTATS_MAX_MODELS)")
    p.add_argument("--max-pairs", type=_positive("--max-pairs"), metavar="N",
                   help="most pairwise comparisons (default 5000, or $EVALSTATS_MAX_PAIRS)")
    p.add_argument("--max-mb", type=_positive("--max-mb"), metavar="MB",
                   help="most megabytes read, after decompression (default 512, or $EVALSTATS_MAX_MB)")

    add_option(p)



def build_parser() -> argparse.ArgumentParser:
    """The argument parser (``analyze`` subcommand)."""
    parser = _Parser(prog=PROG, description=_DESCRIPTION, epilog=_EXAMPLES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    p = sub.add_parser("analyze", help="analyze a results file and print the report",
                       description=_ANALYZE_DESCRIPTION, epilog=_EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", nargs="+",
                   help="results file (.csv, .parquet) or harness log (lm-eval samples .jsonl, Inspect .eval/.json, "
                        "promptfoo .json); several files (one per model) are joined on the question; NAME=PATH "
                        "names the model of that file; '-' reads standard input")
    p.add_argument("--format", "-f", choices=("markdown", "latex", "csv", "json", "html"), default="markdown",
                   help="output format (default: markdown); html is one self-contained page (tables, charts as SVG, "
                        "verdicts, methods, the command), latex a booktabs table that fits an 11 pt article")
    p.add_argument("--columns", metavar="LIST",
                   help="with --format latex: the table's columns, comma-separated, from model, n, clusters, mean, se, "
                        "deff, diff, p, p_adj, mcnemar, wild (default: model,n,mean,diff,p_adj)")
    p.add_argument("--caption", metavar="TEXT", help="with --format latex: the table's caption (default: the "
                                                      "benchmark and the method)")
    p.add_argument("--label", metavar="KEY", help=r"with --format latex: the table's \label (e.g. tab:results)")
    p.add_argument("--narrow", action="store_true",
                   help="with --format latex: a table float that must fit one column (default: table*, an ordinary "
                        "float in a one-column paper that spans both columns of a two-column one)")
    p.add_argument("--baseline", metavar="MODEL",
                   help="compare every model against MODEL (default: every pair, later minus earlier model)")
    p.add_argument("--confidence", type=_confidence, default=0.95, metavar="LEVEL",
                   help="confidence level of the intervals (default: 0.95)")
    p.add_argument("--adjust", choices=("holm", "bh", "none"), default="holm",
                   help="multiple-comparison adjustment of p-values: holm (default), bh (Benjamini–Hochberg), none")
    p.add_argument("--question-col", metavar="C", help="column with the question id")
    p.add_argument("--model-col", metavar="C", help="column with the model name (long form)")
    p.add_argument("--score-col", metavar="C", help="column with the score (long form)")
    p.add_argument("--cluster-col", metavar="C", help="column with the cluster (passage, source question...)")
    p.add_argument("--no-clusters", action="store_true", help="ignore the cluster column (naive standard errors)")
    p.add_argument("--layout", choices=("long", "wide"), help="file layout (default: detected)")
    p.add_argument("--unpaired", action="store_true",
                   help="unpaired comparisons (only to show what pairing gains; paired is right for shared questions)")
    p.add_argument("--cluster-se", choices=("cr2", "cr1"), default="cr2",
                   help="standard errors: cr2 (default: CR2 with Satterthwaite degrees of freedom and a t reference; "
                        "the t-tests without clusters) or cr1 (the paper's CR1 / CLT with a normal reference)")
    p.add_argument("--interval", choices=tuple(INTERVAL_METHODS), default="auto",
                   help="each model's interval: auto (default: for 0/1 scores with fewer than 100 expected "
                        "failures, Wilson, or Korn-Graubard with clusters, else normal; Tango's score interval for every "
                        "pair), normal (t, or z with "
                        "--cluster-se cr1, also for the pairs), wilson, clopper-pearson, bayes (these need independent 0/1 answers)")
    p.add_argument("--wild-bootstrap", action="store_true",
                   help="add a wild cluster bootstrap p-value to every paired comparison (a cross-check)")
    p.add_argument("--n-boot", type=_n_boot, default=9999, metavar="B",
                   help="wild bootstrap draws (default 9999; every weight vector when there are at most B)")
    p.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the wild bootstrap draws (default 0)")
    p.add_argument("--pass-at", metavar="K,K,...",
                   help="also pass@k at each k (e.g. 1,5,10) for 0/1 answers with several samples a question (the "
                        "resample column numbers them): Chen et al.'s unbiased estimator with a CR2 interval over "
                        "questions (clustered when clustered), for every model and pair")
    p.add_argument("--table", choices=("models", "comparisons", "judge", "pass_at"), default="models",
                   help="with --format csv: which table to print (one table per file; default models); with -o DIR "
                        "every table is written to DIR as models.csv, comparisons.csv (and pass_at.csv)")
    p.add_argument("--human-col", metavar="C",
                   help="column with human labels of the judged scores, blank where unlabelled (default: a column "
                        "named human, gold or label), or for harness logs the human scorer (Inspect logs with two "
                        "scorers; --metric names the judge's); reports the judge-corrected (PPI++) estimates")
    p.add_argument("--labels", metavar="FILE",
                   help="human labels in a separate CSV (at most 64 MB) joined on the question and model id; on the "
                        "judge's scale (0/1 labels beside 0/1 scores)")
    p.add_argument("--labels-all-models", action="store_true",
                   help="the labels have no model (a labels file without a model column, a wide file's label column): "
                        "each question's label grades every model's answer (without it such labels are refused)")
    p.add_argument("--output", "-o", metavar="OUT",
                   help="write the report to OUT instead of printing it (with --format csv, OUT may be a folder: "
                        "an existing one, or a name ending in '/')")
    _input_options(p)

    g = sub.add_parser("gate", help="regression gate: exit 0 pass, 1 regression, 3 inconclusive",
                       description=_GATE_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("file", metavar="FILE", nargs="+",
                   help="results file or harness log(s), as for analyze; '-' reads standard input")
    g.add_argument("--baseline", metavar="MODEL", required=True, help="the model to protect (e.g. main)")
    g.add_argument("--candidate", metavar="MODEL", required=True, help="the model under test (e.g. the change)")
    g.add_argument("--margin", type=_margin, default="0", metavar="M",
                   help="the drop you tolerate, in points of the score scale: 2pt or 2%% (2 percentage points of 0/1 "
                        "scores) or 0.02 (score units); default 0; a margin as large as the scale, or as the "
                        "baseline's whole mean above its floor, is refused")
    g.add_argument("--wild-bootstrap", action="store_true",
                   help="add the wild cluster bootstrap p of the difference (a cross-check, as in analyze)")
    g.add_argument("--n-boot", type=_n_boot, default=9999, metavar="B", help="wild bootstrap draws (default 9999)")
    g.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the wild bootstrap draws (default 0)")
    g.add_argument("--confidence", type=_confidence, default=0.95, metavar="LEVEL",
                   help="confidence level of the interval the gate reads (default: 0.95)")
    g.add_argument("--pass-at", metavar="K",
                   help="decide on pass@K instead of the mean score (0/1 answers with several samples a question, "
                        "numbered by --resample-col): the same rules on the paired pass@K difference")
    g.add_argument("--cluster-se", choices=("cr2", "cr1"), default="cr2",
                   help="standard errors: cr2 (default) or cr1 (the paper's, normal reference)")
    for flag, what in (("--question-col", "question id"), ("--model-col", "model name (long form)"),
                       ("--score-col", "score (long form)"), ("--cluster-col", "cluster")):
        g.add_argument(flag, metavar="C", help=f"column with the {what}")
    g.add_argument("--no-clusters", action="store_true", help="ignore the cluster column")
    g.add_argument("--layout", choices=("long", "wide"), help="file layout (default: detected)")
    g.add_argument("--human-col", metavar="C",
                   help="column with human labels (default: one named human, gold or label): decide on the corrected "
                        "difference")
    g.add_argument("--labels", metavar="FILE",
                   help="human labels in a separate CSV (at most 64 MB) joined on the question and model id; on the "
                        "judge's scale (0/1 labels beside 0/1 scores)")
    g.add_argument("--labels-all-models", action="store_true",
                   help="the labels have no model column: each question's label grades every model's answer")
    g.add_argument("--output", "-o", metavar="OUT", help="write the Markdown summary to OUT instead of stdout")
    _input_options(g)
    _pairwise_parser(sub)
    _plan_parser(sub)
    return parser


_PLAN_DESCRIPTION = """\
How many questions, and how many samples a question, give pass@K an interval of a target half-width.

FILE is a pilot: 0/1 answers with several samples a question (numbered by --resample-col), as for
'analyze --pass-at'. Each model's questions and samples are its own pilot: the spread between its
questions (which only more questions reduce) and each question's sampling variance (which more samples
reduce too) give the questions needed at each number of samples a question (Miller 2024, Eq. 9, with
the file's design effect when it has clusters). The cheapest option needs the fewest samples in all.
"""


def _half_width(text: str) -> float:
    """``--half-width`` as written: ``2pt``/``2%`` (percentage points) or ``0.02`` (score units)."""
    t = text.strip().lower()
    points = t.endswith(("pt", "%"))
    try:
        value = float(t.removesuffix("pt").removesuffix("%").strip()) / (100.0 if points else 1.0)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:  # also NaN
        raise argparse.ArgumentTypeError(f"--half-width {text!r} must be a half-width between 0 and 1 written as "
                                         "2pt, 2% or 0.02 (score units)")
    return value


def _plan_parser(sub) -> None:
    q = sub.add_parser("plan", help="questions and samples a question for pass@k's target half-width",
                       description=_PLAN_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="examples:\n  evalbars plan code.csv --resample-col attempt --pass-at 5 --half-width 2pt"
                              "\n  evalbars plan --example code_samples --resample-col attempt --pass-at 1 --half-width 0.03 "
                              "--samples "
                              "1,5,10 -f json\n\nexit status: 0 on success, 2 when the input or the options cannot "
                              "be used")
    q.add_argument("file", metavar="FILE", nargs="+", help="pilot results file(s), as for analyze")
    q.add_argument("--pass-at", metavar="K", required=True, help="plan for pass@K (one k)")
    q.add_argument("--half-width", type=_half_width, required=True, metavar="H",
                   help="the target half-width of the interval: 2pt or 2%% (percentage points) or 0.02 (score units)")
    q.add_argument("--samples", metavar="N,N,...",
                   help="the samples a question to consider (default: K, 2K, 5K, 10K and the pilot's own number)")
    q.add_argument("--confidence", type=_confidence, default=0.95, metavar="LEVEL",
                   help="confidence level of the interval (default: 0.95)")
    q.add_argument("--format", "-f", choices=("markdown", "json"), default="markdown",
                   help="output format (default: markdown)")
    for flag, what in (("--question-col", "question id"), ("--model-col", "model name (long form)"),
                       ("--score-col", "score (long form)"), ("--cluster-col", "cluster")):
        q.add_argument(flag, metavar="C", help=f"column with the {what}")
    q.add_argument("--no-clusters", action="store_true", help="ignore the cluster column (no design effect)")
    q.add_argument("--layout", choices=("long", "wide"), help="file layout (default: detected)")
    q.add_argument("--output", "-o", metavar="OUT", help="write the plan to OUT instead of printing it")
    _input_options(q)


_PAIRWISE_DESCRIPTION = """\
Win rates and Bradley-Terry ratings from pairwise preferences, with intervals clustered by prompt.

FILE is a table with the columns prompt, model_a, model_b, winner (winner: a, b or tie; CSV, TSV, JSON
or JSONL), AlpacaEval's annotations.json, or Arena-Hard judgment files (.jsonl, one per model; name
their baseline with --baseline); gzip, bz2, xz or zstd compressed, or one file in a .zip, as results
files may be. Several files are joined.

Ratings are the maximum-likelihood Bradley-Terry fit (no penalty) on the Elo scale (400 points are
10-to-1 odds), the ratings averaging 1000 (or --anchor MODEL at 1000); a tie counts half a win for
each model. Intervals: a sandwich covariance clustered by prompt (battles on one prompt are not
independent); Chatbot Arena's bootstrap (battles resampled) beside it. Each pair's win rate (a tie
counts half) has a CR2 interval clustered by prompt.
"""


def _pairwise_parser(sub) -> None:
    w = sub.add_parser("pairwise", help="win rates and Bradley-Terry ratings from pairwise preferences",
                       description=_PAIRWISE_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="examples:\n  evalbars pairwise battles.csv\n  evalbars pairwise annotations.json "
                              "--format json\n  evalbars pairwise judgments/*.jsonl --baseline gpt-4-0314\n\n"
                              "exit status: 0 on success, 2 when the input or the options cannot be used")
    w.add_argument("file", metavar="FILE", nargs="+", help="pairwise file(s): long table, AlpacaEval annotations, "
                                                           "Arena-Hard judgments")
    w.add_argument("--format", "-f", choices=("markdown", "json", "latex", "html", "csv"), default="markdown",
                   help="output format (default: markdown)")
    w.add_argument("--table", choices=("ratings", "win_rates"), default="ratings",
                   help="with --format csv: which table (default ratings)")
    w.add_argument("--confidence", type=_confidence, default=0.95, metavar="LEVEL",
                   help="confidence level of the intervals (default: 0.95)")
    w.add_argument("--anchor", metavar="MODEL", help="fix MODEL's rating at 1000 (default: the ratings average 1000)")
    w.add_argument("--n-boot", type=_bounded("--n-boot", int, lambda v: 0 <= v <= 100_000,
                                             "between 0 and 100000", "1000"), default=1000, metavar="B",
                   help="Chatbot Arena bootstrap resamples (default 1000; 0 for none)")
    w.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the bootstrap (default 0)")
    w.add_argument("--baseline", metavar="MODEL",
                   help="Arena-Hard judgments: the baseline model the judge compared against (default: the one the "
                        "file names, else Arena-Hard's default, gpt-4-0314 for v0.1)")
    w.add_argument("--strong-weight", type=_positive("--strong-weight"), default=3, metavar="W",
                   help="Arena-Hard judgments: battles a strong verdict (A>>B) counts as (default 3, as Arena-Hard)")
    w.add_argument("--max-models", type=_positive("--max-models"), metavar="N",
                   help="most models (default 100: the ranks' tests grow faster than the square of the models)")
    w.add_argument("--max-mb", type=_positive("--max-mb"), metavar="MB",
                   help="most megabytes read a file, after decompression (default 512, or $EVALSTATS_MAX_MB)")
    w.add_argument("--output", "-o", metavar="OUT", help="write the report to OUT instead of printing it")


# ------------------------------------------------------------ the --engine option: which engine reads the file
# ``auto`` (the default) is DuckDB for a results table bigger than the in-memory byte budget (``--max-mb``), a
# folder or a glob, else the in-memory reader. ``spark`` starts a local ``SparkSession`` (pyspark installed: the
# ``[spark]`` extra); from Python, pass your own session to :func:`evalstats_core.engine.sums_of`.
ENGINE_CHOICES = ("auto", "memory", "duckdb", "spark")
_TABLES = (".csv", ".parquet", ".pq")


def add_option(p: argparse.ArgumentParser) -> None:
    """``--engine``: which engine reads the file (the parser's analyze and gate)."""
    p.add_argument("--engine", choices=ENGINE_CHOICES, default="auto",
                   help="who reads the file: memory (the rows in Python), duckdb (SQL over a file, folder or glob of "
                        "any size: only sums per model, pair and cluster are kept), spark (the same SQL in a local "
                        "Spark session; needs pyspark and Java); auto (default): duckdb when the file is larger "
                        "than --max-mb, else memory")


def engine_of(args: argparse.Namespace, limits: Any) -> str:
    """The engine that reads ``args.file``: as asked, or for ``auto`` by size (a results table only)."""
    if args.engine != "auto":
        if args.engine != "memory" and len(args.file) != 1:
            raise ValueError(f"--engine {args.engine} reads one file, folder or glob; give one (join the files "
                             "into a folder)")
        return args.engine
    if len(args.file) != 1 or args.file == ["-"]:
        return "memory"
    path = args.file[0]
    if not (os.path.isdir(path) or path.lower().endswith(_TABLES)):
        return "memory"  # harness logs are read by their importers
    if not any(c in path for c in "*?[") and os.path.isfile(path) and os.path.getsize(path) <= limits.max_bytes:
        return "memory"  # what choose_engine says of a file within the budget, without importing the engine
    from .engine import choose_engine  # heavy: pyarrow; only for --engine or a file above --max-mb

    return choose_engine(path, limits)


def refuse_rows_only(args: argparse.Namespace, engine: str) -> None:
    """One sentence for each option that needs the rows, which the SQL engines do not keep."""
    from .engine import NOT_FROM_SUMS  # heavy: pyarrow; only for --engine

    why = NOT_FROM_SUMS.format(engine=engine)
    for flag, given in (("the wild bootstrap (--wild-bootstrap)", getattr(args, "wild_bootstrap", False)),
                        ("the judge correction (--human-col, --labels)",
                         getattr(args, "human_col", None) or getattr(args, "labels", None)),
                        ("--table judge", getattr(args, "table", None) == "judge"),
                        ("a harness log's options (--metric, --filter, --model-name)",
                         args.metric or args.filter or args.model_name)):
        if given:
            raise ValueError(f"{flag} {why}")


def sums_for(args: argparse.Namespace, engine: str, limits: Any) -> Any:
    """The :class:`~evalstats_core.sums.FileSums` of ``args.file`` by ``engine`` with the reading options."""
    from .engine import sums_of  # heavy: pyarrow; only for --engine

    refuse_rows_only(args, engine)
    spark = None
    if engine == "spark":
        try:
            from pyspark.sql import SparkSession  # optional dependency (the spark extra)
        except ImportError:
            raise ValueError("--engine spark needs pyspark (pip install 'evalbars[spark]') and a Java runtime") from None
        spark = SparkSession.builder.master("local[*]").appName("evalbars").getOrCreate()
    return sums_of(args.file[0], engine=engine, spark=spark, format=args.layout, question_col=args.question_col,
                   model_col=args.model_col, score_col=args.score_col, cluster_col=args.cluster_col,
                   ignore_cols=tuple(args.ignore_col), duplicates=args.duplicates, mixed_scales=args.mixed_scales,
                   limits=limits, runs_in_ids=args.runs_in_ids, resample_col=args.resample_col,
                   human_labels=True)  # the in-memory path reads a column named human, gold, label ...


def sql_sums(args: argparse.Namespace, limits: Any) -> tuple[Any, Any, str] | None:
    """``(sums, limits, engine)`` when DuckDB or Spark reads ``args.file`` (``--engine``), else None (the rows are
    read in memory)."""
    engine = engine_of(args, limits)
    return None if engine == "memory" else (sums_for(args, engine, limits), limits, engine)


# ------------------------------------------------------------ arguments settled before anything heavy is imported
def expand_examples(argv: list[str]) -> list[str]:
    """``argv`` with every ``--example NAME`` / ``--example=NAME`` replaced by the example's path.

    Raises
    ------
    EvalStatsError
        An unknown example name (the message lists them), or ``--example`` without a name.
    """

    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":  # everything after is a file name
            out += argv[i:]
            break
        if arg == "--example" or arg.startswith("--example="):
            name = arg.partition("=")[2] if "=" in arg else (argv[i + 1] if i + 1 < len(argv) else "")
            if not name or name.startswith("-"):
                raise EvalStatsError("--example needs a name, e.g. --example multilingual")
            from .examples import path  # only for --example: pathlib and dataclasses cost ~10 ms (issue 25)

            out.append(str(path(name)))
            i += 1 if "=" in arg else 2
            continue
        out.append(arg)
        i += 1
    return out


#: Options whose value may be written with a unit and a sign (``-1pt``): argparse reads such a value after a space as
#: an option of its own ("expected one argument"); joined as ``--margin=-1pt`` the option's own check names the rule.
_SIGNED_OPTIONS = ("--margin", "--half-width")
_SIGNED_VALUE = re.compile(r"-\s*\.?[0-9].*")


def join_signed(argv: list[str]) -> list[str]:
    """``argv`` with ``--margin -1pt`` (and ``--half-width``) written as ``--margin=-1pt``, so that a negative margin
    is refused by the margin's own rule (a drop >= 0), not by argparse's "expected one argument" (issue 46)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":  # everything after is a file name
            return out + argv[i:]
        if arg in _SIGNED_OPTIONS and i + 1 < len(argv) and _SIGNED_VALUE.fullmatch(argv[i + 1]):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def missing_file(files: list[str]) -> str | None:
    """The message for the first of ``files`` that does not exist (None when all do).

    ``-`` (standard input) is not a file; ``NAME=PATH`` names the model of the file ``PATH``.
    """
    for arg in files:
        if arg == "-" or os.path.exists(arg) or (glob.has_magic(arg) and glob.glob(arg)):  # a glob: --engine duckdb
            continue
        name, sep, rest = arg.partition("=")
        target = rest if sep and name and rest else arg
        if target == "-" or os.path.exists(target):
            continue
        return f"file '{target}' does not exist; check the path and the spelling"  # the reader's words
    return None


# ------------------------------------------------------------ the reading choices
def reading_options(args: argparse.Namespace):
    """The reading choices of these arguments, as the workbench builds them from its widgets (a file's model
    name from NAME=PATH, or --model-name for one file)."""
    from .reading import ReadingOptions  # numpy and the readers: not for --help or a bad argument

    files, names = _named_files(args.file)
    if len(files) > 1 and args.model_name is not None:
        raise ValueError("--model-name names the model of one file; with several files, give NAME=PATH for "
                         "each file whose model you name (e.g. 'gpt-4o=run1/samples.jsonl')")
    if names and args.model_name is not None:
        raise ValueError(f"the model of {files[0]!r} is named twice (NAME=PATH and --model-name); give one")
    models = tuple(names.get(f) for f in files) if names else ((args.model_name,) if args.model_name else ())
    return ReadingOptions(layout=args.layout, question_col=args.question_col, model_col=args.model_col,
                          score_col=args.score_col, cluster_col=args.cluster_col, duplicates=args.duplicates,
                          mixed_scales=args.mixed_scales, ignore_cols=tuple(args.ignore_col),
                          runs_in_ids=args.runs_in_ids, resample_col=args.resample_col, metric=args.metric,
                          harness_filter=args.filter, model_names=models)


def reading_flags(opts, *, roles: bool = True, n_files: int = 1) -> tuple[str, ...]:
    """The options that give ``opts`` back when parsed (:func:`reading_options`), spelled by
    :func:`evalstats_core.flags.reading_flags`; ``roles=False`` leaves out the layout and column roles (the
    report writes those it detected in a results table). One file's model name is ``--model-name``; several
    files' are NAME=PATH (:func:`file_args`)."""
    pairs = [("format", opts.layout), ("question_col", opts.question_col), ("model_col", opts.model_col),
             ("score_col", opts.score_col), ("cluster_col", opts.cluster_col)] if roles else []
    pairs += [("metric", opts.metric), ("harness_filter", opts.harness_filter),
              ("duplicates", opts.duplicates if opts.duplicates != "resamples" else None),
              ("mixed_scales", opts.mixed_scales if opts.mixed_scales != "error" else None),
              ("ignore_cols", opts.ignore_cols), ("resample_col", opts.resample_col),
              ("runs_in_ids", opts.runs_in_ids or None),
              ("model_name", opts.model_names[0] if n_files == 1 and opts.model_names else None)]
    return spell_flags((k, v) for k, v in pairs if v not in (None, ()))


def file_args(names: list[str], model_names: tuple = ()) -> str:
    """The files of a command, every one by name, quoted for a POSIX shell; a name starting with '-' is
    written './-name' (never read as an option), a file's model name is given as NAME=PATH, and a bundled
    example as ``--example NAME`` (never its install path, which a shared report would leak)."""

    from .examples import name_of  # only for a bundled example

    out = []
    for k, name in enumerate(names):
        path = f"./{name}" if str(name).startswith("-") and name != "-" else str(name)
        model = model_names[k] if k < len(model_names) and len(names) > 1 else None
        example = None if model or name == "-" else name_of(name)
        out.append(f"--example {example}" if example else shlex.quote(f"{model}={path}" if model else path))
    return " ".join(out)


def with_command(analysis, files: list[str], opts):
    """``analysis`` whose ``settings.command`` names every file and every reading choice of ``opts`` (the
    command line and the workbench both write theirs with it, so the workbench's command reruns)."""

    table = analysis.format in ("long", "wide")  # the report writes the roles it detected in a results table
    return dataclasses.replace(analysis, source=file_args(files, opts.model_names),
                               reading=reading_flags(opts, roles=not table, n_files=len(files)))


def _load(args: argparse.Namespace):
    """Read the input within the budgets, with the reading choices the workbench would make; dataset
    warnings go to stderr. Returns the dataset, the limits and the reading options."""
    limits = _limits(args)
    opts = reading_options(args)
    files = _named_files(args.file)[0]
    if len(files) > 1 and "-" in files:
        raise ValueError("standard input ('-') can only be read on its own; name the files instead")
    if files == ["-"]:
        data = sys.stdin.buffer.read(limits.max_bytes + 1)  # bounded: /dev/zero piped in stops here
        dataset = opts.load([("stdin", data)], limits=limits)
    else:
        from ._memory import tune_for  # only once a file is read

        tune_for(files)  # a large file: freed memory goes back to the system at once (issue 25)
        dataset = opts.load(files, limits=limits)
    _say_warnings(dataset.warnings)
    return dataset, limits, opts


def _say_warnings(warnings: tuple[str, ...]) -> None:
    """The reading's warnings on stderr, one line each (a Dataset's, or the SQL engine's FileSums'), the options
    they name spelled as the command line does."""
    for w in warnings:
        print(f"evalbars: warning: {' '.join(for_cli(w).split())}", file=sys.stderr)


def _limits(args: argparse.Namespace):
    return Limits.from_env(max_rows=args.max_rows, max_models=args.max_models, max_pairs=args.max_pairs,
                           max_bytes=None if args.max_mb is None else args.max_mb * 2**20)


def _named_files(given: list[str]) -> tuple[list[str], dict[str, str]]:
    """Files as given, with ``NAME=PATH`` (as errorbars takes it) split into the path and its model name."""
    files, names = [], {}
    for arg in given:
        name, sep, path = arg.partition("=")
        if sep and name and path and arg != "-" and not os.path.exists(arg):
            files.append(path)
            names[path] = name
        else:
            files.append(arg)
    return files, names


# ------------------------------------------------------------ the commands
def _fail(message: str) -> int:
    # the core names options as the API does (question_col=); we print --question-col
    print(f"evalbars: error: {' '.join(for_cli(str(message)).split())}", file=sys.stderr)
    return 2


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.exists(b) and os.path.samefile(a, b)
    except OSError:
        return False


def _write(text: str, output: str | None) -> None:
    """The report to stdout, or to the file ``output`` (:func:`write_file`)."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_file(output, text)


def write_file(path: str, body: str) -> None:
    """Write ``body`` (UTF-8, newlines as written) to ``path``: the one place the command line writes a file.

    Only a regular file (or a new one) is written: a symbolic link is never followed (``O_NOFOLLOW``, also when
    one appears between the check and the open), and a folder, a named pipe (FIFO), a device or a socket is
    refused before anything is written (the open does not block on a FIFO: ``O_NONBLOCK``). The file is
    emptied only once it is known to be a regular file. Raises an :class:`EvalStatsError` naming the path.
    """

    def refuse(kind: str) -> EvalStatsError:
        return EvalStatsError(f"output {path!r} is {kind}, not a regular file; choose another name (a report is "
                              "never written through a link, into a pipe or onto a device)")

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise EvalStatsError(f"output {path!r} cannot be written ({exc.strerror or exc}); choose another name") \
            from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise refuse(_kind(st.st_mode))
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link appeared between the check and the open
            raise refuse("a symbolic link") from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader appeared
            raise refuse("a named pipe (FIFO)") from None
        if exc.errno == errno.EISDIR:
            raise refuse("a folder") from None
        raise EvalStatsError(f"output {path!r} cannot be written ({exc.strerror or exc}); choose another name") \
            from None
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped since the check
            raise refuse(_kind(mode))
        os.set_blocking(fd, True)
        os.ftruncate(fd, 0)
        fh.write(body)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    return ("a symbolic link" if stat.S_ISLNK(mode) else "a folder" if stat.S_ISDIR(mode) else
            "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def _gate(args: argparse.Namespace) -> int:
    if args.output is not None and any(_same_file(f, args.output) for f in args.file):
        return _fail(f"--output {args.output!r} is the input file; choose another name (the input is never "
                     "overwritten)")

    by_sql = sql_sums(args, _limits(args))
    _say_warnings(by_sql[0].warnings if by_sql else ())
    dataset = by_sql[0] if by_sql else _load_scores(args)[0]
    from .gating import gate, gate_pass_at_k  # the gate's modules: evalbars gate only

    if args.pass_at is not None and (by_sql or args.human_col or args.labels or args.wild_bootstrap):
        return _fail("--pass-at decides on each question's samples in memory, without --engine duckdb/spark, "
                     "human labels or --wild-bootstrap; leave those out")
    labels = {} if by_sql else dict(human_col=args.human_col, labels=args.labels,  # the engines refused them
                                    labels_all_models=args.labels_all_models)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        if args.pass_at is not None:  # the gate on pass@k: the rows' samples (no labels, no wild bootstrap)
            k = int(args.pass_at) if args.pass_at.strip().isdigit() else args.pass_at
            result = gate_pass_at_k(dataset, baseline=args.baseline, candidate=args.candidate, k=k,
                                    margin=args.margin, confidence=args.confidence, use_clusters=not args.no_clusters)
        else:
            result = gate(dataset, baseline=args.baseline, candidate=args.candidate, margin=args.margin,
                          confidence=args.confidence, method=args.cluster_se, use_clusters=not args.no_clusters,
                          wild_bootstrap=args.wild_bootstrap, n_boot=args.n_boot, seed=args.seed, **labels)
    for line in result.label_notes:
        print(f"evalbars: note: {' '.join(for_cli(line).split())}", file=sys.stderr)

    text = result.markdown(respell=for_cli)  # the core writes margin='2pt'; the command line --margin 2pt
    if by_sql:
        text = text.rstrip("\n") + "\n\n" + escape_markdown(f"Computed by the {by_sql[2]} engine from the file's "
                                                             "sums.") + "\n"
    _write(text, args.output)
    return result.exit_code


def _load_scores(args: argparse.Namespace):
    """:func:`_load`; a refused file that holds pairwise preferences is told to use ``evalbars pairwise``."""
    try:
        return _load(args)
    except EvalStatsError:
        kinds = pairwise_paths(args.file)  # only once a file was refused: its first MB sniffed
        if kinds:
            raise EvalStatsError(f"{args.file[0]} holds pairwise preferences ({kinds}), not scores: run "
                                 f"'{PROG} pairwise {' '.join(map(shlex.quote, args.file))}' for win rates and Bradley-Terry "
                                 "ratings") from None
        raise


def _pairwise(args: argparse.Namespace) -> int:
    """``evalbars pairwise FILE...``: read the battles, fit, render (:mod:`evalstats_core.pairwise`)."""
    if args.output is not None and any(_same_file(f, args.output) for f in args.file):
        return _fail(f"--output {args.output!r} is the input file; choose another name (the input is never "
                     "overwritten)")
    # the statistics (numpy, scipy) only once the arguments are good
    from .pairwise_report import files_report  # evalbars pairwise only

    text, notes = files_report(args.file, baseline=args.baseline, strong_weight=args.strong_weight,
                               confidence=args.confidence, anchor=args.anchor, n_boot=args.n_boot, seed=args.seed,
                               fmt=args.format, table=args.table, max_models=args.max_models,
                               limits=_limits(argparse.Namespace(max_rows=None, max_models=None, max_pairs=None,
                                                                 max_mb=args.max_mb)))
    if args.format in ("csv", "latex"):  # no place for notes in these formats: tell the user here
        for note in notes:
            print(f"evalbars: note: {for_cli(note)}", file=sys.stderr)
    _write(text, args.output)
    return 0


def _plan(args: argparse.Namespace) -> int:
    """``evalbars plan FILE --pass-at K --half-width H``: each model's pass@k plan from the file as a pilot."""
    if args.output is not None and any(_same_file(f, args.output) for f in args.file):
        return _fail(f"--output {args.output!r} is the input file; choose another name (the input is never "
                     "overwritten)")
    if args.engine not in ("auto", "memory"):
        return _fail(f"the plan needs each question's samples, which the {args.engine} engine's sums do not keep; "
                     "leave --engine out")
    dataset = _load_scores(args)[0]
    from .report_passk import plan_report  # the statistics (numpy, scipy): only for a file that loaded

    k = int(args.pass_at) if args.pass_at.strip().isdigit() else args.pass_at
    _write(plan_report(dataset, k, args.half_width, samples=args.samples, use_clusters=not args.no_clusters,
                       confidence=args.confidence, fmt=args.format), args.output)
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.command == "gate":
        return _gate(args)
    if args.command == "plan":
        return _plan(args)
    if args.command == "pairwise":
        return _pairwise(args)
    if args.output is not None and any(_same_file(f, args.output) for f in args.file):
        return _fail(f"--output {args.output!r} is the input file; choose another name (the input is never "
                     "overwritten)")

    by_sql = sql_sums(args, _limits(args))  # --engine duckdb / spark (auto: a file above --max-mb): sums in SQL
    _say_warnings(by_sql[0].warnings if by_sql else ())
    dataset, limits, opts = (by_sql[0], by_sql[1], reading_options(args)) if by_sql else _load_scores(args)

    check_pairs(len(dataset.models), args.baseline, limits, dataset.name)
    from .analysis import analyze, analyze_sums  # the statistics (scipy.special) only for a file that loaded
    from .report import render

    if by_sql and args.pass_at is not None:
        return _fail(f"--pass-at needs each question's samples, which the {by_sql[2]} engine's sums do not keep; "
                     "analyze this file in memory (--engine memory) for pass@k")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)  # they are part of the report (and stderr below)
        settings = dict(baseline=args.baseline, confidence=args.confidence, paired=not args.unpaired,
                        use_clusters=not args.no_clusters, adjust=args.adjust, method=args.cluster_se,
                        interval=args.interval)
        result = analyze_sums(dataset, **settings) if by_sql else analyze(
            dataset, **settings, wild_bootstrap=args.wild_bootstrap, n_boot=args.n_boot, seed=args.seed,
            pass_at=args.pass_at)
    if args.file != ["-"]:  # settings.command names the files as given, so it reruns from where it was started
        result = with_command(result, _named_files(args.file)[0], opts)

    if by_sql:  # the command repeats the engine; the notes say it ran
        result = dataclasses.replace(result, reading=(*result.reading, f"--engine {by_sql[2]}"))
    if args.format in ("markdown", "html", "latex"):  # a report for people names options as the command line does
        # (cluster_col='category' -> --cluster-col category); JSON and CSV keep the API's words, as the workbench's
        result = dataclasses.replace(result, notes=tuple(for_cli(n) for n in result.notes))
    from .judge_io import add_to_report, section_for  # judge-corrected estimates when human labels exist

    skipped: list[str] = []
    judge = None if by_sql else section_for(
        dataset, result, human_col=args.human_col, labels=args.labels, labels_all_models=args.labels_all_models,
        human_loader=lambda name: _load(argparse.Namespace(**{**vars(args), "metric": name}))[0], notes=skipped)
    for note in skipped:
        print(f"evalbars: note: {' '.join(for_cli(note).split())}", file=sys.stderr)
    if judge is not None:  # every table, verdict and ranking then reads the corrected numbers
        from .judge_apply import corrected_analysis  # only when human labels exist

        result = corrected_analysis(result, judge)
        if args.labels is not None:  # the command repeats the labels file, as it names the results files
            given = [("labels", args.labels)] + ([("labels_all_models", True)] if args.labels_all_models else [])
            result = dataclasses.replace(result, reading=(*result.reading, *spell_flags(given)))
    if args.format in ("csv", "latex"):  # these formats have no place for warnings: tell the user here
        for w in result.warnings:
            print(f"evalbars: warning: {for_cli(w)}", file=sys.stderr)
    if args.format == "csv" and args.output is not None and (args.output.endswith(("/", os.sep))
                                                             or os.path.isdir(args.output)):
        from .report import csv_tables  # only for CSV tables into a folder

        folder = args.output.rstrip("/" + os.sep) or args.output
        if os.path.islink(folder):  # the tables would land wherever the link points
            return _fail(f"output folder {args.output!r} is a symbolic link, not a folder; choose another name (a "
                         "report is never written through a link)")
        os.makedirs(args.output, exist_ok=True)
        tables = csv_tables(result)  # with judge.csv when human labels were read
        for name, body in tables.items():
            path = os.path.join(args.output, name)
            if any(_same_file(f, path) for f in args.file):
                return _fail(f"{path!r} is the input file; choose another folder (the input is never overwritten)")
            write_file(path, body)
        return 0
    latex = {"columns": args.columns or ("model", "n", "mean", "diff", "p_adj"), "caption": args.caption,
             "label": args.label, "wide": not args.narrow}
    if judge is not None and args.table == "judge":
        text = add_to_report("", args.format, judge, table=args.table)
    elif args.table != "judge":  # the corrected analysis carries the judge section into every format
        text = render(result, args.format, table=args.table, latex=latex)
    else:
        return _fail("--table judge needs human labels: --human-col C or --labels FILE")
    _write(text, args.output)
    return 0


def exit_now(code: int) -> NoReturn:
    """Flush what we wrote and leave without native libraries' exit-time destructors.

    pyarrow's reader threads can still be winding down at exit, and on a loaded machine that ended the
    process with "terminate called without an active exception" (SIGABRT) instead of our exit code.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input or options)."""

    try:
        argv = join_signed(expand_examples(sys.argv[1:] if argv is None else list(argv)))
    except ValueError as exc:
        return _fail(str(exc))
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        return _fail(f"choose a command, e.g. '{PROG} analyze results.csv' (see '{PROG} --help')")
    missing = missing_file(getattr(args, "file", None) or [])
    if missing:
        return _fail(missing)
    try:
        return _run(args)
    except BrokenPipeError:  # e.g. piped into `head`
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return 0
    except ValueError as exc:  # EvalStatsError is a ValueError
        return _fail(str(exc))
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return _fail(f"{exc.strerror or exc}{where}")
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        return _fail("the analysis ran out of memory; lower the budgets (--max-rows, --max-models, --max-pairs) "
                     "so that a file this large is refused up front, or analyze a smaller file")
    except RecursionError:
        return _fail("the input is nested too deeply to read; flatten it to one row per question and model")
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        return _fail(f"unexpected {type(exc).__name__}: {exc} (please report this with the input file)")
