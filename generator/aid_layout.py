"""Stage 4c, second half: lay out an aid's HTML (made by cards.py) into its PDFs and preview, and
check the layout. Runs in the aid worker processes only: the build's own process never imports
WeasyPrint, so the workers load it while the build loads and checks the data.

Layout (WeasyPrint) is nearly all the cost, so each aid is laid out twice, not four times: the
sheet once, on the area A4 and US Letter share, and the cards once, one card a page. The paper
formats are made from those PDFs without laying anything out again (`on_paper`, `impose`).
Layout problems are build errors, not surprises on paper: an aid longer than its page limit, a
box running off its page, or a glyph no font has.
"""
from __future__ import annotations

import atexit
import gc
import html as html_module
import io
import itertools
import os
import re
import subprocess
from functools import cache
from typing import Any

import pypdfium2
from fontTools.ttLib import TTFont
from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, RectangleObject, StreamObject
from weasyprint import HTML
from weasyprint.formatting_structure.boxes import LineBox, MarginBox, ReplacedBox, TextBox
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

from .cards import MM, PREVIEW, SHEETS, AidError, AidFetchError, AidFiles, AidJob, aid_file, css_string

CARD_W, CARD_H = 63 * MM, 88 * MM
MAX_SHEET_PAGES = 2
FONT_FAMILY = "DejaVu Sans Condensed"  # covers Latin, Polish and Cyrillic; the templates name it first


def paints(box) -> bool:
    """Whether a box puts ink on paper: text, images, or a border or background of its own.
    (Layout containers such as column boxes may be a few points taller than their content.)"""
    if isinstance(box, (TextBox, LineBox, ReplacedBox)):
        return True
    borders = any(getattr(box, f"border_{side}_width", 0) for side in ("top", "right", "bottom", "left"))
    background = box.style["background_color"] if getattr(box, "style", None) else None
    return bool(borders) or bool(background is not None and getattr(background, "alpha", 0) > 0)


def overflowing_boxes(document) -> list[str]:
    """Boxes that paint outside their page's content area (checked on WeasyPrint's laid-out page boxes)."""
    problems = []
    tolerance = 0.75  # points
    for number, page in enumerate(document.pages, 1):
        page_box = page._page_box
        left, top = page_box.content_box_x(), page_box.content_box_y()
        right, bottom = left + page_box.width, top + page_box.height
        stack = [child for child in page_box.children if not isinstance(child, MarginBox)]
        while stack:
            box = stack.pop()
            x, y = getattr(box, "position_x", None), getattr(box, "position_y", None)
            if x is not None and y is not None and paints(box):
                # The border box: margins may run into the page margin (they collapse at a page break).
                x, y = x + (box.margin_left or 0), y + (box.margin_top or 0)
                width, height = box.border_width(), box.border_height()
                if x < left - tolerance or y < top - tolerance or x + width > right + tolerance or y + height > bottom + tolerance:
                    text = getattr(box, "text", "") or box.element_tag
                    problems.append(f"page {number}: {type(box).__name__} '{str(text)[:40]}' leaves the page area")
            stack.extend(getattr(box, "children", []))
    return problems


def _resources_and_streams(pdf: bytes):
    """Every (resources, content bytes) of the PDF: pages and, recursively, their form XObjects
    (imposed card sheets keep each card as a form XObject)."""
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


def uncovered_characters(html: str) -> list[str]:
    """Characters of the aid's text that its fonts cannot draw, as 'U+XXXX c'."""
    text = html_module.unescape(re.sub(r"<style.*?</style>|<[^>]+>", " ", html, flags=re.S))
    missing = sorted({ch for ch in text if not ch.isspace() and ord(ch) not in font_coverage()})
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


def on_paper(sheet_pdf: bytes, paper: str) -> bytes:
    """The sheet, laid out on SHEET_AREA, centred on `paper` by widening its pages' boxes.

    Only the page boxes change, so the text, fonts, bookmarks and title stay as WeasyPrint wrote
    them. (Not an incremental update: pypdf leaves /Info out of its trailer, and poppler-based
    viewers then show no title.)"""
    paper_w, paper_h = SHEETS[paper]
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(sheet_pdf)))
    for page in writer.pages:
        left, bottom, right, top = (float(v) for v in page.mediabox)
        dx, dy = (paper_w - (right - left)) / 2, (paper_h - (top - bottom)) / 2
        box = RectangleObject([round(v, 3) for v in (left - dx, bottom - dy, right + dx, top + dy)])
        page.mediabox = page.trimbox = page.bleedbox = box
    return _pdf_bytes(writer)


