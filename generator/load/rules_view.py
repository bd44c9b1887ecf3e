"""What the hand-written rules_check package reads of the knowledge base, for each game with a checks.yaml:
each check's help line and entries, and the entries it names (English title and text, so --help and
answers can quote them; params; table rows). Written out by render (rules_data.py: rules_check/data/<game>.json),
and run by validate on the data it has just checked, to measure the answer tables (E088); and the English
messages of its refusals, which calculators.yaml translates (E089)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from typing import Any

from rules_check.core import Game, GameData, Refusals, module_name

from ..base.textmatch import strip_links
from .model import Entry, KnowledgeBase


def _english(texts: Mapping[str, str]) -> str:
    return texts.get("en") or next(iter(texts.values()))


def entry_data(entry: Entry) -> dict[str, Any]:
    data: dict[str, Any] = {"title": _english(entry["title"]), "text": re.sub(r"[*_]", "", strip_links(_english(entry["text"])))}
    if "params" in entry:
        data["params"] = entry["params"]
    if "table" in entry:
        data["table"] = entry["table"]["rows"]
    return data


def named_entries(item: Mapping[str, Any]) -> list[str]:
    """Every entry a catalogue item names: implemented, params, tables, cited."""
    return [*item["implements"], *item.get("params", {}), *item.get("tables", []), *item.get("cites", [])]


def checks_and_entries(kb: KnowledgeBase, game: str) -> dict[str, Any]:
    """A game's checks (help, implements, cites) and the entries they name, as rules_check/data/<game>.json holds them."""
    checks = kb.checks[game]
    entry_ids = sorted({entry_id for item in checks.values() for entry_id in named_entries(item)})
    return {
        "checks": {name: {"help": item["help"], "implements": item["implements"], "cites": item.get("cites", [])} for name, item in checks.items()},
        "entries": {entry_id: entry_data(kb.entries[entry_id]) for entry_id in entry_ids},
    }


def label_texts(kb: KnowledgeBase, label: Mapping[str, Any]) -> dict[str, str]:
    """A calculators.yaml label in every language it has: its own texts, or its glossary term's names."""
    return dict(kb.terms[label["term"]]["names"]) if "term" in label else dict(label)


def rules_for(game: str, document: Mapping[str, Any]) -> Game:
    """The game's rules_check `Rules` on a rules_check/data document (game, data_version, checks, entries, say)."""
    data = GameData(game, document["data_version"], document["checks"], document["entries"], document["say"])
    rules: Game = importlib.import_module(f"rules_check.games.{module_name(game)}").Rules(data)
    return rules


def refusal_messages(game: str) -> dict[str, str] | None:
    """The English messages of the game's rules refusals (REFUSALS in its rules_check module: key -> message),
    or None where the rules_check package has no module for the game yet."""
    name = f"rules_check.games.{module_name(game)}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == name:
            return None
        raise
    refusals = getattr(module, "REFUSALS", None)
    return dict(refusals.messages) if isinstance(refusals, Refusals) else {}
