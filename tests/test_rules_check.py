"""rules_check without a site build: every worked example through the API, the edges of each check, answers
that follow the data, and the catalogue (checks.yaml) equal to the checks each game module registers.
Every answer is validated against its output schema (rules_fixtures.OutputChecked)."""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
from conftest import GAMES, bundled_kb

import rules_check
from rules_check.core import CheckId

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit
KB = bundled_kb()  # loaded once per run (conftest)
EXAMPLES = [e for e in KB.entries.values() if e["kind"] == "example" and "check" in e["example"]]


def test_examples_exist_for_every_game_with_checks():
    games = {CheckId.parse(e["example"]["check"]).game for e in EXAMPLES}
    assert games == set(GAMES)
    assert len(EXAMPLES) >= 26


@pytest.mark.parametrize("entry", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example_through_the_api(rc, entry):
    check = CheckId.parse(entry["example"]["check"])
    result = rc.run(check.game, check.name, entry["example"]["inputs"])
    expected = entry["example"]["expected"]
    assert {k: result.get(k) for k in expected} == expected


def test_help_quotes_and_cites_its_entries(rules_data):
    doc = rules_check.describe("citow", "ruination_scoring", rules_data)
    assert doc.startswith("citow ruination_scoring: victory points a ruined region pays")
    assert "citow/ruination-scoring-ties" in doc
    assert "divided equally (rounding down)" in doc  # the English text of the entry, quoted


@pytest.mark.parametrize("game", GAMES)
def test_registered_checks_equal_the_catalogue(rules_data, game):
    """checks.yaml and the game module list the same checks, and the module finds everything it reads in the data."""
    rules = rules_check.game(game, rules_data)
    assert sorted(rules.check_methods()) == sorted(KB.checks[game])
    assert sorted(rules.data.checks) == sorted(KB.checks[game])


def test_games_come_from_the_data_folder(rules_data, tmp_path):
    assert rules_check.available_games(rules_data) == sorted(GAMES)
    assert rules_check.game("wizards_quest", rules_data) is rules_check.game("wizards-quest", rules_data)
    with pytest.raises(rules_check.DataFileError, match="no rules data for 'citow'"):
        rules_check.game("citow", tmp_path)


# -- Chaos in the Old World: edges ------------------------------------------------------------


def test_battle_hits_too_few_and_too_many(rc):
    with pytest.raises(rc.RulesError, match="too few results"):
        rc.citow.battle_hits(dice=2, results=[6, 4])
    with pytest.raises(rc.RulesError, match="too many results"):
        rc.citow.battle_hits(dice=1, results=[4, 5])
    assert rc.citow.battle_hits(dice=0, results=[]) == {"hits": 0, "explosions": 0, "rolls": 0}


def _probability_by_enumeration(dice: int, hits: int) -> Fraction:
    """Independent formulation: walk roll by roll, tracking dice still to roll and hits so far."""

    @functools.cache
    def at_least(to_roll: int, need: int) -> Fraction:
        if need <= 0:
            return Fraction(1)
        if to_roll == 0:
            return Fraction(0)
        sixth = Fraction(1, 6)
        return 3 * sixth * at_least(to_roll - 1, need) + 2 * sixth * at_least(to_roll - 1, need - 1) + sixth * at_least(to_roll, need - 1)

    return at_least(dice, hits)


@pytest.mark.parametrize("dice,hits", [(0, 0), (0, 1), (1, 1), (1, 2), (3, 2), (5, 4), (10, 12), (30, 15)])
def test_hit_probability_is_exact(rc, dice, hits):
    result = rc.citow.hit_probability(dice=dice, hits=hits)
    assert Fraction(result["exact"]) == _probability_by_enumeration(dice, hits)


def test_dominance_ties_and_tokens(rc):
    tie = rc.citow.dominance(figures={"khorne": {"cultist": 2}, "nurgle": {"warrior": 2}}, region="kislev")
    assert tie["dominant"] is None and tie["vp_gained"] == {"khorne": 0, "nurgle": 0}
    equal = rc.citow.dominance(figures={"khorne": {"cultist": 3}}, region="kislev")
    assert equal["dominant"] is None  # 3 does not exceed resistance 3
    skaven = rc.citow.dominance(figures={"khorne": {"cultist": 3}}, region="kislev", skaven_tokens=1)
    assert skaven["dominant"] == "khorne" and skaven["vp_gained"]["khorne"] == 3
    noble = rc.citow.dominance(figures={"khorne": {"cultist": 4}}, region="kislev", noble_tokens=2)
    assert noble["vp_gained"]["khorne"] == 5
    with pytest.raises(rc.RulesError, match="only for Kislev"):
        rc.citow.dominance(figures={"khorne": {"cultist": 4}}, region="estalia")
    assert rc.citow.dominance(figures={"khorne": {"cultist": 4}}, region="estalia", resistance=2, conquer_value=2)["dominant"] == "khorne"


def test_corruption_threshold_and_later_cards(rc):
    below = rc.citow.corruption(corruption_before={"khorne": 5}, cultists={"nurgle": 5}, warpstone_tokens=1)
    assert below["total_corruption"] == 11 and below["ruined"] is False
    at = rc.citow.corruption(corruption_before={"khorne": 5}, cultists={"nurgle": 6}, warpstone_tokens=1)
    assert at["ruined"] is True and at["ruination_card"] == 1 and at["vp_gained"] == {"khorne": 0, "nurgle": 3}
    later = rc.citow.corruption(corruption_before={"khorne": 12}, cultists={}, regions_already_ruined=2)
    assert later["ruination_card"] == 3 and later["vp_gained"] is None  # card 3's award is not in the sources
    none_left = rc.citow.corruption(corruption_before={"khorne": 12}, cultists={}, regions_already_ruined=5)
    assert none_left["ruined"] is False


def test_ruination_scoring_ties(rc):
    first_tie = rc.citow.ruination_scoring(corruption={"khorne": 5, "nurgle": 5, "tzeentch": 2}, region="estalia")
    assert first_tie["vp_gained"] == {"khorne": 6, "nurgle": 6, "tzeentch": 0}  # (9 + 4) // 2
    second_tie = rc.citow.ruination_scoring(corruption={"khorne": 6, "nurgle": 2, "tzeentch": 2}, region="estalia")
    assert second_tie["vp_gained"] == {"khorne": 9, "nurgle": 2, "tzeentch": 2}
    alone = rc.citow.ruination_scoring(corruption={"slaanesh": 3}, region="empire")
    assert alone["vp_gained"] == {"slaanesh": 10}
    assert alone["clarifications"] == ["citow/clarify-ruination-card-tables"]
    with pytest.raises(rc.RulesError, match="card_values"):
        rc.citow.ruination_scoring(corruption={"slaanesh": 3}, region="empire", ruination_card=2)


def test_dials_extra_tick_only_for_a_unique_maximum(rc):
    tied = rc.citow.advance_dials(advancement_counters={"khorne": 2, "nurgle": 2, "tzeentch": 0})
    assert tied["ticks"] == {"khorne": 1, "nurgle": 1, "tzeentch": 0} and tied["extra_tick"] is None


def test_game_end_order_and_tie_breaks(rc):
    ge = rc.citow.game_end
    assert ge(victory_points={"khorne": 60, "nurgle": 10}, dials_at_victory=["nurgle"])["winners"] == ["nurgle"]
    assert ge(victory_points={"khorne": 30, "nurgle": 30}, dials_at_victory=["khorne", "nurgle"])["winners"] == ["khorne", "nurgle"]
    result = ge(victory_points={"khorne": 55, "nurgle": 55}, threat={"khorne": 3, "nurgle": 5})
    assert result["condition"] == "fifty_victory_points" and result["winners"] == ["nurgle"]
    assert ge(victory_points={"khorne": 20, "nurgle": 25}, ruined_regions=5)["winners"] == ["nurgle"]
    assert ge(victory_points={"khorne": 20}, old_world_deck_empty=True) == {"game_ends": True, "condition": "old_world_deck_exhausted", "winners": []}
    assert ge(victory_points={"khorne": 20})["game_ends"] is False


def test_setup_by_player_count(rc):
    assert rc.citow.setup(players=3)["old_world_cards"] == 8
    assert rc.citow.setup(players=4)["old_world_cards"] == 7
    with pytest.raises(rc.RulesError):
        rc.citow.setup(players=2)


# -- Wizard's Quest and Chaos Marauders: edges -----------------------------------------------


def test_death_range_edges(rc):
    dr = rc.wizards_quest.death_range
    assert dr(side="defender", men=5, terrain="castle")["death_range"] == 6
    assert dr(side="attacker", men=5, terrain="castle")["death_range"] == 4
    assert dr(side="defender", orcs=2, terrain="forest", attacked_across="bridge")["death_range"] == 4  # bridge replaces forest
    assert dr(side="attacker", hero=True)["death_range"] == 1
    assert dr(side="attacker", dragon=True)["death_range"] == 6
    with pytest.raises(rc.RulesError):
        dr(side="attacker")


def test_reinforcements_minimum_and_costs(rc):
    assert rc.wizards_quest.reinforcements(kingdom_locations=2)["men"] == 4
    assert rc.wizards_quest.reinforcements(kingdom_locations=7, heroes=1)["men"] == 5
    with pytest.raises(rc.RulesError):
        rc.wizards_quest.reinforcements(kingdom_locations=1, heroes=2, sorcerers=1)
    assert rc.wizards_quest.two_player_setup()["total_men"] == {1: 20, 2: 20}


def test_marauders_line_validity(rc):
    line = rc.marauders.line
    assert line(spaces=["standard", "orc", "goblin", "troll", "musician"])["completed"] is True
    assert line(spaces=["standard", "orc", "goblin", "musician"])["completed"] is True  # 4 cards complete a line
    assert line(spaces=["standard", "orc", None, "goblin", "musician"])["gaps"] == [2]
    assert line(spaces=["orc", "orc", "musician"])["valid"] is False
    assert line(spaces=["musician", "orc", "goblin", "standard"])["completed"] is False


def test_marauders_four_card_line_names_the_clarification(rc):
    result = rc.marauders.score(lines=[{"completed": True, "cards": 4}])
    assert result["total"] == 40 and result["clarification"] == "marauders/clarify-four-card-line"


# -- Chaos in the Old World: the battle ------------------------------------------------------

STATS = {
    "bloodletter": {"attack": 2, "defense": 1},
    "bloodthirster": {"attack": 4, "defense": 3},
    "plaguebearer": {"attack": 1, "defense": 1},
    "great_unclean_one": {"attack": 3, "defense": 3},
    "leper": {"attack": 0, "defense": 1},
    "daemonette": {"attack": 1, "defense": 1, "only_hit_by_sixes": True},
}


def test_battle_counts_dice_only_without_rolls(rc):
    result = rc.citow.battle(
        figures={"khorne": {"bloodletter": 2}, "nurgle": {"leper": 3}}, stats=STATS, cards=[{"power": "khorne", "card": "blood_frenzy"}]
    )
    assert result["dice"] == {"khorne_blood_frenzy": 2, "khorne": 4, "nurgle": 0}  # Blood Frenzy's 2 dice from the data


def test_battle_empty_region_and_zero_dice(rc):
    result = rc.citow.battle(figures={"tzeentch": {}}, stats={}, dice_rolled={})
    assert result["dice"] == {"tzeentch": 0} and result["killed"] == {"tzeentch": {}} and result["wasted_hits"] == {"tzeentch": 0}


def test_battle_too_few_and_too_many_results(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"leper": 1}}
    with pytest.raises(rc.RulesError, match="khorne: too few results"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [6, 4]})
    with pytest.raises(rc.RulesError, match="khorne: too many results"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [1, 2, 3]})
    with pytest.raises(rc.RulesError, match="no roller named slaanesh"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [1, 2], "slaanesh": [4]})


