"""Changes since your print (issue 28, point 5): the version printed on an aid is the date its rulings
stand at (the latest `clarification.reviewed` of the game), and it leads to a page per game and
language listing the game's rulings by review date, newest first; the game's page links it beside
the aids. Read from the built site and the printed PDFs."""

from __future__ import annotations

import io
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import GAMES_WITH_AIDS, assert_tables_at_7pt, bundled_resolved, measured_cards, measured_sheet, page_texts
from pypdf import PdfReader

if TYPE_CHECKING:
    from generator.render.aids.cards import AidJob


@pytest.fixture(scope="module")
def resolved():
    return bundled_resolved()


def reviewed(resolved, game: str) -> dict[str, str]:
    """Clarification id -> its review date, for one game."""
    return {
        entry_id: str(entry["clarification"]["reviewed"])
        for entry_id, entry in resolved.kb.entries.items()
        if resolved.kb.game_of(entry_id) == game and "reviewed" in entry.get("clarification", {})
    }


def groups(html: str) -> list[tuple[str, list[str]]]:
    """The page's (date heading, [linked hrefs]) groups, in page order."""
    article = html[html.index("<article") : html.index("</article>")]
    found = []
    for part in re.split(r'(?=<h2 id="v\d{4}-\d\d-\d\d")', article)[1:]:
        date = re.match(r'<h2 id="v(\d{4}-\d\d-\d\d)"', part)[1]
        found.append((date, re.findall(r'<li><a href="([^"]+)"', part)))
    return found


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES_WITH_AIDS)
def test_each_game_has_a_changes_page_per_language_newest_first(bundled_build: Path, resolved, game: str):
    dates = reviewed(resolved, game)
    assert dates, "every bundled game has reviewed rulings"
    for lang in resolved.kb.games[game]["languages"]:
        ui = resolved.languages.ui(lang)
        page = bundled_build / "site" / lang / game / "changes.html"
        html = page.read_text(encoding="utf-8")
        assert "<h1" in html and ui["aid_changes"] in html, lang
        assert ui["aid_changes_intro"] in html.replace("&#39;", "'"), lang
        found = groups(html)
        assert [d for d, _ in found] == sorted(set(dates.values()), reverse=True), (lang, found)
        listed = sum(len(hrefs) for _, hrefs in found)
        assert listed == len(dates), (lang, listed, len(dates))
        for date, hrefs in found:
            want = sorted(resolved.anchor_of(e) for e, d in dates.items() if d == date)
            assert sorted(h.split("#", 1)[1] for h in hrefs) == sorted(want), (lang, date)


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES_WITH_AIDS)
def test_the_games_page_links_its_changes_next_to_the_aids(bundled_build: Path, resolved, game: str):
    for lang in resolved.kb.games[game]["languages"]:
        html = (bundled_build / "site" / lang / game / "index.html").read_text(encoding="utf-8")
        aids = html[html.index('id="aids"') : html.index('id="sources"')]
        assert f'href="changes.html">{resolved.languages.ui(lang)["aid_changes"]}</a>' in aids, lang


@pytest.mark.integration
@pytest.mark.parametrize("game", GAMES_WITH_AIDS)
def test_every_printed_page_names_its_date_and_the_changes_page(bundled_build: Path, resolved, game: str):
    """The version on the aid is the page's newest date, and every page of both PDFs says where the
    changes since it are."""
    newest = max(reviewed(resolved, game).values())
    for lang in resolved.kb.games[game]["languages"]:
        if not (bundled_build / "site/cards" / f"{game}-{lang}-sheet-a4.pdf").exists():
            continue
        ui = resolved.languages.ui(lang)
        for kind in ("sheet", "cards"):
            for paper in ("a4", "letter"):
                pages = page_texts(bundled_build / "site/cards" / f"{game}-{lang}-{kind}-{paper}.pdf")
                for number, page in enumerate(pages, 1):
                    text = " ".join(page.replace("-\n", "").split())
                    assert f"{ui['data_version']} {newest}" in text, (lang, kind, paper, number)
                    assert f"{lang}/{game}/changes.html" in text.replace(" ", ""), (lang, kind, paper, number)


SITE = "https://rules.example.org/kb/"


