"""rules_check: computes what the rules say, with the numbers of the knowledge base.

    import rules_check
    rules_check.run("citow", "battle_hits", {"dice": 4, "results": [1, 3, 4, 6, 5]})
    rules_check.game("wizards-quest").death_range(side="attacker", men=3)

The logic is hand-written, one module per game under `rules_check/games/` (its id with "_" for "-");
the numbers and the entries' texts come from `data/<game>.json`, which `python -m generator build`
writes from the game's `checks.yaml` and the entries it names. Another data folder can be given as
`data_dir` or in the environment variable RULES_CHECK_DATA. `python -m rules_check --list` lists the checks.
"""

from __future__ import annotations

import importlib
import os
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

from .core import CheckId, DataFileError, Game, GameData, InputError, RulesError, game_id, module_name, validate

DEFAULT_DATA = Path(__file__).resolve().parent / "data"
__all__ = [
    "CheckId",
    "DataFileError",
    "Game",
    "GameData",
    "InputError",
    "RulesError",
    "data_folder",
    "describe",
    "game",
    "available_games",
    "run",
    "validate",
]


def data_folder(data_dir: Path | str | None = None) -> Path:
    """The folder of the data files: the argument, else $RULES_CHECK_DATA, else rules_check/data/."""
    chosen = data_dir if data_dir is not None else os.environ.get("RULES_CHECK_DATA") or DEFAULT_DATA
    return Path(chosen).resolve()


def available_games(data_dir: Path | str | None = None) -> list[str]:
    """The ids of the games that have a data file, sorted."""
    return sorted(path.stem for path in data_folder(data_dir).glob("*.json"))


def game(name: str, data_dir: Path | str | None = None) -> Game:
    """The rules of one game, built from its data file (once per data folder)."""
    return _game(game_id(name), data_folder(data_dir))


@cache
def _game(game: str, folder: Path) -> Game:
    path = folder / f"{game}.json"
    if not path.is_file():
        raise DataFileError(f"no rules data for '{game}' in {folder}; games there: {', '.join(available_games(folder)) or 'none'}")
    module = importlib.import_module(f"{__name__}.games.{module_name(game)}")
    rules: Game = module.Rules(GameData.read(path))
    return rules


def run(game_name: str, check: str, inputs: object, data_dir: Path | str | None = None) -> dict[str, Any]:
    """Validate `inputs` against the check's input schema and run the check; InputError or RulesError if refused."""
    rules = game(game_name, data_dir)
    if check not in rules.check_methods():
        raise KeyError(f"unknown check '{CheckId(game_id(game_name), check).command}'")
    return rules.run(check, inputs)


def describe(game_name: str, check: str, data_dir: Path | str | None = None) -> str:
    """The check's help line, then the English text of each entry it implements, quoted with its id."""
    data = game(game_name, data_dir).data
    info = data.checks[check]
    parts = [f"{CheckId(game_id(game_name), check).command}: {info['help']}"]
    for entry_id in info["implements"]:
        entry = data.entry(entry_id)
        paragraphs = [textwrap.fill(p, 96) for p in entry["text"].split("\n") if p.strip()]
        parts.append(f"{entry_id} ({entry['title']}):\n" + textwrap.indent("\n".join(paragraphs), "    > "))
    return "\n\n".join(parts)
