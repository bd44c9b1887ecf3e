#!/usr/bin/env bash
# Run the whole test suite (sets up the environment and the browser first): lint and types on the
# generator and the rules_check package (settings in pyproject.toml), then pytest. Extra arguments go
# to pytest, e.g. `bash scripts/test.sh -m unit` (the fast lane) or `-k cards`. The tests run on every core
# (pytest-xdist: a test file per worker, so a file's fixtures are made once; `-n 0` runs them in this process).
# The 25 slowest tests are listed at the end: where the suite's time goes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -n auto --dist loadfile --durations=25 "$@"