def test_battle_no_partial_hits_and_no_own_figures(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"great_unclean_one": 1, "leper": 1}}
    with pytest.raises(rc.RulesError, match="cannot kill great_unclean_one"):
        rc.citow.battle(
            figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]}, hit_assignment={"khorne": {"great_unclean_one": 2}}
        )
    with pytest.raises(rc.RulesError, match="his own followers"):
        rc.citow.battle(
            figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]}, hit_assignment={"khorne": {"bloodletter": 1}}
        )
    with pytest.raises(rc.RulesError, match="more hits than"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 1], "nurgle": [1, 1, 1]}, hit_assignment={"khorne": {"leper": 2}})


def test_battle_must_assign_when_a_target_can_be_killed(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"great_unclean_one": 1, "leper": 1}}
    with pytest.raises(rc.RulesError, match="must be assigned"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]}, hit_assignment={})
    with pytest.raises(rc.RulesError, match="Peasant token remains"):
        rc.citow.battle(figures={"khorne": {"bloodletter": 1}}, stats=STATS, peasant_tokens=1, dice_rolled={"khorne": [4, 1]})
    # two hits, one on the Leper; the other cannot reach the Great Unclean One, so it is wasted, not an error
    result = rc.citow.battle(
        figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]}, hit_assignment={"khorne": {"leper": 1}}
    )
    assert result["wasted_hits"]["khorne"] == 1 and result["cannot_target"]["khorne"] == ["great_unclean_one"]


def test_battle_ties_of_knocked_over_figures_still_roll(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"plaguebearer": 1}}
    result = rc.citow.battle(
        figures=figures,
        stats=STATS,
        dice_rolled={"khorne": [4, 1], "nurgle": [5]},
        hit_assignment={"khorne": {"plaguebearer": 1}, "nurgle": {"bloodletter": 1}},
    )
    assert result["killed"] == {"khorne": {"bloodletter": 1}, "nurgle": {"plaguebearer": 1}}  # both die
    assert result["survivors"] == {"khorne": {}, "nurgle": {}}


def test_battle_overkill_and_peasant_limit(rc):
    result = rc.citow.battle(
        figures={"khorne": {"bloodthirster": 1}, "nurgle": {"leper": 1}},
        stats=STATS,
        dice_rolled={"khorne": [4, 5, 6, 1, 2]},
        hit_assignment={"khorne": {"leper": 3}},
    )
    assert result["figures_hit"][0]["over_defense"] == 2 and result["wasted_hits"]["khorne"] == 0
    with pytest.raises(rc.RulesError, match="only 1 in the region"):
        rc.citow.battle(
            figures={"khorne": {"bloodletter": 1}},
            stats=STATS,
            peasant_tokens=1,
            dice_rolled={"khorne": [4, 5]},
            hit_assignment={"khorne": {"peasant_token": 2}},
        )