def impose(card_pdf: bytes, paper: str) -> bytes:
    """Nine card pages to a sheet of `paper`, 3 × 3, centred, with cut marks in the margins.

    Each card page becomes a form XObject made of the page's own content stream and resources, so
    its text stays text, nothing is re-parsed or rasterised, and all cards share one copy of each
    embedded font (copying page by page would embed the fonts once per card)."""
    sheet_w, sheet_h = SHEETS[paper]
    x0, y0 = (sheet_w - 3 * CARD_W) / 2, (sheet_h - 3 * CARD_H) / 2
    writer = PdfWriter()
    cards = [card_form(page, writer) for page in PdfReader(io.BytesIO(card_pdf)).pages]
    for start in range(0, len(cards), 9):
        xobjects, operators = DictionaryObject(), []
        for slot, card in enumerate(cards[start:start + 9]):
            column, row = slot % 3, slot // 3
            xobjects[NameObject(f"/Card{slot}")] = card
            x, y = x0 + column * CARD_W, sheet_h - y0 - (row + 1) * CARD_H
            operators.append(f"q 1 0 0 1 {x:.3f} {y:.3f} cm /Card{slot} Do Q")
        marks = " ".join(f"{x1:.3f} {y1:.3f} m {x2:.3f} {y2:.3f} l" for x1, y1, x2, y2 in cut_mark_lines(sheet_w, sheet_h, x0, y0))
        operators.append(f"0 G 0.3 w {marks} S")
        page = writer.add_blank_page(sheet_w, sheet_h)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/XObject"): xobjects})
        content = StreamObject()
        content.set_data("\n".join(operators).encode("ascii"))
        page.replace_contents(content)  # type: ignore[arg-type]  # a plain stream is what pypdf writes
    return _pdf_bytes(writer)


def card_form(page: PageObject, writer: PdfWriter):
    """A reference, in `writer`, to a form XObject that draws `page` (one WeasyPrint page: one
    content stream). Cloning maps each source object once per writer, hence the shared fonts."""
    form: Any = page["/Contents"].get_object().clone(writer)  # type: ignore[union-attr]  # one content stream
    form.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                 NameObject("/BBox"): ArrayObject(FloatObject(v) for v in page.mediabox),
                 NameObject("/Resources"): page["/Resources"].clone(writer)})
    return form.indirect_reference


def _pdf_bytes(writer: PdfWriter) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def cut_mark_lines(sheet_w: float, sheet_h: float, x0: float, y0: float) -> list[tuple[float, float, float, float]]:
    """Short lines in the margins where the card edges fall (PDF coordinates, origin bottom left)."""
    lines = []
    for i in range(4):
        x = x0 + i * CARD_W
        lines += [(x, sheet_h - y0 + 4, x, sheet_h - y0 + 14), (x, y0 - 14, x, y0 - 4)]
        y = y0 + i * CARD_H
        lines += [(x0 - 14, y, x0 - 4, y), (sheet_w - x0 + 4, y, sheet_w - x0 + 14, y)]
    return lines


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
    """Lay out, check and write one aid's files (runs in a worker process)."""
    def name(part: str) -> str:
        return aid_file(job.game, job.lang, part)
    files: dict[str, bytes] = {name("sheet.html"): job.sheet_html.encode("utf-8"),
                               name("cards.html"): job.card_html.encode("utf-8")}
    sheet_pdf = check_and_write(job.sheet_html, name("sheet"), max_pages=MAX_SHEET_PAGES)
    card_html, card_pdf = lay_out_cards(job.card_html, name("cards"))
    files[name("cards.html")] = card_html.encode("utf-8")
    for paper in SHEETS:
        files[name(f"sheet-{paper}.pdf")] = on_paper(sheet_pdf, paper)
        files[name(f"cards-{paper}.pdf")] = impose(card_pdf, paper)
    files[name(PREVIEW)] = first_page_png(files[name("sheet-a4.pdf")])  # the one the site shows (cards.aid_links)
    return AidFiles(job.game, job.lang, files)


@cache
def font_config() -> FontConfiguration:
    """One WeasyPrint font configuration per process, so that Pango's font and glyph caches carry
    over from one document to the next (by default WeasyPrint makes a new one per document)."""
    return FontConfiguration()


