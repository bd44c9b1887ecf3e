"""The whole pipeline as one straight line: load, validate, resolve, render, write."""
from __future__ import annotations

import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .calculators import runtime_files
from .cards import aid_links, start_aids
from .errors import OutputError
from .load import load
from .offline import offline_files, service_workers
from .problems import DataError, Problems
from .resolve import resolve
from .rules_data import render_rules_data
from .search import SearchIndex
from .site import SiteRenderer
from .validate import check
from .write import Release, build_lock, run_mkdocs, write_files

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

    @contextmanager
    def stage(self, name: str):
        """Time one stage into `seconds`."""
        start = time.perf_counter()
        yield
        self.seconds[name] = time.perf_counter() - start


def build(data_dir: Path, out: Path = REPO, stage=None, aids_alongside: bool = True) -> BuildReport:
    """Build into out/site, out/docs/generated and out/rules_check/data; out defaults to the repository.

    The player aids are laid out in worker processes while the site is rendered and built (they
    are the slowest part and need nothing from the site); their files go into the site last.
    Everything is written into a new release folder and published with one atomic switch only
    when every stage has succeeded (see write.py).
    The bench passes its own `stage` (a context manager per stage name, which also weighs memory)
    and `aids_alongside=False`, to measure each stage on its own."""
    report = BuildReport()
    stage = stage or report.stage
    problems = Problems()
    with stage("load"):
        loaded = load(data_dir, problems)
    with stage("validate"):
        kb = check(loaded, problems)
    if problems:
        raise DataError(problems)
    with stage("resolve"):
        resolved = resolve(kb)
    try:
        with build_lock(out):
            _render_and_publish(resolved, out, stage, aids_alongside, report)
    except OSError as err:
        raise OutputError(f"writing the output failed: {err.strerror or err} ({err.filename or out}); nothing was replaced") from err
    report.entries = len(kb.entries)
    report.data_version = resolved.data_version
    return report


def _render_and_publish(resolved, out: Path, stage, aids_alongside: bool, report: BuildReport) -> None:
    release = Release(out)
    docs, site = release.part("docs"), release.part("site")
    aids = None
    try:
        aids = start_aids(resolved, cache=out / "build" / "cards-cache") if aids_alongside else None
        with stage("render"):
            renderer = SiteRenderer(resolved, aid_links=aid_links(resolved))
            report.pages = write_files(docs, renderer.pages())
            shutil.copytree(ASSETS, docs / "assets")
        with stage("rules-check"):
            rules_data = render_rules_data(resolved)
            release.part("rules_check_data").mkdir()  # published even when no game has checks
            write_files(release.part("rules_check_data"), rules_data)  # read by the rules_check package
        with stage("site engine"):
            run_mkdocs(REPO, docs, site, renderer.site_meta(), release.work)
        with stage("search index"):
            write_files(site, SearchIndex(resolved).all_files())
        with stage("calculators"):
            write_files(site, runtime_files(rules_data))  # Pyodide, wheels and the package, for the calculators' worker
        with stage("offline"):
            write_files(site, list(offline_files(site, resolved.languages)))
            write_files(site, list(service_workers(site, resolved.languages, resolved.data_version)))  # precaches what is written
        with stage("cards" if aids is None else "cards (waiting)"):
            write_files(site / "cards", (aids or start_aids(resolved, cache=out / "build" / "cards-cache")).files())
        release.publish()
    except BaseException:
        if aids:
            aids.cancel()
        release.discard()
        raise
