"""Calculators: every rules-check is a form on the site, answered by rules_check itself (Python under
Pyodide in the browser), in the reader's language. The unit tests read answers as sentences; the
integration tests look at the built site; the browser tests fill forms with the worked examples like a
player and compare what the page shows with the command line's answer."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser import answer_every_calculator, calculate, make_driver, open_calculator, press, serious_violations, serve, set_scheme, wait
from conftest import REPO, built_games, worked_examples

from generator.base.json_schema import check_schemas
from generator.render.calculators import calculator_anchor, with_choices
from generator.resolve.pages import CALCULATORS, GAME_INDEX
from generator.validate.validate_calculators import names_to_label, output_paths
from rules_check.explain import Words, label_key, sentence

SAY = {  # a game's `say` data as the build writes it (rules_check/data/<game>.json)
    "labels": {"khorne": {"en": "Khorne", "ru": "Кхорн"}, "nurgle": {"en": "Nurgle", "ru": "Нургл"}},
    "words": {"en": {"yes": "yes", "no": "no", "none": "none", "decimal": "."}, "ru": {"yes": "да", "no": "нет", "none": "нет", "decimal": ","}},
    "checks": {"c": {"answer": {}, "labels": {"khorne": {"en": "Khorne (Blood Frenzy)"}}}},
}


@pytest.mark.unit
def test_a_sentence_says_values_in_the_readers_language():
    ru = Words(SAY, "c", "ru")
    assert (
        sentence("{p:percent}; {who}; {vp}", {"p": 0.7291666, "who": "nurgle", "vp": {"nurgle": 3, "khorne": 1}}, ru)
        == "72,9 %; Нургл; Нургл 3, Khorne (Blood Frenzy) 1"
    )  # a check's own label wins; missing ru falls back to en
    en = Words(SAY, "c", "en")
    assert (
        sentence("{ok} {no} {list} {records}", {"ok": True, "no": None, "list": [], "records": [{"nurgle": 1}, {"nurgle": 2}]}, en)
        == "yes none none Nurgle 1; Nurgle 2"
    )


@pytest.mark.unit
def test_a_name_without_a_label_of_its_own_is_said_by_the_label_of_its_key():
    """A card the player names as the game's English does ("Stench of Death") is said by the label of its key
    (stench_of_death) in the reader's language; a name with no such label stays as it is (issue 27)."""
    say = {**SAY, "labels": {**SAY["labels"], "stench_of_death": {"en": "The Stench of Death", "ru": "Смрад смерти"}}}
    ru = Words(say, "c", "ru")
    names = ["Stench of Death", "The Stench of Death", "stench of death!", "Nurgle", "khorne", "Battle Cry"]
    assert [ru.label(name) for name in names] == ["Смрад смерти", "Смрад смерти", "Смрад смерти", "Нургл", "Khorne (Blood Frenzy)", "Battle Cry"]
    assert [label_key(name) for name in ("The Blood God's Call", "Field of Carnage", "The Skull Throne")] == [
        "blood_gods_call",
        "field_of_carnage",
        "skull_throne",
    ]


@pytest.mark.unit
def test_an_optional_part_is_said_only_when_its_fields_are_there():
    en = Words(SAY, "c", "en")
    template = "Hits: {hits}.[ Kills: {kills}.][ Legal: {legal}.]"
    assert sentence(template, {"hits": 2, "kills": 1, "legal": False}, en) == "Hits: 2. Kills: 1. Legal: no."
    assert sentence(template, {"hits": 2, "legal": None}, en) == "Hits: 2."  # absent, and null (not judged)
    assert sentence("[{a}][ {b}]", {"a": "{x}", "b": 1}, en) == "{x} 1"  # braces in values stay text


