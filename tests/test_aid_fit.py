"""An answer table's width on its aid card, as validate estimates it (E088, validate_aid_fit.py) and as
WeasyPrint lays it out (issue 32): the estimate is never narrower than WeasyPrint's table, for every
bundled table in every language and for tables headed by every label the bundled calculators have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import bundled_kb, bundled_resolved
from markupsafe import Markup

from generator.base import aid_geometry
from generator.base.aid_geometry import CARD_TEXT, MM
from generator.validate.validate_aid_fit import Printed, pieces, table_fit

EIGHT = [str(n) for n in range(1, 9)]


def per_cent_table(group: str, row_label: str = "Dice", value: str = "99,9") -> Printed:
    return Printed(row_label, [str(n) for n in range(1, 11)], group, EIGHT, [[value] * 10 for _ in EIGHT])


@pytest.mark.unit
def test_a_table_that_fits_and_one_that_does_not():
    fits = table_fit(per_cent_table("Hits (at least), %"))
    assert fits.fits and 40 * MM < fits.width < CARD_TEXT[0]
    long_word = table_fit(per_cent_table("Hits Atleastthismanyhitsrolledwithbattledicebeforesaves, %"))
    assert not long_word.fits and long_word.widest == "Atleastthismanyhitsrolledwithbattledicebeforesaves,"
    assert table_fit(per_cent_table("Hits (at least), %", value=">99,9")).width > fits.width + 8 * 3.5  # a digit more in 8 columns


@pytest.mark.unit
def test_a_heading_breaks_only_where_the_line_breaker_may():
    assert pieces("Hits (at least), %") == ["Hits", "(at", "least),", "%"]
    assert pieces("( wide ) one") == ["( wide )", "one"]
    assert pieces("") == [""]


@pytest.mark.unit
def test_the_cards_css_prints_the_geometry_validate_reads():
    """The tables' type (in points: a card set smaller keeps its tables' size), the answer tables' paddings and
    the rules are rendered into the aids' CSS from base/aid_geometry.py."""
    from generator.render.aids.cards import CARD_LAYOUT, aid_environment

    css = aid_environment().get_template("aid.html.j2").render(**CARD_LAYOUT, lang="en", title="", sections=[], footer="")
    number = aid_geometry.css_number
    assert f".item table {{ font-size: {number(aid_geometry.TABLE_PT)}pt; line-height: 1; }}" in css
    assert re.search(rf"\.kb-answer-table td {{[^}}]*padding: \.03em {re.escape(number(aid_geometry.ANSWER_CELL_PADDING))}em;", css)
    assert re.search(rf"\.kb-answer-table th {{[^}}]*padding: \.03em {re.escape(number(aid_geometry.ANSWER_HEAD_PADDING))}em;", css)
    assert f".item td, .item th {{ border: {number(aid_geometry.TABLE_RULE)}pt solid" in css
    assert f"font-size: {aid_geometry.FONT_SIZE};" in css


# -- against WeasyPrint ---------------------------------------------------------------------------
def laid_out_widths(items: list[dict]) -> list[float]:
    """Each item's answer table as narrow as WeasyPrint sets it with the cards' CSS (a page too narrow for any),
    in points: its min-content width."""
    from weasyprint import HTML

    from generator.render.aids.aid_layout import PX, all_boxes
    from generator.render.aids.cards import CARD_LAYOUT, aid_environment

    html = (
        aid_environment()
        .get_template("aid.html.j2")
        .render(
            **{**CARD_LAYOUT, "page_size": "10pt 5000pt"},
            lang="en",
            game_title="",
            kind="",
            title="",
            footer="",
            sections=[{"title": "", "colour": "#2f5d50", "icon": None, "items": [{**item, "marks": []} for item in items]}],
        )
    )
    return [box.border_width() * PX for page in HTML(string=html).render().pages for box in all_boxes(page) if type(box).__name__ == "TableBox"]