def test_battle_only_sixes_hit_daemonettes(rc):
    figures = {"khorne": {"bloodletter": 1}, "slaanesh": {"daemonette": 1}}
    with pytest.raises(rc.RulesError, match="only hits from dice that rolled 6"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "slaanesh": [1]}, hit_assignment={"khorne": {"daemonette": 1}})
    ok = rc.citow.battle(
        figures=figures, stats=STATS, dice_rolled={"khorne": [6, 1, 2], "slaanesh": [1]}, hit_assignment={"khorne": {"daemonette": 1}}
    )
    assert ok["killed"]["slaanesh"] == {"daemonette": 1}
    # 4s and 5s that could only go to the Daemonettes are wasted, not an error
    assert rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "slaanesh": [1]})["wasted_hits"]["khorne"] == 2


def test_battle_early_hits_held_and_lost(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"great_unclean_one": 1}}
    cards = [{"power": "khorne", "card": "blood_frenzy"}]
    # 2 early hits held on the Great Unclean One; the Bloodletter's 2 misses never complete them: lost
    result = rc.citow.battle(
        figures=figures,
        stats=STATS,
        cards=cards,
        dice_rolled={"khorne_blood_frenzy": [4, 5], "khorne": [1, 2], "nurgle": [1, 1, 1]},
        hit_assignment={"khorne_blood_frenzy": {"great_unclean_one": 2}},
    )
    assert result["wasted_hits"]["khorne_blood_frenzy"] == 2 and result["killed"]["nurgle"] == {}
    # early hits that kill remove the figure before it rolls
    removed = rc.citow.battle(
        figures=figures,
        stats=STATS,
        cards=cards,
        dice_rolled={"khorne_blood_frenzy": [6, 4, 5], "khorne": [1, 2]},
        hit_assignment={"khorne_blood_frenzy": {"great_unclean_one": 3}},
    )
    assert removed["removed_before_battle"] == {"nurgle": {"great_unclean_one": 1}} and removed["dice"]["nurgle"] == 0
    # another Power cannot finish a figure carrying Nurgle's held start-of-battle hits (different players cannot gang up)
    with pytest.raises(rc.RulesError, match="no great_unclean_one of tzeentch left"):
        rc.citow.battle(
            figures={"khorne": {"bloodthirster": 1}, "nurgle": {"leper": 1}, "tzeentch": {"great_unclean_one": 1}},
            stats=STATS,
            cards=[{"power": "nurgle", "card": "plague_card", "timing": "start_of_battle", "dice": 2}],
            dice_rolled={"nurgle_plague_card": [4, 5], "khorne": [4, 4, 4, 1]},
            hit_assignment={"nurgle_plague_card": {"great_unclean_one": 2}, "khorne": {"great_unclean_one": 3}},
        )


def test_battle_unknown_defense_and_ambiguous_targets(rc):
    stats = {**STATS, "bloodthirster": {"attack": 4, "defense_at_least": 2}}
    with pytest.raises(rc.RulesError, match="give the defense of bloodthirster"):
        rc.citow.battle(
            figures={"khorne": {"bloodthirster": 1}, "nurgle": {"plaguebearer": 2}},
            stats=stats,
            dice_rolled={"khorne": [1, 1, 1, 1], "nurgle": [4, 5]},
            hit_assignment={"nurgle": {}},
        )
    with pytest.raises(rc.RulesError, match="give the defense of bloodthirster to assign"):
        rc.citow.battle(
            figures={"khorne": {"bloodthirster": 1}, "nurgle": {"plaguebearer": 2}},
            stats=stats,
            dice_rolled={"khorne": [1, 1, 1, 1], "nurgle": [4, 5]},
            hit_assignment={"nurgle": {"bloodthirster": 2}},
        )
    with pytest.raises(rc.RulesError, match="give the stats"):
        rc.citow.battle(figures={"khorne": {"skull_cannon": 1}}, stats={})
    both = {"khorne": {"leper": 1}, "nurgle": {"leper": 1}, "tzeentch": {"bloodletter": 1}}
    with pytest.raises(rc.RulesError, match="leper belongs to khorne, nurgle: name the target as one of khorne/leper, nurgle/leper"):
        rc.citow.battle(figures=both, stats=STATS, dice_rolled={"tzeentch": [4, 1]}, hit_assignment={"tzeentch": {"leper": 1}})
    named = rc.citow.battle(
        figures=both, stats=STATS, dice_rolled={"tzeentch": [4, 5]}, hit_assignment={"tzeentch": {"khorne/leper": 1, "nurgle/leper": 1}}
    )
    assert named["killed"] == {"khorne": {"leper": 1}, "nurgle": {"leper": 1}, "tzeentch": {}}


def test_battle_refuses_a_target_named_with_a_power_that_has_no_such_figure_in_the_battle(rc):
    """A target named with its Power (`power/figure`) is there only if that Power has such figures in the battle: a
    Power not in it made a KeyError traceback, and a Power without that figure asked for the figure's defense."""
    figures = {"khorne": {"bloodletter": 2}, "nurgle": {"plaguebearer": 2}}
    for target in ("tzeentch/bloodletter", "nurgle/bloodletter", "nurgle/imp"):
        with pytest.raises(rc.RulesError, match=f"no {target} in this region"):
            rc.citow.battle(
                figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5, 1, 1], "nurgle": [1, 1]}, hit_assignment={"khorne": {target: 1}}
            )
    hit = rc.citow.battle(
        figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5, 1, 1], "nurgle": [1, 1]}, hit_assignment={"khorne": {"nurgle/plaguebearer": 2}}
    )
    assert hit["killed"]["nurgle"] == {"plaguebearer": 2}


def test_battle_last_region_has_no_next(rc):
    assert rc.citow.battle(figures={"khorne": {}}, stats={}, dice_rolled={}, region="badlands")["next_region"] is None
    with pytest.raises(rc.RulesError, match="unknown region"):
        rc.citow.battle(figures={"khorne": {}}, stats={}, dice_rolled={}, region="lustria")


def test_dial_counters_edges(rc):
    dac = rc.citow.dial_advancement_counters
    # one occasion per region and phase, however many kills; peasants are not figures
    result = dac(
        power="khorne",
        events=[
            {"region": "kislev", "phase": "battle", "enemy_figures_killed": 2},
            {"region": "kislev", "phase": "battle", "enemy_figures_killed": 1},
            {"region": "empire", "phase": "battle", "enemy_figures_killed": 0},
        ],
    )
    assert result["counters_by_region"] == {"kislev": 1, "empire": 0} and result["total_counters"] == 1
    assert result["clarifications"] == ["citow/clarify-khorne-threat-condition"]
    assert dac(power="khorne", events=[])["total_counters"] == 0
    # Slaanesh: two tokens without a Noble or Hero token, or one token with it, gain nothing
    events = [
        {"region": "tilea", "phase": "corruption", "corruption_placed": 2, "tokens": ["skaven"]},
        {"region": "empire", "phase": "corruption", "corruption_placed": 1, "tokens": ["noble"]},
    ]
    assert dac(power="slaanesh", events=events)["total_counters"] == 0
    with pytest.raises(rc.RulesError, match="condition_met"):
        dac(power="nurgle", events=[{"region": "tilea", "phase": "corruption"}])
    assert dac(power="tzeentch", events=[{"region": "tilea", "phase": "end", "condition_met": True}])["total_counters"] == 1


# -- BattleLore -----------------------------------------------------------------------------


