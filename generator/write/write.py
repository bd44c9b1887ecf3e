"""Stage 5, write: the only stage that touches the output folder.

Every output of a build (the site, the generated docs pages, the rules_check data) is written into a
fresh release folder, `build/releases/<id>/`; the published names are fixed symlinks through one
switch, `build/current`:

    site              -> build/current/site
    docs/generated    -> ../build/current/docs
    rules_check/data  -> ../build/current/rules_check_data   (the numbers the rules_check package reads)

Publishing is one atomic rename of a new `current` link over the old one, so whatever happens to a
build — an error, Ctrl-C, SIGKILL, a full disk — readers see the complete old release or the
complete new one. A build holds `build/.lock` while it runs; the next build (holding the lock, so no
other build is alive) removes what killed builds left behind. Child processes (the site engine,
the aid workers) are asked to die with the build.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..base.children import run_dying_with_this_process
from ..base.errors import KbError, OutputError

SITE_META = "kb-site.json"  # beside the generated mkdocs.yml, read by mkdocs_hooks.py
RELEASE_PARTS = {"site": "site", "docs": "docs/generated", "rules_check_data": "rules_check/data"}  # in a release -> published name


class SiteEngineError(KbError):
    code = "B001"
    hint = "This is a bug in the generator or the theme, not in the data: report it with the message above."


def write_files(root: Path, files: Mapping[str, str | bytes] | Iterable[tuple[str, str | bytes]], changed: list[str] | None = None) -> int:
    """Write a {relative path: content} dict, or (path, content) pairs as they are generated.
    Returns how many files were given.

    A file already there with the same content is left as it is (in a release made from the
    previous one it is a hard link to the published file); any other is replaced by a new file,
    never written into, so a published release sharing it is never changed. The paths written
    anew are added to `changed` when given."""
    count = 0
    for relative, content in (files.items() if isinstance(files, Mapping) else files):
        count += 1
        path = root / relative
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        if path.is_file():
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                continue
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if changed is not None:
            changed.append(relative)
    return count


def write_folder(root: Path, folder: str, files: Iterable[tuple[str, str | bytes]], changed: list[str] | None = None) -> int:
    """`write_files`, for a folder (`root/folder`) that is this stage's alone: what else it holds
    (left by the release this one was made from) is removed, and counted in `changed`."""
    produced: set[str] = set()

    def noted() -> Iterator[tuple[str, str | bytes]]:
        for relative, content in files:
            produced.add(relative)
            yield relative, content

    count = write_files(root, noted(), changed)
    for path in sorted((root / folder).rglob("*")):
        relative = path.relative_to(root).as_posix()
        if (path.is_file() or path.is_symlink()) and relative not in produced:
            path.unlink()
            if changed is not None:
                changed.append(relative)
    return count


def _hooks(repo: Path) -> Any:
    """mkdocs_hooks.py as mkdocs loaded it in this process (a module named by its path)."""
    return sys.modules[str(repo / "generator" / "render" / "mkdocs_hooks.py")]


def engine_config(repo: Path, docs_dir: Path, site_dir: Path, site_meta: str, work: Path) -> Path:
    """Write the site engine's configuration into `work`: the repository's mkdocs.yml with these
    folders, and `site_meta` (the navigation, titles and tables of contents, see mkdocs_hooks.py)
    beside it. Returns the configuration file."""
    config = {"INHERIT": str(repo / "mkdocs.yml"), "docs_dir": str(docs_dir), "site_dir": str(site_dir),
              "theme": {"name": "material", "custom_dir": str(repo / "generator" / "templates" / "theme")},
              "hooks": [str(repo / "generator" / "render" / "mkdocs_hooks.py")]}  # relative paths would resolve from `work`
    (work / "mkdocs.yml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML, and has no line wrapping
    (work / SITE_META).write_text(site_meta, encoding="utf-8")
    return work / "mkdocs.yml"


def run_mkdocs(repo: Path, docs_dir: Path, site_dir: Path, site_meta: str, work: Path) -> None:
    """mkdocs build --strict with the repository's mkdocs.yml; the navigation, titles and tables of
    contents reach it through `site_meta` (see mkdocs_hooks.py), never through YAML."""
    config = engine_config(repo, docs_dir, site_dir, site_meta, work)
    result = run_dying_with_this_process([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config)], cwd=repo)
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


INPUTS_FILE = "inputs.sha256"  # in a release folder: the digest of what it was built from


class Release:
    """One build's outputs, staged in build/releases/<id>/ and published by `publish()`."""

    def __init__(self, out: Path, based_on: Path | None = None):
        """A new, empty release; or, with `based_on` (a release folder), a copy of that one made of
        hard links, for a build that replaces only what changed (see `write_files`)."""
        self.out, self.based_on = out, based_on
        self.build = out / "build"
        self.releases = self.build / "releases"
        Release.made += 1
        self.folder = self.releases / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{Release.made}"
        self.releases.mkdir(parents=True, exist_ok=True)
        if based_on is None:
            self.folder.mkdir()
        else:
            shutil.copytree(based_on, self.folder, symlinks=True, copy_function=os.link)
            (self.folder / INPUTS_FILE).unlink(missing_ok=True)  # made by another build: stamped anew or not at all
        (self.folder / "work").mkdir(exist_ok=True)

    made = 0  # releases made by this process: two in one second get different names

    @staticmethod
    def published(out: Path) -> Path | None:
        """The folder of the published release, if any."""
        current = out / "build" / "current"
        return current.resolve() if current.is_symlink() else None

    @staticmethod
    def published_inputs(out: Path) -> str | None:
        """The digest of the inputs the published release was built from (inputs.py), if it is known."""
        stamp = out / "build" / "current" / INPUTS_FILE
        return stamp.read_text(encoding="ascii").strip() if stamp.is_file() else None

    def stamp_inputs(self, digest: str) -> None:
        """Record what this release is built from; only a whole build from those inputs may say so."""
        (self.folder / INPUTS_FILE).write_text(digest + "\n", encoding="ascii")

    def part(self, name: str) -> Path:
        """Where the part `name` of RELEASE_PARTS is staged."""
        return self.folder / name

    @property
    def work(self) -> Path:
        """Scratch space of the build (the generated mkdocs.yml…), removed on publish."""
        return self.folder / "work"

    def publish(self) -> None:
        """Make this release the published one with a single atomic rename, then drop the old one."""
        shutil.rmtree(self.work, ignore_errors=True)
        current = self.build / "current"
        previous = current.resolve() if current.is_symlink() else None
        link = self.build / f".current-{os.getpid()}"
        if link.is_symlink():
            link.unlink()
        fault_point("before-link")
        link.symlink_to(self.folder.relative_to(self.build))
        fault_point("before-published-links")
        _published_links(self.out)
        fault_point("before-switch")
        os.replace(link, current)  # the switch
        fault_point("after-switch")
        if previous is not None and previous != self.folder.resolve() and previous.parent == self.releases.resolve():
            shutil.rmtree(previous, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def fault_point(name: str) -> None:
    """For the crash tests: SIGKILL this build at the named point when KB_KILL_AT names it."""
    if os.environ.get("KB_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _published_links(out: Path) -> None:
    """Create the fixed links site, docs/generated and rules_check through build/current (once; a
    folder left by an older generator in their place is moved aside and removed)."""
    for part, name in RELEASE_PARTS.items():
        published = out / name
        target = Path(os.path.relpath(out / "build" / "current" / part, published.parent))
        if published.is_symlink() and Path(os.readlink(published)) == target:
            continue
        published.parent.mkdir(parents=True, exist_ok=True)
        if published.is_symlink() or published.is_file():
            published.unlink()
        elif published.exists():
            aside = out / "build" / f"old-{published.name}-{os.getpid()}"
            published.rename(aside)
            shutil.rmtree(aside, ignore_errors=True)
        published.symlink_to(target)


@contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Hold build/.lock for the whole build; with it held, remove what killed builds left behind.

    The lock dies with its process, so a killed build never blocks the next one."""
    build = out / "build"
    build.mkdir(parents=True, exist_ok=True)
    with (build / ".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildBusy(f"another build is writing to {out} (build/.lock is held)") from None
        remove_leftovers(out)
        yield


class BuildBusy(KbError):
    code = "B002"
    hint = "Wait for the other build to finish, or stop it; two builds into one folder would mix their outputs."


def remove_leftovers(out: Path) -> list[str]:
    """Remove staging folders and unpublished releases of builds that did not finish. Call only
    while holding the build lock. Returns what was removed (names under build/)."""
    build = out / "build"
    current = (build / "current").resolve() if (build / "current").is_symlink() else None
    removed = []
    candidates = [*build.glob("staging-*"), *build.glob(".current-*"), *build.glob("old-*"), *build.glob("cards-cache/*.partial"),
                  *build.glob("calc-cache/*.partial-*")]
    if (build / "releases").is_dir():
        candidates += [r for r in (build / "releases").iterdir() if r.resolve() != current]
    for path in candidates:
        if path.is_symlink() or path.is_file():
            path.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
        removed.append(str(path.relative_to(build)))
    return removed


class LiveEngine:
    """The site engine kept alive between rebuilds (for `serve`): mkdocs runs in this process, and
    what its last whole run loaded (configuration, files, navigation, the theme's templates) is
    kept, so that a rebuild which leaves the navigation as it was renders only the pages whose
    Markdown or title and table of contents changed, as `mkdocs build` renders them, and copies the
    other changed files — what mkdocs' own `serve --dirty` does, without reading the other pages
    again. Anything else (a new navigation, a change of the theme) is a whole run."""

    def __init__(self, repo: Path, work: Path):
        self.repo, self.work = repo, work
        self.loaded: tuple[Any, Any, Any, Any] | None = None  # (config, files, nav, theme environment) of the last whole run
        self.nav_meta = ""  # what of site_meta every page shows (all of it but the pages' own titles and tocs)
        self.theme_stamp: tuple = ()

    def run(self, docs: Path, site: Path, site_meta: str, changed: list[str] | None) -> bool:
        """Build `site` from `docs`: only the `changed` docs files when that gives the same site as a
        whole run, else all of it. `changed` is None when `site` is not a copy of the site of the
        engine's last run. Returns whether it was a partial run."""
        self.work.mkdir(parents=True, exist_ok=True)
        config_file = engine_config(self.repo, docs, site, site_meta, self.work)
        nav_meta, stamp = self._nav_part(site_meta), self._theme_stamp()
        files = self.loaded[1] if self.loaded else None
        partial = (files is not None and changed is not None and nav_meta == self.nav_meta and stamp == self.theme_stamp
                   and all(files.get_file_from_path(path) and (docs / path).is_file() for path in changed))
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
        built = _hooks(self.repo).built  # what the run loaded, kept by the hooks
        self.loaded = (config, built["files"], built["nav"], built["env"])

    def _pages(self, docs: Path, site: Path, changed: list[str], messages: list[str]) -> None:
        from mkdocs.commands.build import _build_page, _populate_page
        assert self.loaded is not None
        config, files, nav, env = self.loaded
        config["docs_dir"], config["site_dir"] = str(docs), str(site)
        _hooks(self.repo).read_site_meta(config)  # the pages' titles and tables of contents
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

    def _theme_stamp(self) -> tuple:
        theme = self.repo / "generator" / "templates" / "theme"
        hooks = self.repo / "generator" / "render" / "mkdocs_hooks.py"
        return tuple((str(p), p.stat().st_mtime_ns) for p in [hooks, *sorted(theme.rglob("*"))] if p.is_file())


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
