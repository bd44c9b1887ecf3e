"""Stage 4c, render the player aids: per game and language, a sheet (A4 and US Letter, at most two
pages) and poker-size cards (63 × 88 mm, nine to a page with cut marks), as HTML and PDF, plus a
PNG of each PDF's first page.

Which entries an aid carries is data (data/games/<game>/cards.yaml); the text is the entries' own,
so a change in the data changes the aid. Layout problems are build errors, not surprises on paper:
an aid longer than its page limit, a box running off its page, or a glyph no font has.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass

import markdown
import pypdfium2
from pypdf import PdfReader, PdfWriter, Transformation
from weasyprint import HTML
from weasyprint.formatting_structure.boxes import MarginBox

from .labels import LABELS
from .markdown_text import escape_html, render_text
from .resolve import LANGUAGE_NAMES, Resolved, slug_of
from .site import environment

MM = 72 / 25.4
CARD_W, CARD_H = 63 * MM, 88 * MM
SHEETS = {"a4": (210 * MM, 297 * MM), "letter": (8.5 * 72, 11 * 72)}
SHEET_LAYOUT = {"margin": "8mm 8mm 10mm", "columns": 3, "font_size": "7.6pt", "card": False}
CARD_LAYOUT = {"page_size": "63mm 88mm", "margin": "3.5mm 3.5mm 6mm", "columns": 1, "font_size": "7.5pt", "card": True}
MAX_SHEET_PAGES = 2


class AidError(Exception):
    """An aid does not fit or does not render cleanly; the message says which and why."""


@dataclass
class AidFiles:
    game: str
    lang: str
    files: dict[str, bytes]  # name under cards/ -> content

    def links(self) -> list[tuple[str, str]]:
        labels = LABELS[self.lang]
        names = {"sheet-a4.pdf": f"{labels['sheet']} A4 (PDF)", "sheet-letter.pdf": f"{labels['sheet']} US Letter (PDF)",
                 "cards-a4.pdf": f"{labels['poker_cards']} A4 (PDF)", "cards-letter.pdf": f"{labels['poker_cards']} US Letter (PDF)",
                 "sheet.html": f"{labels['sheet']} (HTML)"}
        prefix = f"{self.game}-{self.lang}-"
        return [(label, f"cards/{prefix}{suffix}") for suffix, label in names.items() if f"{prefix}{suffix}" in self.files]


def aid_sections(resolved: Resolved, game: str, lang: str) -> list[dict]:
    """The aid's sections with each entry's title and text as HTML, in the reader's language."""
    kb = resolved.kb
    sections = []
    for section in kb.aids[game]["sections"]:
        items = []
        for entry_id in section["entries"]:
            entry = kb.entries[entry_id]
            shown = resolved.display_language(entry, lang)
            text = render_text(entry["text"][shown], link_for=lambda ref, label: escape_html(label or resolved_title(resolved, ref, shown)))
            html = markdown.markdown(text, extensions=["tables"])
            if "table" in entry:
                html += table_html(entry["table"], shown)
            items.append({
                "id": entry_id, "anchor": slug_of(entry_id), "title": escape_html(entry["title"][shown]), "html": html,
                "fallback": None if shown == lang else LABELS[lang]["fallback"].format(shown=LANGUAGE_NAMES[shown][lang]),
            })
        sections.append({"title": escape_html(section["title"].get(lang) or section["title"]["en"]), "items": items})
    return sections


def resolved_title(resolved: Resolved, ref: str, lang: str) -> str:
    item = resolved.kb.entries.get(ref) or resolved.kb.chapters[ref].data
    return item["title"][resolved.display_language(item, lang)]


def table_html(table: dict, lang: str) -> str:
    def cell(value) -> str:
        if isinstance(value, dict):
            value = value.get(lang) or value.get("en") or next(iter(value.values()))
        return "" if value is None else escape_html(str(value))
    head = "".join(f"<th>{cell(c['title'])}</th>" for c in table["columns"])
    rows = "".join("<tr>" + "".join(f"<td>{cell(row.get(c['key']))}</td>" for c in table["columns"]) + "</tr>"
                   for row in table["rows"])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def overflowing_boxes(document) -> list[str]:
    """Boxes that leave their page's content area (checked on WeasyPrint's laid-out page boxes)."""
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
            if x is not None and y is not None:
                width, height = box.margin_width(), box.margin_height()
                if x < left - tolerance or y < top - tolerance or x + width > right + tolerance or y + height > bottom + tolerance:
                    text = getattr(box, "text", "") or box.element_tag
                    problems.append(f"page {number}: {type(box).__name__} '{str(text)[:40]}' leaves the page area")
            stack.extend(getattr(box, "children", []))
    return problems


NOTDEF = re.compile(rb"<((?:[0-9a-fA-F]{4})+)>")


def notdef_glyphs(pdf: bytes) -> int:
    """Glyph id 0 (.notdef, a missing glyph) drawn in any page's text (WeasyPrint writes glyph ids in hex)."""
    count = 0
    for page in PdfReader(io.BytesIO(pdf)).pages:
        content = page.get_contents()
        data = content.get_data() if content is not None else b""
        for match in NOTDEF.finditer(data):
            groups = match.group(1)
            count += sum(1 for i in range(0, len(groups), 4) if groups[i:i + 4] == b"0000")
    return count


