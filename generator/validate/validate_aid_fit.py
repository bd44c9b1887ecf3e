"""Validate, answer tables on the aids: each table must fit the width of its card (E088), found here
rather than by WeasyPrint at the end of `build` (B004, "leaves the page area").

A table is as narrow as WeasyPrint can set it when each column is as wide as its widest unbreakable
piece: an answer's cell never wraps (white-space: nowrap), so the whole text of the widest value the
column can print; a heading (<th>, bold) wraps only between words, so its longest word. The column
group's heading spans the value columns, and the table adds each cell's paddings and rules
(base/aid_geometry.py, the values the aids' CSS is rendered from). The widths are the aids' font's
advances (base/fonts.py, the faces fontconfig gives WeasyPrint), without kerning.

The values are the answers themselves, run here as render runs them (load/rules_view.py, the data just
checked; base/answer_cells.py prints them): a bound such as "100,0" in every per-cent cell would refuse
the Chaos in the Old World table, which fits with 0.6 mm to spare because its largest values print
"99,9". Where the checks cannot run (the game's data has problems of its own, reported: E040-E042) only
the headings are measured, the values taken as empty: a table refused then is too wide whatever its
values, and one let through is measured whole once the data is sound. The estimate errs wide:
tests/test_aid_fit.py holds it against WeasyPrint's own layout of every bundled table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules_check.core import Game, RulesError

from ..base.aid_geometry import (
    ANSWER_CELL_PADDING,
    ANSWER_HEAD_PADDING,
    CARD_TEXT,
    MM,
    TABLE_PT,
    TABLE_RULE,
)
from ..base.answer_cells import Layout, value_at, value_text
from ..base.fonts import text_width
from ..load.model import KnowledgeBase
from ..load.rules_view import checks_and_entries, rules_for

SIZE = TABLE_PT  # the answer tables' type on a card, in points
# No line break before a closing mark (UAX 14, LB13) nor after an opening one (LB14), whatever the spaces;
# nor on either side of a quotation mark (LB19: Pango keeps 'okienka „Zwycięstwo!” (nadrukowane' whole).
# It may break before the "%" of "Hits (at least), %" (a postfix sign after a space: LB18), and does.
NO_BREAK_BEFORE = ")]}!?,.:;/"
NO_BREAK_AFTER = "([{"
QUOTES = "\"'«»‘’‚‛“”„‟‹›"


@dataclass
class Printed:
    """What an answer table prints in one language: its headings and, per value column, its cells' texts."""

    row_label: str
    row_headings: list[str]
    group: str
    column_headings: list[str]
    values: list[list[str]] = field(default_factory=list)


@dataclass
class Fit:
    width: float  # points: the narrowest the table can be set
    widest: str  # the widest unbreakable heading piece, named in the problem
    room: float = CARD_TEXT[0]

    @property
    def fits(self) -> bool:
        return self.width <= self.room


def pieces(text: str) -> list[str]:
    """A heading's unbreakable pieces: its words, a word joined to a closing mark after it, an opening one
    before it and a quotation mark on either side (where the line breaker would not break either)."""
    found: list[str] = []
    for word in text.split(" "):
        if not word:
            continue
        if found and (word[0] in NO_BREAK_BEFORE + QUOTES or found[-1][-1] in NO_BREAK_AFTER + QUOTES):
            found[-1] += " " + word
        else:
            found.append(word)
    return found or [""]


def heading_width(text: str) -> tuple[float, str]:
    """The widest piece of a (bold) heading, in points, and the piece."""
    return max((text_width(piece, SIZE, bold=True), piece) for piece in pieces(text))


def table_fit(printed: Printed) -> Fit:
    """The narrowest width WeasyPrint can give the table (border-collapse: a rule between cells, one round it)."""
    head, cell = 2 * ANSWER_HEAD_PADDING * SIZE, 2 * ANSWER_CELL_PADDING * SIZE
    widest = max(heading_width(text) for text in [printed.row_label, *printed.row_headings, printed.group, *printed.column_headings])[1]
    row_column = max(heading_width(text)[0] for text in [printed.row_label, *printed.row_headings]) + head + TABLE_RULE
    columns = sum(
        max(heading_width(heading)[0] + head, max(text_width(value, SIZE) for value in values) + cell) + TABLE_RULE
        for heading, values in zip(printed.column_headings, printed.values, strict=True)
    )
    group = heading_width(printed.group)[0] + head + TABLE_RULE
    return Fit(row_column + max(columns, group) + TABLE_RULE, widest)


def game_rules(kb: KnowledgeBase, game: str) -> Game | None:
    """The game's rules_check `Rules` on the checked data, or None where they cannot run here: no rules module
    (a game whose checks the rules_check package has yet to provide), or a check's data unsound (its
    problems reported: E040-E042), whatever it makes the module's set-up raise."""
    try:
        return rules_for(game, {"data_version": "", **checks_and_entries(kb, game), "say": {}})
    except Exception:  # noqa: BLE001  (reported as the data's own problems; the values are bounded instead)
        return None


def answers(rules: Game | None, table: Layout) -> list[list[Any]] | None:
    """The value of each cell of a laid-out table (base/answer_cells.layout), row by row (None: a dash), or None
    where the checks cannot run. The cells are the same in every language."""
    if rules is None:
        return None
    found = []
    for _heading, cells in table.rows:
        values = []
        for cell in cells:
            try:
                values.append(value_at(rules.run(table.check, cell.inputs), cell.output))
            except RulesError:
                values.append(None)
            except Exception:  # noqa: BLE001  (a check that fails on this data fails the build too; here the values are bounded)
                return None
        found.append(values)
    return found


def printed_table(table: Layout, decimal: str, values: list[list[Any]] | None = None) -> Printed:
    """What a laid-out table (base/answer_cells.layout, in one language) prints: `decimal`, the language's
    decimal mark; `values`, the cells' answers (`answers`), or None to measure the headings alone."""
    [(group, column_headings)] = table.groups
    kinds = [cell.kind for cell in table.rows[0][1]] if table.rows else ["" for _ in column_headings]
    if values is None:  # the headings alone
        texts = [[""] for _ in kinds]
    else:
        texts = [[value_text(row[i], kind, decimal) for row in values] for i, kind in enumerate(kinds)]
    return Printed(table.row_label, [heading for heading, _ in table.rows], group, column_headings, texts)


def too_wide(fit: Fit) -> str:
    """The problem's message: how wide the table needs to be, and its widest heading word."""
    return (
        f"needs {fit.width / MM:.1f} mm, the card's text is {fit.room / MM:.1f} mm wide"
        f" (its longest heading word: '{fit.widest}', {text_width(fit.widest, SIZE, bold=True) / MM:.1f} mm)"
    )
