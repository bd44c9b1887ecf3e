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
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from .children import die_with_parent
from .errors import KbError, OutputError

RELEASE_PARTS = {"site": "site", "docs": "docs/generated", "rules_check_data": "rules_check/data"}  # in a release -> published name


class SiteEngineError(KbError):
    code = "B001"
    hint = "This is a bug in the generator or the theme, not in the data: report it with the message above."


def write_files(root: Path, files: Mapping[str, str | bytes] | Iterable[tuple[str, str | bytes]]) -> int:
    """Write a {relative path: content} dict, or (path, content) pairs as they are generated.
    Returns how many files were written."""
    count = 0
    for relative, content in (files.items() if isinstance(files, Mapping) else files):
        count += 1
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return count


def run_mkdocs(repo: Path, docs_dir: Path, site_dir: Path, site_meta: str, work: Path) -> None:
    """mkdocs build --strict with the repository's mkdocs.yml; the navigation, titles and tables of
    contents reach it through `site_meta` (see mkdocs_hooks.py), never through YAML."""
    config = {"INHERIT": str(repo / "mkdocs.yml"), "docs_dir": str(docs_dir), "site_dir": str(site_dir),
              "theme": {"name": "material", "custom_dir": str(repo / "generator" / "templates" / "theme")},
              "hooks": [str(repo / "generator" / "mkdocs_hooks.py")]}  # relative paths would resolve from `work`
    (work / "mkdocs.yml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML, and has no line wrapping
    (work / "kb-site.json").write_text(site_meta, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(work / "mkdocs.yml")],
                            capture_output=True, text=True, cwd=repo, preexec_fn=die_with_parent)
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


class Release:
    """One build's outputs, staged in build/releases/<id>/ and published by `publish()`."""

    def __init__(self, out: Path):
        self.out = out
        self.build = out / "build"
        self.releases = self.build / "releases"
        self.folder = self.releases / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        self.folder.mkdir(parents=True)
        (self.folder / "work").mkdir()

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
