"""What a printed aid measures, read from its PDF as a printer sees it (issue 28): its body type (the
size most of its letters are printed at), the smallest type on it and in its tables, how far its text stands inside the cards' cut, how much of each
card's face its text uses, how full the sheet's columns are.

The aid gallery prints these figures for every aid (scripts/aid_gallery.py), and the tests hold the
bundled aids to them. Text is measured by pdfium, glyph by glyph: a glyph's size is its font size
scaled by the matrices it is drawn with (WeasyPrint draws in CSS pixels, 0.75 pt)."""

from __future__ import annotations

import ctypes
import statistics
from collections import Counter
from dataclasses import dataclass

import pypdfium2
import pypdfium2.raw as pdfium_c

from .cards import CARD_SIZE, COLUMN_GAP, COLUMN_WIDTH, FULL_FACE, SHEET_AREA, SHEET_COLUMNS, SHEET_MARGIN, SHEET_TEXT_WIDTH, SHEETS

MM = 72 / 25.4


@dataclass
class Glyph:
    size: float  # points, as printed
    box: tuple[float, float, float, float]  # left, bottom, right, top: points from the page's bottom left


def glyphs(page: pypdfium2.PdfPage) -> list[Glyph]:
    """Every visible glyph of a page (spaces and the glyphs pdfium makes up between words left out)."""
    text = page.get_textpage()
    matrix = pdfium_c.FS_MATRIX()
    found = []
    for index in range(text.count_chars()):
        if text.get_text_range(index, 1).isspace() or pdfium_c.FPDFText_IsGenerated(text.raw, index) == 1:
            continue
        pdfium_c.FPDFText_GetMatrix(text.raw, index, ctypes.byref(matrix))
        scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
        found.append(Glyph(round(pdfium_c.FPDFText_GetFontSize(text.raw, index) * scale, 2), text.get_charbox(index)))
    return found


TABLE_RULE_GREY = (153, 153, 153)  # the colour the rules of a table are stroked in (aid-style.css.j2: #999), and nothing else


def table_rules(page: pypdfium2.PdfPage) -> list[tuple[float, float, float, float]]:
    """The rules of the page's tables (in the pieces drawn as form XObjects, aid_compose.py) as left, bottom,
    right, top in points from the page's bottom left: each a line, horizontal or vertical."""
    found = []
    colour = [ctypes.c_uint() for _ in range(4)]
    for path in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH]):
        if not pdfium_c.FPDFPageObj_GetStrokeColor(path.raw, *colour) or tuple(c.value for c in colour[:3]) != TABLE_RULE_GREY:
            continue
        left, bottom, right, top = path.get_bounds()  # in its form's space
        corners = [(left, bottom), (right, top)]
        form = path.container
        while form is not None:
            matrix = form.get_matrix()
            corners = [matrix.on_point(x, y) for x, y in corners]
            form = form.container
        (x1, y1), (x2, y2) = corners
        found.append((min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)))
    return found


def in_tables(page: pypdfium2.PdfPage, found: list[Glyph]) -> list[Glyph]:
    """The glyphs of `found` (on `page`) that stand in a table's cell: between rules above and below them and
    rules to their left and right."""
    rules = table_rules(page)
    across = [rule for rule in rules if rule[3] - rule[1] < 1]
    down = [rule for rule in rules if rule[2] - rule[0] < 1]

    def in_cell(glyph: Glyph) -> bool:
        x, y = (glyph.box[0] + glyph.box[2]) / 2, (glyph.box[1] + glyph.box[3]) / 2
        above = {rule[1] > y for rule in across if rule[0] <= x <= rule[2]}
        beside = {rule[0] > x for rule in down if rule[1] <= y <= rule[3]}
        return above == {True, False} and beside == {True, False}

    return [glyph for glyph in found if in_cell(glyph)]


def body_type(sizes: list[float]) -> float:
    """The size most of the letters are printed at: the body text's."""
    return Counter(sizes).most_common(1)[0][0]


FOOT_ZONE = 12 * MM  # a card's footer stands in its last 12 mm; the item ends above it (aid_layout.produce)


@dataclass
class CardMeasures:
    body_type: float  # points, above the footers
    smallest_type: float  # points
    nearest_to_cut: float  # mm: the text nearest to a card's edge, from that edge (the item's sides: its margin)
    footer_to_cut: float  # mm: the footers' text nearest to the cut
    footers_within_4mm: int  # cards whose footer stands less than 4 mm inside the cut
    cards: int
    face_use: list[float]  # per card: how much of the room between its band and its footer zone its text covers (face_use)
    table_type: float | None = None  # points: the smallest type in a table's cell; None without tables

    @property
    def median_face_use(self) -> float:
        return statistics.median(self.face_use) if self.face_use else 0.0

    def faces_under(self, share: float = FULL_FACE) -> int:
        """The cards whose text uses less than `share` of their face."""
        return sum(use < share for use in self.face_use)


