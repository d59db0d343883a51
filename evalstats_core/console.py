"""The ``evalbars`` console command (installed by ``pip install evalbars``): the same command line as
``python -m evalstats_core`` (``evalbars analyze FILE``, ``evalbars gate FILE --baseline A --candidate B``)."""

from __future__ import annotations

from . import cli

__all__ = ["main"]


def main() -> None:
    """Run :func:`evalstats_core.cli.main` under the installed command's name and exit with its status."""

    cli.PROG = "evalbars"  # usage lines and hints name the command the user typed
    cli.exit_now(cli.main())
