"""The bundled aids as a group prints and plays from them (issue 28), read from their PDFs: no
editors' notes, each open question once as a numbered footnote in the reader's language."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2
import pytest
from conftest import EVERY_AID, assert_tables_at_7pt, bundled_resolved, measured_cards, measured_sheet, page_texts
from pypdf import PdfReader

EDITORIAL = [
    "extraction",
    "mistranslation",
    "stop-gap",
    "our text",
    "Lost icons",
    "ekstrakcji",
    "błąd rosyjskiego",
    "tymczasowe",
    "naszym tekście",
    "распознавани",
    "утраченн",
    "ошибка русского",
    "временная мера",
    "нашем тексте",
]


@pytest.fixture(scope="module")
def resolved():
    return bundled_resolved()


@pytest.fixture(scope="module")
def aids(bundled_build: Path) -> dict[str, bytes]:
    """Name under cards/ -> content, of every bundled aid as `build` laid it out (the bundled site's: they were laid
    out here again, six of them)."""
    return {path.name: path.read_bytes() for path in (bundled_build / "site" / "cards").iterdir() if path.is_file()}


def words(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces; a line that ends in a hyphen joined to the next (the
    aids do not hyphenate: a line breaks after a hyphen of the text, "отряда-|цели")."""
    return " ".join(text.replace("-\n", "-").split())


def pdf_text(content: bytes) -> str:
    return words(" ".join(page_texts(content)))


def editors_notes(entry: dict) -> list[str]:
    """Every note of an entry meant for editors, in every language: its table's note, its corrections',
    its numbers_differ's and its worked example's."""
    notes = [entry.get("table", {}).get("note"), entry.get("numbers_differ", {}).get("note"), entry.get("example", {}).get("note")]
    notes += [correction.get("note") for correction in entry.get("corrections", [])]
    found = []
    for note in notes:
        found += list(note.values()) if isinstance(note, dict) else [note] if note else []
    return found


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_no_editors_note_on_any_page(aids, resolved, game: str, lang: str):
    notes = [words(note) for entry_id, entry in resolved.kb.entries.items() if entry_id.startswith(f"{game}/") for note in editors_notes(entry)]
    assert notes  # the data has such notes: the test reads for them
    for kind in ("sheet", "cards"):
        text = pdf_text(aids[f"{game}-{lang}-{kind}-a4.pdf"])
        for note in notes:
            assert note[:50] not in text, (kind, note)
        for word in EDITORIAL:
            assert word.lower() not in text.lower(), (kind, word)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_each_open_question_is_one_numbered_footnote_in_the_readers_language(aids, resolved, game: str, lang: str):
    from generator.render.aids.cards import aid_sections

    sections = aid_sections(resolved, game, lang)
    items = [item for section in sections for item in section["items"]]
    questions = [q for item in items for q in item["questions"]]
    open_ids = list(dict.fromkeys(questions))
    assert open_ids, "the bundled aids all have open questions"
    ui = resolved.languages.ui(lang)
    text = pdf_text(aids[f"{game}-{lang}-sheet-a4.pdf"])
    # no red "!" marks left: a "!" that ends a word is a name's ("Cheats!!!", "(Fury!)")
    assert ui["aid_open_questions"] in text and "!" not in re.sub(r"\w!+", "", text)
    for number, clarification_id in enumerate(open_ids, 1):
        question = words(resolved.kb.entries[clarification_id]["title"][lang])
        assert text.count(question) == 1, (number, question)  # once on the sheet, however many items it concerns
        assert any(number in item["marks"] for item in items)
    sheet = aids[f"{game}-{lang}-sheet.html"].decode("utf-8")
    marks = [int(n) for group in re.findall(r'<sup class="mark">([\d,]+)</sup>', sheet) for n in group.split(",")]
    assert sorted(set(marks)) == list(range(1, len(open_ids) + 1))
    footnotes = [int(n) for n in re.findall(r'<span class="number">(\d+)\.</span>', sheet)]
    assert footnotes == list(range(1, len(open_ids) + 1))  # each once, in order
    assert 'class="mark-cell"' not in sheet
    # printed, each question under its number, on the sheet and on the cards (a second card of questions
    # numbered its 6-9 as 1-4: WeasyPrint ignores <li value>), and on one card whole (a card ended two lines into a
    # question, which went on at the top of the next)
    for kind in ("sheet", "cards"):
        printed = pdf_text(aids[f"{game}-{lang}-{kind}-a4.pdf"])
        for number, clarification_id in enumerate(open_ids, 1):
            question = words(resolved.kb.entries[clarification_id]["title"][lang])
            assert f"{number}. {question}" in printed, (kind, number, question)
        assert not re.search(r"\((\d+)–\1\)", printed), kind  # a card of one question says "(6)", not "(6–6)"
    document = pypdfium2.PdfDocument(aids[f"{game}-{lang}-cards-a4.pdf"])
    cards = [words(" ".join(card_lines(document, card))) for card in range(9 * len(document))]
    for number, clarification_id in enumerate(open_ids, 1):
        question = words(resolved.kb.entries[clarification_id]["title"][lang])
        assert any(f"{number}. {question}" in card for card in cards), (number, question)


