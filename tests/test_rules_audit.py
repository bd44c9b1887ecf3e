"""rules_check audit (issue 13): each check compared with the entries it says it implements; every condition an entry
states that the check did not enforce has a test here that failed before the fix. Each test names the entry."""

from __future__ import annotations

import pytest

import rules_check

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

pytestmark = pytest.mark.unit


# -- Chaos in the Old World ------------------------------------------------------------------


def test_citow_game_end_tie_break_needs_the_tied_powers_threat(rc):
    """citow/victory-fifty-vp, citow/victory-five-ruined-regions: a VP tie is broken by threat; a tied Power whose
    threat was not given was read as threat 0 and lost."""
    with pytest.raises(rc.RulesError, match="give the threat of nurgle"):
        rc.run("citow", "game_end", {"victory_points": {"khorne": 55, "nurgle": 55}, "threat": {"khorne": 3}})
    with pytest.raises(rc.RulesError, match="give the threat of khorne"):
        rc.run("citow", "game_end", {"victory_points": {"khorne": 20, "nurgle": 20}, "threat": {"nurgle": 1}, "ruined_regions": 5})
    untied = rc.run("citow", "game_end", {"victory_points": {"khorne": 56, "nurgle": 55}, "threat": {"khorne": 3}})
    assert untied["winners"] == ["khorne"]  # no tie: threat is not needed


def test_citow_game_end_greatest_threat_needs_the_tied_powers_vp(rc):
    """citow/victory-greatest-threat: Powers at Victory compare victory points; one not given was read as 0."""
    with pytest.raises(rc.RulesError, match="give the victory points of nurgle"):
        rc.run("citow", "game_end", {"victory_points": {"khorne": 10}, "dials_at_victory": ["khorne", "nurgle"]})


def test_citow_advance_dials_one_instruction_per_tick(rc):
    """citow/advance-threat-dials: each tick turned shows one instruction; instructions for ticks not turned were
    counted (VP for a dial that did not move)."""
    with pytest.raises(rc.RulesError, match="slaanesh's dial turns 0 tick"):
        rc.run(
            "citow",
            "advance_dials",
            {"advancement_counters": {"khorne": 1, "slaanesh": 0}, "dial_instructions_revealed": {"slaanesh": [{"kind": "gain_vp", "count": 5}]}},
        )
    with pytest.raises(rc.RulesError, match="khorne's dial turns 1 tick"):
        rc.run(
            "citow",
            "advance_dials",
            {
                "advancement_counters": {"khorne": 1, "nurgle": 1},
                "dial_instructions_revealed": {"khorne": [{"kind": "gain_vp", "count": 2}, {"kind": "gain_vp", "count": 2}]},
            },
        )


def test_citow_advance_dials_reads_every_instruction_on_the_list(rc):
    """citow/dial-instruction-list: Draw X Chaos Cards, Place X Noble Tokens, Remove X Corruption / Old World Tokens
    were refused as unknown instructions."""
    result = rc.run(
        "citow",
        "advance_dials",
        {
            "advancement_counters": {"khorne": 2, "nurgle": 1},
            "dial_instructions_revealed": {
                "khorne": [{"kind": "draw_chaos_cards", "count": 2}, {"kind": "place_noble_tokens", "count": 1}],
                "nurgle": [{"kind": "remove_old_world_tokens", "count": 2}],
            },
        },
    )
    assert result["chaos_cards_drawn"] == {"khorne": 2} and result["noble_tokens_placed"] == {"khorne": 1}
    assert result["old_world_tokens_to_remove"] == {"nurgle": 2} and result["vp_gained"] == {"khorne": 0, "nurgle": 0}


def test_citow_ruination_participants_include_tokens_placed_earlier_this_round(rc):
    """citow/ruining-a-region with citow/clarify-ruination-participants-this-round: every Power that placed a corruption
    token in the region this round takes part, also by a card before the Corruption step; only cultists counted."""
    result = rc.run(
        "citow", "corruption", {"corruption_before": {"khorne": 6, "nurgle": 4}, "cultists": {"khorne": 2}, "placed_earlier_this_round": ["nurgle"]}
    )
    assert result["participants"] == ["khorne", "nurgle"] and result["vp_gained"] == {"khorne": 3, "nurgle": 3}
    assert result["clarifications"] == ["citow/clarify-ruination-participants-this-round"]
    phase = rc.run(
        "citow",
        "corruption_phase",
        {
            "regions": [
                {
                    "region": "tilea",
                    "corruption_before": {"khorne": 6, "nurgle": 4},
                    "cultists": {"khorne": 2},
                    "placed_earlier_this_round": ["nurgle"],
                }
            ]
        },
    )
    assert phase["vp_gained"]["nurgle"] == 3


