"""Stage 4c, render the player aids: per game and language, a sheet (A4 and US Letter, at most two
pages) and poker-size cards (63 × 88 mm, nine to a page with cut marks), as HTML and PDF, plus a
PNG of each PDF's first page.

Layout (WeasyPrint) is nearly all the cost, so each aid is laid out twice, not four times: the
sheet once, on the area A4 and US Letter share, and the cards once, one card a page. The paper
formats are made from those PDFs without laying anything out again (`on_paper`, `impose`).

Which entries an aid carries is data (data/games/<game>/cards.yaml); the text is the entries' own,
so a change in the data changes the aid. Layout problems are build errors, not surprises on paper:
an aid longer than its page limit, a box running off its page, or a glyph no font has.
"""
from __future__ import annotations

import atexit
import gc
import hashlib
import html as html_module
import io
import itertools
import os
import re
import signal
import subprocess
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import pypdfium2
import weasyprint
from fontTools.ttLib import TTFont
from markupsafe import Markup
from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, RectangleObject, StreamObject
from weasyprint import HTML
from weasyprint.formatting_structure.boxes import LineBox, MarginBox, ReplacedBox, TextBox
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

from .answer_tables import AnswerTable, AnswerTables
from .children import die_with_parent
from .errors import KbError
from .model import Entry
from .resolve import Resolved, slug_of
from .safe_markdown import Linker, render, without_tables
from .site import environment

MM = 72 / 25.4
CARD_W, CARD_H = 63 * MM, 88 * MM
SHEETS = {"a4": (210 * MM, 297 * MM), "letter": (8.5 * 72, 11 * 72)}
# The sheet is laid out once, on the area both papers have (210 × 279.4 mm), and centred on each.
SHEET_AREA = (min(w for w, _ in SHEETS.values()), min(h for _, h in SHEETS.values()))
SHEET_LAYOUT = {"page_size": f"{SHEET_AREA[0]:.4f}pt {SHEET_AREA[1]:.4f}pt", "margin": "8mm 8mm 10mm", "columns": 3,
                "font_size": "7.6pt", "card": False}
CARD_LAYOUT = {"page_size": "63mm 88mm", "margin": "3.5mm 3.5mm 6mm", "columns": 1, "font_size": "7.5pt", "card": True}
MAX_SHEET_PAGES = 2
FONT_FAMILY = "DejaVu Sans Condensed"  # covers Latin, Polish and Cyrillic; the templates name it first


PAPER_NAMES = {"a4": "A4", "letter": "US Letter"}


def aid_file(game: str, lang: str, name: str) -> str:
    """File name under cards/ of one of an aid's files (name: "sheet-a4.pdf", "cards.html", …)."""
    return f"{game}-{lang}-{name}"


@dataclass
class AidLinks:
    downloads: list[tuple[str, str]]   # (label, path under the site root)
    preview: str                       # the A4 sheet's first page as PNG


def aid_links(resolved: Resolved) -> dict[tuple[str, str], AidLinks]:
    """(game, lang) -> what the site links of that aid. Known from the data alone, so pages can
    link the aids while they are still being laid out."""
    links = {}
    for game, lang in aid_languages(resolved):
        labels = resolved.languages.ui(lang)
        downloads = [(f"{labels[label]} {PAPER_NAMES[paper]} (PDF)", f"cards/{aid_file(game, lang, f'{kind}-{paper}.pdf')}")
                     for kind, label in (("sheet", "sheet"), ("cards", "poker_cards")) for paper in SHEETS]
        downloads.append((f"{labels['sheet']} (HTML)", f"cards/{aid_file(game, lang, 'sheet.html')}"))
        links[(game, lang)] = AidLinks(downloads, f"cards/{aid_file(game, lang, 'sheet-a4.png')}")
    return links


def aid_languages(resolved: Resolved) -> list[tuple[str, str]]:
    """Every (game, language) that has an aid, in build order."""
    return [(game, lang) for game in sorted(resolved.kb.aids) for lang in resolved.kb.games[game]["languages"]]


class AidError(KbError):
    """An aid does not fit or does not render cleanly; the message says which and why."""
    code = "B004"
    hint = "Shorten or remove entries in the aid (data/games/<game>/cards.yaml), or fix the entry named."


class AidFetchError(AidError):
    """An aid's HTML asked for a file or URL: aids fetch nothing but the project's bundled assets."""
    code = "B005"
    hint = "Remove the image or link destination from the entry named; player aids print text only."


@dataclass
class AidFiles:
    game: str
    lang: str
    files: dict[str, bytes]  # name under cards/ -> content


DEFAULT_COLOUR = "#4a3d5c"
ANSWERS_COLOUR = "#2f5d50"
COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


