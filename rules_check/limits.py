"""Input that cannot crash a check, checked before any other work.

Three things, cheap and in this order, so that a hostile input is refused in milliseconds:

- `decode` / `parse`: the command line's input (and a calculator's) is at most MAX_INPUT_BYTES of UTF-8 text
  holding JSON (no NaN or Infinity); anything else is refused as input (exit 2) without being parsed.
- `walk` (core.check_sizes runs it before the schema): the document walked along the check's input schema, stopping at the first container, string
  or number beyond its bound (maxItems, maxLength, maxProperties, minimum/maximum, the kinds of value the schema
  takes there) and at any string holding a lone surrogate (legal JSON, `"\\ud800"`, but no UTF-8 text can hold
  it). The bounds are the most lenient the schema allows at each place (oneOf branches merged), so a document
  the schema accepts is never refused here; what is refused here the schema refuses too, only sooner: jsonschema
  looks at every item of a 10,000-item array before it looks at the array's length.
- `quote`: a value as a refusal quotes it, at most QUOTE_CHARS characters and then "…", so that a refusal stays a
  line however large the value.

Pure Python, no import from the generator: the same code runs in the browser (Pyodide).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

MAX_INPUT_BYTES = 1 << 18  # 256 KiB: the largest worked example is 773 bytes; the cap is parsed in ~10-20 ms
QUOTE_CHARS = 60


class SizeError(ValueError):
    """The document breaks a bound of its schema (core turns it into an InputError naming the field); `rule` and
    `limit`: the schema keyword it breaks and its value, as jsonschema names them ("maximum", 20)."""

    def __init__(self, path: list[str], message: str, rule: str | None = None, limit: Any = None):
        super().__init__(message)
        self.path, self.rule, self.limit = path, rule, limit


# -- quoting a value in a message ----------------------------------------------------------------------------------


def _tokens(value: Any, room: int) -> Iterator[str]:
    """The pieces of repr(value), lazily, each string cut after `room` characters: a huge value costs nothing."""
    if isinstance(value, str):
        yield repr(value[: room + 1])
    elif isinstance(value, bool) or value is None or isinstance(value, float):
        yield repr(value)
    elif isinstance(value, int):
        yield str(value) if value.bit_length() < 200 else f"<an integer of {value.bit_length()} bits>"
    elif isinstance(value, (list, tuple)):
        yield "["
        for index, item in enumerate(value):
            yield ", " if index else ""
            yield from _tokens(item, room)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield ", " if index else ""
            yield from _tokens(key, room)
            yield ": "
            yield from _tokens(item, room)
        yield "}"
    else:
        yield f"<{type(value).__name__}>"


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """repr(value) as a message quotes it: at most `limit` characters, then "…"; lone surrogates escaped."""
    text = ""
    for token in _tokens(value, limit):
        text += token
        if len(text) > limit:
            return text[:limit] + "…"
    return text


def field_name(path: list[str]) -> str:
    """The path of a field as a refusal names it: each part at most QUOTE_CHARS characters, surrogates escaped."""
    parts = [part if len(part) <= QUOTE_CHARS else part[:QUOTE_CHARS] + "…" for part in map(str, path)]
    return "/".join(parts).encode("utf-8", "backslashreplace").decode("utf-8") or "(input)"


LONG_LITERAL = re.compile(r"'(?:[^'\\]|\\.){%d,}'" % (QUOTE_CHARS + 1))  # noqa: UP031 - a regex's braces


def _repr_length(message: str, value: Any) -> int | None:
    """How long repr(value) is when `message` opens with it (as jsonschema's messages do), else None; piece by
    piece, so that a message that does not open with a huge value costs nothing."""
    position = 0
    for token in _tokens(value, len(message)):
        if not message.startswith(token, position):
            return None
        position += len(token)
    return position


def shorten(message: str, value: Any = None) -> str:
    """A message (jsonschema's) with the value it opens with quoted short, and any other long quoted string cut."""
    length = _repr_length(message, value)
    if length is not None and length > QUOTE_CHARS:
        message = quote(value) + message[length:]
    return LONG_LITERAL.sub(lambda m: m.group(0)[: QUOTE_CHARS + 1] + "…'", message)


# -- reading and parsing ---------------------------------------------------------------------------------------------


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def decode(data: bytes) -> str:
    """Bytes as text: at most MAX_INPUT_BYTES of UTF-8 (ValueError with the place of the first bad byte)."""
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"more than {MAX_INPUT_BYTES:,} bytes (256 KiB); no check needs that much")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ValueError(f"not UTF-8 text: byte 0x{data[err.start]:02x} at line {line} column {column}") from None


def parse(text: str) -> Any:
    """JSON text as a document (ValueError saying why not): at most MAX_INPUT_BYTES as UTF-8, no lone surrogate
    (a text stream can hold one; UTF-8 cannot), no NaN or Infinity."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"not UTF-8 text: character {err.start + 1} is a lone surrogate") from None
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"more than {MAX_INPUT_BYTES:,} bytes (256 KiB); no check needs that much")
    return loads(text)


def loads(text: str) -> Any:
    """json.loads, with every way it refuses a text a ValueError saying why."""
    try:
        return json.loads(text, parse_constant=_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON: line {err.lineno} column {err.colno}: {err.msg}") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as err:  # an integer of more digits than Python converts; NaN, Infinity
        raise ValueError(f"not usable JSON: {err}") from None


# -- bounds from the schema -------------------------------------------------------------------------------------------

KINDS = {  # JSON Schema's type -> the Python types of a parsed document (bool is not an integer)
    "object": (dict,),
    "array": (list, tuple),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


@dataclass
class Shape:
    """What the schema allows at one place, most leniently over its oneOf branches; None: no bound."""

    any: bool = False  # no constraint at all here
    kinds: set[str] = field(default_factory=set)
    max_items: int | None = 0
    items: Shape | None = None
    max_length: int | None = 0
    max_properties: int | None = 0
    properties: dict[str, Shape] = field(default_factory=dict)
    extra: Shape | None = None  # the shape of other properties; None: none allowed
    names: Shape | None = None  # propertyNames
    minimum: float | None = 0
    maximum: float | None = 0
    numbered: bool = False  # some branch allows numbers
    strings: frozenset[str] | None = None  # the strings an enum or const allows; None: any string
    pattern: re.Pattern[str] | None = None
    required: frozenset[str] = frozenset()


def _most(a: float | None, b: float | None, low: bool = False) -> float | None:
    if a is None or b is None:
        return None
    return min(a, b) if low else max(a, b)


def _either(a: Any, b: Any, in_a: bool, in_b: bool, same: bool = False) -> Any:
    """A bound of one kind of value over two branches: the branch that takes that kind, else the looser of both
    (a union of allowed values; a pattern only if both have it)."""
    if not in_a or not in_b:
        return a if in_a else b
    if a is None or b is None:
        return None
    if same:
        return a if a == b else None
    return a | b


def _largest_limit(a: Shape, b: Shape, limit: str, kind: str) -> int | None:
    """A size limit of two merged shapes: the larger where both allow `kind` (none if either has none),
    else the limit of the one that does."""
    limit_a: int | None = getattr(a, limit)
    limit_b: int | None = getattr(b, limit)
    if kind in a.kinds & b.kinds:
        return None if limit_a is None or limit_b is None else max(limit_a, limit_b)
    return limit_a if kind in a.kinds else limit_b


def _merge(a: Shape | None, b: Shape | None) -> Shape | None:
    if a is None or b is None:
        return a or b
    if a.any or b.any:
        return Shape(any=True)
    merged = Shape(kinds=a.kinds | b.kinds, numbered=a.numbered or b.numbered)
    merged.max_items = _largest_limit(a, b, "max_items", "array")
    merged.items = _merge(a.items, b.items)
    merged.max_length = _largest_limit(a, b, "max_length", "string")
    both_objects = "object" in a.kinds & b.kinds
    merged.max_properties = _largest_limit(a, b, "max_properties", "object")
    merged.properties = dict(a.properties)
    for name, shape in b.properties.items():
        merged.properties[name] = _merge(merged.properties.get(name), shape) or shape
    merged.extra = _merge(a.extra, b.extra)
    merged.names = Shape(any=True) if both_objects and (a.names is None) != (b.names is None) else _merge(a.names, b.names)
    merged.strings = _either(a.strings, b.strings, "string" in a.kinds, "string" in b.kinds)
    merged.pattern = _either(a.pattern, b.pattern, "string" in a.kinds, "string" in b.kinds, same=True)
    merged.required = a.required & b.required if both_objects else a.required if "object" in a.kinds else b.required
    if a.numbered and b.numbered:
        merged.minimum, merged.maximum = _most(a.minimum, b.minimum, low=True), _most(a.maximum, b.maximum)
    else:
        merged.minimum, merged.maximum = (a.minimum, a.maximum) if a.numbered else (b.minimum, b.maximum)
    return merged


def _allowed_values(schema: dict[str, Any]) -> list[Any] | None:
    """The values an enum or const allows; None: the schema lists none."""
    return schema["enum"] if "enum" in schema else [schema["const"]] if "const" in schema else None


def _kinds_of(schema: dict[str, Any]) -> set[str]:
    if "type" in schema:
        kinds = schema["type"]
        return set(kinds if isinstance(kinds, list) else [kinds])
    values = _allowed_values(schema)
    if values is None:
        return set(KINDS)
    return {
        kind
        for value in values
        for kind, types in KINDS.items()
        if isinstance(value, types) and not (kind in ("integer", "number") and isinstance(value, bool))
    }


STRUCTURE = {
    "type",
    "enum",
    "const",
    "properties",
    "items",
    "additionalProperties",
    "maxItems",
    "maxLength",
    "maxProperties",
    "propertyNames",
    "minimum",
    "maximum",
}


def shape(schema: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> Shape:
    """The Shape of a schema (draft 2020-12, the keywords rules_check's schemas use)."""
    if schema is True or schema == {} or not isinstance(schema, dict):
        return Shape(any=True)
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        if name in seen:  # a recursive schema: no bound from here on
            return Shape(any=True)
        return shape(defs[name], defs, (*seen, name))
    own = STRUCTURE & schema.keys()
    if ("oneOf" in schema or "anyOf" in schema) and not own:  # else the node's own bounds (a superset) hold
        return _branches_shape(schema.get("oneOf") or schema.get("anyOf") or [], defs, seen)
    return _own_shape(schema, defs, seen)


def _branches_shape(branches: list[Any], defs: dict[str, Any], seen: tuple[str, ...]) -> Shape:
    """The Shape of a oneOf or anyOf: its branches' shapes merged, the most lenient bounds of each (_merge)."""
    merged: Shape | None = None
    for branch in branches:
        merged = _merge(merged, shape(branch, defs, seen))
    return merged or Shape(any=True)


def _own_shape(schema: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...]) -> Shape:
    """The Shape of a schema node from its own keywords (STRUCTURE, pattern, required)."""
    here = Shape(kinds=_kinds_of(schema))
    here.max_items = schema.get("maxItems")
    here.items = shape(schema["items"], defs, seen) if "items" in schema else Shape(any=True)
    here.max_length = _max_length(schema)
    _object_bounds(here, schema, defs, seen)
    values = _allowed_values(schema)
    here.strings = None if values is None else frozenset(v for v in values if isinstance(v, str))
    here.pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    here.required = frozenset(schema.get("required", []))
    here.numbered = bool(here.kinds & {"integer", "number"})
    here.minimum, here.maximum = schema.get("minimum"), schema.get("maximum")
    return here


def _max_length(schema: dict[str, Any]) -> int | None:
    """maxLength, else the length of the longest string an enum or const allows (none beside a pattern)."""
    lengths = [len(v) for v in schema.get("enum", [schema.get("const")]) if isinstance(v, str)]
    limit: int | None = schema.get("maxLength", max(lengths) if lengths and "pattern" not in schema else None)
    return limit


def _object_bounds(here: Shape, schema: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...]) -> None:
    """Fill in `here` the bounds of an object: its fields' shapes, other fields' (None: none allowed), their names',
    and how many fields it may have."""
    here.properties = {name: shape(sub, defs, seen) for name, sub in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties", True)
    here.extra = None if extra is False else shape(extra, defs, seen)
    here.names = shape({"type": "string", **schema["propertyNames"]}, defs, seen) if "propertyNames" in schema else None
    here.max_properties = schema.get("maxProperties")
    if here.max_properties is None and extra is False:  # no field but those named
        here.max_properties = len(here.properties)
    elif here.max_properties is None and "enum" in schema.get("propertyNames", {}):  # those named and the names allowed
        here.max_properties = len(here.properties) + len(schema["propertyNames"]["enum"])


# -- the walk --------------------------------------------------------------------------------------------------------


def _text(value: str, path: list[str]) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise SizeError(
            path,
            f"{quote(value)} is not text: character {err.start + 1} is a lone surrogate (\\u{ord(value[err.start]):04x}), which UTF-8 cannot hold",
        ) from None


def _kind_refused(value: Any, here: Shape) -> bool:
    return not any(isinstance(value, KINDS[kind]) and not (kind in ("integer", "number") and isinstance(value, bool)) for kind in here.kinds)


def _scan(value: Any, path: list[str]) -> None:
    """Where the schema says nothing: only that every string is text."""
    stack = [(value, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            _text(value, where)
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str):
                    _text(key, where)
                stack.append((item, [*where, str(key)]))
        elif isinstance(value, (list, tuple)):
            stack.extend((item, [*where, str(index)]) for index, item in enumerate(value))


def _string(value: str, here: Shape, path: list[str]) -> None:
    _text(value, path)
    if here.max_length is not None and len(value) > here.max_length:
        raise SizeError(path, f"{quote(value)} is too long: {len(value):,} characters, at most {here.max_length}", "maxLength", here.max_length)
    if here.strings is not None and value not in here.strings:
        raise SizeError(path, f"{quote(value)} is not one of {sorted(here.strings)!r}", "enum")
    if here.pattern is not None and not here.pattern.search(value):
        raise SizeError(path, f"{quote(value)} does not match {here.pattern.pattern!r}")


def _number(value: int | float, here: Shape, path: list[str]) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise SizeError(path, f"{value!r} is not a JSON number")
    if here.maximum is not None and value > here.maximum:
        raise SizeError(path, f"{quote(value)} is greater than the maximum of {here.maximum}", "maximum", here.maximum)
    if here.minimum is not None and value < here.minimum:
        raise SizeError(path, f"{quote(value)} is less than the minimum of {here.minimum}", "minimum", here.minimum)


def _object(value: dict[str, Any], here: Shape, path: list[str]) -> None:
    if here.max_properties is not None and len(value) > here.max_properties:
        raise SizeError(path, f"{quote(value)} has too many fields: {len(value):,}, at most {here.max_properties}")
    if here.extra is None:  # refused here: jsonschema would write out the whole object if a oneOf held it
        unknown = sorted(key for key in value if key not in here.properties)
        if unknown:
            raise SizeError(path, f"Additional properties are not allowed ({quote(unknown[0])} was unexpected)")
    # the fields and the required fields missing, in the order jsonschema reports its errors: the first path first
    for key in sorted({*value, *here.required}, key=str):
        where = [*path, str(key)]
        if key not in value:
            raise SizeError(where, f"{key!r} is a required property", "required")
        if not isinstance(key, str):
            continue  # not from JSON; the schema refuses it
        _text(key, where)
        if key in here.properties:
            walk(value[key], here.properties[key], where)
        elif here.extra is not None:
            if here.names is not None:
                walk(key, here.names, where)
            walk(value[key], here.extra, where)


def walk(value: Any, here: Shape, path: list[str]) -> None:
    """Refuse (SizeError) the first place where `value` breaks a bound of `here`, before jsonschema looks at it."""
    if here.any:
        _scan(value, path)
        return
    if here.kinds and _kind_refused(value, here) and isinstance(value, (str, list, tuple, dict, int, float, type(None))):
        kinds = ", ".join(repr(kind) for kind in sorted(here.kinds))
        raise SizeError(path, f"{quote(value)} is not of type {kinds}", "type")
    if isinstance(value, str):
        _string(value, here, path)
    elif isinstance(value, bool):
        return
    elif isinstance(value, (int, float)):
        _number(value, here, path)
    elif isinstance(value, (list, tuple)):
        if here.max_items is not None and len(value) > here.max_items:
            raise SizeError(path, f"{quote(value)} is too long: {len(value):,} items, at most {here.max_items}", "maxItems", here.max_items)
        for index in sorted(range(len(value)), key=str):  # as jsonschema orders its errors: "10" before "2"
            walk(value[index], here.items or Shape(any=True), [*path, str(index)])
    elif isinstance(value, dict):
        _object(value, here, path)
