"""Stage 4c, render the player aids: per game and language, a sheet (A4 and US Letter, at most two
pages) and poker-size cards (63 × 88 mm, nine to a page with cut marks), as HTML and PDF, plus a
PNG of the A4 sheet's first page (the preview the site shows).

This module makes what an aid says, as HTML, and hands it to worker processes that lay it out
(aid_layout.py) and make the PDFs of the laid-out pieces (aid_compose.py); it never imports the
layout libraries itself. Which entries an aid carries is data
(data/games/<game>/cards.yaml); the text is the entries' own, so a change in the data changes the aid.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from jinja2 import Environment
from markupsafe import Markup

from ...base import aid_geometry, colours

# the card's geometry, re-exported: the aids' other modules read it from here
from ...base.aid_geometry import CARD_MARGIN as CARD_MARGIN
from ...base.aid_geometry import CARD_SIZE as CARD_SIZE
from ...base.aid_geometry import CARD_TEXT as CARD_TEXT
from ...base.aid_geometry import FONT_SIZE
from ...base.aid_geometry import MM as MM
from ...base.children import die_with_parent, held_interrupts, let_interrupts_in
from ...base.errors import KbError
from ...base.jsontypes import JSON, JSONObject
from ...base.languages import fill
from ...base.safe_markdown import Linker, render, without_tables
from ...load.model import Entry
from ...resolve.pages import CALCULATORS, CHANGES
from ...resolve.resolve import Reading, Resolved, slug_of
from ..answer_tables import AnswerTable, AnswerTables
from ..site import environment
from .aid_qr import changes_url, qr_item, section_url, site_url

SHEETS = {"a4": (210 * MM, 297 * MM), "letter": (8.5 * 72, 11 * 72)}
# The printed aids are made of pieces laid out once (aid_compose.py); their sizes, in points: the card's
# (CARD_SIZE, CARD_MARGIN, CARD_TEXT) are in base/aid_geometry.py, which validate reads too (E088).
FULL_FACE = 0.6  # issue 28: a card face at least 60 % used (aid_compose.card_faces; aid_measure measures it on the printed cards)
FOOT_INSET = 4.25 * MM  # a card's footer stands this far inside the cut, below and at the sides (issue 28: at least 4 mm)
# The sheet PDF is made once, on the area both papers have (210 × 279.4 mm), and centred on each.
SHEET_AREA = (min(w for w, _ in SHEETS.values()), min(h for _, h in SHEETS.values()))
SHEET_MARGIN = (8 * MM, 10 * MM)  # top, bottom (where the footer stands); the columns are centred across
SHEET_COLUMNS, COLUMN_GAP = 3, 3.5 * MM
RULE = (1.2, 2.6)  # on the sheet, a coloured rule left of each item, and the space between rule and text
COLUMN_WIDTH = CARD_TEXT[0] + sum(RULE)  # an item is as wide on the sheet as on its card
SHEET_TEXT_WIDTH = SHEET_COLUMNS * COLUMN_WIDTH + (SHEET_COLUMNS - 1) * COLUMN_GAP
MAX_SHEET_PAGES = 2
# The sheet as a web page, one per paper, whose print CSS asks for that paper (cards/<game>-<lang>-sheet.html
# on A4, …-sheet-letter.html on US Letter), and every item on a card-sized page of its own.
SHEET_LAYOUT = {"margin": "8mm 8mm 10mm", "columns": SHEET_COLUMNS, "font_size": FONT_SIZE, "card": False}
SHEET_PAGE_SIZES = {"a4": "A4", "letter": "letter"}  # CSS page sizes, by paper
SHEET_HTML = {"a4": "sheet.html", "letter": "sheet-letter.html"}  # the web sheet's file, by paper
CARD_LAYOUT = {"page_size": f"{CARD_TEXT[0]:.4f}pt {CARD_TEXT[1]:.4f}pt", "columns": 1, "font_size": FONT_SIZE, "card": True}
PAPER_NAMES = {"a4": "A4", "letter": "US Letter"}
PREVIEW = "sheet-a4.png"  # the A4 sheet's first page, shown on the site beside the downloads


def aid_file(game: str, lang: str, name: str) -> str:
    """File name under cards/ of one of an aid's files (name: "sheet-a4.pdf", "cards.html", …)."""
    return f"{game}-{lang}-{name}"


