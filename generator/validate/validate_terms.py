"""Validate, terminology: one term per concept, the glossary's, in every translation.

- E054: a translation (`translated_from`) of a title, text, summary (and its title) or ruling does not name a glossary
  concept that its original names (with one of the term's names, variants or forms), or names it
  only with a variant the glossary keeps for the sources' own spellings, or a variant's form (a variant beside the term
  itself is shorthand: "the dial" after "the threat dial"; so is a variant made of the term's own
  words, inflected: "board" for "game board", «круг» for «круг влияния»; a variant inside another term's longer
  spelling is that term's word: «поля» in «поля зрения»). Words in quotation marks
  are mentioned, not used: a clarification may quote the sources' own words; a `[[id]]` link is its label
  (the id is no prose). An entry's `not_terms`
  names the terms its translations need not name in the term's words: the original uses the word in an
  everyday sense ("poziom" as a level, not a tick), or the entry is a headword that only points at the
  term ("gods": see Ruinous Powers). A term
  counts as named when one of its forms stands in the text, or each word of its name stands there
  with at most three letters of its ending changed (inflection: "сражение" ~ "сражения").
- E055: a term's name in a language none of the game's sources is written in (Polish for a game
  whose rulebook is Russian) says whether it is the published edition's (`status: {pl: published}`,
  with `status_source`) or ours (`uncertain`); a published one says where it was seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..base.kept import KEPT_MATCHERS, Answers
from ..base.termmatch import WORD, TermMatcher, found_in, proper_spellings, term_matcher, terms_in_text, variant_spellings
from ..base.textmatch import QUOTED, strip_links
from ..load.model import Entry, KnowledgeBase, Where

Report = Callable[[Where, Sequence[str | int], str, str], None]  # a problem at a path inside an item
INFLECTION = 3  # letters of a word's ending that inflection may change
STEM_MIN = 4  # ... leaving at least this many


def check(kb: KnowledgeBase, report: Report) -> None:
    names = TermNames(kb)
    for entry_id, entry in kb.entries.items():
        game = kb.game_of(entry_id)
        for path, texts, origins in translated_fields(entry):
            for lang, original in translations(origins, texts):
                problem = names.misnamed(
                    game, original, strip_links(texts[original]), lang, strip_links(texts[lang]), set(entry.get("not_terms", []))
                )
                if problem:
                    report(kb.where[entry_id], path + [lang], "E054", f"the {lang} translation {problem}")
    for term_id, term in kb.terms.items():
        check_status(kb, term_id, term, report)


def translated_fields(entry: Entry) -> Iterator[tuple[list[str], Mapping[str, str], Mapping[str, Any]]]:
    """(path, texts by language, origins by language) of an entry's translatable prose: a clarification's ruling is
    written as its text is (it has no origins of its own)."""
    yield ["title"], entry["title"], entry["origin"]
    yield ["text"], entry["text"], entry["origin"]
    if "summary" in entry:
        yield ["summary", "text"], entry["summary"]["text"], entry["summary"]["origin"]
        if "title" in entry["summary"]:
            yield ["summary", "title"], entry["summary"]["title"], entry["summary"]["origin"]
    if "ruling" in entry.get("clarification", {}):
        yield ["clarification", "ruling"], entry["clarification"]["ruling"], entry["origin"]


def translations(origins: Mapping[str, Any], texts: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(language, the language it was translated from) for each translation whose original is there."""
    for lang, origin in origins.items():
        original = origin.get("translated_from") if isinstance(origin, Mapping) else None
        if original and original in texts and lang in texts:
            yield lang, original


