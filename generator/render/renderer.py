"""The renderers behind one interface (`Renderer`), in the order the pipeline runs them
(pipeline.build): the site's pages (docs), the rules_check data, [the site engine, which the
pipeline adds: it is stage write], the search index, the calculators' runtime, the offline files and
the player aids. Each yields (path, content) pairs; the pipeline writes them into the release.

What a renderer needs from an earlier one is given to it, never looked up: the calculators are made
with the rules data's renderer (`CalculatorRuntime(rules)`), and the offline files read the site as
the renderers before them wrote it (`files(release)`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Protocol

from ..base.paths import ASSETS
from ..resolve.resolve import Resolved
from .aids.cards import aid_links, start_aids
from .calculators import RUNTIME, runtime_files
from .offline import offline_files, packed_twins, root_service_worker, sections_files, service_workers
from .rules_data import render_rules_data
from .search import SearchIndex
from .site import PageMeta, RenderedTexts, SiteRenderer

File = tuple[str, str | bytes]  # (path under the renderer's part, content)


class Renderer(Protocol):
    """One output of a build.

    - `name`: the stage it is timed as (the build's report, the bench);
    - `part`: the release part it writes into (write/release.py, RELEASE_PARTS: "docs", "site",
      "rules_check_data");
    - `folder`: the folder of that part that is this renderer's alone ("" the whole part): what else
      it holds (left by the release this one was made from) is removed. None: its files go among others'.
    - `files(release)`: its files. `release` is the release folder as the renderers before this one
      left it; the files are written as they are yielded, so a renderer's later files may read its
      earlier ones."""

    @property
    def name(self) -> str: ...

    @property
    def part(self) -> str: ...

    @property
    def folder(self) -> str | None: ...

    def files(self, release: Path) -> Iterable[File]: ...


class SitePages:
    """The site's pages, as Markdown with HTML for the site engine, and the site's own scripts and
    styles: into docs. With `games` (serve), only those games' pages, the others' titles and tables of
    contents taken from `page_meta`; their files then go among the previous release's. With `rendered_before`
    (serve), the texts the last rebuild of those games rendered, taken again where a text is the same; what this
    one renders is then `rendered` (else None: a whole build keeps no game's texts once its pages are made)."""

    name, part = "render", "docs"

    def __init__(
        self,
        resolved: Resolved,
        games: set[str] | None = None,
        page_meta: dict[str, PageMeta] | None = None,
        rendered_before: dict[str, RenderedTexts] | None = None,
    ):
        self.resolved, self.games, self.kept_meta, self.rendered_before = resolved, games, page_meta or {}, rendered_before
        self.folder: str | None = "" if games is None else None

    @cached_property
    def site(self) -> SiteRenderer:
        site = SiteRenderer(self.resolved, aid_links=aid_links(self.resolved), rendered_before=self.rendered_before)
        site.page_meta.update(self.kept_meta)  # the pages not made again
        return site

    def files(self, release: Path) -> Iterator[File]:
        return itertools.chain(self.site.pages(self.games), asset_files())

    @property
    def page_meta(self) -> dict[str, PageMeta]:
        """Every page's title and table of contents (the site engine's menus), once `files` has made them."""
        return self.site.page_meta

    def site_meta(self) -> str:
        return self.site.site_meta()

    @property
    def rendered(self) -> dict[str, RenderedTexts] | None:
        """Each game's texts as rendered, once `files` has made its pages, when `rendered_before` was given."""
        return self.site.rendered


class RulesData:
    """What the rules_check package reads (rules_data.py), into rules_check/data."""

    name, part, folder = "rules-check", "rules_check_data", ""

    def __init__(self, resolved: Resolved):
        self.resolved = resolved

    @cached_property
    def data(self) -> list[tuple[str, str]]:
        return render_rules_data(self.resolved)

    def files(self, release: Path) -> list[tuple[str, str]]:
        return self.data


class SearchFiles:
    """The search index per language (search.py)."""

    name, part, folder = "search index", "site", "search"

    def __init__(self, resolved: Resolved):
        self.resolved = resolved

    def files(self, release: Path) -> Iterable[File]:
        return SearchIndex(self.resolved).all_files().items()


class CalculatorRuntime:
    """Pyodide, the wheels and rules_check with this build's rules data (`rules`, an earlier renderer's), for the calculators' worker."""

    name, part, folder = "calculators", "site", RUNTIME

    def __init__(self, rules: RulesData):
        self.rules = rules

    def files(self, release: Path) -> Iterator[File]:
        return runtime_files(self.rules.data)


class OfflineFiles:
    """Workbox, the icons, each section's manifest and sitemap, the packed twins of text files, and the
    service workers, whose precache lists are read from the site as written (release/site)."""

    name, part, folder = "offline", "site", None

    def __init__(self, resolved: Resolved):
        self.languages, self.data_version = resolved.languages, resolved.data_version

    def files(self, release: Path) -> Iterator[File]:
        site = release / self.part
        yield from list(offline_files(site, self.languages))
        sections = sections_files(site, self.languages)  # listed once the manifests and sitemaps above are written
        yield from packed_twins(site, sections)  # what the offline copies keep of text files
        yield from list(service_workers(site, sections, self.data_version))  # precaches what is written
        yield from list(root_service_worker(site, self.languages, self.data_version))


class Aids:
    """The player aids, into site/cards, laid out by `workers` (None: a pool started when they are laid out). With
    `start_now` they are started at once (in the worker processes, while the rest is made: their stage then only
    waits for them), else in their stage (the bench, which times each stage on its own)."""

    part, folder = "site", "cards"

    def __init__(self, resolved: Resolved, cache: Path, workers: ProcessPoolExecutor | None, start_now: bool = True):
        self.resolved, self.cache, self.workers = resolved, cache, workers
        self.pending = start_aids(resolved, cache=cache, workers=workers) if workers is not None and start_now else None
        self.name = "cards" if self.pending is None else "cards (waiting)"

    def files(self, release: Path) -> Iterator[File]:
        aids = self.pending or start_aids(self.resolved, cache=self.cache, workers=self.workers)
        return ((f"{self.folder}/{name}", content) for name, content in aids.files())

    def cancel(self) -> None:
        if self.pending is not None:
            self.pending.cancel()
        elif self.workers is not None:
            self.workers.shutdown(wait=False, cancel_futures=True)


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
