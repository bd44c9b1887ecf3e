"""JSON Schemas as the generator reads them: every `$ref` inlined (`inlined`, for the data files' schemas
and rules_check's alike), a game's rules_check schemas (`check_schemas`) and the walk to one field of a
check's input (`field_schema`, `whole_numbers`), the one way validate and render find what an input path
names (issues 31, 32: an answer table validate accepts is one render can build)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from rules_check.core import module_name, schema

from .jsontypes import JSON, JSONObject

if TYPE_CHECKING:
    from referencing._core import Resolver  # what Registry.resolver() gives; `referencing` names it only there

NOT_SCHEMAS = ("const", "enum", "default", "examples")  # values, whatever they hold


def inlined(node: JSON, resolver: Resolver[JSON], depth: int = 0) -> JSON:
    """The schema with every `$ref` replaced by what it points at (`resolver`: a `referencing` resolver of its file).

    Same meaning (a `$ref` beside other keywords becomes an `allOf`), but jsonschema no longer
    resolves references while validating, which was two thirds of its time, and a walk along the
    schema's `properties` and `items` meets no reference. A reference nested deeper than 20 (only a
    recursive schema) is left as it is."""
    if isinstance(node, list):
        return [inlined(item, resolver, depth) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node and depth < 20:
        target = resolver.lookup(node["$ref"])
        whole = inlined(target.contents, target.resolver, depth + 1)
        rest = {key: value for key, value in node.items() if key != "$ref"}
        if not rest:
            return whole
        return {**inlined(rest, resolver, depth), "allOf": [whole, *inlined(rest.get("allOf", []), resolver, depth)]}
    return {key: (value if key in NOT_SCHEMAS else inlined(value, resolver, depth)) for key, value in node.items()}


@cache
def check_schemas(game: str) -> dict[str, Any] | None:
    """The `$defs` of the game's rules_check schema file (as rules_check reads it: `core.schema`), every
    `$ref` inlined; None without the file (the rules_check package's to provide)."""
    try:
        document = schema(game)
    except FileNotFoundError:
        return None
    uri = document.get("$id") or f"https://rules-kb.invalid/schemas/rules_check/{module_name(game)}.schema.json"
    resolver = Registry().with_resource(uri, Resource.from_contents(document, default_specification=DRAFT202012)).resolver(uri)
    return {name: inlined(definition, resolver) for name, definition in document["$defs"].items()}


def field_schema(input_schema: Mapping[str, JSON], input_path: str) -> JSONObject | None:
    """The schema of the field at a dotted input path of an inlined input schema: a name is a field
    (`properties`), a digit an item of a list (`items`: "lines.0.cards", the cards of the first line);
    None where the schema has no such field."""
    node: JSON = input_schema
    for part in input_path.split("."):
        node = node.get("items") if part.isdigit() else node.get("properties", {}).get(part)
        if not isinstance(node, dict):
            return None
    found: JSONObject = node
    return found


def whole_numbers(field: Mapping[str, JSON], low: int | None = None, high: int | None = None) -> tuple[int, int | None]:
    """The first and last whole number of a field's schema from `low` (never below its minimum, or 0) up
    to `high`, by default its maximum; the last is None when neither bounds it."""
    first: int = max(field.get("minimum", 0), low or 0)
    last: int | None = high if high is not None else field.get("maximum")
    return first, last
