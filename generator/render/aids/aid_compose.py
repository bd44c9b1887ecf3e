"""Stage 4c, last part: the printed aids made of laid-out pieces, without laying anything out again.

WeasyPrint lays out each item of an aid once, on a page of its own the size of a card's text, and
the other pieces once, a page each (the sheet's title, section bars, continuation bars and footers,
the cards' bands and footers: aid-parts.html.j2). Both PDFs are made of those pages, each drawn where it belongs
as a PDF form XObject: the cards (band, the items that fit, a later section's under its own band, footer on each 63 × 88 mm
card: `card_faces`) and the sheet (items
in columns under their sections' bars, at most MAX_SHEET_PAGES pages), each composed directly on
A4 and on US Letter. Text stays text, and each font is embedded once per source document. The
layout checks ran on the pieces (aid_layout.py); a sheet over its page limit is refused here.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import ArrayObject, BooleanObject, DictionaryObject, Fit, FloatObject, IndirectObject, NameObject, StreamObject, TextStringObject

from .cards import (
    CARD_MARGIN,
    CARD_SIZE,
    COLUMN_GAP,
    COLUMN_WIDTH,
    FOOT_INSET,
    FULL_FACE,
    MAX_SHEET_PAGES,
    MM,
    RULE,
    SHEET_AREA,
    SHEET_COLUMNS,
    SHEET_MARGIN,
    SHEET_TEXT_WIDTH,
    SHEETS,
    AidError,
    AidJob,
    page_footer_of,
)

BLEED = 2.0  # points of room around a piece: a dashed outline is drawn just outside its table
SHEET_LEFT = (SHEET_AREA[0] - SHEET_TEXT_WIDTH) / 2  # the sheet's columns are centred across it


@dataclass
class Piece:
    """Where a laid-out piece stands on its page (points, from the page's top left), and the margins
    it asks for above and below (as CSS gives them; between two pieces the larger one counts)."""

    source: str  # "items" or "parts"
    page: int
    top: float
    width: float
    height: float
    margin_top: float = 0.0
    margin_bottom: float = 0.0


@dataclass
class Break:
    """A place where a one-page item may be split over two cards (aid_layout.item_breaks): after one of its blocks (a
    paragraph, a list item, a table whole), or `within` one, between two lines of a paragraph or list item or two rows
    of a table (its head row repeated); its `head` (its title and what stands above) and its `rest` (what follows),
    each as high as it would be laid out on a page of its own; `css`: what makes the item's page end there."""

    head: Piece
    rest: Piece
    css: str
    within: bool = False


@dataclass
class ItemPieces:
    """One item of the aid as laid out: usually one page, more if it ran on; or two, its text and its table
    set apart (aid_layout.lay_out_cards), with its title again (`title_again`) to print above the table on a card;
    or two, when it is split over two cards (`split`): its head and its rest, under its title marked as continued."""

    section: int
    title: str
    colour: str  # of its rule on the sheet
    pages: list[Piece]
    site_page: str = ""  # the page of the site it is on (cards.site_page; "" for none): cards of several items name it
    title_again: Piece | None = None  # the title above its table set apart, on the cards (the sheet prints it once)
    anchor: str = ""  # its id in the aid's HTML
    breaks: list[Break] = field(default_factory=list)  # where it may be split (a one-page item's), the card_faces choose
    title_more: Piece | None = None  # its title marked as continued, above the rest of it split: as planned, foreseen from its
    # own title (aid_layout.planned_title_more), then as printed, laid out with its item, at its item's size (split_items)
    split: bool = False  # its pages are its head and its rest, laid out again with a page break between (aid_layout)
    starts_card: bool = False  # it begins a card, as planned (`balanced_faces`: the card before ends earlier)

    @property
    def runs_on(self) -> bool:
        """Longer than a card: its pages take a card each, alone."""
        return len(self.pages) > 1 and self.title_again is None and not self.split

    @property
    def title_above_last(self) -> Piece | None:
        """The title the cards print above its last piece: its title again above its table set apart, or its title
        marked as continued above its rest split; None for neither."""
        return self.title_again or (self.title_more if self.split else None)


class Composition:
    """A PDF whose pages are made of pieces of other PDFs; each page of a source becomes one form
    XObject, drawn by every page that needs it."""

    def __init__(self, sources: dict[str, PdfReader]):
        self.writer = PdfWriter()
        self.sources = sources
        self.forms: dict[tuple[str, int], tuple[str, IndirectObject]] = {}  # (source, page) -> (name, form)
        self.pages: list[tuple[float, float, list[str]]] = []  # width, height, drawing operators
        self.origin = (0.0, 0.0)  # where (0, 0) of the coordinates given is, from the page's top left

    def new_page(self, width: float, height: float) -> int:
        self.pages.append((width, height, []))
        return len(self.pages) - 1

    def place(self, page: int, piece: Piece, x: float, top: float) -> None:
        """Draw `piece` on `page` with its top left at (x, top), clipped to its own area."""
        _, height, operators = self.pages[page]
        x, top = x + self.origin[0], top + self.origin[1]
        source = self.sources[piece.source].pages[piece.page]
        if (piece.source, piece.page) not in self.forms:
            self.forms[(piece.source, piece.page)] = (f"/P{len(self.forms)}", page_form(source, self.writer))
        name = self.forms[(piece.source, piece.page)][0]
        dx, dy = x, (height - top) - (float(source.mediabox.height) - piece.top)
        clip = (x - BLEED, height - top - piece.height - BLEED, piece.width + 2 * BLEED, piece.height + 2 * BLEED)
        operators.append(f"q {' '.join(f'{v:.3f}' for v in clip)} re W n 1 0 0 1 {dx:.3f} {dy:.3f} cm {name} Do Q")

    def rectangle(self, page: int, colour: str, x: float, top: float, width: float, height: float) -> None:
        """A filled rectangle (colour: #rrggbb, checked when the aid's HTML was made)."""
        page_height, operators = self.pages[page][1], self.pages[page][2]
        x, top = x + self.origin[0], top + self.origin[1]
        rgb = " ".join(f"{int(colour[i : i + 2], 16) / 255:.3f}" for i in (1, 3, 5))
        operators.append(f"q {rgb} rg {x:.3f} {page_height - top - height:.3f} {width:.3f} {height:.3f} re f Q")

    def pdf(self, title: str, lang: str, outline: Iterable[tuple[int, str, int, float]] = ()) -> bytes:
        """The PDF, print-ready: its title (shown by viewers) and language, printed at actual size
        (a viewer that scales to the paper would break the cards' size and the cut marks).
        `outline`: bookmarks in order, as (level, label, page, top), level 0 the outermost."""
        xobjects = DictionaryObject({NameObject(name): form for name, form in self.forms.values()})
        for width, height, operators in self.pages:
            page = self.writer.add_blank_page(width, height)
            page[NameObject("/Resources")] = DictionaryObject({NameObject("/XObject"): xobjects})
            content = StreamObject()
            content.set_data("\n".join(operators).encode("ascii"))
            page.replace_contents(content)  # type: ignore[arg-type]  # a plain stream is what pypdf writes
        parents: list[Any] = []
        for level, label, page_number, top in outline:
            del parents[level:]
            parents.append(
                self.writer.add_outline_item(
                    title=label,
                    page_number=page_number,
                    parent=parents[-1] if parents else None,
                    fit=Fit.xyz(left=0, top=self.pages[page_number][1] - top - self.origin[1]),
                )
            )
        self.writer.add_metadata({"/Title": title})
        root = self.writer._root_object  # the catalog: pypdf has no setter for /Lang
        root[NameObject("/Lang")] = TextStringObject(lang)
        root[NameObject("/ViewerPreferences")] = DictionaryObject(
            {NameObject("/PrintScaling"): NameObject("/None"), NameObject("/DisplayDocTitle"): BooleanObject(True)}
        )
        return _pdf_bytes(self.writer)


def page_form(page: PageObject, writer: PdfWriter) -> IndirectObject:
    """A reference, in `writer`, to a form XObject that draws `page` (one WeasyPrint page: one
    content stream). Cloning maps each source object once per writer, hence the shared fonts."""
    form: Any = page["/Contents"].get_object().clone(writer)  # type: ignore[union-attr]  # one content stream
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): ArrayObject(FloatObject(v) for v in page.mediabox),
            NameObject("/Resources"): page["/Resources"].clone(writer),
        }
    )
    reference: IndirectObject = form.indirect_reference  # the clone is in `writer`: it has one
    return reference