def face_use(band_and_text: list[Glyph], card_bottom: float) -> float:
    """How much of a card's face its text uses: from the band's last line (the glyphs on the card's
    first line, the band's) down to FOOT_ZONE above the cut (where the footer stands), the share
    that its text reaches down to (at most 1)."""
    first = max(glyph.box[3] for glyph in band_and_text)
    band = [glyph for glyph in band_and_text if glyph.box[3] > first - glyph.size]  # the band: the line at the top
    below_band = min(glyph.box[1] for glyph in band)
    text = [glyph.box[1] for glyph in band_and_text if glyph not in band]
    room = below_band - (card_bottom + FOOT_ZONE)
    return round(min(1.0, (below_band - min(text)) / room), 3) if text and room > 0 else 0.0


def measure_cards(pdf: bytes, paper: str) -> CardMeasures:
    """The cards' PDF: nine cards to a page, 3 × 3 and centred (aid_compose.card_sheets)."""
    width, height = SHEETS[paper]
    x0, y0 = (width - 3 * CARD_SIZE[0]) / 2, (height - 3 * CARD_SIZE[1]) / 2
    sizes, above_footers, nearest, footer, close, cards = [], [], float("inf"), float("inf"), set(), 0
    faces: dict[int, tuple[list[Glyph], float]] = {}  # card number -> the glyphs above its footer, its bottom
    in_cells: list[float] = []
    for number, page in enumerate(pypdfium2.PdfDocument(pdf)):
        found = glyphs(page)
        in_cells += [glyph.size for glyph in in_tables(page, found)]
        for glyph in found:
            left, bottom, right, top = glyph.box
            column, row = int((left - x0) // CARD_SIZE[0]), int((height - top - y0) // CARD_SIZE[1])
            if not (0 <= column < 3 and 0 <= row < 3):
                continue  # in the margins: the note on printing at 100 %
            sizes.append(glyph.size)
            card_left, card_top = x0 + column * CARD_SIZE[0], height - y0 - row * CARD_SIZE[1]
            inside = min(left - card_left, card_left + CARD_SIZE[0] - right, card_top - top, bottom - (card_top - CARD_SIZE[1])) / MM
            nearest = min(nearest, inside)
            card = number * 9 + row * 3 + column
            cards = max(cards, card + 1)
            if top - (card_top - CARD_SIZE[1]) < FOOT_ZONE:
                footer = min(footer, inside)
                if inside < 4:
                    close.add((number, row, column))
            else:
                above_footers.append(glyph.size)
                faces.setdefault(card, ([], card_top - CARD_SIZE[1]))[0].append(glyph)
    return CardMeasures(
        body_type(above_footers),
        min(sizes),
        round(nearest, 2),
        round(footer, 2),
        len(close),
        cards,
        [face_use(*faces[card]) if card in faces else 0.0 for card in range(cards)],
        min(in_cells, default=None),
    )


@dataclass
class SheetMeasures:
    body_type: float  # points
    smallest_type: float  # points
    pages: int
    column_fill: list[list[float]]  # per page, per column: the part of the column's height its text reaches
    table_type: float | None = None  # points: the smallest type in a table's cell; None without tables


def measure_sheet(pdf: bytes, paper: str) -> SheetMeasures:
    """The sheet's PDF: three columns under the title, centred on the paper (aid_compose.sheet_on_paper)."""
    width, height = SHEETS[paper]
    left = (width - SHEET_AREA[0]) / 2 + (SHEET_AREA[0] - SHEET_TEXT_WIDTH) / 2
    top, bottom = height - (height - SHEET_AREA[1]) / 2 - SHEET_MARGIN[0], (height - SHEET_AREA[1]) / 2 + SHEET_MARGIN[1]
    sizes, fill, in_cells = [], [], []
    for page in pypdfium2.PdfDocument(pdf):
        lowest = [top] * SHEET_COLUMNS
        found = glyphs(page)
        in_cells += [glyph.size for glyph in in_tables(page, found)]
        for glyph in found:
            sizes.append(glyph.size)
            column = int((glyph.box[0] - left) // (COLUMN_WIDTH + COLUMN_GAP))
            if 0 <= column < SHEET_COLUMNS and glyph.box[1] > bottom:  # the footer stands below the columns
                lowest[column] = min(lowest[column], glyph.box[1])
        fill.append([round((top - low) / (top - bottom), 2) for low in lowest])
    return SheetMeasures(body_type(sizes), min(sizes), len(fill), fill, min(in_cells, default=None))
