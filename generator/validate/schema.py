"""Shape checks: every document against its JSON Schema (draft 2020-12) in schemas/."""

from __future__ import annotations

import difflib
import itertools
import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from ..base.json_schema import inlined
from ..base.jsontypes import JSON, JSONObject, JSONPath
from ..base.paths import SCHEMAS
from ..base.problems import Problems
from ..load.yamlio import Positions, run_together

BASE = "https://rules-kb.invalid/schemas/"
SCHEMA_OF_KIND = {
    "manifest": "manifest.schema.json",
    "game": "game.schema.json",
    "glossary": "glossary.schema.json",
    "noise": "noise.schema.json",
    "chapter": "chapter.schema.json",
    "cards": "cards.schema.json",
    "calculators": "calculators.schema.json",
    "language": "language.schema.json",
    "ui": "ui.schema.json",
    "synonyms": "synonyms.schema.json",
    "checks": "checks.schema.json",
}
CODE_OF_VALIDATOR = {
    "required": "E011",
    "dependentRequired": "E011",
    "type": "E012",
    "additionalProperties": "E013",
    "unevaluatedProperties": "E013",
    "enum": "E014",
    "const": "E014",
    "pattern": "E014",
    "propertyNames": "E014",
    "minLength": "E014",
    "minItems": "E014",
    "maxItems": "E014",
    "uniqueItems": "E014",
    "minimum": "E014",
    "maximum": "E014",
    "minProperties": "E014",
}


@cache
def registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((BASE + path.name, Resource.from_contents(contents)))
    return Registry().with_resources(resources)


@cache
def inlined_schema(schema_file: str) -> JSONObject:
    resolver = registry().resolver(BASE + schema_file)
    schema: JSONObject = inlined(resolver.lookup(BASE + schema_file).contents, resolver)
    return schema


@cache
def validator_for(schema_file: str) -> Draft202012Validator:
    """jsonschema's validator: exact draft 2020-12, and the errors it explains are what we report."""
    return Draft202012Validator(inlined_schema(schema_file), registry=registry())


# Keywords whose meaning is the same in draft-07 (what fastjsonschema compiles) and draft 2020-12.
SUBSCHEMA_KEYWORDS = {"items", "additionalProperties", "propertyNames", "if", "then", "else", "not"}
SUBSCHEMA_LIST_KEYWORDS = {"allOf", "anyOf", "oneOf"}
SUBSCHEMA_MAP_KEYWORDS = {"properties", "patternProperties", "$defs"}
PLAIN_KEYWORDS = {
    "type",
    "enum",
    "const",
    "required",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "title",
    "description",
    "$comment",
    "$id",
    "$schema",
    "default",
    "examples",
}


def _same_in_draft7(schema: JSON) -> bool:
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


@cache
def quick_check_for(schema_file: str) -> Callable[[JSON], JSON] | None:
    """A compiled yes/no check (fastjsonschema) for documents that are valid, which is nearly all of
    them; jsonschema then explains only the documents that fail. None if the schema uses a
    keyword whose meaning changed between the drafts (then jsonschema checks everything)."""
    schema = inlined_schema(schema_file)
    if not _same_in_draft7(schema):
        return None
    schema = {key: value for key, value in schema.items() if key not in ("$id", "$defs")}
    # yes or no is all it answers (jsonschema explains): no messages built for the branches of a oneOf
    # that fail; fastjsonschema 2.21 cannot leave out the message of a `const`, so it gets its `enum` twin
    check: Callable[[JSON], JSON] = fastjsonschema.compile(
        {**_const_as_enum(schema), "$schema": "http://json-schema.org/draft-07/schema#"}, detailed_exceptions=False
    )
    return check


def fits_schema(schema_file: str, document: JSON) -> bool:
    """Whether a document is valid against a schema: the compiled check first (`quick_check_for`), jsonschema only where
    there is none or it fails (each `serve` rebuild asked jsonschema of every calculators.yaml: 0.1 s at 1×)."""
    quick_check = quick_check_for(schema_file)
    if quick_check is not None:
        try:
            quick_check(document)
            return True
        except fastjsonschema.JsonSchemaException:
            pass
    return bool(validator_for(schema_file).is_valid(document))


