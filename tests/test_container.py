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


def cmd() -> list[str]:
    return json.loads(one("CMD"))


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
    assert one("EXPOSE") == "8501"
    args = cmd()
    assert args[:5] == ["python", "-m", "streamlit", "run", "app.py"]
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


def test_container_command_serves_and_answers_the_health_check(image_dir):
    port = free_port()
    args = [sys.executable if a == "python" else a for a in cmd()]
    args = ["--server.address=127.0.0.1" if a.startswith("--server.address=") else a for a in args]
    args = [f"--server.port={port}" if a.startswith("--server.port=") else a for a in args]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen(args, cwd=image_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    try:
        health = wait_health(proc, port)
        assert health == b"ok", proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
        check = json.loads(one("HEALTHCHECK").split(" CMD ", 1)[1])
        assert check[0] == "python"
        check = [sys.executable] + [a.replace("8501", str(port)) for a in check[1:]]
        assert subprocess.run(check, timeout=30).returncode == 0
    finally:
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
