"""The reading choices of the command line (private to :mod:`evalstats_core.cli`, and shared with the
workbench through it): the :class:`~evalstats_core.reading.ReadingOptions` the arguments ask for, the options
that repeat them in ``settings.command``, and the files read within the budgets.

Imports nothing heavy at module level: the readers are imported when a file is read.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import sys

from .flags import for_cli
from .flags import reading_flags as spell
from .limits import Limits


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
    return spell((k, v) for k, v in pairs if v not in (None, ()))


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