def test_combat_dice_forest_cap_then_modifiers(rc):
    cd = rc.battlelore.combat_dice
    assert cd(attacker={"dice": 4, "terrain": "forest"}, target={}, attack_type="melee")["dice"] == 2
    assert cd(attacker={"dice": 4}, target={"terrain": "forest"}, attack_type="ranged")["dice"] == 2
    assert cd(attacker={"dice": 1}, target={"terrain": "forest"}, attack_type="melee")["dice"] == 1  # cap is not a floor
    # the cap applies before modifiers: 4 -> 2, then +1 flanking (never more than 1), +3 Fury of Y'llan
    result = cd(
        attacker={"dice": 4}, target={"terrain": "forest"}, attack_type="melee", friendly_flankers_adjacent_to_target=3, lore_cards=["fury_of_yllan"]
    )
    assert result["dice"] == 6 and result["modifiers"] == [{"flanking": 1}, {"fury_of_yllan": 3}]


def test_combat_dice_flying_rage_and_floor(rc):
    cd = rc.battlelore.combat_dice
    assert cd(attacker={"dice": 3}, target={"flying": True}, attack_type="melee")["dice"] == 2
    assert cd(attacker={"dice": 3}, target={"flying": True}, attack_type="ranged")["dice"] == 3
    assert cd(attacker={"dice": 0}, target={"flying": True}, attack_type="melee")["dice"] == 0  # never below 0
    flier = cd(attacker={"dice": 3, "terrain": "forest", "flying": True}, target={"terrain": "forest"}, attack_type="melee")
    assert flier["dice"] == 2 and flier["terrain_cap"] == 2  # its own hex is lifted, the target's forest is not
    assert cd(attacker={"dice": 2, "rage": True, "damage_suffered": 2}, target={}, attack_type="melee")["dice"] == 4
    assert cd(attacker={"dice": 2, "rage": False, "damage_suffered": 2}, target={}, attack_type="melee")["dice"] == 2
    with pytest.raises(rc.RulesError, match="combat dice"):
        cd(attacker={}, target={}, attack_type="melee")


def test_combat_dice_runeblade_ignores_everything(rc):
    result = rc.battlelore.combat_dice(
        attacker={"dice": 5, "terrain": "forest"},
        target={"flying": True},
        attack_type="melee",
        lore_cards=["runeblade", "fury_of_yllan"],
        friendly_flankers_adjacent_to_target=1,
    )
    assert result["dice"] == 4 and result["normal_dice"] == 5  # 5 -> 2 (forest), -1 flying, +1 flanking, +3 fury


def test_retreat_support_stun_and_terrain(rc):
    dr = rc.battlelore.damage_and_retreat
    supported = dr(target={}, results={"morale": 2}, path=[{"terrain": "plains"}, {"unit": "friendly"}])
    assert supported["hexes_retreated"] == 1 and supported["support"] is True and supported["damage_taken"] == 0
    stunned = dr(target={"stunned": True}, results={"morale": 2}, path=[{"terrain": "plains"}])
    assert stunned["hexes_retreated"] == 0 and stunned["damage_taken"] == 2
    stunned_supported = dr(target={"stunned": True}, results={"morale": 2}, path=[{"unit": "friendly"}])
    assert stunned_supported["damage_taken"] == 0 and stunned_supported["support"] is True
    forest = dr(target={}, results={"morale": 3}, path=[{"terrain": "forest"}, {"terrain": "plains"}])
    assert forest["hexes_retreated"] == 1 and forest["damage_taken"] == 2 and forest["retreat_stopped_by"] == "forest"
    edge = dr(target={}, results={"morale": 2}, path=[{"terrain": "off_board"}])
    assert edge["hexes_retreated"] == 0 and edge["damage_taken"] == 2
    enemy = dr(target={}, results={"morale": 1}, path=[{"unit": "enemy"}])
    assert enemy["damage_taken"] == 1
    bridge = dr(target={}, results={"morale": 2}, path=[{"terrain": "bridge"}, {"terrain": "hill"}])
    assert bridge["hexes_retreated"] == 2 and bridge["damage_taken"] == 0
    with pytest.raises(rc.RulesError, match="path lists"):
        dr(target={}, results={"morale": 2}, path=[{"terrain": "plains"}])


def test_retreat_ignored_and_building(rc):
    dr = rc.battlelore.damage_and_retreat
    steady = dr(target={"steady": 1}, results={"morale": 2}, path=[{"terrain": "water"}])
    assert steady["retreats_ignored"] == 1 and steady["damage_taken"] == 1
    assert dr(target={"steady": 3}, results={"morale": 2})["retreats_ignored"] == 2  # no more than required
    # into a building: stops there, ignores 1 of the 2 damage for retreats not carried out
    into = dr(target={}, results={"morale": 3}, path=[{"terrain": "building"}, {"terrain": "plains"}])
    assert into["hexes_retreated"] == 1 and into["damage_ignored"] == 1 and into["damage_taken"] == 1
    # in a building already: 1 damage ignored per combat, not once for the roll and again for the retreat
    inside = dr(target={"terrain": "building"}, results={"strike": 1, "morale": 1}, path=[{"terrain": "water"}])
    assert inside["damage_ignored"] == 1 and inside["damage_taken"] == 1
    assert dr(target={"cumbersome": True}, results={"morale": 1}, path=[{"terrain": "building"}])["damage_taken"] == 1
    assert dr(target={"terrain": "building"}, damage=0)["damage_ignored"] == 0


def test_damage_follows_the_dice_table(rc):
    dr = rc.battlelore.damage_and_retreat
    roll = {"strike": 1, "cleave": 1, "pierce": 1, "lore": 2, "heroic": 1}
    assert dr(target={}, results=roll, attack_type="melee")["damage_dealt"] == 2
    assert dr(target={}, results=roll, attack_type="melee", attacker_weakened=True)["damage_dealt"] == 1
    assert dr(target={}, results=roll, attack_type="ranged")["damage_dealt"] == 1
    spent = dr(target={}, results=roll, spent={"lore": 1}, attack_type="melee")
    assert spent["lore_gained"] == 1
    with pytest.raises(rc.RulesError, match="cannot spend"):
        dr(target={}, results=roll, spent={"morale": 1})
    # a unit destroyed by the damage does not retreat
    dead = dr(target={"health": 1}, results={"strike": 1, "morale": 2}, path=[{"terrain": "plains"}] * 2)
    assert dead["destroyed"] is True and dead["hexes_retreated"] == 0


def test_flying_retreat_passes_units_and_water(rc):
    dr = rc.battlelore.damage_and_retreat
    over = dr(target={"flying": True}, results={"morale": 2}, path=[{"terrain": "water"}, {"unit": "enemy"}, {"terrain": "plains"}])
    assert over["hexes_retreated"] == 1 and over["damage_taken"] == 1  # ends on the water hex; the occupied hex costs 1
    clear = dr(target={"flying": True}, results={"morale": 2}, path=[{"unit": "enemy"}, {"terrain": "forest"}])
    assert clear["hexes_retreated"] == 2 and clear["damage_taken"] == 0  # forest does not stop a flier


