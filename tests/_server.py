"""Small helpers for the tests that start a Streamlit server themselves (the wheel's and the container's)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_health(proc: subprocess.Popen, port: int, seconds: float = 90) -> bytes:
    """What ``/_stcore/health`` answers once the server is up (b"" if it never is, or the process ended)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read()
        except OSError:
            time.sleep(0.3)
    return b""


def stop_group(proc: subprocess.Popen) -> None:
    """Stop a server started with ``start_new_session=True`` and everything it started."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def listening_addresses(port: int) -> set[str]:
    """The local IPv4/IPv6 addresses a socket LISTENs on at ``port`` (Linux ``/proc/net/tcp*``).

    ``"0.0.0.0"`` or ``"::"`` means every interface; ``"127.0.0.1"`` / ``"::1"`` this machine only.
    """
    import ipaddress

    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as fh:
                lines = fh.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            host, _, hex_port = local.partition(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A = LISTEN
                continue
            raw = bytes.fromhex(host)
            # the kernel prints each 32-bit word in host (little-endian) order
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(str(ipaddress.ip_address(raw)))
    return found
