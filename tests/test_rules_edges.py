"""rules_check at the edge (issue 13): integers are integers, hostile sizes and shapes end in a clear refusal
(exit 2 with the field, exit 1 with the rule) or an answer in well under a second, never a traceback."""

from __future__ import annotations

import json

import pytest
from rules_helpers import cli

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc


@pytest.mark.unit
@pytest.mark.parametrize(
    "game,check,inputs,field",
    [
        ("citow", "hit_probability", {"dice": 3.0, "hits": 1}, "dice"),
        ("citow", "battle_hits", {"dice": 2.0, "results": [1, 2]}, "dice"),
        ("wizards-quest", "reinforcements", {"kingdom_locations": 5.0}, "kingdom_locations"),
        ("citow", "hero_tokens", {"hero_tokens": 1, "threat": {"khorne": -1}, "figures": {"khorne": 1}}, "threat/khorne"),
        ("citow", "dominance", {"figures": {"khorne": {"cultist": 9}}, "resistance": -5, "conquer_value": -3}, "conquer_value"),
    ],
)
def test_schema_refuses_floats_and_negative_numbers(rc, game, check, inputs, field):
    with pytest.raises(rc.InputError) as refused:
        rc.run(game, check, inputs)
    assert refused.value.field == field


@pytest.mark.unit
def test_unknown_region_is_named_as_such(rc):
    with pytest.raises(rc.RulesError, match="unknown region 'narnia'"):
        rc.run("citow", "dominance", {"region": "narnia", "figures": {"khorne": {"cultist": 4}}})


@pytest.mark.unit
def test_more_hero_tokens_than_the_box_holds_are_refused(rc):
    """The box holds 4 Hero tokens (citow/component-list): 2^63 is refused by the schema (before any work)."""
    with pytest.raises(rc.InputError) as refused:
        rc.run("citow", "hero_tokens", {"hero_tokens": 2**63, "threat": {"khorne": 3}, "figures": {"khorne": 2}})
    assert refused.value.field == "hero_tokens"
    result = rc.run("citow", "hero_tokens", {"hero_tokens": 4, "threat": {"khorne": 3}, "figures": {"khorne": 2}})
    assert result["figures_removed"] == {"khorne": 2} and result["hero_tokens_unused"] == 2


@pytest.mark.integration
@pytest.mark.parametrize(
    "text,message",
    [
        ('{"dice": ' + "9" * 5000 + ', "hits": 1}', "not usable JSON"),
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
        ('{"dice": 3.0, "hits": 1}', "dice: 3.0 is not of type 'integer'"),
    ],
    ids=["5000-digits", "nested-100000-deep", "float-dice"],
)
def test_cli_refuses_hostile_json_with_exit_2(rules_data, text, message):
    done = cli(rules_data, "citow", "hit_probability", stdin=text)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.integration
def test_list_into_a_closed_pipe_ends_quietly(rules_data):
    import os
    import subprocess
    import sys

    env = {**os.environ, "RULES_CHECK_DATA": str(rules_data)}
    done = subprocess.run(f"{sys.executable} -m rules_check --list | head -1", shell=True, capture_output=True, text=True, env=env)
    assert len(done.stdout.splitlines()) == 1 and "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


@pytest.mark.integration
def test_help_of_a_check_quotes_its_entries(rules_data):
    done = cli(rules_data, "wizards_quest", "death_range", "--help")
    assert done.returncode == 0 and done.stdout.startswith("wizards-quest death_range: ")
    assert "wizards-quest/death-range (Death ranges):" in done.stdout
    assert json.loads(cli(rules_data, "wizards-quest", "death_range", stdin='{"side": "attacker", "men": 2}').stdout)["death_range"] == 2
