"""The Quick start as a user runs it: ``bash scripts/app.sh`` leaves ``evalbars`` on the path of ``.venv``.

A copy of the repository's tracked files gets a ``.venv`` made beforehand (the script uses an existing one as
it is) whose dependencies come from the test environment through a ``.pth`` file, as in tests/test_action.py:
the script's ``pip install -r requirements.txt`` then finds them all installed, and only the checkout itself is
installed (editable). The script serves the app; once it answers its health check, ``.venv/bin/evalbars``
(what ``source .venv/bin/activate`` puts on the path) analyzes a bundled example from another folder, and the
installed metadata names the licence.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest
from _server import free_port, stop_group, wait_health

ROOT = Path(__file__).resolve().parent.parent


def test_app_script_puts_evalbars_on_the_venvs_path(tmp_path):
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if tracked.returncode != 0:
        pytest.skip("needs a git checkout to copy its tracked files")
    repo = tmp_path / "evalstats"
    for name in tracked.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_bytes((ROOT / name).read_bytes())
    subprocess.run([sys.executable, "-m", "venv", str(repo / ".venv")], check=True)
    purelib = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMLIT_", "VIRTUAL_ENV"))}
    proc = subprocess.Popen(["bash", "scripts/app.sh", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false"], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        health = wait_health(proc, port, seconds=300)
        assert health == b"ok", proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
    finally:
        stop_group(proc)
    evalbars = repo / ".venv" / "bin" / "evalbars"
    assert evalbars.is_file()
    out = subprocess.run([str(evalbars), "analyze", "--example", "atlas_breeze", "--format", "json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [m["model"] for m in doc["models"]] and doc["settings"]["command"].startswith(
        "evalbars analyze --example atlas_breeze")
    # the licence in the installed metadata (pip >= 25.1, which the script installs into a new .venv, shows it)
    meta = subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c",
                           "import importlib.metadata as m; d = m.metadata('evalbars'); "
                           "print(d['Name'], d['License-Expression'])"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert meta.stdout.split() == ["evalbars", "MIT"], meta.stderr
