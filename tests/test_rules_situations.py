"""rules_check: whole situations (issue 13), each check citing its entries; the worked examples run through the API
and the CLI in test_rules_check.py / test_rules_cli.py. Every answer is validated against its output schema."""

from __future__ import annotations

import pytest

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit


# -- Wizard's Quest: a whole Attack, and who may attack whom -----------------------------------


def _wq_attack(rc, attacker, defender, battles, **more):
    return rc.run("wizards-quest", "attack", {"attacker": attacker, "defender": defender, "battles": battles, **more})


def _kingdoms(rc, places: str, joined: str, **extra) -> dict:
    """kingdoms on locations written "c1* t1 t2" (* a castle) and adjacent pairs "c1-t1 t1-t2"."""
    locations = [{"location": name.rstrip("*"), "castle": name.endswith("*")} for name in places.split()]
    connections = [dict(zip(("between", "to"), pair.split("-"), strict=True)) for pair in joined.split()]
    return rc.run("wizards-quest", "kingdoms", {"locations": locations, "connections": connections, **extra})


def test_wq_a_kingdom_is_a_castle_or_joined_locations_holding_one_each_counted_once(rc):
    lone = _kingdoms(rc, "c1* t1", "")
    assert (lone["kingdom_count"], lone["kingdom_locations"], lone["outside_kingdoms"]) == (1, 1, ["t1"])
    assert lone["reinforcements"]["men"] == 4  # at least 4 (wizards-quest/reinforcement)
    two_castles = _kingdoms(rc, "c1* t1 t2 c2* t3 t4 t5 t6", "c1-t1 t1-t2 t2-c2 c2-t3 t3-t4 t4-t5 t6-t6")
    assert two_castles["kingdoms"] == [{"locations": ["c1", "t1", "t2", "c2", "t3", "t4", "t5"], "castles": 2}]
    assert (two_castles["kingdom_locations"], two_castles["reinforcements"]["men"], two_castles["outside_kingdoms"]) == (7, 7, ["t6"])
    apart = _kingdoms(rc, "c1* t1 c2* t2", "c1-t1 c2-t2", heroes=1, sorcerers=1)
    assert (apart["kingdom_count"], apart["kingdom_locations"]) == (2, 4)
    assert apart["reinforcements"] == {"men": 0, "heroes": 1, "sorcerers": 1, "total_men_value": 4}


def test_wq_kingdoms_refuse_a_location_twice_and_a_pair_naming_another_location(rc):
    with pytest.raises(rc.RulesError, match=r"^c1 is given twice: .* \(wizards-quest/kingdom\)$"):
        _kingdoms(rc, "c1* c1", "")
    with pytest.raises(rc.RulesError, match=r"^a connection names t9, which is not one of the player's locations"):
        _kingdoms(rc, "c1* t1", "c1-t9")


def test_wq_joining_two_locations_never_lowers_what_the_kingdoms_count(rc):
    import random

    chance = random.Random(7)
    for _ in range(60):
        names = [f"l{i}" + ("*" if chance.random() < 0.2 else "") for i in range(chance.randint(1, 12))]
        plain = [name.rstrip("*") for name in names]
        pairs = [f"{chance.choice(plain)}-{chance.choice(plain)}" for _ in range(chance.randint(0, 10))]
        before = _kingdoms(rc, " ".join(names), " ".join(pairs))
        after = _kingdoms(rc, " ".join(names), " ".join([*pairs, f"{chance.choice(plain)}-{chance.choice(plain)}"]))
        assert after["kingdom_locations"] >= before["kingdom_locations"]
        assert before["kingdom_locations"] + len(before["outside_kingdoms"]) == len(names)


def _rampage(rc, neighbours: list[dict], rolls: str, orcs: int = 4) -> dict:
    """orc_rampage from r0 with rolls written "21 56" (the orcs' die, then the defender's)."""
    battles = [{"orcs_roll": int(pair[0]), "defender_roll": int(pair[1])} for pair in rolls.split()]
    return rc.run("wizards-quest", "orc_rampage", {"rampaging_location": "r0", "orcs": orcs, "neighbours": neighbours, "rolls": battles})


def test_wq_rampage_stops_at_1_orc_and_no_orc_moves_out_of_the_last(rc):
    result = _rampage(rc, [{"location": "a", "men": 2}, {"location": "b", "orcs": 2}, {"location": "c", "men": 1, "terrain": "castle"}], "26 54 11")
    assert result["targets_attacked"] == ["a", "c", "c"]  # b is the orcs' own; a, emptied, took 1 orc: no target in circle 2
    assert [attack["circle"] for attack in result["attacks"]] == [1, 1, 2]
    assert [attack["death_range"] for attack in result["attacks"]] == [
        {"attacker": 4, "defender": 2},
        {"attacker": 3, "defender": 3},  # 1 man, +2 in a castle
        {"attacker": 2, "defender": 3},
    ]
    assert result["attacks"][1]["both_failed"] and result["attacks"][1]["attacker_losses"] == 1  # both fail: the attacker loses 1
    assert [attack["orc_moved_in"] for attack in result["attacks"]] == [True, False, False]  # c emptied, but 1 orc cannot leave
    assert (result["ended"], result["orcs_left"], result["orcs_moved_to"], result["next_target"]) == ("one_orc_or_none_left", 1, ["a"], None)
    assert result["neighbours_after"][2] == {"location": "c", "men": 0, "orcs": 0, "hero": False, "sorcerer": False}
    with pytest.raises(rc.RulesError, match=r"^roll 4: the rampage is over \(1 orc\(s\) left in the rampaging location\)"):
        _rampage(rc, [{"location": "a", "men": 2}, {"location": "b", "orcs": 2}, {"location": "c", "men": 1, "terrain": "castle"}], "26 54 11 11")


def test_wq_rampage_with_no_legal_target_attacks_nothing(rc):
    not_targets = [
        {"location": "hero", "men": 3, "hero": True},
        {"location": "dragon", "men": 2, "dragon": True},
        {"location": "wizard", "men": 2, "in_wizards_region": True},
        {"location": "orcs", "orcs": 3},
        {"location": "empty"},
    ]
    result = _rampage(rc, not_targets, "")
    assert (result["attacks"], result["ended"], result["orcs_left"]) == ([], "no_legal_target", 4)
    assert [place["not_a_target"] for place in result["targets_at_start"]] == ["hero", "dragon", "wizards_region", "orcs", "unoccupied"]
    with pytest.raises(rc.RulesError, match=r"^roll 1: the rampage is over \(no legal target remains\)"):
        _rampage(rc, not_targets, "16")
    emptied = _rampage(rc, [*not_targets, {"location": "last", "men": 1, "sorcerer": True}], "26")  # 2 pieces: the man, the Sorcerer
    assert (emptied["ended"], emptied["orcs_left"], emptied["orcs_moved_to"]) == ("no_legal_target", 3, ["last"])
    assert emptied["attacks"][0]["leaders_lost"] == {"attacker": [], "defender": ["sorcerer"]}


def test_wq_rampage_goes_round_more_than_once_and_tunnel_locations_come_last(rc):
    neighbours = [{"location": "a", "men": 3}, {"location": "b", "men": 3}, {"location": "t", "men": 3, "attacked_across": "great_tunnel"}]
    result = _rampage(rc, neighbours, "16 16 16 36 36 26")  # circle 2: 4, 3, then 2 orcs (death range 2)
    assert result["targets_attacked"] == ["a", "b", "t", "a", "b", "t"]
    assert [attack["circle"] for attack in result["attacks"]] == [1, 1, 1, 2, 2, 2]
    assert result["attacks"][2]["death_range"]["defender"] == 5  # 3 men, +2 across the Great Tunnel
    assert (result["ended"], result["orcs_left"], result["orcs_moved_to"]) == ("one_orc_or_none_left", 1, ["a", "b", "t"])
    unfinished = _rampage(rc, neighbours, "16 16")
    assert (unfinished["ended"], unfinished["next_target"]) == (None, "t")
    with pytest.raises(rc.RulesError, match=r"^t is adjacent through the Great Tunnel: list it after"):
        _rampage(rc, [neighbours[2], *neighbours[:2]], "")
    with pytest.raises(rc.RulesError, match=r"^a location rampages only once its orcs have reached 4, not with 3"):
        _rampage(rc, neighbours, "", orcs=3)