def card_faces(
    items: list[ItemPieces], room: float, bands: Sequence[Piece], alone: Collection[int] = (), caps: Mapping[int, float] | None = None
) -> list[list[tuple[int, Piece]]]:
    """What each card holds, in order: (item number, laid-out piece) stacked down its face. Consecutive
    items share a card while they fit one under the other in `room` (the height a card leaves between
    its band and its footer: the items' page height), each with its own title, the cards filled
    greedily in the aid's order (issue 28: a third of a face was used, and many cards held one line).
    The card's band names the section of its first item; an item of another section that fits below
    comes under that section's band (`bands`, one a section: the piece the band at a card's top is),
    stacked in the items area as (its number, the band) just above it, so every item stands under the
    name of its section (a section's last item and a short section no longer leave a card mostly empty).

    An item that does not fit what is left of a card under FULL_FACE used is split, as a designer would: it starts
    on that card and runs on to the next, under its title marked as continued (`title_more`), at the `breaks` place
    that leaves the most of it on the first card (the rest must fit the next; after a block whole where one fits,
    else within one: `best_break`). Here a split is chosen with the
    pieces its head and rest would be; aid_layout lays those items out again, split, and the cards are composed of
    them (`split`). An item that ran on over more pages (longer than a card) takes a card for each page, alone,
    and nothing joins its last page. The sections in `alone` never share a card: the QR code stays the first
    card alone. Answer tables and factions stack like the rest: each keeps its own title (a faction its
    coloured bar), so they read apart. An item whose table is set apart has its text where it fits and its
    table on a card of its own, under its title again.

    `caps`: card number -> the height that card is filled to at most, lower than `room` (`balanced_faces`), an item
    that begins it split there if it does not fit (at a break, as above); an item `starts_card` begins a card (where
    `balanced_faces` ended the card before earlier: the plan, composed again)."""
    return composed(items, room, bands, alone, caps).faces


