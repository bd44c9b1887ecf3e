"""Player aids from the mini data set: every format exists, fits its pages, embeds its fonts,
shows every selected entry's title and the data version, and follows the data."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pypdfium2
import pytest
from conftest import MINI, page_texts, run_generator
from pypdf import PdfReader
from weasyprint import HTML

from generator.render.aids.aid_layout import _resources_and_streams, checked_document, fonts, overflowing_boxes, uncovered_characters
from generator.render.aids.cards import SHEETS, AidError, css_string

LANGS = ("en", "pl", "ru")
FORMATS = ("sheet-a4", "sheet-letter", "cards-a4", "cards-letter")
EXPECTED_TITLES = {  # the title each selected entry shows in each language (fallback to English)
    "en": ["Retreat", "Support", "Retreat: which edge?"],
    "pl": ["Odwrót", "Wsparcie", "Retreat: which edge?"],
    "ru": ["Отступление", "Support", "Retreat: which edge?"],
}


@pytest.fixture(scope="module")
def cards(mini_build: Path) -> Path:
    return mini_build / "site" / "cards"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_aid_exists_with_titles_version_and_limits(cards: Path, lang: str, fmt: str):
    pdf = cards / f"mini-{lang}-{fmt}.pdf"
    pages = page_texts(pdf)
    if fmt.startswith("sheet"):
        assert 1 <= len(pages) <= 2
    whole = " ".join(" ".join(p.split()) for p in pages)
    for title in EXPECTED_TITLES[lang]:
        assert title in whole, (title, whole[:500])
    if fmt.startswith("cards"):
        # each card names where its items are on the site (aid_compose.card_footer): the three items, of two
        # sections (the clarification under its section's band), share a card, all from one page: that page
        compact = whole.replace(" ", "")
        assert whole.endswith(f"{lang}/mini/10-rules.html") and ".html#" not in compact and "…" not in whole, whole[-200:]


@pytest.mark.parametrize("lang", LANGS)
def test_data_version_on_every_page(cards: Path, lang: str):
    for fmt in ("sheet-a4", "cards-a4"):
        for page in page_texts(cards / f"mini-{lang}-{fmt}.pdf"):
            words = " ".join(page.split())
            assert "data version" in words or "wersja danych" in words or "версия данных" in words, words[-200:]


@pytest.mark.parametrize("text", ["Full rules: en/citow/ · data version 3b80", 'a"b</style>', "Полные правила: ru/ · 1 / 2"])
def test_css_string_keeps_every_character_and_space(text: str):
    """The sheet's footer goes through a CSS string: read back by a CSS parser it is the same text
    (an escape followed by a space once lost that space: "rules:·en")."""
    import tinycss2

    token = tinycss2.parse_component_value_list(f'"{css_string(text)}"')[0]
    assert token.type == "string" and token.value == text
    assert "<" not in css_string(text) and '"' not in css_string(text)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_fonts_embedded_and_no_missing_glyphs(cards: Path, lang: str, fmt: str):
    data = (cards / f"mini-{lang}-{fmt}.pdf").read_bytes()
    found = fonts(data)
    assert found and all(found.values()), found
    assert any("DejaVu" in name for name in found)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ("sheet", "cards"))
def test_every_character_has_a_glyph(cards: Path, lang: str, kind: str):
    assert uncovered_characters((cards / f"mini-{lang}-{kind}.html").read_text(encoding="utf-8")) == []


def test_a_character_without_a_glyph_fails_the_aid():
    assert uncovered_characters("<p>Łódź, ёж, ☉ and \U00013000</p>") == ["U+13000 \U00013000"]
    with pytest.raises(AidError, match="U\\+13000"):
        checked_document("<p>hieroglyph \U00013000</p>", "test")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ("sheet", "cards"))
def test_layout_stays_inside_the_page(cards: Path, lang: str, kind: str):
    document = HTML(filename=str(cards / f"mini-{lang}-{kind}.html")).render()
    assert overflowing_boxes(document) == []
    assert document.pages


def test_text_running_off_the_page_fails_the_aid():
    with pytest.raises(AidError, match="leaves the page area"):
        checked_document('<p style="white-space: nowrap">' + "overflowing " * 200 + "</p>", "test")


def test_a_sheet_over_two_pages_fails_the_aid():
    """Items 300 pt high: two to a column, six to a page; a thirteenth makes a third page."""
    from generator.render.aids.aid_compose import ItemPieces, Piece, arrange_sheet
    from generator.render.aids.cards import AidJob, PrintedSection

    parts = {
        "title": Piece("parts", 0, 0, 500, 20),
        "section-0": Piece("parts", 1, 0, 150, 10),
        "section-more-0": Piece("parts", 1, 0, 150, 8),
        **{f"sheet-foot-{page}-{total}": Piece("parts", 2, 0, 500, 6) for total in (1, 2, 3) for page in range(1, total + 1)},
    }
    job = AidJob("g", "en", "", "", "", "G · Player aid", [PrintedSection("Rules", [])])
    items = [ItemPieces(0, f"item {n}", "#336699", [Piece("items", n, 0, 150, 300)]) for n in range(13)]
    assert arrange_sheet(job, items[:12], parts, "test").pages == 2
    with pytest.raises(AidError, match="pages, at most 2"):
        arrange_sheet(job, items, parts, "test")


def test_a_column_that_starts_in_a_section_starts_with_its_continuation_bar():
    """Issue 28: items 300 pt high, three in one section, one in another, balanced over one page: the
    column the first section goes on in starts with its continuation bar (a piece laid out once, like
    the bars), the column the second section starts in with that section's own bar; the bookmarks
    name each section once."""
    from generator.render.aids.aid_compose import SHEET_LEFT, ItemPieces, Piece, arrange_sheet
    from generator.render.aids.cards import COLUMN_GAP, COLUMN_WIDTH, AidJob, PrintedSection

    parts = {
        "title": Piece("parts", 0, 0, 500, 20),
        "sheet-foot-1-1": Piece("parts", 1, 0, 500, 6),
        **{f"section-{more}{n}": Piece("parts", 2, 0, 150, 8 if more else 10) for n in (0, 1) for more in ("", "more-")},
    }
    job = AidJob("g", "en", "", "", "", "G · Player aid", [PrintedSection("Rules", []), PrintedSection("Scoring", [])])
    items = [ItemPieces(0, f"rule {n}", "#336699", [Piece("items", n, 0, 150, 300)]) for n in range(3)]
    items.append(ItemPieces(1, "score", "#336699", [Piece("items", 3, 0, 150, 300)]))
    layout = arrange_sheet(job, items, parts, "test")
    names = {id(piece): name for name, piece in parts.items()}
    columns: dict[tuple[int, int], list[str]] = {}
    for page, piece, x, _ in layout.placed[1:]:  # the title first
        if not names.get(id(piece), "").startswith("sheet-foot"):
            columns.setdefault((page, round((x - SHEET_LEFT) / (COLUMN_WIDTH + COLUMN_GAP))), []).append(names.get(id(piece), "item"))
    assert columns == {(0, 0): ["section-0", "item"], (0, 1): ["section-more-0", "item", "item"], (0, 2): ["section-1", "item"]}
    assert [(level, label) for level, label, _, _ in layout.outline] == [
        (0, "G · Player aid"),
        (1, "Rules"),
        (2, "rule 0"),
        (2, "rule 1"),
        (2, "rule 2"),
        (1, "Scoring"),
        (2, "score"),
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_sheet_preview_rendered_to_png(cards: Path, lang: str):
    """The A4 sheet's first page, the preview the site shows; no other PDF gets one (nothing shows it)."""
    png = (cards / f"mini-{lang}-sheet-a4.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    paper_w, paper_h = SHEETS["a4"]
    assert (width, height) == (round(paper_w * 1.5), round(paper_h * 1.5))  # the paper at 1.5 × 72 dpi
    assert sorted(p.name for p in cards.glob(f"mini-{lang}-*.png")) == [f"mini-{lang}-sheet-a4.png"]


def text_box_from_centre(page) -> tuple[float, ...]:
    """The bounding box of a PDF page's text, relative to the centre of the paper (points)."""
    left, bottom, right, top = page.get_mediabox()
    centre_x, centre_y = (left + right) / 2, (bottom + top) / 2
    text = page.get_textpage()
    boxes = [box for box in (text.get_charbox(i) for i in range(text.count_chars())) if box[2] > box[0]]
    return (
        min(b[0] for b in boxes) - centre_x,
        min(b[1] for b in boxes) - centre_y,
        max(b[2] for b in boxes) - centre_x,
        max(b[3] for b in boxes) - centre_y,
    )


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ("sheet", "cards"))
def test_each_paper_has_its_size_and_the_same_layout_centred(cards: Path, lang: str, kind: str):
    """A4 and US Letter come from one layout: same pages and text, centred on either paper,
    clear of its edges."""
    documents = {paper: pypdfium2.PdfDocument(cards / f"mini-{lang}-{kind}-{paper}.pdf") for paper in SHEETS}
    assert len(documents["a4"]) == len(documents["letter"])
    for paper, document in documents.items():
        for page in document:
            assert page.get_size() == pytest.approx(SHEETS[paper], abs=0.01), (paper, page.get_size())
            left, bottom, right, top = text_box_from_centre(page)
            half_w, half_h = SHEETS[paper][0] / 2, SHEETS[paper][1] / 2
            assert min(left + half_w, bottom + half_h, half_w - right, half_h - top) > 3 * 72 / 25.4, (paper, page)
    for a4, letter in zip(documents["a4"], documents["letter"], strict=True):
        assert text_box_from_centre(a4) == pytest.approx(text_box_from_centre(letter), abs=0.1)
    texts = {paper: page_texts(cards / f"mini-{lang}-{kind}-{paper}.pdf") for paper in SHEETS}
    assert texts["a4"] == texts["letter"]


