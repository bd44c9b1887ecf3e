"""Shape checks: every document against its JSON Schema (draft 2020-12) in schemas/."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from .problems import Problems
from .yamlio import key_position, position_of

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
BASE = "https://rules-kb.invalid/schemas/"
SCHEMA_OF_KIND = {
    "manifest": "manifest.schema.json",
    "game": "game.schema.json",
    "glossary": "glossary.schema.json",
    "noise": "noise.schema.json",
    "chapter": "chapter.schema.json",
    "cards": "cards.schema.json",
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
def validator_for(schema_file: str) -> Draft202012Validator:
    schema = registry().get_or_retrieve(BASE + schema_file).value.contents
    return Draft202012Validator(schema, registry=registry())


def _most_specific(error: ValidationError) -> ValidationError:
    """oneOf/anyOf errors say little; descend to the branch that came closest."""
    while error.context:
        error = best_match(error.context)
    return error


def check_shape(kind: str, document, shown_path: str, problems: Problems) -> set[tuple]:
    """Report schema problems; return the JSON paths of the items that failed.

    Returns the paths so that later checks skip exactly the broken items (reported here)
    and still check everything else in the file.
    """
    failed: set[tuple] = set()
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
                    problems.add(shown_path, key_position(document, path, key), "E013",
                                 f"unknown field '{key}' in {where}")
            continue
        message = error.message if len(error.message) < 300 else error.message[:300] + "…"
        problems.add(shown_path, position_of(document, path), code, f"{where}: {message}")
    return failed


def is_inside_failed(path: tuple, failed: set[tuple]) -> bool:
    """True if `path` or anything below it failed the schema."""
    return any(f[: len(path)] == path for f in failed)
