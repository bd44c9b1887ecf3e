"""Stage 4d, render the rules_check package: hand-written rule logic in Jinja templates, every number
taken from the data, every function's docstring quoting (in English) the entries it implements.

The catalogue (templates/rules_check/catalogue.yaml) names each check's entries; a missing entry or
parameter stops the build with a message naming it, so data and code cannot drift apart silently.
"""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from ruamel.yaml import YAML

from .errors import KbError
from .resolve import Resolved
from .site import environment
from .textmatch import strip_links

TEMPLATES = Path(__file__).resolve().parent / "templates" / "rules_check"
SCHEMAS = Path(__file__).resolve().parent.parent / "schemas" / "rules_check"
BATTLELORE_TERRAIN = {"plains": "battlelore/plains", "forest": "battlelore/forest", "hill": "battlelore/hill", "building": "battlelore/building",
                      "water": "battlelore/water", "ford": "battlelore/ford", "bridge": "battlelore/bridge", "command_tent": "battlelore/command-tent"}


class RulesCheckError(KbError):
    """The data lacks something a check needs (an entry or a parameter)."""
    code = "B003"
    hint = "Add the entry or parameter the rules-check needs, or change the check's catalogue."


def catalogue() -> dict:
    return YAML(typ="safe").load((TEMPLATES / "catalogue.yaml").read_text(encoding="utf-8"))["checks"]


def checks_by_entry() -> dict[str, list[str]]:
    """Entry id -> the checks implementing it, for the site ("Computed by the rules-check")."""
    result: dict[str, list[str]] = {}
    for module, checks in catalogue().items():
        for name, info in checks.items():
            for entry_id in info["implements"]:
                result.setdefault(entry_id, []).append(f"{module}.{name}")
    return result


class DataAccess:
    """What the templates may ask of the data; every miss is a RulesCheckError naming the entry."""

    def __init__(self, resolved: Resolved):
        self.kb = resolved.kb
        self.catalogue = catalogue()

    def entry(self, entry_id: str) -> dict:
        if entry_id not in self.kb.entries:
            raise RulesCheckError(f"rules_check needs entry '{entry_id}', which the data does not have")
        return self.kb.entries[entry_id]

    def param(self, entry_id: str, name: str):
        params = self.entry(entry_id).get("params", {})
        if name not in params:
            raise RulesCheckError(f"rules_check needs params.{name} of entry '{entry_id}'")
        return repr(params[name])

    def ref(self, entry_id: str) -> str:
        self.entry(entry_id)
        return entry_id

    def cite(self, entry_id: str) -> str:
        return f"from {self.ref(entry_id)}"

    def table_rows(self, entry_id: str) -> list[dict]:
        entry = self.entry(entry_id)
        if "table" not in entry:
            raise RulesCheckError(f"rules_check needs the table of entry '{entry_id}'")
        return entry["table"]["rows"]

    def help(self, module: str, name: str) -> str:
        return json.dumps(self.catalogue[module][name]["help"])

    def implements(self, module: str, name: str) -> str:
        ids = self.catalogue[module][name]["implements"]
        for entry_id in ids:
            self.entry(entry_id)
        return json.dumps(ids)

    def doc(self, module: str, name: str) -> str:
        """The check's help, then each implemented entry's English text, quoted, with its id."""
        help_line = self.catalogue[module][name]["help"]
        parts = [help_line[:1].upper() + help_line[1:] + "."]
        for entry_id in self.catalogue[module][name]["implements"]:
            entry = self.entry(entry_id)
            text = entry["text"].get("en") or next(iter(entry["text"].values()))
            plain = re.sub(r"[*_]", "", strip_links(text)).replace('"""', "'''").replace("\\", "\\\\")
            quoted = textwrap.indent("\n".join(textwrap.fill(p, 96) for p in plain.split("\n") if p.strip()), "    > ")
            parts.append(f"{entry_id} ({entry['title'].get('en', '')}):\n{quoted}")
        return "\n\n    ".join(p.replace("\n", "\n    ") if i else p for i, p in enumerate(parts))