def test_wq_a_rampage_never_gains_orcs_nor_attacks_a_location_not_adjacent_or_not_a_target(rc):
    import random

    chance = random.Random(30)
    for _ in range(80):
        neighbours = []
        for i in range(chance.randint(0, 6)):
            place: dict = {"location": f"n{i}"}
            kind = chance.choice(["men", "men", "men", "orcs", "empty"])
            if kind == "men":
                place.update(men=chance.randint(0, 5), sorcerer=chance.random() < 0.2, hero=chance.random() < 0.15)
                place.update(dragon=chance.random() < 0.1, in_wizards_region=chance.random() < 0.1)
                place.update(terrain=chance.choice(["castle", "forest", "plain"]))
                if place["hero"] and place["sorcerer"]:
                    place["sorcerer"] = False
            elif kind == "orcs":
                place["orcs"] = chance.randint(1, 4)
            neighbours.append(place)
        rolls = " ".join(f"{chance.randint(1, 6)}{chance.randint(1, 6)}" for _ in range(40))
        try:
            result = _rampage(rc, neighbours, rolls)
        except rc.RulesError as err:
            number = int(str(err).split(":")[0].removeprefix("roll "))
            result = _rampage(rc, neighbours, " ".join(rolls.split()[: number - 1]))
        names = {place["location"]: place for place in neighbours}
        orcs = [4, *(attack["orcs_left"] for attack in result["attacks"])]
        assert all(later <= earlier for earlier, later in zip(orcs, orcs[1:], strict=False))
        for attack in result["attacks"]:
            place = names[attack["target"]]
            assert not (place.get("hero") or place.get("dragon") or place.get("in_wizards_region") or place.get("orcs"))
        circles = [(attack["circle"], attack["target"]) for attack in result["attacks"]]
        assert len(circles) == len(set(circles))  # 1 attack per location a circle
        assert result["orcs_left"] + result["orcs_lost"] + len(result["orcs_moved_to"]) == 4
        assert result["ended"] is not None or result["next_target"] in names


def test_wq_attack_losses_are_capped_and_leaders_go_last(rc):
    result = _wq_attack(rc, {"men": 4}, {"men": 1, "hero": False}, [{"attacker_roll": 4, "defender_roll": 6}])
    assert result["battles"][0]["defender_losses"] == 1  # rolled 4, only 1 piece there
    sorcerer = _wq_attack(
        rc, {"men": 4, "hero": True}, {"men": 1, "hero": True}, [{"attacker_roll": 1, "defender_roll": 6}, {"attacker_roll": 5, "defender_roll": 6}]
    )
    first, second = sorcerer["battles"]
    assert first["defender_after"] == {"men": 0, "hero": True} and first["leaders_lost"]["defender"] == []
    assert second["death_range"]["defender"] == 1  # a Hero alone
    assert second["defender_losses"] == 1 and second["leaders_lost"]["defender"] == ["hero"]


def test_wq_attack_ends_when_a_location_is_unoccupied(rc):
    battles = [{"attacker_roll": 1, "defender_roll": 2}, {"attacker_roll": 1, "defender_roll": 1}]
    with pytest.raises(rc.RulesError, match="Battle 2: the attack is over"):
        _wq_attack(rc, {"men": 2}, {"men": 1}, battles)
    last_man = _wq_attack(rc, {"men": 1}, {"men": 1}, [{"attacker_roll": 1, "defender_roll": 6}])
    assert last_man["capture"]["must_capture"] is False  # wizards-quest/clarify-capture-with-last-man
    assisted = _wq_attack(rc, {"men": 1}, {"men": 1}, [{"attacker_roll": 1, "defender_roll": 6, "assist_men": 2}])
    assert assisted["capture"] == {**assisted["capture"], "must_capture": True, "men_that_may_move_in": 2}
    going_on = _wq_attack(rc, {"men": 3}, {"men": 3}, [{"attacker_roll": 5, "defender_roll": 5}], stop=True)
    assert going_on["ended"] == "attacker_stopped" and going_on["removed"]["attacker"]["destroyed"] == 1


def test_wq_both_sorcerers_scatter_both_sides(rc):
    result = _wq_attack(rc, {"men": 3, "sorcerer": True}, {"men": 3, "sorcerer": True}, [{"attacker_roll": 2, "defender_roll": 1}], stop=True)
    assert result["removed"] == {"attacker": {"destroyed": 0, "scattered": 1}, "defender": {"destroyed": 0, "scattered": 2}}


@pytest.mark.parametrize(
    "attacker,target,codes",
    [
        ({"men": 3}, {"kind": "player", "hero": True}, ["hero_needs_hero"]),
        ({"men": 3, "hero": True}, {"kind": "player", "hero": True}, []),
        ({"men": 3}, {"kind": "dragon"}, ["dragon_needs_hero_or_sorcerer"]),
        ({"hero": True}, {"kind": "dragon"}, []),
        ({"men": 1, "sorcerer": True}, {"kind": "wizard"}, []),
        ({"men": 3}, {"kind": "orcs", "in_wizards_region": True}, ["wizards_region"]),
        ({"men": 3}, {"kind": "orcs", "adjacent": False}, ["not_adjacent"]),
        ({"men": 3}, {"kind": "player", "own": True}, ["own_location"]),
    ],
)
def test_wq_who_may_attack_whom(rc, attacker, target, codes):
    result = rc.run("wizards-quest", "may_attack", {"attacker": attacker, "target": target})
    assert [r["code"] for r in result["reasons"]] == codes and result["allowed"] is (not codes)


def test_wq_attack_refused_before_any_battle(rc):
    result = _wq_attack(rc, {"men": 5}, {"men": 1, "hero": True}, [{"attacker_roll": 1, "defender_roll": 1}])
    assert result["allowed"] is False and result["battles"] == []
    with pytest.raises(rc.RulesError, match="Hero and a Sorcerer"):
        _wq_attack(rc, {"men": 5, "hero": True, "sorcerer": True}, {"men": 1}, [])
    with pytest.raises(rc.RulesError, match="only 4 orcs"):
        _wq_attack(rc, {"men": 5}, {"orcs": 9}, [])


# -- Chaos Marauders: a whole turn, and the final standings ------------------------------------


def test_marauders_turn_may_attack_with_the_line_just_completed(rc):
    result = rc.run("marauders", "turn", {"lines": [["standard", "a", None, "musician"], [], []], "draws": [{"card": "b", "line": 1, "space": 3}]})
    assert result["turn_ended"] is False and result["may_attack_with"] == [1]


def test_marauders_turn_refusals(rc):
    with pytest.raises(rc.RulesError, match="draw 2: the turn ended at draw 1"):
        rc.run(
            "marauders",
            "turn",
            {"lines": [[], [], []], "draws": [{"card": "a", "green": True, "line": 1, "space": 1}, {"card": "b", "line": 1, "space": 2}]},
        )
    with pytest.raises(rc.RulesError, match="right of the Musician"):
        rc.run("marauders", "turn", {"lines": [["musician"], [], []], "draws": [{"card": "a", "line": 1, "space": 2}]})
    with pytest.raises(rc.RulesError, match=r"may go only in line\(s\) 2, 3 "):
        rc.run("marauders", "turn", {"lines": [["a"], [], []], "draws": [{"card": "a", "line": 1, "space": 2}]})
    discarded = rc.run("marauders", "turn", {"lines": [[], [], []], "draws": [{"card": "a"}]})
    assert discarded["steps"][0]["reason"] == "not_placed" and discarded["turn_ended"] is True


def test_marauders_third_line_ends_the_game_without_attack(rc):
    done = ["standard", "a", "b", "c", "musician"]
    result = rc.run(
        "marauders", "turn", {"lines": [done, done, ["standard", "x", "y", None, "musician"]], "draws": [{"card": "z", "line": 3, "space": 4}]}
    )
    assert result["game_over"] is True and result["may_attack_with"] == []