def test_citow_end_phase_scorers_follow_the_ties(rc):
    """citow/ruination-scoring-ties: all Powers tied for the most score (only they); with one leader, all tied for
    second score. `end_phase_scorers` listed the first two Powers in order."""

    def scorers(before):
        return rc.run("citow", "corruption", {"corruption_before": before, "cultists": {}})["end_phase_scorers"]

    assert scorers({"khorne": 5, "nurgle": 5, "tzeentch": 5}) == ["khorne", "nurgle", "tzeentch"]
    assert scorers({"khorne": 6, "nurgle": 3, "tzeentch": 3}) == ["khorne", "nurgle", "tzeentch"]
    assert scorers({"khorne": 12}) == ["khorne"]


@pytest.mark.parametrize(
    "check,field", [("corruption", "participants_vp"), ("corruption_phase", "participants_vp"), ("ruination_scoring", "card_values")]
)
def test_citow_help_says_ruination_cards_2_to_5_are_an_input(rules_data, check, field):
    """The sources print only ruination card 1 (citow/ruination-card-1-table): the help line of every check that scores
    a ruination says that cards 2-5 are an input, and names the field."""
    line = rules_check.describe("citow", check, rules_data).split("\n")[0]
    assert "cards 2-5" in line and field in line


def test_citow_ruination_cards_2_to_5_are_never_invented(rc):
    second = rc.run("citow", "corruption", {"corruption_before": {"khorne": 11}, "cultists": {"khorne": 1}, "regions_already_ruined": 1})
    assert second["ruination_card"] == 2 and second["participants_vp"] is None and second["vp_gained"] is None
    given = rc.run(
        "citow", "corruption", {"corruption_before": {"khorne": 11}, "cultists": {"khorne": 1}, "regions_already_ruined": 1, "participants_vp": 4}
    )
    assert given["vp_gained"] == {"khorne": 4}
    with pytest.raises(rc.RulesError, match="card_values"):
        rc.run("citow", "ruination_scoring", {"corruption": {"khorne": 12}, "region": "tilea", "ruination_card": 3})


def test_citow_summoning_with_the_marker_on_zero_is_no_action(rc):
    """citow/summoning-passing-and-end: a player whose power marker shows 0 at the start of his turn takes no action;
    a zero-cost figure or card was answered as a legal action."""
    result = rc.run(
        "citow",
        "summoning",
        {
            "power": "nurgle",
            "power_before": 0,
            "costs": {"plague_touch": 0},
            "play_card": {"card": "plague_touch", "region": "tilea"},
            "card_spaces_taken": {},
        },
    )
    assert result["legal"] is False and result["turn_skipped"] is True
    free = rc.run(
        "citow",
        "summoning",
        {
            "power": "nurgle",
            "power_before": 1,
            "costs": {"plague_touch": 0},
            "play_card": {"card": "plague_touch", "region": "tilea"},
            "card_spaces_taken": {},
        },
    )
    assert free["legal"] is True and "turn_skipped" not in free


def test_citow_battle_says_whether_a_battle_takes_place(rc):
    """citow/battle-phase-overview: a battle is fought only where a Power can roll dice and has a legal target; the
    check never said so (a lone Power's region looked like a battle)."""
    stats = {"cultist": {"attack": 0, "defense": 1}, "warrior": {"attack": 2, "defense": 2}}

    def battle(figures, **more):
        return rc.run("citow", "battle", {"figures": figures, "stats": stats, **more})["battle_takes_place"]

    assert battle({"khorne": {"warrior": 2}}) is False  # nobody to hit
    assert battle({"khorne": {"warrior": 2}}, peasant_tokens=1) is True
    assert battle({"khorne": {"cultist": 2}, "nurgle": {"cultist": 1}}) is False  # no dice
    assert battle({"khorne": {"cultist": 2}, "nurgle": {"warrior": 1}}) is True
    assert battle({"khorne": {"warrior": 1}, "nurgle": {"cultist": 1}}, dice_rolled={"khorne": [1, 2]}) is True


