#!/usr/bin/env bash
# Build everything from the bundled data: site/ (with search), cards, rules_check.
#   scripts/build.sh          build
#   scripts/build.sh serve    build, then serve the site on http://127.0.0.1:8000
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m generator build
if [ "${1:-}" = "serve" ]; then
  .venv/bin/python -m generator serve
fi
