"""Stage 4b, render the search index: per language, in small files loadable by <script> tags.

Why our own index rather than Material's lunr or Pagefind (see README, "Search"):
  - it must work opened from disk (file://), where fetch() of index files is blocked;
    script tags are not, so every index file is a small JavaScript call;
  - words are matched by a shared prefix that tolerates inflected endings
    (отступил ~ отступление, spustoszonych ~ spustoszone, retreating ~ retreat), with
    Polish diacritics and ё folded for matching only (the text keeps every letter);
  - cross-language look-up comes from the glossary: each entry is indexed, in every
    language, with the names, variants and forms of the terms it mentions.

What a query downloads must stay small however many games there are, so per language:
  - meta.js (loaded once) holds the document count and the first word of every shard;
  - s-<n>.js, a shard: a run of words in sorted order, at most MAX_SHARD_BYTES, each word with
    its head of postings: its HEAD_POSTINGS best documents by weight, compactly encoded;
  - d-<n>.js: titles and links of DOCS_PER_CHUNK documents, fetched for the results shown.
A query word loads only the shards that can hold words it matches (see `shards_for`).

assets/kb-search.js does the same folding, tokenising, matching and ranking; `replay` below is
that client in Python (used by the bench and the tests), so the two must change together.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from .model import Entry
from .resolve import Resolved
from .textmatch import strip_links

TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# A word's weight in a document, by where it stands. An entry's own title and the terms it defines
# outrank keywords, which outrank terms it merely mentions; body text counts by frequency, capped.
WEIGHT_TITLE, WEIGHT_DEFINES, WEIGHT_KEYWORD, WEIGHT_GLOSSARY, WEIGHT_MENTIONS, WEIGHT_TEXT = 8, 7, 6, 5, 2, 1
MAX_TEXT_WEIGHT = 3

HEAD_POSTINGS = 100        # documents kept per word: the best by weight, ties to the lower number
MAX_SHARD_BYTES = 8_000    # a shard file's size cap
DOCS_PER_CHUNK = 8         # documents per d-<n>.js
RESULTS = 10               # results shown, so document chunks fetched, per query

# Posting heads are strings of unsigned numbers, each written little-end first in 5-bit digits,
# a digit of 32 or more meaning "more digits follow" (the VLQ of source maps, without the sign).
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
DIGIT_VALUE = {c: v for v, c in enumerate(DIGITS)}


def title_weight(kind: str) -> int:
    """A clarification's or worked example's title is a question about a rule ("Is there a cap on
    the death range?"): it weighs like a keyword, so that a look-up leads with the rule itself."""
    return WEIGHT_KEYWORD if kind in ("clarification", "example") else WEIGHT_TITLE


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
        self.defined_by: dict[str, set[str]] = defaultdict(set)      # entry id -> terms naming it their definition
        self.named: dict[tuple[str, str], set[str]] = defaultdict(set)  # (game, lower-case name) -> term ids
        for term in self.kb.terms.values():
            if term.get("definition"):
                self.defined_by[term["definition"]].add(term["id"])
            for name in term["names"].values():
                self.named[self.kb.game_of(term["id"]), name.lower()].add(term["id"])

    def aliases(self, term_ids) -> str:
        """Names, variants and forms of the terms, in every language."""
        words = []
        for term_id in sorted(term_ids):
            term = self.kb.terms[term_id]
            for lang in self.r.languages.codes:
                words.append(term["names"].get(lang, ""))
                words += term.get("variants", {}).get(lang, []) + term.get("forms", {}).get(lang, [])
        return " ".join(words)

    def defined_terms(self, entry: Entry) -> set[str]:
        """Terms this entry defines: named as its definition, or named like its title."""
        game = self.kb.game_of(entry["id"])
        found = set(self.defined_by.get(entry["id"], ()))
        for title in entry["title"].values():
            found |= self.named.get((game, title.lower()), set())
        return found

    def documents(self, reader: str) -> Iterable[dict]:
        """The reader's documents in a fixed order (their numbers), one at a time."""
        for game in self.r.games():
            if reader not in game["languages"]:
                continue
            game_title = self.r.text_in(game["title"], reader)
            for chapter in self.kb.chapters_of(game["id"]):
                chapter_title = chapter.data["title"][self.r.display_language(chapter.data, reader)]
                for entry_id in chapter.entry_ids:
                    entry = self.kb.entries[entry_id]
                    shown = self.r.display_language(entry, reader)
                    defines = self.defined_terms(entry)
                    mentions = self.r.terms_in.get(entry_id, set()) - defines
                    yield {
                        "url": self.r.url_of(entry_id, reader),
                        "id": entry_id, "title": entry["title"][shown], "context": f"{game_title} · {chapter_title}",
                        "kind": entry["kind"],
                        "fields": {
                            title_weight(entry["kind"]): " ".join(entry["title"].values()),
                            WEIGHT_DEFINES: self.aliases(defines),
                            WEIGHT_KEYWORD: " ".join(w for words in entry.get("keywords", {}).values() for w in words),
                            WEIGHT_MENTIONS: self.aliases(mentions),
                            WEIGHT_TEXT: _plain(entry["text"][shown]) + " " + chapter_title,
                        },
                    }
            for term in self.kb.terms_of(game["id"]):
                name = self.r.text_in(term["names"], reader)
                yield {
                    "url": self.r.url_of(term["id"], reader),
                    "id": term["id"], "title": name, "context": f"{game_title} · {self.r.languages.ui(reader)['glossary']}", "kind": "glossary",
                    "fields": {WEIGHT_GLOSSARY: self.aliases({term["id"]}), WEIGHT_TEXT: ""},
                }

    def build(self, reader: str) -> dict[str, str]:
        """File name (under search/<lang>/) -> JavaScript content."""
        return index_files(self.documents(reader), self.folding)

    def all_files(self) -> dict[str, str]:
        files = {f"search/{lang}/{name}": content for lang in self.r.languages.codes for name, content in self.build(lang).items()}
        games = {lang: [g["id"] for g in self.r.games() if lang in g["languages"]] for lang in self.r.languages.codes}
        files["assets/kb-languages.js"] = self.r.languages.script_config(games)
        return files


def word_weights(fields: dict[int, str], folding: dict[str, str]) -> dict[str, int]:
    """A word's weight in a document: the highest field it stands in; in body text, its count (capped)."""
    weights: dict[str, int] = defaultdict(int)
    for word in tokens(fields.get(WEIGHT_TEXT, ""), folding):
        weights[word] = min(weights[word] + 1, MAX_TEXT_WEIGHT)
    for field_weight, text in fields.items():
        if field_weight != WEIGHT_TEXT:
            for word in tokens(text, folding):
                weights[word] = max(weights[word], field_weight)
    return weights


def index_files(docs: Iterable[dict], folding: dict[str, str]) -> dict[str, str]:
    """The index files of a language's documents (dicts as `SearchIndex.documents` yields them)."""
    rows = []
    heads: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))  # word -> weight -> docs
    for number, doc in enumerate(docs):
        rows.append([doc["url"], doc["title"], doc["context"], doc["kind"], doc["id"]])
        for word, weight in word_weights(doc["fields"], folding).items():
            same_weight = heads[word][weight]
            # Documents come in increasing number, so the first HEAD_POSTINGS of a weight are its
            # best; later ones could never enter the head. This also bounds memory at any size.
            if len(same_weight) < HEAD_POSTINGS:
                same_weight.append(number)
    entries = sorted(((word, encode_head(by_weight)) for word, by_weight in heads.items()), key=lambda e: utf16(e[0]))
    shards = pack_shards(entries)
    files = {f"s-{n}.js": _js("s", str(n), dict(shard)) for n, shard in enumerate(shards)}
    for start in range(0, len(rows), DOCS_PER_CHUNK):
        files[f"d-{start // DOCS_PER_CHUNK}.js"] = _js("d", str(start // DOCS_PER_CHUNK), rows[start:start + DOCS_PER_CHUNK])
    files["meta.js"] = _js("m", "meta", {"docs": len(rows), "per_chunk": DOCS_PER_CHUNK,
                                         "shards": [shard[0][0] for shard in shards]})
    return files


def encode_head(by_weight: dict[int, list[int]]) -> str:
    """A word's best HEAD_POSTINGS documents: per weight, highest first, the weight, how many
    documents, then their numbers as differences from the one before (the first from 0)."""
    numbers, left = [], HEAD_POSTINGS
    for weight in sorted(by_weight, reverse=True):
        docs = by_weight[weight][:left]
        left -= len(docs)
        numbers += [weight, len(docs)] + [doc - before for doc, before in zip(docs, [0] + docs[:-1], strict=True)]
        if not left:
            break
    return encode_numbers(numbers)


def decode_head(text: str) -> list[tuple[int, int]]:
    """(document, weight) pairs of an encoded head, best first."""
    numbers, postings, i = decode_numbers(text), [], 0
    while i < len(numbers):
        weight, count, doc = numbers[i], numbers[i + 1], 0
        for delta in numbers[i + 2:i + 2 + count]:
            doc += delta
            postings.append((doc, weight))
        i += 2 + count
    return postings


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


def pack_shards(entries: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """Sorted (word, head) pairs cut into runs whose shard file stays within MAX_SHARD_BYTES.
    (A single word bigger than that would get a shard of its own; heads are capped, so none is.)"""
    room = MAX_SHARD_BYTES - len(_js("s", "999999", {}).encode("utf-8"))
    shards: list[list[tuple[str, str]]] = []
    size = room
    for word, head in entries:
        cost = len(json.dumps(word, ensure_ascii=False).encode("utf-8")) + len(head) + 4  # "word":"head",
        if size + cost > room:
            shards.append([])
            size = 0
        shards[-1].append((word, head))
        size += cost
    return shards


def _js(kind: str, key: str, payload) -> str:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    # JSON inside a script: "</" must not close the tag early.
    body = body.replace("</", "<\\/")
    return f"kbSearchChunk({json.dumps(kind)},{json.dumps(key)},{body});\n"


def script_config(script: str) -> dict:
    """The payload of assets/kb-languages.js (Languages.script_config), for Python replays."""
    return json.loads(script[script.index("=") + 1:script.rindex(";")])


def payload_of(script: str):
    """The payload of an index file (the inverse of `_js`)."""
    return json.loads(script[script.index(",", script.index(",") + 1) + 1:script.rindex(")")])


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


def shards_for(firsts: list[str], query: str) -> list[int]:
    """The shards that can hold a word `quality` matches with the query word. Any such word
    starts with the query's first max(4, length - 3) letters (a query of two letters matches
    only itself): the shard where that prefix would stand and every later one beginning with it."""
    if not firsts:
        return []
    prefix = query[:max(4, len(query) - 3)]
    start = 0
    while start + 1 < len(firsts) and utf16(firsts[start + 1]) <= utf16(prefix):
        start += 1
    wanted = [start]
    if len(query) >= 3:
        while wanted[-1] + 1 < len(firsts) and firsts[wanted[-1] + 1].startswith(prefix):
            wanted.append(wanted[-1] + 1)
    return wanted


def rank(words: list[str], candidates: list[Iterable[tuple[str, str]]]) -> list[tuple[int, float]]:
    """The top RESULTS (document, score): per query word, a document's best quality × weight over
    the index words it matches (candidates[i]: (word, head) pairs of the shards of words[i]);
    summed over query words, times the square of the share of query words it matched."""
    scores: dict[int, float] = {}
    matched: dict[int, int] = {}
    for query, entries in zip(words, candidates, strict=True):
        best: dict[int, float] = {}
        for word, head in entries:
            q = quality(query, word)
            if q:
                for doc, weight in decode_head(head):
                    best[doc] = max(best.get(doc, 0), q * weight)
        for doc, score in best.items():
            scores[doc] = scores.get(doc, 0) + score
            matched[doc] = matched.get(doc, 0) + 1
    ranked = []
    for doc, score in scores.items():
        coverage = matched[doc] / len(words)
        ranked.append((doc, score * coverage * coverage))
    return sorted(ranked, key=lambda r: (-r[1], r[0]))[:RESULTS]


def replay(text: str, fetch: Callable[[str], Any], folding: dict[str, str]) -> list[dict]:
    """What kb-search.js does for a query: `fetch(name)` gives the payload of one index file of the
    language (meta.js, s-<n>.js, d-<n>.js), in the order the browser loads them; `folding` is the
    languages' (assets/kb-languages.js, see `script_config`). Returns the results."""
    words = query_words(text, folding)
    if not words:
        return []
    meta = fetch("meta.js")
    wanted = [shards_for(meta["shards"], word) for word in words]
    shards = {n: fetch(f"s-{n}.js") for n in sorted({n for ns in wanted for n in ns})}
    ranked = rank(words, [[entry for n in ns for entry in shards[n].items()] for ns in wanted])
    chunks = {n: fetch(f"d-{n}.js") for n in sorted({doc // meta["per_chunk"] for doc, _ in ranked})}
    results = []
    for doc, score in ranked:
        url, title, context, kind, entry_id = chunks[doc // meta["per_chunk"]][doc % meta["per_chunk"]]
        results.append({"doc": doc, "url": url, "title": title, "context": context, "kind": kind, "id": entry_id, "score": score})
    return results