@pytest.mark.parametrize("lang", LANGS)
def test_sheet_keeps_title_and_bookmarks(cards: Path, lang: str):
    reader = PdfReader(cards / f"mini-{lang}-sheet-a4.pdf")
    html_title = re.search(r"<title>(.*?)</title>", (cards / f"mini-{lang}-sheet.html").read_text(encoding="utf-8")).group(1)
    assert reader.metadata.title == html.unescape(html_title)

    def titles(outline) -> list[str]:
        return [t for item in outline for t in (titles(item) if isinstance(item, list) else [item.title])]

    assert any(t.startswith(EXPECTED_TITLES[lang][0]) for t in titles(reader.outline)), titles(reader.outline)


def test_imposed_cards_embed_each_font_once(cards: Path):
    """Every card on the imposed sheets uses the same font objects, not a copy per card, and no two
    fonts share a name (the cards are made of two laid-out documents, each with its own subsets:
    tools that know a font by its name would read one's text with the other's glyphs)."""
    pdf = (cards / "mini-en-cards-a4.pdf").read_bytes()
    font_objects, names = set(), set()
    for resources, _ in _resources_and_streams(pdf):
        resources = resources.get_object() if resources is not None else {}
        for font in resources.get("/Font", {}).values():
            font_objects.add(font.idnum)
            names.add(font.get_object()["/BaseFont"])
    assert len(PdfReader(cards / "mini-en-cards-a4.pdf").pages[0]["/Resources"]["/XObject"]) > len(names)
    assert len(font_objects) == len(names) > 0


