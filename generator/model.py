"""The knowledge base as plain data, indexed, with where each item was written."""
from __future__ import annotations

from dataclasses import dataclass, field

from .languages import Languages
from .load import Document


@dataclass(frozen=True)
class Where:
    document: Document
    path: list  # JSON path inside the document


@dataclass(frozen=True)
class Noise:
    """Source lines deliberately not carried into entries (one item of noise/*.yaml)."""
    game: str
    source: str
    lines: str
    kind: str                 # its `class`: web, duplicate, caption, ...
    note: str
    duplicate_of: str | None
    where: Where


@dataclass
class Source:
    id: str
    file: str
    game: str
    language: str
    kind: str
    title: str
    precedence: int
    precedence_reason: str
    lines: list[str]  # the text's lines; lines[0] is line 1


@dataclass
class Chapter:
    id: str
    game: str
    order: int
    data: dict
    entry_ids: list[str] = field(default_factory=list)


@dataclass
class KnowledgeBase:
    sources: dict[str, Source] = field(default_factory=dict)
    games: dict[str, dict] = field(default_factory=dict)
    chapters: dict[str, Chapter] = field(default_factory=dict)
    entries: dict[str, dict] = field(default_factory=dict)   # id -> entry (in reading order)
    entry_chapter: dict[str, str] = field(default_factory=dict)
    terms: dict[str, dict] = field(default_factory=dict)
    noise: list[Noise] = field(default_factory=list)
    aids: dict[str, dict] = field(default_factory=dict)      # game -> player-aid selection (cards.yaml)
    checks: dict[str, dict] = field(default_factory=dict)    # game -> check name -> catalogue item (checks.yaml)
    where: dict[str, Where] = field(default_factory=dict)     # id -> where it is written
    # Ids and source ids of items skipped for a reported problem -> the file of that problem:
    # references to them are not checked (and counted in a note on that problem).
    unchecked_ids: dict[str, str] = field(default_factory=dict)
    unchecked_sources: dict[str, str] = field(default_factory=dict)
    all_sources_unchecked: str | None = None  # the manifest's path when it gave no list of sources
    unchecked_games: dict[str, str] = field(default_factory=dict)  # game -> a file or folder of it that could not be read
    languages: Languages = field(default_factory=lambda: Languages([]))  # data/languages/
    _groups: dict = field(default_factory=dict, repr=False, compare=False)  # see _by_game

    def game_of(self, item_id: str) -> str:
        return item_id.split("/", 1)[0]

    def chapters_of(self, game: str) -> list[Chapter]:
        return list(self._by_game("chapters", self.chapters, lambda c: c.game).get(game, []))

    def entries_of(self, game: str) -> list[dict]:
        return [self.entries[e] for c in self.chapters_of(game) for e in c.entry_ids]

    def terms_of(self, game: str) -> list[dict]:
        return list(self._by_game("terms", self.terms, lambda t: self.game_of(t["id"])).get(game, []))

    def _by_game(self, name: str, items: dict, game_of) -> dict[str, list]:
        """Items grouped by game, in order (chapters by their NN- order), kept until `items` grows:
        looking them up by scanning every game's items made large corpora quadratic."""
        cached = self._groups.get(name)
        if cached is None or cached[0] != len(items):
            groups: dict[str, list] = {}
            for item in items.values():
                groups.setdefault(game_of(item), []).append(item)
            if name == "chapters":
                for chapters in groups.values():
                    chapters.sort(key=lambda c: c.order)
            cached = self._groups[name] = (len(items), groups)
        return cached[1]