@dataclass
class AidLinks:
    downloads: list[tuple[str, str]]  # (label, path under the site root)
    preview: str  # the A4 sheet's first page as PNG


def aid_links(resolved: Resolved) -> dict[tuple[str, str], AidLinks]:
    """(game, lang) -> what the site links of that aid. Known from the data alone, so pages can
    link the aids while they are still being laid out."""
    links = {}
    for game, lang in aid_languages(resolved):
        labels = resolved.reading(lang).labels
        downloads = [
            (f"{labels[label]} {PAPER_NAMES[paper]} (PDF)", f"cards/{aid_file(game, lang, f'{kind}-{paper}.pdf')}")
            for kind, label in (("sheet", "sheet"), ("cards", "poker_cards"))
            for paper in SHEETS
        ]
        downloads += [(f"{labels['sheet']} {PAPER_NAMES[paper]} (HTML)", f"cards/{aid_file(game, lang, SHEET_HTML[paper])}") for paper in SHEETS]
        links[(game, lang)] = AidLinks(downloads, f"cards/{aid_file(game, lang, PREVIEW)}")
    return links


def aid_languages(resolved: Resolved) -> list[tuple[str, str]]:
    """Every (game, language) that has an aid, in build order."""
    return [(game, lang) for game in sorted(resolved.kb.aids) for lang in resolved.kb.games[game]["languages"]]


class AidError(KbError):
    """An aid does not fit or does not render cleanly; the message says which and why."""

    code = "B004"


class AidFetchError(AidError):
    """An aid's HTML asked for a file or URL: aids fetch nothing but the project's bundled assets."""

    code = "B005"


class AidItem(TypedDict):
    """One item of an aid (an entry, a faction, an answer table, the open questions, the QR code): one card
    or more, and one block of the sheet."""

    id: str
    anchor: str  # its id in the aid's HTML
    title: str
    html: Markup  # its body
    table: NotRequired[Markup]  # an entry's own table, after its body: a card may set it apart, under the title again
    fallback: str | None  # "shown in <language>" when its text is not in the reader's language
    questions: list[str]  # the open questions it is marked with (clarification ids)…
    marks: NotRequired[list[int]]  # …and their numbers (number_questions)
    ref: str  # its place on the site (several, joined by " · ", for a faction)
    colour: str | None  # its own rule's colour (a faction's), else its section's
    icon: str | None
    faction: bool


class AidSection(TypedDict):
    title: str
    colour: str
    icon: str | None
    items: list[AidItem]
    last_on_sheet: NotRequired[bool]  # see PrintedSection


@dataclass
class AidFiles:
    game: str
    lang: str
    files: dict[str, bytes]  # name under cards/ -> content


DEFAULT_COLOUR = "#4a3d5c"
ANSWERS_COLOUR, QUESTIONS_COLOUR = colours.ANSWERS, colours.QUESTIONS  # validate keeps sections apart from them (E072)
COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


