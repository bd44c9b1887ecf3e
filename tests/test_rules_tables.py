"""The checks behind the answer tables (issue 15, point 3) against values derived here independently: BattleLore's
odds by enumerating every roll of the die's faces, Wizard's Quest's by counting the rolls of one die."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from conftest import bundled_kb

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit
KB = bundled_kb()  # loaded once per run (conftest)
FACES = [row["face"] for row in KB.entries["battlelore/quickref-dice-results"]["table"]["rows"]]
# which results deal 1 damage, as the quick reference words them: strike for a melee unit, cleave for a
# non-weakened melee unit, pierce for a ranged unit
HITTING = {("melee", False): {"strike", "cleave"}, ("melee", True): {"strike"}, ("ranged", False): {"pierce"}, ("ranged", True): {"pierce"}}
FOREST_DICE, BUILDING_IGNORES = 2, 1  # battlelore/forest, battlelore/building


def exact(answer: dict, name: str) -> Fraction:
    value = Fraction(answer[f"{name}_exact"])
    assert answer[name] == pytest.approx(float(value))
    return value


# -- BattleLore --------------------------------------------------------------------------------


def test_every_face_is_one_side_of_six(rc):
    assert FACES == ["strike", "cleave", "pierce", "morale", "lore", "heroic"]
    chances = {face: rc.battlelore.face_probability(face=face) for face in FACES}
    assert {face: (a["exact"], a["sides"]) for face, a in chances.items()} == {face: ("1/6", 6) for face in FACES}
    assert sum(Fraction(a["exact"]) for a in chances.values()) == 1
    assert chances["pierce"]["probability"] == pytest.approx(1 / 6)


def enumerated(dice: int, hitting: set[str], ignored: int) -> dict[str, Fraction]:
    """Every roll of `dice` dice, each face on one side: the hits, at least one hit, the damage left after `ignored`."""
    rolls = list(itertools.product(FACES, repeat=dice))
    hits = [sum(face in hitting for face in roll) for roll in rolls]
    return {
        "expected_hits": Fraction(sum(hits), len(rolls)),
        "at_least_one_hit": Fraction(sum(h > 0 for h in hits), len(rolls)),
        "expected_damage": Fraction(sum(max(h - ignored, 0) for h in hits), len(rolls)),
    }


@pytest.mark.parametrize("terrain", ["plains", "forest", "hill", "building", "ford"])
@pytest.mark.parametrize(("attack_type", "weakened"), list(HITTING))
def test_expected_hits_equal_every_roll_enumerated(rc, terrain, attack_type, weakened):
    for card in range(5):
        answer = rc.battlelore.expected_hits(
            attacker={"dice": card}, target={"terrain": terrain}, attack_type=attack_type, attacker_weakened=weakened
        )
        dice = min(card, FOREST_DICE) if terrain == "forest" else card
        assert answer["dice"] == dice
        assert set(answer["hit_faces"]) == HITTING[attack_type, weakened]
        expected = enumerated(dice, HITTING[attack_type, weakened], BUILDING_IGNORES if terrain == "building" else 0)
        assert {name: exact(answer, name) for name in expected} == expected, (terrain, attack_type, weakened, card)


def test_expected_hits_worked_values(rc):
    """Three dice of melee: 1 hit on average, 1 - (4/6)^3 = 19/27 at least one; a weakened unit's 4 dice against a
    building: E[max(H - 1, 0)] = E[H] - 1 + P(H = 0) = 2/3 - 1 + 625/1296 = 193/1296."""
    melee = rc.battlelore.expected_hits(attacker={"dice": 3}, target={"terrain": "plains"}, attack_type="melee")
    assert (melee["expected_hits_exact"], melee["at_least_one_hit_exact"]) == ("1/1", "19/27")
    weak = rc.battlelore.expected_hits(attacker={"dice": 4}, target={"terrain": "building"}, attack_type="melee", attacker_weakened=True)
    assert (weak["expected_hits_exact"], weak["expected_damage_exact"]) == ("2/3", "193/1296")


def test_expected_hits_follow_the_dice_rules(rc):
    """Melee against a Flying unit loses a die; a Flying attacker in a forest lifts its own limit; no unit stands in
    water unless it flies."""
    flying = rc.battlelore.expected_hits(attacker={"dice": 3}, target={"flying": True}, attack_type="melee")
    assert (flying["dice"], flying["expected_hits_exact"]) == (2, "2/3")
    lifted = rc.battlelore.expected_hits(attacker={"dice": 4, "terrain": "forest", "flying": True}, target={}, attack_type="ranged")
    assert (lifted["dice"], lifted["terrain_cap"], lifted["expected_hits_exact"]) == (4, None, "2/3")
    with pytest.raises(rc.RulesError, match="impassable"):
        rc.battlelore.expected_hits(attacker={"dice": 3}, target={"terrain": "water"}, attack_type="ranged")
    assert rc.battlelore.expected_hits(attacker={"dice": 3}, target={"terrain": "water", "flying": True}, attack_type="ranged")["dice"] == 3
    with pytest.raises(rc.InputError, match="face"):
        rc.run("battlelore", "face_probability", {"face": "sword"})


# -- Wizard's Quest ----------------------------------------------------------------------------


@pytest.mark.parametrize("death_range", range(9))
def test_hit_probability_counts_the_rolls_of_one_die(rc, death_range):
    answer = rc.wizards_quest.hit_probability(death_range=death_range)
    within = [roll for roll in range(1, 7) if roll <= death_range]
    assert answer["hit_rolls"] == within
    assert Fraction(answer["exact"]) == Fraction(len(within), 6)
    assert answer["probability"] == pytest.approx(len(within) / 6)
    assert exact(answer, "expected_losses") == Fraction(sum(within), 6)
    assert answer["clarification"] == "wizards-quest/clarify-battle-resolution"


def test_hit_probability_fits_the_printed_battle_tables(rc):
    """Every row of both sample tables: the roll is among the hits exactly when the table shows losses."""
    for table in ("wizards-quest/attack-battle-table", "wizards-quest/defence-battle-table"):
        for row in KB.entries[table]["table"]["rows"]:
            hits = rc.wizards_quest.hit_probability(death_range=row["death_range"])["hit_rolls"]
            assert (row["roll"] in hits) == (row["losses"] > 0), (table, row)


def test_hit_probability_takes_every_death_range_a_force_reaches(rc):
    """The input's maximum is the largest death range the death_range check gives any force."""
    import rules_check

    largest = max(
        rc.wizards_quest.death_range(
            side="defender", men=men, hero=leader == "hero", sorcerer=leader == "sorcerer", terrain=terrain, attacked_across=across
        )["death_range"]
        for men in range(0, 7)
        for leader in ("hero", "sorcerer")
        for terrain in ("castle", "forest", None)
        for across in ("bridge", "great_tunnel", None)
    )
    maximum = rules_check.core.schema("wizards-quest")["$defs"]["hit_probability_input"]["properties"]["death_range"]["maximum"]
    assert largest == maximum == 8
    with pytest.raises(rc.InputError, match="death_range"):
        rc.run("wizards-quest", "hit_probability", {"death_range": maximum + 1})