@pytest.fixture(scope="module")
def bundled():
    """The bundled data, validated and resolved, and the declared tables of each game with an aid, each
    language: (game, language, declaration, the table as render builds it, validate's estimate)."""
    from generator.base.answer_cells import layout
    from generator.base.json_schema import check_schemas
    from generator.render.answer_tables import AnswerTables
    from generator.validate.validate_aid_fit import answers, game_rules, printed_table

    kb = bundled_kb()
    resolved = bundled_resolved()
    tables = AnswerTables(resolved)
    found = []
    for game in sorted(kb.aids):
        calculators, schemas, rules = kb.calculators.get(game, {}), check_schemas(game), game_rules(kb, game)
        for lang in kb.games[game]["languages"]:
            for declaration, table in zip(calculators.get("answer_tables", []), tables.of_game(game, lang), strict=True):
                labels = {**calculators["labels"], **calculators["checks"][declaration["check"]].get("labels", {})}

                def label(key: str, lang: str = lang, labels: dict = labels) -> str:
                    texts = labels[key]
                    return str(kb.languages.text(kb.terms[texts["term"]]["names"] if "term" in texts else texts, lang))

                words = kb.languages.ui(lang)["calculator"]
                laid_out = layout(declaration, game, schemas, label, words)
                printed = printed_table(laid_out, words["decimal"], answers(rules, laid_out))
                found.append((game, lang, table, printed))
    return resolved, found


@pytest.mark.integration
def test_the_estimate_is_never_narrower_than_weasyprints_table(bundled):
    """Every bundled answer table, each language: the estimate is at least WeasyPrint's width, and at most a
    quarter of a millimetre more (measured: 0.00-0.08 mm), and fits the card (validate accepts it)."""
    from generator.render.aids.cards import answer_item

    resolved, found = bundled
    assert len(found) >= 9  # three games with tables, three languages each
    laid_out = laid_out_widths([answer_item(resolved, lang, table) for _, lang, table, _ in found])
    for (game, lang, table, printed), width in zip(found, laid_out, strict=True):
        estimate = table_fit(printed)
        assert table.row_label == printed.row_label and table.groups[0][0] == printed.group, (game, lang)
        assert [cell.text for _, cells in table.rows for cell in cells] == [
            printed.values[c][r] for r in range(len(table.rows)) for c in range(len(printed.values))
        ], (game, lang)
        assert width - 0.01 <= estimate.width <= width + MM / 4, (game, lang, width / MM, estimate.width / MM)
        assert estimate.fits, (game, lang)


@pytest.mark.integration
def test_the_estimate_holds_for_every_heading_the_bundled_labels_could_make(bundled):
    """Each label of every bundled calculators.yaml (the game's and its checks'), in every language, as a table's group
    heading (per cent), its row label and a column heading, and forty of them run together into one word: never
    estimated narrower than WeasyPrint's table."""
    from generator.render.aids.cards import answer_item
    from generator.render.answer_tables import AnswerTable, Cell

    resolved, _ = bundled
    kb = resolved.kb
    labels = [
        label
        for calculators in kb.calculators.values()
        for label in [
            *calculators["labels"].values(),
            *(label for check in calculators["checks"].values() for label in check.get("labels", {}).values()),
        ]
    ]
    texts = sorted({str(text) for label in labels for text in (kb.terms[label["term"]]["names"] if "term" in label else label).values()})
    assert len(texts) > 1000
    texts += [text.replace(" ", "") for text in texts if " " in text][:40]
    tables, printed = [], []
    for text in texts:
        values = [["99,9", ">99,9"], ["1", "—"]]
        heading = f"{text}, %"
        tables.append(
            AnswerTable(
                "t", "g", "c", "T", text, [(heading, ["1", text])], [(str(r), [Cell(values[c][r], None, "", "") for c in range(2)]) for r in range(2)]
            )
        )
        printed.append(Printed(text, ["0", "1"], heading, ["1", text], values))
    items = [answer_item(resolved, "en", table) for table in tables]
    # one item holding every table: each table's width is the same as in an item of its own (measured on these 1,517),
    # and the layout takes half the time (one page for 1,517)
    widths = laid_out_widths([{**items[0], "html": Markup("".join(item["html"] for item in items))}])
    for text, table, width in zip(texts, printed, widths, strict=True):
        assert table_fit(table).width >= width - 0.01, (text, width, table_fit(table).width)


@pytest.mark.unit
def test_the_fixture_is_refused_for_the_long_word_only():
    """tests/fixtures/invalid/E088: the long word's table, in the languages that have it (en and ru, not pl)."""
    expected = (Path(__file__).parent / "fixtures/invalid/E088/expected.txt").read_text(encoding="utf-8")
    assert "answer table 1 " not in expected and ", en: " in expected and ", ru: " in expected and ", pl: " not in expected