class TermNames:
    """The glossary's terms of each game, found in text of each language."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.matchers: dict[tuple[str, str, str], TermMatcher] = {}
        self.tokens: dict[str, object] = {}

    def matcher(self, game: str, lang: str, kind: str = "all") -> TermMatcher:
        """Finds a game's terms in text of a language by all their spellings (`all`), by their names and
        forms only (`proper`), or by the variants that are no term's name or form (`variants`). Kept while the
        game's terms are the same (`glossary`)."""
        key = (game, lang, kind)
        if key not in self.matchers:
            self.matchers[key] = _MATCHERS.of((self.glossary(game), lang, kind), lambda: self._matcher(game, lang, kind))
        return self.matchers[key]

    def _matcher(self, game: str, lang: str, kind: str) -> TermMatcher:
        terms: list[Any] = list(self.kb.terms_of(game))
        if kind == "proper":
            terms = [{"id": t["id"], "names": {}, "forms": {lang: proper_spellings(t, lang)}} for t in terms]
        elif kind == "variants":
            proper = {f.lower() for t in terms for f in proper_spellings(t, lang)}
            terms = [
                {"id": t["id"], "names": {}, "variants": {lang: [v for v in variant_spellings(t, lang) if v.lower() not in proper]}} for t in terms
            ]
        return term_matcher(terms, lang)

    def glossary(self, game: str) -> object:
        """A token for a game's terms: the same object while they are the same terms, each as it was (its file's
        bytes and its place there, `Where.content_key`)."""
        if game not in self.tokens:
            terms = tuple(self.kb.where[term["id"]].content_key() for term in self.kb.terms_of(game))
            self.tokens[game] = _GLOSSARIES.of(terms, object)
        return self.tokens[game]

    def misnamed(self, game: str, original_lang: str, original: str, lang: str, text: str, not_terms: set[str]) -> str | None:
        """What the translation gets wrong about the original's terms, in words, or None. Kept for the same question
        (`serve` asks it again of every translation on every rebuild: 0.4 s at 10× the bundled data): what it reads is
        the matchers and the game's terms (all made from its glossary, whose token is in the key: the translation's
        language's full matcher too), the two texts and `not_terms`."""
        key = (
            self.matcher(game, original_lang),
            self.matcher(game, lang, "proper"),
            self.matcher(game, lang, "variants"),
            self.glossary(game),
            original,
            text,
            frozenset(not_terms),
        )
        return _MISNAMED.of(key, lambda: self._misnamed(game, original_lang, original, lang, text, not_terms))

    def _misnamed(self, game: str, original_lang: str, original: str, lang: str, text: str, not_terms: set[str]) -> str | None:
        named = terms_in_text(self.matcher(game, original_lang), "", unquoted(original)) - not_terms
        found = terms_in_text(self.matcher(game, lang, "proper"), "", text)
        # a variant is the sources' word, not ours: wrong unless the text also names the term properly, or the variant is
        # made of the term's own words ("board" of "game board"): both shorthand. Read among every term's spellings,
        # longest first, so that a variant inside another term's longer spelling («поля» of «поля зрения», line of
        # sight) is that term's word, not the variant.
        own_words = unquoted(text)
        variant_of = self.matcher(game, lang, "variants").term_of_form
        written = [
            (start, end, t) for start, end, t in found_in(self.matcher(game, lang), own_words) if variant_of.get(own_words[start:end].lower()) == t
        ]
        found |= {t for start, end, t in written if shortens(own_words[start:end], self.kb.terms[t]["names"].get(lang, ""))}
        variants = [(start, end, t) for start, end, t in written if t not in found and t not in not_terms]
        unnamed = sorted(named - found - {t for _, _, t in variants})
        words = [w.lower() for w in WORD.findall(text)] if unnamed else []
        missing = [t for t in unnamed if lang in self.kb.terms[t]["names"] and not name_stands_in(self.kb.terms[t]["names"][lang], words)]
        parts = []
        if missing:
            parts.append(
                "does not name "
                + ", ".join(f"{self.name(t, lang)} ({t}; the {original_lang} text says {self.name(t, original_lang)})" for t in missing)
            )
        if variants:
            parts.append("writes " + ", ".join(f"'{own_words[start:end]}' for {self.name(t, lang)} ({t})" for start, end, t in variants))
        return "; ".join(parts) + ": use the glossary's term" if parts else None

    def name(self, term_id: str, lang: str) -> str:
        return f"'{self.kb.terms[term_id]['names'].get(lang, '?')}'"


_MISNAMED: Answers[tuple[object, ...], str | None] = Answers()  # TermNames.misnamed's answers, kept across `serve`'s rebuilds
_GLOSSARIES: Answers[tuple[tuple[bytes, tuple[str | int, ...]], ...], object] = Answers()  # a game's terms -> their token
_MATCHERS: Answers[tuple[object, str, str], TermMatcher] = Answers(KEPT_MATCHERS)  # (glossary token, language, kind) -> matcher


def name_stands_in(name: str, words: list[str]) -> bool:
    """Whether each word of a term's name stands among the words, inflected at most INFLECTION letters."""
    stems = [stem(w.lower()) for w in WORD.findall(name)]
    return bool(stems) and all(any(word.startswith(wanted) for word in words) for wanted in stems)


def unquoted(text: str) -> str:
    """The text with what it quotes blanked out (same length): a word in quotation marks is mentioned, not used."""
    return QUOTED.sub(lambda m: " " * len(m[0]), text)


def shortens(variant: str, name: str) -> bool:
    """Whether a variant is the term's own words, shortened or inflected ("board" of "game board")."""
    return name_stands_in(variant, [w.lower() for w in WORD.findall(name)])


def stem(word: str) -> str:
    return word if len(word) <= STEM_MIN else word[: max(STEM_MIN, len(word) - INFLECTION)]


def check_status(kb: KnowledgeBase, term_id: str, term: Mapping[str, Any], report: Report) -> None:
    game = kb.games.get(kb.game_of(term_id))
    if game is None or any(s not in kb.sources for s in game["sources"]):
        return  # a source that did not load: which languages the game's sources are in is not known (said there)
    source_languages = {kb.sources[s].language for s in game["sources"] if s in kb.sources}
    status = term.get("status", {})
    for lang in sorted(term["names"]):
        if lang in source_languages or lang == "en":  # a source's own word; English has `english:`
            continue
        if lang not in status:
            report(
                kb.where[term_id],
                ["names", lang],
                "E055",
                f"its {lang} name '{term['names'][lang]}' is not taken from a {lang} source of "
                f"the game: say whether it is published (status: {{{lang}: published}}, status_source) or ours (uncertain)",
            )
        elif status[lang] == "published" and lang not in term.get("status_source", {}):
            report(kb.where[term_id], ["status", lang], "E055", f"its {lang} name is marked published without status_source saying where it was seen")