@pytest.mark.unit
def test_a_place_names_a_field_of_each_record_of_a_list():
    ru = Words(SAY, "c", "ru")
    reasons = {"reasons": [{"code": "nurgle", "message": "Plague"}, {"code": "nurgle", "message": "Plague again"}]}
    assert sentence("{reasons.code}.[ ({reasons.code})]", reasons, ru) == "Нургл, Нургл. (Нургл, Нургл)"
    assert sentence("{reasons.code}.[ ({reasons.code})]", {"reasons": []}, ru) == "нет."  # no records: none, a [part] left out
    schema = {"properties": {"reasons": {"type": "array", "items": {"properties": {"code": {"enum": ["khorne"]}, "message": {}}}}}}
    assert output_paths(schema) == {"reasons", "reasons.code", "reasons.message"}


EXAMPLES = worked_examples()  # (game, check, inputs, expected, entry id)


def cli(game: str, check: str, inputs: dict, data: Path) -> tuple[int, dict | str]:
    result = subprocess.run(
        [sys.executable, "-m", "rules_check", game, check],
        input=json.dumps(inputs),
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"RULES_CHECK_DATA": str(data), "PATH": "/usr/bin:/bin"},
    )
    return result.returncode, json.loads(result.stdout) if result.returncode == 0 else result.stderr


def contains(whole, part) -> bool:
    """`part` (a worked example's expected output) is within `whole` (an answer)."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(k in whole and contains(whole[k], v) for k, v in part.items())
    return whole == part


def calculators_data(game: str) -> dict:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((REPO / "data" / "games" / game / "calculators.yaml").read_text(encoding="utf-8"))


def form_choices(game: str, check: str) -> dict[str, list[str]]:
    """The choices a check's form offers: the game's, with the check's own over them."""
    words = calculators_data(game)
    return {**words.get("choices", {}), **words["checks"][check].get("choices", {})}


@pytest.mark.unit
def test_a_choice_names_a_text_field_the_items_of_a_list_or_the_free_keys_of_a_map():
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string"},
            "regions": {"type": "array", "items": {"type": "string"}},
            "stats": {"type": "object", "additionalProperties": {"type": "integer"}},
            "figures": {  # each Power's figures: the Powers are chosen already, the figures are not
                "type": "object",
                "propertyNames": {"enum": ["khorne", "nurgle"]},
                "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
        },
    }
    choices = {name: ["a", "b"] for name in ("region", "regions", "stats", "figures")}
    shown = with_choices(schema, choices)["properties"]
    assert shown["region"]["enum"] == shown["regions"]["items"]["enum"] == shown["stats"]["propertyNames"]["enum"] == ["a", "b"]
    assert shown["figures"]["propertyNames"] == {"enum": ["khorne", "nurgle"]}
    assert shown["figures"]["additionalProperties"]["propertyNames"] == {"enum": ["a", "b"]}
    assert "propertyNames" not in schema["properties"]["figures"]["additionalProperties"]  # the check's own schema is unchanged


def _fields_named(schema: Any, name: str) -> list[dict[str, Any]]:
    """Every field called `name` within a form's schema."""
    if isinstance(schema, list):
        return [field for item in schema for field in _fields_named(item, name)]
    if not isinstance(schema, dict):
        return []
    own = [schema["properties"][name]] if name in schema.get("properties", {}) else []
    return own + [field for value in schema.values() for field in _fields_named(value, name)]


@pytest.mark.unit
@pytest.mark.parametrize("check", ["score", "standings"])
def test_the_marauders_forms_offer_the_cards_of_the_victory_point_table_by_their_names(check: str):
    """A scoring card is picked from the victory-point table's cards (the ids the score check reads, "-" written "_"),
    each named in every language by its glossary term (issue 27)."""
    from ruamel.yaml import YAML

    chapter = YAML(typ="safe").load((REPO / "data" / "games" / "marauders" / "chapters" / "70-end-of-game.yaml").read_text(encoding="utf-8"))
    table = next(entry for entry in chapter["entries"] if entry["id"] == "marauders/victory-point-table")
    cards = [row["card"].replace("-", "_") for row in table["table"]["rows"] if row["rule"] == "card"]
    form = with_choices(check_schemas("marauders")[f"{check}_input"], form_choices("marauders", check))
    offered = [field["items"].get("enum") for field in _fields_named(form, "scoring_cards")]
    assert offered == [cards]
    labels = calculators_data("marauders")["labels"]
    assert all(labels[card] == {"term": f"marauders/term/{card.replace('_', '-')}"} for card in cards)


