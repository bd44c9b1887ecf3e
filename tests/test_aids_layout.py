"""The bundled aids as laid out: tables whole and once, values to check marked (issue 16)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import GAMES_WITH_AIDS, bundled_resolved, page_texts
from weasyprint import HTML

from generator.render.aids.aid_layout import card_of_each_page, overflowing_boxes


@pytest.fixture(scope="module")
def resolved():
    return bundled_resolved()


def aid_tables(resolved, game: str, lang: str) -> list[str]:
    """The tables an aid is meant to print: entries named in its cards.yaml that carry a shown table, and
    the game's answer tables (issue 15)."""
    from generator.render.answer_tables import AnswerTables

    return [
        e
        for s in resolved.kb.aids[game]["sections"]
        for e in s["entries"]
        if "table" in resolved.kb.entries[e] and resolved.kb.entries[e]["table"].get("shown", True)
    ] + [table.id for table in AnswerTables(resolved).of_game(game, lang)]


def tables_by_page(document) -> dict[str, set[int]]:
    """Table entry id -> the pages (cards) where a box of that table stands."""
    found: dict[str, set[int]] = {}
    for number, page in enumerate(document.pages, 1):
        stack = [page._page_box]
        while stack:
            box = stack.pop()
            element = getattr(box, "element", None)
            name = element.get("data-table") or element.get("data-answer-table") if element is not None else None
            if name and getattr(box, "element_tag", "") == "table":
                found.setdefault(name, set()).add(number)
            stack.extend(getattr(box, "children", []))
    return found


def first_in_item(page) -> str | None:
    """The tag of the first element of the item on a laid-out page of the items' document."""
    stack = [page._page_box]
    while stack:
        box = stack.pop()
        element = getattr(box, "element", None)
        if element is not None and "item" in element.get("class", "").split():
            children = [child for child in box.children if getattr(child, "element_tag", None)]
            return children[0].element_tag if children else None
        stack.extend(reversed(getattr(box, "children", [])))
    return None


@pytest.mark.parametrize("game", GAMES_WITH_AIDS)
def test_every_table_once_on_the_sheet_and_whole_in_the_cards_html(bundled_build: Path, resolved, game: str):
    """The sheet prints each table once; the cards' HTML (an item a page, as a browser prints it) holds each whole on
    one page. (The printed cards may split a table between two rows, its head row repeated: test_aids_print.py.)"""
    lang = resolved.kb.games[game]["languages"][0]
    cards = bundled_build / "site/cards"
    wanted = aid_tables(resolved, game, lang)
    sheet = (cards / f"{game}-{lang}-sheet.html").read_text(encoding="utf-8")
    for table in wanted:
        assert sheet.count(f'data-table="{table}"') + sheet.count(f'data-answer-table="{table}"') == 1, table
    document = HTML(filename=str(cards / f"{game}-{lang}-cards.html")).render()
    assert overflowing_boxes(document) == []
    for page, card in zip(document.pages, card_of_each_page(document), strict=True):
        # no card runs on to a second, untitled one; a table set apart (aid_layout.lay_out_cards) starts its page,
        # and its printed card carries the item's title again (aid_compose.card_faces)
        assert card is not None or first_in_item(page) == "table", tables_by_page(document)
    pages = tables_by_page(document)
    assert set(pages) == set(wanted)
    for table, on in pages.items():
        assert len(on) == 1, f"{table} is split over cards {sorted(on)}"


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_table_to_check_is_marked_once_at_its_title_not_in_every_cell(resolved, lang: str):
    """Issue 28: the ruination table's 18 values each carried a red "!"; the data does not say which
    value is uncertain, so the table's title carries its open question's number, and the footnote is
    the question, once, at the end of the aid."""
    from generator.render.aids.cards import aid_job

    for html in (aid_job(resolved, "citow", lang).sheet_html, aid_job(resolved, "citow", lang).card_html):
        item = re.search(r'<div class="item" id="ruination-card-1-table">(.*?)</div>', html, re.S)
        assert item
        assert 'class="mark-cell"' not in html and 'class="to-check"' not in html
        number = re.search(r'<sup class="mark">(\d+)</sup></h3>', item.group(1))
        assert number, lang
        question = resolved.kb.entries["citow/clarify-ruination-card-tables"]["title"][lang]
        assert html.count(f'<li><span class="number">{number.group(1)}.</span> <span class="question">{question}') == 1


