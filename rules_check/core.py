"""What every game's rules share: the game's data (numbers and entry texts from the knowledge base), the
two ways an input can be refused, the `@check` marker, and input and output schemas.

Pure Python plus jsonschema, no import from the generator: the package is meant to run on its own
(and later in the browser under Pyodide).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from jsonschema import Draft202012Validator, validators

from . import limits

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


class RulesError(ValueError):
    """The input is well-formed but impossible under the rules (exit 1). `str()` is the English message, with
    the rules that forbid it in brackets. A refusal made by a game's `Refusals` also keeps what the site needs
    to say it in the reader's language: its key, its English template, the values of its {places} and the
    rules' entry ids (explain.py; the other languages' words are in the game's calculators.yaml)."""

    def __init__(self, message: str, refusal: str = "", template: str = "", values: dict[str, Any] | None = None, rules: Sequence[str] = ()):
        super().__init__(message)
        self.refusal = refusal
        self.template = template or message
        self.values = values or {}
        self.rules = tuple(rules)


def plain(value: Any) -> str:
    """A value in an English refusal as the command line shows it: codes as they are typed, lists by commas
    (refusals within it, the problems of a line say, by semicolons)."""
    if isinstance(value, (list, tuple)):
        separator = "; " if any(isinstance(item, RulesError) for item in value) else ", "
        return separator.join(plain(item) for item in value)
    return str(value)


class Refusals:
    """A game's refusals: key -> the English message, with {places} for the values of the case at hand.

    `raise REFUSALS("too-many-orcs", orcs=9, rule="wizards-quest/occupied-space")` refuses with that
    message; the key is what calculators.yaml translates (`refusals:`), so every message a player can meet
    is written once in English here and once per language there, and validate checks that they agree."""

    def __init__(self, messages: dict[str, str]):
        self.messages = messages

    def __call__(self, key: str, rule: str | Sequence[str] = (), **values: Any) -> RulesError:
        """The refusal `key` with its values; `rule`: the entry (or entries) that forbid it."""
        template = self.messages[key]
        rules = (rule,) if isinstance(rule, str) else tuple(rule)
        message = template.format(**{name: plain(value) for name, value in values.items()})
        return RulesError(f"{message} ({', '.join(rules)})" if rules else message, key, template, values, rules)


class InputError(ValueError):
    """The input does not match the check's schema (exit 2); `field` names the offending field; `rule` and
    `limit`, where the schema says it, the schema's keyword that refused it and that keyword's value
    ("maximum", 20), for a calculator to say it in the reader's language (explain.input_refusal)."""

    def __init__(self, field: str, message: str, rule: str | None = None, limit: Any = None):
        super().__init__(f"{field}: {message}")
        self.field, self.rule, self.limit = field, rule, limit


class DataFileError(Exception):
    """The data file the generator wrote is missing, unreadable or lacks what a check needs."""


@dataclass(frozen=True)
class GameData:
    """One game's data file (`data/<game>.json`, written by `python -m generator build`)."""

    game: str  # the game id, e.g. "wizards-quest"
    data_version: str
    checks: dict[str, dict[str, Any]]  # check name -> {help, implements: [entry ids], cites?: [entry ids]}
    entries: dict[str, dict[str, Any]]  # entry id -> {title, text (English), params?, table?}
    say: dict[str, Any]  # how answers read in each language: {labels, words, checks: {name: {answer, labels?}}} (explain.py)

    @classmethod
    def read(cls, path: Path) -> GameData:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise DataFileError(f"cannot read the rules data {path}: {err}; run `python -m generator build`") from None
        try:
            return cls(document["game"], document["data_version"], document["checks"], document["entries"], document["say"])
        except (KeyError, TypeError) as err:
            raise DataFileError(f"the rules data {path} lacks {err} (written by an older generator?); run `python -m generator build`") from None

    def entry(self, entry_id: str) -> dict[str, Any]:
        if entry_id not in self.entries:
            raise DataFileError(f"the {self.game} data has no entry '{entry_id}': list it in data/games/{self.game}/checks.yaml")
        return self.entries[entry_id]

    def ref(self, entry_id: str) -> str:
        """An entry id an answer names (a rule, a clarification), checked to be in the data."""
        self.entry(entry_id)
        return entry_id

    def params(self, entry_id: str) -> dict[str, Any]:
        return dict(self.entry(entry_id).get("params", {}))

    def param(self, entry_id: str, name: str) -> Any:
        params = self.entry(entry_id).get("params", {})
        if name not in params:
            raise DataFileError(f"the {self.game} data has no params.{name} in entry '{entry_id}'")
        return params[name]

    def pick(self, entry_id: str, names: tuple[str, ...]) -> dict[str, Any]:
        """The named params of an entry, each checked to be there."""
        return {name: self.param(entry_id, name) for name in names}

    def table(self, entry_id: str) -> list[dict[str, Any]]:
        entry = self.entry(entry_id)
        if "table" not in entry:
            raise DataFileError(f"the {self.game} data has no table in entry '{entry_id}'")
        return list(entry["table"])


