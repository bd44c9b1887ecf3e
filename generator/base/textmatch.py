"""Comparing entry text with the source lines it cites.

Markdown, punctuation and case are ignored; what is compared are words. This is what
lets `validate` notice a line range that does not hold the text it claims to carry.
"""

from __future__ import annotations

import re

from .kept import kept_function

WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
LINK = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")
NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)(?:st|nd|rd|th)?(?!\w)")  # "1st" is the number 1, as Polish "1." is


def strip_links(text: str) -> str:
    """[[id|label]] -> label, [[id]] -> '' (the id is not prose)."""
    return LINK.sub(lambda m: m.group(2) or "", text)


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces (for verbatim-quote checks)."""
    return " ".join(WORD.findall(strip_links(text).lower().replace("ё", "е")))


def words(text: str, min_length: int = 4) -> list[str]:
    return [w for w in normalise(text).split() if len(w) >= min_length]


@kept_function(1 << 16)
def numbers(text: str) -> tuple[str, ...]:
    """The numbers written with digits, sorted (links removed). Kept per text: every check of
    numbers across languages asks again, and so does every rebuild under `serve`."""
    return tuple(sorted(n.replace(",", ".") for n in NUMBER.findall(strip_links(text))))


@kept_function(1 << 14)
def shares_found(cited: str, title: str, text: str, corrections: str) -> tuple[float, float]:
    """How much of a text's words its cited lines hold, and how much of the cited lines' words the
    title, text and the corrections' `from` words carry (see E033). Kept per content, like `numbers`."""
    cited_words = words(cited)
    text_in_source = share_found(words(text), set(cited_words) | set(words(corrections)))
    source_in_text = share_found(cited_words, set(words(f"{title} {text} {corrections}")))
    return text_in_source, source_in_text


def share_found(needles: list[str], haystack: set[str]) -> float:
    """Share of `needles` present in `haystack`; 1.0 when there is nothing to look for."""
    if not needles:
        return 1.0
    return sum(1 for w in needles if w in haystack) / len(needles)


QUOTED = re.compile(r"«[^»\n]*»|„[^”\n]*”|“[^”\n]*”|\"[^\"\n]*\"")  # a phrase in quotation marks
ENGLISH_WORDS = frozenset(
    "the of and with for this that these those from your you are is was were be been not or by it its an "
    "when if each may must can has have will which who what their there than into only also both".split()
)
# Words of a language that are spelt like an English function word.
OWN_WORDS = {"pl": frozenset({"to", "on", "a", "i", "no", "be", "it"})}


def reads_as_english(text: str, own_language: str) -> bool:
    """Whether a run of text is English: two or more English function words ("the", "of", "with"…),
    none of them a word of the text's own language. Names (BattleLore, Khorne) are not sentences."""
    own = OWN_WORDS.get(own_language, frozenset())
    found = {w for w in (m.lower() for m in WORD.findall(text)) if w in ENGLISH_WORDS and w not in own}
    return len(found) >= 2
