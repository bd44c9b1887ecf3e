"""The knowledge base as plain data, indexed, with where each item was written."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from ..base.jsontypes import JSONObject
from ..base.languages import Languages
from .load import Document

PerLanguage = dict[str, str]  # language code -> text
_Item = TypeVar("_Item")  # an item of one kind (chapter, term) grouped by game


class Origin(TypedDict, total=False):
    """Where one language's version came from: a source and its lines, a translation, or the editors."""

    source: str
    lines: str
    translated_from: str
    authored: bool


class _EntryFields(TypedDict):
    id: str
    kind: str
    title: PerLanguage
    text: PerLanguage
    origin: dict[str, Origin]


class Entry(_EntryFields, total=False):
    """One entry of a chapter file as loaded and validated (schemas/entry.schema.json)."""

    see: list[str]
    terms: list[str]
    not_terms: list[str]  # terms whose word the original uses in an everyday sense (E054 leaves them)
    keywords: dict[str, list[str]]
    quickref: bool
    summary: dict[str, Any]
    refs_external: list[dict[str, Any]]  # what (text or per language), lang, quote
    corrections: list[dict[str, str]]
    numbers_differ: Any
    params: dict[str, Any]
    table: dict[str, Any]
    example: dict[str, Any]
    clarification: dict[str, Any]


class _GameFields(TypedDict):
    id: str
    title: PerLanguage
    summary: PerLanguage
    languages: list[str]
    required_languages: list[str]
    sources: list[str]


class Game(_GameFields, total=False):
    """A game.yaml as loaded and validated (schemas/game.schema.json)."""

    publisher: str
    year: int
    at_a_glance: list[str]


class _TermFields(TypedDict):
    id: str
    names: PerLanguage
    english: str


class Term(_TermFields, total=False):
    """A glossary term (schemas/glossary.schema.json)."""

    variants: dict[str, list[str]]
    forms: dict[str, list[str]]
    variant_forms: dict[str, list[str]]
    english_source: list[str]
    category: str
    definition: str
    gloss: PerLanguage  # the term in one sentence, drawn from its definition
    status: dict[str, str]  # per language not taken from a source: published | uncertain
    status_source: dict[str, list[str]]
    note: str


class _AidFields(TypedDict):
    sections: list[dict[str, Any]]


class Aid(_AidFields, total=False):
    """A cards.yaml: what a game's player aid carries (schemas/cards.schema.json)."""

    title: PerLanguage
    hide_columns: dict[str, list[str]]
    checklist: dict[str, list[str]]  # what a group needs to play a whole game from the aid: topic -> entry ids


@dataclass(frozen=True)
class Where:
    document: Document
    path: Sequence[str | int]  # JSON path inside the document: keys and list indices

    def content_key(self) -> tuple[bytes, tuple[str | int, ...]]:
        """What decides the item's content: its file's bytes (their digest) and its place in it. An answer about
        the item alone, kept by this key, holds while the file is the same: no stage changes a document, and
        under `serve` most files are the same from one rebuild to the next."""
        return self.document.digest, tuple(self.path)


@dataclass(frozen=True)
class Noise:
    """Source lines deliberately not carried into entries (one item of noise/*.yaml)."""

    game: str
    source: str
    lines: str
    kind: str  # its `class`: web, duplicate, caption, ...
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
    precedence_reason: Mapping[str, str]  # why, per language (one English text is {'en': …})
    lines: list[str]  # the text's lines; lines[0] is line 1
    sha256: str = ""  # of the text's bytes


@dataclass
class Chapter:
    id: str
    game: str
    order: int
    data: JSONObject
    entry_ids: list[str] = field(default_factory=list)


def aid_place(game: str) -> str:
    """The key in `KnowledgeBase.where` of a game's aid (cards.yaml), which has no id of its own."""
    return f"{game}:aid"


@dataclass
class KnowledgeBase:
    sources: dict[str, Source] = field(default_factory=dict)
    games: dict[str, Game] = field(default_factory=dict)
    chapters: dict[str, Chapter] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)  # id -> entry (in reading order)
    entry_chapter: dict[str, str] = field(default_factory=dict)
    terms: dict[str, Term] = field(default_factory=dict)
    noise: list[Noise] = field(default_factory=list)
    aids: dict[str, Aid] = field(default_factory=dict)  # game -> player-aid selection (cards.yaml)
    checks: dict[str, dict[str, JSONObject]] = field(default_factory=dict)  # game -> check name -> catalogue item (checks.yaml)
    calculators: dict[str, JSONObject] = field(default_factory=dict)  # game -> its calculators.yaml (labels, checks' titles and answers)
    where: dict[str, Where] = field(default_factory=dict)  # id (a game's aid: `aid_place`) -> where it is written
    # Ids and source ids of items skipped for a reported problem -> the file of that problem:
    # references to them are not checked (and counted in a note on that problem).
    unchecked_ids: dict[str, str] = field(default_factory=dict)
    unchecked_sources: dict[str, str] = field(default_factory=dict)
    all_sources_unchecked: str | None = None  # the manifest's path when it gave no list of sources
    unchecked_games: dict[str, str] = field(default_factory=dict)  # game -> a file or folder of it that could not be read
    unchecked_checks: dict[str, str] = field(default_factory=dict)  # game -> its checks.yaml, which had a problem
    # Noise ranges skipped for a problem -> its file: texts citing those lines are not compared with them.
    unread_noise: dict[str, str] = field(default_factory=dict)  # game -> a noise file with a range unknown
    unread_noise_lines: dict[tuple[str, int], str] = field(default_factory=dict)  # (source id, line) -> noise file
    languages: Languages = field(default_factory=lambda: Languages([]))  # data/languages/
    _groups: dict[str, tuple[int, dict[str, list[Any]]]] = field(default_factory=dict, repr=False, compare=False)  # see _by_game

    def game_of(self, item_id: str) -> str:
        return item_id.split("/", 1)[0]

    def chapters_of(self, game: str) -> list[Chapter]:
        return list(self._by_game("chapters", self.chapters, lambda c: c.game).get(game, []))

    def entries_of(self, game: str) -> list[Entry]:
        return [self.entries[e] for c in self.chapters_of(game) for e in c.entry_ids]

    def terms_of(self, game: str) -> list[Term]:
        return list(self._by_game("terms", self.terms, lambda t: self.game_of(t["id"])).get(game, []))

    def _by_game(self, name: str, items: Mapping[str, _Item], game_of: Callable[[_Item], str]) -> dict[str, list[_Item]]:
        """Items grouped by game, in order (chapters by their NN- order), kept until `items` grows:
        looking them up by scanning every game's items made large corpora quadratic."""
        cached = self._groups.get(name)
        if cached is None or cached[0] != len(items):
            groups: dict[str, list[Any]] = {}  # of chapters, or of terms
            for item in items.values():
                groups.setdefault(game_of(item), []).append(item)
            if name == "chapters":
                for chapters in groups.values():
                    chapters.sort(key=lambda c: c.order)
            cached = self._groups[name] = (len(items), groups)
        return cached[1]