def test_victory_moment_and_rout(rc):
    v = rc.battlelore.victory
    assert v(victory_points={"a": 16, "b": 10}, moment="other")["game_ends"] is False  # points only at the first player's turn
    assert v(victory_points={"a": 16, "b": 10}, moment="start_of_first_player_turn")["winner"] == "a"
    assert v(victory_points={"a": 17, "b": 17}, moment="start_of_first_player_turn")["game_ends"] is False  # tie
    assert v(victory_points={"a": 15, "b": 3}, moment="start_of_first_player_turn")["game_ends"] is False
    rout = v(victory_points={"a": 20, "b": 2}, moment="start_of_first_player_turn", units_left={"a": 0, "b": 1})
    assert rout == {"game_ends": True, "winner": "b", "condition": "all_enemy_units_destroyed", "points_checked": False}
    with pytest.raises(rc.RulesError):
        v(victory_points={"a": 1}, moment="other")
    assert rc.battlelore.victory_points(banner_hexes_occupied=[1, 2], command_tents_captured=1)["vp_gained"] == 5
    assert rc.battlelore.victory_points()["vp_gained"] == 0


def test_campaign_edges(rc):
    c = rc.battlelore.campaign
    games = [{"vp": {"a": 10, "b": 16}, "winner": "b"}] * 3 + [{"vp": {"a": 16, "b": 0}, "winner": "a"}]
    result = c(scenarios=games)
    assert result["bonus"] == {"a": 1, "b": 0}  # only the last scenario's winner scores the bonus
    assert result["total"] == {"a": 47, "b": 48} and result["campaign_winner"] == "b" and result["decided_by"] == "total_vp"
    with pytest.raises(rc.RulesError, match="4 scenarios"):
        c(scenarios=games[:3])
    with pytest.raises(rc.RulesError):
        c(scenarios=games[:3] + [{"vp": {"a": 1, "b": 1}, "winner": "c"}])


# -- Chaos in the Old World: ruination card, Old World track, summoning, Hero tokens, dial instructions, conflicts --


def test_corruption_later_cards_report_unknown_award(rc):
    third = rc.citow.corruption(corruption_before={"khorne": 10}, cultists={"nurgle": 2}, regions_already_ruined=2)
    assert third["ruined"] is True and third["ruination_card"] == 3
    assert third["participants"] == ["nurgle"] and third["participants_vp"] is None and third["vp_gained"] is None
    given = rc.citow.corruption(corruption_before={"khorne": 10}, cultists={"nurgle": 2}, regions_already_ruined=2, participants_vp=2)
    assert given["vp_gained"] == {"khorne": 0, "nurgle": 2}
    first = rc.citow.corruption(corruption_before={"khorne": 10}, cultists={"nurgle": 2})
    assert first["participants_vp"] == 3 and first["vp_gained"] == {"khorne": 0, "nurgle": 3}  # card 1's award, from the data


def test_ruination_card_for_edges(rc):
    f = rc.citow.ruination_card_for
    assert f(regions_already_ruined=0) == {"ruination_card": 1, "region_can_be_ruined": True, "ruination_cards_left_after": 4}
    assert f(regions_already_ruined=4)["ruination_card"] == 5
    assert f(regions_already_ruined=5) == {"ruination_card": None, "region_can_be_ruined": False, "ruination_cards_left_after": 0}
    with pytest.raises(rc.RulesError, match="only 5 ruination cards"):
        f(regions_already_ruined=6)


def test_dominance_token_modifiers_scale_and_apply(rc):
    mods = rc.citow.dominance(figures={}, skaven_tokens=2, noble_tokens=0)["token_modifiers"]
    assert mods == {"skaven": {"resistance": -2, "conquer_value": 0}, "noble": {"resistance": 0, "conquer_value": 0}}
    both = rc.citow.dominance(figures={"khorne": {"cultist": 3}}, region="kislev", skaven_tokens=1, noble_tokens=1)
    assert both["resistance"] == 2 and both["conquer_value"] == 4 and both["vp_gained"]["khorne"] == 4


def test_old_world_track_push_discard_and_comet(rc):
    t = rc.citow.old_world_track
    full = t(old_world_track={"space_1": "a", "space_2": "b"}, drawn_card="c")
    assert full["old_world_track_end"] == {"space_1": "c", "space_2": "a"} and full["removed_from_game"] == ["b"]
    assert full["cards_shifted"] == 1 and full["event_tokens_removed"] is False
    empty = t(old_world_track={}, drawn_card="c")
    assert empty["old_world_track_end"] == {"space_1": "c", "space_2": None} and empty["cards_shifted"] == 0
    one = t(old_world_track={"space_1": "a", "space_2": None}, drawn_card="c")
    assert one["old_world_track_end"] == {"space_1": "c", "space_2": "a"} and one["removed_from_game"] == []
    discard = t(old_world_track={"space_1": "a", "space_2": "b"}, drawn_card="c", drawn_card_effects=["discard_instead_of_track"])
    assert discard["old_world_track_end"] == {"space_1": "a", "space_2": "b"} and discard["removed_from_game"] == ["c"]
    comet2 = t(
        old_world_track={"space_1": "a", "space_2": "b"},
        drawn_card="c",
        twin_tailed_comet={"a": False, "b": True},
        drawn_card_effects=["remove_twin_tailed_comet_cards_from_track"],
    )
    assert comet2["removed_from_game"] == ["b"] and comet2["old_world_track_end"] == {"space_1": "c", "space_2": "a"}
    with pytest.raises(rc.RulesError, match="twin-tailed comet"):
        t(old_world_track={"space_1": "a"}, drawn_card="c", drawn_card_effects=["remove_twin_tailed_comet_cards_from_track"])
    with pytest.raises(rc.RulesError, match="2 spaces"):
        t(old_world_track={"space_3": "a"}, drawn_card="c")
    with pytest.raises(rc.RulesError):
        t(old_world_track={"space_1": "a"}, drawn_card="a")


def test_summoning_placement_cost_and_turns(rc):
    s = rc.citow.summoning
    adj = [["kislev", "troll_country"], ["norsca", "troll_country"]]
    unknown = s(power="nurgle", summon={"figure": "plaguebearer", "region": "empire"}, regions_with_own_figures=["kislev"], adjacent=adj)
    assert unknown["placement_legal"] is None and unknown["legal"] is None  # adjacency Kislev-Empire not given
    assert unknown["next_turn"] == "tzeentch" and unknown["power_marker_moves_left"] is None
    first = s(
        power="slaanesh", summon={"figure": "daemonette", "region": "badlands"}, regions_with_own_figures=[], costs={"daemonette": 1}, power_before=1
    )
    assert first["placement_legal"] is True and first["next_turn"] == "khorne" and first["next_own_turn_skipped"] is True
    assert first["cannot_summon_to"] == []  # no followers on the board yet: any region
    poor = s(
        power="khorne",
        summon={"figure": "bloodthirster", "region": "kislev"},
        regions_with_own_figures=["kislev"],
        costs={"bloodthirster": 3, "bloodsworn": 1},
        power_before=2,
    )
    assert poor["affordable"] is False and poor["legal"] is False and poor["cannot_afford"] == ["bloodthirster"] and "power_after" not in poor
    three = s(power="tzeentch", play_card={"card": "x", "region": "kislev"}, players=["khorne", "nurgle", "tzeentch"])
    assert three["next_turn"] == "khorne" and three["card_placed_in"] == "kislev"
    full = s(power="khorne", play_card={"card": "x", "region": "kislev"}, card_spaces_taken={"kislev": 2})
    assert full["placement_legal"] is False and full["cannot_play_in"] == ["kislev"]
    with pytest.raises(rc.RulesError, match="2 card spaces"):
        s(power="khorne", play_card={"card": "x", "region": "kislev"}, card_spaces_taken={"kislev": 3})
    with pytest.raises(rc.RulesError, match="both adjacent and not adjacent"):
        s(
            summon={"figure": "f", "region": "kislev"},
            regions_with_own_figures=["norsca"],
            adjacent=[["norsca", "kislev"]],
            not_adjacent=[["kislev", "norsca"]],
        )
    with pytest.raises(rc.RulesError, match="unknown region"):
        s(summon={"figure": "f", "region": "lustria"}, regions_with_own_figures=[])
    with pytest.raises(rc.RulesError, match="no figure"):
        s(summon={"figure": "f", "region": "kislev", "from": "norsca", "last_in_source": True}, regions_with_own_figures=["kislev"])