os.register_at_fork(after_in_child=font_config.cache_clear)  # a worker makes its own, not its parent's
# Release Pango's objects while the libraries are still loaded: left to interpreter teardown, the
# cached configuration is unreferenced after GLib is gone, and the process ends in a segfault.
atexit.register(font_config.cache_clear)

class NothingFetcher(URLFetcher):
    """WeasyPrint's URL fetcher for the aids: fetches nothing (no file, no network) and remembers
    what was asked. The aids need no resource (fonts come from fontconfig); WeasyPrint logs a
    failed fetch and goes on, so `check_and_write` refuses the aid afterwards."""

    def __init__(self):
        super().__init__()
        self.requested: list[str] = []

    def fetch(self, url, headers=None):
        self.requested.append(url)
        raise ValueError("aids fetch nothing")


def check_and_write(html: str, name: str, max_pages: int | None) -> bytes:
    return checked_document(html, name, max_pages).write_pdf()


DENSE = "\n{selector} {{ font-size: 88%; }}  /* cards that did not fit at full size */\n"


def lay_out_cards(html: str, name: str) -> tuple[str, bytes]:
    """The cards' HTML as printed and their PDF, one card a page. A card whose content runs on
    past its page (a long table and its footnotes) would leave an untitled card behind: it is
    set smaller instead. Only those cards are laid out again (the others hidden), and their
    pages replace the overrunning ones. A card that still does not fit runs on over more cards,
    its reference in their footer (only text no editor would print does: the layout tests hold
    the bundled aids to one titled card each)."""
    document = checked_document(html, name, max_pages=None)
    items = card_of_each_page(document)
    overrun = [card for card, next_page in itertools.pairwise(items) if card is not None and next_page is None]
    if not overrun:
        return html, document.write_pdf()
    chosen = ", ".join(f'.item[id="{css_string(item)}"]' for item in overrun)
    dense_html = html.replace("</style>", DENSE.format(selector=chosen) + "</style>", 1)
    hide_others = (f".item:not({chosen.replace(', ', '):not(')}) {{ display: none; }}\n"
                   f'.item[id="{css_string(overrun[0])}"] {{ break-before: auto; }}\n')  # no blank first page
    only = dense_html.replace("</style>", hide_others + "</style>", 1)
    small = checked_document(only, name, max_pages=None)
    small_items = card_of_each_page(small)
    if None in small_items:  # still too long: it runs on rather than failing the whole build
        return dense_html, checked_document(dense_html, name, max_pages=None).write_pdf()
    replacement = dict(zip(small_items, small.pages, strict=True))
    pages = [replacement.get(item, page) for item, page in zip(items, document.pages, strict=True) if item is not None]
    return dense_html, document.copy(pages).write_pdf()


def card_of_each_page(document) -> list[str | None]:
    """The id of the card whose title stands on each page; None for a page without a card title
    (the rest of a card that ran over its page)."""
    cards: list[str | None] = []
    for page in document.pages:
        stack, card = [(page._page_box, None)], None
        while stack and card is None:
            box, item = stack.pop()
            tag, element = getattr(box, "element_tag", ""), getattr(box, "element", None)
            if tag == "div" and element is not None and "item" in element.get("class", "").split():
                item = element.get("id")
            if tag == "h3":
                card = item
            stack.extend((child, item) for child in getattr(box, "children", []))
        cards.append(card)
    return cards


def checked_document(html: str, name: str, max_pages: int | None):
    """`html` laid out by WeasyPrint, or an AidError: a glyph no font has, a fetch, too many pages, overflow."""
    missing = uncovered_characters(html)
    if missing:
        raise AidError(f"{name}: no glyph in {FONT_FAMILY} for {', '.join(missing[:10])}")
    fetcher = NothingFetcher()
    document = HTML(string=html, url_fetcher=fetcher).render(font_config=font_config())
    if fetcher.requested:
        asked = ", ".join(repr(url[:100]) for url in fetcher.requested[:3])
        raise AidFetchError(f"{name}: the aid asked for {asked}; aids fetch nothing")
    if max_pages is not None and len(document.pages) > max_pages:
        raise AidError(f"{name}: {len(document.pages)} pages, at most {max_pages}: "
                       f"take entries out of the aid in cards.yaml or shorten them")
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