def composed(
    items: list[ItemPieces],
    room: float,
    bands: Sequence[Piece],
    alone: Collection[int] = (),
    caps: Mapping[int, float] | None = None,
    like: Composed | None = None,
    changed: tuple[int, int] = (0, 0),
) -> Composed:
    """`card_faces`, noting after each item how many cards there are and what the last holds (`Composed.after`).

    With `like`, the cards composed with caps that differ from these only on the cards `changed` (first, after the
    last), the items that never reach those cards are placed as `like` placed them, without composing them again; and
    where the cards are in the same state as `like`'s after the same item, on a card after the changed ones, the rest
    goes on as in `like`, whose cards are taken. (Balancing composes the deck thousands of times, with caps changed
    on a few cards: `balanced_faces`.)"""
    faces = CardFaces(items, room, bands, set(alone), caps or {})
    after: list[tuple[int, list[tuple[int, Piece]]]] = []
    start = 0
    if like is not None:  # item m looks at the caps of cards before[m] - 1 and before[m]: before the changed ones, the same
        while start < len(items) and (like.after[start - 1][0] if start else 0) < changed[0]:
            start += 1
        if start:
            count, last = like.after[start - 1]
            faces.faces = [list(face) for face in like.faces[: count - 1]] + [list(last)]
            after = like.after[:start]
    for number in range(start, len(items)):
        faces.add(number, items[number])
        after.append((len(faces.faces), list(faces.faces[-1])))
        if like is not None and len(faces.faces) - 1 > changed[1] and same_card(after[-1], like.after[number]):
            open_card = len(faces.faces) - 1  # still open: `like` holds it as the items after this one filled it
            return Composed(faces.faces[:open_card] + like.faces[open_card:], after + like.after[number + 1 :], open_card)
    return Composed(faces.faces, after, len(faces.faces))


def same_card(one: tuple[int, list[tuple[int, Piece]]], other: tuple[int, list[tuple[int, Piece]]]) -> bool:
    """Whether two states of the cards (`Composed.after`) are the same: as many cards, the same pieces on the last."""
    return one[0] == other[0] and len(one[1]) == len(other[1]) and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(one[1], other[1], strict=True))


@dataclass
class Composed:
    """Cards as `composed` made them: `faces`, after each item how many cards there were and what the last held
    (item number and piece), and from which card on they are another composition's (`len(faces)` if none are)."""

    faces: list[list[tuple[int, Piece]]]
    after: list[tuple[int, list[tuple[int, Piece]]]]
    taken_from: int


@dataclass
class CardFaces:
    """The cards as `card_faces` fills them, an item at a time: `faces`, what each card holds so far."""

    items: list[ItemPieces]
    room: float
    bands: Sequence[Piece]
    alone: set[int]
    caps: Mapping[int, float]
    faces: list[list[tuple[int, Piece]]] = field(default_factory=list)

    def cap(self, card: int) -> float:
        """The height card number `card` is filled to at most: `room`, or lower where balanced."""
        return self.caps.get(card, self.room)

    def add(self, number: int, item: ItemPieces) -> None:
        """Put item `number` on the cards: its first piece on the last card if it may share it and fits there (split
        if it does not fit whole), each other piece on a card of its own (split if it does not fit the card it begins)."""
        last = self.faces[-1] if self.faces else []
        fill = self.cap(len(self.faces) - 1)
        band = self.band_above(last, item)
        above = [piece for _, piece in last] + band
        shares = self.may_share(last, item)
        pages, title_above_last = item.pages, item.title_above_last
        if shares and stack_end(above + pages[:1]) > fill and stack_end([piece for _, piece in last]) < FULL_FACE * self.room:
            pages, title_above_last = split_or_whole(item, above, self.room, fill, (pages, title_above_last))
        if shares and stack_end(above + pages[:1]) <= fill:
            last += [(number, piece) for piece in band + pages[:1]]
            pages = pages[1:]
        elif len(pages) == 1 and stack_end(pages) > (cap := self.cap(len(self.faces))):  # a card it begins, balanced
            pages, title_above_last = split_or_whole(item, [], self.room, cap, (pages, title_above_last))
        self.faces += [[(number, piece)] for piece in pages]
        if pages and title_above_last is not None:
            self.faces[-1].insert(0, (number, title_above_last))

    def band_above(self, last: list[tuple[int, Piece]], item: ItemPieces) -> list[Piece]:
        """The band to stack above `item` on the `last` card: its section's, if the card's last item is of another."""
        before = self.items[last[-1][0]] if last else None
        return [self.bands[item.section]] if before is not None and before.section != item.section else []

    def may_share(self, last: list[tuple[int, Piece]], item: ItemPieces) -> bool:
        """Whether `item` may join the `last` card: neither it nor the card's last item runs on over cards of its own,
        neither is of a section alone, and it does not begin a card as planned (`starts_card`)."""
        if not last or item.starts_card:
            return False
        before = self.items[last[-1][0]]
        return not before.runs_on and not item.runs_on and not {before.section, item.section} & self.alone


