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

import json
from dataclasses import dataclass, field

from rules_check.core import Game, RulesError

from ..base.answer_cells import LayoutCell, layout, value_at, value_text
from ..base.jsontypes import JSON, JSONObject
from ..load.model import PerLanguage
from ..load.rules_view import label_texts, rules_for
from ..resolve.resolve import Reading, Resolved
from .rules_data import render_rules_data


@dataclass
class Cell:
    text: str
    inputs: JSONObject | None  # the check's input (None: no check ran, the cell is a dash)
    output: str  # the output field shown (a dotted path into the check's output)
    kind: str  # how the value prints (Words.text)


@dataclass
class AnswerTable:
    """One table: a column of row headings, then groups of columns under a group heading."""

    id: str  # "<game>-<check>", also the table's data-answer-table attribute
    game: str
    check: str
    title: str
    row_label: str
    groups: list[tuple[str, list[str]]]
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)


def game_rules(rules_data: list[tuple[str, str]]) -> dict[str, Game]:
    """Game id -> its rules_check `Rules`, built from the rendered data files (not from rules_check/data/)."""
    documents = [json.loads(text) for _name, text in rules_data]
    return {document["game"]: rules_for(document["game"], document) for document in documents}


class AnswerTables:
    """The answer tables of every game with checks and calculator words, in each language."""

    def __init__(self, resolved: Resolved, rules_data: list[tuple[str, str]] | None = None):
        self.r = resolved
        self.rules = game_rules(rules_data if rules_data is not None else render_rules_data(resolved))
        self._answers: dict[tuple[str, str, str], JSON] = {}

    def answer(self, game: str, check: str, inputs: JSONObject, output: str) -> JSON:
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
        words = Words(self, game, self.r.reading(reader))
        return [declared(words, declaration) for declaration in self.r.kb.calculators[game].get("answer_tables", [])]


class Words:
    """A game's tables in one language: labels and titles from calculators.yaml, values in its words."""

    def __init__(self, tables: AnswerTables, game: str, reading: Reading):
        self.tables, self.game, self.reading = tables, game, reading
        self.calculators = tables.r.kb.calculators[game]
        self.ui = reading.labels["calculator"]

    def label(self, key: str, check: str | None = None) -> str:
        labels = {**self.calculators["labels"], **(self.calculators["checks"][check].get("labels", {}) if check else {})}
        return self.reading.text(label_texts(self.tables.r.kb, labels[key]))

    def title(self, check: str) -> str:
        title: PerLanguage = self.calculators["checks"][check]["title"]
        return self.reading.text(title)

    def cell(self, check: str, cell: LayoutCell) -> Cell:
        value = self.tables.answer(self.game, check, cell.inputs, cell.output)
        return Cell(self.text(value, cell.kind), cell.inputs, cell.output, cell.kind)

    def text(self, value: JSON, kind: str) -> str:
        """How a table prints an answer (base/answer_cells.value_text), in the reader's decimal mark."""
        return value_text(value, kind, self.ui["decimal"])


# -- the tables a game declares (calculators.yaml, answer_tables) ---------------------------------
def declared(words: Words, declaration: JSONObject) -> AnswerTable:
    """One declared table as base/answer_cells.layout lays it out, each cell answered by its check."""
    table = layout(declaration, words.game, None, lambda key: words.label(key, declaration["check"]), words.ui)
    return AnswerTable(
        f"{words.game}-{table.check}",
        words.game,
        table.check,
        words.title(table.check),
        table.row_label,
        table.groups,
        [(heading, [words.cell(table.check, cell) for cell in cells]) for heading, cells in table.rows],
    )
