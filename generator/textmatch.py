"""Comparing entry text with the source lines it cites.

Markdown, punctuation and case are ignored; what is compared are words. This is what
lets `validate` notice a line range that does not hold the text it claims to carry.
"""
from __future__ import annotations

import re

WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
LINK = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?!\w)")


def strip_links(text: str) -> str:
    """[[id|label]] -> label, [[id]] -> '' (the id is not prose)."""
    return LINK.sub(lambda m: m.group(2) or "", text)


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces (for verbatim-quote checks)."""
    return " ".join(WORD.findall(strip_links(text).lower().replace("ё", "е")))


def words(text: str, min_length: int = 4) -> list[str]:
    return [w for w in normalise(text).split() if len(w) >= min_length]


def numbers(text: str) -> list[str]:
    """The numbers written with digits, in order (links removed)."""
    return sorted(n.replace(",", ".") for n in NUMBER.findall(strip_links(text)))


def share_found(needles: list[str], haystack: set[str]) -> float:
    """Share of `needles` present in `haystack`; 1.0 when there is nothing to look for."""
    if not needles:
        return 1.0
    return sum(1 for w in needles if w in haystack) / len(needles)