def test_summoning_last_figure_keeps_its_region_occupied(rc):
    s = rc.citow.summoning
    adj = [["norsca", "troll_country"]]
    last = s(
        summon={"figure": "f", "region": "troll_country", "from": "norsca", "last_in_source": True},
        regions_with_own_figures=["norsca", "badlands"],
        adjacent=adj,
        not_adjacent=[["badlands", "troll_country"]],
    )
    assert last["placement_legal"] is True and last["source_region_counts_as_occupied"] is True
    assert last["own_followers_in_destination_or_adjacent_after_removal"] is False
    not_last = s(summon={"figure": "f", "region": "troll_country", "from": "norsca"}, regions_with_own_figures=["norsca"], adjacent=adj)
    assert not_last["placement_legal"] is True and "source_region_counts_as_occupied" not in not_last


def test_hero_tokens_order_ties_and_leftovers(rc):
    h = rc.citow.hero_tokens
    more = h(hero_tokens=3, threat={"khorne": 4, "nurgle": 2, "tzeentch": 6}, figures={"khorne": 2, "nurgle": 1, "tzeentch": 0})
    assert more["struck_in_order"] == ["khorne", "khorne", "nurgle"]  # Tzeentch, highest, has no figure there
    assert more["figures_left"] == {"khorne": 0, "nurgle": 0, "tzeentch": 0}
    spare = h(hero_tokens=2, threat={"khorne": 1}, figures={"khorne": 1})
    assert spare["figures_removed"] == {"khorne": 1} and spare["hero_tokens_unused"] == 1
    with pytest.raises(rc.RulesError, match="tie_break"):
        h(hero_tokens=1, threat={"khorne": 3, "nurgle": 3}, figures={"khorne": 1, "nurgle": 1})
    tie = h(hero_tokens=1, threat={"khorne": 3, "nurgle": 3}, figures={"khorne": 1, "nurgle": 1}, tie_break=["nurgle", "khorne"])
    assert tie["figures_removed"] == {"khorne": 0, "nurgle": 1}
    with pytest.raises(rc.RulesError, match="threat of"):
        h(hero_tokens=1, threat={}, figures={"khorne": 1})


def test_dial_instruction_remove_tokens_edges(rc):
    d = rc.citow.dial_instruction_remove_tokens
    assert d(instruction="remove_old_world_tokens", count=2, tokens_on_board=5)["fully_carried_out"] is True
    none = d(instruction="remove_old_world_tokens", count=2, tokens_on_board=0)
    assert none == {"tokens_removed": 0, "tokens_left_on_board": 0, "rest_of_instruction_ignored": 2, "fully_carried_out": False}
    with pytest.raises(rc.InputError):
        rc.run("citow", "dial_instruction_remove_tokens", {"instruction": "remove_heroes", "count": 1, "tokens_on_board": 1})


def test_conflicting_effects_only_when_both_apply(rc):
    c = rc.citow.conflicting_effects
    cry = {"power": "khorne", "card": "Battle Cry", "kind": "forbidding", "action": "place_corruption"}
    stench = {"power": "nurgle", "card": "Stench of Death", "kind": "permitting", "action": "place_corruption", "count": 2, "condition": "dominates"}
    alone = c(region_cards=[stench], dominant="nurgle")
    assert alone["corruption_placed_by_card"] == {"nurgle": 2} and alone["prevailing_effects"] == []
    not_dominant = c(region_cards=[cry, stench], dominant="khorne")
    assert not_dominant["corruption_placed_by_card"] == {"nurgle": 0} and not_dominant["blocked"] == []
    other_action = c(region_cards=[{**cry, "action": "summon"}, stench], dominant="nurgle")
    assert other_action["applied"] == ["Stench of Death"] and other_action["corruption_placed_by_card"] == {"nurgle": 2}
    with pytest.raises(rc.RulesError, match="unknown condition"):
        c(region_cards=[{**stench, "condition": "wins"}])


# -- Chaos Marauders: the attack ------------------------------------------------------------


def _mline(completed, *cards, **extra):
    """A Chaos Marauders line for marauders.attack: cards as (name, frame, rating or None)."""
    return {
        "completed": completed,
        "cards": [{"card": n, "frame": f, **({"attack_rating": r} if r is not None else {})} for n, f, r in cards],
        **extra,
    }


M_ATTACKER = _mline(
    True,
    ("hobgoblin_standard", "grey", None),
    ("orc_boyz", "purple", 4),
    ("pile_of_loot", "blue", None),
    ("hobgoblin_musician", "grey", 1),
    tribe="red",
)
M_DEFENDER = _mline(False, ("snotlings", "grey", None), ("goblins", "purple", 2), ("idol", "blue", None), tribe="blue")


def _attack_output_valid(result):
    rules_check.validate("marauders", "attack", "output", result)
    return True


def test_marauders_attack_numbers_come_from_the_data(rc):
    m = rc.marauders
    assert (
        (m.RATING_MIN, m.RATING_MAX)
        == (1, 10)
        == tuple(KB.entries["marauders/attack-rating"]["params"][k] for k in ("attack_rating_min", "attack_rating_max"))
    )
    assert m.ATTACKS_PER_LINE == KB.entries["marauders/attack-conditions"]["params"]["attacks_per_completed_line"] == 1
    assert m.LINES_TO_END == KB.entries["marauders/end-of-game"]["params"]["completed_lines_to_end"] == 3
    assert m.DISCARDS == {"orc_eye": ["purple"], "mark_of_chaos": ["grey", "purple"]}


def test_marauders_attack_allowed_shows_both_faces(rc):
    result = rc.run("marauders", "attack", {"attacker": M_ATTACKER, "defender": M_DEFENDER})
    assert result["allowed"] is True and result["reasons"] == [] and result["attack_strength"] == {"attacker": 5, "defender": 2}
    assert set(result["outcomes"]) == {"orc_eye", "mark_of_chaos"} and "result" not in result
    assert result["without_attack"] == {"turn_ends": False, "line_may_attack_later": False}
    assert _attack_output_valid(result)


