"""Stage 4c, second part: lay out an aid's HTML (made by cards.py) and check the layout; then have
aid_compose.py make the PDFs of the pieces, and make the preview. Runs in the aid worker processes
only: the build's own process never imports WeasyPrint, so the workers load it while the build
loads and checks the data.

Layout (WeasyPrint) is nearly all the cost, so each item of an aid is laid out once, on a page of
its own the size of a card's text (an item the cards split over two, again: `split_items`), and the
other pieces (titles, bars, bands, footers) once, in a small second document; the sheet and the
cards, on either paper, are made of those pages without laying anything out again. Layout problems
are build errors, not surprises on paper: an aid longer than its page limit, a box running off its
page, or a glyph no font has.
"""

from __future__ import annotations

import atexit
import gc
import html as html_module
import io
import itertools
import os
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from html.parser import HTMLParser
from typing import Any, NoReturn

import pypdfium2
from pypdf import PdfReader
from weasyprint import HTML
from weasyprint.document import Document, Page
from weasyprint.formatting_structure.boxes import BlockBox, Box, InlineBox, LineBox, MarginBox, ReplacedBox, TableRowBox, TableRowGroupBox, TextBox
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

from ...base.aid_geometry import TABLE_RULE
from ...base.fonts import FONT_FAMILY, font_coverage, uncovered
from .aid_compose import Break, ItemPieces, Piece, arrange_sheet, balanced_faces, card_sheets, chosen_breaks, readers, sheet_on_paper, stack_end
from .cards import (
    CARD_MARGIN,
    CARD_SIZE,
    CARD_TEXT,
    FOOT_INSET,
    MM,
    PREVIEW,
    SHEET_HTML,
    SHEETS,
    AidError,
    AidFetchError,
    AidFiles,
    AidJob,
    aid_file,
    css_string,
    sheet_page,
)


def paints(box: Box) -> bool:
    """Whether a box puts ink on paper: text, images, or a border or background of its own.
    (Layout containers such as column boxes may be a few points taller than their content.)"""
    if isinstance(box, (TextBox, LineBox, ReplacedBox)):
        return True
    borders = any(getattr(box, f"border_{side}_width", 0) for side in ("top", "right", "bottom", "left"))
    background = box.style["background_color"] if getattr(box, "style", None) else None
    return bool(borders) or bool(background is not None and getattr(background, "alpha", 0) > 0)


def overflowing_boxes(document: Document) -> list[str]:
    """Boxes that paint outside their page's content area (checked on WeasyPrint's laid-out page boxes)."""
    problems = []
    tolerance = 0.75  # points
    for number, page in enumerate(document.pages, 1):
        page_box = page._page_box
        left, top = page_box.content_box_x(), page_box.content_box_y()
        right, bottom = left + page_box.width, top + page_box.height
        for box in painted_boxes(page):
            # The border box: margins may run into the page margin (they collapse at a page break).
            x, y = box.position_x + (box.margin_left or 0), box.position_y + (box.margin_top or 0)
            width, height = box.border_width(), box.border_height()
            if x < left - tolerance or y < top - tolerance or x + width > right + tolerance or y + height > bottom + tolerance:
                text = getattr(box, "text", "") or box.element_tag
                problems.append(f"page {number}: {type(box).__name__} '{str(text)[:40]}' leaves the page area")
    return problems


def _resources_and_streams(pdf: bytes) -> Iterator[tuple[Any, bytes]]:
    """Every (resources, content bytes) of the PDF: pages and, recursively, their form XObjects
    (imposed card sheets keep each card as a form XObject). The resources as pypdf reads them (untyped there):
    a dictionary, a reference to one, or None."""
    for page in PdfReader(io.BytesIO(pdf)).pages:
        content = page.get_contents()
        stack = [(page.get("/Resources"), content.get_data() if content is not None else b"")]
        while stack:
            resources, data = stack.pop()
            yield resources, data
            resources = resources.get_object() if resources is not None else {}
            for xobject in resources.get("/XObject", {}).values():
                xobject = xobject.get_object()
                if xobject.get("/Subtype") == "/Form":
                    stack.append((xobject.get("/Resources"), xobject.get_data()))


def uncovered_characters(html: str) -> list[str]:
    """Characters of the aid's text that its fonts cannot draw, as 'U+XXXX c'."""
    text = html_module.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S))
    missing = uncovered(text)
    return [f"U+{ord(ch):04X} {ch}" for ch in missing]


def fonts(pdf: bytes) -> dict[str, bool]:
    """Font name -> whether its program is embedded, over pages and form XObjects."""
    found = {}
    for resources, _ in _resources_and_streams(pdf):
        resources = resources.get_object() if resources is not None else {}
        for font in resources.get("/Font", {}).values():
            font = font.get_object()
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant.get("/FontDescriptor")
            descriptor = descriptor.get_object() if descriptor is not None else {}
            found[str(font.get("/BaseFont"))] = any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    return found


