"""action.yml, the composite GitHub Action: its steps run locally as a runner would run them.

The file is read with a YAML reader; every ``run:`` step is run with ``bash --noprofile --norc -eo
pipefail`` (what a runner uses for ``shell: bash``) and the variables a runner sets: ``GITHUB_STEP_SUMMARY``,
``GITHUB_OUTPUT``, ``RUNNER_TEMP``, and the step's ``env:`` with ``${{ inputs.x }}`` and
``${{ github.action_path }}`` substituted. ``uses:`` steps (actions/setup-python) are not run: a fresh
virtualenv's ``bin`` first on ``PATH`` stands in for the Python it sets up. The install step installs a copy
of the repository into that virtualenv (offline: its dependencies come from the test environment through a
``.pth`` file, as in tests/test_wheel.py), so the gate runs the installed ``evalbars``.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")  # pyyaml (comes with inspect-ai, requirements-dev.txt)

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXAMPLE = ROOT / "examples" / "multilingual_clustered.csv"
IGNORE = shutil.ignore_patterns(".venv", ".git", "tests", "bench", "build", "dist", "*.egg-info", "__pycache__",
                                ".pytest_cache", ".hypothesis", ".ruff_cache", "artifacts")
OFFLINE = "--quiet --no-deps --no-build-isolation --no-index"


def _expand(text: str, inputs: dict[str, str], action_path: Path) -> str:
    """Substitute ``${{ inputs.x }}`` and ``${{ github.action_path }}`` as the runner does."""
    def one(m: re.Match) -> str:
        expr = m.group(1).strip()
        if expr == "github.action_path":
            return str(action_path)
        assert expr.startswith("inputs."), f"unexpected expression in a run step's env: {expr}"
        return inputs[expr.removeprefix("inputs.")]

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    """A function running the action's steps with given inputs: (exit code, summary, outputs, log)."""
    tmp = tmp_path_factory.mktemp("action")
    action_path = tmp / "action"
    shutil.copytree(ROOT, action_path, ignore=IGNORE)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    def run(work: Path, **given: str) -> tuple[int, str, dict[str, str], str]:
        inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
        inputs.update({k.replace("_", "-"): v for k, v in given.items()})
        for name, spec in ACTION["inputs"].items():  # a test leaving a required input out says so ("")
            assert not spec.get("required") or name.replace("-", "_") in given or inputs[name], f"{name} missing"
        temp = work / "runner_temp"
        temp.mkdir(exist_ok=True)
        summary, output = work / "step_summary.md", work / "github_output"
        summary.touch()
        output.write_text("")
        base = {"PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "HOME": str(work), "RUNNER_TEMP": str(temp),
                "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output), "GITHUB_ACTIONS": "true",
                "GITHUB_ACTION_PATH": str(action_path), "LANG": "C.UTF-8"}
        status, err = 0, ""
        for step in ACTION["runs"]["steps"]:
            if "uses" in step:
                continue
            assert step["shell"] == "bash"
            env = {**base, **{k: _expand(str(v), inputs, action_path) for k, v in step.get("env", {}).items()}}
            script = work / "step.sh"
            script.write_text(step["run"])
            out = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=work,
                                 env=env, capture_output=True, text=True, timeout=300)
            status, err = out.returncode, err + out.stdout + out.stderr
            if status:
                break
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
        return status, summary.read_text(), outputs, err

    return run


def test_the_action_is_composite_and_reads_inputs_from_the_environment():
    assert ACTION["runs"]["using"] == "composite"
    assert {"files", "baseline", "candidate", "margin", "confidence", "args"} <= set(ACTION["inputs"])
    for step in ACTION["runs"]["steps"]:
        # no ${{ }} pasted into a script: an input such as "$(rm -rf ~)" would run
        assert "${{" not in step.get("run", ""), step["name"]
    assert set(ACTION["outputs"]) == {"result", "exit-code", "summary-file"}