def split_or_whole(
    item: ItemPieces, above: list[Piece], room: float, fill: float, whole: tuple[list[Piece], Piece | None]
) -> tuple[list[Piece], Piece | None]:
    """`item`'s pieces split at its `best_break` below `above` on a card filled to `fill` at most, and the title above
    the last of them (its head, then its rest under its title marked as continued); `whole` where no break fits."""
    split = best_break(item, above, room, fill)
    return ([split.head, split.rest], item.title_more) if split is not None else whole


def best_break(item: ItemPieces, above: list[Piece], room: float, fill: float | None = None) -> Break | None:
    """Where to split `item` below the pieces `above` on a card filled to `fill` at most (`room` unless balanced): the
    break that leaves the most of it there, its rest fitting the next card under its title marked as continued, after a
    block whole if one fits, else within one (a paragraph's lines, a table's rows); None if none does."""
    if item.title_more is None:
        return None
    more, fill = item.title_more, room if fill is None else fill
    fitting = [b for b in item.breaks if stack_end([*above, b.head]) <= fill and stack_end([more, b.rest]) <= room]
    return max(fitting, key=lambda b: (not b.within, b.head.height), default=None)


BALANCE_CARDS = 4  # how many cards before one under FULL_FACE used may end earlier to give it more
BALANCE_HEIGHTS = tuple(share / 100 for share in range(100, 59, -4))  # of the room: what each of those may be filled to


def balanced_faces(items: list[ItemPieces], room: float, bands: Sequence[Piece], alone: Collection[int] = ()) -> list[list[tuple[int, Piece]]]:
    """The cards as `card_faces` fills them, balanced as a designer would. Filled greedily, the last card of a run (the
    deck's last, or the one before a card that must start afresh: a table set apart, an item that runs on, a section
    alone) holds whatever is left over, often a few lines. Where a card is under FULL_FACE used, the cards before it
    (one, then up to BALANCE_CARDS) end earlier: each is filled to one of BALANCE_HEIGHTS at most, so an item, or the
    rest of one from an allowed break (`best_break`), moves on; a card that ends earlier may take more from the one
    before it in turn (Marauders pl: four cards moved on a little each, as one card alone could not give enough). Of
    those arrangements with no more cards and no card that was FULL_FACE used falling under it, the one whose
    least-used card of those changed is the most used, with the fewest cards changed that reach FULL_FACE (on a tie,
    the first tried: the fullest); the greedy one if none is better."""
    caps: dict[int, float] = {}
    plan = composed(items, room, bands, alone)
    for card in range(1, len(plan.faces)):
        faces = plan.faces
        best, chosen = face_share(faces[card], room), caps
        shares_before = [face_share(face, room) for face in faces]
        full = [number for number, share in enumerate(shares_before) if share >= FULL_FACE]
        for changed in range(1, min(BALANCE_CARDS, card) + 1):
            for heights in itertools.product(BALANCE_HEIGHTS, repeat=changed) if best < FULL_FACE else ():
                tried = {**caps, **{card - 1 - k: room * height for k, height in enumerate(heights)}}
                again = composed(items, room, bands, alone, tried, like=plan, changed=(card - changed, card - 1))
                shares = [face_share(face, room) for face in again.faces[: again.taken_from]] + shares_before[again.taken_from :]
                kept = len(again.faces) == len(faces) and all(shares[number] >= FULL_FACE for number in full)
                if kept and min(shares[card - changed : card + 1]) > best:
                    best, chosen = min(shares[card - changed : card + 1]), tried
        if chosen is not caps:
            caps = chosen
            plan = composed(items, room, bands, alone, caps)
    return plan.faces


