"""The aids' colours that are not data, and how far apart two colours look (issue 28: section
colours distinct from each other and from the warning colour). Read by `validate` (E072) and by the
aids (generator/render/aids/)."""

from __future__ import annotations

WARNING = "#c0392b"  # an open question's number beside an item's title
ANSWERS = "#2f5d50"  # the answer tables' section
QUESTIONS = "#555555"  # the open questions' section
QR = "#111111"  # the QR code's section (aid_qr.py)
FIXED = {"warning": WARNING, "answer tables": ANSWERS, "open questions": QUESTIONS, "QR code": QR}
MIN_DISTANCE = 18.0  # CIE76 ΔE: below it two dark bands read as one colour at arm's length


def lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB #rrggbb colour."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    r, g, b = (linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def distance(a: str, b: str) -> float:
    """CIE76 ΔE between two #rrggbb colours."""
    squared = sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True))
    root: float = squared**0.5  # a float: the sum is never negative
    return root
