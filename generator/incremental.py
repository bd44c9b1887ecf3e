"""What `serve` keeps between its rebuilds, and which pages an edit may have changed: the policy that
lets a rebuild do only what its edit changed (`Kept`, `games_to_render`). The rebuild itself is the
ordinary pipeline (pipeline.build), given a `Kept`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .load.load import ParsedFiles
from .render.site import PageMeta, SiteRenderer
from .resolve.resolve import Resolved
from .write.engine import LiveEngine
from .write.release import Release


class Superseded(Exception):
    """A newer edit is waiting (serve): what is left of this build is dropped, the next one does it."""


@dataclass
class Kept:
    """What `serve` keeps between rebuilds, so that a rebuild does only what its edit changed:

    - load parses only the files whose bytes changed (`parsed`);
    - a new release starts as a copy of the served one (hard links); files whose content is
      the same are left alone (release.write_files);
    - render makes only the pages of the games the edit can have changed (`games_to_render`), the
      others' titles and tables of contents kept from the last build;
    - the site engine stays loaded (engine.LiveEngine) and renders only the changed pages;
    - when it did, those pages are served at once (Release.serve_pages); the search index, the
      calculators' runtime, the offline lists and the aids follow in a second release, published
      whole, or dropped if a newer edit is waiting (`superseded`)."""

    engine: LiveEngine
    resolved: Resolved | None = None  # of the last published pages
    engine_release: Path | None = None  # the release whose site the engine's last run made (or a copy of it)
    page_meta: dict[str, PageMeta] = field(default_factory=dict)
    parsed: ParsedFiles = field(default_factory=dict)  # the data files as last parsed (load)
    on_publish: Callable[[str], None] = lambda release: None  # told the release whose pages were just published
    superseded: Callable[[], bool] = lambda: False

    def published(self, release: Release, resolved: Resolved, renderer: SiteRenderer) -> None:
        self.resolved, self.page_meta = resolved, dict(renderer.page_meta)
        self.on_publish(release.folder.name)


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
    for game in set(new.games) - games:
        text = json.dumps([new.games[game], new.entries_of(game), new.terms_of(game)], ensure_ascii=False, default=str)
        if any(entry_id in text for entry_id in changed):
            return None
    return games


SAME_FOR_PARTIAL = ("sources", "games", "chapters", "entry_chapter", "terms", "aids", "checks", "calculators")