def test_marauders_standings(rc):
    one = {"lines": [{"completed": False, "cards": 3}]}
    result = rc.run("marauders", "standings", {"tribes": {"a": one, "b": {"lines": [{"completed": False, "cards": 2}]}}})
    assert result["winner"] == "a" and result["tie_break"] is None
    assert [r["place"] for r in result["ranking"]] == [1, 2]
    with pytest.raises(rc.RulesError, match="only one tribe completes three lines first"):
        rc.run(
            "marauders",
            "standings",
            {"tribes": {"a": {**one, "completed_three_lines_first": True}, "b": {**one, "completed_three_lines_first": True}}},
        )


# -- Chaos in the Old World: a whole Corruption Phase -----------------------------------------


def test_citow_corruption_phase_goes_in_region_order_and_reuses_the_region_checks(rc):
    regions = [
        {
            "region": "badlands",
            "figures": {"nurgle": {"cultist": 1}, "tzeentch": {"cultist": 1}},
            "corruption_before": {"nurgle": 10},
        },  # tied domination: no resistance needed
        {"region": "norsca", "figures": {"khorne": {"cultist": 1}, "slaanesh": {"cultist": 1}}, "corruption_before": {"khorne": 10}},
        {"region": "kislev", "figures": {"tzeentch": {"cultist": 4}}, "noble_tokens": 1},
    ]
    result = rc.run("citow", "corruption_phase", {"regions": regions, "ruined_regions": ["empire", "tilea", "estalia"]})
    order = [r["region"] for r in result["regions"]]
    assert order == list(rc.citow.REGION_ORDER)  # every region, in the data's order
    assert result["ruined_this_phase"] == ["norsca", "badlands"]  # ruined in region order: cards 4 and 5
    assert [result["regions"][order.index(r)]["corruption"]["ruination_card"] for r in ("norsca", "badlands")] == [4, 5]
    assert result["skipped_ruined"] == ["empire", "estalia", "tilea"]
    assert result["regions"][order.index("empire")] == {"region": "empire", "ruined_before": True, "dominance": None, "corruption": None}
    kislev = result["regions"][order.index("kislev")]
    assert kislev["dominance"] == rc.run("citow", "dominance", {"region": "kislev", "noble_tokens": 1, "figures": {"tzeentch": {"cultist": 4}}})
    assert result["vp_gained"]["tzeentch"] == kislev["dominance"]["conquer_value"] == 4  # Kislev 3 + a Noble token 1
    assert result["vp_unknown_from"] == ["norsca", "badlands"]  # cards 4 and 5: award not in the sources
    given = rc.run(
        "citow", "corruption_phase", {"regions": regions, "ruined_regions": ["empire", "tilea", "estalia"], "participants_vp": {"4": 2, "5": 1}}
    )
    assert given["vp_gained"] == {"khorne": 2, "nurgle": 1, "tzeentch": 5, "slaanesh": 2} and given["vp_unknown_from"] == []


def test_citow_corruption_phase_refuses_what_the_rules_do_not_allow(rc):
    with pytest.raises(rc.RulesError, match="given twice"):
        rc.run("citow", "corruption_phase", {"regions": [{"region": "kislev"}, {"region": "kislev"}]})
    with pytest.raises(rc.RulesError, match="not 3"):
        rc.run("citow", "corruption_phase", {"regions": [], "ruined_regions": ["kislev"], "ruination_cards_left": 3})
    with pytest.raises(rc.RulesError, match="resistance"):  # a unique leader outside Kislev needs the printed values
        rc.run("citow", "corruption_phase", {"regions": [{"region": "tilea", "figures": {"khorne": {"cultist": 1}}}]})
    tilea = rc.run(
        "citow", "corruption_phase", {"regions": [{"region": "tilea", "figures": {"khorne": {"cultist": 3}}, "resistance": 3, "conquer_value": 2}]}
    )
    assert tilea["vp_gained"]["khorne"] == 0  # equal to the resistance is not enough (citow/dominance-scoring)


# -- BattleLore: line of sight on a hex map (axial coordinates) -------------------------------


def _los(rc, attacker, target, terrain=(), units=(), **more):
    return rc.run(
        "battlelore",
        "line_of_sight",
        {
            "attacker": list(attacker),
            "target": list(target),
            "terrain": [{"hex": list(h), "terrain": t} for h, t in terrain],
            "units": [list(u) for u in units],
            **more,
        },
    )


def test_battlelore_line_of_sight_along_edges(rc):
    one_side = _los(rc, (0, 0), (2, -1), terrain=[((1, 0), "forest")])
    assert one_side["line_of_sight"] is True and one_side["runs_along_edge"] is True
    assert sorted(s["hexes"][0] for s in one_side["sides"]) == [[1, -1], [1, 0]]
    both = _los(rc, (0, 0), (2, -1), terrain=[((1, 0), "forest")], units=[(1, -1)])
    assert both["line_of_sight"] is False  # the diagram's second case: blocked whichever way it is shifted
    # two edges: shifted once as a whole (battlelore/clarify-line-of-sight-along-two-edges) - a blocker on each side
    # at different edges blocks, though each edge alone has a clear side
    zigzag = _los(rc, (0, 0), (4, -2), terrain=[((1, 0), "building"), ((3, -2), "hill")])
    assert zigzag["line_of_sight"] is False
    assert "battlelore/clarify-line-of-sight-along-two-edges" in zigzag["clarifications"]
    assert _los(rc, (0, 0), (4, -2), terrain=[((1, 0), "building"), ((3, -1), "hill")])["line_of_sight"] is True


def test_battlelore_line_of_sight_through_a_corner(rc):
    # (0, 0) to (5, -4) crosses two corners where three hexes meet: (2, -1) and (3, -3) are each touched in a point
    corner = _los(rc, (0, 0), (5, -4), terrain=[((2, -1), "forest")])
    assert corner["through_corner"] is True and corner["runs_along_edge"] is False and corner["line_of_sight"] is True
    assert corner["clarifications"] == ["battlelore/clarify-line-of-sight-through-corner"]
    assert _los(rc, (0, 0), (5, -4), terrain=[((2, -1), "forest"), ((3, -3), "forest")])["line_of_sight"] is False
    assert _los(rc, (0, 0), (5, -4), units=[(3, -2)])["line_of_sight"] is False  # crossed on both sides


def test_battlelore_line_of_sight_ends_terrain_and_hills(rc):
    adjacent = _los(rc, (0, 0), (1, 0), terrain=[((0, 0), "forest"), ((1, 0), "forest")])
    assert adjacent["line_of_sight"] is True and adjacent["range"] == 1  # neither end hex blocks
    assert _los(rc, (0, 0), (3, 0), terrain=[((1, 0), "water"), ((2, 0), "ford")])["line_of_sight"] is True
    assert _los(rc, (0, 0), (3, 0), terrain=[((2, 0), "command_tent")])["line_of_sight"] is False
    assert _los(rc, (0, 0), (3, 0), units=[(2, 0)])["line_of_sight"] is False
    on_hill = dict(terrain=[((0, 0), "hill")], units=[(2, 0)])
    assert _los(rc, (0, 0), (3, 0), **on_hill)["line_of_sight"] is True
    assert _los(rc, (0, 0), (3, 0), **on_hill, attacker_ranged=False)["line_of_sight"] is False  # the Ranged trait
    assert _los(rc, (3, 0), (0, 0), **on_hill)["line_of_sight"] is False  # the target's hill does not help
    assert _los(rc, (-3, 5), (2, -4))["range"] == 9
    with pytest.raises(rc.RulesError, match="same hex"):
        _los(rc, (1, 1), (1, 1))


# -- Chaos in the Old World: the dial step of a round ------------------------------------------


def _dials(rc, powers, **more):
    return rc.run("citow", "round_dials", {"powers": powers, **more})


def test_citow_round_dials_stop_at_victory(rc):
    result = _dials(
        rc,
        {
            "khorne": {"position": 6, "victory_at": 7, "counters": 3, "victory_points": 10},
            "nurgle": {
                "position": 0,
                "victory_at": 7,
                "counters": 1,
                "victory_points": 12,
                "windows": {"1": {"instruction": {"kind": "draw_chaos_cards", "count": 2}}},
            },
        },
    )
    assert result["ticks"] == {"khorne": 2, "nurgle": 1} and result["ticks_turned"] == {"khorne": 1, "nurgle": 1}
    assert result["revealed"]["khorne"] == [{"position": 7, "instruction": {"kind": "victory"}, "threat": None}]
    assert result["instructions_to_carry_out"] == {"nurgle": {"chaos_cards_drawn": 1 * 2}}
    assert result["game_end"] == {"game_ends": True, "condition": "greatest_threat", "winners": ["khorne"]}


