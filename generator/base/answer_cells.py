"""An answer table's axes and cells as render prints them (render/answer_tables.py) and validate measures
them (E088, validate/validate_aid_fit.py): the inputs an axis runs over, the input of one cell, the
output field it shows, and how a value prints in the reader's words."""
from __future__ import annotations

import copy
import itertools
from typing import Any

from .json_schema import check_schemas, field_schema, whole_numbers

DASH = "—"  # a value the rules refuse


def percent(value: float, decimal: str) -> str:
    """A probability in per cent with one decimal, in the reader's decimal mark; never 0 or 100 when it is not."""
    if 0 < value < 0.0005:
        return f"<0{decimal}1"
    if 0.9995 <= value < 1:
        return f">99{decimal}9"
    return f"{value * 100:.1f}".replace(".", decimal)


def value_text(value: Any, kind: str, decimal: str) -> str:
    """How a table prints an answer: a probability in per cent ("percent"), an average with two decimals
    ("average"), a number or a fraction as the check gives it ("number"), or a dash where the rules refuse."""
    if value is None:
        return DASH
    if kind == "percent":
        return percent(value, decimal)
    if kind == "average":
        return f"{value:.2f}".replace(".", decimal)
    return str(value)


def value_at(output: dict, path: str) -> Any:
    for part in path.split("."):
        output = output[part] if isinstance(output, dict) else output[int(part)]
    return output


def axis_values(game: str, check: str, axis: dict, schemas: dict | None = None) -> list:
    """The inputs an axis runs over: its values, or the whole numbers from..to within what the schema allows
    (`schemas`: the game's check schemas, by default `check_schemas(game)`)."""
    if "values" in axis:
        return list(axis["values"])
    field = field_schema((schemas or check_schemas(game) or {}).get(f"{check}_input", {}), axis["input"])
    assert field is not None, f"validate (E069) found {game}.{check}'s input {axis['input']}"
    first, last = whole_numbers(field, axis.get("from"), axis.get("to"))
    assert last is not None, f"validate (E069) bounded {game}.{check}'s input {axis['input']}"
    return list(range(first, last + 1))


def last_name(input_path: str) -> str:
    """The field an input path ends in, whose label heads its axis ("lines.0.cards": "cards")."""
    return [part for part in input_path.split(".") if not part.isdigit()][-1]


def with_value(inputs: dict, input_path: str, value: Any) -> dict:
    """A copy of `inputs` with `value` at the dotted path; a digit in the path is an item of a list."""
    result = copy.deepcopy(inputs)
    parts: list[Any] = [int(part) if part.isdigit() else part for part in input_path.split(".")]
    node: Any = result
    for part, following in itertools.pairwise(parts):
        empty: Any = [] if isinstance(following, int) else {}
        if isinstance(node, list):
            node.extend(copy.deepcopy(empty) for _ in range(part + 1 - len(node)))
        else:
            node.setdefault(part, empty)
        node = node[part]
    if isinstance(node, list):
        node.extend(None for _ in range(parts[-1] + 1 - len(node)))
    node[parts[-1]] = value
    return result


def cell_inputs(table: dict, row: Any, column: Any = None) -> dict:
    """The check's input of a declared table's cell (calculators.yaml, answer_tables): the row's value, and the column's
    when the columns run over an input."""
    inputs = with_value({}, table["rows"]["input"], row)
    return with_value(inputs, table["columns"]["input"], column) if table.get("columns") else inputs
