"""Render, answer tables: the questions asked most at the table, answered in advance by rules_check.

Every cell is the answer of one check (`rules_check`'s `Rules.run`, the code the CLI and the calculators
run) to one input; the generator only chooses the inputs and writes the answers in the reader's language.
The checks run on the rules data this build has just rendered (`render_rules_data`), so a table never
reads a file that is not yet published. A value the rules refuse (RulesError) prints as a dash.

    CitOW: the chance of at least k hits with n battle dice (hit_probability), in per cent;
    BattleLore: none. Its tables of each die face's chance and of the damage an attack inflicts on average
        (face_probability, expected_hits) gave every face 1 side in 6, which neither the sources nor the public
        material we found say (a preview of the second edition says each die has fewer pierce than strike
        results); they were withdrawn (issue 28) until a cited face distribution exists;
    Chaos Marauders: the score of a battle line of every length, completed or not (score);
    Wizard's Quest: the chance that a Battle roll hits, and the losses it inflicts on average, for each death
        range (hit_probability).

The headings are the checks' calculator titles and labels (calculators.yaml) and the ui's words.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules_check.core import Game, GameData, RulesError, module_name, schema

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


def input_schema(game: str, path: str) -> dict:
    """A part of a check's input schema, by a path of names ("battle_roll.roll"): enumerations and bounds."""
    node: dict = schema(game)["$defs"]
    for part in path.split("."):
        node = node[part] if part in node else node["properties"][part]
    return node


def span(game: str, path: str, low: int | None = None, high: int | None = None) -> range:
    """The integers a schema field allows, within low..high when given."""
    node = input_schema(game, path)
    return range(max(node.get("minimum", 0), low or 0), min(node["maximum"], high or node["maximum"]) + 1)


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
        builder = BUILDERS.get(game)
        if builder is None or game not in self.rules or game not in self.r.kb.calculators:
            return []
        return list(builder(Words(self, game, reader)))


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


# -- the tables of each game -------------------------------------------------------------------
CITOW_DICE = 10  # rows and columns: as many as a card and a phone hold
CITOW_HITS = 8
WIZARDS_QUEST_DIE = 6  # Wizard's Quest: death ranges 1-6, one for each roll of the die (6 and above: every roll hits)


def citow(words: Words) -> Iterator[AnswerTable]:
    hits = list(span("citow", "hit_probability_input.hits", 1, CITOW_HITS))
    yield words.table(
        "hit_probability", "percent", words.label("dice"), [(f"{words.label('hits')}, %", [str(k) for k in hits])],
        [(str(n), [({"dice": n, "hits": k}, "probability") for k in hits])
         for n in span("citow", "hit_probability_input.dice", 1, CITOW_DICE)])


def marauders(words: Words) -> Iterator[AnswerTable]:
    lengths = span("marauders", "score_input.lines.items.cards", 1)
    states = [False, True]
    yield words.table(
        "score", "number", words.label("cards"), [(words.label("completed"), [words.ui["yes" if s else "no"] for s in states])],
        [(str(n), [({"lines": [{"completed": s, "cards": n}]}, "total") for s in states]) for n in lengths])


def wizards_quest(words: Words) -> Iterator[AnswerTable]:
    yield words.table(
        "hit_probability", ["percent", "average"], words.label("death_range"),
        [(words.label("roll"), [words.label("hit", "hit_probability"), words.label("expected_losses", "hit_probability")])],
        [(str(d), [({"death_range": d}, "probability"), ({"death_range": d}, "expected_losses")])
         for d in span("wizards-quest", "hit_probability_input.death_range", 1, WIZARDS_QUEST_DIE)])


BUILDERS: dict[str, Callable[[Words], Iterator[AnswerTable]]] = {
    "citow": citow, "marauders": marauders, "wizards-quest": wizards_quest}