def test_citow_round_dials_say_what_they_cannot_tell(rc):
    result = _dials(rc, {"khorne": {"position": 2, "counters": 1}, "slaanesh": {"position": 4, "victory_at": 9, "counters": 0}})
    assert result["vp_gained"] == {"khorne": None, "slaanesh": 0}
    assert result["extra_tick"] == "khorne"  # 1 counter against 0 is the most
    assert result["revealed"]["khorne"] == [
        {"position": 3, "instruction": None, "threat": None},
        {"position": 4, "instruction": None, "threat": None},
    ]
    assert result["game_end"] is None
    assert result["game_end_needs"] == [
        "windows.3 of khorne",
        "windows.4 of khorne",
        "victory_at of khorne",
        "victory_points of khorne",
        "victory_points of slaanesh",
    ]


def test_citow_round_dials_tie_breaks_at_the_end_of_the_round(rc):
    shared = _dials(rc, {p: {"position": 4, "victory_at": 5, "counters": 1, "victory_points": 30} for p in ("khorne", "tzeentch", "nurgle")})
    assert shared["extra_tick"] is None and shared["game_end"]["winners"] == ["khorne", "nurgle", "tzeentch"]  # shared victory
    fifty = {
        "khorne": {
            "position": 1,
            "victory_at": 9,
            "counters": 1,
            "victory_points": 48,
            "windows": {"2": {"instruction": {"kind": "gain_vp", "count": 3}, "threat": 2}},
        },
        "nurgle": {
            "position": 3,
            "victory_at": 9,
            "counters": 1,
            "victory_points": 51,
            "windows": {"4": {"instruction": {"kind": "upgrade_card"}, "threat": 4}},
        },
    }
    result = _dials(rc, fifty)
    assert result["victory_points_after"] == {"khorne": 51, "nurgle": 51}  # the dial's VP count before the game-end check
    assert result["game_end"] == {"game_ends": True, "condition": "fifty_victory_points", "winners": ["nurgle"]}
    del fifty["nurgle"]["windows"]["4"]["threat"]
    with pytest.raises(rc.RulesError, match="give the threat of nurgle"):
        _dials(rc, fifty)
    ruined = _dials(
        rc,
        {"khorne": {"position": 1, "counters": 0, "victory_points": 20}, "nurgle": {"position": 1, "counters": 0, "victory_points": 19}},
        ruined_regions=5,
    )
    assert ruined["game_end"]["condition"] == "five_ruined_regions" and ruined["game_end"]["winners"] == ["khorne"]


def test_citow_round_dials_counts_counters_with_dial_advancement_counters(rc):
    events = [
        {"region": "tilea", "phase": "corruption", "corruption_placed": 3, "tokens": ["noble"]},
        {"region": "tilea", "phase": "corruption", "corruption_placed": 1, "tokens": ["noble"]},
        {"region": "estalia", "phase": "corruption", "cultists": 1, "tokens": ["hero"]},
    ]
    result = _dials(rc, {"slaanesh": {"position": 0, "events": events}, "khorne": {"position": 0, "counters": 1}})
    assert result["counters"] == {"slaanesh": 1, "khorne": 1} and result["extra_tick"] is None
    with pytest.raises(rc.RulesError, match="condition_met"):
        _dials(rc, {"nurgle": {"position": 0, "events": [{"region": "tilea", "phase": "battle"}]}})


def test_citow_round_dials_refusals(rc):
    with pytest.raises(rc.RulesError, match="events or counters, not both"):
        _dials(rc, {"khorne": {"position": 0, "counters": 1, "events": []}})
    with pytest.raises(rc.RulesError, match="the game ended then"):
        _dials(rc, {"khorne": {"position": 8, "victory_at": 8}})
    with pytest.raises(rc.InputError) as refused:
        _dials(rc, {"khorne": {"position": 0, "windows": {"1": {"instruction": {"kind": "gain_vp", "count": 999}}}}})
    assert refused.value.field == "powers/khorne/windows/1/instruction/count"
    with pytest.raises(rc.InputError) as refused:  # an instruction is one of the list's kinds, not text
        _dials(rc, {"khorne": {"position": 0, "windows": {"1": {"instruction": {"kind": "gain 4 VP"}}}}})
    assert refused.value.field == "powers/khorne/windows/1/instruction/kind"
    with pytest.raises(rc.RulesError, match="khorne: give X of the instruction gain_vp"):
        _dials(rc, {"khorne": {"position": 0, "counters": 1, "windows": {"1": {"instruction": {"kind": "gain_vp"}}}}})


def test_citow_round_dials_upgrade_card_has_no_number(rc):
    """The Upgrade Card instruction brings one card into play: a count given with it is ignored, and not echoed."""
    upgrade = {"1": {"instruction": {"kind": "upgrade_card", "count": 3}}}
    result = _dials(rc, {"khorne": {"position": 0, "counters": 1, "windows": upgrade}, "nurgle": {"position": 0, "counters": 1, "windows": upgrade}})
    assert result["revealed"]["khorne"] == [{"position": 1, "instruction": {"kind": "upgrade_card"}, "threat": None}]
    assert result["instructions_to_carry_out"]["khorne"] == {"upgrade_cards_brought_into_play": 1}


# -- BattleLore: a whole attack -----------------------------------------------------------------


def _attack(rc, attacker, target, results, **more):
    return rc.run(
        "battlelore", "attack", {"attacker": attacker, "target": target, "attack_type": more.pop("attack_type", "melee"), "results": results, **more}
    )


def test_battlelore_attack_destroyed_target_cannot_counterattack(rc):
    result = _attack(rc, {"dice": 3}, {"dice": 3, "health": 2}, {"strike": 2, "morale": 1})
    assert result["target_destroyed"] is True and result["attack"]["hexes_retreated"] == 0  # no retreat once destroyed
    assert [r["code"] for r in result["counterattack_not_allowed"]] == ["destroyed"] and result["attacker_may_advance"] is True
    with pytest.raises(rc.RulesError, match="may not counterattack: the target was destroyed"):
        _attack(rc, {"dice": 3}, {"dice": 3, "health": 2}, {"strike": 2, "morale": 1}, counterattack={"results": {"strike": 3}})


def test_battlelore_attack_counterattack_dice_after_the_damage(rc):
    """Forest caps both rolls at 2; Rage adds the damage just taken; a unit left with one figure is weakened."""
    forest = _attack(rc, {"dice": 4}, {"dice": 4, "health": 4, "terrain": "forest"}, {"strike": 1, "lore": 1})
    assert forest["dice"]["dice"] == 2 and forest["counterattack_dice"] == 2
    rage = _attack(rc, {"dice": 2}, {"dice": 2, "health": 4, "rage": True, "damage_suffered": 1}, {"strike": 2})
    assert rage["counterattack_dice"] == 2 + 1 + 2  # 1 damage before, 2 in this attack
    weakened = _attack(
        rc,
        {"dice": 3, "health": 3},
        {"dice": 3, "health": 3},
        {"strike": 1, "cleave": 1, "heroic": 1},
        counterattack={"results": {"cleave": 2, "strike": 1}},
    )
    assert weakened["attack"]["health_left"] == 1 and weakened["counterattack"]["result"]["damage_taken"] == 1  # cleave ignored
    tokens = _attack(
        rc,
        {"dice": 3, "health": 3},
        {"dice": 3, "health": 3, "damage_tokens": True},
        {"strike": 1, "cleave": 1, "heroic": 1},
        counterattack={"results": {"cleave": 2, "strike": 1}},
    )
    assert tokens["counterattack"]["result"]["damage_taken"] == 3  # a damage-token unit is never weakened


