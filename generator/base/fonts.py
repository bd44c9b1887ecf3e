"""The aids' font family, the characters it can draw and how wide it sets them: asked by validate
(E087, a character no aid can print, named with its file and entry; E088, an answer table wider than its
card) and by the aids' layout (the last guard before WeasyPrint)."""

from __future__ import annotations

import subprocess
from functools import cache

from fontTools.ttLib import TTFont

FONT_FAMILY = "DejaVu Sans Condensed"  # covers Latin, Polish and Cyrillic; the aids' templates name it first


@cache
def face(bold: bool) -> TTFont:
    """The regular or the bold face of the aids' font family, as fontconfig (and so WeasyPrint) finds it."""
    pattern = f"{FONT_FAMILY}:bold" if bold else FONT_FAMILY
    return TTFont(subprocess.run(["fc-match", pattern, "--format=%{file}"], capture_output=True, text=True, check=True).stdout)


@cache
def font_coverage() -> frozenset[int]:
    """Code points every face of the aids' font family can draw (regular and bold, via fontconfig).

    Checked before layout because Pango silently drops a glyph no font has: afterwards the PDF
    shows no trace of it, neither a .notdef nor the character."""
    return frozenset(set(face(False).getBestCmap()) & set(face(True).getBestCmap()))


@cache
def advances(bold: bool) -> tuple[dict[int, float], float]:
    """Code point -> its glyph's advance width in em, of the regular or bold face; and the widest
    advance of all, for a character the face lacks (validate reports it: E087)."""
    font = face(bold)
    per_em, metrics = font["head"].unitsPerEm, font["hmtx"].metrics
    widths = {code: metrics[glyph][0] / per_em for code, glyph in font.getBestCmap().items()}
    return widths, max(widths.values())


def text_width(text: str, size: float, bold: bool = False) -> float:
    """How wide, in points, the aids' font sets `text` at `size` points: the sum of its glyphs' advances
    (no kerning: DejaVu's pairs mostly narrow a word, so this errs on the wide side)."""
    widths, widest = advances(bold)
    return size * sum(widths.get(ord(ch), widest) for ch in text)


def uncovered(text: str) -> list[str]:
    """The characters of `text` the aids' fonts cannot draw (white space aside), in order, each once."""
    coverage = font_coverage()
    return sorted(ch for ch in set(text) if not ch.isspace() and ord(ch) not in coverage)