def test_site_links_the_aids(mini_build: Path):
    html = (mini_build / "site/pl/mini/index.html").read_text(encoding="utf-8")
    assert "../../cards/mini-pl-sheet-a4.pdf" in html and "../../cards/mini-pl-cards-letter.pdf" in html
    # the sheet's first page, as a preview linking to the PDF
    assert 'src="../../cards/mini-pl-sheet-a4.png"' in html and (mini_build / "site/cards/mini-pl-sheet-a4.png").is_file()


def test_changing_an_entry_changes_the_aid(tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    chapter = data / "games/mini/chapters/10-rules.yaml"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("moves back 1 space towards its own edge", "moves back 1 space towards its own side edge"),
        encoding="utf-8",
    )
    assert run_generator("build", "--data", str(data), "--out", str(tmp_path)).returncode == 0
    text = " ".join(" ".join(p.split()) for p in page_texts(tmp_path / "site/cards/mini-en-sheet-a4.pdf"))
    assert "towards its own side edge" in text


def test_an_aid_that_does_not_fit_fails_the_build_and_keeps_the_old_site(tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    assert run_generator("build", "--data", str(data), "--out", str(tmp_path)).returncode == 0
    before = (tmp_path / "site/index.html").read_bytes()
    chapter = data / "games/mini/chapters/10-rules.yaml"
    long_text = " ".join(["A unit adjacent to 2 other units ignores 1 retreat."] * 900)
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("en: A unit adjacent to 2 other units ignores 1 retreat.", f"en: {long_text}"), encoding="utf-8"
    )
    origin = '    origin:\n      pl: {source: mini-pl, lines: "9-11"}'
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(origin, "    numbers_differ: {note: test padding}\n" + origin), encoding="utf-8")
    result = run_generator("build", "--data", str(data), "--out", str(tmp_path))
    assert result.returncode == 1
    assert "pages, at most 2" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "site/index.html").read_bytes() == before


def test_bundled_aids_exist_fit_and_carry_their_titles(bundled_build: Path):
    """Every game × language × format from the bundled data, with every selected entry's title."""
    from conftest import bundled_resolved

    resolved = bundled_resolved()
    kb = resolved.kb
    cards_dir = bundled_build / "site" / "cards"
    assert set(kb.aids) == set(kb.games)
    for game, aid in kb.aids.items():
        for lang in kb.games[game]["languages"]:
            for fmt in FORMATS:
                pages = page_texts(cards_dir / f"{game}-{lang}-{fmt}.pdf")
                if fmt.startswith("sheet"):
                    assert len(pages) <= 2, (game, lang, fmt)
                whole = " ".join(" ".join(p.split()) for p in pages).replace("- ", "").replace("-", "")
                for section in aid["sections"]:
                    for entry_id in section["entries"]:
                        entry = kb.entries[entry_id]
                        shown = entry.get("summary", {}).get("title", {}).get(lang) or entry["title"][resolved.display_language(entry, lang)]
                        title = " ".join(shown.split()).replace("-", "")
                        assert title[:40] in whole, (game, lang, fmt, entry_id, title)


def test_every_icon_is_drawn_in_its_text_colour_alone():
    """An icon's detail is a hole in its shape, not paint of another colour: on a section bar the icon is white, and
    the open questions' "!" and the dice's pips, painted white on it, printed from the browser as a plain disc and
    a plain square."""
    icons = (Path(__file__).parents[1] / "generator/templates/cards/icons.html.j2").read_text(encoding="utf-8")
    painted = re.findall(r'(?:fill|stroke)="([^"]+)"', icons)
    assert painted and set(painted) <= {"currentColor", "none"}, sorted(set(painted))