def test_battlelore_attack_who_may_counterattack(rc):
    supported = _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"morale": 2}, path=[{"unit": "friendly"}])
    assert supported["attack"]["support"] is True and supported["may_counterattack"] is True  # stayed in its hex
    ranged = _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"pierce": 1, "lore": 1}, attack_type="ranged")
    assert [r["code"] for r in ranged["counterattack_not_allowed"]] == ["not_adjacent"] and ranged["attacker_may_advance"] is False
    stunned = _attack(rc, {"dice": 2}, {"dice": 2, "health": 3, "stunned": True}, {"strike": 1, "heroic": 1})
    assert [r["code"] for r in stunned["counterattack_not_allowed"]] == ["stunned"]


def test_battlelore_attack_refusals(rc):
    with pytest.raises(rc.RulesError, match="adjacent hex"):
        _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"strike": 2}, adjacent=False)
    with pytest.raises(rc.RulesError, match="rolls 2 dice, but 3 results"):
        _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"strike": 3})
    with pytest.raises(rc.RulesError, match="stunned unit cannot attack"):
        _attack(rc, {"dice": 2, "stunned": True}, {"dice": 2, "health": 3}, {"strike": 2})
    with pytest.raises(rc.RulesError, match="counterattacking unit rolls 2 dice, but 1"):
        _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"lore": 2}, counterattack={"results": {"strike": 1}})
    with pytest.raises(rc.InputError) as refused:
        _attack(rc, {"dice": 2}, {"dice": 2}, {"strike": 2})
    assert refused.value.field == "target/health"  # the missing field itself


# -- BattleLore: is this move legal -------------------------------------------------------------


def _move(rc, path, **more):
    return rc.run("battlelore", "move", {"start": [0, 0], "path": path, **more})


def test_battlelore_move_on_foot_and_flying(rc):
    ground = [{"hex": [1, 0], "terrain": "forest"}, {"hex": [2, 0], "terrain": "water"}]
    foot = _move(rc, [[1, 0], [2, 0], [3, 0]], terrain=ground, units=[[2, 0]], march_speed=2)
    assert [(p["code"], p["step"]) for p in foot["problems"]] == [("too_far", 3), ("movement_ended", 1), ("impassable", 2), ("occupied", 2)]
    assert _move(rc, [[1, 0]], terrain=ground)["legal"] is True  # ending in a forest is fine
    landing = _move(rc, [[1, 0], [2, 0]], terrain=ground, units=[[2, 0]], unit={"flying": True})
    assert [p["code"] for p in landing["problems"]] == ["occupied"] and landing["problems"][0]["rule"] == "battlelore/flying"


def test_battlelore_move_fords_bridges_buildings_and_the_edge(rc):
    assert _move(rc, [[1, 0], [2, 0]], terrain=[{"hex": [1, 0], "terrain": "bridge"}])["legal"] is True
    ford = _move(rc, [[1, 0], [2, 0]], terrain=[{"hex": [1, 0], "terrain": "ford"}])
    assert [p["code"] for p in ford["problems"]] == ["movement_ended"] and ford["problems"][0]["rule"] == "battlelore/ford"
    heavy = _move(rc, [[0, 1]], terrain=[{"hex": [0, 1], "terrain": "building"}], unit={"cumbersome": True})
    assert [p["code"] for p in heavy["problems"]] == ["cumbersome"]
    edge = _move(rc, [[-1, 0]], terrain=[{"hex": [-1, 0], "terrain": "off_board"}], unit={"flying": True})
    assert [p["code"] for p in edge["problems"]] == ["off_board"]  # Flying does not leave the board
    assert _move(rc, [])["legal"] is True


def test_battlelore_move_refusals(rc):
    with pytest.raises(rc.RulesError, match="step 2: hex \\[3, 0\\] is not adjacent to \\[1, 0\\]"):
        _move(rc, [[1, 0], [3, 0]])
    with pytest.raises(rc.RulesError, match="own hex"):
        _move(rc, [[1, 0]], units=[[0, 0]])


# -- Wizard's Quest: no Battle against an unoccupied location (issue: every rule a table argues about) ------------


@pytest.mark.parametrize("defender", [{}, {"men": 0}, {"men": 0, "orcs": 0, "hero": False, "sorcerer": False}])
def test_wq_a_battle_against_an_unoccupied_location_is_refused(rc, defender):
    with pytest.raises(rc.RulesError, match="Battle 1: the attacked location is unoccupied.*clarify-attack-on-unoccupied"):
        _wq_attack(rc, {"men": 3}, defender, [{"attacker_roll": 1, "defender_roll": 6}])
    captured = _wq_attack(rc, {"men": 3}, defender, [])
    assert captured["battles"] == [] and captured["ended"] == "attacked_location_unoccupied"
    assert captured["capture"]["must_capture"] is True and captured["capture"]["men_that_may_move_in"] == 2
    assert "wizards-quest/clarify-attack-on-unoccupied-location" in captured["rules"]


def test_wq_a_battle_with_a_death_range_of_0_is_refused(rc):
    """A death range of 0 is a location with no pieces: the lowest of an occupied one is 1 (a man, an orc, a lone Hero)."""
    whole = {"battles": [{"attacker": {"death_range": 3, "roll": 2}, "defender": {"death_range": 0, "roll": 6}}]}
    with pytest.raises(rc.RulesError, match="Battle 1: the attacked location is unoccupied"):
        rc.run("wizards-quest", "battle", whole)
    with pytest.raises(rc.RulesError, match="the attacking location is unoccupied"):
        rc.run("wizards-quest", "battle", {"side": "attacker", "battles": [{"death_range": 0, "roll": 1}]})
    with pytest.raises(rc.RulesError, match="Battle 2: the attacked location is unoccupied"):
        rc.run("wizards-quest", "battle", {"side": "defender", "battles": [{"death_range": 2, "roll": 1}, {"death_range": 0, "roll": 1}]})


# -- BattleLore: a ranged attack's range band, and the direction of the retreat -------------------------------------


def _bl_sight(rc, attacker, target, **more):
    return rc.run("battlelore", "line_of_sight", {"attacker": attacker, "target": target, **more})


def test_bl_a_ranged_target_must_lie_in_the_reference_cards_band(rc):
    """battlelore/range, battlelore/ranged: a ranged unit has a minimum and a maximum range (its reference card, not
    in the sources); it may attack an adjacent unit only with a minimum range of 1."""
    sight = _bl_sight(rc, [-3, 0], [0, 0], min_range=2, max_range=4)
    assert sight["range"] == 3 and sight["in_range"] is True and sight["may_target"] is True
    assert _bl_sight(rc, [-3, 0], [0, 0], min_range=1, max_range=2)["in_range"] is False
    assert _bl_sight(rc, [-1, 0], [0, 0], min_range=2, max_range=4)["may_target"] is False  # adjacent, minimum 2
    unknown = _bl_sight(rc, [-3, 0], [0, 0])
    assert unknown["in_range"] is None and unknown["range_needs"] == ["min_range", "max_range"]
    melee = _bl_sight(rc, [-1, 0], [0, 0], attacker_ranged=False)
    assert melee["in_range"] is True and _bl_sight(rc, [-2, 0], [0, 0], attacker_ranged=False)["in_range"] is False
    with pytest.raises(rc.RulesError, match="minimum range of 3 above the maximum range of 2"):
        _bl_sight(rc, [-3, 0], [0, 0], min_range=3, max_range=2)


_BL_RANGED = {"attacker": {"dice": 2}, "target": {"dice": 3, "health": 3}, "attack_type": "ranged", "results": {"pierce": 1, "strike": 1}}


def test_bl_attack_refuses_a_ranged_target_out_of_range(rc):
    ok = rc.run("battlelore", "attack", {**_BL_RANGED, "range": 3, "min_range": 2, "max_range": 4})
    assert ok["attack"]["damage_taken"] == 1 and ok["may_counterattack"] is False  # not adjacent: no counterattack
    with pytest.raises(rc.RulesError, match="range 5, beyond the maximum range of 4.*battlelore/ranged"):
        rc.run("battlelore", "attack", {**_BL_RANGED, "range": 5, "min_range": 2, "max_range": 4})
    with pytest.raises(rc.RulesError, match="adjacent unit only with a minimum range of 1"):
        rc.run("battlelore", "attack", {**_BL_RANGED, "range": 1, "min_range": 2, "max_range": 4})
    with pytest.raises(rc.RulesError, match="give min_range, max_range; the band"):
        rc.run("battlelore", "attack", {**_BL_RANGED, "range": 3})
    with pytest.raises(rc.RulesError, match="not in an adjacent hex"):
        rc.run("battlelore", "attack", {**_BL_RANGED, "range": 3, "adjacent": True})
    adjacent = rc.run("battlelore", "attack", {**_BL_RANGED, "range": 1, "min_range": 1, "max_range": 3})
    assert adjacent["may_counterattack"] is True


