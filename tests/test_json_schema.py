"""One walk along a rules_check input schema (issues 31, 32): what validate accepts as an answer table's axis
is what render builds, through a `$ref` and a list's item alike (the second game of test_extension builds one)."""

from __future__ import annotations

import pytest

from generator.base.answer_cells import axis_values
from generator.base.json_schema import check_schemas, field_schema, whole_numbers
from generator.validate.validate_calculators import _axis_slips

pytestmark = pytest.mark.unit


def test_an_input_path_steps_into_a_ref_and_into_a_lists_items():
    schemas = check_schemas("marauders")
    assert schemas is not None and check_schemas("no-such-game") is None
    attack, score = schemas["attack_input"], schemas["score_input"]
    assert field_schema(attack, "attacker.attack_strength") == schemas["attack_attacker"]["properties"]["attack_strength"]  # a $ref
    assert field_schema(attack, "attacker.cards.0.frame")["enum"][0] == "purple"  # a $ref, a list's item, a $ref
    assert field_schema(score, "lines.0.cards")["maximum"] == 12
    assert field_schema(score, "lines.cards") is None and field_schema(score, "lines.0.nonesuch") is None
    assert field_schema(score, "lines.0.cards.0") is None  # a number has no items


@pytest.mark.parametrize(
    ("axis", "values"),
    [
        ({"input": "attacker.attack_strength", "from": 1, "to": 3}, [1, 2, 3]),
        ({"input": "attacker.cards.0.frame", "values": ["red", "green"]}, ["red", "green"]),
    ],
)
def test_validate_accepts_what_render_builds(axis, values):
    assert _axis_slips("rows", axis, check_schemas("marauders")["attack_input"]) == []
    assert axis_values("marauders", "attack", axis) == values


def test_the_whole_numbers_of_a_field():
    field = {"type": "integer", "minimum": 1, "maximum": 6}
    assert whole_numbers(field) == (1, 6)
    assert whole_numbers(field, 0, 4) == (1, 4)
    assert whole_numbers({"type": "integer"}, high=5) == (0, 5)  # `to` bounds a field without a maximum
    assert whole_numbers({"type": "integer"}) == (0, None)  # nothing does: validate asks for `to`
