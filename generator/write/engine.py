"""Stage 5, write: the site engine. mkdocs with Material makes the site from the pages the site
renderer wrote into a release's docs folder: once per build in a child process that dies with the
build (`run_mkdocs`), or kept alive between the rebuilds of `serve` (`LiveEngine`). Its configuration
is the repository's mkdocs.yml with the release's folders; the navigation, titles and tables of
contents reach it already escaped, beside that configuration (see render/mkdocs_hooks.py).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..base.children import run_dying_with_this_process
from ..base.errors import KbError, OutputError
from ..base.paths import MKDOCS_CONFIG, MKDOCS_HOOKS, REPO, THEME

SITE_META = "kb-site.json"  # beside the generated mkdocs.yml, read by mkdocs_hooks.py


class SiteEngineError(KbError):
    code = "B001"


def _hooks() -> Any:
    """mkdocs_hooks.py as mkdocs loaded it in this process (a module named by its path)."""
    return sys.modules[str(MKDOCS_HOOKS)]


def engine_config(docs_dir: Path, site_dir: Path, site_meta: str, work: Path) -> Path:
    """Write the site engine's configuration into `work`: the repository's mkdocs.yml with these
    folders, and `site_meta` (the navigation, titles and tables of contents, see mkdocs_hooks.py)
    beside it. Returns the configuration file."""
    config = {
        "INHERIT": str(MKDOCS_CONFIG),
        "docs_dir": str(docs_dir),
        "site_dir": str(site_dir),
        "theme": {"name": "material", "custom_dir": str(THEME)},
        "hooks": [str(MKDOCS_HOOKS)],
    }  # relative paths would resolve from `work`
    (work / "mkdocs.yml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML, and has no line wrapping
    (work / SITE_META).write_text(site_meta, encoding="utf-8")
    return work / "mkdocs.yml"


def run_mkdocs(docs_dir: Path, site_dir: Path, site_meta: str, work: Path) -> None:
    """mkdocs build --strict with the repository's mkdocs.yml; the navigation, titles and tables of
    contents reach it through `site_meta` (see mkdocs_hooks.py), never through YAML."""
    config = engine_config(docs_dir, site_dir, site_meta, work)
    result = run_dying_with_this_process([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config)], cwd=REPO)
    if result.returncode != 0:
        raise engine_failure(result.stdout + result.stderr)


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def engine_failure(output: str) -> KbError:
    """One line for a failed mkdocs run: its last message, not its traceback; a full disk or a
    write refused by the system is an output error like any other."""
    lines = [line.strip() for line in ANSI.sub("", output).splitlines() if line.strip()]
    last = lines[-1] if lines else "no message"
    if any(marker in last for marker in ("No space left on device", "Errno 28", "File too large", "Errno 27", "Permission denied")):
        return OutputError(f"the site engine could not write the site: {last}; nothing was replaced")
    return SiteEngineError(f"the site engine (mkdocs) failed: {last}")


class LiveEngine:
    """The site engine kept alive between rebuilds (for `serve`): mkdocs runs in this process, and
    what its last whole run loaded (configuration, files, navigation, the theme's templates) is
    kept, so that a rebuild which leaves the navigation as it was renders only the pages whose
    Markdown or title and table of contents changed, as `mkdocs build` renders them, and copies the
    other changed files — what mkdocs' own `serve --dirty` does, without reading the other pages
    again. Anything else (a new navigation, a change of the theme) is a whole run."""

    def __init__(self, work: Path):
        self.work = work
        self.loaded: tuple[Any, Any, Any, Any] | None = None  # (config, files, nav, theme environment) of the last whole run
        self.nav_meta = ""  # what of site_meta every page shows (all of it but the pages' own titles and tocs)
        self.theme_stamp: tuple[tuple[str, int], ...] = ()

    def run(self, docs: Path, site: Path, site_meta: str, changed: list[str] | None) -> bool:
        """Build `site` from `docs`: only the `changed` docs files when that gives the same site as a
        whole run, else all of it. `changed` is None when `site` is not a copy of the site of the
        engine's last run. Returns whether it was a partial run."""
        self.work.mkdir(parents=True, exist_ok=True)
        config_file = engine_config(docs, site, site_meta, self.work)
        nav_meta, stamp = self._nav_part(site_meta), self._theme_stamp()
        files = self.loaded[1] if self.loaded else None
        partial = (
            files is not None
            and changed is not None
            and nav_meta == self.nav_meta
            and stamp == self.theme_stamp
            and all(files.get_file_from_path(path) and (docs / path).is_file() for path in changed)
        )
        with _engine_log() as messages:
            try:
                if partial:
                    self._pages(docs, site, changed or [], messages)
                else:
                    self.loaded = None
                    self._whole(config_file)
            except Exception as err:  # mkdocs' own errors (Abort, BuildError, a theme's exception…): one line
                self.loaded = None
                raise engine_failure("\n".join([*messages, str(err)])) from None
        self.nav_meta, self.theme_stamp = nav_meta, stamp
        return partial

    def _whole(self, config_file: Path) -> None:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        config = load_config(str(config_file), strict=True)
        build(config)
        built = _hooks().built  # what the run loaded, kept by the hooks
        self.loaded = (config, built["files"], built["nav"], built["env"])

    def _pages(self, docs: Path, site: Path, changed: list[str], messages: list[str]) -> None:
        from mkdocs.commands.build import _build_page, _populate_page

        assert self.loaded is not None
        config, files, nav, env = self.loaded
        config["docs_dir"], config["site_dir"] = str(docs), str(site)
        _hooks().read_site_meta(config)  # the pages' titles and tables of contents
        pages = []
        for path in changed:
            file = files.get_file_from_path(path)
            file.src_dir, file.dest_dir = str(docs), str(site)  # this build's release (the paths are cached properties)
            file.abs_src_path, file.abs_dest_path = str(docs / file.src_uri), str(site / file.dest_uri)
            Path(file.abs_dest_path).unlink(missing_ok=True)  # a hard link to the published file: replaced, not written into
            if file.page is None:
                file.copy_file()
            else:
                pages.append(file.page)
        doc_files = files.documentation_pages()
        for page in pages:
            _populate_page(page, config, files)
        for page in pages:
            _build_page(page, config, doc_files, nav, env)
            page.validate_anchor_links(files=files, log_level=config.validation.links.anchors)
        if messages:  # --strict: a warning fails the build, as it fails a whole run
            raise RuntimeError(f"Aborted with {len(messages)} warnings in strict mode!")

    @staticmethod
    def _nav_part(site_meta: str) -> str:
        meta = json.loads(site_meta)
        meta["pages"] = sorted(meta["pages"])  # which pages there are; their titles are in the nav
        return json.dumps(meta, sort_keys=True)

    def _theme_stamp(self) -> tuple[tuple[str, int], ...]:
        return tuple((str(p), p.stat().st_mtime_ns) for p in [MKDOCS_HOOKS, *sorted(THEME.rglob("*"))] if p.is_file())


@contextmanager
def _engine_log() -> Iterator[list[str]]:
    """Collect what mkdocs logs at warning level and above while it runs in this process (the
    messages of a failed run, and the warnings that fail a --strict one), printing none of it."""
    import logging

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    messages: list[str] = []
    logger, handler = logging.getLogger("mkdocs"), Collect(logging.WARNING)
    logger.addHandler(handler)
    old_propagate, logger.propagate = logger.propagate, False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = old_propagate
