"""Fixtures of the rules_check tests (loaded with `pytest_plugins = ["rules_fixtures"]`): the data files made
in-process from the bundled data, and the four games built from them with every answer validated."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import GAMES, bundled_resolved
from rules_helpers import OutputChecked, make_rules_data

import rules_check
from rules_check.core import module_name


@pytest.fixture(scope="session")
def rules_data(tmp_path_factory) -> Path:
    return make_rules_data(bundled_resolved(), tmp_path_factory.mktemp("rules-data"))


@pytest.fixture(scope="session")
def rc(rules_data: Path) -> SimpleNamespace:
    """The games (rc.citow, rc.wizards_quest, ...), the errors, and run() with the output checked."""

    def run(game: str, check: str, inputs: dict) -> dict:
        result = rules_check.run(game, check, inputs, rules_data)
        rules_check.validate(game, check, "output", result)
        return result

    games = {module_name(game): OutputChecked(rules_check.game(game, rules_data)) for game in GAMES}
    return SimpleNamespace(**games, run=run, RulesError=rules_check.RulesError, InputError=rules_check.InputError)