@dataclass(frozen=True)
class QRAids:
    """Every aid laid out as `build` lays it out, with a site address for its QR code: the jobs, and the files by name."""

    jobs: list[AidJob]
    files: dict[str, bytes]


@pytest.fixture(scope="module")
def qr_aids(resolved, tmp_path_factory) -> QRAids:
    """Every aid with a site address for its QR code, laid out once for the module's tests."""
    from generator.render.aids.cards import PendingAids, aid_job, aid_languages
    from generator.render.answer_tables import AnswerTables

    tables = AnswerTables(resolved)
    jobs = [aid_job(resolved, game, lang, tables, site=SITE) for game, lang in aid_languages(resolved)]
    return QRAids(jobs, dict(PendingAids(jobs, tmp_path_factory.mktemp("qr-cards-cache")).files()))  # an aid that does not fit raises


def qr_modules(content: bytes, paper: str, card: bool) -> list[list[bool]]:
    """The QR code printed on a PDF, read back module by module: rendered at 600 dpi, its dark modules are
    the only pure black (text is #111) in a band 28 mm wide down the middle of the first card (the section's
    icon stands left of it), or of the column of the sheet's last page that holds it (the sheet puts it after
    the rules); each module sampled at its centre."""
    import pypdfium2

    from generator.render.aids.cards import CARD_SIZE, COLUMN_GAP, COLUMN_WIDTH, MM, SHEET_AREA, SHEET_TEXT_WIDTH, SHEETS

    scale = 600 / 72
    document = pypdfium2.PdfDocument(content)
    image = document[0 if card else len(document) - 1].render(scale=scale, grayscale=True).to_pil()
    width, height = SHEETS[paper]
    if card:
        middles, top, bottom = [width / 2 - CARD_SIZE[0]], (height - 3 * CARD_SIZE[1]) / 2, height / 2
    else:
        left = (width - SHEET_AREA[0]) / 2 + (SHEET_AREA[0] - SHEET_TEXT_WIDTH) / 2
        middles, top, bottom = [left + column * (COLUMN_WIDTH + COLUMN_GAP) + COLUMN_WIDTH / 2 for column in range(3)], 0, height
    regions = [image.crop(tuple(int(v * scale) for v in (middle - 14 * MM, top, middle + 14 * MM, bottom))) for middle in middles]
    region = next(region for region in regions if region.point(lambda v: 255 if v < 8 else 0).getbbox())
    dark = region.point(lambda v: 255 if v < 8 else 0)
    left, top, right, bottom = dark.getbbox()
    import segno

    n = len(segno.make(changes_url(), error="m", micro=False).matrix)
    step = (right - left) / n
    assert abs((bottom - top) - (right - left)) < step, "the code is square"
    return [[region.getpixel((int(left + (x + 0.5) * step), int(top + (y + 0.5) * step))) < 128 for x in range(n)] for y in range(n)]


def changes_url() -> str:
    return f"{SITE}ru/battlelore/changes.html"


@pytest.mark.integration
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_qr_code_on_the_sheet_and_the_first_card_leads_to_the_changes_page(qr_aids, paper: str):
    """Read back from the printed PDFs, module by module, the QR code encodes the changes page's
    address under the site's address; the address is printed beside it too."""
    import segno

    want = [[bool(v) for v in row] for row in segno.make(changes_url(), error="m", micro=False).matrix]
    for kind, card in (("cards", True), ("sheet", False)):
        content = qr_aids.files[f"battlelore-ru-{kind}-{paper}.pdf"]
        assert qr_modules(content, paper, card) == want, (kind, paper)
        shown = page_texts(content)[0 if card else -1]
        assert changes_url() in "".join(shown.split()), (kind, paper)