def face_share(face: list[tuple[int, Piece]], room: float) -> float:
    """How much of a card's room its pieces take, stacked (as planned: aid_measure measures the printed card)."""
    return stack_end([piece for _, piece in face]) / room


def chosen_breaks(items: list[ItemPieces], faces: list[list[tuple[int, Piece]]]) -> dict[int, Break]:
    """Item number -> the break `card_faces` split it at."""
    placed = {id(piece) for face in faces for _, piece in face}
    return {number: b for number, item in enumerate(items) for b in item.breaks if id(b.head) in placed}


def card_footer(items: list[ItemPieces], face: list[tuple[int, Piece]]) -> str:
    """The part that is a card's footer: its game, the aid's version and where its items are on the
    site (aid-parts.html.j2). One item (or a page of one that ran on, or its table set apart): that item's
    place, page and anchor (`card-foot-N`). Several items from one page of the site: that page, without an anchor
    (`card-foot-page-N`, N the aid's first item on that page: laid out once a page, cards.page_footer_of). Several from more pages: the
    first item's page and " …" (`card-foot-more-N`, N as for its page): the others follow it on the site, found by
    their titles. Pages without
    anchors keep these footers within the two lines of one item's (with its anchor, a third line
    came on cards whose room a footer takes from all). A faction names its entries' places as one
    item's footer does. Each is laid out with the other parts, so the room a card keeps for its
    footer holds the longest of them. A card of two sections or more is named so too: by its items' one page,
    or by its first item's page and " …" (the later section's items follow on the site, found by their titles
    under its band)."""
    first = face[0][0]
    if all(number == first for number, _ in face):
        return f"card-foot-{first}"
    pages = {items[number].site_page for number, _ in face}
    named = page_footer_of([item.site_page for item in items], first)
    return f"card-foot-page-{named}" if len(pages) == 1 and "" not in pages else f"card-foot-more-{named}"


def card_sheets(job: AidJob, items: list[ItemPieces], parts: dict[str, Piece], sources: dict[str, PdfReader], paper: str) -> bytes:
    """The cards, nine to a sheet of `paper`, 3 × 3, centred, with cut marks in the margins and
    "print at 100 %" above the middle column and where the changes since the aid's version are listed above
    the right one. On each card its first section's band, its items one under the other (`card_faces`; a
    later section's under its band, placed as they are), and its footer (`card_footer`) in the bottom margin.
    An item that ran on makes more cards, each with its band and footer. A bookmark for each item, where its title stands."""
    sheet_w, sheet_h = SHEETS[paper]
    x0, y0 = (sheet_w - 3 * CARD_SIZE[0]) / 2, (sheet_h - 3 * CARD_SIZE[1]) / 2
    bands = [parts[f"band-{number}"] for number in range(len(job.sections))]
    alone = [number for number, section in enumerate(job.sections) if section.last_on_sheet]  # the QR code's
    cards = card_faces(items, float(sources["items"].pages[0].mediabox.height), bands, alone)
    composition = Composition(sources)
    outline = []
    note, changes = parts["print-note"], parts["changes-note"]
    for start in range(0, len(cards), 9):
        page = composition.new_page(sheet_w, sheet_h)
        composition.place(page, note, x0 + CARD_SIZE[0] + CARD_MARGIN[1], y0 - CUT_MARK[0] - note.height - 1)
        composition.place(page, changes, x0 + 2 * CARD_SIZE[0] + CARD_MARGIN[1], y0 - CUT_MARK[0] - changes.height - 1)
        for slot, face in enumerate(cards[start : start + 9]):
            left, top = x0 + slot % 3 * CARD_SIZE[0], y0 + slot // 3 * CARD_SIZE[1]  # the card's corner
            band, footer = bands[items[face[0][0]].section], parts[card_footer(items, face)]
            composition.place(page, band, left + CARD_MARGIN[1], top + CARD_MARGIN[0])
            y, margin = top + CARD_MARGIN[0] + band.height + band.margin_bottom, None
            for number, piece in face:
                y = stack_end([piece], y, margin) - piece.height
                if piece is items[number].pages[0]:
                    outline.append((0, items[number].title, page, y))
                composition.place(page, piece, left + CARD_MARGIN[1], y)
                y, margin = y + piece.height, piece.margin_bottom
            composition.place(page, footer, left + FOOT_INSET, top + CARD_SIZE[1] - FOOT_INSET - footer.height)
        marks = " ".join(f"{x1:.3f} {y1:.3f} m {x2:.3f} {y2:.3f} l" for x1, y1, x2, y2 in cut_mark_lines(sheet_w, sheet_h, x0, y0))
        composition.pages[page][2].append(f"0 G 0.3 w {marks} S")
    return composition.pdf(job.cards_title, job.lang, outline)


