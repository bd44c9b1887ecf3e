"""Stage 3, resolve: everything the renderers need that is derived, computed once.

Where each entry's page and anchor are, which language a reader sees for each entry
(with fallbacks), which clarifications touch which entry, which glossary terms occur in
which text, and a stable data version for the cards.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, overload

from ..base.jsontypes import JSON, JSONObject
from ..base.kept import Answers
from ..base.languages import Languages
from ..base.termmatch import TermMatcher, term_matcher, terms_in_text
from ..load.model import Chapter, Entry, Game, KnowledgeBase, aid_place
from ..validate.validate_checks import checks_by_entry
from .pages import GLOSSARY

_Value = TypeVar("_Value")  # what a per-language mapping holds (a title's text, a cell's value)


def slug_of(item_id: str) -> str:
    """Anchor of an entry or chapter: its id without the game part."""
    return item_id.split("/", 1)[1].replace("/", "-")


@dataclass
class TableText:
    head: list[str]
    rows: list[list[str]]
    note: str | None


@dataclass
class Resolved:
    kb: KnowledgeBase
    data_version: str
    page_of: dict[str, str] = field(default_factory=dict)  # entry/chapter id -> page file name (within game dir)
    clarifications_of: dict[str, list[str]] = field(default_factory=dict)
    matchers: dict[tuple[str, str], TermMatcher] = field(default_factory=dict)  # (game, lang)
    terms_in: dict[str, set[str]] = field(default_factory=dict)  # entry id -> term ids found or declared
    checks_of: dict[str, list[str]] = field(default_factory=dict)  # entry id -> rules_check function names
    # entry id -> "<chapter order>.<place in chapter>", the number players say aloud ("30.4"; its paragraphs
    # are 30.4a, 30.4b…); it follows the data's order, so an entry inserted before renumbers those after it
    number_of: dict[str, str] = field(default_factory=dict)

    def games(self) -> list[Game]:
        return [self.kb.games[g] for g in sorted(self.kb.games)]

    @property
    def languages(self) -> Languages:
        return self.kb.languages

    def display_language(self, item: Mapping[str, Any], reader: str) -> str:
        """The language a reader is shown of an entry or chapter (see Languages.pick)."""
        return self.languages.pick(item["text"] if "text" in item else item["title"], reader, self.original_languages(item))

    def path_in_section(self, item_id: str) -> str:
        """Where an entry, chapter or glossary term is shown, within a language section:
        `<game>/<NN-chapter>.html#<slug>`, `<game>/<NN-chapter>.html`, `<game>/glossary.html#term-<name>`.
        The one place URLs and anchors are made; the site, search and aids all ask here."""
        game = self.kb.game_of(item_id)
        if item_id in self.kb.terms:
            return f"{game}/{GLOSSARY.html}#{self.anchor_of(item_id)}"
        page = f"{game}/{self.page_of[item_id][:-3]}.html"
        return page if item_id in self.kb.chapters else f"{page}#{self.anchor_of(item_id)}"

    def calculators_url(self, game: str, lang: str, anchor: str = "") -> str:
        """A game's Calculators page (its answer tables and calculators) from the site root, at an anchor:
        an answer table's id (`<game>-<check>`) or a calculator's (`calc-<check>`)."""
        return f"{lang}/{game}/calculators.html" + (f"#{anchor}" if anchor else "")

    def url_of(self, item_id: str, lang: str) -> str:
        """An item's URL from the site root in a language's section."""
        return f"{lang}/{self.path_in_section(item_id)}"

    def anchor_of(self, item_id: str) -> str:
        """The anchor of an entry (its slug) or a glossary term (term-<name>) on its page."""
        return f"term-{item_id.rsplit('/', 1)[1]}" if item_id in self.kb.terms else slug_of(item_id)

    def title_of(self, item_id: str, reader: str) -> str:
        """An entry's, chapter's or glossary term's title (a term: its name) as the reader is shown it."""
        if item_id in self.kb.terms:
            return self.text_in(self.kb.terms[item_id]["names"], reader)
        item = self.kb.entries[item_id] if item_id in self.kb.entries else self.kb.chapters[item_id].data
        return item["title"][self.display_language(item, reader)]

    def link_title(self, item_id: str, reader: str) -> str:
        """An item's title as a link names it: where other entries of its game show the reader the same
        title (a rule and its quick-reference summary), followed by what tells them apart — its chapter's
        title without its parenthesis ("Słownik", not "Słownik (litery rosyjskie Р–Я: …)"), or its number
        where that does not; nothing for the entry of a chapter of its own name — so that no two links read alike."""
        title = self.title_of(item_id, reader)
        alike = self._alike.get((self.kb.game_of(item_id), reader, title), []) if item_id in self.kb.entries else []
        if len(alike) < 2:
            return title
        chapters = [PARENTHESIS.sub("", self.title_of(self.kb.entry_chapter[other], reader)) for other in alike]
        chapter = chapters[alike.index(item_id)]
        if chapter == title and chapters.count(chapter) == 1:  # the chapter of that name: its entry needs no more
            return title
        return f"{title} ({chapter if chapters.count(chapter) == 1 else self.number_of[item_id]})"

    @cached_property
    def _alike(self) -> dict[tuple[str, str, str], list[str]]:
        """(game, reader, title) -> the entries shown with that title."""
        alike: dict[tuple[str, str, str], list[str]] = {}
        for entry_id in self.kb.entries:
            for reader in self.languages.codes:
                alike.setdefault((self.kb.game_of(entry_id), reader, self.title_of(entry_id, reader)), []).append(entry_id)
        return alike

    @overload
    def text_in(self, values: Mapping[str, _Value], reader: str) -> _Value: ...
    @overload
    def text_in(self, values: JSON, reader: str) -> JSON: ...
    def text_in(self, values: JSON, reader: str) -> JSON:
        """A per-language value (game title, summary, table cell, term name) for a reader; a value not
        given per language (a number, a plain string) as it is."""
        return self.languages.text(values, reader)

    def table(self, table: JSONObject, reader: str) -> TableText:
        """A data table's head, rows and note as plain text in the reader's language (empty cells '')."""

        def cell(value: JSON) -> str:
            value = self.text_in(value, reader)
            return "" if value is None else str(value)

        columns = table["columns"]
        return TableText(
            [cell(c["title"]) for c in columns],
            [[cell(row.get(c["key"])) for c in columns] for row in table["rows"]],
            cell(table["note"]) if "note" in table else None,
        )

    def ruling(self, entry: Entry, lang: str) -> str | None:
        """A clarification's ruling in its `lang` text: from the language's bold resolution label
        ("**Resolution:**") to the end — a whole paragraph on, or from inside the paragraph that holds
        it; None if the text has no such label."""
        if lang not in self.languages:
            return None
        text = entry["text"][lang]
        start = text.find(f"**{self.languages[lang].resolution_label}")
        return text[start:] if start >= 0 else None

    def ruling_sentence(self, entry: Entry, reader: str) -> tuple[str, str] | None:
        """A clarification's ruling in one sentence — what the players do — and its language: the data's
        `ruling` in the reader's language (else as the language policy picks), or, where the data has none,
        the first sentence of the resolution paragraph of the text the reader is shown."""
        sentences = entry.get("clarification", {}).get("ruling")
        if sentences:
            return self.languages.shown(sentences, reader)
        shown = self.display_language(entry, reader)
        resolution = self.ruling(entry, shown)
        if resolution is None:
            return None
        return first_sentence(RULING_LABEL.sub("", resolution, count=1)), shown

    @staticmethod
    def original_languages(item: Mapping[str, Any]) -> list[str]:
        return [lang for lang, o in item.get("origin", {}).items() if "translated_from" not in o]

    def chapter_of(self, entry_id: str) -> Chapter:
        return self.kb.chapters[self.kb.entry_chapter[entry_id]]

    def reading(self, reader: str) -> Reading:
        """The data as the reader of one language section is shown it (see Reading)."""
        return Reading(self, reader)


