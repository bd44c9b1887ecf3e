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
    assert games == {"citow", "wizards_quest", "marauders"}
    assert len(EXAMPLES) >= 14


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
    assert len(lines) == 15


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
