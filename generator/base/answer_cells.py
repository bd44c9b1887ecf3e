"""What a declared answer table prints, for render to print it (render/answer_tables.py) and validate to
measure it (E088, validate/validate_aid_fit.py): its headings in the reader's words, and per cell the
check's input, the output field it shows and how the value prints (`layout`; `value_text` prints a value)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .json_schema import check_schemas, field_schema, whole_numbers
from .jsontypes import JSON, JSONObject

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


def value_at(output: JSON, path: str) -> JSON:
    for part in path.split("."):
        output = output[part] if isinstance(output, dict) else output[int(part)]
    return output


def axis_values(game: str, check: str, axis: JSONObject, schemas: dict[str, JSON] | None = None) -> list[JSON]:
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


def with_value(inputs: JSONObject, input_path: str, value: JSON) -> JSONObject:
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


def cell_inputs(table: JSONObject, row: JSON, column: JSON = None) -> JSONObject:
    """The check's input of a declared table's cell (calculators.yaml, answer_tables): the row's value, and the column's
    when the columns run over an input."""
    inputs = with_value({}, table["rows"]["input"], row)
    return with_value(inputs, table["columns"]["input"], column) if table.get("columns") else inputs


@dataclass
class LayoutCell:
    inputs: JSONObject  # the check's input
    output: str  # the output field shown (a dotted path into the check's output)
    kind: str  # how the value prints (value_text)


@dataclass
class Layout:
    """A declared table as it prints: a column of row headings under `row_label`, then groups of columns
    under a group heading; per row its heading and its cells, one per column."""

    check: str  # the check that answers every cell
    row_label: str
    groups: list[tuple[str, list[str]]]
    rows: list[tuple[str, list[LayoutCell]]]


def layout(declaration: JSONObject, game: str, schemas: dict[str, JSON] | None, label: Callable[[str], str], words: Mapping[str, JSON]) -> Layout:
    """One declared table (calculators.yaml, answer_tables) in one language: rows over one input, columns over
    another input (one output shown) or over the outputs shown. The headings are the inputs' and outputs'
    labels (`label(key)`: a label of the game or of the check, in the reader's words), a per-cent column group
    says so, and a yes or no (`words`: the language's calculator words) or a choice heads a row or column in
    the reader's words; `schemas`: the game's check schemas (axis_values)."""
    check, rows, columns, shown = declaration["check"], declaration["rows"], declaration.get("columns"), declaration["show"]

    def heading(value: Any) -> str:
        if isinstance(value, bool):
            return str(words["yes" if value else "no"])
        return label(value) if isinstance(value, str) else str(value)

    row_values = axis_values(game, check, rows, schemas)
    if columns:
        output = shown[0]
        column_values = axis_values(game, check, columns, schemas)
        group = label(last_name(columns["input"])) + (", %" if output["as"] == "percent" else "")
        groups = [(group, [heading(value) for value in column_values])]
        cells = [[LayoutCell(cell_inputs(declaration, row, value), output["output"], output["as"]) for value in column_values] for row in row_values]
    else:
        groups = [(label(declaration["heading"]), [label(item["label"]) for item in shown])]
        cells = [[LayoutCell(cell_inputs(declaration, row), item["output"], item["as"]) for item in shown] for row in row_values]
    return Layout(
        check, label(last_name(rows["input"])), groups, [(heading(row), row_cells) for row, row_cells in zip(row_values, cells, strict=True)]
    )