@dataclass(frozen=True)
class Reading:
    """The resolved data as one reader is shown it: every title, text, table, label and address in the reader's
    language (or the language the policy falls back to, base/languages.py), without naming the reader at each
    call. What a renderer makes for a language section it makes from the section's Reading (`Resolved.reading`);
    the language policy itself stays in Resolved and Languages, which this only asks."""

    resolved: Resolved
    reader: str

    @property
    def labels(self) -> Mapping[str, Any]:
        """The site's own words (data/languages/<reader>/ui.yaml)."""
        return self.resolved.languages.ui(self.reader)

    def language_name(self, code: str) -> str:
        """A language's name in the reader's language ("английский" for en to a Russian reader)."""
        return self.resolved.languages.name_in(code, self.reader)

    @overload
    def text(self, values: Mapping[str, _Value]) -> _Value: ...
    @overload
    def text(self, values: JSON) -> JSON: ...
    def text(self, values: JSON) -> JSON:
        """A per-language value (game title, summary, table cell, term name) in the reader's language."""
        return self.resolved.text_in(values, self.reader)

    def shown(self, values: Mapping[str, _Value]) -> tuple[_Value, str]:
        """A per-language value in the reader's language, and the language it is in (another where the reader's is missing)."""
        return self.resolved.languages.shown(values, self.reader)

    def pick(self, available: Iterable[str]) -> str:
        """Which of the languages of a per-language value the reader is shown."""
        return self.resolved.languages.pick(available, self.reader)

    def shown_language(self, item: Mapping[str, Any]) -> str:
        """The language the reader is shown an entry or chapter in."""
        return self.resolved.display_language(item, self.reader)

    def title(self, item_id: str) -> str:
        return self.resolved.title_of(item_id, self.reader)

    def link_title(self, item_id: str) -> str:
        return self.resolved.link_title(item_id, self.reader)

    def table(self, table: JSONObject) -> TableText:
        return self.resolved.table(table, self.reader)

    def ruling_sentence(self, entry: Entry) -> tuple[str, str] | None:
        return self.resolved.ruling_sentence(entry, self.reader)

    def url(self, item_id: str) -> str:
        """An item's URL from the site root, in the reader's section."""
        return self.resolved.url_of(item_id, self.reader)

    def calculators_url(self, game: str, anchor: str = "") -> str:
        """The game's Calculators page from the site root, in the reader's section."""
        return self.resolved.calculators_url(game, self.reader, anchor)