def test_marauders_attack_each_face_of_the_cube(rc):
    eye = rc.marauders.attack(attacker=M_ATTACKER, defender=M_DEFENDER, roll="orc_eye")
    assert (eye["result"], eye["broken_line"], eye["winner"]) == ("success", "defender", "attacker")
    assert eye["discarded"] == ["goblins"] and eye["winner_may_take"] == ["snotlings", "idol"]  # grey taken: text as printed
    assert eye["clarifications"] == ["marauders/clarify-attack-discard-asymmetry", "marauders/clarify-grey-cards"]
    assert eye["turn_ends"] is True and eye["trophy_completed_line_may_attack"] is False
    chaos = rc.marauders.attack(attacker=M_ATTACKER, defender=M_DEFENDER, roll="mark_of_chaos")
    assert (chaos["result"], chaos["broken_line"], chaos["winner"]) == ("failure", "attacker", "defender")
    assert chaos["discarded"] == ["hobgoblin_standard", "orc_boyz", "hobgoblin_musician"] and chaos["winner_may_take"] == ["pile_of_loot"]
    assert "marauders/clarify-grey-cards" in chaos["clarifications"]
    # no grey card in the defender's line: the Orc Eye names only the discard clarification
    plain = rc.marauders.attack(attacker=M_ATTACKER, defender=_mline(False, ("goblins", "purple", 2), ("idol", "blue", None)), roll="orc_eye")
    assert plain["clarifications"] == ["marauders/clarify-attack-discard-asymmetry"]
    # strengths only: the frames discarded, no card lists
    bare = rc.marauders.attack(
        attacker={"completed": True, "attack_strength": 7}, defender={"completed": False, "attack_strength": 3}, roll="mark_of_chaos"
    )
    assert bare["discard_frames"] == ["grey", "purple"] and "discarded" not in bare
    for result in (eye, chaos, plain, bare):
        assert _attack_output_valid(result)


def test_marauders_attack_ties_and_weak_lines(rc):
    attack = rc.marauders.attack
    tie = attack(attacker={"completed": True, "attack_strength": 5}, defender={"completed": False, "attack_strength": 5})
    assert tie["allowed"] is False and [r["code"] for r in tie["reasons"]] == ["not_stronger"] and "outcomes" not in tie
    assert tie["reasons"][0]["rule"] == "marauders/attack-conditions"
    assert attack(attacker={"completed": True, "attack_strength": 6}, defender={"completed": False, "attack_strength": 5})["allowed"] is True
    # nothing but snotlings and booty: strength 0, not even against an empty line
    weak = _mline(True, ("snotlings", "grey", None), ("pile_of_loot", "blue", None), ("idol", "blue", None), ("musician", "grey", None))
    result = attack(attacker=weak, defender=_mline(False))
    assert result["attack_strength"] == {"attacker": 0, "defender": 0} and result["allowed"] is False
    # a roll for an attack that is not allowed is not resolved
    assert "result" not in attack(attacker=weak, defender=_mline(False), roll="orc_eye")


def test_marauders_attack_who_may_attack(rc):
    attack = rc.marauders.attack
    strong, weak = {"completed": True, "attack_strength": 9}, {"completed": False, "attack_strength": 1}

    def codes(attacker, defender=weak):
        return [r["code"] for r in attack(attacker=attacker, defender=defender)["reasons"]]

    assert codes({"completed": False, "attack_strength": 9}) == ["attacker_not_completed"]
    assert codes(strong, {"completed": True, "attack_strength": 1}) == ["defender_completed"]
    assert codes({**strong, "tribe": "red"}, {**weak, "tribe": "red"}) == ["same_tribe"]
    assert codes({**strong, "attacks_made": 1}) == ["already_attacked"]
    assert codes({**strong, "just_completed": False}) == ["not_just_completed"]
    assert codes({**strong, "completed_by_trophy": True}) == ["completed_by_trophy"]
    assert codes({**strong, "completed_lines": 2}) == []
    last = attack(attacker={**strong, "completed_lines": 3}, defender=weak)
    assert [r["code"] for r in last["reasons"]] == ["game_over"] and last["game_over"] is True
    # completed with an end-of-turn card: it may still attack; without attacking the turn ends
    eot = attack(attacker={**strong, "completed_with_end_of_turn_card": True}, defender=weak)
    assert eot["allowed"] is True and eot["without_attack"]["turn_ends"] is True
    for result in (last, eot):
        assert _attack_output_valid(result)


# -- BattleLore: Pursue and Skirmish, several copies, lore for unspent army points -------------


def _bl_output_valid(name, result):
    rules_check.validate("battlelore", name, "output", result)
    return True


def test_battlelore_new_checks_take_their_numbers_from_the_data(rc):
    bl = rc.battlelore
    pursue = KB.entries["battlelore/pursue"]["params"]
    assert (
        (bl.PURSUE_MIN_HEXES, bl.PURSUE_ADDITIONAL_ATTACKS, bl.PURSUITS_PER_TURN)
        == (pursue["min_hexes"], pursue["additional_attacks"], pursue["pursuits_per_turn"])
        == (1, 1, 1)
    )
    forgotten = KB.entries["battlelore/quickref-often-forgotten-rules"]["params"]
    assert (
        (bl.LORE_PER_UNSPENT_POINT, bl.MAX_MUSTER_LORE)
        == (forgotten["lore_per_unspent_army_point"], forgotten["max_lore_for_unspent_army_points"])
        == (1, 5)
    )


def test_battlelore_pursue_paths(rc):
    move = rc.battlelore.ability_move
    ok = move(ability="pursue", x=2, start_hex="a", target_hex="b", path=["b", "c"], target_destroyed_or_retreated=True)
    assert ok["allowed"] is True and ok["hexes_moved"] == 2 and ok["additional_attacks"] == 1
    one = move(ability="pursue", x=2, target_hex="b", path=["b"])
    assert one["allowed"] is True  # 1 hex is enough

    def codes(**kw):
        return [p["code"] for p in move(ability="pursue", x=2, **kw)["problems"]]

    assert codes(target_hex="b", path=[]) == ["path_length"]  # at least 1 hex
    assert codes(target_hex="b", path=["b", "c", "d"]) == ["path_length"]  # at most X
    assert codes(target_hex="b", path=["c", "b"]) == ["target_hex_not_first"]
    assert codes(start_hex="a", target_hex="b", path=["b", "a"]) == ["returns_to_start"]
    assert codes(pursuits_this_turn=1) == ["already_pursued"]
    assert codes(target_destroyed_or_retreated=False) == ["cannot_advance"]
    assert codes(counterattacking=True) == ["counterattacking"]
    bad = move(ability="pursue", x=2, target_hex="b", path=["c", "b", "a", "e"], start_hex="a")
    assert [p["code"] for p in bad["problems"]] == ["path_length", "target_hex_not_first", "returns_to_start"]
    assert bad["problems"][0]["rule"] == "battlelore/pursue" and _bl_output_valid("ability_move", bad)
    with pytest.raises(rc.RulesError, match="target_hex"):
        move(ability="pursue", x=2, path=["b"])
    with pytest.raises(rc.RulesError, match="at least 1"):
        move(ability="pursue", x=0)


