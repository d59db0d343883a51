"""The ``evalbars`` console command (installed by ``pip install evalbars``): the same command line as
``python -m evalstats_core`` (``evalbars analyze FILE``, ``evalbars gate FILE --baseline A --candidate B``)."""

from __future__ import annotations

import os
import sys

__all__ = ["main"]


def main() -> None:
    """Run :func:`evalstats_core.cli.main` under the installed command's name and exit with its status."""
    from . import cli

    cli.PROG = "evalbars"  # usage lines and hints name the command the user typed
    code = cli.main()
    # As in __main__: leave without native libraries' exit-time destructors (pyarrow's reader threads
    # can still be winding down), after flushing everything we wrote.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass
    os._exit(code)