def first_page_png(pdf: bytes, scale: float = 1.5) -> bytes:
    """A preview of the first page, readable at 1.5 × 72 dpi. Grey and the fastest zlib level:
    it is a preview, not a print master (in colour with `optimize=True` it took 3–4× as long, for
    files 2–3× as big; the aids' only colour is the pale section bars)."""
    document = pypdfium2.PdfDocument(pdf)
    image = document[0].render(scale=scale, grayscale=True).to_pil()
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def produce(job: AidJob) -> AidFiles:
    """Lay out, check and write one aid's files (runs in a worker process): the items and the other
    pieces are laid out once each, and both PDFs made of them (aid_compose.py)."""

    def name(part: str) -> str:
        return aid_file(job.game, job.lang, part)

    parts_document = checked_document(job.parts_html.replace("</style>", smaller_css([DENSE_MARK]) + "</style>", 1), name("sheet"))
    parts = dict(part_on(page, number) for number, page in enumerate(parts_document.pages))
    marks = continued_marks(parts_document)
    bands = [parts[f"band-{number}"] for number in range(len(job.sections))]
    band_room = max((band.height + band.margin_bottom for band in bands), default=0)
    foot_room = max((piece.height for part, piece in parts.items() if part.startswith("card-foot-")), default=0) + FOOT_INSET + MM / 2
    item_height = CARD_SIZE[1] - CARD_MARGIN[0] - band_room - foot_room  # what a card leaves between its band and its footer
    card_html, items_document, apart, smaller = lay_out_cards(with_page_height(job.card_html, item_height), name("cards"))
    items = item_pieces(job, items_document, name("cards"), apart)
    sheet = arrange_sheet(job, items, parts, name("sheet"))  # each item whole
    for item in items:
        item.title_more = planned_title_more(items_document.pages[item.pages[0].page], marks[item.anchor in smaller])
    alone = [number for number, section in enumerate(job.sections) if section.last_on_sheet]
    card_items, items_document = split_cards(card_html, items_document, items, (item_height, bands, alone), name("cards"))
    sources = readers(items_document.write_pdf(), parts_document.write_pdf())
    sheet_pages = {paper: sheet_page(job, paper, sheet.plan, smaller_css(smaller)) for paper in SHEETS}  # in the PDF's columns, as set there
    files = {name(SHEET_HTML[paper]): page.encode("utf-8") for paper, page in sheet_pages.items()}
    files[name("cards.html")] = card_html.encode("utf-8")
    for paper in SHEETS:
        files[name(f"sheet-{paper}.pdf")] = sheet_on_paper(job, sheet, sources, paper)
        files[name(f"cards-{paper}.pdf")] = card_sheets(job, card_items, parts, sources, paper)
    files[name(PREVIEW)] = first_page_png(files[name("sheet-a4.pdf")])  # the one the site shows (cards.aid_links)
    return AidFiles(job.game, job.lang, files)


PX = 0.75  # WeasyPrint lays out in CSS pixels; PDF pages are measured in points


def with_page_height(html: str, height: float) -> str:
    """The items' HTML with their pages `height` points high: what a card leaves below its band."""
    return html.replace("</style>", f"@page {{ size: {CARD_TEXT[0]:.3f}pt {height:.3f}pt; }}\n</style>", 1)


def extent(page: Page) -> tuple[float, float]:
    """Top and bottom, in points from the page's top, of what a laid-out page paints."""
    return extent_of(painted_boxes(page))


def extent_of(boxes: Iterable[Box]) -> tuple[float, float]:
    """Top and bottom, in points from the page's top, of what `boxes` paint."""
    tops, bottoms = [], []
    for box in painting(boxes):
        y = box.position_y + (box.margin_top or 0)
        tops.append(y)
        bottoms.append(y + box.border_height())
    return (min(tops) * PX, max(bottoms) * PX) if tops else (0.0, 0.0)


def part_on(page: Page, number: int) -> tuple[str, Piece]:
    """The piece on page `number` of the parts' document (one a page), by its id."""
    box = next(box for box in all_boxes(page) if "piece" in class_of(box))
    top, bottom = extent(page)
    return box.element.get("id"), Piece(
        "parts", number, top, box.border_width() * PX, bottom - top, (box.margin_top or 0) * PX, (box.margin_bottom or 0) * PX
    )


def item_pieces(job: AidJob, document: Document, name: str, apart: Collection[str] = ()) -> list[ItemPieces]:
    """Each item of the aid, in order, with the pages it was laid out on (the items' document). An item in
    `apart` (its id) has two, its text and its table, and its title again on a page between them."""
    listed = [(number, item) for number, section in enumerate(job.sections) for item in section.items]
    reading = ItemsRead(name, listed, apart)
    for page_number, (page, card) in enumerate(zip(document.pages, card_of_each_page(document), strict=True)):
        reading.read(page, page_number, card)
    if len(reading.items) != len(listed):
        raise AidError(f"{name}: {len(listed) - len(reading.items)} item(s) missing from the laid-out cards")
    return reading.items


