"""Stage 5, write: the only stage that touches the output folder.

Every output of a build (the site, the generated docs pages, the rules_check data) is written into a
fresh release folder, `build/releases/<id>/`; the published names are fixed symlinks through one
switch, `build/current`:

    site              -> build/current/site
    docs/generated    -> ../build/current/docs
    rules_check/data  -> ../build/current/rules_check_data   (the numbers the rules_check package reads)

Publishing is one atomic rename of a new `current` link over the old one, so whatever happens to a
build — an error, Ctrl-C, SIGKILL, a full disk — readers see the complete old release or the
complete new one. `serve` answers from a second link, `build/served`: the published release, or for
a moment ahead of it a release holding only the pages an edit changed (shown to the editor at once,
their search index, offline lists and aids still to come); `current` and the published names only
ever move to a whole release, so a `serve` killed at any point leaves the last whole site published.
A build holds `build/.lock` while it runs; the next build (holding the lock, so no other build is
alive) removes what killed builds left behind. Child processes (the site engine, the aid workers)
are asked to die with the build.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from ..base.errors import KbError
from ..base.paths import build_folder, calc_cache, cards_cache, published_link, served_link

RELEASE_PARTS = {"site": "site", "docs": "docs/generated", "rules_check_data": "rules_check/data"}  # in a release -> published name


def write_files(root: Path, files: Mapping[str, str | bytes] | Iterable[tuple[str, str | bytes]], changed: list[str] | None = None) -> int:
    """Write a {relative path: content} dict, or (path, content) pairs as they are generated.
    Returns how many files were given.

    A file already there with the same content is left as it is (in a release made from the
    previous one it is a hard link to the published file); any other is replaced by a new file,
    never written into, so a published release sharing it is never changed. The paths written
    anew are added to `changed` when given."""
    count = 0
    for relative, content in files.items() if isinstance(files, Mapping) else files:
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


WORK = "work"  # in a release folder: the build's scratch space (`Release.work`)
INPUTS_FILE = "inputs.sha256"  # in a release folder: the digest of what it was built from


class Release:
    """One build's outputs, staged in build/releases/<id>/ and published by `publish()`."""

    def __init__(self, out: Path, based_on: Path | None = None):
        """A new, empty release; or, with `based_on` (a release folder), a copy of that one made of
        hard links, for a build that replaces only what changed (see `write_files`)."""
        self.out, self.based_on = out, based_on
        self.build = build_folder(out)
        self.releases = self.build / "releases"
        Release.made += 1
        self.folder = self.releases / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{Release.made}"
        self.releases.mkdir(parents=True, exist_ok=True)
        if based_on is None:
            self.folder.mkdir()
        else:
            shutil.copytree(based_on, self.folder, symlinks=True, copy_function=os.link)
            (self.folder / INPUTS_FILE).unlink(missing_ok=True)  # made by another build: stamped anew or not at all
        self.work.mkdir(exist_ok=True)

    made = 0  # releases made by this process: two in one second get different names

    @staticmethod
    def published(out: Path) -> Path | None:
        """The folder of the published release, if any."""
        current = published_link(out)
        return current.resolve() if current.is_symlink() else None

    @staticmethod
    def served(out: Path) -> Path | None:
        """The folder of the release `serve` answers from: the published one, or the pages of an edit ahead of it."""
        link = served_link(out)
        return link.resolve() if link.is_symlink() else Release.published(out)

    @staticmethod
    def serve_published(out: Path) -> None:
        """Answer from the published release (when `serve` starts: pages a killed `serve` left ahead of it are not shown)."""
        published = Release.published(out)
        if published is not None:
            _switch(served_link(out), published)

    @staticmethod
    def published_inputs(out: Path) -> str | None:
        """The digest of the inputs the published release was built from (inputs.py), if it is known."""
        stamp = published_link(out) / INPUTS_FILE
        return stamp.read_text(encoding="ascii").strip() if stamp.is_file() else None

    def stamp_inputs(self, digest: str) -> None:
        """Record what this release is built from; only a whole build from those inputs may say so."""
        (self.folder / INPUTS_FILE).write_text(digest + "\n", encoding="ascii")

    def is_copy_of(self, folder: Path) -> bool:
        """Whether this release was made as a copy of the release `folder` and is still there."""
        return self.based_on is not None and self.based_on.resolve() == folder.resolve() and self.folder.is_dir()

    def part(self, name: str) -> Path:
        """Where the part `name` of RELEASE_PARTS is staged."""
        return self.folder / name

    @property
    def work(self) -> Path:
        """Scratch space of the build (the generated mkdocs.yml…), removed on publish."""
        return self.folder / WORK

    def publish(self) -> None:
        """Make this release the published one with a single atomic rename (and the one `serve`
        answers from), then drop the releases no link names any more."""
        shutil.rmtree(self.work, ignore_errors=True)
        before = self._linked()
        fault_point("before-link")
        _published_links(self.out)
        fault_point("before-switch")
        _switch(published_link(self.out), self.folder)  # the switch
        fault_point("after-switch")
        _switch(served_link(self.out), self.folder)
        self._drop_unlinked(before)

    def serve_pages(self) -> None:
        """Let `serve` answer from this release, which holds only the pages of an edit so far; what is
        published stays as it is until the whole release is (`publish`)."""
        shutil.rmtree(self.work, ignore_errors=True)
        before = self._linked()
        _switch(served_link(self.out), self.folder)
        fault_point("pages-served")
        self._drop_unlinked(before)

    def _linked(self) -> set[Path]:
        return {link.resolve() for link in (published_link(self.out), served_link(self.out)) if link.is_symlink()}

    def _drop_unlinked(self, before: set[Path]) -> None:
        for previous in before - self._linked():
            if previous.parent == self.releases.resolve():
                shutil.rmtree(previous, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _switch(link: Path, folder: Path) -> None:
    """Point `link` at a release folder with one atomic rename (a reader finds the old target or the new one)."""
    staged = link.parent / f".{link.name}-{os.getpid()}"
    if staged.is_symlink():
        staged.unlink()
    staged.symlink_to(os.path.relpath(folder, link.parent))
    fault_point(f"before-{link.name}-switch")
    os.replace(staged, link)


def fault_point(name: str) -> None:
    """For the crash tests: SIGKILL this build at the named point when KB_KILL_AT names it."""
    if os.environ.get("KB_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _published_links(out: Path) -> None:
    """Create the fixed links site, docs/generated and rules_check through build/current (once; a
    folder left by an older generator in their place is moved aside and removed)."""
    for part, name in RELEASE_PARTS.items():
        published = out / name
        target = Path(os.path.relpath(published_link(out) / part, published.parent))
        if published.is_symlink() and Path(os.readlink(published)) == target:
            continue
        published.parent.mkdir(parents=True, exist_ok=True)
        if published.is_symlink() or published.is_file():
            published.unlink()
        elif published.exists():
            aside = build_folder(out) / f"old-{published.name}-{os.getpid()}"
            published.rename(aside)
            shutil.rmtree(aside, ignore_errors=True)
        published.symlink_to(target)


@contextmanager
def build_lock(out: Path, serving: bool = False, keep: Path | None = None) -> Iterator[None]:
    """Hold build/.lock for the whole build; with it held, remove what killed builds left behind
    (but `keep`, a release made ahead for this build: serve's spare copy).
    A build that is not `serve`'s (`serving`) first points `build/served` back at the published
    release: pages a killed `serve` left ahead of it are leftovers too.

    The lock dies with its process, so a killed build never blocks the next one."""
    build = build_folder(out)
    build.mkdir(parents=True, exist_ok=True)
    with (build / ".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildBusy(f"another build is writing to {out} (build/.lock is held)") from None
        if not serving:
            Release.serve_published(out)
        remove_leftovers(out, keep)
        yield


class BuildBusy(KbError):
    code = "B002"


def remove_leftovers(out: Path, keep: Path | None = None) -> list[str]:
    """Remove staging folders and unpublished releases of builds that did not finish (but `keep`). Call only
    while holding the build lock. Returns what was removed (names under build/)."""
    build = build_folder(out)
    linked = {Release.published(out), Release.served(out), keep.resolve() if keep is not None else None}
    removed = []
    candidates = [
        *build.glob("staging-*"),
        *build.glob(".current-*"),
        *build.glob(".served-*"),
        *build.glob("old-*"),
        *cards_cache(out).glob("*.partial"),
        *calc_cache(out).glob("*.partial-*"),
    ]
    if (build / "releases").is_dir():
        candidates += [r for r in (build / "releases").iterdir() if r.resolve() not in linked]
    for path in candidates:
        if path.is_symlink() or path.is_file():
            path.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
        removed.append(str(path.relative_to(build)))
    return removed
