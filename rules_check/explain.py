"""An answer as a sentence in the reader's language, and the one call the site's calculators make.

The words come from the game's data file (`say` in data/<game>.json, written by the generator from
data/games/<game>/calculators.yaml): a label for every field name and choice, and per check a
sentence template with {field} places filled from the check's output. The same code runs on the
command line and in the browser (Pyodide), so a calculator on the site says what the CLI computes.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

from . import game, limits, run
from .core import DataFileError, InputError, RulesError, game_id


def _value_at(output: dict[str, Any], path: str) -> Any:
    """The output's value at a dotted path; past a list of records, each record's field ({reasons.code}: the code of
    each reason), and null when the list has none (said "none", and a [part] naming it is left out)."""
    value: Any = output
    for part in path.split("."):
        if isinstance(value, list):
            value = [_field(item, part, path) for item in value] or None
            if value is None:
                return None
        else:
            value = _field(value, part, path)
    return value


def _field(value: Any, part: str, path: str) -> Any:
    if not isinstance(value, dict) or part not in value:
        raise DataFileError(f"the answer template names '{path}', which the output lacks")
    return value[part]


def label_key(name: str) -> str:
    """A name as the key of its label: lower case, apostrophes dropped, each other run of characters but letters and
    digits one _, a leading "the" dropped ("The Blood God's Call" -> blood_gods_call)."""
    key = re.sub(r"[^a-z0-9]+", "_", re.sub(r"['’]", "", name.lower())).strip("_")
    return key.removeprefix("the_")


class Words:
    """How one language writes the values of an answer: labels of names and choices, yes/no/none."""

    def __init__(self, say: dict[str, Any], check: str, language: str):
        self.language = language
        labels = {**say["labels"], **say["checks"][check].get("labels", {})}
        self.labels: dict[str, str] = {key: texts.get(language) or texts["en"] for key, texts in labels.items()}
        words: dict[str, Any] = say["words"].get(language) or say["words"]["en"]
        self.words: dict[str, str] = {key: text for key, text in words.items() if isinstance(text, str)}  # yes, no, none, decimal
        self.input: dict[str, str] = words.get("input", {})  # a refused field's words, by schema keyword (INPUT_RULES)

    def label(self, key: str) -> str:
        """A code or name in words: its label; else the label of its key (a card the player names as the game's
        English does, "Battle Cry": battle_cry) where the game has one; else the value as it is."""
        return self.labels.get(key) or self.labels.get(label_key(key), key)

    def value(self, value: Any, kind: str = "") -> str:
        if kind == "percent" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{value * 100:.1f} %".replace(".", self.words["decimal"])
        if isinstance(value, bool):
            return self.words["yes" if value else "no"]
        if value is None:
            return self.words["none"]
        if isinstance(value, str):
            return self.label(value)
        if isinstance(value, float):
            return f"{value:.3g}".replace(".", self.words["decimal"])
        if isinstance(value, list):  # items that are records are set apart by semicolons
            separator = "; " if any(isinstance(item, dict) for item in value) else ", "
            return separator.join(self.value(item) for item in value) if value else self.words["none"]
        if isinstance(value, dict):
            shown = [f"{self.label(key)} {self.value(item)}" for key, item in value.items()]
            return ", ".join(shown) if shown else self.words["none"]
        return str(value)


OPTIONAL = re.compile(r"\[([^\[\]]*)\]")  # [ … ] : a part said only when the output has every field it names


def _fields(template: str) -> list[tuple[str, str]]:
    return [(field, kind or "") for _, field, kind, _ in string.Formatter().parse(template) if field is not None]


def _fill(template: str, output: dict[str, Any], words: Words) -> str:
    parts = []
    for literal, field, kind, _conversion in string.Formatter().parse(template):
        parts.append(literal)
        if field is not None:
            parts.append(words.value(_value_at(output, field), kind or ""))
    return "".join(parts)


def sentence(template: str, output: dict[str, Any], words: Words) -> str:
    """The template with each {path} or {path:percent} replaced by that output value, in words; a part in
    [brackets] is left out when the output lacks a field it names or gives it as null (fields some answers
    do not have, or could not judge)."""

    def optional(match: re.Match[str]) -> str:
        part = match.group(1)
        present = all(_has(output, field) for field, _ in _fields(part))
        return _fill(part, output, words).replace("{", "{{").replace("}", "}}") if present else ""

    return _fill(OPTIONAL.sub(optional, template), output, words)


def _has(output: dict[str, Any], path: str) -> bool:
    """Whether the output gives the field a value (null: the check could not judge it from the input)."""
    try:
        return _value_at(output, path) is not None
    except DataFileError:
        return False


def say(game_name: str, check: str, output: dict[str, Any], language: str) -> str:
    """The answer of `check` as a sentence in `language` (English where the data has no translation)."""
    data = game(game_name).data
    texts = data.say["checks"][check]["answer"]
    return sentence(texts.get(language) or texts["en"], output, Words(data.say, check, language))


def refusal(game_name: str, check: str, err: RulesError, language: str) -> dict[str, Any]:
    """A rules refusal as the site says it: the message in `language` where calculators.yaml translates it
    (else English), which language that is, and the entry ids of the rules that forbid it (the site links them)."""
    if not err.refusal:  # a message not (yet) in the game's Refusals: English only
        return {"message": str(err), "language": "en", "rules": []}
    say = game(game_name).data.say
    translations = say.get("refusals", {})
    within = _within(err)
    said = language if language == "en" or all(language in translations.get(item.refusal, {}) for item in within) else "en"
    rules = [rule for item in within for rule in item.rules]
    return {"message": _message(err, Words(say, check, said), translations), "language": said, "rules": list(dict.fromkeys(rules))}


def _within(err: RulesError) -> list[RulesError]:
    """The refusal and the refusals among its values (the problems of a line, within a draw's refusal)."""
    inner = [item for value in err.values.values() for item in (value if isinstance(value, list) else [value]) if isinstance(item, RulesError)]
    return [err, *(found for item in inner for found in _within(item))]


def _message(err: RulesError, words: Words, translations: dict[str, dict[str, str]]) -> str:
    template = translations.get(err.refusal, {}).get(words.language, err.template)

    def said(value: Any) -> str:
        if isinstance(value, RulesError):
            return _message(value, words, translations)
        if isinstance(value, list) and any(isinstance(item, RulesError) for item in value):
            return "; ".join(said(item) for item in value)
        return words.value(value)

    return template.format(**{name: said(value) for name, value in err.values.items()})


def _parse(inputs_json: str) -> Any:
    try:
        return limits.parse(inputs_json)
    except ValueError as err:
        raise InputError("(input)", str(err)) from None


# the schema keywords a calculator says in the reader's words (ui.yaml: calculator.input), by those words' keys
INPUT_RULES = {
    "required": "required",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minLength": "min_length",
    "maxLength": "max_length",
    "enum": "choice",
    "const": "choice",
    "type": "kind",
    "minProperties": "min_properties",
}


def input_refusal(game_name: str, check: str, err: InputError, language: str) -> tuple[str, str]:
    """(message, its language) of a field the schema refuses: in the reader's words where the calculator has
    them for that schema keyword, with its limit written as the reader writes numbers; else the schema's
    English message."""
    english = str(err).split(": ", 1)[-1]
    key = INPUT_RULES.get(err.rule or "")
    if key is None:
        return english, "en"
    words = Words(game(game_name).data.say, check, language)
    template = words.input.get(key)
    if template is None:
        return english, "en"
    return template.format(limit=words.value(err.limit)), words.language


def answer(game_name: str, check: str, inputs_json: str, language: str) -> str:
    """What a calculator shows, as JSON: the output, its sentence and the entries followed; or the
    refusal — `input` with the field and the schema's message, or `rules` with the rule's message (refusal())."""
    name = game_id(game_name)
    try:
        output = run(name, check, _parse(inputs_json))
    except InputError as err:
        message, message_lang = input_refusal(name, check, err, language)
        return json.dumps({"refused": "input", "field": err.field, "message": message, "message_lang": message_lang}, ensure_ascii=False)
    except RulesError as err:
        return json.dumps({"refused": "rules", **refusal(name, check, err, language)}, ensure_ascii=False)
    info = game(name).data.checks[check]
    followed = [*info["implements"], *info.get("cites", []), *output.get("clarifications", [])]
    return json.dumps(
        {"output": output, "sentence": say(name, check, output, language), "followed": list(dict.fromkeys(followed))},
        ensure_ascii=False,
    )