def stack_end(pieces: list[Piece], y: float = 0.0, margin_above: float | None = None) -> float:
    """Where `pieces` end, set one under the other from `y` (the larger of two margins between two
    pieces, as CSS collapses them); `margin_above`: the margin below what stands above, None for
    nothing (a column's or a card's top). The sheet's columns and the cards' faces both stack so."""
    for piece in pieces:
        y += 0 if margin_above is None else max(margin_above, piece.margin_top)
        y += piece.height
        margin_above = piece.margin_bottom
    return y


def footer_top(page_height: float, bottom_margin: float, footer: Piece) -> float:
    """Where a footer's top goes: centred in the page's bottom margin, unless that brings it within
    FOOTER_EDGE of the page's edge (a footer that wraps: a long game title, the changes page's address;
    on Letter the margin is all there is below): then FOOTER_GAP under the text area."""
    centred = page_height - bottom_margin + max(0.0, (bottom_margin - footer.height) / 2)
    return centred if centred + footer.height <= page_height - FOOTER_EDGE else page_height - bottom_margin + FOOTER_GAP


FOOTER_GAP = 2.0  # points between the text area and a sheet footer that would come too near the edge
FOOTER_EDGE = 4 * MM  # a sheet footer's last line stays this far from the page's edge


class Columns:
    """Where the next piece goes on the sheet: down a column, then the next column, then the next page."""

    def __init__(self, first_top: float, short_page: int | None = None, short_bottom: float = 0.0):
        self.page, self.column, self.y = 0, 0, first_top
        self.first_top = first_top  # the columns of the first page start below the title
        self.margin_above: float | None = None  # the margin below the last piece; None: at a column's top
        self.short_page, self.short_bottom = short_page, short_bottom  # a page whose columns end higher (balanced)

    @property
    def bottom(self) -> float:
        """Where this page's columns end."""
        return self.short_bottom if self.page == self.short_page else SHEET_AREA[1] - SHEET_MARGIN[1]

    @property
    def x(self) -> float:
        return SHEET_LEFT + self.column * (COLUMN_WIDTH + COLUMN_GAP)

    def room_for(self, pieces: list[Piece]) -> bool:
        """Whether the pieces fit one under the other in what is left of this column."""
        return stack_end(pieces, self.y, self.margin_above) <= self.bottom

    def next_column(self) -> None:
        self.column, self.margin_above = self.column + 1, None
        if self.column == SHEET_COLUMNS:
            self.page, self.column = self.page + 1, 0
        self.y = self.first_top if self.page == 0 else SHEET_MARGIN[0]

    def put(self, piece: Piece) -> float:
        """Take room for `piece` (moving on to the next column if it does not fit); its top."""
        if self.margin_above is not None and not self.room_for([piece]):
            self.next_column()
        self.y = stack_end([piece], self.y, self.margin_above)
        self.margin_above = piece.margin_bottom
        return self.y - piece.height


@dataclass
class SheetLayout:
    """Where each piece of the sheet goes, on SHEET_AREA (points from its top left)."""

    pages: int
    placed: list[tuple[int, Piece, float, float]]  # page, piece, x, top
    outline: list[tuple[int, str, int, float]]  # level, label, page, top
    rules: list[tuple[int, float, float, float, str]]  # the items' rules: page, x, top, height, colour
    plan: list[list[list[tuple[int, str]]]] = field(default_factory=list)  # each page's columns: (section, kind), in order


def arrange_sheet(job: AidJob, items: list[ItemPieces], parts: dict[str, Piece], name: str) -> SheetLayout:
    """The sheet: the title across the top of the first page, then each section's bar and items
    down the columns. An item is never split (unless it is longer than a column), and a section's
    bar stands above its first item; a column (or page) where a section goes on starts with the
    section's continuation bar (its title, marked as continued; not a bookmark). The last page's
    columns are balanced: they end as high as they can with the items still on that page (found
    by halving). Each page's footer says which page it is, of how many. The QR code (a section `last_on_sheet`,
    after the rules) stays off a sheet it would give a page more (Wizard's Quest's Russian sheet, full on one
    page, had the code alone on a second): that sheet's footers name the page it leads to by its whole address
    (`sheet-foot-address-…`), and the first card keeps the code."""
    layout, footer = arranged(job, items, parts, name), "sheet-foot"
    if any(job.sections[item.section].last_on_sheet for item in items):
        rules = [item for item in items if not job.sections[item.section].last_on_sheet]
        without = arranged(job, rules, parts, name, footer="sheet-foot-address")
        if without is not None and layout is not None and without.pages < layout.pages:
            items, layout, footer = rules, without, "sheet-foot-address"
    if layout is None:
        raise AidError(f"{name}: an item is longer than a column of the sheet")  # arranged() names it first
    if layout.pages > MAX_SHEET_PAGES:
        raise AidError(f"{name}: {layout.pages} pages, at most {MAX_SHEET_PAGES}: take entries out of the aid in cards.yaml or shorten them")
    last = layout.pages - 1
    low, high = 0.0, SHEET_AREA[1] - SHEET_MARGIN[1]
    while high - low > 0.5:  # points
        middle = (low + high) / 2
        balanced = arranged(job, items, parts, name, (last, middle), footer)
        if balanced is not None and balanced.pages == layout.pages:
            high, layout = middle, balanced
        else:
            low = middle
    return layout