PARENTHESIS = re.compile(r"\s*\([^()]*\)\s*$")  # a title's closing "(…)"
RULING_LABEL = re.compile(r"^\*\*[^*\n]+\*\*\s*")  # the bold "Resolution:" opening a ruling
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[«\"(\[*_]*[^\W\d_a-zà-ÿа-яёąćęłńóśźż])")  # before a capital, not "p. 7"


def first_sentence(text: str) -> str:
    """The first sentence of Markdown text (of its first paragraph)."""
    return SENTENCE_END.split(first_paragraph(text), 1)[0]


def first_paragraph(text: str) -> str:
    """The first block of Markdown text (up to the first blank line)."""
    return text.strip().split("\n\n", 1)[0]


def page_name(chapter: Chapter) -> str:
    return f"{chapter.order:02d}-{slug_of(chapter.id)}.md"


def data_version(kb: KnowledgeBase) -> str:
    """A digest of the data (not the clock), so the same data gives the same version: of the JSON text of the
    games, entries, terms, chapters and aids, keys sorted. That text is put together from each item's own
    (`item_json`), which is kept while its file's bytes are the same: under `serve` most are (dumping
    everything again took 0.25 s of each rebuild at 10x)."""
    parts: dict[str, Mapping[str, Any]] = {
        "aids": kb.aids,
        "chapters": {cid: c.data for cid, c in kb.chapters.items()},
        "entries": kb.entries,
        "games": kb.games,
        "terms": kb.terms,
    }
    digest = hashlib.sha256()
    digest.update(b"{")
    for n, (part, items) in enumerate(sorted(parts.items())):
        digest.update(f'{", " if n else ""}"{part}": {{'.encode())
        for m, item_id in enumerate(sorted(items)):
            place = aid_place(item_id) if part == "aids" else item_id
            digest.update(f"{', ' if m else ''}{_json(item_id)}: {item_json(kb, place, items[item_id])}".encode())
        digest.update(b"}")
    digest.update(b"}")
    return digest.hexdigest()[:12]


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def item_json(kb: KnowledgeBase, place: str, item: object) -> str:
    """`_json(item)`, kept by the bytes of the file the item is in and its place there (which decide what it is);
    `place`: its key in `kb.where` (an id; `aid_place(game)` for an aid)."""
    where = kb.where.get(place)
    if where is None:
        return _json(item)
    return _ITEM_JSON.of(where.content_key(), lambda: _json(item))


_ITEM_JSON: Answers[tuple[bytes, tuple[str | int, ...]], str] = Answers()


def resolve(kb: KnowledgeBase) -> Resolved:
    resolved = Resolved(kb, data_version(kb))
    for chapter in kb.chapters.values():
        name = page_name(chapter)
        resolved.page_of[chapter.id] = name
        for place, entry_id in enumerate(chapter.entry_ids, start=1):
            resolved.page_of[entry_id] = name
            resolved.number_of[entry_id] = f"{chapter.order}.{place}"
    for entry_id, entry in kb.entries.items():
        for affected in entry.get("clarification", {}).get("affects", []):
            resolved.clarifications_of.setdefault(affected, []).append(entry_id)
    for game in kb.games:
        terms = kb.terms_of(game)
        for lang in kb.languages.codes:
            resolved.matchers[(game, lang)] = term_matcher(terms, lang)
    for entry_id, entry in kb.entries.items():
        game = kb.game_of(entry_id)
        found = set(entry.get("terms", []))
        for lang, text in entry["text"].items():
            found |= terms_in_text(resolved.matchers[(game, lang)], entry["title"][lang], text)
        resolved.terms_in[entry_id] = found
    resolved.checks_of = checks_by_entry(kb)  # from the games' checks.yaml
    return resolved