@dataclass
class ItemsRead:
    """`item_pieces` reading the items' document a page at a time: the aid's items as listed, (section number, item),
    those begun so far, and the margins of the last one's box, which the pages it runs on to keep."""

    name: str
    listed: list[tuple[int, tuple[str, str, str, str]]]
    apart: Collection[str]
    items: list[ItemPieces] = field(default_factory=list)
    margins: tuple[float, float] = (0.0, 0.0)

    def read(self, page: Page, page_number: int, card: str | None) -> None:
        """Take page `page_number`, whose title is `card`'s (None: untitled): an item's first page, its title again,
        its table set apart, or the rest of an item that ran on."""
        top, bottom = extent(page)
        laid_out = Piece("items", page_number, top, CARD_TEXT[0], bottom - top)  # its margins set below
        same = bool(self.items) and self.listed[len(self.items) - 1][1][0] == card  # a heading of the item's own text on a page it ran on to
        if card is not None and not same:
            self.begin(page, laid_out, card)
        elif same and self.is_title_again(page, card):
            heading = first_tagged(page, "h3")
            self.items[-1].title_again = replace(laid_out, margin_top=self.margins[0], margin_bottom=css_margin(heading, "bottom"))
        elif card is None and self.items[-1].title_again is not None and len(self.items[-1].pages) == 1:  # the table set apart
            table = first_tagged(page, "table")
            self.items[-1].pages.append(replace(laid_out, margin_top=css_margin(table, "top"), margin_bottom=self.margins[1]))
        else:  # the rest of an item that ran on
            self.items[-1].pages.append(replace(laid_out, margin_top=self.margins[0], margin_bottom=self.margins[1]))

    def is_title_again(self, page: Page, card: str | None) -> bool:
        """Whether `page`, of the last item begun, is its title again (an item set apart has it once)."""
        return card in self.apart and self.items[-1].title_again is None and any("again" in class_of(box) for box in all_boxes(page))

    def begin(self, page: Page, laid_out: Piece, card: str) -> None:
        """The next item, titled on `page` (`laid_out`: where it stands there), with where it may be split."""
        if len(self.items) == len(self.listed) or self.listed[len(self.items)][1][0] != card:
            raise AidError(f"{self.name}: card '{card}' is not where the aid lists it")  # two items with one id
        section, (_, title, colour, site_page) = self.listed[len(self.items)]
        box = next(box for box in all_boxes(page) if "item" in class_of(box))
        self.margins = ((box.margin_top or 0) * PX, (box.margin_bottom or 0) * PX)
        below = [child for child in box.children if getattr(child, "element_tag", None)][-1]  # the text's last block
        bottom_margin = css_margin(below, "bottom") if card in self.apart else self.margins[1]  # its table follows on the sheet
        first = replace(laid_out, margin_top=self.margins[0], margin_bottom=bottom_margin)
        breaks = item_breaks(box, first, card, page.height) if card not in self.apart else []
        self.items.append(ItemPieces(section, title, colour, [first], site_page, anchor=card, breaks=breaks))


def first_tagged(page: Page, tag: str) -> Box:
    """The first box of a laid-out page that is an element `tag` ("h3", "table")."""
    return next(box for box in all_boxes(page) if getattr(box, "element_tag", None) == tag)


HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
LEAST_LINES = 2  # an item split over two cards keeps this many lines of its text at least on each (no lone line)
SPLIT_SLACK = 0.5  # points: a split item's head and rest, laid out on pages of their own, come out as high as here or less


def item_breaks(item: Box, piece: Piece, card: str, page_height: float) -> list[Break]:
    """Where the item laid out in `item` (its box; `piece`: its page, `page_height` high in CSS pixels) may be split
    over two cards: after one of its blocks (a paragraph, a table whole) or list items, never after a heading, leaving
    LEAST_LINES lines of its text at least on either side; and within one (`within_breaks`). Each break's head and
    rest as high as they are on this page, their own pages to come (page -1: aid_layout.split_items lays them out)."""
    blocks = item_blocks(item, card)
    lines = [len({round(line.position_y, 1) for line in all_boxes_of(block) if isinstance(line, LineBox)}) for block, _ in blocks]
    breaks = []
    for at in range(1, len(blocks)):
        above, below = blocks[at - 1][0], blocks[at][0]
        if above.element_tag in HEADINGS or sum(lines[:at]) < LEAST_LINES or sum(lines[at:]) < LEAST_LINES:
            continue
        head_bottom = (above.position_y + (above.margin_top or 0) + above.border_height()) * PX
        rest_top = (below.position_y + (below.margin_top or 0)) * PX
        head, rest = split_pieces(piece, head_bottom, rest_top)
        breaks.append(Break(head, rest, f"{blocks[at - 1][1]} {{ break-after: page; }}\n"))
    return breaks + within_breaks(item, piece, card, page_height, blocks)


