#!/usr/bin/env bash
# Install the runtime requirements into .venv and open the app (bundled example data included).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh requirements.txt
# Listen on this machine only (127.0.0.1) unless told otherwise (--server.address 0.0.0.0 for every interface).
address=(--server.address 127.0.0.1)
for arg in "$@"; do
  case "$arg" in --server.address|--server.address=*) address=() ;; esac
done
if [ -n "${STREAMLIT_SERVER_ADDRESS:-}" ]; then address=(); fi
exec .venv/bin/python -m streamlit run app.py "${address[@]}" "$@"