def test_battlelore_multiple_copies_limits(rc):
    mc = rc.battlelore.multiple_copies
    per_copy = {"uthuk_yllan": {"chaos_lord": 1, "flesh_rippers": 2}, "daqan_lords": {"roc": 1}}
    three = mc(copies_of_game=3, factions=["uthuk_yllan", "daqan_lords"], position_cards_per_copy=per_copy)
    assert three["max_units"] == {"uthuk_yllan": {"chaos_lord": 3, "flesh_rippers": 6}, "daqan_lords": {"roc": 3}}
    army = mc(
        copies_of_game=2,
        factions=["uthuk_yllan", "daqan_lords"],
        position_cards_per_copy=per_copy,
        army={"uthuk_yllan": {"chaos_lord": 3}, "daqan_lords": {"roc": 2, "spearmen": 1}},
    )
    assert army["army_legal"] is False
    assert army["over_limit"] == [
        {"faction": "uthuk_yllan", "unit": "chaos_lord", "count": 3, "position_cards": 2},
        {"faction": "daqan_lords", "unit": "spearmen", "count": 1, "position_cards": 0},
    ]
    assert _bl_output_valid("multiple_copies", army)
    with pytest.raises(rc.RulesError, match="same faction"):
        mc(copies_of_game=2, factions=["daqan_lords", "daqan_lords"], position_cards_per_copy=per_copy)
    with pytest.raises(rc.RulesError, match="position cards of one copy"):
        mc(copies_of_game=2, factions=["uthuk_yllan", "latari_elves"], position_cards_per_copy=per_copy)
    with pytest.raises(rc.RulesError, match="not one of the two"):
        mc(copies_of_game=2, factions=["uthuk_yllan", "daqan_lords"], position_cards_per_copy=per_copy, army={"latari_elves": {}})


# -- Chaos Marauders: drawing a card ----------------------------------------------------------


def test_marauders_draw_numbers_come_from_the_data(rc):
    m = rc.marauders
    assert m.LINES == KB.entries["marauders/completed-line"]["params"]["lines_per_player"] == 3
    assert m.PER_LINE == {"standard": 1, "musician": 1}
    assert m.SAME_SYMBOL_PER_LINE == 1 and m.MAX_SAME_SYMBOL == 3 and m.EXEMPT_SYMBOLS == ["blightskabb_plague_lords"]


def test_marauders_draw_placements_and_end_of_turn(rc):
    draw = rc.marauders.draw
    empty = [[], [], []]
    plain = draw(drawn="goblins", lines=empty)
    assert plain == {
        "may_place_in": [1, 2, 3],
        "exempt_from_fourth_duplicate": False,
        "discarded": False,
        "turn_ends": False,
        "reason": None,
        "rule": "marauders/end-of-turn-cards",
    }
    second = draw(drawn="standard", lines=[["standard", "x"], [None, "y"], []])
    assert second["may_place_in"] == [2, 3] and second["turn_ends"] is False  # a second Standard goes into another line
    third_copy = draw(drawn="goblins", lines=[["goblins"], ["goblins"], []])
    assert third_copy["may_place_in"] == [3] and third_copy["discarded"] is False
    green = draw(drawn="troll", lines=empty, green=True)
    assert (green["discarded"], green["turn_ends"], green["reason"]) == (False, True, "green_card")
    green_full = draw(drawn="troll", lines=[["troll"], ["troll"], ["troll"]], green=True)
    assert (green_full["discarded"], green_full["reason"]) == (True, "no_line_can_take_it")
    refused = draw(drawn="goblins", lines=empty, will_place=False)
    assert (refused["discarded"], refused["turn_ends"], refused["reason"]) == (True, True, "not_placed")
    plague = draw(drawn="blightskabb_plague_lords", lines=[["blightskabb_plague_lords"]] * 3)
    assert plague["exempt_from_fourth_duplicate"] is True and plague["discarded"] is False
    # placed, but a duplicate all the same: the turn ends (marauders/clarify-placed-duplicate-ends-turn)
    assert plague["turn_ends"] is True and plague["rule"] == "marauders/clarify-placed-duplicate-ends-turn"
    musician = draw(drawn="musician", lines=[["musician"], ["standard", "musician"], ["musician"]])
    assert musician["discarded"] is True and musician["rule"] == "marauders/standards-and-musicians"
    for result in (plain, green, refused, plague, musician):
        rules_check.validate("marauders", "draw", "output", result)


def test_marauders_attack_errors(rc):
    attack = rc.marauders.attack
    with pytest.raises(rc.RulesError, match="ratings run from 1 to 10"):
        attack(attacker=_mline(True, ("giant", "purple", 11)), defender=_mline(False))
    with pytest.raises(rc.RulesError, match="leave it out"):
        attack(attacker=_mline(True, ("snotlings", "grey", 0)), defender=_mline(False))
    with pytest.raises(rc.RulesError, match="not the sum"):
        attack(attacker={**_mline(True, ("orc_boyz", "purple", 4)), "attack_strength": 5}, defender=_mline(False))
    with pytest.raises(rc.RulesError, match="cards or its attack_strength"):
        attack(attacker={"completed": True}, defender=_mline(False))
    with pytest.raises(rc.RulesError, match="1 to 3 completed lines"):
        attack(attacker={"completed": True, "attack_strength": 3, "completed_lines": 4}, defender=_mline(False))
    with pytest.raises(rc.InputError, match="roll"):
        rc.run("marauders", "attack", {"attacker": M_ATTACKER, "defender": M_DEFENDER, "roll": "six"})
    no_frame = {"completed": True, "cards": [{"card": "orc_boyz", "attack_rating": 4}]}
    with pytest.raises(rc.InputError, match="attacker/cards/0"):
        rc.run("marauders", "attack", {"attacker": no_frame, "defender": M_DEFENDER})
    assert rc.run("marauders", "attack", {"attacker": {"completed": True, "attack_strength": 1}, "defender": M_DEFENDER})["allowed"] is False


def test_battlelore_skirmish_moves(rc):
    move = rc.battlelore.ability_move
    stay = move(ability="skirmish", x=2, path=[])
    assert stay["allowed"] is True and stay["min_hexes"] == 0 and stay["additional_attacks"] == 0  # "up to" X: may stay
    assert move(ability="skirmish", x=2, path=["a", "b", "c"])["problems"][0]["code"] == "path_length"
    assert [p["code"] for p in move(ability="skirmish", x=2, unit_ordered=False)["problems"]] == ["not_ordered"]
    late = move(ability="skirmish", x=1, moment="attack_step")
    assert late["allowed"] is False and late["problems"][0]["rule"] == "battlelore/skirmish" and _bl_output_valid("ability_move", late)
    with pytest.raises(rc.InputError, match="ability"):
        rc.run("battlelore", "ability_move", {"ability": "charge", "x": 2})
    with pytest.raises(rc.InputError, match="x"):
        rc.run("battlelore", "ability_move", {"ability": "skirmish"})


def test_battlelore_muster_lore_cap(rc):
    ml = rc.battlelore.muster_lore
    result = ml(unspent_army_points={"a": 0, "b": 5, "c": 6, "d": 40})
    assert result["lore_gained"] == {"a": 0, "b": 5, "c": 5, "d": 5}
    assert result["unspent_points_without_lore"] == {"a": 0, "b": 0, "c": 1, "d": 35} and result["cap"] == 5
    assert _bl_output_valid("muster_lore", result)
    with pytest.raises(rc.InputError, match="unspent_army_points/a"):
        rc.run("battlelore", "muster_lore", {"unspent_army_points": {"a": -1}})


def test_marauders_draw_impossible_tribes(rc):
    draw = rc.marauders.draw
    with pytest.raises(rc.RulesError, match="3 lines"):
        draw(drawn="goblins", lines=[[], []])
    with pytest.raises(rc.RulesError, match="at most 1"):
        draw(drawn="goblins", lines=[["standard", "x", "standard"], [], []])
    with pytest.raises(rc.RulesError, match="more than 3"):
        draw(drawn="orcs", lines=[["goblins", "goblins"], ["goblins"], ["goblins"]])
    with pytest.raises(rc.InputError, match="lines/0/0"):
        rc.run("marauders", "draw", {"drawn": "goblins", "lines": [[1], [], []]})