CheckMethod = TypeVar("CheckMethod", bound=Callable[..., Any])


def check(name: str) -> Callable[[CheckMethod], CheckMethod]:
    """Mark a method of a game's `Rules` as the check called `name` (as in its checks.yaml)."""

    def mark(method: CheckMethod) -> CheckMethod:
        method.check_name = name  # type: ignore[attr-defined]
        return method

    return mark


class Game:
    """A game's rules, built from its data: subclasses read their numbers in __init__ and mark their checks."""

    def __init__(self, data: GameData):
        self.data = data

    @classmethod
    def check_methods(cls) -> dict[str, str]:
        """Check name -> method name, for every method marked with @check."""
        return {member.check_name: attribute for attribute, member in vars(cls).items() if hasattr(member, "check_name")}

    def run(self, name: str, inputs: Any) -> dict[str, Any]:
        """Check `inputs`' sizes and text (limits.py), validate them against the check's input schema, then run
        the check."""
        check_sizes(self.data.game, name, inputs)
        validate(self.data.game, name, "input", inputs)
        answer: dict[str, Any] = getattr(self, self.check_methods()[name])(**inputs)
        return answer


def module_name(game: str) -> str:
    """The Python name of a game id: wizards-quest -> wizards_quest (its module, its schema file, its checks in data)."""
    return game.replace("-", "_")


def game_id(name: str) -> str:
    """A game id as players type it: "wizards_quest" and "wizards-quest" are the same game."""
    return name.replace("_", "-")


@dataclass(frozen=True, order=True)
class CheckId:
    """A check of a game. The data writes it `wizards_quest.battle` (the game's module name, a dot, the check:
    `str()`), the command line `wizards-quest battle` (`command`); `parse` reads the data's spelling, the
    game's id or its module name before the dot."""

    game: str  # the game id: wizards-quest
    name: str  # the check: battle

    @classmethod
    def parse(cls, text: str) -> CheckId:
        game, _, name = text.partition(".")
        return cls(game_id(game), name)

    def __str__(self) -> str:
        return f"{module_name(self.game)}.{self.name}"

    @property
    def command(self) -> str:
        """As `python -m rules_check` takes it: the game id, a space, the check."""
        return f"{self.game} {self.name}"


@cache
def schema(game: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SCHEMA_DIR / f"{module_name(game)}.schema.json").read_text(encoding="utf-8"))
    return document


def _is_integer(_checker: Any, value: Any) -> bool:
    """Integers are integers: JSON's 3.0 is a number, not a count of dice."""
    return isinstance(value, int) and not isinstance(value, bool)


StrictValidator = validators.extend(Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


@cache
def input_shape(game: str, name: str) -> limits.Shape:
    """The bounds of a check's input schema, as limits.check_sizes walks them."""
    document = schema(game)
    return limits.shape({"$ref": f"#/$defs/{name}_input"}, document["$defs"])


def check_sizes(game: str, name: str, document: Any) -> None:
    """Raise InputError at the first place `document` breaks a bound of the check's input schema or holds a
    string that is not text (a lone surrogate): before jsonschema, which would look at every item first."""
    try:
        limits.walk(document, input_shape(game, name), [])
    except limits.SizeError as err:
        raise InputError(limits.field_name(err.path), str(err), err.rule, err.limit) from None
    except RecursionError:
        raise InputError("(input)", "nested too deeply") from None


@cache
def validator(game: str, name: str, direction: str) -> Draft202012Validator:
    document = schema(game)
    return StrictValidator({"$ref": f"#/$defs/{name}_{direction}", "$defs": document["$defs"]})


def validate(game: str, name: str, direction: str, document: Any) -> None:
    """Raise InputError naming the first field (deepest cause) where `document` breaks the check's schema."""
    errors = sorted(validator(game, name, direction).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        error = errors[0]
        while error.context:
            error = sorted(error.context, key=lambda e: len(e.absolute_path))[-1]
        path = [str(p) for p in error.absolute_path]
        if error.validator == "required":  # the field that is missing, not the object that lacks it
            path += [name for name in error.validator_value if isinstance(error.instance, dict) and name not in error.instance][:1]
        raise InputError(limits.field_name(path), limits.shorten(error.message, error.instance), str(error.validator), error.validator_value)
