"""rules_check properties (issue 13), drawn by hypothesis over the inputs: what must hold of every answer, not of one
worked example. Each check runs in-process on the data made from the bundled YAML (rules_fixtures), every answer
validated against its output schema."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategy import valid

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
POWERS = ("khorne", "nurgle", "tzeentch", "slaanesh")


# -- Chaos in the Old World ----------------------------------------------------------------------


def _chance(rc, dice: int, hits: int) -> Fraction:
    result = rc.run("citow", "hit_probability", {"dice": dice, "hits": hits})
    exact = Fraction(result["exact"])
    assert 0 <= exact <= 1 and result["probability"] == pytest.approx(float(exact))
    return exact


@SETTINGS
@given(dice=st.integers(0, 7), hits=st.integers(0, 7))
def test_citow_hit_probability_is_a_chance_and_monotone(rc, dice, hits):
    here = _chance(rc, dice, hits)
    assert _chance(rc, dice + 1, hits) >= here  # one more die never lowers the chance of at least `hits` hits
    assert _chance(rc, dice, hits + 1) <= here  # one more required hit never raises it
    if hits == 0:
        assert here == 1


_counts = st.integers(0, 4)
_figures = st.dictionaries(st.sampled_from(POWERS), st.fixed_dictionaries({"cultist": _counts, "warrior": _counts}), max_size=4)
_cards = st.dictionaries(st.sampled_from(POWERS), st.lists(st.fixed_dictionaries({"cost": st.integers(0, 3)}), max_size=2), max_size=4)


@SETTINGS
@given(figures=_figures, cards=_cards, resistance=st.integers(0, 10), conquer=st.integers(0, 10), nobles=st.integers(0, 2), skaven=st.integers(0, 2))
def test_citow_dominance_only_for_the_unique_highest_above_resistance(rc, figures, cards, resistance, conquer, nobles, skaven):
    result = rc.run(
        "citow",
        "dominance",
        {
            "figures": figures,
            "chaos_cards": cards,
            "resistance": resistance,
            "conquer_value": conquer,
            "noble_tokens": nobles,
            "skaven_tokens": skaven,
        },
    )
    values = result["dominance_values"]
    for power in values:  # figures counted one each, whatever their kind, plus the printed card costs
        assert values[power] == sum(figures.get(power, {}).values()) + sum(c["cost"] for c in cards.get(power, []))
    best = max(values.values(), default=None)
    unique = best is not None and list(values.values()).count(best) == 1
    dominant = result["dominant"]
    if unique and best > result["resistance"]:
        assert dominant is not None and values[dominant] == best
    else:
        assert dominant is None
    assert result["vp_gained"] == {p: (result["conquer_value"] if p == dominant else 0) for p in values}


# -- Marauders -----------------------------------------------------------------------------------

MARAUDERS = json.loads((REPO / "rules_check" / "schemas" / "marauders.schema.json").read_text(encoding="utf-8"))


@settings(SETTINGS, max_examples=150)
@given(
    tribes=st.dictionaries(
        st.sampled_from(["green", "red", "blue", "black"]), valid({"$ref": "#/$defs/score_input"}, MARAUDERS["$defs"]), min_size=1, max_size=4
    )
)
def test_marauders_standings_conserve_the_points(rc, tribes):
    if sum(bool(t.get("completed_three_lines_first")) for t in tribes.values()) > 1:
        tribes = {name: {**t, "completed_three_lines_first": False} for name, t in tribes.items()}
    scores = {}
    for name, tribe in tribes.items():
        try:
            scores[name] = rc.run("marauders", "score", tribe)["total"]
        except rc.RulesError:  # a drawn sheet the rules refuse: standings must refuse it too
            with pytest.raises(rc.RulesError):
                rc.run("marauders", "standings", {"tribes": tribes})
    tribes = {name: tribe for name, tribe in tribes.items() if name in scores}  # the sheets the rules accept
    if not tribes:
        return
    result = rc.run("marauders", "standings", {"tribes": tribes})
    assert result["totals"] == scores
    assert sum(row["vp"] for row in result["ranking"]) == sum(scores.values())  # no point made or lost
    assert sorted(row["tribe"] for row in result["ranking"]) == sorted(tribes)


_symbols = st.sampled_from(["orcs", "goblins", "trolls", "idol", "standard", "musician", None])
_sheet = st.lists(st.lists(_symbols, max_size=12), min_size=3, max_size=3)


@settings(SETTINGS, max_examples=120)
@given(lines=_sheet)
def test_marauders_cheating_leaves_no_duplicate_and_loses_no_other_card(rc, lines):
    result = rc.run("marauders", "cheating", {"lines": lines})
    before = [card for spaces in lines for card in spaces if card is not None]
    after = [card for spaces in result["lines"] for card in spaces if card is not None]
    assert sorted(after + [d["card"] for d in result["discarded"]]) == sorted(before)  # every card kept or discarded
    for spaces in result["lines"]:
        symbols = [card for card in spaces if card not in (None, "standard", "musician")]
        assert len(symbols) == len(set(symbols))  # no duplicate left in a battle line
    assert result["cheating"] is bool(result["discarded"])


_frames = st.sampled_from(["purple", "grey", "blue", "red", "green"])


@settings(SETTINGS, max_examples=120)
@given(
    face=st.sampled_from(["orc_eye", "mark_of_chaos"]),
    frames=st.lists(_frames, max_size=6),
    targets=st.lists(st.tuples(st.integers(1, 3), st.integers(1, 12)), max_size=6),
)
def test_marauders_every_card_of_a_broken_line_is_placed_or_discarded(rc, face, frames, targets):
    broken = [{"card": f"card_{i}", "frame": frame} for i, frame in enumerate(frames)]
    placements = [{"card": card["card"], "line": line, "space": space} for card, (line, space) in zip(broken, targets, strict=False)]
    try:
        result = rc.run("marauders", "trophies", {"face": face, "broken_line": broken, "winner_lines": [[], [], []], "placements": placements})
    except rc.RulesError:  # a card the roll discards, or two trophies on one space
        return
    placed = [p["card"] for p in result["placed"]]
    assert sorted(placed + result["not_placed"] + result["discarded_by_the_roll"]) == sorted(c["card"] for c in broken)
    assert not set(placed) & set(result["discarded_by_the_roll"])
    assert result["may_attack_with"] == [] and result["turn_passes"] is True


# -- BattleLore ----------------------------------------------------------------------------------

_hex = st.tuples(st.integers(-5, 5), st.integers(-5, 5))
_terrain = st.dictionaries(_hex, st.sampled_from(["forest", "hill", "building", "command_tent", "water", "ford"]), max_size=12)


def _sight(rc, a, b, terrain, units, ranged):
    return rc.run(
        "battlelore",
        "line_of_sight",
        {
            "attacker": list(a),
            "target": list(b),
            "units": [list(u) for u in units],
            "attacker_ranged": ranged,
            "terrain": [{"hex": list(h), "terrain": t} for h, t in terrain.items()],
        },
    )


_DIAGONALS = [(2, -1), (1, 1), (-1, 2), (-2, 1), (-1, -1), (1, -2)]  # lines along hex edges
_step = st.one_of(_hex, st.builds(lambda d, k: (d[0] * k, d[1] * k), st.sampled_from(_DIAGONALS), st.integers(1, 3)))


@settings(SETTINGS, max_examples=120)
@given(a=_hex, step=_step, terrain=_terrain, units=st.lists(_hex, max_size=8, unique=True), ranged=st.booleans())
def test_battlelore_line_of_sight_is_symmetric(rc, a, step, terrain, units, ranged):
    b = (a[0] + step[0], a[1] + step[1])
    if a == b:
        return
    if ranged and "hill" in (terrain.get(a), terrain.get(b)):
        ranged = False  # a ranged unit on a hill ignores units: the one asymmetry the rules make (battlelore/hill)
    there, back = _sight(rc, a, b, terrain, units, ranged), _sight(rc, b, a, terrain, units, ranged)
    assert there["line_of_sight"] == back["line_of_sight"] and there["range"] == back["range"]
    assert (there["runs_along_edge"], there["through_corner"]) == (back["runs_along_edge"], back["through_corner"])
    crossed = sorted(sorted(map(tuple, s["hexes"])) for s in there["sides"])
    assert crossed == sorted(sorted(map(tuple, s["hexes"])) for s in back["sides"])  # the same hexes, walked back


_NEIGHBOURS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]


def _walk(start, directions):
    """A path of adjacent hexes from `start`, one direction per step."""
    path, here = [], start
    for dq, dr in directions:
        here = (here[0] + dq, here[1] + dr)
        path.append(here)
    return path


def _move(rc, start, path, speed, terrain=(), units=()):
    return rc.run(
        "battlelore",
        "move",
        {
            "start": list(start),
            "path": [list(h) for h in path],
            "march_speed": speed,
            "terrain": [{"hex": list(h), "terrain": t} for h, t in terrain],
            "units": [list(u) for u in units],
        },
    )


@settings(SETTINGS, max_examples=80)
@given(start=_hex, steps=st.lists(st.sampled_from(_NEIGHBOURS), min_size=1, max_size=4), extra=st.integers(0, 3))
def test_battlelore_a_move_over_open_ground_is_legal_both_ways(rc, start, steps, extra):
    """On plains with no other unit, the rules make movement symmetric: a legal path walked back from its
    end is legal too (battlelore/movement)."""
    path = _walk(start, steps)
    if len(set(path) | {start}) != len(path) + 1:
        return  # a path that comes back to a hex it left: not a move anyone makes
    speed = len(path) + extra
    there = _move(rc, start, path, speed)
    back = _move(rc, path[-1], [*reversed(path[:-1]), start], speed)
    assert there["legal"] and back["legal"], (there["problems"], back["problems"])
    assert there["hexes_moved"] == back["hexes_moved"] == len(path)


@settings(SETTINGS, max_examples=80)
@given(
    start=_hex,
    steps=st.lists(st.sampled_from(_NEIGHBOURS), min_size=1, max_size=4),
    terrain=_terrain,
    units=st.lists(_hex, max_size=6, unique=True),
    speed=st.integers(0, 4),
)
def test_battlelore_more_march_speed_never_makes_a_legal_move_illegal(rc, start, steps, terrain, units, speed):
    path = _walk(start, steps)
    others = [u for u in units if u != start]
    slow = _move(rc, start, path, speed, terrain.items(), others)
    fast = _move(rc, start, path, speed + 1, terrain.items(), others)
    assert not slow["legal"] or fast["legal"]
    assert len(path) <= speed or not slow["legal"]  # and a path longer than the speed is never legal


# -- Wizard's Quest: a Battle is fought only against an occupied location -----------------------------------------

_wq_defender = st.one_of(
    st.fixed_dictionaries({}, optional={"men": st.integers(0, 6), "hero": st.booleans()}),
    st.fixed_dictionaries({}, optional={"men": st.integers(0, 6), "sorcerer": st.booleans()}),
    st.fixed_dictionaries({}, optional={"orcs": st.integers(0, 4)}),
)
_wq_battles = st.lists(st.fixed_dictionaries({"attacker_roll": st.integers(1, 6), "defender_roll": st.integers(1, 6)}), max_size=4)


def _wq_occupied(force: dict) -> bool:
    return bool(force.get("men") or force.get("orcs") or force.get("hero") or force.get("sorcerer"))


@SETTINGS
@given(men=st.integers(1, 8), hero=st.booleans(), defender=_wq_defender, battles=_wq_battles)
def test_wq_no_battle_is_fought_against_an_unoccupied_location(rc, men, hero, defender, battles):
    attack = {"attacker": {"men": men, "hero": hero}, "defender": defender, "battles": battles}
    try:
        result = rc.run("wizards-quest", "attack", attack)
    except rc.RulesError as refused:
        message = str(refused)
        if not _wq_occupied(defender) and battles:
            assert "Battle 1: the attacked location is unoccupied" in message
        else:
            assert "the attack is over" in message  # a Battle given after a location was emptied
        return
    assert _wq_occupied(defender) or not battles
    if result["allowed"]:
        before = [defender] + [b["defender_after"] for b in result["battles"]]
        assert all(_wq_occupied(force) for force in before[: len(result["battles"])])  # each Battle had a defender
        if not _wq_occupied(defender):
            assert result["ended"] == "attacked_location_unoccupied" and result["capture"]["must_capture"] is (men > 1 or hero)


# -- Chaos in the Old World: the Old World token supply is finite -------------------------------------------------

_CITOW_SUPPLY = {"noble": 6, "skaven": 6, "warpstone": 14}  # citow/component-list
_REGIONS = ("kislev", "estalia", "norsca", "empire")


@SETTINGS
@given(
    tokens=st.lists(
        st.fixed_dictionaries(
            {}, optional={"noble_tokens": st.integers(0, 6), "skaven_tokens": st.integers(0, 6), "warpstone_tokens": st.integers(0, 14)}
        ),
        min_size=1,
        max_size=4,
    )
)
def test_citow_the_token_supply_never_goes_below_zero(rc, tokens):
    regions = [{"region": name, "resistance": 2, "conquer_value": 2, **spec} for name, spec in zip(_REGIONS, tokens, strict=False)]
    on_board = {kind: sum(r.get(f"{kind}_tokens", 0) for r in regions) for kind in _CITOW_SUPPLY}
    try:
        left = rc.run("citow", "corruption_phase", {"regions": regions})["old_world_tokens_left"]
    except rc.RulesError as refused:
        assert any(on_board[k] > _CITOW_SUPPLY[k] for k in on_board) and "citow/old-world-token-supply" in str(refused)
        return
    assert left == {k: _CITOW_SUPPLY[k] - on_board[k] for k in on_board} and min(left.values()) >= 0


# -- BattleLore: range bands and retreat directions -------------------------------------------------------------------


def _bl_hex_distance(a, b):
    dq, dr = b[0] - a[0], b[1] - a[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


@SETTINGS
@given(a=_hex, b=_hex, low=st.integers(1, 6), width=st.integers(0, 6), more=st.integers(1, 3))
def test_battlelore_more_range_never_makes_a_legal_target_illegal(rc, a, b, low, width, more):
    if a == b:
        return
    high = low + width
    here = _sight(rc, a, b, {}, [], True) | {}
    band = rc.run("battlelore", "line_of_sight", {"attacker": list(a), "target": list(b), "min_range": low, "max_range": high})
    wider = rc.run("battlelore", "line_of_sight", {"attacker": list(a), "target": list(b), "min_range": max(1, low - more), "max_range": high + more})
    assert band["in_range"] == (low <= here["range"] <= high)
    assert not band["in_range"] or wider["in_range"]  # a wider band keeps every target the narrower one allows
    assert band["may_target"] == (band["in_range"] and band["line_of_sight"])


@SETTINGS
@given(a=_hex, b=_hex, retreats=st.integers(1, 4))
def test_battlelore_a_retreat_goes_straight_away_through_the_side_opposite_the_line(rc, a, b, retreats):
    """Each retreat hex is one farther from the attacker (battlelore/retreat: straight away), and the direction is the
    one from the hex the line of sight last crosses (shifted to that side) into the target's hex: it leaves through the
    side opposite the one the line enters by."""
    if a == b:
        return
    sight = rc.run("battlelore", "line_of_sight", {"attacker": list(a), "target": list(b), "retreats": retreats})
    for side, way in zip(sight["sides"], sight["retreat_directions"], strict=True):
        before = tuple(side["hexes"][-1]) if side["hexes"] else a
        assert [b[0] - before[0], b[1] - before[1]] == way
        hexes = [[b[0] + way[0] * k, b[1] + way[1] * k] for k in range(1, retreats + 1)]
        assert [_bl_hex_distance(a, h) for h in hexes] == [sight["range"] + k for k in range(1, retreats + 1)]
    if len(sight["retreat_directions"]) == 1:
        assert sight["retreat_hexes"] == [
            [b[0] + sight["retreat_direction"][0] * k, b[1] + sight["retreat_direction"][1] * k] for k in range(1, retreats + 1)
        ]


# -- BattleLore: heroic results spent for damage (issue 30) ---------------------------------------------------------------


@settings(SETTINGS, max_examples=80)
@given(
    strikes=st.integers(0, 3),
    heroics=st.integers(0, 3),
    spend=st.integers(0, 3),
    health=st.integers(1, 8),
    effect=st.sampled_from(["berserk", "poison", "fury_of_yllan"]),
    ranged=st.booleans(),
)
def test_bl_each_heroic_spent_for_damage_deals_exactly_one_more(rc, strikes, heroics, spend, health, effect, ranged):
    spend = min(spend, heroics)
    kind = "ranged" if ranged else "melee"
    face = "pierce" if ranged else "strike"
    dice = strikes + heroics + (3 if effect == "fury_of_yllan" else 0)
    if dice == 0:
        return
    results = {face: strikes + (3 if effect == "fury_of_yllan" else 0), "heroic": heroics}
    base = {
        "attacker": {"dice": dice - (3 if effect == "fury_of_yllan" else 0), "health": 4, "berserk": True},
        "target": {"dice": 2, "health": health, "poisoned": True},
        "attack_type": kind,
        "results": results,
        "lore_cards": ["fury_of_yllan"] if effect == "fury_of_yllan" else [],
    }
    plain = rc.run("battlelore", "attack", base)
    spent = rc.run("battlelore", "attack", {**base, "heroic_damage": {effect: spend}})
    assert spent["attack"]["damage_dealt"] == plain["attack"]["damage_dealt"] + spend
    assert spent["figures_removed_by_berserk"]["attacker"] == (spend if effect == "berserk" else 0)
    assert spent["attack"]["health_left"] <= plain["attack"]["health_left"]  # more damage never heals


# -- Chaos in the Old World: The Skull Throne and ruined regions (issue 30) ---------------------------------------------


@settings(SETTINGS, max_examples=80)
@given(
    counts=st.dictionaries(st.sampled_from(["cultist", "warrior", "daemon"]), st.integers(0, 6), min_size=1),
    copies=st.integers(1, 3),
    cost=st.integers(0, 3),
)
def test_citow_skull_throne_with_attack_one_is_the_plain_count(rc, counts, copies, cost):
    cards = {"khorne": [{"name": "skull_throne", "cost": cost}] * copies}
    ones = rc.run(
        "citow", "dominance", {"region": "kislev", "figures": {"khorne": counts}, "chaos_cards": cards, "attack_values": {name: 1 for name in counts}}
    )
    plain = rc.run("citow", "dominance", {"region": "kislev", "figures": {"khorne": counts}, "chaos_cards": {"khorne": [{"cost": cost}] * copies}})
    assert ones["dominance_values"] == plain["dominance_values"]  # copies add only their cost


@settings(SETTINGS, max_examples=60)
@given(
    ruined=st.lists(st.sampled_from(["norsca", "kislev", "empire", "estalia", "badlands"]), max_size=5, unique=True),
    region=st.sampled_from(["norsca", "kislev", "empire", "estalia", "badlands"]),
)
def test_citow_a_ruined_region_never_takes_a_chaos_card(rc, ruined, region):
    result = rc.run("citow", "summoning", {"play_card": {"card": "x", "region": region}, "ruined_regions": ruined})
    assert set(ruined) <= set(result["cannot_play_in"])
    assert result["placement_legal"] is (region not in ruined)


# -- Wizard's Quest: the Dragon Attack Phase (issue 30) -----------------------------------------------------------------

_landing = st.fixed_dictionaries(
    {"region": st.integers(1, 6), "territory": st.integers(1, 6), "devour_roll": st.integers(1, 6)},
    optional={"men": st.integers(0, 8), "hero": st.booleans(), "sorcerer": st.booleans()},
)
_orc_landing = st.fixed_dictionaries(
    {"region": st.integers(1, 6), "territory": st.integers(1, 6), "devour_roll": st.integers(1, 6), "orcs": st.integers(0, 4)}
)


@settings(SETTINGS, max_examples=80)
@given(landings=st.lists(st.one_of(_landing, _orc_landing), min_size=1, max_size=5))
def test_wq_the_dragon_devours_at_most_its_roll_and_what_is_there(rc, landings):
    try:
        result = rc.run("wizards-quest", "dragon_phase", {"landings": landings})
    except rc.RulesError:  # a landing after the Dragon stopped
        return
    for landing, step in zip(landings, result["landings"], strict=True):
        there = landing.get("men", 0) + landing.get("orcs", 0) + bool(landing.get("hero")) + bool(landing.get("sorcerer"))
        left = step["left"]
        assert step["devoured"] == min(landing["devour_roll"], there)
        assert there - step["devoured"] == left["men"] + left["orcs"] + left["hero"] + left["sorcerer"]
    assert all(step["moves_on"] for step in result["landings"][:-1])  # it stops only at the last landing


_orc_place = st.one_of(
    st.fixed_dictionaries({"region": st.integers(1, 6), "territory": st.integers(1, 6), "orcs": st.integers(1, 4)}),
    st.fixed_dictionaries({"castle": st.integers(1, 8), "orcs": st.integers(1, 4)}),
)


@settings(SETTINGS, max_examples=80)
@given(rolls=st.lists(st.integers(1, 6), min_size=1, max_size=6), places=st.lists(_orc_place, max_size=8))
def test_wq_orc_growth_never_removes_an_orc_nor_passes_four(rc, rolls, places):
    castles = [{"region": r, "castles": [1, 2]} for r in range(1, 7)]
    result = rc.run("wizards-quest", "orc_phase", {"rolls": rolls, "orc_locations": places, "castles_adjacent_to_region": castles})
    for before, after in zip(places, result["orcs_after_growth"], strict=True):
        assert before["orcs"] <= after["orcs"] <= 4
    assert all(
        any(p == {k: v for k, v in a.items() if k != "orcs"} for a in result["orcs_after_growth"] if a["orcs"] == 4) for p in result["rampage_order"]
    )


@settings(SETTINGS, max_examples=80)
@given(
    kind=st.sampled_from(["player", "orcs", "dragon", "wizard"]),
    here=st.booleans(),
    others=st.booleans(),
    leader=st.sampled_from([None, "hero", "sorcerer"]),
    moment=st.sampled_from(["start", "before_roll"]),
)
def test_wq_a_free_attack_never_has_help(rc, kind, here, others, leader, moment):
    inputs = {
        "target_kind": kind,
        "dragon_or_wizard_in_attacking_location": here,
        "others_in_that_location": others,
        "moment": moment,
        **({"leader_assist": leader} if leader else {}),
    }
    result = rc.run("wizards-quest", "attack_help", inputs)
    if result["free_attack"]:
        assert result["men_assist_allowed"] is False and result["leader_assist_allowed"] in (False, None)
    assert result["free_attack"] is (kind in ("dragon", "wizard") and here)


@settings(SETTINGS, max_examples=60)
@given(
    men=st.integers(1, 6),
    defenders=st.integers(0, 3),
    before=st.integers(0, 2),
    here=st.sampled_from(["own", "another_players", "dummy"]),
    rolls=st.lists(st.integers(1, 6), min_size=2, max_size=2),
)
def test_wq_a_treasure_is_found_only_in_a_captured_location(rc, men, defenders, before, here, rolls):
    battles = [{"attacker_roll": rolls[0], "defender_roll": rolls[1]}] if defenders else []
    result = rc.run(
        "wizards-quest",
        "attack",
        {
            "attacker": {"men": men},
            "defender": {"men": defenders} if defenders else {},
            "battles": battles,
            "treasure_here": here,
            "own_treasures_found_before": before,
        },
    )
    if "treasure" not in result:  # the attack was not allowed
        return
    treasure = result["treasure"]
    assert treasure["own_treasures_found"] in (before, before + 1)
    assert treasure["found"] is (here == "own" and result["capture"]["must_capture"])
    assert treasure["game_won"] is (treasure["own_treasures_found"] >= 3)
