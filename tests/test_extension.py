"""Adding a language or a game is adding data (and, for a game's checks, its rule module): no
change to the generator. Both are built here from the mini data set and looked at as a reader would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MINI, REPO, run_generator

from generator.render.search import payload_of, replay, script_config

pytestmark = pytest.mark.integration

GERMAN_UI = {
    "home": "Regelwerk",
    "search": "Regeln durchsuchen",
    "search_placeholder": "Regeln, Begriffe, Tabellen…",
    "no_results": "Nichts gefunden.",
    "glossary": "Glossar",
    "chapters": "Kapitel",
    "fallback": "Nicht auf Deutsch vorhanden: angezeigt auf {shown}.",
    "translated_from": "übersetzt aus dem {lang}",
}


def add_german(data: Path) -> None:
    """German as data only: its definition, its interface texts (English where not yet translated),
    the mini game offered in it, and one entry translated."""
    folder = data / "languages" / "de"
    folder.mkdir()
    definition = (data / "languages" / "en" / "language.yaml").read_text(encoding="utf-8")
    definition = definition.replace("code: en", "code: de").replace('name: "English"', 'name: "Deutsch"')
    definition = definition.replace("theme: en", "theme: de").replace("fallback: []", 'fallback: ["en"]')
    definition = re.sub(r"folding: \{\}", 'folding: {"ä": "a", "ö": "o", "ü": "u", "ß": "s"}', definition)
    (folder / "language.yaml").write_text(definition.replace('resolution_label: "Resolution"', 'resolution_label: "Entscheidung"'), encoding="utf-8")
    ui = (data / "languages" / "en" / "ui.yaml").read_text(encoding="utf-8")
    for key, text in GERMAN_UI.items():
        ui = re.sub(rf"^  {key}: .*$", f"  {key}: {json.dumps(text, ensure_ascii=False)}", ui, flags=re.M)
    (folder / "ui.yaml").write_text(ui.replace("    ru: ", '    de: "Deutsch"\n    ru: '), encoding="utf-8")
    game = data / "games" / "mini" / "game.yaml"
    game.write_text(
        game.read_text(encoding="utf-8")
        .replace("languages: [en, pl, ru]", "languages: [en, pl, ru, de]")
        .replace("title: {en: Mini Game,", "title: {de: Mini-Spiel, en: Mini Game,"),
        encoding="utf-8",
    )
    chapter = data / "games" / "mini" / "chapters" / "10-rules.yaml"
    text = chapter.read_text(encoding="utf-8")
    text = text.replace("    title: {pl: Odwrót, ru: Отступление, en: Retreat}", "    title: {pl: Odwrót, ru: Отступление, en: Retreat, de: Rückzug}")
    text = text.replace(
        "      en: A unit that must **retreat** moves back 1 space towards its own edge of the board.\n",
        "      en: A unit that must **retreat** moves back 1 space towards its own edge of the board.\n"
        "      de: Eine Einheit, die sich **zurückziehen** muss, weicht 1 Feld zum eigenen Spielfeldrand zurück.\n",
    )
    text = text.replace(
        "      en: {translated_from: pl}\n    see: [mini/support]",
        "      en: {translated_from: pl}\n      de: {translated_from: en}\n    see: [mini/support]",
    )
    chapter.write_text(text, encoding="utf-8")


def test_a_fourth_language_is_data_only(tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    add_german(data)
    result = run_generator("build", "--data", str(data), "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    site = tmp_path / "site"
    chapter = (site / "de" / "mini" / "10-rules.html").read_text(encoding="utf-8")
    assert '<html lang="de"' in chapter and "Zum Inhalt" in chapter  # Material's chrome in German
    assert "Rückzug" in chapter and "zurückziehen" in chapter  # the translated entry
    assert "Nicht auf Deutsch vorhanden: angezeigt auf" in chapter  # its own chrome: the fallback note
    assert "Deutsch" in (site / "index.html").read_text(encoding="utf-8")  # the root page offers it
    assert "Regelwerk" in (site / "de" / "index.html").read_text(encoding="utf-8")
    config = script_config((site / "assets" / "kb-languages.js").read_text(encoding="utf-8"))
    assert "de" in config["languages"] and config["labels"]["de"]["search_placeholder"] == "Regeln, Begriffe, Tabellen…"
    assert config["fold"]["ü"] == "u"
    folder = site / "search" / "de"
    found = replay("ruckzug", lambda name: payload_of((folder / name).read_text(encoding="utf-8")), config["fold"])
    assert found and found[0]["id"] == "mini/retreat" and found[0]["url"].startswith("de/mini/")
    assert (site / "cards" / "mini-de-sheet-a4.pdf").is_file()  # and its player aid


def add_second_game(data: Path) -> None:
    """A copy of the mini game under the id `tiny`, with its own sources and one trivial check."""
    shutil.copytree(data / "games" / "mini", data / "games" / "tiny")
    for path in (data / "games" / "tiny").rglob("*.yaml"):
        text = path.read_text(encoding="utf-8").replace("mini/", "tiny/").replace("mini-", "tiny-").replace("id: mini", "id: tiny")
        path.write_text(text.replace("Mini Game", "Tiny Game").replace("Gra Mini", "Gra Tiny").replace("Игра Мини", "Игра Тини"), encoding="utf-8")
    for lang in ("pl", "ru"):
        shutil.copy(data / "sources" / f"mini_{lang}.txt", data / "sources" / f"tiny_{lang}.txt")
    manifest = data / "sources" / "manifest.yaml"
    text = manifest.read_text(encoding="utf-8")
    copy = text.split("sources:\n", 1)[1].replace("mini", "tiny").replace("Mini", "Tiny").replace("Мини", "Тини")
    manifest.write_text(text + copy, encoding="utf-8")
    chapter = data / "games" / "tiny" / "chapters" / "10-rules.yaml"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("    see: [tiny/support]", "    see: [tiny/support]\n    params: {spaces: 2}"), encoding="utf-8"
    )
    (data / "games" / "tiny" / "checks.yaml").write_text(
        "checks:\n  retreat_spaces:\n    help: spaces a unit moves back when it must retreat\n"
        "    implements: [tiny/retreat]\n    params:\n      tiny/retreat: [spaces]\n",
        encoding="utf-8",
    )
    (data / "games" / "tiny" / "calculators.yaml").write_text(
        'labels:\n  units: {en: "Units", pl: "Oddziały", ru: "Отряды"}\n  retreats: {en: "Retreats", pl: "Odwroty", ru: "Отступления"}\n'
        '  spaces: {en: "Spaces back", pl: "Pola wstecz", ru: "Клеток назад"}\n'
        'checks:\n  retreat_spaces:\n    title: {en: "How far back?", pl: "Jak daleko?", ru: "Как далеко?"}\n'
        '    answer: {en: "Spaces: {spaces}.", pl: "Pola: {spaces}.", ru: "Клеток: {spaces}."}\n'
        "answer_tables:\n  - check: retreat_spaces\n    rows: {input: units.0.retreats, from: 1, to: 4}\n    heading: retreats\n"
        "    show: [{output: spaces, as: number, label: spaces}]\n",
        encoding="utf-8",
    )


TINY_MODULE = '''"""Tiny: one trivial check, its number from the data."""
from ..core import Game, GameData, check


class Rules(Game):
    def __init__(self, data: GameData):
        super().__init__(data)
        self.SPACES = data.param("tiny/retreat", "spaces")

    @check("retreat_spaces")
    def retreat_spaces(self, units: list) -> dict:
        return {"spaces": sum(unit["retreats"] for unit in units) * self.SPACES}
'''
TINY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tiny",
    "$defs": {
        # the answer table's rows run over units.0.retreats: an item of a list, whose schema is a $ref
        "retreat_spaces_input": {
            "type": "object",
            "required": ["units"],
            "additionalProperties": False,
            "properties": {"units": {"type": "array", "maxItems": 8, "items": {"$ref": "#/$defs/unit"}}},
        },
        "unit": {
            "type": "object",
            "required": ["retreats"],
            "additionalProperties": False,
            "properties": {"retreats": {"type": "integer", "minimum": 0, "maximum": 10}},
        },
        "retreat_spaces_output": {"type": "object", "required": ["spaces"], "properties": {"spaces": {"type": "integer"}}},
    },
}


def test_a_second_game_goes_through_the_same_code_paths(tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(MINI, data)
    add_second_game(data)
    # the game's rule module is the one thing written for it: in a copy of the package, first on the path
    package = tmp_path / "pkg" / "rules_check"
    shutil.copytree(REPO / "rules_check", package, ignore=shutil.ignore_patterns("data", "__pycache__"))
    (package / "games" / "tiny.py").write_text(TINY_MODULE, encoding="utf-8")
    (package / "schemas" / "tiny.schema.json").write_text(json.dumps(TINY_SCHEMA), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--data", str(data), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": f"{package.parent}:{REPO}"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    site = tmp_path / "out" / "site"
    assert "Tiny Game" in (site / "en" / "tiny" / "index.html").read_text(encoding="utf-8")
    assert 'id="retreat"' in (site / "en" / "tiny" / "10-rules.html").read_text(encoding="utf-8")
    assert "tiny.retreat_spaces" in (site / "en" / "tiny" / "10-rules.html").read_text(encoding="utf-8")
    assert 'data-check="retreat_spaces"' in (site / "pl" / "tiny" / "10-rules.html").read_text(encoding="utf-8")  # its calculator
    # its answer table, declared in its calculators.yaml and answered by its rule module (2 spaces a retreat)
    page = (site / "pl" / "tiny" / "calculators.html").read_text(encoding="utf-8")
    table = page[page.index('data-answer-table="tiny-retreat_spaces"') :]
    table = table[: table.index("</table>")]
    assert "Pola wstecz" in table
    assert re.findall(r'<tr><th scope="row">(\d+)</th><td>(\d+)</td></tr>', table) == [(str(n), str(2 * n)) for n in range(1, 5)]
    spec = json.loads((site / "pl" / "tiny" / "calculators.json").read_text(encoding="utf-8"))
    units = TINY_SCHEMA["$defs"]["retreat_spaces_input"]["properties"]["units"]
    assert spec["checks"]["retreat_spaces"]["schema"]["properties"]["units"] == {**units, "items": TINY_SCHEMA["$defs"]["unit"]}
    assert spec["checks"]["retreat_spaces"]["labels"]["retreats"] == "Odwroty"
    assert (site / "cards" / "tiny-pl-cards-a4.pdf").is_file()
    config = script_config((site / "assets" / "kb-languages.js").read_text(encoding="utf-8"))
    folder = site / "search" / "en"
    found = replay("Tiny retreat", lambda name: payload_of((folder / name).read_text(encoding="utf-8")), config["fold"])
    assert "tiny/retreat" in [r["id"] for r in found[:3]]
    env = {**os.environ, "PYTHONPATH": str(package.parent), "RULES_CHECK_DATA": str(tmp_path / "out" / "rules_check" / "data")}
    answer = subprocess.run(
        [sys.executable, "-m", "rules_check", "tiny", "retreat_spaces"],
        input='{"units": [{"retreats": 1}, {"retreats": 2}]}',
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout)["spaces"] == 6
    listed = subprocess.run([sys.executable, "-m", "rules_check", "--list"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert "tiny retreat_spaces" in listed.stdout
