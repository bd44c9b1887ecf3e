#!/usr/bin/env bash
# Set up everything the project needs on a fresh machine; safe to run again (it skips what is done).
#   scripts/setup.sh        Python environment (.venv) with the pinned packages, and the pinned
#                           npm packages (node_modules: Pyodide, Workbox) the site vendors
#   scripts/setup.sh test   ...and Debian's chromium + chromium-driver for the browser tests
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
# Stock Debian's python3 has no venv/ensurepip until python3-venv is installed.
if [ ! -x .venv/bin/python ] && ! python3 -c "import ensurepip, venv" 2>/dev/null; then
  need_apt+=("python3-venv")
fi
if [ "${1:-}" = "test" ]; then
  command -v chromium >/dev/null || need_apt+=(chromium)
  command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
fi
# Fonts that cover Latin, Polish and Cyrillic for the cards (WeasyPrint embeds them), fontconfig's
# fc-match (the build checks glyph coverage with it) and Pango (WeasyPrint's text layout).
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf ] || need_apt+=(fonts-dejavu-core fonts-dejavu-extra)
# Node.js and npm install the front-end packages (package-lock.json) the build vendors into the site.
command -v npm >/dev/null || need_apt+=(nodejs npm)
command -v fc-match >/dev/null || need_apt+=(fontconfig)
ldconfig -p 2>/dev/null | grep -q libpangoft2-1.0 || need_apt+=(libpangoft2-1.0-0)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt constraints.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
  echo "$want" > "$stamp"
fi

# The wheels rules_check needs in the browser (Pyodide): pure Python, any platform.
browser_stamp=.venv/browser-wheels/.requirements.sha256
want=$(sha256sum requirements-browser.txt | cut -d' ' -f1)
if [ "$(cat "$browser_stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf .venv/browser-wheels
  .venv/bin/pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform any --implementation py --python-version 3.14 -r requirements-browser.txt -d .venv/browser-wheels
  echo "$want" > "$browser_stamp"
fi

# Front-end packages, exactly as package-lock.json pins them.
node_stamp=node_modules/.package-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$node_stamp" 2>/dev/null)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$node_stamp"
fi
