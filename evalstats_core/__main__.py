"""``python -m evalstats_core``: the command line (see :mod:`evalstats_core.cli`)."""

from .cli import exit_now, main

exit_now(main())
