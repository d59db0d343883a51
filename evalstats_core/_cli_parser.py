"""The command line's arguments (private to :mod:`evalstats_core.cli`): the ``analyze`` and ``gate`` parsers,
their help texts, and the argparse types that refuse a bad value in one line.

Imports only :mod:`argparse` (and, lazily, modules that import no numpy), so ``--help`` answers at once.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from .engine_cli import add_option
from .vocabulary import INTERVAL_METHODS

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
    p.add_argument("--example", metavar="NAME",  # replaced by the file's path before parsing (_argv.py)
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