def aid_sections(resolved: Resolved, game: str, lang: str, tables: AnswerTables | None = None, site: str | None = None) -> list[AidSection]:
    """The aid's sections, each with its colour and icon and its items in the reader's language: an
    item is one entry (title, body as safe HTML), one faction (name, colour, icon, table rows, the
    bodies of its entries) or one answer table (last, in a section of their own). The printed cards stack the
    items that fit on one card, a later section's under its own band (aid_compose.card_faces).
    With the site's public address (`site`), a QR code to the game's changes page comes first (aid_qr.py): the first
    card; the sheet, whose first page is for the rules, puts it after them (`last_on_sheet`)."""
    kb = resolved.kb
    reading = resolved.reading(lang)
    labels = reading.labels
    sections: list[AidSection] = []
    if site:
        date = rulings_date(resolved, game)
        title = f"{labels['data_version']} {date}" if date else labels["aid_changes"]
        sections.append(
            {
                "title": labels["aid_changes"],
                "colour": colours.QR,
                "icon": "clarify",
                "items": [qr_item(game, lang, site, title)],
                "last_on_sheet": True,
            }
        )
    for section in kb.aids[game]["sections"]:
        items = [entry_item(reading, game, entry_id) for entry_id in section.get("entries", [])]
        items += [faction_item(reading, game, faction) for faction in section.get("factions", [])]
        sections.append(
            {
                "title": reading.text(section["title"]),
                "colour": section.get("colour", DEFAULT_COLOUR),
                "icon": section.get("icon"),
                "items": items,
            }
        )
    answers = (tables or AnswerTables(resolved)).of_game(game, lang)
    if answers:
        sections.append(
            {
                "title": labels["calculator"]["answer_tables"],
                "colour": ANSWERS_COLOUR,
                "icon": "dice",
                "items": [answer_item(resolved, lang, table) for table in answers],
            }
        )
    questions = number_questions(sections)
    if questions:
        printed = {item["id"] for section in sections for item in section["items"]}
        sections.append(
            {
                "title": labels["aid_open_questions"],
                "colour": QUESTIONS_COLOUR,
                "icon": "clarify",
                "items": questions_items(reading, game, questions, printed),
            }
        )
    return sections


def number_questions(sections: list[AidSection]) -> list[str]:
    """Number the open questions in the order the aid first marks them: each item's `questions`
    (clarification ids) become its `marks` (their numbers). Returns the questions in that order."""
    order: list[str] = []
    for section in sections:
        for item in section["items"]:
            order += [q for q in item["questions"] if q not in order]
            item["marks"] = sorted(order.index(q) + 1 for q in item["questions"])
    return order


QUESTIONS_PER_CARD = 800  # characters of questions and rulings one card holds, with room to spare


def questions_items(reading: Reading, game: str, questions: list[str], printed: set[str]) -> list[AidItem]:
    """The aid's footnotes: each open question once, numbered as its marks, asked in the reader's
    language, with the ruling the aid follows until it is checked (unless the aid prints that ruling),
    as many items (cards) as they need."""
    notes: list[tuple[int, str, str | None]] = []
    for number, clarification_id in enumerate(questions, 1):
        entry = reading.resolved.kb.entries[clarification_id]
        ruling = entry["clarification"].get("ruling", {})
        notes.append((number, reading.text(entry["title"]), None if clarification_id in printed or not ruling else reading.text(ruling)))
    groups: list[list[tuple[int, str, str | None]]] = [[]]
    for note in notes:
        if groups[-1] and sum(len(n[1]) + len(n[2] or "") for n in groups[-1] + [note]) > QUESTIONS_PER_CARD:
            groups.append([])
        groups[-1].append(note)
    label = reading.labels["aid_needs_check"]

    def numbers(first: int, last: int) -> str:
        return str(first) if first == last else f"{first}–{last}"  # "(6)", not "(6–6)"

    return [
        {
            "id": f"{game}/open-questions-{k}",
            "anchor": f"open-questions-{k}",
            "title": label if len(groups) == 1 else f"{label} ({numbers(group[0][0], group[-1][0])})",
            "html": Markup(aid_environment().get_template("aid-questions.html.j2").render(notes=group)),
            "fallback": None,
            "questions": [],
            "marks": [],
            "ref": f"{reading.reader}/{game}/",
            "colour": None,
            "icon": None,
            "faction": False,
        }
        for k, group in enumerate(groups, 1)
    ]


