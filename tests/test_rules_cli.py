"""rules_check through its command line, in a subprocess: the worked examples, --list and --help, input from
a file, refusals with their exit codes, and a number changed in the data changing the answer after a build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import GAMES, REPO, bundled_kb, run_generator
from rules_helpers import cli

from rules_check.core import CheckId

pytest_plugins = ["rules_fixtures"]  # the fixture rules_data

pytestmark = pytest.mark.integration
KB = bundled_kb()  # loaded once per run (conftest)
EXAMPLES = [e for e in KB.entries.values() if e["kind"] == "example" and "check" in e["example"]]


@pytest.mark.parametrize("entry", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example_through_the_cli(rules_data, entry):
    check = CheckId.parse(entry["example"]["check"])
    done = cli(rules_data, check.game, check.name, stdin=json.dumps(entry["example"]["inputs"]))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    expected = entry["example"]["expected"]
    assert {k: result.get(k) for k in expected} == expected


def test_list_names_every_check_by_game(rules_data):
    done = cli(rules_data, "--list")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert any(line.startswith("citow dominance: ") and "citow/dominance-value" in line for line in lines)
    catalogue = [(game, name) for game, checks in KB.checks.items() for name in checks]
    assert sorted(tuple(line.split(":")[0].split(" ")) for line in lines) == sorted(catalogue)
    assert {line.split(" ")[0] for line in lines} == set(GAMES)  # every game has checks


def test_invalid_input_names_the_field(rules_data):
    done = cli(rules_data, "citow", "battle_hits", stdin='{"dice": "four", "results": [1]}')
    assert done.returncode == 2
    assert "dice" in done.stderr and "is not of type 'integer'" in done.stderr
    done = cli(rules_data, "citow", "battle_hits", stdin="{not json")
    assert done.returncode == 2 and "not JSON" in done.stderr
    done = cli(rules_data, "citow", "nothing", stdin="{}")
    assert done.returncode == 2 and "unknown check" in done.stderr


def test_input_from_a_file(rules_data, tmp_path):
    path = tmp_path / "roll.json"
    path.write_text('{"dice": 2, "results": [6, 1, 4]}', encoding="utf-8")
    done = cli(rules_data, "citow", "battle_hits", str(path))
    assert json.loads(done.stdout) == {"hits": 2, "explosions": 1, "rolls": 3}


def test_a_number_changed_in_the_data_changes_the_answer(tmp_path: Path, bundled_build: Path):
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    # the aids of the other games are the bundled build's (this build lays out only the changed game's again)
    shutil.copytree(bundled_build / "build" / "cards-cache", tmp_path / "build" / "cards-cache")
    path = next(p for p in (data / "games/marauders/chapters").glob("*.yaml") if "id: marauders/victory-point-table" in p.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    assert text.count("vp: 40") == 1
    path.write_text(text.replace("vp: 40", "vp: 45"), encoding="utf-8")
    result = run_generator("build", "--data", str(data), "--out", str(tmp_path))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    one_line = {"lines": [{"completed": False, "cards": 1, "scoring_cards": ["pile_of_loot"]}]}
    done = cli(tmp_path / "rules_check" / "data", "marauders", "score", stdin=json.dumps(one_line))
    assert json.loads(done.stdout)["total"] == 55  # 45 for the Pile of Loot + 10 for the card


def test_a_refusal_quoting_control_characters_of_the_input_is_one_line_of_text(rules_data):
    """A refusal names values from the input (here a faction): a line break or a terminal's escape among them is
    printed as its escape, so the input can neither add lines to the error nor command the terminal."""
    hostile = {"copies_of_game": 1, "factions": ["khorne", "\n\x1b[31mok: nothing wrong"], "position_cards_per_copy": {}}
    done = cli(rules_data, "battlelore", "multiple_copies", stdin=json.dumps(hostile))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "\x1b" not in done.stderr
    assert done.stderr.startswith("error: ") and "\\n\\x1b[31mok: nothing wrong" in done.stderr, done.stderr
