"""The answer tables (issue 15, point 3): on each game's Calculators page and on its aids, in every language
of the game, every sampled cell being what `python -m rules_check` answers for that cell's input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import GAMES as BUNDLED
from conftest import REPO, bundled_resolved
from ruamel.yaml import YAML

from generator.render.answer_tables import AnswerTables, Words, value_at
from generator.resolve.pages import CALCULATORS


def declares_answer_tables(game: str) -> bool:
    calculators = REPO / "data" / "games" / game / "calculators.yaml"
    return calculators.is_file() and bool((YAML(typ="safe").load(calculators.read_text(encoding="utf-8")) or {}).get("answer_tables"))


GAMES = [game for game in BUNDLED if declares_answer_tables(game)]  # (BattleLore declares none: its tables rested on an assumption, issue 28)
assert GAMES, "no bundled game declares an answer table"


@pytest.fixture(scope="module")
def resolved():
    return bundled_resolved()


@pytest.fixture(scope="module")
def tables(resolved):
    return AnswerTables(resolved)


class TableCells(HTMLParser):
    """Table id (data-answer-table) -> its body rows as lists of cell texts (the row heading first)."""

    def __init__(self, html: str):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.current: str | None = None
        self.in_body = False
        self.cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "data-answer-table" in attrs:
            self.current = attrs["data-answer-table"]
            self.tables[self.current] = []
        elif self.current and tag == "tbody":
            self.in_body = True
        elif self.current and self.in_body and tag == "tr":
            self.tables[self.current].append([])
        elif self.current and self.in_body and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.current:
            self.tables[self.current][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "table":
            self.current, self.in_body = None, False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def cli(game: str, check: str, inputs: dict, data: Path) -> dict:
    """What the command line answers, in a subprocess, with the build's rules data."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "RULES_CHECK_DATA": str(data)}
    result = subprocess.run(
        [sys.executable, "-m", "rules_check", game, check], input=json.dumps(inputs), capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout) if result.returncode == 0 else {}


def sample(table, count: int = 4) -> list[tuple[int, int]]:
    """(row, column) of a few cells spread over the table: corners and the middle."""
    rows, columns = len(table.rows), len(table.rows[0][1])
    return sorted({(0, 0), (rows - 1, columns - 1), (rows // 2, columns // 2), (rows - 1, 0)})[:count]


@pytest.mark.parametrize("game", GAMES)
def test_sampled_cells_are_the_cli_answers_on_the_page_and_the_aids(bundled_build: Path, resolved, tables, game: str):
    site, data = bundled_build / "site", bundled_build / "rules_check" / "data"
    for lang in resolved.kb.games[game]["languages"]:
        built = tables.of_game(game, lang)
        assert built, (game, lang)
        pages = {
            "page": site / lang / game / CALCULATORS.html,
            **{kind: site / "cards" / f"{game}-{lang}-{kind}.html" for kind in ("sheet", "cards")},
        }
        found = {name: TableCells(path.read_text(encoding="utf-8")).tables for name, path in pages.items()}
        for table in built:
            for name, html_tables in found.items():
                assert table.id in html_tables, (table.id, lang, name)
                assert len(html_tables[table.id]) == len(table.rows), (table.id, lang, name)
            for row, column in sample(table):
                heading, cells = table.rows[row]
                cell = cells[column]
                answer = cli(game, table.check, cell.inputs, data)
                expected = Words(tables, game, resolved.reading(lang)).text(value_at(answer, cell.output) if answer else None, cell.kind)
                assert cell.text == expected, (table.id, row, column)
                for name, html_tables in found.items():
                    assert html_tables[table.id][row] == [heading, *(c.text for c in cells)], (table.id, lang, name)


def test_the_tables_print_the_readers_words(resolved, tables):
    """Headings in each language (Polish CitOW: its own labels and decimal comma)."""
    en, pl = tables.of_game("citow", "en")[0], tables.of_game("citow", "pl")[0]
    assert en.title != pl.title and en.groups[0][0] != pl.groups[0][0]
    assert en.rows[0][1][0].text == "50.0" and pl.rows[0][1][0].text == "50,0"  # 1 die: a hit on 4, 5 or 6


def test_battlelore_has_no_table_resting_on_an_assumption_and_wizards_quest_answers_the_issues_question(resolved, tables):
    """Issue 28: BattleLore's face-chance and average-damage tables gave each face 1 side in 6, which the sources do
    not say; they are withdrawn from the Calculators page and the aids (its calculators say the assumption in their
    question). Wizard's Quest: the chance of a hit and the losses for death ranges 1-6."""
    from generator.render.aids.cards import aid_sections

    for lang in ("en", "pl", "ru"):
        assert tables.of_game("battlelore", lang) == []
        assert all(
            item["id"] not in ("face_probability", "expected_hits") and "answer-table" not in item["html"]
            for section in aid_sections(resolved, "battlelore", lang, tables)
            for item in section["items"]
        )
        words = resolved.kb.calculators["battlelore"]["checks"]
        unsaid = {"en": "the sources do not say", "pl": "źródła tego nie mówią", "ru": "источники этого не говорят"}[lang]
        assert unsaid in words["expected_hits"]["title"][lang] and unsaid in words["face_probability"]["answer"][lang]
    (hits,) = tables.of_game("wizards-quest", "ru")
    assert [(heading, [cell.text for cell in cells]) for heading, cells in hits.rows][::5] == [("1", ["16,7", "0,17"]), ("6", ["100,0", "3,50"])]