def card_lines(document, card: int, paper: str = "a4") -> list[str]:
    """The lines of text printed on one card of a cards PDF open in pdfium (`card`: numbered across its sheets, nine a
    sheet, row by row), read within the card's cut (pdfium reads a hyphen that ends a line as \\x02: "-" here)."""
    from generator.render.aids.cards import CARD_SIZE, SHEETS

    width, height = SHEETS[paper]
    x0, y0 = (width - 3 * CARD_SIZE[0]) / 2, (height - 3 * CARD_SIZE[1]) / 2
    left, top = x0 + card % 3 * CARD_SIZE[0], height - y0 - card % 9 // 3 * CARD_SIZE[1]
    text = document[card // 9].get_textpage().get_text_bounded(left, top - CARD_SIZE[1], left + CARD_SIZE[0], top)
    return text.replace("\x02", "-").splitlines()


@pytest.mark.integration
def test_questions_about_our_text_stay_off_the_aids(resolved):
    """BattleLore's lost dice-face icons are an editors' matter (extraction damage): neither a card nor a footnote."""
    from generator.render.aids.cards import aid_sections

    for lang in ("en", "pl", "ru"):
        items = [item for section in aid_sections(resolved, "battlelore", lang) for item in section["items"]]
        assert "battlelore/clarify-dice-face-icons" not in {item["id"] for item in items}
        assert all("battlelore/clarify-dice-face-icons" not in item["questions"] for item in items)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_every_pdf_is_print_ready(aids, resolved, game: str, lang: str):
    """Title, language, printing at actual size (said on every page, and asked of the viewer), a
    bookmark for every item, and a version with the date of the data."""
    import io

    from generator.render.aids.cards import rulings_date

    ui = resolved.languages.ui(lang)
    game_title = resolved.text_in(resolved.kb.games[game]["title"], lang)
    date = rulings_date(resolved, game)
    assert date and re.fullmatch(r"\d{4}-\d\d-\d\d", date)
    for kind, label in (("sheet", ui["aid_sheet"]), ("cards", ui["aid_cards"])):
        for paper in ("a4", "letter"):
            reader = PdfReader(io.BytesIO(aids[f"{game}-{lang}-{kind}-{paper}.pdf"]))
            root = reader.trailer["/Root"]
            assert reader.metadata.title == f"{game_title} · {label}"
            assert root["/Lang"] == lang
            assert root["/ViewerPreferences"]["/PrintScaling"] == "/None"
            assert len(reader.outline) >= 1
            for page in page_texts(aids[f"{game}-{lang}-{kind}-{paper}.pdf"]):
                text = words(page)
                assert words(ui["aid_print_at_100"]) in text, (kind, paper)
                assert f"{ui['data_version']} {date} · " in text, (kind, paper)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_card_footers_stand_4mm_inside_the_cut(aids, game: str, lang: str):
    """Measured on the printed cards by geometry (aid_measure): every footer's text at least 4 mm inside
    every edge of its card (the footers crossed the cut), the body text at 8 pt or more (it was 7.5 pt),
    nothing on the cards or the sheet set under 6 pt (the footers were 5.5 pt), and nothing in a table
    under 7 pt (answer tables were 6.8 pt, and Marauders' victory points, on a card set smaller, 6.16 pt)."""
    for paper in ("a4", "letter"):
        cards = measured_cards(aids[f"{game}-{lang}-cards-{paper}.pdf"], paper)
        assert cards.footers_within_4mm == 0 and cards.footer_to_cut >= 4, (paper, cards)
        assert cards.smallest_type >= 6 and cards.body_type >= 8, (paper, cards)
        sheet = measured_sheet(aids[f"{game}-{lang}-sheet-{paper}.pdf"], paper)
        assert sheet.smallest_type >= 6 and sheet.body_type >= 8 and sheet.pages <= 2, (paper, sheet)
        assert_tables_at_7pt(aids[f"{game}-{lang}-cards.html"].decode("utf-8"), cards, sheet)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_card_faces_are_mostly_used(aids, game: str, lang: str):
    """Issue 28: consecutive items of a section share a card (aid_compose.card_faces), so the median
    card's text reaches down at least 60 % of the room between its band and its footer (a third of it,
    with one item a card: 27–40 % by aid); measured on the printed cards (aid_measure.face_use)."""
    from generator.render.aids.aid_measure import FULL_FACE

    for paper in ("a4", "letter"):
        cards = measured_cards(aids[f"{game}-{lang}-cards-{paper}.pdf"], paper)
        assert cards.median_face_use >= FULL_FACE, (paper, cards.face_use)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_every_card_face_is_at_least_60_percent_used(resolved, game: str, lang: str):
    """Issue 28's target, card by card, measured on the printed cards (aid_measure.face_use): every face's text
    reaches down at least 60 % of the room between its band and its footer (27 cards of the 12 aids did not: the
    next item did not fit what was left, so it began the next card). An item that does not fit what is left of a
    card under 60 % used starts there and runs on to the next card (aid_compose.card_faces): after a block whole, or
    within one, between two lines of a paragraph or two rows of a table. The last card of a run (a deck's last, or
    the one before a table set apart on a card of its own) is what is left over: the cards before it end earlier so
    that it gets more (aid_compose.balanced_faces; such cards were exempt, and 6 cards of 5 aids stayed under 60 %:
    five last cards of a deck and Marauders pl card 7, before its victory points table). None is exempt now."""
    from generator.render.aids.aid_measure import FULL_FACE

    files, seen, _ = composed_cards(resolved, game, lang)
    faces = seen[0][4]
    for paper in ("a4", "letter"):
        use = measured_cards(files[f"{game}-{lang}-cards-{paper}.pdf"], paper).face_use
        assert len(use) == len(faces), paper
        assert [card + 1 for card, share in enumerate(use) if share < FULL_FACE] == [], (paper, use)


def item_blocks(cards_html: str, anchor: str) -> list[str]:
    """The text of each paragraph and list item of the item `anchor` in the aid's items HTML, without whitespace
    (as the PDFs' text layers are compared: lines wrap differently on a card and on the sheet)."""
    return plain_texts(re.findall(r"<(?:p|li)\b[^>]*>(.*?)</(?:p|li)>", item_html(cards_html, anchor), re.S))


def item_rows(cards_html: str, anchor: str) -> tuple[list[str], list[str]]:
    """The text of each head row and each body row of the tables of the item `anchor`, as `item_blocks` gives its
    paragraphs'."""
    rows: tuple[list[str], list[str]] = ([], [])
    for part, group in re.findall(r"<(thead|tbody)>(.*?)</(?:thead|tbody)>", item_html(cards_html, anchor), re.S):
        rows[part == "tbody"].extend(plain_texts(re.findall(r"<tr\b[^>]*>(.*?)</tr>", group, re.S)))
    return rows


def item_html(cards_html: str, anchor: str) -> str:
    """The HTML of the item `anchor` in the aid's items HTML."""
    block = re.search(rf'<div class="item[^"]*" id="{re.escape(anchor)}".*?\n</div>', cards_html, re.S)
    assert block, anchor
    return block.group(0)


def plain_texts(fragments: list[str]) -> list[str]:
    """Each HTML fragment's text, without tags or whitespace."""
    import html as html_module

    return ["".join(html_module.unescape(re.sub(r"<[^>]+>", "", fragment)).split()) for fragment in fragments]


@pytest.mark.integration
@pytest.mark.parametrize(
    "game, lang, within",
    [
        ("wizards-quest", "en", "lines"),
        ("citow", "en", ""),
        ("battlelore", "ru", ""),
        ("citow", "ru", "lines"),
        ("marauders", "pl", "lines rows"),
        ("citow", "pl", "lines rows"),
    ],
)
def test_an_item_run_on_to_the_next_card_prints_each_of_its_words_once(resolved, game: str, lang: str, within: str):
    """An item split over two cards (aid_compose.card_faces) at a block boundary, or within a block (`within`: between
    two lines of a paragraph or list item, or two body rows of a table): each of its paragraphs, list items and table
    rows is in the cards' text layer (what copy-paste and screen readers find) as often as on the sheet, where the item
    is whole: once, none lost and none left in the PDF, clipped away, twice (a paragraph split between lines: its two
    parts once each, one after the other; a table split between rows: its head row once more, above the rest); its
    title once as it is and once marked as continued, in the reader's language, on the card it runs on to; and its
    first card holds the title and at least two lines of its text, its next at least two more (no lone title, no lone
    line)."""

    import pypdfium2

    files, seen, _ = composed_cards(resolved, game, lang)
    continued = resolved.languages.ui(lang)["aid_continued"]
    html = files[f"{game}-{lang}-cards.html"].decode("utf-8")
    job, items, parts, room, faces = seen[0]
    split = [number for number, item in enumerate(items) if item.split]
    assert split, "no item runs on to the next card"

    def flat(content: bytes) -> str:
        return "".join(" ".join(page_texts(content)).split())

    lines_split: set[int] = set()
    rows_split: set[int] = set()
    for paper in ("a4", "letter"):
        on_cards, on_sheet = flat(files[f"{game}-{lang}-cards-{paper}.pdf"]), flat(files[f"{game}-{lang}-sheet-{paper}.pdf"])
        for number in split:
            blocks = [text for text in item_blocks(html, items[number].anchor) if len(text) >= 12]
            heads, rows = item_rows(html, items[number].anchor)
            assert blocks or rows, items[number].title
            for text in blocks:
                if on_cards.count(text) != on_sheet.count(text):  # split between its lines: its head's, then its rest's
                    at = [cut for cut in range(1, len(text)) if on_cards.count(text[:cut]) == on_cards.count(text[cut:]) == on_sheet.count(text)]
                    assert len(at) == 1 and on_cards.index(text[: at[0]]) < on_cards.index(text[at[0] :]), (paper, items[number].title, text)
                    lines_split.add(number)
                assert on_sheet.count(text) >= 1, (paper, items[number].title, text)
            for text in rows:
                assert on_cards.count(text) == on_sheet.count(text) >= 1, (paper, items[number].title, text)
            for text in heads:
                assert on_cards.count(text) - on_sheet.count(text) in (0, 1) and on_sheet.count(text) >= 1, (paper, items[number].title, text)
                rows_split.update([number] if on_cards.count(text) > on_sheet.count(text) else [])
            title = re.escape("".join(items[number].title.split())) + r"[0-9,]*"  # and the numbers of its open questions
            assert len(re.findall(title + re.escape("".join(continued.split())), on_cards)) == 1, (paper, title)
    document = pypdfium2.PdfDocument(files[f"{game}-{lang}-cards-a4.pdf"])
    for number in split:
        cards = [card for card, face in enumerate(faces) if any(n == number for n, _ in face)]
        assert len(cards) == 2 and cards[1] == cards[0] + 1, (items[number].title, cards)
        for card in cards:
            lines = card_lines(document, card)
            titled = [at for at, line in enumerate(lines) if words(items[number].title)[:15] in words(line)]
            assert titled, (card, items[number].title, lines)
            own = lines[titled[0] + 1 :]  # below its title: its text, then (on its first card) the footer
            assert len(own) >= 3, (card, items[number].title, lines)  # two lines of its text at least, and more
    assert {kind for kind, numbers in (("lines", lines_split), ("rows", rows_split)) if numbers} == set(within.split())


def printed_chars(pdf: bytes) -> list[tuple[str, float]]:
    """Every visible character of a PDF, page by page in the order drawn, with the size it is printed at (points):
    spaces and the characters pdfium makes up between words left out."""
    import ctypes

    import pypdfium2
    import pypdfium2.raw as pdfium_c

    found, matrix = [], pdfium_c.FS_MATRIX()
    for page in pypdfium2.PdfDocument(pdf):
        text = page.get_textpage()
        for index in range(text.count_chars()):
            char = text.get_text_range(index, 1)
            if char.isspace() or pdfium_c.FPDFText_IsGenerated(text.raw, index) == 1:
                continue
            pdfium_c.FPDFText_GetMatrix(text.raw, index, ctypes.byref(matrix))
            scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
            found.append((char, round(pdfium_c.FPDFText_GetFontSize(text.raw, index) * scale, 2)))
    return found


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", [("battlelore", "ru"), ("citow", "ru")])
def test_an_item_run_on_to_the_next_card_keeps_its_titles_size(resolved, game: str, lang: str):
    """An item split over two cards prints its title marked as continued at the size of its own title on the card
    before: an item set smaller (aid_layout.DENSE, at 88 %) has both titles smaller (BattleLore's «Бой по шагам»,
    set smaller, had its continued title at full size, 9.2 pt above its 8.1 pt text). Read from the printed cards."""
    files, seen, _ = composed_cards(resolved, game, lang)
    continued = "".join(resolved.languages.ui(lang)["aid_continued"].split())
    items = seen[0][1]
    split = [item for item in items if item.split]
    assert split, "no item runs on to the next card"
    for paper in ("a4", "letter"):
        chars = printed_chars(files[f"{game}-{lang}-cards-{paper}.pdf"])
        text = "".join(char for char, _ in chars)
        for item in split:
            title = "".join(item.title.split())
            at = [match.start() for match in re.finditer(re.escape(title), text)]
            marked = [start for start in at if re.match(r"[0-9,]*" + re.escape(continued), text[start + len(title) :])]
            assert len(marked) == 1, (paper, item.title, at, marked)
            more = marked[0]
            own = max(start for start in at if start < more)  # its own title, on the card before (its text may name it too)
            sizes = {size for _, size in chars[own : own + len(title)]}
            assert len(sizes) == 1, (paper, item.title, sizes)
            assert {size for _, size in chars[more : more + len(title)]} == sizes, (paper, item.title)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", [("wizards-quest", "en"), ("battlelore", "en")])
def test_no_text_on_the_cards_is_hidden_under_other_text_or_off_its_card(aids, game: str, lang: str):
    """What the cards' text layer holds is what is printed: every glyph on a card (or in the margins, the note on
    printing at 100 %), none drawn where another is. (Pieces once shared a source page and were clipped: the text
    clipped away stayed in the PDF, where copy-paste and screen readers found it.)"""
    for paper in ("a4", "letter"):
        assert_no_text_hidden_or_off_the_cards(aids[f"{game}-{lang}-cards-{paper}.pdf"], paper)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", [("marauders", "pl"), ("citow", "pl"), ("citow", "en")])
def test_no_text_of_an_item_split_within_a_block_is_hidden_or_off_its_card(resolved, game: str, lang: str):
    """The same of the aids whose cards split a paragraph between its lines or a table between its rows (laid out
    again with a spacer above the item's title: aid_layout.within_breaks)."""
    files, _, _ = composed_cards(resolved, game, lang)
    for paper in ("a4", "letter"):
        assert_no_text_hidden_or_off_the_cards(files[f"{game}-{lang}-cards-{paper}.pdf"], paper)


def assert_no_text_hidden_or_off_the_cards(pdf: bytes, paper: str) -> None:
    """Every glyph of a cards PDF on a card or above the cards, none drawn where another is."""
    import pypdfium2

    from generator.render.aids.aid_measure import glyphs
    from generator.render.aids.cards import CARD_SIZE, SHEETS

    width, height = SHEETS[paper]
    x0, y0 = (width - 3 * CARD_SIZE[0]) / 2, (height - 3 * CARD_SIZE[1]) / 2
    for page in pypdfium2.PdfDocument(pdf):
        boxes = {tuple(round(v, 2) for v in glyph.box) for glyph in glyphs(page)}  # a ligature's letters share one box
        for left, bottom, right, top in boxes:
            assert 0 <= left and right <= width and 0 <= bottom and top <= height, (paper, left, top)
            on_cards = x0 <= left and right <= width - x0 and y0 <= bottom and top <= height - y0
            assert on_cards or top > height - y0, (paper, left, top)  # off the cards: only above them
        centres = [(round((left + right) / 2, 1), round((bottom + top) / 2, 1)) for left, bottom, right, top in boxes]
        assert len(centres) == len(set(centres)), paper


COMPOSED: dict[tuple[str, str, str | None], tuple] = {}  # composed_cards' aids, laid out once for this file's tests


def composed_cards(resolved, game: str, lang: str, site: str | None = None):
    """The aid laid out here, in this process, and what its cards were composed of: its files, for each
    paper (job, items, the parts, the room a card leaves for its items, what each card holds: aid_compose.card_faces),
    and its items as first laid out, with where each may be split (the cards split some); `site`: the site's
    address, for a QR code. Laid out once per aid for all of this file's tests (a test file runs in one worker), which
    only read it."""
    key = (game, lang, site)
    if key not in COMPOSED:
        with pytest.MonkeyPatch.context() as monkeypatch:
            COMPOSED[key] = _composed_cards(resolved, monkeypatch, game, lang, site)
    return COMPOSED[key]


def _composed_cards(resolved, monkeypatch, game: str, lang: str, site: str | None):
    from dataclasses import replace

    from generator.render.aids import aid_compose, aid_layout
    from generator.render.aids.cards import aid_job

    seen, faces_seen, planned = [], [], []
    card_faces, card_sheets, planning = aid_compose.card_faces, aid_layout.card_sheets, aid_layout.balanced_faces

    def planning_spy(items, room, *rest):
        planned.append([replace(item, breaks=list(item.breaks)) for item in items])
        return planning(items, room, *rest)

    def faces_spy(items, room, *rest):
        faces_seen.append(card_faces(items, room, *rest))
        return faces_seen[-1]

    def sheets_spy(job, items, parts, sources, paper):
        pdf = card_sheets(job, items, parts, sources, paper)
        seen.append((job, items, parts, float(sources["items"].pages[0].mediabox.height), faces_seen[-1]))
        return pdf

    monkeypatch.setattr(aid_compose, "card_faces", faces_spy)
    monkeypatch.setattr(aid_layout, "card_sheets", sheets_spy)
    monkeypatch.setattr(aid_layout, "balanced_faces", planning_spy)
    files = aid_layout.produce(aid_job(resolved, game, lang, site=site)).files
    assert seen and len(planned) == 1
    return files, seen, planned[0]


@pytest.mark.integration
@pytest.mark.parametrize("game, lang, site", [("citow", "ru", None), ("marauders", "en", None), ("battlelore", "ru", "https://example.org/kb/")])
def test_no_card_could_have_taken_the_next_item(resolved, game: str, lang: str, site: str | None):
    """The cards are filled greedily: each item once, in the aid's order (one split over two cards: its head, then its
    rest under its title marked as continued), and no card could have taken the next item, or the text of one whose
    table is set apart (the table on a card of its own, under its title again), of its section or, under that
    section's band, of the next (but for one that ran on over cards of its own; and the QR code, alone):
    with it under its own items, they would run past the room a card leaves (its items' page height). A card
    holding more than one section has each later section's band just above its first item. Checked on the
    laid-out pieces of the aid that its cards are composed of; the cards' bookmarks name every item. (These three aids
    need no balance, aid_compose.balanced_faces: where a card is under 60 % used, the cards before it end earlier.)
    (Sections never shared a card: a section's last item left 3–8 cards of each aid under 60 % used.)"""
    import io
    from itertools import pairwise

    from generator.render.aids import aid_compose

    files, seen, _ = composed_cards(resolved, game, lang, site)
    for paper in ("a4", "letter"):  # the cards' bookmarks still name every item
        outline = PdfReader(io.BytesIO(files[f"{game}-{lang}-cards-{paper}.pdf"])).outline
        assert [entry.title for entry in outline] == [item.title for item in seen[0][1]]
    for job, items, parts, room, faces in seen:
        bands = [parts[f"band-{number}"] for number in range(len(job.sections))]
        alone = {number for number, section in enumerate(job.sections) if section.last_on_sheet}
        assert bool(alone) == bool(site) and (not site or [items[number].section for number, _ in faces[0]] == [*alone])  # the QR code first
        expected = []
        for number, item in enumerate(items):
            expected += [(number, piece) for piece in item.pages]
            title = item.title_again or (item.title_more if item.split else None)  # a table set apart, or the rest of a split item
            if title is not None:  # under its item's title again, or marked as continued
                expected.insert(len(expected) - 1, (number, title))
        assert [(number, piece) for face in faces for number, piece in face if piece not in bands] == expected
        for face in faces:
            in_face = [items[number] for number, piece in face if piece not in bands]
            for (number, piece), (_, following) in pairwise(face):  # a band: just above the first item of its section
                assert piece not in bands or (items[number].section != items[number - 1].section and following is items[number].pages[0])
            sections = [item.section for item in in_face]
            assert sum(piece in bands for _, piece in face) == sum(1 for a, b in pairwise(sections) if a != b)
            assert not alone & set(sections) or len(set(sections)) == 1
            assert aid_compose.stack_end([piece for _, piece in face]) <= room or len(in_face) == 1
        for face, following in pairwise(faces):
            last, (number, piece) = items[face[-1][0]], following[0]
            if number != face[-1][0] and not last.runs_on and not items[number].runs_on and not alone & {last.section, items[number].section}:
                band = [bands[items[number].section]] if last.section != items[number].section else []
                assert aid_compose.stack_end([piece for _, piece in face] + band + [piece]) > room, (items[number].title, room)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", [("marauders", "en"), ("battlelore", "en")])
def test_a_card_of_two_sections_shows_the_second_sections_band_above_its_first_item(resolved, game: str, lang: str):
    """Read on the printed card, top to bottom: the first section's band, its items, then the next section's
    band (its title) and under it that section's first item's title; every item under the name of its section."""
    import pypdfium2

    from generator.render.aids.cards import CARD_SIZE, SHEETS

    files, seen, _ = composed_cards(resolved, game, lang)
    job, items, parts, _, faces = seen[0]
    shared = [(card, face) for card, face in enumerate(faces) if len({items[number].section for number, _ in face}) > 1]
    assert shared, "no card holds two sections"
    width, height = SHEETS["a4"]
    x0, y0 = (width - 3 * CARD_SIZE[0]) / 2, (height - 3 * CARD_SIZE[1]) / 2
    document = pypdfium2.PdfDocument(files[f"{game}-{lang}-cards-a4.pdf"])
    for card, face in shared:
        left, top = x0 + card % 3 * CARD_SIZE[0], height - y0 - card % 9 // 3 * CARD_SIZE[1]
        text = words(document[card // 9].get_textpage().get_text_bounded(left, top - CARD_SIZE[1], left + CARD_SIZE[0], top))
        numbers = sorted({number for number, _ in face})
        expected = [job.sections[items[numbers[0]].section].title]
        for before, number in zip([None, *numbers], numbers, strict=False):
            if before is not None and items[before].section != items[number].section:
                expected.append(job.sections[items[number].section].title)
            expected.append(items[number].title)
        at = 0
        for title in expected:
            assert words(title) in text[at:], (card, title, text)
            at = text.index(words(title), at) + len(words(title))
        pages = {items[number].site_page for number in numbers}  # the footer: their one page, or the first's and " …"
        footer = words(items[numbers[0]].site_page) + ("" if len(pages) == 1 else " …")
        assert text.replace(" ", "").endswith(footer.replace(" ", "")) and "#" not in text[at:], (card, text[at:])  # as the footer wraps


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", [("marauders", "en"), ("citow", "ru")])
def test_the_html_sheet_prints_on_true_a4_and_letter(aids, game: str, lang: str):
    """The HTML sheet asked for 210 × 279.4 mm (neither paper): each paper has its HTML, whose print
    CSS asks for that paper; printed by WeasyPrint, its pages are A4 (595.3 × 841.9 pt) or Letter
    (612 × 792 pt)."""
    import io

    from weasyprint import HTML

    for name, size in (("sheet.html", (595.28, 841.89)), ("sheet-letter.html", (612.0, 792.0))):
        html = aids[f"{game}-{lang}-{name}"].decode("utf-8")
        assert "279.4" not in html and "791.999" not in html, name
        reader = PdfReader(io.BytesIO(HTML(string=html).write_pdf()))
        for page in reader.pages:
            box = page.mediabox
            assert (round(float(box.width), 1), round(float(box.height), 1)) == (round(size[0], 1), round(size[1], 1)), name


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_sheet_columns_are_full_or_balanced(aids, game: str, lang: str):
    """Measured on the printed sheet (aid_measure): every page but the last fills each of its columns
    to 90 % and more, and the last page's columns are balanced: none is empty or under half the
    fullest (BattleLore's third column was empty, Marauders' held 28 % beside two of 97-99 %)."""
    for paper in ("a4", "letter"):
        fill = measured_sheet(aids[f"{game}-{lang}-sheet-{paper}.pdf"], paper).column_fill
        for page in fill[:-1]:
            assert min(page) >= 0.9, (paper, fill)
        assert min(fill[-1]) >= max(fill[-1]) / 2, (paper, fill)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_section_bars_are_set_larger_than_item_titles(aids, resolved, game: str, lang: str):
    """Read from the sheet PDF and from the HTML sheet printed: the first section's bar is printed in larger type
    than the titles of its items (bars were 8.25 pt beside 8.6 pt titles), and the HTML sheet's titles are the
    size of the PDF's, 1.15 times its body text (they were 1em there; printed by WeasyPrint, as a browser sizes them),
    and an item set smaller on the cards, and so on the PDF, is set so on both."""
    import io
    from collections import Counter

    import pypdfium2
    import pypdfium2.raw as pdfium_c
    from weasyprint import HTML

    from generator.render.aids.cards import aid_sections

    section = aid_sections(resolved, game, lang)[0]
    html_printed = HTML(string=aids[f"{game}-{lang}-sheet.html"].decode("utf-8")).write_pdf()
    sizes = []
    for pdf in (aids[f"{game}-{lang}-sheet-a4.pdf"], html_printed):
        text = pypdfium2.PdfDocument(io.BytesIO(pdf))[0].get_textpage()
        chars = [(text.get_text_range(i, 1), pdfium_c.FPDFText_GetFontSize(text.raw, i)) for i in range(text.count_chars())]
        printed = "".join(c for c, _ in chars)

        def size_of(words: str, start: int = 0, chars=chars, printed=printed) -> tuple[float, int]:
            at = printed.index(words[:12], start)
            return chars[at][1], at + len(words)

        bar, after = size_of(section["title"])
        body = Counter(size for _, size in chars).most_common(1)[0][0]
        titles = []
        for item in section["items"]:
            title, after = size_of(item["title"], after)
            assert bar > title + 0.5, (section["title"], bar, item["title"], title)
            titles.append(round(title / body, 2))
        sizes.append(titles)
    assert sizes[0] == sizes[1] and set(sizes[0]) <= {1.15, 1.01}, sizes  # an item the cards set smaller (aid_layout.DENSE): 88 %


def sheet_columns(pdf: bytes, paper: str) -> list[list[tuple[str, bool]]]:
    """The text of each column of a sheet PDF, page by page, left to right, as (character, whether it
    is printed white: on a bar or a faction's title) in the order it is drawn (a column's pieces are
    drawn top to bottom); without the page's title (drawn first) and footers (below the columns),
    spaces left out."""
    import ctypes

    import pypdfium2
    import pypdfium2.raw as pdfium_c

    from generator.render.aids.cards import COLUMN_GAP, COLUMN_WIDTH, SHEET_AREA, SHEET_MARGIN, SHEET_TEXT_WIDTH, SHEETS

    document = pypdfium2.PdfDocument(pdf)
    title = "".join(document.get_metadata_value("Title").split())
    width, height = SHEETS[paper]
    left = (width - SHEET_AREA[0]) / 2 + (SHEET_AREA[0] - SHEET_TEXT_WIDTH) / 2
    bottom = (height - SHEET_AREA[1]) / 2 + SHEET_MARGIN[1]
    rgba = [ctypes.c_uint() for _ in range(4)]
    columns = []
    for number, page in enumerate(document):
        text, skip = page.get_textpage(), len(title) if number == 0 else 0
        found: list[list[tuple[str, bool]]] = [[] for _ in range(3)]
        for index in range(text.count_chars()):
            char = text.get_text_range(index, 1)
            if char.isspace() or pdfium_c.FPDFText_IsGenerated(text.raw, index) == 1:
                continue
            if skip:
                skip -= 1
                continue
            box = text.get_charbox(index)
            column = int((box[0] - left) // (COLUMN_WIDTH + COLUMN_GAP))
            if box[1] > bottom and 0 <= column < 3:
                pdfium_c.FPDFText_GetFillColor(text.raw, index, *(ctypes.byref(v) for v in rgba))
                found[column].append((char, [v.value for v in rgba[:3]] == [255, 255, 255]))
        columns += found
    return columns


def continued_sections(pdf: bytes, paper: str, titles: list[str], continued: str) -> list[str]:
    """Read from a sheet PDF, column by column: every column that holds text starts with a bar, either
    the next section's (its title) or, when it starts in the middle of a section, that section's
    title with the continuation word; each section's own bar stands once, in order, and no
    continuation bar stands lower in a column. Returns the continuation bars in the order printed."""
    wanted = ["".join(title.split()) for title in titles]
    more = "".join(continued.split())
    current, repeated = -1, []
    for number, column in enumerate(column for column in sheet_columns(pdf, paper) if column):
        runs: list[str] = []  # the white text: bars, and faction titles (a faction's card may follow a bar at once)
        for index, (char, white) in enumerate(column):
            if white and index > 0 and column[index - 1][1]:
                runs[-1] += char
            elif white:
                runs.append(char)
        assert column[0][1], (number, "".join(char for char, _ in column[:40]))  # a column starts with a bar
        if current >= 0 and runs[0].startswith(wanted[current] + more):
            repeated.append(wanted[current] + more)
            runs = runs[1:]
        else:
            assert current + 1 < len(wanted) and runs[0].startswith(wanted[current + 1]), (number, runs[0], wanted[current : current + 2])
        for run in runs:
            if current + 1 < len(wanted) and run.startswith(wanted[current + 1]):
                current += 1
            assert more not in run, (number, run)  # a continuation bar only at a column's top, a section's own bar unmarked
    assert current == len(wanted) - 1, (current, wanted)
    return repeated


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", EVERY_AID)
def test_a_section_going_on_in_another_column_repeats_its_bar_marked_as_continued(aids, resolved, game: str, lang: str):
    """Issue 28: a column (or page) that starts in the middle of a section showed items under no bar;
    it starts with the section's bar again, its title and the continuation word in the reader's
    language ("Battle (continued)", «Сражение (продолжение)», "Walka (cd.)"). The bars stay out of
    the bookmarks (test_aids_layout: each section once)."""
    from generator.render.aids.cards import aid_sections

    titles = [section["title"] for section in aid_sections(resolved, game, lang)]
    continued = resolved.languages.ui(lang)["aid_continued"]
    for paper in ("a4", "letter"):
        repeated = continued_sections(aids[f"{game}-{lang}-sheet-{paper}.pdf"], paper, titles, continued)
        if game == "citow":  # two pages of long sections: some go on in the next column
            assert repeated, paper


@pytest.mark.integration
def test_a_sheet_where_no_section_goes_on_has_no_continuation_bar(resolved, monkeypatch):
    """An aid of sections with one item each: every column starts with a section's own bar, and
    no continuation bar is printed."""
    from generator.render.aids.aid_layout import produce
    from generator.render.aids.cards import aid_job, aid_sections

    class NoAnswerTables:
        def of_game(self, game, lang):
            return []

    aid = resolved.kb.aids["marauders"]
    sections = [{**section, "entries": section["entries"][:1]} for section in aid["sections"][:3]]
    monkeypatch.setitem(resolved.kb.aids, "marauders", {**aid, "sections": sections})
    printed = aid_sections(resolved, "marauders", "pl", NoAnswerTables())
    assert len(printed) >= 3 and all(len(section["items"]) == 1 for section in printed)
    titles = [section["title"] for section in printed]
    files = produce(aid_job(resolved, "marauders", "pl", NoAnswerTables())).files
    for paper in ("a4", "letter"):
        pdf = files[f"marauders-pl-sheet-{paper}.pdf"]
        assert sum(1 for column in sheet_columns(pdf, paper) if column) >= 3, paper  # balanced over the columns
        assert continued_sections(pdf, paper, titles, resolved.languages.ui("pl")["aid_continued"]) == [], paper
        assert "(cd.)" not in pdf_text(pdf), paper


@pytest.mark.integration
@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_a_table_set_apart_on_the_cards_stands_in_place_on_the_sheet(resolved, lang: str):
    """Marauders' victory points (a 17-row table at 7 pt) overrun a card: the cards print the item's text
    on one card and its table whole on the next, under the item's title again. The sheet printed it
    so too, its title twice ("Victory points", «Победные очки»): it prints the item once, the table under
    its text."""
    from generator.render.aids.cards import aid_sections

    items = [item for section in aid_sections(resolved, "marauders", lang) for item in section["items"]]
    title = words(next(item["title"] for item in items if item["id"] == "marauders/victory-point-table"))
    files, _, _ = composed_cards(resolved, "marauders", lang)

    def titles(pdf: bytes) -> int:
        """How many lines of the PDF are the item's title (and the numbers of its open questions)."""
        import io

        lines = [words(line) for page in PdfReader(io.BytesIO(pdf)).pages for line in page.extract_text().split("\n")]
        return sum(1 for line in lines if re.fullmatch(re.escape(title) + r"[\d,]*", line))

    for paper in ("a4", "letter"):
        assert titles(files[f"marauders-{lang}-sheet-{paper}.pdf"]) == 1, paper
        assert titles(files[f"marauders-{lang}-cards-{paper}.pdf"]) == 2, paper  # its text's card, its table's card