def test_bl_retreat_after_a_ranged_attack_leaves_opposite_the_line(rc):
    """battlelore/retreat, battlelore/example-retreat-after-ranged-attack: the line enters the target's hex through its
    left vertical side, the retreat leaves through the right one."""
    sight = _bl_sight(rc, [-3, 0], [0, 0], retreats=2)
    assert sight["retreat_direction"] == [1, 0] and sight["retreat_hexes"] == [[1, 0], [2, 0]]
    corner = _bl_sight(rc, [0, 0], [2, -1], retreats=1)  # the line reaches the target's hex at a corner
    assert corner["retreat_direction"] is None and "battlelore/clarify-ranged-retreat-through-corner" in corner["clarifications"]
    assert sorted(corner["retreat_directions"]) == [[1, -1], [1, 0]]
    forced = _bl_sight(rc, [0, 0], [2, -1], terrain=[{"hex": [1, 0], "terrain": "forest"}])  # only one side is clear
    assert forced["retreat_direction"] == [1, 0]


# -- Chaos Marauders: trophies after an attack, and the cheating rule (issue 30) -------------------------------------
# marauders/attack-roll (source lines 189, 201-203), marauders/after-the-attack (205), marauders/end-of-game (211),
# marauders/card-placement (121-127), marauders/cheating (269-271)

_BROKEN = [
    {"card": "standard", "frame": "grey"},
    {"card": "goblins", "frame": "purple"},
    {"card": "idol", "frame": "blue"},
    {"card": "bolt_thrower", "frame": "red"},
]


def _trophies(rc, placements, face="orc_eye", lines=None):
    lines = lines if lines is not None else [[None, "orcs", None, "musician"], [], []]
    return rc.run("marauders", "trophies", {"face": face, "broken_line": _BROKEN, "winner_lines": lines, "placements": placements})


def test_marauders_trophies_placed_on_free_spaces_the_rest_discarded(rc):
    result = _trophies(rc, [{"card": "idol", "line": 1, "space": 3}, {"card": "standard", "line": 1, "space": 1}])
    assert result["winner"] == "attacker"
    assert result["discarded_by_the_roll"] == ["goblins"]  # purple cards on the Orc Eye
    assert result["placed"] == [{"card": "idol", "line": 1, "space": 3}, {"card": "standard", "line": 1, "space": 1}]
    assert result["not_placed"] == ["bolt_thrower"]  # cannot or will not place: the discard pile
    assert result["lines"][0][:4] == ["standard", "orcs", "idol", "musician"]
    # the Standard completes line 1: a line completed by a trophy never attacks; the turn passes
    assert result["lines_completed_by_trophies"] == [1] and result["may_attack_with"] == []
    assert result["turn_passes"] is True and result["game_over"] is False
    assert "marauders/clarify-line-completed-by-trophy" in result["clarifications"]


def test_marauders_trophies_on_the_mark_of_chaos_go_to_the_defender(rc):
    result = _trophies(rc, [{"card": "idol", "line": 2, "space": 1}], face="mark_of_chaos")
    assert result["winner"] == "defender"
    assert result["discarded_by_the_roll"] == ["standard", "goblins"]  # grey and purple
    assert result["not_placed"] == ["bolt_thrower"]


def test_marauders_a_trophy_completing_the_third_line_ends_the_game(rc):
    done = ["standard", "a", "b", "c", "musician"]
    result = _trophies(
        rc, [{"card": "idol", "line": 3, "space": 3}], lines=[done, ["standard", "x", "y", "z", "musician"], ["standard", "p", None, "q", "musician"]]
    )
    assert result["completed_lines"] == 3 and result["game_over"] is True and result["may_attack_with"] == []


@pytest.mark.parametrize(
    "placements,rule",
    [
        ([{"card": "goblins", "line": 2, "space": 1}], "marauders/attack-roll"),  # discarded by the roll
        ([{"card": "troll", "line": 2, "space": 1}], "marauders/attack-roll"),  # not in the broken line
        ([{"card": "idol", "line": 2, "space": 1}, {"card": "idol", "line": 3, "space": 1}], "marauders/attack-roll"),
        ([{"card": "idol", "line": 1, "space": 2}], "marauders/card-placement"),  # not a free space
        ([{"card": "idol", "line": 1, "space": 6}], "marauders/card-placement"),  # right of the Musician
    ],
)
def test_marauders_trophies_refusals_name_the_rule(rc, placements, rule):
    with pytest.raises(rc.RulesError, match=rule):
        _trophies(rc, placements)


def test_marauders_trophy_duplicate_in_a_line_is_refused(rc):
    with pytest.raises(rc.RulesError, match="duplicate"):
        _trophies(rc, [{"card": "idol", "line": 1, "space": 3}], lines=[[None, "idol", None, "musician"], [], []])


def test_marauders_cheating_discards_every_duplicate_of_the_line(rc):
    result = rc.run("marauders", "cheating", {"lines": [["standard", "orcs", "goblins", "orcs", "orcs", "musician"], ["goblins", "trolls"], []]})
    assert result["cheating"] is True
    assert result["discarded"] == [
        {"line": 1, "space": 2, "card": "orcs"},
        {"line": 1, "space": 4, "card": "orcs"},
        {"line": 1, "space": 5, "card": "orcs"},
    ]
    assert result["lines"][0] == ["standard", None, "goblins", None, None, "musician"]
    assert result["other_breaches"] == [] and result["rule"] == "marauders/cheating"


def test_marauders_cheating_names_what_the_rule_does_not_cover(rc):
    result = rc.run("marauders", "cheating", {"lines": [["standard", "standard", "orcs", "musician"], [], []]})
    assert result["cheating"] is False and result["discarded"] == []
    assert result["other_breaches"] == [{"line": 1, "breach": "second_standard"}]
    assert result["clarifications"] == ["marauders/clarify-cheating-scope"]
    clean = rc.run("marauders", "cheating", {"lines": [["standard", "orcs", "musician"], [], []]})
    assert clean == {**clean, "cheating": False, "discarded": [], "other_breaches": [], "clarifications": []}


# -- BattleLore: heroic results spent for damage (Berserk, poison, Fury of Y'llan), Ferocious, the counterattack's target
# battlelore/berserk (source lines 64-69), battlelore/poison (557-564), battlelore/fury-of-yllan (570-574),
# battlelore/ferocious (182-188), battlelore/counterattack (301-313), battlelore/removing-figures (515-520)


def test_bl_berserk_heroics_deal_damage_and_cost_figures(rc):
    result = _attack(
        rc, {"dice": 3, "health": 3, "berserk": True}, {"dice": 2, "health": 4}, {"strike": 1, "heroic": 2}, heroic_damage={"berserk": 2}
    )
    assert result["attack"]["damage_taken"] == 3  # 1 strike + 2 heroic results spent
    assert result["figures_removed_by_berserk"] == {"attacker": 2, "target": 0}
    assert result["destroyed_by_berserk"] == {"attacker": False, "target": False}
    assert "battlelore/clarify-heroic-damage" in result["clarifications"]
    tokens = _attack(
        rc,
        {"dice": 3, "health": 3, "berserk": True, "damage_tokens": True},
        {"dice": 2, "health": 4},
        {"strike": 2, "heroic": 1},
        heroic_damage={"berserk": 1},
    )
    assert tokens["destroyed_by_berserk"]["attacker"] is True  # one figure: its removal destroys the unit
    # removed after its attack, before the counterattack (an attack of its own): nothing left to counterattack
    assert [r["code"] for r in tokens["counterattack_not_allowed"]] == ["attacker_destroyed"]
    spent = _attack(
        rc,
        {"dice": 3, "health": 3, "berserk": True},
        {"dice": 2, "health": 4},
        {"heroic": 3},
        heroic_damage={"berserk": 2},
        counterattack={"results": {"strike": 2}},
    )
    assert spent["counterattack"]["result"]["health_left"] == 0  # 1 figure after Berserk, then 2 damage