def item_blocks(item: Box, card: str) -> list[tuple[Box, str]]:
    """The blocks of the item laid out in `item` (its box; `card`: its id) below its title, in order, each with the CSS
    selector that picks it: its paragraphs and tables, and for a list, each of its list items."""
    own = [child for child in item.children if getattr(child, "element", None) is not None and child.element in list(item.element)]
    element_number = child_numbers(item)
    blocks: list[tuple[Box, str]] = []
    for child in own[1:]:  # below the title
        selector = f'.item[id="{css_string(card)}"] > :nth-child({element_number[id(child.element)]})'
        if child.element_tag in ("ul", "ol"):
            entries = [entry for entry in child.children if getattr(entry, "element_tag", None) == "li"]
            numbers = child_numbers(child)
            blocks += [(entry, f"{selector} > :nth-child({numbers[id(entry.element)]})") for entry in entries]
        else:
            blocks.append((child, selector))
    return blocks


def child_numbers(box: Box) -> dict[int, int]:
    """The child elements of `box`'s element, by their id(), numbered as CSS :nth-child counts them (from 1)."""
    return {id(element): number for number, element in enumerate((e for e in box.element if isinstance(e.tag, str)), 1)}


def split_pieces(piece: Piece, head_bottom: float, rest_top: float) -> tuple[Piece, Piece]:
    """The head and the rest of the item on `piece` split where its head ends at `head_bottom` and its rest begins at
    `rest_top` (points from the page's top): each as high as it is on this page and SPLIT_SLACK more."""
    head = Piece("items", piece.page, piece.top, piece.width, head_bottom - piece.top + SPLIT_SLACK, piece.margin_top, 0.0)
    rest = Piece("items", -1, 0.0, piece.width, piece.top + piece.height - rest_top + SPLIT_SLACK, 0.0, piece.margin_bottom)
    return head, rest


def lead_lines(block: Box, lines: list[LineBox]) -> int:
    """How many of a paragraph's or list item's `lines` its lead takes: the elements its text begins with, up to the
    first words after them (an open question's number and question, a term in bold before its definition); 0 when it
    begins with words. A split between its lines comes after them, so the lead is read whole (an open question was cut
    after two lines of its question)."""
    if (block.element.text or "").strip():
        return 0
    lead = []
    for child in block.element:
        lead.append(child)
        if (child.tail or "").strip():
            break
    in_lead = [number for number, line in enumerate(lines) if any(box.element in lead for box in all_boxes_of(line))]
    return 1 + max(in_lead, default=-1)


LEAST_ROWS = 2  # a table split over two cards keeps this many of its body rows at least on each, under its head row
END_SLACK = 1.0  # CSS pixels left below the last line or row of a split item's head on its page (less than a line)


def within_breaks(item: Box, piece: Piece, card: str, page_height: float, blocks: list[tuple[Box, str]]) -> list[Break]:
    """Where the item laid out in `item` may be split within one of its `blocks` (each with its CSS selector): between
    two lines of a paragraph or list item (not one holding a list: LEAST_LINES at least on either side, as WeasyPrint's
    orphans and widows keep them), or two body rows of a table (LEAST_ROWS on either side, its head row repeated above
    the rest, as WeasyPrint repeats a thead). Such an item is laid out again with a spacer above its title
    (`::before`) that leaves its first page room down to that line or row only, and WeasyPrint breaks the page there."""
    start = item.position_y + (item.margin_top or 0)
    breaks = []
    for block, selector in blocks:
        spans = block_spans(block, selector)
        if spans is None:
            continue  # a list item holding a list
        for at in range(spans.first, len(spans.spans) - spans.least + 1):
            head_bottom, rest_top = spans.spans[at - 1][1] + spans.rule, spans.spans[at][0]
            spacer = page_height - (head_bottom - start) - END_SLACK
            head, rest = split_pieces(piece, head_bottom * PX, (rest_top - spans.extra) * PX)
            css = spans.css + f'.item[id="{css_string(card)}"]::before {{ content: ""; display: block; height: {spacer:.3f}px; }}\n'
            breaks.append(Break(head, rest, css, within=True))
    return breaks


@dataclass(frozen=True)
class Spans:
    """The lines of a paragraph or list item, or the body rows of a table, that `within_breaks` may split a block between:
    each line's or row's (top, bottom) in CSS pixels; how many stay on either side at `least`, and on the first card at
    `first` (a paragraph's lead whole: `lead_lines`); what the rest's page repeats above it (`extra`: a table's head row
    and rule) and the head's ends with below its last span (`rule`: a table's); `css`: what lets the block break."""

    spans: list[tuple[float, float]]
    least: int
    first: int
    extra: float = 0.0
    rule: float = 0.0
    css: str = ""