def arranged(
    job: AidJob, items: list[ItemPieces], parts: dict[str, Piece], name: str, short: tuple[int, float] | None = None, footer: str = "sheet-foot"
) -> SheetLayout | None:
    """The sheet laid out down the columns; `short`: (page, bottom), a page whose columns end at
    `bottom`, and None returned if a piece on it runs below that; `footer`: the pages' footers (parts
    `{footer}-{page}-{pages}`), as many as MAX_SHEET_PAGES."""
    title = parts["title"]
    sheet = SheetDraft(job, parts, Columns(SHEET_MARGIN[0] + title.height + title.margin_bottom, *(short or (None, 0.0))))
    sheet.placed.append((0, title, SHEET_LEFT, SHEET_MARGIN[0]))
    sheet.outline.append((0, job.title, 0, SHEET_MARGIN[0]))
    columns = sheet.columns
    for item in sorted(items, key=lambda item: job.sections[item.section].last_on_sheet):  # stable: in order otherwise
        for number, piece in enumerate(item.pages):
            heading = sheet.headings_above(item, number, piece)
            for head in heading:
                sheet.put_heading(head, item)
            column = (columns.page, columns.column)
            top = sheet.put_piece(piece, item, number)
            parted = bool(heading) and (columns.page, columns.column) != column  # a bar left alone at a column's foot
            if short is not None and (parted or columns.page == short[0] and top + piece.height > short[1]):
                return None
            if parted or top + piece.height > SHEET_AREA[1] - SHEET_MARGIN[1]:
                raise AidError(f"{name}: '{item.title[:40]}' is longer than a column of the sheet")
    return sheet.layout(short, footer)


@dataclass
class SheetDraft:
    """The sheet as `arranged` fills it: where the next piece goes (`columns`), what it has placed (SheetLayout's
    fields) and the sections whose bar is placed (`begun`)."""

    job: AidJob
    parts: dict[str, Piece]
    columns: Columns
    placed: list[tuple[int, Piece, float, float]] = field(default_factory=list)
    outline: list[tuple[int, str, int, float]] = field(default_factory=list)
    rules: list[tuple[int, float, float, float, str]] = field(default_factory=list)
    plan: list[list[list[tuple[int, str]]]] = field(default_factory=lambda: [[[]]])  # what the HTML sheet puts in each column (cards.sheet_page)
    begun: set[int] = field(default_factory=set)

    def headings_above(self, item: ItemPieces, number: int, piece: Piece) -> list[Piece]:
        """The bars to put above `piece`, page `number` of `item`: its section's bar above the section's first item, its
        continuation bar at the top of a column the section goes on in; moving on to the next column first where
        they and the item (or this piece of it) do not fit what is left of this one."""
        columns = self.columns
        heading = [self.parts[f"section-{item.section}"]] if item.section not in self.begun else []
        if columns.margin_above is not None and not columns.room_for(heading + (item.pages if number == 0 else [piece])):
            columns.next_column()  # a bar and its first item, or an item, start a column together
        if columns.margin_above is None and not heading:  # a column's top, in a section begun above
            heading = [self.parts[f"section-more-{item.section}"]]
        return heading

    def put_heading(self, head: Piece, item: ItemPieces) -> None:
        """Place a bar of `item`'s section: its bar (a bookmark) or its continuation bar."""
        top = self.columns.put(head)
        self.placed.append((self.columns.page, head, self.columns.x, top))
        is_bar = head is self.parts[f"section-{item.section}"]
        column_plan(self.plan, self.columns).append((item.section, "bar" if is_bar else "more"))
        if is_bar:
            self.outline.append((1, self.job.sections[item.section].title, self.columns.page, top))
            self.begun.add(item.section)

    def put_piece(self, piece: Piece, item: ItemPieces, number: int) -> float:
        """Place page `number` of `item` with its rule (one for both where it goes on under its last piece); its top."""
        columns = self.columns
        top = columns.put(piece)
        self.placed.append((columns.page, piece, columns.x + sum(RULE), top))
        if number > 0 and self.rules[-1][:2] == (columns.page, columns.x):  # under its last piece: one rule for both
            self.rules[-1] = (columns.page, columns.x, self.rules[-1][2], top + piece.height - self.rules[-1][2], item.colour)
        else:
            self.rules.append((columns.page, columns.x, top, piece.height, item.colour))
        if number == 0:
            self.outline.append((2, item.title, columns.page, top))
            column_plan(self.plan, columns).append((item.section, item.anchor))
        return top

    def layout(self, short: tuple[int, float] | None, footer: str) -> SheetLayout | None:
        """The sheet placed, with its pages' footers; None if `short`'s page is no longer the last."""
        pages = self.columns.page + 1
        if short is not None and pages != short[0] + 1:
            return None  # the short page is no longer the last
        if pages > MAX_SHEET_PAGES:
            return SheetLayout(pages, self.placed, self.outline, self.rules, self.plan)  # refused (arrange_sheet), unless the QR code made it so long
        for page in range(pages):
            foot = self.parts[f"{footer}-{page + 1}-{pages}"]
            self.placed.append((page, foot, SHEET_LEFT, footer_top(SHEET_AREA[1], SHEET_MARGIN[1], foot)))
        return SheetLayout(pages, self.placed, self.outline, self.rules, self.plan)


