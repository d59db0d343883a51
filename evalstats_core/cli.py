"""The command line: ``evalbars analyze FILE`` (also ``python -m evalstats_core``), a thin shell over load ->
analyze -> render.

Start-up stays fast: this module imports only :mod:`argparse` and its two parts, the parser
(:mod:`evalstats_core._cli_parser`) and the reading choices (:mod:`evalstats_core._cli_reading`), which
import nothing heavier (``--help`` answers before numpy, pandas or scipy are loaded); the statistics are
imported after the arguments are parsed. Every bad input ends with exit code 2 and one line on stderr naming
the file, row, column and value; the input file is only ever read.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import os
import shlex
import stat
import sys
import warnings
from typing import NoReturn

from ._argv import expand_examples, missing_file
from ._cli_parser import PROG, build_parser
from ._cli_reading import (  # noqa: F401 - re-exported (tests, the workbench)
    _limits,
    _load,
    _named_files,
    _say_warnings,
    file_args,
    reading_flags,
    reading_options,
    with_command,
)
from ._pairwise_sniff import pairwise_paths  # standard library only
from .engine_cli import by_sql as sql_sums
from .errors import EvalStatsError, EvalStatsWarning
from .escape import escape_markdown  # standard library only (hashlib, html, re)
from .flags import for_cli  # light (re, shlex): no numpy before the arguments are parsed
from .flags import reading_flags as spell_flags
from .limits import check_pairs

__all__ = ["main", "build_parser"]


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
                     "so that a file this large is refused up front, or analyze a smaller file")
    except RecursionError:
        return _fail("the input is nested too deeply to read; flatten it to one row per question and model")
    except Exception as exc:  # noqa: BLE001 - last resort: one line, never a traceback
        return _fail(f"unexpected {type(exc).__name__}: {exc} (please report this with the input file)")