def answer_item(resolved: Resolved, lang: str, table: AnswerTable) -> AidItem:
    """An answer table's card: the question it answers as its title, the table, a reference to the Calculators page."""
    html = Markup(aid_environment().get_template("answer-table.html.j2").render(t=table))
    return {
        "id": table.id,
        "anchor": table.id,
        "title": table.title,
        "html": html,
        "fallback": None,
        "questions": [],
        "ref": f"{lang}/{table.game}/{CALCULATORS.html}",
        "colour": None,
        "icon": None,
        "faction": False,
    }


def entry_item(reading: Reading, game: str, entry_id: str) -> AidItem:
    lang = reading.reader
    entry = reading.resolved.kb.entries[entry_id]
    html, table, shown = entry_body(reading, game, entry_id)
    summary_title = entry.get("summary", {}).get("title", {})
    title_lang = lang if lang in summary_title or lang in entry["title"] else reading.shown_language(entry)
    title = summary_title.get(lang) or entry["title"][title_lang]
    other = shown if shown != lang else title_lang
    return {
        "id": entry_id,
        "anchor": slug_of(entry_id),
        "title": title,
        "html": html,
        "table": table,
        "fallback": None if other == lang else fill(reading.labels["fallback"], shown=reading.language_name(other)),
        "questions": open_questions(reading.resolved, entry_id),
        "ref": reading.url(entry_id),
        "colour": None,
        "icon": None,
        "faction": False,
    }


def entry_body(reading: Reading, game: str, entry_id: str) -> tuple[Markup, Markup, str]:
    """An entry's body on an aid and its table (empty if none), as safe HTML, and the language it is in: its
    summary in the reader's language if it has one, else its text (and its table) in the language shown."""
    resolved, lang = reading.resolved, reading.reader
    entry = resolved.kb.entries[entry_id]
    summary = entry.get("summary", {}).get("text", {})
    shown = lang if lang in summary else reading.shown_language(entry)
    linker = Linker(reference_href=no_link, reference_label=partial(resolved.title_of, reader=shown))  # titles in the text's language
    html = render(summary[lang] if lang in summary else aid_text(resolved, entry, shown), linker)
    if "<img" in html:
        raise AidFetchError(f"entry '{entry_id}' has an image; aids fetch nothing (aid {game}-{lang})")
    table = Markup()
    if "table" in entry and entry["table"].get("shown", True):
        hidden = resolved.kb.aids[game].get("hide_columns", {}).get(entry_id, [])
        table = table_html(reading, {**entry["table"], "columns": [c for c in entry["table"]["columns"] if c["key"] not in hidden]}, entry_id)
    return Markup(html), table, shown


def faction_item(reading: Reading, game: str, faction: JSONObject) -> AidItem:
    """A faction's card: its rows of a table (the column that names the faction left out), then the
    bodies of its entries, without their titles."""
    parts: list[Markup] = []
    questions: list[str] = []
    refs: list[str] = []
    resolved = reading.resolved
    if "rows" in faction:
        table_id, where = faction["rows"]["table"], faction["rows"]["where"]
        table = resolved.kb.entries[table_id]["table"]
        columns = [c for c in table["columns"] if c["key"] not in where]
        rows = [row for row in table["rows"] if all(resolved.text_in(row.get(k), "en") == v for k, v in where.items())]
        parts.append(table_html(reading, {**table, "columns": columns, "rows": rows}, None))
    for entry_id in faction.get("entries", []):
        body, own_table, _ = entry_body(reading, game, entry_id)
        parts += [body, own_table]
        questions += [q for q in open_questions(resolved, entry_id) if q not in questions]
        refs.append(reading.url(entry_id))
    name = reading.text(faction["name"])
    return {
        "id": name,
        "anchor": slug_of(f"{game}/{faction['icon']}"),
        "title": name,
        "html": Markup("".join(parts)),
        "fallback": None,
        "questions": questions,
        "ref": " · ".join(refs),
        "colour": faction["colour"],
        "icon": faction["icon"],
        "faction": True,
    }


