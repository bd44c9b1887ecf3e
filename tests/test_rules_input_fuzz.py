"""rules_check fuzzed with hostile text: documents drawn from each check's input schema (tests/schema_strategy.py), then
given lone surrogates (in values and keys, written as JSON escapes or as the bytes a careless encoder makes) and bytes
that are not UTF-8, through the command line in-process and as a process, and through the API and the calculators'
answer(). Never a traceback and never a wrong exit status: 0 with an answer valid against the output schema, 1 or 2 with
one `error:` line, 2 for every input holding a lone surrogate or a byte that is not UTF-8, and every byte written UTF-8.
The pass that checks sizes before the schema (rules_check/limits.py) never refuses a document the schema accepts."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from conftest import GAMES, REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategy import documents

import rules_check
from rules_check import __main__ as cli_main
from rules_check import core, explain

pytest_plugins = ["rules_fixtures"]  # the fixture rules_data

CHECKS = [(game, name[: -len("_input")]) for game in GAMES for name in core.schema(game)["$defs"] if name.endswith("_input")]
QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)


def _document(data, game: str, check: str):
    defs = core.schema(game)["$defs"]
    return data.draw(documents(defs[f"{check}_input"], defs), label="document")


def _with_surrogate(data, document):
    """The document with a lone surrogate put into one of its strings or keys (or replacing it)."""
    places = []

    def collect(node, setter):
        if isinstance(node, str):
            places.append(setter)
        elif isinstance(node, dict):
            for key in list(node):
                places.append(lambda text, node=node, key=key: node.__setitem__(key + text, node.pop(key)))
                collect(node[key], lambda value, node=node, key=key: node.__setitem__(key, value))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                collect(item, lambda value, node=node, index=index: node.__setitem__(index, value))

    box = [document]
    collect(document, lambda value: box.__setitem__(0, value))
    surrogate = data.draw(SURROGATES, label="surrogate")
    if not places:
        return surrogate
    place = data.draw(st.sampled_from(places), label="place")
    place(data.draw(st.sampled_from([surrogate, "x" + surrogate, surrogate + "y"]), label="text"))
    return box[0]


def _has_surrogate(node) -> bool:
    if isinstance(node, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in node)
    if isinstance(node, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_has_surrogate(item) for item in node)
    return False


@st.composite
def hostile_input(draw, game: str, check: str) -> tuple[bytes, str]:
    """Bytes for the command line, and what they hold: "text" (UTF-8 JSON), "surrogate" (a lone surrogate, as a JSON
    escape or encoded), "bytes" (not UTF-8)."""
    data = draw(st.data())
    document = _document(data, game, check)
    kind = draw(st.sampled_from(["text", "surrogate", "surrogate", "bytes"]))
    if kind == "surrogate":
        document = _with_surrogate(data, document)
        if draw(st.booleans()):
            return json.dumps(document).encode("ascii"), kind  # "\ud800": legal JSON
        return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass"), "bytes"  # b"\xed\xa0\x80"
    text = json.dumps(document, ensure_ascii=draw(st.booleans())).encode("utf-8")
    if kind == "bytes":
        where = draw(st.integers(0, len(text)))
        bad = draw(st.sampled_from([b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"]))
        text = text[:where] + bad + text[where:]
    return text, kind


def _checked(game: str, check: str, status: int, out: bytes, err: bytes, kind: str) -> None:
    out_text, err_text = out.decode("utf-8"), err.decode("utf-8")  # strict: every byte written is UTF-8
    assert status in (0, 1, 2), err_text
    assert "Traceback" not in err_text
    if kind != "text":
        assert status == 2, (kind, status, err_text)  # a surrogate: refused as such, or for an earlier fault
        assert kind != "bytes" or "not UTF-8 text" in err_text, err_text
    if status == 0:
        rules_check.validate(game, check, "output", json.loads(out_text))
        assert err_text == ""
    else:
        assert out_text == "" and err_text.startswith("error: ") and err_text.count("\n") == 1, err_text


@pytest.mark.unit
@pytest.mark.parametrize("game,check", CHECKS, ids=[f"{g}.{c}" for g, c in CHECKS])
@settings(max_examples=10, deadline=None, suppress_health_check=QUIET)
@given(data=st.data())
def test_cli_in_process_answers_or_refuses_hostile_text(rules_data, monkeypatch, capsysbinary, game, check, data):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    text, kind = data.draw(hostile_input(game, check), label="input")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text), encoding="utf-8"))
    status = cli_main.main([game, check])
    out, err = capsysbinary.readouterr()
    _checked(game, check, status, out, err, kind)


@pytest.mark.integration
@settings(max_examples=12, deadline=None, suppress_health_check=QUIET)
@given(data=st.data())
def test_cli_process_answers_or_refuses_hostile_text(rules_data, data):
    """As a process: the real standard streams (the ones that once wrote a surrogate back as a traceback)."""
    game, check = data.draw(st.sampled_from(CHECKS), label="check")
    text, kind = data.draw(hostile_input(game, check), label="input")
    env = {**os.environ, "PYTHONPATH": str(REPO), "RULES_CHECK_DATA": str(rules_data)}
    done = subprocess.run([sys.executable, "-m", "rules_check", game, check], input=text, capture_output=True, cwd=REPO, env=env, timeout=60)
    _checked(game, check, done.returncode, done.stdout, done.stderr, kind)


@pytest.mark.unit
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=40, deadline=None, suppress_health_check=QUIET)
@given(data=st.data())
def test_api_and_calculator_answer_or_refuse_hostile_documents(rules_data, monkeypatch, game, data):
    monkeypatch.setenv("RULES_CHECK_DATA", str(rules_data))
    check = data.draw(st.sampled_from([c for g, c in CHECKS if g == game]), label="check")
    document = _document(data, game, check)
    if data.draw(st.booleans(), label="surrogate"):
        document = _with_surrogate(data, document)
    try:
        output = rules_check.run(game, check, document, rules_data)
        rules_check.validate(game, check, "output", output)
        assert not _has_surrogate(document)
    except rules_check.InputError as err:
        str(err).encode("utf-8")  # a refusal is text
    except rules_check.RulesError as err:
        assert not _has_surrogate(document)
        str(err).encode("utf-8")
    shown = explain.answer(game, check, json.dumps(document), data.draw(st.sampled_from(["en", "pl", "ru"])))
    shown.encode("utf-8")
    assert "refused" in json.loads(shown) or "sentence" in json.loads(shown)
    if _has_surrogate(document):
        assert json.loads(shown)["refused"] == "input"


@pytest.mark.unit
@pytest.mark.parametrize("game,check", CHECKS, ids=[f"{g}.{c}" for g, c in CHECKS])
@settings(max_examples=20, deadline=None, suppress_health_check=QUIET)
@given(data=st.data())
def test_the_size_pass_never_refuses_what_the_schema_accepts(game, check, data):
    """limits.walk refuses early only what the schema refuses too: a document the schema accepts passes it."""
    document = _document(data, game, check)
    accepted = core.validator(game, check, "input").is_valid(document)
    try:
        core.check_sizes(game, check, document)
    except rules_check.InputError as err:
        assert not accepted, f"the size pass refused a document the schema accepts: {err}"