def aid_sections(resolved: Resolved, game: str, lang: str, tables: AnswerTables | None = None) -> list[dict]:
    """The aid's sections, each with its colour and icon and its items in the reader's language: an
    item is one entry (title, body as safe HTML), one faction (name, colour, icon, table rows, the
    bodies of its entries) or one answer table (last, in a section of their own). One item is one card."""
    kb = resolved.kb
    sections = []
    for section in kb.aids[game]["sections"]:
        items = [entry_item(resolved, game, lang, entry_id) for entry_id in section.get("entries", [])]
        items += [faction_item(resolved, game, lang, faction) for faction in section.get("factions", [])]
        sections.append({"title": resolved.text_in(section["title"], lang), "colour": section.get("colour", DEFAULT_COLOUR),
                         "icon": section.get("icon"), "items": items})
    answers = (tables or AnswerTables(resolved)).of_game(game, lang)
    if answers:
        sections.append({"title": resolved.languages.ui(lang)["calculator"]["answer_tables"], "colour": ANSWERS_COLOUR,
                         "icon": "dice", "items": [answer_item(resolved, lang, table) for table in answers]})
    return sections


def answer_item(resolved: Resolved, lang: str, table: AnswerTable) -> dict:
    """An answer table's card: the question it answers as its title, the table, a reference to the Calculators page."""
    html = Markup(aid_environment().get_template("answer-table.html.j2").render(t=table))
    return {"id": table.id, "anchor": table.id, "title": table.title, "html": html, "fallback": None, "checks": [],
            "ref": f"{lang}/{table.game}/calculators.html", "colour": None, "icon": None, "faction": False}


def entry_item(resolved: Resolved, game: str, lang: str, entry_id: str) -> dict:
    entry = resolved.kb.entries[entry_id]
    labels = resolved.languages.ui(lang)
    html, shown = entry_body(resolved, game, lang, entry_id)
    summary_title = entry.get("summary", {}).get("title", {})
    title_lang = lang if lang in summary_title or lang in entry["title"] else resolved.display_language(entry, lang)
    title = summary_title.get(lang) or entry["title"][title_lang]
    other = shown if shown != lang else title_lang
    return {"id": entry_id, "anchor": slug_of(entry_id), "title": title, "html": html,
            "fallback": None if other == lang else labels["fallback"].format(shown=resolved.languages.name_in(other, lang)),
            "checks": needs_check(resolved, entry_id, lang), "ref": resolved.url_of(entry_id, lang),
            "colour": None, "icon": None, "faction": False}


def entry_body(resolved: Resolved, game: str, lang: str, entry_id: str) -> tuple[Markup, str]:
    """An entry's body on an aid, as safe HTML, and the language it is in: its summary in the
    reader's language if it has one, else its text (with its table) in the language shown."""
    entry = resolved.kb.entries[entry_id]
    summary = entry.get("summary", {}).get("text", {})
    shown = lang if lang in summary else resolved.display_language(entry, lang)
    linker = Linker(reference_href=no_link, reference_label=partial(resolved.title_of, reader=shown))
    html = render(summary[lang] if lang in summary else aid_text(resolved, entry, shown), linker)
    if "<img" in html:
        raise AidFetchError(f"entry '{entry_id}' has an image; aids fetch nothing (aid {game}-{lang})")
    if "table" in entry and entry["table"].get("shown", True):
        hidden = resolved.kb.aids[game].get("hide_columns", {}).get(entry_id, [])
        table = {**entry["table"], "columns": [c for c in entry["table"]["columns"] if c["key"] not in hidden]}
        html += table_html(resolved, table, lang, entry_id, bool(needs_check(resolved, entry_id, lang)))
    return Markup(html), shown


def faction_item(resolved: Resolved, game: str, lang: str, faction: dict) -> dict:
    """A faction's card: its rows of a table (the column that names the faction left out), then the
    bodies of its entries, without their titles."""
    parts, checks, refs = [], [], []
    if "rows" in faction:
        table_id, where = faction["rows"]["table"], faction["rows"]["where"]
        table = resolved.kb.entries[table_id]["table"]
        columns = [c for c in table["columns"] if c["key"] not in where]
        rows = [row for row in table["rows"] if all(resolved.text_in(row.get(k), "en") == v for k, v in where.items())]
        parts.append(table_html(resolved, {**table, "columns": columns, "rows": rows}, lang, None, False))
    for entry_id in faction.get("entries", []):
        parts.append(entry_body(resolved, game, lang, entry_id)[0])
        checks += [c for c in needs_check(resolved, entry_id, lang) if c not in checks]
        refs.append(resolved.url_of(entry_id, lang))
    name = resolved.text_in(faction["name"], lang)
    return {"id": name, "anchor": slug_of(f"{game}/{faction['icon']}"), "title": name, "html": Markup("".join(parts)),
            "fallback": None, "checks": checks, "ref": " · ".join(refs), "colour": faction["colour"], "icon": faction["icon"],
            "faction": True}


