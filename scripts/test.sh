#!/usr/bin/env bash
# Run the whole test suite (sets up the environment and the browser first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/python -m pytest "$@"
