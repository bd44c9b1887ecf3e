"""Render, rules-check data: for each game with a checks.yaml, `rules_check/data/<game>.json` holding what the
hand-written rules_check package reads from the knowledge base: each check's help line and entries, the
entries it names (English title and text, so --help and answers can quote them; params; table rows), and
`say`: how its answers read in each language (calculators.yaml, glossary names; rules_check/explain.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..base.textmatch import strip_links
from ..load.model import Entry
from ..resolve.resolve import Resolved


def _english(texts: dict) -> str:
    return texts.get("en") or next(iter(texts.values()))


def _entry_data(entry: Entry) -> dict[str, Any]:
    data: dict[str, Any] = {"title": _english(entry["title"]), "text": re.sub(r"[*_]", "", strip_links(_english(entry["text"])))}
    if "params" in entry:
        data["params"] = entry["params"]
    if "table" in entry:
        data["table"] = entry["table"]["rows"]
    return data


def named_entries(item: Mapping[str, Any]) -> list[str]:
    """Every entry a catalogue item names: implemented, params, tables, cited."""
    return [*item["implements"], *item.get("params", {}), *item.get("tables", []), *item.get("cites", [])]


def render_rules_data(resolved: Resolved) -> list[tuple[str, str]]:
    """(file name under rules_check/data/, JSON) for every game that has checks."""
    files = []
    kb = resolved.kb
    for game, checks in sorted(kb.checks.items()):
        entry_ids = sorted({entry_id for item in checks.values() for entry_id in named_entries(item)})
        document = {
            "game": game,
            "data_version": resolved.data_version,
            "checks": {name: {"help": item["help"], "implements": item["implements"], "cites": item.get("cites", [])}
                       for name, item in checks.items()},
            "entries": {entry_id: _entry_data(kb.entries[entry_id]) for entry_id in entry_ids},
            "say": say_data(resolved, game),
        }
        files.append((f"{game}.json", json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n"))
    return files


WORDS = ("yes", "no", "none", "decimal")  # ui.yaml calculator words an answer's values are written with


def label_texts(resolved: Resolved, label: Mapping[str, Any]) -> dict[str, str]:
    """A calculators.yaml label in every language it has: its own texts, or its glossary term's names."""
    return dict(resolved.kb.terms[label["term"]]["names"]) if "term" in label else dict(label)


def say_data(resolved: Resolved, game: str) -> dict[str, Any]:
    """The words of the game's calculators: labels per language, answer templates, yes/no/none/decimal."""
    calculators = resolved.kb.calculators.get(game, {"labels": {}, "checks": {}})
    languages = resolved.kb.languages
    return {
        "labels": {key: label_texts(resolved, label) for key, label in calculators["labels"].items()},
        "words": {lang.code: {word: lang.ui["calculator"][word] for word in WORDS} for lang in languages},
        "checks": {
            name: {"title": item["title"], "answer": item["answer"],
                   "labels": {key: label_texts(resolved, label) for key, label in item.get("labels", {}).items()}}
            for name, item in calculators["checks"].items()
        },
    }
