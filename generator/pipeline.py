"""The whole pipeline as one straight line: load, validate, resolve, render, write."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .base.errors import OutputError
from .base.paths import ASSETS, REPO, cards_cache
from .base.problems import DataError, Problems
from .incremental import Kept, Superseded, games_to_render
from .inputs import inputs_digest
from .load.load import load
from .render.aids.cards import aid_links, layout_workers, start_aids
from .render.calculators import RUNTIME, runtime_files
from .render.offline import offline_files, packed_twins, root_service_worker, service_workers
from .render.rules_data import render_rules_data
from .render.search import SearchIndex
from .render.site import SiteRenderer
from .resolve.resolve import Resolved, resolve
from .validate.validate import check
from .write.engine import run_mkdocs
from .write.release import Release, build_lock, write_files, write_folder

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
    kept: Kept | None = None,
    skip_unchanged: bool = False,
) -> BuildReport:
    """Build into out/site, out/docs/generated and out/rules_check/data; out defaults to the repository.

    The player aids are laid out in worker processes while the site is rendered and built (they
    are the slowest part and need nothing from the site); their files go into the site last.
    Everything is written into a new release folder and published with one atomic switch only
    when every stage has succeeded (see write/release.py).
    The bench passes its own `stage` (a context manager per stage name, which also weighs memory)
    and `aids_alongside=False`, to measure each stage on its own.
    `serve` passes what it keeps between its rebuilds (`Kept`): the same stages then do only what
    the edit changed, and the pages are served before the rest is made; only the whole release is
    published (see `_render_and_publish`).
    A whole build records the digest of its inputs in its release (inputs.py); with `skip_unchanged`
    (the `build` command without --force) nothing is done when the published release has the same."""
    report = BuildReport()
    inputs = inputs_digest(data_dir) if kept is None else None  # before reading them: an edit meanwhile makes it stale
    if skip_unchanged and inputs == Release.published_inputs(out):
        with build_lock(out):  # refused while another build runs; tidies what killed builds left
            report.unchanged_release = Release.published(out).name  # type: ignore[union-attr]  # a stamp is in a release
        return report
    stage = stage or report.stage
    problems = Problems()
    workers = layout_workers() if aids_alongside and kept is None else None  # they load WeasyPrint meanwhile
    try:
        with stage("load"):
            loaded = load(data_dir, problems, kept.parsed if kept is not None else None)
        with stage("validate"):
            kb = check(loaded, problems)
        if problems:
            raise DataError(problems)
        with stage("resolve"):
            resolved = resolve(kb)
        try:
            with build_lock(out, serving=kept is not None):
                _render_and_publish(resolved, out, stage, workers, report, kept, inputs)
        except OSError as err:
            raise OutputError(f"writing the output failed: {err.strerror or err} ({err.filename or out}); nothing was replaced") from err
    except BaseException:
        if workers is not None:
            workers.shutdown(wait=False, cancel_futures=True)
        raise
    report.entries = len(kb.entries)
    report.data_version = resolved.data_version
    return report


def _render_and_publish(
    resolved: Resolved, out: Path, stage: Stage, workers: ProcessPoolExecutor | None, report: BuildReport, kept: Kept | None, inputs: str | None
) -> None:
    based_on = Release.served(out) if kept is not None and kept.resolved is not None else None
    release = Release(out, based_on)
    docs, site = release.part("docs"), release.part("site")
    games = games_to_render(kept.resolved, resolved) if kept is not None and based_on is not None else None
    aids = None
    try:
        aids = start_aids(resolved, cache=cards_cache(out), workers=workers) if workers is not None else None
        changed: list[str] = []
        with stage("render"):
            renderer = SiteRenderer(resolved, aid_links=aid_links(resolved))
            if games is not None:
                renderer.page_meta.update(kept.page_meta)  # type: ignore[union-attr]  # the pages not made again
                write_files(docs, itertools.chain(renderer.pages(games), asset_files()), changed)
            else:
                write_folder(docs, "", itertools.chain(renderer.pages(), asset_files()), changed)
            report.pages = len(renderer.page_meta)
        with stage("rules-check"):
            rules_data = render_rules_data(resolved)
            write_folder(release.part("rules_check_data"), "", rules_data)  # read by the rules_check package
        with stage("site engine"):
            if kept is None:
                run_mkdocs(docs, site, renderer.site_meta(), release.work)
            else:
                partial = kept.engine.run(docs, site, renderer.site_meta(), changed if based_on == kept.engine_release else None)
                kept.engine_release = release.folder
                if partial:  # only the changed pages: serve them now, publish them with the rest
                    release.serve_pages()
                    kept.published(release, resolved, renderer)
                    release = Release(out, based_on=release.folder)
                    site = release.part("site")
        if kept is not None and kept.superseded():
            raise Superseded
        with stage("search index"):
            write_folder(site, "search", SearchIndex(resolved).all_files().items())
        with stage("calculators"):
            write_folder(site, RUNTIME, runtime_files(rules_data))  # Pyodide, wheels and the package, for the calculators' worker
        with stage("offline"):
            write_files(site, list(offline_files(site, resolved.languages)))
            write_files(site, packed_twins(site, resolved.languages))  # what the offline copies keep of text files
            write_files(site, list(service_workers(site, resolved.languages, resolved.data_version)))  # precaches what is written
            write_files(site, list(root_service_worker(site, resolved.languages, resolved.data_version)))
        if kept is not None and kept.superseded():
            raise Superseded
        with stage("cards" if aids is None else "cards (waiting)"):
            write_folder(site / "cards", "", (aids or start_aids(resolved, cache=cards_cache(out))).files())
        if inputs is not None:
            release.stamp_inputs(inputs)
        release.publish()
        if kept is not None:
            if release.based_on == kept.engine_release:  # the pages' release, with the rest added
                kept.engine_release = release.folder
            if kept.resolved is not resolved:
                kept.published(release, resolved, renderer)
    except BaseException:
        if aids:
            aids.cancel()
        release.discard()
        raise


def asset_files() -> Iterator[tuple[str, bytes]]:
    """(path under the docs folder, bytes) of the site's own scripts and styles; scripts as shipped (`shipped_script`)."""
    for path in sorted(ASSETS.rglob("*")):
        if path.is_file():
            content = path.read_bytes()
            if path.suffix == ".js":
                content = shipped_script(content.decode("utf-8")).encode("utf-8")
            yield f"assets/{path.relative_to(ASSETS).as_posix()}", content


def shipped_script(source: str) -> str:
    """A script as the browser gets it: without the lines that are only comments (// …, /* … */ from a
    line's start) and without indentation and blank lines; every line of code kept whole, so nothing
    inside a line (strings, regular expressions, a comment after code) is touched. kb-search.js is loaded
    on every page: its comments are for the reader of the source."""
    lines, in_comment = [], False
    for line in source.splitlines():
        text = line.strip()
        if in_comment:
            in_comment = "*/" not in text
        elif text.startswith("/*") and (text.count("*/") == 0 or (text.endswith("*/") and text.count("*/") == 1)):
            in_comment = "*/" not in text
        elif text and not text.startswith("//"):
            lines.append(text)
    return "\n".join(lines) + "\n"
