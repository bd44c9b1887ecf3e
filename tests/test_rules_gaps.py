"""rules_check: the rule gaps of issue 13, each with the condition the entry states and the check once missed.
Every answer is validated against its output schema (rules_fixtures.OutputChecked)."""

from __future__ import annotations

import pytest

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit


# -- Chaos Marauders: placement (marauders/card-placement, source line 125) --------------------


@pytest.mark.parametrize(
    "spaces,problem",
    [
        (["orc", "standard", "goblin", "troll", "musician"], "left of the Standard"),
        (["standard", "goblin", "troll", "musician", "orc"], "right of the Musician"),
        (["musician", None, "standard"], "right of the Musician"),
        ([None, "orc", None, "standard"], "left of the Standard"),
    ],
)
def test_marauders_line_refuses_cards_beyond_the_ends(rc, spaces, problem):
    result = rc.marauders.line(spaces=spaces)
    assert result["valid"] is False and result["completed"] is False
    assert any(problem in p and "marauders/card-placement" in p for p in result["problems"])


def test_marauders_line_cards_between_the_ends_stay_valid(rc):
    assert rc.marauders.line(spaces=[None, "standard", "orc", None, "troll"])["valid"] is True
    assert rc.marauders.line(spaces=["orc", None, "musician", None])["valid"] is True


# -- Chaos Marauders: a placed duplicate ends the turn (lines 137-139, 267) ---------------------


def test_marauders_placed_duplicate_ends_the_turn(rc):
    result = rc.marauders.draw(drawn="goblins", lines=[["goblins"], [], []])
    assert result["may_place_in"] == [2, 3] and result["discarded"] is False
    assert result["turn_ends"] is True and result["reason"] == "duplicate_placed"
    assert result["rule"] == "marauders/clarify-placed-duplicate-ends-turn"


def test_marauders_second_standard_is_no_duplicate(rc):
    """Standards and Musicians have their own rule (129-133): a second one goes to another line, the turn goes on."""
    result = rc.marauders.draw(drawn="standard", lines=[["standard"], [], []])
    assert result["turn_ends"] is False and result["may_place_in"] == [2, 3]


# -- Wizard's Quest: a Battle takes both sides' rolls (004 line 95, wizards-quest/clarify-battle-resolution) --


def test_wizards_quest_both_fail_costs_the_attacker_one(rc):
    result = rc.run(
        "wizards-quest",
        "battle",
        {
            "battles": [
                {"attacker": {"death_range": 3, "roll": 5}, "defender": {"death_range": 2, "roll": 6}},
                {"attacker": {"death_range": 4, "roll": 2}, "defender": {"death_range": 4, "roll": 3}},
                {"attacker": {"death_range": 4, "roll": 6}, "defender": {"death_range": 1, "roll": 1}},
            ]
        },
    )
    assert result["defender_losses"] == [0, 2, 0]
    assert result["attacker_losses"] == [1, 3, 1]
    assert result["both_failed"] == [True, False, False]
    assert result["both_fail_rule"] == "wizards-quest/orc-rampage-aftermath"
    assert rc.wizards_quest.BOTH_FAIL_LOSS == 1


def test_wizards_quest_battle_one_side_form_still_reads_the_tables(rc):
    assert rc.run("wizards-quest", "battle", {"side": "attacker", "battles": [{"death_range": 4, "roll": 5}]}) == {
        "defender_losses": [0],
        "clarification": "wizards-quest/clarify-battle-resolution",
    }


def test_wizards_quest_battle_refuses_mixed_forms(rc):
    with pytest.raises(rc.InputError):
        rc.run(
            "wizards-quest",
            "battle",
            {"side": "attacker", "battles": [{"attacker": {"death_range": 4, "roll": 5}, "defender": {"death_range": 4, "roll": 5}}]},
        )


# -- Wizard's Quest: occupancy (004 lines 34, 56; wizards-quest/occupancy-rules) ----------------


@pytest.mark.parametrize(
    "force,message",
    [
        ({"men": 3, "hero": True, "sorcerer": True}, "Hero and a Sorcerer may not occupy the same space"),
        ({"hero": True, "sorcerer": True}, "Hero and a Sorcerer may not occupy the same space"),
        ({"orcs": 9}, "only 4 orcs may occupy one space, not 9"),
        ({"orcs": 5}, "only 4 orcs may occupy one space, not 5"),
        ({"orcs": 2, "hero": True}, "never shares a space with orcs"),
    ],
)
def test_wizards_quest_death_range_refuses_impossible_spaces(rc, force, message):
    with pytest.raises(rc.RulesError, match=message) as refused:
        rc.run("wizards-quest", "death_range", {"side": "defender", **force})
    assert "wizards-quest/occupancy-rules" in str(refused.value)


def test_wizards_quest_four_orcs_and_lone_pieces(rc):
    assert rc.run("wizards-quest", "death_range", {"side": "defender", "orcs": 4})["death_range"] == 4
    lone = rc.run("wizards-quest", "death_range", {"side": "attacker", "sorcerer": True})
    assert lone == {"death_range": 2, "sorcerer_part": 2}
    assert rc.run("wizards-quest", "death_range", {"side": "attacker", "hero": True}) == {"death_range": 1, "hero_part": 1}


def test_battlelore_spending_none_of_a_face_not_rolled(rc):
    """Found by the fuzz test: `spent: {"strike": 0}` with no strike rolled ended in a KeyError traceback."""
    result = rc.run("battlelore", "damage_and_retreat", {"target": {}, "spent": {"strike": 0}})
    assert result["damage_dealt"] == 0 and result["retreats_required"] == 0


def test_citow_game_end_without_powers_is_refused(rc):
    """Found by the fuzz test: no victory points and five ruined regions ended in `max() arg is an empty sequence`."""
    with pytest.raises(rc.InputError) as refused:
        rc.run("citow", "game_end", {"victory_points": {}, "ruined_regions": 5})
    assert refused.value.field == "victory_points"
