"""A throwaway PostgreSQL cluster for the class store's tests and bench/class_live.py (Debian's postgresql 15).

``local_postgres()`` runs ``initdb`` into a fresh temporary folder and ``pg_ctl start`` on a unix socket in it
(no TCP at all: ``listen_addresses = ''``), yields the database address, then stops the server and removes the
folder. PostgreSQL refuses to run as root, so under root the two commands run as the ``postgres`` user the Debian
package creates (``runuser``). ``missing()`` says why a cluster cannot be started here (None when it can).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _bin() -> Path:
    """``EVALSTATS_PG_BIN``, else the newest ``/usr/lib/postgresql/<version>/bin`` (Debian's layout; 15 on bookworm)."""
    if os.environ.get("EVALSTATS_PG_BIN"):
        return Path(os.environ["EVALSTATS_PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


BIN = _bin()


def missing() -> str | None:
    """Why no local cluster can be started (None when it can)."""
    if not (BIN / "initdb").is_file() or not (BIN / "pg_ctl").is_file():
        return f"PostgreSQL's initdb/pg_ctl are not in {BIN} (Debian's postgresql package; .ci/run installs it)"
    if os.geteuid() == 0 and (shutil.which("runuser") is None or _uid("postgres") is None):
        return "running as root and there is no 'postgres' user (or runuser) to start PostgreSQL as"
    return None


def _uid(name: str) -> int | None:
    import pwd

    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


def _free_port() -> int:
    with socket.socket() as s:  # only a number for the socket's file name (.s.PGSQL.<port>); nothing listens on TCP
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def local_postgres() -> Iterator[str]:
    """Start a cluster in a temporary folder; yield its address (``postgresql://postgres@/postgres?host=..``)."""
    why = missing()
    if why:
        raise RuntimeError(why)
    folder = Path(tempfile.mkdtemp(prefix="evalstats-pg-"))
    data = folder / "data"
    prefix: list[str] = []
    if os.geteuid() == 0:
        uid = _uid("postgres")
        os.chown(folder, uid, -1)
        prefix = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    log = folder / "server.log"
    try:
        subprocess.run([*prefix, str(BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                        "--no-sync", "-E", "UTF8", "--locale=C"], check=True, capture_output=True, timeout=120)
        options = f"-k {folder} -p {port} -c listen_addresses='' -c fsync=off -c max_connections=200"
        subprocess.run([*prefix, str(BIN / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w",
                        "-t", "60", "start"], check=True, capture_output=True, timeout=120)
        yield f"postgresql://postgres@/postgres?host={folder}&port={port}"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run([*prefix, str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
