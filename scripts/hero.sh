#!/usr/bin/env bash
# Remake docs/screenshot.png, the README's first image (the workbench's chart of each model's mean and
# interval on the bundled multilingual example). Run it on purpose when the page's look changes: no test
# writes a tracked file; the same test alone writes tests/screenshots/hero.png (ignored) on every browser run.
set -euo pipefail
cd "$(dirname "$0")/.."
EVALSTATS_HERO_OUT=docs/screenshot.png exec .venv/bin/python -m pytest -q -p no:cacheprovider -n 0 \
  "tests/browser/test_docs_browser.py::test_readme_hero_shows_an_answer" "$@"
