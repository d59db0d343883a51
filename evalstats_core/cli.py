"""The command line: ``evalbars analyze FILE`` (also ``python -m evalstats_core``), a thin shell over load ->
analyze -> render.

Start-up stays fast: this module imports only :mod:`argparse` (``--help`` answers before numpy,
pandas or scipy are loaded); the statistics are imported after the arguments are parsed. Every bad
input ends with exit code 2 and one line on stderr naming the file, row, column and value; the
input file is only ever read.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

__all__ = ["main", "build_parser"]

PROG = "evalbars"  # one name: the installed command (``python -m evalstats_core`` runs the same)

_DESCRIPTION = """\
evalbars: error bars for LLM evaluations (Miller 2024, "Adding Error Bars to Evals").

Give it a results file with one score per question and model; it reports each model's mean with
its standard error and confidence interval, and every pairwise difference (paired, on the questions
both models answered) with its interval, p-value and correlation - the tables of the paper.
"""

_ANALYZE_DESCRIPTION = """\
Analyse a results file (CSV or Parquet) and print a report.

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

exit status: 0 on success, 2 when the input or the options cannot be used (one line on stderr says why);
gate: 0 pass, 1 regression, 3 inconclusive.
"""

_GATE_DESCRIPTION = """\
A regression gate for CI: is the candidate shown not worse than the baseline?

