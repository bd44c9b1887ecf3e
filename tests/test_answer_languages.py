"""Answers in the reader's language (issue 27): a calculator's answer is a template per language filled from the
check's output (rules_check/explain.py), so every string the output gives a Russian or Polish reader must be a code
that calculators.yaml labels in that language, not an English phrase of the check: why an attack ended, why a move or
an attack is not allowed, why a counterattack is not. The strings an answer may give back as they are: numbers, entry
ids, a scenario card's printed code, and the player's own words (the names he gave locations, tribes). A Chaos
Marauders card is not his word but the game's: the checks echo its id, which the answer says by its name (GAME_NAMES).
Nor are CitOW's threat-dial instructions (a kind from the list, labelled) or the cards of its checks: a card the
glossary names is said by its name in the reader's language, looked up by its English name (explain.label_key)
(issue 27)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import worked_examples

import rules_check
from generator.base.json_schema import check_schemas
from generator.validate.validate_calculators import output_paths
from rules_check import explain
from rules_check.explain import Words

pytestmark = pytest.mark.unit
pytest_plugins = ["rules_fixtures"]  # the fixture rules_data

LANGUAGES = ("ru", "pl")
EXAMPLES = worked_examples()
AS_IT_IS = re.compile(r"[0-9]+(/[0-9]+)?|[a-z0-9-]+/[a-z0-9/-]+|[A-Z][0-9]+")  # a number, an entry id, a card's code
# output fields no answer names: `message`, the CLI's English beside a code the answer says; round_dials'
# game_end_needs, the input fields the CLI asks for (test_no_answer_names_a_field_left_to_the_cli holds them unsaid)
UNSAID = {"message", "game_end_needs"}
# input fields whose strings name the game's things, not the player's words: Chaos Marauders' cards (in a battle line's
# spaces, drawn, broken, taken as trophies, scoring), CitOW's dial instructions (their kinds) and cards, which an
# answer says by their labels
GAME_NAMES = {
    "marauders": frozenset(
        {"card", "drawn", "spaces", "lines", "winner_lines", "scoring_cards", "war_machines_with_crew", "war_machines_without_crew"}
    ),
    "citow": frozenset({"kind", "instruction", "card"}),
}


def _strings(value: Any, path: str = "") -> list[tuple[str, str]]:
    """(path, string) of every string value within `value`."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _strings(item, f"{path}.{key}")]
    if isinstance(value, list):
        return [found for item in value for found in _strings(item, f"{path}[]")]
    return []


def _players_words(inputs: Any, names: frozenset[str] = frozenset()) -> set[str]:
    """The strings the inputs give: values and the keys of maps (a tribe's name), but not the values of the fields
    `names`, which name the game's things."""
    if isinstance(inputs, str):
        return {inputs}
    if isinstance(inputs, dict):
        return set(inputs) | {word for key, item in inputs.items() if key not in names for word in _players_words(item, names)}
    if isinstance(inputs, list):
        return {word for item in inputs for word in _players_words(item, names)}
    return set()


def _has_words(say: dict[str, Any], check: str, value: str, language: str) -> bool:
    """The value has a label in `language` (the check's own, or the game's), by itself or by its key (a card's name)."""
    labels = {**say["labels"], **say["checks"][check].get("labels", {})}
    texts = labels.get(value) or labels.get(explain.label_key(value))
    return texts is not None and language in texts


@pytest.mark.parametrize(
    ("game", "check", "inputs", "entry", "language"),
    [(game, check, inputs, entry, language) for game, check, inputs, _, entry in EXAMPLES for language in LANGUAGES],
    ids=[f"{entry}-{language}" for *_, entry in EXAMPLES for language in LANGUAGES],
)
def test_no_english_phrase_of_the_output_reaches_a_worked_examples_answer(
    rules_data: Path, monkeypatch, game: str, check: str, inputs: dict[str, Any], entry: str, language: str
):
    """Each string of the output is said in the reader's words wherever a template places it: one the answer shows
    does not appear as it is, and every other (answers name new fields) has a label in the language too."""
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    output = rules_check.run(game, check, inputs)
    said = explain.say(game, check, output, language)
    say = rules_check.game(game).data.say
    own = _players_words(inputs, GAME_NAMES.get(game, frozenset()))
    english = [
        (path, value)
        for path, value in _strings(output)
        if not AS_IT_IS.fullmatch(value)
        and value not in own
        and not UNSAID & set(re.split(r"[.\[\]]+", path))
        and (not _has_words(say, check, value, language) or re.search(rf"\b{re.escape(value)}\b", said))
    ]
    assert english == [], f"{language} answer: {said}"


def _template_places(game: str) -> list[tuple[str, str, str]]:
    """(check, language, place) of every {place} of the game's answers."""
    say = rules_check.game(game).data.say
    return [
        (check, language, field)
        for check, texts in say["checks"].items()
        for language, template in texts["answer"].items()
        for field, _ in explain._fields(template)
    ]


