"""The types of parsed data, named once (issue 31: `mypy --strict`).

`JSON` is a value loaded from YAML or JSON (a data file, a schema, a calculator's answer): dicts,
lists, strings, numbers, booleans and None, nested as the file has them. Its shape is the schema's
to say, not the type checker's, so it is `Any`: code narrows it with `isinstance` where it reads
it. `JSONPath` is a place inside such a value: the keys and list indices from its root."""

from __future__ import annotations

from typing import Any, TypeAlias

JSON: TypeAlias = Any
JSONObject: TypeAlias = dict[str, Any]  # a mapping of a loaded document (its keys are always strings)
JSONPath: TypeAlias = tuple[str | int, ...]
