"""The Dockerfile: its required pieces are there, and its CMD serves the app as the container would.

No Docker engine runs here, so the image is not built. Instead the files its COPY lines name are copied
into a fresh folder (as into the image's WORKDIR), its CMD is run there with this environment's Python
on a free loopback port (instead of 0.0.0.0:8501), and the server must answer its HEALTHCHECK command
with exit 0 and /_stcore/health with "ok". The bundled home page then runs from that folder (AppTest).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from _server import free_port, stop_group, wait_health

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", "\n".join(line for line in DOCKERFILE.read_text().splitlines()
                                           if not line.lstrip().startswith("#")))
    out = []
    for line in text.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), " ".join(rest.split())))
    return out


def one(name: str) -> str:
    found = [rest for word, rest in instructions() if word == name]
    assert len(found) == 1, f"expected one {name} in the Dockerfile, found {found}"
    return found[0]


def cmd() -> str:
    """The CMD, a shell-form command (so ``$PORT`` is read when the container starts)."""
    text = one("CMD")
    assert not text.startswith("["), "exec-form CMD: $PORT would not be expanded"
    return text


def cmd_args(port: int | None) -> list[str]:
    """The CMD's words after the shell expands them with ``PORT`` set to ``port`` (unset when None)."""
    env = {"PATH": os.environ["PATH"]} | ({} if port is None else {"PORT": str(port)})
    script = "set -- " + cmd().removeprefix("exec ") + '; printf "%s\\n" "$@"'
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env,
                          check=True).stdout.splitlines()


def test_dockerfile_has_the_required_pieces():
    assert re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", one("FROM"))
    user = one("USER")
    runs = [r for w, r in instructions() if w == "RUN"]
    assert user not in ("root", "0") and any(re.fullmatch(rf"useradd .*\b{re.escape(user)}", r) for r in runs)
    assert "pip install -r requirements.txt" in runs
    assert ("COPY", "requirements.txt ./") in instructions()
    for line in (ROOT / "requirements.txt").read_text().splitlines():  # the pinned requirements
        if line.strip() and not line.startswith("#"):
            assert "==" in line, line
    health = one("HEALTHCHECK")
    assert "/_stcore/health" in health and "8501" in health
    assert one("EXPOSE") == "8501" and ("ENV", "PORT=8501") in instructions()
    assert cmd().startswith("exec ")  # the server replaces the shell: SIGTERM from `docker stop` reaches it
    args = cmd_args(None)
    assert args[:5] == ["python", "-m", "streamlit", "run", "app.py"]
    assert "--server.port=9000" in cmd_args(9000)  # the host's $PORT
    for setting in ("--server.address=0.0.0.0", "--server.port=8501", "--server.fileWatcherType=none",
                    "--server.maxUploadSize=200", "--server.enableCORS=true",
                    "--server.enableXsrfProtection=true", "--server.headless=true"):
        assert setting in args
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
    assert config["server"]["maxUploadSize"] == 200
    assert config["server"]["enableCORS"] is True and config["server"]["enableXsrfProtection"] is True


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory) -> Path:
    """The image's WORKDIR: exactly what the Dockerfile's COPY lines put there."""
    work = tmp_path_factory.mktemp("image") / "app"
    work.mkdir()
    for word, rest in instructions():
        if word == "COPY":
            src, dest = rest.split()
            s, d = ROOT / src.rstrip("/"), work / dest
            if s.is_dir():
                shutil.copytree(s, d, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(s, d / s.name if dest.endswith("/") else d)
    return work


def test_container_command_serves_on_port_and_answers_the_health_check(image_dir, tmp_path):
    """The CMD run by ``sh -c`` (as Docker runs a shell-form CMD) with ``PORT`` set listens on that port."""
    port = free_port()
    script = cmd().replace("--server.address=0.0.0.0", "--server.address=127.0.0.1")  # loopback only here
    shim = tmp_path / "bin"  # `python` on PATH is this environment's, as the image's is its own
    shim.mkdir()
    (shim / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (shim / "python").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PORT=str(port), PATH=f"{shim}:{env['PATH']}")
    proc = subprocess.Popen(["sh", "-c", script], cwd=image_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    try:
        health = wait_health(proc, port)
        assert health == b"ok", proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
        # `exec`: the shell became the server (docker stop's SIGTERM goes to it, not to a shell)
        assert b"streamlit" in Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        check = json.loads(one("HEALTHCHECK").split(" CMD ", 1)[1])
        assert check[0] == "python" and "8501" in check[-1]
        assert subprocess.run([sys.executable, *check[1:]], timeout=30, env=env).returncode == 0  # reads $PORT
        os.kill(proc.pid, signal.SIGTERM)  # what `docker stop` sends PID 1
        assert proc.wait(20) is not None
    finally:
        if proc.poll() is None:
            stop_group(proc)
    log = proc.stdout.read().decode(errors="replace")
    assert "Traceback" not in log and "Inotify" not in log, log


def test_container_files_run_the_app(image_dir):
    code = ("from streamlit.testing.v1 import AppTest\n"
            "at = AppTest.from_file('app.py', default_timeout=60); at.run()\n"
            "assert not at.exception, [e.value for e in at.exception]\n"
            "at.switch_page('pages/analyze.py'); at.run()\n"
            "assert not at.exception, [e.value for e in at.exception]\n"
            "import evalstats_core; print(evalstats_core.__file__)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=image_dir, capture_output=True, text=True, env=env,
                         timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert Path(out.stdout.strip().splitlines()[-1]).is_relative_to(image_dir)


@pytest.mark.parametrize(("args", "env", "address"), [
    ((), {}, ["--server.address", "127.0.0.1"]),
    (("--server.port", "8502"), {}, ["--server.address", "127.0.0.1"]),
    (("--server.address", "0.0.0.0"), {}, []),
    (("--server.address=0.0.0.0",), {}, []),
    ((), {"STREAMLIT_SERVER_ADDRESS": "0.0.0.0"}, []),
])
def test_app_script_listens_on_loopback_unless_told(tmp_path, args, env, address):
    """scripts/app.sh adds --server.address 127.0.0.1 unless the arguments or the environment choose one."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "app.sh", tmp_path / "scripts" / "app.sh")
    (tmp_path / "scripts" / "_venv.sh").write_text("")  # the real one installs requirements: not here
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    fake.chmod(0o755)
    base = {k: v for k, v in os.environ.items() if k != "STREAMLIT_SERVER_ADDRESS"}
    out = subprocess.run(["bash", str(tmp_path / "scripts" / "app.sh"), *args], capture_output=True, text=True,
                         env=base | env, timeout=30, check=True)
    assert out.stdout.splitlines() == ["-m", "streamlit", "run", "app.py", *address, *args]


def test_app_command_listens_on_loopback_unless_told(monkeypatch):
    from evalstats_app.launch import local_address

    monkeypatch.delenv("STREAMLIT_SERVER_ADDRESS", raising=False)
    assert local_address([]) == local_address(["--server.port", "8502"]) == ["--server.address=127.0.0.1"]
    assert local_address(["--server.address", "0.0.0.0"]) == local_address(["--server.address=::"]) == []
    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "0.0.0.0")
    assert local_address([]) == []
