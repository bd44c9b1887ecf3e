"""Shape checks: every document against its JSON Schema (draft 2020-12) in schemas/."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import fastjsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from .problems import Problems
from .yamlio import Positions

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
BASE = "https://rules-kb.invalid/schemas/"
SCHEMA_OF_KIND = {
    "manifest": "manifest.schema.json",
    "game": "game.schema.json",
    "glossary": "glossary.schema.json",
    "noise": "noise.schema.json",
    "chapter": "chapter.schema.json",
    "cards": "cards.schema.json",
    "language": "language.schema.json",
    "ui": "ui.schema.json",
    "checks": "checks.schema.json",
}
CODE_OF_VALIDATOR = {
    "required": "E011", "dependentRequired": "E011",
    "type": "E012",
    "additionalProperties": "E013", "unevaluatedProperties": "E013",
    "enum": "E014", "const": "E014", "pattern": "E014", "propertyNames": "E014", "minLength": "E014",
    "minItems": "E014", "maxItems": "E014", "uniqueItems": "E014", "minimum": "E014", "maximum": "E014",
    "minProperties": "E014",
}


@lru_cache(maxsize=None)
def registry() -> Registry:
    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((BASE + path.name, Resource.from_contents(contents)))
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def inlined_schema(schema_file: str) -> dict:
    resolver = registry().resolver(BASE + schema_file)
    return _inlined(resolver.lookup(BASE + schema_file).contents, resolver, depth=0)


@lru_cache(maxsize=None)
def validator_for(schema_file: str) -> Draft202012Validator:
    """jsonschema's validator: exact draft 2020-12, and the errors it explains are what we report."""
    return Draft202012Validator(inlined_schema(schema_file), registry=registry())


# Keywords whose meaning is the same in draft-07 (what fastjsonschema compiles) and draft 2020-12.
SUBSCHEMA_KEYWORDS = {"items", "additionalProperties", "propertyNames", "if", "then", "else", "not"}
SUBSCHEMA_LIST_KEYWORDS = {"allOf", "anyOf", "oneOf"}
SUBSCHEMA_MAP_KEYWORDS = {"properties", "$defs"}
PLAIN_KEYWORDS = {"type", "enum", "const", "required", "pattern", "minLength", "maxLength", "minimum", "maximum",
                  "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
                  "title", "description", "$comment", "$id", "$schema", "default", "examples"}


def _same_in_draft7(schema) -> bool:
    """Whether every keyword of the schema means the same in draft-07 as in draft 2020-12."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key in SUBSCHEMA_KEYWORDS:
            ok = _same_in_draft7(value)
        elif key in SUBSCHEMA_LIST_KEYWORDS:
            ok = isinstance(value, list) and all(_same_in_draft7(v) for v in value)
        elif key in SUBSCHEMA_MAP_KEYWORDS:
            ok = isinstance(value, dict) and all(_same_in_draft7(v) for v in value.values())
        else:
            ok = key in PLAIN_KEYWORDS
        if not ok:
            return False
    return True


@lru_cache(maxsize=None)
def quick_check_for(schema_file: str):
    """A compiled yes/no check (fastjsonschema) for documents that are valid, which is nearly all of
    them; jsonschema then explains only the documents that fail. None if the schema uses a
    keyword whose meaning changed between the drafts (then jsonschema checks everything)."""
    schema = inlined_schema(schema_file)
    if not _same_in_draft7(schema):
        return None
    schema = {key: value for key, value in schema.items() if key not in ("$id", "$defs")}
    return fastjsonschema.compile({**schema, "$schema": "http://json-schema.org/draft-07/schema#"})


def _inlined(schema, resolver, depth: int):
    """The schema with every `$ref` replaced by what it points at.

    Same meaning (a `$ref` beside other keywords becomes an `allOf`), but jsonschema no longer
    resolves references while validating, which was two thirds of its time. A reference nested
    deeper than 20 (only a recursive schema) is left as it is."""
    if isinstance(schema, list):
        return [_inlined(item, resolver, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema and depth < 20:
        target = resolver.lookup(schema["$ref"])
        inlined = _inlined(target.contents, target.resolver, depth + 1)
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        if not rest:
            return inlined
        return {**_inlined(rest, resolver, depth), "allOf": [inlined, *_inlined(rest.get("allOf", []), resolver, depth)]}
    return {key: (value if key in ("const", "enum", "default", "examples") else _inlined(value, resolver, depth))
            for key, value in schema.items()}


def _most_specific(error: ValidationError) -> ValidationError:
    """oneOf/anyOf errors say little; descend to the branch that came closest."""
    while error.context:
        error = best_match(error.context)
    return error


def check_shape(kind: str, document, shown_path: str, positions: Positions, problems: Problems) -> set[tuple]:
    """Report schema problems; return the JSON paths of the items that failed.

    Returns the paths so that later checks skip exactly the broken items (reported here)
    and still check everything else in the file.
    """
    failed: set[tuple] = set()
    quick_check = quick_check_for(SCHEMA_OF_KIND[kind])
    if quick_check is not None:
        try:
            quick_check(document)
            return failed
        except fastjsonschema.JsonSchemaException:
            pass  # jsonschema says what is wrong, below
    for error in validator_for(SCHEMA_OF_KIND[kind]).iter_errors(document):
        error = _most_specific(error)
        path = list(error.absolute_path)
        failed.add(tuple(path))
        code = CODE_OF_VALIDATOR.get(error.validator, "E014")
        where = "/".join(str(p) for p in path) or "(top level)"
        if code == "E013" and isinstance(error.instance, dict):
            allowed = set(error.schema.get("properties", {}))
            for key in error.instance:
                if key not in allowed:
                    problems.add(shown_path, positions.of_key(path, key), "E013",
                                 f"unknown field '{key}' in {where}")
            continue
        message = error.message if len(error.message) < 300 else error.message[:300] + "…"
        problems.add(shown_path, positions.of(path), code, f"{where}: {message}")
    return failed


def is_inside_failed(path: tuple, failed: set[tuple]) -> bool:
    """True if `path` or anything below it failed the schema."""
    return any(f[: len(path)] == path for f in failed)