@pytest.mark.integration
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_qr_codes_card_and_every_sheet_footer_print_the_games_section_by_its_whole_address(qr_aids, paper: str):
    """A reader without a phone camera types the address in: the QR code's card names the game's section by its whole
    address in its footer, as every page's footer of the sheet does ("Full rules: ru/battlelore/" named it within a
    site whose address the aid did not print)."""
    import pypdfium2

    from generator.render.aids.aid_measure import FOOT_ZONE
    from generator.render.aids.cards import CARD_SIZE, SHEET_AREA, SHEET_MARGIN, SHEETS

    section = f"{SITE}ru/battlelore/"
    width, height = SHEETS[paper]
    left, top = (width - 3 * CARD_SIZE[0]) / 2, height - (height - 3 * CARD_SIZE[1]) / 2  # the first card's
    first_card = pypdfium2.PdfDocument(qr_aids.files[f"battlelore-ru-cards-{paper}.pdf"])[0].get_textpage()
    footer = first_card.get_text_bounded(left, top - CARD_SIZE[1], left + CARD_SIZE[0], top - CARD_SIZE[1] + FOOT_ZONE)
    assert section in "".join(footer.split()), footer
    for page in pypdfium2.PdfDocument(qr_aids.files[f"battlelore-ru-sheet-{paper}.pdf"]):
        bottom = page.get_textpage().get_text_bounded(0, 0, width, (height - SHEET_AREA[1]) / 2 + SHEET_MARGIN[1])  # the footer's margin
        assert f"Полныеправила:{section}" in "".join(bottom.split()), bottom  # as it wraps


def test_without_a_site_url_the_aids_have_no_qr_code_and_the_build_says_so(tmp_path: Path, resolved, capsys):
    from generator.render.aids.aid_qr import NO_SITE_URL, site_url
    from generator.render.aids.cards import aid_job

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: Rules reference\n", encoding="utf-8")
    assert site_url(config) is None
    config.write_text("site_name: x\nsite_url: https://rules.example.org/kb\nhooks: !!python/name:os.system\n", encoding="utf-8")
    assert site_url(config) == SITE
    assert 'class="qr"' not in aid_job(resolved, "marauders", "ru").card_html
    assert 'class="qr"' in aid_job(resolved, "marauders", "ru", site=SITE).card_html
    assert "site_url" in NO_SITE_URL


@pytest.mark.integration
def test_every_aid_keeps_its_pages_with_a_qr_code(resolved, qr_aids):
    """With a site address every aid carries its QR code, and every sheet still keeps within its pages (the
    QR item first on the sheet pushed Chaos in the Old World's Russian sheet onto a third page: a site_url
    failed the build with B004). The sheet puts the code after the rules, where it does not take a page of its
    own. Every aid, on either paper: nothing in a table under 7 pt."""
    from generator.render.aids.cards import MAX_SHEET_PAGES, SHEETS

    jobs, files = qr_aids.jobs, qr_aids.files
    sheets = {name: measured_sheet(content, "a4") for name, content in files.items() if name.endswith("-sheet-a4.pdf")}
    assert len(sheets) == len(jobs) and all(sheet.pages <= MAX_SHEET_PAGES for sheet in sheets.values()), sheets
    assert all('class="qr"' in job.card_html for job in jobs)
    for job, paper in itertools.product(jobs, SHEETS):
        name = f"{job.game}-{job.lang}"
        cards, sheet = measured_cards(files[f"{name}-cards-{paper}.pdf"], paper), measured_sheet(files[f"{name}-sheet-{paper}.pdf"], paper)
        assert_tables_at_7pt(job.card_html, cards, sheet)
        assert_no_page_for_the_code(resolved, job, files[f"{name}-sheet-{paper}.pdf"])


def assert_no_page_for_the_code(resolved, job, sheet: bytes) -> None:
    """No page of a sheet with a QR code is there for the code: each has the bookmark of an item of the rules (the
    code alone went onto a second page of Wizard's Quest's Russian sheet, full on one page). And the page the code
    leads to is named on the sheet: under the code, or, on a sheet without room for it, in full in its footer."""
    from generator.render.aids.cards import aid_sections

    reader = PdfReader(io.BytesIO(sheet))
    rules = {" ".join(item["title"].split()) for section in aid_sections(resolved, job.game, job.lang) for item in section["items"]}

    def bookmarks(outline):
        for node in outline:
            yield from bookmarks(node) if isinstance(node, list) else [(" ".join(node.title.split()), reader.get_destination_page_number(node))]

    pages_with_rules = {page for title, page in bookmarks(reader.outline) if title in rules}
    assert pages_with_rules == set(range(len(reader.pages))), (job.game, job.lang, len(reader.pages))
    address = f"{SITE}{job.lang}/{job.game}/changes.html"
    assert address in "".join(" ".join(page_texts(sheet)).split()), (job.game, job.lang)
