"""Render, answer tables: the questions asked most at the table, answered in advance by rules_check.

Each game declares its tables in calculators.yaml (`answer_tables`: the check, the input its rows run over,
the input its columns run over or the outputs they show, and how each value prints), so a new game's tables
are data, not code here. Every cell is the answer of one check (`rules_check`'s `Rules.run`, the code the CLI
and the calculators run) to one input; the generator only builds the inputs and writes the answers in the
reader's language. The checks run on the rules data this build has just rendered (`render_rules_data`), so a
table never reads a file that is not yet published. A value the rules refuse (RulesError) prints as a dash.
The headings are the checks' calculator titles and labels (calculators.yaml) and the ui's words.

BattleLore declares none: its tables of each die face's chance and of the average damage of an attack gave
every face 1 side in 6, which neither the sources nor the public material we found say; they were withdrawn
(issue 28) until a cited face distribution exists.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rules_check.core import Game, GameData, RulesError, module_name

from ..base.json_schema import check_schemas, field_schema, whole_numbers
from ..resolve.resolve import Resolved
from .rules_data import label_texts, render_rules_data

DASH = "—"


@dataclass
class Cell:
    text: str
    inputs: dict | None  # the check's input (None: no check ran, the cell is a dash)
    output: str          # the output field shown (a dotted path into the check's output)
    kind: str            # how the value prints (Words.text)


@dataclass
class AnswerTable:
    """One table: a column of row headings, then groups of columns under a group heading."""
    id: str                    # "<game>-<check>", also the table's data-answer-table attribute
    game: str
    check: str
    title: str
    row_label: str
    groups: list[tuple[str, list[str]]]
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)


def game_rules(rules_data: list[tuple[str, str]]) -> dict[str, Game]:
    """Game id -> its rules_check `Rules`, built from the rendered data files (not from rules_check/data/)."""
    rules = {}
    for _name, text in rules_data:
        document = json.loads(text)
        data = GameData(document["game"], document["data_version"], document["checks"], document["entries"], document["say"])
        rules[data.game] = importlib.import_module(f"rules_check.games.{module_name(data.game)}").Rules(data)
    return rules


def percent(value: float, decimal: str) -> str:
    """A probability in per cent with one decimal, in the reader's decimal mark; never 0 or 100 when it is not."""
    if 0 < value < 0.0005:
        return f"<0{decimal}1"
    if 0.9995 <= value < 1:
        return f">99{decimal}9"
    return f"{value * 100:.1f}".replace(".", decimal)


def value_at(output: dict, path: str) -> Any:
    for part in path.split("."):
        output = output[part] if isinstance(output, dict) else output[int(part)]
    return output


class AnswerTables:
    """The answer tables of every game with checks and calculator words, in each language."""

    def __init__(self, resolved: Resolved, rules_data: list[tuple[str, str]] | None = None):
        self.r = resolved
        self.rules = game_rules(rules_data if rules_data is not None else render_rules_data(resolved))
        self._answers: dict[tuple[str, str, str], Any] = {}

    def answer(self, game: str, check: str, inputs: dict, output: str) -> Any:
        """The check's answer (one output field) to the input, or None when the rules refuse it; once per input."""
        key = (game, check, json.dumps(inputs, sort_keys=True) + output)
        if key not in self._answers:
            try:
                self._answers[key] = value_at(self.rules[game].run(check, inputs), output)
            except RulesError:
                self._answers[key] = None
        return self._answers[key]

    def of_game(self, game: str, reader: str) -> list[AnswerTable]:
        if game not in self.rules or game not in self.r.kb.calculators:
            return []
        words = Words(self, game, reader)
        return [declared(words, declaration) for declaration in self.r.kb.calculators[game].get("answer_tables", [])]