def needs_check(resolved: Resolved, entry_id: str, lang: str) -> list[str]:
    """Footnotes for an entry whose values the data marks as needing a check: the titles of the
    clarifications about it whose status is needs-check, in the reader's language."""
    notes = []
    for clarification_id in resolved.clarifications_of.get(entry_id, []):
        clarification = resolved.kb.entries[clarification_id]
        if clarification["clarification"].get("status") == "needs-check":
            label = resolved.languages.ui(lang)["aid_needs_check"]
            # the clarification's title says what to check; in another language it would be an unmarked fallback
            notes.append(f"{label}: {clarification['title'][lang]}" if lang in clarification["title"] else f"{label}.")
    return notes


def no_link(ref: str) -> None:
    """Aids print references as their titles, not links."""
    return None


def aid_text(resolved: Resolved, entry: Entry, lang: str) -> str:
    """What an aid prints of an entry: the whole text, except that a clarification shows its ruling."""
    text = entry["text"][lang]
    if "table" in entry:
        return without_tables(text)
    if entry["kind"] == "clarification":
        return resolved.ruling(entry, lang) or text
    return text


def table_html(resolved: Resolved, table: dict, lang: str, entry_id: str | None, to_check: bool) -> Markup:
    """A data table for an aid, every cell plain text (escaped by the template); the table's note is
    an editors' note and stays off the aid. `to_check`: the values print with a mark. A heading or
    cell shown in another language than the reader's prints that language's code as a mark, named
    under the table like any fallback text."""
    text = resolved.table(table, lang)

    def shown(value) -> str | None:
        """The language a per-language value is shown in, when it is not the reader's."""
        if isinstance(value, dict) and value and lang not in value:
            return resolved.languages.pick(value, lang)
        return None
    head_marks = [shown(c["title"]) for c in table["columns"]]
    row_marks = [[shown(row.get(c["key"])) for c in table["columns"]] for row in table["rows"]]
    used = sorted({m for m in head_marks + [m for marks in row_marks for m in marks] if m})
    labels = resolved.languages.ui(lang)
    notes = [f"{code}: " + labels["fallback"].format(shown=resolved.languages.name_in(code, lang)) for code in used]
    return Markup(aid_environment().get_template("aid-table.html.j2").render(
        head=list(zip(text.head, head_marks, strict=True)), rows=[list(zip(r, m, strict=True)) for r, m in zip(text.rows, row_marks, strict=True)],
        entry_id=entry_id, to_check=to_check, fallback_notes=notes))


@cache
def aid_environment():
    """The aids' templates (autoescaping), with their CSS filters; made once per process."""
    env = environment("cards")
    env.filters["css_string"] = css_string
    env.filters["css_colour"] = css_colour
    return env


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


@dataclass
class AidJob:
    """The HTML of one aid (game × language); laid out and checked in a worker process."""
    game: str
    lang: str
    sheet_html: str   # laid out on SHEET_AREA, for both papers
    card_html: str


def aid_job(resolved: Resolved, game: str, lang: str, tables: AnswerTables | None = None) -> AidJob:
    kb = resolved.kb
    labels = resolved.languages.ui(lang)
    game_title = resolved.text_in(kb.aids[game].get("title") or kb.games[game]["title"], lang)
    env = aid_environment()
    sections = aid_sections(resolved, game, lang, tables)
    template = env.get_template("aid.html.j2")
    layouts = {"sheet": (SHEET_LAYOUT, labels["aid_sheet"]), "cards": (CARD_LAYOUT, labels["aid_cards"])}

    def html(kind: str, version: str) -> str:
        layout, kind_label = layouts[kind]
        return template.render(**layout, lang=lang, game_title=game_title, kind=kind_label, title=f"{game_title} · {kind_label}",
                               sections=sections, footer=f"{game_title} · {labels['full_rules']}: {lang}/{game}/ · {version}",
                               footer_version=version)
    # The printed version is a digest of what this aid shows, not of the whole data: an edit in
    # one game changes neither the version nor the cache key of another game's aids.
    version = f"{labels['data_version']} {content_version(html('sheet', '') + html('cards', ''))}"
    return AidJob(game, lang, html("sheet", version), html("cards", version))


def content_version(html: str) -> str:
    """The version an aid prints: a digest of its own HTML (rendered without the version)."""
    return hashlib.sha256(html.encode("utf-8")).hexdigest()[:12]


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
        for kind, pdf in (("sheet", on_paper(sheet_pdf, paper)), ("cards", impose(card_pdf, paper))):
            files[name(f"{kind}-{paper}.pdf")] = pdf
            files[name(f"{kind}-{paper}.png")] = first_page_png(pdf)
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


