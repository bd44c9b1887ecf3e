"""Render, rules-check data: for each game with a checks.yaml, `rules_check/data/<game>.json` holding what the
hand-written rules_check package reads from the knowledge base (load/rules_view.py: each check's help line
and entries, the entries it names), and `say`: how its answers read in each language (calculators.yaml,
glossary names; rules_check/explain.py).
"""

from __future__ import annotations

import json
from typing import Any

from ..load.rules_view import checks_and_entries, label_texts
from ..resolve.resolve import Resolved


def render_rules_data(resolved: Resolved) -> list[tuple[str, str]]:
    """(file name under rules_check/data/, JSON) for every game that has checks."""
    files = []
    kb = resolved.kb
    for game in sorted(kb.checks):
        document = {"game": game, "data_version": resolved.data_version, **checks_and_entries(kb, game), "say": say_data(resolved, game)}
        files.append((f"{game}.json", json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n"))
    return files


WORDS = ("yes", "no", "none", "decimal", "input")  # ui.yaml calculator words an answer's values and refused fields are said with


def say_data(resolved: Resolved, game: str) -> dict[str, Any]:
    """The words of the game's calculators: labels per language, answer templates, yes/no/none/decimal, and the
    rules refusals in the languages other than English."""
    calculators = resolved.kb.calculators.get(game, {"labels": {}, "checks": {}})
    languages = resolved.kb.languages
    return {
        "labels": {key: label_texts(resolved.kb, label) for key, label in calculators["labels"].items()},
        "words": {lang.code: {word: lang.ui["calculator"][word] for word in WORDS} for lang in languages},
        "checks": {
            name: {
                "title": item["title"],
                "answer": item["answer"],
                "labels": {key: label_texts(resolved.kb, label) for key, label in item.get("labels", {}).items()},
            }
            for name, item in calculators["checks"].items()
        },
        "refusals": calculators.get("refusals", {}),
    }
