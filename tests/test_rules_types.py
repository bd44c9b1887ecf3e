"""The TypedDicts that describe the checks' nested inputs (issue 30) held to the input schemas: each TypedDict's
required and optional keys are the `required` and `properties` of the schema object it describes, so a schema edit
without the type (or a type edit without the schema) fails here."""

from __future__ import annotations

import functools
import inspect
import json
import typing
from pathlib import Path
from typing import Any

import pytest

from rules_check.games import battlelore, citow, marauders, wizards_quest

pytestmark = pytest.mark.unit

SCHEMAS = Path(__file__).resolve().parent.parent / "rules_check" / "schemas"
MODULES = {"battlelore": battlelore, "citow": citow, "marauders": marauders, "wizards_quest": wizards_quest}

# (game, schema place, TypedDict): the place is `<check>_input` then `.key` (a property), `[]` (an array's items),
# `.*` (a map's values) or `|n` (the n-th form of a `oneOf`, from 0); a TypedDict that describes several places is
# listed at each
TYPES: list[tuple[str, str, Any]] = [
    ("marauders", "score_input.lines[]", marauders.ScoredLine),
    ("marauders", "standings_input.tribes.*", marauders.Tribe),
    ("marauders", "standings_input.tribes.*.lines[]", marauders.ScoredLine),
    ("marauders", "attack_input.attacker", marauders.Attacker),
    ("marauders", "attack_input.attacker.cards[]", marauders.LineCard),
    ("marauders", "attack_input.defender", marauders.Defender),
    ("marauders", "attack_input.defender.cards[]", marauders.LineCard),
    ("marauders", "turn_input.draws[]", marauders.Draw),
    ("marauders", "trophies_input.broken_line[]", marauders.BrokenCard),
    ("marauders", "trophies_input.placements[]", marauders.Placement),
    ("citow", "dominance_input.chaos_cards.*[]", citow.ChaosCard),
    ("citow", "ruination_scoring_input.card_values", citow.CardValues),
    ("citow", "battle_input.stats.*", citow.FigureStats),
    ("citow", "battle_input.cards[]", citow.BattleCard),
    ("citow", "battle_input.what_if[]", citow.WhatIf),
    ("citow", "dial_advancement_counters_input.events[]", citow.DialEvent),
    ("citow", "old_world_track_input.old_world_track", citow.OldWorldTrack),
    ("citow", "summoning_input.summon", citow.Summon),
    ("citow", "summoning_input.play_card", citow.PlayCard),
    ("citow", "conflicting_effects_input.region_cards[]", citow.RegionCard),
    ("citow", "corruption_phase_input.regions[]", citow.RegionSpec),
    ("citow", "corruption_phase_input.regions[].chaos_cards.*[]", citow.ChaosCard),
    ("citow", "round_dials_input.powers.*", citow.PowerDial),
    ("citow", "round_dials_input.powers.*.events[]", citow.DialEvent),
    ("citow", "round_dials_input.powers.*.windows.*", citow.DialWindow),
    ("citow", "round_dials_input.powers.*.windows.*.instruction", citow.DialInstruction),
    ("citow", "advance_dials_input.dial_instructions_revealed.*[]", citow.DialInstruction),
    ("battlelore", "combat_dice_input.attacker", battlelore.DiceUnit),
    ("battlelore", "combat_dice_input.target", battlelore.DiceUnit),
    ("battlelore", "combat_dice_input.counterattack", battlelore.CounterattackDice),
    ("battlelore", "damage_and_retreat_input.target", battlelore.RetreatingUnit),
    ("battlelore", "damage_and_retreat_input.path[]", battlelore.PathHex),
    ("battlelore", "expected_hits_input.attacker", battlelore.ExpectedAttacker),
    ("battlelore", "expected_hits_input.target", battlelore.ExpectedTarget),
    ("battlelore", "campaign_input.scenarios[]", battlelore.Scenario),
    ("battlelore", "ability_move_input.board", battlelore.Board),
    ("battlelore", "ability_move_input.board.terrain[]", battlelore.TerrainSpot),
    ("battlelore", "ability_move_input.board.unit", battlelore.MovingUnit),
    ("battlelore", "line_of_sight_input.terrain[]", battlelore.SightSpot),
    ("battlelore", "attack_input.attacker", battlelore.AttackingUnit),
    ("battlelore", "attack_input.target", battlelore.AttackedUnit),
    ("battlelore", "attack_input.path[]", battlelore.PathHex),
    ("battlelore", "attack_input.counterattack", battlelore.Counterattack),
    ("battlelore", "attack_input.counterattack.path[]", battlelore.PathHex),
    ("battlelore", "attack_input.counterattack.heroic_damage", battlelore.HeroicDamage),
    ("battlelore", "attack_input.heroic_damage", battlelore.HeroicDamage),
    ("battlelore", "move_input.unit", battlelore.MovingUnit),
    ("battlelore", "move_input.terrain[]", battlelore.TerrainSpot),
    ("wizards_quest", "battle_input|0.battles[]", wizards_quest.BattleRoll),
    ("wizards_quest", "battle_input|1.battles[]", wizards_quest.BothRolls),
    ("wizards_quest", "battle_input|1.battles[].attacker", wizards_quest.BattleRoll),
    ("wizards_quest", "battle_input|1.battles[].defender", wizards_quest.BattleRoll),
    ("wizards_quest", "may_attack_input.attacker", wizards_quest.AttackingForce),
    ("wizards_quest", "may_attack_input.target", wizards_quest.Target),
    ("wizards_quest", "attack_input.attacker", wizards_quest.AttackingForce),
    ("wizards_quest", "attack_input.defender", wizards_quest.DefendingForce),
    ("wizards_quest", "attack_input.battles[]", wizards_quest.AttackBattle),
    ("wizards_quest", "dragon_phase_input.landings[]", wizards_quest.Landing),
    ("wizards_quest", "scatter_input.pieces", wizards_quest.Pieces),
    ("wizards_quest", "orc_phase_input.orc_locations[]|0", wizards_quest.OrcTerritory),
    ("wizards_quest", "orc_phase_input.orc_locations[]|1", wizards_quest.OrcCastle),
    ("wizards_quest", "orc_phase_input.castles_adjacent_to_region[]", wizards_quest.RegionCastles),
    ("wizards_quest", "kingdoms_input.locations[]", wizards_quest.Held),
    ("wizards_quest", "kingdoms_input.connections[]", wizards_quest.Connection),
    ("wizards_quest", "orc_rampage_input.neighbours[]", wizards_quest.Neighbour),
    ("wizards_quest", "orc_rampage_input.rolls[]", wizards_quest.RampageRoll),
    ("wizards_quest", "scatter_input.destinations[]", wizards_quest.Destination),
]