def open_questions(resolved: Resolved, entry_id: str) -> list[str]:
    """The open questions an aid marks on an entry: the clarifications about it (or the entry itself,
    if it is one) whose status is needs-check and whose ruling changes play. A question about our
    text rather than the game (extraction damage) is an editors' matter and stays off the aids."""

    def is_open(clarification_id: str) -> bool:
        clarification = resolved.kb.entries[clarification_id].get("clarification", {})
        return (
            clarification.get("status") == "needs-check"
            and bool(clarification.get("changes_play"))
            and clarification.get("topic") != "extraction-damage"
        )

    about = ([entry_id] if "clarification" in resolved.kb.entries[entry_id] else []) + resolved.clarifications_of.get(entry_id, [])
    return [c for c in dict.fromkeys(about) if is_open(c)]


def no_link(ref: str) -> None:
    """Aids print references as their titles, not links."""
    return None


def aid_text(resolved: Resolved, entry: Entry, lang: str) -> str:
    """What an aid prints of an entry: the whole text, except that a clarification shows its ruling sentence."""
    text = entry["text"][lang]
    if "table" in entry:
        return without_tables(text)
    if entry["kind"] == "clarification":  # the ruling in one sentence: what the players do
        ruling = resolved.ruling_sentence(entry, lang)
        return ruling[0] if ruling else text
    return text


def table_html(reading: Reading, table: JSONObject, entry_id: str | None) -> Markup:
    """A data table for an aid, every cell plain text (escaped by the template); the table's note is
    an editors' note and stays off the aid (an open question about it is marked at the item's title). A heading or
    cell shown in another language than the reader's prints that language's code as a mark, named
    under the table like any fallback text."""
    text = reading.table(table)

    def shown(value: JSON) -> str | None:
        """The language a per-language value is shown in, when it is not the reader's."""
        if isinstance(value, dict) and value and reading.reader not in value:
            return reading.pick(value)
        return None

    head_marks = [shown(c["title"]) for c in table["columns"]]
    row_marks = [[shown(row.get(c["key"])) for c in table["columns"]] for row in table["rows"]]
    used = sorted({m for m in head_marks + [m for marks in row_marks for m in marks] if m})
    notes = [f"{code}: " + fill(reading.labels["fallback"], shown=reading.language_name(code)) for code in used]
    return Markup(
        aid_environment()
        .get_template("aid-table.html.j2")
        .render(
            head=list(zip(text.head, head_marks, strict=True)),
            rows=[list(zip(r, m, strict=True)) for r, m in zip(text.rows, row_marks, strict=True)],
            entry_id=entry_id,
            fallback_notes=notes,
        )
    )


@cache
def aid_environment() -> Environment:
    """The aids' templates (autoescaping), with their CSS filters; made once per process."""
    env = environment("cards")
    env.filters["css_string"] = css_string
    env.filters["css_colour"] = css_colour
    env.globals["geometry"] = {
        name: aid_geometry.css_number(getattr(aid_geometry, name))
        for name in ("TABLE_PT", "ANSWER_CELL_PADDING", "ANSWER_HEAD_PADDING", "TABLE_RULE")
    }
    return env


@dataclass
class PrintedSection:
    """A section as the sheet PDF arranges it: its title (for the bookmarks), and each item's id
    (as in the items' HTML), title, the colour of its rule and its page on the site."""

    title: str
    items: list[tuple[str, str, str, str]]  # id, title, colour, the page of the site it is on (site_page)
    last_on_sheet: bool = False  # the QR code's: first on the cards, after the rules on the sheet if it has room there


@dataclass
class AidJob:
    """One aid (game × language): its HTML, laid out and checked in a worker process."""

    game: str
    lang: str
    sheet_html: str  # the sheet as a web page printing on A4, in CSS columns (what the version and the cache key read)
    card_html: str  # every item on a page of its own, the size of a card's text: both PDFs are made of these pages
    parts_html: str  # the other pieces of the printed aids, one a page (aid-parts.html.j2)
    title: str  # the sheet PDF's title
    sections: list[PrintedSection]
    cards_title: str = ""  # the cards PDF's title
    sheet_letter_html: str = ""  # the same web page printing on US Letter
    sheet_context: dict[str, Any] = field(default_factory=dict)  # the web sheet's template context but its paper (sheet_page)