def citow_context(data: DataAccess) -> dict:
    card_1 = {}
    for row in data.table_rows("citow/ruination-card-1-table"):
        card_1[_region_key(row["region"]["en"])] = (row["first"], row["second"])
    order = data.entry("citow/standard-region-order")["params"]["order"].split(",")
    setup = data.entry("citow/setup-steps")["params"]
    return {
        "card_1_table": repr(card_1),
        "region_order": repr([r.strip().replace("-", "_") for r in order]),
        "setup": repr({"old_world_cards": {4: setup["old_world_cards_4_players"], 3: setup["old_world_cards_3_players"]},
                       "starting_hand": setup["starting_hand"], "starting_vp": setup["starting_vp"],
                       "start_tokens": {"noble": setup["start_noble_tokens"], "warpstone": setup["start_warpstone_tokens"],
                                        "peasant": setup["start_peasant_tokens"]}}),
    }


def wizards_quest_context(data: DataAccess) -> dict:
    return {"death_range": repr(dict(data.entry("wizards-quest/death-range")["params"])),
            "two_player": repr(data.entry("wizards-quest/two-player-setup")["params"])}


def marauders_context(data: DataAccess) -> dict:
    discards = {}  # die face -> frame colours discarded from the broken line, from params <face>_discards
    for face in ("orc_eye", "mark_of_chaos"):
        colours = data.entry("marauders/attack-roll").get("params", {}).get(f"{face}_discards")
        if not isinstance(colours, str) or not colours.strip():
            raise RulesCheckError(f"rules_check needs params.{face}_discards of entry 'marauders/attack-roll'")
        discards[face] = [c.strip() for c in colours.split(",") if c.strip()]
    return {"vp_table": repr([{k: v for k, v in row.items() if k != "item"}
                              for row in data.table_rows("marauders/victory-point-table")]),
            "attack_discards": repr(discards)}


def battlelore_context(data: DataAccess) -> dict:
    return {
        "bl_dice_table": repr({row["face"]: {k: row[k] for k in ("who", "damage", "retreat_hexes", "lore")}
                               for row in data.table_rows("battlelore/quickref-dice-results")}),
        "bl_terrain": repr({name: dict(data.entry(entry_id).get("params", {})) for name, entry_id in BATTLELORE_TERRAIN.items()}),
    }


# A module per game (its id with "_" for "-"), and what its template needs from the data.
MODULE_CONTEXT = {"citow": citow_context, "wizards_quest": wizards_quest_context,
                  "marauders": marauders_context, "battlelore": battlelore_context}


def _region_key(english_name: str) -> str:
    return re.sub(r"^the_", "", english_name.lower().replace(" ", "_"))


def render_package(resolved: Resolved) -> dict[str, str]:
    """File name under rules_check/ -> content: a module for each game of the data that has checks."""
    data = DataAccess(resolved)
    modules = [m for m in MODULE_CONTEXT if m.replace("_", "-") in resolved.kb.games]
    context = {"data_version": resolved.data_version, "param": data.param, "ref": data.ref, "cite": data.cite,
               "help": data.help, "implements": data.implements, "doc": data.doc, "modules": modules}
    for module in modules:
        context.update(MODULE_CONTEXT[module](data))
    env = environment("rules_check", autoescape=False)  # Python source, not HTML
    files = {}
    for template in ["_core.py.j2", "__init__.py.j2", "__main__.py.j2", *[f"{m}.py.j2" for m in modules]]:
        files[template[:-3]] = env.get_template(template).render(**context)
    for module in modules:
        schema = SCHEMAS / f"{module}.schema.json"
        files[f"schemas/{schema.name}"] = schema.read_text(encoding="utf-8")
    return files
