"""The bundled aids as a group prints and plays from them (issue 28), read from their PDFs: no
editors' notes, each open question once as a numbered footnote in the reader's language."""
from __future__ import annotations

import re

import pytest
from conftest import REPO
from pypdf import PdfReader

AIDS = [("wizards-quest", "en"), ("wizards-quest", "pl"), ("wizards-quest", "ru"), ("marauders", "en"),
        ("battlelore", "en"), ("citow", "ru")]
EDITORIAL = ["extraction", "mistranslation", "stop-gap", "our text", "Lost icons", "ekstrakcji", "błąd rosyjskiego",
             "tymczasowe", "naszym tekście", "распознавани", "утраченн", "ошибка русского", "временная мера", "нашем тексте"]


@pytest.fixture(scope="module")
def resolved():
    from generator.resolve.resolve import resolve
    from generator.validate.validate import load_valid
    return resolve(load_valid(REPO / "data"))


@pytest.fixture(scope="module")
def aids(resolved, tmp_path_factory) -> dict[str, bytes]:
    """Name under cards/ -> content, of the aids in AIDS, laid out as `build` lays them out."""
    from generator.render.aids.cards import PendingAids, aid_job
    from generator.render.answer_tables import AnswerTables
    tables = AnswerTables(resolved)
    jobs = [aid_job(resolved, game, lang, tables) for game, lang in AIDS]
    return dict(PendingAids(jobs, tmp_path_factory.mktemp("cards-cache")).files())


def words(text: str) -> str:
    return " ".join(text.replace("-\n", "").split())


def pdf_text(content: bytes) -> str:
    import io
    return words(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages))


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
@pytest.mark.parametrize("game, lang", AIDS)
def test_no_editors_note_on_any_page(aids, resolved, game: str, lang: str):
    notes = [words(note) for entry_id, entry in resolved.kb.entries.items() if entry_id.startswith(f"{game}/")
             for note in editors_notes(entry)]
    assert notes  # the data has such notes: the test reads for them
    for kind in ("sheet", "cards"):
        text = pdf_text(aids[f"{game}-{lang}-{kind}-a4.pdf"])
        for note in notes:
            assert note[:50] not in text, (kind, note)
        for word in EDITORIAL:
            assert word.lower() not in text.lower(), (kind, word)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", AIDS)
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
    footnotes = [int(n) for n in re.findall(r'<li value="(\d+)">', sheet)]
    assert footnotes == list(range(1, len(open_ids) + 1))  # each once, in order
    assert 'class="mark-cell"' not in sheet


@pytest.mark.integration
def test_questions_about_our_text_stay_off_the_aids(resolved):
    """BattleLore's lost dice-face icons are an editors' matter (extraction damage): neither a card nor a footnote."""
    from generator.render.aids.cards import aid_sections
    for lang in ("en", "pl", "ru"):
        items = [item for section in aid_sections(resolved, "battlelore", lang) for item in section["items"]]
        assert "battlelore/clarify-dice-face-icons" not in {item["id"] for item in items}
        assert all("battlelore/clarify-dice-face-icons" not in item["questions"] for item in items)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", AIDS)
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
            for page in reader.pages:
                text = words(page.extract_text())
                assert words(ui["aid_print_at_100"]) in text, (kind, paper)
                assert f"{ui['data_version']} {date} · " in text, (kind, paper)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", AIDS)
def test_card_footers_stand_4mm_inside_the_cut(aids, game: str, lang: str):
    """Measured on the printed cards by geometry (aid_measure): every footer's text at least 4 mm inside
    every edge of its card (the footers crossed the cut), the body text at 8 pt or more (it was 7.5 pt) and
    nothing on the cards or the sheet set under 6 pt (the footers were 5.5 pt)."""
    from generator.render.aids.aid_measure import measure_cards, measure_sheet
    for paper in ("a4", "letter"):
        cards = measure_cards(aids[f"{game}-{lang}-cards-{paper}.pdf"], paper)
        assert cards.footers_within_4mm == 0 and cards.footer_to_cut >= 4, (paper, cards)
        assert cards.smallest_type >= 6 and cards.body_type >= 8, (paper, cards)
        sheet = measure_sheet(aids[f"{game}-{lang}-sheet-{paper}.pdf"], paper)
        assert sheet.smallest_type >= 6 and sheet.body_type >= 8 and sheet.pages <= 2, (paper, sheet)


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
@pytest.mark.parametrize("game, lang", AIDS)
def test_sheet_columns_are_full_or_balanced(aids, game: str, lang: str):
    """Measured on the printed sheet (aid_measure): every page but the last fills each of its columns
    to 90 % and more, and the last page's columns are balanced: none is empty or under half the
    fullest (BattleLore's third column was empty, Marauders' held 28 % beside two of 97-99 %)."""
    from generator.render.aids.aid_measure import measure_sheet
    for paper in ("a4", "letter"):
        fill = measure_sheet(aids[f"{game}-{lang}-sheet-{paper}.pdf"], paper).column_fill
        for page in fill[:-1]:
            assert min(page) >= 0.9, (paper, fill)
        assert min(fill[-1]) >= max(fill[-1]) / 2, (paper, fill)


@pytest.mark.integration
@pytest.mark.parametrize("game, lang", AIDS)
def test_section_bars_are_set_larger_than_item_titles(aids, resolved, game: str, lang: str):
    """Read from the sheet PDF: the first section's bar is printed in larger type than the titles of
    its items (bars were 8.25 pt beside 8.6 pt titles)."""
    import pypdfium2
    import pypdfium2.raw as pdfium_c

    from generator.render.aids.cards import aid_sections
    section = aid_sections(resolved, game, lang)[0]
    page = pypdfium2.PdfDocument(aids[f"{game}-{lang}-sheet-a4.pdf"])[0]
    text = page.get_textpage()
    chars = [(text.get_text_range(i, 1), pdfium_c.FPDFText_GetFontSize(text.raw, i)) for i in range(text.count_chars())]
    printed = "".join(c for c, _ in chars)

    def size_of(words: str, start: int = 0) -> tuple[float, int]:
        at = printed.index(words[:12], start)
        return chars[at][1], at + len(words)
    bar, after = size_of(section["title"])
    for item in section["items"]:
        title, after = size_of(item["title"], after)
        assert bar > title + 0.5, (section["title"], bar, item["title"], title)