def block_spans(block: Box, selector: str) -> Spans | None:
    """Where `block` (picked by `selector`) may be split: a table between its body rows, a paragraph or list item between
    its lines; None for a list item holding a list."""
    if block.element_tag == "table":
        return table_spans(block, selector)
    if any(isinstance(box, BlockBox) and box.element is not block.element for box in all_boxes_of(block)):
        return None
    lines = [box for box in all_boxes_of(block) if isinstance(box, LineBox) and box.element is block.element and box.element_tag == block.element_tag]
    return Spans([(line.position_y, line.position_y + line.height) for line in lines], LEAST_LINES, max(LEAST_LINES, lead_lines(block, lines)))


def table_spans(table: Box, selector: str) -> Spans:
    """Where `table` (picked by `selector`) may be split: between its body rows, its head row repeated above the rest."""
    groups = [box for box in all_boxes_of(table) if isinstance(box, TableRowGroupBox)]
    body = [row for group in groups if group.element_tag == "tbody" for row in group.children if isinstance(row, TableRowBox)]
    head_rows = sum(group.border_height() for group in groups if group.element_tag == "thead")
    rows = [(row.position_y, row.position_y + row.height) for row in body]
    return Spans(rows, LEAST_ROWS, LEAST_ROWS, head_rows + TABLE_RULE / PX, TABLE_RULE / PX, f"{selector} {{ break-inside: auto; }}\n")


def all_boxes_of(box: Box) -> Iterator[Box]:
    """`box` and every box inside it, parents before children, in the document's order."""
    stack = [box]
    while stack:
        box = stack.pop()
        yield box
        stack.extend(reversed(getattr(box, "children", [])))


def split_items(html: str, document: Document, items: list[ItemPieces], splits: dict[int, Break], name: str) -> tuple[list[ItemPieces], Document]:
    """The items as the cards print them, and the items' document with the pages they need: each item in `splits`
    laid out again (only those), with a page break after the block its break comes after, its head and its rest on a
    page each (`split`, appended to the document), and its title marked as continued (aid.html.j2: `h3.more`) on a
    third: laid out with its item, it is set at the item's size (an item set smaller, DENSE, had it at full size).
    Where card_faces put the split pieces (`item_breaks`: a little higher than they are here), the pieces laid out
    fit; an item whose head or rest came out higher stays whole (that should not happen: the item is laid out at the
    same width)."""
    cards = [replace(item, breaks=[]) for item in items]
    if not splits:
        return cards, document
    style = "".join(split.css for split in splits.values())
    style += "".join(f'.item[id="{css_string(items[number].anchor)}"] h3.more {{ {MORE} }}\n' for number in splits)
    again = checked_document(only_these(html, [items[number].anchor for number in splits], style), name)
    pages, laid_out = list(document.pages), list(zip(again.pages, card_of_each_page(again), strict=True))
    if len(laid_out) != 3 * len(splits):
        raise AidError(f"{name}: the items split over two cards took {len(laid_out)} pages, not {3 * len(splits)}")
    for at, (number, split) in enumerate(splits.items()):
        (head_page, card), (rest_page, untitled), (more_page, more_card) = laid_out[3 * at : 3 * at + 3]
        if card != items[number].anchor or untitled is not None or more_card != card:
            raise AidError(f"{name}: '{items[number].title[:40]}' did not split where the cards split it")
        (head_top, head_bottom), (rest_top, rest_bottom), (more_top, more_bottom) = extent(head_page), extent(rest_page), extent(more_page)
        head_piece = replace(split.head, page=len(pages), top=head_top, height=head_bottom - head_top)
        rest_piece = replace(split.rest, page=len(pages) + 1, top=rest_top, height=rest_bottom - rest_top)
        heading = next(box for box in all_boxes(more_page) if getattr(box, "element_tag", None) == "h3")
        more = Piece("items", len(pages) + 2, more_top, CARD_TEXT[0], more_bottom - more_top, 0.0, css_margin(heading, "bottom"))
        if head_piece.height <= split.head.height and rest_piece.height <= split.rest.height:
            cards[number] = replace(cards[number], pages=[head_piece, rest_piece], split=True, title_more=more)
            pages += [head_page, rest_page, more_page]
    return cards, document.copy(pages)


MORE = "display: block; break-before: page;"  # a split item's title marked as continued (aid.html.j2: h3.more), on a page of its own


