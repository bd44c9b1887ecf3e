"""rules_check: input that cannot crash it. Any JSON gives an answer (exit 0), a rules refusal (exit 1) or an input
refusal (exit 2), never a traceback, and every byte written is UTF-8: a lone surrogate (legal JSON, "\\ud800") is an
input refusal naming its field, bytes that are not UTF-8 are refused, a refusal quotes a short prefix of the value,
and a size limit (the 256 KiB input cap, the schemas' maxItems, maxLength, maxProperties) is checked before any other
work. The fuzz tests (CLI in-process and as a process, and the API) are in test_rules_input_fuzz.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import pytest
from conftest import REPO

import rules_check
from rules_check import __main__ as cli_main
from rules_check import core, explain

pytest_plugins = ["rules_fixtures"]  # the fixtures rules_data and rc

SURROGATE = "\ud800"
# Inputs that once echoed a lone surrogate into the answer (UnicodeEncodeError, exit 1 with a traceback).
ECHOED = [
    (
        "citow",
        "battle",
        {"figures": {"khorne": {}}, "stats": {}, "cards": [{"power": "khorne", "card": SURROGATE, "timing": "start_of_battle", "dice": 2}]},
    ),
    (
        "citow",
        "conflicting_effects",
        {
            "region_cards": [
                {"power": "khorne", "card": "x" + SURROGATE, "effect": "no corruption tokens", "kind": "forbidding", "action": "place_corruption"}
            ]
        },
    ),
    ("battlelore", "muster_lore", {"unspent_army_points": {"uthuk_yllan": 3, "daqan_lords" + SURROGATE: 7}}),
    ("marauders", "turn", {"lines": [[SURROGATE, "goblins"], [], []], "draws": [{"card": "orcs", "line": 2, "space": 1}]}),
]


def _process(rules_data, game: str, check: str, data: bytes) -> subprocess.CompletedProcess:
    """python -m rules_check GAME CHECK with `data` as its standard input, bytes in and out (not decoded)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "RULES_CHECK_DATA": str(rules_data)}
    return subprocess.run([sys.executable, "-m", "rules_check", game, check], input=data, capture_output=True, cwd=REPO, env=env, timeout=60)


