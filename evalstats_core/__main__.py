"""``python -m evalstats_core``: the command line (see :mod:`evalstats_core.cli`)."""

import os
import sys

from .cli import main

code = main()
# Leave without running native libraries' exit-time destructors: pyarrow's reader threads can still be
# winding down at exit, and on a loaded machine that ended the process with "terminate called without
# an active exception" (SIGABRT) instead of our exit code. Everything we wrote is flushed first.
try:
    sys.stdout.flush()
    sys.stderr.flush()
except (BrokenPipeError, OSError):
    pass
os._exit(code)