def aid_job(resolved: Resolved, game: str, lang: str, tables: AnswerTables | None = None, site: str | None = None) -> AidJob:
    """One aid's HTML; `site`: the site's public address, for the QR code (aid_qr.py), or None for none."""
    kb = resolved.kb
    reading = resolved.reading(lang)
    labels = reading.labels
    game_title = reading.text(kb.aids[game].get("title") or kb.games[game]["title"])
    env = aid_environment()
    sections = aid_sections(resolved, game, lang, tables, site)
    layouts = {
        "sheet": ({**SHEET_LAYOUT, "page_size": SHEET_PAGE_SIZES["a4"]}, labels["aid_sheet"]),
        "sheet-letter": ({**SHEET_LAYOUT, "page_size": SHEET_PAGE_SIZES["letter"]}, labels["aid_sheet"]),
        "cards": (CARD_LAYOUT, labels["aid_cards"]),
    }

    changes = f"{labels['aid_changes']}: {lang}/{game}/{CHANGES.html}"  # what changed after the version's date (site.changes_page)

    rules = section_url(site, game, lang) if site else f"{lang}/{game}/"  # with the site's address, as one types it in

    def footer(version: str, changes: str = changes) -> str:
        return f"{game_title} · {labels['full_rules']}: {rules} · {version} · {changes} · {labels['aid_print_at_100']}"

    def context(kind: str, version: str) -> dict[str, Any]:
        layout, kind_label = layouts[kind]
        return {
            **layout,
            "lang": lang,
            "game_title": game_title,
            "kind": kind_label,
            "title": f"{game_title} · {kind_label}",
            "sections": sections,
            "footer": footer(version),
            "continued": labels["aid_continued"],
        }

    def html(kind: str, version: str) -> str:
        return env.get_template("aid.html.j2").render(**context(kind, version))

    # The printed version is a digest of what this aid shows, not of the whole data: an edit in
    # one game changes neither the version nor the cache key of another game's aids.
    date = rulings_date(resolved, game)
    version = f"{labels['data_version']} {date + ' · ' if date else ''}{content_version(html('sheet', '') + html('cards', ''))}"
    sheet_title = f"{game_title} · {labels['aid_sheet']}"
    parts = env.get_template("aid-parts.html.j2").render(
        lang=lang,
        game_title=game_title,
        kind=labels["aid_sheet"],
        title=sheet_title,
        font_size=FONT_SIZE,
        sections=sections,
        card_refs=footer_refs([item["ref"] for section in sections for item in section["items"]]),
        version=version,
        footer=footer(version),
        # a sheet with no room for the QR code names the page it leads to in full in its footer (aid_compose.arrange_sheet)
        address_footer=footer(version, f"{labels['aid_changes']}: {changes_url(site, game, lang)}") if site else None,
        max_pages=MAX_SHEET_PAGES,
        print_note=labels["aid_print_at_100"],
        sheet_width=round(SHEET_TEXT_WIDTH, 3),
        column_width=round(COLUMN_WIDTH, 3),
        card_width=round(CARD_TEXT[0], 3),
        foot_width=round(CARD_SIZE[0] - 2 * FOOT_INSET, 3),
        changes_note=changes,
        continued=labels["aid_continued"],
    )
    printed = [
        PrintedSection(
            section["title"],
            [(item["anchor"], item["title"], item["colour"] or section["colour"], site_page(item["ref"])) for item in section["items"]],
            section.get("last_on_sheet", False),
        )
        for section in sections
    ]
    return AidJob(
        game,
        lang,
        html("sheet", version),
        html("cards", version),
        parts,
        sheet_title,
        printed,
        f"{game_title} · {labels['aid_cards']}",
        html("sheet-letter", version),
        {name: value for name, value in context("sheet", version).items() if name != "page_size"},
    )


