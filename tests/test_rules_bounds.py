"""rules_check input schemas are bounded (issue 13): every integer has a maximum, every array, string and open object
a size limit, so that every answer comes well under a second; a bound that the components imply names its data param
(`x-bound: entry#param`) and must equal it."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, bundled_kb

pytestmark = pytest.mark.unit
KB = bundled_kb()  # loaded once per run (conftest)
SCHEMAS = {path.stem.split(".")[0]: json.loads(path.read_text(encoding="utf-8")) for path in (REPO / "rules_check" / "schemas").glob("*.schema.json")}


def _nodes(node, path=""):
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _nodes(item, f"{path}[{i}]")
    elif isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _nodes(value, f"{path}/{key}")


def _input_nodes():
    for game, schema in SCHEMAS.items():
        for name, definition in schema["$defs"].items():
            if not name.endswith("_output"):
                for path, node in _nodes(definition):
                    yield f"{game}:{name}{path}", node


def _types(node) -> list:
    kind = node.get("type")
    return kind if isinstance(kind, list) else [kind]


def test_every_input_number_and_size_is_bounded():
    unbounded = []
    for where, node in _input_nodes():
        kinds = _types(node)
        if "integer" in kinds and not ("maximum" in node and "minimum" in node):
            unbounded.append(where)
        if "array" in kinds and "maxItems" not in node:
            unbounded.append(where)
        if "string" in kinds and not any(k in node for k in ("maxLength", "enum", "const")):
            unbounded.append(where)
        if "object" in kinds and isinstance(node.get("additionalProperties"), dict) and "maxProperties" not in node and "propertyNames" not in node:
            unbounded.append(where)
    assert unbounded == []


def test_bounds_from_the_components_equal_the_data():
    named = [(where, node) for where, node in _input_nodes() if "x-bound" in node]
    assert len(named) >= 15
    for where, node in named:
        entry_id, param = node["x-bound"].split("#")
        assert KB.entries[entry_id]["params"][param] == node["maximum"], where


def test_readme_lists_every_check_by_game():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = {
        tuple(cell.strip().strip("`") for cell in line.split("|")[1:3])
        for line in readme.splitlines()
        if line.startswith("| ") and line.count("`") == 2
    }
    assert {(game, name) for game, checks in KB.checks.items() for name in checks} <= listed
