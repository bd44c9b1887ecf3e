"""Stage 4b, render the search index: per language, in small files loadable by <script> tags.

Why our own index rather than Material's lunr or Pagefind (see README, "Search"):
  - it must work opened from disk (file://), where fetch() of index files is blocked;
    script tags are not, so every index file is a small JavaScript call;
  - words are matched by a shared prefix that tolerates inflected endings
    (отступил ~ отступление, spustoszonych ~ spustoszone, retreating ~ retreat), with
    Polish diacritics and ё folded for matching only (the text keeps every letter);
  - cross-language look-up comes from the glossary: each entry is indexed, in every
    language, with the names, variants and forms of the terms it mentions, and the words players
    use for them (data/languages/<code>/synonyms.yaml); a title, with the players' words for its words
    and, half a step lower, the other inflections of its words that the glossary's forms list.

What a query downloads must stay small however many games there are, so per language:
  - meta.js (loaded once) holds the document count, each game's run of document numbers, the
    first word of every shard, the number of typo files and the search's constants (RANKING);
  - s-<n>.js, a shard: a run of words in sorted order, at most MAX_SHARD_BYTES, each word with
    its rarity (common words weigh less) and its head of postings: its HEAD_POSTINGS best
    documents by weight, compactly encoded;
  - t-<n>.js, a typo file: a deletion neighbourhood of the words of TYPO_MIN_LETTERS or more: each
    word is listed under its head (first TYPO_HEAD letters) with one letter deleted anywhere (and
    under its first TYPO_HEAD - 1 letters), the keys hashed into a fixed number of files, so a
    misspelt word (a slip anywhere, the first letter too, in any inflected form) loads one file per
    letter of its head;
  - d-<n>.js: titles, links and snippet texts of DOCS_PER_CHUNK documents, fetched for the
    results shown.
A query word loads only the shards that can hold words it matches (see `shards_for`); a long word
that matches nothing as typed loads its typo files and the shards of the words one edit away.

assets/kb-search.js does the same folding, tokenising, matching and ranking; `replay` below is
that client in Python (used by the bench and the tests), so the two must change together
(tests/test_search_parity.py runs kb-search.js under Node.js beside it, in the fast lane).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NotRequired, TypedDict

from ..base.escaping import js_literal
from ..base.jsontypes import JSON, JSONObject
from ..base.termmatch import spellings
from ..base.textmatch import strip_links
from ..load.model import Entry, Term
from ..resolve.resolve import Reading, Resolved
from .answer_tables import AnswerTables
from .calculators import calculator_anchor, game_checks

TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# A word's weight in a document, by where it stands. An entry's own title and the terms it defines
# outrank keywords, which outrank terms it merely mentions; body text counts by frequency (each use
# WEIGHT_TEXT), capped. Weights go in steps of STEP, so that a field can weigh half a step between two others:
# the other inflections of a title's words, as the glossary lists them, weigh half a step below the title
# (above the terms the entry defines), so that «музыканта» finds «Размещение Знамён и Музыкантов» first
# (not a question's title: it weighs like a keyword, so that the rule leads); and the words of a term's
# name standing in the title of the term's own entry (its glossary definition, a rule) up to a step above any
# title (see `SearchIndex.home_words`), so that a query naming the term leads with that entry.
STEP = 2
HALF_STEP = STEP // 2
WEIGHT_TITLE, WEIGHT_DEFINES, WEIGHT_KEYWORD, WEIGHT_GLOSSARY, WEIGHT_MENTIONS, WEIGHT_TEXT = (STEP * w for w in (8, 7, 6, 5, 2, 1))
MAX_TEXT_WEIGHT = 3 * WEIGHT_TEXT
# A document shown in a fallback language (its text missing in the reader's) weighs a step less in
# every field, so that the reader's own text on the same concept comes first; its result is marked.
FALLBACK_DEMOTION = STEP

HEAD_POSTINGS = 100  # documents kept per word: the best by weight, ties to the lower number
MAX_SHARD_BYTES = 4_000  # a shard file's size cap
DOCS_PER_CHUNK = 2  # documents per d-<n>.js
RESULTS = 10  # results shown per query
CANDIDATES = 30  # ranked documents a query may fetch to fill RESULTS distinct concepts
SNIPPET_CHARS = 240  # text kept per document for the snippet under its result

# Rarity: a word's weight is multiplied by rarity / RARITY_STEPS. A word in more than COMMON_SHARE
# of the documents (and in more than COMMON_MIN_DOCS) weighs less, by the square root of how much
# more; a word of the languages' `search_common_words` (ui.yaml: "the", "и", "what") weighs least.
RARITY_STEPS = 16
COMMON_SHARE = 0.05
COMMON_MIN_DOCS = 10

# Typos: a query word of TYPO_MIN_LETTERS or more that matches no word as typed (nor as its start)
# matches the words one edit away (a letter dropped, added, changed, or two neighbours swapped,
# anywhere, the first letter too) or whose start it then matches as an inflected form does, at
# TYPO_QUALITY × that match's quality, below any exact match; at most TYPO_WORDS of them, to bound
# what it loads. Candidates come from the deletion neighbourhood of the words' heads (TYPO_HEAD
# letters), in typo files of about TYPO_FILE_BYTES each.
TYPO_MIN_LETTERS = 5
TYPO_QUALITY = 0.7
TYPO_WORDS = 4
TYPO_HEAD = 6
TYPO_FILE_BYTES = 2_500

# What kb-search.js reads from meta.js rather than repeating: one source for the client's constants.
RANKING = {
    "results": RESULTS,
    "candidates": CANDIDATES,
    "rarity_steps": RARITY_STEPS,
    "typo_min_letters": TYPO_MIN_LETTERS,
    "typo_quality": TYPO_QUALITY,
    "typo_words": TYPO_WORDS,
    "typo_head": TYPO_HEAD,
}

# Posting heads are strings of unsigned numbers, each written little-end first in 5-bit digits,
# a digit of 32 or more meaning "more digits follow" (the VLQ of source maps, without the sign).
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
DIGIT_VALUE = {c: v for v, c in enumerate(DIGITS)}


QUESTION_KINDS = ("clarification", "example", "calculator", "answer-table")
HOME_KINDS = ("rule", "procedure", "table")  # the kinds of entry that can be a term's own (`SearchIndex.homes`)


# A title of more than SHORT_TITLE words (not counting common words) names more than its concept
# ("Attacker's death range and defender's losses"): it weighs a step less than a short one ("Death ranges").
SHORT_TITLE = 3


def title_weight(kind: str, words: int = 0) -> int:
    """A clarification's, worked example's, calculator's or answer table's title is a question about a
    rule ("Is there a cap on the death range?", "What is this force's death range?"): it weighs like a
    keyword, so that a look-up leads with the rule itself. A title of `words` more than SHORT_TITLE
    weighs a step less."""
    return WEIGHT_KEYWORD if kind in QUESTION_KINDS else WEIGHT_TITLE - STEP * (words > SHORT_TITLE)


class SearchDocument(TypedDict):
    """One document of a language's search index (SearchIndex.documents): what its result shows, and the
    (weight, text) fields its words are found in."""

    url: str
    game: str
    id: str
    title: str
    context: str  # what the result names it within: the game, its chapter
    kind: str
    snippet: str
    fields: list[tuple[int, str]]
    shown: NotRequired[str]  # the language its text is shown in, when not the reader's ("" when it is)


class SearchResult(TypedDict):
    """One result of a query as kb-search.js lists it (`replay`)."""

    doc: int
    url: str
    title: str
    context: str
    kind: str
    id: str
    snippet: str
    score: float
    shown: str


def fold(text: str, folding: dict[str, str]) -> str:
    """NFC, lower case, and letters matched as others (the languages' `folding`, data/languages/)."""
    text = unicodedata.normalize("NFC", text).lower()
    for letter, plain in folding.items():  # a few str.replace calls: 10× faster than str.translate on Cyrillic
        text = text.replace(letter, plain)
    return text


def tokens(text: str, folding: dict[str, str]) -> list[str]:
    return TOKEN.findall(fold(text, folding))


def _plain(markdown: str) -> str:
    return re.sub(r"[*_`#>|]", " ", strip_links(markdown))


# -- the index ------------------------------------------------------------------------------------


class SearchIndex:
    def __init__(self, resolved: Resolved):
        self.r = resolved
        self.kb = resolved.kb
        self.folding = resolved.languages.folding()
        self.defined_by: dict[str, set[str]] = defaultdict(set)  # entry id -> terms naming it their definition
        self.named: dict[tuple[str, str], set[str]] = defaultdict(set)  # (game, lower-case name) -> term ids
        # the players' words (synonyms.yaml) of every language: term id -> words; folded title word -> words
        self.said: dict[str, list[str]] = defaultdict(list)
        self.said_for_word: dict[str, list[str]] = defaultdict(list)
        self._tables: AnswerTables | None = None
        self.inflections = self.glossary_inflections()
        # entry id -> the terms whose definition (the glossary's) it is, a rule, procedure or table: a look-up
        # leads with the rule, not with a component's description, the rulebook's glossary entry, a summary
        # or a question about the rule (their titles weigh as before)
        self.homes: dict[str, list[Term]] = defaultdict(list)
        for term in self.kb.terms.values():
            home = self.kb.entries.get(term.get("definition", ""))
            if home and home["kind"] in HOME_KINDS:
                self.homes[home["id"]].append(term)
        self.common = self.common_words()
        for language in resolved.languages:
            for term_id, words in language.synonyms.get("terms", {}).items():
                self.said[term_id] += words
            for word, words in language.synonyms.get("words", {}).items():
                self.said_for_word[fold(word, self.folding)] += words
        for term in self.kb.terms.values():
            if term.get("definition"):
                self.defined_by[term["definition"]].add(term["id"])
            for name in term["names"].values():
                self.named[self.kb.game_of(term["id"]), name.lower()].add(term["id"])

    def aliases(self, term_ids: Iterable[str]) -> str:
        """Every spelling of the terms (names, variants, forms), in every language."""
        words = []
        for term_id in sorted(term_ids):
            term = self.kb.terms[term_id]
            for lang in self.r.languages.codes:
                words += spellings(term, lang)
            words += self.said.get(term_id, [])
        return " ".join(words)

    def titled(self, titles: Iterable[str]) -> str:
        """Titles with the players' words for their words (synonyms.yaml `words`)."""
        text = " ".join(titles)
        return " ".join([text] + [said for word in tokens(text, self.folding) for said in self.said_for_word.get(word, ())])

    def glossary_inflections(self) -> dict[str, set[str]]:
        """Folded word -> its other inflections, from the glossary: the words standing at the same place in
        a term's name and in its forms of as many words, in one language («Музыкант», «Музыкантов»; «wskaźnik
        Zagrożenia», «wskaźników Zagrożenia»). Variants are other words, not forms: they are left out."""
        inflections: dict[str, set[str]] = defaultdict(set)
        for term in self.kb.terms.values():
            for lang, name in term["names"].items():
                spellings = [tokens(spelling, self.folding) for spelling in [name, *term.get("forms", {}).get(lang, [])]]
                for place in range(len(spellings[0])):
                    family = {words[place] for words in spellings if len(words) == len(spellings[0])}
                    for word in family:
                        inflections[word] |= family - {word}
        return inflections

    def title_inflections(self, titles: Iterable[str]) -> set[str]:
        """The other inflections of the titles' words (`glossary_inflections`) that the titles do not hold."""
        words = set(tokens(" ".join(titles), self.folding))
        return {other for word in words for other in self.inflections.get(word, ())} - words

    def home_words(self, entry: Entry, inflected: set[str]) -> dict[int, set[str]]:
        """Bonus -> words, for an entry that is terms' own (`homes`): the words of each term's name and forms
        that stand in the entry's titles (or are inflections of their words, `inflected`) weigh above any
        title, by a step shared out among the words of the term's name in that language (one word: a step;
        two: half a step each; three or more: nothing), so that a query naming a whole term of one or two
        words leads with its own entry: "ruined regions", «Rules for ruined regions» (the definition of
        "ruined region") before «Five Regions Ruined»; «кубики атаки», «Подсчет количества кубиков атаки»
        before «Кубики атаки» of the component overview, whose shorter title held the words exactly."""
        standing = set(tokens(" ".join(entry["title"].values()), self.folding)) | inflected
        bonus: dict[str, int] = {}
        for term in self.homes.get(entry["id"], ()):
            for lang, name in term["names"].items():
                share = STEP // max(1, len(tokens(name, self.folding)))
                for spelling in [name, *term.get("forms", {}).get(lang, [])]:
                    for word in set(tokens(spelling, self.folding)) & standing:
                        bonus[word] = max(bonus.get(word, 0), share)
        by_bonus: dict[int, set[str]] = defaultdict(set)
        for word, share in bonus.items():
            if share:
                by_bonus[share].add(word)
        return by_bonus

    def defined_terms(self, entry: Entry) -> set[str]:
        """Terms this entry defines: named as its definition, or named like its title."""
        game = self.kb.game_of(entry["id"])
        found = set(self.defined_by.get(entry["id"], ()))
        for title in entry["title"].values():
            found |= self.named.get((game, title.lower()), set())
        return found

    def answer_tables(self) -> AnswerTables:
        """The answer tables (computed once, on the first game that has them)."""
        if self._tables is None:
            self._tables = AnswerTables(self.r)
        return self._tables

    def calculator_documents(self, game: str, reading: Reading, game_title: str) -> Iterator[SearchDocument]:
        """A game's Calculators page, and on it each answer table and calculator: found by the question
        it answers (its title, in every language, with the players' words for its words), the words its
        table is labelled with, and the terms of the rules it computes."""
        names = game_checks(self.r, game)
        if not names:
            return
        # every language's words, which a section's index finds too; `words`: the reader's, which its results show
        ui = {lang: self.r.languages.ui(lang)["calculator"] for lang in self.r.languages.codes}
        words = reading.labels["calculator"]
        texts = self.kb.calculators[game]["checks"]
        titles = [reading.text(texts[name]["title"]) for name in names]
        yield {
            "url": reading.calculators_url(game),
            "game": game,
            "id": f"{game}/calculators",
            "title": words["calculators"],
            "context": game_title,
            "kind": "calculators",
            "snippet": " · ".join(titles),
            "fields": [
                (WEIGHT_TITLE, self.titled(ui[lang][key] for lang in ui for key in ("calculators", "answer_tables"))),
                (WEIGHT_TEXT, " ".join(titles)),
            ],
        }
        tables = {lang: {table.check: table for table in self.answer_tables().of_game(game, lang)} for lang in ui}
        for name, title in zip(names, titles, strict=True):
            computes = set().union(*(self.r.terms_in.get(entry_id, set()) for entry_id in self.kb.checks[game][name]["implements"]))
            question = [(title_weight("calculator"), self.titled(texts[name]["title"].values())), (WEIGHT_MENTIONS, self.aliases(computes))]
            if name in tables[reading.reader]:  # the table first: it answers at a glance, the calculator any case
                table = tables[reading.reader][name]
                labels = " ".join(
                    " ".join(
                        [t[name].row_label, *(label for label, columns in t[name].groups for label in [label, *columns]), ui[lang]["answer_tables"]]
                    )
                    for lang, t in tables.items()
                    if name in t
                )
                yield {
                    "url": reading.calculators_url(game, table.id),
                    "game": game,
                    "id": f"{game}/answer-table/{name}",
                    "title": title,
                    "context": f"{game_title} · {words['answer_tables']}",
                    "kind": "answer-table",
                    "snippet": " · ".join([table.row_label, *(label for label, _ in table.groups)]),
                    "fields": [*question, (WEIGHT_KEYWORD, labels)],
                }
            yield {
                "url": reading.calculators_url(game, calculator_anchor(name)),
                "game": game,
                "id": f"{game}/calculator/{name}",
                "title": title,
                "context": f"{game_title} · {words['heading']}",
                "kind": "calculator",
                "snippet": "",
                "fields": [*question, (WEIGHT_TEXT, " ".join(ui[lang]["heading"] for lang in ui))],
            }

    def title_words(self, title: str) -> int:
        """How many words a title has, common words left out."""
        return sum(word not in self.common for word in tokens(title, self.folding))

    def common_words(self) -> frozenset[str]:
        """Every language's `search_common_words`, folded: each section's index holds words of all."""
        return frozenset(fold(word, self.folding) for lang in self.r.languages for word in lang.ui.get("search_common_words", ()))

    def documents(self, reading: Reading) -> Iterable[SearchDocument]:
        """The reader's documents in a fixed order (their numbers), one at a time; a game's
        documents are consecutive."""
        reader = reading.reader
        for game in self.r.games():
            if reader not in game["languages"]:
                continue
            game_title = reading.text(game["title"])
            for chapter in self.kb.chapters_of(game["id"]):
                chapter_title = chapter.data["title"][reading.shown_language(chapter.data)]
                for entry_id in chapter.entry_ids:
                    entry = self.kb.entries[entry_id]
                    shown = reading.shown_language(entry)
                    defines = self.defined_terms(entry)
                    mentions = self.r.terms_in.get(entry_id, set()) - defines
                    text = _plain(entry["text"][shown])
                    weight = title_weight(entry["kind"], self.title_words(entry["title"][shown]))
                    # a question's title weighs like a keyword, so that the rule leads: not its inflections too
                    inflected = self.title_inflections(entry["title"].values()) if entry["kind"] not in QUESTION_KINDS else set()
                    yield {
                        "url": reading.url(entry_id),
                        "game": game["id"],
                        "shown": shown if shown != reader else "",
                        "id": entry_id,
                        "title": entry["title"][shown],
                        "context": f"{game_title} · {chapter_title}",
                        "kind": entry["kind"],
                        "snippet": text,
                        "fields": [
                            (weight, self.titled(entry["title"].values())),
                            (weight - HALF_STEP, " ".join(sorted(inflected))),
                            *((WEIGHT_TITLE + bonus, " ".join(sorted(words))) for bonus, words in sorted(self.home_words(entry, inflected).items())),
                            (WEIGHT_DEFINES, self.aliases(defines)),
                            (WEIGHT_KEYWORD, " ".join(w for words in entry.get("keywords", {}).values() for w in words)),
                            (WEIGHT_MENTIONS, self.aliases(mentions)),
                            (WEIGHT_TEXT, text + " " + chapter_title),
                        ],
                    }
            yield from self.calculator_documents(game["id"], reading, game_title)
            for term in self.kb.terms_of(game["id"]):
                name = reading.text(term["names"])
                others = [n for lang, n in sorted(term["names"].items()) if n and n != name]
                shown = reading.pick([lang for lang, n in term["names"].items() if n])
                yield {
                    "url": reading.url(term["id"]),
                    "game": game["id"],
                    "shown": shown if shown != reader else "",
                    "id": term["id"],
                    "title": name,
                    "context": f"{game_title} · {reading.labels['glossary']}",
                    "kind": "glossary",
                    "snippet": " · ".join(others),
                    "fields": [(WEIGHT_GLOSSARY, self.aliases({term["id"]}))],
                }

    def build(self, reading: Reading) -> dict[str, str]:
        """File name (under search/<lang>/) -> JavaScript content."""
        return index_files(self.documents(reading), self.folding, self.common_words())

    def all_files(self) -> dict[str, str]:
        files = {f"search/{lang}/{name}": content for lang in self.r.languages.codes for name, content in self.build(self.r.reading(lang)).items()}
        files["assets/kb-languages.js"] = self.languages_script()
        return files

    def languages_script(self) -> str:
        """assets/kb-languages.js: the languages, their folding and labels, and each section's games, for kb-search.js."""
        games = {lang: [g["id"] for g in self.r.games() if lang in g["languages"]] for lang in self.r.languages.codes}
        return self.r.languages.script_config(games)


def word_weights(fields: list[tuple[int, str]], folding: dict[str, str]) -> dict[str, int]:
    """A word's weight in a document, from its (weight, text) fields: the highest field it stands in;
    in body text (WEIGHT_TEXT), its count (capped)."""
    weights: dict[str, int] = defaultdict(int)
    for field_weight, text in fields:
        if field_weight == WEIGHT_TEXT:
            for word in tokens(text, folding):
                weights[word] = min(weights[word] + WEIGHT_TEXT, MAX_TEXT_WEIGHT)
    for field_weight, text in fields:
        if field_weight != WEIGHT_TEXT:
            for word in tokens(text, folding):
                weights[word] = max(weights[word], field_weight)
    return weights


def snippet(text: str) -> str:
    """The start of a document's text for its result: whitespace collapsed, cut at a word."""
    text = " ".join(text.split())
    if len(text) <= SNIPPET_CHARS:
        return text
    cut = text[:SNIPPET_CHARS]
    return cut[: cut.rfind(" ")] + " …" if " " in cut else cut + "…"


def rarity(documents_with_word: int, documents: int, common: bool) -> int:
    """A word's rarity, 1..RARITY_STEPS (see COMMON_SHARE)."""
    if common:
        return 1
    usual = max(COMMON_SHARE * documents, COMMON_MIN_DOCS)
    if documents_with_word <= usual:
        return RARITY_STEPS
    return max(1, round(RARITY_STEPS * math.sqrt(usual / documents_with_word)))


def typo_keys(word: str) -> list[str]:
    """The deletion neighbourhood of a word's head (its first TYPO_HEAD letters): the head with one
    letter deleted, and its first TYPO_HEAD - 1 letters. Two words one edit apart (or whose heads
    are) share a key: a changed letter deleted in both, a dropped one deleted in the other, two
    swapped neighbours each deleted once."""
    head = word[:TYPO_HEAD]
    keys = [head[:i] + head[i + 1 :] for i in range(len(head))] + [head[: TYPO_HEAD - 1]]
    return [key for n, key in enumerate(keys) if key not in keys[:n]]


def typo_file(key: str, files: int) -> int:
    """The typo file of a key: its FNV-1a hash over code points, modulo the number of files."""
    h = 2166136261
    for char in key:
        h = ((h ^ ord(char)) * 16777619) & 0xFFFFFFFF
    return h % files


def index_files(docs: Iterable[SearchDocument], folding: dict[str, str], common: frozenset[str] = frozenset()) -> dict[str, str]:
    """The index files of a language's documents (dicts as `SearchIndex.documents` yields them)."""
    rows = []
    heads: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))  # word -> weight -> docs
    counts: dict[str, int] = defaultdict(int)  # word -> documents holding it
    games: dict[str, list[int]] = {}  # game -> [first document, after its last]
    for number, doc in enumerate(docs):
        rows.append(
            [doc["url"], doc["title"], doc["context"], doc["kind"], doc["id"], snippet(doc.get("snippet", ""))]
            + ([doc["shown"]] if doc.get("shown") else [])
        )
        if "game" in doc:
            games.setdefault(doc["game"], [number, number])[1] = number + 1
        demotion = FALLBACK_DEMOTION if doc.get("shown") else 0
        for word, weight in word_weights(doc["fields"], folding).items():
            weight = max(WEIGHT_TEXT, weight - demotion)
            counts[word] += 1
            same_weight = heads[word][weight]
            # Documents come in increasing number, so the first HEAD_POSTINGS of a weight are its
            # best; later ones could never enter the head. This also bounds memory at any size.
            if len(same_weight) < HEAD_POSTINGS:
                same_weight.append(number)
    entries = sorted(
        ((word, encode_head(rarity(counts[word], len(rows), word in common), by_weight)) for word, by_weight in heads.items()),
        key=lambda e: utf16(e[0]),
    )
    shards = pack(entries, MAX_SHARD_BYTES)
    files = {f"s-{n}.js": _js("s", str(n), dict(shard)) for n, shard in enumerate(shards)}
    neighbours: dict[str, list[str]] = defaultdict(list)
    for word, _ in entries:
        if len(word) >= TYPO_MIN_LETTERS:
            for key in typo_keys(word):
                neighbours[key].append(word)
    size = sum(len(key.encode("utf-8")) + sum(len(w.encode("utf-8")) + 1 for w in words) + 4 for key, words in neighbours.items())
    typo_files = max(1, math.ceil(size / TYPO_FILE_BYTES))
    parts: list[dict[str, str]] = [{} for _ in range(typo_files)]
    for key in sorted(neighbours, key=utf16):
        parts[typo_file(key, typo_files)][key] = " ".join(neighbours[key])
    files |= {f"t-{n}.js": _js("t", str(n), part) for n, part in enumerate(parts)}
    for start in range(0, len(rows), DOCS_PER_CHUNK):
        files[f"d-{start // DOCS_PER_CHUNK}.js"] = _js("d", str(start // DOCS_PER_CHUNK), rows[start : start + DOCS_PER_CHUNK])
    files["meta.js"] = _js(
        "m",
        "meta",
        {
            "docs": len(rows),
            "per_chunk": DOCS_PER_CHUNK,
            "games": games,
            "shards": [shard[0][0] for shard in shards],
            "typos": typo_files,
            "ranking": RANKING,
        },
    )
    return files


def encode_head(rarity: int, by_weight: dict[int, list[int]]) -> str:
    """A word's rarity, then its best HEAD_POSTINGS documents: per weight, highest first, the
    weight, how many documents, then their numbers as differences from the one before (the first from 0)."""
    numbers, left = [rarity], HEAD_POSTINGS
    for weight in sorted(by_weight, reverse=True):
        docs = by_weight[weight][:left]
        left -= len(docs)
        numbers += [weight, len(docs)] + [doc - before for doc, before in zip(docs, [0] + docs[:-1], strict=True)]
        if not left:
            break
    return encode_numbers(numbers)


def decode_head(text: str) -> tuple[int, list[tuple[int, int]]]:
    """The rarity and the (document, weight) pairs of an encoded head, best first."""
    numbers, postings, i = decode_numbers(text), [], 1
    while i < len(numbers):
        weight, count, doc = numbers[i], numbers[i + 1], 0
        for delta in numbers[i + 2 : i + 2 + count]:
            doc += delta
            postings.append((doc, weight))
        i += 2 + count
    return numbers[0], postings


def encode_numbers(numbers: Iterable[int]) -> str:
    out = []
    for n in numbers:
        while n >= 32:
            out.append(DIGITS[32 + (n & 31)])
            n >>= 5
        out.append(DIGITS[n])
    return "".join(out)


def decode_numbers(text: str) -> list[int]:
    numbers, value, shift = [], 0, 0
    for char in text:
        digit = DIGIT_VALUE[char]
        value += (digit & 31) << shift
        if digit >= 32:
            shift += 5
        else:
            numbers.append(value)
            value = shift = 0
    return numbers


def utf16(word: str) -> bytes:
    """Sort key: JavaScript compares strings by UTF-16 code units, so the index is sorted that way."""
    return word.encode("utf-16-be")


def pack(entries: list[tuple[str, Any]], cap: int) -> list[list[tuple[str, Any]]]:
    """Sorted (key, value) pairs cut into runs whose file (a JSON object) stays within `cap` bytes.
    (A single pair bigger than that gets a file of its own: heads are capped, so no shard's is.)"""
    room = cap - len(_js("s", "999999", {}).encode("utf-8"))
    files: list[list[tuple[str, Any]]] = []
    size = room
    for key, value in entries:
        cost = len(json.dumps([key, value], ensure_ascii=False, separators=(",", ":")).encode("utf-8"))  # ["k",v] ~ "k":v,
        if size + cost > room and (not files or files[-1]):
            files.append([])
            size = 0
        files[-1].append((key, value))
        size += cost
    return files


def _js(kind: str, key: str, payload: JSON) -> str:
    return f"kbSearchChunk({js_literal(kind)},{js_literal(key)},{js_literal(payload)});\n"


def script_config(script: str) -> JSONObject:
    """The payload of assets/kb-languages.js (Languages.script_config), for Python replays."""
    config: JSONObject = json.loads(script[script.index("=") + 1 : script.rindex(";")])
    return config


def payload_of(script: str) -> JSON:
    """The payload of an index file (the inverse of `_js`)."""
    return json.loads(script[script.index(",", script.index(",") + 1) + 1 : script.rindex(")")])


# -- the client, in Python ------------------------------------------------------------------------


def query_words(text: str, folding: dict[str, str]) -> list[str]:
    return [w for w in tokens(text, folding) if len(w) >= 2]


def quality(query: str, word: str) -> float:
    """How well an index word matches a query word: exact 1; the query is the start of the
    word 0.8; a shared start that leaves at most 3 letters of the query unmatched 0.6 × the
    shared share + 0.2."""
    if query == word:
        return 1.0
    p, n = 0, min(len(query), len(word))
    while p < n and query[p] == word[p]:
        p += 1
    if p == len(query) and p >= 3:
        return 0.8
    if p >= 4 and p >= len(query) - 3:
        return 0.6 * p / max(len(query), len(word)) + 0.2
    return 0.0


def corrected(query: str, word: str) -> float:
    """The best quality of the query word one edit away, made where it first differs from the index
    word (a letter changed, dropped, added, or two neighbours swapped); 0 when none matches."""
    p = 0
    while p < min(len(query), len(word)) and query[p] == word[p]:
        p += 1
    edits = [query[:p] + query[p + 1 :], query[:p] + query[p + 1 : p + 2] + query[p : p + 1] + query[p + 2 :]]
    if p < len(word):
        edits += [query[:p] + word[p] + query[p + 1 :], query[:p] + word[p] + query[p:]]
    return max((quality(edit, word) for edit in edits if edit != query), default=0.0)


def file_for(firsts: list[str], key: str) -> int | None:
    """The file of a sorted, packed run where `key` would stand (None: before the first)."""
    found = None
    for n, first in enumerate(firsts):
        if utf16(first) > utf16(key):
            break
        found = n
    return found


def shards_for(firsts: list[str], query: str) -> list[int]:
    """The shards that can hold a word `quality` matches with the query word. Any such word
    starts with the query's first max(4, length - 3) letters (a query of two letters matches
    only itself): the shard where that prefix would stand and every later one beginning with it."""
    if not firsts:
        return []
    prefix = query[: max(4, len(query) - 3)]
    wanted = [file_for(firsts, prefix) or 0]
    if len(query) >= 3:
        while wanted[-1] + 1 < len(firsts) and firsts[wanted[-1] + 1].startswith(prefix):
            wanted.append(wanted[-1] + 1)
    return wanted


def matches(query: str, shards: Iterable[dict[str, str]]) -> list[tuple[float, str]]:
    """(quality, head) of every word of the shards that matches the query word."""
    return [(q, head) for shard in shards for word, head in shard.items() if (q := quality(query, word))]


def needs_typos(query: str, found: list[tuple[float, str]]) -> bool:
    """A long word that matches no word as typed, nor as the start of one."""
    return len(query) >= TYPO_MIN_LETTERS and not any(q >= 0.8 for q, _ in found)


def typo_parts(query: str, files: int) -> list[int]:
    """The typo files that hold the query word's keys."""
    return sorted({typo_file(key, files) for key in typo_keys(query)})


def typo_words(query: str, files: int, part: Callable[[int], dict[str, str]]) -> list[tuple[float, str]]:
    """(quality, word) of the TYPO_WORDS words the query word matches best one edit away (see
    `corrected`; ties to the earlier word in index order), from the typo files of its keys (`part(n)`:
    the payload of t-<n>.js, of `files`)."""
    near = {word for key in typo_keys(query) for word in part(typo_file(key, files)).get(key, "").split()}
    best = sorted(((q, word) for word in near if (q := corrected(query, word))), key=lambda e: (-e[0], utf16(e[1])))
    return best[:TYPO_WORDS]


def rank(found: list[list[tuple[float, str]]], scope: tuple[int, int] | None = None) -> list[tuple[int, float]]:
    """The top CANDIDATES (document, score). Per query word, a document's best quality × weight ×
    rarity over the index words it matches (found[i]: (quality, head) of words[i]'s matches);
    summed over query words, times the square of the share of the query it matched, each query
    word counting by its rarity (a common word barely counts). With a scope (a game's documents,
    first and after the last), its documents come first."""
    scores: dict[int, float] = {}
    covered: dict[int, float] = {}
    total = 0.0
    for entries in found:
        best: dict[int, float] = {}
        share = 1.0
        for q, head in entries:
            rare, postings = decode_head(head)
            if q == 1:
                share = rare / RARITY_STEPS
            for doc, weight in postings:
                best[doc] = max(best.get(doc, 0), q * weight * rare / RARITY_STEPS)
        total += share
        for doc, score in best.items():
            scores[doc] = scores.get(doc, 0) + score
            covered[doc] = covered.get(doc, 0) + share
    ranked = [(doc, score * (covered[doc] / total) * (covered[doc] / total)) for doc, score in scores.items()]
    first, after = scope or (0, 0)
    return sorted(ranked, key=lambda r: (not first <= r[0] < after, -r[1], r[0]))[:CANDIDATES]


def concept(title: str, folding: dict[str, str]) -> str:
    """A title's concept: its words without what stands in brackets («Брод (ландшафт)», «брод»: «брод»)."""
    return " ".join(tokens(re.sub(r"\([^)]*\)", " ", title), folding))


def replay(text: str, fetch: Callable[[str], Any], folding: dict[str, str], game: str | None = None) -> list[SearchResult]:
    """What kb-search.js does for a query, on a page of `game` (its results first) or on none:
    `fetch(name)` gives the payload of one index file of the language (meta.js, s-<n>.js, t-<n>.js,
    d-<n>.js), in the order the browser loads them; `folding` is the languages' (assets/kb-languages.js,
    see `script_config`). Returns the results, one per concept (title) and game; `shown`: the language of a
    result shown in a fallback language ("" when in the reader's)."""
    words = query_words(text, folding)
    if not words:
        return []
    meta = fetch("meta.js")
    loaded = _Loaded(fetch)
    found = _found(words, meta, loaded)
    _add_near_words(found, words, meta, loaded)
    ranked = rank(found, tuple(meta["games"][game]) if game in meta["games"] else None)
    return _results(ranked, meta, loaded, folding)


class _Loaded:
    """The index files a replay has fetched, by name (kb-search.js's `loaded`)."""

    def __init__(self, fetch: Callable[[str], Any]) -> None:
        self.fetch = fetch
        self.files: dict[str, Any] = {}

    def load(self, names: Iterable[str]) -> None:
        """Fetch the files not fetched yet, as the browser loads them (see `_file_order`)."""
        for name in sorted(set(names) - self.files.keys(), key=_file_order):
            self.files[name] = self.fetch(name)

    def __getitem__(self, name: str) -> Any:
        return self.files[name]


def _shard_file(meta: Any, word: str) -> str:
    """The shard where an index word stands."""
    return f"s-{file_for(meta['shards'], word)}.js"


def _chunk_file(meta: Any, doc: int) -> str:
    """The document chunk that holds a document."""
    return f"d-{doc // meta['per_chunk']}.js"


def _found(words: list[str], meta: Any, loaded: _Loaded) -> list[list[tuple[float, str]]]:
    """(quality, head) of the index words each query word matches, from the shards that can hold them."""
    wanted = [[f"s-{n}.js" for n in shards_for(meta["shards"], word)] for word in words]
    loaded.load(name for names in wanted for name in names)
    return [matches(word, [loaded[name] for name in names]) for word, names in zip(words, wanted, strict=True)]


def _add_near_words(found: list[list[tuple[float, str]]], words: list[str], meta: Any, loaded: _Loaded) -> None:
    """For a long query word that matches nothing as typed (`needs_typos`), add the index words one
    edit away from it (`typo_words`, from its typo files) at TYPO_QUALITY × their quality, with their
    heads from their shards."""
    slips = [i for i, word in enumerate(words) if needs_typos(word, found[i])]
    loaded.load(f"t-{n}.js" for i in slips for n in typo_parts(words[i], meta["typos"]))
    near = {i: typo_words(words[i], meta["typos"], lambda n: loaded[f"t-{n}.js"]) for i in slips}
    loaded.load(_shard_file(meta, word) for words_near in near.values() for _, word in words_near)
    for i, words_near in near.items():
        found[i] += [(TYPO_QUALITY * q, loaded[_shard_file(meta, word)][word]) for q, word in words_near]


def _results(ranked: list[tuple[int, float]], meta: Any, loaded: _Loaded, folding: dict[str, str]) -> list[SearchResult]:
    """The first RESULTS ranked documents of distinct concepts (titles) per game (kb-search.js's `more`):
    the chunks of as many documents as results are still wanted load at a time, until there are
    enough results or no documents left."""
    results: list[SearchResult] = []
    seen: set[str] = set()
    done = 0
    while len(results) < RESULTS and done < len(ranked):
        batch = ranked[done : done + RESULTS - len(results)]
        done += len(batch)
        loaded.load(_chunk_file(meta, doc) for doc, _ in batch)
        for doc, score in batch:
            result = _result(doc, score, loaded[_chunk_file(meta, doc)][doc % meta["per_chunk"]])
            key = result["id"].split("/", 1)[0] + "\n" + concept(result["title"], folding)
            if key not in seen:
                seen.add(key)
                results.append(result)
    return results


def _result(doc: int, score: float, row: list[str]) -> SearchResult:
    """A result from its document's row in a chunk: url, title, context, kind, entry id, the start of
    its text, and the language it is shown in when that is not the reader's."""
    url, title, context, kind, entry_id, text_start, *shown = row
    return {
        "doc": doc,
        "url": url,
        "title": title,
        "context": context,
        "kind": kind,
        "id": entry_id,
        "snippet": text_start,
        "score": score,
        "shown": shown[0] if shown else "",
    }


def _file_order(name: str) -> tuple[int, int]:
    """Index files load kind by kind (shards, typo files, document chunks), by number within a kind."""
    return "std".index(name[0]), int(name[2:-3])