def column_plan(plan: list[list[list[tuple[int, str]]]], columns: Columns) -> list[tuple[int, str]]:
    """What the HTML sheet puts in the column `columns` is at: (section, "bar", "more" or an item's id), in order;
    the pages and columns before it made, empty if nothing went in them."""
    while len(plan) <= columns.page:
        plan.append([[]])
    while len(plan[columns.page]) <= columns.column:
        plan[columns.page].append([])
    return plan[columns.page][columns.column]


def sheet_on_paper(job: AidJob, layout: SheetLayout, sources: dict[str, PdfReader], paper: str) -> bytes:
    """The sheet's PDF on `paper`, centred; with its title and bookmarks (the title, the sections, the items)."""
    composition = Composition(sources)
    composition.origin = ((SHEETS[paper][0] - SHEET_AREA[0]) / 2, (SHEETS[paper][1] - SHEET_AREA[1]) / 2)
    for _ in range(layout.pages):
        composition.new_page(*SHEETS[paper])
    for page, x, top, height, colour in layout.rules:
        composition.rectangle(page, colour, x, top, RULE[0], height)
    for page, piece, x, top in layout.placed:
        composition.place(page, piece, x, top)
    return composition.pdf(job.title, job.lang, layout.outline)


def readers(items_pdf: bytes, parts_pdf: bytes) -> dict[str, PdfReader]:
    """The two laid-out documents, read; the parts' fonts renamed (`own_font_names`)."""
    sources = {"items": PdfReader(io.BytesIO(items_pdf)), "parts": PdfReader(io.BytesIO(parts_pdf))}
    own_font_names(sources["parts"])
    return sources


def own_font_names(reader: PdfReader) -> None:
    """Give the font subsets of a laid-out document names of their own. WeasyPrint names a subset
    after the font alone, so the items' and the parts' subsets of one font, which hold different
    glyphs, came out with one name, and tools that know a font by its name may draw or read one
    piece's text with the other's glyphs. Each letter of the six-letter subset tag moves 13 places
    (in /BaseFont and /FontName only: the content streams, and the forms WeasyPrint nests in them
    for transparency, name fonts by resource keys, which stay)."""

    def renamed(name: str) -> NameObject:
        tag, _, rest = name.lstrip("/").partition("+")
        return NameObject("/" + "".join(chr(65 + (ord(c) - 65 + 13) % 26) for c in tag) + "+" + rest)

    done: set[int] = set()
    for page in reader.pages:
        resources: Any = page["/Resources"]
        fonts = resources["/Font"]
        for font in (reference.get_object() for reference in fonts.values()):
            if id(font) not in done:
                done.add(id(font))
                descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
                descriptor = descendant["/FontDescriptor"].get_object()
                for holder, field in ((font, "/BaseFont"), (descendant, "/BaseFont"), (descriptor, "/FontName")):
                    holder[NameObject(field)] = renamed(holder[field])


def _pdf_bytes(writer: PdfWriter) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


CUT_MARK = (4.0, 14.0)  # a cut mark runs from 4 to 14 points outside the cards


def cut_mark_lines(sheet_w: float, sheet_h: float, x0: float, y0: float) -> list[tuple[float, float, float, float]]:
    """Short lines in the margins where the card edges fall (PDF coordinates, origin bottom left)."""
    near, far = CUT_MARK
    lines = []
    for i in range(4):
        x = x0 + i * CARD_SIZE[0]
        lines += [(x, sheet_h - y0 + near, x, sheet_h - y0 + far), (x, y0 - far, x, y0 - near)]
        y = y0 + i * CARD_SIZE[1]
        lines += [(x0 - far, y, x0 - near, y), (sheet_w - x0 + near, y, sheet_w - x0 + far, y)]
    return lines