def test_bl_berserk_in_the_counterattack_costs_the_target_figures(rc):
    result = _attack(
        rc,
        {"dice": 2, "health": 4},
        {"dice": 3, "health": 4, "berserk": True},
        {"strike": 1, "lore": 1},
        counterattack={"results": {"heroic": 2, "strike": 1}, "heroic_damage": {"berserk": 2}},
    )
    assert result["counterattack"]["result"]["damage_taken"] == 3
    assert result["figures_removed_by_berserk"] == {"attacker": 0, "target": 2}
    assert result["destroyed_by_berserk"]["target"] is False  # 3 figures after the attack, 2 removed


def test_bl_poison_and_fury_let_heroics_deal_damage(rc):
    poisoned = _attack(
        rc,
        {"dice": 2, "health": 1},
        {"dice": 2, "health": 4, "poisoned": True},
        {"pierce": 1, "heroic": 1},
        attack_type="ranged",
        heroic_damage={"poison": 1},
    )
    assert poisoned["attack"]["damage_taken"] == 2 and poisoned["figures_removed_by_berserk"] == {"attacker": 0, "target": 0}
    fury = _attack(
        rc,
        {"dice": 2, "health": 1},
        {"dice": 2, "health": 6},
        {"pierce": 1, "heroic": 4},
        attack_type="ranged",
        lore_cards=["fury_of_yllan"],
        heroic_damage={"fury_of_yllan": 4},
    )
    assert fury["attack"]["damage_taken"] == 5  # even shooting, even weakened (battlelore/fury-of-yllan)


@pytest.mark.parametrize(
    "more,rule",
    [
        ({"heroic_damage": {"berserk": 1}}, "battlelore/berserk"),  # the unit has no Berserk
        ({"heroic_damage": {"poison": 1}}, "battlelore/poison"),  # the target is not poisoned
        ({"heroic_damage": {"fury_of_yllan": 1}}, "battlelore/fury-of-yllan"),  # the card was not played
        ({"heroic_damage": {"poison": 1}, "spent": {"heroic": 1}}, "battlelore/spending-dice"),  # one die, one effect
    ],
)
def test_bl_heroic_damage_refusals_name_the_rule(rc, more, rule):
    target = {"dice": 2, "health": 4, "poisoned": "poison" in more["heroic_damage"] and "spent" in more}
    with pytest.raises(rc.RulesError, match=rule):
        _attack(rc, {"dice": 2}, target, {"strike": 1, "heroic": 1}, **more)


def test_bl_ferocious_counterattacks_before_it_retreats(rc):
    plain = _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"morale": 1, "strike": 1}, path=[{}])
    assert plain["may_counterattack"] is False and plain["counterattack_before_retreat"] is False
    ferocious = _attack(
        rc, {"dice": 2}, {"dice": 2, "health": 3, "ferocious": True}, {"morale": 1, "strike": 1}, path=[{}], counterattack={"results": {"strike": 2}}
    )
    assert ferocious["may_counterattack"] is True and ferocious["counterattack_before_retreat"] is True
    assert ferocious["counterattack"]["result"]["damage_taken"] == 2
    # the retreat will destroy it (off the board, 1 damage): it still counterattacks first
    edge = _attack(rc, {"dice": 2}, {"dice": 2, "health": 2, "ferocious": True}, {"morale": 1, "strike": 1}, path=[{"terrain": "off_board"}])
    assert edge["target_destroyed"] is True and edge["may_counterattack"] is True
    # destroyed by the damage itself, before any retreat: no counterattack
    dead = _attack(rc, {"dice": 2}, {"dice": 2, "health": 1, "ferocious": True}, {"morale": 1, "strike": 1}, path=[{}])
    assert dead["may_counterattack"] is False


def test_bl_the_counterattack_targets_the_unit_that_attacked(rc):
    result = _attack(rc, {"dice": 2}, {"dice": 2, "health": 3}, {"strike": 1, "lore": 1})
    assert result["counterattack_target"] == "attacker"
    assert "battlelore/counterattack" in result["rules"]


# -- Chaos in the Old World: the Skull Throne, and no Chaos card into a ruined region (issue 30) ----------------------
# citow/example-non-cumulative-cards (source line 519), citow/dominance-value, citow/ruined-region-rules (936-943, 1381)


def test_citow_skull_throne_counts_its_players_figures_by_attack_value(rc):
    inputs = {
        "region": "kislev",
        "figures": {"khorne": {"cultist": 2, "bloodletter": 1}, "nurgle": {"cultist": 3}},
        "chaos_cards": {"khorne": [{"name": "skull_throne", "cost": 1}]},
        "attack_values": {"cultist": 0, "bloodletter": 2},
    }
    result = rc.run("citow", "dominance", inputs)
    assert result["dominance_values"] == {"khorne": 2 + 1, "nurgle": 3}  # attack 0+0+2, plus the card's cost 1
    assert result["counted_by_attack_value"] == ["khorne"]
    two = rc.run("citow", "dominance", {**inputs, "chaos_cards": {"khorne": [{"name": "The Skull Throne", "cost": 1}] * 2}})
    assert two["dominance_values"]["khorne"] == 2 + 2  # copies do not add up; each card's cost still counts
    plain = rc.run("citow", "dominance", {**inputs, "chaos_cards": {}})
    assert plain["dominance_values"]["khorne"] == 3 and plain["counted_by_attack_value"] == []


def test_citow_skull_throne_needs_the_attack_values(rc):
    with pytest.raises(rc.RulesError, match="attack_values"):
        rc.run(
            "citow",
            "dominance",
            {"region": "kislev", "figures": {"khorne": {"cultist": 2}}, "chaos_cards": {"khorne": [{"name": "skull_throne", "cost": 1}]}},
        )


def test_citow_no_chaos_card_into_a_ruined_region(rc):
    result = rc.run(
        "citow",
        "summoning",
        {
            "power": "khorne",
            "power_before": 3,
            "costs": {"skull_throne": 1},
            "play_card": {"card": "skull_throne", "region": "kislev"},
            "ruined_regions": ["kislev"],
        },
    )
    assert result["placement_legal"] is False and result["legal"] is False
    assert "kislev" in result["cannot_play_in"] and result["ruined_regions_rule"] == "citow/ruined-region-rules"
    # a figure may still be summoned there: every other rule about regions still applies
    figure = rc.run(
        "citow",
        "summoning",
        {
            "power": "khorne",
            "summon": {"figure": "cultist", "class": "cultist", "region": "kislev"},
            "regions_with_own_figures": ["kislev"],
            "ruined_regions": ["kislev"],
        },
    )
    assert figure["placement_legal"] is True


# -- Wizard's Quest: the Dragon Attack Phase and scatter destinations (issue 30) -------------------------------------
# wizards-quest/dragon-attack (source lines 100-102), wizards-quest/scatter (162-166), clarify-scatter-destination,
# clarify-hero-sorcerer-losses, occupancy-rules (32-34, 57), hero-and-sorcerer-cost (34)


def test_wq_dragon_moves_on_until_it_devours_a_man(rc):
    result = rc.run(
        "wizards-quest",
        "dragon_phase",
        {
            "landings": [
                {"region": 2, "territory": 5, "devour_roll": 3, "orcs": 4},  # orcs: it moves on
                {"region": 6, "territory": 1, "devour_roll": 4},  # nothing there
                {"region": 1, "territory": 3, "devour_roll": 6, "men": 2, "hero": True},
            ]
        },
    )
    first, empty, last = result["landings"]
    assert first["devoured"] == 3 and first["left"]["orcs"] == 1 and first["moves_on"] is True
    assert empty["devoured"] == 0 and empty["moves_on"] is True
    assert last["devoured"] == 3 and last["leaders_devoured"] == ["hero"] and last["moves_on"] is False
    assert result["phase_over"] is True
    assert "wizards-quest/clarify-hero-sorcerer-losses" in result["clarifications"]