@pytest.mark.unit
def test_the_citow_summoning_form_offers_the_regions_of_each_adjacent_pair():
    """Adjacency is the players' to give (no map in the sources), as pairs of regions: each region of a pair is
    picked from the game's regions, named in the reader's language, as every other region field is (issue 27)."""
    form = with_choices(check_schemas("citow")["summoning_input"], form_choices("citow", "summoning"))
    regions = form_choices("citow", "summoning")["region"]
    for name in ("adjacent", "not_adjacent"):
        assert form["properties"][name]["items"]["items"]["enum"] == regions, name
    assert "enum" not in check_schemas("citow")["summoning_input"]["properties"]["adjacent"]["items"]["items"]  # the check's own


@pytest.mark.unit
@pytest.mark.parametrize("check", ["dial_advancement_counters", "round_dials"])
def test_the_citow_dial_forms_offer_the_phases_and_tokens_of_an_event_by_their_glossary_names(check: str):
    """What a Power did is told per region and phase, with the tokens in the region (Slaanesh's condition reads Noble
    and Hero tokens): the phase is picked from the round's six phases and each token from the game's token kinds,
    each named by its glossary term — a Russian or Polish player types no English word (issue 27)."""
    form = with_choices(check_schemas("citow")[f"{check}_input"], form_choices("citow", check))
    phases = ["old_world", "draw", "summoning", "battle", "corruption", "end"]
    assert [field.get("enum") for field in _fields_named(form, "phase")] == [phases]
    tokens = [field["items"].get("enum") for field in _fields_named(form, "tokens")]
    assert len(tokens) == 1 and {"noble", "hero"} <= set(tokens[0])
    words = calculators_data("citow")
    labels = {**words["labels"], **words["checks"][check]["labels"]}
    assert all(labels[phase] == {"term": f"citow/term/{phase.replace('_', '-')}-phase"} for phase in phases)
    assert all(labels[token] == {"term": f"citow/term/{token}-token"} for token in tokens[0])


@pytest.mark.unit
@pytest.mark.parametrize("check", ["advance_dials", "round_dials"])
def test_the_citow_dial_forms_offer_the_instruction_kinds_by_their_glossary_names(check: str):
    """A revealed threat-dial instruction is a kind picked from the list (the kinds the check counts, DIAL_EFFECTS),
    each named in every language by a glossary term of the list (category dial-instruction), and X a number field
    labelled in every language (issue 27)."""
    from ruamel.yaml import YAML

    from rules_check.games import citow

    form = with_choices(check_schemas("citow")[f"{check}_input"], form_choices("citow", check))
    assert [field.get("enum") for field in _fields_named(form, "kind")] == [list(citow.DIAL_EFFECTS)]
    assert [(field["type"], field["minimum"]) for field in _fields_named(form, "count")] == [("integer", 1)]
    glossary = YAML(typ="safe").load((REPO / "data" / "games" / "citow" / "glossary.yaml").read_text(encoding="utf-8"))
    instructions = {term["id"] for term in glossary["terms"] if term.get("category") == "dial-instruction"}
    words = calculators_data("citow")
    assert all(words["labels"][kind]["term"] in instructions for kind in citow.DIAL_EFFECTS)
    own = words["checks"][check]["labels"]
    assert all(set(own[field]) == {"en", "ru", "pl"} for field in ("kind", "count"))


@pytest.mark.unit
def test_every_card_the_citow_glossary_names_is_labelled_by_its_english_names():
    """A card of CitOW's glossary (its card-name terms: Chaos cards, Old World cards) is labelled by the key of its
    English name and of each English variant, so an answer echoing a card the player names says it in the reader's
    language (conflicting_effects; issue 27)."""
    from ruamel.yaml import YAML

    glossary = YAML(typ="safe").load((REPO / "data" / "games" / "citow" / "glossary.yaml").read_text(encoding="utf-8"))
    labels = calculators_data("citow")["labels"]
    cards = [
        (term["id"], name)
        for term in glossary["terms"]
        if term.get("category") == "card-name"
        for name in [term["names"]["en"], *term.get("variants", {}).get("en", [])]
    ]
    assert len(cards) > 16
    assert [(term, name) for term, name in cards if labels.get(label_key(name)) != {"term": term}] == []