def css_colour(value: str) -> Markup:
    """A colour from the data for a CSS declaration: only #rrggbb passes (the schema says so too)."""
    if not COLOUR.fullmatch(str(value)):
        raise AidError(f"colour {value!r} is not #rrggbb")
    return Markup(value)


def css_string(text: str) -> Markup:
    """Text for the inside of a CSS string in a <style> element: every character but letters,
    digits and spaces as a CSS escape, so that neither the string nor the element can be closed.
    Each escape ends with a space, which CSS takes as part of the escape: without it, a space after
    an escaped character would be eaten ("rules:·en" for "rules: · en")."""
    return Markup("".join(c if c.isalnum() or c == " " else f"\\{ord(c):06x} " for c in str(text)))


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


def job_key(job: AidJob) -> str:
    """Content address of an aid: its HTML plus the code and library that lay it out."""
    digest = hashlib.sha256()
    for part in (job.game, job.lang, job.card_html, job.sheet_html, layout_code_version()):
        digest.update(part.encode("utf-8"))
    return digest.hexdigest()[:24]


@cache
def layout_code_version() -> str:
    """This module's code and WeasyPrint's version: read once, not once per aid looked up."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest() + weasyprint.__version__


def cache_folder(job: AidJob, cache: Path) -> Path:
    """Where an aid's laid-out files are kept: named by game and language for people, by content for the build."""
    return cache / f"{job.game}-{job.lang}-{job_key(job)}"


def cached(job: AidJob, cache: Path | None) -> AidFiles | None:
    folder = cache_folder(job, cache) if cache else None
    if folder is None or not folder.is_dir():
        return None
    return AidFiles(job.game, job.lang, {p.name: p.read_bytes() for p in sorted(folder.iterdir())})


def store(aid: AidFiles, job: AidJob, cache: Path | None) -> None:
    if cache is None:
        return
    folder = cache_folder(job, cache)
    partial = folder.with_suffix(".partial")
    partial.mkdir(parents=True, exist_ok=True)
    for name, content in aid.files.items():
        (partial / name).write_bytes(content)
    partial.rename(folder)


def start_worker() -> None:
    """A layout worker collects garbage less often: WeasyPrint makes hundreds of thousands of
    objects per document, and at Python's default thresholds (700, 10, 10) the collector cost
    about a tenth of the layout time (measured on the bundled aids). A worker leaves Ctrl-C to the
    build (which cancels the aids) and dies with it if the build is killed."""
    gc.set_threshold(10_000, 20, 20)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def start_aids(resolved: Resolved, cache: Path | None = None) -> PendingAids:
    """Start laying out every game × language aid in worker processes and return at once, so that
    the caller can do other work meanwhile; `.files()` waits for the aids and hands over their files. An aid whose HTML has
    not changed since a previous build is taken from `cache` instead."""
    tables = AnswerTables(resolved)
    return PendingAids([aid_job(resolved, game, lang, tables) for game, lang in aid_languages(resolved)], cache)


class PendingAids:
    """The aids of one build, being laid out by a pool of worker processes (one per core)."""

    def __init__(self, jobs: list[AidJob], cache: Path | None):
        self.jobs, self.cache = jobs, cache
        self.done: dict[int, AidFiles] = {}
        for index, job in enumerate(jobs):
            hit = cached(job, cache)
            if hit:
                self.done[index] = hit
        # Longest first (by HTML length), so that no worker is left with a big aid at the end.
        todo = sorted((i for i in range(len(jobs)) if i not in self.done),
                      key=lambda i: -len(jobs[i].sheet_html) - len(jobs[i].card_html))
        self.pool, self.futures = None, {}
        if todo:
            font_coverage()  # before the workers are forked, so that they inherit it
            self.pool = ProcessPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 1), initializer=start_worker)
            self.futures = {index: self.pool.submit(produce, jobs[index]) for index in todo}

    def each(self):
        """Every aid, in game × language order, as it is ready; none is kept here once handed
        over, so a large corpus's aids can be written out without all being in memory at once.
        If an aid fails, its AidError is raised and the aids not started yet are dropped."""
        try:
            for index in range(len(self.jobs)):
                if index in self.futures:
                    aid = self.futures.pop(index).result()
                    store(aid, self.jobs[index], self.cache)
                else:
                    aid = self.done.pop(index)
                yield aid
        except BaseException:
            self.cancel()
            raise
        if self.pool is not None:
            self.pool.shutdown()

    def files(self):
        """(name under cards/, content) of every aid's files, as each aid is ready (see `each`)."""
        return (item for aid in self.each() for item in aid.files.items())

    def cancel(self) -> None:
        """Drop the aids not started yet; workers finish the one they are on, then exit."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