def test_wq_dragon_phase_refusals(rc):
    with pytest.raises(rc.RulesError, match="wizards-quest/dragon-attack"):  # it already devoured a man
        rc.run(
            "wizards-quest",
            "dragon_phase",
            {"landings": [{"region": 1, "territory": 1, "devour_roll": 1, "men": 1}, {"region": 1, "territory": 2, "devour_roll": 1, "men": 1}]},
        )
    with pytest.raises(rc.RulesError, match="wizards-quest/occupancy-rules"):
        rc.run("wizards-quest", "dragon_phase", {"landings": [{"region": 1, "territory": 1, "devour_roll": 1, "men": 1, "orcs": 1}]})
    going = rc.run("wizards-quest", "dragon_phase", {"landings": [{"region": 1, "territory": 1, "devour_roll": 2, "orcs": 2}]})
    assert going["phase_over"] is False  # give the next landing


def test_wq_scatter_to_own_or_unoccupied_locations(rc):
    result = rc.run(
        "wizards-quest",
        "scatter",
        {
            "pieces": {"men": 3, "hero": True},
            "battle_location": "crystal_mountains",
            "destinations": [
                {"location": "castle_2", "holds": "owner", "men": 2},
                {"location": "silent_meadow", "holds": "unoccupied", "men": 1, "hero": True},
            ],
        },
    )
    assert result["placed"] == {"men": 3, "orcs": 0, "hero": True, "sorcerer": False}
    assert result["clarifications"] == ["wizards-quest/clarify-scatter-destination"]


@pytest.mark.parametrize(
    "destinations,rule",
    [
        ([{"location": "x", "holds": "other_player", "men": 2}], "wizards-quest/clarify-scatter-destination"),
        ([{"location": "x", "holds": "orcs", "men": 2}], "wizards-quest/clarify-scatter-destination"),
        ([{"location": "battle", "holds": "owner", "men": 2}], "wizards-quest/scatter"),  # "any other location"
        ([{"location": "x", "holds": "owner", "men": 1}], "wizards-quest/scatter"),  # one man not placed
        ([{"location": "x", "holds": "owner", "men": 2, "sorcerer_there": True, "hero": True}], "wizards-quest/hero-and-sorcerer-cost"),
    ],
)
def test_wq_scatter_refusals_name_the_rule(rc, destinations, rule):
    pieces = {"men": 2, "hero": any(d.get("hero") for d in destinations)}
    with pytest.raises(rc.RulesError, match=rule):
        rc.run("wizards-quest", "scatter", {"pieces": pieces, "battle_location": "battle", "destinations": destinations})


def test_wq_scattered_orcs_never_make_more_than_four(rc):
    with pytest.raises(rc.RulesError, match="wizards-quest/occupancy-rules"):
        rc.run(
            "wizards-quest",
            "scatter",
            {"pieces": {"orcs": 2}, "battle_location": "b", "destinations": [{"location": "x", "holds": "owner", "orcs": 2, "orcs_there": 3}]},
        )


# -- Wizard's Quest: the Orc Phase — growth, the order of the rampages, settlement (issue 30) -------------------------
# wizards-quest/orc-growth (77-78), orc-rampage (79), orc-rampage-order (80-83), orc-settlement (96)

_ORCS = [
    {"region": 2, "territory": 4, "orcs": 3},
    {"region": 2, "territory": 1, "orcs": 4},
    {"castle": 3, "orcs": 2},
    {"region": 1, "territory": 6, "orcs": 1},
    {"castle": 1, "orcs": 4},
]


def test_wq_orc_growth_adds_one_per_orc_location_of_the_region_rolled_up_to_four(rc):
    result = rc.run(
        "wizards-quest",
        "orc_phase",
        {"rolls": [2, 2, 5], "orc_locations": _ORCS, "castles_adjacent_to_region": [{"region": 2, "castles": [3]}, {"region": 5, "castles": []}]},
    )
    after = {json_key(o): o["orcs"] for o in result["orcs_after_growth"]}
    assert after == {"r2t4": 4, "r2t1": 4, "c3": 4, "r1t6": 1, "c1": 4}  # 3+1 then capped; castle 3 +1 twice
    # territories first, lower regions and territories first, then castles by number
    assert result["rampage_order"] == [{"region": 2, "territory": 1}, {"region": 2, "territory": 4}, {"castle": 1}, {"castle": 3}]
    assert result["rules"][0] == "wizards-quest/orc-growth"


def json_key(location):
    return f"c{location['castle']}" if "castle" in location else f"r{location['region']}t{location['territory']}"


def test_wq_orc_growth_needs_the_castles_next_to_a_rolled_region(rc):
    with pytest.raises(rc.RulesError, match="castles_adjacent_to_region"):
        rc.run("wizards-quest", "orc_phase", {"rolls": [2], "orc_locations": _ORCS})


def test_wq_orc_settlement_puts_one_orc_in_each_unoccupied_location(rc):
    result = rc.run(
        "wizards-quest",
        "orc_phase",
        {"rolls": [6], "orc_locations": [], "castles_adjacent_to_region": [{"region": 6, "castles": []}], "unoccupied_after_rampages": 5},
    )
    assert result["orcs_settled"] == 5


# -- Wizard's Quest: free attacks and the help an Attack may have (issue 30) -------------------------------------------
# wizards-quest/assist (116), hero-sorcerer-assist (122), free-attack (136-140), ordinary-attack-on-dragon-or-wizard (142),
# occupancy-rules (34: a Hero and a Sorcerer never share a space)


def _help(rc, **inputs):
    return rc.run("wizards-quest", "attack_help", inputs)


def test_wq_a_free_attack_has_no_help_and_comes_first(rc):
    free = _help(rc, target_kind="dragon", dragon_or_wizard_in_attacking_location=True, others_in_that_location=True, leader_assist="sorcerer")
    assert free["free_attack"] is True and free["men_assist_allowed"] is False
    assert free["leader_assist_allowed"] is False and free["others_only_after"] is True
    assert [r["code"] for r in free["reasons"]] == ["no_help_in_free_attack"]
    elsewhere = _help(rc, target_kind="wizard")
    assert elsewhere["free_attack"] is False and elsewhere["men_assist_allowed"] is True  # an ordinary attack


def test_wq_a_hero_or_sorcerer_assists_only_at_the_start_and_swaps(rc):
    start = _help(rc, target_kind="player", leader_assist="sorcerer", leader_in_attacking_location="hero")
    assert start["leader_assist_allowed"] is True and start["swap"] is True  # never both in one space
    later = _help(rc, target_kind="player", leader_assist="hero", moment="before_roll")
    assert later["leader_assist_allowed"] is False and later["men_assist_allowed"] is True
    assert [r["code"] for r in later["reasons"]] == ["leader_only_at_start"]
    with pytest.raises(rc.RulesError, match="wizards-quest/hero-sorcerer-assist"):
        _help(rc, target_kind="player", leader_assist="hero", leader_in_attacking_location="hero")


# -- Wizard's Quest: a treasure in the captured location (issue 30) -----------------------------------------------------
# wizards-quest/treasure-capture (158), goal (28), clarify-treasure-rewards, dummy-treasure (209)


def test_wq_capturing_ones_own_third_treasure_wins(rc):
    result = _wq_attack(rc, {"men": 3}, {}, [], treasure_here="own", own_treasures_found_before=2)
    assert result["treasure"]["found"] is True and result["treasure"]["own_treasures_found"] == 3
    assert result["treasure"]["game_won"] is True and result["treasure"]["reward"] is None
    assert result["treasure"]["clarifications"] == ["wizards-quest/clarify-treasure-rewards"]


def test_wq_a_treasure_counts_only_when_captured_and_ones_own(rc):
    other = _wq_attack(rc, {"men": 3}, {}, [], treasure_here="another_players")
    dummy = _wq_attack(rc, {"men": 3}, {}, [], treasure_here="dummy", own_treasures_found_before=2)
    held = _wq_attack(rc, {"men": 2}, {"men": 3}, [{"attacker_roll": 6, "defender_roll": 6}], treasure_here="own")
    assert other["treasure"]["found"] is False and dummy["treasure"]["game_won"] is False
    assert held["treasure"]["found"] is False  # the location was not captured
    assert _wq_attack(rc, {"men": 3}, {}, [])["treasure"] is None