@pytest.mark.unit
@pytest.mark.parametrize("game,check,inputs,expected,entry", EXAMPLES, ids=[e[4] for e in EXAMPLES])
def test_the_form_can_show_every_worked_example_of_its_check(game, check, inputs, expected, entry):
    """ "Fill in the example" puts each value of the example into the form: a choice list offers each of them."""
    from jsonschema import Draft202012Validator

    form = with_choices(check_schemas(game)[f"{check}_input"], form_choices(game, check))
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft202012Validator(form).iter_errors(inputs)]
    assert not errors, errors


@pytest.mark.integration
def test_every_check_is_a_calculator_in_every_language_of_its_game(bundled_build: Path):
    site = bundled_build / "site"
    games = built_games(site)
    assert sorted(games) == sorted(p.stem for p in (bundled_build / "rules_check" / "data").glob("*.json"))
    for game, by_lang in games.items():
        rules = json.loads((bundled_build / "rules_check" / "data" / f"{game}.json").read_text(encoding="utf-8"))
        schemas = check_schemas(game)
        for lang, spec in by_lang.items():
            assert sorted(spec["checks"]) == sorted(rules["checks"]), (game, lang)
            page = (site / lang / game / CALCULATORS.html).read_text(encoding="utf-8")
            for name, check in spec["checks"].items():
                assert f'data-check="{name}"' in page and f'id="{calculator_anchor(name)}"' in page  # where search leads
                assert check["schema"] == with_choices(schemas[f"{name}_input"], form_choices(game, name))  # the check's own input schema
                for key in names_to_label(check["schema"]):
                    assert check["labels"].get(key), (game, lang, name, key)  # every field and choice named
                for entry_id in check["implements"]:  # and the calculator sits on its entries
                    href = spec["entries"][entry_id]["href"]
                    chapter = (site / lang / game / href.split("#")[0]).read_text(encoding="utf-8")
                    assert f'data-check="{name}"' in chapter, (entry_id, name)


@pytest.mark.integration
def test_each_game_page_lists_its_calculators_by_their_question_one_tap_from_the_answer(bundled_build: Path):
    """The game's own page (the section home's link) lists every calculator by the question it answers, each
    linking to that calculator on the Calculators page, and the answer tables likewise."""
    site = bundled_build / "site"
    for game, by_lang in built_games(site).items():
        for lang, spec in by_lang.items():
            home = (site / lang / game / GAME_INDEX.html).read_text(encoding="utf-8")
            page = (site / lang / game / CALCULATORS.html).read_text(encoding="utf-8")
            links = re.findall(r'<a href="calculators\.html#([^"]+)">([^<]+)</a>', home)
            titles = {anchor: html.unescape(title) for anchor, title in links}
            for name, check in spec["checks"].items():
                anchor = calculator_anchor(name)
                assert titles.get(anchor) == check["title"], (game, lang, name)
                assert f'id="{anchor}"' in page and f'data-check="{name}"' in page[page.index(f'id="{anchor}"') :][:200]
            tables = re.findall(r'<h3 id="([^"]+)">', page)
            assert all(table in titles for table in tables), (game, lang, tables)


@pytest.mark.integration
def test_pages_without_a_calculator_load_no_calculator_script(bundled_build: Path):
    site = bundled_build / "site"
    with_block = without = 0
    for page in (site / "ru" / "citow").glob("*.html"):
        html = page.read_text(encoding="utf-8")
        if 'class="kb-calc"' in html:
            with_block += 1
            assert "kb-calc.js" in html
        else:
            without += 1
            assert "kb-calc" not in html and "pyodide" not in html
    assert with_block and without