def test_no_ids_or_editors_notes_on_the_sheet(bundled_build: Path, resolved):
    html = (bundled_build / "site/cards/citow-en-sheet.html").read_text(encoding="utf-8")
    body = re.sub(r'<p class="ref">.*?</p>|<[^>]+>', " ", html.split("<body>", 1)[1])
    assert "citow/" not in body
    assert "The source names the Power only" not in body  # a table's editors' note
    assert "Player aid" in html.split("<body>", 1)[1][:400] and "Quick-reference" not in html
    assert 'name="viewport"' in html and "max-width: 40em" in html


def test_every_cell_of_an_aid_is_in_its_language(bundled_build: Path, resolved):
    """CitOW's follower tables are whole in every language: the ru and pl aids print the Powers' follower
    names and classes in their language, so no cell carries another language's mark and no table the
    fallback note (the ru sheet printed 32 English cells before the translation)."""
    rows = [row for row in resolved.kb.entries["citow/follower-classes"]["table"]["rows"] if row["power"] == "Khorne"]
    for lang in ("en", "pl", "ru"):
        html = (bundled_build / f"site/cards/citow-{lang}-sheet.html").read_text(encoding="utf-8")
        card = re.search(r'id="khorne".*?</table>(.*?)</div>', html, re.S)
        assert card, ("the Khorne card", lang)
        for row in rows:
            assert row["name"][lang] in card.group(0), (lang, row["name"])
        assert '<sup class="fallback-mark">' not in html and 'class="fallback"' not in card.group(1), lang


def test_sheet_is_made_of_the_items_and_its_own_pieces_only(bundled_build: Path, resolved):
    """The sheet is made of the pages laid out for the cards: none of the cards' bands or footers is
    hidden in it (a piece clipped away would still carry its text), each page has its one footer,
    and its bookmarks are the title, then each section with its items, in the aid's order."""
    from pypdf import PdfReader

    from generator.render.aids.cards import aid_sections

    reader = PdfReader(bundled_build / "site/cards/citow-ru-sheet-a4.pdf")
    text = " ".join(page_texts(bundled_build / "site/cards/citow-ru-sheet-a4.pdf"))
    assert ".html#" not in text  # each card's footer names its page on the site
    assert text.count("версия данных") == len(reader.pages) == 2
    # pdfium reads the page as a viewer draws it: each piece must find its own fonts, also from the
    # forms WeasyPrint nests for transparency (the title's "· Памятка игрока" is in one)
    import pypdfium2

    drawn = pypdfium2.PdfDocument(bundled_build / "site/cards/citow-ru-sheet-a4.pdf")[0].get_textpage().get_text_range()
    assert " ".join(drawn.split()).startswith("Хаос в Старом Свете · Памятка игрока Подготовка к игре")

    def levels(outline, depth=0):
        for node in outline:
            yield from levels(node, depth + 1) if isinstance(node, list) else [(depth, " ".join(node.title.split()))]

    expected = [(0, "Хаос в Старом Свете · Памятка игрока")]
    for section in aid_sections(resolved, "citow", "ru"):
        expected.append((1, section["title"]))
        expected += [(2, " ".join(item["title"].split())) for item in section["items"]]
    assert list(levels(reader.outline)) == expected


@pytest.mark.integration
def test_a_heading_in_an_items_own_text_on_a_page_it_runs_on_to_is_that_items(tmp_path: Path):
    """An entry's text may hold headings of its own («### …»); where such an item runs on over its card, a
    page that opens with one of them is still that item's (the layout took it for the item's title and
    refused the aid: 'card … is not where the aid lists it', found by the hostile-data browser test)."""
    from conftest import MINI

    from generator.base.problems import Problems
    from generator.load.load import load
    from generator.render.aids.aid_layout import produce, start_worker
    from generator.render.aids.cards import aid_job
    from generator.render.answer_tables import AnswerTables
    from generator.resolve.resolve import resolve
    from generator.validate.validate import check

    problems = Problems()
    kb = check(load(MINI, problems), problems)
    assert not problems
    part = "### A heading of the rule's own\n\nA unit that must retreat moves back one space, and again, and again.\n\n"
    kb.entries["mini/retreat"]["text"]["en"] = part * 12  # several cards' worth, a heading on each of them
    resolved = resolve(kb)
    start_worker()
    aid = produce(aid_job(resolved, "mini", "en", AnswerTables(resolved)))
    cards = next(content for name, content in aid.files.items() if name.endswith("cards-a4.pdf"))
    text = " ".join(page_texts(cards))
    assert text.count("A heading of the rule's own") == 12  # every part printed, once
