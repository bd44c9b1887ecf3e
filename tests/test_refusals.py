"""Rules refusals in the reader's language: a game's checks refuse with a key of its REFUSALS (the English
message, rules_check/games/<game>.py), calculators.yaml gives each other language's words (E089 holds them
to the same {places}), and the site's answer says the refusal in the reader's language with the rule that
forbids it (rules_check/explain.py)."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest
from conftest import REPO

import rules_check
from generator.load.rules_view import refusal_messages
from rules_check import explain
from rules_check.core import Refusals, RulesError, game_id, module_name

pytest_plugins = ["rules_fixtures"]  # the fixture rules_data

GAMES_DIR = REPO / "rules_check" / "games"
GAME_MODULES = sorted(path.stem for path in GAMES_DIR.glob("*.py") if path.stem != "__init__")


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name]


@pytest.mark.unit
@pytest.mark.parametrize("module", GAME_MODULES)
def test_a_game_refuses_only_with_messages_of_its_table_and_every_message_is_used(module: str):
    tree = ast.parse((GAMES_DIR / f"{module}.py").read_text(encoding="utf-8"))
    messages = importlib.import_module(f"rules_check.games.{module}").REFUSALS.messages
    assert not _calls(tree, "RulesError"), "a refusal written in place: give it a key in REFUSALS (and its words in calculators.yaml)"
    raised = {call.args[0].value for call in _calls(tree, "REFUSALS") if isinstance(call.args[0], ast.Constant)}
    assert raised <= set(messages), f"keys without a message: {sorted(raised - set(messages))}"
    (table,) = _calls(tree, "Refusals")
    keys_in_table = {id(key) for key in table.args[0].keys}  # type: ignore[attr-defined]
    named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and id(node) not in keys_in_table}
    assert not sorted(set(messages) - named), f"messages no check raises: {sorted(set(messages) - named)}"


@pytest.mark.unit
def test_an_english_refusal_names_its_rule_and_joins_the_problems_within_it():
    table = Refusals({"outer": "draw {number}: {problems}", "gap": "a gap at {space}", "two": "{cards} in one line"})
    err = table("outer", number=2, problems=[table("gap", space=3, rule="g/placement"), table("two", cards=["orc_eye", "idol"])])
    assert str(err) == "draw 2: a gap at 3 (g/placement); orc_eye, idol in one line"
    assert (err.refusal, err.rules, table("gap", space=1, rule="g/r").rules) == ("outer", (), ("g/r",))
    both = table("gap", space=1, rule=("g/capture", "g/clarify-empty"))
    assert (str(both), both.rules) == ("a gap at 1 (g/capture, g/clarify-empty)", ("g/capture", "g/clarify-empty"))


def _answer(game: str, check: str, inputs: dict, language: str) -> dict:
    return json.loads(explain.answer(game, check, json.dumps(inputs), language))


# a Marauders turn whose second card may not go where the player puts it, and a line the winner's trophies break
TURN = {"lines": [["standard", "orc_eye"], [], []], "draws": [{"card": "orc_eye", "line": 1, "space": 3}]}


@pytest.mark.unit
def test_a_refusal_reads_in_the_readers_language_with_its_values_named_as_the_form_names_them(rules_data: Path, monkeypatch):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    said = {language: _answer("marauders", "turn", TURN, language) for language in ("en", "ru", "pl")}
    rule = "marauders/clarify-placed-duplicate-ends-turn"
    assert said["en"] == {"refused": "rules", "message": "draw 1: Orc Eye may go only in line(s) 2, 3", "language": "en", "rules": [rule]}
    assert said["ru"] == {"refused": "rules", "message": "карта 1: Глаз орка можно выложить только в строй 2, 3", "language": "ru", "rules": [rule]}
    assert said["pl"]["language"] == "pl" and said["pl"]["message"].startswith("dobranie 1: Oko orka") and said["pl"]["rules"] == [rule]


@pytest.mark.unit
def test_a_refusal_inside_a_refusal_is_said_in_the_same_language_and_an_untranslated_one_in_english(rules_data: Path, monkeypatch):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    broken = {"lines": [[None, "standard"], [], []], "draws": [{"card": "orc_eye", "line": 1, "space": 1}]}  # left of the Standard
    with pytest.raises(RulesError) as raised:
        rules_check.run("marauders", "turn", broken)
    assert (raised.value.refusal, str(raised.value)) == (
        "draw-breaks-the-line",
        "draw 1: a card stands left of the Standard (marauders/card-placement)",
    )
    ru = _answer("marauders", "turn", broken, "ru")
    assert ru == {"refused": "rules", "message": "карта 1: карта стоит левее Знамени", "language": "ru", "rules": ["marauders/card-placement"]}
    data = rules_check.game("marauders").data
    monkeypatch.setitem(data.say, "refusals", {k: v for k, v in data.say["refusals"].items() if k != "card-left-of-standard"})
    fallback = _answer("marauders", "turn", broken, "ru")  # the inner message lacks its words: the whole refusal in English
    assert fallback["language"] == "en" and fallback["message"] == "draw 1: a card stands left of the Standard", fallback


@pytest.mark.unit
@pytest.mark.parametrize("module", GAME_MODULES)
def test_validate_reads_the_english_messages_from_the_games_module(module: str):
    messages = refusal_messages(game_id(module))
    assert messages == importlib.import_module(f"rules_check.games.{module_name(module)}").REFUSALS.messages and messages
    assert refusal_messages("no-such-game") is None


# Wizard's Quest: a Sorcerer brought to help where he already stands, a Battle given after the attacked location was
# emptied, and a fifth orc in a space; each as the CLI says it (English, with its rule) and as a Russian reader reads it
WQ_REFUSED = [
    (
        "attack_help",
        {"target_kind": "player", "leader_assist": "sorcerer", "leader_in_attacking_location": "sorcerer"},
        "wizards-quest/hero-sorcerer-assist",
        "the player's sorcerer is already in the attacking location: a player moves his Hero or Sorcerer in",
        "Колдун игрока уже в атакующей локации: игрок выдвигает туда своего Героя или Колдуна",
    ),
    (
        "attack",
        {
            "attacker": {"men": 2},
            "defender": {"men": 1},
            "battles": [{"attacker_roll": 1, "defender_roll": 2}, {"attacker_roll": 1, "defender_roll": 1}],
        },
        "wizards-quest/attack-duration",
        "Battle 2: the attack is over (the attacked location is unoccupied)",
        "битва 2: атака окончена (атакуемая локация незанята)",
    ),
    (
        "death_range",
        {"side": "defender", "orcs": 5},
        "wizards-quest/occupancy-rules",
        "only 4 orcs may occupy one space, not 5",
        "число орков, занимающих одно пространство, — не больше 4, а не 5",
    ),
]


@pytest.mark.unit
@pytest.mark.parametrize("check,inputs,rule,english,russian", WQ_REFUSED)
def test_a_wizards_quest_refusal_reads_in_the_readers_language(rules_data: Path, monkeypatch, check, inputs, rule, english, russian):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    with pytest.raises(RulesError) as raised:
        rules_check.run("wizards-quest", check, inputs)
    assert str(raised.value) == f"{english} ({rule})"
    assert _answer("wizards-quest", check, inputs, "ru") == {"refused": "rules", "message": russian, "language": "ru", "rules": [rule]}
    pl = _answer("wizards-quest", check, inputs, "pl")
    assert (pl["language"], pl["rules"]) == ("pl", [rule]) and pl["message"] != english


# BattleLore: a ranged attack beyond its unit's band, or at an adjacent unit under its minimum range (each cites the band's rule,
# battlelore/range, and its reason a rule of its own), a result spent that the roll does not have (the die face by its label), and
# heroic results spent through poison on a unit not poisoned
BL_ATTACK = {"attacker": {"dice": 2}, "target": {"dice": 2, "health": 3}}
BL_REFUSED = {
    "beyond": ("attack", {**BL_ATTACK, "attack_type": "ranged", "results": {"pierce": 2}, "range": 5, "min_range": 2, "max_range": 4}),
    "adjacent": ("attack", {**BL_ATTACK, "attack_type": "ranged", "results": {"pierce": 2}, "range": 1, "min_range": 2, "max_range": 4}),
    "spent": ("damage_and_retreat", {"target": {}, "results": {"strike": 1}, "spent": {"morale": 1}}),
    "poison": ("attack", {**BL_ATTACK, "attack_type": "melee", "results": {"heroic": 2}, "heroic_damage": {"poison": 2}}),
}


@pytest.mark.unit
def test_a_battlelore_refusal_reads_in_the_readers_language_with_the_forms_names_and_the_rules_that_forbid_it(rules_data: Path, monkeypatch):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    said = {
        name: {language: _answer("battlelore", check, inputs, language) for language in ("ru", "pl")} for name, (check, inputs) in BL_REFUSED.items()
    }
    ru = {name: (texts["ru"]["message"], texts["ru"]["language"], texts["ru"]["rules"]) for name, texts in said.items()}
    assert ru == {
        "beyond": (
            "дальность до цели 5 больше максимальной дальности 4: цель выстрела находится в пределах дальности атакующего отряда",
            "ru",
            ["battlelore/range", "battlelore/ranged"],
        ),
        "adjacent": (
            "дальность до цели 1 меньше минимальной дальности 2: стрелковый отряд может атаковать отряд на гексе рядом, только если его минимальная"
            " дальность равна 1",
            "ru",
            ["battlelore/range", "battlelore/ranged"],
        ),
        "spent": ("нельзя израсходовать результаты «боевой дух» в количестве 1: в броске их 0", "ru", []),
        "poison": (
            "результатов «героизм», израсходованных на урон через эффект «яд»: 2; отряд, против которого сделан бросок, не отравлен",
            "ru",
            ["battlelore/poison"],
        ),
    }
    assert {name: (texts["pl"]["language"], texts["pl"]["rules"]) for name, texts in said.items()} == {
        name: ("pl", rules) for name, (_, _, rules) in ru.items()
    }
    assert said["poison"]["pl"]["message"].startswith("wyniki heroizm wydane na obrażenia przez efekt „trucizna”: 2;")
    english = {}
    for name, (check, inputs) in BL_REFUSED.items():
        with pytest.raises(RulesError) as raised:
            rules_check.run("battlelore", check, inputs)
        english[name] = str(raised.value)
    assert english == {
        "beyond": (
            "the target is at range 5, beyond the maximum range of 4: a ranged attack's target is within the attacking unit's range"
            " (battlelore/ranged) (battlelore/range)"
        ),
        "adjacent": (
            "the target is at range 1, under the minimum range of 2: a ranged unit may attack an adjacent unit only with a minimum range of 1"
            " (battlelore/ranged) (battlelore/range)"
        ),
        "spent": "cannot spend 1 morale result(s): the roll has 0",
        "poison": "2 heroic result(s) spent for damage through poison: the unit rolled against is not poisoned (battlelore/poison)",
    }


# Chaos in the Old World: three dice and one result; Khorne hitting his own Bloodthirster; 7 Skaven tokens of the box's 6
CITOW_REFUSED = {
    "too few results": ("battle_hits", {"dice": 3, "results": [4]}),
    "own followers": (
        "battle",
        {
            "figures": {"khorne": {"bloodthirster": 1}, "nurgle": {"great_unclean_one": 1}},
            "stats": {"bloodthirster": {"attack": 4, "defense": 3}, "great_unclean_one": {"attack": 3, "defense": 3}},
            "dice_rolled": {"khorne": [4, 5, 1, 1], "nurgle": [1, 1, 1]},
            "hit_assignment": {"khorne": {"bloodthirster": 1}},
        },
    ),
    "tokens": ("corruption_phase", {"regions": [{"region": "kislev", "skaven_tokens": 4}, {"region": "estalia", "skaven_tokens": 3}]}),
    "no X": ("round_dials", {"powers": {"khorne": {"position": 0, "counters": 1, "windows": {"1": {"instruction": {"kind": "gain_vp"}}}}}}),
}


@pytest.mark.unit
def test_a_citow_refusal_reads_in_the_readers_language_with_its_values_named_as_the_form_names_them(rules_data: Path, monkeypatch):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    english, ru, pl = {}, {}, {}
    for situation, (check, inputs) in CITOW_REFUSED.items():
        with pytest.raises(RulesError) as raised:
            rules_check.run("citow", check, inputs)
        english[situation] = str(raised.value)
        ru[situation], pl[situation] = (_answer("citow", check, inputs, language) for language in ("ru", "pl"))
    assert english == {
        "too few results": "too few results: 3 dice and 0 explosion(s) need 3 rolls, got 1 (citow/battle-dice)",
        "own followers": "khorne: a player cannot assign hits to his own followers (bloodthirster) (citow/assigning-hits)",
        "tokens": "7 Skaven tokens on the board (kislev 4; estalia 3), but the game has 6: Old World tokens of each type are strictly "
        "limited, none is replaced when they run out (citow/old-world-token-supply, citow/component-list)",
        "no X": "khorne: give X of the instruction gain_vp, the number its dial window shows",
    }
    assert {situation: said["message"] for situation, said in ru.items()} == {
        "too few results": "слишком мало значений: кубики атаки — 3, дополнительные броски — 0, нужно бросков — 3, получено значений — 1",
        "own followers": "Кхорн: игрок не может применять ранения к своим последователям (Кровожад)",
        "tokens": "маркеров Скавенов на поле: 7 (Кислев: 4; Эсталия: 3), а в игре их 6: маркеры Старого Света каждого типа строго "
        "ограничены, закончившиеся не заменяются",
        "no X": "Кхорн: укажите X в инструкции «Получите X победных очков» — число в окне круга влияния",
    }
    rules = {
        "too few results": ["citow/battle-dice"],
        "own followers": ["citow/assigning-hits"],
        "tokens": ["citow/old-world-token-supply", "citow/component-list"],
    }
    for situation, rule in rules.items():
        assert (ru[situation]["language"], ru[situation]["rules"]) == ("ru", rule)
        assert (pl[situation]["language"], pl[situation]["rules"], pl[situation]["refused"]) == ("pl", rule, "rules")
    assert pl["no X"]["message"] == "Khorne: podaj X instrukcji „Otrzymujesz X PZ” — liczbę w okienku wskaźnika Zagrożenia"
    assert pl["own followers"]["message"] == "Khorne: gracz nie może przydzielać obrażeń swoim wyznawcom (Krwiopijec Khorna)"


@pytest.mark.unit
def test_a_field_the_form_refuses_is_said_in_the_readers_language_with_its_bound(rules_data: Path, monkeypatch):
    """A calculator's refused field reads in the reader's words (ui.yaml: calculator.input) for the schema keywords
    a form meets — a field left empty, a number past its bound — with the bound as the reader writes numbers;
    a keyword without words stays the schema's English, marked as English. The CLI's message stays English."""
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    empty = {language: _answer("citow", "battle_hits", {}, language) for language in ("en", "ru", "pl")}
    assert empty["ru"] == {"refused": "input", "field": "dice", "message": "Заполните это поле.", "message_lang": "ru"}
    assert empty["pl"] == {"refused": "input", "field": "dice", "message": "Wypełnij to pole.", "message_lang": "pl"}
    assert empty["en"]["message"] == "Fill in this field." and empty["en"]["message_lang"] == "en"
    schema = rules_check.core.schema("citow")["$defs"]["battle_hits_input"]["properties"]["dice"]
    too_many = _answer("citow", "battle_hits", {"dice": schema["maximum"] + 1}, "ru")
    assert too_many == {"refused": "input", "field": "dice", "message": f"Не больше {schema['maximum']}.", "message_lang": "ru"}
    with pytest.raises(rules_check.InputError) as raised:
        rules_check.run("citow", "battle_hits", {})
    assert str(raised.value) == "dice: 'dice' is a required property"
    unknown = _answer("citow", "battle_hits", {"dice": 1, "no_such_field": 1}, "ru")  # a keyword no form meets
    assert unknown["message_lang"] == "en" and "no_such_field" in unknown["message"], unknown
