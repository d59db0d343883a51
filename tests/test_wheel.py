"""The installable package: build the wheel from a copy of the source, install it into a fresh virtualenv
outside the repository, and use it from a working directory outside the repository: the ``evalbars``
command (analyze and gate), ``python -m evalstats_core``, the Python API, ``evalbars-app`` (the server
answers its health check) and the bundled pages run from the installed files (AppTest).

To stay quick the fresh virtualenv has no pip and no dependencies of its own: a ``.pth`` file puts the
test environment's site-packages after its own, and only the built wheel is installed (``--no-deps``).
The imports are checked to come from the fresh virtualenv, not from the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _server import free_port, listening_addresses, stop_group, wait_health

ROOT = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns(".venv", ".git", "tests", "bench", "build", "dist", "*.egg-info", "__pycache__",
                                "artifacts", ".pytest_cache", ".hypothesis", ".ruff_cache")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel path, venv's bin dir, venv's site-packages, a work dir outside the repo)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE, symlinks=False)
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
                    "--no-index", "-w", str(dist), str(src)], check=True, cwd=tmp)
    (wheel,) = dist.glob("evalbars-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    bin_dir = venv / "bin"
    py = bin_dir / "python"
    venv_site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                    check=True, capture_output=True, text=True).stdout.strip())
    (venv_site / "_evalbars_test_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
                   check=True, cwd=tmp)
    work = tmp / "work"
    work.mkdir()
    return wheel, bin_dir, venv_site, work


def run(args, cwd, **kw):
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=120, **kw)


def test_wheel_holds_the_app_and_no_tests(installed):
    wheel, *_ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    site_files = {"app.py", ".streamlit/config.toml", "pages/power.py", "pages/analyze.py", "content/home.md",
                  "content/power.md", "examples/atlas_breeze.csv", "examples/multilingual_clustered.csv"}
    assert {f"evalstats_app/site/{f}" for f in site_files} <= names
    assert {"evalstats_core/console.py", "evalstats_app/launch.py", "evalstats_core/cli.py"} <= names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "pages/", "content/", "examples/"))]
    # every module of both packages (a new subpackage must be added to pyproject's package list)
    for package in ("evalstats_core", "evalstats_app"):
        for module in (ROOT / package).rglob("*.py"):
            assert module.relative_to(ROOT).as_posix() in names, module
    for page in (ROOT / "pages").glob("*.py"):
        assert f"evalstats_app/site/pages/{page.name}" in names, page
    for text in (ROOT / "content").glob("*.md"):
        assert f"evalstats_app/site/content/{text.name}" in names, text
    for example in (ROOT / "examples").iterdir():
        if example.is_file():
            assert f"evalstats_app/site/examples/{example.name}" in names, example
    assert any(n.endswith("licenses/LICENSE") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    points = zipfile.ZipFile(wheel).read(entry).decode()
    assert "evalbars = evalstats_core.console:main" in points
    assert "evalbars-app = evalstats_app.launch:main" in points


def test_command_analyze_and_gate_from_outside_the_repo(installed):
    _, bin_dir, venv_site, work = installed
    example = venv_site / "evalstats_app" / "site" / "examples" / "atlas_breeze.csv"
    shutil.copy(example, work / "results.csv")
    out = run([bin_dir / "evalbars", "analyze", "results.csv", "--format", "json"], work)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {m["model"] for m in doc["models"]} == {"Atlas", "Breeze"}
    assert doc["settings"]["evalstats_version"] == "0.1.0"
    gate = run([bin_dir / "evalbars", "gate", "results.csv", "--baseline", "Atlas", "--candidate", "Breeze"], work)
    assert gate.returncode in (0, 1, 3), gate.stderr
    assert gate.stdout.strip()
    bad = run([bin_dir / "evalbars", "analyze", "missing.csv"], work)
    assert bad.returncode == 2 and "missing.csv" in bad.stderr and "Traceback" not in bad.stderr
    usage = run([bin_dir / "evalbars"], work)
    assert usage.returncode == 2 and "evalbars analyze" in usage.stderr
    module = run([bin_dir / "python", "-m", "evalstats_core", "analyze", "results.csv", "--format", "markdown"], work)
    assert module.returncode == 0 and "Breeze" in module.stdout, module.stderr
    named = run([bin_dir / "evalbars", "analyze", "--example", "multilingual", "--format", "json"], work)
    assert named.returncode == 0, named.stderr  # the bundled example by name, from outside the repository
    assert {m["model"] for m in json.loads(named.stdout)["models"]} == {"Galleon", "Dreadnought", "Frigate"}


def test_api_comes_from_the_installed_package(installed):
    _, bin_dir, venv_site, work = installed
    code = (
        "import importlib.metadata, evalstats_core, evalstats_app\n"
        "from evalstats_core import summarize, compare, proportion_ci\n"
        "from evalstats_core.report import version\n"
        "from evalstats_app.examples import EXAMPLES_DIR\n"
        "from evalstats_app.content import CONTENT_DIR\n"
        "from evalstats_core import examples\n"
        "s = summarize([1, 0, 1, 1, 0, 1, 1, 1])\n"
        "c = compare([1, 0, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1, 1, 1])\n"
        "print(evalstats_core.__file__, evalstats_app.__file__, EXAMPLES_DIR, CONTENT_DIR, examples.path('synthetic'),"
        " sep='\\n')\n"
        "print(round(s.mean, 3), round(c.diff, 3), version(), importlib.metadata.version('evalbars'))\n"
    )
    out = run([bin_dir / "python", "-c", code], work)
    assert out.returncode == 0, out.stderr
    *paths, last = out.stdout.strip().splitlines()
    for p in paths:
        assert Path(p).is_relative_to(venv_site), p
        assert not Path(p).is_relative_to(ROOT), p
    assert Path(paths[2]).is_dir() and Path(paths[3]).is_dir() and Path(paths[4]).is_file()
    assert last.split() == ["0.75", "-0.125", "0.1.0", "0.1.0"]


def test_app_command_serves_and_pages_run_from_the_wheel(installed):
    _, bin_dir, venv_site, work = installed
    site_dir = venv_site / "evalstats_app" / "site"
    printed = run([bin_dir / "evalbars-app", "--print-path"], work)
    assert printed.returncode == 0 and Path(printed.stdout.strip()) == site_dir
    assert "--server.port" in run([bin_dir / "evalbars-app", "--help"], work).stdout
    # The bundled pages run from the installed files (content, examples and the chapter list found there).
    code = (
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(site_dir / 'app.py')!r}, default_timeout=60); at.run()\n"
        "assert not at.exception, [e.value for e in at.exception]\n"
        "for page in ('pages/power.py', 'pages/analyze.py'):\n"
        "    at.switch_page(page); at.run()\n"
        "    assert not at.exception, (page, [e.value for e in at.exception])\n"
        "print('pages ok')\n"
    )
    pages = run([bin_dir / "python", "-c", code], site_dir)
    assert pages.returncode == 0 and "pages ok" in pages.stdout, pages.stderr[-3000:]
    # The command starts the server (with the bundled config: headless) and it answers its health check;
    # without --server.address it listens on this machine only (127.0.0.1), as the README says.
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "STREAMLIT_SERVER_ADDRESS"}
    proc = subprocess.Popen([str(bin_dir / "evalbars-app"), "--server.port", str(port),
                             "--browser.gatherUsageStats", "false"], env=env,
                            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        health = wait_health(proc, port)
        assert health == b"ok", proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
        assert listening_addresses(port) == {"127.0.0.1"}
    finally:
        stop_group(proc)