def split_cards(
    html: str, document: Document, items: list[ItemPieces], faces: tuple[float, list[Piece], list[int]], name: str
) -> tuple[list[ItemPieces], Document]:
    """The items as the cards print them and the items' document with their pages (`split_items`), split where
    `balanced_faces` (its room, bands and sections alone: `faces`) splits them, planned with the titles marked as
    continued that `planned_title_more` foresees, each item that begins a card so marked (`starts_card`: card_faces
    composes the cards as planned). A title laid out higher than foreseen, that would leave its rest past the card,
    is planned again at its height (it does not happen on the bundled aids: planned once)."""
    room = faces[0]
    while True:
        planned = balanced_faces(items, *faces)
        splits = chosen_breaks(items, planned)
        cards, split_document = split_items(html, document, items, splits, name)
        first_card = {number: card for card, face in reversed(list(enumerate(planned))) for number, _ in face}
        starts = {number for number, card in first_card.items() if planned[card][0][0] == number}
        cards = [replace(card, starts_card=number in starts) for number, card in enumerate(cards)]
        higher = [
            n for n, card in enumerate(cards) if card.split and card.title_more is not None and stack_end([card.title_more, card.pages[1]]) > room
        ]
        if not higher:
            return cards, split_document
        for number in higher:  # its title as laid out: never higher again, so this ends
            items[number].title_more = cards[number].title_more


@dataclass(frozen=True)
class ContinuedMark:
    """What marking an item's title as continued adds to it (aid-parts.html.j2: `continued-mark`, at full size and set
    smaller, DENSE): the words' `width` with the space before them (CSS pixels), and, in points, how much `higher` the
    line they end is and a `line` of their own, where they do not fit beside the title's last line."""

    width: float
    higher: float
    line: float


def continued_marks(document: Document) -> dict[bool, ContinuedMark]:
    """The continued mark measured on the parts' document, at full size (False) and set smaller (True)."""
    marks = {}
    for page in document.pages:
        piece = next(box for box in all_boxes(page) if "piece" in class_of(box))
        if piece.element.get("id") in ("continued-mark", DENSE_MARK):
            plain, marked = [box for box in all_boxes_of(piece) if isinstance(box, BlockBox) and box.element_tag == "h3"]
            word, *more = [box for box in all_boxes_of(marked) if isinstance(box, InlineBox) and box.element_tag == "span"]
            (plain_top, plain_bottom), (marked_top, marked_bottom) = extent_of(all_boxes_of(plain)), extent_of(all_boxes_of(marked))
            # the continuation word may run over lines (a long one: a box a line); as wide as its widest reach
            width = max(box.position_x + box.margin_width() for box in more) - (word.position_x + word.margin_width())
            line = plain_bottom - plain_top
            marks[piece.element.get("id") == DENSE_MARK] = ContinuedMark(width, marked_bottom - marked_top - line, line)
    return marks


DENSE_MARK = "continued-mark-dense"  # the continued mark set smaller (DENSE), as an item set smaller sets its title


def planned_title_more(page: Page, mark: ContinuedMark) -> Piece:
    """The title marked as continued of the item laid out on `page` (its first), as high as foreseen from its own title
    (`mark`: what the mark adds, at the item's size): a line more if the mark does not fit beside its last line.
    Laid out only for the items the cards split (`split_items`: aid.html.j2 h3.more); all of them, laid out to plan,
    took a tenth of the aids' layout time."""
    heading = next(box for box in all_boxes(page) if isinstance(box, BlockBox) and box.element_tag == "h3")
    last = [box for box in all_boxes_of(heading) if isinstance(box, LineBox)][-1]
    end = max(box.position_x + box.margin_width() for box in all_boxes_of(last) if box is not last and box.position_x is not None)
    wraps = end + mark.width > heading.content_box_x() + heading.width + 0.01
    top, bottom = extent_of(all_boxes_of(heading))
    return Piece("items", -1, 0.0, CARD_TEXT[0], bottom - top + mark.higher + (mark.line if wraps else 0.0), 0.0, css_margin(heading, "bottom"))


def only_these(html: str, ids: list[str], style: str = "") -> str:
    """The items' HTML with only the items whose ids are `ids` (as they stand in it), the first of them on the first
    page (no blank page), and `style` added. The others are left out, not hidden: WeasyPrint then parses and styles
    only these (styling every item again to lay out two or three took a fifth of an aid's time)."""
    spans = ItemSpans(html).spans
    dropped = sorted(span for item, span in spans.items() if item not in ids)
    kept, at = [], 0
    for start, end in dropped:
        kept.append(html[at:start])
        at = end
    first = f'.item[id="{css_string(ids[0])}"] {{ break-before: auto; }}\n'
    return "".join(kept + [html[at:]]).replace("</style>", style + first + "</style>", 1)