def _const_as_enum(schema: JSON) -> JSON:
    """The schema with each `const: x` written `enum: [x]`, which means the same."""
    if isinstance(schema, list):
        return [_const_as_enum(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in NAMED_SCHEMAS:  # names of properties, not keywords
            out[key] = {name: _const_as_enum(item) for name, item in value.items()}
        elif key == "const":
            out["enum"] = [value]
        else:
            out[key] = value if key in ("enum", "default", "examples") else _const_as_enum(value)
    return out


NAMED_SCHEMAS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")


def _most_specific(error: ValidationError) -> ValidationError:
    """oneOf/anyOf errors say little; descend to the branch that came closest.

    The branch meant is the one whose own fields the item has (only something inside it fails:
    `{source: x, lines: "1-9999999"}` is a source origin with a bad line range, not a translation
    missing `translated_from`); failing that, jsonschema's best match."""
    while error.context:
        branches: dict[str | int, list[ValidationError]] = {}
        for branch_error in error.context:
            branches.setdefault(branch_error.relative_schema_path[0], []).append(branch_error)
        fitting = [errors for errors in branches.values() if all(e.relative_path for e in errors)]
        error = best_match(fitting[0] if len(fitting) == 1 else error.context)
    return error


UNKNOWN_FIELD_VALIDATORS = ("additionalProperties", "unevaluatedProperties")
# (mapping path, key) of a key refused where it stands -> the schema path of the error that refused it
Refused = dict[tuple[JSONPath, str | int], list[str | int]]
# What an item of each list is called in a message ("entry citow/battle-dice: ...").
ITEM_NAMES = {
    "entries": "entry",
    "terms": "term",
    "sources": "source",
    "noise": "noise item",
    "sections": "section",
    "statements": "statement",
    "rows": "row",
    "columns": "column",
    "corrections": "correction",
    "refs_external": "external reference",
}
TOP_ITEMS = {"chapter": "chapter", "game": "game", "aid": "player aid"}
# A number too long to be a line number (in a line range written as text).
LONG_NUMBER = re.compile(r"[0-9]{7,}")


def describe(document: JSON, path: Iterable[str | int]) -> str:
    """An item and field in words: ("entries", 3, "origin", "pl") -> "entry citow/x: origin, pl".

    The innermost item with an id names the place (entry, term, source, chapter, game); list
    items without one are counted from 1, as an editor counts them."""
    subject = "the file"
    fields: list[str] = []
    node, parent_key = document, None
    for step in path:
        if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
            name = ITEM_NAMES.get(str(parent_key), "item")
            item_id = node.get("id") if isinstance(node, dict) else None
            if isinstance(item_id, str) and name in ("entry", "term", "source"):
                subject, fields = f"{name} {item_id}", []
            else:
                if name != "item" and fields and fields[-1] == str(parent_key):
                    fields.pop()  # "statement 2" says which list it is in
                fields.append(f"{name} {step + 1}")
        elif isinstance(node, dict) and step in node:
            node = node[step]
            if not fields and subject == "the file" and step in TOP_ITEMS:
                item_id = node.get("id") if isinstance(node, dict) else None
                subject = TOP_ITEMS[step] + (f" {item_id}" if isinstance(item_id, str) else "")
            else:
                fields.append(str(step))
        else:
            fields.append(str(step))
        parent_key = step
    return subject + (f": {', '.join(fields)}" if fields else "")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


YAML_WORDS = {
    "array": "a list (lines starting with '- ')",
    "object": "a mapping (lines of 'key: value')",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "empty",
}


def _in_yaml_words(json_types: str | Iterable[str]) -> str:
    """A schema's type (or list of types) as an editor of YAML names it."""
    names = [json_types] if isinstance(json_types, str) else list(json_types)
    return " or ".join(YAML_WORDS.get(name, name) for name in names)


def _json_type(value: JSON) -> str:
    """The JSON Schema type of a loaded YAML value (bool before int: True is an int in Python)."""
    for python_type, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object")):
        if isinstance(value, python_type):
            return name
    return "object"


def explained(error: ValidationError) -> tuple[str, str]:
    """(code, message) of one schema error, in words an editor reads."""
    code = CODE_OF_VALIDATOR.get(str(error.validator), "E014")
    instance = error.instance
    if error.validator == "required":
        missing = [name for name in error.validator_value if isinstance(instance, dict) and name not in instance]
        return code, f"field '{missing[0] if missing else error.validator_value[0]}' is missing"
    if error.validator == "pattern" and isinstance(instance, str) and LONG_NUMBER.search(instance):
        digits = max(len(n) for n in LONG_NUMBER.findall(instance))
        return "E016", f"a line number with {digits} digits (at most 6)"
    if error.validator == "type":
        expected = _in_yaml_words(error.validator_value)
        if instance is None:
            return code, f"is empty (nothing after the colon), but {expected} is expected here"
        return code, f"{_short(instance)} is {_in_yaml_words(_json_type(instance))}, but {expected} is expected here"
    if error.validator == "enum":
        return code, f"{_short(instance)} is not one of {error.validator_value}"
    if error.validator == "maxLength":
        return code, f"{len(instance)} characters, more than {error.validator_value}"
    message = error.message if len(error.message) < 300 else error.message[:300] + "…"
    return code, message


def _misspelt_field(error: ValidationError) -> bool:
    """Whether a missing field is written under a misspelt name (`gamex:` for `game:`)."""
    instance = error.instance
    if not isinstance(instance, dict):
        return False
    missing = [name for name in error.validator_value if name not in instance]
    unknown = [str(key) for key in instance if key not in error.schema.get("properties", {})]
    return any(difflib.get_close_matches(name, unknown, n=1) for name in missing)


def _empty_key_slip(error: ValidationError) -> str | None:
    """For an unknown-field error: the key left empty just before the unknown keys, if there is one.

    `origin:` with nothing after it, followed by `pl: ...` at its own level, is one indentation
    mistake, not a wrong type plus an unknown field."""
    instance = error.instance
    if not isinstance(instance, dict):
        return None
    allowed = set(error.schema.get("properties", {}))
    empty = None
    for key, value in instance.items():
        if key not in allowed:
            return empty
        empty = key if value is None else None
    return None


def check_shape(kind: str, document: JSON, shown_path: str, positions: Positions, problems: Problems) -> set[JSONPath]:
    """Report schema problems; return the JSON paths of the items that failed.

    Returns the paths so that later checks skip exactly the broken items (reported here)
    and still check everything else in the file. An unknown field fails nothing: it is reported,
    and the item around it is still checked (later stages read only the fields they know)."""
    quick_check = quick_check_for(SCHEMA_OF_KIND[kind])
    if quick_check is not None:
        try:
            quick_check(document)
            return set()
        except fastjsonschema.JsonSchemaException:
            pass  # jsonschema says what is wrong, below
    validator = validator_for(SCHEMA_OF_KIND[kind])
    errors = [_most_specific(error) for error in validator.iter_errors(document)]
    slips = Slips(errors, validator.schema, document, shown_path, positions, problems)
    failed = set(slips.failed)
    reported: set[tuple[JSONPath, str, str]] = set()
    for error in errors:
        path = tuple(error.absolute_path)
        if slips.said(error, path):
            continue
        where = describe(document, path)
        if error.validator in UNKNOWN_FIELD_VALIDATORS and isinstance(error.instance, dict):
            allowed = set(error.schema.get("properties", {}))
            for key in error.instance:
                if key not in allowed and (path, key) not in slips.keys:
                    guess = difflib.get_close_matches(str(key), sorted(allowed - set(error.instance)), n=1)
                    problems.add(
                        shown_path,
                        positions.of_key(path, key),
                        "E013",
                        f"{where}: unknown field '{key}'" + (f" (did you mean '{guess[0]}'?)" if guess else ""),
                    )
            continue
        failed.add(path)
        if error.validator == "required" and _misspelt_field(error):
            continue  # said by the unknown field's problem, with its "did you mean"
        code, message = explained(error)
        if (path, code, message) not in reported:
            reported.add((path, code, message))
            problems.add(shown_path, positions.of(path), code, f"{where}: {message}")
    return failed


class Slips:
    """The indentation and colon slips among one document's schema errors: each reported once, as
    the one problem it is, instead of the missing fields, unknown keys and wrong types it causes.
    `said(error, path)` tells whether an error is one of those consequences."""

    def __init__(
        self, errors: list[ValidationError], root_schema: JSONObject, document: JSON, shown_path: str, positions: Positions, problems: Problems
    ) -> None:
        self.document, self.shown_path, self.positions, self.problems = document, shown_path, positions, problems
        self.failed: set[JSONPath] = set()
        self.below: set[JSONPath] = set()  # every error at or below these paths is a consequence
        self.keys: set[tuple[JSONPath, str | int]] = set()  # (mapping path, key): that key refused or unknown there
        self.fields: set[tuple[JSONPath, str | int]] = set()  # (mapping path, field): that field said to be missing
        self.mappings: set[JSONPath] = set()  # mappings whose unknown fields are all consequences
        for error in errors:
            if error.validator in UNKNOWN_FIELD_VALIDATORS and isinstance(error.instance, dict):
                self.outdented_or_empty(error)
        refused = _refused_keys(errors)
        key: str | None  # a key where a slip stands (None: the mapping itself)
        for key_path, name in _run_together_keys(refused, errors).items():
            mapping, key = key_path[:-1], str(key_path[-1])  # a mapping's key: text
            self.report(
                mapping,
                key,
                "E001",
                run_together(key, name),
                failed=key_path,
                below={key_path},
                keys={(mapping, key)},
                fields={(mapping, name)},
            )
        for path, key in _fields_outdented_to_items(errors, document).items():
            mapping, field = path[:-1], path[-1]
            self.report(
                mapping, field, "E007", _outdented(field, key), failed=path, about=mapping + (key,), below={path}, fields={(mapping + (key,), field)}
            )
        for mapping, key, field, moved in _too_deep_slips(errors, refused, root_schema, document):
            inner = mapping if key is None else mapping + (key,)  # where the moved keys stand
            if self.explained(inner):
                continue
            if moved[0] == field:
                message = f"'{field}' stands inside '{key}:', one level too deep: move it back to the level of '{key}:', where it belongs"
            elif key is None:
                message = f"'{moved[0]}' and the keys after it belong under '{field}:', which is missing: write '{field}:' above them"
            else:
                message = (
                    f"'{moved[0]}' and the keys after it belong to '{field}', which is missing: write '{field}:' above them, at the level of '{key}:'"
                )
            self.report(
                inner,
                moved[0],
                "E007",
                message,
                failed=mapping,
                about=mapping,
                below={inner + (k,) for k in moved},
                keys={(inner, k) for k in moved},
                fields={(mapping, field)},
            )
        for mapping, text, empty in _text_as_key_slips(errors, document):
            if self.explained(mapping):
                continue
            line = positions.of_key(mapping, empty)[0]
            self.report(
                mapping,
                text,
                "E007",
                f"this text stands at the level of '{empty}:' (line {line}), which is left empty: indent the text further than '{empty}:'",
                failed=mapping,
                below={mapping + (text,), mapping + (empty,)},
                keys={(mapping, text)},
            )

    def outdented_or_empty(self, error: ValidationError) -> None:
        """Unknown fields that belong one level deeper: under the key just before them (`en:` beside
        `title:`), or under a key left empty (`origin:` with its languages at its own level)."""
        path = tuple(error.absolute_path)
        outdented = _too_shallow_slip(error)
        if outdented is not None:
            key, field = outdented
            self.report(path, field, "E007", _outdented(field, key), failed=path, mappings={path})
            return
        empty = _empty_key_slip(error)
        if empty is not None:
            first = next(key for key in error.instance if key not in error.schema.get("properties", {}))
            line = self.positions.of_key(path, empty)[0]
            self.report(
                path,
                first,
                "E007",
                f"'{first}' stands at the level of '{empty}:' (line {line}), which has no value: indent the lines after '{empty}:' under it",
                failed=path + (empty,),
                below={path + (empty,)},
                mappings={path},
            )

    def report(
        self,
        mapping: JSONPath,
        key: str | int,
        code: str,
        message: str,
        failed: JSONPath,
        below: Iterable[JSONPath] = (),
        keys: Iterable[tuple[JSONPath, str | int]] = (),
        fields: Iterable[tuple[JSONPath, str | int]] = (),
        mappings: Iterable[JSONPath] = (),
        about: JSONPath | None = None,
    ) -> None:
        """One slip's problem, at `key` of `mapping` (naming the item and field at `about`, by default the
        mapping), and what it explains."""
        where = describe(self.document, mapping if about is None else about)
        self.problems.add(self.shown_path, self.positions.of_key(mapping, key), code, f"{where}: {message}")
        self.failed.add(failed)
        self.below |= set(below)
        self.keys |= set(keys)
        self.fields |= set(fields)
        self.mappings |= set(mappings)

    def explained(self, path: JSONPath) -> bool:
        """Whether `path` is inside what a slip reported here explains."""
        return any(path[: len(slip)] == slip for slip in self.below)

    def said(self, error: ValidationError, path: JSONPath) -> bool:
        """Whether the error is a consequence of a slip reported here."""
        if self.explained(path):
            return True
        if isinstance(error.instance, str) and (path, error.instance) in self.keys:
            return True  # a key refused by a name pattern
        if error.validator == "required" and any(
            path == mapping and error.message == f"{field!r} is a required property" for mapping, field in self.fields
        ):
            return True
        return error.validator in UNKNOWN_FIELD_VALIDATORS and path in self.mappings


def _outdented(field: str | int, key: str) -> str:
    """The problem of a field outdented to the level of the key it belongs under (one wording for both finders)."""
    return f"'{field}' stands at the level of '{key}:' but belongs inside it, one level deeper: indent it under '{key}:' like the lines above it"


def _fields_outdented_to_items(errors: list[ValidationError], document: JSON) -> dict[JSONPath, str]:
    """Among named items (the checks of checks.yaml…), an item's field outdented to the level of the
    item names reads as an item of that name, which fails: its path -> the name of the item just
    above it, whose field it is (a field of the same schema, which that item lacks)."""
    found: dict[JSONPath, str] = {}
    for error in errors:
        path = tuple(error.absolute_path)
        if not path or not isinstance(path[-1], str) or error.validator not in ("required", *UNKNOWN_FIELD_VALIDATORS):
            continue
        siblings = part_at(document, path[:-1])
        if path[-1] not in error.schema.get("properties", {}) or not isinstance(siblings, dict) or path in found:
            continue
        names = list(siblings)
        at = names.index(path[-1])
        if at > 0 and isinstance(siblings[names[at - 1]], dict) and path[-1] not in siblings[names[at - 1]]:
            found[path] = names[at - 1]
    return found


def _too_shallow_slip(error: ValidationError) -> tuple[str, str] | None:
    """For an unknown-field error: (key, field) when the unknown field would be at home in the
    mapping of the key just before it (`en:` outdented to the level of `title:`, under which the
    other languages stand): one indentation mistake, not an unknown field and a missing language."""
    instance = error.instance
    if not isinstance(instance, dict):
        return None
    properties = error.schema.get("properties", {})
    keys = list(instance)
    for before, field in itertools.pairwise(keys):
        value = instance[before]
        if (
            field not in properties
            and before in properties
            and isinstance(value, dict)
            and value
            and field not in value
            and _accepts_key(properties[before], str(field))
            and not difflib.get_close_matches(str(field), [p for p in properties if p not in instance], n=1)
        ):  # a misspelling
            return str(before), str(field)
    return None


def _accepts_key(schema: JSON, key: str) -> bool:
    """Whether a mapping of this (inlined) schema may hold `key`: a named property, or a name its
    patterns allow."""
    if not isinstance(schema, dict):
        return False
    if key in schema.get("properties", {}) or any(re.search(pattern, key) for pattern in schema.get("patternProperties", {})):
        return True
    names = schema.get("propertyNames", {})
    if isinstance(names, dict) and "pattern" in names and schema.get("additionalProperties") is not False:
        return re.search(names["pattern"], key) is not None
    return any(_accepts_key(part, key) for part in schema.get("allOf", []))


NAME_LIKE = re.compile(r"[a-z0-9_-]{1,12}")


def _text_as_key_slips(errors: list[ValidationError], document: JSON) -> set[tuple[JSONPath, str, str]]:
    """Text refused as a key (read as a key for a ': ' in it) right after a key left empty: the text of
    `pl: |` written at the level of `pl:`. A refused key that looks like a name (a misspelt language
    code) is not text. (mapping path, the text, the empty key) of each."""
    found = set()
    for error in errors:
        if not (isinstance(error.instance, str) and "propertyNames" in error.absolute_schema_path and not NAME_LIKE.fullmatch(error.instance)):
            continue
        mapping = part_at(document, tuple(error.absolute_path))
        keys = list(mapping) if isinstance(mapping, dict) else []
        at = keys.index(error.instance) if error.instance in keys else 0
        if at > 0 and mapping[keys[at - 1]] in ("", None):
            found.add((tuple(error.absolute_path), error.instance, keys[at - 1]))
    return found


def _property_schema(root_schema: JSONObject, schema_path: list[str | int], field: str, beside: str | None = None) -> JSON:
    """The schema of `field` in the innermost schema along `schema_path` that names it (a `required`
    of an if/then branch names a field whose schema is in the item's `properties`); with `beside`,
    only in a schema that names that property too."""
    node: JSON = root_schema
    nodes: list[JSON] = [root_schema]
    for step in schema_path:
        node = node[step] if isinstance(node, (dict, list)) else None  # type: ignore[index]  # a list's step is an index
        nodes.append(node)
    for candidate in reversed(nodes):
        named = candidate.get("properties") if isinstance(candidate, dict) else None
        if isinstance(named, dict) and field in named and (beside is None or beside in named):
            return named[field]
    return {}


def part_at(document: JSON, path: JSONPath) -> JSON:
    """The part of a document at `path`, or None."""
    for step in path:
        try:
            document = document[step]
        except (KeyError, IndexError, TypeError):
            return None
    return document


def _too_deep_slips(
    errors: list[ValidationError], refused: Refused, root_schema: JSONObject, document: JSON
) -> set[tuple[JSONPath, str | None, str, tuple[str, ...]]]:
    """Fields standing a level too deep, or whose line was lost: one mistake each, not a missing field
    plus wrong keys and values. Returns (mapping path, the key they stand under or None for the
    mapping itself, the field, the keys that moved) of each:

    - a field inside one of its mapping's own keys (`origin:` indented under `text:`), with the keys
      that followed it there;
    - a required field's own keys where its line was lost (`clarification:` deleted: `topic:`,
      `statements:`… now stand in the `origin:` above them; `aid:` deleted at the top of a file);
    - an optional field indented into the mapping above it (`terms:` under `origin:`)."""
    found: set[tuple[JSONPath, str | None, str, tuple[str, ...]]] = set()
    for error in errors:
        if error.validator == "required" and isinstance(error.instance, dict):
            found |= _required_field_moved(error, refused, root_schema)
    moved = {(mapping, under, key) for mapping, under, _, keys in found for key in keys}
    for (inner, key), schema_path in refused.items():
        under = inner[-1] if inner else None
        if not isinstance(under, str) or not isinstance(key, str) or (inner[:-1], under, key) in moved:
            continue
        mapping = inner[:-1]
        outer = part_at(document, mapping)
        if isinstance(outer, dict) and key not in outer and _property_schema(root_schema, schema_path, key, beside=under):
            found.add((mapping, under, key, (key,)))
    return found


def _refused_keys(errors: list[ValidationError]) -> Refused:
    """(mapping path, key) of every key refused where it stands, or whose value is -> the error's schema path."""
    refused: Refused = {}
    for error in errors:
        path, schema_path = tuple(error.absolute_path), list(error.absolute_schema_path)
        if isinstance(error.instance, str) and "propertyNames" in schema_path:
            refused[(path, error.instance)] = schema_path
        elif error.validator in UNKNOWN_FIELD_VALIDATORS and isinstance(error.instance, dict):
            refused |= {(path, key): schema_path for key in error.instance if key not in error.schema.get("properties", {})}
        elif path:
            refused[(path[:-1], path[-1])] = schema_path
    return refused


def _required_field_moved(
    error: ValidationError, refused: Refused, root_schema: JSONObject
) -> set[tuple[JSONPath, str | None, str, tuple[str, ...]]]:
    """For a missing required field: where it, or its own keys, stand instead (see _too_deep_slips)."""
    mapping = tuple(error.absolute_path)
    field = next((f for f in error.validator_value if error.message == f"{f!r} is a required property"), None)
    if field is None:
        return set()
    field_schema = _property_schema(root_schema, list(error.absolute_schema_path), field)
    found: set[tuple[JSONPath, str | None, str, tuple[str, ...]]] = set()
    beside = [k for k in error.instance if (mapping, k) in refused]
    if beside and all(_accepts_key(field_schema, str(k)) for k in beside):
        found.add((mapping, None, field, tuple(beside)))
    for key, value in error.instance.items():
        if not isinstance(value, dict):
            continue
        stray = [k for k in value if (mapping + (key,), k) in refused]
        own = [k for k in stray if k != field and _accepts_key(field_schema, str(k))]  # keys of the field's own
        if field in stray:  # and its keys, if they followed it at its level
            found.add((mapping, key, field, (field, *own)))
        elif stray and own == stray:
            found.add((mapping, key, field, tuple(own)))
    return found


SWALLOWED_KEY = re.compile(r"^[ \t]*([a-z]{2,3}):[ \t]*(?:[|>][-+]?)?[ \t]*$", re.MULTILINE)  # a line `ru: |` alone


def swallowed_keys(document: JSON, shown_path: str, positions: Positions, problems: Problems) -> set[JSONPath]:
    """Keys indented into the text of the key above (`ru: |` two spaces deeper than `pl: |` is a line of
    the Polish text, and Russian is missing): one E007 at that line, not a missing language and a
    text that differs from its source. Returns the paths of the mappings concerned (they failed)."""
    failed: set[JSONPath] = set()
    stack: list[tuple[JSONPath, JSON]] = [((), document)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            stack.extend((path + (i,), item) for i, item in enumerate(node))
        elif isinstance(node, dict):
            for key, value in node.items():
                if not isinstance(value, str):
                    stack.append((path + (key,), value))
                elif "\n" in value and ":" in value:
                    found = next((m for m in SWALLOWED_KEY.finditer(value) if m.group(1) not in node), None)
                    if found is not None:
                        problems.add(
                            shown_path,
                            positions.of_text_line(path, key, value, found.start(1)),
                            "E007",
                            f"{describe(document, path)}: '{found.group(1)}:' stands inside the text of '{key}:', one "
                            f"level too deep: move it back to the level of '{key}:'",
                        )
                        failed.add(path)
    return failed


# `dice {term: x}` or `en:{authored: true}`: YAML reads "dice {term" or "en:{authored" as one key
COLON_SLIP = re.compile(r"^([A-Za-z0-9_/-]+)(?: +|:)[\[{\"']")
# `class marginal` or `class:marginal` in a flow mapping: one key, "a field's name, then more"
NAME_THEN_MORE = re.compile(r"^([A-Za-z0-9_]+)(?: +|:)\S")


def _run_together_keys(refused: Refused, errors: list[ValidationError]) -> dict[JSONPath, str]:
    """Of the keys refused where they stand, those that are a name, a missing colon or space, and
    the start of a value: key path -> the name. A value that is a plain word counts only where the
    name is a field the mapping may have and lacks (elsewhere "two words" may be a key)."""
    found = {mapping + (key,): match.group(1) for mapping, key in refused if isinstance(key, str) and (match := COLON_SLIP.match(key)) is not None}
    for error in errors:
        if error.validator in UNKNOWN_FIELD_VALIDATORS and isinstance(error.instance, dict):
            allowed = set(error.schema.get("properties", {}))
            for key in error.instance:
                match = NAME_THEN_MORE.match(key) if isinstance(key, str) and key not in allowed else None
                if match and match.group(1) in allowed and match.group(1) not in error.instance:
                    found.setdefault(tuple(error.absolute_path) + (key,), match.group(1))
    return found


def is_inside_failed(path: JSONPath, failed: set[JSONPath]) -> bool:
    """True if `path`, anything below it or anything above it failed the schema."""
    return any(f[: len(path)] == path or path[: len(f)] == f for f in failed)
