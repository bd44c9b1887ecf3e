"""The whole pipeline as one straight line: load, validate, resolve, render (a list of renderers), write."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .base.errors import OutputError
from .base.paths import REPO, cards_cache
from .base.problems import DataError, Problems
from .inputs import inputs_digest
from .load.load import ParsedFiles, load
from .render.aids.cards import layout_workers
from .render.renderer import Aids, CalculatorRuntime, OfflineFiles, Renderer, RulesData, SearchFiles, SitePages
from .resolve.resolve import Resolved, resolve
from .validate.validate import check
from .write.engine import run_mkdocs
from .write.release import WORK, Release, build_lock, write_files, write_folder

Stage = Callable[[str], AbstractContextManager[None]]  # times (the bench: and weighs) the stage of that name


@dataclass
class BuildReport:
    seconds: dict[str, float] = field(default_factory=dict)
    pages: int = 0
    entries: int = 0
    data_version: str = ""
    unchanged_release: str = ""  # set when nothing was built: the published release's name

    def summary(self) -> str:
        if self.unchanged_release:
            return f"nothing changed since the published build ({self.unchanged_release}): the site is left as it is (--force builds it again)"
        stages = ", ".join(f"{name} {s:.2f}s" for name, s in self.seconds.items())
        return f"built {self.pages} pages from {self.entries} entries (data version {self.data_version}): {stages}"

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time one stage into `seconds`."""
        start = time.perf_counter()
        yield
        self.seconds[name] = time.perf_counter() - start


def build(
    data_dir: Path,
    out: Path = REPO,
    stage: Stage | None = None,
    aids_alongside: bool = True,
    plan: Plan | None = None,
    skip_unchanged: bool = False,
) -> BuildReport:
    """Build into out/site, out/docs/generated and out/rules_check/data; out defaults to the repository.

    The player aids are laid out in worker processes while the site is rendered and built (they
    are the slowest part and need nothing from the site); their files go into the site last.
    Everything is written into a new release folder and published with one atomic switch only
    when every stage has succeeded (see write/release.py).
    The bench passes its own `stage` (a context manager per stage name, which also weighs memory)
    and `aids_alongside=False`, to measure each stage on its own: the workers are started as early, but
    lay out the aids only in their stage.
    `plan` is how the release is made: whole (`Whole`, the default), or as `serve` makes it between
    its rebuilds (incremental.Incremental: only what the edit changed, the pages served before the
    rest is made).
    A whole build records the digest of its inputs in its release (inputs.py); with `skip_unchanged`
    (the `build` command without --force) nothing is done when the published release has the same."""
    report = BuildReport()
    plan = plan or Whole()
    inputs = inputs_digest(data_dir) if not plan.serving else None  # before reading them: an edit meanwhile makes it stale
    if skip_unchanged and inputs == Release.published_inputs(out):
        with build_lock(out):  # refused while another build runs; tidies what killed builds left
            report.unchanged_release = Release.published(out).name  # type: ignore[union-attr]  # a stamp is in a release
        return report
    stage = stage or report.stage
    problems = Problems()
    # Started before the data is loaded, so that they are forked from a small process; they load WeasyPrint meanwhile
    workers = layout_workers() if not plan.serving else None
    try:
        with stage("load"):
            loaded = load(data_dir, problems, plan.parsed)
        with stage("validate"):
            kb = check(loaded, problems)
        if problems:
            raise DataError(problems)
        with stage("resolve"):
            resolved = resolve(kb)
        try:
            with build_lock(out, serving=plan.serving, keep=plan.kept_release):
                _render_and_publish(resolved, out, stage, Aids(resolved, cards_cache(out), workers, start_now=aids_alongside), report, plan, inputs)
        except OSError as err:
            raise OutputError(f"writing the output failed: {err.strerror or err} ({err.filename or out}); nothing was replaced") from err
    except BaseException:
        if workers is not None:
            workers.shutdown(wait=False, cancel_futures=True)
        raise
    report.entries = len(kb.entries)
    report.data_version = resolved.data_version
    return report


def _render_and_publish(resolved: Resolved, out: Path, stage: Stage, aids: Aids, report: BuildReport, plan: Plan, inputs: str | None) -> None:
    """Run the renderers one after another, each timed as its stage, into a new release; publish it."""
    release = plan.release(out)
    try:
        pages, rules = plan.pages(resolved), RulesData(resolved)
        renderers: list[Renderer] = [pages, rules, plan.engine(pages), SearchFiles(resolved), CalculatorRuntime(rules), OfflineFiles(resolved), aids]
        for renderer in renderers:
            with stage(renderer.name):
                changed = write(release, renderer)
            release = plan.after(renderer, release, changed)
        report.pages = len(pages.page_meta)
        if inputs is not None:
            release.stamp_inputs(inputs)
        release.publish()
    except BaseException:
        aids.cancel()
        release.discard()
        raise
    plan.published(release)  # after the try: what goes wrong from here on never touches the published release


def write(release: Release, renderer: Renderer) -> list[str]:
    """Write a renderer's files into its part of the release; returns the paths written anew or removed."""
    changed: list[str] = []
    part, files = release.part(renderer.part), renderer.files(release.folder)
    if renderer.folder is None:
        write_files(part, files, changed)
    else:
        write_folder(part, renderer.folder, files, changed)
    return changed


class Plan(Protocol):
    """How a build makes its release: what differs between a whole build (`Whole`) and serve's rebuilds (incremental.Incremental)."""

    @property
    def serving(self) -> bool:
        """A rebuild of `serve` (no inputs stamp, no aid workers started early, build/served left as it is)."""

    @property
    def parsed(self) -> ParsedFiles | None:
        """The data files as last parsed (load parses only those that changed)."""

    @property
    def kept_release(self) -> Path | None:
        """A release folder made ahead for this build, which the build's tidy (remove_leftovers) leaves."""

    def release(self, out: Path) -> Release:
        """The new release the renderers write into."""

    def pages(self, resolved: Resolved) -> SitePages:
        """The first renderer: the site's pages."""

    def engine(self, pages: SitePages) -> Renderer:
        """The third: the site engine, which builds the site from `pages`."""

    def after(self, renderer: Renderer, release: Release, changed: list[str]) -> Release:
        """Told what each renderer changed in `release`; returns the release the next one writes into."""

    def published(self, release: Release) -> None:
        """Told that `release` is published."""


class Whole:
    """A whole build, from nothing: the `build` command, the bench, the tests."""

    serving = False
    parsed = None
    kept_release = None

    def release(self, out: Path) -> Release:
        return Release(out)

    def pages(self, resolved: Resolved) -> SitePages:
        return SitePages(resolved)

    def engine(self, pages: SitePages) -> Renderer:
        return SiteEngine(pages)

    def after(self, renderer: Renderer, release: Release, changed: list[str]) -> Release:
        return release

    def published(self, release: Release) -> None:
        pass


class SiteEngine:
    """mkdocs and Material, building the site from the docs `pages` wrote (write/engine.py). They write the
    site's files themselves: `files` yields none."""

    name, part, folder = "site engine", "site", None

    def __init__(self, pages: SitePages):
        self.pages = pages

    def files(self, release: Path) -> tuple[()]:
        run_mkdocs(release / self.pages.part, release / self.part, self.pages.site_meta(), release / WORK)
        return ()
