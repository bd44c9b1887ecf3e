"""rules_check, generated from the bundled data: every worked example with a check, through the API
and the CLI; the edges of each check; and answers that follow the data."""
from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import REPO, run_generator
from generator.validate import load_valid

KB = load_valid(REPO / "data")
EXAMPLES = [e for e in KB.entries.values() if e["kind"] == "example" and "check" in e["example"]]


@pytest.fixture(scope="module")
def rc(bundled_build: Path):
    """The generated package, imported from the build folder."""
    sys.path.insert(0, str(bundled_build))
    for name in [m for m in sys.modules if m == "rules_check" or m.startswith("rules_check.")]:
        del sys.modules[name]
    module = importlib.import_module("rules_check")
    yield module
    sys.path.remove(str(bundled_build))


def cli(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "rules_check", *args], input=stdin, capture_output=True, text=True,
                          cwd=root, env=env)


def test_examples_exist_for_every_game_with_checks():
    games = {e["example"]["check"].split(".")[0] for e in EXAMPLES}
    assert games == {"citow", "wizards_quest", "marauders", "battlelore"}
    assert len(EXAMPLES) >= 26


@pytest.mark.parametrize("entry", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example_through_the_api(rc, entry):
    game, name = entry["example"]["check"].split(".")
    result = rc.run(game, name, entry["example"]["inputs"])
    expected = entry["example"]["expected"]
    assert {k: result.get(k) for k in expected} == expected


@pytest.mark.parametrize("entry", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example_through_the_cli(bundled_build, entry):
    game, name = entry["example"]["check"].split(".")
    done = cli(bundled_build, game, name, stdin=json.dumps(entry["example"]["inputs"]))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    expected = entry["example"]["expected"]
    assert {k: result.get(k) for k in expected} == expected


def test_list_names_every_check(bundled_build):
    done = cli(bundled_build, "--list")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert any(line.startswith("citow dominance: ") and "citow/dominance-value" in line for line in lines)
    assert len(lines) == 22


def test_docstrings_quote_and_cite_their_entries(rc):
    doc = rc.citow.ruination_scoring.__doc__
    assert "citow/ruination-scoring-ties" in doc
    assert "divided equally (rounding down)" in doc  # the English text of the entry, quoted


def test_invalid_input_names_the_field(bundled_build):
    done = cli(bundled_build, "citow", "battle_hits", stdin='{"dice": "four", "results": [1]}')
    assert done.returncode == 2
    assert "dice" in done.stderr and "is not of type 'integer'" in done.stderr
    done = cli(bundled_build, "citow", "battle_hits", stdin="{not json")
    assert done.returncode == 2 and "not JSON" in done.stderr
    done = cli(bundled_build, "citow", "nothing", stdin="{}")
    assert done.returncode == 2 and "unknown check" in done.stderr


def test_input_from_a_file(bundled_build, tmp_path):
    path = tmp_path / "roll.json"
    path.write_text('{"dice": 2, "results": [6, 1, 4]}', encoding="utf-8")
    done = cli(bundled_build, "citow", "battle_hits", str(path))
    assert json.loads(done.stdout) == {"hits": 2, "explosions": 1, "rolls": 3}


# -- Chaos in the Old World: edges ------------------------------------------------------------

def test_battle_hits_too_few_and_too_many(rc):
    with pytest.raises(rc.RulesError, match="too few results"):
        rc.citow.battle_hits(dice=2, results=[6, 4])
    with pytest.raises(rc.RulesError, match="too many results"):
        rc.citow.battle_hits(dice=1, results=[4, 5])
    assert rc.citow.battle_hits(dice=0, results=[]) == {"hits": 0, "explosions": 0, "rolls": 0}


def _probability_by_enumeration(dice: int, hits: int) -> Fraction:
    """Independent formulation: walk roll by roll, tracking dice still to roll and hits so far."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def at_least(to_roll: int, need: int) -> Fraction:
        if need <= 0:
            return Fraction(1)
        if to_roll == 0:
            return Fraction(0)
        sixth = Fraction(1, 6)
        return (3 * sixth * at_least(to_roll - 1, need) + 2 * sixth * at_least(to_roll - 1, need - 1)
                + sixth * at_least(to_roll, need - 1))
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
    with pytest.raises(rc.RulesError, match="participants_vp"):
        rc.citow.corruption(corruption_before={"khorne": 12}, cultists={}, regions_already_ruined=2)
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


def test_a_number_changed_in_the_data_changes_the_answer(tmp_path: Path):
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    path = next(p for p in (data / "games/marauders/chapters").glob("*.yaml") if "id: marauders/victory-point-table" in p.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    assert text.count("vp: 40") == 1
    path.write_text(text.replace("vp: 40", "vp: 45"), encoding="utf-8")
    result = run_generator("build", "--data", str(data), "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    done = cli(tmp_path, "marauders", "score", stdin=json.dumps({"lines": [{"completed": False, "cards": 1, "scoring_cards": ["pile_of_loot"]}]}))
    assert json.loads(done.stdout)["total"] == 55  # 45 for the Pile of Loot + 10 for the card


# -- Chaos in the Old World: the battle ------------------------------------------------------

STATS = {"bloodletter": {"attack": 2, "defense": 1}, "bloodthirster": {"attack": 4, "defense": 3},
         "plaguebearer": {"attack": 1, "defense": 1}, "great_unclean_one": {"attack": 3, "defense": 3},
         "leper": {"attack": 0, "defense": 1}, "daemonette": {"attack": 1, "defense": 1, "only_hit_by_sixes": True}}


def test_battle_counts_dice_only_without_rolls(rc):
    result = rc.citow.battle(figures={"khorne": {"bloodletter": 2}, "nurgle": {"leper": 3}}, stats=STATS,
                             cards=[{"power": "khorne", "card": "blood_frenzy"}])
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
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]},
                        hit_assignment={"khorne": {"great_unclean_one": 2}})
    with pytest.raises(rc.RulesError, match="his own followers"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]},
                        hit_assignment={"khorne": {"bloodletter": 1}})
    with pytest.raises(rc.RulesError, match="more hits than"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 1], "nurgle": [1, 1, 1]},
                        hit_assignment={"khorne": {"leper": 2}})


def test_battle_must_assign_when_a_target_can_be_killed(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"great_unclean_one": 1, "leper": 1}}
    with pytest.raises(rc.RulesError, match="must be assigned"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]}, hit_assignment={})
    with pytest.raises(rc.RulesError, match="Peasant token remains"):
        rc.citow.battle(figures={"khorne": {"bloodletter": 1}}, stats=STATS, peasant_tokens=1, dice_rolled={"khorne": [4, 1]})
    # two hits, one on the Leper; the other cannot reach the Great Unclean One, so it is wasted, not an error
    result = rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "nurgle": [1, 1, 1]},
                             hit_assignment={"khorne": {"leper": 1}})
    assert result["wasted_hits"]["khorne"] == 1 and result["cannot_target"]["khorne"] == ["great_unclean_one"]


def test_battle_ties_of_knocked_over_figures_still_roll(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"plaguebearer": 1}}
    result = rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 1], "nurgle": [5]},
                             hit_assignment={"khorne": {"plaguebearer": 1}, "nurgle": {"bloodletter": 1}})
    assert result["killed"] == {"khorne": {"bloodletter": 1}, "nurgle": {"plaguebearer": 1}}  # both die
    assert result["survivors"] == {"khorne": {}, "nurgle": {}}


def test_battle_overkill_and_peasant_limit(rc):
    result = rc.citow.battle(figures={"khorne": {"bloodthirster": 1}, "nurgle": {"leper": 1}}, stats=STATS,
                             dice_rolled={"khorne": [4, 5, 6, 1, 2]}, hit_assignment={"khorne": {"leper": 3}})
    assert result["figures_hit"][0]["over_defense"] == 2 and result["wasted_hits"]["khorne"] == 0
    with pytest.raises(rc.RulesError, match="only 1 in the region"):
        rc.citow.battle(figures={"khorne": {"bloodletter": 1}}, stats=STATS, peasant_tokens=1,
                        dice_rolled={"khorne": [4, 5]}, hit_assignment={"khorne": {"peasant_token": 2}})


def test_battle_only_sixes_hit_daemonettes(rc):
    figures = {"khorne": {"bloodletter": 1}, "slaanesh": {"daemonette": 1}}
    with pytest.raises(rc.RulesError, match="only hits from dice that rolled 6"):
        rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "slaanesh": [1]},
                        hit_assignment={"khorne": {"daemonette": 1}})
    ok = rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [6, 1, 2], "slaanesh": [1]},
                         hit_assignment={"khorne": {"daemonette": 1}})
    assert ok["killed"]["slaanesh"] == {"daemonette": 1}
    # 4s and 5s that could only go to the Daemonettes are wasted, not an error
    assert rc.citow.battle(figures=figures, stats=STATS, dice_rolled={"khorne": [4, 5], "slaanesh": [1]})["wasted_hits"]["khorne"] == 2


def test_battle_early_hits_held_and_lost(rc):
    figures = {"khorne": {"bloodletter": 1}, "nurgle": {"great_unclean_one": 1}}
    cards = [{"power": "khorne", "card": "blood_frenzy"}]
    # 2 early hits held on the Great Unclean One; the Bloodletter's 2 misses never complete them: lost
    result = rc.citow.battle(figures=figures, stats=STATS, cards=cards,
                             dice_rolled={"khorne_blood_frenzy": [4, 5], "khorne": [1, 2], "nurgle": [1, 1, 1]},
                             hit_assignment={"khorne_blood_frenzy": {"great_unclean_one": 2}})
    assert result["wasted_hits"]["khorne_blood_frenzy"] == 2 and result["killed"]["nurgle"] == {}
    # early hits that kill remove the figure before it rolls
    removed = rc.citow.battle(figures=figures, stats=STATS, cards=cards,
                              dice_rolled={"khorne_blood_frenzy": [6, 4, 5], "khorne": [1, 2]},
                              hit_assignment={"khorne_blood_frenzy": {"great_unclean_one": 3}})
    assert removed["removed_before_battle"] == {"nurgle": {"great_unclean_one": 1}} and removed["dice"]["nurgle"] == 0
    # another Power cannot finish a figure carrying Nurgle's held start-of-battle hits (different players cannot gang up)
    with pytest.raises(rc.RulesError, match="no great_unclean_one of tzeentch left"):
        rc.citow.battle(figures={"khorne": {"bloodthirster": 1}, "nurgle": {"leper": 1}, "tzeentch": {"great_unclean_one": 1}},
                        stats=STATS, cards=[{"power": "nurgle", "card": "plague_card", "timing": "start_of_battle", "dice": 2}],
                        dice_rolled={"nurgle_plague_card": [4, 5], "khorne": [4, 4, 4, 1]},
                        hit_assignment={"nurgle_plague_card": {"great_unclean_one": 2}, "khorne": {"great_unclean_one": 3}})


def test_battle_unknown_defense_and_ambiguous_targets(rc):
    stats = {**STATS, "bloodthirster": {"attack": 4, "defense_at_least": 2}}
    with pytest.raises(rc.RulesError, match="give the defense of bloodthirster"):
        rc.citow.battle(figures={"khorne": {"bloodthirster": 1}, "nurgle": {"plaguebearer": 2}}, stats=stats,
                        dice_rolled={"khorne": [1, 1, 1, 1], "nurgle": [4, 5]}, hit_assignment={"nurgle": {}})
    with pytest.raises(rc.RulesError, match="give the defense of bloodthirster to assign"):
        rc.citow.battle(figures={"khorne": {"bloodthirster": 1}, "nurgle": {"plaguebearer": 2}}, stats=stats,
                        dice_rolled={"khorne": [1, 1, 1, 1], "nurgle": [4, 5]}, hit_assignment={"nurgle": {"bloodthirster": 2}})
    with pytest.raises(rc.RulesError, match="give the stats"):
        rc.citow.battle(figures={"khorne": {"skull_cannon": 1}}, stats={})
    both = {"khorne": {"leper": 1}, "nurgle": {"leper": 1}, "tzeentch": {"bloodletter": 1}}
    with pytest.raises(rc.RulesError, match="name the target as power/leper"):
        rc.citow.battle(figures=both, stats=STATS, dice_rolled={"tzeentch": [4, 1]}, hit_assignment={"tzeentch": {"leper": 1}})
    named = rc.citow.battle(figures=both, stats=STATS, dice_rolled={"tzeentch": [4, 5]},
                            hit_assignment={"tzeentch": {"khorne/leper": 1, "nurgle/leper": 1}})
    assert named["killed"] == {"khorne": {"leper": 1}, "nurgle": {"leper": 1}, "tzeentch": {}}


def test_battle_last_region_has_no_next(rc):
    assert rc.citow.battle(figures={"khorne": {}}, stats={}, dice_rolled={}, region="badlands")["next_region"] is None
    with pytest.raises(rc.RulesError, match="unknown region"):
        rc.citow.battle(figures={"khorne": {}}, stats={}, dice_rolled={}, region="lustria")


def test_dial_counters_edges(rc):
    dac = rc.citow.dial_advancement_counters
    # one occasion per region and phase, however many kills; peasants are not figures
    result = dac(power="khorne", events=[{"region": "kislev", "phase": "battle", "enemy_figures_killed": 2},
                                         {"region": "kislev", "phase": "battle", "enemy_figures_killed": 1},
                                         {"region": "empire", "phase": "battle", "enemy_figures_killed": 0}])
    assert result["counters_by_region"] == {"kislev": 1, "empire": 0} and result["total_counters"] == 1
    assert result["clarifications"] == ["citow/clarify-khorne-threat-condition"]
    assert dac(power="khorne", events=[])["total_counters"] == 0
    # Slaanesh: two tokens without a Noble or Hero token, or one token with it, gain nothing
    assert dac(power="slaanesh", events=[{"region": "tilea", "phase": "corruption", "corruption_placed": 2, "tokens": ["skaven"]},
                                         {"region": "empire", "phase": "corruption", "corruption_placed": 1, "tokens": ["noble"]}])["total_counters"] == 0
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
    result = cd(attacker={"dice": 4}, target={"terrain": "forest"}, attack_type="melee",
                friendly_flankers_adjacent_to_target=3, lore_cards=["fury_of_yllan"])
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
    result = rc.battlelore.combat_dice(attacker={"dice": 5, "terrain": "forest"}, target={"flying": True}, attack_type="melee",
                                       lore_cards=["runeblade", "fury_of_yllan"], friendly_flankers_adjacent_to_target=1)
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
