"""The repository's places and the build's caches, computed once: every module asks here.

The repository root is found from this file; the rest are named from it. An output folder (`build
--out`, the repository by default) keeps its releases, its lock and its caches in `build_folder(out)`.
The rules_check package keeps its own two (its data and schemas, beside its code): it runs without
the generator."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"  # the default data folder
SCHEMAS = REPO / "schemas"  # JSON Schemas of the data files
MKDOCS_CONFIG = REPO / "mkdocs.yml"
GENERATOR = REPO / "generator"
TEMPLATES = GENERATOR / "templates"
ASSETS = TEMPLATES / "assets"  # copied into site/assets/ as they are
THEME = TEMPLATES / "theme"  # the site engine's theme overrides
MKDOCS_HOOKS = GENERATOR / "render" / "mkdocs_hooks.py"
MAKE_SNAPSHOT = GENERATOR / "render" / "make_snapshot.mjs"  # run by Node: the calculators' start-up snapshot
RULES_CHECK_DATA = REPO / "rules_check" / "data"  # written by a build (a link into build/)
GENERATED_DOCS = REPO / "docs" / "generated"  # written by a build (a link into build/)
NODE_MODULES = REPO / "node_modules"  # npm ci: Pyodide, Workbox, axe-core
PYODIDE = NODE_MODULES / "pyodide"
BROWSER_WHEELS = REPO / ".venv" / "browser-wheels"  # scripts/setup.sh, from requirements-browser.txt


def build_folder(out: Path) -> Path:
    """Where a build into `out` keeps its releases, its lock and its caches."""
    return out / "build"


def cards_cache(out: Path) -> Path:
    """The player aids laid out by earlier builds into `out`, by digest of what they hold."""
    return build_folder(out) / "cards-cache"


def calc_cache(out: Path) -> Path:
    """The calculators' start-up snapshots and gzipped runtime files, by digest of what they hold."""
    return build_folder(out) / "calc-cache"


def published_link(out: Path) -> Path:
    """The link to the published release (see write/release.py)."""
    return build_folder(out) / "current"


def served_link(out: Path) -> Path:
    """The link to the release `serve` answers from: the published one, or ahead of it the pages of an
    edit whose search index, offline lists and aids are still being made (see write/release.py)."""
    return build_folder(out) / "served"


def serve_work(out: Path) -> Path:
    """Scratch space of `serve`'s site engine."""
    return build_folder(out) / "serve"


SNAPSHOT_CACHE = calc_cache(REPO)
BENCH_RESULTS = build_folder(REPO) / "bench.json"
