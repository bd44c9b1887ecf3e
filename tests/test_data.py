"""The bundled data is complete: every source line accounted for, every entry translated, the
glossaries hold INVENTORY §5's terms, and every worked example of INVENTORY §2 is an example entry."""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO, bundled_kb, run_generator

from generator.base.linerange import range_lines

KB = bundled_kb()  # loaded once per run (conftest)


def test_every_non_blank_line_is_traced_or_noise():
    result = run_generator("coverage", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert sorted(report) == [
        "000_34b1f9930e61c4d6.txt",
        "001_3ee29d774e4cebac.txt",
        "002_c316e57dcfc8c1c6.txt",
        "003_fdafb84476611fdf.txt",
        "004_ae0a2c01eb1be76e.txt",
    ]
    for name, counts in report.items():
        assert counts["untraced"] == [], name
        assert counts["traced"] + counts["noise"] == counts["lines"] > 0, name


def test_coverage_counts_match_the_inventory():
    """Non-blank line counts as INVENTORY.md gives them (NBSP-only lines count as blank)."""
    report = json.loads(run_generator("coverage", "--json").stdout)
    assert {n: r["lines"] for n, r in report.items()} == {
        "000_34b1f9930e61c4d6.txt": 211,
        "001_3ee29d774e4cebac.txt": 177,
        "002_c316e57dcfc8c1c6.txt": 515,
        "003_fdafb84476611fdf.txt": 765,
        "004_ae0a2c01eb1be76e.txt": 172,
    }


def test_an_untraced_line_is_reported(tmp_path):
    """Take one noise range out: its lines must show up as untraced."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    noise = data / "games/citow/noise/d.yaml"
    text = noise.read_text(encoding="utf-8")
    line = next(row for row in text.splitlines() if "class: legal" in row)
    noise.write_text(text.replace(line + "\n", ""), encoding="utf-8")
    report = json.loads(run_generator("coverage", "--data", str(data), "--json").stdout)
    assert report["003_fdafb84476611fdf.txt"]["untraced"] == [1415]


@pytest.mark.parametrize("game", sorted(KB.games))
def test_every_entry_has_its_required_languages(game):
    required = set(KB.games[game]["required_languages"]) | {"en"}
    for entry in KB.entries_of(game):
        assert required <= set(entry["text"]) and required <= set(entry["title"]), entry["id"]
        for lang, origin in entry["origin"].items():
            if lang == "en" and "source" not in origin:
                assert "translated_from" in origin or "authored" in origin, entry["id"]


def english_names(game: str) -> set[str]:
    names = set()
    for term in KB.terms_of(game):
        names.add(term["names"]["en"].lower())
        names.update(v.lower() for v in term.get("variants", {}).get("en", []))
    return names


INVENTORY_TERMS = {  # INVENTORY §5, English column (first option where several are given)
    "citow": [
        "Ruinous Powers",
        "Khorne",
        "Nurgle",
        "Tzeentch",
        "Slaanesh",
        "Old World",
        "victory points",
        "threat dial",
        "threat",
        "tick",
        "dial advancement counter",
        "power points",
        "power sheet",
        "Chaos cards",
        "upgrade cards",
        "Old World cards",
        "ruination cards",
        "ruined region",
        "corruption tokens",
        "Domination step",
        "dominance value",
        "resistance",
        "followers",
        "cultist",
        "warrior",
        "greater daemon",
        "Bloodletters",
        "Great Unclean One",
        "Acolytes",
        "Horrors",
        "Lord of Change",
        "Seducers",
        "Daemonettes",
        "Keeper of Secrets",
        "summon",
        "adjacent",
        "battle dice",
        "hit",
        "explosion",
        "Hero token",
        "Noble token",
        "Peasant token",
        "Skaven token",
        "Warpstone token",
        "Event token",
        "twin-tailed comet",
        "magic symbol",
        "region order",
        "Power order",
        "Norsca",
        "Kislev",
        "Estalia",
        "Tilea",
        "Teleport",
        "Blood Frenzy",
        "Rain of Pus",
    ],
    "marauders": [
        "Chaos Marauders",
        "line",
        "completed line",
        "Musician",
        "attack rating",
        "war machine",
        "crew",
        "snotlings",
        "end-of-turn card",
        "duplicate",
        "ownership markers",
        "card reference booklet",
    ],
    "battlelore": [
        "unit",
        "hex",
        "command card",
        "lore",
        "range",
        "line of sight",
        "retreat",
        "support",
        "weakened unit",
        "flying",
        "stun",
        "poison",
        "rage",
        "flanking",
        "counterattack",
        "advance",
    ],
    "wizards-quest": [
        "Marnon",
        "warlord",
        "Hero",
        "Dragon",
        "Orcs",
        "castle",
        "region",
        "territory",
        "location",
        "Great Tunnel",
        "bridge",
        "forest",
        "mountains",
        "scatter",
        "death range",
        "reinforcement",
        "dummy treasure",
        "Golden Dunes",
        "Crystal Mountains",
    ],
}


def _known(name: str, names: set[str]) -> bool:
    name = name.lower()
    singular = re.sub(r"s$", "", name)
    return any(n == name or n == singular or re.sub(r"s$", "", n) == singular or n.startswith(name) for n in names)


@pytest.mark.parametrize("game", sorted(INVENTORY_TERMS))
def test_glossary_holds_the_inventory_terms(game):
    names = english_names(game)
    missing = [t for t in INVENTORY_TERMS[game] if not _known(t, names)]
    assert missing == []


@pytest.mark.parametrize("game", sorted(KB.games))
def test_glossary_terms_name_every_game_language(game):
    for term in KB.terms_of(game):
        assert set(KB.games[game]["languages"]) <= set(term["names"]), term["id"]


def test_citow_variant_spellings_are_in_the_glossary():
    variants = {v for t in KB.terms_of("citow") for lang in ("pl", "ru") for v in t.get("variants", {}).get(lang, []) + [t["names"].get(lang, "")]}
    for spelling in (
        "Кхорн",
        "Ххорн",
        "Тзинч",
        "Тзиинч",
        "Krwiopuszczycy",
        "Krwiopuscze",
        "Krwiopuszczka",
        "Krwiopuszczki",
        "Krwiopuszcz",
        "Krwiopuszczca",
        "Krwiopuszczcowi",
    ):
        assert spelling in variants, spelling


# INVENTORY §2: every worked example with its first source line.
WORKED_EXAMPLES = {
    "C1": ("citow-pl", 409),
    "C2": ("citow-pl", 473),
    "C3": ("citow-pl", 475),
    "C4": ("citow-pl", 515),
    "C5": ("citow-pl", 519),
    "C6": ("citow-pl", 521),
    "C7": ("citow-pl", 541),
    "C8": ("citow-pl", 588),
    "C9": ("citow-pl", 594),
    "C10": ("citow-pl", 620),
    "C11": ("citow-pl", 628),
    "C12": ("citow-pl", 666),
    "C13": ("citow-pl", 678),
    "C14": ("citow-pl", 686),
    "C15": ("citow-pl", 752),
    "C16": ("citow-pl", 771),
    "C17": ("citow-pl", 818),
    "C18": ("citow-pl", 828),
    "C19": ("citow-pl", 838),
    "C20": ("citow-pl", 846),
    "C21": ("citow-pl", 930),
    "C22": ("citow-pl", 981),
    "C23": ("citow-ru", 107),
    "C24": ("citow-ru", 185),
    "C25": ("citow-ru", 191),
    "C26": ("citow-ru", 226),
    "M1": ("marauders-ru", 241),
    "W1": ("wizards-quest-ru", 176),
    "W2": ("wizards-quest-ru", 178),
    "W3": ("wizards-quest-ru", 180),
    "W4": ("wizards-quest-ru", 182),
    "W5": ("wizards-quest-ru", 184),
    "W6": ("wizards-quest-ru", 188),
    "W7": ("wizards-quest-ru", 194),
    "B1": ("battlelore-ru", 202),
    "B2": ("battlelore-ru", 339),
    "B4": ("battlelore-ru", 385),
    "B5": ("battlelore-ru", 394),
    "B6": ("battlelore-ru", 413),
    "B8": ("battlelore-ru", 586),
    "B9": ("battlelore-ru", 592),
    "B11": ("battlelore-ru", 496),
}


@pytest.mark.parametrize("example", sorted(WORKED_EXAMPLES))
def test_every_worked_example_is_an_example_entry(example):
    """Carried from its lines, or (where the source states it inside a rule) authored and naming the line."""
    source, line = WORKED_EXAMPLES[example]
    game = KB.sources[source].game
    examples = [e for e in KB.entries_of(game) if e["kind"] == "example"]
    cited = [e["id"] for e in examples if any(o.get("source") == source and line in range_lines(o["lines"]) for o in e["origin"].values())]
    named = [e["id"] for e in examples if re.search(rf"\b{example}\b", e["example"].get("note", ""))]
    assert cited or named, f"{example} ({source}:{line}) has no example entry"
    for entry_id in cited + named:
        entry = KB.entries[entry_id]
        assert entry["example"]["inputs"] and entry["example"]["expected"], entry_id


def _per_language_values(node, path=()):
    """(path, mapping) of every per-language text mapping under a node (keys are language codes)."""
    if isinstance(node, dict):
        if node and set(node) <= set(KB.languages.codes) and all(isinstance(v, str) for v in node.values()):
            yield path, node
            return
        for key, value in node.items():
            if key not in ("origin", "variants", "forms", "statements", "status", "status_source"):
                yield from _per_language_values(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _per_language_values(value, (*path, i))


def test_every_item_is_whole_in_every_language_of_the_sections_that_hold_its_game():
    """No section shows a fallback: every title, text, summary, table cell and note, glossary name and
    aid title of a game is there in each language the game is offered in, and each of those languages
    is required (validate enforces it from then on)."""
    missing = []
    for game_id, game in KB.games.items():
        assert set(game["languages"]) == set(game["required_languages"]), game_id
        items = [*KB.entries_of(game_id), *(c.data for c in KB.chapters_of(game_id)), *KB.terms_of(game_id), game]
        if game_id in KB.aids:
            items.append(KB.aids[game_id])
        for item in items:
            for path, values in _per_language_values(item):
                lacking = set(game["languages"]) - set(values)
                if lacking:
                    missing.append((item.get("id", game_id), path, sorted(lacking)))
    assert missing == []


def test_every_term_has_a_gloss_and_every_clarification_its_ruling_sentence():
    """What a tap on a term shows first (its gloss) and what a callout says first (the ruling in one
    sentence, with the date it was reviewed) exist for every term and clarification, in every language."""
    lacking = []
    for game_id, game in KB.games.items():
        wanted = set(game["languages"])
        lacking += [t["id"] for t in KB.terms_of(game_id) if wanted - set(t.get("gloss", {}))]
        lacking += [
            e["id"]
            for e in KB.entries_of(game_id)
            if e["kind"] == "clarification" and (wanted - set(e["clarification"].get("ruling", {})) or "reviewed" not in e["clarification"])
        ]
    assert lacking == []
