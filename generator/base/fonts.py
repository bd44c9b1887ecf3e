"""The aids' font family and the characters it can draw: asked by validate (E087, a character no
aid can print, named with its file and entry) and by the aids' layout (the last guard before WeasyPrint)."""
from __future__ import annotations

import subprocess
from functools import cache

from fontTools.ttLib import TTFont

FONT_FAMILY = "DejaVu Sans Condensed"  # covers Latin, Polish and Cyrillic; the aids' templates name it first


@cache
def font_coverage() -> frozenset[int]:
    """Code points every face of the aids' font family can draw (regular and bold, via fontconfig).

    Checked before layout because Pango silently drops a glyph no font has: afterwards the PDF
    shows no trace of it, neither a .notdef nor the character."""
    faces = []
    for pattern in (FONT_FAMILY, f"{FONT_FAMILY}:bold"):
        path = subprocess.run(["fc-match", pattern, "--format=%{file}"], capture_output=True, text=True, check=True).stdout
        faces.append(set(TTFont(path).getBestCmap()))
    return frozenset(set.intersection(*faces))


def uncovered(text: str) -> list[str]:
    """The characters of `text` the aids' fonts cannot draw (white space aside), in order, each once."""
    coverage = font_coverage()
    return sorted({ch for ch in text if not ch.isspace() and ord(ch) not in coverage})