def sheet_page(job: AidJob, paper: str, plan: list[list[list[tuple[int, str]]]], smaller: str = "") -> str:
    """The sheet as a web page printing on `paper` (site/cards/<game>-<lang>-sheet.html, …-sheet-letter.html), laid
    out in the pages and columns of the sheet PDF (`plan`: aid_compose.SheetLayout.plan), each column a block of its
    own: a section going on in a column opens it with its bar marked as continued, as on the PDF (in CSS columns,
    its items went on under no heading). On a phone the columns follow one another, without those bars. `smaller`:
    CSS that sets the items the cards (and so the PDF sheet) set smaller so (aid_layout.smaller_css: its ids escaped)."""
    sections = job.sheet_context["sections"]
    items = {item["anchor"]: item for section in sections for item in section["items"]}
    pages: list[list[list[dict[str, Any]]]] = []
    for page in plan:
        pages.append([])
        for column in page:
            parts: list[dict[str, Any]] = []
            for section, what in column:
                if what in ("bar", "more") or not parts or parts[-1]["section"] is not sections[section]:
                    parts.append({"section": sections[section], "head": what if what in ("bar", "more") else None, "items": []})
                if what not in ("bar", "more"):
                    parts[-1]["items"].append(items[what])
            pages[-1].append(parts)
    return (
        aid_environment()
        .get_template("aid.html.j2")
        .render(**job.sheet_context, page_size=SHEET_PAGE_SIZES[paper], pages=pages, smaller=Markup(smaller))
    )


def rulings_date(resolved: Resolved, game: str) -> str | None:
    """The date an aid's data stands at: the latest day a ruling of the game was reviewed against
    the sources (clarifications' `reviewed`), so the same data always prints the same date."""
    dates = [
        str(entry["clarification"]["reviewed"])
        for entry_id, entry in resolved.kb.entries.items()
        if resolved.kb.game_of(entry_id) == game and "reviewed" in entry.get("clarification", {})
    ]
    return max(dates, default=None)


def content_version(html: str) -> str:
    """The version an aid prints: a digest of its own HTML (rendered without the version)."""
    return hashlib.sha256(html.encode("utf-8")).hexdigest()[:12]


def footer_refs(refs: list[str]) -> list[tuple[str, str, bool]]:
    """Each item's reference, its page of the site (`site_page`), and whether its footers that name the page are
    another item's (`page_footer_of`): those are laid out once (aid-parts.html.j2)."""
    pages = [site_page(ref) for ref in refs]
    return [(ref, page, page_footer_of(pages, number) != number) for number, (ref, page) in enumerate(zip(refs, pages, strict=True))]


def page_footer_of(pages: list[str], number: int) -> int:
    """The item whose footers naming its page of the site (`card-foot-page-N`, `card-foot-more-N`) item `number` uses, given
    each item's page (`site_page`): the first on that page; its own for an item on no one page."""
    return pages.index(pages[number]) if pages[number] else number


def site_page(ref: str) -> str:
    """The page of the site an item's reference is on: the reference without its anchor; "" for a
    reference to several places (a faction's entries), which names no one page."""
    return "" if " · " in ref else ref.split("#", 1)[0]


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


def job_key(job: AidJob) -> str:
    """Content address of an aid: its HTML plus the code and library that lay it out."""
    digest = hashlib.sha256()
    for part in (job.game, job.lang, job.card_html, job.sheet_html, job.sheet_letter_html, job.parts_html, layout_code_version()):
        digest.update(part.encode("utf-8"))
    return digest.hexdigest()[:24]


@cache
def layout_code_version() -> str:
    """The aids' code, their templates (the workers render the web sheet: sheet_page) and WeasyPrint's version: read
    once, not once per aid looked up."""
    templates = sorted((Path(__file__).parents[2] / "templates" / "cards").glob("*.j2"))
    code = b"".join(
        path.read_bytes() for path in [Path(__file__).with_name(name) for name in ("cards.py", "aid_layout.py", "aid_compose.py")] + templates
    )
    return hashlib.sha256(code).hexdigest() + importlib.metadata.version("weasyprint")


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