def _main(monkeypatch, capsysbinary, game: str, check: str, data: bytes) -> tuple[int, str, str]:
    """The CLI's main() in-process, its standard input `data` as bytes; the output decoded strictly as UTF-8."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    status = cli_main.main([game, check])
    out, err = capsysbinary.readouterr()
    return status, out.decode("utf-8"), err.decode("utf-8")


@pytest.mark.integration
@pytest.mark.parametrize("game,check,inputs", ECHOED, ids=[f"{g}.{c}" for g, c, _ in ECHOED])
def test_a_lone_surrogate_is_an_input_refusal_naming_its_field(rules_data, game, check, inputs):
    done = _process(rules_data, game, check, json.dumps(inputs).encode("ascii"))
    err = done.stderr.decode("utf-8")  # strict: every byte written is UTF-8
    assert done.returncode == 2, err
    assert "Traceback" not in err and err.startswith("error: invalid input: ") and "lone surrogate" in err
    done.stdout.decode("utf-8")


@pytest.mark.unit
@pytest.mark.parametrize("game,check,inputs", ECHOED, ids=[f"{g}.{c}" for g, c, _ in ECHOED])
def test_a_lone_surrogate_is_refused_in_process_too(rc, rules_data, monkeypatch, game, check, inputs):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    with pytest.raises(rc.InputError, match="lone surrogate"):
        rc.run(game, check, inputs)
    refused = json.loads(explain.answer(game, check, json.dumps(inputs), "en"))
    assert refused["refused"] == "input" and "lone surrogate" in refused["message"]


NOT_UTF8 = {
    "trailing-ff": ("citow", "battle_hits", b'{"dice": 2, "results": [6, 1]}\xff'),
    "cut-character": ("citow", "battle_hits", b'{"dice": 2, "results": [6, 1], "x": "\xc3"}'),
    "encoded-surrogate": ("citow", "battle_hits", b'{"dice": 2, "results": [6, 1], "x": "\xed\xa0\x80"}'),
    "utf-16": ("citow", "battle_hits", '{"dice": 2, "results": [6, 1]}'.encode("utf-16")),
    "answered-before": (
        "citow",
        "conflicting_effects",
        b'{"region_cards": [{"power": "khorne", "card": "Battle Cry\xff", '
        b'"effect": "no corruption", "kind": "forbidding", "action": "place_corruption"}]}',
    ),  # exit 0
}


@pytest.mark.integration
@pytest.mark.parametrize("game,check,data", NOT_UTF8.values(), ids=NOT_UTF8.keys())
def test_bytes_that_are_not_utf8_are_refused(rules_data, game, check, data):
    done = _process(rules_data, game, check, data)
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and done.stdout == b"", err
    assert "not UTF-8 text: byte 0x" in err and "line 1 column " in err and "Traceback" not in err


@pytest.mark.unit
def test_a_refusal_quotes_a_short_prefix_of_the_value(monkeypatch, capsysbinary, rules_data):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    for game, check, document in [
        ("citow", "dominance", {"region": "x" * 250_000, "figures": {}}),
        ("citow", "dominance", {"region": "kislev", "figures": {"y" * 120_000: {}}}),
        ("citow", "dominance", {"region": "kislev", "figures": {}, "z" * 120_000: 1}),
        ("wizards-quest", "death_range", {"side": "attacker", "men": ["a" * 100] * 2000}),
    ]:
        status, out, err = _main(monkeypatch, capsysbinary, game, check, json.dumps(document).encode("utf-8"))
        assert status == 2 and out == "" and len(err) < 300, err[:300]
        assert "…" in err


@pytest.mark.unit
def test_a_size_limit_is_checked_before_the_schema(monkeypatch, capsysbinary, rules_data):
    """A 10,000-item array took 2-3 s to refuse: jsonschema checked every item before the list's length. Now the
    bound is checked first, and the schema's validator is never called."""
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    rules_check.game("citow", rules_data)  # the data read once, outside the measure

    def no_schema(*args):
        raise AssertionError("the schema was consulted before the size limit")

    monkeypatch.setattr(core, "validator", no_schema)
    cases = [
        ("citow", "battle_hits", {"dice": 1, "results": [1] * 10_000}, "results"),
        ("citow", "battle_hits", {"dice": [1] * 80_000, "results": [1]}, "dice"),
        (
            "wizards-quest",
            "attack",
            {"attacker": {"men": 1}, "defender": {"men": 1}, "battles": [{"attacker_roll": 1, "defender_roll": 1}] * 5_000},
            "battles",
        ),
        ("citow", "dominance", {"figures": {str(i): {} for i in range(15_000)}}, "figures"),
    ]
    for game, check, document, field in cases:
        data = json.dumps(document).encode("utf-8")
        start = time.perf_counter()
        status, out, err = _main(monkeypatch, capsysbinary, game, check, data)
        took = time.perf_counter() - start
        with capsysbinary.disabled():  # -s shows the figures
            print(f"{game} {check}: {len(data):,} bytes refused in {took * 1000:.1f} ms")
        assert status == 2 and err.startswith(f"error: invalid input: {field}: "), err[:200]


@pytest.mark.unit
def test_input_over_the_cap_is_not_parsed(monkeypatch, capsysbinary, rules_data):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))

    def no_parse(*args, **kwargs):
        raise AssertionError("input over the cap was parsed")

    monkeypatch.setattr(json, "loads", no_parse)
    status, out, err = _main(monkeypatch, capsysbinary, "citow", "battle_hits", b" " * (1 << 18) + b"{}")
    assert status == 2 and "more than 262,144 bytes" in err


@pytest.mark.unit
def test_nan_and_infinity_are_not_json(monkeypatch, capsysbinary, rules_data):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    for text in (b'{"dice": NaN, "hits": 1}', b'{"dice": 2, "hits": -Infinity}'):
        status, out, err = _main(monkeypatch, capsysbinary, "citow", "hit_probability", text)
        assert status == 2 and "is not a JSON number" in err


@pytest.mark.unit
def test_a_calculator_refuses_text_that_is_not_json(rules_data, monkeypatch):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    for text in ("{", "[" * 100_000, '{"dice": NaN}', "\ud800", "x" * (1 << 18)):
        refused = json.loads(explain.answer("citow", "hit_probability", text, "en"))
        assert refused["refused"] == "input" and refused["field"] == "(input)", refused
