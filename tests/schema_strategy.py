"""A hypothesis strategy for the JSON Schemas of rules_check inputs, written from the schema itself (the subset the
schemas use: type, properties, required, additionalProperties, propertyNames, enum, const, minimum, maximum,
items, minItems, maxItems, maxLength, maxProperties, pattern, oneOf, $ref). hypothesis-jsonschema 0.23.1 calls
`many(...).more()`, which the pinned hypothesis no longer has, so the strategy is ours.

`documents(schema, defs)` draws documents that mostly fit the schema, and sometimes break it in one place (a wrong
type, a number past its bound, an unknown field), so that both the answers and the refusals are exercised."""

from __future__ import annotations

from hypothesis import strategies as st

NAMES = st.sampled_from(["khorne", "nurgle", "tzeentch", "slaanesh", "kislev", "the_empire", "norsca", "orc", "x"])
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-(2**70), 2**70),
    st.text(max_size=5),
    st.just([]),
    st.just({}),
)


def _resolve(schema: dict, defs: dict) -> dict:
    while "$ref" in schema:
        schema = defs[schema["$ref"].split("/")[-1]]
    return schema


def _strings(schema: dict) -> st.SearchStrategy:
    if "pattern" in schema:
        return st.from_regex(schema["pattern"], fullmatch=True).filter(lambda s: len(s) <= schema.get("maxLength", 64))
    return st.one_of(NAMES, st.text(max_size=schema.get("maxLength", 64)))


def _keys(schema: dict, defs: dict) -> st.SearchStrategy:
    names = schema.get("propertyNames")
    return valid({"type": "string", **names}, defs) if names else st.one_of(NAMES, _strings({}))


_BUILT: dict[tuple[str, int, int], tuple[dict | bool, dict, st.SearchStrategy]] = {}


def _once(kind: str, schema: dict | bool, defs: dict, build) -> st.SearchStrategy:
    """The strategy `build` makes for the schema, built once (the tests draw from it again for every example, and
    building it anew each time cost more than the drawing). The entry holds the schema, so its id stays its own."""
    key = (kind, id(schema), id(defs))
    if key not in _BUILT:
        _BUILT[key] = (schema, defs, build())
    return _BUILT[key][2]


def valid(schema: dict | bool, defs: dict) -> st.SearchStrategy:
    """Documents that fit `schema` (oneOf branches are drawn separately; a draw may still fit two of them)."""
    return _once("valid", schema, defs, lambda: _valid(schema, defs))


def _valid(schema: dict | bool, defs: dict) -> st.SearchStrategy:
    if schema is True or schema == {}:
        return WRONG
    assert isinstance(schema, dict)
    schema = _resolve(schema, defs)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "oneOf" in schema:
        return st.one_of([valid(branch, defs) for branch in schema["oneOf"]])
    kinds = schema.get("type", "object")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return st.one_of([_of_type(kind, schema, defs) for kind in kinds])


def _of_type(kind: str, schema: dict, defs: dict) -> st.SearchStrategy:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        low, high = schema.get("minimum", -(2**64)), schema.get("maximum", 2**64)
        return st.one_of(st.integers(low, high), st.sampled_from(sorted({low, high})))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False)
    if kind == "string":
        return _strings(schema)
    if kind == "array":
        items = valid(schema.get("items", True), defs)
        return st.lists(
            items,
            min_size=schema.get("minItems", 0),
            max_size=min(schema.get("maxItems", 8), 8),
            unique_by=(lambda x: repr(x)) if schema.get("uniqueItems") else None,
        )
    properties, required = schema.get("properties", {}), schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    fixed = {name: valid(properties[name], defs) for name in required if name in properties}
    optional = {name: valid(sub, defs) for name, sub in properties.items() if name not in required}
    document = st.fixed_dictionaries(fixed, optional=optional)
    if isinstance(extra, dict):
        more = st.dictionaries(
            _keys(schema, defs), valid(extra, defs), min_size=schema.get("minProperties", 0), max_size=min(schema.get("maxProperties", 4), 4)
        )
        document = st.tuples(more, document).map(lambda pair: {**pair[0], **pair[1]})
    return document


@st.composite
def _broken(draw, schema: dict, defs: dict):
    """A fitting document with one value replaced by something of the wrong kind, or an unknown field added."""
    document = draw(valid(schema, defs))
    if isinstance(document, dict) and document and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(document)))
        document[key] = draw(WRONG)
    elif isinstance(document, dict):
        document[draw(st.text(max_size=6))] = draw(WRONG)
    else:
        document = draw(WRONG)
    return document


def documents(schema: dict, defs: dict) -> st.SearchStrategy:
    return _once("documents", schema, defs, lambda: st.one_of(valid(schema, defs), valid(schema, defs), _broken(schema, defs), WRONG))
