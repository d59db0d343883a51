#!/usr/bin/env bash
# Install everything (Python packages into .venv; Debian's chromium for the browser tests, R's
# clubSandwich for the CR2 oracle, LaTeX and poppler for the LaTeX-table test, a Java runtime for Spark's
# local mode, PostgreSQL for the live class's store) and run every test.
# Debian packages are installed only when missing, with one apt-get update. Extra arguments go to
# pytest (bash scripts/test.sh -m "not browser" runs the fast tests alone). EVALSTATS_SKIP_INSTALL=1 skips
# the installs (for a second run right after a first one, as .ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${EVALSTATS_SKIP_INSTALL:-}" = 1 ] && [ -x .venv/bin/python ]; then
  exec .venv/bin/python -m pytest "$@"
fi
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
{ command -v Rscript >/dev/null 2>&1 && Rscript -e 'library(clubSandwich)' >/dev/null 2>&1; } || missing+=(r-cran-clubsandwich)
command -v pdflatex >/dev/null 2>&1 || missing+=(texlive-latex-recommended)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)  # Spark local mode (tests/test_engine_spark.py)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)  # the class store on PostgreSQL (tests/test_class_store.py)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  echo "installing Debian packages: ${missing[*]}" >&2
  if [ "$SUDO" = none ] || ! { $SUDO apt-get update -qq &&
       $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
    echo "could not install ${missing[*]} (needs root or sudo): the tests that need them skip (in CI they fail)" >&2
  fi
fi
source scripts/_venv.sh requirements-dev.txt
exec .venv/bin/python -m pytest "$@"
