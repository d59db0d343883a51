# Sourced by app.sh and test.sh: make .venv (Python 3.11+), install a requirements file into it, and install this
# checkout itself (editable, no dependencies: the requirements file pinned them), which puts the `evalbars` and
# `evalbars-app` commands in .venv/bin (`source .venv/bin/activate`, then `evalbars --help`).
req="$1"
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "evalstats needs Python 3.11 or newer; found $("$PY" --version 2>&1). Set PYTHON=/path/to/python3.11." >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  if ! "$PY" -m venv .venv 2>/dev/null; then
    # Debian/Ubuntu ship venv separately.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null;
    else sudo apt-get update -qq && sudo apt-get install -y -qq python3-venv >/dev/null; fi
    rm -rf .venv; "$PY" -m venv .venv
  fi
  # a current pip: older ones (23.x, as Python 3.11 ships) print no licence in `pip show` (License-Expression)
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
fi
# --no-compile: pip would byte-compile every installed module on a fresh .venv (11,500 files of the dev
# requirements: 38 s of CPU, measured); Python compiles the ones it imports on first use instead
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile -r "$req"
if [ ! -x .venv/bin/evalbars ] || ! .venv/bin/python -m pip show --quiet evalbars >/dev/null 2>&1; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile --no-deps -e .
fi