@pytest.mark.integration
@pytest.mark.parametrize("game,check,inputs,expected,entry", EXAMPLES, ids=[e[4] for e in EXAMPLES])
def test_every_worked_example_reads_as_a_sentence_in_every_language(bundled_build: Path, asked, game, check, inputs, expected, entry):
    """explain.answer (what a calculator calls) gives the command line's output and a sentence per language."""
    data = bundled_build / "rules_check" / "data"
    status, output = asked.command_line[entry]
    assert status == 0 and contains(output, expected), output
    rules = json.loads((data / f"{game}.json").read_text(encoding="utf-8"))
    languages = rules["say"]["checks"][check]["answer"]
    assert languages
    for lang in languages:
        answer = json.loads(asked.answers[entry, lang])
        assert answer["output"] == output
        assert answer["sentence"] and "{" not in answer["sentence"] and "[" not in answer["sentence"]
        assert entry.split("/")[0] == game and set(answer["followed"]) >= set(rules["checks"][check]["implements"])


@dataclass(frozen=True)
class Asked:
    """Every worked example asked of rules_check as built: `command_line[entry]` is the command line's (status,
    output or error), `answers[entry, lang]` what rules_check.explain.answer (a calculator's call) gives."""

    command_line: dict[str, tuple[int, dict | str]]
    answers: dict[tuple[str, str], str]


ASK = """
import contextlib, io, json, sys
import rules_check.explain as explain
from rules_check.__main__ import main

def command_line(game, check, inputs):
    sys.stdin, out, err = io.StringIO(json.dumps(inputs)), io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([game, check])
    return [status, json.loads(out.getvalue()) if status == 0 else err.getvalue()]

examples, questions = json.load(sys.stdin)
print(json.dumps([[command_line(*example) for example in examples], [explain.answer(*question) for question in questions]]))
"""


@pytest.fixture(scope="module")
def asked(bundled_build: Path) -> Asked:
    """Each game's worked examples asked in a fresh process against the built data, one question after another as a
    calculator's worker does, through the command line's main() and through explain.answer in every language it
    speaks (a process per question cost ~0.4 s each, 290 of them; the command line as its own process is
    tested on every worked example by test_rules_cli.py)."""
    data = bundled_build / "rules_check" / "data"
    command_line: dict[str, tuple[int, dict | str]] = {}
    answers: dict[tuple[str, str], str] = {}
    for game in sorted({example[0] for example in EXAMPLES}):
        examples = [(entry, [game, check, inputs]) for example_game, check, inputs, _, entry in EXAMPLES if example_game == game]
        say = json.loads((data / f"{game}.json").read_text(encoding="utf-8"))["say"]["checks"]
        questions = [
            ((entry, lang), [game, check, json.dumps(inputs), lang]) for entry, [_, check, inputs] in examples for lang in say[check]["answer"]
        ]
        result = subprocess.run(
            [sys.executable, "-c", ASK],
            input=json.dumps([[example for _, example in examples], [question for _, question in questions]]),
            capture_output=True,
            text=True,
            cwd=REPO,
            env={"RULES_CHECK_DATA": str(data), "PATH": "/usr/bin:/bin"},
            check=True,
        )
        outputs, texts = json.loads(result.stdout)
        command_line |= {entry: (status, output) for (entry, _), (status, output) in zip(examples, outputs, strict=True)}
        answers |= {key: text for (key, _), text in zip(questions, texts, strict=True)}
    return Asked(command_line, answers)


@pytest.fixture(scope="module")
def calc_driver():
    chrome = make_driver()
    yield chrome
    chrome.quit()


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


