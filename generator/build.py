"""The whole pipeline as one straight line: load, validate, resolve, render, write."""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cards import render_all as render_aids
from .resolve import LANGUAGES, resolve
from .rules_check_gen import checks_by_entry, render_package
from .search import SearchIndex
from .site import SiteRenderer
from .validate import load_valid
from .write import run_mkdocs, set_page_languages, staging_dir, swap_in, write_files

REPO = Path(__file__).resolve().parent.parent
ASSETS = Path(__file__).resolve().parent / "templates" / "assets"


@dataclass
class BuildReport:
    seconds: dict[str, float] = field(default_factory=dict)
    pages: int = 0
    entries: int = 0
    data_version: str = ""

    def summary(self) -> str:
        stages = ", ".join(f"{name} {s:.2f}s" for name, s in self.seconds.items())
        return f"built {self.pages} pages from {self.entries} entries (data version {self.data_version}): {stages}"


class Stopwatch:
    def __init__(self, report: BuildReport):
        self.report = report

    def __call__(self, name: str):
        stopwatch = self

        class Timer:
            def __enter__(self):
                self.start = time.perf_counter()

            def __exit__(self, *exc):
                stopwatch.report.seconds[name] = time.perf_counter() - self.start
        return Timer()


def build(data_dir: Path, out: Path = REPO) -> BuildReport:
    """Build into out/site, out/docs/generated (and later cards, rules_check); out defaults to the repository."""
    report = BuildReport()
    timed = Stopwatch(report)
    with timed("load+validate"):
        kb = load_valid(data_dir)
    with timed("resolve"):
        resolved = resolve(kb, checks_by_entry())
    with timed("cards"):
        aids = render_aids(resolved, cache=out / "build" / "cards-cache")
        card_files = {f"cards/{name}": content for aid in aids for name, content in aid.files.items()}
    with timed("render"):
        renderer = SiteRenderer(resolved, card_files={(aid.game, aid.lang): aid.links() for aid in aids})
        pages = renderer.all_pages()
        nav = renderer.nav()
        search_files = SearchIndex(resolved).all_files()
    with timed("rules-check"):
        package = render_package(resolved)
    work = staging_dir(out)
    try:
        with timed("write"):
            docs = work / "docs"
            write_files(docs, pages)
            write_files(docs, card_files)
            shutil.copytree(ASSETS, docs / "assets")
            write_files(work / "rules_check", package)
        with timed("site engine"):
            run_mkdocs(REPO, docs, work / "site", nav, work)
        with timed("search index"):
            write_files(work / "site", search_files)
            set_page_languages(work / "site", LANGUAGES)
        (out / "docs").mkdir(parents=True, exist_ok=True)
        swap_in(docs, out / "docs" / "generated")
        swap_in(work / "site", out / "site")
        swap_in(work / "rules_check", out / "rules_check")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.pages = len(pages)
    report.entries = len(kb.entries)
    report.data_version = resolved.data_version
    return report
