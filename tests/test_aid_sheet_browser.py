"""The HTML sheet (site/cards/<game>-<lang>-sheet.html) in Chromium, on screen and printed: laid out in the
columns of the sheet PDF, a section going on into another column opens it with its bar again, marked as
continued, as the PDF does (in CSS columns it went on under no heading)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from browser import serve
from conftest import bundled_resolved, page_texts
from pypdf import PdfReader

pytestmark = pytest.mark.browser

GAME, LANG = "citow", "ru"  # two pages of long sections: some go on in the next column

BLOCKS = """
const found = [];
for (const element of document.querySelectorAll('.item, h2')) {
  const box = element.getBoundingClientRect();
  if (box.height === 0) continue;  // not shown
  found.push({
    item: element.matches('.item') ? element.id : null,
    bar: element.matches('h2') ? element.textContent.replace(/\\s+/g, ' ').trim() : null,
    more: element.matches('h2.more'),
    left: box.left,
    top: box.top + window.scrollY,
  });
}
return found;"""


def columns_on_screen(blocks: list[dict]) -> list[list[dict]]:
    """The section bars and items shown, in the columns they stand in (by where they are: a column starts where
    the next block stands beside or above the last)."""
    columns: list[list[dict]] = []
    for block in blocks:
        if not columns or abs(block["left"] - columns[-1][-1]["left"]) > 10 or block["top"] < columns[-1][-1]["top"]:
            columns.append([])
        columns[-1].append(block)
    return columns


@pytest.fixture(scope="module")
def sheets(tmp_path_factory) -> Path:
    """The aid's files, laid out as `build` lays them out."""
    from generator.render.aids.aid_layout import produce
    from generator.render.aids.cards import aid_job
    from generator.render.answer_tables import AnswerTables

    folder = tmp_path_factory.mktemp("sheets")
    for name, content in produce(aid_job(bundled_resolved(), GAME, LANG, AnswerTables(bundled_resolved()))).files.items():
        (folder / name).write_bytes(content)
    return folder


def sections_of_items(lang: str) -> tuple[dict[str, str], str]:
    """Item id -> its section's title, and the continuation word, in `lang`."""
    from generator.render.aids.cards import aid_sections

    resolved = bundled_resolved()
    sections = aid_sections(resolved, GAME, lang)
    return {item["anchor"]: section["title"] for section in sections for item in section["items"]}, resolved.languages.ui(lang)["aid_continued"]


def test_a_section_going_on_in_the_next_column_shows_its_bar_again_on_screen_and_printed(driver, sheets: Path):
    section_of, continued = sections_of_items(LANG)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    with serve(sheets) as url:
        driver.get(f"{url}/{GAME}-{LANG}-sheet.html")
        columns = columns_on_screen(driver.execute_script(BLOCKS))
        repeated = 0
        for before, column in zip(columns, columns[1:], strict=False):
            last, first = [block["item"] for block in before if block["item"]][-1], [block["item"] for block in column if block["item"]][0]
            goes_on = section_of[last] == section_of[first]
            if goes_on:  # the column opens with the section's bar, marked as continued
                assert column[0]["more"] and column[0]["bar"] == f"{section_of[first]} {continued}", column[:2]
                repeated += 1
            assert sum(block["more"] for block in column) == int(goes_on), column  # and only there
        assert repeated >= 1, [[block["item"] or block["bar"] for block in column] for column in columns]
        for paper, name, size in (("a4", "sheet.html", (595.3, 841.9)), ("letter", "sheet-letter.html", (612.0, 792.0))):
            driver.get(f"{url}/{GAME}-{LANG}-{name}")
            pages = driver.execute_script("return document.querySelectorAll('.sheet-page').length")
            printed = driver.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True})
            pdf = base64.b64decode(printed["data"])
            reader = PdfReader(io.BytesIO(pdf))
            assert len(reader.pages) == pages, paper  # each page of the sheet's columns fits its paper
            for page in reader.pages:
                assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == tuple(round(v) for v in size), paper
            text = " ".join(" ".join(page.split()) for page in page_texts(pdf))
            assert text.count(continued) == repeated, paper


def test_the_fullest_html_sheet_prints_on_the_pages_of_its_pdf(driver, tmp_path: Path):
    """Wizard's Quest's Russian sheet fills its one page (a column at 99 %): printed from Chromium on A4 and on Letter,
    its HTML keeps to that page, its titles at the PDF's 1.15em, its tables and an item set smaller on the cards as
    on the PDF (at 1.15em with the HTML's own tables and sizes, it ran onto a second Letter page)."""
    from generator.render.aids.aid_layout import produce
    from generator.render.aids.cards import aid_job
    from generator.render.answer_tables import AnswerTables

    for name, content in produce(aid_job(bundled_resolved(), "wizards-quest", "ru", AnswerTables(bundled_resolved()))).files.items():
        (tmp_path / name).write_bytes(content)
    with serve(tmp_path) as url:
        for name in ("sheet.html", "sheet-letter.html"):
            driver.get(f"{url}/wizards-quest-ru-{name}")
            printed = driver.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True})
            assert len(PdfReader(io.BytesIO(base64.b64decode(printed["data"]))).pages) == 1, name


TABLES = """
const found = [];
for (const table of document.querySelectorAll('.item table')) {
  const item = table.closest('.item'), style = getComputedStyle(item);
  const box = table.getBoundingClientRect(), outer = item.getBoundingClientRect();
  found.push({
    item: item.id,
    answer: table.matches('[data-answer-table]'),
    left: box.left - (outer.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft)),
    right: outer.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight) - box.right,
  });
}
return found;"""


def test_every_table_of_the_html_sheet_keeps_to_its_column_printed(driver, sheets: Path):
    """Laid out for print on each paper (print media, the page's text width), Chromium keeps every table of the HTML
    sheet, the answer tables too, within its item's column: none wider than the column it stands in (checked on
    Chaos in the Old World's Russian sheet, whose answer table has the widest numbers: 8 columns of "<0,1")."""
    from generator.render.aids.cards import SHEET_HTML, SHEET_LAYOUT, SHEETS

    side = float(SHEET_LAYOUT["margin"].split()[1].removesuffix("mm")) * 96 / 25.4  # CSS pixels
    with serve(sheets) as url:
        for paper, name in SHEET_HTML.items():
            driver.get(f"{url}/{GAME}-{LANG}-{name}")
            width = round(SHEETS[paper][0] / 0.75 - 2 * side)
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1100, "deviceScaleFactor": 1, "mobile": False})
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
            try:
                tables = driver.execute_script(TABLES)
            finally:
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
            assert any(table["answer"] for table in tables), paper
            assert [table for table in tables if table["left"] < -0.5 or table["right"] < -0.5] == [], paper
