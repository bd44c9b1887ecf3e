"""JSON Schemas as the generator reads them: every `$ref` inlined (`inlined`)."""

from __future__ import annotations

from typing import Any

NOT_SCHEMAS = ("const", "enum", "default", "examples")  # values, whatever they hold


def inlined(node: Any, resolver: Any, depth: int = 0) -> Any:
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
