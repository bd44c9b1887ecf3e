"""`serve`'s incremental policy: what it keeps between its rebuilds (`Kept`), which pages an edit may
have changed (`games_to_render`), and how a rebuild makes its release (`Incremental`, the plan serve
passes to the ordinary pipeline, pipeline.build): only what the edit changed, the changed pages
served before the rest is made, the rest dropped when a newer edit is waiting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .load.load import ParsedFiles
from .render.renderer import Renderer, SitePages
from .render.site import PageMeta, RenderedTexts
from .resolve.resolve import Resolved, item_json
from .write.engine import LiveEngine
from .write.release import Release


class Superseded(Exception):
    """A newer edit is waiting (serve): what is left of this build is dropped, the next one does it."""


@dataclass
class Kept:
    """What `serve` keeps between rebuilds, so that a rebuild does only what its edit changed:

    - load parses only the files whose bytes changed (`parsed`);
    - a new release starts as a copy of the served one (hard links); files whose content is
      the same are left alone (release.write_files). The copy is made ahead (`spare`), at the end of
      the rebuild that published the release, while the editor reads: at 10× it is 41,000 links;
    - render makes only the pages of the games the edit can have changed (`games_to_render`), the
      others' titles and tables of contents kept from the last build, and of those games' texts renders
      only those the last such rebuild did not (`rendered`: the rest has the same links, titles and terms);
    - the site engine stays loaded (engine.LiveEngine) and renders only the changed pages;
    - when it did, those pages are served at once (Release.serve_pages); the search index, the
      calculators' runtime, the offline lists and the aids follow in a second release, published
      whole, or dropped if a newer edit is waiting (`superseded`)."""

    engine: LiveEngine
    resolved: Resolved | None = None  # of the last published pages
    engine_release: Path | None = None  # the release whose site the engine's last run made (or a copy of it)
    page_meta: dict[str, PageMeta] = field(default_factory=dict)
    parsed: ParsedFiles = field(default_factory=dict)  # the data files as last parsed (load)
    rendered: dict[str, RenderedTexts] = field(default_factory=dict)  # game -> its texts as its last partial rebuild rendered them
    spare: Release | None = None  # a copy of the published release, made after publishing it, for the next rebuild
    on_publish: Callable[[str], None] = lambda release: None  # told the release whose pages were just published
    superseded: Callable[[], bool] = lambda: False

    def published(self, release: Release, resolved: Resolved, pages: SitePages) -> None:
        self.resolved, self.page_meta, self.rendered = resolved, dict(pages.page_meta), pages.rendered or {}
        self.on_publish(release.folder.name)


class Incremental:
    """One rebuild of `serve` (a pipeline.Plan): its release starts as a copy of the served one; only the
    games `games_to_render` names are rendered again, and the kept engine (`LiveSiteEngine`) renders
    only the pages that changed. When it could, those pages are served at once, and the renderers after
    it write into a second release, published whole; after the engine and after the offline files, the
    rebuild stops (`Superseded`) if a newer edit is waiting."""

    serving = True
    SUPERSEDED_AFTER = ("site engine", "offline")  # the stages after which a newer edit stops the rebuild

    def __init__(self, kept: Kept):
        self.kept = kept
        self.parsed: ParsedFiles | None = kept.parsed
        self.based_on: Path | None = None  # the served release this rebuild starts as a copy of
        self.changed_pages: list[str] = []  # the docs files the pages renderer changed
        self.partial = False  # whether the engine rendered only those

    @property
    def kept_release(self) -> Path | None:
        """The spare copy made for this rebuild (the build's tidy leaves it)."""
        return self.kept.spare.folder if self.kept.spare is not None else None

    def release(self, out: Path) -> Release:
        self.based_on = Release.served(out) if self.kept.resolved is not None else None
        spare, self.kept.spare = self.kept.spare, None
        if spare is not None and self.based_on is not None and spare.is_copy_of(self.based_on):
            return spare
        if spare is not None:  # of a release no longer served (its pages were served ahead of it, or another build ran)
            spare.discard()
        return Release(out, self.based_on)

    def pages(self, resolved: Resolved) -> SitePages:
        games = games_to_render(self.kept.resolved, resolved) if self.based_on is not None else None
        if games is None:  # every page: nothing kept holds; each game's texts are kept for the first edit of it
            self.site_pages = SitePages(resolved, rendered_before={})
        else:
            self.site_pages = SitePages(resolved, games, self.kept.page_meta, rendered_before=self.kept.rendered)
        self.resolved = resolved
        return self.site_pages

    def engine(self, pages: SitePages) -> Renderer:
        return LiveSiteEngine(self, pages)

    def after(self, renderer: Renderer, release: Release, changed: list[str]) -> Release:
        if renderer is self.site_pages:
            self.changed_pages = changed
        elif isinstance(renderer, LiveSiteEngine) and self.partial:  # only the changed pages: serve them now, publish them with the rest
            release.serve_pages()
            self.kept.published(release, self.resolved, self.site_pages)
            release = Release(release.out, based_on=release.folder)
        if renderer.name in self.SUPERSEDED_AFTER and self.kept.superseded():
            raise Superseded
        return release

    def published(self, release: Release) -> None:
        if release.based_on == self.kept.engine_release:  # the pages' release, with the rest added
            self.kept.engine_release = release.folder
        if self.kept.resolved is not self.resolved:
            self.kept.published(release, self.resolved, self.site_pages)
        try:
            self.kept.spare = Release(release.out, based_on=release.folder)
        except OSError:  # a full disk…: the next rebuild copies the release itself, and its tidy removes what was copied
            self.kept.spare = None


class LiveSiteEngine:
    """The site engine kept loaded between rebuilds (engine.LiveEngine): only the changed pages when the
    site it last made is the one this release started from, else all of them."""

    name, part, folder = "site engine", "site", None

    def __init__(self, plan: Incremental, pages: SitePages):
        self.plan, self.pages = plan, pages  # the plan: the docs files `pages` changed; told whether the run was partial

    def files(self, release: Path) -> tuple[()]:
        plan, kept = self.plan, self.plan.kept
        changed = plan.changed_pages if plan.based_on == kept.engine_release else None
        plan.partial = kept.engine.run(release / self.pages.part, release / self.part, self.pages.site_meta(), changed)
        kept.engine_release = release
        return ()


def games_to_render(before: Resolved | None, after: Resolved) -> set[str] | None:
    """The games whose pages an edit may have changed, when that is sure: only entries changed,
    each keeping its id, chapter and titles, and no other game's data names any of them (their
    titles show on other pages; their text only on their own game's). None: every page."""
    if before is None:
        return None
    old, new = before.kb, after.kb
    if any(getattr(old, part) != getattr(new, part) for part in SAME_FOR_PARTIAL) or list(old.languages) != list(new.languages):
        return None
    if old.entries.keys() != new.entries.keys():
        return None
    changed = [entry_id for entry_id, entry in new.entries.items() if entry != old.entries[entry_id]]
    if any(new.entries[entry_id]["title"] != old.entries[entry_id]["title"] for entry_id in changed):
        return None
    games = {new.game_of(entry_id) for entry_id in changed}
    for game in set(new.games) - games:  # their items' JSON texts, kept from the data version's
        texts = [item_json(new, game, new.games[game]), *(item_json(new, item["id"], item) for item in [*new.entries_of(game), *new.terms_of(game)])]
        if any(entry_id in text for text in texts for entry_id in changed):
            return None
    return games


SAME_FOR_PARTIAL = ("sources", "games", "chapters", "entry_chapter", "terms", "aids", "checks", "calculators")
