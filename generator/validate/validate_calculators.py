"""Validate, calculators: each game's calculators.yaml must let every calculator speak the reader's language.

Every check of checks.yaml needs a title and an answer sentence in each of the game's languages (E080);
every field name and choice of the check's input schema (rules_check/schemas/<game>.schema.json, in the
rules_check package Python imports) needs a label in each language (E081); an answer may name only fields
of the check's output schema (E082); a label taken from the glossary must name a term that exists (E083); an
answer table must name a check, inputs and outputs its schema has, within its bounds, with labels (E069),
and, on a game's aid, fit the width of its card in every language (E088, validate_aid_fit.py); every refusal of
the game's rules module (REFUSALS, English) needs its message in each other language, with the same {places}
(E089).
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from rules_check.core import Game, module_name

from ..base.answer_cells import Layout, layout
from ..base.json_schema import check_schemas as check_schemas  # re-exported: validate.py reads it here (tests patch it here)
from ..base.json_schema import field_schema, whole_numbers
from ..base.jsontypes import JSON, JSONObject
from ..base.problems import Problems
from ..load.load import Document, LoadedData
from ..load.model import KnowledgeBase, Where
from ..load.rules_view import label_texts, refusal_messages
from .schema import fits_schema
from .validate_aid_fit import answers, game_rules, printed_table, table_fit, too_wide


def names_to_label(schema: JSON) -> list[str]:
    """The field names and the string choices a form built from `schema` shows, in schema order."""
    found: list[str] = []
    if isinstance(schema, dict):
        found += list(schema.get("properties", {}))
        found += [value for value in schema.get("enum", []) if isinstance(value, str)]
        for value in schema.values():
            found += names_to_label(value)
    elif isinstance(schema, list):
        for value in schema:
            found += names_to_label(value)
    return list(dict.fromkeys(found))


def output_paths(schema: JSON, prefix: str = "") -> set[str]:
    """Every dotted path of named fields in an output schema ("vp_gained", "attacker.losses"), through a list of
    records to their fields ("reasons.code": each reason's code)."""
    paths: set[str] = set()
    records = [schema["items"]] if isinstance(schema.get("items"), dict) else []
    for alternative in [schema, *schema.get("oneOf", []), *schema.get("anyOf", []), *records]:
        for name, sub in alternative.get("properties", {}).items():
            paths.add(prefix + name)
            paths |= output_paths(sub, f"{prefix}{name}.")
    return paths


def check_calculators(loaded: LoadedData, kb: KnowledgeBase, problems: Problems) -> None:
    """Fill kb.calculators from the games' calculators.yaml and report what a calculator could not say."""
    documents = {doc.game: doc for doc in loaded.documents if doc.kind == "calculators" and fits_schema("calculators.schema.json", doc.data)}
    for game, checks in kb.checks.items():
        doc = documents.get(game)
        if doc is None:
            written = [(d.kind, d.game) for d in loaded.documents] + [(u.kind, u.game) for u in loaded.unloaded]
            if ("calculators", game) not in written:  # else its problem was reported
                checks_doc = next(d for d in loaded.documents if d.kind == "checks" and d.game == game)
                problems.add(
                    checks_doc.path, (1, 1), "E080", f"game '{game}' has checks but no calculators.yaml beside checks.yaml to say their answers"
                )
            continue
        kb.calculators[game] = doc.data
        _check_game(kb, doc, game, checks, problems)


def _check_game(kb: KnowledgeBase, doc: Document, game: str, checks: Mapping[str, JSONObject], problems: Problems) -> None:
    languages = kb.games[game]["languages"]
    texts = doc.data["checks"]
    reported: set[tuple[str, ...]] = set()  # a label shared by several checks is reported once
    for name in checks:
        if name not in texts:
            _report(problems, Where(doc, ["checks"]), "E080", f"check {game}.{name} has no calculator text (title and answer)")
    for name, item in texts.items():
        if name not in checks:
            _report(problems, Where(doc, ["checks", name]), "E080", f"'{name}' is not a check of {game} (checks.yaml lists: {', '.join(checks)})")
            continue
        for field in ("title", "answer"):
            for language in languages:
                if language not in item[field]:
                    _report(problems, Where(doc, ["checks", name, field]), "E080", f"{game}.{name} {field} has no {language} text")
        schemas = check_schemas(game)
        if schemas is not None:  # else the check's schema file is the rules_check package's to provide (rules_check tests)
            _check_answer(doc, name, item["answer"], schemas.get(f"{name}_output", {}), problems)
            _check_labels(doc, game, name, schemas.get(f"{name}_input", {}), languages, reported, problems)
    for path, labels, choices in [(["choices"], doc.data["labels"], doc.data.get("choices", {}))] + [
        (["checks", name, "choices"], {**doc.data["labels"], **item.get("labels", {})}, item["choices"])
        for name, item in texts.items()
        if "choices" in item
    ]:
        for field, values in choices.items():
            for i, value in enumerate(values):
                if value not in labels:
                    _report(problems, Where(doc, [*path, field, i]), "E081", f"no label for '{value}', a choice of the field '{field}'")
    _check_answer_tables(kb, doc, game, checks, problems)
    _check_refusals(doc, game, languages, problems)
    for path, label in _term_labels(doc):
        if label["term"] not in kb.terms and label["term"] not in kb.unchecked_ids and kb.game_of(label["term"]) not in kb.unchecked_games:
            _report(problems, Where(doc, path), "E083", f"no glossary term '{label['term']}'")


def _check_labels(
    doc: Document, game: str, name: str, input_schema: JSONObject, languages: list[str], reported: set[tuple[str, ...]], problems: Problems
) -> None:
    """Every field name and choice of the check's input has a label in every language of the game."""
    own = doc.data["checks"][name].get("labels", {})
    labels = {**doc.data["labels"], **own}
    for key in names_to_label(input_schema):
        path = ["checks", name, "labels", key] if key in own else ["labels", key]
        if tuple(path) in reported:
            continue
        reported.add(tuple(path))
        label = labels.get(key)
        if label is None:
            _report(problems, Where(doc, ["labels"]), "E081", f"no label for '{key}', a field or choice of {game}.{name}")
        elif "term" not in label and (missing := [language for language in languages if language not in label]):
            _report(problems, Where(doc, path), "E081", f"label '{key}' has no {', '.join(missing)} text")


def _check_answer(doc: Document, name: str, answer: Mapping[str, str], output_schema: JSONObject, problems: Problems) -> None:
    known = output_paths(output_schema)
    for language, template in answer.items():
        where = Where(doc, ["checks", name, "answer", language])
        try:
            fields = [(field, kind) for _, field, kind, _ in string.Formatter().parse(template) if field is not None]
        except ValueError as err:
            _report(problems, where, "E082", f"the {language} answer of {name} is not a template: {err}")
            continue
        for field, kind in fields:
            if field not in known:
                _report(
                    problems,
                    where,
                    "E082",
                    f"the {language} answer of {name} names {{{field}}}, which the output lacks (fields: {', '.join(sorted(known)) or 'none'})",
                )
            elif kind not in ("", "percent"):
                _report(problems, where, "E082", f"the {language} answer of {name} formats {{{field}}} as '{kind}'; only :percent exists")


def _places(template: str) -> set[str]:
    """The {places} of a refusal's message; ValueError for a broken one, or one with a format (the values are
    said as words, so `{n:percent}` or `{n!r}` would fail when a player meets the refusal)."""
    places = set()
    for _, field, spec, conversion in string.Formatter().parse(template):
        if field is not None:
            if spec or conversion:
                raise ValueError(
                    f"{{{field}}} has a format ({'!' + conversion if conversion else ''}{':' + spec if spec else ''}); write the place alone"
                )
            places.add(field)
    return places


def _check_refusals(doc: Document, game: str, languages: list[str], problems: Problems) -> None:
    """Each refusal of the game's rules module has its words in every language of the game besides English,
    naming the English message's {places} and no others; calculators.yaml translates no refusal the module lacks."""
    english = refusal_messages(game)
    if english is None:  # no rules module for the game yet
        return
    translated = doc.data.get("refusals", {})
    for key, message in english.items():
        missing = [language for language in languages if language != "en" and language not in translated.get(key, {})]
        if missing:
            path = ["refusals", key] if key in translated else ["refusals"]
            _report(problems, Where(doc, path), "E089", f"refusal '{key}' has no {', '.join(missing)} text (English: \"{message}\")")
    for key, texts in translated.items():
        if key not in english:
            _report(
                problems,
                Where(doc, ["refusals", key]),
                "E089",
                f"'{key}' is not a refusal of {game} (REFUSALS in rules_check/games/{module_name(game)}.py)",
            )
            continue
        for language, text in texts.items():
            try:
                places = _places(text)
            except ValueError as err:
                _report(problems, Where(doc, ["refusals", key, language]), "E089", f"the {language} text of refusal '{key}' is not a template: {err}")
                continue
            if places != _places(english[key]):
                _report(
                    problems,
                    Where(doc, ["refusals", key, language]),
                    "E089",
                    f"the {language} text of refusal '{key}' has the places {_shown(places)}; the English has {_shown(_places(english[key]))}",
                )


def _shown(places: set[str]) -> str:
    return ", ".join(f"{{{place}}}" for place in sorted(places)) or "none"


def _check_answer_tables(kb: KnowledgeBase, doc: Document, game: str, checks: Mapping[str, JSONObject], problems: Problems) -> None:
    schemas = check_schemas(game)
    folder = doc.path.rsplit("/", 1)[0] + "/"
    rules: Game | None = None  # the game's checks, run for the values its tables print (once the first table asks)
    for i, table in enumerate(doc.data.get("answer_tables", [])):
        slips = _answer_table_slips(table, checks, doc.data["checks"], doc.data["labels"], schemas)
        for message in slips:
            _report(problems, Where(doc, ["answer_tables", i]), "E069", f"answer table {i + 1} ({table['check']}): {message}")
        if not slips and schemas is not None and game in kb.aids:  # a table each aid prints on a card of its own
            sound = game not in kb.unchecked_games and not any(p.path.startswith(folder) for p in problems.items)
            rules = rules or (game_rules(kb, game) if sound else None)  # unsound: the headings alone are measured
            for language, message in _too_wide(kb, doc, game, table, schemas, rules):
                _report(problems, Where(doc, ["answer_tables", i]), "E088", f"answer table {i + 1} ({table['check']}), {language}: {message}")


def _too_wide(kb: KnowledgeBase, doc: Document, game: str, table: JSONObject, schemas: dict[str, JSON], rules: Game | None) -> list[tuple[str, str]]:
    """(language, message) for each language whose aid card the table would not fit; `rules`: the game's checks,
    which answer the cells (the same in every language), or None to measure the headings alone."""
    labels = {**doc.data["labels"], **doc.data["checks"][table["check"]].get("labels", {})}
    layouts: dict[str, Layout] = {}
    for language in kb.games[game]["languages"]:
        if language not in kb.languages:
            continue  # E063

        def label(key: str, language: str = language) -> str:
            if key not in labels or ("term" in labels[key] and labels[key]["term"] not in kb.terms):
                return key  # E081, E083
            return str(kb.languages.text(label_texts(kb, labels[key]), language))

        layouts[language] = layout(table, game, schemas, label, kb.languages.ui(language)["calculator"])
    values = answers(rules, next(iter(layouts.values()))) if layouts else None
    found = []
    for language, laid_out in layouts.items():
        fit = table_fit(printed_table(laid_out, kb.languages.ui(language)["calculator"]["decimal"], values))
        if not fit.fits:
            found.append((language, too_wide(fit)))
    return found


def _answer_table_slips(
    table: JSONObject, checks: Mapping[str, JSONObject], texts: JSONObject, labels: JSONObject, schemas: dict[str, JSON] | None
) -> list[str]:
    """What keeps an answer table from being filled and headed (render/answer_tables.py builds it)."""
    check = table["check"]
    if check not in checks or check not in texts:
        return [f"'{check}' is not a check of checks.yaml with its calculator text"]
    slips = _layout_slips(table) + _heading_slips(table, {**labels, **texts[check].get("labels", {})})
    if schemas is None:  # the check's schema file is the rules_check package's to provide
        return slips
    return slips + _schema_slips(table, schemas.get(f"{check}_input", {}), schemas.get(f"{check}_output", {}))


def _layout_slips(table: JSONObject) -> list[str]:
    """A table's columns run over an input's values with one output in each cell, or else stand
    one for each shown output, headed by its label."""
    slips = []
    if "columns" in table and len(table["show"]) != 1:
        slips.append("a table with columns over an input shows one output, not several")
    if "columns" not in table and ("heading" not in table or any("label" not in item for item in table["show"])):
        slips.append("without columns over an input, the outputs' columns need a `heading` and each shown output a `label`")
    return slips


def _heading_slips(table: JSONObject, known: Mapping[str, JSON]) -> list[str]:
    """A heading, an output's label or an axis' value (a text one) that has no label among `known`."""
    headings = [
        table.get("heading"),
        *(item.get("label") for item in table["show"]),
        *(value for axis in (table["rows"], table.get("columns") or {}) for value in axis.get("values", []) if isinstance(value, str)),
    ]
    return [f"no label '{key}' for a heading" for key in headings if key is not None and key not in known]


def _schema_slips(table: JSONObject, input_schema: JSONObject, output_schema: JSON) -> list[str]:
    """Rows and columns over inputs the check takes, and outputs it gives (its JSON Schemas)."""
    slips = []
    for name, axis in [("rows", table["rows"]), ("columns", table.get("columns"))]:
        if axis is not None:
            slips += _axis_slips(name, axis, input_schema)
    outputs = output_paths(output_schema)
    slips += [
        f"the output has no field '{item['output']}' (fields: {', '.join(sorted(outputs)) or 'none'})"
        for item in table["show"]
        if item["output"] not in outputs
    ]
    return slips


def _axis_slips(name: str, axis: JSONObject, input_schema: JSONObject) -> list[str]:
    node = field_schema(input_schema, axis["input"])
    if node is None:
        return [f"the {name}' input has no field '{axis['input']}'"]
    if "values" in axis:
        allowed, kind = node.get("enum"), node.get("type")
        wrong = [
            value
            for value in axis["values"]
            if (allowed is not None and value not in allowed)
            or (kind == "boolean" and not isinstance(value, bool))
            or (kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)))
        ]
        return [f"the {name}' value {value!r} is not one {axis['input']} takes" for value in wrong]
    if node.get("type") != "integer":
        return [f"the {name} run over whole numbers, but '{axis['input']}' is not one (list its `values`)"]
    low, high = whole_numbers(node, axis.get("from"), axis.get("to"))
    if high is None:
        return [f"the {name} need `to`: '{axis['input']}' has no maximum"]
    if high > node.get("maximum", high) or low > high:
        return [f"the {name} run {low}..{high}, outside what '{axis['input']}' takes ({node.get('minimum', 0)}..{node.get('maximum', '')})"]
    return []


def _term_labels(doc: Document) -> list[tuple[list[str], JSONObject]]:
    found = [(["labels", key], label) for key, label in doc.data["labels"].items() if "term" in label]
    for name, item in doc.data["checks"].items():
        found += [(["checks", name, "labels", key], label) for key, label in item.get("labels", {}).items() if "term" in label]
    return found


def _report(problems: Problems, where: Where, code: str, message: str) -> None:
    problems.add(where.document.path, where.document.positions.of(where.path), code, message)