class ItemSpans(HTMLParser):
    """Where each item's element (`<div class="item …" id="…">` and what it holds) stands in the cards' HTML: `spans`,
    item id -> (start, end) as offsets into it."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=False)
        # lines as the parser counts them (getpos): at "\n" only, not at every line boundary str.splitlines knows
        self.line_starts = list(itertools.accumulate((len(line) + 1 for line in html.split("\n")), initial=0))
        self.spans: dict[str, tuple[int, int]] = {}
        self.item: tuple[str, int] | None = None  # the item being read: its id and where it starts
        self.depth = 0  # of <div> elements in the item being read
        self.feed(html)
        self.close()

    def at(self) -> int:
        """Where the parser is, as an offset into the HTML."""
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "div":
            return
        values = dict(attrs)
        if self.item is None and "item" in (values.get("class") or "").split():
            self.item, self.depth = (values.get("id") or "", self.at()), 0
        self.depth += self.item is not None

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.item is not None:
            self.depth -= 1
            if not self.depth:
                item, start = self.item
                self.spans[item] = (start, self.at() + len("</div>"))
                self.item = None


def css_margin(box: Box, side: str) -> float:
    """A box's margin on `side` ("top", "bottom") in points, as its style gives it: a page break keeps none
    of a margin before it (CSS), and a piece keeps its margins for where it is stacked (aid_compose.stack_end)."""
    value = box.style[f"margin_{side}"]
    return float(value.value) * PX if value.unit == "px" else 0.0


def all_boxes(page: Page) -> Iterator[Box]:
    """Every box of a laid-out page but its margin boxes, parents before children."""
    for child in page._page_box.children:
        if not isinstance(child, MarginBox):
            yield from all_boxes_of(child)


def painted_boxes(page: Page) -> Iterator[Box]:
    """The boxes of a page that put ink on paper, with a position."""
    return painting(all_boxes(page))


def painting(boxes: Iterable[Box]) -> Iterator[Box]:
    """Those of `boxes` that put ink on paper, with a position."""
    return (box for box in boxes if getattr(box, "position_x", None) is not None and getattr(box, "position_y", None) is not None and paints(box))


def class_of(box: Box) -> list[str]:
    element = getattr(box, "element", None)
    return element.get("class", "").split() if element is not None and getattr(box, "element_tag", None) else []


@cache
def font_config() -> FontConfiguration:
    """One WeasyPrint font configuration per process, so that Pango's font and glyph caches carry
    over from one document to the next (by default WeasyPrint makes a new one per document)."""
    return FontConfiguration()


os.register_at_fork(after_in_child=font_config.cache_clear)  # a worker makes its own, not its parent's
# Release Pango's objects while the libraries are still loaded: left to interpreter teardown, the
# cached configuration is unreferenced after GLib is gone, and the process ends in a segfault.
atexit.register(font_config.cache_clear)


class NothingFetcher(URLFetcher):  # type: ignore[misc]  # WeasyPrint has no type information
    """WeasyPrint's URL fetcher for the aids: fetches nothing (no file, no network) and remembers
    what was asked. The aids need no resource (fonts come from fontconfig); WeasyPrint logs a
    failed fetch and goes on, so `checked_document` refuses the aid afterwards."""

    def __init__(self) -> None:
        super().__init__()
        self.requested: list[str] = []

    def fetch(self, url: str, headers: object = None) -> NoReturn:
        self.requested.append(url)
        raise ValueError("aids fetch nothing")


DENSE = "\n{selector} {{ font-size: 88%; line-height: 1.08; }}  /* cards that did not fit at full size (their tables keep their size) */\n"
APART = "\n{selector} {{ display: block; break-before: page; break-after: page; }}  /* its title again, its table on a card of its own */\n"


def lay_out_cards(html: str, name: str) -> tuple[str, Document, set[str], list[str]]:
    """The items' HTML as printed, their laid-out document, one card a page, the items whose table is set apart
    and those set smaller (the HTML sheet sets them so too: `smaller_css`). A card whose content runs on past
    its page (a long table and its footnotes) would leave an untitled card behind: it is set smaller instead
    (its prose: a table keeps its type, aid_geometry.TABLE_PT), and if it still runs on, its own table (an
    entry's, `data-table`) goes whole onto a page of its own after the item's title again, alone on a page
    (APART: `h3.again`, aid.html.j2), both at full size: the item's text and its table are then two pieces and
    its title a third (`item_pieces`); the cards print the text, then the table under the title, and the sheet
    the text and the table one under the other (aid_compose: Marauders' victory points at 7 pt). Only those
    cards are laid out again (the others hidden), and their pages replace the overrunning ones. A card that
    still does not fit runs on over more cards, its reference in their footer (only text no editor would print
    does: the layout tests hold the bundled aids to titled cards, each table whole on one)."""
    document = checked_document(html, name)
    items = card_of_each_page(document)
    overrun = [card for card, next_page in itertools.pairwise(items) if card is not None and next_page is None]
    if not overrun:
        return html, document, set(), []
    remedy = remedied(html, name, overrun, [])
    with_tables = items_with_tables(remedy.document)
    apart = [card for card, count in pages_of_each_card(remedy.cards).items() if count > 1 and card in with_tables]
    if apart:
        remedy = remedied(html, name, overrun, apart)
    counts = pages_of_each_card(remedy.cards)
    set_apart = {card for card in apart if counts[card] == 3}  # its text, its title again, its table: a page each
    smaller = [item for item in overrun if item not in apart]
    if any(count > (3 if card in set_apart else 1) for card, count in counts.items()):  # still too long: it runs on
        return remedy.html, checked_document(remedy.html, name), set_apart, smaller  # rather than failing
    return remedy.html, document.copy(remedied_pages(document, items, overrun, remedy, set_apart)), set_apart, smaller


@dataclass(frozen=True)
class Remedy:
    """The overrunning cards remedied (`lay_out_cards`): the items' HTML with them set smaller or their tables set
    apart, and those cards alone laid out again (`document`), with whose card each page is (`cards`)."""

    html: str
    document: Document
    cards: list[str | None]


def remedied(html: str, name: str, overrun: list[str], apart: list[str]) -> Remedy:
    """The HTML with the `overrun` cards set smaller but those in `apart`, whose tables go on a page of their own;
    and the overrunning cards laid out again."""
    tables = ", ".join(f'.item[id="{css_string(item)}"] h3.again' for item in apart)
    style = smaller_css([item for item in overrun if item not in apart]) + (APART.format(selector=tables) if tables else "")
    new_html = html.replace("</style>", style + "</style>", 1)
    small = checked_document(only_these(new_html, overrun), name)
    return Remedy(new_html, small, card_of_each_page(small))


def remedied_pages(document: Document, items: list[str | None], overrun: list[str], remedy: Remedy, set_apart: set[str]) -> list[Page]:
    """The pages of `document`, the items' first layout (`items`: whose card each page is), with those of the `overrun` cards replaced by their pages
    remedied (an item set apart: its text, its title again and its table, untitled)."""
    pages = []
    for item, page in zip(items, document.pages, strict=True):
        if item in overrun:
            pages += [small_page for small_item, small_page in zip(remedy.cards, remedy.document.pages, strict=True) if small_item == item]
            pages += [remedy.document.pages[remedy.cards.index(item) + 2]] if item in set_apart else []  # the table: untitled
        elif item is not None:
            pages.append(page)
    return pages


def smaller_css(cards: list[str]) -> str:
    """The CSS that sets the items `cards` (their ids) smaller (DENSE); "" for none."""
    return DENSE.format(selector=", ".join(f'.item[id="{css_string(card)}"]' for card in cards)) if cards else ""


def pages_of_each_card(cards: list[str | None]) -> dict[str, int]:
    """How many pages each card takes, from `card_of_each_page`: its titled page and the untitled ones after it."""
    counts: dict[str, int] = {}
    last = None
    for card in cards:
        last = card if card is not None else last
        if last is not None:
            counts[last] = counts.get(last, 0) + 1
    return counts


def items_with_tables(document: Document) -> set[str]:
    """The ids of the items with a table of their own (an entry's: `data-table`, after its title again), as laid out."""
    found = set()
    for page in document.pages:
        stack: list[tuple[Box, str | None]] = [(page._page_box, None)]
        while stack:
            box, item = stack.pop()
            item = box.element.get("id") if "item" in class_of(box) else item
            if item is not None and getattr(box, "element_tag", None) == "table" and box.element.get("data-table"):
                found.add(item)
            stack.extend((child, item) for child in getattr(box, "children", []))
    return found


def card_of_each_page(document: Document) -> list[str | None]:
    """The id of the card whose title stands on each page; None for a page without a card title
    (the rest of a card that ran over its page)."""
    cards: list[str | None] = []
    for page in document.pages:
        stack, card = [(page._page_box, None)], None
        while stack and card is None:
            box, item = stack.pop()
            if "item" in class_of(box):
                item = box.element.get("id")
            if getattr(box, "element_tag", None) == "h3":
                card = item
            stack.extend((child, item) for child in getattr(box, "children", []))
        cards.append(card)
    return cards


def checked_document(html: str, name: str) -> Document:
    """`html` laid out by WeasyPrint, or an AidError: a glyph no font has, a fetch, overflow. (How many
    pages a sheet may have is checked where the sheet is arranged: aid_compose.arrange_sheet.)"""
    missing = uncovered_characters(html)
    if missing:
        raise AidError(f"{name}: no glyph in {FONT_FAMILY} for {', '.join(missing[:10])}")
    fetcher = NothingFetcher()
    document = HTML(string=html, url_fetcher=fetcher).render(font_config=font_config())
    if fetcher.requested:
        asked = ", ".join(repr(url[:100]) for url in fetcher.requested[:3])
        raise AidFetchError(f"{name}: the aid asked for {asked}; aids fetch nothing")
    overflow = overflowing_boxes(document)
    if overflow:
        raise AidError(f"{name}: " + "; ".join(overflow[:5]))
    return document


def start_worker() -> None:
    """A layout worker collects garbage less often: WeasyPrint makes hundreds of thousands of
    objects per document, and at Python's default thresholds (700, 10, 10) the collector cost
    about a tenth of the layout time (measured on the bundled aids). Its font configuration and
    the fonts' coverage are made now, while the build is still loading the data."""
    gc.set_threshold(10_000, 20, 20)
    font_config()
    font_coverage()
