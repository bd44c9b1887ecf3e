"""The player aids' card geometry and the tables' type, in points: read by the aids
(generator/render/aids/cards.py, which re-exports the card's names, and the aids' CSS templates, which
are rendered from the CSS values below) and by validate (E088: an answer table as wide as its card allows)."""

from __future__ import annotations

MM = 72 / 25.4
CARD_SIZE = (63 * MM, 88 * MM)
CARD_MARGIN = (3.5 * MM, 3.5 * MM, 6 * MM)  # top, sides, bottom (where the footer stands)
CARD_TEXT = (CARD_SIZE[0] - 2 * CARD_MARGIN[1], CARD_SIZE[1] - CARD_MARGIN[0] - CARD_MARGIN[2])  # band and item
FONT_SIZE_PT = 8.0
FONT_SIZE = f"{FONT_SIZE_PT:g}pt"  # the aids' body type

# The CSS of a table on a card (templates/cards/aid.html.j2 and aid-style.css.j2 print these values):
TABLE_PT = 7.0  # every table's type on a card (and so on the sheet, made of the cards' pieces), in points: a card
# set smaller (aid_layout.DENSE) sets its prose smaller, never its tables (issue 28: nothing in a table under 7 pt)
ANSWER_CELL_PADDING = 0.08  # em, left and right of an answer's cell (td)
ANSWER_HEAD_PADDING = 0.12  # em, left and right of an answer table's heading (th)
TABLE_RULE = 0.3  # pt, the rules between a table's cells and round it


def css_number(value: float) -> str:
    """A number as the aids' CSS writes it: 0.85 -> ".85", 0.3 -> ".3", 8.0 -> "8"."""
    text = f"{value:g}"
    return text[1:] if text.startswith("0.") else text