# -- BattleLore ----------------------------------------------------------------------------------


def test_battlelore_pursue_and_skirmish_obey_the_movement_rules(rc):
    """battlelore/movement: its rules apply to every kind of movement; Pursue and Skirmish paths were checked only for
    length and the target's hex, so a pursuit through water or another unit was allowed."""
    board = {"start": [0, 0], "target": [1, 0], "path": [[1, 0], [2, 0]], "terrain": [{"hex": [2, 0], "terrain": "water"}]}
    wet = rc.run("battlelore", "ability_move", {"ability": "pursue", "x": 2, "target_destroyed_or_retreated": True, "board": board})
    assert wet["allowed"] is False and [p["code"] for p in wet["problems"]] == ["impassable"]
    dry = rc.run(
        "battlelore", "ability_move", {"ability": "pursue", "x": 2, "target_destroyed_or_retreated": True, "board": {**board, "terrain": []}}
    )
    assert dry["allowed"] is True and dry["hexes_moved"] == 2
    back = rc.run(
        "battlelore",
        "ability_move",
        {"ability": "pursue", "x": 2, "target_destroyed_or_retreated": True, "board": {**board, "terrain": [], "path": [[1, 0], [0, 0]]}},
    )
    assert [p["code"] for p in back["problems"]] == ["returns_to_start"]
    crowded = rc.run(
        "battlelore", "ability_move", {"ability": "skirmish", "x": 2, "board": {"start": [0, 0], "path": [[0, 1], [0, 2]], "units": [[0, 1]]}}
    )
    assert [p["code"] for p in crowded["problems"]] == ["occupied"]
    with pytest.raises(rc.RulesError, match="not both"):
        rc.run("battlelore", "ability_move", {"ability": "skirmish", "x": 2, "path": ["a"], "board": {"start": [0, 0], "path": []}})


def test_citow_old_world_tokens_are_finite_across_regions(rc):
    """citow/old-world-token-supply with citow/component-list: 6 Skaven, 6 Noble and 14 Warpstone tokens in the box,
    strictly limited; each region's count was bounded, the board's total was not (7 Skaven tokens were accepted)."""
    seven = {"regions": [{"region": "kislev", "skaven_tokens": 4}, {"region": "estalia", "skaven_tokens": 3}]}
    with pytest.raises(
        rc.RulesError,
        match=r"7 Skaven tokens on the board \(kislev 4; estalia 3\), but the game has 6.*"
        r"citow/old-world-token-supply",
    ):
        rc.run("citow", "corruption_phase", seven)
    many = {"regions": [{"region": r, "warpstone_tokens": 5, "resistance": 2, "conquer_value": 2} for r in ("kislev", "estalia", "norsca")]}
    with pytest.raises(rc.RulesError, match="15 Warpstone tokens on the board"):
        rc.run("citow", "corruption_phase", many)
    six = rc.run(
        "citow",
        "corruption_phase",
        {"regions": [{"region": "kislev", "skaven_tokens": 4, "noble_tokens": 6}, {"region": "estalia", "skaven_tokens": 2}]},
    )
    assert six["old_world_tokens_left"] == {"noble": 0, "skaven": 0, "warpstone": 14}


def test_citow_a_power_has_only_its_own_figures_on_the_board(rc):
    """citow/summoning-followers with citow/component-list: Khorne owns 11 figures; 12 across regions were accepted."""
    twelve = {
        "regions": [
            {"region": "kislev", "figures": {"khorne": {"cultist": 4, "warrior": 6}}},
            {"region": "estalia", "figures": {"khorne": {"greater_daemon": 1}}, "cultists": {"khorne": 1}, "resistance": 2, "conquer_value": 2},
        ]
    }
    with pytest.raises(rc.RulesError, match=r"12 figures of khorne on the board \(kislev 10; estalia 2\), but khorne has 11"):
        rc.run("citow", "corruption_phase", twelve)
    twelve["regions"][1]["cultists"] = {"khorne": 0}  # the cultists given apart stand for the figures' cultist class
    assert rc.run("citow", "corruption_phase", twelve)["old_world_tokens_left"]["skaven"] == 6
