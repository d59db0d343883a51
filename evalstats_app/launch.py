"""The ``evalbars-app`` command: ``streamlit run`` on the app bundled in the installed package.

Streamlit reads ``.streamlit/config.toml`` from the working directory, so the server starts in the
app's own folder (the repository root in a checkout, ``evalstats_app/site`` in an installed wheel) and
gets the project's settings: headless, no file watcher, 200 MB uploads, the theme. Extra arguments go to
``streamlit run`` (``evalbars-app --server.port 8502``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from .chapters import ROOT

__all__ = ["local_address", "main", "site_dir"]

USAGE = """usage: evalbars-app [--print-path] [STREAMLIT-RUN OPTIONS]

Serve the evalstats app (chapters and the results workbench) with Streamlit; open the URL it prints
(http://localhost:8501 unless you pass --server.port N). It listens on 127.0.0.1 only (this machine)
unless you pass --server.address (e.g. 0.0.0.0: every interface, for other machines) or set
STREAMLIT_SERVER_ADDRESS. Options are those of `streamlit run`, e.g. --server.port 8502.

  --print-path   print the folder of the bundled app.py, pages/, content/ and examples/, and exit
"""


def site_dir() -> Path:
    """The folder holding ``app.py``, ``pages/``, ``content/``, ``examples/`` and ``.streamlit/``."""

    return ROOT


def local_address(args: list[str]) -> list[str]:
    """``["--server.address=127.0.0.1"]`` unless the arguments or the environment choose the address.

    Streamlit alone listens on every interface; a local run should not (the container chooses 0.0.0.0).
    """
    chosen = os.environ.get("STREAMLIT_SERVER_ADDRESS") or any(
        a == "--server.address" or a.startswith("--server.address=") for a in args)
    return [] if chosen else ["--server.address=127.0.0.1"]


def main(argv: list[str] | None = None) -> int:
    """Start the Streamlit server on the bundled ``app.py``; returns Streamlit's exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE, end="")
        return 0
    site = site_dir()
    if args[:1] == ["--print-path"]:
        print(site)
        return 0
    if importlib.util.find_spec("streamlit") is None:
        print("evalbars-app: Streamlit is not installed; install the app's extra: pip install 'evalbars[app]'",
              file=sys.stderr)
        return 2
    cmd = [sys.executable, "-m", "streamlit", "run", str(site / "app.py"), *local_address(args), *args]
    os.chdir(site)
    # Become the server (no child left behind when this process is stopped, e.g. by a container runtime)
    os.execv(sys.executable, cmd)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