class Words:
    """A game's tables in one language: labels and titles from calculators.yaml, values in its words."""

    def __init__(self, tables: AnswerTables, game: str, reader: str):
        self.tables, self.game, self.reader = tables, game, reader
        self.calculators = tables.r.kb.calculators[game]
        self.ui = tables.r.languages.ui(reader)["calculator"]

    def label(self, key: str, check: str | None = None) -> str:
        labels = {**self.calculators["labels"], **(self.calculators["checks"][check].get("labels", {}) if check else {})}
        return self.tables.r.text_in(label_texts(self.tables.r, labels[key]), self.reader)

    def title(self, check: str) -> str:
        return self.tables.r.text_in(self.calculators["checks"][check]["title"], self.reader)

    def table(self, check: str, kinds: str | list[str], row_label: str, groups: list[tuple[str, list[str]]],
              rows: Sequence[tuple[str, Sequence[tuple[dict | None, str]]]]) -> AnswerTable:
        """A table whose cells are (input, output field) of `check`, answered here; `kinds`: how the values print,
        one for the whole table or one per column."""
        columns = sum(len(names) for _, names in groups)
        per_column = [kinds] * columns if isinstance(kinds, str) else kinds
        return AnswerTable(f"{self.game}-{check}", self.game, check, self.title(check), row_label, groups,
                           [(heading, [self.cell(check, kind, inputs, output)
                                       for kind, (inputs, output) in zip(per_column, cells, strict=True)])
                            for heading, cells in rows])

    def cell(self, check: str, kind: str, inputs: dict | None, output: str) -> Cell:
        value = self.tables.answer(self.game, check, inputs, output) if inputs is not None else None
        return Cell(self.text(value, kind), inputs, output, kind)

    def heading(self, value: Any, check: str) -> str:
        """A row's or column's heading: a number as it is, yes or no and a choice in the reader's words."""
        if isinstance(value, bool):
            return self.ui["yes" if value else "no"]
        return self.label(value, check) if isinstance(value, str) else str(value)

    def text(self, value: Any, kind: str) -> str:
        """How a table prints an answer: a probability in per cent ("percent"), an average with two decimals
        ("average"), a number or a fraction as the check gives it ("number"), or a dash where the rules refuse."""
        if value is None:
            return DASH
        if kind == "percent":
            return percent(value, self.ui["decimal"])
        if kind == "average":
            return f"{value:.2f}".replace(".", self.ui["decimal"])
        return str(value)


# -- the tables a game declares (calculators.yaml, answer_tables) ---------------------------------
def declared(words: Words, declaration: dict) -> AnswerTable:
    """One declared table: rows over one input, columns over another input (one output shown) or over the
    outputs shown; the headings are the inputs' and outputs' labels, and a per-cent column group says so."""
    check, rows, columns, shown = declaration["check"], declaration["rows"], declaration.get("columns"), declaration["show"]
    row_values = axis_values(words.game, check, rows)
    kinds: str | list[str]
    if columns:
        output = shown[0]
        column_values = axis_values(words.game, check, columns)
        heading = words.label(last_name(columns["input"]), check) + (", %" if output["as"] == "percent" else "")
        groups = [(heading, [words.heading(value, check) for value in column_values])]
        cells = [[(with_value(with_value({}, rows["input"], row), columns["input"], value), output["output"])
                  for value in column_values] for row in row_values]
        kinds = output["as"]
    else:
        groups = [(words.label(declaration["heading"], check), [words.label(item["label"], check) for item in shown])]
        cells = [[(with_value({}, rows["input"], row), item["output"]) for item in shown] for row in row_values]
        kinds = [item["as"] for item in shown]
    return words.table(check, kinds, words.label(last_name(rows["input"]), check), groups,
                       [(words.heading(row, check), row_cells) for row, row_cells in zip(row_values, cells, strict=True)])


def axis_values(game: str, check: str, axis: dict) -> list:
    """The inputs an axis runs over: its values, or the whole numbers from..to within what the schema allows."""
    if "values" in axis:
        return list(axis["values"])
    field = field_schema((check_schemas(game) or {}).get(f"{check}_input", {}), axis["input"])
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