def impose(card_pdf: bytes, sheet: str) -> bytes:
    """Nine card pages to a sheet, 3 × 3, centred, with cut marks in the margins."""
    sheet_w, sheet_h = SHEETS[sheet]
    x0, y0 = (sheet_w - 3 * CARD_W) / 2, (sheet_h - 3 * CARD_H) / 2
    marks = cut_marks(sheet_w, sheet_h, x0, y0)
    cards = PdfReader(io.BytesIO(card_pdf)).pages
    writer = PdfWriter()
    for start in range(0, len(cards), 9):
        page = writer.add_blank_page(sheet_w, sheet_h)
        page.merge_page(PdfReader(io.BytesIO(marks)).pages[0])
        for slot, card in enumerate(cards[start:start + 9]):
            column, row = slot % 3, slot // 3
            page.merge_transformed_page(card, Transformation().translate(x0 + column * CARD_W, sheet_h - y0 - (row + 1) * CARD_H))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def cut_marks(sheet_w: float, sheet_h: float, x0: float, y0: float) -> bytes:
    """A page with short lines in the margins where the card edges fall."""
    lines = []
    for i in range(4):
        x = x0 + i * CARD_W
        lines.append(f'<div style="position:absolute;left:{x}pt;top:{y0 - 14}pt;width:0;height:10pt;border-left:.3pt solid #000"></div>')
        lines.append(f'<div style="position:absolute;left:{x}pt;top:{sheet_h - y0 + 4}pt;width:0;height:10pt;border-left:.3pt solid #000"></div>')
        y = y0 + i * CARD_H
        lines.append(f'<div style="position:absolute;top:{y}pt;left:{x0 - 14}pt;height:0;width:10pt;border-top:.3pt solid #000"></div>')
        lines.append(f'<div style="position:absolute;top:{y}pt;left:{sheet_w - x0 + 4}pt;height:0;width:10pt;border-top:.3pt solid #000"></div>')
    html = f"<style>@page{{size:{sheet_w}pt {sheet_h}pt;margin:0}}</style>{''.join(lines)}"
    return HTML(string=html).write_pdf()


def first_page_png(pdf: bytes, scale: float = 1.5) -> bytes:
    document = pypdfium2.PdfDocument(pdf)
    image = document[0].render(scale=scale).to_pil()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def render_aid(resolved: Resolved, game: str, lang: str) -> AidFiles:
    kb = resolved.kb
    labels = LABELS[lang]
    game_data = kb.games[game]
    aid = kb.aids[game]
    title = (aid.get("title") or game_data["title"]).get(lang) or game_data["title"]["en"]
    subtitle = f"{labels['cards']} · {LANGUAGE_NAMES[lang][lang]}"
    footer = f"{game_data['title'].get(lang) or game_data['title']['en']} · {labels['data_version']} {resolved.data_version}"
    sections = aid_sections(resolved, game, lang)
    env = environment("cards")
    prefix = f"{game}-{lang}-"
    files: dict[str, bytes] = {}
    common = {"lang": lang, "title": escape_html(title), "subtitle": escape_html(subtitle),
              "footer": footer.replace('"', "'"), "sections": sections}
    for sheet in SHEETS:
        html = env.get_template("aid.html.j2").render(page_size="A4" if sheet == "a4" else "letter", **SHEET_LAYOUT, **common)
        pdf = check_and_write(html, f"{prefix}sheet-{sheet}", max_pages=MAX_SHEET_PAGES)
        files[f"{prefix}sheet-{sheet}.pdf"] = pdf
        files[f"{prefix}sheet-{sheet}.png"] = first_page_png(pdf)
        if sheet == "a4":
            files[f"{prefix}sheet.html"] = html.encode("utf-8")
    card_html = env.get_template("aid.html.j2").render(**CARD_LAYOUT, **common)
    card_pdf = check_and_write(card_html, f"{prefix}cards", max_pages=None)
    files[f"{prefix}cards.html"] = card_html.encode("utf-8")
    for sheet in SHEETS:
        imposed = impose(card_pdf, sheet)
        files[f"{prefix}cards-{sheet}.pdf"] = imposed
        files[f"{prefix}cards-{sheet}.png"] = first_page_png(imposed)
    return AidFiles(game, lang, files)


def check_and_write(html: str, name: str, max_pages: int | None) -> bytes:
    document = HTML(string=html).render()
    if max_pages is not None and len(document.pages) > max_pages:
        raise AidError(f"{name}: {len(document.pages)} pages, at most {max_pages}: "
                       f"take entries out of the aid in cards.yaml or shorten them")
    overflow = overflowing_boxes(document)
    if overflow:
        raise AidError(f"{name}: " + "; ".join(overflow[:5]))
    pdf = document.write_pdf()
    missing = notdef_glyphs(pdf)
    if missing:
        raise AidError(f"{name}: {missing} glyph(s) missing from the fonts (.notdef)")
    return pdf


def render_all(resolved: Resolved) -> list[AidFiles]:
    aids = []
    for game_id in sorted(resolved.kb.aids):
        for lang in resolved.kb.games[game_id]["languages"]:
            aids.append(render_aid(resolved, game_id, lang))
    return aids
