"""Glossary terms found in text: names, variants and inflected forms, whole words, longest first.

Shared by validate (the terminology check) and resolve (term links, search): the base stage."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .kept import KEPT_MATCHERS, kept_function

WORD = re.compile(r"[^\W_]+")
PUNCTUATION = re.compile(r"[^\w\s]|_")


@dataclass(eq=False)  # compared (and hashed) as itself: see `_matcher_of_forms`
class TermMatcher:
    """Finds glossary terms (names, variants, inflected forms) in text of one language.

    A form matches whole words, case-insensitively, the longest form first at each word. Runs of
    words are looked up in a dict, and only where a form starts with that word, rather than with
    one big regex alternation, which was slow with hundreds of forms per game."""

    term_of_form: dict[str, str]  # lower-case form -> term id
    longest_from: dict[str, int]  # lower-case first word of a form -> most words in a form starting so

    def find(self, text: str) -> list[tuple[int, int, str]]:
        if not self.term_of_form:
            return []
        lower = text.lower()
        if len(lower) != len(text):  # a rare letter whose lower case is longer: keep positions exact
            lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        spans = [m.span() for m in WORD.finditer(lower)]
        found, next_free = [], 0
        for i, (start, end) in enumerate(spans):
            longest = self.longest_from.get(lower[start:end], 0) if i >= next_free else 0
            for n in range(min(longest, len(spans) - i), 0, -1):
                match = self._form_at(lower, start, spans[i + n - 1][1])
                if match:
                    found.append(match)
                    next_free = i + n
                    break
        return found

    def _form_at(self, lower: str, start: int, end: int) -> tuple[int, int, str] | None:
        """A form spanning these words of the lower-cased text, widest first: forms may begin or
        end with punctuation next to the words («Выстрел», Victory!)."""
        before, after = start, end
        while before > 0 and PUNCTUATION.match(lower[before - 1]):
            before -= 1
        while after < len(lower) and PUNCTUATION.match(lower[after]):
            after += 1
        for s in range(before, start + 1):
            for e in range(after, end - 1, -1):
                term = self.term_of_form.get(lower[s:e])
                if term:
                    return s, e, term
        return None


def proper_spellings(term: Any, lang: str) -> list[str]:
    """The glossary's term in a language as our text writes it: its name and the name's inflected `forms`."""
    return _names(term, lang) + _listed(term, "forms", lang)


def variant_spellings(term: Any, lang: str) -> list[str]:
    """The sources' other words for a term in a language: its `variants` and their inflected `variant_forms`
    (found in text as the variants are, but not listed on the glossary page)."""
    return _listed(term, "variants", lang) + _listed(term, "variant_forms", lang)


def spellings(term: Any, lang: str) -> list[str]:
    """Every spelling of a term in a language: the term's own and the sources' other words (links, search)."""
    return proper_spellings(term, lang) + variant_spellings(term, lang)


def _names(term: Any, lang: str) -> list[str]:
    name: str | None = term["names"].get(lang)
    return [name] if name else []


def _listed(term: Any, field: str, lang: str) -> list[str]:
    listed: list[str] = term.get(field, {}).get(lang, [])
    return listed


def term_matcher(terms: list[Any], lang: str) -> TermMatcher:
    term_of_form: dict[str, str] = {}
    for term in terms:
        for form in spellings(term, lang):
            if len(form) >= 3:
                term_of_form.setdefault(form.lower(), term["id"])
    return matcher_of_forms(tuple(term_of_form.items()))


@kept_function(KEPT_MATCHERS)
def matcher_of_forms(forms: tuple[tuple[str, str], ...]) -> TermMatcher:
    """One matcher for the same forms, so that what it found is kept across `serve`'s rebuilds."""
    term_of_form = dict(forms)
    longest_from: dict[str, int] = {}
    for form in term_of_form:
        words = WORD.findall(form)
        if words:
            longest_from[words[0]] = max(longest_from.get(words[0], 0), len(words))
    return TermMatcher(term_of_form, longest_from)


@kept_function()
def terms_in_text(matcher: TermMatcher, title: str, text: str) -> frozenset[str]:
    """The terms a title and text mention (kept per content: a rebuild looks again only at what an edit changed)."""
    return frozenset(term for _, _, term in matcher.find(f"{title} {text}"))


@kept_function()
def found_in(matcher: TermMatcher, text: str) -> tuple[tuple[int, int, str], ...]:
    """Where a text names terms: (start, end, term id) of each, in order (kept per content, as `terms_in_text`)."""
    return tuple(matcher.find(text))