def test_pass_writes_the_gate_summary_and_exits_0(runner, tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "results.csv")
    status, summary, outputs, err = runner(tmp_path, files="results.csv", baseline="Galleon",
                                           candidate="Dreadnought", margin="0.01", pip_args=OFFLINE)
    assert status == 0, err
    assert "/venv/bin/evalbars" in err  # the command the install step put in the fresh virtualenv
    direct = subprocess.run([sys.executable, "-m", "evalstats_core", "gate", "results.csv", "--baseline", "Galleon",
                             "--candidate", "Dreadnought", "--margin", "0.01"], cwd=tmp_path, capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert direct.returncode == 0
    assert summary.strip() == direct.stdout.strip() and "PASS" in summary
    assert outputs["result"] == "pass" and outputs["exit-code"] == "0"
    assert Path(outputs["summary-file"]).read_text() == summary


def test_regression_fails_the_step_with_exit_1(runner, tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "results.csv")
    status, summary, outputs, _ = runner(tmp_path, files="*.csv", baseline="Galleon", candidate="Frigate",
                                         margin="1pt", pip_args=OFFLINE)
    assert status == 1 and outputs["result"] == "regression"
    assert "REGRESSION" in summary


def test_inconclusive_fails_only_when_asked(runner, tmp_path):
    """By default only a shown regression fails the step; fail-on-inconclusive "true" fails an inconclusive one."""
    shutil.copy(ROOT / "examples" / "atlas_breeze.csv", tmp_path)
    status, summary, outputs, _ = runner(tmp_path, files="atlas_breeze.csv", baseline="Breeze", candidate="Atlas",
                                         margin="0.01", pip_args=OFFLINE)
    assert status == 0 and outputs["result"] == "inconclusive" and outputs["exit-code"] == "3"
    assert "INCONCLUSIVE" in summary
    status, _, outputs, _ = runner(tmp_path, files="atlas_breeze.csv", baseline="Breeze", candidate="Atlas",
                                   margin="0.01", fail_on_inconclusive="true", pip_args=OFFLINE)
    assert status == 3 and outputs["exit-code"] == "3"


def test_an_unchanged_pull_request_does_not_fail_and_the_margin_is_the_users(runner, tmp_path):
    """A candidate that scores exactly as the baseline (a pull request that changes nothing) never fails the
    step with the defaults; without a margin the step refuses, naming the input (no silent margin of 0)."""
    import pandas as pd

    frame = pd.read_csv(EXAMPLE)
    main = frame[frame.model == "Galleon"]
    pd.concat([main.assign(model="main"), main.assign(model="pr")]).to_csv(tmp_path / "results.csv", index=False)
    status, summary, outputs, err = runner(tmp_path, files="results.csv", baseline="main", candidate="pr",
                                           margin="1pt", pip_args=OFFLINE)
    assert status == 0 and outputs["result"] in ("pass", "inconclusive"), err
    status, summary, outputs, err = runner(tmp_path, files="results.csv", baseline="main", candidate="pr",
                                           margin="", pip_args=OFFLINE)
    assert status == 2 and outputs["result"] == "error" and "'margin' input is required" in summary
    assert "margin" not in {k for k, v in ACTION["inputs"].items() if "default" in v}


def test_the_action_installs_the_pinned_requirements():
    """The install step constrains the package's dependencies to requirements.txt (the tested pins)."""
    (install,) = [s for s in ACTION["runs"]["steps"] if s.get("name") == "Install evalbars"]
    assert '-c "$ACTION_PATH/requirements.txt"' in install["run"]
    pins = dict(line.split("#")[0].strip().split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
                if "==" in line)
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert {re.split(r"[<>=!~ ]", d)[0] for d in deps} <= set(pins)  # every dependency of the package is pinned


def test_bad_input_exits_2_with_the_message_on_the_summary_and_runs_no_input(runner, tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "results.csv")
    status, summary, outputs, err = runner(tmp_path, files="results.csv", baseline="Galleon",
                                           candidate="$(touch pwned)", margin="1pt", pip_args=OFFLINE)
    assert status == 2 and outputs["result"] == "error"
    assert "is not a model" in summary and "is not a model" in err
    assert not (tmp_path / "pwned").exists()
    status, summary, _, _ = runner(tmp_path, files="missing.csv", baseline="a", candidate="b", margin="1pt",
                                   pip_args=OFFLINE)
    assert status == 2 and "missing.csv" in summary


def test_the_documented_workflow_uses_the_action_with_its_inputs():
    flow = yaml.safe_load((ROOT / "docs" / "ci-example.yml").read_text())
    steps = flow["jobs"]["gate"]["steps"]
    (gate,) = [s for s in steps if s.get("id") == "gate"]
    assert gate["uses"].endswith("/evalstats@v0")  # a tag the repository carries (v0 and v0.X.Y)
    assert set(gate["with"]) <= set(ACTION["inputs"])
    assert {k for k, v in ACTION["inputs"].items() if v.get("required")} <= set(gate["with"])
    readme = (ROOT / "README.md").read_text()
    assert "uses: OWNER/evalstats@v0" in readme and "@main" not in readme


def test_a_file_a_pull_request_adds_is_a_file_never_an_option(runner, tmp_path):
    """'*.csv' matching a file named '--labels=.evil.csv' (issue 46): it turned a regression into a PASS by
    reading '.evil.csv' as human labels; every name after '--' and './'-prefixed, it is read as a file."""
    import pandas as pd

    frame = pd.read_csv(EXAMPLE)
    frame = frame[frame.model.isin(["Galleon", "Frigate"])]
    frame.to_csv(tmp_path / "results.csv", index=False)
    frame.assign(human=(frame.model == "Frigate").astype(int))[["question", "model", "human"]].to_csv(
        tmp_path / ".evil.csv", index=False)  # labels saying the candidate is always right, the baseline never
    (tmp_path / "--labels=.evil.csv").write_text("question,model,score\n")
    status, summary, outputs, err = runner(tmp_path, files="*.csv", baseline="Galleon", candidate="Frigate",
                                           margin="1pt", pip_args=OFFLINE)
    assert outputs["result"] != "pass" and status != 0, summary
    assert status == 2 and "evil.csv has a header but no data rows" in err  # read (and refused) as a results file
    (tmp_path / "--labels=.evil.csv").unlink()
    (tmp_path / "results.csv").rename(tmp_path / "run 1.csv")  # a blank in a name: one file
    status, summary, outputs, err = runner(tmp_path, files="*.csv", baseline="Galleon", candidate="Frigate",
                                           margin="1pt", pip_args=OFFLINE)
    assert status == 1 and outputs["result"] == "regression", err
    (tmp_path / "run 1.csv").rename(tmp_path / "run[1].csv")  # a file's own name is never a pattern
    (tmp_path / "run1.csv").write_text("question,model,score\n")  # what the glob run[1].csv would match
    status, summary, outputs, err = runner(tmp_path, files="run[1].csv", baseline="Galleon", candidate="Frigate",
                                           margin="1pt", pip_args=OFFLINE)
    assert status == 1 and outputs["result"] == "regression", err
