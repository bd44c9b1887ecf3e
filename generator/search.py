"""Stage 4b, render the search index: per language, chunked, loadable by <script> tags.

Why our own index rather than Material's lunr or Pagefind (see README, "Search"):
  - it must work opened from disk (file://), where fetch() of index files is blocked;
    script tags are not, so every index file is a small JavaScript call;
  - words are matched by a shared prefix that tolerates inflected endings
    (отступил ~ отступление, spustoszonych ~ spustoszone, retreating ~ retreat), with
    Polish diacritics and ё folded for matching only (the text keeps every letter);
  - cross-language look-up comes from the glossary: each entry is indexed, in every
    language, with the names, variants and forms of the terms it mentions;
  - chunks by the first two letters of a word keep what one query downloads small.
The same folding and tokenising rules are implemented in assets/kb-search.js.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict

from .labels import LABELS
from .resolve import LANGUAGES, Resolved, slug_of
from .textmatch import strip_links

FOLD = str.maketrans({"ą": "a", "ć": "c", "ę": "e", "ł": "l", "ń": "n", "ó": "o", "ś": "s", "ź": "z", "ż": "z", "ё": "е"})
TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
DOCS_PER_CHUNK = 100
# A word's weight in a document, by where it stands. An entry's own title and the terms it defines
# outrank keywords, which outrank terms it merely mentions; body text counts by frequency, capped.
WEIGHT_TITLE, WEIGHT_DEFINES, WEIGHT_KEYWORD, WEIGHT_GLOSSARY, WEIGHT_MENTIONS, WEIGHT_TEXT = 8, 7, 6, 5, 2, 1
MAX_TEXT_WEIGHT = 3


def fold(text: str) -> str:
    return text.lower().translate(FOLD)


def tokens(text: str) -> list[str]:
    return TOKEN.findall(fold(text))


def chunk_key(word: str) -> str:
    return word[:2].encode("utf-8").hex()


def _plain(markdown: str) -> str:
    return re.sub(r"[*_`#>|]", " ", strip_links(markdown))


class SearchIndex:
    def __init__(self, resolved: Resolved):
        self.r = resolved
        self.kb = resolved.kb

    def aliases(self, term_ids) -> str:
        """Names, variants and forms of the terms, in every language."""
        words = []
        for term_id in sorted(term_ids):
            term = self.kb.terms[term_id]
            for lang in LANGUAGES:
                words.append(term["names"].get(lang, ""))
                words += term.get("variants", {}).get(lang, []) + term.get("forms", {}).get(lang, [])
        return " ".join(words)

    def defined_terms(self, entry: dict) -> set[str]:
        """Terms this entry defines: named as its definition, or named like its title."""
        titles = {t.lower() for t in entry["title"].values()}
        game = self.kb.game_of(entry["id"])
        return {t["id"] for t in self.kb.terms_of(game)
                if t.get("definition") == entry["id"] or any(n.lower() in titles for n in t["names"].values())}

    def documents(self, reader: str) -> list[dict]:
        docs = []
        for game in self.r.games():
            if reader not in game["languages"]:
                continue
            game_title = game["title"].get(reader) or game["title"]["en"]
            for chapter in self.kb.chapters_of(game["id"]):
                chapter_title = chapter.data["title"][self.r.display_language(chapter.data, reader)]
                for entry_id in chapter.entry_ids:
                    entry = self.kb.entries[entry_id]
                    shown = self.r.display_language(entry, reader)
                    defines = self.defined_terms(entry)
                    mentions = self.r.terms_in.get(entry_id, set()) - defines
                    docs.append({
                        "url": f"{reader}/{game['id']}/{self.r.page_of[entry_id][:-3]}.html#{slug_of(entry_id)}",
                        "id": entry_id, "title": entry["title"][shown], "context": f"{game_title} · {chapter_title}",
                        "kind": entry["kind"],
                        "fields": {
                            WEIGHT_TITLE: " ".join(entry["title"].values()),
                            WEIGHT_DEFINES: self.aliases(defines),
                            WEIGHT_KEYWORD: " ".join(w for words in entry.get("keywords", {}).values() for w in words),
                            WEIGHT_MENTIONS: self.aliases(mentions),
                            WEIGHT_TEXT: _plain(entry["text"][shown]) + " " + chapter_title,
                        },
                    })
            for term in self.kb.terms_of(game["id"]):
                name = term["names"].get(reader) or term["names"]["en"]
                docs.append({
                    "url": f"{reader}/{game['id']}/glossary.html#term-{term['id'].rsplit('/', 1)[1]}",
                    "id": term["id"], "title": name, "context": f"{game_title} · {LABELS[reader]['glossary']}", "kind": "glossary",
                    "fields": {WEIGHT_GLOSSARY: self.aliases({term["id"]}), WEIGHT_TEXT: ""},
                })
        return docs

    @staticmethod
    def word_weights(fields: dict[int, str]) -> dict[str, int]:
        """A word's weight in a document: the highest field it stands in; in body text, its count (capped)."""
        weights: dict[str, int] = defaultdict(int)
        for word in tokens(fields.get(WEIGHT_TEXT, "")):
            weights[word] = min(weights[word] + 1, MAX_TEXT_WEIGHT)
        for field_weight, text in fields.items():
            if field_weight != WEIGHT_TEXT:
                for word in tokens(text):
                    weights[word] = max(weights[word], field_weight)
        return weights

    def build(self, reader: str) -> dict[str, str]:
        """File name (under search/<lang>/) -> JavaScript content."""
        docs = self.documents(reader)
        postings: dict[str, dict[int, int]] = defaultdict(dict)
        for number, doc in enumerate(docs):
            for word, weight in self.word_weights(doc["fields"]).items():
                postings[word][number] = weight
        chunks: dict[str, dict] = defaultdict(dict)
        for word, docs_of_word in postings.items():
            chunks[chunk_key(word)][word] = [[d, w] for d, w in sorted(docs_of_word.items())]
        files = {}
        for key, words in chunks.items():
            files[f"w-{key}.js"] = self._js("w", key, words)
        for start in range(0, len(docs), DOCS_PER_CHUNK):
            part = [[d["url"], d["title"], d["context"], d["kind"], d["id"]] for d in docs[start:start + DOCS_PER_CHUNK]]
            files[f"d-{start // DOCS_PER_CHUNK}.js"] = self._js("d", str(start // DOCS_PER_CHUNK), part)
        files["meta.js"] = self._js("m", "meta", {"docs": len(docs), "per_chunk": DOCS_PER_CHUNK})
        return files

    @staticmethod
    def _js(kind: str, key: str, payload) -> str:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        # JSON inside a script: "</" must not close the tag early.
        body = body.replace("</", "<\\/")
        return f"kbSearchChunk({json.dumps(kind)},{json.dumps(key)},{body});\n"

    def all_files(self) -> dict[str, str]:
        return {f"search/{lang}/{name}": content for lang in LANGUAGES for name, content in self.build(lang).items()}