It compares the two models on the questions both answered, exactly as 'analyze' does (paired,
clustered on the file's cluster column, CR2 with Satterthwaite degrees of freedom), and reads the
interval for candidate - baseline:

  exit 0  pass: the whole interval lies above -margin (not worse by more than the margin)
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
_seed = _bounded("--seed", int, lambda v: 0 <= v < 2**63, "a non-negative whole number", "0")
def _margin(text: str) -> str:
    """``--margin`` as written (``2pt``, ``2%``, ``0.02``): its syntax checked here, its scale by the gate."""
    from .gating import parse_margin  # light: gating imports no numpy at module level

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
    from .engine_cli import add_option  # argparse only: --help stays light

    add_option(p)


def reading_options(args: argparse.Namespace):
    """The reading choices of these arguments, as the workbench builds them from its widgets (a file's model
    name from NAME=PATH, or --model-name for one file)."""
    from .reading import ReadingOptions

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
    from .flags import reading_flags as spell

    pairs = [("format", opts.layout), ("question_col", opts.question_col), ("model_col", opts.model_col),
             ("score_col", opts.score_col), ("cluster_col", opts.cluster_col)] if roles else []
    pairs += [("metric", opts.metric), ("harness_filter", opts.harness_filter),
              ("duplicates", opts.duplicates if opts.duplicates != "resamples" else None),
              ("mixed_scales", opts.mixed_scales if opts.mixed_scales != "error" else None),
              ("ignore_cols", opts.ignore_cols), ("resample_col", opts.resample_col),
              ("runs_in_ids", opts.runs_in_ids or None),
              ("model_name", opts.model_names[0] if n_files == 1 and opts.model_names else None)]
    return spell((k, v) for k, v in pairs if v not in (None, ()))


def file_args(names: list[str], model_names: tuple = ()) -> str:
    """The files of a command, every one by name, quoted for a POSIX shell; a name starting with '-' is
    written './-name' (never read as an option), and a file's model name is given as NAME=PATH."""
    import shlex

    out = []
    for k, name in enumerate(names):
        path = f"./{name}" if str(name).startswith("-") and name != "-" else str(name)
        model = model_names[k] if k < len(model_names) and len(names) > 1 else None
        out.append(shlex.quote(f"{model}={path}" if model else path))
    return " ".join(out)


def with_command(analysis, files: list[str], opts):
    """``analysis`` whose ``settings.command`` names every file and every reading choice of ``opts`` (the
    command line and the workbench both write theirs with it, so the workbench's command reruns)."""
    import dataclasses

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
        from ._memory import tune_for

        tune_for(files)  # a large file: freed memory goes back to the system at once (issue 25)
        dataset = opts.load(files, limits=limits)
    _say_warnings(dataset.warnings)
    return dataset, limits, opts


def _say_warnings(warnings: tuple[str, ...]) -> None:
    """The reading's warnings on stderr, one line each (a Dataset's, or the SQL engine's FileSums')."""
    for w in warnings:
        print(f"evalbars: warning: {' '.join(w.split())}", file=sys.stderr)


def _limits(args: argparse.Namespace):
    from .limits import Limits

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (``analyze`` subcommand)."""
    from .vocabulary import INTERVAL_METHODS  # light: no numpy
    parser = _Parser(prog=PROG, description=_DESCRIPTION, epilog=_EXAMPLES,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    p = sub.add_parser("analyze", help="analyse a results file and print the report",
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
                        "failures, Wilson, or Korn-Graubard with clusters, and Tango's score interval for pairs with "
                        "fewer than 100 discordant answers or with clusters; else normal), normal (t, or z with "
                        "--cluster-se cr1, also for the pairs), wilson, clopper-pearson, bayes (these need independent 0/1 answers)")
    p.add_argument("--wild-bootstrap", action="store_true",
                   help="add a wild cluster bootstrap p-value to every paired comparison (a cross-check)")
    p.add_argument("--n-boot", type=_n_boot, default=9999, metavar="B",
                   help="wild bootstrap draws (default 9999; every weight vector when there are at most B)")
    p.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the wild bootstrap draws (default 0)")
    p.add_argument("--table", choices=("models", "comparisons", "judge"), default="models",
                   help="with --format csv: which table to print (one table per file; default models); with -o DIR "
                        "every table is written to DIR as models.csv, comparisons.csv")
    p.add_argument("--human-col", metavar="C",
                   help="column with human labels of the judged scores, blank where unlabelled (default: a column "
                        "named human, gold or label), or for harness logs the human scorer (Inspect logs with two "
                        "scorers; --metric names the judge's); reports the judge-corrected (PPI++) estimates")
    p.add_argument("--labels", metavar="FILE",
                   help="human labels in a separate CSV joined on the question (and model) id")
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
                        "scores) or 0.02 (score units); default 0; a margin as large as the scale is refused")
    g.add_argument("--wild-bootstrap", action="store_true",
                   help="add the wild cluster bootstrap p of the difference (a cross-check, as in analyze)")
    g.add_argument("--n-boot", type=_n_boot, default=9999, metavar="B", help="wild bootstrap draws (default 9999)")
    g.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the wild bootstrap draws (default 0)")
    g.add_argument("--confidence", type=_confidence, default=0.95, metavar="LEVEL",
                   help="confidence level of the interval the gate reads (default: 0.95)")
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
    g.add_argument("--labels", metavar="FILE", help="human labels in a separate CSV joined on the question (and model) id")
    g.add_argument("--output", "-o", metavar="OUT", help="write the Markdown summary to OUT instead of stdout")
    _input_options(g)
    return parser


def _fail(message: str) -> int:
    print(f"evalbars: error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.exists(b) and os.path.samefile(a, b)
    except OSError:
        return False


def _write(text: str, output: str | None) -> None:
    """The report to stdout, or to ``output`` (UTF-8, newlines as written)."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with open(output, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)


def _write_nofollow(path: str, body: str) -> str | None:
    """Write ``body`` to ``path`` without following a symlink there (``O_NOFOLLOW``); a message when refused."""
    if os.path.islink(path):
        return (f"{path!r} is a symbolic link; remove it or choose another folder (a table is never written "
                "through a link)")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if getattr(exc, "errno", None) == 40:  # ELOOP: a link appeared between the check and the open
            return f"{path!r} is a symbolic link; remove it or choose another folder"
        raise
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(body)
    return None


def _gate(args: argparse.Namespace) -> int:
    import warnings

    if args.output is not None and any(_same_file(f, args.output) for f in args.file):
        return _fail(f"--output {args.output!r} is the input file; choose another name (the input is never "
                     "overwritten)")
    from .engine_cli import by_sql as sql_sums

    by_sql = sql_sums(args, _limits(args))
    _say_warnings(by_sql[0].warnings if by_sql else ())
    dataset = by_sql[0] if by_sql else _load(args)[0]
    from .errors import EvalStatsWarning
    from .gating import gate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        result = gate(dataset, baseline=args.baseline, candidate=args.candidate, margin=args.margin,
                      confidence=args.confidence, method=args.cluster_se, use_clusters=not args.no_clusters,
                      wild_bootstrap=args.wild_bootstrap, n_boot=args.n_boot, seed=args.seed)
        from .judge_apply import gate_with_labels

        result, note = (result, f"Computed by the {by_sql[2]} engine from the file's sums.") if by_sql else \
            gate_with_labels(dataset, result, human_col=args.human_col, labels=args.labels, method=args.cluster_se,
                             use_clusters=not args.no_clusters)
    text = result.markdown()
    if note:
        from .report import escape_markdown

        text = text.rstrip("\n") + "\n\n" + escape_markdown(note) + "\n"
    _write(text, args.output)
    return result.exit_code


def _run(args: argparse.Namespace) -> int:
    import warnings

    if args.command == "gate":
        return _gate(args)
    if args.output is not None and any(_same_file(f, args.output) for f in args.file):
        return _fail(f"--output {args.output!r} is the input file; choose another name (the input is never "
                     "overwritten)")
    from .engine_cli import by_sql as sql_sums

    by_sql = sql_sums(args, _limits(args))  # --engine duckdb / spark (auto: a file above --max-mb): sums in SQL
    _say_warnings(by_sql[0].warnings if by_sql else ())
    dataset, limits, opts = (by_sql[0], by_sql[1], reading_options(args)) if by_sql else _load(args)
    from .limits import check_pairs

    check_pairs(len(dataset.models), args.baseline, limits, dataset.name)
    from .analysis import analyze, analyze_sums  # the statistics (scipy.special) only for a file that loaded
    from .errors import EvalStatsWarning
    from .report import render

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)  # they are part of the report (and stderr below)
        settings = dict(baseline=args.baseline, confidence=args.confidence, paired=not args.unpaired,
                        use_clusters=not args.no_clusters, adjust=args.adjust, method=args.cluster_se,
                        interval=args.interval)
        result = analyze_sums(dataset, **settings) if by_sql else analyze(
            dataset, **settings, wild_bootstrap=args.wild_bootstrap, n_boot=args.n_boot, seed=args.seed)
    if args.file != ["-"]:  # settings.command names the files as given, so it reruns from where it was started
        result = with_command(result, _named_files(args.file)[0], opts)
    if by_sql:  # the command repeats the engine; the notes say it ran
        import dataclasses

        result = dataclasses.replace(result, reading=(*result.reading, f"--engine {by_sql[2]}"))
    from .judge_io import add_to_report, section_for  # judge-corrected estimates when human labels exist

    skipped: list[str] = []
    judge = None if by_sql else section_for(
        dataset, result, human_col=args.human_col, labels=args.labels,
        human_loader=lambda name: _load(argparse.Namespace(**{**vars(args), "metric": name}))[0], notes=skipped)
    for note in skipped:
        print(f"evalbars: note: {' '.join(note.split())}", file=sys.stderr)
    if judge is not None:  # every table, verdict and ranking then reads the corrected numbers
        from .judge_apply import corrected_analysis

        result = corrected_analysis(result, judge)
    if args.format in ("csv", "latex"):  # these formats have no place for warnings: tell the user here
        for w in result.warnings:
            print(f"evalbars: warning: {w}", file=sys.stderr)
    if args.format == "csv" and args.output is not None and (args.output.endswith(("/", os.sep))
                                                             or os.path.isdir(args.output)):
        from .report import csv_tables

        os.makedirs(args.output, exist_ok=True)
        tables = csv_tables(result)  # with judge.csv when human labels were read
        for name, body in tables.items():
            path = os.path.join(args.output, name)
            if any(_same_file(f, path) for f in args.file):
                return _fail(f"{path!r} is the input file; choose another folder (the input is never overwritten)")
            message = _write_nofollow(path, body)
            if message:
                return _fail(message)
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
    from ._argv import expand_examples, missing_file  # nothing heavy: a missing file is refused at once

    try:
        argv = expand_examples(sys.argv[1:] if argv is None else list(argv))
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
                     "so that a file this large is refused up front, or analyse a smaller file")
    except RecursionError:
        return _fail("the input is nested too deeply to read; flatten it to one row per question and model")
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        return _fail(f"unexpected {type(exc).__name__}: {exc} (please report this with the input file)")