@pytest.mark.parametrize("game", sorted({game for game, *_ in EXAMPLES}))
def test_no_answer_names_a_field_left_to_the_cli(rules_data: Path, monkeypatch, game: str):
    """An answer names neither an UNSAID field nor a field holding one (`{reasons}` would say each reason's
    English message; `{reasons.code}` says its code, labelled)."""
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    schemas = check_schemas(game) or {}
    naming = [
        (check, language, place)
        for check, language, place in _template_places(game)
        for path in output_paths(schemas[f"{check}_output"])
        if (path == place or path.startswith(place + ".")) and UNSAID & set(path.split("."))
    ]
    assert naming == []


def _enum_strings(node: Any) -> set[str]:
    """The string values of every enum within a schema."""
    if isinstance(node, list):
        return {value for item in node for value in _enum_strings(item)}
    if not isinstance(node, dict):
        return set()
    own = {value for value in node.get("enum", []) if isinstance(value, str)}
    return own | {value for key, item in node.items() if key != "enum" for value in _enum_strings(item)}


def _at(schema: dict[str, Any], place: str) -> dict[str, Any]:
    """The output schema at a template's place (through lists of records)."""
    node = schema
    for part in place.split("."):
        node = node.get("items", node)
        node = next(form["properties"][part] for form in [node, *node.get("oneOf", []), *node.get("anyOf", [])] if part in form.get("properties", {}))
    return node


@pytest.mark.parametrize("game", sorted({game for game, *_ in EXAMPLES}))
def test_every_code_an_answer_can_show_has_words_in_each_language(rules_data: Path, monkeypatch, game: str):
    """Each value an answer's place can hold from an enum of the output schema (a reason's code, why the attack
    ended) has a label in each language of the answer: not only the codes the worked examples meet."""
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    say = rules_check.game(game).data.say
    schemas = check_schemas(game) or {}
    missing = sorted(
        {
            (check, language, place, value)
            for check, language, place in _template_places(game)
            if language != "en"
            for value in _enum_strings(_at(schemas[f"{check}_output"], place))
            if not _has_words(say, check, value, language)
        }
    )
    assert missing == []


# situations no worked example meets: a move onto a unit and off the board, a Skirmish by a unit not ordered, an
# Attack the attacker stops and one whose attacking location is emptied, Marauders' attacks not allowed; each with the
# codes the answer says
SITUATIONS = [
    (
        "battlelore",
        "move",
        {"start": [0, 0], "path": [[1, 0], [2, 0]], "terrain": [{"hex": [2, 0], "terrain": "off_board"}], "units": [[1, 0]]},
        ["occupied", "off_board"],
    ),
    ("battlelore", "ability_move", {"ability": "skirmish", "x": 2, "unit_ordered": False, "moment": "attack_step"}, ["not_ordered", "wrong_moment"]),
    (
        "wizards-quest",
        "attack",
        {"attacker": {"men": 3}, "defender": {"men": 3}, "battles": [{"attacker_roll": 6, "defender_roll": 6}], "stop": True},
        ["attacker_stopped"],
    ),
    (
        "wizards-quest",
        "attack",
        {"attacker": {"men": 1}, "defender": {"men": 2}, "battles": [{"attacker_roll": 6, "defender_roll": 1}]},
        ["attacking_location_unoccupied"],
    ),
    (
        "marauders",
        "attack",
        {
            "attacker": {"completed": False, "tribe": "grom", "attack_strength": 3},
            "defender": {"completed": True, "tribe": "grom", "attack_strength": 5},
        },
        ["attacker_not_completed", "defender_completed", "same_tribe", "not_stronger"],
    ),
    (
        "marauders",
        "attack",
        {
            "attacker": {
                "completed": True,
                "attack_strength": 9,
                "attacks_made": 1,
                "just_completed": False,
                "completed_by_trophy": True,
                "completed_lines": 3,
            },
            "defender": {"completed": False, "attack_strength": 5},
        },
        ["already_attacked", "not_just_completed", "completed_by_trophy", "game_over"],
    ),
]


@pytest.mark.parametrize(("game", "check", "inputs", "codes"), SITUATIONS, ids=[f"{game}-{check}-{codes[0]}" for game, check, _, codes in SITUATIONS])
def test_the_answer_says_why_in_the_readers_language(rules_data: Path, monkeypatch, game: str, check: str, inputs: dict[str, Any], codes: list[str]):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    output = rules_check.run(game, check, inputs)
    english = {value for path, value in _strings(output) if path.endswith(".message") or value in codes}
    say = rules_check.game(game).data.say
    for language in LANGUAGES:
        said = json.loads(explain.answer(game, check, json.dumps(inputs), language))["sentence"]
        words = Words(say, check, language)
        assert all(words.label(code) in said for code in codes), said
        assert not [value for value in english if value in said], said