def layout_workers(count: int | None = None) -> ProcessPoolExecutor:
    """Worker processes (`count`, at most one per core) that lay out aids, started now. `build` starts
    them before the data is loaded: they import WeasyPrint and make their font configuration
    meanwhile, on the other core."""
    workers = ProcessPoolExecutor(
        max_workers=min(count or os.cpu_count() or 1, os.cpu_count() or 1), initializer=start_layout_worker, initargs=(os.getpid(),)
    )
    with held_interrupts():  # see children.py
        workers.submit(int)  # the pool starts (forks) its processes on the first task, not before
    return workers


def start_layout_worker(build: int) -> None:
    """A layout worker dies with the build (`build`: its pid) and leaves Ctrl-C to it, first of all;
    then it loads WeasyPrint and the PDF libraries (only the workers do)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    let_interrupts_in()
    die_with_parent(build)
    from . import aid_layout

    aid_layout.start_worker()


def lay_out(job: AidJob) -> AidFiles:
    """One aid laid out (in a worker process)."""
    from .aid_layout import produce

    return produce(job)


def start_aids(resolved: Resolved, cache: Path | None = None, workers: ProcessPoolExecutor | None = None) -> PendingAids:
    """Start laying out every game × language aid in worker processes (`workers`, or new ones) and
    return at once, so that the caller can do other work meanwhile; `.files()` waits for the aids
    and hands over their files. An aid whose HTML has not changed since a previous build is taken
    from `cache` instead."""
    tables = AnswerTables(resolved)
    site = site_url()  # None: no QR code (the build says so: __main__.cmd_build)
    return PendingAids([aid_job(resolved, game, lang, tables, site) for game, lang in aid_languages(resolved)], cache, workers)


class PendingAids:
    """The aids of one build, being laid out by a pool of worker processes (one per core), which it
    shuts down when they are done."""

    def __init__(self, jobs: list[AidJob], cache: Path | None, workers: ProcessPoolExecutor | None = None):
        self.jobs, self.cache = jobs, cache
        self.done: dict[int, AidFiles] = {}
        for index, job in enumerate(jobs):
            hit = cached(job, cache)
            if hit:
                self.done[index] = hit
        # Longest first (by HTML length), so that no worker is left with a big aid at the end.
        todo = sorted((i for i in range(len(jobs)) if i not in self.done), key=lambda i: -len(jobs[i].sheet_html) - len(jobs[i].card_html))
        self.pool, self.futures = workers, {}
        if todo:
            self.pool = self.pool or layout_workers(len(todo))
            self.futures = {index: self.pool.submit(lay_out, jobs[index]) for index in todo}
        elif self.pool is not None:
            self.cancel()  # every aid came from the cache

    def each(self) -> Iterator[AidFiles]:
        """Every aid, the cached ones first, then each as soon as it is laid out: none waits in memory for one
        laid out after it, and none is kept here once handed over, so a large corpus's aids can be written
        out without all being in memory at once. If an aid fails, its AidError is raised and the aids not
        started yet are dropped."""
        try:
            for index in sorted(self.done):
                yield self.done.pop(index)
            job_of = {future: self.jobs[index] for index, future in self.futures.items()}
            self.futures = {}
            for future in as_completed(job_of):
                aid = future.result()
                store(aid, job_of.pop(future), self.cache)
                yield aid
        except BaseException:
            self.cancel()
            raise
        if self.pool is not None:
            self.pool.shutdown()

    def files(self) -> Iterator[tuple[str, bytes]]:
        """(name under cards/, content) of every aid's files, as each aid is ready (see `each`)."""
        return (item for aid in self.each() for item in aid.files.items())

    def cancel(self) -> None:
        """Drop the aids not started yet; workers finish the one they are on, then exit."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