@functools.cache
def _schema(game: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{game}.schema.json").read_text(encoding="utf-8"))
    return schema


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _place(game: str, path: str) -> dict[str, Any]:
    """The schema object at `path` (see TYPES)."""
    schema = _schema(game)
    head, *steps = path.replace("[]", ".[]").replace("|", ".|").split(".")
    node = _resolve(schema, schema["$defs"][head])
    for step in steps:
        if step == "[]":
            node = node["items"]
        elif step == "*":
            node = node["additionalProperties"]
        elif step.startswith("|"):
            node = node["oneOf"][int(step[1:])]
        else:
            node = node["properties"][step]
        node = _resolve(schema, node)
    return node


def _keys(typed: Any) -> tuple[set[str], set[str]]:
    """A TypedDict's required and optional keys. The NotRequired markers are read from the type hints: under
    `from __future__ import annotations` Python 3.11 counts a NotRequired key of a class-syntax TypedDict in
    `__required_keys__`."""
    hints = typing.get_type_hints(typed, include_extras=True)
    optional = {key for key, hint in hints.items() if typing.get_origin(hint) is typing.NotRequired} | set(typed.__optional_keys__)
    required = (set(typed.__required_keys__) | set(hints)) - optional
    return required, optional


@pytest.mark.parametrize(("game", "path", "typed"), TYPES, ids=[f"{game}:{path}" for game, path, _ in TYPES])
def test_typed_input_follows_the_schema(game: str, path: str, typed: Any) -> None:
    place = _place(game, path)
    required, optional = _keys(typed)
    assert place.get("additionalProperties") is False, f"{path}: a TypedDict describes a closed object"
    assert required == set(place.get("required", [])), f"{typed.__name__} required keys vs {path}.required"
    assert required | optional == set(place["properties"]), f"{typed.__name__} keys vs {path}.properties"


def test_every_input_typeddict_is_held_to_a_schema_place() -> None:
    """A TypedDict a game module defines is in TYPES: none escapes the comparison (a private one is a base whose keys
    its subclasses in TYPES bring)."""
    tabled = {id(typed) for _, _, typed in TYPES}
    defined = [
        f"{name}.{attribute}"
        for name, module in MODULES.items()
        for attribute, value in vars(module).items()
        if typing.is_typeddict(value) and inspect.getmodule(value) is module and id(value) not in tabled and not attribute.startswith("_")
    ]
    assert defined == []


def test_keys_see_a_missing_key() -> None:
    """The comparison fails when a TypedDict lacks a key its schema place has (the NotRequired markers are read
    right, a required key is not counted twice)."""

    class Without(typing.TypedDict):  # Placement without `space`
        card: str
        line: int

    place = _place("marauders", "trophies_input.placements[]")
    required, optional = _keys(Without)
    assert required | optional != set(place["properties"])
    assert _keys(marauders.Draw) == ({"card"}, {"green", "line", "space"})


def test_places_reach_the_forms_of_a_one_of() -> None:
    """`|n` picks a `oneOf` form, and the forms' objects are among the places a TypedDict must describe."""
    assert set(_place("wizards_quest", "orc_phase_input.orc_locations[]|1")["properties"]) == {"castle", "orcs"}
    assert set(_place("wizards_quest", "battle_input|1.battles[].attacker")["properties"]) == {"death_range", "roll"}
    assert {"battle_input|0.battles[]", "orc_phase_input.orc_locations[]|0"} <= set(_closed_objects("wizards_quest"))


def _closed_objects(game: str) -> list[str]:
    """The places of every object with fixed keys nested in a check's input (the inputs themselves are the check
    methods' parameters), in TYPES' notation."""
    schema = _schema(game)
    found: list[str] = []

    def walk(node: dict[str, Any], path: str, top: bool) -> None:
        node = _resolve(schema, node)
        for number, form in enumerate(node.get("oneOf", [])):
            if "properties" in _resolve(schema, form):
                walk(form, f"{path}|{number}", top)
        if "properties" in node:
            if not top:
                found.append(path)
            for key, value in node["properties"].items():
                walk(value, f"{path}.{key}", False)
        elif isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{path}.*", False)
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{path}[]", False)

    for name in schema["$defs"]:
        if name.endswith("_input"):
            walk(schema["$defs"][name], name, True)
    return found


@pytest.mark.parametrize("game", sorted(MODULES))
def test_every_closed_input_object_has_a_typeddict(game: str) -> None:
    """A nested object the schema gives fixed keys has its TypedDict in TYPES: a new one in the schema fails here."""
    tabled = {path for tabled_game, path, _ in TYPES if tabled_game == game}
    assert [path for path in _closed_objects(game) if path not in tabled] == []