@pytest.mark.browser
@pytest.mark.parametrize("game,lang", [("citow", "pl"), ("battlelore", "ru"), ("marauders", "en"), ("wizards-quest", "ru")])
def test_each_calculator_shows_its_worked_examples_outcome(bundled_build: Path, asked, calc_driver, game: str, lang: str):
    """On the game's Calculators page, every worked example filled in through the form (its button)
    shows the example's printed outcome and the command line's answer, with a sentence in the language."""
    site = bundled_build / "site"
    spec = json.loads((site / lang / game / "calculators.json").read_text(encoding="utf-8"))
    tried = 0
    with serve(site) as url:
        calc_driver.get(f"{url}/{lang}/{game}/{CALCULATORS.html}")
        console_errors(calc_driver)  # only what follows counts
        for name, check in spec["checks"].items():
            if not check["examples"]:
                continue
            block = open_calculator(calc_driver, name)
            for example in check["examples"]:
                press(calc_driver, block.find_element("css selector", f".kb-calc-example[data-example='{example['id']}']"))
                shown = calculate(calc_driver, block)
                status, output = asked.command_line[example["id"]]
                expected = next(e[3] for e in EXAMPLES if e[4] == example["id"])
                assert status == 0 and shown["json"] == output, (example["id"], shown)
                assert contains(shown["json"], expected)
                assert shown["sentence"] and shown["followed"]
                tried += 1
        assert console_errors(calc_driver) == []
    assert tried >= 2


@pytest.mark.browser
def test_bad_input_shows_the_fields_message_and_a_rule_its_refusal(bundled_build: Path, calc_driver):
    site = bundled_build / "site"
    with serve(site) as url:
        calc_driver.get(f"{url}/ru/citow/{CALCULATORS.html}")
        console_errors(calc_driver)
        block = open_calculator(calc_driver, "battle_hits")
        shown = calculate(calc_driver, block)  # nothing filled in: the dice are required, said in Russian
        assert shown["errors"] and shown["errors"][0]["field"] == "dice" and shown["errors"][0]["text"].endswith("Заполните это поле.")
        assert block.find_element("css selector", ".kb-calc-error span:last-child").get_attribute("lang") == "ru"
        assert block.find_element("css selector", "input[name='dice']").get_attribute("aria-invalid") == "true"
        dice = block.find_element("css selector", "input[name='dice']")
        dice.send_keys("3")
        press(calc_driver, block.find_element("css selector", ".kb-calc-list .kb-calc-add"))
        block.find_element("css selector", "input[name='results/0']").send_keys("4")
        shown = calculate(calc_driver, block)  # 3 dice, 1 result: impossible under the rules, said in Russian with its rule linked
        assert shown["refused"] == (
            "Невозможно по правилам: слишком мало значений: кубики атаки — 3, дополнительные броски — 0, нужно бросков — 3, получено значений — 1"
        )
        assert "(сообщение на английском)" not in shown["refused"]
        entries = json.loads((site / "ru" / "citow" / "calculators.json").read_text(encoding="utf-8"))["entries"]
        assert shown["followed"] == [entries["citow/battle-dice"]["href"]]
        for value in ("5", "6", "2"):
            press(calc_driver, block.find_element("css selector", ".kb-calc-list .kb-calc-add"))
            block.find_elements("css selector", ".kb-calc-list input")[-1].send_keys(value)
        shown = calculate(calc_driver, block)  # 4, 5, 6 (+ one extra die for the 6: 2)
        assert shown["json"] == cli("citow", "battle_hits", {"dice": 3, "results": [4, 5, 6, 2]}, bundled_build / "rules_check" / "data")[1]
        assert shown["sentence"].startswith("Ранений: 3")
        assert console_errors(calc_driver) == []


@pytest.mark.browser
def test_a_form_list_stops_at_the_schemas_bound_and_a_long_question_is_stopped(bundled_build: Path, calc_driver):
    """A list of the form grows only to the schema's maxItems (thousands of "Add" presses froze the page);
    a question the worker does not answer in time is stopped and said to be too large, and the next
    question is answered by a fresh worker."""
    site = bundled_build / "site"
    most = check_schemas("citow")["battle_hits_input"]["properties"]["results"]["maxItems"]
    with serve(site) as url:
        calc_driver.get(f"{url}/pl/citow/{CALCULATORS.html}")
        block = open_calculator(calc_driver, "battle_hits")
        presses = calc_driver.execute_script(
            """
            const add = arguments[0].querySelector('.kb-calc-list .kb-calc-add'); let presses = 0;
            while (!add.disabled && presses < 5000) { add.click(); presses++; }
            return presses;""",
            block,
        )
        assert presses == most and len(block.find_elements("css selector", ".kb-calc-list .kb-calc-item")) == most
        calc_driver.execute_script("window.kbCalc.questionSeconds = 0.001")
        shown = calculate(calc_driver, block)
        assert shown["refused"] and "zbyt długo" in shown["refused"]
        calc_driver.execute_script("window.kbCalc.questionSeconds = 0")
        shown = calculate(calc_driver, block)  # a fresh worker answers: the empty places are refused, field by field
        assert shown["errors"] and not (shown["refused"] or "").count("zbyt długo")


@pytest.mark.browser
def test_a_page_downloads_the_calculators_runtime_only_when_one_is_opened(bundled_build: Path, calc_driver):
    """What the page itself fetches (its resource timing; the service worker stores the section for
    offline use in the background, apart from the page)."""
    site = bundled_build / "site"
    fetched = "return document.readyState === 'complete' && performance.getEntriesByType('resource').map(r => new URL(r.name).pathname)"
    with serve(site) as url:
        calc_driver.get(f"{url}/en/citow/10-round.html")  # no calculator on this page
        loaded = wait(calc_driver, 10).until(lambda d: d.execute_script(fetched))
        assert loaded and not [path for path in loaded if "kb-calc" in path or "/calc/" in path]
        calc_driver.get(f"{url}/en/citow/{CALCULATORS.html}")  # calculators, none opened
        loaded = wait(calc_driver, 10).until(lambda d: d.execute_script(fetched))
        assert "/assets/kb-calc.js" in loaded
        assert not [
            path
            for path in loaded
            if ("/calc/" in path and not path.endswith("/calc/runtime.json"))  # (its 1 KB list:
            or "worker" in path
            or path.endswith("calculators.json")
        ]  # the size offered)
        open_calculator(calc_driver, "hit_probability")
        loaded = calc_driver.execute_script(fetched)
        assert "/en/citow/calculators.json" in loaded and "/assets/kb-calc-worker.js" in loaded


VIEWS = [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")]


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["ru", "pl", "en"])
def test_every_calculator_open_and_answered_has_no_serious_accessibility_violation(bundled_build: Path, calc_driver, lang: str):
    """axe-core (WCAG 2.0/2.1 A and AA) over each game's Calculators page with every calculator open and
    answered (its first worked example, else the empty form's refusal; browser.answer_every_calculator), in light and dark, at 390 and 1280 px:
    no serious or critical violation (4 games x 4 views = 16 page states per language); at 390 px the page is no wider
    than the screen."""
    site = bundled_build / "site"
    found, states = [], 0
    with serve(site) as url:
        for game, by_lang in sorted(built_games(site).items()):
            if lang not in by_lang:
                continue
            calc_driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
            calc_driver.get(f"{url}/{lang}/{game}/{CALCULATORS.html}")
            assert answer_every_calculator(calc_driver, by_lang[lang]) is None, game
            checks = by_lang[lang]["checks"]
            answered = calc_driver.execute_script(
                "return Array.from(document.querySelectorAll('.kb-calc')).filter(block =>"
                " block.querySelector('.kb-calc-answer').textContent || block.querySelector('.kb-calc-error')).length"
            )
            assert answered == len(checks), (game, answered, len(checks))
            wide = calc_driver.execute_script("return document.documentElement.scrollWidth")
            if wide > 390:  # a row as wide as its widest choice list pushed the page sideways (the dial instructions)
                found.append(f"{game} 390: every calculator answered, the page is {wide} px wide")
            for width, scheme in VIEWS:
                calc_driver.execute_cdp_cmd(
                    "Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600}
                )
                set_scheme(calc_driver, scheme)  # on the page as answered
                found += [f"{game} {width} {scheme}: {v}" for v in serious_violations(calc_driver)]
                states += 1
    calc_driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    print(f"axe over {states} calculator page states in {lang}: {len(found)} serious or critical")
    assert states == 16 and found == [], found
